//! Security estimator (placeholder replaced by the full estimator).
use super::StarkParams;

/// Conjectured and provable security of a parameter set, in bits.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SecurityReport {
    pub conjectured_bits: f64,
    pub provable_bits: f64,
}

/// Estimates the security of `params` for a largest trace of 2^`log_max_height` rows.
pub fn estimate(params: &StarkParams, log_max_height: u32) -> SecurityReport {
    let _ = log_max_height;
    let q = params.num_queries as f64;
    SecurityReport {
        conjectured_bits: q * params.log_blowup as f64 + params.pow_bits as f64,
        provable_bits: q * params.log_blowup as f64 + params.pow_bits as f64,
    }
}
