//! REGISTER: one row per register of the memory argument — the 32 architectural registers,
//! the three of the program break ([`REG_BRK`], [`REG_HEAP_LIMIT`], [`REG_HEAP_START`]) and
//! the unread input bytes ([`REG_INPUT`]). Emits each register's initial token `(reg, init,
//! 0)` and consumes its final token. Initial values are preprocessed and so bound to the
//! verifying key — `sp` starts at [`INITIAL_SP`], the break registers at the program's heap
//! bounds, every other register at 0 — except [`REG_INPUT`]'s, which is private: the length
//! of the prover's input. Rows past the last register are padding (preprocessed `real` = 0).
//!
//! # The private initial value
//!
//! The preprocessed flag `is_input` marks [`REG_INPUT`]'s row (preprocessed `init` is 0
//! there). The main columns `in[4]` hold the input length's bytes:
//!
//! - `(1 − is_input)·inᵢ = 0`: only that row has them;
//! - send [`BUS_BYTE`] `(RANGE, in₀, in₁, 0)`, `(RANGE, in₂, in₃, 0)`, multiplicity
//!   `is_input`: they are bytes;
//! - the initial token's value is `initᵢ + inᵢ` for `i < 4`, `initᵢ` for `i ≥ 4`.
//!
//! So [`REG_INPUT`] starts at some `L < 2^32`, four canonical bytes and four zeros, that the
//! prover chooses (the input is private; `ecall.rs` proves the reads are those of an
//! `L`-byte stream), and every other register's initial value is the preprocessed one.

use alloc::vec;
use alloc::vec::Vec;

use super::bitwise::ByteCounts;
use super::decode::ProgramImage;
use super::memw_r::RegFile;
use super::{
    BUS_BYTE, BUS_REG, BYTE_RANGE, NUM_REGS, REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START, REG_INPUT,
};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// `sp` at entry: the top of the stack in the executor's memory map.
pub const INITIAL_SP: u64 = super::STACK_TOP as u64;

/// log2 of the table height (rows for [`NUM_REGS`] registers).
pub const LOG_HEIGHT: u32 = 6;
const HEIGHT: usize = 1 << LOG_HEIGHT;
const _: () = assert!(NUM_REGS <= HEIGHT);

/// Initial values of the registers of `program` as preprocessed ([`REG_INPUT`]'s is 0
/// here: it is private, see [`initial_file`]).
pub fn initial_registers(program: &ProgramImage) -> [u64; NUM_REGS] {
    let mut r = [0u64; NUM_REGS];
    r[2] = INITIAL_SP;
    r[REG_BRK as usize] = program.heap_start as u64;
    r[REG_HEAP_LIMIT as usize] = program.heap_limit as u64;
    r[REG_HEAP_START as usize] = program.heap_start as u64;
    r
}

/// The register file at the start of a run of `program` on an input of `input_len` bytes:
/// [`initial_registers`] with [`REG_INPUT`] = `input_len`.
pub fn initial_file(program: &ProgramImage, input_len: u32) -> [u64; NUM_REGS] {
    let mut r = initial_registers(program);
    r[REG_INPUT as usize] = input_len as u64;
    r
}

/// Main: final value bytes.
pub const FINAL: usize = 0;
/// Main: final timestamp.
pub const FINAL_TS: usize = 8;
/// Main: `in[4]`, [`REG_INPUT`]'s initial value bytes (zero on every other row).
pub const IN: usize = 9;
/// Main columns.
pub const WIDTH: usize = 13;
/// Preprocessed: register index.
pub const PRE_REG: usize = 0;
/// Preprocessed: initial value bytes.
pub const PRE_INIT: usize = 1;
/// Preprocessed: real (a register's row).
pub const PRE_REAL: usize = 9;
/// Preprocessed: `is_input` ([`REG_INPUT`]'s row).
pub const PRE_IS_INPUT: usize = 10;
/// Preprocessed columns.
pub const PRE_WIDTH: usize = 11;

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
            v.push(Felt::from(r == REG_INPUT as usize));
        }
        Some((v, LOG_HEIGHT))
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let real = b.preprocessed(PRE_REAL);
        let is_input = b.preprocessed(PRE_IS_INPUT);
        let one = B::Expr::from(Felt::ONE);
        let zero = B::Expr::from(Felt::ZERO);
        let input: Vec<B::Expr> = (0..4).map(|i| b.main(IN + i)).collect();
        for x in &input {
            b.assert_zero(
                "register input bytes only on REG_INPUT's row",
                (one.clone() - is_input.clone()) * x.clone(),
            );
        }
        let range = B::Expr::from(Felt::from(BYTE_RANGE));
        for i in [0, 2] {
            b.send(
                BUS_BYTE,
                is_input.clone(),
                &[
                    range.clone(),
                    input[i].clone(),
                    input[i + 1].clone(),
                    zero.clone(),
                ],
            );
        }
        let mut init = vec![b.preprocessed(PRE_REG)];
        for i in 0..8 {
            let pre = b.preprocessed(PRE_INIT + i);
            init.push(match input.get(i) {
                Some(x) => pre + x.clone(),
                None => pre,
            });
        }
        init.push(zero);
        b.send(BUS_REG, real.clone(), &init);
        let mut fin = Vec::with_capacity(10);
        fin.push(b.preprocessed(PRE_REG));
        fin.extend((0..8).map(|i| b.main(FINAL + i)));
        fin.push(b.main(FINAL_TS));
        b.receive(BUS_REG, real, &fin);
    }
}

/// REGISTER's main trace from the final register state and the input length (the initial
/// value of [`REG_INPUT`]), recording the range checks of its bytes in `bytes` (padding
/// rows zero).
pub fn build_trace(file: &RegFile, input_len: u32, bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(HEIGHT, WIDTH);
    for r in 0..NUM_REGS {
        let row = m.row_mut(r);
        for (cell, byte) in row[FINAL..].iter_mut().zip(file.values[r].to_le_bytes()) {
            *cell = Felt::from(byte as u32);
        }
        row[FINAL_TS] = Felt::new(file.ts[r]);
    }
    let len = input_len.to_le_bytes();
    let row = m.row_mut(REG_INPUT as usize);
    for (cell, byte) in row[IN..].iter_mut().zip(len) {
        *cell = Felt::from(byte as u32);
    }
    bytes.range(len[0], len[1]);
    bytes.range(len[2], len[3]);
    m
}
