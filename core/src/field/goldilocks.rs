//! The Goldilocks prime field, p = 2^64 − 2^32 + 1.
//!
//! Elements are always stored canonically (`0 <= v < p`), so equality, hashing and
//! serialisation are plain `u64` operations.

use core::fmt;

use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use serde::{Deserialize, Serialize};

use super::Field;

/// The modulus p = 2^64 − 2^32 + 1.
pub const P: u64 = 0xFFFF_FFFF_0000_0001;
/// 2^64 mod p = 2^32 − 1.
const EPSILON: u64 = 0xFFFF_FFFF;

/// An element of the Goldilocks field, canonical (`< P`).
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Felt(u64);

impl Felt {
    pub const ZERO: Felt = Felt(0);
    pub const ONE: Felt = Felt(1);
    pub const TWO: Felt = Felt(2);
    pub const NEG_ONE: Felt = Felt(P - 1);
    /// A generator of the multiplicative group (order p − 1).
    pub const GENERATOR: Felt = Felt(7);
    /// p − 1 = 2^32 · (2^32 − 1).
    pub const TWO_ADICITY: u32 = 32;

    /// Reduces any `u64` into the field.
    #[inline(always)]
    pub const fn new(v: u64) -> Felt {
        Felt(if v >= P { v - P } else { v })
    }

    /// Accepts only canonical values; the parser's entry point.
    #[inline]
    pub const fn from_canonical(v: u64) -> Option<Felt> {
        if v < P {
            Some(Felt(v))
        } else {
            None
        }
    }

    /// The field element of a signed integer.
    #[inline]
    pub const fn from_i64(v: i64) -> Felt {
        if v >= 0 {
            Felt::new(v as u64)
        } else {
            // -v fits in u64 for every i64 including MIN.
            let m = Felt::new(v.unsigned_abs());
            Felt(if m.0 == 0 { 0 } else { P - m.0 })
        }
    }

    #[inline(always)]
    pub const fn as_u64(self) -> u64 {
        self.0
    }

    /// Reduces a 128-bit product: with 2^64 ≡ 2^32 − 1 and 2^96 ≡ −1 (mod p).
    #[inline(always)]
    pub const fn reduce128(x: u128) -> Felt {
        let x_lo = x as u64;
        let x_hi = (x >> 64) as u64;
        let x_hi_hi = x_hi >> 32;
        let x_hi_lo = x_hi & EPSILON;
        let (mut t0, borrow) = x_lo.overflowing_sub(x_hi_hi);
        if borrow {
            // t0 wrapped by 2^64 ≡ EPSILON; cannot underflow again since x_hi_hi < 2^32.
            t0 = t0.wrapping_sub(EPSILON);
        }
        let t1 = x_hi_lo * EPSILON;
        let (sum, carry) = t0.overflowing_add(t1);
        let t2 = sum.wrapping_add(EPSILON * (carry as u64));
        Felt::new(t2)
    }

    /// `self^e` by square and multiply.
    #[inline]
    pub fn exp_u64(self, mut e: u64) -> Felt {
        let mut base = self;
        let mut acc = Felt::ONE;
        while e != 0 {
            if e & 1 == 1 {
                acc *= base;
            }
            base = base * base;
            e >>= 1;
        }
        acc
    }

    /// A primitive 2^bits-th root of unity, or `None` when `bits > 32`: `g^(2^(32 − bits))`
    /// for `g = 7^((p−1)/2^32)`, which generates the 2^32-torsion (a table of the 33 values;
    /// a test recomputes it by squaring).
    #[inline]
    pub fn two_adic_generator(bits: u32) -> Option<Felt> {
        TWO_ADIC_GENERATORS
            .get(bits as usize)
            .map(|&g| Felt::new(g))
    }
}

/// `two_adic_generator(bits)` for `bits` = 0 ..= 32.
const TWO_ADIC_GENERATORS: [u64; 33] = [
    0x0000000000000001,
    0xFFFFFFFF00000000,
    0x0001000000000000,
    0xFFFFFFFEFF000001,
    0xEFFFFFFF00000001,
    0x00003FFFFFFFC000,
    0x0000008000000000,
    0xF80007FF08000001,
    0xBF79143CE60CA966,
    0x1905D02A5C411F4E,
    0x9D8F2AD78BFED972,
    0x0653B4801DA1C8CF,
    0xF2C35199959DFCB6,
    0x1544EF2335D17997,
    0xE0EE099310BBA1E2,
    0xF6B2CFFE2306BAAC,
    0x54DF9630BF79450E,
    0xABD0A6E8AA3D8A0E,
    0x81281A7B05F9BEAC,
    0xFBD41C6B8CAA3302,
    0x30BA2ECD5E93E76D,
    0xF502AEF532322654,
    0x4B2A18ADE67246B5,
    0xEA9D5A1336FBC98B,
    0x86CDCC31C307E171,
    0x4BBAF5976ECFEFD8,
    0xED41D05B78D6E286,
    0x10D78DD8915A171D,
    0x59049500004A4485,
    0xDFA8C93BA46D2666,
    0x7E9BD009B86A0845,
    0x400A7F755588E659,
    0x185629DCDA58878C,
];

