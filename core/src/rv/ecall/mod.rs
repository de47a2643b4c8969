//! ECALL: one row per system call, received from the CPU on [`BUS_ECALL`]
//! `(clk, a7[8], a0[8], res[8], exit, outpos, outn)`.
//!
//! # Calls
//!
//! One boolean selector per supported call; their sum `is_real` is boolean and is the
//! receive multiplicity, so a padding row (no selector) receives nothing and a CPU ECALL row
//! with any other `a7` or fd finds no row to receive it: the statement is unprovable.
//!
//! | selector | a7 | a0 | effect |
//! | --- | --- | --- | --- |
//! | `exit` | 93 | code | `res = a0`, `exit = 1` |
//! | `wout` | 64 | 1 | reads a1 (buf), a2 (len), both `< 2^32`; `res = len`, `outn = len`; IO chain [`IO_OUT`], `cnt = len` |
//! | `wdbg` | 64 | 2 | reads a1, a2; `res = a2` (the debug text is not proven) |
//! | `read` | 63 | 0 | reads a1 (buf `< 2^32`), a2 (len), [`REG_INPUT`] (`rem`); `n = res = min(len, rem)`; writes [`REG_INPUT`] := `rem − n`; IO chain [`IO_IN`], `cnt = n` |
//! | `brk` | 214 | addr | reads [`REG_BRK`], [`REG_HEAP_LIMIT`], [`REG_HEAP_START`]; `res = a0` if `start ≤ a0 ≤ limit`, else the old break; writes [`REG_BRK`] := `res`; if `res < old` (a shrink), IO chain [`IO_ZERO`] zeroes `res .. old` |
//!
//! `exit` (the bus value) is the `exit` selector itself; `outn = wout · len` (a column).
//!
//! A shrink discards the released heap bytes, as the executor (and Linux/qemu) does: the
//! bytes `res .. old` become zero at memory timestamp `clk + 1`, so memory the break exposes
//! again reads as zero. `shrink = [res <u old]` is proven by LT; a shrink is always an
//! in-range call, since an out-of-range one leaves `res = old`. Both breaks are below 2^32:
//! the break register only ever holds the heap start or an accepted `a0 ≤ limit < 2^32`
//! (and the row checks the high bytes of both anyway), so their low four bytes as field
//! elements are the addresses.
//!
//! # The input stream
//!
//! The executor's `read(0, buf, len)` copies `n = min(len, remaining)` bytes, where
//! `remaining` starts at the length of the private input and every read lowers it by its
//! `n` (so after a short read every later read returns 0). The proof ties the reads to one
//! stream in the same way: [`REG_INPUT`] is a register of the memory argument whose
//! initial value (REGISTER's private initial value, see `register.rs`) is the input
//! length `L < 2^32`, as four range-checked bytes with the high four zero. A `read` row
//! reads it (`rem`, bytes [`REM`], at `4clk+1`) and writes `rem' = rem − n` (bytes
//! [`REM_NEW`], range-checked here, at `4clk+2`), and proves:
//!
//! - `rem = n + rem'` as field elements, with `n < 2^32` (res's high bytes zero, its bytes
//!   canonical from the CPU), `rem' < 2^32` (range-checked bytes) and `rem < 2^32` (the
//!   register only ever holds `L` or an earlier `rem'`, each four canonical bytes and four
//!   zeros): every side is below `2^33 < p`, so this is the integer `n ≤ rem`, `rem' = rem −
//!   n`;
//! - `SLTU(len, n) = 0` on the full 64-bit `len`: `n ≤ len`;
//! - `SLTU(n, len) = short` (a boolean column) and `short · rem' = 0`: a read returning less
//!   than `len` leaves nothing unread.
//!
//! Either `short = 0`: `n = len ≤ rem`; or `short = 1`: `n < len` and `n = rem`. Both are
//! `n = min(len, rem)`. `len` is never used as a field element (it may be ≥ 2^32, even
//! ≥ p): only LT compares it, bytewise. Only ECALL's `read` rows access [`REG_INPUT`] (the
//! CPU's register numbers come from DECODE and are below 32; ECALL's are constants), so by
//! the memory argument the `k`-th read in time sees `rem = L − n₁ − … − nₖ₋₁`: the reads
//! are exactly the executor's on an input of `L` bytes (whose bytes are the ones the IO
//! chains write, and any bytes after them). The final value of [`REG_INPUT`] is REGISTER's
//! final token, unconstrained.
//!
//! # Columns
//!
//! [`EcallCols`] is the layout's source; the index constants are its fields' offsets.
//!
//! | columns | meaning |
//! | --- | --- |
//! | [`SEL_EXIT`], [`SEL_WOUT`], [`SEL_WDBG`], [`SEL_READ`], [`SEL_BRK`] | call selectors |
//! | [`CLK`] | the CPU cycle |
//! | [`A7`], [`A0`], [`RES`] `[8]` | a7, a0 before the call, a0 after |
//! | [`OUTPOS`], [`OUTN`] | output bytes written before the call, and by it |
//! | [`A1`], [`A2`] `[8]` | a1, a2 (zero unless `wout + wdbg + read`) |
//! | [`BRK_OLD`], [`LIMIT`], [`HSTART`] `[8]` | registers 32..35 before the call (zero unless `brk`) |
//! | [`LT_LO`], [`LT_HI`] | `a0 <u heap_start`, `limit <u a0` (zero unless `brk`) |
//! | [`OUT`] | `lt_lo ∨ lt_hi` = `lt_lo + lt_hi − lt_lo·lt_hi`: `a0` out of range |
//! | [`SHRINK`] | `res <u brk_old`: the call lowers the break (zero unless `brk`) |
//! | [`REM`], [`REM_NEW`] `[4]` | [`REG_INPUT`] before and after the call (zero unless `read`) |
//! | [`SHORT`] | `res <u a2`: a short read (zero unless `read`) |
//!
//! # Constraints (every row)
//!
//! With `rw = wout + wdbg + read`, `io = wout + read`, `N = Σᵢ₌₀³ resᵢ·256^i`,
//! `OLD = Σᵢ₌₀³ brk_oldᵢ·256^i`:
//!
//! - selectors boolean, their sum boolean;
//! - `a7₀ = 93·exit + 64·(wout + wdbg) + 63·read + 214·brk`, `a7₁..₇ = 0`;
//! - `rw·(a0₀ − wout − 2·wdbg) = 0`, `rw·a0₁..₇ = 0` (the fd);
//! - `exit·(res − a0) = 0`, `(wout + wdbg)·(res − a2) = 0` bytewise;
//! - `io·a1ᵢ = 0`, `io·resᵢ = 0` for `i ≥ 4` (buf, len, n below 2^32; for `wout`, `res = a2`);
//! - `outn = wout·N`;
//! - `(1 − rw)·a1 = (1 − rw)·a2 = 0`, `(1 − brk)·{brk_old, limit, hstart} = 0` bytewise;
//! - `lt_lo`, `lt_hi` boolean, zero unless `brk`; `out = lt_lo + lt_hi − lt_lo·lt_hi`;
//! - `brk·(resᵢ − a0ᵢ − out·(brk_oldᵢ − a0ᵢ)) = 0` (degree 3);
//! - `shrink` boolean, zero unless `brk`; `shrink·resᵢ = shrink·brk_oldᵢ = 0` for `i ≥ 4`
//!   (both breaks below 2^32, so `N` and `OLD` are the full values);
//! - with `REM = Σᵢ₌₀³ remᵢ·256^i`, `REM' = Σᵢ₌₀³ rem'ᵢ·256^i`: `read·(REM − N − REM') = 0`;
//!   `short` boolean; `short·REM' = 0`; `(1 − read)·{rem, rem', short} = 0`.
//!
//! # Interactions
//!
//! - receive [`BUS_ECALL`] `(clk, a7, a0, res, exit, outpos, outn)`, multiplicity `is_real`;
//! - send [`BUS_REG_ACCESS`] `(11, a1, 4clk+1, 0)`, `(12, a2, 4clk+1, 0)`, multiplicity `rw`;
//! - send [`BUS_REG_ACCESS`] `(REG_BRK, brk_old, 4clk+1, 0)`, `(REG_HEAP_LIMIT, limit,
//!   4clk+1, 0)`, `(REG_HEAP_START, hstart, 4clk+1, 0)`, `(REG_BRK, res, 4clk+2, 1)`,
//!   multiplicity `brk`;
//! - send [`BUS_REG_ACCESS`] `(REG_INPUT, rem‖0⁴, 4clk+1, 0)`, `(REG_INPUT, rem'‖0⁴, 4clk+2,
//!   1)`, multiplicity `read`;
//! - send [`BUS_ALU`] `(SLTU, a2, res, 0)` (`len < n` is false) and `(SLTU, res, a2, short)`,
//!   multiplicity `read`;
//! - send [`BUS_BYTE`] `(RANGE, rem'₀, rem'₁, 0)`, `(RANGE, rem'₂, rem'₃, 0)`, multiplicity
//!   `read`;
//! - send [`BUS_ALU`] `(SLTU, a0, hstart, lt_lo)`, `(SLTU, limit, a0, lt_hi)` and
//!   `(SLTU, res, brk_old, shrink)`, multiplicity `brk`;
//! - send [`BUS_IO`] `(wout, buf, clk+1, outpos)` and receive [`BUS_IO`]
//!   `(wout, buf + N, clk+1, outpos + N)`, multiplicity `io` (`kind = wout` since
//!   [`IO_OUT`] = 1, [`IO_IN`] = 0; `buf = Σᵢ₌₀³ a1ᵢ·256^i`; for `wout`, `N = len`). A
//!   zero-length transfer's two tokens cancel; otherwise IO rows must carry the start token
//!   to the end token (see `io.rs`);
//! - send [`BUS_IO`] `(IO_ZERO, N, clk+1, 0)` and receive [`BUS_IO`] `(IO_ZERO, OLD, clk+1,
//!   OLD − N)`, multiplicity `shrink`: IO rows of kind [`IO_ZERO`] must zero every byte of
//!   `res .. old` (`OLD > N`, so the chain is never empty).
//!
//! All bytes here but `rem'` are canonical without lookups of this table's own: the bus
//! values come from the CPU (which range-checks `res`), register values from the memory
//! argument, and the comparison flags from LT; `rem'` (the value this row writes) is
//! range-checked here. A padding row is all zeros.

