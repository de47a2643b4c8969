//! The debug checker names the table, row and constraint that fail and the bus tuples that
//! do not balance; the prover refuses a witness that violates a constraint, and a proof of
//! a witness whose buses do not balance does not verify.

use std::collections::BTreeMap;

use kestrel_core::air::debug::{check_machine, BusImbalance, DebugReport};
use kestrel_core::air::examples::{
    fibonacci_trace, range_check_traces, FibonacciMachine, RangeCheckMachine, BYTE_BUS,
};
use kestrel_core::air::Machine;
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup, ProverError};
use kestrel_verifier::{verify, VerifyError};

const FIB_LOG_N: u32 = 5;
const SENDER_LOG_N: u32 = 6;
const PUBLIC_BYTE: u8 = 200;

/// Each table's preprocessed trace, as `setup` builds it.
fn preprocessed(machine: &dyn Machine) -> Vec<Option<RowMajorMatrix>> {
    kestrel_core::air::debug::preprocessed_traces(machine)
}

fn check(machine: &dyn Machine, traces: &[RowMajorMatrix], public: &[Felt]) -> DebugReport {
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(machine, &refs, &preprocessed(machine), public)
}

fn fib() -> (RowMajorMatrix, Vec<Felt>) {
    let (trace, result) = fibonacci_trace(FIB_LOG_N, Felt::ONE, Felt::ONE);
    (trace, vec![Felt::ONE, Felt::ONE, result])
}

fn range() -> ([RowMajorMatrix; 2], Vec<Felt>) {
    (
        range_check_traces(SENDER_LOG_N, 11, PUBLIC_BYTE),
        vec![Felt::from(PUBLIC_BYTE as u32)],
    )
}

/// `(table, row)` as the report lists them.
fn at(table: &str, row: usize) -> (String, Option<usize>) {
    (table.to_string(), Some(row))
}

/// The report's imbalances as `(bus, values) → net`.
fn nets(report: &DebugReport) -> BTreeMap<(u32, Vec<Felt>), Felt> {
    report
        .imbalances
        .iter()
        .map(|b| ((b.bus, b.values.clone()), b.net))
        .collect()
}

fn imbalance<'a>(report: &'a DebugReport, bus: u32, values: &[Felt]) -> &'a BusImbalance {
    report
        .imbalances
        .iter()
        .find(|b| b.bus == bus && b.values == values)
        .unwrap_or_else(|| panic!("no imbalance for bus {bus} {values:?} in:\n{report}"))
}

#[test]
fn valid_witnesses_give_an_empty_report() {
    let (trace, public) = fib();
    let r = check(&FibonacciMachine, &[trace], &public);
    assert!(r.is_ok(), "fibonacci:\n{r}");
    assert_eq!(r, DebugReport::default());
    assert_eq!(r.to_string(), "");

    let (traces, public) = range();
    let r = check(&RangeCheckMachine, &traces, &public);
    assert!(r.is_ok(), "range check:\n{r}");
    assert_eq!(r, DebugReport::default());
}

