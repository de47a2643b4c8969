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
//! - proves `old_ts_j < ts` by writing `ts − old_ts_j − 1` as four bytes `diff_j[4]`,
//!   range-checked with two [`BYTE_RANGE`] lookups.
//!
//! # Columns (`k` words)
//!
//! [`MemwACols`] (`k = 1`) and [`MemwCols`] (`k = 2`) are the layouts' source; the
//! accessors ([`MemwAir::old`] …) return their fields' offsets by `k`. The constraints and
//! the fill are written once for both: they read (or write) the row as the struct of its
//! `k` and see it through one private view of both (word `j`'s cells at `old[8j..]`,
//! `diff[4j..]`, `old_ts[j]`, `ro[j]`), not through column indices.
//!
//! | column | index |
//! | --- | --- |
//! | `w` | 0 |
//! | `old_j[8]` | `1 + 8j` |
//! | `new_j[8]` | `1 + 8k + 8j` |
//! | `old_ts_j` | `1 + 16k + j` |
//! | `ts` | `1 + 17k` |
//! | `is_real` | `2 + 17k` |
//! | `diff_j[4]` | `3 + 17k + 4j` |
//! | `wr` | `3 + 21k` |
//! | `ro_j` | `4 + 21k + j` |
//!
//! Width `4 + 22k`: 26 (MEMW_A), 48 (MEMW).
//!
//! # Constraints
//!
//! - `is_real ∈ {0, 1}`;
//! - `is_real · (Σ_i diff_j[i]·256^i − (ts − old_ts_j − 1)) = 0` for each `j`;
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
//! and each row emits `ts = old_ts + 1 + diff` with `diff ∈ [0, 2^32)`, so along a word's
//! chain of tokens the timestamps strictly increase as integers (no chain is long enough to
//! wrap the field); requesters send `ts = clk + 1`, so the chain follows execution order.
//! A word has a single initial token (PAGE or PAGE0, see `page.rs`) and its tokens form
//! one chain from it to the final token PAGE or PAGE0 consumes: a read sees the last value
//! written before it.

use alloc::vec::Vec;

use super::bitwise::ByteCounts;
use super::{WordAccess, BUS_BYTE, BUS_MEM, BUS_MEM_A, BUS_MEM_S, BYTE_RANGE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

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
        /// `ts − old_ts − 1`.
        diff[4],
        /// The write flag of the request.
        wr,
        /// The word's read-only flag.
        ro,
    }
}

crate::columns! {
    /// MEMW's columns (words `w` and `w + 1`; the layout's source). Word `j`'s bytes are
    /// `old[8j..8j + 8]`, `new[8j..8j + 8]`, its difference bytes `diff[4j..4j + 4]`.
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
        /// `ts − old_ts_j − 1`, four bytes per word.
        diff[8],
        /// The write flag of the request.
        wr,
        /// Each word's read-only flag.
        ro[2],
    }
}

