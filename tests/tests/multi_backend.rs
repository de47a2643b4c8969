//! A segmented run proven on several backends at once (`prove_with_backends`, `--devices`):
//! the proof is the bytes one backend makes and verifies; more backends than segments is
//! fine; a backend failing stops the proof with its error and no thread hangs; the report
//! says which backend did which segments; devices are refused for the CPU backend.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};
use kestrel_core::field::{Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::machine::RecordRefs;
use kestrel_core::rv::table::TableId;
use kestrel_prover_gpu::api::{
    verify_file, BackendChoice, Devices, ErrorKind, Guest, Progress, ProveOptions, Proved,
};
use kestrel_prover_gpu::backend::{
    AuxCommitted, Backend, DeepInputs, DeviceTraces, FriOpening, QuotientCommitted, QuotientInputs,
    RoundOpening, TablePlan,
};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::error::ProverError;
use kestrel_prover_gpu::roofline::Ceilings;
use kestrel_prover_gpu::rv::RvFills;
use kestrel_tests::cli_bin::kestrel;
use kestrel_tests::vm_support::guest_path;

const BLOWUP: usize = 2;
/// Fibonacci's input: a run of a few thousand cycles.
const INPUT: &[u8] = b"300";

fn options(segment_log: u32) -> ProveOptions {
    ProveOptions {
        backend: BackendChoice::Cpu,
        blowup: BLOWUP,
        segment_log: Some(segment_log),
        ..ProveOptions::default()
    }
}

fn guest() -> Guest {
    Guest::load(guest_path("fibonacci")).unwrap()
}

/// Runs `f` on a thread and fails the test if it has not returned within `secs` seconds
/// (a hung worker or producer would otherwise hang the test).
fn within<R: Send + 'static>(secs: u64, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|e| panic!("no result within {secs} s ({e}): a thread hangs"))
}

/// Proves fibonacci on `backends`, checks the report's per-backend counts and returns the
/// proof.
fn prove_on<B: RvFills>(backends: &[B], segment_log: u32) -> Proved {
    let mut done: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    let proved = guest()
        .prove_with_backends(backends, INPUT, &options(segment_log), &mut |p| {
            if let Progress::Segment(p) = p {
                done[usize::from(p.phase) - 1].push(p.done);
            }
        })
        .unwrap();
    let seg = proved.report.segmented.as_ref().expect("a segmented proof");
    // Each phase counts every part once, in order, whichever backend finished it.
    let parts: Vec<usize> = (1..=seg.segments + 1).collect();
    assert_eq!(done, [parts.clone(), parts]);
    assert_eq!(seg.backends.len(), backends.len());
    let committed: usize = seg.backends.iter().map(|b| b.committed).sum();
    let proven: usize = seg.backends.iter().map(|b| b.proved).sum();
    assert_eq!((committed, proven), (seg.segments, seg.segments), "{seg:?}");
    assert!(seg.backends.iter().all(|b| b.busy_seconds >= 0.0));
    assert!(
        seg.backends[0].busy_seconds > 0.0,
        "the run part is backend 0's"
    );
    assert!(seg.executor_mhz > 0.0 && seg.backends_fed > 0.0, "{seg:?}");
    // In order up to two backends, from checkpoints with one packer per backend beyond.
    let packers = if backends.len() <= 2 {
        1
    } else {
        backends.len()
    };
    assert_eq!(seg.packers, packers, "{seg:?}");
    proved
}

fn verifies(p: &Proved) {
    let vk = guest().verifying_key(BLOWUP).unwrap();
    assert_eq!(vk, p.report.vk);
    assert_eq!(verify_file(&vk, &p.file_bytes()).unwrap(), p.statement);
}

#[test]
fn several_backends_make_the_one_backend_proof() {
    let one = prove_on(&[CpuBackend], 8);
    let segments = one.report.segmented.as_ref().unwrap().segments;
    assert!(segments >= 4, "{segments} segments");
    verifies(&one);
    for n in [2, 3] {
        let many = within(120, move || prove_on(&vec![CpuBackend; n], 8));
        assert!(many.proof == one.proof, "{n} backends: another proof");
        assert_eq!(many.statement, one.statement);
        verifies(&many);
    }
}

#[test]
fn more_backends_than_segments() {
    let one = prove_on(&[CpuBackend], 10);
    let segments = one.report.segmented.as_ref().unwrap().segments;
    assert!((2..8).contains(&segments), "{segments} segments");
    let many = within(120, || prove_on(&[CpuBackend; 8], 10));
    assert!(many.proof == one.proof);
    let seg = many.report.segmented.as_ref().unwrap();
    assert!(seg
        .backends
        .iter()
        .any(|b| b.committed == 0 && b.proved == 0));
    verifies(&many);
}

