//! The LT, EQ and SHIFT tables: honest traces of edge-case and random operations satisfy the
//! debug checker and prove and verify; a wrong result that the driver and the table agree
//! on is caught; and every single-cell mutation of a real row is detected.

use std::time::Instant;

use kestrel_core::air::debug::{check_machine, DebugReport};
use kestrel_core::air::{Machine, TableAir, TableShape};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::testing::{driver_trace, AluTestMachine};
use kestrel_core::rv::{
    alu_eval, eq, lt, shift, AluOp, ALU_EQ, ALU_SLL, ALU_SLLW, ALU_SLT, ALU_SLTU, ALU_SRA,
    ALU_SRAW, ALU_SRL, ALU_SRLW,
};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_verifier::verify;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One ALU table under test.
struct Table {
    air: &'static dyn TableAir,
    ops: &'static [u32],
    build: fn(&[AluOp], &mut ByteCounts) -> RowMajorMatrix,
    /// Writes `c` into a row's result columns (what a cheating prover controls directly);
    /// returns false when `c` cannot be represented (the table's fixed zero bytes).
    force_c: fn(&mut [Felt], u64) -> bool,
}

const LT: Table = Table {
    air: &lt::LtAir,
    ops: &[ALU_SLT, ALU_SLTU],
    build: lt::build_trace,
    force_c: |row, c| {
        row[lt::LT] = Felt::new(c & 0xff);
        c >> 8 == 0
    },
};

const EQ: Table = Table {
    air: &eq::EqAir,
    ops: &[ALU_EQ],
    build: eq::build_trace,
    force_c: |row, c| {
        row[eq::NEQ] = Felt::ONE - Felt::new(c & 0xff);
        c >> 8 == 0
    },
};

const SHIFT: Table = Table {
    air: &shift::ShiftAir,
    ops: &[ALU_SLL, ALU_SRL, ALU_SRA, ALU_SLLW, ALU_SRLW, ALU_SRAW],
    build: shift::build_trace,
    force_c: |row, c| {
        for (i, byte) in c.to_le_bytes().into_iter().enumerate() {
            row[shift::C + i] = Felt::from(byte as u32);
        }
        true
    },
};

/// Each table's preprocessed trace, as `setup` builds it.
fn preprocessed(machine: &dyn Machine) -> Vec<Option<RowMajorMatrix>> {
    kestrel_core::air::debug::preprocessed_traces(machine)
}

/// Driver, table and BITWISE traces for `ops`.
fn traces(t: &Table, ops: &[AluOp]) -> [RowMajorMatrix; 3] {
    let mut bytes = ByteCounts::default();
    let table = (t.build)(ops, &mut bytes);
    [driver_trace(ops), table, bytes.trace()]
}

fn check(t: &Table, traces: &[RowMajorMatrix; 3], pre: &[Option<RowMajorMatrix>]) -> DebugReport {
    let machine = AluTestMachine { table: t.air };
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(&machine, &refs, pre, &[])
}

fn op(op: u32, a: u64, b: u64) -> AluOp {
    AluOp {
        op,
        a,
        b,
        c: alu_eval(op, a, b).unwrap(),
    }
}

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

/// Edge-case and random operations for a table (with repeats, so rows carry `m > 1`).
fn workload(t: &Table, seed: u64) -> Vec<AluOp> {
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

fn honest(t: &Table) {
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
    assert!(tr[1].height() == 8);
    let report = check(t, &tr, &pre);
    assert!(report.is_ok(), "{name} small:\n{report}");

    let ops = workload(t, 2);
    let tr = traces(t, &ops);
    let report = check(t, &tr, &pre);
    assert!(report.is_ok(), "{name}:\n{report}");
    println!("{name}: {} ops, {} rows", ops.len(), tr[1].height());

    let start = Instant::now();
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_8).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &tr, &[]).unwrap();
    verify(&machine, &pk.vk, &[], &proof.to_bytes()).unwrap();
    println!("{name}: setup + prove + verify {:?}", start.elapsed());
}

#[test]
fn lt_honest_checks_and_proves() {
    honest(&LT);
}

#[test]
fn eq_honest_checks_and_proves() {
    honest(&EQ);
}

#[test]
fn shift_honest_checks_and_proves() {
    honest(&SHIFT);
}

/// The driver sends a wrong `c` and the table's row, built honestly, is forced to that `c`:
/// a constraint fails (or, for a value the table cannot express, the bus does not balance).
fn wrong_results(t: &Table) {
    let name = t.air.name();
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
            let expressible = (t.force_c)(table.row_mut(0), wrong);
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

#[test]
fn lt_wrong_results_are_caught() {
    wrong_results(&LT);
}

#[test]
fn eq_wrong_results_are_caught() {
    wrong_results(&EQ);
}

#[test]
fn shift_wrong_results_are_caught() {
    wrong_results(&SHIFT);
}

/// Changes single cells of real rows; every change must fail the checker.
fn mutations(t: &Table, per_column: usize) {
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
            let new = loop {
                let v = match k % 4 {
                    0 => old + Felt::ONE,
                    1 => old - Felt::ONE,
                    2 => Felt::new(rng.gen_range(0..256)),
                    _ => Felt::new(rng.gen()),
                };
                if v != old {
                    break v;
                }
            };
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

#[test]
fn lt_mutations_are_detected() {
    mutations(&LT, 8);
}

#[test]
fn eq_mutations_are_detected() {
    mutations(&EQ, 8);
}

#[test]
fn shift_mutations_are_detected() {
    mutations(&SHIFT, 6);
}
