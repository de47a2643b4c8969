//! The debug checker: evaluates every constraint on every trace row and balances every bus
//! as a multiset, naming the table, row and constraint that fail.
//!
//! [`DebugRow`] is also how the prover reads a row's interactions when it builds the LogUp
//! auxiliary trace.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::logup::signed;
use super::{AirBuilder, ConstraintClass, Direction, Machine, PublicInteraction, TableAir};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// One interaction of one row: values live in the row's flat buffer.
#[derive(Copy, Clone, Debug)]
pub struct RowInteraction {
    pub bus: u32,
    pub direction: Direction,
    pub multiplicity: Felt,
    pub start: usize,
    pub len: usize,
}

/// Evaluates a table on one trace row (base field). Reused across rows.
pub struct DebugRow<'a> {
    pub main: &'a [Felt],
    pub main_next: &'a [Felt],
    pub pre: &'a [Felt],
    pub pre_next: &'a [Felt],
    pub public: &'a [Felt],
    pub is_first: bool,
    pub is_last: bool,
    /// Names of the constraints that do not hold on this row.
    pub failures: Vec<&'static str>,
    pub interactions: Vec<RowInteraction>,
    pub values: Vec<Felt>,
}

impl<'a> DebugRow<'a> {
    pub fn new(public: &'a [Felt]) -> Self {
        DebugRow {
            main: &[],
            main_next: &[],
            pre: &[],
            pre_next: &[],
            public,
            is_first: false,
            is_last: false,
            failures: Vec::new(),
            interactions: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Points the builder at `row` of a table of height `n` (next row wraps around).
    pub fn set_row(
        &mut self,
        main: &'a RowMajorMatrix,
        pre: Option<&'a RowMajorMatrix>,
        row: usize,
        n: usize,
    ) {
        let next = (row + 1) % n;
        self.main = main.row(row);
        self.main_next = main.row(next);
        if let Some(p) = pre {
            self.pre = p.row(row);
            self.pre_next = p.row(next);
        }
        self.is_first = row == 0;
        self.is_last = row + 1 == n;
        self.failures.clear();
        self.interactions.clear();
        self.values.clear();
    }

    pub fn interaction_values(&self, it: &RowInteraction) -> &[Felt] {
        &self.values[it.start..it.start + it.len]
    }
}

impl AirBuilder for DebugRow<'_> {
    type Expr = Felt;

    fn main(&self, col: usize) -> Felt {
        self.main[col]
    }
    fn main_next(&self, col: usize) -> Felt {
        self.main_next[col]
    }
    fn preprocessed(&self, col: usize) -> Felt {
        self.pre[col]
    }
    fn preprocessed_next(&self, col: usize) -> Felt {
        self.pre_next[col]
    }
    fn public(&self, index: usize) -> Felt {
        self.public[index]
    }
    fn constrain(&mut self, class: ConstraintClass, name: &'static str, e: Felt) {
        let applies = match class {
            ConstraintClass::AllRows => true,
            ConstraintClass::Transition => !self.is_last,
            ConstraintClass::FirstRow => self.is_first,
            ConstraintClass::LastRow => self.is_last,
        };
        if applies && e != Felt::ZERO {
            self.failures.push(name);
        }
    }
    fn interact(&mut self, bus: u32, direction: Direction, multiplicity: Felt, values: &[Felt]) {
        self.interactions.push(RowInteraction {
            bus,
            direction,
            multiplicity,
            start: self.values.len(),
            len: values.len(),
        });
        self.values.extend_from_slice(values);
    }
}

/// A constraint that does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintFailure {
    pub table: String,
    pub row: usize,
    pub constraint: &'static str,
}

/// A bus tuple whose sends and receives do not cancel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusImbalance {
    pub bus: u32,
    pub values: Vec<Felt>,
    /// Σ sends − Σ receives.
    pub net: Felt,
    /// (table, row) of the rows that touched this tuple (`public` for the verifier's own).
    pub rows: Vec<(String, Option<usize>)>,
}

/// Everything the checker found; empty means the witness satisfies the AIR.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugReport {
    pub failures: Vec<ConstraintFailure>,
    pub imbalances: Vec<BusImbalance>,
}

/// How many of each finding a report keeps.
const REPORT_LIMIT: usize = 16;

impl DebugReport {
    pub fn is_ok(&self) -> bool {
        self.failures.is_empty() && self.imbalances.is_empty()
    }
}

impl fmt::Display for DebugReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.failures {
            writeln!(
                f,
                "table {}: row {}: constraint `{}` fails",
                c.table, c.row, c.constraint
            )?;
        }
        for b in &self.imbalances {
            write!(
                f,
                "bus {}: tuple {:?} unbalanced by {} (rows:",
                b.bus, b.values, b.net
            )?;
            for (t, r) in b.rows.iter().take(8) {
                match r {
                    Some(r) => write!(f, " {t}[{r}]")?,
                    None => write!(f, " {t}")?,
                }
            }
            if b.rows.len() > 8 {
                write!(f, " …{} more", b.rows.len() - 8)?;
            }
            writeln!(f, ")")?;
        }
        Ok(())
    }
}

type Tuple = (u32, Vec<Felt>);
/// Net multiplicity and the rows that touched a tuple.
type BusLedger = BTreeMap<Tuple, (Felt, Vec<(String, Option<usize>)>)>;

