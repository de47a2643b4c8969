//! The RV64IM interpreter.
//!
//! Executable segments are decoded once when the [`Vm`] is built (they cannot be written, see
//! [`elf`](super::elf)); the loop fetches pre-decoded [`Instr`]s and dispatches on the opcode.
//! [`Vm::run`] is generic over a [`Recorder`]: with [`NoRecorder`](super::NoRecorder) every
//! recording statement is compiled out.

use super::ecall::{self, After, Io};
use super::elf::Program;
use super::error::{Access, VmError};
use super::map::STACK_TOP;
use super::memory::Memory;
use super::record::{Record, Recorder};
use kestrel_core::isa::{decode, Instr, Opcode};

/// Cycle limit when none is given: 2^32 instructions.
pub const DEFAULT_MAX_CYCLES: u64 = 1 << 32;

/// How a program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exit {
    /// a0 at the exit call (a process exit status is its low 8 bits).
    pub exit_code: u64,
    /// Instructions executed, the exit ECALL included.
    pub cycles: u64,
}

/// One pre-decoded instruction slot.
#[derive(Clone, Copy, Debug)]
struct Slot {
    ins: Instr,
    word: u32,
    legal: bool,
}

/// One executable segment, decoded.
#[derive(Clone, Debug)]
struct Code {
    base: u64,
    /// Decoded words up to the last nonzero one; the zero-filled rest of the segment is not
    /// decoded (a zero word is illegal), so memory stays bounded by the file's contents.
    slots: Vec<Slot>,
    /// Words in the segment.
    len_words: usize,
}

const ILLEGAL: Instr = Instr {
    op: Opcode::Fence,
    rd: 0,
    rs1: 0,
    rs2: 0,
    imm: 0,
};

impl Code {
    fn new(vaddr: u64, data: &[u8]) -> Code {
        let skip = vaddr.wrapping_neg() & 3; // bytes up to the first aligned word
        let body = data.get(skip as usize..).unwrap_or(&[]);
        let len_words = body.len() / 4;
        let decoded = body
            .chunks_exact(4)
            .rposition(|c| c != [0, 0, 0, 0])
            .map_or(0, |i| i + 1);
        let slots = body[..4 * decoded]
            .chunks_exact(4)
            .map(|c| {
                let word = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                match decode(word) {
                    Ok(ins) => Slot {
                        ins,
                        word,
                        legal: true,
                    },
                    Err(_) => Slot {
                        ins: ILLEGAL,
                        word,
                        legal: false,
                    },
                }
            })
            .collect();
        Code {
            base: vaddr + skip,
            slots,
            len_words,
        }
    }

    fn index(&self, pc: u64) -> Option<usize> {
        let off = pc.wrapping_sub(self.base);
        let i = usize::try_from(off >> 2).ok()?;
        (off & 3 == 0 && i < self.len_words).then_some(i)
    }
}

/// A guest machine: registers, memory, pc, I/O streams.
#[derive(Clone, Debug)]
pub struct Vm {
    regs: [u64; 32],
    pc: u64,
    cycles: u64,
    max_cycles: u64,
    mem: Memory,
    code: Vec<Code>,
    io: Io,
    exit: Option<Exit>,
}

#[inline(always)]
fn zext<const N: usize>(b: [u8; N]) -> u64 {
    let mut a = [0u8; 8];
    a[..N].copy_from_slice(&b);
    u64::from_le_bytes(a)
}

#[inline(always)]
fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

impl Vm {
    /// A machine at the program's entry with the given private input (fd 0), `sp = STACK_TOP`,
    /// other registers 0, and the [`DEFAULT_MAX_CYCLES`] limit.
    pub fn new(program: &Program, input: Vec<u8>) -> Vm {
        let code = program
            .segments
            .iter()
            .filter(|s| s.perm.exec)
            .map(|s| Code::new(s.vaddr, &s.data))
            .collect();
        let mut regs = [0u64; 32];
        regs[2] = STACK_TOP;
        Vm {
            regs,
            pc: program.entry,
            cycles: 0,
            max_cycles: DEFAULT_MAX_CYCLES,
            mem: Memory::new(program),
            code,
            io: Io {
                input,
                ..Io::default()
            },
            exit: None,
        }
    }

