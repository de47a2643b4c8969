//! The ALU tables the machine includes.

use kestrel_core::rv::machine::AluTable;

/// Every ALU table, in proof order.
pub fn alu_tables() -> Vec<Box<dyn AluTable>> {
    Vec::new()
}
