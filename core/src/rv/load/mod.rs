//! LOAD: one row per load (LB, LH, LW, LD, LBU, LHU, LWU), received from the CPU on
//! [`super::BUS_MEMOP`]; it reads the word(s) holding the loaded bytes through the memory
//! argument and proves the value written to `rd`.
//!
//! # Columns
//!
//! [`LoadCols`] is the layout's source; the index constants are its fields' offsets.
//!
//! | column | meaning |
//! | --- | --- |
//! | `sz[4]` ([`SZ`]) | width one-hot: 1, 2, 4, 8 bytes (all zero on padding rows) |
//! | [`U`] | unsigned (LBU, LHU, LWU) |
//! | `off[8]` ([`OFF`]) | one-hot `addr mod 8` |
//! | [`Q`] | `addr₀ / 8` (`addr₀ = 8·q + off`) |
//! | `addr_hi[3]` ([`ADDR_HI`]) | address bytes 1..4 |
//! | `value[8]` ([`VALUE`]) | the value written to `rd` |
//! | `mem[16]` ([`MEM`]) | word `w` (bytes 0..8) and word `w + 1` (bytes 8..16, zero unless split) |
//! | [`TS`] | memory timestamp |
//! | [`SPLIT`] | the access crosses into word `w + 1` |
//! | [`SIGN`], [`LOW7`] | top loaded byte `= 128·sign + low7` |
//!
//! Derived (linear) expressions: `is_real = Σ sz`, `funct3 = sz₂ + 2·sz₄ + 3·sz₈ + 4·u`,
//! `off = Σ k·off_k`, `addr₀ = 8·q + off`, `w = q + 32·(addr₁ + 256·addr₂ + 65536·addr₃)`,
//! `in_j = [j < width]` (`in₁ = sz₂ + sz₄ + sz₈`, `in₂ = in₃ = sz₄ + sz₈`, `in₄..₇ = sz₈`).
//!
//! # Constraints
//!
//! - `sz_i`, `u`, `is_real`, `off_k`, `sign` boolean; `Σ off_k = is_real`;
//! - `u·(1 − is_real + sz₈) = 0`: unsigned only for widths 1, 2, 4 of a real row (so the
//!   op on the bus is one of `MEMOP_LOAD + 0..=6`; funct3 7 and "LDU" are unprovable);
//! - `split = sz₂·off₇ + sz₄·(off₅ + off₆ + off₇) + sz₈·(is_real − off₀)` (`= [off + width > 8]`);
//! - `(1 − split)·mem_{8+j} = 0`: word `w + 1` is zero when not split;
//! - with `v_j = Σ_k off_k·mem_{k+j}` (the `j`-th loaded byte):
//!   `value₀ = v₀` and, for `j ≥ 1`, `value_j = in_j·v_j + 255·(is_real − in_j)·sign·(1 − u)`
//!   (degree 3): loaded bytes, then the sign fill (signed) or zeros (unsigned);
//! - `sz₁·value₀ + sz₂·value₁ + sz₄·value₃ + sz₈·value₇ = 128·sign + low7` (the top loaded
//!   byte; `low7 < 128` by the lookup below, so `sign` is its top bit).
//!
//! # Interactions
//!
//! - receive [`super::BUS_MEMOP`] `(MEMOP_LOAD + funct3, addr₀, addr_hi[3], value[8], ts)`, mult `is_real`;
//! - send [`super::BUS_MEM_A`] `(w, mem[0..8], mem[0..8], ts, 0)`, mult `is_real − split`;
//! - send [`super::BUS_MEM_S`] `(w, mem[0..16], mem[0..16], ts, 0)`, mult `split` (a read: `wr = 0`);
//! - send [`super::BUS_BYTE`] `(RANGE, q, 2·low7, 0)`, mult `is_real`.
//!
//! `q` is a byte and `addr₀ = 8·q + off` is a canonical byte (the CPU range-checks the
//! address bytes it sends), so `8·q + off < 2048` equals `addr₀` over the integers: `q` is
//! `addr₀ >> 3 < 32` and `off = addr₀ & 7`. Memory bytes come from memory tokens and are
//! canonical, so `value` is a function of memory alone. An all-zero row satisfies every
//! constraint and touches no bus.

