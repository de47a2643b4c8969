//! REGISTER: one row per register of the memory argument — the 32 architectural registers
//! and the three of the program break ([`REG_BRK`], [`REG_HEAP_LIMIT`],
//! [`REG_HEAP_START`]). Emits each register's initial token `(reg, init, 0)` and consumes its
//! final token. Initial values are preprocessed and so bound to the verifying key: `sp`
//! starts at [`INITIAL_SP`], the break registers at the program's heap bounds, every other
//! register at 0. Rows past the last register are padding (preprocessed `real` = 0).

use alloc::vec::Vec;

use super::decode::ProgramImage;
use super::memw_r::RegFile;
use super::{BUS_REG, NUM_REGS, REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// `sp` at entry: the top of the stack in the executor's memory map.
pub const INITIAL_SP: u64 = 0xC000_0000;

/// log2 of the table height (rows for [`NUM_REGS`] registers).
pub const LOG_HEIGHT: u32 = 6;
const HEIGHT: usize = 1 << LOG_HEIGHT;
const _: () = assert!(NUM_REGS <= HEIGHT);

/// Initial values of the registers of `program`.
pub fn initial_registers(program: &ProgramImage) -> [u64; NUM_REGS] {
    let mut r = [0u64; NUM_REGS];
    r[2] = INITIAL_SP;
    r[REG_BRK as usize] = program.heap_start as u64;
    r[REG_HEAP_LIMIT as usize] = program.heap_limit as u64;
    r[REG_HEAP_START as usize] = program.heap_start as u64;
    r
}

/// Main columns: final value bytes, final timestamp.
pub const WIDTH: usize = 9;
/// Preprocessed: register index, initial value bytes, real.
pub const PRE_WIDTH: usize = 10;

/// The REGISTER table of one program (the verifier's instance carries no trace).
pub struct RegisterAir {
    init: Option<[u64; NUM_REGS]>,
}

impl RegisterAir {
    /// The table for `program`.
    pub fn new(program: &ProgramImage) -> RegisterAir {
        RegisterAir {
            init: Some(initial_registers(program)),
        }
    }

    /// The verifier's view: shape only; the commitment comes from the verifying key.
    pub fn shape_only() -> RegisterAir {
        RegisterAir { init: None }
    }
}

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
        let init = self.init?;
        let mut v = Vec::with_capacity(HEIGHT * PRE_WIDTH);
        for r in 0..HEIGHT {
            let val = init.get(r).copied().unwrap_or(0);
            v.push(Felt::from(r as u32));
            v.extend(val.to_le_bytes().map(|x| Felt::from(x as u32)));
            v.push(Felt::from(r < NUM_REGS));
        }
        Some((v, LOG_HEIGHT))
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let real = b.preprocessed(PRE_WIDTH - 1);
        let mut init: Vec<B::Expr> = (0..9).map(|i| b.preprocessed(i)).collect();
        init.push(B::Expr::from(Felt::ZERO));
        b.send(BUS_REG, real.clone(), &init);
        let mut fin = Vec::with_capacity(10);
        fin.push(b.preprocessed(0));
        fin.extend((0..WIDTH).map(|i| b.main(i)));
        b.receive(BUS_REG, real, &fin);
    }
}

/// REGISTER's main trace from the final register state (padding rows zero).
pub fn build_trace(file: &RegFile) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(HEIGHT, WIDTH);
    for r in 0..NUM_REGS {
        let row = m.row_mut(r);
        for (cell, byte) in row.iter_mut().zip(file.values[r].to_le_bytes()) {
            *cell = Felt::from(byte as u32);
        }
        row[8] = Felt::new(file.ts[r]);
    }
    m
}
