//! MEMW_R's unit tests, in a machine of MEMW_R, BITWISE and stand-ins for its neighbours
//! (the CPU's accesses, REGISTER's initial and final tokens): honest runs with gaps beyond
//! 2^32 balance; every single-cell mutation of a real row is detected; a wrong fifth
//! difference byte and an access older than its token (`old_ts > ts`, its difference
//! written as the field value's "bytes") are caught; records with `clk0 > 0` fill the rows
//! of the reference. The full machine's tests: `tests/tests/rv_memw_r.rs`.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::air::debug::{check_machine, preprocessed_traces, table_ledger, DebugReport};
use crate::air::{Direction, Machine, TableAir};
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::{BitwiseAir, ByteCounts};
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::testing::syscall::{bytes_felt, port_trace, Port};
use crate::rv::NUM_REGS;

/// The CPU's side: sends each access.
static ACCESS: Port = Port {
    name: "ACCESS",
    bus: BUS_REG_ACCESS,
    arity: 11,
    direction: Direction::Send,
};
/// REGISTER's initial tokens.
static INIT: Port = Port {
    name: "INIT",
    bus: BUS_REG,
    arity: 10,
    direction: Direction::Send,
};
/// REGISTER's final tokens.
static FINAL: Port = Port {
    name: "FINAL",
    bus: BUS_REG,
    arity: 10,
    direction: Direction::Receive,
};

/// Accesses, MEMW_R, initial and final tokens, BITWISE.
struct RegMachine;

impl Machine for RegMachine {
    fn name(&self) -> &str {
        "memw-r-test"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&ACCESS, &MEMW_R, &INIT, &FINAL, &BitwiseAir]
    }
    fn num_public_values(&self) -> usize {
        0
    }
}

fn token(reg: u8, value: u64, ts: u64) -> Vec<Felt> {
    let mut t = vec![Felt::from(reg as u32)];
    t.extend(bytes_felt(value));
    t.push(Felt::new(ts));
    t
}

/// An honest run of `accesses` from registers holding `init` at timestamp 0: the rows,
/// the initial tokens and the final tokens (registers 0 .. NUM_REGS).
struct Run {
    rows: Vec<RegRow>,
    init: Vec<(Vec<Felt>, Felt)>,
    fin: Vec<(Vec<Felt>, Felt)>,
}

fn run(accesses: &[RegAccess]) -> Run {
    let init: [u64; NUM_REGS] = core::array::from_fn(|i| 0x0101_0101_0101_0101 * i as u64);
    let mut regs = RegFile::new(init);
    let rows = accesses
        .iter()
        .map(|a| {
            let (old, old_ts) = regs.access(a);
            RegRow {
                access: *a,
                old,
                old_ts,
            }
        })
        .collect();
    let one = Felt::ONE;
    Run {
        rows,
        init: (0..NUM_REGS)
            .map(|r| (token(r as u8, init[r], 0), one))
            .collect(),
        fin: (0..NUM_REGS)
            .map(|r| (token(r as u8, regs.values[r], regs.ts[r]), one))
            .collect(),
    }
}

/// MEMW_R's trace of `rows` (padded to a power of two ≥ 8).
fn trace(rows: &[RegRow]) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(
        rows.len().next_power_of_two().max(crate::params::MIN_ROWS),
        WIDTH,
    );
    for (i, r) in rows.iter().enumerate() {
        fill_row(m.row_mut(i), r);
    }
    m
}

/// Checks the machine: MEMW_R's trace `t`, the run's accesses and tokens, and a BITWISE
/// that answers every valid byte pair MEMW_R looks up (so a non-byte goes unanswered).
fn check(r: &Run, t: &RowMajorMatrix) -> DebugReport {
    check_on(&RegMachine, r, &[t])
}

/// Accesses, MEMW_R and MEMW_R2, initial and final tokens, BITWISE.
struct SplitMachine;

impl Machine for SplitMachine {
    fn name(&self) -> &str {
        "memw-r-split-test"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&ACCESS, &MEMW_R, &MEMW_R2, &INIT, &FINAL, &BitwiseAir]
    }
    fn num_public_values(&self) -> usize {
        0
    }
}

