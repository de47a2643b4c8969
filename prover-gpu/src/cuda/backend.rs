//! [`Backend`] on an NVIDIA GPU. Every operation runs on the device, and none falls back to
//! the CPU: a device failure is an error naming the operation. Committed LDEs and their
//! Merkle trees stay in device memory; openings gather rows and paths there and download
//! only those words.

use std::sync::Arc;

use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};
use kestrel_core::field::{Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::stark::RoundTreeShape;

use super::buffer::DeviceBuffer;
use super::committed::{CudaCommitted, CudaFriLayer, CudaRoundTree, CudaTrace, Source};
use super::device::CudaDevice;
use super::error::CudaError;
use super::fri::DeviceWords;
use super::logup::felts;
use super::merkle::{self, Leaves};
use super::ntt::{
    cols_to_rows, lde_coeff_rows, lde_coeffs, lde_from_cols, lde_rows, lde_trace, Twiddles,
};
use super::resident::Kind;
use super::stats::CudaStats;
use super::{deep, eval, fri, grind, logup, plan, quotient};
use crate::backend::{
    AuxCommitted, Backend, DeepInputs, DeviceTraces, FriOpening, QuotientCommitted, QuotientInputs,
    RoundOpening, TablePlan,
};
use crate::error::ProverError;

/// The CUDA backend: one device, its kernels, and cached twiddle tables.
pub struct CudaBackend {
    dev: Arc<CudaDevice>,
    twiddles: Twiddles,
}

impl CudaBackend {
    /// The backend on device 0.
    ///
    /// # Errors
    /// [`CudaError::NoDevice`] when there is no usable GPU, [`CudaError::Module`] when the
    /// embedded kernels cannot be loaded.
    pub fn new() -> Result<CudaBackend, CudaError> {
        CudaBackend::on_device(0)
    }

    /// The backend on device `ordinal` (its own context, streams and budget: the free
    /// memory at start until [`CudaBackend::set_vram_budget`]).
    ///
    /// # Errors
    /// As [`CudaBackend::new`]; also [`CudaError::NoDevice`] for an ordinal the driver does
    /// not list.
    pub fn on_device(ordinal: usize) -> Result<CudaBackend, CudaError> {
        Ok(CudaBackend {
            dev: CudaDevice::new(ordinal)?,
            twiddles: Twiddles::default(),
        })
    }

    pub fn device(&self) -> &Arc<CudaDevice> {
        &self.dev
    }

    /// Dispatch counts, bytes moved and device memory so far.
    pub fn stats(&self) -> CudaStats {
        CudaStats {
            vram_budget: self.dev.budget.limit(),
            ..self.dev.counters.snapshot()
        }
    }

    /// Zeroes the counters (memory held stays counted).
    pub fn reset_stats(&self) {
        self.dev.counters.reset();
    }

    /// Sets the device-memory budget in bytes (`None`: the free memory at start less a margin, the
    /// default). Buffers already held count against it.
    pub fn set_vram_budget(&self, bytes: Option<u64>) {
        self.dev
            .budget
            .set_limit(bytes.unwrap_or(self.dev.free_at_start()));
    }

    /// The device-memory budget in bytes.
    pub fn vram_budget(&self) -> u64 {
        self.dev.budget.limit()
    }

    /// Checks the plan of `tables` against the budget: `resident` bytes of their main
    /// traces are already held (and counted in what is held).
    pub(crate) fn check_plan(
        &self,
        tables: &[TablePlan],
        log_blowup: u32,
        resident: u64,
    ) -> Result<(), ProverError> {
        let need = plan::working_set(tables, log_blowup);
        let budget = self.dev.budget.limit();
        // Held for other reasons: the proving key's commitments (cached LDEs are given back
        // on demand, and twiddles kept from an earlier proof are in the plan: neither counts).
        let twiddles = self
            .twiddles
            .held_bytes()
            .min(plan::twiddle_bytes(tables, log_blowup));
        let other = self
            .dev
            .counters
            .held()
            .saturating_sub(self.dev.budget.evictable())
            .saturating_sub(resident)
            .saturating_sub(twiddles);
        let total = other.saturating_add(need).saturating_add(plan::slack(need));
        self.dev.counters.planned(need, total);
        if total > budget {
            return Err(CudaError::Budget {
                what: "the proof's planned working set",
                bytes: need + plan::slack(need),
                held: other,
                budget,
            }
            .into());
        }
        Ok(())
    }

    /// A committed matrix's LDE: the cached buffer, or recomputed from its source with the
    /// kernels that first made it (so the same values) and cached again.
    pub(crate) fn lde(
        &self,
        c: &CudaCommitted,
        s: &Arc<cudarc::driver::CudaStream>,
    ) -> Result<Arc<DeviceBuffer<u64>>, ProverError> {
        if let Some(b) = self.dev.budget.get(&c.lde) {
            return Ok(b);
        }
        self.dev.counters.op("lde recompute");
        let src = self.dev.budget.load(&*self.dev, &c.source)?;
        let n = Self::source_rows(c)?;
        let log_n = n.trailing_zeros();
        let log_blowup = c.log_rows - log_n;
        let lde = if c.coefficients {
            let rows = self.dev.alloc::<u64>(s, src.len(), "lde input")?;
            cols_to_rows(&self.dev, s, rows.ptr(s), src.ptr(s), n as u64, c.width)?;
            let (lde, cols) = lde_coeff_rows(
                &self.dev,
                &self.twiddles,
                s,
                rows.ptr(s),
                log_n,
                c.width,
                log_blowup,
            )?;
            // Frees are stream-ordered: after the kernels that read them.
            drop((rows, cols));
            lde
        } else {
            let evals = self.dev.copy(s, &src, "lde input")?;
            lde_from_cols(
                &self.dev,
                &self.twiddles,
                s,
                evals,
                log_n,
                c.width,
                log_blowup,
            )?
        };
        self.dev.sync(s, "lde recompute")?;
        if lde.len() != c.lde.len() {
            return Err(ProverError::Internal("recomputed LDE of a wrong size"));
        }
        let lde = Arc::new(lde);
        self.dev.budget.put(&c.lde, lde.clone());
        Ok(lde)
    }

    /// Downloads a committed LDE as a row-major matrix (bit-reversed rows, as the CPU
    /// backend's `CpuCommitted::lde`), counted as "lde download"; for parity tests.
    ///
    /// # Errors
    /// A device failure.
    pub fn lde_to_host(&self, c: &CudaCommitted) -> Result<RowMajorMatrix, ProverError> {
        let s = self.dev.stream();
        let lde = self.lde(c, &s)?;
        let rows = self.dev.alloc::<u64>(&s, lde.len(), "lde download")?;
        super::ntt::cols_to_rows(
            &self.dev,
            &s,
            rows.ptr(&s),
            lde.ptr(&s),
            c.rows() as u64,
            c.width,
        )?;
        let words = self
            .dev
            .download(&s, &rows, 0, c.rows() * c.width, "lde download")?;
        Ok(RowMajorMatrix::new(felts(&words)?, c.width))
    }

    fn commit(
        &self,
        stream: &Arc<cudarc::driver::CudaStream>,
        (lde, source): (DeviceBuffer<u64>, Source),
        width: usize,
        log_rows: u32,
    ) -> Result<CudaCommitted, ProverError> {
        let digests = merkle::row_digests(
            &self.dev,
            stream,
            Leaves::Columns {
                data: lde.ptr(stream),
                stride: 1 << log_rows,
                cols: width as u32,
            },
            log_rows,
        )?;
        self.dev.sync(stream, "commit")?;
        let (source, coefficients) = match source {
            Source::Evaluations(b) => (b, false),
            Source::Coefficients(b) => (b, true),
        };
        let budget = &self.dev.budget;
        Ok(CudaCommitted {
            lde: budget.cache(lde, Kind::Recompute),
            width,
            log_rows,
            nodes: budget.cache(digests, Kind::Spill),
            source: budget.cache(source, Kind::Spill),
            coefficients,
        })
    }

    /// A committed matrix's source columns on the device (uploaded again if spilled),
    /// checked against the expected kind.
    fn source(
        &self,
        c: &CudaCommitted,
        coefficients: bool,
        op: &'static str,
    ) -> Result<Arc<DeviceBuffer<u64>>, ProverError> {
        if c.coefficients != coefficients {
            return Err(ProverError::Internal(op));
        }
        Ok(self.dev.budget.load(&*self.dev, &c.source)?)
    }

    /// A committed matrix's row digests on the device (uploaded again if spilled).
    fn nodes(&self, c: &CudaCommitted) -> Result<Arc<DeviceBuffer<u64>>, ProverError> {
        Ok(self.dev.budget.load(&*self.dev, &c.nodes)?)
    }

    /// The height of a commitment's source (before the blowup).
    fn source_rows(c: &CudaCommitted) -> Result<usize, ProverError> {
        let len = c.source.len();
        let n = len / c.width.max(1);
        if c.width == 0 || !n.is_power_of_two() || n > c.rows() || n * c.width != len {
            return Err(ProverError::Internal("committed source of a wrong size"));
        }
        Ok(n)
    }

    fn check_matrix(m: &RowMajorMatrix, op: &'static str) -> Result<(), CudaError> {
        let h = m.height();
        if m.width == 0 || !h.is_power_of_two() {
            return Err(CudaError::Limit {
                op,
                detail: format!(
                    "{h} x {} matrix (needs a nonzero width and a power-of-two height)",
                    m.width
                ),
            });
        }
        Ok(())
    }
}

/// The device computations on host inputs, with host results: what the parity suites
/// compare against the CPU backend's (`crate::cpu::CpuBackend`'s methods of the same names).
impl CudaBackend {
    /// Coset LDE of a host coefficient matrix and its Merkle commitment.
    pub fn commit_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<CudaCommitted, ProverError> {
        Self::check_matrix(coeffs, "commit_coeffs")?;
        self.dev.counters.op("commit_coeffs");
        let s = self.dev.stream();
        let (lde, cols) = lde_coeffs(
            &self.dev,
            &self.twiddles,
            &s,
            coeffs,
            log_blowup,
            "coefficient upload",
        )?;
        self.commit(
            &s,
            (lde, Source::Coefficients(cols)),
            coeffs.width,
            coeffs.height().trailing_zeros() + log_blowup,
        )
    }

    /// The LogUp auxiliary trace of host matrices, downloaded, and the table's total.
    pub fn logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: &RowMajorMatrix,
        preprocessed: Option<&RowMajorMatrix>,
        public: &[Felt],
        challenges: LogUpChallenges,
    ) -> Result<(RowMajorMatrix, Ext3), ProverError> {
        self.dev.counters.op("logup_aux");
        let s = self.dev.stream();
        logup::logup_aux(
            &self.dev,
            &s,
            table,
            shape,
            main,
            preprocessed,
            public,
            challenges,
        )
    }

    /// The quotient's coefficients, downloaded (see [`CpuBackend::quotient`](crate::cpu::CpuBackend::quotient)).
    pub fn quotient(
        &self,
        q: &QuotientInputs<'_, CudaCommitted>,
    ) -> Result<RowMajorMatrix, ProverError> {
        self.dev.counters.op("quotient");
        let s = self.dev.stream();
        quotient::quotient(&self.dev, &self.twiddles, &s, q, &|c| self.lde(c, &s))
    }

    /// Each column of a host trace evaluated at `point`.
    pub fn evaluate_trace(
        &self,
        trace: &RowMajorMatrix,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("evaluate_trace");
        let s = self.dev.stream();
        eval::evaluate(&self.dev, &s, trace, point, false)
    }

    /// Each column of a host coefficient matrix evaluated at `point`.
    pub fn evaluate_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("evaluate_coeffs");
        let s = self.dev.stream();
        eval::evaluate(&self.dev, &s, coeffs, point, true)
    }

    /// The DEEP quotient of one table, downloaded.
    pub fn deep(&self, d: &DeepInputs<'_, CudaCommitted>) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("deep");
        let s = self.dev.stream();
        deep::deep(&self.dev, &s, &self.twiddles, d, &|c| {
            Ok(self.dev.budget.load(&*self.dev, &c.source)?)
        })
    }

    /// Folds a host codeword in half.
    pub fn fri_fold(
        &self,
        codeword: &[Ext3],
        beta: Ext3,
        shift: Felt,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("fri_fold");
        let s = self.dev.stream();
        fri::fold(&self.dev, &s, codeword, beta, shift)
    }

    /// Commits a host FRI layer of arity `2^log_arity`.
    pub fn commit_fri_layer(
        &self,
        codeword: Vec<Ext3>,
        log_arity: u32,
    ) -> Result<CudaFriLayer, ProverError> {
        self.dev.counters.op("commit_fri_layer");
        let s = self.dev.stream();
        let layer = fri::commit_layer(&self.dev, &s, codeword, log_arity)?;
        self.dev.sync(&s, "commit_fri_layer")?;
        Ok(layer)
    }

    /// The other values of position `pos`'s leaf and the leaf's path.
    pub fn open_fri(
        &self,
        layer: &CudaFriLayer,
        pos: usize,
    ) -> Result<crate::backend::FriOpening, ProverError> {
        self.dev.counters.op("open_fri");
        let s = self.dev.stream();
        fri::open_batch(&self.dev, &s, layer, &[pos])?
            .pop()
            .ok_or(ProverError::Internal("FRI opening"))
    }

    /// The host values a layer was committed from (empty for one committed from device
    /// words).
    pub fn fri_values<'a>(&self, layer: &'a CudaFriLayer) -> &'a [Ext3] {
        layer.host.as_deref().unwrap_or(&[])
    }

    /// A host codeword in device words (counted as `fri codeword` uploads).
    ///
    /// # Errors
    /// A device failure.
    pub fn upload_codeword(&self, v: &[Ext3]) -> Result<DeviceWords, ProverError> {
        let s = self.dev.stream();
        fri::upload(&self.dev, &s, v, "fri codeword")
    }
}

