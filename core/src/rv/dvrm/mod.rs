//! DVRM: division and remainder (`DIV`, `DIVU`, `REM`, `REMU` and the W forms), one row per
//! distinct `(op, a, b)` with a multiplicity column, receiving `(op, a[8], b[8], c[8])` on
//! [`super::BUS_ALU`].
//!
//! # Design
//!
//! Each row divides a 64-bit dividend `x` by a 64-bit divisor `y` in the signed or unsigned
//! interpretation:
//!
//! - `DIV`, `DIVU`, `REM`, `REMU`: `x = a`, `y = b`;
//! - `DIVW`, `REMW`: `x = sext32(a)`, `y = sext32(b)`, signed;
//! - `DIVUW`, `REMUW`: `x = zext32(a)`, `y = zext32(b)`, unsigned.
//!
//! The witness is the quotient `q` and remainder `r` (8 range-checked bytes each), and the
//! result `c` is `q` or `r` (W forms: `sext32` of their low 32 bits, which gives the spec's
//! `INT32_MIN / −1 = INT32_MIN` since the 64-bit quotient is then `2^31`). The constraints:
//!
//! 1. **Division identity**: `q' · y' + r' = x' mod 2^128`, where `'` extends a value to 16
//!    byte limbs with `255 · n` (its sign bit `n` in signed ops, 0 in unsigned ones). It is
//!    checked as in MUL: the byte convolution in four groups of four limbs, each carry
//!    range-checked as two bytes, so every group equation holds over the integers (both sides
//!    stay below `2^49`). Both `q · y + r` and `x` lie in `(−2^127, 2^127)` for signed ops
//!    and in `[0, 2^128)` for unsigned ones, so the identity holds over the integers.
//! 2. **Remainder bound** (when `y ≠ 0`): `|r| < |y|`, through `|r|` and `|y|` as witness
//!    bytes (`|v| = v` if `n = 0`, else `|v| + v = 2^64`, two 32-bit groups with a boolean
//!    carry) and `|r| + 1 + d = |y|` with `d` range-checked bytes and no carry out.
//! 3. **Remainder sign**: `r = 0` or `sign(r) = sign(x)`: `nr · (1 − nx) = 0` and
//!    `nx · (1 − nr) · Σ r_i = 0`.
//!
//! Together these fix `q = trunc(x / y)` and `r = x − q · y`.
//!
//! **Divide by zero**: a boolean `z` with `z · y_i = 0` (so `z = 1` only when `y = 0`) turns
//! the bound off and forces `q = 2^64 − 1`; the identity then forces `r = x`. When `y = 0`
//! and `z = 0` the bound `|r| < 0` has no solution, so `z` is determined.
//!
//! **Overflow** (`DIV`/`REM` of `INT64_MIN` by `−1`): a boolean `ovf` that implies exactly
//! that case (`ovf · a_i = 0` for `i < 7`, `ovf · (a_7 − 128) = 0`, `ovf · (b_i − 255) = 0`,
//! `ovf` only for `DIV`/`REM`) drops the upper two limb groups of the identity (whose carries
//! it zeroes); the low half and `|r| < 1` give `r = 0`, `q = −INT64_MIN mod 2^64 = INT64_MIN`.
//! Without `ovf` the identity would need `q = 2^63`, which no signed 64-bit `q` is, so `ovf`
//! is determined as well.
//!
//! Sign bits come from `v = 128 · s + t` with `2 · t` range-checked as a byte, for `a[3]`,
//! `a[7]`, `b[3]`, `b[7]`, `q[7]`, `r[7]` and `c[3]`. The op is `Σ code · sel` over boolean
//! selectors whose sum `is_real` is boolean; `m · (1 − is_real) = 0` and the byte lookups
//! have multiplicity `is_real`, so all-zero padding rows satisfy every constraint and touch
//! no bus. Every witness cell of a real row is determined by `(op, a, b)`.
//!
//! The operands `a` and `b` are not range-checked here: they are canonical bytes by the bus
//! convention (their senders check them), which the bounds above rely on.

use alloc::vec::Vec;

use super::{
    ALU_DIV, ALU_DIVU, ALU_DIVUW, ALU_DIVW, ALU_REM, ALU_REMU, ALU_REMUW, ALU_REMW, BUS_ALU,
    BUS_BYTE, BYTE_RANGE,
};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

/// The ops DVRM accepts, in selector order.
pub const OPS: [u32; 8] = [
    ALU_DIV, ALU_DIVU, ALU_REM, ALU_REMU, ALU_DIVW, ALU_DIVUW, ALU_REMW, ALU_REMUW,
];