/// One cell of the Fibonacci trace changed: `a` at row 5. Row 4's `a' = b` and row 5's
/// `b' = a + b` read it; nothing else does.
#[test]
fn violated_constraint_is_named() {
    let (mut trace, public) = fib();
    trace.row_mut(5)[0] += Felt::ONE;
    let r = check(&FibonacciMachine, &[trace.clone()], &public);
    let found: Vec<(&str, usize, &str)> = r
        .failures
        .iter()
        .map(|c| (c.table.as_str(), c.row, c.constraint))
        .collect();
    assert_eq!(
        found,
        vec![("FIB", 4, "fib a' = b"), ("FIB", 5, "fib b' = a + b")],
        "report:\n{r}"
    );
    assert!(r.imbalances.is_empty(), "no buses in fibonacci:\n{r}");
    assert!(!r.is_ok());
    let text = r.to_string();
    for line in [
        "table FIB: row 4: constraint `fib a' = b` fails",
        "table FIB: row 5: constraint `fib b' = a + b` fails",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }

    // The last row's boundary constraint, with the result changed in the public values.
    let (trace0, mut wrong) = fib();
    wrong[2] += Felt::ONE;
    let r = check(&FibonacciMachine, &[trace0], &wrong);
    let last = (1 << FIB_LOG_N) - 1;
    assert_eq!(r.failures.len(), 1, "report:\n{r}");
    assert_eq!(
        (
            r.failures[0].table.as_str(),
            r.failures[0].row,
            r.failures[0].constraint
        ),
        ("FIB", last, "fib result is pub2")
    );
    assert!(
        r.to_string().contains(&format!(
            "table FIB: row {last}: constraint `fib result is pub2` fails"
        )),
        "{r}"
    );

    // The prover refuses the witness: the quotient is not a polynomial.
    for params in [StarkParams::BLOWUP_2, StarkParams::BLOWUP_8] {
        let pk = setup(&CpuBackend, &FibonacciMachine, params).unwrap();
        let Err(err) = prove(
            &CpuBackend,
            &pk,
            &FibonacciMachine,
            &[trace.clone()],
            &public,
        ) else {
            panic!("{params:?}: a trace violating a constraint must not prove");
        };
        assert!(
            matches!(&err, ProverError::ConstraintsNotSatisfied { table } if table == "FIB"),
            "{params:?}: expected ConstraintsNotSatisfied {{ table: FIB }}, got {err:?} ({err})"
        );
    }
}

/// `z ≠ x + y` in a selected sender row: the constraint is named, and the changed `z` is
/// also an imbalance on the byte bus.
#[test]
fn sender_constraint_violation_is_named() {
    let (mut traces, public) = range();
    let z = traces[0].row(2)[2];
    traces[0].row_mut(2)[2] = z + Felt::ONE;
    let r = check(&RangeCheckMachine, &traces, &public);
    assert_eq!(r.failures.len(), 1, "report:\n{r}");
    let c = &r.failures[0];
    assert_eq!(
        (c.table.as_str(), c.row, c.constraint),
        ("SENDER", 2, "sender z = x + y")
    );
    assert!(
        r.to_string()
            .contains("table SENDER: row 2: constraint `sender z = x + y` fails"),
        "{r}"
    );
    assert!(!r.imbalances.is_empty(), "{r}");

    let pk = setup(&CpuBackend, &RangeCheckMachine, StarkParams::BLOWUP_4).unwrap();
    let Err(err) = prove(&CpuBackend, &pk, &RangeCheckMachine, &traces, &public) else {
        panic!("a trace violating a constraint must not prove");
    };
    assert!(
        matches!(&err, ProverError::ConstraintsNotSatisfied { table } if table == "SENDER"),
        "expected ConstraintsNotSatisfied {{ table: SENDER }}, got {err:?} ({err})"
    );
}

/// Proves an unbalanced witness and checks that it is not accepted: either the prover
/// refuses it or the verifier rejects the proof at the LogUp sum.
fn unbalanced_is_not_provable(traces: &[RowMajorMatrix], public: &[Felt], case: &str) {
    let pk = setup(&CpuBackend, &RangeCheckMachine, StarkParams::BLOWUP_4).unwrap();
    match prove(&CpuBackend, &pk, &RangeCheckMachine, traces, public) {
        Err(e) => eprintln!("{case}: the prover refused the unbalanced witness: {e}"),
        Ok((proof, _)) => {
            let err = verify(&RangeCheckMachine, &pk.vk, public, &proof.to_bytes())
                .expect_err("a proof of an unbalanced bus must not verify");
            assert!(
                matches!(err, VerifyError::LogUpSum),
                "{case}: expected LogUpSum, got {err:?} ({err})"
            );
        }
    }
}

