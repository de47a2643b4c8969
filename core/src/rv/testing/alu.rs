//! Workloads and checks shared by the ALU rooms' tests (`rv/<table>/tests.rs`) and their
//! proving tests in `kestrel-tests` (`tests/tests/rv_<table>.rs`): each table is tested
//! against the [`AluDriverAir`](super::AluDriverAir) and BITWISE in an [`AluTestMachine`].
//!
//! Two families: the byte-compare tables LT, EQ and SHIFT ([`workload`], [`honest_checks`],
//! [`wrong_results`], [`mutations`]) and the arithmetic tables MUL and DVRM ([`ops_for`],
//! [`balances`], [`wrong_results_caught`], [`mutations_detected`]). Compiled for core's unit
//! tests and with the `testing` feature (random workloads need `rand`).

extern crate std;

use alloc::vec;
use alloc::vec::Vec;
use std::println;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::mutation::mutated;
use super::{driver_trace, AluTestMachine};
use crate::air::debug::{check_machine, preprocessed_traces, DebugReport};
use crate::air::{Machine, TableAir, TableShape};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{alu_eval, AluOp, ALU_SLL};

/// An ALU table's trace builder.
pub type Build = fn(&[AluOp], &mut ByteCounts) -> RowMajorMatrix;

/// Writes `c` into a row's result columns (what a cheating prover controls directly);
/// returns false when `c` cannot be represented (the table's fixed zero bytes).
pub type ForceC = fn(&mut [Felt], u64) -> bool;

/// One ALU table under test.
pub struct AluCase {
    pub air: &'static dyn TableAir,
    /// The operation codes it receives.
    pub ops: &'static [u32],
    pub build: Build,
    /// For the byte-compare tables: how a forged result is written into a row.
    pub force_c: Option<ForceC>,
}

/// Each table's preprocessed trace, as `setup` builds it.
pub fn preprocessed(machine: &dyn Machine) -> Vec<Option<RowMajorMatrix>> {
    preprocessed_traces(machine)
}

/// Driver, table and BITWISE traces for `ops`.
pub fn traces(t: &AluCase, ops: &[AluOp]) -> [RowMajorMatrix; 3] {
    let mut bytes = ByteCounts::default();
    let table = (t.build)(ops, &mut bytes);
    assert_eq!(table.width, t.air.width());
    [driver_trace(ops), table, bytes.trace()]
}

/// The debug checker on the driver, the table and BITWISE.
pub fn check(
    t: &AluCase,
    traces: &[RowMajorMatrix],
    pre: &[Option<RowMajorMatrix>],
) -> DebugReport {
    let machine = AluTestMachine { table: t.air };
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(&machine, &refs, pre, &[])
}

/// The honest operation `op(a, b)`.
pub fn op(op: u32, a: u64, b: u64) -> AluOp {
    AluOp {
        op,
        a,
        b,
        c: alu_eval(op, a, b).expect("a table op"),
    }
}

// ---------------------------------------------------------------------------------------
// LT, EQ, SHIFT.

fn edge_values() -> Vec<u64> {
    vec![
        0,
        1,
        2,
        u64::MAX,
        u64::MAX - 1,
        i64::MIN as u64,
        i64::MAX as u64,
        i64::MIN as u64 + 1,
        i32::MIN as i64 as u64,
        i32::MIN as u32 as u64,
        i32::MAX as u64,
        u32::MAX as u64,
        1 << 32,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x0123_4567_89ab_cdef,
        0xfedc_ba98_7654_3210,
    ]
}

/// Random values, many sharing high bytes so that comparisons hinge on low bytes.
fn random_pairs(rng: &mut ChaCha8Rng, n: usize) -> Vec<(u64, u64)> {
    (0..n)
        .map(|i| {
            let a: u64 = rng.gen();
            let b = match i % 4 {
                0 => rng.gen(),
                1 => a ^ (1u64 << rng.gen_range(0..64)),
                2 => a.wrapping_add(rng.gen_range(0..512)).wrapping_sub(256),
                _ => a,
            };
            (a, b)
        })
        .collect()
}

