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
//!
//! # Columns
//!
//! [`RegisterCols`] (main) and [`RegisterPreCols`] (preprocessed) are the layout's source;
//! the constants are their offsets. Main `in[4]` is the field `input` (`in` is a keyword),
//! the final value bytes the field `final_value` (`final` is reserved).

use alloc::vec;
use alloc::vec::Vec;

use super::decode::ProgramImage;
use super::{
    BUS_BYTE, BUS_REG, BYTE_RANGE, NUM_REGS, REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START, REG_INPUT,
};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

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

crate::columns! {
    /// REGISTER's main columns.
    pub struct RegisterCols {
        /// The register's final value bytes.
        final_value[8],
        /// The register's final timestamp.
        final_ts,
        /// `in[4]`: [`REG_INPUT`]'s initial value bytes (zero on every other row).
        input[4],
    }
}

crate::columns! {
    /// REGISTER's preprocessed columns.
    pub struct RegisterPreCols {
        /// The register index.
        reg,
        /// The initial value bytes.
        init[8],
        /// `1` on a register's row (`0` on padding).
        real,
        /// `1` on [`REG_INPUT`]'s row.
        is_input,
    }
}

/// Main: final value bytes.
pub const FINAL: usize = col!(RegisterCols, final_value);
/// Main: final timestamp.
pub const FINAL_TS: usize = col!(RegisterCols, final_ts);
/// Main: `in[4]`, [`REG_INPUT`]'s initial value bytes (zero on every other row).
pub const IN: usize = col!(RegisterCols, input);
/// Main columns.
pub const WIDTH: usize = <RegisterCols<u8> as Columns<u8>>::WIDTH;
/// Preprocessed: register index.
pub const PRE_REG: usize = col!(RegisterPreCols, reg);
/// Preprocessed: initial value bytes.
pub const PRE_INIT: usize = col!(RegisterPreCols, init);
/// Preprocessed: real (a register's row).
pub const PRE_REAL: usize = col!(RegisterPreCols, real);
/// Preprocessed: `is_input` ([`REG_INPUT`]'s row).
pub const PRE_IS_INPUT: usize = col!(RegisterPreCols, is_input);
/// Preprocessed columns.
pub const PRE_WIDTH: usize = <RegisterPreCols<u8> as Columns<u8>>::WIDTH;

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
        let mut v = vec![Felt::ZERO; HEIGHT * PRE_WIDTH];
        for (r, row) in v.chunks_exact_mut(PRE_WIDTH).enumerate() {
            let val = init.get(r).copied().unwrap_or(0);
            RegisterPreCols {
                reg: Felt::from(r as u32),
                init: val.to_le_bytes().map(|x| Felt::from(x as u32)),
                real: Felt::from(r < NUM_REGS),
                is_input: Felt::from(r == REG_INPUT as usize),
            }
            .write(row);
        }
        Some((v, LOG_HEIGHT))
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let p: RegisterPreCols<B::Expr> = RegisterPreCols::from_fn(|i| b.preprocessed(i));
        let c: RegisterCols<B::Expr> = RegisterCols::from_fn(|i| b.main(i));
        let real = p.real.clone();
        let is_input = p.is_input.clone();
        let one = B::Expr::from(Felt::ONE);
        let zero = B::Expr::from(Felt::ZERO);
        let input = &c.input;
        for x in input {
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
        let mut init = vec![p.reg.clone()];
        for i in 0..8 {
            let pre = p.init[i].clone();
            init.push(match input.get(i) {
                Some(x) => pre + x.clone(),
                None => pre,
            });
        }
        init.push(zero);
        b.send(BUS_REG, real.clone(), &init);
        let mut fin = Vec::with_capacity(10);
        fin.push(p.reg.clone());
        fin.extend(c.final_value.iter().cloned());
        fin.push(c.final_ts.clone());
        b.receive(BUS_REG, real, &fin);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;
