//! REGISTER: one row per architectural register. Emits each register's initial token
//! `(reg, init, 0)` — `sp` starts at [`INITIAL_SP`], every other register at 0, fixed in the
//! preprocessed trace and so bound to the verifying key — and consumes its final token.

use alloc::vec::Vec;

use super::memw_r::RegFile;
use super::BUS_REG;
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// `sp` at entry: the top of the stack in the executor's memory map.
pub const INITIAL_SP: u64 = 0xC000_0000;

/// Initial register values.
pub fn initial_registers() -> [u64; 32] {
    let mut r = [0u64; 32];
    r[2] = INITIAL_SP;
    r
}

/// Main columns: final value bytes, final timestamp.
pub const WIDTH: usize = 9;
/// Preprocessed: register index, initial value bytes.
pub const PRE_WIDTH: usize = 9;

/// The REGISTER table.
pub struct RegisterAir;

impl Air for RegisterAir {
    fn name(&self) -> &str {
        "REGISTER"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn preprocessed_width(&self) -> usize {
        PRE_WIDTH
    }
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        let init = initial_registers();
        let mut v = Vec::with_capacity(32 * PRE_WIDTH);
        for (r, val) in init.iter().enumerate() {
            v.push(Felt::from(r as u32));
            v.extend(val.to_le_bytes().map(|x| Felt::from(x as u32)));
        }
        Some((v, 5))
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let one = B::Expr::from(Felt::ONE);
        let mut init: Vec<B::Expr> = (0..PRE_WIDTH).map(|i| b.preprocessed(i)).collect();
        init.push(B::Expr::from(Felt::ZERO));
        b.send(BUS_REG, one.clone(), &init);
        let mut fin = Vec::with_capacity(10);
        fin.push(b.preprocessed(0));
        fin.extend((0..WIDTH).map(|i| b.main(i)));
        b.receive(BUS_REG, one, &fin);
    }
}

/// REGISTER's main trace from the final register state.
pub fn build_trace(file: &RegFile) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(32, WIDTH);
    for r in 0..32 {
        let row = m.row_mut(r);
        for (cell, byte) in row.iter_mut().zip(file.values[r].to_le_bytes()) {
            *cell = Felt::from(byte as u32);
        }
        row[8] = Felt::new(file.ts[r]);
    }
    m
}
