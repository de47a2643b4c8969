//! BITWISE: the fixed byte table. One row per byte pair `(x, y)` (2^16 rows, preprocessed
//! with `x & y`, `x | y`, `x ^ y`); four multiplicity columns receive range checks and the
//! three logic operations on [`super::BUS_BYTE`].

use alloc::vec::Vec;

use super::{BUS_BYTE, BYTE_AND, BYTE_OR, BYTE_RANGE, BYTE_XOR};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::par::ParMap;

/// log2 of the table height.
pub const LOG_HEIGHT: u32 = 16;

/// Preprocessed columns.
const PX: usize = 0;
const PY: usize = 1;
const PAND: usize = 2;
const POR: usize = 3;
const PXOR: usize = 4;
/// Main columns: multiplicities per operation, indexed by the operation code.
pub const WIDTH: usize = 4;

/// The BITWISE table.
pub struct BitwiseAir;

impl Air for BitwiseAir {
    fn name(&self) -> &str {
        "BITWISE"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn preprocessed_width(&self) -> usize {
        5
    }
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        let mut v = Vec::with_capacity(5 << LOG_HEIGHT);
        for row in 0..1u32 << LOG_HEIGHT {
            let (x, y) = (row & 0xff, row >> 8);
            v.extend([x, y, x & y, x | y, x ^ y].map(Felt::from));
        }
        Some((v, LOG_HEIGHT))
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let (x, y) = (b.preprocessed(PX), b.preprocessed(PY));
        let zero = B::Expr::from(Felt::ZERO);
        let op = |c: u32| B::Expr::from(Felt::from(c));
        b.receive(
            BUS_BYTE,
            b.main(BYTE_RANGE as usize),
            &[op(BYTE_RANGE), x.clone(), y.clone(), zero],
        );
        b.receive(
            BUS_BYTE,
            b.main(BYTE_AND as usize),
            &[op(BYTE_AND), x.clone(), y.clone(), b.preprocessed(PAND)],
        );
        b.receive(
            BUS_BYTE,
            b.main(BYTE_OR as usize),
            &[op(BYTE_OR), x.clone(), y.clone(), b.preprocessed(POR)],
        );
        b.receive(
            BUS_BYTE,
            b.main(BYTE_XOR as usize),
            &[op(BYTE_XOR), x, y, b.preprocessed(PXOR)],
        );
    }
}

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
