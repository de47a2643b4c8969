//! PAGE0's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::padded_height;
use crate::rv::page::ZeroRange;
use alloc::vec::Vec;

/// One touched zero-initialised word: its index, range, final value and timestamp.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ZeroWord {
    pub w: u32,
    pub range: ZeroRange,
    pub fin: u64,
    pub fin_ts: u64,
}

/// PAGE0's rows: the words of `touched` (`(w, final value, final timestamp)`, by increasing
/// `w`) that lie in a zero range of `image`, in order.
pub fn zero_words(
    image: &crate::rv::page::MemoryImage,
    touched: impl Iterator<Item = (u32, u64, u64)>,
) -> Vec<ZeroWord> {
    touched
        .filter_map(|(w, fin, fin_ts)| {
            Some(ZeroWord {
                w,
                range: image.zero_range(w)?,
                fin,
                fin_ts,
            })
        })
        .collect()
}

/// PAGE0's trace (PAGE's builder is [`crate::rv::page::build_trace`]): `words` are the touched
/// zero-initialised words, strictly increasing. Records the range checks in `bytes`.
pub fn build_trace(words: &[ZeroWord], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(padded_height(words.len()), P0_WIDTH);
    let mut prev = None;
    for (r, z) in words.iter().enumerate() {
        let mut row = Page0Cols::from_fn(|_| Felt::ZERO);
        row.real = Felt::ONE;
        row.w = Felt::from(z.w);
        // Wrapping, so that a dishonest word list yields a trace that fails the checks.
        let d = prev.map_or(0, |p: u32| z.w.wrapping_sub(p).wrapping_sub(1));
        let e = z.w.wrapping_sub(z.range.lo);
        let f = z.range.hi.wrapping_sub(1).wrapping_sub(z.w);
        for (x, v) in [(&mut row.d, d), (&mut row.e, e), (&mut row.f, f)] {
            let v = v.to_le_bytes();
            for i in 0..4 {
                x[i] = Felt::from(v[i] as u32);
            }
            bytes.range(v[0], v[1]);
            bytes.range(v[2], v[3]);
        }
        row.lo = Felt::from(z.range.lo);
        row.hi = Felt::from(z.range.hi);
        row.ro = Felt::from(z.range.ro);
        for (i, byte) in z.fin.to_le_bytes().into_iter().enumerate() {
            row.fin[i] = Felt::from(byte as u32);
        }
        row.fin_ts = Felt::new(z.fin_ts);
        row.write(m.row_mut(r));
        prev = Some(z.w);
    }
    m
}
