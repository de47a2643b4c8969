//! LT: one row per distinct `(op, a, b)` of SLT and SLTU (branch compares and timestamp
//! freshness use the same ops), received on [`super::BUS_ALU`] with a multiplicity column.
//!
//! # Design
//!
//! `c = [lt, 0, 0, 0, 0, 0, 0, 0]`. Signed comparison is unsigned comparison with both sign
//! bits flipped, so the table compares `a'` and `b'`, equal to `a` and `b` except in the top
//! byte, where SLT uses `a'₇ = a₇ + 128 − 256·sa` (the top byte with its sign bit flipped).
//! The top bytes are split as `a₇ = 128·sa + ra` with `sa` boolean and `ra < 128` (proven by
//! range-checking `2·ra` as a byte); likewise `b₇`.
//!
//! The subtraction `a' − b' = d − 2^64·lt` runs over two 32-bit halves so every identity
//! holds over the integers (all terms stay far below the field's modulus):
//!
//! - `Σᵢ₌₀³ (aᵢ − bᵢ)·256^i + 2^32·borrow = Σᵢ₌₀³ dᵢ·256^i`,
//! - `Σᵢ₌₄⁷ (a'ᵢ − b'ᵢ)·256^(i−4) − borrow + 2^32·lt = Σᵢ₌₄⁷ dᵢ·256^(i−4)`,
//!
//! with `d` range-checked as bytes and `borrow`, `lt` boolean: `d` is then the unique
//! difference and `lt = (a' <u b')`.
//!
//! The op is `1·sel_slt + 2·sel_sltu` with boolean selectors whose sum is boolean; a row
//! with no selector (padding) must have `m = 0`. An all-zero row satisfies every constraint.
//! Byte lookups: `(d₀,d₁) … (d₆,d₇)` and `(2·ra, 2·rb)`, multiplicity 1 on every row
//! (padding rows look up zeros).

use alloc::vec::Vec;

use super::bitwise::ByteCounts;
use super::{
    alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_SLT, ALU_SLTU, BUS_ALU, BUS_BYTE,
    BYTE_RANGE,
};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// `1` when the row is SLT.
pub const SEL_SLT: usize = 0;
/// `1` when the row is SLTU.
pub const SEL_SLTU: usize = 1;
/// `a[8]`.
pub const A: usize = 2;
/// `b[8]`.
pub const B: usize = 10;
/// `d[8]`: the bytes of `a' − b' mod 2^64`.
pub const D: usize = 18;
/// Borrow out of the low 32 bits.
pub const BORROW: usize = 26;
/// The result `c₀`.
pub const LT: usize = 27;
/// Sign bit of `a₇` and the rest of `a₇`.
pub const SA: usize = 28;
pub const RA: usize = 29;
/// Sign bit of `b₇` and the rest of `b₇`.
pub const SB: usize = 30;
pub const RB: usize = 31;
/// How many times the CPU dispatched this row's operation.
pub const M: usize = 32;
/// Main columns.
pub const WIDTH: usize = 33;

/// The LT table.
pub struct LtAir;

impl Air for LtAir {
    fn name(&self) -> &str {
        "LT"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let k = |v: u64| B::Expr::from(Felt::new(v));
        let one = k(1);
        let (slt, sltu, m) = (b.main(SEL_SLT), b.main(SEL_SLTU), b.main(M));
        b.assert_bool("lt sel_slt is boolean", slt.clone());
        b.assert_bool("lt sel_sltu is boolean", sltu.clone());
        let active = slt.clone() + sltu.clone();
        b.assert_bool("lt one op per row", active.clone());
        b.assert_zero("lt padding has m = 0", m.clone() * (one - active));

        // Top bytes: sign bit and the 7 bits below it.
        let (sa, ra, sb, rb) = (b.main(SA), b.main(RA), b.main(SB), b.main(RB));
        b.assert_bool("lt sa is boolean", sa.clone());
        b.assert_bool("lt sb is boolean", sb.clone());
        b.assert_zero(
            "lt a7 = 128 sa + ra",
            b.main(A + 7) - sa.clone() * Felt::new(128) - ra.clone(),
        );
        b.assert_zero(
            "lt b7 = 128 sb + rb",
            b.main(B + 7) - sb.clone() * Felt::new(128) - rb.clone(),
        );
        b.send(
            BUS_BYTE,
            k(1),
            &[k(BYTE_RANGE as u64), ra * Felt::TWO, rb * Felt::TWO, k(0)],
        );

        // a' − b' = d − 2^64·lt, in two 32-bit halves.
        let (borrow, lt) = (b.main(BORROW), b.main(LT));
        b.assert_bool("lt borrow is boolean", borrow.clone());
        b.assert_bool("lt lt is boolean", lt.clone());
        let flip = |s: B::Expr| slt.clone() * (k(128) - s * Felt::new(256));
        let limb = |b: &B, col: usize, i: usize| b.main(col + i) * Felt::new(1 << (8 * (i % 4)));
        let mut low = borrow.clone() * Felt::new(1 << 32);
        let mut high = lt.clone() * Felt::new(1 << 32) - borrow;
        for i in 0..8 {
            let term = limb(b, A, i) - limb(b, B, i) - limb(b, D, i);
            if i < 4 {
                low = low + term;
            } else {
                high = high + term;
            }
        }
        high = high + (flip(sa) - flip(sb)) * Felt::new(1 << 24);
        b.assert_zero("lt low half of a − b", low);
        b.assert_zero("lt high half of a − b", high);
        for i in (0..8).step_by(2) {
            b.send(
                BUS_BYTE,
                k(1),
                &[k(BYTE_RANGE as u64), b.main(D + i), b.main(D + i + 1), k(0)],
            );
        }

        let op = slt * Felt::from(ALU_SLT) + sltu * Felt::from(ALU_SLTU);
        let mut values = alloc::vec![op];
        values.extend((0..8).map(|i| b.main(A + i)));
        values.extend((0..8).map(|i| b.main(B + i)));
        values.push(lt);
        values.extend((1..8).map(|_| k(0)));
        b.receive(BUS_ALU, m, &values);
    }
}