crate::columns! {
    /// DVRM's columns.
    pub struct DvrmCols {
        /// Multiplicity: how many times the CPU sent this row's `(op, a, b, c)`.
        m,
        /// Op selectors, one per entry of [`OPS`].
        sel[8],
        /// Operand `a`, 8 bytes.
        a[8],
        /// Operand `b`, 8 bytes.
        b[8],
        /// Result `c`, 8 bytes.
        c[8],
        /// Bytes 4..8 of the divisor `y` (bytes 0..4 are `b`'s).
        yh[4],
        /// Quotient, 8 bytes.
        q[8],
        /// Remainder, 8 bytes.
        r[8],
        /// Sign-bit decompositions `(s, t)` with `v = 128 s + t`: `a[3]`, `a[7]`, `b[3]`,
        /// `b[7]`, `q[7]`, `r[7]`, `c[3]`, in that order.
        bits[14],
        /// Signs of `x`, `y`, `q`, `r` in the op's interpretation (0 for unsigned ops).
        nx,
        ny,
        nq,
        nr,
        /// Divide by zero.
        z,
        /// `INT64_MIN / −1`.
        ovf,
        /// Identity carries: `carry[g] = lo + 256 · hi`, cells `(lo, hi)` per group.
        carry[8],
        /// `|r|`, 8 bytes, and its group carry.
        abs_r[8],
        kr,
        /// `|y|`, 8 bytes, and its group carry.
        abs_y[8],
        ky,
        /// `d = |y| − |r| − 1`, 8 bytes, and its group carry.
        d[8],
        kd,
    }
}

/// Column indices (for tests), from [`DvrmCols`].
pub const M: usize = col!(DvrmCols, m);
pub const SEL: usize = col!(DvrmCols, sel);
pub const A: usize = col!(DvrmCols, a);
pub const B: usize = col!(DvrmCols, b);
pub const C: usize = col!(DvrmCols, c);
pub const YH: usize = col!(DvrmCols, yh);
pub const Q: usize = col!(DvrmCols, q);
pub const R: usize = col!(DvrmCols, r);
pub const BITS: usize = col!(DvrmCols, bits);
pub const NX: usize = col!(DvrmCols, nx);
pub const NY: usize = col!(DvrmCols, ny);
pub const NQ: usize = col!(DvrmCols, nq);
pub const NR: usize = col!(DvrmCols, nr);
pub const Z: usize = col!(DvrmCols, z);
pub const OVF: usize = col!(DvrmCols, ovf);
pub const CARRY: usize = col!(DvrmCols, carry);
pub const ABS_R: usize = col!(DvrmCols, abs_r);
pub const KR: usize = col!(DvrmCols, kr);
pub const ABS_Y: usize = col!(DvrmCols, abs_y);
pub const KY: usize = col!(DvrmCols, ky);
pub const D: usize = col!(DvrmCols, d);
pub const KD: usize = col!(DvrmCols, kd);
/// Number of main columns.
pub const WIDTH: usize = <DvrmCols<u8> as Columns<u8>>::WIDTH;

/// Index into [`DvrmCols::bits`] (in pairs) of each decomposed byte.
const BIT_A3: usize = 0;
const BIT_A7: usize = 1;
const BIT_B3: usize = 2;
const BIT_B7: usize = 3;
const BIT_Q7: usize = 4;
const BIT_R7: usize = 5;
const BIT_C3: usize = 6;

const TWO_32: u64 = 1 << 32;

/// The DVRM table.
pub struct DvrmAir;

