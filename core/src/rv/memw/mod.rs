//! MEMW_A and MEMW: the memory argument for words, one row per access request.
//!
//! Both tables are one AIR, [`MemwAir`], over `k` words (`k = 1`: MEMW_A, an access inside
//! one aligned word; `k = 2`: MEMW, an access split over words `w` and `w + 1`). A real row
//!
//! - receives the request: MEMW_A `BUS_MEM_A (w, old[8], new[8], ts, wr)`, MEMW
//!   `BUS_MEM_S (w, old0[8]‖old1[8], new0[8]‖new1[8], ts, wr)`, where `wr = 1` marks a
//!   write (a store, an input transfer, a break shrink) and `wr = 0` a read (a load, an
//!   output transfer, which send `new = old`);
//! - for each word `w + j`: receives its previous token `BUS_MEM (w + j, old_j[8], old_ts_j,
//!   ro_j)` and sends the new one `BUS_MEM (w + j, new_j[8], ts, ro_j)` (one `ts` for all
//!   words of a row; the read-only flag travels with the word);
//! - proves `wr·ro_j = 0`: no write touches a read-only word, even one that would leave
//!   its value unchanged (the executor faults on any store into a read-only segment);
//! - proves `old_ts_j < ts` by writing `ts − old_ts_j − 1` as five bytes `diff_j[5]`,
//!   range-checked with [`BYTE_RANGE`] lookups: bytes 0–3 of each word in two, and the
//!   fifth bytes in one more (MEMW_A: paired with 0; MEMW: the two words' fifth bytes
//!   together), so three lookups per row in MEMW_A and five in MEMW.
//!
//! # Columns (`k` words)
//!
//! [`MemwACols`] (`k = 1`) and [`MemwCols`] (`k = 2`) are the layouts' source; the
//! accessors ([`MemwAir::old`] …) return their fields' offsets by `k`. The constraints and
//! the fill are written once for both: they read (or write) the row as the struct of its
//! `k` and see it through one private view of both (word `j`'s cells at `old[8j..]`,
//! `diff[5j..]`, `old_ts[j]`, `ro[j]`), not through column indices.
//!
//! | column | index |
//! | --- | --- |
//! | `w` | 0 |
//! | `old_j[8]` | `1 + 8j` |
//! | `new_j[8]` | `1 + 8k + 8j` |
//! | `old_ts_j` | `1 + 16k + j` |
//! | `ts` | `1 + 17k` |
//! | `is_real` | `2 + 17k` |
//! | `diff_j[5]` | `3 + 17k + 5j` |
//! | `wr` | `3 + 22k` |
//! | `ro_j` | `4 + 22k + j` |
//!
//! Width `4 + 23k`: 27 (MEMW_A), 50 (MEMW).
//!
//! # Constraints
//!
//! - `is_real ∈ {0, 1}`;
//! - `is_real · (Σ_{i<5} diff_j[i]·256^i − (ts − old_ts_j − 1)) = 0` for each `j`;
//! - `wr · ro_j = 0` for each `j` (`wr` is the requester's constant or expression, `ro_j`
//!   the flag of the word's tokens, fixed by PAGE and PAGE0).
//!
//! Every interaction has multiplicity `is_real`; padding rows (`is_real = 0`) are inert.
//!
//! # Soundness
//!
//! Value bytes are not range-checked here: `new` comes from the requester (LOAD, STORE, IO),
//! which proves it canonical, and `old` must match a token some table emitted with
//! canonical bytes (PAGE, PAGE0 or an earlier row here). Initial tokens carry timestamp 0
//! and each row emits `ts = old_ts + 1 + diff` with `diff ∈ [0, 2^40)`. Every timestamp on
//! the buses is below 2^39 (requesters send `ts = clk + 1` and the verifier bounds a run by
//! 2^36 cycles), so `ts − old_ts − 1` is an integer in `(−2^39, 2^39)`; as p ≈ 2^64, a
//! negative one (`old_ts ≥ ts`) is a field element above `p − 2^39`, never five bytes. So
//! along a word's chain of tokens the timestamps strictly increase as integers, and the chain
//! follows execution order.
//! A word has a single initial token (PAGE or PAGE0, see `page.rs`) and its tokens form
//! one chain from it to the final token PAGE or PAGE0 consumes: a read sees the last value
//! written before it.

use alloc::vec::Vec;