/// Edge-case and random operations for a byte-compare table (with repeats, so rows carry
/// `m > 1`).
pub fn workload(t: &AluCase, seed: u64) -> Vec<AluOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let edges = edge_values();
    let mut ops = Vec::new();
    if t.ops.contains(&ALU_SLL) {
        let amounts = [
            0u64, 1, 7, 8, 9, 15, 16, 24, 31, 32, 33, 39, 40, 56, 63, 64, 65, 95, 96, 127, 128,
            160, 191, 192, 255,
        ];
        for &code in t.ops {
            for &a in &edges {
                for &s in &amounts {
                    ops.push(op(code, a, s));
                    // Junk in b's high bytes is ignored.
                    ops.push(op(code, a, s | rng.gen::<u64>() << 8));
                }
            }
            for _ in 0..200 {
                ops.push(op(code, rng.gen(), rng.gen()));
            }
        }
    } else {
        for &code in t.ops {
            for &a in &edges {
                for &b in &edges {
                    ops.push(op(code, a, b));
                }
            }
            for (a, b) in random_pairs(&mut rng, 400) {
                ops.push(op(code, a, b));
            }
        }
    }
    // Repeats.
    let again: Vec<AluOp> = ops.iter().step_by(7).copied().collect();
    ops.extend(again);
    ops
}

/// The table's shape is valid, and honest traces of a small workload (padding rows) and a
/// full one satisfy the debug checker; returns the full workload's traces.
pub fn honest_checks(t: &AluCase) -> [RowMajorMatrix; 3] {
    let name = t.air.name();
    let shape = TableShape::of(t.air, 0).unwrap();
    assert!(shape.max_degree <= 3);
    println!(
        "{name}: {} columns, {} constraints, {} interactions, max degree {}",
        shape.width, shape.num_air_constraints, shape.num_interactions, shape.max_degree
    );
    let machine = AluTestMachine { table: t.air };
    let pre = preprocessed(&machine);

    // A small workload leaves padding rows.
    let small: Vec<AluOp> = workload(t, 1).into_iter().take(5).collect();
    let tr = traces(t, &small);
    assert!(tr[1].height() == crate::params::MIN_ROWS);
    let report = check(t, &tr, &pre);
    assert!(report.is_ok(), "{name} small:\n{report}");

    let ops = workload(t, 2);
    let tr = traces(t, &ops);
    let report = check(t, &tr, &pre);
    assert!(report.is_ok(), "{name}:\n{report}");
    println!("{name}: {} ops, {} rows", ops.len(), tr[1].height());
    tr
}

/// A consistent forgery: the driver sends a wrong `c` and the table's row, built honestly,
/// is forced to that `c` (several cells changed together): a constraint fails (or, for a
/// value the table cannot express, the bus does not balance).
pub fn wrong_results(t: &AluCase) {
    let name = t.air.name();
    let force_c = t.force_c.expect("a byte-compare table");
    let machine = AluTestMachine { table: t.air };
    let pre = preprocessed(&machine);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut cases = workload(t, 4);
    let n = cases.len();
    let picks: Vec<AluOp> = (0..60).map(|_| cases[rng.gen_range(0..n)]).collect();
    cases.clear();
    let (mut by_constraint, mut total) = (0, 0);
    for honest_op in picks {
        let c = honest_op.c;
        let mut wrongs = vec![c ^ 1, c ^ (1 << rng.gen_range(0..64)), rng.gen()];
        if c >> 8 == 0 {
            wrongs.push(c ^ 1 ^ (1 << 8));
        }
        for wrong in wrongs {
            if wrong == c {
                continue;
            }
            let mut bytes = ByteCounts::default();
            let mut table = (t.build)(&[honest_op], &mut bytes);
            let expressible = force_c(table.row_mut(0), wrong);
            let cheat = AluOp {
                c: wrong,
                ..honest_op
            };
            let tr = [driver_trace(&[cheat]), table, bytes.trace()];
            let report = check(t, &tr, &pre);
            assert!(!report.is_ok(), "{name}: {cheat:?} accepted");
            if expressible {
                assert!(
                    !report.failures.is_empty(),
                    "{name}: {cheat:?}: no constraint fails\n{report}"
                );
                by_constraint += 1;
            }
            total += 1;
        }
    }
    println!("{name}: {total} wrong results caught ({by_constraint} by a constraint)");
}

