//! MEMW_R: the register file through the memory argument, one row per register access.
//!
//! A row receives the CPU's access `(reg, value, ts, is_write)`, consumes the register's
//! previous token `(reg, old, old_ts)` and emits `(reg, value, ts)`. A read must leave the
//! value unchanged; `old_ts < ts` is proven by range-checking `ts − old_ts − 1` as four
//! bytes (timestamps stay below 2^30).

use alloc::vec::Vec;

use super::bitwise::ByteCounts;
use super::{BUS_BYTE, BUS_REG, BUS_REG_ACCESS, BYTE_RANGE, NUM_REGS};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;

pub const REG: usize = 0;
pub const OLD: usize = 1;
pub const OLD_TS: usize = 9;
pub const NEW: usize = 10;
pub const TS: usize = 18;
pub const IS_WRITE: usize = 19;
pub const IS_REAL: usize = 20;
/// `ts − old_ts − 1` as bytes.
pub const DIFF: usize = 21;
pub const WIDTH: usize = 25;

/// The MEMW_R table.
pub struct MemwRAir;

impl Air for MemwRAir {
    fn name(&self) -> &str {
        "MEMW_R"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let row: Vec<B::Expr> = (0..WIDTH).map(|i| b.main(i)).collect();
        let m = |i: usize| row[i].clone();
        let one = B::Expr::from(Felt::ONE);
        let real = m(IS_REAL);
        b.assert_bool("memw_r is_real boolean", real.clone());
        b.assert_bool("memw_r is_write boolean", m(IS_WRITE));
        for i in 0..8 {
            b.assert_zero(
                "memw_r read keeps the value",
                (one.clone() - m(IS_WRITE)) * (m(NEW + i) - m(OLD + i)),
            );
        }
        let diff = (0..4).fold(B::Expr::from(Felt::ZERO), |a, i| {
            a + m(DIFF + i) * Felt::new(1 << (8 * i))
        });
        b.assert_zero(
            "memw_r timestamps increase",
            real.clone() * (diff - (m(TS) - m(OLD_TS) - one)),
        );
        let token = |vals: usize, ts: usize| {
            let mut t = Vec::with_capacity(10);
            t.push(m(REG));
            t.extend((0..8).map(|i| m(vals + i)));
            t.push(m(ts));
            t
        };
        let mut access = token(NEW, TS);
        access.push(m(IS_WRITE));
        b.receive(BUS_REG_ACCESS, real.clone(), &access);
        b.receive(BUS_REG, real.clone(), &token(OLD, OLD_TS));
        b.send(BUS_REG, real.clone(), &token(NEW, TS));
        let range = B::Expr::from(Felt::from(BYTE_RANGE));
        let zero = B::Expr::from(Felt::ZERO);
        b.send(
            BUS_BYTE,
            real.clone(),
            &[range.clone(), m(DIFF), m(DIFF + 1), zero.clone()],
        );
        b.send(BUS_BYTE, real, &[range, m(DIFF + 2), m(DIFF + 3), zero]);
    }
}

/// One register access in execution order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegAccess {
    pub reg: u8,
    pub value: u64,
    pub ts: u64,
    pub is_write: bool,
}

/// The state of the registers of the memory argument ([`NUM_REGS`]): value and timestamp
/// of the last access.
#[derive(Clone, Debug)]
pub struct RegFile {
    pub values: [u64; NUM_REGS],
    pub ts: [u64; NUM_REGS],
}

impl RegFile {
    /// Registers holding `init`, all at timestamp 0.
    pub fn new(init: [u64; NUM_REGS]) -> RegFile {
        RegFile {
            values: init,
            ts: [0; NUM_REGS],
        }
    }

    /// Performs an access: returns `(old value, old timestamp)` and records the new state.
    pub fn access(&mut self, a: &RegAccess) -> (u64, u64) {
        let i = a.reg as usize % NUM_REGS;
        let old = (self.values[i], self.ts[i]);
        if a.is_write {
            self.values[i] = a.value;
        }
        self.ts[i] = a.ts;
        old
    }
}

/// One MEMW_R row: the access and the register's state before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegRow {
    pub access: RegAccess,
    pub old: u64,
    pub old_ts: u64,
}

/// Fills one real MEMW_R row.
pub fn fill_row(row: &mut [Felt], r: &RegRow) {
    let a = &r.access;
    row[REG] = Felt::from(a.reg as u32);
    row[OLD_TS] = Felt::new(r.old_ts);
    row[TS] = Felt::new(a.ts);
    row[IS_WRITE] = Felt::from(a.is_write);
    row[IS_REAL] = Felt::ONE;
    let new = if a.is_write { a.value } else { r.old };
    for i in 0..8 {
        row[OLD + i] = Felt::from(r.old.to_le_bytes()[i] as u32);
        row[NEW + i] = Felt::from(new.to_le_bytes()[i] as u32);
    }
    let d = (a.ts - r.old_ts - 1).to_le_bytes();
    for i in 0..4 {
        row[DIFF + i] = Felt::from(d[i] as u32);
    }
}

/// The byte lookups of a row (`ts − old_ts − 1` as two range pairs).
pub fn row_lookups(r: &RegRow, bytes: &mut ByteCounts) {
    ts_lookups(r.access.ts, r.old_ts, bytes);
}

/// The byte lookups of a row of an access at `ts` to a register last accessed at `old_ts`.
#[inline]
pub fn ts_lookups(ts: u64, old_ts: u64, bytes: &mut ByteCounts) {
    let d = (ts - old_ts - 1).to_le_bytes();
    bytes.range(d[0], d[1]);
    bytes.range(d[2], d[3]);
}