/// One row of MEMW_A or MEMW, field by field, with word `j`'s cells at `old[8j..]`,
/// `new[8j..]`, `old_ts[j]`, `diff[4j..]`, `ro[j]`: what [`MemwAir`]'s constraints and fill
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
            col!(MemwACols, diff) + 4 * j
        } else {
            col!(MemwCols, diff) + 4 * j
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

    /// Writes `r` into `row` as this table's struct.
    fn write_row(&self, r: MemwRow<Felt>, row: &mut [Felt]) {
        if self.words == 1 {
            MemwACols {
                w: r.w,
                old: core::array::from_fn(|i| r.old[i]),
                new: core::array::from_fn(|i| r.new[i]),
                old_ts: r.old_ts[0],
                ts: r.ts,
                is_real: r.is_real,
                diff: core::array::from_fn(|i| r.diff[i]),
                wr: r.wr,
                ro: r.ro[0],
            }
            .write(row);
        } else {
            MemwCols {
                w: r.w,
                old: core::array::from_fn(|i| r.old[i]),
                new: core::array::from_fn(|i| r.new[i]),
                old_ts: core::array::from_fn(|i| r.old_ts[i]),
                ts: r.ts,
                is_real: r.is_real,
                diff: core::array::from_fn(|i| r.diff[i]),
                wr: r.wr,
                ro: core::array::from_fn(|i| r.ro[i]),
            }
            .write(row);
        }
    }

    /// Fills one real row from the accesses of words `w, w + 1, …` (equal `ts`).
    fn fill_row(&self, row: &mut [Felt], acc: &[WordAccess], bytes: &mut ByteCounts) {
        debug_assert_eq!(acc.len(), self.words);
        let mut c = self.read_row(|i| row[i]);
        c.w = Felt::from(acc[0].w);
        c.ts = Felt::new(acc[0].ts);
        c.is_real = Felt::ONE;
        c.wr = Felt::from(acc[0].wr);
        for (j, a) in acc.iter().enumerate() {
            c.ro[j] = Felt::from(a.ro);
            for i in 0..8 {
                c.old[8 * j + i] = Felt::from(a.old.to_le_bytes()[i] as u32);
                c.new[8 * j + i] = Felt::from(a.new.to_le_bytes()[i] as u32);
            }
            c.old_ts[j] = Felt::new(a.old_ts);
            // Wrapping, so that a dishonest access list yields a trace that fails the check.
            let d = (a.ts.wrapping_sub(a.old_ts).wrapping_sub(1) as u32).to_le_bytes();
            for (x, &v) in c.diff[4 * j..4 * j + 4].iter_mut().zip(&d) {
                *x = Felt::from(v as u32);
            }
            bytes.range(d[0], d[1]);
            bytes.range(d[2], d[3]);
        }
        self.write_row(c, row);
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
        for j in 0..k {
            let diff = (0..4).fold(zero.clone(), |a, i| {
                a + c.diff[4 * j + i].clone() * Felt::new(1 << (8 * i))
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
            let d = &c.diff[4 * j..4 * j + 4];
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
    }
}

fn padded_height(n: usize) -> usize {
    n.next_power_of_two().max(8)
}

/// MEMW_A's trace: one row per access, in input order, padded with zero rows to a power of
/// two ≥ 8. Records the freshness range checks in `bytes`.
pub fn build_trace_a(accesses: &[WordAccess], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let t = MEMW_A;
    let mut m = RowMajorMatrix::zeros(padded_height(accesses.len()), t.num_columns());
    for (r, a) in accesses.iter().enumerate() {
        t.fill_row(m.row_mut(r), core::slice::from_ref(a), bytes);
    }
    m
}

/// MEMW's trace: one row per split access (words `w` and `w + 1`, equal `ts`), in input
/// order, padded with zero rows to a power of two ≥ 8. Records the range checks in `bytes`.
pub fn build_trace_s(
    accesses: &[(WordAccess, WordAccess)],
    bytes: &mut ByteCounts,
) -> RowMajorMatrix {
    let t = MEMW;
    let mut m = RowMajorMatrix::zeros(padded_height(accesses.len()), t.num_columns());
    for (r, &(a0, a1)) in accesses.iter().enumerate() {
        debug_assert_eq!(a1.w, a0.w.wrapping_add(1));
        debug_assert_eq!(a1.ts, a0.ts);
        t.fill_row(m.row_mut(r), &[a0, a1], bytes);
    }
    m
}

/// The freshness range checks one access records: the four bytes of `ts − old_ts − 1`
/// (wrapping, as the trace writes them) in two lookups.
fn access_lookups(a: &WordAccess, bytes: &mut ByteCounts) {
    let d = (a.ts.wrapping_sub(a.old_ts).wrapping_sub(1) as u32).to_le_bytes();
    bytes.range(d[0], d[1]);
    bytes.range(d[2], d[3]);
}

/// The byte lookups [`build_trace_a`] records for `accesses`, without building the trace
/// (for a table filled elsewhere, e.g. on a device); padding rows record nothing (their
/// multiplicity is `is_real = 0`).
pub fn lookups_a(accesses: &[WordAccess], bytes: &mut ByteCounts) {
    for a in accesses {
        access_lookups(a, bytes);
    }
}

/// The byte lookups [`build_trace_s`] records for `accesses`, without building the trace.
pub fn lookups_s(accesses: &[(WordAccess, WordAccess)], bytes: &mut ByteCounts) {
    for (a0, a1) in accesses {
        access_lookups(a0, bytes);
        access_lookups(a1, bytes);
    }
}