/// The pieces [`CudaBackend::warm_memory`] maps device memory in (1 GiB).
const WARM_PIECE: u64 = 1 << 30;

impl Backend for CudaBackend {
    type Committed = CudaCommitted;
    type RoundTree = CudaRoundTree;
    type Codeword = DeviceWords;
    type FriLayer = CudaFriLayer;

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn report(&self) -> serde_json::Value {
        serde_json::to_value(self.stats()).unwrap_or_default()
    }

    fn memory_budget(&self) -> Option<u64> {
        Some(self.vram_budget())
    }

    /// Allocates up to `bytes` in pieces of [`WARM_PIECE`] until `stop` is set, holding at
    /// most half the budget (the setup runs beside it and must find its memory), then frees
    /// them: the device's pool keeps freed memory (no release threshold), so the proof's
    /// allocations reuse it. New memory costs about 2 ms per GB to map (H200: 162–204 ms for
    /// 87 GB), which a proof otherwise pays in its stages.
    fn warm_memory(&self, bytes: u64, stop: &std::sync::atomic::AtomicBool) {
        use std::sync::atomic::Ordering;
        let at = std::time::Instant::now();
        let cap = self.vram_budget() / 2;
        // Its own stream: the pool's streams carry the setup's work.
        let Ok(s) = self.dev.side_stream() else {
            return;
        };
        let mut pieces = Vec::new();
        let mut warmed = 0;
        while warmed + WARM_PIECE <= bytes
            && !stop.load(Ordering::Relaxed)
            && self.dev.counters.held() + WARM_PIECE <= cap
        {
            // A failure here only means the proof maps its memory as it goes.
            match self
                .dev
                .alloc::<u8>(&s, WARM_PIECE as usize, "pool warm-up")
            {
                Ok(b) => pieces.push(b),
                Err(_) => break,
            }
            warmed += WARM_PIECE;
        }
        // Freed in the stream's order, after the mapping the allocations queued there: the
        // proof does not wait for it (its first allocations may, on the device).
        drop(pieces);
        self.dev.counters.host_time("pool warm-up", at);
        self.dev.counters.warmed(warmed);
    }

