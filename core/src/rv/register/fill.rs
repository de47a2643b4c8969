//! REGISTER's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::memw_r::RegFile;
use crate::rv::{NUM_REGS, REG_INPUT};

/// REGISTER's main trace from the final register state and the input length (the initial
/// value of [`REG_INPUT`]), recording the range checks of its bytes in `bytes` (padding
/// rows zero).
pub fn build_trace(file: &RegFile, input_len: u32, bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(HEIGHT, WIDTH);
    for r in 0..NUM_REGS {
        let mut row = RegisterCols::from_fn(|_| Felt::ZERO);
        row.final_value = file.values[r].to_le_bytes().map(|x| Felt::from(x as u32));
        row.final_ts = Felt::new(file.ts[r]);
        row.write(m.row_mut(r));
    }
    let len = input_len.to_le_bytes();
    let row = m.row_mut(REG_INPUT as usize);
    let mut c = RegisterCols::read(row);
    c.input = len.map(|x| Felt::from(x as u32));
    c.write(row);
    input_lookups(input_len, bytes);
    m
}

/// REGISTER's byte lookups (the input length's bytes, two range checks), into `bytes`.
/// Their multiplicity is the preprocessed `is_input`, so a device that counts the other
/// tables' lookups from their main traces leaves these to the host.
pub fn input_lookups(input_len: u32, bytes: &mut ByteCounts) {
    let len = input_len.to_le_bytes();
    bytes.range(len[0], len[1]);
    bytes.range(len[2], len[3]);
}
