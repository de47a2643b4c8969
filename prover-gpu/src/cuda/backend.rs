//! [`Backend`] on an NVIDIA GPU. Every operation runs on the device, and none falls back to
//! the CPU: a device failure is an error naming the operation. Committed LDEs and their
//! Merkle trees stay in device memory; openings gather rows and paths there and download
//! only those words.

use std::sync::Arc;

use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};
use kestrel_core::field::{Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::proof::Opening;

use super::buffer::DeviceBuffer;
use super::device::CudaDevice;
use super::error::CudaError;
use super::logup::felts;
use super::merkle::{self, DeviceTree, Leaves};
use super::ntt::{lde_coeffs, lde_trace, Twiddles};
use super::stats::CudaStats;
use super::{deep, eval, fri, grind, logup, quotient};
use crate::backend::{Backend, DeepInputs, QuotientInputs};
use crate::prover::ProverError;

/// The CUDA backend: one device, its kernels, and cached twiddle tables.
pub struct CudaBackend {
    dev: Arc<CudaDevice>,
    twiddles: Twiddles,
}

/// A committed matrix on the device: its LDE column-major (column c at `c · rows`, rows
/// bit-reversed) and its Merkle tree.
pub struct CudaCommitted {
    pub(crate) lde: DeviceBuffer<u64>,
    pub(crate) width: usize,
    pub(crate) log_rows: u32,
    pub(crate) tree: DeviceTree,
}

impl CudaCommitted {
    pub fn rows(&self) -> usize {
        1 << self.log_rows
    }
    pub fn width(&self) -> usize {
        self.width
    }
}

/// A committed FRI layer: the host values it was handed (the trait hands layers over as
/// host vectors and reads them back through `fri_values`) and their device tree.
pub struct CudaFriLayer {
    pub(crate) values: Vec<Ext3>,
    pub(crate) tree: DeviceTree,
    /// The tree's levels downloaded once at the first opening (counted as "fri tree
    /// download"): one transfer instead of a device round trip per query.
    pub(crate) host_tree: std::sync::OnceLock<Vec<u64>>,
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
        self.dev.counters.snapshot()
    }

    /// Zeroes the counters (memory held stays counted).
    pub fn reset_stats(&self) {
        self.dev.counters.reset();
    }

    /// Downloads a committed LDE as a row-major matrix (bit-reversed rows, as the CPU
    /// backend's `CpuCommitted::lde`), counted as "lde download"; for parity tests.
    ///
    /// # Errors
    /// A device failure.
    pub fn lde_to_host(&self, c: &CudaCommitted) -> Result<RowMajorMatrix, ProverError> {
        let s = self.dev.stream();
        let rows = self.dev.alloc::<u64>(&s, c.lde.len(), "lde download")?;
        super::ntt::cols_to_rows(
            &self.dev,
            &s,
            rows.ptr(&s),
            c.lde.ptr(&s),
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
        lde: DeviceBuffer<u64>,
        width: usize,
        log_rows: u32,
    ) -> Result<CudaCommitted, ProverError> {
        let tree = merkle::build(
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
        Ok(CudaCommitted {
            lde,
            width,
            log_rows,
            tree,
        })
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

impl Backend for CudaBackend {
    fn report(&self) -> serde_json::Value {
        serde_json::to_value(self.stats()).unwrap_or_default()
    }

    type Committed = CudaCommitted;
    type FriLayer = CudaFriLayer;

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn commit_trace(
        &self,
        trace: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<CudaCommitted, ProverError> {
        Self::check_matrix(trace, "commit_trace")?;
        self.dev.counters.op("commit_trace");
        let s = self.dev.stream();
        let lde = lde_trace(
            &self.dev,
            &self.twiddles,
            &s,
            trace,
            log_blowup,
            "trace upload",
        )?;
        self.commit(
            &s,
            lde,
            trace.width,
            trace.height().trailing_zeros() + log_blowup,
        )
    }

    fn commit_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<CudaCommitted, ProverError> {
        Self::check_matrix(coeffs, "commit_coeffs")?;
        self.dev.counters.op("commit_coeffs");
        let s = self.dev.stream();
        let lde = lde_coeffs(
            &self.dev,
            &self.twiddles,
            &s,
            coeffs,
            log_blowup,
            "coefficient upload",
        )?;
        self.commit(
            &s,
            lde,
            coeffs.width,
            coeffs.height().trailing_zeros() + log_blowup,
        )
    }

    fn root(&self, c: &CudaCommitted) -> Digest {
        c.tree.root
    }

    fn open(&self, c: &CudaCommitted, row: usize) -> Result<Opening, ProverError> {
        if row >= c.rows() {
            return Err(ProverError::Internal("opening row out of range"));
        }
        self.dev.counters.op("open");
        let s = self.dev.stream();
        let (values, path) = merkle::open(
            &self.dev,
            &s,
            c.lde.ptr(&s),
            row as u64,
            1,
            c.rows() as u64,
            c.width as u32,
            &c.tree,
            row as u64,
        )?;
        Ok(Opening {
            values: felts(&values)?,
            path,
        })
    }

    fn logup_aux(
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

    fn quotient(
        &self,
        q: &QuotientInputs<'_, CudaCommitted>,
    ) -> Result<RowMajorMatrix, ProverError> {
        self.dev.counters.op("quotient");
        let s = self.dev.stream();
        quotient::quotient(&self.dev, &self.twiddles, &s, q)
    }

    fn evaluate_trace(
        &self,
        trace: &RowMajorMatrix,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("evaluate_trace");
        let s = self.dev.stream();
        eval::evaluate(&self.dev, &s, trace, point, false)
    }

    fn evaluate_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("evaluate_coeffs");
        let s = self.dev.stream();
        eval::evaluate(&self.dev, &s, coeffs, point, true)
    }

    fn deep(&self, d: &DeepInputs<'_, CudaCommitted>) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("deep");
        let s = self.dev.stream();
        deep::deep(&self.dev, &s, d)
    }

    fn fri_fold(
        &self,
        codeword: &[Ext3],
        beta: Ext3,
        shift: Felt,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.dev.counters.op("fri_fold");
        let s = self.dev.stream();
        fri::fold(&self.dev, &s, codeword, beta, shift)
    }

    fn commit_fri_layer(&self, codeword: Vec<Ext3>) -> Result<CudaFriLayer, ProverError> {
        self.dev.counters.op("commit_fri_layer");
        let s = self.dev.stream();
        let layer = fri::commit_layer(&self.dev, &s, codeword)?;
        self.dev.sync(&s, "commit_fri_layer")?;
        Ok(layer)
    }

    fn fri_root(&self, layer: &CudaFriLayer) -> Digest {
        layer.tree.root
    }

    fn open_fri(
        &self,
        layer: &CudaFriLayer,
        pos: usize,
    ) -> Result<(Ext3, Vec<Digest>), ProverError> {
        self.dev.counters.op("open_fri");
        let s = self.dev.stream();
        fri::open(&self.dev, &s, layer, pos)
    }

    fn fri_values<'a>(&self, layer: &'a CudaFriLayer) -> &'a [Ext3] {
        &layer.values
    }

    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError> {
        self.dev.counters.op("grind");
        let s = self.dev.stream();
        grind::grind(&self.dev, &s, challenge, bits)
    }
}
