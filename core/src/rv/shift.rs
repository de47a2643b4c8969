//! SHIFT: one row per distinct `(op, a, b)` of SLL, SRL, SRA, SLLW, SRLW and SRAW, received
//! on [`super::BUS_ALU`] with a multiplicity column.
//!
//! # Design
//!
//! Every shift is a multiplication by a power of two read off a 128-bit window:
//!
//! - left by `k`: `c` = bytes 0..8 of `x·2^e` with `e = k`;
//! - right by `k`: `c` = bytes 8..16 of `X·2^e` with `e = 64 − k` (`e ∈ 1..=64`), where `X`
//!   is `x` extended to 128 bits with zeros (SRL) or its sign (SRA).
//!
//! **Shift amount.** `b₀ = k₅ + 32·h₅ + 64·h₆ + 128·h₇` with `h` boolean and `k₅ < 32`
//! (range check of `8·k₅`); `k = k₅ + 32·h₅` for 64-bit ops and `k = k₅` for W ops. `b₁…b₇`
//! are bus values only. Then `e = 8·J + s` with `J` one-hot over `0..=8` (columns `j[9]`,
//! summing to 1 on real rows) and `s = s₀ + 2s₁ + 4s₂` boolean bits; `pow = 2^s − 1 =
//! (1+s₀)(1+3s₁)(1+15s₂) − 1` (stored minus one so the all-zero padding row holds).
//!
//! **Bit shift.** Each input byte splits as `xᵢ·2^s = loᵢ + 256·hiᵢ` with `lo`, `hi`
//! range-checked bytes (unique since `xᵢ·2^s < 2^15`). The bytes of `X·2^s` are
//! `Tₙ = loₙ + hiₙ₋₁` for `n ≤ 7`, `T₈ = hi₇ + σ·(256 − 2^s)` (column `t8`) and `Tₙ = 255·σ`
//! for `n ≥ 9`, where `σ` (column) is the fill sign: the sign bit of `a₇` for SRA, of `a₃`
//! for SRAW, else 0 (a fill byte `255·σ` splits as `lo = σ·(256 − 2^s)`, `hi = σ·(2^s − 1)`).
//!
//! **Byte shift.** `cᵢ = Σⱼ jⱼ·(L·Tᵢ₋ⱼ + R·Tᵢ₊₈₋ⱼ)` (out-of-range `T` are zero), with `L`, `R`
//! the left/right op flags — degree 3.
//!
//! **W forms.** They shift an effective input `x` with `xᵢ = aᵢ` for `i < 4` and, for
//! `i ≥ 4`, `xᵢ = aᵢ` (64-bit ops), `255·sign(a₃)` (SRAW) or 0 (SLLW, SRLW): the low four
//! bytes of the 64-bit shift of `x` by `k < 32` are the 32-bit result. The upper result
//! bytes are then `cᵢ = 255·sc` (`i ≥ 4`), `sc` the sign bit of `c₃`; in the byte-shift
//! constraint for `i ≥ 4` only the 64-bit flags appear, so each term stays at degree 3.
//!
//! **Signs.** `a₇ = 128·sa7 + ra7`, `a₃ = 128·sa3 + ra3`, `c₃ = 128·sc + rc` with boolean
//! signs and `2·r` range-checked as bytes.
//!
//! **Op.** `op = Σ code·sel` over six boolean selectors whose sum is boolean; a row with no
//! selector (padding) must have `m = 0`. An all-zero row satisfies every constraint.
//! Byte lookups (multiplicity 1 on every row): `(loᵢ, hiᵢ)` for each byte, `(2·ra7, 2·ra3)`
//! and `(2·rc, 8·k₅)` — ten per row.

use alloc::vec::Vec;

