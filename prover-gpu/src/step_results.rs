//! How the register walk on a device receives the steps' results (`kernels/rv/memw_r.cu`,
//! `ks_regwalk_expand`): most results of a 64-bit program fit 32 bits (counters, addresses,
//! 32-bit arithmetic), so each goes up as one 32-bit word with a 2-bit class, or two words
//! when it does not fit. Here, outside the `cuda` feature, so that the encoding is tested
//! on every machine.

use rayon::prelude::*;

/// The results a walk is sent, encoded: a 2-bit class per result (0: the sign extension of
/// its low 32 bits, 1: their zero extension, 2: neither), then the results as 32-bit words,
/// one per result of class 0 or 1 and two (low, high) per result of class 2. Most results
/// of a 64-bit program fit 32 bits (counters, addresses, 32-bit arithmetic): about 4 bytes
/// a result instead of 8.
pub struct EncodedResults {
    /// 32 classes per word (result `j`'s at bits `2·(j % 32)` of word `j / 32`).
    pub tags: Vec<u64>,
    pub words: Vec<u32>,
    /// Per chunk of steps, the index of its first result's first word.
    pub first_word: Vec<usize>,
}

/// A result's class in [`EncodedResults`].
fn result_class(v: u64) -> u64 {
    if v as i32 as i64 as u64 == v {
        0
    } else if v >> 32 == 0 {
        1
    } else {
        2
    }
}

/// Encodes `sent` (chunk `c`'s results from `first[c]`, `chunks` chunks).
pub fn encode_results(sent: &[u64], first: &[usize], chunks: usize) -> EncodedResults {
    let range = |c: usize| first[c]..first.get(c + 1).copied().unwrap_or(sent.len());
    let size = |v: &u64| if result_class(*v) == 2 { 2 } else { 1 };
    let counts: Vec<usize> = (0..chunks)
        .into_par_iter()
        .map(|c| sent[range(c)].iter().map(size).sum())
        .collect();
    let (words, first_word) = crate::par::fill_parts(&counts, |c, out: &mut [u32]| {
        let mut k = 0;
        for &v in &sent[range(c)] {
            out[k] = v as u32;
            k += 1;
            if result_class(v) == 2 {
                out[k] = (v >> 32) as u32;
                k += 1;
            }
        }
    });
    let tags = sent
        .par_chunks(32)
        .map(|vs| {
            vs.iter()
                .enumerate()
                .fold(0, |acc, (k, &v)| acc | result_class(v) << (2 * k))
        })
        .collect();
    EncodedResults {
        tags,
        words,
        first_word,
    }
}

/// Result `j` decoded from `tags` and `words` at word `*k` (advanced past it), as
/// `ks_regwalk_expand` does.
pub fn decode_result(tags: &[u64], words: &[u32], j: usize, k: &mut usize) -> u64 {
    let lo = words[*k];
    *k += 1;
    match (tags[j / 32] >> (2 * (j % 32))) & 3 {
        0 => lo as i32 as i64 as u64,
        1 => lo as u64,
        _ => {
            let hi = words[*k];
            *k += 1;
            lo as u64 | (hi as u64) << 32
        }
    }
}