    /// Sets the cycle limit: execution stops with [`VmError::MaxCycles`] before instruction
    /// number `max + 1`.
    pub fn with_max_cycles(mut self, max: u64) -> Vm {
        self.max_cycles = max;
        self
    }

    /// Registers x0..x31.
    pub fn regs(&self) -> &[u64; 32] {
        &self.regs
    }
    /// The pc (of the next instruction, or of the one that failed).
    pub fn pc(&self) -> u64 {
        self.pc
    }
    /// Instructions executed so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }
    /// Memory.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }
    /// Public output (everything written to fd 1).
    pub fn public_output(&self) -> &[u8] {
        &self.io.public
    }
    /// Debug text (everything written to fd 2).
    pub fn debug_output(&self) -> &[u8] {
        &self.io.debug
    }
    /// Private input bytes consumed by `read`.
    pub fn input_consumed(&self) -> usize {
        self.io.input_pos
    }
    /// How the program ended, once it has.
    pub fn exit(&self) -> Option<Exit> {
        self.exit
    }

    fn word_at(&self, pc: u64) -> u32 {
        self.code
            .iter()
            .find_map(|c| c.index(pc).map(|i| c.slots.get(i).map_or(0, |s| s.word)))
            .unwrap_or(0)
    }

    /// Runs until the program exits, feeding every executed instruction to `rec`.
    ///
    /// # Errors
    /// A [`VmError`] naming pc and instruction: illegal instruction, fetch or memory fault,
    /// unsupported system call or file descriptor, a write past the output limits
    /// ([`VmError::OutputLimit`]), or the cycle limit. The machine state is left
    /// as it was before the failing instruction; output written so far stays available.
    pub fn run<R: Recorder>(&mut self, rec: &mut R) -> Result<Exit, VmError> {
        if let Some(e) = self.exit {
            return Ok(e);
        }
        match self.run_loop(rec) {
            Ok(code) => {
                let e = Exit {
                    exit_code: code,
                    cycles: self.cycles,
                };
                self.exit = Some(e);
                Ok(e)
            }
            Err(VmError::MaxCycles { pc, max, .. }) => Err(VmError::MaxCycles {
                pc,
                word: self.word_at(pc),
                max,
            }),
            Err(e) => Err(e),
        }
    }

    /// Runs until the program exits or [`Vm::cycles`] reaches `until`, whichever comes
    /// first, feeding every executed instruction to `rec`: `Ok(Some(exit))` if it exited,
    /// `Ok(None)` if it stopped at `until` (a later call goes on from there: a segment of a
    /// run at a time). The cycle limit still applies.
    ///
    /// # Errors
    /// As [`Vm::run`].
    pub fn run_until<R: Recorder>(
        &mut self,
        rec: &mut R,
        until: u64,
    ) -> Result<Option<Exit>, VmError> {
        if self.exit.is_some() || until >= self.max_cycles {
            return self.run(rec).map(Some);
        }
        let max = self.max_cycles;
        self.max_cycles = until;
        let r = self.run(rec);
        self.max_cycles = max;
        match r {
            Err(VmError::MaxCycles { .. }) if self.cycles == until => Ok(None),
            r => r.map(Some),
        }
    }

