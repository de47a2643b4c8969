//! EQ: one row per distinct `(a, b)` of [`ALU_EQ`] (BEQ/BNE compares), received on
//! [`super::BUS_ALU`] with a multiplicity column.
//!
//! # Design
//!
//! `c = [1 − neq, 0, 0, 0, 0, 0, 0, 0]`. With byte inputs, `s = Σᵢ (aᵢ − bᵢ)²` is an integer
//! below `8·255² ≪ p`, zero exactly when `a = b`. The constraints
//!
//! - `(1 − neq)·s = 0` (a difference forces `neq = 1`),
//! - `neq·(s·inv − 1) = 0` (`s = 0` forces `neq = 0`; otherwise `inv = 1/s`),
//! - `(1 − neq)·inv = 0` (no free `inv` on equal rows),
//!
//! fix `neq` and `inv`; `s` is a column so the second stays at degree 3. An all-zero row
//! (padding, `m = 0`) satisfies them. EQ makes no byte lookups: it only reads its inputs.

use super::{ALU_EQ, BUS_ALU};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

crate::columns! {
    /// EQ's columns.
    pub struct EqCols {
        a[8],
        b[8],
        /// `s = Σ (aᵢ − bᵢ)²`.
        s,
        /// `1` when `a ≠ b`; the result is `1 − neq`.
        neq,
        /// `1/s` when `a ≠ b`, else 0.
        inv,
        /// How many times the CPU dispatched this row's operation.
        m,
    }
}

/// Column indices (for tests), from [`EqCols`].
pub const A: usize = col!(EqCols, a);
pub const B: usize = col!(EqCols, b);
pub const S: usize = col!(EqCols, s);
pub const NEQ: usize = col!(EqCols, neq);
pub const INV: usize = col!(EqCols, inv);
pub const M: usize = col!(EqCols, m);
/// Main columns.
pub const WIDTH: usize = <EqCols<u8> as Columns<u8>>::WIDTH;

/// The EQ table.
pub struct EqAir;

impl Air for EqAir {
    fn name(&self) -> &str {
        "EQ"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let k = |v: u32| B::Expr::from(Felt::from(v));
        let c: EqCols<B::Expr> = EqCols::from_fn(|i| b.main(i));
        let (s, neq, inv) = (c.s.clone(), c.neq.clone(), c.inv.clone());
        let mut sum = k(0);
        for i in 0..8 {
            let d = c.a[i].clone() - c.b[i].clone();
            sum = sum + d.clone() * d;
        }
        b.assert_zero("eq s = Σ (a − b)²", s.clone() - sum);
        b.assert_zero("eq equal rows have s = 0", (k(1) - neq.clone()) * s.clone());
        b.assert_zero(
            "eq unequal rows have s·inv = 1",
            neq.clone() * (s * inv.clone() - k(1)),
        );
        b.assert_zero("eq equal rows have inv = 0", (k(1) - neq.clone()) * inv);

        let mut values = alloc::vec![k(ALU_EQ)];
        values.extend(c.a.iter().cloned());
        values.extend(c.b.iter().cloned());
        values.push(k(1) - neq);
        values.extend((1..8).map(|_| k(0)));
        b.receive(BUS_ALU, c.m, &values);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
