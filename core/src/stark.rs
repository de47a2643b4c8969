//! Protocol facts the prover and the verifier must agree on: the schedule of rounds (what
//! each absorbs and which challenges it draws, [`Rounds`]), transcript framing, domain
//! points, FRI's layer count, the matrices a table commits and opens ([`Matrix`]), and how
//! DEEP weights the opened columns ([`deep_weights`]).

use alloc::vec::Vec;

use crate::air::{LogUpChallenges, TableShape};
use crate::field::{bit_reverse, Ext3, Felt, Field};
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

/// The rounds of a segmented run ([`crate::proof`] format 10) before the parts go their own
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
pub const ROUND_CAP_BITS: u32 = 6;
/// Largest cap height of a FRI layer's tree; a layer's is at most its tree's depth.
pub const FRI_CAP_BITS: u32 = 4;

/// The cap height of a FRI layer tree of `2^log_leaves` leaves.
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

/// log2 of FRI's largest folding arity: a committed layer folds by up to `2^4 = 16`.
pub const FRI_MAX_LOG_ARITY: u32 = 4;

/// Most committed FRI layers of any proof (each folds at least by 2; the largest LDE has
/// at most `2^(MAX_LOG_HEIGHT + 3)` points).
pub const MAX_FRI_LAYERS: usize = crate::params::MAX_LOG_HEIGHT as usize + 3;

/// Most committed FRI layers of any proof of an AIR of `tables` tables, whatever its
/// heights: a layer folds by the full `2^FRI_MAX_LOG_ARITY` unless it stops at one of the
/// at most `tables` LDE sizes (or the final codeword's).
pub fn max_fri_layers(tables: usize) -> usize {
    let full = (crate::params::MAX_LOG_HEIGHT + 3) / FRI_MAX_LOG_ARITY;
    MAX_FRI_LAYERS.min(tables + 1 + full as usize)
}

/// Most FRI cap nodes of any proof of an AIR of `tables` tables (every layer's cap at most
/// `2^FRI_CAP_BITS` nodes).
pub fn max_fri_cap_nodes(tables: usize) -> usize {
    max_fri_layers(tables) << FRI_CAP_BITS
}

/// FRI's shape: the committed layers, their arities and the final polynomial's log length.
///
/// Layer 0 is the codeword of the largest LDE (`2^log_max_lde` values, on the coset
/// `g·H`, bit-reversed). Layer `l` has `2^log_len(l)` values on the coset
/// `g^(2^folds_before(l))·H_l` and is committed in a tree whose leaf `j` holds its values
/// `j·2^a … (j+1)·2^a − 1` (`a = log_arity(l)`: a coset of `2^a` points, consecutive in
/// bit-reversed order); it folds by `2^a` into layer `l + 1`, as `a` binary folds with
/// challenges `β, β², β⁴, …` (β drawn after the layer's cap). A shorter table's DEEP
/// codeword joins after the fold that brings a layer to its LDE size, scaled by `β^(2^a)`,
/// so layer boundaries fall at every table's LDE size: a layer folds by
/// `min(2^FRI_MAX_LOG_ARITY, 2^(log_len − next size))`, the next size being the largest
/// table LDE size (or the final codeword's) below its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FriShape {
    /// log2 of the largest LDE (layer 0).
    pub log_max_lde: u32,
    /// Committed layers.
    pub num_layers: u32,
    /// log2 of the final polynomial's coefficient count.
    pub log_final_len: u32,
    /// log2 of each committed layer's arity (the first `num_layers` entries).
    log_arities: [u8; MAX_FRI_LAYERS],
}

impl FriShape {
    /// For tables of the given log heights (nonempty).
    pub fn new(params: &StarkParams, log_heights: &[u8]) -> FriShape {
        let lb = params.log_blowup as u32;
        let max = log_heights.iter().copied().max().unwrap_or(0) as u32;
        let min = log_heights.iter().copied().min().unwrap_or(0) as u32;
        let log_final_len = (params.log_final_poly_len as u32).min(min);
        let final_lde = log_final_len + lb;
        let mut log_arities = [0u8; MAX_FRI_LAYERS];
        let mut num_layers = 0;
        let mut cur = max + lb;
        while cur > final_lde && num_layers < MAX_FRI_LAYERS {
            let next = log_heights
                .iter()
                .map(|&h| h as u32 + lb)
                .filter(|&x| x < cur)
                .max()
                .unwrap_or(final_lde)
                .max(final_lde);
            let a = FRI_MAX_LOG_ARITY.min(cur - next);
            log_arities[num_layers] = a as u8;
            num_layers += 1;
            cur -= a;
        }
        FriShape {
            log_max_lde: max + lb,
            num_layers: num_layers as u32,
            log_final_len,
            log_arities,
        }
    }

