//! CPU: one row per executed instruction (then padding rows up to a power of two).
//!
//! A row looks its instruction up in DECODE, reads `rs1` and `rs2` and writes `rd` through
//! MEMW_R, computes its result — adds, subtracts (and their W forms), LUI/AUIPC (as adds of
//! a DECODE constant to x0), byte logic through BITWISE, jumps — or dispatches it to an ALU
//! table, to LOAD/STORE (with the address from its adder: `rs1 + imm`, below 2^32, memory
//! timestamp `clk + 1`) or to ECALL, follows the pc, and ends with the exit call, whose
//! argument becomes the public exit code, or with a handoff to the next segment. `outpos`
//! counts the public output bytes written before the row (a write to fd 1 adds `outn`).
//! The W forms of add/sub are folded into this table (a sign-extension of the low word
//! needs two columns here, far less than a CPU32 table's copy of the dispatch); the other
//! W forms live in the ALU tables that compute them.
//!
//! # Segments
//!
//! A run may be proven as several segments, each with its own CPU table. A table's rows
//! are consecutive cycles from some `clk0` (its row 0), at some pc and output position.
//! Row 0 (`first`) sends the [`BUS_ENTRY`] token `(clk, pc, outpos)` of its row; a row
//! that ends a segment without ending the run (`handoff`, the last real row) receives
//! `(clk + 1, next_pc, outpos + outn)`, exactly what the next segment's row 0 sends; the
//! last segment ends with the exit call instead. DECODE's entry row receives
//! `(0, entry, 0)`, so no constraint here pins row 0's clock or output position: the
//! token does.
//!
//! Why the segments' clocks are one consecutive range from 0, so every register and
//! memory timestamp is unique: every token is sent once and received once (the buses
//! balance). Follow the chain from DECODE's `(0, entry, 0)`: it is sent by the row 0 of
//! some segment `A` with clock 0; `A`'s rows have clocks `0 .. n_A` and either `A` exits
//! (then the chain ends, and so does the run: the exit call is unique) or its handoff
//! receives `(n_A, …)`, which some segment `B`'s row 0 sends, and so on. Every segment's
//! row 0 sends one token, so every segment is on one such chain or on a cycle of segments
//! whose tokens are received only among themselves. Such a cycle would return to its own
//! first clock after `Σ n` steps of `+1`, that is `Σ n ≡ 0 (mod p)`: impossible with
//! fewer than 2^36 rows in all. So the segments form the one chain from 0, their clock
//! ranges are consecutive and disjoint, and exactly one of them (the last) exits.
//!
//! # Columns
//!
//! [`CpuCols`] is the layout's source; the constants are its offsets. Its `dec` cells are
//! a copy of the DECODE tuple's values ([`DecodeFields`]): the constraints read them by name
//! (`DecodeFields::read(&row.dec)`), and the constants of the named fields (`BR_NEG`,
//! `USE_IMM`, `WR`, `IMM`, …) are [`DEC`] plus their [`DecodeFields`] offsets.

use alloc::vec::Vec;

use super::decode::{class, DecodeFields, FIELDS};
use super::{
    BUS_ALU, BUS_BYTE, BUS_DECODE, BUS_ECALL, BUS_ENTRY, BUS_EXIT, BUS_MEMOP, BUS_REG_ACCESS,
    BYTE_RANGE,
};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

