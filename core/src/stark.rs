//! Protocol facts the prover and the verifier must agree on: transcript framing, domain
//! points, FRI's layer count, and how DEEP weights the opened columns.

use crate::air::TableShape;
use crate::field::{bit_reverse, Ext3, Felt};
use crate::merkle::Digest;
use crate::params::{ProtocolShape, StarkParams};
use crate::proof::TableOod;
use crate::transcript::Transcript;

/// Fiat–Shamir domain of this proof system version.
pub const TRANSCRIPT_DOMAIN: &[u8] = b"kestrel-stark-v1";

/// The shift of every LDE coset.
pub const COSET_SHIFT: Felt = Felt::GENERATOR;

/// Starts the transcript: statement, parameters, preprocessed roots, heights, public values.
pub fn start_transcript(
    machine: &str,
    params: &StarkParams,
    preprocessed_roots: &[Digest],
    log_heights: &[u8],
    public: &[Felt],
) -> Transcript {
    let mut t = Transcript::new(TRANSCRIPT_DOMAIN);
    t.observe_bytes(machine.as_bytes());
    t.observe_u64(params.log_blowup as u64);
    t.observe_u64(params.num_queries as u64);
    t.observe_u64(params.pow_bits as u64);
    t.observe_u64(params.log_final_poly_len as u64);
    for r in preprocessed_roots {
        t.observe_digest(r);
    }
    t.observe_bytes(log_heights);
    t.observe_u64(public.len() as u64);
    t.observe_felts(public);
    t
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

/// Absorbs one table's out-of-domain values, in the order the proof lists them.
pub fn observe_ood(tr: &mut Transcript, o: &TableOod) {
    for v in [
        &o.pre,
        &o.pre_next,
        &o.main,
        &o.main_next,
        &o.aux,
        &o.aux_next,
        &o.quotient,
    ] {
        tr.observe_exts(v);
    }
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
