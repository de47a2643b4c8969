//! MEMW_R: the register file through the memory argument, one row per register access.
//!
//! A row receives the CPU's access `(reg, value, ts, is_write)`, consumes the register's
//! previous token `(reg, old, old_ts)` and emits `(reg, value, ts)`. A read must leave the
//! value unchanged; `old_ts < ts` is proven by range-checking `ts − old_ts − 1` as five
//! bytes (register timestamps stay below 2^39, see "Timestamps" in `rv/mod.rs`).
//!
//! # Columns
//!
//! [`MemwRCols`] is the layout's source (the constants below are its offsets).

use alloc::vec::Vec;

use super::{BUS_BYTE, BUS_REG, BUS_REG_ACCESS, BYTE_RANGE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;
use crate::params::MIN_ROWS;

crate::columns! {
    /// MEMW_R's columns.
    pub struct MemwRCols {
        /// The register's index.
        reg,
        /// The register's value before the access, as bytes.
        old[8],
        /// The timestamp of the register's previous access.
        old_ts,
        /// The register's value after the access, as bytes.
        new[8],
        /// The access's timestamp.
        ts,
        /// `1` when the access writes.
        is_write,
        /// `1` on a real row (`0` on padding).
        is_real,
        /// `ts − old_ts − 1` as five bytes (little-endian).
        diff[5],
    }
}

/// Column indices (for the CUDA fill and tests), from [`MemwRCols`].
pub const REG: usize = col!(MemwRCols, reg);
pub const OLD: usize = col!(MemwRCols, old);
pub const OLD_TS: usize = col!(MemwRCols, old_ts);
pub const NEW: usize = col!(MemwRCols, new);
pub const TS: usize = col!(MemwRCols, ts);
pub const IS_WRITE: usize = col!(MemwRCols, is_write);
pub const IS_REAL: usize = col!(MemwRCols, is_real);
/// `ts − old_ts − 1` as bytes.
pub const DIFF: usize = col!(MemwRCols, diff);
/// Main columns.
pub const WIDTH: usize = <MemwRCols<u8> as Columns<u8>>::WIDTH;

/// The MEMW_R table, or MEMW_R2: the same AIR for the rows past MEMW_R's height
/// ([`split`]). Rows are independent (no transition constraints), so the accesses may be
/// spread over both tables.
pub struct MemwRAir {
    name: &'static str,
}

/// MEMW_R's AIR.
pub const MEMW_R: MemwRAir = MemwRAir { name: "MEMW_R" };
/// MEMW_R2's AIR (MEMW_R's, under its own name).
pub const MEMW_R2: MemwRAir = MemwRAir { name: "MEMW_R2" };

/// How `rows` accesses are laid out over MEMW_R and MEMW_R2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// MEMW_R's height (a power of two, at least [`MIN_ROWS`]); it holds the first
    /// `min(rows, height)` accesses.
    pub height: usize,
    /// MEMW_R2's height (a power of two, at least [`MIN_ROWS`]); it holds the rest.
    pub height2: usize,
}

/// The layout of `rows` accesses. A single table pads them to the next power of two `h`;
/// when the rows past `h/2` fit a table of at most `h/4` (of at least [`MIN_ROWS`] rows),
/// MEMW_R holds `h/2` of them (full) and MEMW_R2 the rest: three rows per cycle over `2^k`
/// cycles fill `2^(k+1) + 2^k` rows instead of `2^(k+2)`. Otherwise MEMW_R holds them all
/// and MEMW_R2 is empty (of [`MIN_ROWS`] padding rows).
pub fn split(rows: usize) -> Split {
    let h = rows.next_power_of_two().max(MIN_ROWS);
    let half = h / 2;
    let height2 = rows.saturating_sub(half).next_power_of_two().max(MIN_ROWS);
    if rows > half && height2 <= h / 4 {
        Split {
            height: half,
            height2,
        }
    } else {
        Split {
            height: h,
            height2: MIN_ROWS,
        }
    }
}

impl Air for MemwRAir {
    fn name(&self) -> &str {
        self.name
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let c: MemwRCols<B::Expr> = MemwRCols::from_fn(|i| b.main(i));
        let one = B::Expr::from(Felt::ONE);
        let real = c.is_real.clone();
        b.assert_bool("memw_r is_real boolean", real.clone());
        b.assert_bool("memw_r is_write boolean", c.is_write.clone());
        for i in 0..8 {
            b.assert_zero(
                "memw_r read keeps the value",
                (one.clone() - c.is_write.clone()) * (c.new[i].clone() - c.old[i].clone()),
            );
        }
        // Freshness: `ts − old_ts − 1` is five range-checked bytes, so `old_ts < ts` as
        // integers. Sound because every register timestamp on the buses is below 2^39 (the
        // verifier bounds a run by 2^36 cycles and `ts ≤ 4·clk + 3`): then
        // `ts − old_ts − 1` lies in `(−2^39, 2^39)` as an integer, and since p ≈ 2^64 the
        // negative values (`old_ts ≥ ts`) are field elements near p, never below 2^40.
        let diff = (0..5).fold(B::Expr::from(Felt::ZERO), |a, i| {
            a + c.diff[i].clone() * Felt::new(1 << (8 * i))
        });
        b.assert_zero(
            "memw_r timestamps increase",
            real.clone() * (diff - (c.ts.clone() - c.old_ts.clone() - one)),
        );
        let token = |vals: &[B::Expr; 8], ts: &B::Expr| {
            let mut t = Vec::with_capacity(10);
            t.push(c.reg.clone());
            t.extend(vals.iter().cloned());
            t.push(ts.clone());
            t
        };
        let mut access = token(&c.new, &c.ts);
        access.push(c.is_write.clone());
        b.receive(BUS_REG_ACCESS, real.clone(), &access);
        b.receive(BUS_REG, real.clone(), &token(&c.old, &c.old_ts));
        b.send(BUS_REG, real.clone(), &token(&c.new, &c.ts));
        let range = B::Expr::from(Felt::from(BYTE_RANGE));
        let zero = B::Expr::from(Felt::ZERO);
        b.send(
            BUS_BYTE,
            real.clone(),
            &[
                range.clone(),
                c.diff[0].clone(),
                c.diff[1].clone(),
                zero.clone(),
            ],
        );
        b.send(
            BUS_BYTE,
            real.clone(),
            &[
                range.clone(),
                c.diff[2].clone(),
                c.diff[3].clone(),
                zero.clone(),
            ],
        );
        // The fifth byte pairs with 0: no other byte of the row is left unchecked (the value
        // bytes come from tokens and from the CPU, which prove them canonical).
        b.send(
            BUS_BYTE,
            real,
            &[range, c.diff[4].clone(), zero.clone(), zero],
        );
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
