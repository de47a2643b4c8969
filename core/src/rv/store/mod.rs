//! STORE: one row per store (SB, SH, SW, SD), received from the CPU on
//! [`super::BUS_MEMOP`]; it rewrites the word(s) holding the stored bytes through the memory
//! argument.
//!
//! # Columns
//!
//! [`StoreCols`] is the layout's source; the index constants are its fields' offsets.
//!
//! | column | meaning |
//! | --- | --- |
//! | `sz[4]` ([`SZ`]) | width one-hot: 1, 2, 4, 8 bytes (all zero on padding rows) |
//! | `off[8]` ([`OFF`]) | one-hot `addr mod 8` |
//! | [`Q`] | `addr₀ / 8` (`addr₀ = 8·q + off`) |
//! | `addr_hi[3]` ([`ADDR_HI`]) | address bytes 1..4 |
//! | `value[8]` ([`VALUE`]) | rs2's value |
//! | `old[16]` ([`OLD`]) | words `w`, `w + 1` before (bytes 8..16 zero unless split) |
//! | `new[16]` ([`NEW`]) | words `w`, `w + 1` after (bytes 8..16 zero unless split) |
//! | [`TS`] | memory timestamp |
//! | [`SPLIT`] | the access crosses into word `w + 1` |
//!
//! Derived (linear) expressions: `is_real = Σ sz`, `funct3 = sz₂ + 2·sz₄ + 3·sz₈`,
//! `off = Σ k·off_k`, `addr₀ = 8·q + off`, `w = q + 32·(addr₁ + 256·addr₂ + 65536·addr₃)`,
//! `in_j = [j < width]` (`in₁ = sz₂ + sz₄ + sz₈`, `in₂ = in₃ = sz₄ + sz₈`, `in₄..₇ = sz₈`).
//!
//! # Constraints
//!
//! - `sz_i`, `is_real`, `off_k` boolean; `Σ off_k = is_real` (so funct3 is `0..=3`: SB..SD);
//! - `split = sz₂·off₇ + sz₄·(off₅ + off₆ + off₇) + sz₈·(is_real − off₀)` (`= [off + width > 8]`);
//! - `(1 − split)·old_{8+j} = 0`: word `w + 1` is zero when not split;
//! - for every position `i ∈ 0..16` (degree 3):
//!   `new_i − old_i = Σ_{k ≤ i < k+8} off_k·c_{i−k}·(value_{i−k} − old_i)` with `c₀ = 1`,
//!   `c_j = in_j`: the byte at `i` becomes `value_{i−off}` when `0 ≤ i − off < width` and is
//!   unchanged otherwise (so `new[8..16]` is zero when not split).
//!
//! # Interactions
//!
//! - receive [`super::BUS_MEMOP`] `(MEMOP_STORE + funct3, addr₀, addr_hi[3], value[8], ts)`, mult `is_real`;
//! - send [`super::BUS_MEM_A`] `(w, old[0..8], new[0..8], ts, 1)`, mult `is_real − split`;
//! - send [`super::BUS_MEM_S`] `(w, old[0..16], new[0..16], ts, 1)`, mult `split` (a write: `wr = 1`, so no read-only word can be stored to);
//! - send [`super::BUS_BYTE`] `(RANGE, q, 8·q, 0)`, mult `is_real`: `q` is an integer below 32.
//!
//! `value` is canonical (the CPU range-checks rs2), `old` comes from memory tokens, so `new`
//! is canonical. An all-zero row satisfies every constraint and touches no bus.

use super::load::{eval_access, in_width, AccessNames};
use super::{BUS_BYTE, BYTE_RANGE, MEMOP_STORE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

crate::columns! {
    /// STORE's columns (the layout's source).
    pub struct StoreCols {
        /// Width one-hot: 1, 2, 4, 8 bytes.
        sz[4],
        /// One-hot `addr mod 8`.
        off[8],
        /// `addr₀ / 8`.
        q,
        /// Address bytes 1, 2, 3.
        addr_hi[3],
        /// rs2's value.
        value[8],
        /// Words `w`, `w + 1` before the store.
        old[16],
        /// Words `w`, `w + 1` after the store.
        new[16],
        /// Memory timestamp.
        ts,
        /// The access spans words `w` and `w + 1`.
        split,
    }
}

/// Column indices (for the CUDA fill and tests), from [`StoreCols`].
pub const SZ: usize = col!(StoreCols, sz);
pub const OFF: usize = col!(StoreCols, off);
pub const Q: usize = col!(StoreCols, q);
pub const ADDR_HI: usize = col!(StoreCols, addr_hi);
pub const VALUE: usize = col!(StoreCols, value);
pub const OLD: usize = col!(StoreCols, old);
pub const NEW: usize = col!(StoreCols, new);
pub const TS: usize = col!(StoreCols, ts);
pub const SPLIT: usize = col!(StoreCols, split);
/// Main columns.
pub const WIDTH: usize = <StoreCols<u8> as Columns<u8>>::WIDTH;

/// The STORE table.
pub struct StoreAir;

impl Air for StoreAir {
    fn name(&self) -> &str {
        "STORE"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let k = |v: u64| B::Expr::from(Felt::new(v));
        let c: StoreCols<B::Expr> = StoreCols::from_fn(|i| b.main(i));
        let StoreCols {
            sz,
            off,
            q,
            addr_hi,
            value,
            old,
            new,
            ts,
            split,
        } = c;
        let funct3 = sz[1].clone() + sz[2].clone() * Felt::new(2) + sz[3].clone() * Felt::new(3);
        let names = AccessNames {
            width_bool: "store width selector boolean",
            real_bool: "store is_real boolean",
            off_bool: "store offset boolean",
            off_one_hot: "store offset one-hot",
            split: "store split = [off + width > 8]",
            second_zero: "store old word w+1 zero unless split",
        };
        let real = eval_access(
            b,
            &names,
            &sz,
            &off,
            &q,
            addr_hi,
            &split,
            k(MEMOP_STORE as u64) + funct3,
            &value,
            &ts,
            &old,
            &new,
            1,
        );

        // Written bytes take the value's bytes; the others keep theirs.
        let c: [B::Expr; 8] = core::array::from_fn(|j| in_width(&sz, k(0), j));
        for i in 0..16 {
            let mut e = new[i].clone() - old[i].clone();
            for (kk, o) in off.iter().enumerate() {
                if kk > i || i - kk >= 8 {
                    continue;
                }
                let j = i - kk;
                let diff = value[j].clone() - old[i].clone();
                e = if j == 0 {
                    e - o.clone() * diff
                } else {
                    e - o.clone() * c[j].clone() * diff
                };
            }
            b.assert_zero("store new bytes", e);
        }

        b.send(
            BUS_BYTE,
            real,
            &[k(BYTE_RANGE as u64), q.clone(), q * Felt::new(8), k(0)],
        );
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
