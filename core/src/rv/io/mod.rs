//! IO: the read/write transfer chains and the brk-shrink zeroing chains, one row per memory
//! word a chain touches.
//!
//! Three kinds of chain: [`IO_IN`] (read: input bytes written into memory), [`IO_OUT`]
//! (write to fd 1: memory bytes published as output) and [`IO_ZERO`] (a `brk` that lowers
//! the break: the released bytes set to zero).
//!
//! A row covers bytes `lo .. lo + cnt` of word `w` (`cnt ≥ 1`, `lo + cnt ≤ 8`) for the call
//! whose memory timestamp is `ts` (`clk + 1`): it takes the chain token `(kind, 8w + lo, ts,
//! pos)` on [`BUS_IO`] and hands on `(kind, 8w + lo + cnt, ts, pos + cnt)`, accesses the word
//! through the memory argument ([`BUS_MEM_A`]) and, for output, publishes its bytes on
//! [`BUS_OUTPUT`] at positions `pos ..`. ECALL starts a chain with `(kind, buf, clk+1,
//! outpos)` and ends it by taking `(kind, buf + cnt, clk+1, outpos + cnt)`; a zeroing chain
//! runs from the new break to the old one with `pos` starting at 0.
//!
//! # Columns
//!
//! [`IoCols`] is the layout's source; the index constants are its fields' offsets.
//!
//! | columns | meaning |
//! | --- | --- |
//! | [`REAL`] | 1 on real rows |
//! | [`KIND`] | 1 for output ([`IO_OUT`]), else 0 |
//! | [`ZERO`] | 1 for zeroing ([`IO_ZERO`]), else 0; the token's kind is `kind + 2·zero` |
//! | [`TS`], [`POS`] | the call's memory timestamp; the transfer position of byte `lo` |
//! | [`WB`] `[4]` | the word index `w = Σ wbᵢ·256^i`, `w < 2^29` |
//! | [`LO`] | the first byte covered |
//! | [`M`] `[8]` | the bytes covered: one contiguous run; `cnt = Σ mⱼ` |
//! | [`OLD`], [`NEW`] `[8]` | the word before and after |
//! | [`OM`] `[8]` | `kind·mⱼ`: the multiplicity of output byte `j` |
//!
//! # Constraints (every row)
//!
//! - `real`, `kind`, `zero`, `mⱼ` boolean; `kind·zero = 0` (so `kind + 2·zero ∈ {0, 1, 2}`
//!   names exactly one of [`IO_IN`], [`IO_OUT`], [`IO_ZERO`]);
//! - `real = Σⱼ mⱼ·(1 − mⱼ₋₁)` (`m₋₁ = 0`): the number of runs of ones in `m` is `real`, so a
//!   real row has exactly one non-empty contiguous run and a padding row has none;
//! - `lo = Σⱼ j·mⱼ·(1 − mⱼ₋₁)`: the run's first byte;
//! - `kind·(newⱼ − oldⱼ) = 0`: output leaves the word unchanged;
//! - `(1 − kind)·(1 − mⱼ)·(newⱼ − oldⱼ) = 0`: input and zeroing change only the covered
//!   bytes (the input bytes themselves are free witnesses);
//! - `zero·mⱼ·newⱼ = 0`: zeroing sets every covered byte to 0;
//! - `omⱼ = kind·mⱼ` (input and zeroing rows publish nothing).
//!
//! # Interactions
//!
//! - receive [`BUS_IO`] `(kind + 2·zero, 8w + lo, ts, pos)`, send [`BUS_IO`] `(kind + 2·zero,
//!   8w + lo + cnt, ts, pos + cnt)`, send [`BUS_MEM_A`] `(w, old, new, ts, 1 − kind)` (input and zeroing write), multiplicity
//!   `real`;
//! - send [`BUS_OUTPUT`] `(pos + j − lo, oldⱼ)` for each `j`, multiplicity `omⱼ`;
//! - [`BUS_BYTE`] range checks `(wb₀, wb₁)`, `(wb₂, wb₃)`, `(8·wb₃, 0)` (so `w < 2^29`) and
//!   `(new₀, new₁) … (new₆, new₇)`, multiplicity `real`. `old` comes from a memory token and
//!   is canonical; for output it equals `new`.
//!
//! # Soundness
//!
//! Every address is an integer below `2^32 + 1` (`w < 2^29`, `lo + cnt ≤ 8`), so `8w + lo`
//! decomposes uniquely and no field wrap occurs. Along a chain the token's address strictly
//! increases (`cnt ≥ 1`), so the IO rows form a graph without cycles. The token timestamp is
//! `clk + 1` of the call, unique per call (one ECALL per CPU cycle), and every row's token
//! pair carries one `(kind, ts)` with `kind ∈ {0, 1, 2}` fixed by the row's flags; tokens of
//! different calls never meet, and a call runs at most one chain (read, write or brk are
//! exclusive selectors), of the kind its selector fixes: a chain's rows cannot be relabelled
//! to another kind (an input row cannot stand in for a zeroing row, nor either for an output
//! row), since their tokens would no longer match ECALL's. The only source of a
//! call's tokens is ECALL's start token and the only sink its end token, each of multiplicity
//! one, so balancing the bus forces the call's rows to form exactly one path from `buf` to
//! `buf + cnt` (no row off the path: any such row's smallest received address would need a
//! sender), covering each byte in between exactly once. Two rows on the same word would
//! be two accesses of that word at the same `ts`, which the memory argument's freshness
//! check (MEMW_A: `ts − old_ts − 1` is range-checked) rejects, so each word appears once.
//! `pos − address` is invariant along a chain, so the byte at address `a` is published at
//! position `outpos + (a − buf)`: the output is exactly the buffer's bytes, in order.
//!
//! Per kind, each covered byte is then: output — published and unchanged; input — any byte
//! (range-checked), the rest of the word unchanged; zeroing — 0, the rest of the word
//! unchanged. So a read writes exactly `buf .. buf + n`, a write publishes exactly
//! `buf .. buf + len`, and a shrink from `old` to `res` zeroes exactly `res .. old`, each at
//! the call's memory timestamp.