    fn run_loop<R: Recorder>(&mut self, rec: &mut R) -> Result<u64, VmError> {
        use Opcode::*;
        let Vm {
            regs,
            pc: pc_out,
            cycles: cycles_out,
            max_cycles,
            mem,
            code,
            io,
            ..
        } = self;
        let max = *max_cycles;
        let mut x = *regs;
        let mut pc = *pc_out;
        let mut cycles = *cycles_out;
        let empty: &[Slot] = &[];
        let (mut base, mut slots) = (0u64, empty);
        let result = 'run: loop {
            // The cycle limit.
            if cycles >= max {
                break Err(VmError::MaxCycles { pc, word: 0, max });
            }
            // Fetch from the current segment; on a miss, switch segment or fault.
            let off = pc.wrapping_sub(base);
            let idx = (off >> 2) as usize;
            let slot = match slots.get(idx) {
                Some(s) if off & 3 == 0 => *s,
                _ => match code.iter().find_map(|c| c.index(pc).map(|i| (c, i))) {
                    Some((c, i)) if i < c.slots.len() => {
                        (base, slots) = (c.base, &c.slots);
                        continue 'run;
                    }
                    // The undecoded zero-filled tail of a code segment.
                    Some(_) => {
                        let reason = decode(0)
                            .err()
                            .unwrap_or(kestrel_core::isa::DecodeError::Reserved);
                        break Err(VmError::IllegalInstruction {
                            pc,
                            word: 0,
                            reason,
                        });
                    }
                    None => break Err(VmError::FetchFault { pc }),
                },
            };
            let (ins, word) = (slot.ins, slot.word);
            if !slot.legal {
                let reason = decode(word)
                    .err()
                    .unwrap_or(kestrel_core::isa::DecodeError::Reserved);
                break Err(VmError::IllegalInstruction { pc, word, reason });
            }
            let rs1v = x[usize::from(ins.rs1 & 31)];
            let rs2v = x[usize::from(ins.rs2 & 31)];
            let imm = ins.imm64();
            let mut next = pc.wrapping_add(4);
            let (mut ma, mut mv) = (0u64, 0u64);

            macro_rules! load {
                ($n:literal, $conv:expr) => {{
                    let addr = rs1v.wrapping_add(imm);
                    match mem.load::<$n>(addr) {
                        Some(b) => {
                            if R::ENABLED {
                                ma = addr;
                                mv = zext(b);
                            }
                            $conv(b)
                        }
                        None => {
                            let (access, width) = (Access::Read, $n);
                            break Err(VmError::MemoryFault {
                                pc,
                                word,
                                access,
                                addr,
                                width,
                            });
                        }
                    }
                }};
            }
            macro_rules! store {
                ($n:literal, $t:ty) => {{
                    let addr = rs1v.wrapping_add(imm);
                    match mem.store::<$n>(addr, (rs2v as $t).to_le_bytes()) {
                        Some(old) => {
                            if R::ENABLED {
                                ma = addr;
                                mv = zext(old);
                            }
                            0
                        }
                        None => {
                            let (access, width) = (Access::Write, $n);
                            break Err(VmError::MemoryFault {
                                pc,
                                word,
                                access,
                                addr,
                                width,
                            });
                        }
                    }
                }};
            }
            macro_rules! branch {
                ($cond:expr) => {{
                    if $cond {
                        next = pc.wrapping_add(imm);
                    }
                    0
                }};
            }

            let rdv: u64 = match ins.op {
                Lui => imm,
                Auipc => pc.wrapping_add(imm),
                Jal => {
                    next = pc.wrapping_add(imm);
                    pc.wrapping_add(4)
                }
                Jalr => {
                    next = rs1v.wrapping_add(imm) & !1;
                    pc.wrapping_add(4)
                }
                Beq => branch!(rs1v == rs2v),
                Bne => branch!(rs1v != rs2v),
                Blt => branch!((rs1v as i64) < (rs2v as i64)),
                Bge => branch!((rs1v as i64) >= (rs2v as i64)),
                Bltu => branch!(rs1v < rs2v),
                Bgeu => branch!(rs1v >= rs2v),
                Lb => load!(1, |b: [u8; 1]| b[0] as i8 as i64 as u64),
                Lh => load!(2, |b| i16::from_le_bytes(b) as i64 as u64),
                Lw => load!(4, |b| i32::from_le_bytes(b) as i64 as u64),
                Ld => load!(8, u64::from_le_bytes),
                Lbu => load!(1, |b: [u8; 1]| u64::from(b[0])),
                Lhu => load!(2, |b| u64::from(u16::from_le_bytes(b))),
                Lwu => load!(4, |b| u64::from(u32::from_le_bytes(b))),
                Sb => store!(1, u8),
                Sh => store!(2, u16),
                Sw => store!(4, u32),
                Sd => store!(8, u64),
                Addi => rs1v.wrapping_add(imm),
                Slti => u64::from((rs1v as i64) < (imm as i64)),
                Sltiu => u64::from(rs1v < imm),
                Xori => rs1v ^ imm,
                Ori => rs1v | imm,
                Andi => rs1v & imm,
                Slli => rs1v << (imm & 63),
                Srli => rs1v >> (imm & 63),
                Srai => ((rs1v as i64) >> (imm & 63)) as u64,
                Add => rs1v.wrapping_add(rs2v),
                Sub => rs1v.wrapping_sub(rs2v),
                Sll => rs1v << (rs2v & 63),
                Slt => u64::from((rs1v as i64) < (rs2v as i64)),
                Sltu => u64::from(rs1v < rs2v),
                Xor => rs1v ^ rs2v,
                Srl => rs1v >> (rs2v & 63),
                Sra => ((rs1v as i64) >> (rs2v & 63)) as u64,
                Or => rs1v | rs2v,
                And => rs1v & rs2v,
                Addiw => sext32((rs1v as u32).wrapping_add(imm as u32)),
                Slliw => sext32((rs1v as u32) << (imm & 31)),
                Srliw => sext32((rs1v as u32) >> (imm & 31)),
                Sraiw => ((rs1v as i32) >> (imm & 31)) as i64 as u64,
                Addw => sext32((rs1v as u32).wrapping_add(rs2v as u32)),
                Subw => sext32((rs1v as u32).wrapping_sub(rs2v as u32)),
                Sllw => sext32((rs1v as u32) << (rs2v & 31)),
                Srlw => sext32((rs1v as u32) >> (rs2v & 31)),
                Sraw => ((rs1v as i32) >> (rs2v & 31)) as i64 as u64,
                Mul => rs1v.wrapping_mul(rs2v),
                Mulh => (((rs1v as i64 as i128) * (rs2v as i64 as i128)) >> 64) as u64,
                Mulhsu => (((rs1v as i64 as i128) * (rs2v as i128)) >> 64) as u64,
                Mulhu => (((rs1v as u128) * (rs2v as u128)) >> 64) as u64,
                Div => match rs2v {
                    0 => u64::MAX,
                    _ => (rs1v as i64).wrapping_div(rs2v as i64) as u64,
                },
                Divu => rs1v.checked_div(rs2v).unwrap_or(u64::MAX),
                Rem => match rs2v {
                    0 => rs1v,
                    _ => (rs1v as i64).wrapping_rem(rs2v as i64) as u64,
                },
                Remu => rs1v.checked_rem(rs2v).unwrap_or(rs1v),
                Mulw => sext32((rs1v as u32).wrapping_mul(rs2v as u32)),
                Divw => match rs2v as i32 {
                    0 => u64::MAX,
                    b => (rs1v as i32).wrapping_div(b) as i64 as u64,
                },
                Divuw => match rs2v as u32 {
                    0 => u64::MAX,
                    b => sext32(rs1v as u32 / b),
                },
                Remw => match rs2v as i32 {
                    0 => sext32(rs1v as u32),
                    b => (rs1v as i32).wrapping_rem(b) as i64 as u64,
                },
                Remuw => match rs2v as u32 {
                    0 => sext32(rs1v as u32),
                    b => sext32(rs1v as u32 % b),
                },
                Fence => 0,
                Ecall => {
                    let (a7, a0, a1, a2) = (x[17], x[10], x[11], x[12]);
                    let after = match ecall::ecall(&mut x, mem, io, pc, word) {
                        Ok(a) => a,
                        Err(e) => break Err(e),
                    };
                    if R::ENABLED {
                        let r = Record {
                            pc: pc as u32,
                            word,
                            rs1_val: a7,
                            rs2_val: a0,
                            rd_val: x[10],
                            mem_addr: a1,
                            mem_val: a2,
                        };
                        rec.record(r);
                    }
                    cycles += 1;
                    if let After::Exit(code) = after {
                        break Ok(code);
                    }
                    pc = next;
                    continue 'run;
                }
            };
            x[usize::from(ins.rd & 31)] = rdv;
            x[0] = 0;
            if R::ENABLED {
                let rd_val = x[usize::from(ins.rd & 31)];
                let (rs1_val, rs2_val) = (rs1v, rs2v);
                let r = Record {
                    pc: pc as u32,
                    word,
                    rs1_val,
                    rs2_val,
                    rd_val,
                    mem_addr: ma,
                    mem_val: mv,
                };
                rec.record(r);
            }
            cycles += 1;
            pc = next;
        };
        *regs = x;
        *pc_out = pc;
        *cycles_out = cycles;
        result
    }
}