/// Each table's preprocessed trace, as the prover's setup builds it (`None` without one).
pub fn preprocessed_traces(machine: &dyn Machine) -> Vec<Option<RowMajorMatrix>> {
    machine
        .tables()
        .into_iter()
        .map(|t| {
            t.preprocessed_trace()
                .filter(|_| t.preprocessed_width() > 0)
                .map(|(values, _)| RowMajorMatrix::new(values, t.preprocessed_width()))
        })
        .collect()
}

/// Checks every table's constraints on every row and every bus's balance.
///
/// `traces[i]` is table `i`'s main trace; `preprocessed[i]` its preprocessed trace, if any.
pub fn check_machine(
    machine: &dyn Machine,
    traces: &[&RowMajorMatrix],
    preprocessed: &[Option<RowMajorMatrix>],
    public: &[Felt],
) -> DebugReport {
    let mut report = DebugReport::default();
    let mut buses = BusLedger::new();
    for (t, table) in machine.tables().into_iter().enumerate() {
        let (Some(main), Some(pre)) = (traces.get(t), preprocessed.get(t)) else {
            break;
        };
        check_table(table, main, pre.as_ref(), public, &mut report, &mut buses);
    }
    settle(machine, public, buses, &mut report);
    report
}

/// Checks a proof made of parts (the segments and the run part of a segmented run): each
/// part's tables' constraints on every row, and every bus's balance over all the parts'
/// rows together with the public interactions — the parts share the buses, so a token one
/// part sends may be received in another.
///
/// `parts[p]` lists part `p`'s tables as `(i, trace)`: table `i` of
/// [`Machine::tables`] (its preprocessed trace `preprocessed[i]`, if any) and its main
/// trace. A table may appear in several parts, each time with its own trace.
///
/// # Panics
/// If a part names a table the machine (or `preprocessed`) does not have.
pub fn check_parts(
    machine: &dyn Machine,
    parts: &[Vec<(usize, &RowMajorMatrix)>],
    preprocessed: &[Option<RowMajorMatrix>],
    public: &[Felt],
) -> DebugReport {
    let mut report = DebugReport::default();
    let mut buses = BusLedger::new();
    let tables = machine.tables();
    for &(t, main) in parts.iter().flatten() {
        let pre = preprocessed[t].as_ref();
        check_table(tables[t], main, pre, public, &mut report, &mut buses);
    }
    settle(machine, public, buses, &mut report);
    report
}

/// Adds the machine's public interactions to `buses`, then reports the tuples whose sends
/// and receives do not cancel.
fn settle(machine: &dyn Machine, public: &[Felt], mut buses: BusLedger, report: &mut DebugReport) {
    for PublicInteraction {
        bus,
        direction,
        multiplicity,
        values,
    } in machine.public_interactions(public)
    {
        let e = buses
            .entry((bus, values))
            .or_insert((Felt::ZERO, Vec::new()));
        e.0 += signed(direction, multiplicity);
        e.1.push((String::from("public"), None));
    }
    for ((bus, values), (net, rows)) in buses {
        if net != Felt::ZERO && report.imbalances.len() < REPORT_LIMIT {
            report.imbalances.push(BusImbalance {
                bus,
                values,
                net,
                rows,
            });
        }
    }
}

fn check_table(
    table: &dyn TableAir,
    main: &RowMajorMatrix,
    pre: Option<&RowMajorMatrix>,
    public: &[Felt],
    report: &mut DebugReport,
    buses: &mut BusLedger,
) {
    let n = main.height();
    let mut b = DebugRow::new(public);
    for row in 0..n {
        b.set_row(main, pre, row, n);
        table.eval_debug(&mut b);
        for &name in &b.failures {
            if report.failures.len() < REPORT_LIMIT {
                report.failures.push(ConstraintFailure {
                    table: String::from(table.name()),
                    row,
                    constraint: name,
                });
            }
        }
        for it in &b.interactions {
            if it.multiplicity == Felt::ZERO {
                continue;
            }
            let key = (it.bus, b.interaction_values(it).to_vec());
            let e = buses.entry(key).or_insert((Felt::ZERO, Vec::new()));
            e.0 += signed(it.direction, it.multiplicity);
            if e.1.len() < 64 {
                e.1.push((String::from(table.name()), Some(row)));
            }
        }
    }
}

/// One table checked on its own: the constraints that fail (row, name) and the net bus
/// traffic it produces (Σ sends − Σ receives per `(bus, tuple)`, zero entries dropped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableLedger {
    pub failures: Vec<(usize, &'static str)>,
    pub buses: BTreeMap<Tuple, Felt>,
}

/// [`TableLedger`] of `main` (with its preprocessed trace, if any).
///
/// Two traces of a table with equal ledgers are interchangeable in any machine: the rest of
/// the machine cannot tell them apart. So a mutation of an honest trace is *detected* exactly
/// when the mutated ledger has a failure or differs from the honest one — the mutation suites
/// test each table this way, in isolation.
pub fn table_ledger(
    table: &dyn TableAir,
    main: &RowMajorMatrix,
    pre: Option<&RowMajorMatrix>,
    public: &[Felt],
) -> TableLedger {
    let n = main.height();
    let mut out = TableLedger::default();
    let mut b = DebugRow::new(public);
    for row in 0..n {
        b.set_row(main, pre, row, n);
        table.eval_debug(&mut b);
        out.failures.extend(b.failures.iter().map(|&f| (row, f)));
        for it in &b.interactions {
            let key = (it.bus, b.interaction_values(it).to_vec());
            *out.buses.entry(key).or_insert(Felt::ZERO) += signed(it.direction, it.multiplicity);
        }
    }
    out.buses.retain(|_, v| *v != Felt::ZERO);
    out
}