/// The CPU backend, failing its `fail_at`th main-trace commitment (counted over every
/// backend sharing `calls`; `usize::MAX`: never).
#[derive(Clone)]
struct Flaky {
    calls: Arc<AtomicUsize>,
    fail_at: usize,
}

impl Backend for Flaky {
    type Committed = <CpuBackend as Backend>::Committed;
    type RoundTree = <CpuBackend as Backend>::RoundTree;
    type Codeword = <CpuBackend as Backend>::Codeword;
    type FriLayer = <CpuBackend as Backend>::FriLayer;

    fn name(&self) -> &'static str {
        "flaky"
    }
    fn report(&self) -> serde_json::Value {
        CpuBackend.report()
    }
    fn ceilings(&self) -> Result<Ceilings, ProverError> {
        CpuBackend.ceilings()
    }
    fn plan_memory(&self, tables: &[TablePlan], log_blowup: u32) -> Result<(), ProverError> {
        CpuBackend.plan_memory(tables, log_blowup)
    }
    fn commit_trace(
        &self,
        trace: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<Self::Committed, ProverError> {
        if self.calls.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at {
            return Err(ProverError::Backend("injected failure".into()));
        }
        CpuBackend.commit_trace(trace, log_blowup)
    }
    fn commit_round(&self, m: &[&Self::Committed]) -> Result<Self::RoundTree, ProverError> {
        CpuBackend.commit_round(m)
    }
    fn round_cap(&self, t: &Self::RoundTree) -> Vec<Digest> {
        CpuBackend.round_cap(t)
    }
    fn commit_logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: (&Self::Committed, Option<&RowMajorMatrix>),
        preprocessed: Option<(&Self::Committed, &RowMajorMatrix)>,
        public: &[Felt],
        challenges: LogUpChallenges,
        log_blowup: u32,
    ) -> Result<AuxCommitted<Self::Committed>, ProverError> {
        CpuBackend.commit_logup_aux(
            table,
            shape,
            main,
            preprocessed,
            public,
            challenges,
            log_blowup,
        )
    }
    fn commit_quotient(
        &self,
        q: &QuotientInputs<'_, Self::Committed>,
    ) -> Result<QuotientCommitted<Self::Committed>, ProverError> {
        CpuBackend.commit_quotient(q)
    }
    fn evaluate_committed(
        &self,
        c: &Self::Committed,
        trace: Option<&RowMajorMatrix>,
        points: &[Ext3],
    ) -> Result<Vec<Vec<Ext3>>, ProverError> {
        CpuBackend.evaluate_committed(c, trace, points)
    }
    fn evaluate_quotient(
        &self,
        q: &QuotientCommitted<Self::Committed>,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        CpuBackend.evaluate_quotient(q, point)
    }
    fn deep_codeword(
        &self,
        d: &DeepInputs<'_, Self::Committed>,
    ) -> Result<Self::Codeword, ProverError> {
        CpuBackend.deep_codeword(d)
    }
    fn add_scaled(
        &self,
        acc: &mut Self::Codeword,
        scale: Ext3,
        other: &Self::Codeword,
    ) -> Result<(), ProverError> {
        CpuBackend.add_scaled(acc, scale, other)
    }
    fn codeword_len(&self, c: &Self::Codeword) -> usize {
        CpuBackend.codeword_len(c)
    }
    fn commit_codeword(
        &self,
        codeword: Self::Codeword,
        log_arity: u32,
    ) -> Result<Self::FriLayer, ProverError> {
        CpuBackend.commit_codeword(codeword, log_arity)
    }
    fn fri_cap(&self, layer: &Self::FriLayer) -> Vec<Digest> {
        CpuBackend.fri_cap(layer)
    }
    fn fold_layer(
        &self,
        layer: &Self::FriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<Self::Codeword, ProverError> {
        CpuBackend.fold_layer(layer, beta, shift)
    }
    fn final_values(&self, codeword: Self::Codeword) -> Result<Vec<Ext3>, ProverError> {
        CpuBackend.final_values(codeword)
    }
    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError> {
        CpuBackend.grind(challenge, bits)
    }
    fn open_round(
        &self,
        t: &Self::RoundTree,
        m: &[&Self::Committed],
        i: &[usize],
    ) -> Result<Vec<RoundOpening>, ProverError> {
        CpuBackend.open_round(t, m, i)
    }
    fn open_fri_batch(
        &self,
        layer: &Self::FriLayer,
        positions: &[usize],
    ) -> Result<Vec<FriOpening>, ProverError> {
        CpuBackend.open_fri_batch(layer, positions)
    }
}

/// Every trace is on the host, as the CPU backend's.
impl DeviceTraces for Flaky {
    type DeviceTrace = std::convert::Infallible;