crate::columns! {
    /// CPU's columns.
    pub struct CpuCols {
        /// `1` on a real row (an executed instruction), `0` on padding.
        is_real,
        /// `1` on row 0.
        first,
        /// The row's clock: the segment's first clock plus the row's index.
        clk,
        pc,
        next_pc,
        /// The DECODE fields ([`DecodeFields`], see [`super::decode::Decoded::fields`]).
        dec[FIELDS],
        /// `rs1`'s value bytes.
        rs1v[8],
        /// `rs2`'s value bytes.
        rs2v[8],
        /// Operand b's bytes (the immediate or `rs2`'s value).
        opb[8],
        /// The adder's output bytes.
        sum[8],
        /// The adder's byte carries.
        carry[8],
        /// The result bytes.
        res[8],
        /// The bytes written to `rd` (`wr · res`).
        rdv[8],
        /// A taken branch.
        taken,
        /// A quarter byte that keeps the pc a multiple of 4: on JALR `sum_0 = 4·q + bit0`
        /// (the target `sum & !1` has its low two bits clear), on JAL and taken branches
        /// `imm_0 = 4·q` (the offset is a multiple of 4); `q` is range-checked as a byte, so
        /// `4·q + bit0` and `imm_0` are the integers they look like. Zero on other rows.
        q,
        /// JALR: the bit of `sum` the target clears.
        bit0,
        /// W forms: `sum_3 = 128·sgn + l7`.
        sgn,
        l7,
        /// The row is the exit call (set by ECALL's answer).
        exit,
        /// Public output bytes written before this row.
        outpos,
        /// Public output bytes this row writes (a write to fd 1).
        outn,
        /// `1` on the last real row of a segment that does not end the run: it hands the
        /// next segment its state ([`BUS_ENTRY`]).
        handoff,
    }
}

/// Column indices (for the CUDA fill and tests), from [`CpuCols`].
pub const IS_REAL: usize = col!(CpuCols, is_real);
pub const FIRST: usize = col!(CpuCols, first);
pub const CLK: usize = col!(CpuCols, clk);
pub const PC: usize = col!(CpuCols, pc);
pub const NEXT_PC: usize = col!(CpuCols, next_pc);
/// The DECODE fields (see [`super::decode::Decoded::fields`]) start here; the named ones
/// below are at their [`DecodeFields`] offsets from it.
pub const DEC: usize = col!(CpuCols, dec);
pub const SEL: usize = DEC + col!(DecodeFields, sel);
pub const BR_NEG: usize = DEC + col!(DecodeFields, br_neg);
pub const USE_IMM: usize = DEC + col!(DecodeFields, use_imm);
pub const WR: usize = DEC + col!(DecodeFields, wr);
pub const ALU_OP: usize = DEC + col!(DecodeFields, alu_op);
pub const RD: usize = DEC + col!(DecodeFields, rd);
pub const RS1: usize = DEC + col!(DecodeFields, rs1);
pub const RS2: usize = DEC + col!(DecodeFields, rs2);
pub const IMM_F: usize = DEC + col!(DecodeFields, imm_f);
pub const IMM: usize = DEC + col!(DecodeFields, imm);
pub const RS1V: usize = col!(CpuCols, rs1v);
pub const RS2V: usize = col!(CpuCols, rs2v);
pub const OPB: usize = col!(CpuCols, opb);
pub const SUM: usize = col!(CpuCols, sum);
pub const CARRY: usize = col!(CpuCols, carry);
pub const RES: usize = col!(CpuCols, res);
pub const RDV: usize = col!(CpuCols, rdv);
pub const TAKEN: usize = col!(CpuCols, taken);
/// See [`CpuCols::q`].
pub const Q: usize = col!(CpuCols, q);
/// JALR: the bit of `sum` the target clears.
pub const BIT0: usize = col!(CpuCols, bit0);
/// W forms: `sum_3 = 128·SGN + L7`.
pub const SGN: usize = col!(CpuCols, sgn);
pub const L7: usize = col!(CpuCols, l7);
/// The row is the exit call (set by ECALL's answer).
pub const EXIT: usize = col!(CpuCols, exit);
/// Public output bytes written before this row.
pub const OUTPOS: usize = col!(CpuCols, outpos);
/// Public output bytes this row writes (a write to fd 1).
pub const OUTN: usize = col!(CpuCols, outn);
/// The row hands off to the next segment.
pub const HANDOFF: usize = col!(CpuCols, handoff);
/// Main columns.
pub const WIDTH: usize = <CpuCols<u8> as Columns<u8>>::WIDTH;

/// The CPU table.
pub struct CpuAir;

fn c<E: From<Felt>>(v: u64) -> E {
    E::from(Felt::new(v))
}

