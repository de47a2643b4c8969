//! BITWISE: the fixed byte table. One row per byte pair `(x, y)` (2^16 rows, preprocessed
//! with `x & y`, `x | y`, `x ^ y`); four multiplicity columns receive range checks and the
//! three logic operations on [`super::BUS_BYTE`].
//!
//! # Columns
//!
//! [`BitwisePreCols`] (preprocessed: `x`, `y`, `x & y`, `x | y`, `x ^ y`) and
//! [`BitwiseCols`] (main: one multiplicity per operation, at the column of its code) are
//! the layout's source.

use alloc::vec::Vec;

use super::{BUS_BYTE, BYTE_AND, BYTE_OR, BYTE_RANGE, BYTE_XOR};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

/// log2 of the table height.
pub const LOG_HEIGHT: u32 = 16;

crate::columns! {
    /// BITWISE's preprocessed columns.
    pub struct BitwisePreCols {
        /// The row's first byte.
        x,
        /// The row's second byte.
        y,
        /// `x & y`.
        and,
        /// `x | y`.
        or,
        /// `x ^ y`.
        xor,
    }
}

crate::columns! {
    /// BITWISE's main columns: multiplicities per operation, in operation-code order.
    pub struct BitwiseCols {
        /// Range checks ([`BYTE_RANGE`]).
        range,
        /// [`BYTE_AND`] lookups.
        and,
        /// [`BYTE_OR`] lookups.
        or,
        /// [`BYTE_XOR`] lookups.
        xor,
    }
}

// The main columns are indexed by the operation code ([`ByteCounts`] relies on it).
const _: () = assert!(
    col!(BitwiseCols, range) == BYTE_RANGE as usize
        && col!(BitwiseCols, and) == BYTE_AND as usize
        && col!(BitwiseCols, or) == BYTE_OR as usize
        && col!(BitwiseCols, xor) == BYTE_XOR as usize
);

/// Preprocessed columns.
const PRE_WIDTH: usize = <BitwisePreCols<u8> as Columns<u8>>::WIDTH;
/// Main columns: multiplicities per operation, indexed by the operation code.
pub const WIDTH: usize = <BitwiseCols<u8> as Columns<u8>>::WIDTH;

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
        PRE_WIDTH
    }
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        let mut v = alloc::vec![Felt::ZERO; PRE_WIDTH << LOG_HEIGHT];
        for (row, cells) in (0..1u32 << LOG_HEIGHT).zip(v.chunks_exact_mut(PRE_WIDTH)) {
            let (x, y) = (row & 0xff, row >> 8);
            BitwisePreCols {
                x: Felt::from(x),
                y: Felt::from(y),
                and: Felt::from(x & y),
                or: Felt::from(x | y),
                xor: Felt::from(x ^ y),
            }
            .write(cells);
        }
        Some((v, LOG_HEIGHT))
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let p: BitwisePreCols<B::Expr> = BitwisePreCols::from_fn(|i| b.preprocessed(i));
        let c: BitwiseCols<B::Expr> = BitwiseCols::from_fn(|i| b.main(i));
        let (x, y) = (p.x, p.y);
        let zero = B::Expr::from(Felt::ZERO);
        let op = |c: u32| B::Expr::from(Felt::from(c));
        b.receive(
            BUS_BYTE,
            c.range,
            &[op(BYTE_RANGE), x.clone(), y.clone(), zero],
        );
        b.receive(
            BUS_BYTE,
            c.and,
            &[op(BYTE_AND), x.clone(), y.clone(), p.and],
        );
        b.receive(BUS_BYTE, c.or, &[op(BYTE_OR), x.clone(), y.clone(), p.or]);
        b.receive(BUS_BYTE, c.xor, &[op(BYTE_XOR), x, y, p.xor]);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;