    fn ceilings(&self) -> Result<crate::roofline::Ceilings, ProverError> {
        static CEIL: std::sync::OnceLock<crate::roofline::Ceilings> = std::sync::OnceLock::new();
        if let Some(c) = CEIL.get() {
            return Ok(c.clone());
        }
        let c = super::bench::ceilings(&self.dev)?;
        Ok(CEIL.get_or_init(|| c).clone())
    }

    /// Refuses, before any main trace is committed, a budget below the proof's planned
    /// working set ([`plan::working_set`]).
    fn plan_memory(&self, tables: &[TablePlan], log_blowup: u32) -> Result<(), ProverError> {
        self.check_plan(tables, log_blowup, plan::resident_bytes(tables))
    }

    fn commit_trace(
        &self,
        trace: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<CudaCommitted, ProverError> {
        Self::check_matrix(trace, "commit_trace")?;
        self.dev.counters.op("commit_trace");
        let s = self.dev.stream();
        let (lde, natural) = lde_trace(
            &self.dev,
            &self.twiddles,
            &s,
            trace,
            log_blowup,
            "trace upload",
        )?;
        self.commit(
            &s,
            (lde, Source::Evaluations(natural)),
            trace.width,
            trace.height().trailing_zeros() + log_blowup,
        )
    }

    /// The row digests of every matrix (uploaded again where spilled), then the levels of
    /// [`merkle::build_mixed`]; the tree stays on the device (spillable).
    fn commit_round(&self, matrices: &[&CudaCommitted]) -> Result<CudaRoundTree, ProverError> {
        self.dev.counters.op("commit_round");
        let shape = RoundTreeShape::over(matrices.iter().map(|c| c.log_rows))
            .ok_or(ProverError::Internal("a round without matrices"))?;
        let s = self.dev.stream();
        let held = matrices
            .iter()
            .map(|c| self.nodes(c))
            .collect::<Result<Vec<_>, _>>()?;
        let at: Vec<(u64, u32)> = held
            .iter()
            .zip(matrices)
            .map(|(d, c)| (d.ptr(&s), c.log_rows))
            .collect();
        let tree = merkle::build_mixed(&self.dev, &s, &at, shape.cap_bits)?;
        self.dev.sync(&s, "commit_round")?;
        drop(held);
        Ok(CudaRoundTree {
            nodes: self.dev.budget.cache(tree.nodes, Kind::Spill),
            log_leaves: tree.log_leaves,
            cap_bits: tree.cap_bits,
            cap: tree.cap,
        })
    }

    fn round_cap(&self, tree: &CudaRoundTree) -> Vec<Digest> {
        tree.cap.clone()
    }

    /// Reads the main trace from the commitment's device source (host trace or device fill
    /// alike); the host matrix is never needed.
    fn commit_logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: (&CudaCommitted, Option<&RowMajorMatrix>),
        preprocessed: Option<(&CudaCommitted, &RowMajorMatrix)>,
        public: &[Felt],
        challenges: LogUpChallenges,
        log_blowup: u32,
    ) -> Result<AuxCommitted<CudaCommitted>, ProverError> {
        self.dev.counters.op("logup_aux");
        let main_cols = self.source(main.0, false, "logup: main is not a trace commitment")?;
        let n = Self::source_rows(main.0)?;
        let pre_cols = match preprocessed {
            Some((p, _)) => {
                let cols = self.source(p, false, "logup: preprocessed is not a trace")?;
                if Self::source_rows(p)? != n {
                    return Err(ProverError::Internal(
                        "logup: preprocessed and main heights differ",
                    ));
                }
                Some(cols)
            }
            None => None,
        };
        let s = self.dev.stream();
        let (aux, width, total) = logup::logup_aux_device(
            &self.dev,
            &s,
            table,
            shape,
            main_cols.ptr(&s),
            pre_cols.as_ref().map(|c| c.ptr(&s)),
            n,
            public,
            challenges,
        )?;
        self.dev.counters.op("commit_trace");
        let log_n = n.trailing_zeros();
        let (lde, natural) = lde_rows(
            &self.dev,
            &self.twiddles,
            &s,
            aux.ptr(&s),
            log_n,
            width,
            log_blowup,
        )?;
        drop(aux);
        let committed = self.commit(
            &s,
            (lde, Source::Evaluations(natural)),
            width,
            log_n + log_blowup,
        )?;
        Ok(AuxCommitted {
            committed,
            host: None,
            total,
        })
    }