/// The distinct SLT/SLTU operations of `ops` (any order), sorted by `(op, a, b)`, repeats
/// merged into multiplicities: LT's rows in order.
pub fn distinct(ops: &[AluOp]) -> Vec<Distinct> {
    for o in ops {
        debug_assert!(o.op == ALU_SLT || o.op == ALU_SLTU, "LT got op {}", o.op);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(o.c));
    }
    distinct_ops(ops)
}

/// What a row computes: `(a', b')` (the sign bits flipped for SLT) and `d = a' − b'`.
fn compare(r: &Distinct) -> (u64, u64, u64) {
    let flip = if r.op == ALU_SLT { 1u64 << 63 } else { 0 };
    let (a2, b2) = (r.a ^ flip, r.b ^ flip);
    (a2, b2, a2.wrapping_sub(b2))
}

/// LT's trace with one row per entry of `rows` (in order; any op other than SLT fills as
/// SLTU), then all-zero padding rows up to [`distinct_height`]. Records no lookups.
pub fn fill_distinct(rows: &[Distinct]) -> RowMajorMatrix {
    let h = distinct_height(rows.len());
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    let f = |v: u64| Felt::new(v);
    for (r, x) in rows.iter().enumerate() {
        let row = t.row_mut(r);
        let signed = x.op == ALU_SLT;
        let (a2, b2, d) = compare(x);
        let borrow = (a2 as u32) < (b2 as u32);
        row[SEL_SLT] = Felt::from(signed);
        row[SEL_SLTU] = Felt::from(!signed);
        let (ab, bb, db) = (x.a.to_le_bytes(), x.b.to_le_bytes(), d.to_le_bytes());
        for i in 0..8 {
            row[A + i] = f(ab[i] as u64);
            row[B + i] = f(bb[i] as u64);
            row[D + i] = f(db[i] as u64);
        }
        row[BORROW] = Felt::from(borrow);
        row[LT] = Felt::from(a2 < b2);
        row[SA] = f((ab[7] >> 7) as u64);
        row[RA] = f((ab[7] & 0x7f) as u64);
        row[SB] = f((bb[7] >> 7) as u64);
        row[RB] = f((bb[7] & 0x7f) as u64);
        row[M] = Felt::from(x.mult);
    }
    t
}

/// The byte lookups of LT's trace of `rows` with `height` rows (padding rows look up
/// zeros): five per row.
pub fn lookups(rows: &[Distinct], height: usize, bytes: &mut ByteCounts) {
    debug_assert!(height >= rows.len());
    for x in rows {
        let (_, _, d) = compare(x);
        let (ab, bb, db) = (x.a.to_le_bytes(), x.b.to_le_bytes(), d.to_le_bytes());
        bytes.range(2 * (ab[7] & 0x7f), 2 * (bb[7] & 0x7f));
        for i in (0..8).step_by(2) {
            bytes.range(db[i], db[i + 1]);
        }
    }
    for _ in rows.len()..height {
        for _ in 0..5 {
            bytes.range(0, 0);
        }
    }
}

/// LT's trace for the SLT/SLTU operations `ops` (any order, repeats merged into `m`),
/// recording its byte lookups in `bytes`. Height: the next power of two ≥ 8.
pub fn build_trace(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let rows = distinct(ops);
    let t = fill_distinct(&rows);
    lookups(&rows, t.height(), bytes);
    t
}
