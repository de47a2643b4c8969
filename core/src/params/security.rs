//! Security estimator: conjectured and provable bits of a parameter set.
//!
//! Everything is computed in `f64` through `libm` (this crate is `no_std`), on `log2` scale
//! so that nothing overflows for any input; every bound is clamped to `0..=HASH_BITS` and
//! is never NaN.
//!
//! # The protocol being estimated
//!
//! Challenges live in the cubic extension, `|F| = p^3` with p the Goldilocks prime, so
//! `log2 |F| ≈ 192`. The tallest table has `h = 2^log_max_height` rows; its LDE domain `D`
//! has `|D| = h · blowup` points and the code rate is `ρ = 1 / blowup`. Constraints have
//! degree `d ≤ 3`, every column is opened at `k = 2` points (`z` and `z·g`). Constraints are
//! combined into the quotient with powers of one challenge, and the DEEP quotients of all
//! columns are combined into FRI's first layer with powers of one challenge; at most
//! [`ProtocolShape::batched_terms`] functions are combined this way (`N` below). FRI folds
//! by up to `2^FRI_MAX_LOG_ARITY = 16` per round with powers of one challenge, a shorter
//! table's codeword joining with the next power ([`crate::stark::FriShape`]; at most
//! `log2 |D|` rounds), then `s = num_queries` queries follow
//! `pow_bits` of grinding. LogUp sums at most `M = h · lookup_fractions_per_row` fractions
//! whose tuples (of width at most `W = fingerprint_width`) are fingerprinted with powers
//! of one challenge. Merkle trees and Fiat–Shamir use TurboSHAKE128 with 32-byte output
//! ([`crate::hash`]), whose claimed security (RFC 9861), collisions included, caps every
//! figure at [`HASH_BITS`] = 128.
//!
//! # Conjectured security
//!
//! The ethSTARK conjecture (StarkWare, "ethSTARK documentation", eprint 2021/582, v1.2,
//! §5.10.1; the same formula as Winterfell's `ConjecturedSecurity`):
//!
//! ```text
//! conjectured = min( log2|F| − log2|D| ,  s · log2(blowup) + pow_bits ) − 1
//! ```
//!
//! (the −1 pays for adding the two error terms).
//!
//! # Provable security
//!
//! Round-by-round soundness of DEEP-ALI + batched FRI, each term written as
//! `−log2(error)`, the total being the smallest term.
//!
//! **List-decoding (Johnson) regime**, following ethSTARK documentation Theorem 2 (eprint
//! 2021/582), whose FRI part is Lemma 8.2 / Theorem 8.3 of BCIKS20 ("Proximity gaps for
//! Reed–Solomon codes", eprint 2020/654), as restated for STARKs in eprint 2024/1553
//! Theorem 2 and Haböck's "A summary on the FRI low degree test" (eprint 2022/1216).
//! For a proximity parameter `m ≥ 3`:
//!
//! ```text
//! α      = (1 + 1/(2m)) · sqrt(ρ)                FRI's per-query acceptance bound
//! ρ⁺     = (h_min + k) / (h_min · blowup)         the DEEP quotients' largest rate
//! η      = α − sqrt(ρ⁺)                           must be > 0 (bounds m from above)
//! L      = 1 / (2 η sqrt(ρ⁺))                     Johnson bound on the list size
//! ALI    : log2|F| − log2(L · N)                  constraints batched with powers
//! DEEP   : log2|F| − log2(L² · (d(h + k − 1) + h − 1))
//! commit : log2|F| − log2( N (m + ½)^7 |D|² / (2 ρ^{3/2})
//!                          + (2m + 1)(|D| + 1) · 17 · log2|D| / sqrt(ρ) )
//! query  : −s · log2(α) + pow_bits
//! LogUp  : log2|F| − log2(M · W)
//! ```
//!
//! The commit term is BCIKS20 Lemma 8.2's `ε_C`, whose second term sums `l_i`, the degree
//! plus one of round `i`'s folding curve: a round folding by `2^a` with powers of its
//! challenge, plus a join at the next power, is a curve of degree at most `2^a ≤ 16`, so
//! `l_i ≤ 17` and `Σ l_i ≤ 17 · log2|D|` (a bound for any schedule of arities);
//! its first term is multiplied by `N`: batching `N` functions with powers of one
//! challenge is a curve of degree `N − 1`, whose correlated-agreement error is `N − 1`
//! times a line's (BCIKS20 Theorem 1.5 / 6.2), and `(N − 1)/3 + 1/2 ≤ N/2`. The
//! denominators `|F| − |D ∪ H|` of the theorems are replaced by `|F|` (a relative change
//! below 2^−150). The LogUp term is Schwartz–Zippel on the cleared-denominator identity
//! in the two LogUp challenges (Haböck, "Multivariate lookups based on logarithmic
//! derivatives", eprint 2022/1530). The estimator takes the best `m` in `3..=50` with
//! `η > 0`. Every table must be list-decodable at the same radius `1 − α`, so `ρ⁺` is that
//! of the shortest table, `h_min = 2^ProtocolShape::log_min_height` (default 16 rows, which
//! allows `m ≤ 8` at blowup 4; 8 rows allow `m ≤ 4`); no `m` is admissible for tables of 4 rows or fewer, and the Johnson
//! figure is then 0.
//!
//! **Unique-decoding regime**, eprint 2024/1553 Theorem 3 (also in Winterfell's
//! `ProvenSecurity`), with the same batching factors:
//!
//! ```text
//! ALI    : log2|F| − log2(N)
//! DEEP   : log2|F| − log2(d(h + k − 1) + h − 1)
//! commit : log2|F| − log2(N · |D| + 16 · log2|D| · (|D| + 1))
//! query  : −s · log2((1 + ρ⁺) / 2) + pow_bits
//! LogUp  : log2|F| − log2(M · W)
//! ```
//!
//! `provable_bits` is the better of the two proven bounds (both hold for the same protocol;
//! Winterfell's `ProvenSecurity::is_at_least` likewise accepts either), capped at
//! [`HASH_BITS`]; [`SecurityReport::johnson_bits`] and
//! [`SecurityReport::unique_decoding_bits`] give each one. The unique-decoding bound is the
//! better one at blowup 2 (its per-query error `(1 + ρ)/2 = 0.75` beats the Johnson
//! `α ≈ 0.80` at the small `m` the commit term allows) and for tiny tables.
//!
//! `conjectured_bits` is at least `provable_bits`: a conjecture never claims less than
//! what is proven (the two formulas already agree on this for every useful parameter
//! set; the estimator enforces it for degenerate ones such as a single query).
//!
//! # Limits of the estimate
//!
//! The figures are for the tallest table; shorter tables join FRI at later layers, over
//! smaller domains, and their batching is counted in `N`.
//!
//! The commitment layout does not enter any bound. Each round's matrices share one
//! mixed-matrix Merkle tree ([`crate::merkle`]) and trees are committed by caps
//! ([`crate::stark::ROUND_CAP_BITS`], [`crate::stark::FRI_CAP_BITS`]) rather than one root
//! per matrix: the terms above are about the polynomials, and the commitments only need to
//! bind the opened values to what was fixed before each challenge. A mixed tree does so
//! under the hash's collision resistance (row digests, nodes and injections have distinct
//! prefixes, and a matrix's position in the tree is fixed by its height and table order),
//! and a cap of `2^c` nodes is `2^c` roots of subtrees, each binding like a root; so the
//! [`HASH_BITS`] cap is the only place the hash appears, with or without them. The defaults in
//! [`ProtocolShape::DEFAULT`] are upper bounds the verifier should enforce for the AIRs it
//! accepts (or call [`estimate_with`] with the AIR's real shape).
//!
//! # The presets
//!
//! At `log_max_height = 20` with [`ProtocolShape::DEFAULT`] (shortest table 16 rows), and
//! for a machine whose tables all have 2^20 rows (`log_min_height = 20`).
//! `cargo test -p kestrel-core --lib print_preset_table -- --nocapture` prints these for
//! heights 0 to 28. Figures in parentheses are before the [`HASH_BITS`] cap.
//!
//! | preset | blowup | queries | pow bits | conjectured | provable | Johnson | unique decoding | provable, all 2^20 |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | `BLOWUP_2` | 2 | 194 | 20 | 128 | 100.0 | 100.0, m = 8 | 89.1 | 108.6 (m = 17) |
//! | `BLOWUP_4` | 4 | 88 | 20 | 128 | 100.3 | 100.3, m = 8 | 76.5 | 104.5 (m = 18) |
//! | `BLOWUP_8` | 8 | 59 | 20 | 128 | 103.3 | 103.3, m = 8 | 67.8 | 105.0 (m = 12) |
//!
//! The query counts are the fewest that reach the floor at every height from
//! [`MIN_LOG_HEIGHT`] to `MAX_LOG_HEIGHT = 26` in the Johnson regime (the
//! `presets_reach_the_floor_*` tests); with tables of 16 rows or more `m` may be 8, where
//! tables of 8 rows allowed only 4 (110 queries at blowup 4 then, 88 now). At
//! `MAX_LOG_HEIGHT` the provable figures are 100.0, 100.3 and 100.4 (`m = 5` at blowup 8:
//! there the commit-phase term, which grows with `|D|²` and `N` and not with queries,
//! binds).