    fn commit_quotient(
        &self,
        q: &QuotientInputs<'_, CudaCommitted>,
    ) -> Result<QuotientCommitted<CudaCommitted>, ProverError> {
        self.dev.counters.op("quotient");
        let s = self.dev.stream();
        let (split, width) =
            quotient::quotient_device(&self.dev, &self.twiddles, &s, q, &|c| self.lde(c, &s))?;
        self.dev.counters.op("commit_coeffs");
        let (lde, cols) = lde_coeff_rows(
            &self.dev,
            &self.twiddles,
            &s,
            split.ptr(&s),
            q.log_height,
            width,
            q.log_blowup,
        )?;
        drop(split);
        let committed = self.commit(
            &s,
            (lde, Source::Coefficients(cols)),
            width,
            q.log_height + q.log_blowup,
        )?;
        Ok(QuotientCommitted {
            committed,
            host: None,
        })
    }

    fn evaluate_committed(
        &self,
        c: &CudaCommitted,
        _trace: Option<&RowMajorMatrix>,
        points: &[Ext3],
    ) -> Result<Vec<Vec<Ext3>>, ProverError> {
        self.dev.counters.op("evaluate_trace");
        let cols = self.source(c, false, "evaluate_committed: not a trace commitment")?;
        let s = self.dev.stream();
        let n = Self::source_rows(c)?;
        eval::evaluate_cols(&self.dev, &s, cols.ptr(&s), n, c.width, points, false)
    }

