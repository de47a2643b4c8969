//! CPU: one row per executed instruction (then padding rows up to a power of two).
//!
//! A row looks its instruction up in DECODE, reads `rs1` and `rs2` and writes `rd` through
//! MEMW_R, computes its result — adds, subtracts (and their W forms), LUI/AUIPC (as adds of
//! a DECODE constant to x0), byte logic through BITWISE, jumps — or dispatches it to an ALU
//! table, to LOAD/STORE (with the address from its adder: `rs1 + imm`, below 2^32, memory
//! timestamp `clk + 1`) or to ECALL, follows the pc, and ends with the exit call, whose
//! argument becomes the public exit code. `outpos` counts the public output bytes written
//! before the row (from 0; a write to fd 1 adds `outn`). The W forms of add/sub are folded into this table (a sign-extension of the low
//! word needs two columns here, far less than a CPU32 table's copy of the dispatch); the
//! other W forms live in the ALU tables that compute them.

use alloc::vec::Vec;

use super::decode::{class, Decoded, FIELDS};
use super::{
    BUS_ALU, BUS_BYTE, BUS_DECODE, BUS_ECALL, BUS_ENTRY, BUS_EXIT, BUS_MEMOP, BUS_REG_ACCESS,
    BYTE_RANGE,
};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;

