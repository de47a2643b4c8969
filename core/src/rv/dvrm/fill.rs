//! DVRM's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{
    alu_eval, AluOp, ALU_DIV, ALU_DIVU, ALU_DIVUW, ALU_DIVW, ALU_REM, ALU_REMUW, ALU_REMW,
};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// DVRM's main trace for `ops` (any order, repeats allowed): one row per distinct op with
/// its count in [`M`], zero padding to a power of two ≥ 8. Records every byte lookup in
/// `bytes`.
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

/// Little-endian 32-bit group `g` of a byte vector.
fn group32(v: &[u8; 8], g: usize) -> u64 {
    u32::from_le_bytes([v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]]) as u64
}

/// The dividend and divisor of an op: `a`, `b` or their 32-bit extensions; and whether the
/// op is signed.
fn operands(op: &AluOp) -> (u64, u64, bool) {
    let is_w = matches!(op.op, ALU_DIVW | ALU_DIVUW | ALU_REMW | ALU_REMUW);
    let signed = matches!(op.op, ALU_DIV | ALU_REM | ALU_DIVW | ALU_REMW);
    let (x, y) = match (is_w, signed) {
        (false, _) => (op.a, op.b),
        (true, true) => (op.a as i32 as i64 as u64, op.b as i32 as i64 as u64),
        (true, false) => (op.a as u32 as u64, op.b as u32 as u64),
    };
    (x, y, signed)
}

/// The honest witness `(q, r, z, ovf)` of an op: quotient, remainder, divide by zero,
/// overflow.
pub fn divide(op: &AluOp) -> (u64, u64, bool, bool) {
    let (x, y, signed) = operands(op);
    let z = y == 0;
    let ovf = matches!(op.op, ALU_DIV | ALU_REM) && x == i64::MIN as u64 && y == u64::MAX;
    let (q, r) = if z {
        (u64::MAX, x)
    } else if ovf {
        (x, 0)
    } else if signed {
        (
            ((x as i64) / (y as i64)) as u64,
            ((x as i64) % (y as i64)) as u64,
        )
    } else {
        (x / y, x % y)
    };
    (q, r, z, ovf)
}

/// The result `c` the table derives from a quotient and remainder.
pub fn result_of(op: u32, q: u64, r: u64) -> u64 {
    let res = if matches!(op, ALU_DIV | ALU_DIVU | ALU_DIVW | ALU_DIVUW) {
        q
    } else {
        r
    };
    if matches!(op, ALU_DIVW | ALU_DIVUW | ALU_REMW | ALU_REMUW) {
        res as u32 as i32 as i64 as u64
    } else {
        res
    }
}

fn fill_row(row: &mut [Felt], op: &AluOp, count: u64, bytes: &mut ByteCounts) {
    let (q, r, z, ovf) = divide(op);
    debug_assert_eq!(alu_eval(op.op, op.a, op.b), Some(result_of(op.op, q, r)));
    fill_witness(row, op, count, (q, r, z, ovf), bytes);
}

/// One row of `op` (with `c` as given) for a claimed witness `(q, r, z, ovf)`, every other
/// cell derived from it as an honest prover would; records the row's byte lookups. For
/// soundness tests: the row satisfies the constraints only for the honest witness.
///
/// # Panics
/// If the op is not one of [`OPS`].
pub fn witness_row(
    op: &AluOp,
    witness: (u64, u64, bool, bool),
    bytes: &mut ByteCounts,
) -> Vec<Felt> {
    let mut row = alloc::vec![Felt::ZERO; WIDTH];
    fill_witness(&mut row, op, 1, witness, bytes);
    row
}