impl Air for DvrmAir {
    fn name(&self) -> &str {
        "DVRM"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<AB: AirBuilder>(&self, b: &mut AB) {
        let k = |v: u64| AB::Expr::from(Felt::new(v));
        let cols: DvrmCols<AB::Expr> = DvrmCols::from_fn(|i| b.main(i));
        let DvrmCols {
            m,
            sel,
            a,
            b: bv,
            c,
            yh,
            q,
            r,
            bits,
            nx,
            ny,
            nq,
            nr,
            z,
            ovf,
            carry: carry_cells,
            abs_r,
            kr,
            abs_y,
            ky,
            d,
            kd,
        } = cols;
        let carry_lo: Vec<AB::Expr> = (0..4).map(|g| carry_cells[2 * g].clone()).collect();
        let carry_hi: Vec<AB::Expr> = (0..4).map(|g| carry_cells[2 * g + 1].clone()).collect();
        let carry: Vec<AB::Expr> = (0..4)
            .map(|g| carry_lo[g].clone() + carry_hi[g].clone() * Felt::from(256u32))
            .collect();
        let sign = |i: usize| bits[2 * i].clone();
        let low7 = |i: usize| bits[2 * i + 1].clone();

        // Selectors and the op classes they form.
        let mut is_real = k(0);
        let mut op = k(0);
        for (s, &code) in sel.iter().zip(&OPS) {
            b.assert_bool("dvrm selector is boolean", s.clone());
            is_real = is_real + s.clone();
            op = op + s.clone() * Felt::from(code);
        }
        b.assert_bool("dvrm is_real is boolean", is_real.clone());
        b.assert_zero(
            "dvrm multiplicity only on real rows",
            m.clone() * (k(1) - is_real.clone()),
        );
        let [s_div, s_divu, s_rem, s_remu, s_divw, s_divuw, s_remw, s_remuw] =
            core::array::from_fn(|i| sel[i].clone());
        let w = s_divw.clone() + s_divuw.clone() + s_remw.clone() + s_remuw.clone();
        let sgn64 = s_div.clone() + s_rem.clone();
        let sgn_w = s_divw.clone() + s_remw.clone();
        let sgn = sgn64.clone() + sgn_w.clone();
        let is_q = s_div.clone() + s_divu.clone() + s_divw + s_divuw;
        let is_r = s_rem.clone() + s_remu.clone() + s_remw + s_remuw;
        let is_q64 = s_div + s_divu;
        let is_r64 = s_rem + s_remu;

        // Sign bits.
        for (i, v) in [&a[3], &a[7], &bv[3], &bv[7], &q[7], &r[7], &c[3]]
            .into_iter()
            .enumerate()
        {
            b.assert_bool("dvrm sign bit is boolean", sign(i));
            b.assert_zero(
                "dvrm byte = 128 sign + low7",
                v.clone() - sign(i) * Felt::from(128u32) - low7(i),
            );
        }
        b.assert_zero(
            "dvrm nx",
            nx.clone() - sgn64.clone() * sign(BIT_A7) - sgn_w.clone() * sign(BIT_A3),
        );
        b.assert_zero(
            "dvrm ny",
            ny.clone() - sgn64.clone() * sign(BIT_B7) - sgn_w.clone() * sign(BIT_B3),
        );
        b.assert_zero("dvrm nq", nq.clone() - sgn.clone() * sign(BIT_Q7));
        b.assert_zero("dvrm nr", nr.clone() - sgn * sign(BIT_R7));

        // Dividend and divisor: a and b, or their 32-bit extensions.
        let not_w = k(1) - w.clone();
        let x: Vec<AB::Expr> = (0..8)
            .map(|i| {
                if i < 4 {
                    a[i].clone()
                } else {
                    not_w.clone() * a[i].clone() + sgn_w.clone() * sign(BIT_A3) * Felt::from(255u32)
                }
            })
            .collect();
        let y: [AB::Expr; 8] = core::array::from_fn(|i| {
            if i < 4 {
                bv[i].clone()
            } else {
                yh[i - 4].clone()
            }
        });
        for i in 4..8 {
            b.assert_zero(
                "dvrm divisor extension",
                y[i].clone()
                    - not_w.clone() * bv[i].clone()
                    - sgn_w.clone() * sign(BIT_B3) * Felt::from(255u32),
            );
        }

        // Divide by zero and overflow.
        b.assert_bool("dvrm z is boolean", z.clone());
        b.assert_bool("dvrm ovf is boolean", ovf.clone());
        for i in 0..8 {
            b.assert_zero("dvrm z only when y = 0", z.clone() * y[i].clone());
            b.assert_zero(
                "dvrm q = -1 when y = 0",
                z.clone() * (q[i].clone() - Felt::from(255u32)),
            );
            let a_min = if i < 7 {
                a[i].clone()
            } else {
                a[i].clone() - Felt::from(128u32)
            };
            b.assert_zero("dvrm ovf only when a = INT64_MIN", ovf.clone() * a_min);
            b.assert_zero(
                "dvrm ovf only when b = -1",
                ovf.clone() * (bv[i].clone() - Felt::from(255u32)),
            );
        }
        b.assert_zero(
            "dvrm ovf only for DIV and REM",
            ovf.clone() * (k(1) - sgn64),
        );

        // q' · y' + r' = x' mod 2^128, four limbs per carry; ovf drops the upper half.
        let ext = |v: &[AB::Expr], n: &AB::Expr, i: usize| {
            if i < 8 {
                v[i].clone()
            } else {
                n.clone() * Felt::from(255u32)
            }
        };
        for g in 0..4 {
            let mut lhs = if g == 0 { k(0) } else { carry[g - 1].clone() };
            let mut rhs = carry[g].clone() * Felt::new(TWO_32);
            for j in 0..4 {
                let l = 4 * g + j;
                let mut conv = ext(&r, &nr, l);
                for i in 0..=l {
                    if i >= 8 && l - i >= 8 {
                        continue;
                    }
                    conv = conv + ext(&q, &nq, i) * ext(&y, &ny, l - i);
                }
                let wt = Felt::new(1 << (8 * j));
                lhs = lhs + conv * wt;
                rhs = rhs + ext(&x, &nx, l) * wt;
            }
            if g < 2 {
                b.assert_zero("dvrm identity, low half", lhs - rhs);
            } else {
                b.assert_zero(
                    "dvrm identity, high half",
                    (k(1) - ovf.clone()) * (lhs - rhs),
                );
                b.assert_zero(
                    "dvrm ovf zeroes high carries",
                    ovf.clone() * carry_lo[g].clone(),
                );
                b.assert_zero(
                    "dvrm ovf zeroes high carries",
                    ovf.clone() * carry_hi[g].clone(),
                );
            }
        }

        // |r| and |y|.
        let group = |v: &[AB::Expr], g: usize| {
            (0..4).fold(k(0), |acc, j| {
                acc + v[4 * g + j].clone() * Felt::new(1 << (8 * j))
            })
        };
        for (v, n, abs, kv) in [(&r, &nr, &abs_r, &kr), (&y, &ny, &abs_y, &ky)] {
            let pos = k(1) - n.clone();
            for i in 0..8 {
                b.assert_zero(
                    "dvrm |v| = v when v >= 0",
                    pos.clone() * (abs[i].clone() - v[i].clone()),
                );
            }
            b.assert_bool("dvrm |v| carry is boolean", kv.clone());
            b.assert_zero("dvrm |v| carry only when v < 0", pos * kv.clone());
            b.assert_zero(
                "dvrm |v| + v = 2^64, low group",
                n.clone() * (group(v, 0) + group(abs, 0) - kv.clone() * Felt::new(TWO_32)),
            );
            b.assert_zero(
                "dvrm |v| + v = 2^64, high group",
                n.clone() * (group(v, 1) + group(abs, 1) + kv.clone() - k(TWO_32)),
            );
        }

        // |r| + 1 + d = |y| unless y = 0.
        let gate = is_real.clone() - z.clone();
        b.assert_bool("dvrm bound carry is boolean", kd.clone());
        b.assert_zero("dvrm bound carry off when y = 0", z.clone() * kd.clone());
        for di in &d {
            b.assert_zero("dvrm d = 0 when y = 0", z.clone() * di.clone());
        }
        b.assert_zero(
            "dvrm |r| < |y|, low group",
            gate.clone()
                * (group(&abs_r, 0) + group(&d, 0) + k(1)
                    - group(&abs_y, 0)
                    - kd.clone() * Felt::new(TWO_32)),
        );
        b.assert_zero(
            "dvrm |r| < |y|, high group",
            gate * (group(&abs_r, 1) + group(&d, 1) + kd - group(&abs_y, 1)),
        );

        // r = 0 or sign(r) = sign(x).
        b.assert_zero(
            "dvrm r < 0 only when x < 0",
            nr.clone() * (k(1) - nx.clone()),
        );
        let r_sum = r.iter().fold(k(0), |acc, v| acc + v.clone());
        b.assert_zero(
            "dvrm r >= 0 only when x >= 0 or r = 0",
            nx * (k(1) - nr) * r_sum,
        );

        // The result.
        for i in 0..8 {
            let expect = if i < 4 {
                is_q.clone() * q[i].clone() + is_r.clone() * r[i].clone()
            } else {
                is_q64.clone() * q[i].clone()
                    + is_r64.clone() * r[i].clone()
                    + w.clone() * sign(BIT_C3) * Felt::from(255u32)
            };
            b.assert_zero("dvrm result", c[i].clone() - expect);
        }

        // Interactions.
        let mut tuple = Vec::with_capacity(25);
        tuple.push(op);
        tuple.extend(a.iter().cloned());
        tuple.extend(bv.iter().cloned());
        tuple.extend(c.iter().cloned());
        b.receive(BUS_ALU, m, &tuple);
        let range = |b: &mut AB, x: AB::Expr, y: AB::Expr| {
            b.send(
                BUS_BYTE,
                is_real.clone(),
                &[k(BYTE_RANGE as u64), x, y, k(0)],
            );
        };
        for v in [&q, &r, &abs_r, &abs_y, &d] {
            for i in 0..4 {
                range(b, v[2 * i].clone(), v[2 * i + 1].clone());
            }
        }
        for g in 0..4 {
            range(b, carry_lo[g].clone(), carry_hi[g].clone());
        }
        for i in 0..4 {
            let second = if 2 * i + 1 < 7 {
                low7(2 * i + 1) * Felt::TWO
            } else {
                k(0)
            };
            range(b, low7(2 * i) * Felt::TWO, second);
        }
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
