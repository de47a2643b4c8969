//! CPU's unit tests on segments (`rv::testing::cpu`'s looping program): its shape; a whole
//! run, a segment in the middle (clock 1000, 7 output bytes before it, a handoff after a
//! taken branch, padding), a segment that fills its table and one that exits satisfy every
//! constraint and balance against their boundary tokens; every single-cell mutation of a
//! real row is detected; misplaced, doubled, missing and padding handoffs, a handoff on the
//! exit, and a row 0 whose clock or output position is not its token's are caught.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;
use std::println;

use crate::air::debug::{table_ledger, DebugReport};
use crate::air::{Air, TableShape};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::cpu::{self, CpuAir};
use crate::rv::testing::cpu::{check_segment, run, Segment, BASE, LOOP, PASS_OUT, STEPS};
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::BUS_ENTRY;

/// A segment in the middle: steps 9.. of the run (the loop's second pass on), 21 of them
/// (three passes, ending with the taken branch back to the loop), from clock 1000 with 7
/// output bytes before it; 32 rows, so 11 padding rows.
fn middle() -> Segment {
    run().segment(9..30, 1000, 7)
}

#[track_caller]
fn assert_ok(r: &DebugReport) {
    assert!(r.is_ok(), "honest segment rejected:\n{r}");
}

#[track_caller]
fn assert_fails(r: &DebugReport, name: &str) {
    assert!(
        r.failures.iter().any(|f| f.constraint == name),
        "expected `{name}` to fail:\n{r}"
    );
}

/// No constraint fails; the only imbalance is on BUS_ENTRY.
#[track_caller]
fn assert_entry_unbalanced(r: &DebugReport) {
    assert!(r.failures.is_empty(), "{r}");
    assert!(!r.imbalances.is_empty(), "the forgery balances");
    assert!(
        r.imbalances.iter().all(|i| i.bus == BUS_ENTRY),
        "an imbalance off BUS_ENTRY:\n{r}"
    );
}

/// The honest segment's trace changed by `forge`, checked with the honest boundary and the
/// stand-ins built from the forged trace's own traffic (so only the boundary objects).
fn forged(s: &Segment, forge: impl FnOnce(&mut RowMajorMatrix)) -> DebugReport {
    let mut t = s.trace();
    forge(&mut t);
    assert_ne!(t, s.trace(), "the forgery changes nothing");
    check_segment(&t, &t, &s.boundary())
}

fn last_real(s: &Segment) -> usize {
    s.records.len() - 1
}

#[test]
fn cpu_shape() {
    let s = TableShape::of(&CpuAir, 0).unwrap();
    assert!(s.max_degree <= 3);
    println!(
        "{}: {} columns, {} constraints, {} interactions, max degree {}",
        Air::name(&CpuAir),
        s.width,
        s.num_air_constraints,
        s.num_interactions,
        s.max_degree
    );
}

#[test]
fn whole_run_balances_against_decodes_token() {
    let s = run().segment(0..STEPS, 0, 0);
    assert!(!s.records.handoff);
    let t = s.trace();
    assert_eq!(s.start, [Felt::ZERO, Felt::from(BASE), Felt::ZERO]);
    assert_ok(&check_segment(&t, &t, &s.boundary()));
}

#[test]
fn middle_segment_balances_against_its_tokens() {
    let s = middle();
    let t = s.trace();
    assert!(s.records.handoff);
    assert_eq!(t.height(), 32);
    // Three passes wrote two bytes each; the branch back to the loop hands off.
    let start = [Felt::new(1000), Felt::from(LOOP), Felt::new(7)];
    let end = [
        Felt::new(1021),
        Felt::from(LOOP),
        Felt::new(7 + 3 * PASS_OUT),
    ];
    assert_eq!((s.start, s.end), (start, end));
    let n = last_real(&s);
    assert_eq!(t.row(n)[cpu::HANDOFF], Felt::ONE);
    assert_eq!(t.row(n)[cpu::TAKEN], Felt::ONE);
    assert_eq!(t.row(n)[cpu::NEXT_PC], Felt::from(LOOP));
    assert_eq!(t.row(31)[cpu::CLK], Felt::new(1031));
    let handoffs = (0..t.height())
        .filter(|&r| t.row(r)[cpu::HANDOFF] != Felt::ZERO)
        .count();
    assert_eq!(handoffs, 1);
    // Its own traffic on BUS_ENTRY is the two tokens: the start sent, the end received.
    let l = table_ledger(&CpuAir, &t, None, &[]);
    assert!(l.failures.is_empty(), "{:?}", l.failures);
    let entry: Vec<(Vec<Felt>, Felt)> = l
        .buses
        .into_iter()
        .filter(|((b, _), _)| *b == BUS_ENTRY)
        .map(|((_, v), m)| (v, m))
        .collect();
    let mut want = vec![(start.to_vec(), Felt::ONE), (end.to_vec(), -Felt::ONE)];
    want.sort();
    assert_eq!(entry, want);
    assert_ok(&check_segment(&t, &t, &s.boundary()));
}

#[test]
fn a_segment_that_fills_its_table_hands_off_on_the_last_row() {
    let s = run().segment(9..25, 1000, 7);
    let t = s.trace();
    assert_eq!(t.height(), 16);
    assert_eq!(t.row(15)[cpu::HANDOFF], Felt::ONE);
    assert_ok(&check_segment(&t, &t, &s.boundary()));
    // Without the handoff the last row neither exits nor hands off.
    let r = forged(&s, |t| t.row_mut(15)[cpu::HANDOFF] = Felt::ZERO);
    assert_fails(&r, "cpu last real row exits or hands off");
}