    fn trace_dims(&self, t: &Self::DeviceTrace) -> (usize, usize) {
        match *t {}
    }
    fn commit_device_trace(
        &self,
        t: Self::DeviceTrace,
        _log_blowup: u32,
    ) -> Result<Self::Committed, ProverError> {
        match t {}
    }
    fn download_trace(&self, t: &Self::DeviceTrace) -> Result<RowMajorMatrix, ProverError> {
        match *t {}
    }
}

impl RvFills for Flaky {
    fn has_device_fills(&self) -> bool {
        false
    }
    fn fill_records(
        &self,
        _image: &ProgramImage,
        _records: &RecordRefs<'_>,
        _tables: &[TableId],
    ) -> Result<Vec<(TableId, Self::DeviceTrace)>, ProverError> {
        Ok(Vec::new())
    }
}

fn flaky(n: usize, fail_at: usize) -> (Vec<Flaky>, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let b = Flaky {
        calls: calls.clone(),
        fail_at,
    };
    (vec![b; n], calls)
}

/// A backend failing in phase 1 or in phase 2 stops the proof with its error (a device
/// failure), and every thread ends: the call returns.
#[test]
fn a_failing_backend_stops_the_proof() {
    // The commitments of an honest proof on the wrapper: the same proof as the CPU's.
    let (honest, calls) = flaky(3, usize::MAX);
    let proved = within(120, move || prove_on(&honest, 8));
    let all = calls.load(Ordering::SeqCst);
    assert!(proved.proof == prove_on(&[CpuBackend], 8).proof);
    // Early (phase 1), about the middle, and late (phase 2's segments).
    for (fail_at, phase) in [
        (all / 10, Some("commit main")),
        (all / 2, None),
        (all * 3 / 4, Some("prove")),
    ] {
        let (backends, calls) = flaky(3, fail_at);
        let e = within(120, move || {
            guest()
                .prove_with_backends(&backends, INPUT, &options(8), &mut |_| {})
                .err()
        })
        .unwrap_or_else(|| panic!("failing at commitment {fail_at} of {all}: proved"));
        assert_eq!(e.kind(), ErrorKind::Device, "{e}");
        assert!(e.to_string().contains("injected failure"), "{e}");
        if let Some(phase) = phase {
            assert!(e.to_string().starts_with(&format!("{phase}: ")), "{e}");
        }
        // It stopped early: at most a segment per backend was finished after the failure.
        assert!(calls.load(Ordering::SeqCst) < all, "{fail_at}");
    }
}

#[test]
fn devices_are_for_the_cuda_backend() {
    for devices in [Devices::All, Devices::List(vec![0, 0])] {
        let o = ProveOptions {
            devices: devices.clone(),
            ..options(8)
        };
        assert_eq!(o.check().err().map(|e| e.kind()), Some(ErrorKind::Usage));
        let e = guest().prove(INPUT, &o).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.to_string().contains("--devices"), "{e}");
        // Without the cuda feature, also for the automatic choice.
        let auto = ProveOptions {
            backend: BackendChoice::Auto,
            ..o
        };
        assert_eq!(
            auto.check().is_err(),
            !cfg!(feature = "cuda"),
            "{devices:?}"
        );
    }
    let empty = ProveOptions {
        backend: BackendChoice::Auto,
        devices: Devices::List(Vec::new()),
        ..ProveOptions::default()
    };
    assert_eq!(
        empty.check().err().map(|e| e.kind()),
        Some(ErrorKind::Usage)
    );
    // No backend at all.
    let none: &[CpuBackend] = &[];
    let e = guest()
        .prove_with_backends(none, INPUT, &options(8), &mut |_| {})
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Usage);
}

/// `kestrel prove --devices`: refused with `--backend cpu` and when malformed (exit 2,
/// naming the flag).
#[test]
fn the_cli_refuses_bad_devices() {
    let out = std::env::temp_dir().join(format!("kestrel-multi-{}.proof", std::process::id()));
    let elf = guest_path("fibonacci");
    let run = |extra: &[&str]| {
        let o = Command::new(kestrel())
            .arg("prove")
            .arg(&elf)
            .arg("-o")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for extra in [
        &["--backend", "cpu", "--devices", "0,1"][..],
        &["--backend", "cpu", "--devices", "all"],
        &["--devices", "0,x"],
        &["--devices", ""],
        &["--devices", "0,,1"],
        &["--devices=-1"],
    ] {
        let (code, err) = run(extra);
        assert_eq!(code, Some(2), "{extra:?}: {err}");
        assert!(err.contains("--devices"), "{extra:?}: {err}");
    }
    assert!(!out.exists());
}