    fn evaluate_quotient(
        &self,
        q: &QuotientCommitted<CudaCommitted>,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("evaluate_coeffs");
        let c = &q.committed;
        let cols = self.source(c, true, "evaluate_quotient: not a coefficient commitment")?;
        let s = self.dev.stream();
        let n = Self::source_rows(c)?;
        eval::evaluate_cols(&self.dev, &s, cols.ptr(&s), n, c.width, &[point], true)?
            .pop()
            .ok_or(ProverError::Internal("evaluation count"))
    }

    fn deep_codeword(&self, d: &DeepInputs<'_, CudaCommitted>) -> Result<DeviceWords, ProverError> {
        self.dev.counters.op("deep");
        let s = self.dev.stream();
        let words = deep::deep_device(&self.dev, &s, &self.twiddles, d, &|c| {
            Ok(self.dev.budget.load(&*self.dev, &c.source)?)
        })?;
        let len = 1usize << d.log_lde;
        Ok(DeviceWords { words, len })
    }

    fn add_scaled(
        &self,
        acc: &mut DeviceWords,
        scale: Ext3,
        other: &DeviceWords,
    ) -> Result<(), ProverError> {
        self.dev.counters.op("add_scaled");
        let s = self.dev.stream();
        fri::add_scaled(&self.dev, &s, acc, scale, other)
    }

