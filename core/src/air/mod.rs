//! The AIR framework: constraints and LogUp interactions written once, against
//! [`AirBuilder`], and run by four builders:
//!
//! - [`ProverFolder`]: base field, one LDE row at a time (quotient evaluation);
//! - [`VerifierFolder`]: extension field, at the out-of-domain point;
//! - [`SymbolicBuilder`]: degrees and an expression DAG (for checks and GPU evaluation);
//! - [`debug::DebugChecker`]: names the failing table, row and constraint, and reports
//!   unbalanced buses with the rows that caused them.
//!
//! A table declares its interactions (bus, multiplicity, values, send or receive) in the
//! same `eval` as its constraints. The framework adds the LogUp constraints itself: two
//! interactions per auxiliary extension column `h = s_a·m_a/f_a + s_b·m_b/f_b` with
//! fingerprints `f = β − (bus + α·v1 + α²·v2 + …)`, and one running-sum column whose last
//! value is the table's total, carried in the proof.

mod builder;
pub mod columns;
#[cfg(feature = "trace")]
pub mod debug;
pub mod examples;
#[cfg(feature = "trace")]
mod folder;
pub mod logup;
pub mod symbolic;
mod verifier_folder;

pub use builder::{AirBuilder, Direction};
#[cfg(feature = "trace")]
pub use folder::ProverFolder;
pub use symbolic::{ShapeError, SymbolicBuilder, TableShape};
pub use verifier_folder::VerifierFolder;

use alloc::vec::Vec;

use crate::field::{Ext3, Felt};

/// Which rows a constraint applies to; each class has its own vanishing polynomial.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConstraintClass {
    /// Every row: divided by `x^n − 1`.
    AllRows,
    /// Every row but the last (may read the next row): divided by `(x^n − 1)/(x − ω^{n−1})`.
    Transition,
    /// The first row: divided by `x − 1`.
    FirstRow,
    /// The last row: divided by `x − ω^{n−1}`.
    LastRow,
}

/// One table's constraints and interactions, written once for every builder.
pub trait Air: Sync {
    /// The table's name (DESIGN.md's names for VM tables), used in errors and stats.
    fn name(&self) -> &str;
    /// Number of main (witness) columns.
    fn width(&self) -> usize;
    /// Number of preprocessed columns, fixed by the AIR and bound to the verifying key.
    fn preprocessed_width(&self) -> usize {
        0
    }
    /// The preprocessed trace, row-major, and its log height; `None` without one.
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        None
    }
    /// The constraint and interaction body.
    fn eval<B: AirBuilder>(&self, b: &mut B);
}

/// Object-safe view of an [`Air`], implemented for every `Air`; a machine is a list of these.
///
/// The prover's and the debug checker's evaluators exist only with the `trace` feature: a
/// trait object's vtable links every method it has, so without `trace` (the verifier's
/// build) the tables' vtables hold only what the verifier calls.
pub trait TableAir: Sync {
    fn name(&self) -> &str;
    fn width(&self) -> usize;
    fn preprocessed_width(&self) -> usize;
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)>;
    #[cfg(feature = "trace")]
    fn eval_prover(&self, b: &mut ProverFolder<'_>);
    fn eval_verifier(&self, b: &mut VerifierFolder<'_>);
    fn eval_symbolic(&self, b: &mut SymbolicBuilder);
    #[cfg(feature = "trace")]
    fn eval_debug(&self, b: &mut debug::DebugRow<'_>);
}

impl<A: Air> TableAir for A {
    fn name(&self) -> &str {
        Air::name(self)
    }
    fn width(&self) -> usize {
        Air::width(self)
    }
    fn preprocessed_width(&self) -> usize {
        Air::preprocessed_width(self)
    }
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        Air::preprocessed_trace(self)
    }
    #[cfg(feature = "trace")]
    fn eval_prover(&self, b: &mut ProverFolder<'_>) {
        self.eval(b)
    }
    fn eval_verifier(&self, b: &mut VerifierFolder<'_>) {
        self.eval(b)
    }
    fn eval_symbolic(&self, b: &mut SymbolicBuilder) {
        self.eval(b)
    }
    #[cfg(feature = "trace")]
    fn eval_debug(&self, b: &mut debug::DebugRow<'_>) {
        self.eval(b)
    }
}

/// An interaction fixed by the public values, whose bus contribution the verifier computes
/// itself (for example the public output bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicInteraction {
    pub bus: u32,
    pub direction: Direction,
    pub multiplicity: Felt,
    pub values: Vec<Felt>,
}