/// Changes single cells of real rows; every change must fail the checker.
pub fn mutations(t: &AluCase, per_column: usize) {
    let name = t.air.name();
    let machine = AluTestMachine { table: t.air };
    let pre = preprocessed(&machine);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // A few hundred distinct rows of edge cases and random operations.
    let all = workload(t, 6);
    let ops: Vec<AluOp> = (0..300).map(|_| all[rng.gen_range(0..all.len())]).collect();
    let mut tr = traces(t, &ops);
    assert!(check(t, &tr, &pre).is_ok());
    let real = tr[1]
        .rows()
        .take_while(|r| r.iter().any(|&v| v != Felt::ZERO))
        .count();
    let width = t.air.width();
    let (mut detected, mut total) = (0, 0);
    let mut missed = Vec::new();
    for col in 0..width {
        for k in 0..per_column {
            let row = rng.gen_range(0..real);
            let old = tr[1].row(row)[col];
            let new = mutated(&mut rng, old, k);
            tr[1].row_mut(row)[col] = new;
            let report = check(t, &tr, &pre);
            tr[1].row_mut(row)[col] = old;
            total += 1;
            if report.is_ok() {
                missed.push((row, col, old, new));
            } else {
                detected += 1;
            }
        }
    }
    println!(
        "{name}: mutation detection {detected}/{total} = {:.1}% ({real} real rows, {width} columns)",
        100.0 * detected as f64 / total as f64
    );
    assert!(
        missed.is_empty(),
        "{name}: undetected (row, col, old, new): {missed:?}"
    );
}

// ---------------------------------------------------------------------------------------
// MUL, DVRM.

/// Operands every arithmetic table must get right.
pub const EDGES: [u64; 18] = [
    0,
    1,
    2,
    3,
    7,
    u64::MAX,     // −1
    u64::MAX - 1, // −2
    i64::MIN as u64,
    i64::MAX as u64,
    i32::MIN as i64 as u64,
    i32::MAX as u64,
    0xFFFF_FFFF,
    0x8000_0000,
    0x1_0000_0000,
    0xFFFF_FFFF_0000_0000,
    0x0000_0001_FFFF_FFFF,
    0x8000_0000_0000_0001,
    0x1234_5678_9ABC_DEF0,
];

/// A random operand: uniform, small, or sign/zero-extended 32-bit, or an edge value.
fn operand(rng: &mut ChaCha8Rng) -> u64 {
    match rng.gen_range(0..6) {
        0 | 1 => rng.gen(),
        2 => rng.gen_range(0..300),
        3 => (rng.gen_range(-300i64..300)) as u64,
        4 => rng.gen::<i32>() as i64 as u64,
        _ => EDGES[rng.gen_range(0..EDGES.len())],
    }
}

/// Every edge pair for every op, plus `random` random ops per op (with repeats, so rows are
/// deduplicated with multiplicities above one).
pub fn ops_for(table: &AluCase, random: usize, seed: u64) -> Vec<AluOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ops = Vec::new();
    for &code in table.ops {
        for &a in &EDGES {
            for &b in &EDGES {
                ops.push(op(code, a, b));
            }
        }
        for _ in 0..random {
            let (a, b) = (operand(&mut rng), operand(&mut rng));
            ops.push(op(code, a, b));
        }
    }
    // Repeats.
    for i in 0..ops.len() / 8 {
        ops.push(ops[i * 7 % ops.len()]);
    }
    ops
}

/// Edge and random operations balance: one row per distinct op, multiplicities summing to
/// the op count; also a table of padding only and of a single op.
pub fn balances(table: &AluCase) {
    let machine = AluTestMachine { table: table.air };
    let pre = preprocessed(&machine);
    let shape = TableShape::of(table.air, 0).expect("shape");
    println!("{}: {shape:?}", table.air.name());
    let ops = ops_for(table, 400, 1);
    let t = traces(table, &ops);
    let report = check(table, &t, &pre);
    assert!(report.is_ok(), "{}:\n{report}", table.air.name());
    // One row per distinct op, multiplicities summing to the op count; the height is a
    // power of two ≥ 8.
    let distinct: alloc::collections::BTreeSet<AluOp> = ops.iter().copied().collect();
    let ms: Vec<u64> = t[1]
        .rows()
        .map(|r| r[0].as_u64())
        .filter(|&m| m != 0)
        .collect();
    assert_eq!(ms.len(), distinct.len());
    assert_eq!(ms.iter().sum::<u64>(), ops.len() as u64);
    let h = t[1].height();
    assert!(h.is_power_of_two() && h >= 8 && h < 2 * distinct.len());
    // Also a table with only padding and a single op.
    for one in [&ops[..0], &ops[..1]] {
        let report = check(table, &traces(table, one), &pre);
        assert!(report.is_ok(), "{}:\n{report}", table.air.name());
    }
}

