//! What the GPU tests of the tables of distinct rows (LT, EQ, SHIFT, MUL, DVRM;
//! `tests/tests/cuda_fill_alu.rs`, `cuda_fill_dvrm.rs`) share: each table's device fill
//! against its room's host fill on edge ops, random rows and ops, and after faults.

use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::{distinct_height, AluOp, Distinct};
use kestrel_prover_gpu::backend::DeviceTraces;
use kestrel_prover_gpu::cuda::{CudaBackend, CudaTrace};
use kestrel_prover_gpu::error::ProverError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::first_diff;

/// The CUDA backend, or a panic saying the test needs one (these tests are `#[ignore]`d
/// and run with `--ignored` on the GPU machine only).
pub fn gpu() -> CudaBackend {
    CudaBackend::new().unwrap_or_else(|e| panic!("no CUDA device ({e}): this test needs one"))
}

/// One table of distinct rows: its device fill and its room's host fill and merge.
pub struct DistinctFill {
    /// Its name in the fill counters (`CudaStats::fill`).
    pub name: &'static str,
    pub width: usize,
    pub fill: fn(&CudaBackend, &[Distinct]) -> Result<CudaTrace, ProverError>,
    pub host: fn(&[Distinct]) -> RowMajorMatrix,
    pub distinct: fn(&[AluOp]) -> Vec<Distinct>,
}

impl DistinctFill {
    /// Fills `rows` on the device and compares the trace with the host fill's.
    pub fn check(&self, g: &CudaBackend, what: &str, rows: &[Distinct]) {
        self.check_against(g, what, rows, &(self.host)(rows));
    }

    /// Fills `rows` on the device and compares the trace with `host` (e.g. what the
    /// packing pass built from the same records).
    pub fn check_against(
        &self,
        g: &CudaBackend,
        what: &str,
        rows: &[Distinct],
        host: &RowMajorMatrix,
    ) {
        let t = (self.fill)(g, rows).unwrap();
        assert_eq!(t.width(), self.width);
        assert_eq!(t.height(), distinct_height(rows.len()));
        let dev = g.download_trace(&t).unwrap();
        assert!(
            dev == *host,
            "{} {what}: device fill differs at {}",
            self.name,
            first_diff(&dev, host)
        );
    }

    /// `ops` merged, every `step`-th alone (a one-row trace, so neighbours cannot mask a
    /// row's error), and as unsorted, repeated rows with extreme multiplicities; returns the
    /// fills made.
    pub fn check_edge_ops(&self, g: &CudaBackend, ops: Vec<AluOp>, step: usize, seed: u64) -> u64 {
        self.check(g, "edge ops", &(self.distinct)(&ops));
        let mut fills = 2;
        for (k, o) in ops.iter().enumerate().step_by(step) {
            self.check(g, &format!("edge op {k}"), &(self.distinct)(&[*o]));
            fills += 1;
        }
        self.check(g, "edge rows", &with_mults(ops, seed));
        fills
    }

    /// Rows and merged ops of every height around the minimum (with and without padding,
    /// one past, larger), from `ops(n, seed)`; checks the fills counted and the records
    /// uploaded.
    pub fn check_random(&self, g: &CudaBackend, ops: &dyn Fn(usize, u64) -> Vec<AluOp>, seed: u64) {
        let sizes = [0usize, 1, 7, 8, 9, 1000, 70_001];
        let before = g.stats().fill(self.name);
        for (k, &n) in sizes.iter().enumerate() {
            let s = seed + 10 * k as u64;
            let rows = with_mults(ops(n, s), s + 1);
            assert_eq!(rows.len(), n);
            self.check(g, &format!("{n} random rows"), &rows);
            // The same sizes through the merge (sorted, repeats merged).
            self.check(
                g,
                &format!("{n} random ops"),
                &(self.distinct)(&ops(n, s + 2)),
            );
        }
        let s = g.stats();
        assert_eq!(s.fill(self.name) - before, 2 * sizes.len() as u64);
        assert!(s.h2d_bytes.get("packed op records").copied().unwrap_or(0) > 0);
    }

    /// An injected launch failure and a failed allocation are errors, not traces, and the
    /// device fills `good` afterwards.
    pub fn check_faults(&self, g: &CudaBackend, good: Distinct) {
        g.device().inject_fill_launch_failure();
        let e = (self.fill)(g, &[good]).err().expect("an error");
        assert!(e.to_string().contains("injected launch failure"), "{e}");
        g.device().inject_alloc_failure(2);
        let e = (self.fill)(g, &[good]).err().expect("an error");
        g.device().inject_alloc_failure(0);
        assert!(e.to_string().contains("injected"), "{e}");
        self.check(g, "after faults", &[good]);
    }
}

/// A row per op of `ops`, not necessarily sorted or distinct, with extreme multiplicities.
pub fn with_mults(ops: Vec<AluOp>, seed: u64) -> Vec<Distinct> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows: Vec<Distinct> = ops
        .into_iter()
        .map(|o| Distinct {
            op: o.op,
            a: o.a,
            b: o.b,
            mult: match rng.gen_range(0..4) {
                0 => 1,
                1 => u32::MAX,
                2 => 0,
                _ => rng.gen(),
            },
        })
        .collect();
    if rng.gen_bool(0.5) {
        rows.sort_unstable();
    }
    rows
}