pub const IS_REAL: usize = 0;
pub const FIRST: usize = 1;
pub const CLK: usize = 2;
pub const PC: usize = 3;
pub const NEXT_PC: usize = 4;
/// The DECODE fields (see [`super::decode::Decoded::fields`]) start here.
pub const DEC: usize = 5;
pub const SEL: usize = DEC;
pub const BR_NEG: usize = DEC + class::COUNT;
pub const USE_IMM: usize = BR_NEG + 1;
pub const WR: usize = BR_NEG + 2;
pub const ALU_OP: usize = BR_NEG + 3;
pub const RD: usize = BR_NEG + 4;
pub const RS1: usize = BR_NEG + 5;
pub const RS2: usize = BR_NEG + 6;
pub const IMM_F: usize = BR_NEG + 7;
pub const IMM: usize = BR_NEG + 8;
pub const RS1V: usize = DEC + FIELDS;
pub const RS2V: usize = RS1V + 8;
pub const OPB: usize = RS2V + 8;
pub const SUM: usize = OPB + 8;
pub const CARRY: usize = SUM + 8;
pub const RES: usize = CARRY + 8;
pub const RDV: usize = RES + 8;
pub const TAKEN: usize = RDV + 8;
/// A quarter byte that keeps the pc a multiple of 4: on JALR `sum_0 = 4·Q + BIT0` (the
/// target `sum & !1` has its low two bits clear), on JAL and taken branches `imm_0 = 4·Q`
/// (the offset is a multiple of 4); `Q` is range-checked as a byte, so `4·Q + BIT0` and
/// `imm_0` are the integers they look like. Zero on other rows.
pub const Q: usize = TAKEN + 1;
/// JALR: the bit of `sum` the target clears.
pub const BIT0: usize = TAKEN + 2;
/// W forms: `sum_3 = 128·SGN + L7`.
pub const SGN: usize = TAKEN + 3;
pub const L7: usize = TAKEN + 4;
/// The row is the exit call (set by ECALL's answer).
pub const EXIT: usize = TAKEN + 5;
/// Public output bytes written before this row.
pub const OUTPOS: usize = TAKEN + 6;
/// Public output bytes this row writes (a write to fd 1).
pub const OUTN: usize = TAKEN + 7;
pub const WIDTH: usize = TAKEN + 8;

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
        let row: Vec<B::Expr> = (0..WIDTH).map(|i| b.main(i)).collect();
        let next: Vec<B::Expr> = (0..WIDTH).map(|i| b.main_next(i)).collect();
        let m = |i: usize| row[i].clone();
        let nx = |i: usize| next[i].clone();
        let one = || c::<B::Expr>(1);
        let is_real = m(IS_REAL);
        let cls: Vec<B::Expr> = (0..class::COUNT).map(|k| m(SEL + k)).collect();

        // Row bookkeeping: the first row, the clock, real rows then padding.
        b.assert_bool("cpu is_real boolean", is_real.clone());
        b.assert_first("cpu first row flag", m(FIRST) - one());
        b.assert_transition("cpu first flag only on row 0", nx(FIRST));
        b.assert_first("cpu clk starts at 0", m(CLK));
        b.assert_transition("cpu clk increments", nx(CLK) - m(CLK) - one());
        b.assert_first("cpu first row is real", is_real.clone() - one());
        b.assert_transition(
            "cpu padding stays padding",
            (one() - is_real.clone()) * nx(IS_REAL),
        );
        let class_sum = cls.iter().cloned().fold(c::<B::Expr>(0), |a, x| a + x);
        b.assert_zero(
            "cpu exactly one class on real rows",
            class_sum - is_real.clone(),
        );
        for s in &cls {
            b.assert_zero(
                "cpu padding has no class",
                (one() - is_real.clone()) * s.clone(),
            );
        }

        // Exit: only through the exit call (ECALL proves which call a row is), which ends the
        // real rows.
        let ecall = cls[class::ECALL].clone();
        let exit = m(EXIT);
        b.assert_bool("cpu exit boolean", exit.clone());
        b.assert_zero(
            "cpu exit only on ecall",
            exit.clone() * (one() - ecall.clone()),
        );
        b.assert_transition("cpu nothing runs after exit", exit.clone() * nx(IS_REAL));
        b.assert_transition(
            "cpu real rows end with exit",
            is_real.clone() * (one() - nx(IS_REAL)) * (one() - exit.clone()),
        );
        b.assert_last(
            "cpu last real row exits",
            is_real.clone() * (one() - exit.clone()),
        );
        // Output position: from 0, advanced by each write to fd 1.
        b.assert_first("cpu output starts at 0", m(OUTPOS));
        b.assert_transition("cpu output position", nx(OUTPOS) - m(OUTPOS) - m(OUTN));
        b.assert_zero(
            "cpu output only on ecall",
            m(OUTN) * (one() - ecall.clone()),
        );

        // Operand b.
        let use_imm = m(USE_IMM);
        for i in 0..8 {
            b.assert_zero(
                "cpu operand b",
                m(OPB + i) - use_imm.clone() * m(IMM + i) - (one() - use_imm.clone()) * m(RS2V + i),
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
                m(CARRY + i - 1)
            };
            let carry_out = m(CARRY + i) * Felt::new(256);
            b.assert_bool("cpu carry boolean", m(CARRY + i));
            b.assert_zero(
                "cpu carry only when adding",
                (one() - act_add.clone() - act_sub.clone()) * m(CARRY + i),
            );
            b.assert_zero(
                "cpu add limb",
                act_add.clone()
                    * (m(RS1V + i) + m(OPB + i) + carry_in.clone()
                        - m(SUM + i)
                        - carry_out.clone()),
            );
            b.assert_zero(
                "cpu sub limb",
                act_sub.clone() * (m(SUM + i) + m(OPB + i) + carry_in - m(RS1V + i) - carry_out),
            );
        }

        // Results.
        let add64 = cls[class::ADD].clone() + cls[class::SUB].clone();
        let addw = cls[class::ADDW].clone() + cls[class::SUBW].clone();
        let jump = cls[class::JAL].clone() + cls[class::JALR].clone();
        let branch = cls[class::BRANCH].clone();
        let jalr = cls[class::JALR].clone();
        b.assert_bool("cpu W sign boolean", m(SGN));
        b.assert_bool("cpu jalr bit0 boolean", m(BIT0));
        b.assert_zero("cpu W sign only on W rows", (one() - addw.clone()) * m(SGN));
        b.assert_zero("cpu bit0 only on jalr", (one() - jalr.clone()) * m(BIT0));
        b.assert_zero(
            "cpu W sign split",
            addw.clone() * (m(SUM + 3) - m(SGN) * Felt::new(128) - m(L7)),
        );
        let mut link = c::<B::Expr>(0);
        for i in 0..8 {
            b.assert_zero("cpu add result", add64.clone() * (m(RES + i) - m(SUM + i)));
            let w = if i < 4 {
                m(SUM + i)
            } else {
                m(SGN) * Felt::new(255)
            };
            b.assert_zero("cpu W result", addw.clone() * (m(RES + i) - w));
            if i < 4 {
                link = link + m(RES + i) * Felt::new(1 << (8 * i));
            } else {
                b.assert_zero("cpu link high bytes", jump.clone() * m(RES + i));
                b.assert_zero("cpu jalr target below 2^32", jalr.clone() * m(SUM + i));
                b.assert_zero("cpu address below 2^32", mem.clone() * m(SUM + i));
            }
            if i > 0 {
                b.assert_zero("cpu compare result is a bit", branch.clone() * m(RES + i));
            }
            b.assert_zero("cpu rd value", m(RDV + i) - m(WR) * m(RES + i));
        }
        b.assert_zero("cpu link = pc + 4", jump * (link - m(PC) - Felt::new(4)));
        // Every pc is a multiple of 4: the entry is (DECODE's, a multiple of 4 by the
        // loader), pc + 4 is, and so are the two other targets given the checks below.
        b.assert_zero(
            "cpu jalr target a multiple of 4",
            jalr.clone() * (m(SUM) - m(Q) * Felt::new(4) - m(BIT0)),
        );
        b.assert_zero(
            "cpu jump offset a multiple of 4",
            (cls[class::JAL].clone() + m(TAKEN)) * (m(IMM) - m(Q) * Felt::new(4)),
        );
        b.assert_zero(
            "cpu quarter only on jumps",
            (one() - jalr.clone() - cls[class::JAL].clone() - m(TAKEN)) * m(Q),
        );

        // Control flow.
        let r0 = m(RES);
        let br_neg = m(BR_NEG);
        b.assert_zero(
            "cpu taken",
            m(TAKEN) - branch.clone() * (r0.clone() + br_neg.clone() - br_neg * r0 * Felt::TWO),
        );
        let mut target = c::<B::Expr>(0);
        for i in 0..4 {
            target = target + m(SUM + i) * Felt::new(1 << (8 * i));
        }
        let target = target - m(BIT0);
        b.assert_zero(
            "cpu next pc",
            m(NEXT_PC)
                - m(PC)
                - Felt::new(4)
                - (cls[class::JAL].clone() + m(TAKEN)) * (m(IMM_F) - Felt::new(4))
                - jalr * (target - m(PC) - Felt::new(4)),
        );
        b.assert_transition("cpu pc follows", nx(IS_REAL) * (nx(PC) - m(NEXT_PC)));

        // Interactions.
        let mut tuple = Vec::with_capacity(1 + FIELDS);
        tuple.push(m(PC));
        tuple.extend((0..FIELDS).map(|i| m(DEC + i)));
        b.send(BUS_DECODE, is_real.clone(), &tuple);
        b.send(BUS_ENTRY, m(FIRST), &[m(PC)]);
        let ts = |k: u64| m(CLK) * Felt::new(4) + Felt::new(k);
        for (reg, val, k, w) in [(RS1, RS1V, 1, 0), (RS2, RS2V, 2, 0), (RD, RDV, 3, 1)] {
            let mut t = Vec::with_capacity(11);
            t.push(m(reg));
            t.extend((0..8).map(|i| m(val + i)));
            t.push(ts(k));
            t.push(c::<B::Expr>(w));
            b.send(BUS_REG_ACCESS, is_real.clone(), &t);
        }
        let mut alu = Vec::with_capacity(25);
        alu.push(m(ALU_OP));
        alu.extend((0..8).map(|i| m(RS1V + i)));
        alu.extend((0..8).map(|i| m(OPB + i)));
        alu.extend((0..8).map(|i| m(RES + i)));
        b.send(BUS_ALU, cls[class::ALU].clone() + branch, &alu);
        let logic = cls[class::AND].clone() + cls[class::OR].clone() + cls[class::XOR].clone();
        let lop = cls[class::AND].clone()
            + cls[class::OR].clone() * Felt::TWO
            + cls[class::XOR].clone() * Felt::new(3);
        for i in 0..8 {
            b.send(
                BUS_BYTE,
                logic.clone(),
                &[lop.clone(), m(RS1V + i), m(OPB + i), m(RES + i)],
            );
        }
        let range = c::<B::Expr>(BYTE_RANGE as u64);
        for j in 0..4 {
            for base in [RES, SUM] {
                b.send(
                    BUS_BYTE,
                    is_real.clone(),
                    &[range.clone(), m(base + 2 * j), m(base + 2 * j + 1), c(0)],
                );
            }
        }
        // `2·L7` is a byte iff `L7 < 128`: `L7 = sum_3 − 128·SGN` is an integer in
        // `[−128, 255]`, so `2·L7` is even and the check pins it. `Q` itself is checked.
        b.send(BUS_BYTE, is_real, &[range, m(L7) * Felt::TWO, m(Q), c(0)]);
        let a0: Vec<B::Expr> = (0..8).map(|i| m(RS2V + i)).collect();
        b.send(BUS_EXIT, exit.clone(), &a0);
        // Loads (value: what rd receives) and stores (value: rs2) at memory time clk + 1.
        for (sel, val) in [(class::LOAD, RES), (class::STORE, RS2V)] {
            let mut t = Vec::with_capacity(14);
            t.push(m(ALU_OP));
            t.extend((0..4).map(|i| m(SUM + i)));
            t.extend((0..8).map(|i| m(val + i)));
            t.push(m(CLK) + Felt::ONE);
            b.send(BUS_MEMOP, cls[sel].clone(), &t);
        }
        let mut call = Vec::with_capacity(28);
        call.push(m(CLK));
        call.extend((0..8).map(|i| m(RS1V + i)));
        call.extend(a0);
        call.extend((0..8).map(|i| m(RES + i)));
        call.extend([exit, m(OUTPOS), m(OUTN)]);
        b.send(BUS_ECALL, ecall, &call);
    }
}

