//! The statement file `kestrel prove` writes: what a proof claims about a run (its exit code
//! and public output), followed by the proof. It lives on the verifier's side, so an embedder
//! reads a `kestrel prove` file with this crate alone:
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | [`STATEMENT_MAGIC`] |
//! | 8 | exit code, little-endian |
//! | 4 | `n`, the public output's length, little-endian, at most [`MAX_OUTPUT`] |
//! | `n` | the public output |
//! | rest | the proof ([`crate::parse_proof`]) |
//!
//! ```
//! use kestrel_verifier::statement::{decode_statement, encode_statement, Statement};
//!
//! let st = Statement { exit_code: 7, output: b"hello\n".to_vec() };
//! let file = encode_statement(&st, b"proof bytes");
//! let (back, proof) = decode_statement(&file).unwrap();
//! assert_eq!((back, proof), (st, &b"proof bytes"[..]));
//! assert!(decode_statement(b"not a statement").is_err());
//! ```
//!
//! [`verify_statement_file`] checks a whole file against a verifying key.

use alloc::vec::Vec;

use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::rv::machine::{public_values, Rv64Machine, MAX_OUTPUT, NUM_PUBLIC};

use crate::VerifyError;

/// The first bytes of a statement file.
pub const STATEMENT_MAGIC: &[u8; 8] = b"KSTLSTMT";

/// A statement: what a proof claims about a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The exit code (all 64 bits of `a0` at the exit call).
    pub exit_code: u64,
    /// Public output (fd 1).
    pub output: Vec<u8>,
}

impl Statement {
    /// The proof's public values.
    pub fn public(&self) -> Vec<Felt> {
        public_values(self.exit_code, &self.output)
    }

    /// The statement whose public values are `public` (as the prover produced them).
    pub fn from_public(public: &[Felt]) -> Statement {
        let exit_code = public
            .iter()
            .take(NUM_PUBLIC)
            .enumerate()
            .map(|(i, b)| (b.as_u64() & 0xff) << (8 * i))
            .sum();
        let output = public
            .iter()
            .skip(NUM_PUBLIC)
            .map(|b| b.as_u64() as u8)
            .collect();
        Statement { exit_code, output }
    }
}

/// Encodes a statement file: the statement, then `proof`.
pub fn encode_statement(st: &Statement, proof: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(20 + st.output.len() + proof.len());
    out.extend_from_slice(STATEMENT_MAGIC);
    out.extend_from_slice(&st.exit_code.to_le_bytes());
    out.extend_from_slice(&(st.output.len() as u32).to_le_bytes());
    out.extend_from_slice(&st.output);
    out.extend_from_slice(proof);
    out
}

/// Decodes a statement file into the statement and the proof bytes that follow it. Shape
/// first: nothing is allocated beyond the output the file holds (at most [`MAX_OUTPUT`]).
///
/// # Errors
/// A description of what is wrong with the file.
pub fn decode_statement(bytes: &[u8]) -> Result<(Statement, &[u8]), &'static str> {
    let rest = bytes
        .strip_prefix(STATEMENT_MAGIC)
        .ok_or("not a Kestrel proof file (bad magic)")?;
    let (code, rest) = rest.split_at_checked(8).ok_or("truncated proof file")?;
    let (n, rest) = rest.split_at_checked(4).ok_or("truncated proof file")?;
    let exit_code = u64::from_le_bytes(code.try_into().map_err(|_| "truncated proof file")?);
    let n = u32::from_le_bytes(n.try_into().map_err(|_| "truncated proof file")?) as usize;
    if n > MAX_OUTPUT {
        return Err("public output longer than any statement may carry");
    }
    let (output, proof) = rest.split_at_checked(n).ok_or("truncated public output")?;
    Ok((
        Statement {
            exit_code,
            output: output.to_vec(),
        },
        proof,
    ))
}

/// Why a statement file does not verify.
#[derive(Clone, Debug, PartialEq)]
pub enum FileError {
    /// The file is not a statement file.
    Format(&'static str),
    /// The proof does not verify for this statement and key.
    Proof(VerifyError),
}

impl core::fmt::Display for FileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FileError::Format(e) => f.write_str(e),
            FileError::Proof(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for FileError {}

/// Verifies a statement file against the RV64IM verifying key `vk` (`kestrel vk`'s 32
/// bytes): on success, the statement it proves.
///
/// # Errors
/// [`FileError`] for a malformed file or a proof that does not verify.
pub fn verify_statement_file(vk: &VerifyingKey, file: &[u8]) -> Result<Statement, FileError> {
    let (statement, proof) = decode_statement(file).map_err(FileError::Format)?;
    crate::verify(&Rv64Machine::verifier(), vk, &statement.public(), proof)
        .map_err(FileError::Proof)?;
    Ok(statement)
}
