//! Goldilocks, its cubic extension, and the operations every other module shares.

mod ext3;
mod goldilocks;

pub use ext3::{Ext3, W};
pub use goldilocks::{Felt, P};

use alloc::vec::Vec;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// What generic code (NTT, FRI folding, LogUp) needs from Goldilocks and its extension.
pub trait Field:
    Copy
    + Default
    + PartialEq
    + Eq
    + core::fmt::Debug
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    /// The multiplicative inverse, `None` for zero.
    fn inverse(self) -> Option<Self>;
    fn square(self) -> Self;
    fn from_felt(f: Felt) -> Self;
    fn mul_felt(self, f: Felt) -> Self;
}

/// Montgomery's trick: all inverses with one field inversion. `None` if any input is zero.
pub fn batch_inverse<F: Field>(values: &[F]) -> Option<Vec<F>> {
    let mut out = Vec::with_capacity(values.len());
    let mut acc = F::ONE;
    for &v in values {
        out.push(acc);
        acc *= v;
    }
    let mut inv = acc.inverse()?;
    for i in (0..values.len()).rev() {
        out[i] *= inv;
        inv *= values[i];
    }
    Some(out)
}

/// [`batch_inverse`] in place, with `scratch` for the running products (cleared, and
/// reused across calls); `false` (and `values` unspecified) if any input is zero.
pub fn batch_inverse_in_place<F: Field>(values: &mut [F], scratch: &mut Vec<F>) -> bool {
    scratch.clear();
    let mut acc = F::ONE;
    for &v in values.iter() {
        scratch.push(acc);
        acc *= v;
    }
    let Some(mut inv) = acc.inverse() else {
        return false;
    };
    for i in (0..values.len()).rev() {
        let v = values[i];
        values[i] = scratch[i] * inv;
        inv *= v;
    }
    true
}

/// `base^0, base^1, …` (`n` of them).
pub fn powers<F: Field>(base: F, n: usize) -> Vec<F> {
    let mut out = Vec::with_capacity(n);
    let mut cur = F::ONE;
    for _ in 0..n {
        out.push(cur);
        cur *= base;
    }
    out
}

/// Reverses the low `bits` bits of `i`.
#[inline(always)]
pub const fn bit_reverse(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}
