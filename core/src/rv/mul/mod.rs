//! MUL: multiplication (`MUL`, `MULH`, `MULHSU`, `MULHU`, `MULW`), one row per distinct
//! `(op, a, b)` with a multiplicity column, receiving `(op, a[8], b[8], c[8])` on
//! [`super::BUS_ALU`].
//!
//! # Design
//!
//! Every row computes the 128-bit product `p = a' · b' mod 2^128` of the operands extended to
//! sixteen byte limbs: limbs 8..16 of `a'` are `255 · sa'` where `sa'` is `a`'s sign bit for
//! `MULH`/`MULHSU` and 0 otherwise (likewise `b'` with `sb'` for `MULH` only), so `p` is the
//! two's complement of the signed, mixed or unsigned product — exact, since every product
//! fits in 128 bits. The sixteen product bytes `p[16]` are range-checked; the byte
//! convolution is checked in four groups of four limbs:
//!
//! `Σ_j 256^j · conv(a', b')[4g + j] + carry[g − 1] = Σ_j 256^j · p[4g + j] + 2^32 · carry[g]`
//!
//! with each carry range-checked as two bytes. A convolution limb is at most
//! `16 · 255² < 2^20`, so both sides stay below `2^49`, far from the field modulus: each group
//! equation holds over the integers, the chain proves `p = a' · b' mod 2^128`, and the bytes
//! and carries are unique. The result `c` is `p[0..8]` (`MUL`), `p[8..16]` (`MULH*`), or
//! `p[0..4]` followed by four bytes `255 · s` where `s` is the top bit of `p[3]` (`MULW`).
//!
//! Sign bits come from `a[7] = 128 · sa + ra` with `2 · ra` range-checked as a byte (so
//! `ra < 128`), likewise `b[7]` and `p[3]`.
//!
//! The op is `Σ code · sel` over boolean selectors whose sum `is_real` is boolean;
//! `m · (1 − is_real) = 0`, and the byte lookups have multiplicity `is_real`, so all-zero
//! padding rows satisfy every constraint and touch no bus. Every witness cell of a real row
//! is determined by `(op, a, b)`: changing any cell breaks a constraint or a bus.
//!
//! The operands `a` and `b` are not range-checked here: they are canonical bytes by the bus
//! convention (their senders check them), which the bounds above rely on.

use alloc::vec::Vec;

