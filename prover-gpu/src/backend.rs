//! The `Backend` seam: every operation of a proof after trace building. The protocol in
//! [`crate::prover`] is generic over it and never names a concrete backend; the CPU backend
//! ([`crate::cpu::CpuBackend`]) is the reference every other backend must match bit for bit.

use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};
use kestrel_core::field::{bit_reverse, Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::stark::COSET_SHIFT;

use crate::error::ProverError;
use crate::roofline::quotient_domain_log;

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

/// LDE rows outside the quotient's domain at which each backend compares the quotient's
/// interpolant with the constraints (see [`QuotientInputs::spot_rows`]).
pub const QUOTIENT_SPOT_CHECKS: usize = 8;

impl<C> QuotientInputs<'_, C> {
    /// log2 of the points the quotient is evaluated on: `chunks·n` rounded up to a power of
    /// two, which determines its polynomial (of degree < `chunks·n`). The LDE's first `2^k`
    /// rows (bit-reversed) are the coset `g·H_(2^k)`, so those rows are the domain; at
    /// blowup 4 and two chunks (every RV64IM table) half the LDE is evaluated.
    ///
    /// # Errors
    /// [`ProverError::Internal`] when the chunks do not fit the LDE.
    pub fn domain_log(&self) -> Result<u32, ProverError> {
        let log = quotient_domain_log(self.log_height, self.shape.quotient_chunks);
        if log > self.log_height + self.log_blowup {
            return Err(ProverError::Internal(
                "more quotient chunks than the blowup",
            ));
        }
        Ok(log)
    }

    /// The LDE rows outside the quotient's domain (none when it is the whole LDE) where the
    /// quotient's interpolant must equal the constraints divided by the zerofiers.
    ///
    /// On a domain of `D = 2^domain_log` points any values interpolate, so without this a
    /// witness that does not satisfy the constraints would prove, and only the verifier
    /// would reject the proof. For such a witness, with `F` the constraints divided by the
    /// zerofiers and `Q` the interpolant, `Z_H·(F − Q)` is a nonzero polynomial of degree
    /// < (chunks + 1)·n vanishing on the domain, so at most `(chunks + 1)·n − D` of the
    /// other rows are its roots: at blowup 4 and two chunks (every RV64IM table) at most
    /// half, and all [`QUOTIENT_SPOT_CHECKS`] rows miss with a chance of at most 2^−8.
    /// The rows are drawn from γ, a challenge drawn after the witness is committed, and are
    /// the same on every backend. [`crate::rv::debug_check`] names the failing constraint.
    ///
    /// Each row comes with its point `x = g·ω_N^bitrev(row)`.
    pub fn spot_rows(&self, log_domain: u32) -> Vec<(usize, Felt)> {
        let log_lde = self.log_height + self.log_blowup;
        let (domain, lde) = (1u64 << log_domain, 1u64 << log_lde);
        if domain >= lde {
            return Vec::new();
        }
        let w_lde = Felt::two_adic_generator(log_lde).expect("LDE within the two-adicity");
        let g = self.gamma_powers.get(1).copied().unwrap_or(Ext3::ZERO);
        let mut state = g.coords().iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, c| {
            (h ^ c.as_u64()).wrapping_mul(0xbf58_476d_1ce4_e5b9)
        });
        (0..QUOTIENT_SPOT_CHECKS)
            .map(|_| {
                // SplitMix64.
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^= z >> 31;
                (domain + z % (lde - domain)) as usize
            })
            .map(|r| {
                let x = COSET_SHIFT * w_lde.exp_u64(bit_reverse(r, log_lde) as u64);
                (r, x)
            })
            .collect()
    }
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
    /// Its coefficients (see [`Backend::commit_quotient`]) where the backend computed them
    /// on the host; `None` where they live only in the backend's memory.
    pub host: Option<RowMajorMatrix>,
}

/// The seam between the protocol ([`crate::prover`]) and a backend: the operations of a
/// proof after trace building, grouped by the round that calls them, each at the level of
/// the protocol (what a round needs, not how a backend computes it). A backend's storage
/// is its associated types, so a value of one backend can never reach another; how a
/// backend computes (its NTTs, Merkle trees, constraint evaluation) is its own code.
/// One query's opening of a round: each matrix's row (in the order given), and the path
/// up to below the round's cap.
pub type RoundOpening = (Vec<Vec<Felt>>, Vec<Digest>);

/// One position's opening of a FRI layer: the other values of its leaf (leaf order) and
/// the leaf's path up to below the cap.
pub type FriOpening = (Vec<Ext3>, Vec<Digest>);

pub trait Backend: Sync {
    /// A committed matrix: its coset LDE (bit-reversed rows) and its rows' digests (its
    /// part of its round's tree).
    type Committed: Send + Sync;
    /// A round's mixed-matrix Merkle tree over its matrices (`kestrel_core::merkle`).
    type RoundTree: Send + Sync;
    /// A codeword (DEEP or FRI) of `Ext3` values on a bit-reversed coset.
    type Codeword: Send + Sync;
    /// A committed FRI layer.
    type FriLayer: Send + Sync;

