//! Proof parameters: blowup, query count, grinding and FRI's final polynomial, with the
//! presets Kestrel ships and the security floor the verifier enforces.

mod security;

pub use security::{
    estimate, estimate_with, ProtocolShape, SecurityReport, HASH_BITS, MIN_LOG_HEIGHT, MIN_ROWS,
};

use serde::{Deserialize, Serialize};

/// The verifier rejects parameter sets whose provable security is below this many bits.
pub const SECURITY_FLOOR_BITS: u32 = 100;

/// Largest log2 of a table height the protocol accepts: the largest table of a segment of
/// the most cycles one proof holds (2^24, MEMW_R's four rows per cycle). The presets' query
/// counts reach the floor up to this height; larger tables would need more queries (the
/// commit-phase term grows with `|D|²`), and the LDE stays well inside Goldilocks' 2^32
/// two-adic subgroup.
pub const MAX_LOG_HEIGHT: u32 = 26;

/// Bounds on parameters so that nothing a proof header says can make the verifier loop
/// long: queries, grinding bits and final-polynomial length are all capped.
pub const MAX_QUERIES: u16 = 512;
pub const MAX_POW_BITS: u8 = 32;
pub const MAX_LOG_FINAL_POLY_LEN: u8 = 6;

/// A STARK parameter set.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StarkParams {
    /// log2 of the LDE blowup: 1, 2 or 3.
    pub log_blowup: u8,
    /// FRI queries.
    pub num_queries: u16,
    /// Grinding (proof-of-work) bits before the query phase.
    pub pow_bits: u8,
    /// log2 of the number of coefficients of FRI's final polynomial (clamped to the
    /// smallest table's log height).
    pub log_final_poly_len: u8,
}

impl StarkParams {
    /// Blowup 2: cheapest LDE, most queries.
    pub const BLOWUP_2: StarkParams = StarkParams {
        log_blowup: 1,
        num_queries: 194,
        pow_bits: 20,
        log_final_poly_len: 4,
    };
    /// Blowup 4: the default.
    pub const BLOWUP_4: StarkParams = StarkParams {
        log_blowup: 2,
        num_queries: 88,
        pow_bits: 20,
        log_final_poly_len: 4,
    };
    /// Blowup 8: fewest queries, smallest proofs.
    pub const BLOWUP_8: StarkParams = StarkParams {
        log_blowup: 3,
        num_queries: 59,
        pow_bits: 20,
        log_final_poly_len: 4,
    };

    /// All presets, for tests and the CLI.
    pub const PRESETS: [StarkParams; 3] = [
        StarkParams::BLOWUP_2,
        StarkParams::BLOWUP_4,
        StarkParams::BLOWUP_8,
    ];

    pub const fn blowup(&self) -> usize {
        1 << self.log_blowup
    }

    /// The preset with the given blowup factor.
    pub fn preset(blowup: usize) -> Option<StarkParams> {
        StarkParams::PRESETS
            .into_iter()
            .find(|p| p.blowup() == blowup)
    }

    /// Whether every field is within the ranges the protocol supports.
    pub fn is_well_formed(&self) -> bool {
        (1..=3).contains(&self.log_blowup)
            && (1..=MAX_QUERIES).contains(&self.num_queries)
            && self.pow_bits <= MAX_POW_BITS
            && self.log_final_poly_len <= MAX_LOG_FINAL_POLY_LEN
    }
}

impl Default for StarkParams {
    fn default() -> Self {
        StarkParams::BLOWUP_4
    }
}