    fn codeword_len(&self, c: &DeviceWords) -> usize {
        c.len
    }

    fn commit_codeword(
        &self,
        codeword: DeviceWords,
        log_arity: u32,
    ) -> Result<CudaFriLayer, ProverError> {
        self.dev.counters.op("commit_fri_layer");
        let s = self.dev.stream();
        fri::commit_words(&self.dev, &s, codeword, log_arity, None)
    }

    fn fri_cap(&self, layer: &CudaFriLayer) -> Vec<Digest> {
        layer.tree.cap.clone()
    }

    fn fold_layer(
        &self,
        layer: &CudaFriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<DeviceWords, ProverError> {
        self.dev.counters.op("fri_fold");
        let s = self.dev.stream();
        fri::fold_layer(&self.dev, &s, layer, beta, shift)
    }

    fn final_values(&self, codeword: DeviceWords) -> Result<Vec<Ext3>, ProverError> {
        let s = self.dev.stream();
        fri::download(&self.dev, &s, &codeword)
    }

    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError> {
        self.dev.counters.op("grind");
        let s = self.dev.stream();
        grind::grind(&self.dev, &s, challenge, bits)
    }

    /// Each matrix's rows in one gather (values only), then the paths in one gather from
    /// the round tree (levels below the cap).
    fn open_round(
        &self,
        tree: &CudaRoundTree,
        matrices: &[&CudaCommitted],
        indices: &[usize],
    ) -> Result<Vec<RoundOpening>, ProverError> {
        let top = tree.log_leaves;
        if indices.iter().any(|&i| i >> top != 0) || matrices.iter().any(|c| c.log_rows > top) {
            return Err(ProverError::Internal("opening row out of range"));
        }
        self.dev.counters.op("open");
        let s = self.dev.stream();
        let mut out: Vec<RoundOpening> = indices
            .iter()
            .map(|_| (Vec::with_capacity(matrices.len()), Vec::new()))
            .collect();
        for c in matrices {
            let at: Vec<(u64, u64)> = indices
                .iter()
                .map(|&i| ((i >> (top - c.log_rows)) as u64, 0))
                .collect();
            let lde = self.lde(c, &s)?;
            let rows = merkle::open_batch(
                &self.dev,
                &s,
                lde.ptr(&s),
                &at,
                1,
                c.rows() as u64,
                c.width as u32,
                (0, 0, 0),
            )?;
            for (o, (values, _)) in out.iter_mut().zip(rows) {
                o.0.push(felts(&values)?);
            }
        }
        let nodes = self.dev.budget.load(&*self.dev, &tree.nodes)?;
        let at: Vec<(u64, u64)> = indices.iter().map(|&i| (0, i as u64)).collect();
        let paths = merkle::open_batch(
            &self.dev,
            &s,
            0,
            &at,
            0,
            0,
            0,
            (nodes.ptr(&s), top, top - tree.cap_bits),
        )?;
        for (o, (_, path)) in out.iter_mut().zip(paths) {
            o.1 = path;
        }
        Ok(out)
    }

    fn open_fri_batch(
        &self,
        layer: &CudaFriLayer,
        positions: &[usize],
    ) -> Result<Vec<FriOpening>, ProverError> {
        self.dev.counters.op("open_fri");
        let s = self.dev.stream();
        fri::open_batch(&self.dev, &s, layer, positions)
    }
}

impl DeviceTraces for CudaBackend {
    type DeviceTrace = CudaTrace;