impl Field for Felt {
    const ZERO: Self = Felt::ZERO;
    const ONE: Self = Felt::ONE;

    #[inline]
    fn inverse(self) -> Option<Felt> {
        if self.0 == 0 {
            None
        } else {
            Some(self.exp_u64(P - 2))
        }
    }

    #[inline(always)]
    fn square(self) -> Self {
        self * self
    }

    #[inline(always)]
    fn from_felt(f: Felt) -> Self {
        f
    }

    #[inline(always)]
    fn mul_felt(self, f: Felt) -> Self {
        self * f
    }
}

impl fmt::Debug for Felt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for Felt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<u32> for Felt {
    fn from(v: u32) -> Felt {
        Felt(v as u64)
    }
}

impl From<bool> for Felt {
    fn from(v: bool) -> Felt {
        Felt(v as u64)
    }
}

impl Add for Felt {
    type Output = Felt;
    #[inline(always)]
    fn add(self, rhs: Felt) -> Felt {
        let (sum, carry) = self.0.overflowing_add(rhs.0);
        if carry {
            // sum + 2^64 ≡ sum + EPSILON, and this is < p because both inputs are canonical.
            Felt(sum.wrapping_add(EPSILON))
        } else {
            Felt::new(sum)
        }
    }
}

impl Sub for Felt {
    type Output = Felt;
    #[inline(always)]
    fn sub(self, rhs: Felt) -> Felt {
        let (diff, borrow) = self.0.overflowing_sub(rhs.0);
        if borrow {
            // diff − 2^64 + p = diff − EPSILON.
            Felt(diff.wrapping_sub(EPSILON))
        } else {
            Felt(diff)
        }
    }
}

impl Mul for Felt {
    type Output = Felt;
    // On 32-bit cores every 64-bit multiplication is a long sequence: kept out of line there,
    // so each constraint is a call, not a copy (the verifier's code size on a Cortex-M). On
    // Thumb-2 cores the call goes straight to the assembly below.
    #[cfg_attr(target_pointer_width = "64", inline(always))]
    #[cfg_attr(
        all(
            not(target_pointer_width = "64"),
            not(all(target_arch = "arm", target_feature = "thumb2"))
        ),
        inline(never)
    )]
    #[cfg_attr(all(target_arch = "arm", target_feature = "thumb2"), inline(always))]
    fn mul(self, rhs: Felt) -> Felt {
        #[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
        #[allow(unsafe_code)]
        {
            // SAFETY: the routine reads its four argument registers and returns in two; it
            // touches no memory but its own stack frame and keeps the AAPCS (r4–r7 and lr
            // saved and restored, sp restored).
            Felt(unsafe { thumb2::kestrel_gl_mul_thumb2(self.0, rhs.0) })
        }
        #[cfg(not(all(target_arch = "arm", target_feature = "thumb2")))]
        {
            Felt::mul_portable(self, rhs)
        }
    }
}

impl Felt {
    /// `self · rhs` through a 128-bit product and [`Felt::reduce128`]: the multiplication on
    /// every core but Thumb-2, and the reference the Thumb-2 assembly is checked against.
    #[inline(always)]
    pub fn mul_portable(self, rhs: Felt) -> Felt {
        Felt::reduce128((self.0 as u128) * (rhs.0 as u128))
    }

