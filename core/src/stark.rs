//! Protocol facts the prover and the verifier must agree on: the schedule of rounds (what
//! each absorbs and which challenges it draws, [`Rounds`]), transcript framing, domain
//! points, FRI's layer count, the matrices a table commits and opens ([`Matrix`]), and how
//! DEEP weights the opened columns ([`deep_weights`]).

use alloc::vec::Vec;

use crate::air::{LogUpChallenges, TableShape};
use crate::field::{bit_reverse, Ext3, Felt};
use crate::merkle::Digest;
use crate::params::{ProtocolShape, StarkParams};
use crate::proof::TableOod;
use crate::transcript::Transcript;

/// Fiat–Shamir domain of this proof system version.
pub const TRANSCRIPT_DOMAIN: &[u8] = b"kestrel-stark-v1";

/// The shift of every LDE coset.
pub const COSET_SHIFT: Felt = Felt::GENERATOR;

/// Starts the transcript: statement, parameters, preprocessed cap, heights, public values.
fn start_transcript(
    machine: &str,
    params: &StarkParams,
    preprocessed_cap: &[Digest],
    log_heights: &[u8],
    public: &[Felt],
) -> Transcript {
    let mut t = Transcript::new(TRANSCRIPT_DOMAIN);
    t.observe_bytes(machine.as_bytes());
    t.observe_u64(params.log_blowup as u64);
    t.observe_u64(params.num_queries as u64);
    t.observe_u64(params.pow_bits as u64);
    t.observe_u64(params.log_final_poly_len as u64);
    for r in preprocessed_cap {
        t.observe_digest(r);
    }
    t.observe_bytes(log_heights);
    t.observe_u64(public.len() as u64);
    t.observe_felts(public);
    t
}

/// The protocol's rounds as the transcript sees them. The prover and the verifier drive the
/// transcript only through these methods, in this order, so the two cannot drift:
///
/// 1. [`Rounds::start`]: statement, parameters, the preprocessed round's cap, heights,
///    public values;
/// 2. [`Rounds::main`]: the main round's cap → the LogUp challenges α, β;
/// 3. [`Rounds::aux`]: the LogUp totals and the aux round's cap → γ (constraint batching);
/// 4. [`Rounds::quotient`]: the quotient round's cap → ζ (the out-of-domain point);
/// 5. [`Rounds::ood`]: the out-of-domain values → λ (DEEP batching);
/// 6. [`Rounds::fri_layer`] per committed FRI layer: its cap → that layer's β;
///    [`Rounds::final_poly`]: the final polynomial → the grinding challenge;
/// 7. [`Rounds::nonce`]: the grinding nonce; then [`Rounds::query`] per query → its
///    position.
///
/// Each round's matrices are committed in one mixed-matrix tree
/// ([`crate::merkle`] has the definition) and a cap is the tree's `2^c` nodes of level `c`
/// ([`RoundTreeShape`], [`fri_cap_bits`]); a cap is absorbed node by node, in index order.
/// A round without matrices (no preprocessed table, no interactions) has an empty cap.
pub struct Rounds {
    tr: Transcript,
    fri_started: bool,
}

impl Rounds {
    /// The transcript started on the statement, the parameters, the preprocessed cap,
    /// the heights and the public values.
    pub fn start(
        machine: &str,
        params: &StarkParams,
        preprocessed_cap: &[Digest],
        log_heights: &[u8],
        public: &[Felt],
    ) -> Rounds {
        Rounds {
            tr: start_transcript(machine, params, preprocessed_cap, log_heights, public),
            fri_started: false,
        }
    }

    /// The main round's cap; the LogUp challenges.
    pub fn main(&mut self, main_cap: &[Digest]) -> LogUpChallenges {
        self.tr.label(b"main");
        for r in main_cap {
            self.tr.observe_digest(r);
        }
        self.tr.label(b"logup");
        LogUpChallenges {
            alpha: self.tr.sample_ext(),
            beta: self.tr.sample_ext(),
        }
    }

    /// The LogUp totals (one per table with interactions) and the aux round's cap; γ.
    pub fn aux(&mut self, totals: &[Ext3], aux_cap: &[Digest]) -> Ext3 {
        self.tr.label(b"aux");
        self.tr.observe_exts(totals);
        for r in aux_cap {
            self.tr.observe_digest(r);
        }
        self.tr.label(b"quotient");
        self.tr.sample_ext()
    }

