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

    /// BITWISE's main trace of the lookups of all of `parts` (the same as [`Self::trace`]
    /// after merging them into one counter), summed slice by slice through `par`.
    pub fn sum_trace(par: &impl ParMap, parts: &[&ByteCounts]) -> RowMajorMatrix {
        const SLICE: usize = 1 << 12;
        let slices = par.map((WIDTH << LOG_HEIGHT) / SLICE, |k| {
            let range = k * SLICE..(k + 1) * SLICE;
            let mut sum = alloc::vec![0u32; SLICE];
            for p in parts {
                for (a, b) in sum.iter_mut().zip(&p.counts[range.clone()]) {
                    *a += b;
                }
            }
            sum
        });
        let values = slices.iter().flatten().map(|&c| Felt::from(c)).collect();
        RowMajorMatrix::new(values, WIDTH)
    }
}
