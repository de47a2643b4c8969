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
        vec![&ACCESS, &MemwRAir, &INIT, &FINAL, &BitwiseAir]
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
    for ((bus, v), m) in table_ledger(&MemwRAir, t, None, &[]).buses {
        let byte = |x: Felt| (x.as_u64() < 256).then_some(x.as_u64() as u8);
        if let (BUS_BYTE, Some(x), Some(y)) = (bus, byte(v[1]), byte(v[2])) {
            for _ in 0..m.as_u64().min(1 << 20) {
                bytes.range(x, y);
            }
        }
    }
    let traces = [
        port_trace(&ACCESS, &access),
        t.clone(),
        port_trace(&INIT, &r.init),
        port_trace(&FINAL, &r.fin),
        bytes.trace(),
    ];
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(&RegMachine, &refs, &preprocessed_traces(&RegMachine), &[])
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
    assert_all_detected(&MemwRAir, &t, None, &[], &machine_rows, 24);
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
        let regs_of = [
            (step % 7) as u8,
            (step * 3 % 11) as u8,
            (step % 5 + 1) as u8,
        ];
        let value = step * 0x1111_1111;
        for (k, &reg) in regs_of.iter().enumerate() {
            let is_write = k == 2;
            let a = acc(reg, value, 4 * (clk0 + step) + k as u64 + 1, is_write);
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
    // A system call's access after them.
    let a = acc(10, 77, 4 * (clk0 + 9) + 1, true);
    let (old, old_ts) = regs.access(&a);
    let extra = RegRow {
        access: a,
        old,
        old_ts,
    };
    rec.extra.push(extra);
    rows.push(extra);
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