    fn trace_dims(&self, t: &CudaTrace) -> (usize, usize) {
        (t.width(), t.height())
    }

    /// The LDE reads a device-to-device copy of the trace (the NTT works in place), and the
    /// trace itself becomes the commitment's source: the LogUp build and the out-of-domain
    /// evaluations read that same buffer. Nothing is uploaded.
    fn commit_device_trace(
        &self,
        t: CudaTrace,
        log_blowup: u32,
    ) -> Result<CudaCommitted, ProverError> {
        self.dev.counters.op("commit_trace");
        self.dev.counters.op("commit_device_trace");
        let s = self.dev.stream();
        let evals = self.dev.copy(&s, &t.cols, "lde input")?;
        let lde = lde_from_cols(
            &self.dev,
            &self.twiddles,
            &s,
            evals,
            t.log_height,
            t.width,
            log_blowup,
        )?;
        self.commit(
            &s,
            (lde, Source::Evaluations(t.cols)),
            t.width,
            t.log_height + log_blowup,
        )
    }

    /// Transposed to rows on the device, then downloaded (counted as "device trace
    /// download").
    fn download_trace(&self, t: &CudaTrace) -> Result<RowMajorMatrix, ProverError> {
        let s = self.dev.stream();
        let rows = self
            .dev
            .alloc::<u64>(&s, t.cols.len(), "device trace download")?;
        cols_to_rows(
            &self.dev,
            &s,
            rows.ptr(&s),
            t.cols.ptr(&s),
            t.height() as u64,
            t.width,
        )?;
        let words = self
            .dev
            .download(&s, &rows, 0, t.cols.len(), "device trace download")?;
        Ok(RowMajorMatrix::new(felts(&words)?, t.width))
    }
}