    fn name(&self) -> &'static str;

    /// Accounting for the stats JSON (dispatches, bytes moved, device memory); `null` for
    /// backends with nothing to report.
    fn report(&self) -> serde_json::Value;

    /// The ceilings the roofline report ([`crate::roofline`]) sets this backend's stages
    /// against, measured when asked (once per process; only `prove --stats` asks).
    ///
    /// # Errors
    /// If the measurement fails.
    fn ceilings(&self) -> Result<crate::roofline::Ceilings, ProverError>;

    /// The memory one proof may hold on the backend's device, for sizing segments
    /// ([`crate::api::default_segment_log`]); `None` for host memory.
    fn memory_budget(&self) -> Option<u64> {
        None
    }

    /// Makes up to `bytes` of the backend's memory ready for a proof that will hold about
    /// that much, until `stop` is set (e.g. mapping it into a device's allocation pool while
    /// the run is recorded, so that the proof's own allocations do not map memory as they
    /// go). A hint: nothing is held once it returns, and a backend that cannot does
    /// nothing. By default nothing.
    fn warm_memory(&self, _bytes: u64, _stop: &std::sync::atomic::AtomicBool) {}

    // Setup and round 1 (preprocessed and main traces).

    /// Checks, before any main trace is committed, that the backend can hold the proof of
    /// `tables` (see [`TablePlan`]); [`ProverError::Budget`] if it cannot.
    ///
    /// # Errors
    /// The refusal.
    fn plan_memory(&self, tables: &[TablePlan], log_blowup: u32) -> Result<(), ProverError>;

    /// Coset LDE of a trace's columns (natural order on `H_n`) and its rows' digests.
    ///
    /// # Errors
    /// A backend failure.
    fn commit_trace(
        &self,
        trace: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<Self::Committed, ProverError>;

    /// The tree of one round over its matrices, in table order (at least one).
    ///
    /// # Errors
    /// A backend failure.
    fn commit_round(&self, matrices: &[&Self::Committed]) -> Result<Self::RoundTree, ProverError>;

    /// A round tree's cap (`kestrel_core::stark::RoundTreeShape`).
    fn round_cap(&self, tree: &Self::RoundTree) -> Vec<Digest>;

    // Round 2 (LogUp).

    /// The LogUp auxiliary trace of a table (base coordinates, natural order), committed,
    /// and the table's total. `main` is the committed main trace with its host matrix where
    /// there is one (`None` for a trace built in the backend's memory); `preprocessed` the
    /// committed preprocessed trace with its matrix.
    ///
    /// # Errors
    /// A backend failure, or [`ProverError::LogUpFingerprintZero`].
    #[allow(clippy::too_many_arguments)]
    fn commit_logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: (&Self::Committed, Option<&RowMajorMatrix>),
        preprocessed: Option<(&Self::Committed, &RowMajorMatrix)>,
        public: &[Felt],
        challenges: LogUpChallenges,
        log_blowup: u32,
    ) -> Result<AuxCommitted<Self::Committed>, ProverError>;

    // Round 3 (quotient).

    /// The quotient's coefficients split into chunks (`n × 3·chunks`: chunk c's coordinate
    /// k in column 3c+k), committed.
    ///
    /// # Errors
    /// [`ProverError::ConstraintsNotSatisfied`] when the constraints do not vanish on the
    /// trace; a backend failure.
    fn commit_quotient(
        &self,
        q: &QuotientInputs<'_, Self::Committed>,
    ) -> Result<QuotientCommitted<Self::Committed>, ProverError>;

    // Round 4 (out-of-domain values).

    /// Each column of a committed trace (natural order on `H_n`) evaluated at each point
    /// (`out[p][column]`). `trace` is the host matrix `c` was committed from, where there
    /// is one.
    ///
    /// # Errors
    /// A backend failure.
    fn evaluate_committed(
        &self,
        c: &Self::Committed,
        trace: Option<&RowMajorMatrix>,
        points: &[Ext3],
    ) -> Result<Vec<Vec<Ext3>>, ProverError>;