use super::bitwise::ByteCounts;
use super::{
    alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_SLL, ALU_SLLW, ALU_SRA, ALU_SRAW,
    ALU_SRL, ALU_SRLW, BUS_ALU, BUS_BYTE, BYTE_RANGE,
};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// Op selectors, in this order: SLL, SRL, SRA, SLLW, SRLW, SRAW (op codes `4..=9`).
pub const SEL: usize = 0;
/// The op codes of the selectors.
pub const OPS: [u32; 6] = [ALU_SLL, ALU_SRL, ALU_SRA, ALU_SLLW, ALU_SRLW, ALU_SRAW];
/// `a[8]`.
pub const A: usize = 6;
/// `b[8]`.
pub const B: usize = 14;
/// `c[8]`.
pub const C: usize = 22;
/// Bits 5, 6 and 7 of `b₀`.
pub const H5: usize = 30;
pub const H6: usize = 31;
pub const H7: usize = 32;
/// Bits of the bit offset `s = e mod 8`.
pub const S0: usize = 33;
pub const S1: usize = 34;
pub const S2: usize = 35;
/// `2^s − 1`.
pub const POW: usize = 36;
/// One-hot byte offset `J = e / 8`, 9 columns.
pub const J: usize = 37;
/// `lo[8]`, `hi[8]`: `xᵢ·2^s = loᵢ + 256·hiᵢ`.
pub const LO: usize = 46;
pub const HI: usize = 54;
/// Byte 8 of `X·2^s`.
pub const T8: usize = 62;
/// The fill sign of right shifts.
pub const SIGMA: usize = 63;
/// Sign splits of `a₇`, `a₃` and `c₃`.
pub const SA7: usize = 64;
pub const RA7: usize = 65;
pub const SA3: usize = 66;
pub const RA3: usize = 67;
pub const SC: usize = 68;
pub const RC: usize = 69;
/// How many times the CPU dispatched this row's operation.
pub const M: usize = 70;
/// Main columns.
pub const WIDTH: usize = 71;

/// The SHIFT table.
pub struct ShiftAir;

impl Air for ShiftAir {
    fn name(&self) -> &str {
        "SHIFT"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let k = |v: u64| B::Expr::from(Felt::new(v));
        let f = Felt::new;
        let sel: Vec<B::Expr> = (0..6).map(|i| b.main(SEL + i)).collect();
        for s in &sel {
            b.assert_bool("shift selector is boolean", s.clone());
        }
        let sum = |idx: &[usize]| idx.iter().fold(k(0), |acc, &i| acc + sel[i].clone());
        let active = sum(&[0, 1, 2, 3, 4, 5]);
        let left = sum(&[0, 3]);
        let right = sum(&[1, 2, 4, 5]);
        let word = sum(&[3, 4, 5]);
        let (left64, right64) = (sum(&[0]), sum(&[1, 2]));
        let (sra, sraw) = (sel[2].clone(), sel[5].clone());
        b.assert_bool("shift one op per row", active.clone());
        b.assert_zero(
            "shift padding has m = 0",
            b.main(M) * (k(1) - active.clone()),
        );

        // Sign splits.
        let split = |b: &mut B, byte: usize, s: usize, r: usize, name: &'static str| {
            let (sv, rv) = (b.main(s), b.main(r));
            b.assert_bool("shift sign bit is boolean", sv.clone());
            b.assert_zero(name, b.main(byte) - sv * f(128) - rv);
        };
        split(b, A + 7, SA7, RA7, "shift a7 = 128 sa7 + ra7");
        split(b, A + 3, SA3, RA3, "shift a3 = 128 sa3 + ra3");
        split(b, C + 3, SC, RC, "shift c3 = 128 sc + rc");

        // Shift amount: b0 = k5 + 32 h5 + 64 h6 + 128 h7, k5 < 32.
        let (h5, h6, h7) = (b.main(H5), b.main(H6), b.main(H7));
        for h in [&h5, &h6, &h7] {
            b.assert_bool("shift b0 high bit is boolean", h.clone());
        }
        let k5 = b.main(B) - h5.clone() * f(32) - h6 * f(64) - h7 * f(128);
        let amount = k5.clone() + h5 * (k(1) - word.clone()) * f(32);
        let (s0, s1, s2) = (b.main(S0), b.main(S1), b.main(S2));
        for s in [&s0, &s1, &s2] {
            b.assert_bool("shift bit offset bit is boolean", s.clone());
        }
        let pow = b.main(POW);
        b.assert_zero(
            "shift pow = 2^s − 1",
            pow.clone() + k(1)
                - (s0.clone() + k(1)) * (s1.clone() * f(3) + k(1)) * (s2.clone() * f(15) + k(1)),
        );
        let j: Vec<B::Expr> = (0..9).map(|i| b.main(J + i)).collect();
        let mut j_sum = k(0);
        let mut j_val = k(0);
        for (i, ji) in j.iter().enumerate() {
            b.assert_bool("shift byte offset is boolean", ji.clone());
            j_sum = j_sum + ji.clone();
            j_val = j_val + ji.clone() * f(i as u64);
        }
        b.assert_zero("shift byte offset is one-hot", j_sum - active);
        let e = j_val * f(8) + s0 + s1 * f(2) + s2 * f(4);
        b.assert_zero(
            "shift e = k (left) or 64 − k (right)",
            e - left.clone() * amount.clone() - right.clone() * (k(64) - amount),
        );

