//! The builder trait every table's `eval` is written against.

use core::ops::{Add, Mul, Neg, Sub};

use serde::{Deserialize, Serialize};

use super::ConstraintClass;
use crate::field::Felt;

/// Whether an interaction adds (`Send`, +m) or removes (`Receive`, −m) its tuple from a bus.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    Send,
    Receive,
}

/// What a table's constraints can read and assert.
///
/// Column reads return the local row (`main`) or the next row (`main_next`); reading the
/// next row is only meaningful in [`ConstraintClass::Transition`] constraints.
pub trait AirBuilder {
    /// An expression over the builder's field (base for the prover, extension for the
    /// verifier, a DAG node for the symbolic builder).
    type Expr: Clone
        + From<Felt>
        + Add<Output = Self::Expr>
        + Sub<Output = Self::Expr>
        + Mul<Output = Self::Expr>
        + Neg<Output = Self::Expr>
        + Add<Felt, Output = Self::Expr>
        + Sub<Felt, Output = Self::Expr>
        + Mul<Felt, Output = Self::Expr>;

    fn main(&self, col: usize) -> Self::Expr;
    fn main_next(&self, col: usize) -> Self::Expr;
    fn preprocessed(&self, col: usize) -> Self::Expr;
    fn preprocessed_next(&self, col: usize) -> Self::Expr;
    fn public(&self, index: usize) -> Self::Expr;

    /// Asserts `e = 0` on the rows of `class`; `name` identifies it in debug reports.
    fn constrain(&mut self, class: ConstraintClass, name: &'static str, e: Self::Expr);

    /// Adds `(bus, values)` to a bus with the given multiplicity. Multiplicity and values
    /// must have degree ≤ 1 so the LogUp constraint stays within degree 3.
    fn interact(
        &mut self,
        bus: u32,
        direction: Direction,
        multiplicity: Self::Expr,
        values: &[Self::Expr],
    );

    fn assert_zero(&mut self, name: &'static str, e: Self::Expr) {
        self.constrain(ConstraintClass::AllRows, name, e)
    }
    fn assert_transition(&mut self, name: &'static str, e: Self::Expr) {
        self.constrain(ConstraintClass::Transition, name, e)
    }
    fn assert_first(&mut self, name: &'static str, e: Self::Expr) {
        self.constrain(ConstraintClass::FirstRow, name, e)
    }
    fn assert_last(&mut self, name: &'static str, e: Self::Expr) {
        self.constrain(ConstraintClass::LastRow, name, e)
    }
    /// `e ∈ {0, 1}` on every row.
    fn assert_bool(&mut self, name: &'static str, e: Self::Expr) {
        self.assert_zero(name, e.clone() * (e - Felt::ONE))
    }
    fn send(&mut self, bus: u32, multiplicity: Self::Expr, values: &[Self::Expr]) {
        self.interact(bus, Direction::Send, multiplicity, values)
    }
    fn receive(&mut self, bus: u32, multiplicity: Self::Expr, values: &[Self::Expr]) {
        self.interact(bus, Direction::Receive, multiplicity, values)
    }
}