/// A statement: its tables (in proof order) and how its public values enter the buses.
pub trait Machine: Sync {
    /// Identifies the statement in the transcript and the verifying key.
    fn name(&self) -> &str;
    fn tables(&self) -> Vec<&dyn TableAir>;
    /// How many public values a statement carries; proofs with another count are rejected.
    fn num_public_values(&self) -> usize;
    /// Whether a statement may carry `n` public values. Constraints read only the first
    /// [`Machine::num_public_values`]; a machine may accept more (e.g. public output that
    /// only [`Machine::public_interactions`] reads).
    fn public_len_ok(&self, n: usize) -> bool {
        n == self.num_public_values()
    }
    /// Interactions the verifier adds to the buses from the public values.
    fn public_interactions(&self, _public: &[Felt]) -> Vec<PublicInteraction> {
        Vec::new()
    }
    /// How the machine's tables split for a segmented run (`None`: it proves in one
    /// proof only).
    fn segment_layout(&self) -> Option<SegmentLayout> {
        None
    }
}

/// How a segmented run splits a machine's tables ([`Machine::segment_layout`]): each
/// segment proves the `segment` tables, one run part proves the `run` tables, all
/// sharing the LogUp challenges. Indices are into [`Machine::tables`], in table order;
/// together the two lists are every table once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentLayout {
    pub segment: Vec<usize>,
    pub run: Vec<usize>,
    /// The segment table with one row per cycle (its real rows are the segment's cycles):
    /// the verifier bounds the run's length by its heights.
    pub clock: usize,
}

/// The LogUp challenges drawn after the main commitments.
#[derive(Copy, Clone, Debug)]
pub struct LogUpChallenges {
    pub alpha: Ext3,
    pub beta: Ext3,
}

/// Accumulates `Σ γ^k · c_k` per [`ConstraintClass`], shared by both folders.
pub struct ConstraintAccumulator<'a> {
    gamma_powers: &'a [Ext3],
    next: usize,
    /// Indexed by class: all rows, transition, first row, last row.
    pub acc: [Ext3; 4],
}

impl<'a> ConstraintAccumulator<'a> {
    pub fn new(gamma_powers: &'a [Ext3]) -> Self {
        ConstraintAccumulator {
            gamma_powers,
            next: 0,
            acc: [Ext3::ZERO; 4],
        }
    }

    #[inline(always)]
    fn power(&mut self) -> Ext3 {
        // The caller sizes `gamma_powers` from the table's shape; a shorter slice means the
        // AIR emitted more constraints than its shape says, which the folders treat as zero
        // weight and the shape check rejects beforehand.
        let p = self
            .gamma_powers
            .get(self.next)
            .copied()
            .unwrap_or(Ext3::ZERO);
        self.next += 1;
        p
    }

    #[inline(always)]
    pub fn add_base(&mut self, class: ConstraintClass, c: Felt) {
        let p = self.power();
        self.acc[class as usize] += p * c;
    }

    #[inline(always)]
    pub fn add_ext(&mut self, class: ConstraintClass, c: Ext3) {
        let p = self.power();
        self.acc[class as usize] += p * c;
    }

    /// Starts a new row.
    #[inline(always)]
    pub fn reset(&mut self) {
        self.next = 0;
        self.acc = [Ext3::ZERO; 4];
    }

    /// Number of constraints seen so far.
    pub fn count(&self) -> usize {
        self.next
    }
}

/// The values every zerofier needs at one point `x` of a table with trace generator `ω`.
#[derive(Copy, Clone, Debug)]
pub struct ZerofierInverses<F> {
    /// `1 / (x^n − 1)`.
    pub inv_zh: F,
    /// `x − ω^{n−1}`.
    pub x_minus_last: F,
    /// `1 / (x − 1)`.
    pub inv_first: F,
    /// `1 / (x − ω^{n−1})`.
    pub inv_last: F,
}

/// Divides the accumulated constraints by their vanishing polynomials and sums them.
#[inline(always)]
pub fn combine_quotient(acc: &[Ext3; 4], z: &ZerofierInverses<Ext3>) -> Ext3 {
    (acc[0] + acc[1] * z.x_minus_last) * z.inv_zh + acc[2] * z.inv_first + acc[3] * z.inv_last
}

/// As [`combine_quotient`], with zerofiers in the base field (prover, LDE points).
#[inline(always)]
pub fn combine_quotient_base(acc: &[Ext3; 4], z: &ZerofierInverses<Felt>) -> Ext3 {
    (acc[0] + acc[1] * z.x_minus_last) * z.inv_zh + acc[2] * z.inv_first + acc[3] * z.inv_last
}

/// Some of a machine's tables, as a machine of their own: one part of a segmented run
/// ([`SegmentLayout`]). Its name and public values are the machine's; it adds no public
/// interactions (a segmented run accounts them once, not per part).
pub struct Part<'a> {
    pub machine: &'a dyn Machine,
    /// Indices into the machine's tables, in table order.
    pub tables: &'a [usize],
}

impl Machine for Part<'_> {
    fn name(&self) -> &str {
        self.machine.name()
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        let all = self.machine.tables();
        self.tables
            .iter()
            .filter_map(|&t| all.get(t).copied())
            .collect()
    }
    fn num_public_values(&self) -> usize {
        self.machine.num_public_values()
    }
    fn public_len_ok(&self, n: usize) -> bool {
        self.machine.public_len_ok(n)
    }
}