        // Bit shift of the effective input x.
        let sa3 = b.main(SA3);
        let mut t: Vec<B::Expr> = Vec::with_capacity(16);
        for i in 0..8 {
            let x = if i < 4 {
                b.main(A + i)
            } else {
                b.main(A + i) * (k(1) - word.clone()) + sraw.clone() * sa3.clone() * f(255)
            };
            let (lo, hi) = (b.main(LO + i), b.main(HI + i));
            b.assert_zero(
                "shift x·2^s = lo + 256 hi",
                x * (pow.clone() + k(1)) - lo.clone() - hi * f(256),
            );
            t.push(if i == 0 { lo } else { lo + b.main(HI + i - 1) });
        }
        let sigma = b.main(SIGMA);
        b.assert_zero(
            "shift fill sign",
            sigma.clone() - sra * b.main(SA7) - sraw * sa3,
        );
        b.assert_zero(
            "shift t8 = hi7 + σ(256 − 2^s)",
            b.main(T8) - b.main(HI + 7) - sigma.clone() * (k(255) - pow),
        );
        t.push(b.main(T8));
        t.extend((9..16).map(|_| sigma.clone() * f(255)));

        // Byte shift and the W forms' sign extension.
        let sc = b.main(SC);
        for i in 0..8 {
            let (l, r) = if i < 4 {
                (&left, &right)
            } else {
                (&left64, &right64)
            };
            let mut acc = if i < 4 {
                k(0)
            } else {
                word.clone() * sc.clone() * f(255)
            };
            for (jj, ji) in j.iter().enumerate() {
                let mut term = r.clone() * t[i + 8 - jj].clone();
                if i >= jj {
                    term = term + l.clone() * t[i - jj].clone();
                }
                acc = acc + ji.clone() * term;
            }
            b.assert_zero("shift c = shifted bytes", b.main(C + i) - acc);
        }

        for i in 0..8 {
            b.send(
                BUS_BYTE,
                k(1),
                &[k(BYTE_RANGE as u64), b.main(LO + i), b.main(HI + i), k(0)],
            );
        }
        b.send(
            BUS_BYTE,
            k(1),
            &[
                k(BYTE_RANGE as u64),
                b.main(RA7) * f(2),
                b.main(RA3) * f(2),
                k(0),
            ],
        );
        b.send(
            BUS_BYTE,
            k(1),
            &[k(BYTE_RANGE as u64), b.main(RC) * f(2), k5 * f(8), k(0)],
        );

        let op = sel
            .iter()
            .zip(OPS)
            .fold(k(0), |acc, (s, code)| acc + s.clone() * f(code as u64));
        let mut values = alloc::vec![op];
        values.extend((0..24).map(|i| b.main(A + i)));
        b.receive(BUS_ALU, b.main(M), &values);
    }
}

/// The distinct shift operations of `ops` (any order), sorted by `(op, a, b)`, repeats
/// merged into multiplicities: SHIFT's rows in order.
pub fn distinct(ops: &[AluOp]) -> Vec<Distinct> {
    for o in ops {
        debug_assert!(OPS.contains(&o.op), "SHIFT got op {}", o.op);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(o.c));
    }
    distinct_ops(ops)
}

/// SHIFT's trace with one row per entry of `rows` (in order), then all-zero padding rows up
/// to [`distinct_height`]. Records no lookups.
pub fn fill_distinct(rows: &[Distinct]) -> RowMajorMatrix {
    let h = distinct_height(rows.len());
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    for (r, x) in rows.iter().enumerate() {
        fill_row(t.row_mut(r), x);
    }
    t
}

