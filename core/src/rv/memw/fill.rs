//! MEMW's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::padded_height;
use crate::rv::WordAccess;

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

/// The five bytes of `ts − old_ts − 1` of an access (wrapping, so that a dishonest access
/// list yields a trace that fails the check).
fn diff_bytes(a: &WordAccess) -> [u8; DIFF_BYTES] {
    let d = a.ts.wrapping_sub(a.old_ts).wrapping_sub(1).to_le_bytes();
    core::array::from_fn(|i| d[i])
}

/// The freshness range checks of a row of `acc` (one or two words, as the trace writes
/// them): bytes 0–3 of each word in two lookups, then the fifth bytes in one (a single
/// word's with 0).
fn row_lookups(acc: &[WordAccess], bytes: &mut ByteCounts) {
    let mut fifth = [0u8; 2];
    for (j, a) in acc.iter().enumerate() {
        let d = diff_bytes(a);
        bytes.range(d[0], d[1]);
        bytes.range(d[2], d[3]);
        fifth[j] = d[4];
    }
    bytes.range(fifth[0], fifth[1]);
}

/// The byte lookups [`build_trace_a`] records for `accesses`, without building the trace
/// (for a table filled elsewhere, e.g. on a device); padding rows record nothing (their
/// multiplicity is `is_real = 0`).
pub fn lookups_a(accesses: &[WordAccess], bytes: &mut ByteCounts) {
    for a in accesses {
        row_lookups(core::slice::from_ref(a), bytes);
    }
}

/// The byte lookups [`build_trace_s`] records for `accesses`, without building the trace.
pub fn lookups_s(accesses: &[(WordAccess, WordAccess)], bytes: &mut ByteCounts) {
    for &(a0, a1) in accesses {
        row_lookups(&[a0, a1], bytes);
    }
}

impl MemwAir {
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
            let d = diff_bytes(a);
            for (x, &v) in c.diff[DIFF_BYTES * j..DIFF_BYTES * (j + 1)]
                .iter_mut()
                .zip(&d)
            {
                *x = Felt::from(v as u32);
            }
        }
        row_lookups(acc, bytes);
        self.write_row(c, row);
    }
}

/// The system calls' word accesses among MEMW_A's rows `mem_a` of a segment whose steps are
/// `cpu` (`decode`: [`fields_of`](crate::rv::decode::fields_of) of the program), in order:
/// the rows at the steps that are system calls. What a memory walk on a device receives of
/// the transfers (it derives the loads' and stores' accesses from the steps). `None` if a
/// row's timestamp is not one of the steps' memory timestamps (`clk + 1`).
pub fn transfers(
    cpu: &crate::rv::cpu::CpuRecords,
    mem_a: &[WordAccess],
    decode: &[u64],
) -> Option<alloc::vec::Vec<WordAccess>> {
    use crate::rv::decode::{class, DECODE_WORDS};
    let n = cpu.dec_row.len() as u64;
    let mut out = alloc::vec::Vec::new();
    for a in mem_a {
        let i = a.ts.checked_sub(cpu.clk0 + 1).filter(|&i| i < n)?;
        let row = cpu.dec_row[i as usize] as usize * DECODE_WORDS;
        if *decode.get(row + 1 + class::ECALL)? != 0 {
            out.push(*a);
        }
    }
    Some(out)
}