use alloc::vec;

use super::{
    ALU_SLTU, BUS_ALU, BUS_BYTE, BUS_ECALL, BUS_IO, BUS_REG_ACCESS, BYTE_RANGE, IO_OUT, IO_ZERO,
    REG_BRK, REG_HEAP_LIMIT, REG_HEAP_START, REG_INPUT, SYS_BRK, SYS_EXIT, SYS_READ, SYS_WRITE,
};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

crate::columns! {
    /// ECALL's columns (the layout's source).
    pub struct EcallCols {
        /// `exit(a0)`.
        sel_exit,
        /// `write(1, buf, len)`: public output.
        sel_wout,
        /// `write(2, buf, len)`: debug text.
        sel_wdbg,
        /// `read(0, buf, len)`: private input.
        sel_read,
        /// `brk(addr)`.
        sel_brk,
        /// The CPU cycle of the call.
        clk,
        /// a7 (the call number).
        a7[8],
        /// a0 before the call.
        a0[8],
        /// a0 after the call.
        res[8],
        /// Public output bytes written before the call.
        outpos,
        /// Public output bytes this call writes.
        outn,
        /// a1 (buf).
        a1[8],
        /// a2 (len).
        a2[8],
        /// The program break before the call.
        brk_old[8],
        /// The heap limit.
        limit[8],
        /// The heap start.
        hstart[8],
        /// `a0 <u heap_start`.
        lt_lo,
        /// `limit <u a0`.
        lt_hi,
        /// `lt_lo ∨ lt_hi`.
        out,
        /// `res <u brk_old`: the call lowers the break.
        shrink,
        /// [`REG_INPUT`] before a read.
        rem[4],
        /// [`REG_INPUT`] after a read (`rem − n`).
        rem_new[4],
        /// `res <u a2`: a read returned less than asked.
        short,
    }
}