use super::{BUS_BYTE, BUS_MEMOP, BUS_MEM_A, BUS_MEM_S, BYTE_RANGE, MEMOP_LOAD};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

crate::columns! {
    /// LOAD's columns (the layout's source).
    pub struct LoadCols {
        /// Width one-hot: 1, 2, 4, 8 bytes.
        sz[4],
        /// Unsigned load (LBU, LHU, LWU).
        u,
        /// One-hot `addr mod 8`.
        off[8],
        /// `addr₀ / 8`.
        q,
        /// Address bytes 1, 2, 3.
        addr_hi[3],
        /// rd's new value.
        value[8],
        /// Word `w`, then word `w + 1` (zero unless split).
        mem[16],
        /// Memory timestamp.
        ts,
        /// The access spans words `w` and `w + 1`.
        split,
        /// Sign bit of the top loaded byte.
        sign,
        /// The top loaded byte's low 7 bits.
        low7,
    }
}

/// Column indices (for the CUDA fill and tests), from [`LoadCols`].
pub const SZ: usize = col!(LoadCols, sz);
pub const U: usize = col!(LoadCols, u);
pub const OFF: usize = col!(LoadCols, off);
pub const Q: usize = col!(LoadCols, q);
pub const ADDR_HI: usize = col!(LoadCols, addr_hi);
pub const VALUE: usize = col!(LoadCols, value);
pub const MEM: usize = col!(LoadCols, mem);
pub const TS: usize = col!(LoadCols, ts);
pub const SPLIT: usize = col!(LoadCols, split);
pub const SIGN: usize = col!(LoadCols, sign);
pub const LOW7: usize = col!(LoadCols, low7);
/// Main columns.
pub const WIDTH: usize = <LoadCols<u8> as Columns<u8>>::WIDTH;

/// The LOAD table.
pub struct LoadAir;

/// `[j < width]` as the sum of the width selectors wider than `j`.
pub(crate) fn in_width<E: Clone + core::ops::Add<Output = E>>(sz: &[E], zero: E, j: usize) -> E {
    [1usize, 2, 4, 8]
        .iter()
        .zip(sz)
        .filter(|(w, _)| j < **w)
        .fold(zero, |a, (_, s)| a + s.clone())
}

/// Constraint names of [`eval_access`], per table.
pub(crate) struct AccessNames {
    pub width_bool: &'static str,
    pub real_bool: &'static str,
    pub off_bool: &'static str,
    pub off_one_hot: &'static str,
    pub split: &'static str,
    pub second_zero: &'static str,
}

