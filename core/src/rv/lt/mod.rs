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

use super::{ALU_SLT, ALU_SLTU, BUS_ALU, BUS_BYTE, BYTE_RANGE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::field::Felt;

crate::columns! {
    /// LT's columns.
    pub struct LtCols {
        /// `1` when the row is SLT.
        sel_slt,
        /// `1` when the row is SLTU.
        sel_sltu,
        a[8],
        b[8],
        /// The bytes of `a' − b' mod 2^64`.
        d[8],
        /// Borrow out of the low 32 bits.
        borrow,
        /// The result `c₀`.
        lt,
        /// Sign bit of `a₇` and the rest of `a₇`.
        sa,
        ra,
        /// Sign bit of `b₇` and the rest of `b₇`.
        sb,
        rb,
        /// How many times the CPU dispatched this row's operation.
        m,
    }
}

use crate::col;

/// Column indices (for the CUDA fill and tests), from [`LtCols`].
pub const SEL_SLT: usize = col!(LtCols, sel_slt);
pub const SEL_SLTU: usize = col!(LtCols, sel_sltu);
pub const A: usize = col!(LtCols, a);
pub const B: usize = col!(LtCols, b);
pub const D: usize = col!(LtCols, d);
pub const BORROW: usize = col!(LtCols, borrow);
pub const LT: usize = col!(LtCols, lt);
pub const SA: usize = col!(LtCols, sa);
pub const RA: usize = col!(LtCols, ra);
pub const SB: usize = col!(LtCols, sb);
pub const RB: usize = col!(LtCols, rb);
pub const M: usize = col!(LtCols, m);
/// Main columns.
pub const WIDTH: usize = <LtCols<u8> as Columns<u8>>::WIDTH;

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
        let c: LtCols<B::Expr> = LtCols::from_fn(|i| b.main(i));
        let (slt, sltu, m) = (c.sel_slt.clone(), c.sel_sltu.clone(), c.m.clone());
        b.assert_bool("lt sel_slt is boolean", slt.clone());
        b.assert_bool("lt sel_sltu is boolean", sltu.clone());
        let active = slt.clone() + sltu.clone();
        b.assert_bool("lt one op per row", active.clone());
        b.assert_zero("lt padding has m = 0", m.clone() * (one - active));

        // Top bytes: sign bit and the 7 bits below it.
        let (sa, ra, sb, rb) = (c.sa.clone(), c.ra.clone(), c.sb.clone(), c.rb.clone());
        b.assert_bool("lt sa is boolean", sa.clone());
        b.assert_bool("lt sb is boolean", sb.clone());
        b.assert_zero(
            "lt a7 = 128 sa + ra",
            c.a[7].clone() - sa.clone() * Felt::new(128) - ra.clone(),
        );
        b.assert_zero(
            "lt b7 = 128 sb + rb",
            c.b[7].clone() - sb.clone() * Felt::new(128) - rb.clone(),
        );
        b.send(
            BUS_BYTE,
            k(1),
            &[k(BYTE_RANGE as u64), ra * Felt::TWO, rb * Felt::TWO, k(0)],
        );

        // a' − b' = d − 2^64·lt, in two 32-bit halves.
        let (borrow, lt) = (c.borrow.clone(), c.lt.clone());
        b.assert_bool("lt borrow is boolean", borrow.clone());
        b.assert_bool("lt lt is boolean", lt.clone());
        let flip = |s: B::Expr| slt.clone() * (k(128) - s * Felt::new(256));
        let limb = |x: &[B::Expr; 8], i: usize| x[i].clone() * Felt::new(1 << (8 * (i % 4)));
        let mut low = borrow.clone() * Felt::new(1 << 32);
        let mut high = lt.clone() * Felt::new(1 << 32) - borrow;
        for i in 0..8 {
            let term = limb(&c.a, i) - limb(&c.b, i) - limb(&c.d, i);
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
                &[
                    k(BYTE_RANGE as u64),
                    c.d[i].clone(),
                    c.d[i + 1].clone(),
                    k(0),
                ],
            );
        }

        let op = slt * Felt::from(ALU_SLT) + sltu * Felt::from(ALU_SLTU);
        let mut values = alloc::vec![op];
        values.extend(c.a.iter().cloned());
        values.extend(c.b.iter().cloned());
        values.push(lt);
        values.extend((1..8).map(|_| k(0)));
        b.receive(BUS_ALU, m, &values);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