/// Column indices (for the CUDA fill and tests), from [`EcallCols`].
pub const SEL_EXIT: usize = col!(EcallCols, sel_exit);
pub const SEL_WOUT: usize = col!(EcallCols, sel_wout);
pub const SEL_WDBG: usize = col!(EcallCols, sel_wdbg);
pub const SEL_READ: usize = col!(EcallCols, sel_read);
pub const SEL_BRK: usize = col!(EcallCols, sel_brk);
pub const CLK: usize = col!(EcallCols, clk);
pub const A7: usize = col!(EcallCols, a7);
pub const A0: usize = col!(EcallCols, a0);
pub const RES: usize = col!(EcallCols, res);
pub const OUTPOS: usize = col!(EcallCols, outpos);
pub const OUTN: usize = col!(EcallCols, outn);
pub const A1: usize = col!(EcallCols, a1);
pub const A2: usize = col!(EcallCols, a2);
pub const BRK_OLD: usize = col!(EcallCols, brk_old);
pub const LIMIT: usize = col!(EcallCols, limit);
pub const HSTART: usize = col!(EcallCols, hstart);
pub const LT_LO: usize = col!(EcallCols, lt_lo);
pub const LT_HI: usize = col!(EcallCols, lt_hi);
pub const OUT: usize = col!(EcallCols, out);
pub const SHRINK: usize = col!(EcallCols, shrink);
pub const REM: usize = col!(EcallCols, rem);
pub const REM_NEW: usize = col!(EcallCols, rem_new);
pub const SHORT: usize = col!(EcallCols, short);
/// Main columns.
pub const WIDTH: usize = <EcallCols<u8> as Columns<u8>>::WIDTH;

