//! IO's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{IoWord, WordAccess, IO_IN, IO_OUT, IO_ZERO};
use alloc::vec::Vec;

/// Splits the buffer `[buf, buf + cnt)` into `(w, lo, cnt)` per word, in address order.
pub fn words_of(buf: u32, cnt: u32) -> Vec<(u32, u8, u8)> {
    let (mut a, end) = (buf as u64, buf as u64 + cnt as u64);
    let mut out = Vec::with_capacity(cnt as usize / 8 + 2);
    while a < end {
        let lo = a % 8;
        let c = (8 - lo).min(end - a);
        out.push(((a / 8) as u32, lo as u8, c as u8));
        a += c;
    }
    out
}

/// Whether an IO row of `kind` writes its word (an input transfer, a break shrink; output
/// only reads).
#[inline]
pub fn writes(kind: u32) -> bool {
    kind != IO_OUT
}

/// The word after an IO row of `kind` moves bytes `lo .. lo + cnt` of `old`, and how many
/// input bytes it took: [`IO_IN`] copies them from the front of `input` (`None` if it is
/// shorter), [`IO_OUT`] appends them to `output`, [`IO_ZERO`] zeroes them.
#[inline]
pub fn transfer(
    kind: u32,
    old: u64,
    lo: u8,
    cnt: u8,
    input: &[u8],
    output: &mut Vec<u8>,
) -> Option<(u64, usize)> {
    let covered = lo as usize..(lo + cnt) as usize;
    let mut bytes = old.to_le_bytes();
    let mut taken = 0;
    match kind {
        IO_IN => {
            bytes[covered].copy_from_slice(input.get(..cnt as usize)?);
            taken = cnt as usize;
        }
        IO_OUT => output.extend_from_slice(&bytes[covered]),
        _ => bytes[covered].fill(0),
    }
    Some((u64::from_le_bytes(bytes), taken))
}

/// IO's record of bytes `lo .. lo + cnt` of a chain of `kind` at transfer position `pos`,
/// over the memory access `a` (its word, timestamp, values before and after).
#[inline]
pub fn record(kind: u32, pos: u64, lo: u8, cnt: u8, a: &WordAccess) -> IoWord {
    IoWord {
        kind,
        ts: a.ts,
        pos,
        w: a.w,
        lo,
        cnt,
        old: a.old,
        new: a.new,
    }
}

/// IO's trace for `rows` (one per word of every transfer or zeroing chain, any order; `kind`
/// is [`IO_IN`], [`IO_OUT`] or [`IO_ZERO`]), recording its byte lookups in `bytes`: [`fill`]
/// and [`lookups`]. Height: the next power of two ≥ 8; padding rows are all zero.
pub fn build_trace(rows: &[IoWord], bytes: &mut ByteCounts) -> RowMajorMatrix {
    lookups(rows, bytes);
    fill(rows)
}

/// IO's byte lookups for `rows` (what [`build_trace`] records; the padding rows make none):
/// the word index's bytes (and `8·wb₃`, so `w < 2^29`) and the new word's bytes, in pairs.
pub fn lookups(rows: &[IoWord], bytes: &mut ByteCounts) {
    for io in rows {
        let (wb, new) = (io.w.to_le_bytes(), io.new.to_le_bytes());
        bytes.range(wb[0], wb[1]);
        bytes.range(wb[2], wb[3]);
        bytes.range(wb[3].wrapping_mul(8), 0);
        for i in (0..8).step_by(2) {
            bytes.range(new[i], new[i + 1]);
        }
    }
}

/// IO's trace for `rows` without the byte lookups (what [`build_trace`] builds; the fill the
/// device kernel makes). Padding rows are all zero.
pub fn fill(rows: &[IoWord]) -> RowMajorMatrix {
    let h = rows.len().next_power_of_two().max(crate::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    let byte = |v: u8| Felt::from(v as u32);
    for (r, io) in rows.iter().enumerate() {
        debug_assert!(io.cnt >= 1 && io.lo as u32 + io.cnt as u32 <= 8);
        debug_assert!(io.w < 1 << 29);
        debug_assert!(io.kind <= IO_ZERO);
        let (out, zero) = (io.kind == IO_OUT, io.kind == IO_ZERO);
        let mut row = IoCols::from_fn(|_| Felt::ZERO);
        row.real = Felt::ONE;
        row.kind = Felt::from(out);
        row.zero = Felt::from(zero);
        row.ts = Felt::new(io.ts);
        row.pos = Felt::new(io.pos);
        row.wb = io.w.to_le_bytes().map(byte);
        row.lo = byte(io.lo);
        let (old, new) = (io.old.to_le_bytes(), io.new.to_le_bytes());
        for j in 0..8 {
            let covered = j >= io.lo as usize && j < io.lo as usize + io.cnt as usize;
            row.m[j] = Felt::from(covered);
            row.om[j] = Felt::from(covered && out);
            row.old[j] = byte(old[j]);
            row.new[j] = byte(new[j]);
        }
        row.write(t.row_mut(r));
    }
    t
}