    /// The quotient round's cap; ζ.
    pub fn quotient(&mut self, quotient_cap: &[Digest]) -> Ext3 {
        for r in quotient_cap {
            self.tr.observe_digest(r);
        }
        self.tr.label(b"ood");
        self.tr.sample_ext()
    }

    /// Every table's out-of-domain values; λ.
    pub fn ood(&mut self, ood: &[TableOod]) -> Ext3 {
        self.ood_values(ood.iter().flat_map(|o| o.lists()).flatten().copied())
    }

    /// [`Rounds::ood`] given the values in the order the proof lists them (per table: pre,
    /// pre_next, main, main_next, aux, aux_next, quotient), as a streaming verifier holds
    /// them; the same observations.
    pub fn ood_values(&mut self, values: impl IntoIterator<Item = Ext3>) -> Ext3 {
        for v in values {
            self.tr.observe_ext(v);
        }
        self.tr.label(b"deep");
        self.tr.sample_ext()
    }

    fn start_fri(&mut self) {
        if !self.fri_started {
            self.tr.label(b"fri");
            self.fri_started = true;
        }
    }

    /// A committed FRI layer's cap; its folding challenge β.
    pub fn fri_layer(&mut self, cap: &[Digest]) -> Ext3 {
        self.start_fri();
        for r in cap {
            self.tr.observe_digest(r);
        }
        self.tr.sample_ext()
    }

    /// The final polynomial's coefficients; the grinding challenge.
    pub fn final_poly(&mut self, final_poly: &[Ext3]) -> [u8; 32] {
        self.start_fri();
        self.tr.observe_exts(final_poly);
        self.tr.grinding_challenge()
    }

    /// The grinding nonce; the queries follow.
    pub fn nonce(&mut self, nonce: u64) {
        self.tr.observe_nonce(nonce);
        self.tr.label(b"queries");
    }

    /// The next query's position in the largest LDE (`2^log_max_lde` rows).
    pub fn query(&mut self, log_max_lde: u32) -> usize {
        self.tr.sample_bits(log_max_lde) as usize
    }
}

/// The rounds of a segmented run ([`crate::proof`] format 4) before the parts go their own
/// ways. One transcript absorbs the statement, the parameters, the preprocessed cap and
/// every part's heights and main cap, in part order ([`RunRounds::part_main`]); then the
/// LogUp challenges shared by all parts are drawn ([`RunRounds::challenges`]), and each part
/// continues on its own copy of the transcript ([`RunRounds::part`]) from [`Rounds::aux`]
/// on. A part's challenges after α, β therefore depend on every part's main commitment and
/// on its own index, so parts cannot be dropped, repeated, reordered or taken from another
/// run without changing what every later part must answer.
pub struct RunRounds {
    tr: Transcript,
}

impl RunRounds {
    /// The run's transcript started on the statement, the parameters, the preprocessed
    /// cap, the public values and the number of parts.
    pub fn start(
        machine: &str,
        params: &StarkParams,
        preprocessed_cap: &[Digest],
        public: &[Felt],
        num_parts: usize,
    ) -> RunRounds {
        let mut tr = start_transcript(machine, params, preprocessed_cap, &[], public);
        tr.label(b"segmented");
        tr.observe_u64(num_parts as u64);
        RunRounds { tr }
    }

    /// The next part's heights and main cap.
    pub fn part_main(&mut self, log_heights: &[u8], main_cap: &[Digest]) {
        self.tr.label(b"part main");
        self.tr.observe_bytes(log_heights);
        for r in main_cap {
            self.tr.observe_digest(r);
        }
    }

    /// The LogUp challenges every part shares (after every part's main cap).
    pub fn challenges(&mut self) -> LogUpChallenges {
        self.tr.label(b"logup");
        LogUpChallenges {
            alpha: self.tr.sample_ext(),
            beta: self.tr.sample_ext(),
        }
    }

    /// Part `index`'s rounds, from [`Rounds::aux`] on (after [`RunRounds::challenges`]).
    pub fn part(&self, index: usize) -> Rounds {
        let mut tr = self.tr.clone();
        tr.label(b"part");
        tr.observe_u64(index as u64);
        Rounds {
            tr,
            fri_started: false,
        }
    }
}

/// A committed matrix of a table: the rounds' commitments, in the order DEEP combines
/// their columns and a query opens them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Matrix {
    Preprocessed,
    Main,
    Aux,
    Quotient,
}