use super::{BUS_BYTE, BUS_MEM, BUS_MEM_A, BUS_MEM_S, BYTE_RANGE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

crate::columns! {
    /// MEMW_A's columns (one word; the layout's source).
    pub struct MemwACols {
        /// Word index.
        w,
        /// The word's old value.
        old[8],
        /// The word's new value.
        new[8],
        /// The word's previous timestamp.
        old_ts,
        /// The access timestamp.
        ts,
        /// The real-row flag.
        is_real,
        /// `ts − old_ts − 1`, five bytes.
        diff[5],
        /// The write flag of the request.
        wr,
        /// The word's read-only flag.
        ro,
    }
}

crate::columns! {
    /// MEMW's columns (words `w` and `w + 1`; the layout's source). Word `j`'s bytes are
    /// `old[8j..8j + 8]`, `new[8j..8j + 8]`, its difference bytes `diff[5j..5j + 5]`.
    pub struct MemwCols {
        /// Word index of the first word.
        w,
        /// The old values, `old0‖old1`.
        old[16],
        /// The new values, `new0‖new1`.
        new[16],
        /// Each word's previous timestamp.
        old_ts[2],
        /// The access timestamp.
        ts,
        /// The real-row flag.
        is_real,
        /// `ts − old_ts_j − 1`, five bytes per word.
        diff[10],
        /// The write flag of the request.
        wr,
        /// Each word's read-only flag.
        ro[2],
    }
}

/// One row of MEMW_A or MEMW, field by field, with word `j`'s cells at `old[8j..]`,
/// `new[8j..]`, `old_ts[j]`, `diff[5j..]`, `ro[j]`: what [`MemwAir`]'s constraints and fill
/// share, read from or written as [`MemwACols`] or [`MemwCols`] by `words`.
struct MemwRow<T> {
    w: T,
    old: Vec<T>,
    new: Vec<T>,
    old_ts: Vec<T>,
    ts: T,
    is_real: T,
    diff: Vec<T>,
    wr: T,
    ro: Vec<T>,
}

/// Bytes of each word's `ts − old_ts − 1` (timestamps below 2^39, so below 2^40).
const DIFF_BYTES: usize = 5;

/// Word index column.
pub const W: usize = col!(MemwACols, w);
const _: () = assert!(col!(MemwCols, w) == W);

/// The MEMW_A / MEMW table over `words` adjacent words per row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemwAir {
    /// 1 (MEMW_A) or 2 (MEMW).
    pub words: usize,
}

/// Accesses inside one aligned word.
pub const MEMW_A: MemwAir = MemwAir { words: 1 };
/// Accesses split over two adjacent words.
pub const MEMW: MemwAir = MemwAir { words: 2 };

impl MemwAir {
    /// First byte column of word `j`'s old value.
    pub const fn old(&self, j: usize) -> usize {
        if self.words == 1 {
            col!(MemwACols, old) + 8 * j
        } else {
            col!(MemwCols, old) + 8 * j
        }
    }
    /// First byte column of word `j`'s new value.
    pub const fn new_value(&self, j: usize) -> usize {
        if self.words == 1 {
            col!(MemwACols, new) + 8 * j
        } else {
            col!(MemwCols, new) + 8 * j
        }
    }
    /// Word `j`'s previous timestamp.
    pub const fn old_ts(&self, j: usize) -> usize {
        if self.words == 1 {
            col!(MemwACols, old_ts) + j
        } else {
            col!(MemwCols, old_ts) + j
        }
    }
    /// The access timestamp.
    pub const fn ts(&self) -> usize {
        if self.words == 1 {
            col!(MemwACols, ts)
        } else {
            col!(MemwCols, ts)
        }
    }
    /// The real-row flag.
    pub const fn is_real(&self) -> usize {
        if self.words == 1 {
            col!(MemwACols, is_real)
        } else {
            col!(MemwCols, is_real)
        }
    }
    /// First byte of `ts − old_ts_j − 1`.
    pub const fn diff(&self, j: usize) -> usize {
        if self.words == 1 {
            col!(MemwACols, diff) + DIFF_BYTES * j
        } else {
            col!(MemwCols, diff) + DIFF_BYTES * j
        }
    }
    /// The write flag of the request.
    pub const fn wr(&self) -> usize {
        if self.words == 1 {
            col!(MemwACols, wr)
        } else {
            col!(MemwCols, wr)
        }
    }
    /// Word `j`'s read-only flag.
    pub const fn ro(&self, j: usize) -> usize {
        if self.words == 1 {
            col!(MemwACols, ro) + j
        } else {
            col!(MemwCols, ro) + j
        }
    }
    /// Number of main columns.
    pub const fn num_columns(&self) -> usize {
        if self.words == 1 {
            <MemwACols<u8> as Columns<u8>>::WIDTH
        } else {
            <MemwCols<u8> as Columns<u8>>::WIDTH
        }
    }

