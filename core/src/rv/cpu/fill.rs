//! CPU's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::decode::{class, Decoded};
use crate::rv::decode::{DecodeFields, DECODE_WORDS};
use crate::rv::{AluOp, BYTE_AND, BYTE_OR, BYTE_XOR};

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

/// Fills one real CPU row at clock `clk`, given its result bytes' value `res`
/// ([`result`]), except [`FIRST`] and [`HANDOFF`] (the caller's, from the row's place in the
/// segment) and [`EXIT`], [`OUTPOS`] and [`OUTN`] (the caller's, from the run's system calls).
#[allow(clippy::too_many_arguments)]
pub fn fill_row(
    row: &mut [Felt],
    clk: u64,
    pc: u32,
    d: &Decoded,
    rs1: u64,
    rs2: u64,
    res: u64,
    next_pc: u32,
) {
    let f = |v: u64| Felt::new(v);
    // The cells this fill does not set keep their values.
    let mut c = CpuCols::read(row);
    c.is_real = Felt::ONE;
    c.clk = f(clk);
    c.pc = Felt::from(pc);
    c.next_pc = Felt::from(next_pc);
    c.dec = d.fields();
    let b = operand_b(d, rs2);
    let a = rs1;
    let (sum, carries) = sum_and_carries(a, b, d);
    let bytes = |v: u64| v.to_le_bytes().map(|x| f(x as u64));
    c.rs1v = bytes(a);
    c.rs2v = bytes(rs2);
    c.opb = bytes(b);
    c.sum = bytes(sum);
    c.carry = carries.map(|x| f(x as u64));
    c.res = bytes(res);
    c.rdv = if d.wr { c.res } else { [Felt::ZERO; 8] };
    let taken = is_taken(d, res);
    c.taken = Felt::from(taken);
    c.q = f(quarter(d, sum, taken) as u64);
    if d.class[class::JALR] {
        c.bit0 = f(sum & 1);
    }
    if d.class[class::ADDW] || d.class[class::SUBW] {
        let s3 = (sum >> 24) & 0xff;
        c.sgn = f(s3 >> 7);
        c.l7 = f(s3 & 0x7f);
    }
    c.write(row);
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
        load_extend(d.alu_op - crate::rv::MEMOP_LOAD, s.mem_val)
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

/// The pc after a row at `pc` (what its [`NEXT_PC`] must be): a JAL's or taken branch's
/// target, a JALR's (`sum` with bit 0 cleared, low 32 bits), else `pc + 4`. The fill takes
/// the next step's pc instead where there is one; this is for a segment's last row.
pub fn next_pc_of(pc: u32, d: &Decoded, sum: u64, res: u64) -> u32 {
    if d.class[class::JAL] || is_taken(d, res) {
        pc.wrapping_add(d.imm as u32)
    } else if d.class[class::JALR] {
        sum as u32 & !1
    } else {
        pc.wrapping_add(4)
    }
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
        crate::rv::alu_eval(d.alu_op, a, b).unwrap_or(0)
    }
}

/// A system call as the CPU row sees it: its cycle (the run's clock, not the segment's row),
/// the output position before it (from the run's start), the output bytes it writes and
/// whether it is the exit.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallMark {
    pub clk: u64,
    pub outpos: u64,
    pub outn: u64,
    pub exit: bool,
}

/// The CPU table of one segment (or of a whole run) as packed per-step records for a fill
/// kernel. Row `i` (the thread index) of the trace is [`fill_row`] of step `i` at clock
/// `clk0 + i`; padding rows follow up to `height`. Everything else a row holds is derived:
/// `pc` and the DECODE fields from the program's DECODE row (see
/// [`decode::fields_of`](crate::rv::decode::fields_of)), `next_pc` from the next step's
/// DECODE row (the last step's from its own: [`next_pc_of`]), operand b, the adder and the
/// flags from the fields and the values here, and the output columns from `outpos0` and
/// `calls` (sorted by cycle).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuRecords {
    /// The trace height (a power of two, at least 8).
    pub height: usize,
    /// The clock of row 0 (0 for the first segment or a whole run).
    pub clk0: u64,
    /// The public output bytes written before row 0.
    pub outpos0: u64,
    /// The last step hands off to the next segment (it does not end the run).
    pub handoff: bool,
    /// Each step's DECODE row (index into the program's code).
    pub dec_row: Vec<u32>,
    pub rs1: Vec<u64>,
    pub rs2: Vec<u64>,
    /// The result bytes' value (what [`result`] gives).
    pub res: Vec<u64>,
    /// Every system call of the steps, in execution order (clocks from `clk0` on).
    pub calls: Vec<CallMark>,
}

impl CpuRecords {
    pub fn len(&self) -> usize {
        self.dec_row.len()
    }
    pub fn is_empty(&self) -> bool {
        self.dec_row.is_empty()
    }
}

