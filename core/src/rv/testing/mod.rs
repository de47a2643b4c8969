//! Test harness for ALU tables: a driver table that sends given ALU operations on
//! [`super::BUS_ALU`] (as the CPU would), so a machine of driver + ALU table + BITWISE
//! balances exactly when the ALU table is right.

#[cfg(any(test, feature = "testing"))]
pub mod alu;
#[cfg(any(test, feature = "testing"))]
pub mod cpu;
#[cfg(test)]
pub(crate) mod loadstore;
#[cfg(any(test, feature = "testing"))]
pub mod mem;
#[cfg(any(test, feature = "testing"))]
pub mod mutation;
#[cfg(test)]
pub(crate) mod syscall;

use alloc::vec;
use alloc::vec::Vec;

use super::bitwise::BitwiseAir;
use super::{AluOp, BUS_ALU};
use crate::air::{Air, AirBuilder, Machine, TableAir};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// Columns: `op, a[8], b[8], c[8], m`.
pub struct AluDriverAir;

pub const DRIVER_WIDTH: usize = 26;

impl Air for AluDriverAir {
    fn name(&self) -> &str {
        "ALU_DRIVER"
    }
    fn width(&self) -> usize {
        DRIVER_WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let values: Vec<B::Expr> = (0..25).map(|i| b.main(i)).collect();
        let m = b.main(25);
        b.send(BUS_ALU, m, &values);
    }
}

/// The driver's trace for `ops` (height padded to a power of two ≥ 8 with zero rows).
pub fn driver_trace(ops: &[AluOp]) -> RowMajorMatrix {
    let h = ops.len().next_power_of_two().max(crate::params::MIN_ROWS);
    let mut m = RowMajorMatrix::zeros(h, DRIVER_WIDTH);
    for (i, op) in ops.iter().enumerate() {
        let row = m.row_mut(i);
        row[0] = Felt::from(op.op);
        for k in 0..8 {
            row[1 + k] = Felt::from(op.a.to_le_bytes()[k] as u32);
            row[9 + k] = Felt::from(op.b.to_le_bytes()[k] as u32);
            row[17 + k] = Felt::from(op.c.to_le_bytes()[k] as u32);
        }
        row[25] = Felt::ONE;
    }
    m
}

/// A machine of the driver, one ALU table and BITWISE.
pub struct AluTestMachine<'a> {
    pub table: &'a dyn TableAir,
}

impl Machine for AluTestMachine<'_> {
    fn name(&self) -> &str {
        "alu-test"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&AluDriverAir, self.table, &BitwiseAir]
    }
    fn num_public_values(&self) -> usize {
        0
    }
}