/// [`check`] of `machine`, whose tables are the accesses, then `parts` (MEMW_R's AIR each),
/// the tokens and BITWISE.
fn check_on(machine: &dyn Machine, r: &Run, parts: &[&RowMajorMatrix]) -> DebugReport {
    let access: Vec<(Vec<Felt>, Felt)> = r
        .rows
        .iter()
        .map(|row| {
            let a = &row.access;
            let mut v = token(a.reg, if a.is_write { a.value } else { row.old }, a.ts);
            v.push(Felt::from(a.is_write));
            (v, Felt::ONE)
        })
        .collect();
    let mut bytes = ByteCounts::default();
    for t in parts {
        for ((bus, v), m) in table_ledger(&MEMW_R, t, None, &[]).buses {
            let byte = |x: Felt| (x.as_u64() < 256).then_some(x.as_u64() as u8);
            if let (BUS_BYTE, Some(x), Some(y)) = (bus, byte(v[1]), byte(v[2])) {
                for _ in 0..m.as_u64().min(1 << 20) {
                    bytes.range(x, y);
                }
            }
        }
    }
    let mut traces = vec![port_trace(&ACCESS, &access)];
    traces.extend(parts.iter().map(|t| (*t).clone()));
    traces.extend([
        port_trace(&INIT, &r.init),
        port_trace(&FINAL, &r.fin),
        bytes.trace(),
    ]);
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(machine, &refs, &preprocessed_traces(machine), &[])
}

fn fails(r: &DebugReport, constraint: &str) -> bool {
    r.failures.iter().any(|f| f.constraint == constraint)
}

fn unbalanced(r: &DebugReport, bus: u32) -> bool {
    r.imbalances.iter().any(|b| b.bus == bus)
}

fn acc(reg: u8, value: u64, ts: u64, is_write: bool) -> RegAccess {
    RegAccess {
        reg,
        value,
        ts,
        is_write,
    }
}

/// The largest register timestamp of a run of 2^36 cycles (rd's write of its last cycle).
const TS_MAX: u64 = 4 * ((1 << 36) - 1) + 3;

/// Accesses with gaps beyond four bytes: register 5 written at 5 and read at `5 + 2^33`,
/// register 7 untouched until the last cycle of a run of 2^36 cycles, register 9 read at
/// 1 and written at `TS_MAX`.
fn wide_accesses() -> Vec<RegAccess> {
    vec![
        acc(9, 0, 1, false),
        acc(5, 0xdead_beef, 5, true),
        acc(6, 0, 6, false),
        acc(5, 0, 5 + (1 << 33), false),
        acc(6, 0x1234, 7 + (1 << 33), true),
        acc(7, 0, TS_MAX - 2, false),
        acc(6, 0, TS_MAX - 1, false),
        acc(9, 0x55, TS_MAX, true),
    ]
}

#[test]
fn honest_wide_gaps_balance() {
    let r = run(&wide_accesses());
    let report = check(&r, &trace(&r.rows));
    assert!(report.is_ok(), "{report}");
    // The gaps use the fifth byte.
    let t = trace(&r.rows);
    assert_eq!(t.row(3)[DIFF + 4], Felt::ONE);
    assert_ne!(t.row(5)[DIFF + 4], Felt::ZERO);
}

#[test]
fn memw_r_mutations_are_detected() {
    let r = run(&wide_accesses());
    let t = trace(&r.rows);
    // Mutations of one cell of MEMW_R alone, against its neighbours' honest traces.
    let machine_rows: Vec<usize> = (0..r.rows.len()).collect();
    assert_all_detected(&MEMW_R, &t, None, &[], &machine_rows, 24);
}

#[test]
fn wrong_fifth_byte_is_caught() {
    let r = run(&wide_accesses());
    // Row 3 (`ts − old_ts − 1 = 2^33 − 1`, fifth byte 1): any other fifth byte breaks
    // the sum.
    for v in [0u32, 2, 255, 256] {
        let mut t = trace(&r.rows);
        t.row_mut(3)[DIFF + 4] = Felt::from(v);
        let report = check(&r, &t);
        assert!(
            fails(&report, "memw_r timestamps increase"),
            "{v}: {report}"
        );
    }
    // A fifth byte one smaller with `old_ts` 2^32 larger keeps the sum but consumes a token
    // nobody emitted.
    let mut t = trace(&r.rows);
    t.row_mut(3)[DIFF + 4] = Felt::ZERO;
    t.row_mut(3)[OLD_TS] = Felt::new(5 + (1u64 << 32));
    let report = check(&r, &t);
    assert!(!fails(&report, "memw_r timestamps increase"), "{report}");
    assert!(unbalanced(&report, BUS_REG), "{report}");
}