/// The CPU trace from its records, on the host (what `ks_fill_cpu` builds on a device).
pub fn fill_host(rec: &CpuRecords, decode: &[u64]) -> RowMajorMatrix {
    let n = rec.len();
    let mut m = RowMajorMatrix::zeros(rec.height, WIDTH);
    // Each DECODE row's pc and fields, decoded once.
    let slots: Vec<(u32, Decoded)> = decode
        .chunks_exact(DECODE_WORDS)
        .map(|d| (d[0] as u32, decoded_from_fields(&d[1..])))
        .collect();
    let slot = |i: usize| &slots[rec.dec_row[i] as usize];
    let mut calls = rec.calls.iter().peekable();
    let mut outpos = rec.outpos0;
    for (i, row) in m.values.chunks_exact_mut(WIDTH).enumerate() {
        let clk = rec.clk0 + i as u64;
        if i >= n {
            // Padding: the clock runs on, nothing else happens (next_pc = pc + 4 = 4).
            row[CLK] = Felt::new(clk);
            row[NEXT_PC] = Felt::new(4);
            row[OUTPOS] = Felt::new(outpos);
            continue;
        }
        let (pc, fields) = slot(i);
        let (rs1, rs2, res) = (rec.rs1[i], rec.rs2[i], rec.res[i]);
        let next_pc = if i + 1 < n {
            slot(i + 1).0
        } else {
            let (sum, _) = sum_and_carries(rs1, operand_b(fields, rs2), fields);
            next_pc_of(*pc, fields, sum, res)
        };
        fill_row(row, clk, *pc, fields, rs1, rs2, res, next_pc);
        row[FIRST] = Felt::from(i == 0);
        row[HANDOFF] = Felt::from(rec.handoff && i + 1 == n);
        row[OUTPOS] = Felt::new(outpos);
        if let Some(c) = calls.next_if(|c| c.clk == clk) {
            row[OUTN] = Felt::new(c.outn);
            row[EXIT] = Felt::from(c.exit);
            outpos += c.outn;
        }
    }
    m
}

/// The [`Decoded`] a DECODE field row holds (the inverse of [`Decoded::fields`]).
fn decoded_from_fields(f: &[u64]) -> Decoded {
    let d = DecodeFields::read(f);
    Decoded {
        class: d.sel.map(|s| s != 0),
        br_neg: d.br_neg != 0,
        use_imm: d.use_imm != 0,
        wr: d.wr != 0,
        alu_op: d.alu_op as u32,
        rd: d.rd as u8,
        rs1: d.rs1 as u8,
        rs2: d.rs2 as u8,
        imm_f: Felt::new(d.imm_f),
        imm: u64::from_le_bytes(d.imm.map(|b| b as u8)),
    }
}

/// A step's operand b, adder sum and result bytes' value ([`result`]).
pub fn values(d: &Decoded, s: &Step) -> (u64, u64, u64) {
    let b = operand_b(d, s.rs2_val);
    let (sum, _) = sum_and_carries(s.rs1_val, b, d);
    (b, sum, result(s, d, b, sum))
}

/// A step's operand b and result bytes' value: [`values`] without the adder's sum where
/// the result does not need it (every row that takes its result from the step).
pub fn b_and_result(d: &Decoded, s: &Step) -> (u64, u64) {
    let b = operand_b(d, s.rs2_val);
    let res = result_from_step(s, d).unwrap_or_else(|| {
        let (sum, _) = sum_and_carries(s.rs1_val, b, d);
        result_without_write(d, s.rs1_val, b, sum)
    });
    (b, res)
}

/// What one CPU step asks of other tables besides registers: its ALU operation (ALU
/// instructions and branch compares; returned), its byte-logic lookups, and the range
/// checks of its result and adder bytes and of the two split-off values (`2·L7`, `2·H`).
pub fn step_lookups(
    d: &Decoded,
    a: u64,
    b: u64,
    res: u64,
    sum: u64,
    bytes: &mut ByteCounts,
) -> Option<AluOp> {
    let lop = [
        (class::AND, BYTE_AND),
        (class::OR, BYTE_OR),
        (class::XOR, BYTE_XOR),
    ]
    .into_iter()
    .find(|(k, _)| d.class[*k]);
    if let Some((_, op)) = lop {
        for (x, y) in a.to_le_bytes().into_iter().zip(b.to_le_bytes()) {
            bytes.add(op, x, y);
        }
    }
    let (rb, sb) = (res.to_le_bytes(), sum.to_le_bytes());
    for j in 0..4 {
        bytes.range(rb[2 * j], rb[2 * j + 1]);
        bytes.range(sb[2 * j], sb[2 * j + 1]);
    }
    let (l7, q) = extra_range_bytes(d, sum, res);
    bytes.range(l7, q);
    alu_op(d, a, b, res)
}

/// The ALU operation a step's row looks up (an ALU or branch instruction's), given its
/// operands and result: what [`step_lookups`] returns, without counting its lookups.
#[inline]
pub fn alu_op(d: &Decoded, a: u64, b: u64, res: u64) -> Option<AluOp> {
    (d.class[class::ALU] || d.class[class::BRANCH]).then_some(AluOp {
        op: d.alu_op,
        a,
        b,
        c: res,
    })
}
