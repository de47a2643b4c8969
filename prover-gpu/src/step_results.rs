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

/// The results a register walk is sent, read straight from the steps: per step its DECODE
/// row and result, and per DECODE row whether its steps send their results. The same
/// encoding as [`encode_results`] over the sent results, written into an upload's buffers
/// range by range ([`SentResults::write_tags`], [`SentResults::write_words`]) with no copy
/// of the results in between: one parallel pass counts each chunk's results and words, and
/// each range starts at its chunk (a binary search) and walks at most one chunk to its
/// first result.
pub struct SentResults<'a> {
    dec_row: &'a [u32],
    res: &'a [u64],
    sends: &'a [bool],
    chunk: usize,
    /// Per chunk of `chunk` steps, the index of its first sent result.
    pub first: Vec<usize>,
    /// Per chunk, the index of its first result's first word.
    pub first_word: Vec<usize>,
    /// How many results are sent, and in how many 32-bit words.
    pub sent: usize,
    pub words: usize,
}

impl<'a> SentResults<'a> {
    /// The layout of the results of steps `dec_row`/`res` (equal lengths; every row indexes
    /// `sends`) in chunks of `chunk` steps.
    pub fn new(dec_row: &'a [u32], res: &'a [u64], sends: &'a [bool], chunk: usize) -> Self {
        assert_eq!(dec_row.len(), res.len(), "a result per step");
        let chunk = chunk.max(1);
        let counts: Vec<(usize, usize)> = dec_row
            .par_chunks(chunk)
            .zip(res.par_chunks(chunk))
            .map(|(rows, vals)| {
                rows.iter()
                    .zip(vals)
                    .filter(|(&r, _)| sends[r as usize])
                    .fold((0, 0), |(n, w), (_, &v)| {
                        (n + 1, w + 1 + (result_class(v) == 2) as usize)
                    })
            })
            .collect();
        let (mut first, mut first_word) = (
            Vec::with_capacity(counts.len()),
            Vec::with_capacity(counts.len()),
        );
        let (mut sent, mut words) = (0, 0);
        for (n, w) in counts {
            first.push(sent);
            first_word.push(words);
            sent += n;
            words += w;
        }
        SentResults {
            dec_row,
            res,
            sends,
            chunk,
            first,
            first_word,
            sent,
            words,
        }
    }

    /// The chunk holding position `at` of a sequence whose chunks start at `starts`.
    fn chunk_of(starts: &[usize], at: usize) -> usize {
        starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// The steps from chunk `c`'s first on, with the index of the first sent result and of
    /// its first word there.
    fn steps_after(&self, c: usize) -> (impl Iterator<Item = (u32, u64)> + '_, usize, usize) {
        let at = (c * self.chunk).min(self.dec_row.len());
        let steps = self.dec_row[at..]
            .iter()
            .zip(&self.res[at..])
            .map(|(&r, &v)| (r, v));
        let j = self.first.get(c).copied().unwrap_or(self.sent);
        let u = self.first_word.get(c).copied().unwrap_or(self.words);
        (steps, j, u)
    }

    /// Tag words `t0 .. t0 + out.len()` ([`EncodedResults::tags`]; 0 past the last).
    pub fn write_tags(&self, t0: usize, out: &mut [u64]) {
        out.fill(0);
        let (j0, end) = (32 * t0, 32 * (t0 + out.len()));
        let (steps, mut j, _) = self.steps_after(Self::chunk_of(&self.first, j0));
        for (r, v) in steps {
            if !self.sends[r as usize] {
                continue;
            }
            if j >= end {
                break;
            }
            if j >= j0 {
                let i = j - j0;
                out[i / 32] |= result_class(v) << (2 * (i % 32));
            }
            j += 1;
        }
    }

    /// The words as pairs, `w0 .. w0 + out.len()`: pair `w` holds word `2w` in its low half
    /// and word `2w + 1` in its high half ([`EncodedResults::words`]; 0 past the last).
    pub fn write_words(&self, w0: usize, out: &mut [u64]) {
        out.fill(0);
        let (u0, end) = (2 * w0, 2 * (w0 + out.len()));
        let (steps, _, mut u) = self.steps_after(Self::chunk_of(&self.first_word, u0));
        let mut put = |u: usize, x: u32| {
            if (u0..end).contains(&u) {
                let i = u - u0;
                out[i / 2] |= (x as u64) << (32 * (i % 2));
            }
        };
        for (r, v) in steps {
            if !self.sends[r as usize] {
                continue;
            }
            if u >= end {
                break;
            }
            put(u, v as u32);
            u += 1;
            if result_class(v) == 2 {
                put(u, (v >> 32) as u32);
                u += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct encoding writes exactly [`encode_results`]'s tags, words and chunk starts,
    /// whatever the ranges it is asked for.
    #[test]
    fn sent_results_match_the_encoding_of_their_copy() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let sends = [true, false, true, true, false];
        for (n, chunk) in [
            (0usize, 256usize),
            (1, 256),
            (1000, 256),
            (4097, 64),
            (777, 1),
        ] {
            let dec_row: Vec<u32> = (0..n).map(|_| (next() % 5) as u32).collect();
            let res: Vec<u64> = (0..n)
                .map(|_| match next() % 3 {
                    0 => next() as i32 as i64 as u64,
                    1 => next() >> 32,
                    _ => next() | 1 << 63,
                })
                .collect();
            let s = SentResults::new(&dec_row, &res, &sends, chunk);
            let sent: Vec<u64> = dec_row
                .iter()
                .zip(&res)
                .filter(|(&r, _)| sends[r as usize])
                .map(|(_, &v)| v)
                .collect();
            let chunks = n.div_ceil(chunk);
            let first: Vec<usize> = (0..chunks)
                .map(|c| {
                    dec_row[..c * chunk]
                        .iter()
                        .filter(|&&r| sends[r as usize])
                        .count()
                })
                .collect();
            let enc = encode_results(&sent, &first, chunks);
            assert_eq!(s.first, first);
            assert_eq!(s.first_word, enc.first_word);
            assert_eq!((s.sent, s.words), (sent.len(), enc.words.len()));
            let pairs: Vec<u64> = enc
                .words
                .chunks(2)
                .map(|p| p[0] as u64 | (*p.get(1).unwrap_or(&0) as u64) << 32)
                .collect();
            // Every split of each range into two pieces, as an upload's pieces cut them.
            for cut in [0, 1, 3, 31, 32, 33, 100, pairs.len()] {
                let mut tags = vec![u64::MAX; enc.tags.len()];
                let c = cut.min(tags.len());
                let (a, b) = tags.split_at_mut(c);
                s.write_tags(0, a);
                s.write_tags(c, b);
                assert_eq!(tags, enc.tags, "tags, n {n}, cut {c}");
                let mut words = vec![u64::MAX; pairs.len()];
                let c = cut.min(words.len());
                let (a, b) = words.split_at_mut(c);
                s.write_words(0, a);
                s.write_words(c, b);
                assert_eq!(words, pairs, "words, n {n}, cut {c}");
            }
        }
    }
}