/// The byte lookups of SHIFT's trace of `rows` with `height` rows (padding rows look up
/// zeros): ten per row.
pub fn lookups(rows: &[Distinct], height: usize, bytes: &mut ByteCounts) {
    debug_assert!(height >= rows.len());
    for x in rows {
        let w = Witness::of(x);
        for (lo, hi) in w.lo.into_iter().zip(w.hi) {
            bytes.range(lo as u8, hi as u8);
        }
        let (ab, cb) = (x.a.to_le_bytes(), w.c.to_le_bytes());
        bytes.range(2 * (ab[7] & 0x7f), 2 * (ab[3] & 0x7f));
        bytes.range(2 * (cb[3] & 0x7f), 8 * (x.b & 31) as u8);
    }
    for _ in rows.len()..height {
        for _ in 0..10 {
            bytes.range(0, 0);
        }
    }
}

/// SHIFT's trace for the shift operations `ops` (any order, repeats merged into `m`),
/// recording its byte lookups in `bytes`. Height: the next power of two ≥ 8.
pub fn build_trace(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let rows = distinct(ops);
    let t = fill_distinct(&rows);
    lookups(&rows, t.height(), bytes);
    t
}

/// The derived values of one row.
struct Witness {
    /// Selector index (an op outside [`OPS`] fills as SLL's selector).
    sel: usize,
    /// The result.
    c: u64,
    /// `e = 8·J + s`.
    e: u64,
    s: u64,
    /// `xᵢ·2^s = loᵢ + 256·hiᵢ`.
    lo: [u64; 8],
    hi: [u64; 8],
}

impl Witness {
    fn of(x: &Distinct) -> Witness {
        let (op, a, b) = (x.op, x.a, x.b);
        let sel = OPS.iter().position(|&o| o == op).unwrap_or(0);
        let word = sel >= 3;
        let left = op == ALU_SLL || op == ALU_SLLW;
        let c = alu_eval(op, a, b).unwrap_or(0);
        let ab = a.to_le_bytes();
        let b0 = b & 0xff;
        let amount = if word { b0 & 31 } else { b0 & 63 };
        let e = if left { amount } else { 64 - amount };
        let s = e % 8;
        let fill_w = if op == ALU_SRAW { 255 * sign(ab[3]) } else { 0 };
        let (mut lo, mut hi) = ([0; 8], [0; 8]);
        for i in 0..8 {
            let v = if i >= 4 && word { fill_w } else { ab[i] as u64 };
            lo[i] = (v << s) & 0xff;
            hi[i] = (v << s) >> 8;
        }
        Witness {
            sel,
            c,
            e,
            s,
            lo,
            hi,
        }
    }
}

fn sign(byte: u8) -> u64 {
    (byte >> 7) as u64
}

fn fill_row(row: &mut [Felt], x: &Distinct) {
    let f = |v: u64| Felt::new(v);
    let w = Witness::of(x);
    let (ab, bb, cb) = (x.a.to_le_bytes(), x.b.to_le_bytes(), w.c.to_le_bytes());
    row[SEL + w.sel] = Felt::ONE;
    for i in 0..8 {
        row[A + i] = f(ab[i] as u64);
        row[B + i] = f(bb[i] as u64);
        row[C + i] = f(cb[i] as u64);
        row[LO + i] = f(w.lo[i]);
        row[HI + i] = f(w.hi[i]);
    }
    let b0 = bb[0] as u64;
    row[H5] = f((b0 >> 5) & 1);
    row[H6] = f((b0 >> 6) & 1);
    row[H7] = f(b0 >> 7);
    let s = w.s;
    row[S0] = f(s & 1);
    row[S1] = f((s >> 1) & 1);
    row[S2] = f(s >> 2);
    row[POW] = f((1 << s) - 1);
    row[J + (w.e / 8) as usize] = Felt::ONE;
    let sigma = match x.op {
        ALU_SRA => sign(ab[7]),
        ALU_SRAW => sign(ab[3]),
        _ => 0,
    };
    row[SIGMA] = f(sigma);
    row[T8] = f(w.hi[7] + sigma * (256 - (1 << s)));
    row[SA7] = f(sign(ab[7]));
    row[RA7] = f((ab[7] & 0x7f) as u64);
    row[SA3] = f(sign(ab[3]));
    row[RA3] = f((ab[3] & 0x7f) as u64);
    row[SC] = f(sign(cb[3]));
    row[RC] = f((cb[3] & 0x7f) as u64);
    row[M] = Felt::from(x.mult);
}
