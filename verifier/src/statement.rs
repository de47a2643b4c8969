//! The statement file `kestrel prove` writes (version 2): what a proof claims about a run
//! (its exit code and public output), followed by the proof. It lives on the verifier's
//! side, so an embedder reads a `kestrel prove` file with this crate alone. Integers are
//! little-endian:
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | [`STATEMENT_MAGIC`] `KSTLSTMT` |
//! | 2 | [`STATEMENT_VERSION`] (2) |
//! | 8 | exit code |
//! | 4 | `n`, the public output's length, at most [`MAX_OUTPUT`] |
//! | `n` | the public output |
//! | rest | the proof, format version 2 ([`kestrel_core::proof`]), to the end of the file |
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
//! [`verify_statement_stream`] checks a whole file read from a [`ProofSource`] (the
//! statement, then the proof, streamed) against a verifying key; [`verify_statement_file`]
//! does it for a file in memory.

use alloc::vec::Vec;

use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::rv::machine::{public_values, Rv64Machine, MAX_OUTPUT, NUM_PUBLIC};

use crate::source::{ProofSource, SourceError};
use crate::VerifyError;

/// The first bytes of a statement file.
pub const STATEMENT_MAGIC: &[u8; 8] = b"KSTLSTMT";
/// The statement file's version (after the magic). Files without a version (version 1)
/// are not read.
pub const STATEMENT_VERSION: u16 = 2;
/// Bytes before the public output: magic, version, exit code, output length.
pub const STATEMENT_HEADER_LEN: usize = 22;

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
    let mut out = Vec::with_capacity(STATEMENT_HEADER_LEN + st.output.len() + proof.len());
    out.extend_from_slice(STATEMENT_MAGIC);
    out.extend_from_slice(&STATEMENT_VERSION.to_le_bytes());
    out.extend_from_slice(&st.exit_code.to_le_bytes());
    out.extend_from_slice(&(st.output.len() as u32).to_le_bytes());
    out.extend_from_slice(&st.output);
    out.extend_from_slice(proof);
    out
}

/// Reads a statement from `source`, leaving it at the proof's first byte. Shape first:
/// the output's length is checked against [`MAX_OUTPUT`] (and against what is left, if the
/// source knows) before it is read, and memory grows only with the bytes actually read.
///
/// # Errors
/// A description of what is wrong with the file.
pub fn read_statement(source: &mut dyn ProofSource) -> Result<Statement, &'static str> {
    fn read<const N: usize>(s: &mut dyn ProofSource) -> Result<[u8; N], &'static str> {
        let mut b = [0u8; N];
        s.read_exact(&mut b).map_err(source_message)?;
        Ok(b)
    }
    if read::<8>(source)? != *STATEMENT_MAGIC {
        return Err("not a Kestrel proof file (bad magic)");
    }
    if u16::from_le_bytes(read(source)?) != STATEMENT_VERSION {
        return Err("unsupported proof file version");
    }
    let exit_code = u64::from_le_bytes(read(source)?);
    let n = u32::from_le_bytes(read(source)?) as usize;
    if n > MAX_OUTPUT {
        return Err("public output longer than any statement may carry");
    }
    if source.remaining().is_some_and(|left| left < n) {
        return Err("truncated public output");
    }
    let mut output = Vec::with_capacity(source.remaining().map_or(n.min(CHUNK), |_| n));
    let mut chunk = [0u8; CHUNK];
    while output.len() < n {
        let m = (n - output.len()).min(CHUNK);
        source.read_exact(&mut chunk[..m]).map_err(|e| match e {
            SourceError::End => "truncated public output",
            SourceError::Failed => source_message(e),
        })?;
        output.extend_from_slice(&chunk[..m]);
    }
    Ok(Statement { exit_code, output })
}

/// The public output is read in pieces of this many bytes.
const CHUNK: usize = 256;

fn source_message(e: SourceError) -> &'static str {
    match e {
        SourceError::End => "truncated proof file",
        SourceError::Failed => "the proof file's source failed",
    }
}

/// Decodes a statement file in memory into the statement and the proof bytes that follow
/// it ([`read_statement`] over the slice).
///
/// # Errors
/// A description of what is wrong with the file.
pub fn decode_statement(bytes: &[u8]) -> Result<(Statement, &[u8]), &'static str> {
    let mut rest = bytes;
    let st = read_statement(&mut rest)?;
    Ok((st, rest))
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

/// Verifies a statement file read from `source` (the statement, then the proof, streamed
/// to the end of the source) against the RV64IM verifying key `vk` (`kestrel vk`'s 32
/// bytes): on success, the statement it proves.
///
/// # Errors
/// [`FileError`] for a malformed file or a proof that does not verify.
pub fn verify_statement_stream(
    vk: &VerifyingKey,
    source: &mut dyn ProofSource,
) -> Result<Statement, FileError> {
    let statement = read_statement(source).map_err(FileError::Format)?;
    crate::verify_stream(&Rv64Machine::verifier(), vk, &statement.public(), source)
        .map_err(FileError::Proof)?;
    Ok(statement)
}

/// [`verify_statement_stream`] for a file in memory (or memory-mapped flash): read in
/// place through a [`SliceSource`](crate::SliceSource), which rewinds (the smaller heap).
///
/// # Errors
/// [`FileError`] for a malformed file or a proof that does not verify.
pub fn verify_statement_file(vk: &VerifyingKey, file: &[u8]) -> Result<Statement, FileError> {
    let mut src = crate::SliceSource::new(file);
    verify_statement_stream(vk, &mut src)
}
