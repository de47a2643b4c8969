//! The CPU room's segment harness (`rv/cpu/tests.rs`, `rv/decode/tests.rs`,
//! `tests/tests/rv_cpu.rs`): a small looping program that writes output, a reference run
//! of it, the CPU records of any range of its steps as one segment (any first clock and
//! output position), and a machine of the CPU table and stand-ins that take the other side
//! of each of its buses, the [`BUS_ENTRY`] boundary tokens given by the test, so a segment
//! is checked (and proven) on its own.

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

use crate::air::debug::{check_machine, table_ledger, DebugReport};
use crate::air::{Air, AirBuilder, Direction, Machine, TableAir};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::cpu::{self, CallMark, CpuAir, CpuRecords, Step};
use crate::rv::decode::{self, class, decode_for_air, ProgramImage, TUPLE};
use crate::rv::{
    BUS_ALU, BUS_BYTE, BUS_DECODE, BUS_ECALL, BUS_ENTRY, BUS_EXIT, BUS_MEMOP, BUS_REG_ACCESS,
    SYS_WRITE,
};

/// The program's first pc (its entry).
pub const BASE: u32 = 0x1000;
/// The loop's first pc.
pub const LOOP: u32 = BASE + 8;
/// Steps of the run: two set-up steps, ten passes of the seven-step loop, the exit.
pub const STEPS: usize = 2 + 7 * 10 + 2;
/// Output bytes of one pass (its write to fd 1).
pub const PASS_OUT: u64 = 2;

