//! MUL's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{alu_eval, AluOp, ALU_MUL, ALU_MULH, ALU_MULHSU, ALU_MULW};
use alloc::collections::BTreeMap;

/// MUL's main trace for `ops` (any order, repeats allowed): one row per distinct op with its
/// count in [`M`], zero padding to a power of two ≥ 8. Records every byte lookup in `bytes`.
///
/// # Panics
/// If an op is not one of [`OPS`].
pub fn build_trace(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut distinct: BTreeMap<AluOp, u64> = BTreeMap::new();
    for op in ops {
        *distinct.entry(*op).or_insert(0) += 1;
    }
    let h = distinct
        .len()
        .next_power_of_two()
        .max(crate::params::MIN_ROWS);
    let mut trace = RowMajorMatrix::zeros(h, WIDTH);
    for (i, (op, &count)) in distinct.iter().enumerate() {
        fill_row(trace.row_mut(i), op, count, bytes);
    }
    trace
}

fn fill_row(out: &mut [Felt], op: &AluOp, count: u64, bytes: &mut ByteCounts) {
    let mut row = MulCols::from_fn(|_| Felt::ZERO);
    let s = OPS
        .iter()
        .position(|&o| o == op.op)
        .unwrap_or_else(|| panic!("MUL does not take ALU op {}", op.op));
    let f = Felt::new;
    row.m = f(count);
    row.sel[s] = f(1);
    let (a, b, c) = (op.a.to_le_bytes(), op.b.to_le_bytes(), op.c.to_le_bytes());
    for i in 0..8 {
        row.a[i] = f(a[i] as u64);
        row.b[i] = f(b[i] as u64);
        row.c[i] = f(c[i] as u64);
    }
    let (sa, sb) = (a[7] >> 7, b[7] >> 7);
    let (ra, rb) = (a[7] & 0x7f, b[7] & 0x7f);
    row.sa = f(sa as u64);
    row.ra = f(ra as u64);
    row.sb = f(sb as u64);
    row.rb = f(rb as u64);
    let sa_ext = sa as u64 * (op.op == ALU_MULH || op.op == ALU_MULHSU) as u64;
    let sb_ext = sb as u64 * (op.op == ALU_MULH) as u64;
    row.sa_ext = f(sa_ext);
    row.sb_ext = f(sb_ext);

    // The byte convolution of the extended operands, four limbs per carry.
    let ext = |v: &[u8; 8], s: u64, i: usize| if i < 8 { v[i] as u64 } else { 255 * s };
    let mut p = [0u8; 16];
    let mut carry = 0u64;
    for g in 0..4 {
        let mut lhs = carry as u128;
        for j in 0..4 {
            let l = 4 * g + j;
            let conv: u64 = (0..=l)
                .filter(|&i| i < 8 || l - i < 8)
                .map(|i| ext(&a, sa_ext, i) * ext(&b, sb_ext, l - i))
                .sum();
            lhs += (conv as u128) << (8 * j);
        }
        let limbs = (lhs as u32).to_le_bytes();
        p[4 * g..4 * g + 4].copy_from_slice(&limbs);
        carry = (lhs >> 32) as u64;
        debug_assert!(carry < 1 << 16);
        row.carry[2 * g] = f(carry & 0xff);
        row.carry[2 * g + 1] = f(carry >> 8);
        bytes.range(carry as u8, (carry >> 8) as u8);
    }
    debug_assert!({
        let lo = u64::from_le_bytes(p[..8].try_into().unwrap_or_default());
        let hi = u64::from_le_bytes(p[8..].try_into().unwrap_or_default());
        let expect = match op.op {
            ALU_MUL => lo,
            ALU_MULW => lo as u32 as i32 as i64 as u64,
            _ => hi,
        };
        alu_eval(op.op, op.a, op.b) == Some(expect)
    });
    for (i, &v) in p.iter().enumerate() {
        row.p[i] = f(v as u64);
    }
    for i in 0..8 {
        bytes.range(p[2 * i], p[2 * i + 1]);
    }
    row.sw = f((p[3] >> 7) as u64);
    row.rw = f((p[3] & 0x7f) as u64);
    bytes.range(2 * ra, 2 * rb);
    bytes.range(2 * (p[3] & 0x7f), 0);
    row.write(out);
}

/// MUL under the shared ALU tests (`rv::testing::alu`): its room's tests and its
/// proving test in `kestrel-tests`.
#[cfg(any(test, feature = "testing"))]
pub const ALU_CASE: crate::rv::testing::alu::AluCase = crate::rv::testing::alu::AluCase {
    air: &MulAir,
    ops: &OPS,
    build: build_trace,
    force_c: None,
};
