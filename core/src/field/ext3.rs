//! The cubic extension F_p[X] / (X^3 − W) with W = 7.
//!
//! 7 generates F_p^*, and 3 divides p − 1, so 7 is not a cube; a cubic with no root is
//! irreducible, which `x3_minus_7_is_irreducible` in `core/tests/field_props.rs` checks.

use core::fmt;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use serde::{Deserialize, Serialize};

use super::{Felt, Field};

/// The non-residue: X^3 = W.
pub const W: Felt = Felt::GENERATOR;

/// `c0 + c1·X + c2·X²`.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ext3(pub [Felt; 3]);

impl Ext3 {
    pub const ZERO: Ext3 = Ext3([Felt::ZERO; 3]);
    pub const ONE: Ext3 = Ext3([Felt::ONE, Felt::ZERO, Felt::ZERO]);
    /// Basis element X.
    pub const X: Ext3 = Ext3([Felt::ZERO, Felt::ONE, Felt::ZERO]);

    #[inline(always)]
    pub const fn new(c0: Felt, c1: Felt, c2: Felt) -> Ext3 {
        Ext3([c0, c1, c2])
    }

    /// The coordinates in the basis (1, X, X²).
    #[inline(always)]
    pub const fn coords(self) -> [Felt; 3] {
        self.0
    }

    /// Whether this element lies in the base field.
    #[inline]
    pub fn is_base(self) -> bool {
        self.0[1] == Felt::ZERO && self.0[2] == Felt::ZERO
    }

    /// `self^e` by square and multiply.
    pub fn exp_u64(self, mut e: u64) -> Ext3 {
        let mut base = self;
        let mut acc = Ext3::ONE;
        while e != 0 {
            if e & 1 == 1 {
                acc *= base;
            }
            base = base.square();
            e >>= 1;
        }
        acc
    }

    /// Recombines coordinate values `f_k(z)` of a polynomial stored as three base columns.
    #[inline]
    pub fn from_coord_evals(e: [Ext3; 3]) -> Ext3 {
        e[0] + e[1] * Ext3::X + e[2] * Ext3::X.square()
    }
}

impl Field for Ext3 {
    const ZERO: Self = Ext3::ZERO;
    const ONE: Self = Ext3::ONE;

    fn inverse(self) -> Option<Ext3> {
        let [a0, a1, a2] = self.0;
        // Adjugate of the multiplication matrix; `norm` is the field norm N(a) ∈ F_p.
        let c0 = a0 * a0 - W * a1 * a2;
        let c1 = W * a2 * a2 - a0 * a1;
        let c2 = a1 * a1 - a0 * a2;
        let norm = a0 * c0 + W * (a2 * c1 + a1 * c2);
        let inv = norm.inverse()?;
        Some(Ext3([c0 * inv, c1 * inv, c2 * inv]))
    }

    #[inline(always)]
    fn square(self) -> Ext3 {
        self * self
    }

    #[inline(always)]
    fn from_felt(f: Felt) -> Ext3 {
        Ext3([f, Felt::ZERO, Felt::ZERO])
    }

    #[cfg_attr(target_pointer_width = "64", inline(always))]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn mul_felt(self, f: Felt) -> Ext3 {
        Ext3([self.0[0] * f, self.0[1] * f, self.0[2] * f])
    }
}

impl From<Felt> for Ext3 {
    #[inline(always)]
    fn from(f: Felt) -> Ext3 {
        Ext3::from_felt(f)
    }
}

impl fmt::Debug for Ext3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.0[0], self.0[1], self.0[2])
    }
}

impl Add for Ext3 {
    type Output = Ext3;
    #[cfg_attr(target_pointer_width = "64", inline(always))]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn add(self, r: Ext3) -> Ext3 {
        Ext3([self.0[0] + r.0[0], self.0[1] + r.0[1], self.0[2] + r.0[2]])
    }
}

impl Sub for Ext3 {
    type Output = Ext3;
    #[cfg_attr(target_pointer_width = "64", inline(always))]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn sub(self, r: Ext3) -> Ext3 {
        Ext3([self.0[0] - r.0[0], self.0[1] - r.0[1], self.0[2] - r.0[2]])
    }
}

impl Neg for Ext3 {
    type Output = Ext3;
    #[inline(always)]
    fn neg(self) -> Ext3 {
        Ext3([-self.0[0], -self.0[1], -self.0[2]])
    }
}

impl Mul for Ext3 {
    type Output = Ext3;
    // On 32-bit cores every 64-bit multiplication is a long sequence: kept out of line there,
    // so each constraint is a call, not a copy (the verifier's code size on a Cortex-M).
    #[cfg_attr(target_pointer_width = "64", inline(always))]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn mul(self, r: Ext3) -> Ext3 {
        let [a0, a1, a2] = self.0;
        let [b0, b1, b2] = r.0;
        Ext3([
            a0 * b0 + W * (a1 * b2 + a2 * b1),
            a0 * b1 + a1 * b0 + W * (a2 * b2),
            a0 * b2 + a1 * b1 + a2 * b0,
        ])
    }
}

impl Add<Felt> for Ext3 {
    type Output = Ext3;
    #[inline(always)]
    fn add(self, r: Felt) -> Ext3 {
        Ext3([self.0[0] + r, self.0[1], self.0[2]])
    }
}

impl Sub<Felt> for Ext3 {
    type Output = Ext3;
    #[inline(always)]
    fn sub(self, r: Felt) -> Ext3 {
        Ext3([self.0[0] - r, self.0[1], self.0[2]])
    }
}

impl Mul<Felt> for Ext3 {
    type Output = Ext3;
    #[inline(always)]
    fn mul(self, r: Felt) -> Ext3 {
        self.mul_felt(r)
    }
}

impl AddAssign for Ext3 {
    #[inline(always)]
    fn add_assign(&mut self, r: Ext3) {
        *self = *self + r;
    }
}

impl SubAssign for Ext3 {
    #[inline(always)]
    fn sub_assign(&mut self, r: Ext3) {
        *self = *self - r;
    }
}

impl MulAssign for Ext3 {
    #[inline(always)]
    fn mul_assign(&mut self, r: Ext3) {
        *self = *self * r;
    }
}

impl core::iter::Sum for Ext3 {
    fn sum<I: Iterator<Item = Ext3>>(iter: I) -> Ext3 {
        iter.fold(Ext3::ZERO, |a, b| a + b)
    }
}