fn fill_witness(
    out: &mut [Felt],
    op: &AluOp,
    count: u64,
    (q, r, z, ovf): (u64, u64, bool, bool),
    bytes: &mut ByteCounts,
) {
    let s = OPS
        .iter()
        .position(|&o| o == op.op)
        .unwrap_or_else(|| panic!("DVRM does not take ALU op {}", op.op));
    let mut row = DvrmCols::from_fn(|_| Felt::ZERO);
    let f = Felt::new;
    row.m = f(count);
    row.sel[s] = f(1);
    let (x, y, signed) = operands(op);
    let [a, b, c, xb, yb, qb, rb] = [op.a, op.b, op.c, x, y, q, r].map(u64::to_le_bytes);
    for i in 0..8 {
        row.a[i] = f(a[i] as u64);
        row.b[i] = f(b[i] as u64);
        row.c[i] = f(c[i] as u64);
        row.q[i] = f(qb[i] as u64);
        row.r[i] = f(rb[i] as u64);
    }
    for (i, &v) in yb[4..].iter().enumerate() {
        row.yh[i] = f(v as u64);
    }
    let decomposed = [a[3], a[7], b[3], b[7], qb[7], rb[7], c[3]];
    for (i, &v) in decomposed.iter().enumerate() {
        row.bits[2 * i] = f((v >> 7) as u64);
        row.bits[2 * i + 1] = f((v & 0x7f) as u64);
    }
    let sgn = signed as u64;
    let (nx, ny, nq, nr) = (
        sgn * (xb[7] >> 7) as u64,
        sgn * (yb[7] >> 7) as u64,
        sgn * (qb[7] >> 7) as u64,
        sgn * (rb[7] >> 7) as u64,
    );
    row.nx = f(nx);
    row.ny = f(ny);
    row.nq = f(nq);
    row.nr = f(nr);
    row.z = f(z as u64);
    row.ovf = f(ovf as u64);

    // Carries of q' · y' + r' = x' (mod 2^128), four limbs per group.
    let ext = |v: &[u8; 8], n: u64, i: usize| if i < 8 { v[i] as u64 } else { 255 * n };
    let mut carry = 0i128;
    for g in 0..4 {
        let mut lhs = carry;
        let mut rhs = 0i128;
        for j in 0..4 {
            let l = 4 * g + j;
            let conv: u64 = ext(&rb, nr, l)
                + (0..=l)
                    .filter(|&i| i < 8 || l - i < 8)
                    .map(|i| ext(&qb, nq, i) * ext(&yb, ny, l - i))
                    .sum::<u64>();
            lhs += (conv as i128) << (8 * j);
            rhs += (ext(&xb, nx, l) as i128) << (8 * j);
        }
        // Exact for the honest witness; a dishonest one gets the floor.
        carry = if ovf && g >= 2 { 0 } else { (lhs - rhs) >> 32 };
        row.carry[2 * g] = f((carry & 0xff) as u64);
        row.carry[2 * g + 1] = f(((carry >> 8) & 0xff) as u64);
        bytes.range(carry as u8, (carry >> 8) as u8);
    }

    // |r|, |y| and d = |y| − |r| − 1.
    let abs = |v: u64, n: u64| if n == 1 { v.wrapping_neg() } else { v };
    let (abs_r, abs_y) = (abs(r, nr), abs(y, ny));
    let d = if z {
        0
    } else {
        abs_y.wrapping_sub(abs_r).wrapping_sub(1)
    };
    let [abs_rb, abs_yb, db] = [abs_r, abs_y, d].map(u64::to_le_bytes);
    for i in 0..8 {
        row.abs_r[i] = f(abs_rb[i] as u64);
        row.abs_y[i] = f(abs_yb[i] as u64);
        row.d[i] = f(db[i] as u64);
    }
    // Group carries: of v + |v| (low group) and of |r| + d + 1 (low group).
    let neg_carry = |v: &[u8; 8], n: u64, av: &[u8; 8]| {
        (n == 1 && group32(v, 0) + group32(av, 0) >= 1 << 32) as u64
    };
    row.kr = f(neg_carry(&rb, nr, &abs_rb));
    row.ky = f(neg_carry(&yb, ny, &abs_yb));
    let kd = (!z && group32(&abs_rb, 0) + group32(&db, 0) + 1 >= 1 << 32) as u64;
    row.kd = f(kd);

    for v in [&qb, &rb, &abs_rb, &abs_yb, &db] {
        for i in 0..4 {
            bytes.range(v[2 * i], v[2 * i + 1]);
        }
    }
    let low7 = decomposed.map(|v| 2 * (v & 0x7f));
    bytes.range(low7[0], low7[1]);
    bytes.range(low7[2], low7[3]);
    bytes.range(low7[4], low7[5]);
    bytes.range(low7[6], 0);
    row.write(out);
}

/// DVRM under the shared ALU tests (`rv::testing::alu`): its room's tests and its
/// proving test in `kestrel-tests`.
#[cfg(any(test, feature = "testing"))]
pub const ALU_CASE: crate::rv::testing::alu::AluCase = crate::rv::testing::alu::AluCase {
    air: &DvrmAir,
    ops: &OPS,
    build: build_trace,
    force_c: None,
};