/// A consistent forgery: a wrong result that the driver and the table agree on (the
/// table's row built from the forged op, every cell derived from it) breaks a constraint.
pub fn wrong_results_caught(table: &AluCase) {
    let machine = AluTestMachine { table: table.air };
    let pre = preprocessed(&machine);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let base = ops_for(table, 0, 3);
    let picks: Vec<AluOp> = (0..60)
        .map(|i| {
            if i < 2 * table.ops.len() {
                // Edge cases first: x / 0, MIN / −1, −1 · −1, per op.
                let code = table.ops[i % table.ops.len()];
                let (a, b) = match i / table.ops.len() {
                    0 => (i64::MIN as u64, u64::MAX),
                    _ => (5, 0),
                };
                op(code, a, b)
            } else {
                base[rng.gen_range(0..base.len())]
            }
        })
        .collect();
    for good in picks {
        let wrong = match rng.gen_range(0..3) {
            0 => good.c ^ (1 << rng.gen_range(0..64)),
            1 => good.c.wrapping_add(1),
            _ => rng.gen(),
        };
        let bad = AluOp { c: wrong, ..good };
        assert_ne!(alu_eval(bad.op, bad.a, bad.b), Some(bad.c));
        let mut ops: Vec<AluOp> = base.iter().take(40).copied().collect();
        ops.push(bad);
        let report = check(table, &traces(table, &ops), &pre);
        assert!(
            !report.failures.is_empty(),
            "{}: wrong result {bad:?} accepted",
            table.air.name()
        );
    }
}

/// Changes single cells of real rows: every change must fail the debug checker.
pub fn mutations_detected(table: &AluCase) {
    let machine = AluTestMachine { table: table.air };
    let pre = preprocessed(&machine);
    let width = table.air.width();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    // Few rows (the checker runs once per mutation) but every edge class: edge operands with
    // every op, and a few random ones.
    let mut ops = Vec::new();
    for &code in table.ops {
        for (a, b) in [
            (i64::MIN as u64, u64::MAX),
            (7, 0),
            (i32::MIN as i64 as u64, u64::MAX),
            (u64::MAX - 6, 2),
            (0xFFFF_FFFF, 0x8000_0000),
            (i64::MAX as u64, i64::MIN as u64),
        ] {
            ops.push(op(code, a, b));
        }
        for _ in 0..4 {
            ops.push(op(code, operand(&mut rng), operand(&mut rng)));
        }
    }
    let base = traces(table, &ops);
    assert!(check(table, &base, &pre).is_ok());
    let real = (0..base[1].height())
        .filter(|&r| base[1].row(r)[0] != Felt::ZERO)
        .count();
    let start = Instant::now();
    let (mut tried, mut caught) = (0usize, 0usize);
    let mut missed = Vec::new();
    // Every column several times, then random picks.
    let picks: Vec<usize> = (0..width)
        .flat_map(|c| [c; 3])
        .chain((0..500).map(|_| rng.gen_range(0..width)))
        .collect();
    for col in picks {
        let row = rng.gen_range(0..real);
        let mut t = base.clone();
        let cell = &mut t[1].row_mut(row)[col];
        let old = *cell;
        *cell = match rng.gen_range(0..4) {
            0 => old + Felt::ONE,
            1 => old - Felt::ONE,
            2 => Felt::from(rng.gen_range(0..256u32)),
            _ => Felt::new(rng.gen()),
        };
        if *cell == old {
            *cell = old + Felt::ONE;
        }
        tried += 1;
        if check(table, &t, &pre).is_ok() {
            missed.push((row, col));
        } else {
            caught += 1;
        }
    }
    println!(
        "{}: mutation detection {caught}/{tried} = {:.1}% ({} real rows, {} columns, {:?})",
        table.air.name(),
        100.0 * caught as f64 / tried as f64,
        real,
        width,
        start.elapsed()
    );
    assert!(
        missed.is_empty(),
        "{}: undetected mutations (row, col): {missed:?}",
        table.air.name()
    );
}