impl Matrix {
    /// The rounds, in commitment order.
    pub const ROUNDS: [Matrix; 4] = [
        Matrix::Preprocessed,
        Matrix::Main,
        Matrix::Aux,
        Matrix::Quotient,
    ];

    /// Whether a table of this shape commits a matrix in this round.
    pub fn in_table(self, shape: &TableShape) -> bool {
        match self {
            Matrix::Preprocessed => shape.preprocessed_width > 0,
            Matrix::Main | Matrix::Quotient => true,
            Matrix::Aux => shape.num_interactions > 0,
        }
    }

    /// The base width of this round's matrix of a table of this shape.
    pub fn width(self, shape: &TableShape) -> usize {
        match self {
            Matrix::Preprocessed => shape.preprocessed_width,
            Matrix::Main => shape.width,
            Matrix::Aux => shape.aux_width,
            Matrix::Quotient => 3 * shape.quotient_chunks,
        }
    }

    /// A table's matrices in that order: preprocessed (if it has columns), main, aux (if it
    /// has interactions), quotient.
    pub fn of(shape: &TableShape) -> impl Iterator<Item = Matrix> {
        [
            (shape.preprocessed_width > 0).then_some(Matrix::Preprocessed),
            Some(Matrix::Main),
            (shape.num_interactions > 0).then_some(Matrix::Aux),
            Some(Matrix::Quotient),
        ]
        .into_iter()
        .flatten()
    }
}

/// Largest cap height of a round's tree (`2^c` nodes); a round's is at most its smallest
/// matrix's log LDE height.
pub const ROUND_CAP_BITS: u32 = 0;
/// Largest cap height of a FRI layer's tree; a layer's is at most its tree's depth.
pub const FRI_CAP_BITS: u32 = 0;

/// The cap height of a FRI layer tree of `2^log_leaves` leaves.
// Clippy sees the constant 0 as `min`'s result; the bound matters once caps are on.
#[allow(clippy::unnecessary_min_or_max)]
pub fn fri_cap_bits(log_leaves: u32) -> u32 {
    FRI_CAP_BITS.min(log_leaves)
}

/// The shape of one round's mixed-matrix tree ([`crate::merkle`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RoundTreeShape {
    /// `L`: log2 of the leaf count (the round's tallest LDE).
    pub log_leaves: u32,
    /// `c`: log2 of the cap's node count.
    pub cap_bits: u32,
}

impl RoundTreeShape {
    /// The tree of round `m` over the tables that commit a matrix in it, given their log
    /// heights and the blowup; `None` if no table does.
    pub fn of(
        m: Matrix,
        shapes: &[TableShape],
        log_heights: &[u8],
        log_blowup: u32,
    ) -> Option<Self> {
        RoundTreeShape::over(
            shapes
                .iter()
                .zip(log_heights)
                .filter(|(s, _)| m.in_table(s))
                .map(|(_, &h)| h as u32 + log_blowup),
        )
    }

    /// The tree over matrices of the given log LDE heights; `None` if there are none.
    // Clippy sees the constant 0 as `min`'s result; the bound matters once caps are on.
    #[allow(clippy::unnecessary_min_or_max)]
    pub fn over(logs: impl IntoIterator<Item = u32>) -> Option<Self> {
        let (mut max, mut min) = (None::<u32>, u32::MAX);
        for l in logs {
            max = Some(max.map_or(l, |x| x.max(l)));
            min = min.min(l);
        }
        max.map(|log_leaves| RoundTreeShape {
            log_leaves,
            cap_bits: ROUND_CAP_BITS.min(min),
        })
    }

    /// Nodes in the cap.
    pub fn cap_len(&self) -> usize {
        1 << self.cap_bits
    }

    /// Siblings in a path.
    pub fn path_len(&self) -> usize {
        (self.log_leaves - self.cap_bits) as usize
    }
}

/// One table's DEEP weights: of each column opened at `ζ` and at `ζ·ω`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeepWeights {
    pub z: Vec<Ext3>,
    pub zw: Vec<Ext3>,
}

impl DeepWeights {
    /// `Σ weight·f(ζ)` and `Σ weight·f(ζω)` over a table's out-of-domain values, in the
    /// order of [`Matrix::of`] (the quotient is opened at `ζ` only).
    pub fn sums(&self, o: &TableOod) -> (Ext3, Ext3) {
        let vz = o.pre.iter().chain(&o.main).chain(&o.aux).chain(&o.quotient);
        let vzw = o.pre_next.iter().chain(&o.main_next).chain(&o.aux_next);
        (
            self.z.iter().zip(vz).map(|(a, b)| *a * *b).sum(),
            self.zw.iter().zip(vzw).map(|(a, b)| *a * *b).sum(),
        )
    }
}