    /// Each column of a committed quotient's coefficients evaluated at `point`.
    ///
    /// # Errors
    /// A backend failure.
    fn evaluate_quotient(
        &self,
        q: &QuotientCommitted<Self::Committed>,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError>;

    // Round 5 (DEEP).

    /// The DEEP quotient of one table over its LDE (bit-reversed).
    ///
    /// # Errors
    /// A backend failure.
    fn deep_codeword(
        &self,
        d: &DeepInputs<'_, Self::Committed>,
    ) -> Result<Self::Codeword, ProverError>;

    /// `acc += scale · other`, element by element (the join of codewords of one size).
    ///
    /// # Errors
    /// Codewords of different lengths; a backend failure.
    fn add_scaled(
        &self,
        acc: &mut Self::Codeword,
        scale: Ext3,
        other: &Self::Codeword,
    ) -> Result<(), ProverError>;

    fn codeword_len(&self, c: &Self::Codeword) -> usize;

    // Round 6 (FRI).

    /// Commits a FRI layer of arity `2^log_arity` (leaf j = the values at positions
    /// `j·2^a … (j+1)·2^a − 1`, `kestrel_core::stark::FriShape`).
    ///
    /// # Errors
    /// A codeword shorter than its arity; a backend failure.
    fn commit_codeword(
        &self,
        codeword: Self::Codeword,
        log_arity: u32,
    ) -> Result<Self::FriLayer, ProverError>;

    /// A FRI layer tree's cap (`kestrel_core::stark::fri_cap_bits`).
    fn fri_cap(&self, layer: &Self::FriLayer) -> Vec<Digest>;

    /// Folds a committed layer on domain `shift·H` (bit-reversed) by its arity `2^a`: `a`
    /// binary folds with `β, β², β⁴, …` on `shift·H`, `shift²·H²`, …
    ///
    /// # Errors
    /// A backend failure.
    fn fold_layer(
        &self,
        layer: &Self::FriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<Self::Codeword, ProverError>;

    /// The values of the last codeword, on the host (for the final polynomial).
    ///
    /// # Errors
    /// A backend failure.
    fn final_values(&self, codeword: Self::Codeword) -> Result<Vec<Ext3>, ProverError>;

    // Round 7 (grinding and queries).

    /// The smallest nonce answering the grinding challenge.
    ///
    /// # Errors
    /// A backend failure.
    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError>;

    /// For each leaf index of a round's tree (`matrices` as committed), row
    /// `index >> (L − h)` of each matrix and the index's path up to below the cap.
    ///
    /// # Errors
    /// An index out of range; a backend failure.
    fn open_round(
        &self,
        tree: &Self::RoundTree,
        matrices: &[&Self::Committed],
        indices: &[usize],
    ) -> Result<Vec<RoundOpening>, ProverError>;

    /// For each position of a committed FRI layer, the other values of its leaf (the
    /// coset, in leaf order, without the position's own) and the leaf's path up to below
    /// the layer's cap.
    ///
    /// # Errors
    /// A position out of range; a backend failure.
    fn open_fri_batch(
        &self,
        layer: &Self::FriLayer,
        positions: &[usize],
    ) -> Result<Vec<FriOpening>, ProverError>;
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

#[cfg(test)]
mod tests {
    use super::*;
    use kestrel_core::air::examples::{FibonacciAir, SumSenderAir};

    fn inputs<'a>(
        table: &'a dyn TableAir,
        shape: &'a TableShape,
        log_height: u32,
        log_blowup: u32,
        gamma: &'a [Ext3],
    ) -> QuotientInputs<'a, ()> {
        QuotientInputs {
            table,
            shape,
            log_height,
            log_blowup,
            preprocessed: None,
            main: &(),
            aux: None,
            public: &[],
            challenges: LogUpChallenges {
                alpha: Ext3::ZERO,
                beta: Ext3::ZERO,
            },
            total: Ext3::ZERO,
            gamma_powers: gamma,
        }
    }

    /// The domain is `chunks·n` rounded up to a power of two; the spot rows lie outside it,
    /// are fixed by γ and there are none when the domain is the whole LDE.
    #[test]
    fn quotient_domain_and_spot_rows() {
        let g = |c: u64| [Ext3::ONE, Ext3::from(Felt::new(c))];
        let (fib, sender) = (
            &FibonacciAir as &dyn TableAir,
            &SumSenderAir as &dyn TableAir,
        );
        let (sf, ss) = (
            TableShape::of(fib, 3).unwrap(),
            TableShape::of(sender, 1).unwrap(),
        );
        assert_eq!((sf.quotient_chunks, ss.quotient_chunks), (1, 2));
        let gamma = g(5);
        for (table, shape) in [(fib, &sf), (sender, &ss)] {
            for lb in 1..=3 {
                let q = inputs(table, shape, 6, lb, &gamma);
                let d = q.domain_log().unwrap();
                assert_eq!(
                    d,
                    6 + shape.quotient_chunks.next_power_of_two().trailing_zeros()
                );
                let spots = q.spot_rows(d);
                let w = Felt::two_adic_generator(6 + lb).unwrap();
                for &(r, x) in &spots {
                    assert_eq!(x, COSET_SHIFT * w.exp_u64(bit_reverse(r, 6 + lb) as u64));
                }
                let rows: Vec<usize> = spots.iter().map(|&(r, _)| r).collect();
                if d == 6 + lb {
                    assert!(rows.is_empty());
                    continue;
                }
                assert_eq!(rows.len(), QUOTIENT_SPOT_CHECKS);
                assert!(
                    rows.iter().all(|&r| (1 << d..1 << (6 + lb)).contains(&r)),
                    "{rows:?}"
                );
                assert_eq!(spots, q.spot_rows(d));
                let other = g(6);
                assert_ne!(spots, inputs(table, shape, 6, lb, &other).spot_rows(d));
            }
        }
        // Two chunks do not fit an LDE of blowup 1.
        assert!(inputs(sender, &ss, 6, 0, &gamma).domain_log().is_err());
    }
}
