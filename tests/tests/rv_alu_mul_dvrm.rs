//! MUL and DVRM: random and edge-case operations balance against the ALU driver and
//! BITWISE, one proof per table verifies, wrong results are caught, and every single-cell
//! change of a real row is detected (mutation testing, 100% required).

use std::time::Instant;

use kestrel_core::air::debug::{check_machine, DebugReport};
use kestrel_core::air::{Machine, TableAir, TableShape};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::testing::{driver_trace, AluTestMachine};
use kestrel_core::rv::{alu_eval, dvrm, mul, AluOp};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_verifier::verify;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type BuildTrace = fn(&[AluOp], &mut ByteCounts) -> RowMajorMatrix;

/// One table under test.
struct Table {
    air: &'static dyn TableAir,
    ops: &'static [u32],
    build: BuildTrace,
    width: usize,
}

const MUL: Table = Table {
    air: &mul::MulAir,
    ops: &mul::OPS,
    build: mul::build_trace,
    width: mul::WIDTH,
};

const DVRM: Table = Table {
    air: &dvrm::DvrmAir,
    ops: &dvrm::OPS,
    build: dvrm::build_trace,
    width: dvrm::WIDTH,
};

/// Operands every table must get right.
const EDGES: [u64; 18] = [
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

fn op(code: u32, a: u64, b: u64) -> AluOp {
    AluOp {
        op: code,
        a,
        b,
        c: alu_eval(code, a, b).expect("a table op"),
    }
}

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
fn ops_for(table: &Table, random: usize, seed: u64) -> Vec<AluOp> {
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

/// Each table's preprocessed trace, as `setup` builds it.
fn preprocessed(machine: &dyn Machine) -> Vec<Option<RowMajorMatrix>> {
    kestrel_core::air::debug::preprocessed_traces(machine)
}

/// Driver, table and BITWISE traces for `ops`.
fn traces(table: &Table, ops: &[AluOp]) -> [RowMajorMatrix; 3] {
    let mut bytes = ByteCounts::default();
    let t = (table.build)(ops, &mut bytes);
    assert_eq!(t.width, table.width);
    [driver_trace(ops), t, bytes.trace()]
}

fn check(
    machine: &AluTestMachine,
    pre: &[Option<RowMajorMatrix>],
    t: &[RowMajorMatrix],
) -> DebugReport {
    let refs: Vec<&RowMajorMatrix> = t.iter().collect();
    check_machine(machine, &refs, pre, &[])
}

fn balances(table: &Table) {
    let machine = AluTestMachine { table: table.air };
    let pre = preprocessed(&machine);
    let shape = TableShape::of(table.air, 0).expect("shape");
    println!("{}: {shape:?}", table.air.name());
    let ops = ops_for(table, 400, 1);
    let t = traces(table, &ops);
    let report = check(&machine, &pre, &t);
    assert!(report.is_ok(), "{}:\n{report}", table.air.name());
    // One row per distinct op, multiplicities summing to the op count; the height is a
    // power of two ≥ 8.
    let distinct: std::collections::BTreeSet<AluOp> = ops.iter().copied().collect();
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
        let report = check(&machine, &pre, &traces(table, one));
        assert!(report.is_ok(), "{}:\n{report}", table.air.name());
    }
}

#[test]
fn mul_balances_on_edge_and_random_ops() {
    balances(&MUL);
}

#[test]
fn dvrm_balances_on_edge_and_random_ops() {
    balances(&DVRM);
}

fn proves(table: &Table) {
    let machine = AluTestMachine { table: table.air };
    let ops = ops_for(table, 20, 2);
    let t = traces(table, &ops);
    let start = Instant::now();
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_8).expect("setup");
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &t, &[]).expect("prove");
    let bytes = proof.to_bytes();
    verify(&machine, &pk.vk, &[], &bytes).expect("verify");
    println!(
        "{}: {} ops, {} rows: proved and verified in {:?}, {} bytes",
        table.air.name(),
        ops.len(),
        t[1].height(),
        start.elapsed(),
        bytes.len()
    );
}

#[test]
fn mul_proves_and_verifies() {
    proves(&MUL);
}

#[test]
fn dvrm_proves_and_verifies() {
    proves(&DVRM);
}

/// A wrong result that the driver and the table agree on breaks a constraint.
fn wrong_results_caught(table: &Table) {
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
        let report = check(&machine, &pre, &traces(table, &ops));
        assert!(
            !report.failures.is_empty(),
            "{}: wrong result {bad:?} accepted",
            table.air.name()
        );
    }
}

#[test]
fn mul_wrong_results_are_caught() {
    wrong_results_caught(&MUL);
}

#[test]
fn dvrm_wrong_results_are_caught() {
    wrong_results_caught(&DVRM);
}

