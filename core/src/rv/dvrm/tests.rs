//! DVRM's unit tests: random and edge-case operations balance against the ALU driver and
//! BITWISE; wrong results (consistent forgeries: the driver and the row agree) and dishonest
//! witnesses (every other cell derived from them) are caught; every single-cell change of a
//! real row is detected (the shared ALU checks, `rv::testing::alu`). Its proof:
//! `tests/tests/rv_dvrm.rs`.

extern crate std;

use super::*;
use crate::rv::bitwise::ByteCounts;
use crate::rv::testing::{alu, driver_trace, AluTestMachine};
use crate::rv::*;
use alloc::vec::Vec;
use std::println;

#[test]
fn dvrm_balances_on_edge_and_random_ops() {
    alu::balances(&ALU_CASE);
}

#[test]
fn dvrm_wrong_results_are_caught() {
    alu::wrong_results_caught(&ALU_CASE);
}

#[test]
fn dvrm_mutations_are_all_detected() {
    alu::mutations_detected(&ALU_CASE);
}

/// A DVRM witness: quotient, remainder, divide by zero, overflow.
type Witness = (u64, u64, bool, bool);

/// Dishonest DVRM witnesses, every other cell derived from them as an honest prover would:
/// each breaks a constraint.
#[test]
fn dvrm_rejects_dishonest_witnesses() {
    let machine = AluTestMachine { table: &DvrmAir };
    let pre = alu::preprocessed(&machine);
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
        .map(|(c, a, b)| alu::op(c, a, b))
        .to_vec();
    let run = |attack: &AluOp, w: Witness| {
        let mut bytes = ByteCounts::default();
        let mut t = build_trace(&base, &mut bytes);
        let row = witness_row(attack, w, &mut bytes);
        t.row_mut(base.len()).copy_from_slice(&row);
        let mut ops = base.clone();
        ops.push(*attack);
        alu::check(&ALU_CASE, &[driver_trace(&ops), t, bytes.trace()], &pre)
    };
    for (name, code, a, b, w) in attacks {
        let honest = alu::op(code, a, b);
        let h = divide(&honest);
        assert_ne!(h, w, "{name}: not an attack");
        assert_eq!(result_of(code, h.0, h.1), honest.c);
        assert!(run(&honest, h).is_ok(), "{name}: honest row rejected");
        let attack = AluOp {
            c: result_of(code, w.0, w.1),
            ..honest
        };
        let report = run(&attack, w);
        assert!(!report.failures.is_empty(), "{name}: accepted:\n{report}");
        println!("{name}: {}", report.failures[0].constraint);
    }
}

/// On honest operations the production builder (`distinct`, `fill_distinct`, `lookups`)
/// and the as-sent builder the ALU tests use agree on the trace and every byte lookup; the
/// lookups of slices of the rows add up to the whole's, and padding rows make none.
#[test]
fn dvrm_split_builder_is_the_as_sent_builder_on_honest_ops() {
    use crate::rv::distinct_height;
    let ops = alu::ops_for(&ALU_CASE, 300, 9);
    let (mut split, mut sent) = (ByteCounts::default(), ByteCounts::default());
    let t = build_trace(&ops, &mut split);
    assert!(t == build_trace_as_sent(&ops, &mut sent));
    assert!(split.trace() == sent.trace());
    let rows = distinct(&ops);
    assert!(rows.len() > 100 && t.height() == distinct_height(rows.len()));
    assert!(fill_distinct(&rows) == t);
    let mut parts = ByteCounts::default();
    let cut = rows.len() / 3;
    lookups(&rows[..cut], cut, &mut parts);
    lookups(&rows[cut..], t.height() - cut, &mut parts);
    assert!(parts.trace() == split.trace());
    let mut none = ByteCounts::default();
    lookups(&[], 64, &mut none);
    assert!(none.trace() == ByteCounts::default().trace());
}
