//! Why a proof was rejected.

use core::fmt;

use kestrel_core::air::ShapeError;

/// Which committed matrix of a table an opening belongs to (the protocol's
/// [`Matrix`](kestrel_core::stark::Matrix)).
pub use kestrel_core::stark::Matrix as Round;

/// A rejected proof. Shape errors (the bytes do not have the form the parameters and the
/// AIR imply) come apart from cryptographic failures (the form is right, a check fails).
#[derive(Clone, Debug, PartialEq)]
pub enum VerifyError {
    // ---- shape ----
    /// The input ended before the proof did.
    Truncated,
    /// The [`ProofSource`](crate::ProofSource) failed (not the proof's fault), or gave other
    /// bytes when the verifier read the out-of-domain record a second time (a rewinding
    /// source).
    Source,
    /// The first four bytes are not `KSTL`.
    BadMagic,
    /// A format version this verifier does not read.
    UnsupportedVersion { got: u16 },
    /// A value is not a valid encoding (a non-canonical field element).
    Decode,
    /// Bytes after the proof (at least `count`: a source that does not know its length
    /// reports 1).
    TrailingBytes { count: usize },
    /// Parameters outside the supported ranges.
    BadParams,
    /// The parameter set's provable security is below the floor.
    BelowSecurityFloor { provable_bits: u32, floor: u32 },
    /// The AIR itself is malformed.
    Air(ShapeError),
    /// Wrong number of public values for the statement.
    PublicCount { expected: usize, got: usize },
    /// A table height outside `[2^MIN_LOG_HEIGHT, 2^MAX_LOG_HEIGHT]`.
    LogHeight { table: usize, got: u8 },
    /// A segmented proof for a machine that does not prove in segments.
    NotSegmentable,
    /// A segmented run longer than the verifier accepts (its segments' cycles).
    RunTooLong,
    /// A segmented proof's second listing of its parts differs from its first.
    PartsMismatch,
    /// A list in the proof has the wrong length.
    Length {
        what: &'static str,
        expected: usize,
        got: usize,
    },

    // ---- cryptographic ----
    /// The statement, parameters and preprocessed roots do not hash to the verifying key.
    VkMismatch,
    /// The LogUp totals and the public contribution do not sum to zero.
    LogUpSum,
    /// A LogUp fingerprint of a public interaction vanished.
    LogUpFingerprintZero,
    /// The out-of-domain point lies on a domain where a denominator vanishes.
    OodPointInDomain,
    /// The constraints at ζ disagree with the committed quotient.
    OodMismatch { table: usize },
    /// The grinding nonce does not have enough leading zero bits.
    PowInvalid,
    /// A round's openings (its matrices' rows and its path) do not match its commitment.
    MerklePath { query: usize, round: Round },
    /// A FRI layer opening does not match its commitment.
    FriMerklePath { query: usize, layer: usize },
    /// The last folded value disagrees with the final polynomial.
    FriFinalPoly { query: usize },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use VerifyError::*;
        match self {
            Truncated => write!(f, "proof truncated"),
            Source => write!(f, "the proof's source failed or changed between reads"),
            BadMagic => write!(f, "not a Kestrel proof (bad magic)"),
            UnsupportedVersion { got } => write!(f, "unsupported proof format version {got}"),
            Decode => write!(f, "malformed proof (non-canonical field element)"),
            TrailingBytes { count } => write!(f, "{count} trailing bytes after the proof"),
            BadParams => write!(f, "parameters out of range"),
            BelowSecurityFloor {
                provable_bits,
                floor,
            } => {
                write!(
                    f,
                    "parameters give {provable_bits} provable bits, below the floor of {floor}"
                )
            }
            Air(e) => write!(f, "malformed AIR: {e}"),
            PublicCount { expected, got } => {
                write!(f, "expected {expected} public values, got {got}")
            }
            LogHeight { table, got } => write!(f, "table {table}: log height {got} out of range"),
            Length {
                what,
                expected,
                got,
            } => write!(f, "{what}: expected {expected}, got {got}"),
            NotSegmentable => write!(f, "this machine does not prove in segments"),
            RunTooLong => write!(f, "segmented run longer than the verifier accepts"),
            PartsMismatch => write!(f, "the proof lists its parts differently the second time"),
            VkMismatch => write!(f, "proof does not match the verifying key"),
            LogUpSum => write!(f, "LogUp buses do not balance"),
            LogUpFingerprintZero => write!(f, "LogUp fingerprint of a public interaction vanished"),
            OodPointInDomain => write!(f, "out-of-domain point lies in a domain"),
            OodMismatch { table } => write!(
                f,
                "table {table}: constraints disagree with the quotient at ζ"
            ),
            PowInvalid => write!(f, "grinding nonce invalid"),
            MerklePath { query, round } => {
                write!(
                    f,
                    "query {query}: {round:?} round opening does not match its commitment"
                )
            }
            FriMerklePath { query, layer } => {
                write!(
                    f,
                    "query {query}: FRI layer {layer} opening does not match its commitment"
                )
            }
            FriFinalPoly { query } => write!(f, "query {query}: FRI final polynomial mismatch"),
        }
    }
}
