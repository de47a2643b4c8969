//! The `Backend` seam: every operation of a proof after trace building. The protocol in
//! [`crate::prover`] is generic over it and never names a concrete backend; the CPU backend
//! ([`crate::cpu::CpuBackend`]) is the reference every other backend must match bit for bit.

use std::any::Any;

use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};
use kestrel_core::field::{Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::proof::Opening;

use crate::prover::ProverError;

/// What the quotient evaluation of one table reads.
pub struct QuotientInputs<'a, C> {
    pub table: &'a dyn TableAir,
    pub shape: &'a TableShape,
    pub log_height: u32,
    pub log_blowup: u32,
    pub preprocessed: Option<&'a C>,
    pub main: &'a C,
    pub aux: Option<&'a C>,
    pub public: &'a [Felt],
    pub challenges: LogUpChallenges,
    pub total: Ext3,
    pub gamma_powers: &'a [Ext3],
}

/// What DEEP combines for one table: its committed matrices in round order and the weights.
pub struct DeepInputs<'a, C> {
    /// Preprocessed (if any), main, aux (if any), quotient.
    pub committed: Vec<&'a C>,
    /// Weight of each base column (all committed matrices concatenated) at `ζ`.
    pub weights_z: &'a [Ext3],
    /// Weight of each column opened at `ζ·ω` (all but the quotient's), same order.
    pub weights_zw: &'a [Ext3],
    /// `Σ weight·f(ζ)` and `Σ weight·f(ζω)`.
    pub sum_z: Ext3,
    pub sum_zw: Ext3,
    pub zeta: Ext3,
    pub zeta_next: Ext3,
    /// log2 of the LDE size.
    pub log_lde: u32,
}

/// A codeword (DEEP or FRI) of `Ext3` values on a bit-reversed coset: host values, or a
/// backend's own storage, which only the backend that made it reads.
pub enum Codeword {
    Host(Vec<Ext3>),
    Device(DeviceCodeword),
}