use super::StarkParams;

/// Collision resistance of the hash (TurboSHAKE128, 256-bit digests) in bits: no figure
/// exceeds it.
pub const HASH_BITS: f64 = 128.0;

/// Every table has at least 2^4 = 16 rows (the provers pad shorter ones, the verifier
/// rejects them). Tables shorter than 2^3 rows admit no proximity parameter in the Johnson
/// regime (their DEEP quotients' rate `(h + 2)/|D|` is too close to `ρ`), and a table of
/// 8 rows allows only `m ≤ 4`; 16 rows allow `m ≤ 8` at blowup 4, which saves a tenth of
/// the queries. The estimate assumes every table has at least 2^`MIN_LOG_HEIGHT` rows
/// unless told otherwise ([`ProtocolShape::log_min_height`]).
pub const MIN_LOG_HEIGHT: u32 = 4;

/// [`MIN_LOG_HEIGHT`] as a row count: the height every table is padded to at least.
pub const MIN_ROWS: usize = 1 << MIN_LOG_HEIGHT;

/// Smallest and largest FRI proximity parameter `m` the estimator tries.
const M_MIN: u32 = 3;
const M_MAX: u32 = 50;

/// log2 of the Goldilocks prime, `64 + log2(1 − 2^-32 + 2^-64)` (`p as f64` rounds to 2^64).
fn log2_p() -> f64 {
    let two32 = 4_294_967_296.0_f64;
    64.0 + libm::log1p(-1.0 / two32 + 1.0 / (two32 * two32)) / core::f64::consts::LN_2
}

