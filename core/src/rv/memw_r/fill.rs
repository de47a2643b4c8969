//! MEMW_R's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::NUM_REGS;

/// One register access in execution order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RegAccess {
    pub reg: u8,
    pub value: u64,
    pub ts: u64,
    pub is_write: bool,
}

/// The state of the registers of the memory argument ([`NUM_REGS`]): value and timestamp
/// of the last access.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RegFile {
    #[serde(with = "regs_serde")]
    pub values: [u64; NUM_REGS],
    #[serde(with = "regs_serde")]
    pub ts: [u64; NUM_REGS],
}

/// A register array in serde as a list of [`NUM_REGS`] values (serde derives arrays of at
/// most 32); a list of any other length is an error.
mod regs_serde {
    use super::NUM_REGS;
    use alloc::vec::Vec;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(r: &[u64; NUM_REGS], s: S) -> Result<S::Ok, S::Error> {
        r.as_slice().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u64; NUM_REGS], D::Error> {
        let v = Vec::<u64>::deserialize(d)?;
        v.try_into()
            .map_err(|_| serde::de::Error::custom("a register file of the wrong length"))
    }
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

impl Default for RegFile {
    /// Registers holding 0, all at timestamp 0.
    fn default() -> Self {
        RegFile::new([0; NUM_REGS])
    }
}

/// One MEMW_R row: the access and the register's state before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RegRow {
    pub access: RegAccess,
    pub old: u64,
    pub old_ts: u64,
}

/// Fills one real MEMW_R row.
pub fn fill_row(row: &mut [Felt], r: &RegRow) {
    let a = &r.access;
    // Every cell is set below.
    let mut c = MemwRCols::from_fn(|_| Felt::ZERO);
    c.reg = Felt::from(a.reg as u32);
    c.old_ts = Felt::new(r.old_ts);
    c.ts = Felt::new(a.ts);
    c.is_write = Felt::from(a.is_write);
    c.is_real = Felt::ONE;
    let new = if a.is_write { a.value } else { r.old };
    let bytes = |v: u64| v.to_le_bytes().map(|x| Felt::from(x as u32));
    c.old = bytes(r.old);
    c.new = bytes(new);
    // Wrapping, so that a dishonest row yields a trace that fails the check.
    let d = bytes(a.ts.wrapping_sub(r.old_ts).wrapping_sub(1));
    c.diff = [d[0], d[1], d[2], d[3], d[4]];
    c.write(row);
}

/// The byte lookups of a row (`ts − old_ts − 1` as three range pairs, the fifth byte with 0).
pub fn row_lookups(r: &RegRow, bytes: &mut ByteCounts) {
    ts_lookups(r.access.ts, r.old_ts, bytes);
}

/// The byte lookups of a row of an access at `ts` to a register last accessed at `old_ts`.
#[inline]
pub fn ts_lookups(ts: u64, old_ts: u64, bytes: &mut ByteCounts) {
    let d = ts.wrapping_sub(old_ts).wrapping_sub(1).to_le_bytes();
    bytes.range(d[0], d[1]);
    bytes.range(d[2], d[3]);
    bytes.range(d[4], 0);
}

/// MEMW_R as packed per-access records for a fill kernel. The first `3·steps` rows are the
/// CPU's accesses in order: access `r` belongs to step `r / 3` of the records, has timestamp
/// `4·(clk0 + r/3) + r%3 + 1` and writes iff `r % 3 == 2` (rs1 read, rs2 read, rd write), so
/// neither is stored. The system calls' own register accesses follow as whole rows (`extra`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemwRRecords {
    /// MEMW_R's height: it holds the first `height` accesses ([`split`] of the
    /// `3·steps + extra` accesses).
    pub height: usize,
    /// MEMW_R2's height: it holds the accesses past `height`.
    pub height2: usize,
    /// The clock of the records' first step (a segment's first cycle; 0 for a whole run):
    /// step `i` of the records is cycle `clk0 + i`.
    pub clk0: u64,
    /// `reg | old_ts << 8` per CPU access.
    pub meta: Vec<u64>,
    /// The register's value before the access, per CPU access.
    pub old: Vec<u64>,
    /// The value written, per step (the access `3·step + 2`).
    pub new: Vec<u64>,
    /// The system calls' register accesses (rows `3·steps ..`).
    pub extra: Vec<RegRow>,
    /// The register file before the records' first step (a segment's first: the file the
    /// segment before it left). With the steps' DECODE rows and results and `extra`'s
    /// accesses it determines `meta`, `old` and `new`: a device can replay it
    /// (`kernels/rv/memw_r.cu`'s register walk) instead of receiving them.
    pub start: RegFile,
}

impl MemwRRecords {
    /// Number of accesses (real rows).
    pub fn len(&self) -> usize {
        self.meta.len() + self.extra.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// MEMW_R's trace from its records, on the host (what `ks_fill_memw_r` builds on a device):
/// the first `height` accesses ([`split`]).
pub fn fill_host(rec: &MemwRRecords) -> RowMajorMatrix {
    fill_rows(rec, 0, rec.height)
}

/// MEMW_R2's trace from MEMW_R's records: the accesses past MEMW_R's height.
pub fn fill_host2(rec: &MemwRRecords) -> RowMajorMatrix {
    fill_rows(rec, rec.height, rec.height2)
}

/// The accesses `[row0, row0 + height)` of the records as a trace of `height` rows (zero
/// padding past the last access).
fn fill_rows(rec: &MemwRRecords, row0: usize, height: usize) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(height, WIDTH);
    let n = rec.meta.len().min(rec.old.len());
    let end = (row0 + height).min(rec.len());
    for i in row0..end {
        let r = if i < n {
            let (meta, old) = (rec.meta[i], rec.old[i]);
            let (step, k) = (i / 3, i % 3);
            let is_write = k == 2;
            RegRow {
                access: RegAccess {
                    reg: (meta & 0xff) as u8,
                    value: if is_write {
                        rec.new.get(step).copied().unwrap_or(0)
                    } else {
                        old
                    },
                    ts: 4 * (rec.clk0 + step as u64) + k as u64 + 1,
                    is_write,
                },
                old,
                old_ts: meta >> 8,
            }
        } else {
            match i.checked_sub(rec.meta.len()).and_then(|e| rec.extra.get(e)) {
                Some(r) => *r,
                None => break,
            }
        };
        fill_row(m.row_mut(i - row0), &r);
    }
    m
}