/// One executed instruction, as the trace builder needs it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    pub pc: u32,
    pub word: u32,
    pub rs1_val: u64,
    pub rs2_val: u64,
    pub rd_val: u64,
    /// Loads/stores: the effective address (ECALL: a1).
    pub mem_addr: u64,
    /// Loads: the bytes read, zero-extended; stores: the bytes overwritten (ECALL: a2).
    pub mem_val: u64,
}

/// Fills one real CPU row, given its result bytes' value `res` ([`result`]), except
/// [`EXIT`], [`OUTPOS`] and [`OUTN`] (the caller's, from the run's system calls).
#[allow(clippy::too_many_arguments)]
pub fn fill_row(
    row: &mut [Felt],
    clk: usize,
    pc: u32,
    d: &Decoded,
    rs1: u64,
    rs2: u64,
    res: u64,
    next_pc: u32,
) {
    let f = |v: u64| Felt::new(v);
    row[IS_REAL] = Felt::ONE;
    row[FIRST] = Felt::from(clk == 0);
    row[CLK] = f(clk as u64);
    row[PC] = Felt::from(pc);
    row[NEXT_PC] = Felt::from(next_pc);
    row[DEC..DEC + FIELDS].copy_from_slice(&d.fields());
    let b = operand_b(d, rs2);
    let a = rs1;
    let (sum, carries) = sum_and_carries(a, b, d);
    for i in 0..8 {
        row[RS1V + i] = f(a.to_le_bytes()[i] as u64);
        row[RS2V + i] = f(rs2.to_le_bytes()[i] as u64);
        row[OPB + i] = f(b.to_le_bytes()[i] as u64);
        row[SUM + i] = f(sum.to_le_bytes()[i] as u64);
        row[CARRY + i] = f(carries[i] as u64);
        row[RES + i] = f(res.to_le_bytes()[i] as u64);
        row[RDV + i] = if d.wr { row[RES + i] } else { Felt::ZERO };
    }
    let taken = is_taken(d, res);
    row[TAKEN] = Felt::from(taken);
    row[Q] = f(quarter(d, sum, taken) as u64);
    if d.class[class::JALR] {
        row[BIT0] = f(sum & 1);
    }
    if d.class[class::ADDW] || d.class[class::SUBW] {
        let s3 = (sum >> 24) & 0xff;
        row[SGN] = f(s3 >> 7);
        row[L7] = f(s3 & 0x7f);
    }
}