/// log2 of the challenge field: `|F| = p^3`.
fn log2_field() -> f64 {
    3.0 * log2_p()
}

/// `log2(2^a + 2^b)` without leaving log scale.
fn log2_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if hi == f64::NEG_INFINITY {
        return hi;
    }
    hi + libm::log2(1.0 + libm::exp2(lo - hi))
}

/// Clamps a figure to `0..=HASH_BITS`, mapping NaN to 0.
fn clamp_bits(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, HASH_BITS)
    }
}

/// The protocol quantities that the estimate depends on besides [`StarkParams`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProtocolShape {
    /// Functions combined with powers of one challenge: constraints into the quotient, or
    /// (column, opening point) DEEP quotients into FRI, whichever is more (`N`).
    pub batched_terms: u64,
    /// LogUp fractions per row of the tallest table, summed over all tables (`M / h`).
    pub lookup_fractions_per_row: u64,
    /// Largest number of values in one LogUp tuple, bus id included (`W`).
    pub fingerprint_width: u32,
    /// Largest constraint degree (`d`).
    pub max_constraint_degree: u32,
    /// Points at which every column is opened (`k`: `z` and `z·g`).
    pub opening_points: u32,
    /// log2 of the shortest table's height (`h_min`; taken as at most `log_max_height`).
    /// Its DEEP quotients have the largest rate `ρ⁺`, which bounds the admissible `m`.
    pub log_min_height: u32,
}