#[test]
fn the_last_segment_exits() {
    let s = run().segment(65..STEPS, 2000, 7);
    assert!(!s.records.handoff);
    let t = s.trace();
    assert_eq!(t.row(last_real(&s))[cpu::EXIT], Felt::ONE);
    assert_ok(&check_segment(&t, &t, &s.boundary()));
    // A handoff on the exit row, with the token it would receive supplied.
    let n = last_real(&s);
    let mut b = s.boundary();
    b.push((s.end.to_vec(), -Felt::ONE));
    let mut t2 = t.clone();
    t2.row_mut(n)[cpu::HANDOFF] = Felt::ONE;
    let r = check_segment(&t2, &t2, &b);
    assert_fails(&r, "cpu handoff or exit");
}

#[test]
fn cpu_segment_mutations() {
    let s = middle();
    let rows: Vec<usize> = (0..s.records.len()).collect();
    assert_all_detected(&CpuAir, &s.trace(), None, &[], &rows, 8);
}

#[test]
fn a_handoff_before_the_last_real_row_is_caught() {
    let s = middle();
    let n = last_real(&s);
    // Moved to row 5: the rows after it still run, and the last one ends with neither.
    let r = forged(&s, |t| {
        t.row_mut(n)[cpu::HANDOFF] = Felt::ZERO;
        t.row_mut(5)[cpu::HANDOFF] = Felt::ONE;
    });
    assert_fails(&r, "cpu nothing runs after a handoff");
    assert_fails(&r, "cpu real rows end with exit or handoff");
    // A second one on row 5, followed by a real row.
    let r = forged(&s, |t| t.row_mut(5)[cpu::HANDOFF] = Felt::ONE);
    assert_fails(&r, "cpu nothing runs after a handoff");
}

#[test]
fn a_last_real_row_without_exit_or_handoff_is_caught() {
    let s = middle();
    let n = last_real(&s);
    let r = forged(&s, |t| t.row_mut(n)[cpu::HANDOFF] = Felt::ZERO);
    assert_fails(&r, "cpu real rows end with exit or handoff");
}

#[test]
fn a_handoff_on_padding_is_caught() {
    let s = middle();
    let n = last_real(&s);
    // An extra one on a padding row.
    let r = forged(&s, |t| t.row_mut(25)[cpu::HANDOFF] = Felt::ONE);
    assert_fails(&r, "cpu handoff only on real rows");
    // Moved to the first padding row, one row late.
    let r = forged(&s, |t| {
        t.row_mut(n)[cpu::HANDOFF] = Felt::ZERO;
        t.row_mut(n + 1)[cpu::HANDOFF] = Felt::ONE;
    });
    assert_fails(&r, "cpu handoff only on real rows");
    assert_fails(&r, "cpu real rows end with exit or handoff");
    // A handoff flag that is not a bit.
    let r = forged(&s, |t| t.row_mut(n)[cpu::HANDOFF] = Felt::new(2));
    assert_fails(&r, "cpu handoff boolean");
}

#[test]
fn a_first_row_off_its_token_is_caught() {
    let s = middle();
    // Row 0's clock alone: the clock no longer counts.
    let r = forged(&s, |t| t.row_mut(0)[cpu::CLK] += Felt::ONE);
    assert_fails(&r, "cpu clk increments");
    // Every clock shifted (all of the table's other traffic taken as it is): only the
    // boundary tokens object.
    for shift in [Felt::ONE, -Felt::new(1000)] {
        let r = forged(&s, |t| {
            for row in 0..t.height() {
                t.row_mut(row)[cpu::CLK] += shift;
            }
        });
        assert_entry_unbalanced(&r);
    }
    // Row 0's output position alone, then all of them.
    let r = forged(&s, |t| t.row_mut(0)[cpu::OUTPOS] += Felt::ONE);
    assert_fails(&r, "cpu output position");
    for shift in [Felt::ONE, -Felt::new(7)] {
        let r = forged(&s, |t| {
            for row in 0..t.height() {
                t.row_mut(row)[cpu::OUTPOS] += shift;
            }
        });
        assert_entry_unbalanced(&r);
    }
    // The whole run: a row 0 at clock 1 (every clock shifted) does not meet DECODE's
    // `(0, entry, 0)`.
    let w = run().segment(0..STEPS, 0, 0);
    let r = forged(&w, |t| {
        for row in 0..t.height() {
            t.row_mut(row)[cpu::CLK] += Felt::ONE;
        }
    });
    assert_entry_unbalanced(&r);
}

/// The records' fill agrees with the reference run: clocks from `clk0`, output positions
/// from `outpos0`, `first` on row 0 only, padding continuing the clock and the output
/// position.
#[test]
fn the_fill_places_a_segment() {
    let s = middle();
    let t = s.trace();
    for row in 0..t.height() {
        let r = t.row(row);
        assert_eq!(r[cpu::CLK], Felt::new(1000 + row as u64), "row {row}");
        assert_eq!(r[cpu::FIRST], Felt::from(row == 0), "row {row}");
        assert_eq!(r[cpu::IS_REAL], Felt::from(row < 21), "row {row}");
    }
    // Writes at steps 14, 21, 28 of the run: rows 5, 12, 19.
    let outpos: Vec<u64> = (0..t.height())
        .map(|r| t.row(r)[cpu::OUTPOS].as_u64())
        .collect();
    let want: Vec<u64> = (0..32)
        .map(|r| 7 + PASS_OUT * [5, 12, 19].iter().filter(|&&w| w < r).count() as u64)
        .collect();
    assert_eq!(outpos, want);
}