/// What LOAD and STORE share: width selectors `sz` and offset `off` one-hot on real rows
/// (`real = Σ sz`), `split = [off + width > 8]`, the second word's bytes zero unless split,
/// the receive of `(op_base + funct3, addr[4], value, ts)` on [`BUS_MEMOP`] with
/// `addr0 = 8q + off`, and the send of `(w, old, new, ts, wr)` on [`BUS_MEM_A`] (one word) or
/// [`BUS_MEM_S`] (two) with `w = q + 32·(addr1 + 256·addr2 + 65536·addr3)`. Returns `real`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn eval_access<B: AirBuilder>(
    b: &mut B,
    names: &AccessNames,
    sz: &[B::Expr; 4],
    off: &[B::Expr; 8],
    q: &B::Expr,
    addr_hi: [B::Expr; 3],
    split: &B::Expr,
    op: B::Expr,
    value: &[B::Expr; 8],
    ts: &B::Expr,
    old: &[B::Expr; 16],
    new: &[B::Expr; 16],
    wr: u64,
) -> B::Expr {
    let k = |v: u64| B::Expr::from(Felt::new(v));
    let real = sz.iter().fold(k(0), |a, s| a + s.clone());
    for s in sz {
        b.assert_bool(names.width_bool, s.clone());
    }
    b.assert_bool(names.real_bool, real.clone());
    for o in off {
        b.assert_bool(names.off_bool, o.clone());
    }
    let off_sum = off.iter().fold(k(0), |a, o| a + o.clone());
    b.assert_zero(names.off_one_hot, off_sum - real.clone());
    let split_expr = sz[1].clone() * off[7].clone()
        + sz[2].clone() * (off[5].clone() + off[6].clone() + off[7].clone())
        + sz[3].clone() * (real.clone() - off[0].clone());
    b.assert_zero(names.split, split.clone() - split_expr);
    for j in 0..8 {
        b.assert_zero(
            names.second_zero,
            (k(1) - split.clone()) * old[8 + j].clone(),
        );
    }

    let off_val = (1..8).fold(k(0), |a, o| a + off[o].clone() * Felt::new(o as u64));
    let addr0 = q.clone() * Felt::new(8) + off_val;
    let w = q.clone()
        + addr_hi[0].clone() * Felt::new(32)
        + addr_hi[1].clone() * Felt::new(32 << 8)
        + addr_hi[2].clone() * Felt::new(32 << 16);
    let mut t = alloc::vec![op, addr0];
    t.extend(addr_hi);
    t.extend(value.iter().cloned());
    t.push(ts.clone());
    b.receive(BUS_MEMOP, real.clone(), &t);
    let access = |n: usize| {
        let mut t = alloc::vec![w.clone()];
        t.extend(old[..n].iter().cloned());
        t.extend(new[..n].iter().cloned());
        t.extend([ts.clone(), k(wr)]);
        t
    };
    b.send(BUS_MEM_A, real.clone() - split.clone(), &access(8));
    b.send(BUS_MEM_S, split.clone(), &access(16));
    real
}

impl Air for LoadAir {
    fn name(&self) -> &str {
        "LOAD"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let k = |v: u64| B::Expr::from(Felt::new(v));
        let c: LoadCols<B::Expr> = LoadCols::from_fn(|i| b.main(i));
        let LoadCols {
            sz,
            u,
            off,
            q,
            addr_hi,
            value,
            mem,
            ts,
            split,
            sign,
            low7,
        } = c;
        let funct3 = sz[1].clone()
            + sz[2].clone() * Felt::new(2)
            + sz[3].clone() * Felt::new(3)
            + u.clone() * Felt::new(4);
        let names = AccessNames {
            width_bool: "load width selector boolean",
            real_bool: "load is_real boolean",
            off_bool: "load offset boolean",
            off_one_hot: "load offset one-hot",
            split: "load split = [off + width > 8]",
            second_zero: "load word w+1 zero unless split",
        };
        // A load leaves memory unchanged: old = new = the two words.
        let real = eval_access(
            b,
            &names,
            &sz,
            &off,
            &q,
            addr_hi,
            &split,
            k(MEMOP_LOAD as u64) + funct3,
            &value,
            &ts,
            &mem,
            &mem,
            0,
        );
        b.assert_bool("load unsigned boolean", u.clone());
        b.assert_zero(
            "load unsigned only for widths 1, 2, 4",
            u.clone() * (k(1) - real.clone() + sz[3].clone()),
        );

        // Loaded bytes and the extension.
        let fill = sign.clone() * (k(1) - u.clone()) * Felt::new(255);
        for j in 0..8 {
            let v = (0..8).fold(k(0), |a, o| a + off[o].clone() * mem[o + j].clone());
            let e = if j == 0 {
                value[0].clone() - v
            } else {
                let inj = in_width(&sz, k(0), j);
                value[j].clone() - inj.clone() * v - (real.clone() - inj) * fill.clone()
            };
            b.assert_zero("load value bytes", e);
        }
        b.assert_bool("load sign boolean", sign.clone());
        let top = sz[0].clone() * value[0].clone()
            + sz[1].clone() * value[1].clone()
            + sz[2].clone() * value[3].clone()
            + sz[3].clone() * value[7].clone();
        b.assert_zero(
            "load top byte = 128 sign + low7",
            top - sign * Felt::new(128) - low7.clone(),
        );

        b.send(
            BUS_BYTE,
            real,
            &[k(BYTE_RANGE as u64), q, low7 * Felt::TWO, k(0)],
        );
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
