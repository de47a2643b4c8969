//! DECODE's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use alloc::vec::Vec;

/// Words per row of [`fields_of`]: `pc` then the DECODE tuple's fields.
pub const DECODE_WORDS: usize = TUPLE;

/// The program's DECODE rows as the CPU fill reads them: per code slot, `pc` then
/// [`Decoded::fields`] as canonical words (zeros for an instruction this
/// version cannot prove; no executed step refers to one).
pub fn fields_of(program: &ProgramImage) -> Vec<u64> {
    let mut out = Vec::with_capacity(program.code.len() * DECODE_WORDS);
    for &(pc, word) in &program.code {
        out.push(pc as u64);
        match decode_for_air(pc, word) {
            Some(d) => out.extend(d.fields().iter().map(|f| f.as_u64())),
            None => out.extend([0; DECODE_WORDS - 1]),
        }
    }
    out
}