use alloc::vec::Vec;

use super::{BUS_BYTE, BUS_IO, BUS_MEM_A, BUS_OUTPUT, BYTE_RANGE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

#[cfg(doc)]
use super::IO_IN;

crate::columns! {
    /// IO's columns (the layout's source).
    pub struct IoCols {
        /// 1 on real rows.
        real,
        /// 1 on output rows ([`IO_OUT`]).
        kind,
        /// The call's memory timestamp.
        ts,
        /// Transfer position of byte `lo`.
        pos,
        /// Word index bytes.
        wb[4],
        /// First covered byte.
        lo,
        /// Coverage mask.
        m[8],
        /// The word before.
        old[8],
        /// The word after.
        new[8],
        /// Output multiplicities `kind·m`.
        om[8],
        /// 1 on zeroing rows ([`IO_ZERO`]).
        zero,
    }
}

/// Column indices (for the CUDA fill and tests), from [`IoCols`].
pub const REAL: usize = col!(IoCols, real);
pub const KIND: usize = col!(IoCols, kind);
pub const TS: usize = col!(IoCols, ts);
pub const POS: usize = col!(IoCols, pos);
pub const WB: usize = col!(IoCols, wb);
pub const LO: usize = col!(IoCols, lo);
pub const M: usize = col!(IoCols, m);
pub const OLD: usize = col!(IoCols, old);
pub const NEW: usize = col!(IoCols, new);
pub const OM: usize = col!(IoCols, om);
pub const ZERO: usize = col!(IoCols, zero);
/// Main columns.
pub const WIDTH: usize = <IoCols<u8> as Columns<u8>>::WIDTH;

/// The IO table.
pub struct IoAir;

impl Air for IoAir {
    fn name(&self) -> &str {
        "IO"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let c: IoCols<B::Expr> = IoCols::from_fn(|i| b.main(i));
        let k = |v: u64| B::Expr::from(Felt::new(v));
        let (real, kind, zero) = (c.real.clone(), c.kind.clone(), c.zero.clone());
        b.assert_bool("io real boolean", real.clone());
        b.assert_bool("io kind boolean", kind.clone());
        b.assert_bool("io zero boolean", zero.clone());
        b.assert_zero("io one kind", kind.clone() * zero.clone());
        let mut runs = k(0);
        let mut first = k(0);
        let mut cnt = k(0);
        for j in 0..8 {
            let mj = c.m[j].clone();
            b.assert_bool("io mask boolean", mj.clone());
            let rising = if j == 0 {
                mj.clone()
            } else {
                mj.clone() * (k(1) - c.m[j - 1].clone())
            };
            runs = runs + rising.clone();
            first = first + rising * Felt::new(j as u64);
            cnt = cnt + mj.clone();
            let delta = c.new[j].clone() - c.old[j].clone();
            b.assert_zero("io output keeps the word", kind.clone() * delta.clone());
            b.assert_zero(
                "io input keeps uncovered bytes",
                (k(1) - kind.clone()) * (k(1) - mj.clone()) * delta,
            );
            b.assert_zero(
                "io zeroing clears covered bytes",
                zero.clone() * mj.clone() * c.new[j].clone(),
            );
            b.assert_zero(
                "io output multiplicity",
                c.om[j].clone() - kind.clone() * mj,
            );
        }
        b.assert_zero("io one run on real rows", real.clone() - runs);
        b.assert_zero("io lo is the first covered byte", c.lo.clone() - first);

        let w = (0..4).fold(k(0), |a, i| a + c.wb[i].clone() * Felt::new(1 << (8 * i)));
        let addr = w.clone() * Felt::new(8) + c.lo.clone();
        let token_kind = kind + zero * Felt::TWO;
        b.receive(
            BUS_IO,
            real.clone(),
            &[
                token_kind.clone(),
                addr.clone(),
                c.ts.clone(),
                c.pos.clone(),
            ],
        );
        b.send(
            BUS_IO,
            real.clone(),
            &[
                token_kind,
                addr + cnt.clone(),
                c.ts.clone(),
                c.pos.clone() + cnt,
            ],
        );
        let mut access = Vec::with_capacity(18);
        access.push(w);
        access.extend(c.old.iter().cloned());
        access.extend(c.new.iter().cloned());
        access.push(c.ts.clone());
        // Input and zeroing write the word, output reads it.
        access.push(k(1) - c.kind.clone());
        b.send(BUS_MEM_A, real.clone(), &access);
        for j in 0..8 {
            b.send(
                BUS_OUTPUT,
                c.om[j].clone(),
                &[
                    c.pos.clone() + Felt::new(j as u64) - c.lo.clone(),
                    c.old[j].clone(),
                ],
            );
        }

        let range = k(BYTE_RANGE as u64);
        let mut pairs = alloc::vec![
            (c.wb[0].clone(), c.wb[1].clone()),
            (c.wb[2].clone(), c.wb[3].clone()),
            (c.wb[3].clone() * Felt::new(8), k(0)),
        ];
        pairs.extend(
            (0..8)
                .step_by(2)
                .map(|i| (c.new[i].clone(), c.new[i + 1].clone())),
        );
        for (x, y) in pairs {
            b.send(BUS_BYTE, real.clone(), &[range.clone(), x, y, k(0)]);
        }
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