impl Codeword {
    pub fn len(&self) -> usize {
        match self {
            Codeword::Host(v) => v.len(),
            Codeword::Device(d) => d.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A codeword held by a backend (e.g. a device buffer), opaque to the protocol.
pub struct DeviceCodeword {
    len: usize,
    data: Box<dyn Any + Send + Sync>,
}

impl DeviceCodeword {
    /// `len` values held in `data`.
    pub fn new<T: Any + Send + Sync>(len: usize, data: T) -> DeviceCodeword {
        DeviceCodeword {
            len,
            data: Box::new(data),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The backend's storage, if it is of type `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.data.downcast_ref()
    }

    pub fn get_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.data.downcast_mut()
    }

    pub fn into_inner<T: Any>(self) -> Option<T> {
        self.data.downcast().ok().map(|b| *b)
    }
}

/// One table of a proof as a memory planner sees it: widths in base columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TablePlan {
    pub log_height: u32,
    pub main: usize,
    pub pre: usize,
    pub aux: usize,
    /// Quotient coefficient columns (3 per chunk).
    pub quotient: usize,
    /// LogUp interactions.
    pub interactions: usize,
    /// The main trace already lives in the backend's memory (a device fill).
    pub main_resident: bool,
}

/// A LogUp auxiliary trace, committed.
pub struct AuxCommitted<C> {
    pub committed: C,
    /// The trace itself (base coordinates, natural order) where the backend built it on the
    /// host; `None` where it lives only in the backend's memory (read through `committed`).
    pub host: Option<RowMajorMatrix>,
    /// The table's LogUp total.
    pub total: Ext3,
}

/// A quotient, committed.
pub struct QuotientCommitted<C> {
    pub committed: C,
    /// Its coefficients (see [`Backend::quotient`]) where the backend computed them on the
    /// host; `None` where they live only in the backend's memory.
    pub host: Option<RowMajorMatrix>,
}

/// One seam, one backend per type (stwo's style); storage is the associated type.
pub trait Backend: Sync {
    /// A committed matrix: its coset LDE (bit-reversed rows) and Merkle tree.
    type Committed: Send + Sync;
    /// A committed FRI layer.
    type FriLayer: Send + Sync;

    fn name(&self) -> &'static str;

    /// Accounting for the stats JSON (dispatches, bytes moved, device memory); `null` for
    /// backends with nothing to report.
    fn report(&self) -> serde_json::Value {
        serde_json::Value::Null
    }

    /// The ceilings the roofline report ([`crate::roofline`]) sets this backend's stages
    /// against, measured when asked (once per process; only `prove --stats` asks). The
    /// default measures the host ([`crate::roofline::cpu_ceilings`]).
    fn ceilings(&self) -> Result<crate::roofline::Ceilings, ProverError> {
        Ok(crate::roofline::cpu_ceilings())
    }

    /// Checks, before any main trace is committed, that the backend can hold the proof of
    /// `tables` (see [`TablePlan`]). Backends without a memory limit have nothing to check.
    fn plan_memory(&self, tables: &[TablePlan], log_blowup: u32) -> Result<(), ProverError> {
        let _ = (tables, log_blowup);
        Ok(())
    }

    /// Coset LDE of a trace's columns (natural order on `H_n`) and its Merkle commitment.
    fn commit_trace(
        &self,
        trace: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<Self::Committed, ProverError>;
    /// As [`Backend::commit_trace`], from coefficients.
    fn commit_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<Self::Committed, ProverError>;
    fn root(&self, c: &Self::Committed) -> Digest;
    /// Row `row` of the LDE and its Merkle path.
    fn open(&self, c: &Self::Committed, row: usize) -> Result<Opening, ProverError>;

    /// The LogUp auxiliary trace (base coordinates, natural order) and the table's total.
    fn logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: &RowMajorMatrix,
        preprocessed: Option<&RowMajorMatrix>,
        public: &[Felt],
        challenges: LogUpChallenges,
    ) -> Result<(RowMajorMatrix, Ext3), ProverError>;

    /// The quotient's coefficients split into chunks: `n × 3·chunks` (chunk c's coordinate
    /// k in column 3c+k). Fails when the constraints do not vanish on the trace.
    fn quotient(
        &self,
        q: &QuotientInputs<'_, Self::Committed>,
    ) -> Result<RowMajorMatrix, ProverError>;

    /// Each column of a trace (natural order on `H_n`) evaluated at `point`.
    fn evaluate_trace(&self, trace: &RowMajorMatrix, point: Ext3)
        -> Result<Vec<Ext3>, ProverError>;
    /// Each column of a coefficient matrix evaluated at `point`.
    fn evaluate_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError>;

    /// The DEEP quotient of one table over its LDE (bit-reversed).
    fn deep(&self, d: &DeepInputs<'_, Self::Committed>) -> Result<Vec<Ext3>, ProverError>;

    /// Folds a codeword on layer domain `shift·H` (bit-reversed) in half.
    fn fri_fold(
        &self,
        codeword: &[Ext3],
        beta: Ext3,
        shift: Felt,
    ) -> Result<Vec<Ext3>, ProverError>;
    /// Commits a FRI layer (leaf j = the pair of rows 2j, 2j+1).
    fn commit_fri_layer(&self, codeword: Vec<Ext3>) -> Result<Self::FriLayer, ProverError>;
    fn fri_root(&self, layer: &Self::FriLayer) -> Digest;
    /// The sibling of position `pos` and the path of its pair.
    fn open_fri(
        &self,
        layer: &Self::FriLayer,
        pos: usize,
    ) -> Result<(Ext3, Vec<Digest>), ProverError>;
    /// The host values the layer was committed from (empty for a layer a backend committed
    /// from its own memory; see [`Backend::commit_codeword`]).
    fn fri_values<'a>(&self, layer: &'a Self::FriLayer) -> &'a [Ext3];

    /// The smallest nonce answering the grinding challenge.
    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError>;

    // The operations the protocol calls. Each has a default built from the operations
    // above on host data; a device backend overrides them to keep data in its own memory
    // (committed traces, quotient coefficients, codewords) instead of moving it back and
    // forth.

    /// Each column of a committed trace (natural order on `H_n`) evaluated at each point
    /// (`out[p][column]`). `trace` is the host matrix `c` was committed from, where there is
    /// one; the default reads it, a device backend its own copy in `c`.
    fn evaluate_committed(
        &self,
        c: &Self::Committed,
        trace: Option<&RowMajorMatrix>,
        points: &[Ext3],
    ) -> Result<Vec<Vec<Ext3>>, ProverError> {
        let _ = c;
        let trace = trace.ok_or(ProverError::Internal(
            "evaluate_committed: the trace is not on the host",
        ))?;
        points
            .iter()
            .map(|&p| self.evaluate_trace(trace, p))
            .collect()
    }

    /// The LogUp auxiliary trace of a table, committed (as [`Backend::logup_aux`] then
    /// [`Backend::commit_trace`]). `main` and `preprocessed` are the committed traces with
    /// their host matrices.
    #[allow(clippy::too_many_arguments)]
    fn commit_logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: (&Self::Committed, &RowMajorMatrix),
        preprocessed: Option<(&Self::Committed, &RowMajorMatrix)>,
        public: &[Felt],
        challenges: LogUpChallenges,
        log_blowup: u32,
    ) -> Result<AuxCommitted<Self::Committed>, ProverError> {
        let (aux, total) = self.logup_aux(
            table,
            shape,
            main.1,
            preprocessed.map(|p| p.1),
            public,
            challenges,
        )?;
        let committed = self.commit_trace(&aux, log_blowup)?;
        Ok(AuxCommitted {
            committed,
            host: Some(aux),
            total,
        })
    }

    /// [`Backend::commit_logup_aux`] for a main trace that may live only in the backend's
    /// memory (`main.1` is `None` for a device trace). The default needs the host matrix
    /// and errors without it; a device backend reads its own copy in `main.0`.
    #[allow(clippy::too_many_arguments)]
    fn commit_logup_aux_resident(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: (&Self::Committed, Option<&RowMajorMatrix>),
        preprocessed: Option<(&Self::Committed, &RowMajorMatrix)>,
        public: &[Felt],
        challenges: LogUpChallenges,
        log_blowup: u32,
    ) -> Result<AuxCommitted<Self::Committed>, ProverError> {
        let host = main.1.ok_or(ProverError::Internal(
            "commit_logup_aux: the main trace is not on the host",
        ))?;
        self.commit_logup_aux(
            table,
            shape,
            (main.0, host),
            preprocessed,
            public,
            challenges,
            log_blowup,
        )
    }

    /// The quotient, committed (as [`Backend::quotient`] then [`Backend::commit_coeffs`]).
    fn commit_quotient(
        &self,
        q: &QuotientInputs<'_, Self::Committed>,
    ) -> Result<QuotientCommitted<Self::Committed>, ProverError> {
        let coeffs = self.quotient(q)?;
        let committed = self.commit_coeffs(&coeffs, q.log_blowup)?;
        Ok(QuotientCommitted {
            committed,
            host: Some(coeffs),
        })
    }

    /// Each column of a committed quotient's coefficients evaluated at `point`.
    fn evaluate_quotient(
        &self,
        q: &QuotientCommitted<Self::Committed>,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        let coeffs = q.host.as_ref().ok_or(ProverError::Internal(
            "evaluate_quotient: the coefficients are not on the host",
        ))?;
        self.evaluate_coeffs(coeffs, point)
    }

    /// The DEEP quotient of one table, kept where the backend computed it.
    fn deep_codeword(&self, d: &DeepInputs<'_, Self::Committed>) -> Result<Codeword, ProverError> {
        Ok(Codeword::Host(self.deep(d)?))
    }

    /// `acc += scale · other`, element by element (FRI's join of a shorter table).
    fn add_scaled(
        &self,
        acc: &mut Codeword,
        scale: Ext3,
        other: &Codeword,
    ) -> Result<(), ProverError> {
        match (acc, other) {
            (Codeword::Host(a), Codeword::Host(b)) if a.len() == b.len() => {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += scale * *y;
                }
                Ok(())
            }
            (Codeword::Host(_), Codeword::Host(_)) => {
                Err(ProverError::Internal("add_scaled: lengths differ"))
            }
            _ => Err(ProverError::Internal(
                "add_scaled: a device codeword on a host backend",
            )),
        }
    }

