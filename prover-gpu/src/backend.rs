//! The `Backend` seam: every operation of a proof after trace building. The protocol in
//! [`crate::prover`] is generic over it and never names a concrete backend; the CPU backend
//! ([`crate::cpu::CpuBackend`]) is the reference every other backend must match bit for bit.

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
    /// The layer's values (for the final polynomial).
    fn fri_values<'a>(&self, layer: &'a Self::FriLayer) -> &'a [Ext3];

    /// The smallest nonce answering the grinding challenge.
    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError>;
}
