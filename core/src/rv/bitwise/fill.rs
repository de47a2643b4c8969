//! BITWISE's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::par::ParMap;
use crate::rv::BYTE_RANGE;
use alloc::vec::Vec;

/// Counts byte lookups while other tables' traces are built, then becomes BITWISE's trace.
#[derive(Clone)]
pub struct ByteCounts {
    counts: Vec<u32>,
}

impl Default for ByteCounts {
    fn default() -> Self {
        ByteCounts {
            counts: alloc::vec![0; WIDTH << LOG_HEIGHT],
        }
    }
}

impl ByteCounts {
    /// Records `(op, x, y, ·)`; `x`, `y` must be bytes.
    #[inline]
    pub fn add(&mut self, op: u32, x: u8, y: u8) {
        let row = x as usize | (y as usize) << 8;
        self.counts[row * WIDTH + op as usize] += 1;
    }

    /// Records a range check of two bytes.
    #[inline]
    pub fn range(&mut self, x: u8, y: u8) {
        self.add(BYTE_RANGE, x, y);
    }

    /// Adds another counter's lookups.
    pub fn merge(&mut self, other: &ByteCounts) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// BITWISE's main trace.
    pub fn trace(&self) -> RowMajorMatrix {
        RowMajorMatrix::new(self.counts.iter().map(|&c| Felt::from(c)).collect(), WIDTH)
    }
}

/// Byte lookups summed over the parts of a run (its segments' tables and its run tables),
/// in 64-bit counts: over a run of up to 2^36 cycles a byte pair is looked up more than
/// 2^32 times.
#[derive(Clone)]
pub struct ByteTotals {
    counts: Vec<u64>,
}

impl Default for ByteTotals {
    fn default() -> Self {
        ByteTotals {
            counts: alloc::vec![0; WIDTH << LOG_HEIGHT],
        }
    }
}

impl ByteTotals {
    /// Adds the lookups of all of `parts`, slice by slice through `par`.
    pub fn add(&mut self, par: &impl ParMap, parts: &[&ByteCounts]) {
        const SLICE: usize = 1 << 12;
        let mut slices: Vec<&mut [u64]> = self.counts.chunks_mut(SLICE).collect();
        par.map_mut(&mut slices, |k, sum| {
            let range = k * SLICE..k * SLICE + sum.len();
            for p in parts {
                for (a, &b) in sum.iter_mut().zip(&p.counts[range.clone()]) {
                    *a += u64::from(b);
                }
            }
        });
    }

    /// Adds another total's lookups.
    pub fn merge(&mut self, other: &ByteTotals) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// The counts, in BITWISE's row-major order (row `x | y << 8`, then the operation code).
    pub fn into_counts(self) -> Vec<u64> {
        self.counts
    }

    /// BITWISE's main trace: these lookups' counts, converted slice by slice through `par`.
    pub fn trace(&self, par: &impl ParMap) -> RowMajorMatrix {
        const SLICE: usize = 1 << 12;
        let slices = par.map(self.counts.len().div_ceil(SLICE), |k| {
            let end = ((k + 1) * SLICE).min(self.counts.len());
            self.counts[k * SLICE..end]
                .iter()
                .map(|&c| Felt::new(c))
                .collect::<Vec<Felt>>()
        });
        RowMajorMatrix::new(slices.concat(), WIDTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par::Sequential;

    /// Totals over parts (added in several calls) make the trace of one counter that merged
    /// every part.
    #[test]
    fn totals_are_the_merged_counts() {
        let mut parts = [ByteCounts::default(), ByteCounts::default()];
        for i in 0..3000u32 {
            let p = &mut parts[i as usize % 2];
            p.add(i % WIDTH as u32, (i * 7) as u8, (i >> 3) as u8);
            p.range(i as u8, 0xff);
        }
        let mut merged = ByteCounts::default();
        let mut totals = ByteTotals::default();
        for _ in 0..2 {
            for p in &parts {
                merged.merge(p);
            }
            totals.add(&Sequential, &[&parts[0]]);
            totals.add(&Sequential, &[&parts[1]]);
        }
        assert!(totals.trace(&Sequential) == merged.trace());
    }
}