    /// The row whose cell `i` is `f(i)`, as this table's struct, field by field.
    fn read_row<T>(&self, f: impl FnMut(usize) -> T) -> MemwRow<T> {
        if self.words == 1 {
            let c = MemwACols::from_fn(f);
            MemwRow {
                w: c.w,
                old: c.old.into(),
                new: c.new.into(),
                old_ts: alloc::vec![c.old_ts],
                ts: c.ts,
                is_real: c.is_real,
                diff: c.diff.into(),
                wr: c.wr,
                ro: alloc::vec![c.ro],
            }
        } else {
            let c = MemwCols::from_fn(f);
            MemwRow {
                w: c.w,
                old: c.old.into(),
                new: c.new.into(),
                old_ts: c.old_ts.into(),
                ts: c.ts,
                is_real: c.is_real,
                diff: c.diff.into(),
                wr: c.wr,
                ro: c.ro.into(),
            }
        }
    }
}

impl Air for MemwAir {
    fn name(&self) -> &str {
        if self.words == 1 {
            "MEMW_A"
        } else {
            "MEMW"
        }
    }
    fn width(&self) -> usize {
        self.num_columns()
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let k = self.words;
        let c = self.read_row(|i| b.main(i));
        let zero = B::Expr::from(Felt::ZERO);
        let one = B::Expr::from(Felt::ONE);
        let real = c.is_real.clone();
        b.assert_bool("memw is_real boolean", real.clone());
        // Freshness per word: `ts − old_ts_j − 1` is five range-checked bytes, so
        // `old_ts_j < ts` as integers. Sound because every memory timestamp on the buses is
        // below 2^39 (`ts = clk + 1`, runs of at most 2^36 cycles, which the verifier
        // bounds): `old_ts_j ≥ ts` would make the difference a field element above
        // `p − 2^39` (p ≈ 2^64), which no five bytes (`< 2^40`) equal.
        for j in 0..k {
            let diff = (0..DIFF_BYTES).fold(zero.clone(), |a, i| {
                a + c.diff[DIFF_BYTES * j + i].clone() * Felt::new(1 << (8 * i))
            });
            b.assert_zero(
                "memw timestamps increase",
                real.clone() * (diff - (c.ts.clone() - c.old_ts[j].clone() - one.clone())),
            );
        }

        // The request.
        let mut req = Vec::with_capacity(2 + 16 * k);
        req.push(c.w.clone());
        req.extend(c.old.iter().cloned());
        req.extend(c.new.iter().cloned());
        req.push(c.ts.clone());
        req.push(c.wr.clone());
        let bus = if k == 1 { BUS_MEM_A } else { BUS_MEM_S };
        b.receive(bus, real.clone(), &req);

        // Tokens and freshness range checks, per word.
        let range = B::Expr::from(Felt::from(BYTE_RANGE));
        for j in 0..k {
            let w = c.w.clone() + Felt::from(j as u32);
            let token = |vals: &[B::Expr], ts: &B::Expr| {
                super::page::token(
                    w.clone(),
                    vals[8 * j..8 * j + 8].iter().cloned(),
                    ts.clone(),
                    c.ro[j].clone(),
                )
            };
            b.assert_zero(
                "memw no write to a read-only word",
                c.wr.clone() * c.ro[j].clone(),
            );
            b.receive(BUS_MEM, real.clone(), &token(&c.old, &c.old_ts[j]));
            b.send(BUS_MEM, real.clone(), &token(&c.new, &c.ts));
            let d = &c.diff[DIFF_BYTES * j..DIFF_BYTES * j + DIFF_BYTES];
            b.send(
                BUS_BYTE,
                real.clone(),
                &[range.clone(), d[0].clone(), d[1].clone(), zero.clone()],
            );
            b.send(
                BUS_BYTE,
                real.clone(),
                &[range.clone(), d[2].clone(), d[3].clone(), zero.clone()],
            );
        }
        // The fifth bytes: MEMW's two words share one lookup, MEMW_A's pairs with 0 (no
        // other byte of the row is unchecked: value bytes are proven canonical elsewhere).
        let fifth = |j: usize| c.diff[DIFF_BYTES * j + 4].clone();
        let second = if k == 2 { fifth(1) } else { zero.clone() };
        b.send(BUS_BYTE, real, &[range, fifth(0), second, zero]);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