/// The register number of a1.
const REG_A1: u64 = 11;
/// The register number of a2.
const REG_A2: u64 = 12;

/// The ECALL table.
pub struct EcallAir;

impl Air for EcallAir {
    fn name(&self) -> &str {
        "ECALL"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let c: EcallCols<B::Expr> = EcallCols::from_fn(|i| b.main(i));
        let k = |v: u64| B::Expr::from(Felt::new(v));
        let (exit, wout, wdbg, read, brk) = (
            c.sel_exit.clone(),
            c.sel_wout.clone(),
            c.sel_wdbg.clone(),
            c.sel_read.clone(),
            c.sel_brk.clone(),
        );
        for s in [&exit, &wout, &wdbg, &read, &brk] {
            b.assert_bool("ecall selector boolean", s.clone());
        }
        let is_real = exit.clone() + wout.clone() + wdbg.clone() + read.clone() + brk.clone();
        b.assert_bool("ecall one call per row", is_real.clone());
        let rw = wout.clone() + wdbg.clone() + read.clone();
        let io = wout.clone() + read.clone();
        let write = wout.clone() + wdbg.clone();

        // The call number and the fd.
        let number = exit.clone() * Felt::from(SYS_EXIT)
            + write.clone() * Felt::from(SYS_WRITE)
            + read.clone() * Felt::from(SYS_READ)
            + brk.clone() * Felt::from(SYS_BRK);
        b.assert_zero("ecall a7 is the selected call", c.a7[0].clone() - number);
        for i in 1..8 {
            b.assert_zero("ecall a7 high bytes", c.a7[i].clone());
        }
        b.assert_zero(
            "ecall fd",
            rw.clone() * (c.a0[0].clone() - wout.clone() - wdbg.clone() * Felt::TWO),
        );
        for i in 1..8 {
            b.assert_zero("ecall fd high bytes", rw.clone() * c.a0[i].clone());
        }

        // Results and bounds.
        for i in 0..8 {
            b.assert_zero(
                "ecall exit res = a0",
                exit.clone() * (c.res[i].clone() - c.a0[i].clone()),
            );
            b.assert_zero(
                "ecall write res = a2",
                write.clone() * (c.res[i].clone() - c.a2[i].clone()),
            );
            if i >= 4 {
                b.assert_zero("ecall buf below 2^32", io.clone() * c.a1[i].clone());
                b.assert_zero("ecall len, n below 2^32", io.clone() * c.res[i].clone());
            }
        }
        let lin4 =
            |x: &[B::Expr]| (0..4).fold(k(0), |a, i| a + x[i].clone() * Felt::new(1 << (8 * i)));
        let n = lin4(&c.res);
        let buf = lin4(&c.a1);
        b.assert_zero("ecall outn", c.outn.clone() - wout.clone() * n.clone());

        // Unused register columns are zero.
        for i in 0..8 {
            for x in [&c.a1, &c.a2] {
                b.assert_zero("ecall a1, a2 unused", (k(1) - rw.clone()) * x[i].clone());
            }
            for x in [&c.brk_old, &c.limit, &c.hstart] {
                b.assert_zero(
                    "ecall brk registers unused",
                    (k(1) - brk.clone()) * x[i].clone(),
                );
            }
        }

        // brk.
        let (lt_lo, lt_hi) = (c.lt_lo.clone(), c.lt_hi.clone());
        b.assert_bool("ecall lt_lo boolean", lt_lo.clone());
        b.assert_bool("ecall lt_hi boolean", lt_hi.clone());
        b.assert_zero("ecall lt_lo unused", (k(1) - brk.clone()) * lt_lo.clone());
        b.assert_zero("ecall lt_hi unused", (k(1) - brk.clone()) * lt_hi.clone());
        b.assert_zero(
            "ecall out = lt_lo or lt_hi",
            c.out.clone() - lt_lo.clone() - lt_hi.clone() + lt_lo.clone() * lt_hi.clone(),
        );
        for i in 0..8 {
            b.assert_zero(
                "ecall brk result",
                brk.clone()
                    * (c.res[i].clone()
                        - c.a0[i].clone()
                        - c.out.clone() * (c.brk_old[i].clone() - c.a0[i].clone())),
            );
        }

        // brk shrink.
        let shrink = c.shrink.clone();
        b.assert_bool("ecall shrink boolean", shrink.clone());
        b.assert_zero("ecall shrink unused", (k(1) - brk.clone()) * shrink.clone());
        for i in 4..8 {
            b.assert_zero(
                "ecall shrink res below 2^32",
                shrink.clone() * c.res[i].clone(),
            );
            b.assert_zero(
                "ecall shrink old break below 2^32",
                shrink.clone() * c.brk_old[i].clone(),
            );
        }
        let old = lin4(&c.brk_old);

        // read: n = min(len, rem), rem' = rem − n.
        let short = c.short.clone();
        b.assert_bool("ecall short boolean", short.clone());
        b.assert_zero("ecall short unused", (k(1) - read.clone()) * short.clone());
        for i in 0..4 {
            for x in [&c.rem, &c.rem_new] {
                b.assert_zero(
                    "ecall input registers unused",
                    (k(1) - read.clone()) * x[i].clone(),
                );
            }
        }
        let (rem, rem_new) = (lin4(&c.rem), lin4(&c.rem_new));
        b.assert_zero(
            "ecall read consumes n input bytes",
            read.clone() * (rem - n.clone() - rem_new.clone()),
        );
        b.assert_zero(
            "ecall short read exhausts the input",
            short.clone() * rem_new,
        );

        // Interactions.
        let mut call = vec![c.clk.clone()];
        call.extend(c.a7.iter().cloned());
        call.extend(c.a0.iter().cloned());
        call.extend(c.res.iter().cloned());
        call.extend([exit, c.outpos.clone(), c.outn.clone()]);
        b.receive(BUS_ECALL, is_real, &call);

        let ts = |j: u64| c.clk.clone() * Felt::new(4) + Felt::new(j);
        let access = |reg: u64, x: &[B::Expr; 8], j: u64, w: u64| {
            let mut t = vec![k(reg)];
            t.extend(x.iter().cloned());
            t.extend([ts(j), k(w)]);
            t
        };
        b.send(BUS_REG_ACCESS, rw.clone(), &access(REG_A1, &c.a1, 1, 0));
        b.send(BUS_REG_ACCESS, rw, &access(REG_A2, &c.a2, 1, 0));
        let input = |x: &[B::Expr; 4], j: u64, w: u64| {
            let mut t = vec![k(REG_INPUT as u64)];
            t.extend(x.iter().cloned());
            t.extend((4..8).map(|_| k(0)));
            t.extend([ts(j), k(w)]);
            t
        };
        b.send(BUS_REG_ACCESS, read.clone(), &input(&c.rem, 1, 0));
        b.send(BUS_REG_ACCESS, read.clone(), &input(&c.rem_new, 2, 1));
        for (reg, x, j, w) in [
            (REG_BRK, &c.brk_old, 1, 0),
            (REG_HEAP_LIMIT, &c.limit, 1, 0),
            (REG_HEAP_START, &c.hstart, 1, 0),
            (REG_BRK, &c.res, 2, 1),
        ] {
            b.send(BUS_REG_ACCESS, brk.clone(), &access(reg as u64, x, j, w));
        }

        let alu = |a: &[B::Expr; 8], bb: &[B::Expr; 8], cc: B::Expr| {
            let mut t = vec![k(ALU_SLTU as u64)];
            t.extend(a.iter().cloned());
            t.extend(bb.iter().cloned());
            t.push(cc);
            t.extend((1..8).map(|_| k(0)));
            t
        };
        b.send(BUS_ALU, read.clone(), &alu(&c.a2, &c.res, k(0)));
        b.send(BUS_ALU, read.clone(), &alu(&c.res, &c.a2, short));
        let range = k(BYTE_RANGE as u64);
        for i in [0, 2] {
            b.send(
                BUS_BYTE,
                read.clone(),
                &[
                    range.clone(),
                    c.rem_new[i].clone(),
                    c.rem_new[i + 1].clone(),
                    k(0),
                ],
            );
        }
        b.send(BUS_ALU, brk.clone(), &alu(&c.a0, &c.hstart, lt_lo));
        b.send(BUS_ALU, brk.clone(), &alu(&c.limit, &c.a0, lt_hi));
        b.send(BUS_ALU, brk, &alu(&c.res, &c.brk_old, shrink.clone()));

        let kind = wout.clone() * Felt::from(IO_OUT);
        let ts1 = c.clk.clone() + Felt::ONE;
        let start = [kind.clone(), buf.clone(), ts1.clone(), c.outpos.clone()];
        let end = [
            kind,
            buf + n.clone(),
            ts1.clone(),
            c.outpos.clone() + n.clone(),
        ];
        b.send(BUS_IO, io.clone(), &start);
        b.receive(BUS_IO, io, &end);

        let zero = k(IO_ZERO as u64);
        let start = [zero.clone(), n.clone(), ts1.clone(), k(0)];
        let end = [zero, old.clone(), ts1, old - n];
        b.send(BUS_IO, shrink.clone(), &start);
        b.receive(BUS_IO, shrink, &end);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