#[test]
fn access_older_than_its_token_is_caught() {
    // Register 5's first access (a read at ts 9) claims a token from the future,
    // `old_ts = ts + 1`: the stand-in REGISTER emits that token, so the buses of tokens
    // balance and only the freshness check stands.
    let accesses = [acc(5, 0, 9, false), acc(5, 0, 13, false)];
    let mut r = run(&accesses);
    r.rows[0].old_ts = 10;
    r.init[5] = (token(5, r.rows[0].old, 10), Felt::ONE);
    // The wrapping fill: five bytes of 2^64 − 2, which are not `−2` in the field.
    let report = check(&r, &trace(&r.rows));
    assert!(fails(&report, "memw_r timestamps increase"), "{report}");
    // The difference as the field value's "bytes": `ts − old_ts − 1 = −2 = p − 2 =
    // 0xffff_fffe_ffff_ffff`, low four bytes 0xff and the rest, 0xffff_fffe, in the fifth:
    // the sum holds, the fifth cell is no byte and its lookup finds no BITWISE row.
    let mut t = trace(&r.rows);
    for i in 0..4 {
        t.row_mut(0)[DIFF + i] = Felt::from(0xffu32);
    }
    t.row_mut(0)[DIFF + 4] = Felt::new(0xffff_fffe);
    let report = check(&r, &t);
    assert!(report.failures.is_empty(), "{report}");
    assert!(unbalanced(&report, BUS_BYTE), "{report}");
    let honest = run(&accesses);
    assert!(check(&honest, &trace(&honest.rows)).is_ok());
}

#[test]
fn records_with_a_first_clock_fill_the_reference_rows() {
    // Steps `clk0 ..` of a segment far into a run: each step reads rs1, rs2, writes rd.
    let clk0 = (1u64 << 34) + 3;
    let mut regs = RegFile::new(core::array::from_fn(|i| 3 * i as u64));
    for r in 0..NUM_REGS {
        // Registers last touched in earlier segments.
        regs.ts[r] = 4 * (r as u64 * 1000) + 3;
    }
    let (mut rec, mut rows) = (
        MemwRRecords {
            height: 32,
            clk0,
            ..MemwRRecords::default()
        },
        Vec::new(),
    );
    for step in 0..9u64 {
        push_step(
            &mut rec,
            &mut rows,
            &mut regs,
            clk0 + step,
            step * 0x1111_1111,
        );
    }
    // A system call's access after them.
    push_extra(
        &mut rec,
        &mut rows,
        &mut regs,
        acc(10, 77, 4 * (clk0 + 9) + 1, true),
    );
    let mut reference = RowMajorMatrix::zeros(32, WIDTH);
    for (i, r) in rows.iter().enumerate() {
        fill_row(reference.row_mut(i), r);
    }
    assert!(fill_host(&rec) == reference);
    assert_eq!(
        fill_host(&rec).row(0)[TS],
        Felt::new(4 * clk0 + 1),
        "the first access's timestamp"
    );
}

#[test]
fn split_fills_three_rows_per_cycle_and_never_pads_more() {
    for rows in 1..=5000usize {
        let one = rows.next_power_of_two().max(MIN_ROWS);
        let s = split(rows);
        assert!(s.height.is_power_of_two() && s.height >= MIN_ROWS, "{rows}");
        assert!(
            s.height2.is_power_of_two() && s.height2 >= MIN_ROWS,
            "{rows}"
        );
        let first = rows.min(s.height);
        assert!(rows - first <= s.height2, "{rows}: MEMW_R2 too short");
        if s.height < rows {
            // Split: MEMW_R full, both together at most 3/4 of one table's padding.
            assert!(4 * (s.height + s.height2) <= 3 * one, "{rows}: {s:?}");
        } else {
            assert_eq!((s.height, s.height2), (one, MIN_ROWS), "{rows}");
        }
    }
    // Three accesses per cycle over 2^k cycles: 2^(k+1) + 2^k rows, none of them padding.
    for k in 4..=24 {
        let s = split(3 << k);
        assert_eq!((s.height, s.height2), (2 << k, 1 << k), "2^{k} cycles");
    }
    // One access more than that: one table of 2^(k+2), as before the split.
    let s = split((3 << 20) + 1);
    assert_eq!((s.height, s.height2), (4 << 20, MIN_ROWS));
}