    /// Commits a FRI layer (as [`Backend::commit_fri_layer`]).
    fn commit_codeword(&self, codeword: Codeword) -> Result<Self::FriLayer, ProverError> {
        match codeword {
            Codeword::Host(v) => self.commit_fri_layer(v),
            Codeword::Device(_) => Err(ProverError::Internal(
                "commit_codeword: a device codeword on a host backend",
            )),
        }
    }

    /// Folds a committed layer on domain `shift·H` (bit-reversed) in half (as
    /// [`Backend::fri_fold`] of its values).
    fn fold_layer(
        &self,
        layer: &Self::FriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<Codeword, ProverError> {
        Ok(Codeword::Host(self.fri_fold(
            self.fri_values(layer),
            beta,
            shift,
        )?))
    }

    /// The values of the last codeword, on the host (for the final polynomial).
    fn final_values(&self, codeword: Codeword) -> Result<Vec<Ext3>, ProverError> {
        match codeword {
            Codeword::Host(v) => Ok(v),
            Codeword::Device(_) => Err(ProverError::Internal(
                "final_values: a device codeword on a host backend",
            )),
        }
    }

    /// [`Backend::open`] at each of `rows`.
    fn open_batch(&self, c: &Self::Committed, rows: &[usize]) -> Result<Vec<Opening>, ProverError> {
        rows.iter().map(|&r| self.open(c, r)).collect()
    }

    /// [`Backend::open_fri`] at each of `positions`.
    fn open_fri_batch(
        &self,
        layer: &Self::FriLayer,
        positions: &[usize],
    ) -> Result<Vec<(Ext3, Vec<Digest>)>, ProverError> {
        positions.iter().map(|&p| self.open_fri(layer, p)).collect()
    }
}

/// A table's main trace as the prover receives it: host values, or a trace a backend built
/// in its own memory (never a placeholder standing for one).
pub enum MainTrace<B: DeviceTraces> {
    Host(RowMajorMatrix),
    Device(B::DeviceTrace),
}

/// Backends that can hold main traces in their own memory (built there by trace fills).
/// A device trace is committed device to device and stays the commitment's source for the
/// LogUp build and the out-of-domain evaluations; host data from it exists only through
/// [`DeviceTraces::download_trace`], which a device backend counts.
pub trait DeviceTraces: Backend {
    /// A main trace in the backend's memory.
    type DeviceTrace: Send + Sync;