impl Air for CpuAir {
    fn name(&self) -> &str {
        "CPU"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let r: CpuCols<B::Expr> = CpuCols::from_fn(|i| b.main(i));
        let nx: CpuCols<B::Expr> = CpuCols::from_fn(|i| b.main_next(i));
        let d: DecodeFields<B::Expr> = DecodeFields::read(&r.dec);
        let one = || c::<B::Expr>(1);
        let is_real = r.is_real.clone();
        let cls = &d.sel;

        // Row bookkeeping: the first row, the clock (from row 0's, which its BUS_ENTRY
        // token pins), real rows then padding.
        b.assert_bool("cpu is_real boolean", is_real.clone());
        b.assert_first("cpu first row flag", r.first.clone() - one());
        b.assert_transition("cpu first flag only on row 0", nx.first.clone());
        b.assert_transition("cpu clk increments", nx.clk.clone() - r.clk.clone() - one());
        b.assert_first("cpu first row is real", is_real.clone() - one());
        b.assert_transition(
            "cpu padding stays padding",
            (one() - is_real.clone()) * nx.is_real.clone(),
        );
        let class_sum = cls.iter().cloned().fold(c::<B::Expr>(0), |a, x| a + x);
        b.assert_zero(
            "cpu exactly one class on real rows",
            class_sum - is_real.clone(),
        );
        for s in cls {
            b.assert_zero(
                "cpu padding has no class",
                (one() - is_real.clone()) * s.clone(),
            );
        }

        // Exit: only through the exit call (ECALL proves which call a row is). The real rows
        // end with it or with a handoff to the next segment; nothing runs after either.
        let ecall = cls[class::ECALL].clone();
        let exit = r.exit.clone();
        let handoff = r.handoff.clone();
        b.assert_bool("cpu exit boolean", exit.clone());
        b.assert_zero(
            "cpu exit only on ecall",
            exit.clone() * (one() - ecall.clone()),
        );
        b.assert_transition(
            "cpu nothing runs after exit",
            exit.clone() * nx.is_real.clone(),
        );
        b.assert_bool("cpu handoff boolean", handoff.clone());
        b.assert_zero(
            "cpu handoff only on real rows",
            handoff.clone() * (one() - is_real.clone()),
        );
        b.assert_zero("cpu handoff or exit", handoff.clone() * exit.clone());
        b.assert_transition(
            "cpu nothing runs after a handoff",
            handoff.clone() * nx.is_real.clone(),
        );
        b.assert_transition(
            "cpu real rows end with exit or handoff",
            is_real.clone()
                * (one() - nx.is_real.clone())
                * (one() - exit.clone() - handoff.clone()),
        );
        b.assert_last(
            "cpu last real row exits or hands off",
            is_real.clone() * (one() - exit.clone() - handoff.clone()),
        );
        // Output position: from row 0's (its BUS_ENTRY token's), advanced by each write to
        // fd 1.
        b.assert_transition(
            "cpu output position",
            nx.outpos.clone() - r.outpos.clone() - r.outn.clone(),
        );
        b.assert_zero(
            "cpu output only on ecall",
            r.outn.clone() * (one() - ecall.clone()),
        );

        // Operand b.
        let use_imm = d.use_imm.clone();
        for i in 0..8 {
            b.assert_zero(
                "cpu operand b",
                r.opb[i].clone()
                    - use_imm.clone() * d.imm[i].clone()
                    - (one() - use_imm.clone()) * r.rs2v[i].clone(),
            );
        }

        // Adder: sum = rs1 + b (add, addw, jalr) or rs1 = sum + b (sub, subw), mod 2^64.
        let mem = cls[class::LOAD].clone() + cls[class::STORE].clone();
        let act_add = cls[class::ADD].clone()
            + cls[class::ADDW].clone()
            + cls[class::JALR].clone()
            + mem.clone();
        let act_sub = cls[class::SUB].clone() + cls[class::SUBW].clone();
        for i in 0..8 {
            let carry_in = if i == 0 {
                c::<B::Expr>(0)
            } else {
                r.carry[i - 1].clone()
            };
            let carry_out = r.carry[i].clone() * Felt::new(256);
            b.assert_bool("cpu carry boolean", r.carry[i].clone());
            b.assert_zero(
                "cpu carry only when adding",
                (one() - act_add.clone() - act_sub.clone()) * r.carry[i].clone(),
            );
            b.assert_zero(
                "cpu add limb",
                act_add.clone()
                    * (r.rs1v[i].clone() + r.opb[i].clone() + carry_in.clone()
                        - r.sum[i].clone()
                        - carry_out.clone()),
            );
            b.assert_zero(
                "cpu sub limb",
                act_sub.clone()
                    * (r.sum[i].clone() + r.opb[i].clone() + carry_in
                        - r.rs1v[i].clone()
                        - carry_out),
            );
        }

        // Results.
        let add64 = cls[class::ADD].clone() + cls[class::SUB].clone();
        let addw = cls[class::ADDW].clone() + cls[class::SUBW].clone();
        let jump = cls[class::JAL].clone() + cls[class::JALR].clone();
        let branch = cls[class::BRANCH].clone();
        let jalr = cls[class::JALR].clone();
        b.assert_bool("cpu W sign boolean", r.sgn.clone());
        b.assert_bool("cpu jalr bit0 boolean", r.bit0.clone());
        b.assert_zero(
            "cpu W sign only on W rows",
            (one() - addw.clone()) * r.sgn.clone(),
        );
        b.assert_zero(
            "cpu bit0 only on jalr",
            (one() - jalr.clone()) * r.bit0.clone(),
        );
        b.assert_zero(
            "cpu W sign split",
            addw.clone() * (r.sum[3].clone() - r.sgn.clone() * Felt::new(128) - r.l7.clone()),
        );
        let mut link = c::<B::Expr>(0);
        for i in 0..8 {
            b.assert_zero(
                "cpu add result",
                add64.clone() * (r.res[i].clone() - r.sum[i].clone()),
            );
            let w = if i < 4 {
                r.sum[i].clone()
            } else {
                r.sgn.clone() * Felt::new(255)
            };
            b.assert_zero("cpu W result", addw.clone() * (r.res[i].clone() - w));
            if i < 4 {
                link = link + r.res[i].clone() * Felt::new(1 << (8 * i));
            } else {
                b.assert_zero("cpu link high bytes", jump.clone() * r.res[i].clone());
                b.assert_zero(
                    "cpu jalr target below 2^32",
                    jalr.clone() * r.sum[i].clone(),
                );
                b.assert_zero("cpu address below 2^32", mem.clone() * r.sum[i].clone());
            }
            if i > 0 {
                b.assert_zero(
                    "cpu compare result is a bit",
                    branch.clone() * r.res[i].clone(),
                );
            }
            b.assert_zero(
                "cpu rd value",
                r.rdv[i].clone() - d.wr.clone() * r.res[i].clone(),
            );
        }
        b.assert_zero(
            "cpu link = pc + 4",
            jump * (link - r.pc.clone() - Felt::new(4)),
        );
        // Every pc is a multiple of 4: the entry is (DECODE's, a multiple of 4 by the
        // loader), pc + 4 is, and so are the two other targets given the checks below; a
        // later segment starts at its predecessor's next pc (its BUS_ENTRY token).
        b.assert_zero(
            "cpu jalr target a multiple of 4",
            jalr.clone() * (r.sum[0].clone() - r.q.clone() * Felt::new(4) - r.bit0.clone()),
        );
        b.assert_zero(
            "cpu jump offset a multiple of 4",
            (cls[class::JAL].clone() + r.taken.clone())
                * (d.imm[0].clone() - r.q.clone() * Felt::new(4)),
        );
        b.assert_zero(
            "cpu quarter only on jumps",
            (one() - jalr.clone() - cls[class::JAL].clone() - r.taken.clone()) * r.q.clone(),
        );

        // Control flow.
        let r0 = r.res[0].clone();
        let br_neg = d.br_neg.clone();
        b.assert_zero(
            "cpu taken",
            r.taken.clone()
                - branch.clone() * (r0.clone() + br_neg.clone() - br_neg * r0 * Felt::TWO),
        );
        let mut target = c::<B::Expr>(0);
        for i in 0..4 {
            target = target + r.sum[i].clone() * Felt::new(1 << (8 * i));
        }
        let target = target - r.bit0.clone();
        b.assert_zero(
            "cpu next pc",
            r.next_pc.clone()
                - r.pc.clone()
                - Felt::new(4)
                - (cls[class::JAL].clone() + r.taken.clone()) * (d.imm_f.clone() - Felt::new(4))
                - jalr * (target - r.pc.clone() - Felt::new(4)),
        );
        b.assert_transition(
            "cpu pc follows",
            nx.is_real.clone() * (nx.pc.clone() - r.next_pc.clone()),
        );

        // Interactions.
        let mut tuple = Vec::with_capacity(1 + FIELDS);
        tuple.push(r.pc.clone());
        tuple.extend(r.dec.iter().cloned());
        b.send(BUS_DECODE, is_real.clone(), &tuple);
        b.send(
            BUS_ENTRY,
            r.first.clone(),
            &[r.clk.clone(), r.pc.clone(), r.outpos.clone()],
        );
        b.receive(
            BUS_ENTRY,
            handoff,
            &[
                r.clk.clone() + Felt::ONE,
                r.next_pc.clone(),
                r.outpos.clone() + r.outn.clone(),
            ],
        );
        let ts = |k: u64| r.clk.clone() * Felt::new(4) + Felt::new(k);
        for (reg, val, k, w) in [
            (&d.rs1, &r.rs1v, 1, 0),
            (&d.rs2, &r.rs2v, 2, 0),
            (&d.rd, &r.rdv, 3, 1),
        ] {
            let mut t = Vec::with_capacity(11);
            t.push(reg.clone());
            t.extend(val.iter().cloned());
            t.push(ts(k));
            t.push(c::<B::Expr>(w));
            b.send(BUS_REG_ACCESS, is_real.clone(), &t);
        }
        let mut alu = Vec::with_capacity(25);
        alu.push(d.alu_op.clone());
        alu.extend(r.rs1v.iter().cloned());
        alu.extend(r.opb.iter().cloned());
        alu.extend(r.res.iter().cloned());
        b.send(BUS_ALU, cls[class::ALU].clone() + branch, &alu);
        let logic = cls[class::AND].clone() + cls[class::OR].clone() + cls[class::XOR].clone();
        let lop = cls[class::AND].clone()
            + cls[class::OR].clone() * Felt::TWO
            + cls[class::XOR].clone() * Felt::new(3);
        for i in 0..8 {
            b.send(
                BUS_BYTE,
                logic.clone(),
                &[
                    lop.clone(),
                    r.rs1v[i].clone(),
                    r.opb[i].clone(),
                    r.res[i].clone(),
                ],
            );
        }
        let range = c::<B::Expr>(BYTE_RANGE as u64);
        for j in 0..4 {
            for bytes in [&r.res, &r.sum] {
                b.send(
                    BUS_BYTE,
                    is_real.clone(),
                    &[
                        range.clone(),
                        bytes[2 * j].clone(),
                        bytes[2 * j + 1].clone(),
                        c(0),
                    ],
                );
            }
        }
        // `2·L7` is a byte iff `L7 < 128`: `L7 = sum_3 − 128·SGN` is an integer in
        // `[−128, 255]`, so `2·L7` is even and the check pins it. `Q` itself is checked.
        b.send(
            BUS_BYTE,
            is_real,
            &[range, r.l7.clone() * Felt::TWO, r.q.clone(), c(0)],
        );
        let a0: Vec<B::Expr> = r.rs2v.to_vec();
        b.send(BUS_EXIT, exit.clone(), &a0);
        // Loads (value: what rd receives) and stores (value: rs2) at memory time clk + 1.
        for (sel, val) in [(class::LOAD, &r.res), (class::STORE, &r.rs2v)] {
            let mut t = Vec::with_capacity(14);
            t.push(d.alu_op.clone());
            t.extend(r.sum[..4].iter().cloned());
            t.extend(val.iter().cloned());
            t.push(r.clk.clone() + Felt::ONE);
            b.send(BUS_MEMOP, cls[sel].clone(), &t);
        }
        let mut call = Vec::with_capacity(28);
        call.push(r.clk.clone());
        call.extend(r.rs1v.iter().cloned());
        call.extend(a0);
        call.extend(r.res.iter().cloned());
        call.extend([exit, r.outpos.clone(), r.outn.clone()]);
        b.send(BUS_ECALL, ecall, &call);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