/// Every table's DEEP weights: the powers `λ^0, λ^1, …` over all tables' opened columns in
/// table order, each table's at `ζ` ([`deep_columns`]`.0` of them) then at `ζ·ω`.
pub fn deep_weights(lambda: Ext3, shapes: &[TableShape]) -> Vec<DeepWeights> {
    let mut next = Ext3::ONE;
    let mut take = |n: usize| {
        (0..n)
            .map(|_| {
                let w = next;
                next *= lambda;
                w
            })
            .collect::<Vec<_>>()
    };
    shapes
        .iter()
        .map(|s| {
            let (nz, nzw) = deep_columns(s);
            let z = take(nz);
            let zw = take(nzw);
            DeepWeights { z, zw }
        })
        .collect()
}

/// The point of row `index` of an LDE of size `2^log_size`: `g·ω^{bitrev(index)}`.
pub fn lde_point(log_size: u32, index: usize) -> Felt {
    let w = Felt::two_adic_generator(log_size).unwrap_or(Felt::ONE);
    COSET_SHIFT * w.exp_u64(bit_reverse(index, log_size) as u64)
}

/// FRI's shape: the committed layers and the final polynomial's log length.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FriShape {
    /// log2 of the largest LDE (layer 0).
    pub log_max_lde: u32,
    /// Committed layers (folds), each halving the codeword.
    pub num_layers: u32,
    /// log2 of the final polynomial's coefficient count.
    pub log_final_len: u32,
}

impl FriShape {
    /// For tables of the given log heights (nonempty).
    pub fn new(params: &StarkParams, log_heights: &[u8]) -> FriShape {
        let max = log_heights.iter().copied().max().unwrap_or(0) as u32;
        let min = log_heights.iter().copied().min().unwrap_or(0) as u32;
        let log_final_len = (params.log_final_poly_len as u32).min(min);
        FriShape {
            log_max_lde: max + params.log_blowup as u32,
            num_layers: max - log_final_len,
            log_final_len,
        }
    }

    /// The shift of layer `l`'s domain: `g^(2^l)`.
    pub fn layer_shift(&self, l: u32) -> Felt {
        let mut s = COSET_SHIFT;
        for _ in 0..l {
            s = s * s;
        }
        s
    }
}

/// How many base columns of a table are opened at `ζ` and at `ζ·ω`.
pub fn deep_columns(shape: &TableShape) -> (usize, usize) {
    let next = shape.preprocessed_width + shape.width + shape.aux_width;
    (next + 3 * shape.quotient_chunks, next)
}

/// Fold of the pair `(f(x), f(−x))` at `x` with challenge `β`:
/// `(f(x)+f(−x))/2 + β·(f(x)−f(−x))/(2x)`.
#[inline]
pub fn fold_pair(lo: Ext3, hi: Ext3, beta: Ext3, inv_two_x: Felt) -> Ext3 {
    let half = Felt::new(crate::field::P.div_ceil(2));
    (lo + hi) * half + beta * (lo - hi) * inv_two_x
}

/// The quantities the security estimate needs, from the AIR's shapes and the heights.
pub fn protocol_shape(shapes: &[TableShape], log_heights: &[u8]) -> ProtocolShape {
    let deep_terms: usize = shapes
        .iter()
        .map(|s| {
            let (z, zw) = deep_columns(s);
            z + zw
        })
        .sum();
    let constraint_terms = shapes.iter().map(|s| s.num_constraints).max().unwrap_or(0);
    ProtocolShape {
        batched_terms: deep_terms.max(constraint_terms).max(1) as u64,
        lookup_fractions_per_row: shapes
            .iter()
            .map(|s| s.num_interactions as u64)
            .sum::<u64>()
            .max(1),
        fingerprint_width: shapes
            .iter()
            .map(|s| s.max_interaction_values as u32 + 1)
            .max()
            .unwrap_or(1),
        max_constraint_degree: shapes
            .iter()
            .map(|s| s.max_degree as u32)
            .max()
            .unwrap_or(1)
            .max(1),
        opening_points: 2,
        log_min_height: log_heights.iter().copied().min().unwrap_or(0) as u32,
    }
}
