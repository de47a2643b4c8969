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

use super::{
    ALU_SLL, ALU_SLLW, ALU_SRA, ALU_SRAW, ALU_SRL, ALU_SRLW, BUS_ALU, BUS_BYTE, BYTE_RANGE,
};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

crate::columns! {
    /// SHIFT's columns.
    pub struct ShiftCols {
        /// Op selectors, in this order: SLL, SRL, SRA, SLLW, SRLW, SRAW (op codes `4..=9`).
        sel[6],
        a[8],
        b[8],
        c[8],
        /// Bits 5, 6 and 7 of `b₀`.
        h5,
        h6,
        h7,
        /// Bits of the bit offset `s = e mod 8`.
        s0,
        s1,
        s2,
        /// `2^s − 1`.
        pow,
        /// One-hot byte offset `J = e / 8`.
        j[9],
        /// `xᵢ·2^s = loᵢ + 256·hiᵢ`.
        lo[8],
        hi[8],
        /// Byte 8 of `X·2^s`.
        t8,
        /// The fill sign of right shifts.
        sigma,
        /// Sign splits of `a₇`, `a₃` and `c₃`.
        sa7,
        ra7,
        sa3,
        ra3,
        sc,
        rc,
        /// How many times the CPU dispatched this row's operation.
        m,
    }
}

/// The op codes of the selectors.
pub const OPS: [u32; 6] = [ALU_SLL, ALU_SRL, ALU_SRA, ALU_SLLW, ALU_SRLW, ALU_SRAW];

/// Column indices (for the CUDA fill, its layout check and tests), from [`ShiftCols`].
pub const SEL: usize = col!(ShiftCols, sel);
pub const A: usize = col!(ShiftCols, a);
pub const B: usize = col!(ShiftCols, b);
pub const C: usize = col!(ShiftCols, c);
pub const H5: usize = col!(ShiftCols, h5);
pub const H6: usize = col!(ShiftCols, h6);
pub const H7: usize = col!(ShiftCols, h7);
pub const S0: usize = col!(ShiftCols, s0);
pub const S1: usize = col!(ShiftCols, s1);
pub const S2: usize = col!(ShiftCols, s2);
pub const POW: usize = col!(ShiftCols, pow);
pub const J: usize = col!(ShiftCols, j);
pub const LO: usize = col!(ShiftCols, lo);
pub const HI: usize = col!(ShiftCols, hi);
pub const T8: usize = col!(ShiftCols, t8);
pub const SIGMA: usize = col!(ShiftCols, sigma);
pub const SA7: usize = col!(ShiftCols, sa7);
pub const RA7: usize = col!(ShiftCols, ra7);
pub const SA3: usize = col!(ShiftCols, sa3);
pub const RA3: usize = col!(ShiftCols, ra3);
pub const SC: usize = col!(ShiftCols, sc);
pub const RC: usize = col!(ShiftCols, rc);
pub const M: usize = col!(ShiftCols, m);
/// Main columns.
pub const WIDTH: usize = <ShiftCols<u8> as Columns<u8>>::WIDTH;

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
        let c: ShiftCols<B::Expr> = ShiftCols::from_fn(|i| b.main(i));
        let sel = &c.sel;
        for s in sel {
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
            c.m.clone() * (k(1) - active.clone()),
        );

        // Sign splits.
        let split = |b: &mut B, byte: &B::Expr, sv: &B::Expr, rv: &B::Expr, name: &'static str| {
            b.assert_bool("shift sign bit is boolean", sv.clone());
            b.assert_zero(name, byte.clone() - sv.clone() * f(128) - rv.clone());
        };
        split(b, &c.a[7], &c.sa7, &c.ra7, "shift a7 = 128 sa7 + ra7");
        split(b, &c.a[3], &c.sa3, &c.ra3, "shift a3 = 128 sa3 + ra3");
        split(b, &c.c[3], &c.sc, &c.rc, "shift c3 = 128 sc + rc");

        // Shift amount: b0 = k5 + 32 h5 + 64 h6 + 128 h7, k5 < 32.
        let (h5, h6, h7) = (c.h5.clone(), c.h6.clone(), c.h7.clone());
        for h in [&h5, &h6, &h7] {
            b.assert_bool("shift b0 high bit is boolean", h.clone());
        }
        let k5 = c.b[0].clone() - h5.clone() * f(32) - h6 * f(64) - h7 * f(128);
        let amount = k5.clone() + h5 * (k(1) - word.clone()) * f(32);
        let (s0, s1, s2) = (c.s0.clone(), c.s1.clone(), c.s2.clone());
        for s in [&s0, &s1, &s2] {
            b.assert_bool("shift bit offset bit is boolean", s.clone());
        }
        let pow = c.pow.clone();
        b.assert_zero(
            "shift pow = 2^s − 1",
            pow.clone() + k(1)
                - (s0.clone() + k(1)) * (s1.clone() * f(3) + k(1)) * (s2.clone() * f(15) + k(1)),
        );
        let j = &c.j;
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
        let sa3 = c.sa3.clone();
        let mut t: Vec<B::Expr> = Vec::with_capacity(16);
        for i in 0..8 {
            let x = if i < 4 {
                c.a[i].clone()
            } else {
                c.a[i].clone() * (k(1) - word.clone()) + sraw.clone() * sa3.clone() * f(255)
            };
            let (lo, hi) = (c.lo[i].clone(), c.hi[i].clone());
            b.assert_zero(
                "shift x·2^s = lo + 256 hi",
                x * (pow.clone() + k(1)) - lo.clone() - hi * f(256),
            );
            t.push(if i == 0 { lo } else { lo + c.hi[i - 1].clone() });
        }
        let sigma = c.sigma.clone();
        b.assert_zero(
            "shift fill sign",
            sigma.clone() - sra * c.sa7.clone() - sraw * sa3,
        );
        b.assert_zero(
            "shift t8 = hi7 + σ(256 − 2^s)",
            c.t8.clone() - c.hi[7].clone() - sigma.clone() * (k(255) - pow),
        );
        t.push(c.t8.clone());
        t.extend((9..16).map(|_| sigma.clone() * f(255)));

        // Byte shift and the W forms' sign extension.
        let sc = c.sc.clone();
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
            b.assert_zero("shift c = shifted bytes", c.c[i].clone() - acc);
        }

        for i in 0..8 {
            b.send(
                BUS_BYTE,
                k(1),
                &[k(BYTE_RANGE as u64), c.lo[i].clone(), c.hi[i].clone(), k(0)],
            );
        }
        b.send(
            BUS_BYTE,
            k(1),
            &[
                k(BYTE_RANGE as u64),
                c.ra7.clone() * f(2),
                c.ra3.clone() * f(2),
                k(0),
            ],
        );
        b.send(
            BUS_BYTE,
            k(1),
            &[k(BYTE_RANGE as u64), c.rc.clone() * f(2), k5 * f(8), k(0)],
        );

        let op = sel
            .iter()
            .zip(OPS)
            .fold(k(0), |acc, (s, code)| acc + s.clone() * f(code as u64));
        let mut values = alloc::vec![op];
        values.extend(c.a.iter().cloned());
        values.extend(c.b.iter().cloned());
        values.extend(c.c.iter().cloned());
        b.receive(BUS_ALU, c.m, &values);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