    /// Whether `a · b` (the multiplication this core runs) equals [`Felt::mul_portable`] on
    /// the edge values (0, 1, 2^32 ± 1, p − 1, …) and on 4,096 pseudo-random pairs, some
    /// with a limb at zero or at its maximum. For a core whose multiplication is assembly,
    /// which the host tests cannot run: the firmware calls it at boot.
    pub fn self_test() -> bool {
        let check = |a: u64, b: u64| {
            let (a, b) = (Felt::new(a), Felt::new(b));
            let got = a * b;
            got == a.mul_portable(b) && got.0 < P
        };
        let mut ok = true;
        for &a in &MUL_EDGES {
            for &b in &MUL_EDGES {
                ok &= check(a, b);
            }
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for i in 0..4096u32 {
            let (mut a, mut b) = (next(), next());
            // Some limbs at zero or all ones: the carries' and borrows' edges.
            match i % 8 {
                1 => a &= 0xffff_ffff,
                2 => b |= 0xffff_ffff_0000_0000,
                3 => a |= 0xffff_ffff,
                4 => b &= 0xffff_ffff_0000_0000,
                _ => {}
            }
            ok &= check(a, b);
        }
        ok
    }
}

/// The edge values of [`Felt::self_test`]: each pair of them is checked.
const MUL_EDGES: [u64; 12] = [
    0,
    1,
    2,
    0xffff_ffff,
    0x1_0000_0000,
    0x1_0000_0001,
    0xffff_fffe_ffff_ffff,
    0xffff_ffff_0000_0000,
    P - 2,
    P - 1,
    0x8000_0000_0000_0000,
    0x7fff_ffff_ffff_ffff,
];

// Goldilocks multiplication in Thumb-2 assembly (ARMv7-M, ARMv8-M Mainline): the same value
// as `mul_portable`, about 32 instructions with the call against about 51 compiled from the
// Rust. The firmware checks it against `mul_portable` at boot ([`Felt::self_test`]).
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
#[allow(unsafe_code)]
mod thumb2 {
    core::arch::global_asm!(include_str!("goldilocks_thumb2.s"), options(raw));
    extern "C" {
        pub fn kestrel_gl_mul_thumb2(a: u64, b: u64) -> u64;
    }
}

impl Neg for Felt {
    type Output = Felt;
    #[inline(always)]
    fn neg(self) -> Felt {
        if self.0 == 0 {
            self
        } else {
            Felt(P - self.0)
        }
    }
}

impl AddAssign for Felt {
    #[inline(always)]
    fn add_assign(&mut self, rhs: Felt) {
        *self = *self + rhs;
    }
}

impl SubAssign for Felt {
    #[inline(always)]
    fn sub_assign(&mut self, rhs: Felt) {
        *self = *self - rhs;
    }
}

impl MulAssign for Felt {
    #[inline(always)]
    fn mul_assign(&mut self, rhs: Felt) {
        *self = *self * rhs;
    }
}

impl core::iter::Sum for Felt {
    fn sum<I: Iterator<Item = Felt>>(iter: I) -> Felt {
        iter.fold(Felt::ZERO, |a, b| a + b)
    }
}

impl Serialize for Felt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Fixed width (8 bytes LE) so every element has exactly one encoding.
        self.0.to_le_bytes().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Felt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Felt, D::Error> {
        let v = u64::from_le_bytes(<[u8; 8]>::deserialize(d)?);
        Felt::from_canonical(v)
            .ok_or_else(|| serde::de::Error::custom("non-canonical Goldilocks element"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boot check the firmware runs passes here (where `*` is `mul_portable`), and its
    /// edge values reach each conditional step of the reduction: (x1:x0) < x3 (the borrow),
    /// a carry after adding x2·(2^32 − 1), and a sum ≥ p before the last subtraction.
    #[test]
    fn the_multiplication_self_test_passes_and_covers_the_reduction_steps() {
        assert!(Felt::self_test());
        let (mut borrow, mut carry, mut above_p) = (false, false, false);
        for &a in &MUL_EDGES {
            for &b in &MUL_EDGES {
                let (a, b) = (Felt::new(a).0, Felt::new(b).0);
                let x = (a as u128) * (b as u128);
                let (lo, x2, x3) = (x as u64, ((x >> 64) as u64) & EPSILON, (x >> 96) as u64);
                let (mut t, b0) = lo.overflowing_sub(x3);
                if b0 {
                    t = t.wrapping_sub(EPSILON);
                }
                let (sum, c) = t.overflowing_add(x2 * EPSILON);
                let t2 = sum.wrapping_add(EPSILON * c as u64);
                borrow |= b0;
                carry |= c;
                above_p |= t2 >= P;
            }
        }
        assert!(borrow && carry && above_p, "{borrow} {carry} {above_p}");
    }

    #[test]
    fn two_adic_generators_are_the_squaring_chain() {
        // 7^((p−1)/2^32) has order exactly 2^32; each smaller order is a square.
        let mut g = Felt::GENERATOR.exp_u64((P - 1) >> Felt::TWO_ADICITY);
        for bits in (0..=Felt::TWO_ADICITY).rev() {
            assert_eq!(Felt::two_adic_generator(bits), Some(g), "2^{bits}");
            if bits > 0 {
                assert_ne!(g.exp_u64(1 << (bits - 1)), Felt::ONE, "order of 2^{bits}");
            }
            assert_eq!(g.exp_u64(1 << bits), Felt::ONE);
            g = g * g;
        }
        assert_eq!(Felt::two_adic_generator(33), None);
    }
}