/// Changes single cells of real rows: every change must fail the debug checker.
fn mutations_detected(table: &Table) {
    let machine = AluTestMachine { table: table.air };
    let pre = preprocessed(&machine);
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
    assert!(check(&machine, &pre, &base).is_ok());
    let real = (0..base[1].height())
        .filter(|&r| base[1].row(r)[0] != Felt::ZERO)
        .count();
    let start = Instant::now();
    let (mut tried, mut caught) = (0usize, 0usize);
    let mut missed = Vec::new();
    // Every column several times, then random picks.
    let picks: Vec<usize> = (0..table.width)
        .flat_map(|c| [c; 3])
        .chain((0..500).map(|_| rng.gen_range(0..table.width)))
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
        if check(&machine, &pre, &t).is_ok() {
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
        table.width,
        start.elapsed()
    );
    assert!(
        missed.is_empty(),
        "{}: undetected mutations (row, col): {missed:?}",
        table.air.name()
    );
}

#[test]
fn mul_mutations_are_all_detected() {
    mutations_detected(&MUL);
}

#[test]
fn dvrm_mutations_are_all_detected() {
    mutations_detected(&DVRM);
}

/// A DVRM witness: quotient, remainder, divide by zero, overflow.
type Witness = (u64, u64, bool, bool);

/// Dishonest DVRM witnesses, every other cell derived from them as an honest prover would:
/// each breaks a constraint.
#[test]
fn dvrm_rejects_dishonest_witnesses() {
    use kestrel_core::rv::*;
    let machine = AluTestMachine {
        table: &dvrm::DvrmAir,
    };
    let pre = preprocessed(&machine);
    let neg = |v: i64| v as u64;
    let min = i64::MIN as u64;
    let min32 = i32::MIN as i64 as u64;
    let attacks: [(&str, u32, u64, u64, Witness); 16] = [
        ("q + 1, r − y", ALU_DIVU, 7, 2, (4, neg(-1), false, false)),
        ("q − 1, r + y", ALU_DIVU, 7, 2, (2, 3, false, false)),
        ("q − 1, r + y (REMU)", ALU_REMU, 7, 2, (2, 3, false, false)),
        (
            "floor division",
            ALU_DIV,
            neg(-7),
            2,
            (neg(-4), 1, false, false),
        ),
        (
            "floor remainder",
            ALU_REM,
            neg(-7),
            2,
            (neg(-4), 1, false, false),
        ),
        (
            "r of the divisor's sign",
            ALU_DIV,
            7,
            neg(-2),
            (neg(-4), neg(-1), false, false),
        ),
        (
            "q off by 2^63",
            ALU_DIVU,
            6,
            2,
            (3 + (1 << 63), 0, false, false),
        ),
        (
            "q off by 2^63, signed",
            ALU_DIV,
            6,
            2,
            (3 + (1 << 63), 0, false, false),
        ),
        ("claims y = 0", ALU_DIVU, 5, 3, (u64::MAX, 5, true, false)),
        ("y = 0 without z", ALU_DIV, 5, 0, (0, 5, false, false)),
        ("z with q ≠ −1", ALU_DIVU, 5, 0, (7, 5, true, false)),
        ("z with r ≠ x", ALU_REMU, 5, 0, (u64::MAX, 4, true, false)),
        (
            "overflow without ovf",
            ALU_DIV,
            min,
            neg(-1),
            (min, 0, false, false),
        ),
        ("ovf for MIN / 2", ALU_DIV, min, 2, (min, 0, false, true)),
        (
            "ovf on a W op",
            ALU_DIVW,
            min32,
            neg(-1),
            (min32, 0, false, true),
        ),
        (
            "DIVUW on the full a",
            ALU_DIVUW,
            0xF_0000_0006,
            2,
            (0x7_8000_0003, 0, false, false),
        ),
    ];
    let base: Vec<AluOp> = [(ALU_DIV, 9, 4), (ALU_REMUW, 1 << 40, 3), (ALU_DIVW, 5, 0)]
        .map(|(c, a, b)| op(c, a, b))
        .to_vec();
    let run = |attack: &AluOp, w: Witness| {
        let mut bytes = ByteCounts::default();
        let mut t = dvrm::build_trace(&base, &mut bytes);
        let row = dvrm::witness_row(attack, w, &mut bytes);
        t.row_mut(base.len()).copy_from_slice(&row);
        let mut ops = base.clone();
        ops.push(*attack);
        check(&machine, &pre, &[driver_trace(&ops), t, bytes.trace()])
    };
    for (name, code, a, b, w) in attacks {
        let honest = op(code, a, b);
        let h = dvrm::divide(&honest);
        assert_ne!(h, w, "{name}: not an attack");
        assert_eq!(dvrm::result_of(code, h.0, h.1), honest.c);
        assert!(run(&honest, h).is_ok(), "{name}: honest row rejected");
        let attack = AluOp {
            c: dvrm::result_of(code, w.0, w.1),
            ..honest
        };
        let report = run(&attack, w);
        assert!(!report.failures.is_empty(), "{name}: accepted:\n{report}");
        println!("{name}: {}", report.failures[0].constraint);
    }
}
