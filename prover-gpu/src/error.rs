//! Why a proof could not be made: the error every proving stage and backend returns (in
//! its own module, so that the protocol and the backends both depend on it and not on
//! each other).

use kestrel_core::air::ShapeError;
use kestrel_core::params::StarkParams;

/// Why a proof could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ProverError {
    /// The AIR itself is unprovable (degree, widths).
    #[error("{0}")]
    Shape(ShapeError),
    /// The parameter set is outside the supported ranges.
    #[error("parameters out of range: {0:?}")]
    BadParams(StarkParams),
    /// A table needs more quotient chunks than the blowup allows.
    #[error("table {table}: {chunks} quotient chunks exceed blowup {blowup}")]
    BlowupTooSmall {
        table: String,
        chunks: usize,
        blowup: usize,
    },
    /// Wrong number of traces for the machine.
    #[error("expected {expected} traces, got {got}")]
    TraceCount { expected: usize, got: usize },
    /// Wrong number of public values.
    #[error("expected {expected} public values, got {got}")]
    PublicCount { expected: usize, got: usize },
    /// A trace's width differs from its AIR's.
    #[error("table {table}: trace width {got}, AIR width {expected}")]
    TraceWidth {
        table: String,
        expected: usize,
        got: usize,
    },
    /// A trace's height is not a power of two within range, or differs from its
    /// preprocessed trace's.
    #[error("table {table}: height {height} not allowed ({why})")]
    TraceHeight {
        table: String,
        height: usize,
        why: &'static str,
    },
    /// The quotient is not a polynomial: some constraint fails on the trace (run the
    /// debug checker to find which).
    #[error("table {table}: constraints do not hold on the trace")]
    ConstraintsNotSatisfied { table: String },
    /// A LogUp fingerprint was zero (probability ~2^-190; retry with other data).
    #[error("LogUp fingerprint vanished")]
    LogUpFingerprintZero,
    /// The out-of-domain point hit the evaluation domain (probability ~2^-160).
    #[error("out-of-domain point fell in the domain")]
    OodPointInDomain,
    /// The backend's memory budget refuses the proof (a device backend's `--vram-budget`).
    #[error("{0}")]
    Budget(String),
    /// A backend failure; for device backends this names the operation.
    #[error("backend: {0}")]
    Backend(String),
    /// A broken invariant: a bug.
    #[error("internal error: {0}")]
    Internal(&'static str),
}