fn i_type(f3: u32, rd: u32, rs1: u32, imm: i32) -> u32 {
    ((imm as u32 & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | 0x13
}

fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(0, rd, rs1, imm)
}

fn add(rd: u32, rs1: u32, rs2: u32) -> u32 {
    (rs2 << 20) | (rs1 << 15) | (rd << 7) | 0x33
}

fn bne(rs1: u32, rs2: u32, off: i32) -> u32 {
    let o = off as u32;
    (((o >> 12) & 1) << 31)
        | (((o >> 5) & 0x3f) << 25)
        | (rs2 << 20)
        | (rs1 << 15)
        | (1 << 12)
        | (((o >> 1) & 0xf) << 8)
        | (((o >> 11) & 1) << 7)
        | 0x63
}

const ECALL: u32 = 0x73;

/// `x5 = 0; x7 = 30; loop: x5 += 3; x6 += x5; write(1, 0x2000, 2); bne x5, x7, loop;
/// exit(x10)`.
pub fn program() -> ProgramImage {
    let code = [
        addi(5, 0, 0),
        addi(7, 0, 30),
        addi(5, 5, 3), // LOOP
        add(6, 6, 5),
        addi(17, 0, SYS_WRITE as i32),
        addi(10, 0, 1),
        addi(12, 0, PASS_OUT as i32),
        ECALL,
        bne(5, 7, -24),
        addi(17, 0, 93),
        ECALL,
    ];
    ProgramImage {
        entry: BASE,
        code: code
            .iter()
            .enumerate()
            .map(|(k, &w)| (BASE + 4 * k as u32, w))
            .collect(),
        heap_start: 0x10_0000,
        heap_limit: 0x20_0000,
        ..ProgramImage::default()
    }
}

/// One executed step as the CPU records hold it, with its pc.
#[derive(Copy, Clone, Debug)]
pub struct RefStep {
    pub pc: u32,
    pub dec_row: u32,
    pub rs1: u64,
    pub rs2: u64,
    pub res: u64,
}

/// The reference run of [`program`]: its steps and its calls (clocks from 0).
pub struct RefRun {
    pub image: ProgramImage,
    pub steps: Vec<RefStep>,
    pub calls: Vec<CallMark>,
}

/// Runs [`program`] to its exit.
pub fn run() -> RefRun {
    let image = program();
    let mut regs = [0u64; 32];
    let (mut pc, mut outpos) = (image.entry, 0u64);
    let (mut steps, mut calls) = (Vec::new(), Vec::new());
    loop {
        let k = ((pc - BASE) / 4) as usize;
        let word = image.code[k].1;
        let d = decode_for_air(pc, word).expect("a provable instruction");
        let s = Step {
            pc,
            word,
            rs1_val: regs[d.rs1 as usize],
            rs2_val: regs[d.rs2 as usize],
            // A system call's result: the write's count, the exit's a0.
            rd_val: if regs[17] == 93 { regs[10] } else { regs[12] },
            ..Step::default()
        };
        // The result as the row computes it (a write's value included).
        let mut dn = d.clone();
        dn.wr = false;
        let (_, sum, res) = cpu::values(&dn, &s);
        let clk = steps.len() as u64;
        steps.push(RefStep {
            pc,
            dec_row: k as u32,
            rs1: s.rs1_val,
            rs2: s.rs2_val,
            res,
        });
        if d.class[class::ECALL] {
            let exit = s.rs1_val == 93;
            let outn = if exit { 0 } else { regs[12] };
            calls.push(CallMark {
                clk,
                outpos,
                outn,
                exit,
            });
            outpos += outn;
            if exit {
                break;
            }
        }
        if d.wr {
            regs[d.rd as usize] = res;
        }
        pc = cpu::next_pc_of(pc, &d, sum, res);
    }
    assert_eq!(steps.len(), STEPS);
    RefRun {
        image,
        steps,
        calls,
    }
}

/// A segment of the run: its records and the boundary tokens it must meet.
pub struct Segment {
    pub records: CpuRecords,
    /// The [`BUS_ENTRY`] token row 0 sends: `(clk0, pc, outpos0)`.
    pub start: [Felt; 3],
    /// The token a handoff receives: `(clk0 + len, next pc, output position after)`.
    pub end: [Felt; 3],
}

impl RefRun {
    /// Steps `range` as one segment from clock `clk0`, `outpos0` output bytes written before
    /// it; it hands off unless it ends with the exit.
    pub fn segment(&self, range: Range<usize>, clk0: u64, outpos0: u64) -> Segment {
        let steps = &self.steps[range.clone()];
        let before: u64 = self
            .calls
            .iter()
            .filter(|c| (c.clk as usize) < range.start)
            .map(|c| c.outn)
            .sum();
        let calls: Vec<CallMark> = self
            .calls
            .iter()
            .filter(|c| range.contains(&(c.clk as usize)))
            .map(|c| CallMark {
                clk: clk0 + c.clk - range.start as u64,
                outpos: outpos0 + c.outpos - before,
                ..*c
            })
            .collect();
        let out: u64 = calls.iter().map(|c| c.outn).sum();
        let handoff = !calls.last().is_some_and(|c| c.exit);
        let next_pc = self.steps.get(range.end).map_or(0, |s| s.pc);
        let f = Felt::new;
        Segment {
            records: CpuRecords {
                height: steps.len().next_power_of_two().max(crate::params::MIN_ROWS),
                clk0,
                outpos0,
                handoff,
                dec_row: steps.iter().map(|s| s.dec_row).collect(),
                rs1: steps.iter().map(|s| s.rs1).collect(),
                rs2: steps.iter().map(|s| s.rs2).collect(),
                res: steps.iter().map(|s| s.res).collect(),
                calls,
            },
            start: [f(clk0), Felt::from(steps[0].pc), f(outpos0)],
            end: [
                f(clk0 + steps.len() as u64),
                Felt::from(next_pc),
                f(outpos0 + out),
            ],
        }
    }
}

impl Segment {
    /// The segment's CPU trace (the host fill).
    pub fn trace(&self) -> RowMajorMatrix {
        cpu::fill_host(&self.records, &decode::fields_of(&program()))
    }

    /// The boundary tokens as the other segments (or DECODE) hold them: the start token
    /// received, the end token (after a handoff) sent.
    pub fn boundary(&self) -> Vec<(Vec<Felt>, Felt)> {
        let mut b = vec![(self.start.to_vec(), Felt::ONE)];
        if self.records.handoff {
            b.push((self.end.to_vec(), -Felt::ONE));
        }
        b
    }
}

/// A stand-in: each row receives `values[arity]` on `bus` with multiplicity `m` (the last
/// column; `−1` sends).
pub struct Mirror {
    pub name: &'static str,
    pub bus: u32,
    pub arity: usize,
}

impl Air for Mirror {
    fn name(&self) -> &str {
        self.name
    }
    fn width(&self) -> usize {
        self.arity + 1
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let values: Vec<B::Expr> = (0..self.arity).map(|i| b.main(i)).collect();
        let m = b.main(self.arity);
        b.interact(self.bus, Direction::Receive, m, &values);
    }
}

/// The stand-ins, one per bus the CPU uses; [`BUS_ENTRY`]'s first.
pub static MIRRORS: [Mirror; 8] = [
    Mirror {
        name: "ENTRY",
        bus: BUS_ENTRY,
        arity: 3,
    },
    Mirror {
        name: "DECODE_SIDE",
        bus: BUS_DECODE,
        arity: TUPLE,
    },
    Mirror {
        name: "REGS",
        bus: BUS_REG_ACCESS,
        arity: 11,
    },
    Mirror {
        name: "ALU",
        bus: BUS_ALU,
        arity: 25,
    },
    Mirror {
        name: "BYTES",
        bus: BUS_BYTE,
        arity: 4,
    },
    Mirror {
        name: "EXIT",
        bus: BUS_EXIT,
        arity: 8,
    },
    Mirror {
        name: "MEMOP",
        bus: BUS_MEMOP,
        arity: 14,
    },
    Mirror {
        name: "ECALL_SIDE",
        bus: BUS_ECALL,
        arity: 28,
    },
];

/// A stand-in's trace: one row per `(tuple, multiplicity)`, zero rows up to a power of two
/// ≥ 8.
pub fn mirror_trace(mirror: &Mirror, tuples: &[(Vec<Felt>, Felt)]) -> RowMajorMatrix {
    let h = tuples
        .len()
        .next_power_of_two()
        .max(crate::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, mirror.arity + 1);
    for (r, (v, m)) in tuples.iter().enumerate() {
        assert_eq!(v.len(), mirror.arity, "{}", mirror.name);
        let row = t.row_mut(r);
        row[..mirror.arity].copy_from_slice(v);
        row[mirror.arity] = *m;
    }
    t
}

/// The CPU table and its stand-ins.
pub struct SegmentMachine;

impl Machine for SegmentMachine {
    fn name(&self) -> &str {
        "cpu-segment-test"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        let mut t: Vec<&dyn TableAir> = vec![&CpuAir];
        t.extend(MIRRORS.iter().map(|m| m as &dyn TableAir));
        t
    }
    fn num_public_values(&self) -> usize {
        0
    }
}

/// The machine's traces: `cpu`, then the stand-ins: [`BUS_ENTRY`]'s holds `boundary`, every
/// other one absorbs exactly the net traffic of `traffic` (a CPU trace) on its bus.
pub fn segment_traces(
    cpu: &RowMajorMatrix,
    traffic: &RowMajorMatrix,
    boundary: &[(Vec<Felt>, Felt)],
) -> Vec<RowMajorMatrix> {
    let ledger = table_ledger(&CpuAir, traffic, None, &[]);
    let mut out = vec![cpu.clone(), mirror_trace(&MIRRORS[0], boundary)];
    for m in &MIRRORS[1..] {
        let tuples: Vec<(Vec<Felt>, Felt)> = ledger
            .buses
            .iter()
            .filter(|((b, _), _)| *b == m.bus)
            .map(|((_, v), &n)| (v.clone(), n))
            .collect();
        out.push(mirror_trace(m, &tuples));
    }
    out
}

/// The debug checker on [`SegmentMachine`] with [`segment_traces`].
pub fn check_segment(
    cpu: &RowMajorMatrix,
    traffic: &RowMajorMatrix,
    boundary: &[(Vec<Felt>, Felt)],
) -> DebugReport {
    let traces = segment_traces(cpu, traffic, boundary);
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(&SegmentMachine, &refs, &vec![None; refs.len()], &[])
}
