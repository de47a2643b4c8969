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

/// Why a pc has no DECODE row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NoRow {
    /// The pc is not in the program's code.
    NotInProgram,
    /// The word at the pc is not an instruction this version can prove.
    Unsupported,
}

/// The program's code slots, decoded once: an instruction's DECODE row from its pc, a
/// row's fields (the packing pass's lookup).
#[derive(Clone)]
pub struct CodeSlots {
    /// `(first pc, first slot, slots)` per run of consecutive instruction words.
    runs: Vec<(u32, usize, usize)>,
    /// Each slot's fields (defaults for an instruction this version cannot prove)…
    fields: Vec<Decoded>,
    /// …and whether it can be proven (no step gets the row of one that cannot).
    provable: Vec<bool>,
}

impl CodeSlots {
    pub fn new(program: &ProgramImage) -> CodeSlots {
        let mut runs: Vec<(u32, usize, usize)> = Vec::new();
        for (i, &(pc, _)) in program.code.iter().enumerate() {
            match runs.last_mut() {
                Some((first, _, len)) if first.wrapping_add(4 * *len as u32) == pc => *len += 1,
                _ => runs.push((pc, i, 1)),
            }
        }
        runs.sort_unstable();
        let decoded: Vec<Option<Decoded>> = program
            .code
            .iter()
            .map(|&(pc, word)| decode_for_air(pc, word))
            .collect();
        CodeSlots {
            runs,
            provable: decoded.iter().map(Option::is_some).collect(),
            fields: decoded.into_iter().map(Option::unwrap_or_default).collect(),
        }
    }

    /// The DECODE row of the instruction at `pc`.
    ///
    /// # Errors
    /// [`NoRow`] when `pc` holds no provable instruction of the program.
    #[inline]
    pub fn row(&self, pc: u32) -> Result<u32, NoRow> {
        let k = self.runs.partition_point(|r| r.0 <= pc);
        let &(first, slot0, len) = self
            .runs
            .get(k.wrapping_sub(1))
            .ok_or(NoRow::NotInProgram)?;
        let off = pc - first;
        if off % 4 != 0 || (off / 4) as usize >= len {
            return Err(NoRow::NotInProgram);
        }
        let slot = slot0 + (off / 4) as usize;
        if !self.provable[slot] {
            return Err(NoRow::Unsupported);
        }
        Ok(slot as u32)
    }

    /// The number of code slots (DECODE's real rows).
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether the program has no code.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The fields of DECODE row `r`.
    #[inline]
    pub fn fields(&self, r: u32) -> &Decoded {
        &self.fields[r as usize]
    }
}