impl ProtocolShape {
    /// Upper bounds for the AIRs Kestrel ships: 2^12 batched terms, 2^12 LogUp fractions
    /// per row, tuples of at most 16 values, degree 3, two opening points, and tables of
    /// at least 16 rows ([`MIN_LOG_HEIGHT`]).
    pub const DEFAULT: ProtocolShape = ProtocolShape {
        batched_terms: 1 << 12,
        lookup_fractions_per_row: 1 << 12,
        fingerprint_width: 16,
        max_constraint_degree: 3,
        opening_points: 2,
        log_min_height: MIN_LOG_HEIGHT,
    };
}

impl Default for ProtocolShape {
    fn default() -> Self {
        ProtocolShape::DEFAULT
    }
}

/// Conjectured and provable security of a parameter set, in bits.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SecurityReport {
    /// Under the ethSTARK conjecture (module docs), capped at [`HASH_BITS`].
    pub conjectured_bits: f64,
    /// The better proven bound (Johnson or unique decoding), capped at [`HASH_BITS`].
    pub provable_bits: f64,
    /// Proven bound in the list-decoding (Johnson) regime, 0 when no `m` is admissible.
    pub johnson_bits: f64,
    /// The proximity parameter `m` that gave [`SecurityReport::johnson_bits`].
    pub johnson_m: Option<u32>,
    /// Proven bound in the unique-decoding regime.
    pub unique_decoding_bits: f64,
}

/// Estimates the security of `params` for a largest trace of 2^`log_max_height` rows,
/// assuming [`ProtocolShape::DEFAULT`].
pub fn estimate(params: &StarkParams, log_max_height: u32) -> SecurityReport {
    estimate_with(params, log_max_height, &ProtocolShape::DEFAULT)
}

/// Quantities shared by the terms, on log2 scale where they can be large.
struct Setting {
    log_f: f64,
    /// log2 |D|
    log_d: f64,
    rho: f64,
    rho_plus: f64,
    log_n: f64,
    /// log2(d(h + k − 1) + h − 1), the DEEP polynomial's degree.
    log_deep_degree: f64,
    /// −log2(LogUp error).
    lookup_bits: f64,
    queries: f64,
    pow: f64,
}

/// Like [`estimate`], for an AIR of the given shape.
pub fn estimate_with(
    params: &StarkParams,
    log_max_height: u32,
    shape: &ProtocolShape,
) -> SecurityReport {
    let log_f = log2_field();
    let log_h = log_max_height as f64;
    let log_blowup = params.log_blowup as f64;
    let log_d = log_h + log_blowup;
    let rho = libm::exp2(-log_blowup);
    let k = shape.opening_points as f64;
    // (h_min + k) / |D_min| = ρ (1 + k / h_min), the largest over all tables.
    let log_h_min = shape.log_min_height.min(log_max_height) as f64;
    let rho_plus = rho * (1.0 + k * libm::exp2(-log_h_min));
    let d = shape.max_constraint_degree as f64;
    // d(h + k − 1) + h − 1 ≤ (d + 1) h + d (k − 1), computed as h · (d + 1 + d(k − 1)/h).
    let log_deep_degree = log_h + libm::log2(d + 1.0 + d * (k - 1.0) * libm::exp2(-log_h));
    let log_m = log_h + libm::log2(shape.lookup_fractions_per_row.max(1) as f64);
    let lookup_bits = log_f - log_m - libm::log2(shape.fingerprint_width.max(1) as f64);
    let s = Setting {
        log_f,
        log_d,
        rho,
        rho_plus,
        log_n: libm::log2(shape.batched_terms.max(1) as f64),
        log_deep_degree,
        lookup_bits,
        queries: params.num_queries as f64,
        pow: params.pow_bits as f64,
    };

    let mut johnson_bits = 0.0;
    let mut johnson_m = None;
    for m in M_MIN..=M_MAX {
        if let Some(bits) = johnson_for_m(&s, m as f64) {
            if johnson_m.is_none() || bits > johnson_bits {
                johnson_bits = bits;
                johnson_m = Some(m);
            }
        }
    }
    let johnson_bits = clamp_bits(johnson_bits);
    let unique_decoding_bits = clamp_bits(unique_decoding(&s));
    let provable_bits = clamp_bits(johnson_bits.max(unique_decoding_bits));

    let field_term = log_f - log_d;
    let query_term = s.queries * log_blowup + s.pow;
    let conjectured = clamp_bits(field_term.min(query_term) - 1.0);

    SecurityReport {
        conjectured_bits: conjectured.max(provable_bits),
        provable_bits,
        johnson_bits,
        johnson_m,
        unique_decoding_bits,
    }
}