    /// `(width, height)` of a device trace.
    fn trace_dims(&self, t: &Self::DeviceTrace) -> (usize, usize);

    /// Coset LDE and Merkle commitment of a device trace, consuming it (as
    /// [`Backend::commit_trace`] of its values). Any failure is an error: nothing is ever
    /// committed in its place.
    fn commit_device_trace(
        &self,
        t: Self::DeviceTrace,
        log_blowup: u32,
    ) -> Result<Self::Committed, ProverError>;

    /// The values of a device trace on the host (explicit and counted; for the debug
    /// checker and tests).
    fn download_trace(&self, t: &Self::DeviceTrace) -> Result<RowMajorMatrix, ProverError>;
}

impl<B: DeviceTraces> MainTrace<B> {
    /// `(width, height)`.
    pub fn dims(&self, backend: &B) -> (usize, usize) {
        match self {
            MainTrace::Host(m) => (m.width, m.height()),
            MainTrace::Device(d) => backend.trace_dims(d),
        }
    }

    pub fn is_device(&self) -> bool {
        matches!(self, MainTrace::Device(_))
    }

    /// The host values: borrowed for a host trace, downloaded (counted) for a device one.
    ///
    /// # Errors
    /// A backend failure while downloading.
    pub fn to_host<'a>(
        &'a self,
        backend: &B,
    ) -> Result<std::borrow::Cow<'a, RowMajorMatrix>, ProverError> {
        match self {
            MainTrace::Host(m) => Ok(std::borrow::Cow::Borrowed(m)),
            MainTrace::Device(d) => Ok(std::borrow::Cow::Owned(backend.download_trace(d)?)),
        }
    }
}

/// The CPU backend holds every trace on the host: it has no device traces.
impl DeviceTraces for crate::cpu::CpuBackend {
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