    /// log2 of layer `l`'s arity.
    pub fn log_arity(&self, l: u32) -> u32 {
        self.log_arities.get(l as usize).map_or(0, |&a| a as u32)
    }

    /// Binary folds before layer `l` (`l = num_layers`: all of them).
    pub fn folds_before(&self, l: u32) -> u32 {
        self.log_arities[..(l.min(self.num_layers) as usize)]
            .iter()
            .map(|&a| a as u32)
            .sum()
    }

    /// log2 of layer `l`'s length (`l = num_layers`: the final codeword's).
    pub fn log_len(&self, l: u32) -> u32 {
        self.log_max_lde - self.folds_before(l)
    }

    /// log2 of the leaf count of layer `l`'s tree.
    pub fn log_leaves(&self, l: u32) -> u32 {
        self.log_len(l) - self.log_arity(l)
    }

    /// The cap height of layer `l`'s tree.
    pub fn cap_bits(&self, l: u32) -> u32 {
        fri_cap_bits(self.log_leaves(l))
    }

    /// Siblings in a path of layer `l`'s tree (from the leaf to below the cap).
    pub fn path_len(&self, l: u32) -> usize {
        (self.log_leaves(l) - self.cap_bits(l)) as usize
    }

    /// The shift of layer `l`'s domain: `g^(2^folds_before(l))`.
    pub fn layer_shift(&self, l: u32) -> Felt {
        shift_after(self.folds_before(l))
    }

    /// Whether query position `q` opens the same row of a table whose LDE has `2^log_lde`
    /// rows as the previous query `prev` (positions sorted): then that table's rows are not
    /// sent again ([`crate::proof`]), the rule the prover prunes by and the verifier reads by.
    pub fn same_row(&self, prev: Option<usize>, q: usize, log_lde: u32) -> bool {
        let shift = self.log_max_lde - log_lde;
        prev.is_some_and(|p| p >> shift == q >> shift)
    }
}

/// The coset shift after `folds` binary folds: `g^(2^folds)`.
pub fn shift_after(folds: u32) -> Felt {
    let mut s = COSET_SHIFT;
    for _ in 0..folds {
        s = s * s;
    }
    s
}