/// The list-decoding bound for proximity parameter `m`, or `None` when `m` is not
/// admissible (`η ≤ 0`).
fn johnson_for_m(s: &Setting, m: f64) -> Option<f64> {
    let alpha = (1.0 + 1.0 / (2.0 * m)) * libm::sqrt(s.rho);
    let sqrt_rho_plus = libm::sqrt(s.rho_plus);
    let eta = alpha - sqrt_rho_plus;
    if eta.is_nan() || eta <= 0.0 || alpha >= 1.0 {
        return None;
    }
    let log_list = -libm::log2(2.0 * eta * sqrt_rho_plus);

    let ali = s.log_f - log_list - s.log_n;
    let deep = s.log_f - 2.0 * log_list - s.log_deep_degree;

    // N (m + ½)^7 |D|² / (2 ρ^{3/2})
    let batch_term =
        s.log_n + 7.0 * libm::log2(m + 0.5) + 2.0 * s.log_d - 1.0 - 1.5 * libm::log2(s.rho);
    // (2m + 1)(|D| + 1) · Σ l_i / sqrt(ρ) with Σ l_i ≤ (2^a_max + 1) · log2|D|;
    // |D| + 1 ≤ 2|D|.
    let l_max = ((1u32 << crate::stark::FRI_MAX_LOG_ARITY) + 1) as f64;
    let fold_term =
        libm::log2(2.0 * m + 1.0) + (s.log_d + 1.0) + libm::log2(l_max * s.log_d.max(1.0))
            - 0.5 * libm::log2(s.rho);
    let commit = s.log_f - log2_add(batch_term, fold_term);

    let query = -s.queries * libm::log2(alpha) + s.pow;

    Some(ali.min(deep).min(commit).min(query).min(s.lookup_bits))
}

