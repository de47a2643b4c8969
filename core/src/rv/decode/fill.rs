//! DECODE's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::matrix::RowMajorMatrix;
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

/// DECODE's main trace (its multiplicities): per code slot of `program`, the executions
/// counted in `mult` (one count per slot, per chunk of steps), summed; zero padding rows
/// up to the next power of two ≥ 8.
pub fn build_trace<'a>(
    program: &ProgramImage,
    mult: impl IntoIterator<Item = &'a [u64]>,
) -> RowMajorMatrix {
    let mut total = alloc::vec![0u64; crate::rv::padded_height(program.code.len())];
    for m in mult {
        for (t, x) in total.iter_mut().zip(m) {
            *t += x;
        }
    }
    RowMajorMatrix::new(total.into_iter().map(Felt::new).collect(), 1)
}
