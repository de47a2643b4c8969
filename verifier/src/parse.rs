//! Phase one of parsing: header and container decoding. Lengths are checked against the
//! statement's shape in [`crate::verify`] before any arithmetic.

use kestrel_core::proof::{ProofBody, FORMAT_VERSION, HEADER_LEN, MAGIC};

use crate::VerifyError;

/// Decodes proof bytes: magic, version, postcard body, no trailing bytes. Field elements
/// are fixed-width and rejected unless canonical.
///
/// # Errors
/// [`VerifyError::TooShort`], [`VerifyError::BadMagic`], [`VerifyError::UnsupportedVersion`],
/// [`VerifyError::Decode`] or [`VerifyError::TrailingBytes`].
pub fn parse_proof(bytes: &[u8]) -> Result<ProofBody, VerifyError> {
    let (header, body) = match bytes.split_at_checked(HEADER_LEN) {
        Some(x) => x,
        None => return Err(VerifyError::TooShort { got: bytes.len() }),
    };
    if header[..4] != MAGIC {
        return Err(VerifyError::BadMagic);
    }
    let version = u16::from_le_bytes([header[4], header[5]]);
    if version != FORMAT_VERSION {
        return Err(VerifyError::UnsupportedVersion { got: version });
    }
    let (proof, rest) =
        postcard::take_from_bytes::<ProofBody>(body).map_err(|_| VerifyError::Decode)?;
    if !rest.is_empty() {
        return Err(VerifyError::TrailingBytes { count: rest.len() });
    }
    Ok(proof)
}