/// One range-table multiplicity bumped: the byte is received once more than it is sent.
#[test]
fn bumped_multiplicity_is_an_imbalance() {
    let (mut traces, public) = range();
    let v = 17usize;
    traces[1].row_mut(v)[0] += Felt::ONE;
    let r = check(&RangeCheckMachine, &traces, &public);
    assert!(r.failures.is_empty(), "no constraint reads m alone:\n{r}");
    let byte = Felt::from(v as u32);
    assert_eq!(
        nets(&r),
        BTreeMap::from([((BYTE_BUS, vec![byte]), -Felt::ONE)]),
        "report:\n{r}"
    );
    let b = imbalance(&r, BYTE_BUS, &[byte]);
    // The rows that touched the tuple: every sender row that sent 17, and row 17 of the
    // range table.
    let mut expected = Vec::new();
    let sender = &traces[0];
    for row in 0..sender.height() {
        let vals = sender.row(row);
        if vals[3] == Felt::ONE {
            for v in &vals[..3] {
                if *v == byte {
                    expected.push(at("SENDER", row));
                }
            }
        }
    }
    expected.push(at("BYTE_RANGE", v));
    assert_eq!(b.rows, expected, "report:\n{r}");
    let text = r.to_string();
    assert!(
        text.contains(&format!(
            "bus {BYTE_BUS}: tuple [{v}] unbalanced by {}",
            -Felt::ONE
        )),
        "{text}"
    );
    assert!(text.contains(&format!("BYTE_RANGE[{v}]")), "{text}");

    unbalanced_is_not_provable(&traces, &public, "bumped multiplicity");
}

/// A selected sender row sends a value outside the byte range, `z = x + y` still holding:
/// no constraint fails, and the tuples that changed are reported with the row.
#[test]
fn out_of_range_send_is_an_imbalance() {
    let (mut traces, public) = range();
    let row = 4;
    let [x, y, z, sel] = <[Felt; 4]>::try_from(traces[0].row(row)).unwrap();
    assert_eq!(sel, Felt::ONE, "even rows are selected");
    let x_new = Felt::from(300u32);
    let z_new = x_new + y;
    traces[0]
        .row_mut(row)
        .copy_from_slice(&[x_new, y, z_new, sel]);

    let r = check(&RangeCheckMachine, &traces, &public);
    assert!(r.failures.is_empty(), "z = x + y still holds:\n{r}");
    // Expected: x and z lose a send, 300 and 300 + y gain one.
    let mut want: BTreeMap<(u32, Vec<Felt>), Felt> = BTreeMap::new();
    for (v, d) in [
        (x, -Felt::ONE),
        (z, -Felt::ONE),
        (x_new, Felt::ONE),
        (z_new, Felt::ONE),
    ] {
        *want.entry((BYTE_BUS, vec![v])).or_default() += d;
    }
    want.retain(|_, n| *n != Felt::ZERO);
    assert_eq!(nets(&r), want, "report:\n{r}");
    // The out-of-range values are touched only by this row.
    for v in [x_new, z_new] {
        let b = imbalance(&r, BYTE_BUS, &[v]);
        assert_eq!(b.net, Felt::ONE);
        assert_eq!(b.rows, vec![at("SENDER", row)], "report:\n{r}");
    }
    let text = r.to_string();
    for v in [x_new, z_new] {
        let line = format!("bus {BYTE_BUS}: tuple [{v}] unbalanced by 1 (rows: SENDER[{row}])");
        assert!(text.contains(&line), "missing {line:?} in:\n{text}");
    }

    unbalanced_is_not_provable(&traces, &public, "out-of-range send");
}

/// A public value the trace did not receive: the verifier's own send is named `public`.
#[test]
fn wrong_public_value_is_an_imbalance() {
    let (traces, _) = range();
    let public = [Felt::from(PUBLIC_BYTE as u32 + 1)];
    let r = check(&RangeCheckMachine, &traces, &public);
    assert!(r.failures.is_empty(), "{r}");
    let proved = imbalance(&r, BYTE_BUS, &[Felt::from(PUBLIC_BYTE as u32)]);
    assert_eq!(proved.net, -Felt::ONE, "{r}");
    let claimed = imbalance(&r, BYTE_BUS, &public);
    assert_eq!(claimed.net, Felt::ONE, "{r}");
    assert!(claimed.rows.contains(&("public".to_string(), None)), "{r}");
    assert!(r.to_string().contains(" public"), "{r}");
}