/// Operand b of a row: the immediate or `rs2`'s value.
pub fn operand_b(d: &Decoded, rs2: u64) -> u64 {
    if d.use_imm {
        d.imm
    } else {
        rs2
    }
}

/// The adder's output `sum` and its byte carries (zero unless the row adds or subtracts).
pub fn sum_and_carries(a: u64, b: u64, d: &Decoded) -> (u64, [u8; 8]) {
    let sub = d.class[class::SUB] || d.class[class::SUBW];
    let add = d.class[class::ADD]
        || d.class[class::ADDW]
        || d.class[class::JALR]
        || d.class[class::LOAD]
        || d.class[class::STORE];
    if add {
        adder(a, b)
    } else if sub {
        let diff = a.wrapping_sub(b);
        (diff, adder(diff, b).1)
    } else {
        (0, [0; 8])
    }
}

/// The row's result bytes' value `res` (what [`fill_row`] returns), given operand b and
/// the adder's `sum`.
pub fn result(s: &Step, d: &Decoded, b: u64, sum: u64) -> u64 {
    // Results of writes to x0 and of compares: recompute.
    result_from_step(s, d).unwrap_or_else(|| result_without_write(d, s.rs1_val, b, sum))
}

/// The value the row writes to rd: its [`result`] if it writes (`wr`), else 0. A row that
/// writes takes its result from the step, so this needs neither operand b nor the adder.
pub fn written(s: &Step, d: &Decoded) -> u64 {
    d.wr.then(|| result_from_step(s, d)).flatten().unwrap_or(0)
}

