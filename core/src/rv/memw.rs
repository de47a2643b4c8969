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
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

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

/// Word index column.
pub const W: usize = 0;

impl MemwAir {
    /// First byte column of word `j`'s old value.
    pub const fn old(&self, j: usize) -> usize {
        1 + 8 * j
    }
    /// First byte column of word `j`'s new value.
    pub const fn new_value(&self, j: usize) -> usize {
        1 + 8 * self.words + 8 * j
    }
    /// Word `j`'s previous timestamp.
    pub const fn old_ts(&self, j: usize) -> usize {
        1 + 16 * self.words + j
    }
    /// The access timestamp.
    pub const fn ts(&self) -> usize {
        1 + 17 * self.words
    }
    /// The real-row flag.
    pub const fn is_real(&self) -> usize {
        2 + 17 * self.words
    }
    /// First byte of `ts − old_ts_j − 1`.
    pub const fn diff(&self, j: usize) -> usize {
        3 + 17 * self.words + 4 * j
    }
    /// The write flag of the request.
    pub const fn wr(&self) -> usize {
        3 + 21 * self.words
    }
    /// Word `j`'s read-only flag.
    pub const fn ro(&self, j: usize) -> usize {
        4 + 21 * self.words + j
    }
    /// Number of main columns.
    pub const fn num_columns(&self) -> usize {
        4 + 22 * self.words
    }

    /// Fills one real row from the accesses of words `w, w + 1, …` (equal `ts`).
    fn fill_row(&self, row: &mut [Felt], acc: &[WordAccess], bytes: &mut ByteCounts) {
        debug_assert_eq!(acc.len(), self.words);
        row[W] = Felt::from(acc[0].w);
        row[self.ts()] = Felt::new(acc[0].ts);
        row[self.is_real()] = Felt::ONE;
        row[self.wr()] = Felt::from(acc[0].wr);
        for (j, a) in acc.iter().enumerate() {
            row[self.ro(j)] = Felt::from(a.ro);
            for i in 0..8 {
                row[self.old(j) + i] = Felt::from(a.old.to_le_bytes()[i] as u32);
                row[self.new_value(j) + i] = Felt::from(a.new.to_le_bytes()[i] as u32);
            }
            row[self.old_ts(j)] = Felt::new(a.old_ts);
            // Wrapping, so that a dishonest access list yields a trace that fails the check.
            let d = (a.ts.wrapping_sub(a.old_ts).wrapping_sub(1) as u32).to_le_bytes();
            for i in 0..4 {
                row[self.diff(j) + i] = Felt::from(d[i] as u32);
            }
            bytes.range(d[0], d[1]);
            bytes.range(d[2], d[3]);
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
        let row: Vec<B::Expr> = (0..self.num_columns()).map(|i| b.main(i)).collect();
        let m = |i: usize| row[i].clone();
        let zero = B::Expr::from(Felt::ZERO);
        let one = B::Expr::from(Felt::ONE);
        let real = m(self.is_real());
        b.assert_bool("memw is_real boolean", real.clone());
        for j in 0..k {
            let diff = (0..4).fold(zero.clone(), |a, i| {
                a + m(self.diff(j) + i) * Felt::new(1 << (8 * i))
            });
            b.assert_zero(
                "memw timestamps increase",
                real.clone() * (diff - (m(self.ts()) - m(self.old_ts(j)) - one.clone())),
            );
        }

        // The request.
        let mut req = Vec::with_capacity(2 + 16 * k);
        req.push(m(W));
        req.extend((0..8 * k).map(|i| m(self.old(0) + i)));
        req.extend((0..8 * k).map(|i| m(self.new_value(0) + i)));
        req.push(m(self.ts()));
        req.push(m(self.wr()));
        let bus = if k == 1 { BUS_MEM_A } else { BUS_MEM_S };
        b.receive(bus, real.clone(), &req);

        // Tokens and freshness range checks, per word.
        let range = B::Expr::from(Felt::from(BYTE_RANGE));
        for j in 0..k {
            let w = m(W) + Felt::from(j as u32);
            let token = |vals: usize, ts: usize| {
                super::page::token(w.clone(), (0..8).map(|i| m(vals + i)), m(ts), m(self.ro(j)))
            };
            b.assert_zero(
                "memw no write to a read-only word",
                m(self.wr()) * m(self.ro(j)),
            );
            b.receive(BUS_MEM, real.clone(), &token(self.old(j), self.old_ts(j)));
            b.send(BUS_MEM, real.clone(), &token(self.new_value(j), self.ts()));
            let d = self.diff(j);
            b.send(
                BUS_BYTE,
                real.clone(),
                &[range.clone(), m(d), m(d + 1), zero.clone()],
            );
            b.send(
                BUS_BYTE,
                real.clone(),
                &[range.clone(), m(d + 2), m(d + 3), zero.clone()],
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
