//! PAGE's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::page0::ZeroWord;
use alloc::vec;
use alloc::vec::Vec;

/// PAGE's main trace: `finals[i]` is image word `i`'s final value and timestamp (`(init,
/// 0)` when untouched); `zmult[k]` the number of PAGE0 rows in zero range `k`.
///
/// # Panics
/// If `finals` and the image's words, or `zmult` and its zero ranges, differ in length.
pub fn build_trace(image: &MemoryImage, finals: &[(u64, u64)], zmult: &[u64]) -> RowMajorMatrix {
    assert_eq!(
        finals.len(),
        image.words.len(),
        "one final token per image word"
    );
    assert_eq!(zmult.len(), image.zero.len(), "one count per zero range");
    let mut m = RowMajorMatrix::zeros(page_height(image), WIDTH);
    for (r, &(fin, ts)) in finals.iter().enumerate() {
        let row = m.row_mut(r);
        let mut c = PageCols::read(row);
        for (i, byte) in fin.to_le_bytes().into_iter().enumerate() {
            c.fin[i] = Felt::from(byte as u32);
        }
        c.fin_ts = Felt::new(ts);
        c.write(row);
    }
    for (r, &k) in zmult.iter().enumerate() {
        let row = m.row_mut(r);
        let mut c = PageCols::read(row);
        c.zmult = Felt::new(k);
        c.write(row);
    }
    m
}

/// How many of `words` (PAGE0's) lie in each of `image`'s zero ranges (PAGE's `zmult`).
pub fn zero_counts(image: &MemoryImage, words: &[ZeroWord]) -> Vec<u64> {
    let mut counts = vec![0u64; image.zero.len()];
    for z in words {
        if let Ok(k) = image.zero.binary_search_by_key(&z.range.lo, |r| r.lo) {
            if image.zero[k] == z.range {
                counts[k] += 1;
            }
        }
    }
    counts
}