use super::{ALU_MUL, ALU_MULH, ALU_MULHSU, ALU_MULHU, ALU_MULW, BUS_ALU, BUS_BYTE, BYTE_RANGE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

/// The ops MUL accepts, in selector order.
pub const OPS: [u32; 5] = [ALU_MUL, ALU_MULH, ALU_MULHSU, ALU_MULHU, ALU_MULW];

crate::columns! {
    /// MUL's columns.
    pub struct MulCols {
        /// Multiplicity: how many times the CPU sent this row's `(op, a, b, c)`.
        m,
        /// Op selectors, one per entry of [`OPS`].
        sel[5],
        /// Operand `a`, 8 bytes.
        a[8],
        /// Operand `b`, 8 bytes.
        b[8],
        /// Result `c`, 8 bytes.
        c[8],
        /// Product bytes `p[16]` of the extended operands.
        p[16],
        /// Group carries: `carry[g] = lo + 256 · hi`, cells `(lo, hi)` per group.
        carry[8],
        /// Sign bit of `a` and the low 7 bits of `a[7]`.
        sa,
        ra,
        /// Sign bit of `b` and the low 7 bits of `b[7]`.
        sb,
        rb,
        /// `a`'s extension bit: `sa · (MULH + MULHSU)`.
        sa_ext,
        /// `b`'s extension bit: `sb · MULH`.
        sb_ext,
        /// Top bit of `p[3]` and its low 7 bits (`MULW`'s sign).
        sw,
        rw,
    }
}

/// Column indices (for tests), from [`MulCols`].
pub const M: usize = col!(MulCols, m);
pub const SEL: usize = col!(MulCols, sel);
pub const A: usize = col!(MulCols, a);
pub const B: usize = col!(MulCols, b);
pub const C: usize = col!(MulCols, c);
pub const P: usize = col!(MulCols, p);
pub const CARRY: usize = col!(MulCols, carry);
pub const SA: usize = col!(MulCols, sa);
pub const RA: usize = col!(MulCols, ra);
pub const SB: usize = col!(MulCols, sb);
pub const RB: usize = col!(MulCols, rb);
pub const SA_EXT: usize = col!(MulCols, sa_ext);
pub const SB_EXT: usize = col!(MulCols, sb_ext);
pub const SW: usize = col!(MulCols, sw);
pub const RW: usize = col!(MulCols, rw);
/// Number of main columns.
pub const WIDTH: usize = <MulCols<u8> as Columns<u8>>::WIDTH;

const TWO_32: u64 = 1 << 32;

/// The MUL table.
pub struct MulAir;

impl Air for MulAir {
    fn name(&self) -> &str {
        "MUL"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<AB: AirBuilder>(&self, b: &mut AB) {
        let k = |v: u64| AB::Expr::from(Felt::new(v));
        let cols: MulCols<AB::Expr> = MulCols::from_fn(|i| b.main(i));
        let MulCols {
            m,
            sel,
            a,
            b: bb,
            c,
            p,
            carry: carry_cells,
            sa,
            ra,
            sb,
            rb,
            sa_ext,
            sb_ext,
            sw,
            rw,
        } = cols;
        let carry_lo: Vec<AB::Expr> = (0..4).map(|g| carry_cells[2 * g].clone()).collect();
        let carry_hi: Vec<AB::Expr> = (0..4).map(|g| carry_cells[2 * g + 1].clone()).collect();
        let carry: Vec<AB::Expr> = (0..4)
            .map(|g| carry_lo[g].clone() + carry_hi[g].clone() * Felt::from(256u32))
            .collect();
        let [s_mul, s_mulh, s_mulhsu, s_mulhu, s_mulw] = [0, 1, 2, 3, 4].map(|i| sel[i].clone());

        // Selectors.
        let mut is_real = k(0);
        let mut op = k(0);
        for (s, &code) in sel.iter().zip(&OPS) {
            b.assert_bool("mul selector is boolean", s.clone());
            is_real = is_real + s.clone();
            op = op + s.clone() * Felt::from(code);
        }
        b.assert_bool("mul is_real is boolean", is_real.clone());
        b.assert_zero(
            "mul multiplicity only on real rows",
            m.clone() * (k(1) - is_real.clone()),
        );

        // Sign bits.
        for (name, v, s, r) in [
            ("mul a[7] = 128 sa + ra", &a[7], &sa, &ra),
            ("mul b[7] = 128 sb + rb", &bb[7], &sb, &rb),
            ("mul p[3] = 128 sw + rw", &p[3], &sw, &rw),
        ] {
            b.assert_bool("mul sign bit is boolean", s.clone());
            b.assert_zero(name, v.clone() - s.clone() * Felt::from(128u32) - r.clone());
        }
        b.assert_zero(
            "mul sa_ext = sa (MULH + MULHSU)",
            sa_ext.clone() - sa * (s_mulh.clone() + s_mulhsu.clone()),
        );
        b.assert_zero("mul sb_ext = sb MULH", sb_ext.clone() - sb * s_mulh.clone());

        // p = a' · b' mod 2^128, four limbs per carry.
        let ext = |v: &[AB::Expr], s: &AB::Expr, i: usize| {
            if i < 8 {
                v[i].clone()
            } else {
                s.clone() * Felt::from(255u32)
            }
        };
        for g in 0..4 {
            let mut lhs = if g == 0 { k(0) } else { carry[g - 1].clone() };
            let mut rhs = carry[g].clone() * Felt::new(TWO_32);
            for j in 0..4 {
                let l = 4 * g + j;
                let mut conv = k(0);
                for i in 0..=l {
                    if i >= 8 && l - i >= 8 {
                        continue;
                    }
                    conv = conv + ext(&a, &sa_ext, i) * ext(&bb, &sb_ext, l - i);
                }
                let w = Felt::new(1 << (8 * j));
                lhs = lhs + conv * w;
                rhs = rhs + p[l].clone() * w;
            }
            b.assert_zero("mul product limb group", lhs - rhs);
        }

        // The result.
        let s_hi = s_mulh + s_mulhsu + s_mulhu;
        for i in 0..8 {
            let w = if i < 4 {
                p[i].clone()
            } else {
                sw.clone() * Felt::from(255u32)
            };
            let expect =
                s_mul.clone() * p[i].clone() + s_hi.clone() * p[8 + i].clone() + s_mulw.clone() * w;
            b.assert_zero("mul result", c[i].clone() - expect);
        }

        // Interactions.
        let mut tuple = Vec::with_capacity(25);
        tuple.push(op);
        tuple.extend(a.iter().cloned());
        tuple.extend(bb.iter().cloned());
        tuple.extend(c.iter().cloned());
        b.receive(BUS_ALU, m, &tuple);
        let range = |b: &mut AB, x: AB::Expr, y: AB::Expr| {
            b.send(
                BUS_BYTE,
                is_real.clone(),
                &[k(BYTE_RANGE as u64), x, y, k(0)],
            );
        };
        for i in 0..8 {
            range(b, p[2 * i].clone(), p[2 * i + 1].clone());
        }
        for g in 0..4 {
            range(b, carry_lo[g].clone(), carry_hi[g].clone());
        }
        range(b, ra * Felt::TWO, rb * Felt::TWO);
        range(b, rw * Felt::TWO, k(0));
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