/// The unique-decoding bound.
fn unique_decoding(s: &Setting) -> f64 {
    let ali = s.log_f - s.log_n;
    let deep = s.log_f - s.log_deep_degree;
    // N |D| + 2^a_max · log2|D| (|D| + 1) (a round's folding curve has degree at most
    // 2^a_max), with |D| + 1 ≤ 2|D|.
    let arity = (1u32 << crate::stark::FRI_MAX_LOG_ARITY) as f64;
    let commit = s.log_f
        - log2_add(
            s.log_n + s.log_d,
            libm::log2(arity * s.log_d.max(1.0)) + s.log_d + 1.0,
        );
    let query = -s.queries * libm::log2((1.0 + s.rho_plus.min(1.0)) / 2.0) + s.pow;
    ali.min(deep).min(commit).min(query).min(s.lookup_bits)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::println;

    use super::*;
    use crate::params::{MAX_LOG_HEIGHT, MAX_QUERIES, SECURITY_FLOOR_BITS};

    const FLOOR: f64 = SECURITY_FLOOR_BITS as f64;

    #[test]
    fn print_preset_table() {
        for log_h in [0, 2, 3, 16, 20, 26, 28] {
            for p in StarkParams::PRESETS {
                let r = estimate(&p, log_h);
                println!(
                    "log_h {log_h:2} blowup {} q {:3} pow {:2}: conjectured {:6.2} provable {:6.2} \
                     johnson {:6.2} (m {:?}) udr {:6.2}",
                    p.blowup(),
                    p.num_queries,
                    p.pow_bits,
                    r.conjectured_bits,
                    r.provable_bits,
                    r.johnson_bits,
                    r.johnson_m,
                    r.unique_decoding_bits
                );
                let one = ProtocolShape {
                    log_min_height: log_h,
                    ..ProtocolShape::DEFAULT
                };
                let r = estimate_with(&p, log_h, &one);
                println!(
                    "    all tables 2^{log_h} rows: provable {:6.2} johnson {:6.2} (m {:?}) udr {:6.2}",
                    r.provable_bits, r.johnson_bits, r.johnson_m, r.unique_decoding_bits
                );
            }
        }
    }

    #[test]
    fn presets_reach_the_floor_at_every_height() {
        for p in StarkParams::PRESETS {
            for log_h in MIN_LOG_HEIGHT..=MAX_LOG_HEIGHT {
                let r = estimate(&p, log_h);
                assert!(
                    r.provable_bits >= FLOOR,
                    "preset blowup {} at log height {log_h}: {r:?}",
                    p.blowup()
                );
            }
        }
    }

    #[test]
    fn presets_reach_the_floor_in_the_johnson_regime() {
        // The headline figure: list decoding alone, wherever it applies (h ≥ 8).
        for p in StarkParams::PRESETS {
            for log_h in MIN_LOG_HEIGHT..=MAX_LOG_HEIGHT {
                let r = estimate(&p, log_h);
                assert!(
                    r.johnson_m.is_some(),
                    "no admissible m at log height {log_h}"
                );
                assert!(
                    r.johnson_bits >= FLOOR,
                    "preset blowup {} at log height {log_h}: {r:?}",
                    p.blowup()
                );
            }
        }
    }

    #[test]
    fn field_size_is_p_cubed() {
        assert!((log2_p() - 64.0).abs() < 1e-9 && log2_p() < 64.0);
        assert!((log2_field() - 192.0).abs() < 1e-8);
    }

    fn all_params() -> impl Iterator<Item = StarkParams> {
        (1..=3u8).flat_map(|log_blowup| {
            [0u8, 8, 16, 20].into_iter().flat_map(move |pow_bits| {
                [1u16, 2, 10, 50, 68, 110, 200, 304, MAX_QUERIES]
                    .into_iter()
                    .map(move |num_queries| StarkParams {
                        log_blowup,
                        num_queries,
                        pow_bits,
                        log_final_poly_len: 3,
                    })
            })
        })
    }

    #[test]
    fn conjectured_is_at_least_provable() {
        for p in all_params() {
            for log_h in 0..=MAX_LOG_HEIGHT {
                let r = estimate(&p, log_h);
                assert!(
                    r.conjectured_bits >= r.provable_bits,
                    "{p:?} at {log_h}: {r:?}"
                );
                assert!(r.provable_bits >= r.johnson_bits);
                assert!(r.provable_bits >= r.unique_decoding_bits.min(HASH_BITS));
            }
        }
    }

    #[test]
    fn conjectured_formula_without_the_floor_is_at_least_provable() {
        // The max() in estimate_with only matters for degenerate sets: check that the two
        // formulas agree on their own for every set with at least two queries.
        for p in all_params().filter(|p| p.num_queries >= 2) {
            for log_h in 0..=MAX_LOG_HEIGHT {
                let r = estimate(&p, log_h);
                let log_d = (log_h + p.log_blowup as u32) as f64;
                let raw = clamp_bits(
                    (log2_field() - log_d)
                        .min(p.num_queries as f64 * p.log_blowup as f64 + p.pow_bits as f64)
                        - 1.0,
                );
                assert!(raw >= r.provable_bits, "{p:?} at {log_h}: raw {raw}, {r:?}");
            }
        }
    }

    #[test]
    fn more_queries_or_grinding_never_lower_security() {
        for log_blowup in 1..=3u8 {
            for log_h in [0, 3, 10, 20, MAX_LOG_HEIGHT] {
                for pow_bits in [0u8, 16] {
                    let mut prev: Option<SecurityReport> = None;
                    for num_queries in 1..=MAX_QUERIES {
                        let p = StarkParams {
                            log_blowup,
                            num_queries,
                            pow_bits,
                            log_final_poly_len: 3,
                        };
                        let r = estimate(&p, log_h);
                        if let Some(prev) = prev {
                            assert!(r.provable_bits >= prev.provable_bits, "{p:?} at {log_h}");
                            assert!(
                                r.conjectured_bits >= prev.conjectured_bits,
                                "{p:?} at {log_h}"
                            );
                            assert!(r.johnson_bits >= prev.johnson_bits, "{p:?} at {log_h}");
                        }
                        let more_pow = StarkParams {
                            pow_bits: pow_bits + 4,
                            ..p
                        };
                        let g = estimate(&more_pow, log_h);
                        assert!(g.provable_bits >= r.provable_bits);
                        assert!(g.conjectured_bits >= r.conjectured_bits);
                        prev = Some(r);
                    }
                }
            }
        }
    }

    #[test]
    fn ten_queries_are_below_the_floor() {
        for preset in StarkParams::PRESETS {
            let p = StarkParams {
                num_queries: 10,
                ..preset
            };
            for log_h in [3, 16, 20, MAX_LOG_HEIGHT] {
                let r = estimate(&p, log_h);
                assert!(r.provable_bits < FLOOR, "{p:?} at {log_h}: {r:?}");
                assert!(r.conjectured_bits < FLOOR, "{p:?} at {log_h}: {r:?}");
            }
        }
    }

    #[test]
    fn figures_are_finite_and_capped_for_any_input() {
        let odd = [
            StarkParams {
                log_blowup: 0,
                num_queries: 0,
                pow_bits: 0,
                log_final_poly_len: 0,
            },
            StarkParams {
                log_blowup: 255,
                num_queries: u16::MAX,
                pow_bits: 255,
                log_final_poly_len: 255,
            },
            StarkParams {
                log_blowup: 1,
                num_queries: 1,
                pow_bits: 0,
                log_final_poly_len: 0,
            },
        ];
        for p in odd.into_iter().chain(StarkParams::PRESETS) {
            for log_h in [0, 1, 2, 32, 64, 1000, u32::MAX] {
                let r = estimate(&p, log_h);
                for x in [
                    r.conjectured_bits,
                    r.provable_bits,
                    r.johnson_bits,
                    r.unique_decoding_bits,
                ] {
                    assert!(
                        x.is_finite() && (0.0..=HASH_BITS).contains(&x),
                        "{p:?} {log_h}: {r:?}"
                    );
                }
                assert!(r.conjectured_bits >= r.provable_bits);
            }
        }
        // Blowup 1 (rate 1) proves nothing.
        let rate_one = StarkParams {
            log_blowup: 0,
            num_queries: 512,
            pow_bits: 0,
            log_final_poly_len: 0,
        };
        assert_eq!(estimate(&rate_one, 20).provable_bits, 0.0);
    }

    #[test]
    fn larger_batches_and_taller_tables_cost_bits() {
        let p = StarkParams::BLOWUP_8;
        let small = estimate_with(
            &p,
            28,
            &ProtocolShape {
                batched_terms: 16,
                ..ProtocolShape::DEFAULT
            },
        );
        let big = estimate_with(
            &p,
            28,
            &ProtocolShape {
                batched_terms: 1 << 20,
                ..ProtocolShape::DEFAULT
            },
        );
        assert!(small.johnson_bits > big.johnson_bits);
        assert!(estimate(&p, 10).johnson_bits >= estimate(&p, 28).johnson_bits);
    }

    #[test]
    fn taller_shortest_tables_never_cost_bits() {
        // The default assumes a shortest table of 16 rows; a machine whose tables are all
        // taller admits more proximity parameters and can only gain.
        for p in StarkParams::PRESETS {
            for log_h in MIN_LOG_HEIGHT..=MAX_LOG_HEIGHT {
                let base = estimate(&p, log_h);
                for log_min in MIN_LOG_HEIGHT..=log_h {
                    let shape = ProtocolShape {
                        log_min_height: log_min,
                        ..ProtocolShape::DEFAULT
                    };
                    let r = estimate_with(&p, log_h, &shape);
                    assert!(
                        r.provable_bits >= base.provable_bits,
                        "{p:?} {log_h} {log_min}"
                    );
                    assert!(
                        r.johnson_bits >= base.johnson_bits,
                        "{p:?} {log_h} {log_min}"
                    );
                }
            }
        }
    }

    #[test]
    fn tiny_tables_fall_back_to_unique_decoding() {
        for p in StarkParams::PRESETS {
            let r = estimate(&p, 2);
            assert_eq!(r.johnson_m, None);
            assert_eq!(r.johnson_bits, 0.0);
            assert_eq!(r.provable_bits, r.unique_decoding_bits.min(HASH_BITS));
        }
    }
}