/// Folds one opened coset of a FRI layer: `v` holds the `2^a` values of leaf `leaf` of a
/// layer of `2^log_len` values on the coset `shift·H` (bit-reversed), and is folded in
/// place `a` times with `β, β², …`; the result is `v[0]`, the next layer's value at
/// position `leaf`. `None` if a point is zero (never, for a nonzero shift).
pub fn fold_coset(
    v: &mut [Ext3],
    log_len: u32,
    shift: Felt,
    leaf: usize,
    beta: Ext3,
) -> Option<Ext3> {
    let a = v.len().trailing_zeros();
    if v.is_empty() || !v.len().is_power_of_two() || a > log_len {
        return None;
    }
    // x of the first pair at the first step: shift·ω^bitrev(leaf·2^(a−1), log_len − 1).
    let first = leaf << a.saturating_sub(1);
    let w = Felt::two_adic_generator(log_len)?;
    let x0 = shift * w.exp_u64(bit_reverse(first, log_len.saturating_sub(1)) as u64);
    let mut inv_two_x0 = (x0 + x0).inverse()?;
    // At step j, pair k's point is x0·r^bitrev(k, a − j − 1) with r of order 2^(a − j).
    let mut r_inv = Felt::two_adic_generator(a)?.inverse()?;
    let mut beta = beta;
    let mut n = v.len();
    for j in 0..a {
        let s = a - j - 1;
        let half = n / 2;
        for k in 0..half {
            let inv = inv_two_x0 * r_inv.exp_u64(bit_reverse(k, s) as u64);
            v[k] = fold_pair(v[2 * k], v[2 * k + 1], beta, inv);
        }
        n = half;
        beta = beta.square();
        r_inv = r_inv * r_inv;
        // The next step's first point is x0²: 1/(2x0²) = 2·(1/(2x0))².
        inv_two_x0 = inv_two_x0 * inv_two_x0 * Felt::new(2);
    }
    Some(v[0])
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary fold of a whole codeword on `shift·H` (bit-reversed), as the provers do.
    fn fold_all(cw: &[Ext3], beta: Ext3, shift: Felt) -> Vec<Ext3> {
        let log_len = cw.len().trailing_zeros();
        let w = Felt::two_adic_generator(log_len).unwrap();
        (0..cw.len() / 2)
            .map(|j| {
                let x = shift * w.exp_u64(bit_reverse(j, log_len - 1) as u64);
                fold_pair(cw[2 * j], cw[2 * j + 1], beta, (x + x).inverse().unwrap())
            })
            .collect()
    }

    fn pseudo(i: u64) -> Ext3 {
        let f =
            |k: u64| Felt::new(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(k as u32) >> 1);
        Ext3::new(f(7), f(19), f(41))
    }

    #[test]
    fn coset_fold_is_repeated_binary_folds() {
        for log_len in 1..=9u32 {
            let cw: Vec<Ext3> = (0..1u64 << log_len)
                .map(|i| pseudo(i + 17 * log_len as u64))
                .collect();
            let (beta, shift) = (pseudo(999), COSET_SHIFT.exp_u64(5));
            for a in 1..=FRI_MAX_LOG_ARITY.min(log_len) {
                // a binary folds with β, β², …
                let (mut f, mut b, mut s) = (cw.clone(), beta, shift);
                for _ in 0..a {
                    f = fold_all(&f, b, s);
                    b = b.square();
                    s = s.square();
                }
                for leaf in 0..1usize << (log_len - a) {
                    let mut v = cw[leaf << a..(leaf + 1) << a].to_vec();
                    assert_eq!(
                        fold_coset(&mut v, log_len, shift, leaf, beta),
                        Some(f[leaf]),
                        "2^{log_len} values, arity 2^{a}, leaf {leaf}"
                    );
                }
            }
        }
        assert_eq!(
            fold_coset(&mut [Ext3::ONE; 3], 4, COSET_SHIFT, 0, Ext3::ONE),
            None
        );
        assert_eq!(
            fold_coset(&mut [Ext3::ONE; 8], 2, COSET_SHIFT, 0, Ext3::ONE),
            None
        );
    }

    fn params(log_blowup: u8, log_final_poly_len: u8) -> StarkParams {
        StarkParams {
            log_blowup,
            log_final_poly_len,
            ..StarkParams::BLOWUP_4
        }
    }

    #[test]
    fn fri_layers_stop_at_every_table_size() {
        // Tables of 2^22, 2^21, 2^16, 2^16 and 2^3 rows at blowup 4 (LDEs 2^24 … 2^5): folds
        // of 16 stopping at 2^23, 2^18 and the final codeword (2^3 coefficients, 2^5 values).
        let s = FriShape::new(&params(2, 3), &[22, 21, 16, 16, 3]);
        let arities: Vec<u32> = (0..s.num_layers).map(|l| s.log_arity(l)).collect();
        assert_eq!(arities, [1, 4, 1, 4, 4, 4, 1]);
        assert_eq!(s.log_len(s.num_layers), 5);
        assert_eq!(s.folds_before(s.num_layers), 19);
        for l in 0..s.num_layers {
            assert_eq!(s.log_len(l + 1), s.log_len(l) - s.log_arity(l));
            assert_eq!(s.layer_shift(l), shift_after(s.folds_before(l)));
        }
        // One table: as large folds as possible; nothing to fold when the table is the
        // final polynomial.
        let s = FriShape::new(&params(1, 3), &[13]);
        assert_eq!(
            (0..s.num_layers)
                .map(|l| s.log_arity(l))
                .collect::<Vec<_>>(),
            [4, 4, 2]
        );
        assert_eq!(FriShape::new(&params(1, 3), &[3]).num_layers, 0);
    }
}