/// Step `clk` of records (its accesses: rs1, rs2 read, rd written with `value`, on registers
/// chosen by `clk`) appended to `rec` and, as rows, to `rows`.
fn push_step(
    rec: &mut MemwRRecords,
    rows: &mut Vec<RegRow>,
    regs: &mut RegFile,
    clk: u64,
    value: u64,
) {
    let regs_of = [(clk % 7) as u8, (clk * 3 % 11) as u8, (clk % 5 + 1) as u8];
    for (k, &reg) in regs_of.iter().enumerate() {
        let is_write = k == 2;
        let a = acc(reg, value, 4 * clk + k as u64 + 1, is_write);
        let (old, old_ts) = regs.access(&a);
        rec.meta.push(reg as u64 | old_ts << 8);
        rec.old.push(old);
        rows.push(RegRow {
            access: RegAccess {
                value: if is_write { value } else { old },
                ..a
            },
            old,
            old_ts,
        });
    }
    rec.new.push(value);
}

/// A system call's access `a` appended to `rec` and `rows`.
fn push_extra(rec: &mut MemwRRecords, rows: &mut Vec<RegRow>, regs: &mut RegFile, a: RegAccess) {
    let (old, old_ts) = regs.access(&a);
    let extra = RegRow {
        access: a,
        old,
        old_ts,
    };
    rec.extra.push(extra);
    rows.push(extra);
}

/// Records of `steps` steps (three accesses each) and one system call's access, the rows
/// they stand for, and the records' split.
fn split_records(steps: u64) -> (MemwRRecords, Vec<RegRow>) {
    let mut regs = RegFile::new(core::array::from_fn(|i| 5 * i as u64));
    let (mut rec, mut rows) = (MemwRRecords::default(), Vec::new());
    for step in 0..steps {
        push_step(&mut rec, &mut rows, &mut regs, step, step * 0x0102_0304);
    }
    push_extra(
        &mut rec,
        &mut rows,
        &mut regs,
        acc(10, 99, 4 * steps + 1, true),
    );
    let s = split(rec.len());
    rec.height = s.height;
    rec.height2 = s.height2;
    (rec, rows)
}

#[test]
fn split_tables_hold_every_access_once_and_balance() {
    // 22 steps and a call: 67 accesses, MEMW_R 64 rows and MEMW_R2 3 (of 16).
    let (rec, rows) = split_records(22);
    assert_eq!((rec.height, rec.height2), (64, 16));
    let (a, b) = (fill_host(&rec), fill_host2(&rec));
    assert!(a == trace(&rows[..64]) && b == trace(&rows[64..]));
    // The run these rows make (from the same initial file as `split_records`).
    let accesses: Vec<RegAccess> = rows.iter().map(|r| r.access).collect();
    let mut r = run(&accesses);
    let init: [u64; NUM_REGS] = core::array::from_fn(|i| 5 * i as u64);
    r.init = (0..NUM_REGS)
        .map(|i| (token(i as u8, init[i], 0), Felt::ONE))
        .collect();
    let mut regs = RegFile::new(init);
    for a in &accesses {
        regs.access(a);
    }
    r.fin = (0..NUM_REGS)
        .map(|i| (token(i as u8, regs.values[i], regs.ts[i]), Felt::ONE))
        .collect();
    r.rows = rows.clone();
    let report = check_on(&SplitMachine, &r, &[&a, &b]);
    assert!(report.is_ok(), "{report}");

    // A whole real row copied into MEMW_R2's padding (every cell consistent with its
    // constraints): the access is received twice and its token consumed twice.
    let mut b2 = b.clone();
    b2.row_mut(5).copy_from_slice(a.row(7));
    let report = check_on(&SplitMachine, &r, &[&a, &b2]);
    assert!(report.failures.is_empty(), "{report}");
    assert!(
        unbalanced(&report, BUS_REG_ACCESS) && unbalanced(&report, BUS_REG),
        "{report}"
    );
    // A row moved from MEMW_R to MEMW_R2 (gone from one, present in the other) is the
    // same multiset of accesses: it balances, as any spread of the rows over the two does.
    let (mut a3, mut b3) = (a.clone(), b.clone());
    b3.row_mut(9).copy_from_slice(a.row(7));
    a3.row_mut(7).fill(Felt::ZERO);
    assert!(check_on(&SplitMachine, &r, &[&a3, &b3]).is_ok());
    // A MEMW_R2 row dropped (its access never received): unbalanced.
    let mut b4 = b.clone();
    b4.row_mut(1).fill(Felt::ZERO);
    assert!(unbalanced(
        &check_on(&SplitMachine, &r, &[&a, &b4]),
        BUS_REG_ACCESS
    ));
}