/// The [`result`] of a row that takes it from the step (jumps, system calls, loads, stores
/// and every row that writes), `None` for one that recomputes it.
fn result_from_step(s: &Step, d: &Decoded) -> Option<u64> {
    Some(if d.class[class::JAL] || d.class[class::JALR] {
        s.pc as u64 + 4
    } else if d.class[class::ECALL] {
        s.rd_val
    } else if d.class[class::LOAD] {
        load_extend(d.alu_op - super::MEMOP_LOAD, s.mem_val)
    } else if d.class[class::STORE] {
        0
    } else if d.wr {
        s.rd_val
    } else {
        return None;
    })
}

/// What a load of kind `funct3` writes to rd, from the bytes it read (zero-extended).
pub fn load_extend(funct3: u32, raw: u64) -> u64 {
    match funct3 {
        0 => raw as u8 as i8 as i64 as u64,
        1 => raw as u16 as i16 as i64 as u64,
        2 => raw as u32 as i32 as i64 as u64,
        4 => raw as u8 as u64,
        5 => raw as u16 as u64,
        6 => raw as u32 as u64,
        _ => raw,
    }
}

/// The row's [`Q`]: the quarter of JALR's `sum_0` or of a JAL's or taken branch's
/// `imm_0`, else 0.
pub fn quarter(d: &Decoded, sum: u64, taken: bool) -> u8 {
    if d.class[class::JALR] {
        (sum & 0xff) as u8 >> 2
    } else if d.class[class::JAL] || taken {
        (d.imm & 0xff) as u8 >> 2
    } else {
        0
    }
}

/// The two bytes a row range-checks besides its result and sum bytes: `(2·L7, Q)`, given
/// its result `res` (a branch's compare bit).
pub fn extra_range_bytes(d: &Decoded, sum: u64, res: u64) -> (u8, u8) {
    let l7 = if d.class[class::ADDW] || d.class[class::SUBW] {
        ((sum >> 24) & 0x7f) as u8
    } else {
        0
    };
    (2 * l7, quarter(d, sum, is_taken(d, res)))
}

/// Whether a branch row with compare result `res` is taken (false on other rows).
pub fn is_taken(d: &Decoded, res: u64) -> bool {
    d.class[class::BRANCH] && ((res & 1 == 1) != d.br_neg)
}

/// `a + b` mod 2^64 and the carry out of each byte.
fn adder(a: u64, b: u64) -> (u64, [u8; 8]) {
    let (ab, bb) = (a.to_le_bytes(), b.to_le_bytes());
    let mut carries = [0u8; 8];
    let mut carry = 0u32;
    for i in 0..8 {
        let s = ab[i] as u32 + bb[i] as u32 + carry;
        carry = s >> 8;
        carries[i] = carry as u8;
    }
    (a.wrapping_add(b), carries)
}

fn result_without_write(d: &Decoded, a: u64, b: u64, sum: u64) -> u64 {
    let sext32 = |x: u64| x as u32 as i32 as i64 as u64;
    if d.class[class::ADD] || d.class[class::SUB] {
        sum
    } else if d.class[class::ADDW] || d.class[class::SUBW] {
        sext32(sum)
    } else if d.class[class::AND] {
        a & b
    } else if d.class[class::OR] {
        a | b
    } else if d.class[class::XOR] {
        a ^ b
    } else {
        super::alu_eval(d.alu_op, a, b).unwrap_or(0)
    }
}
