//! The system-call test machine shared by ECALL's and IO's unit tests
//! (`rv/ecall/tests.rs`, `rv/io/tests.rs`): a reference model of the calls (memory words,
//! input and output streams, the break), a scenario of every call kind, ledger helpers, and
//! a small machine (stand-ins for the CPU, registers and memory; the real LT and BITWISE).

extern crate std;

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use crate::air::debug::{check_machine, preprocessed_traces, table_ledger, DebugReport};
use crate::air::{Air, AirBuilder, Direction, Machine, PublicInteraction, TableAir};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::{BitwiseAir, ByteCounts};
use crate::rv::ecall::{self, EcallAir};
use crate::rv::io::{self, IoAir};
use crate::rv::lt::{self, LtAir};
use crate::rv::{
    alu_eval, AluOp, EcallOp, IoWord, BUS_ALU, BUS_BYTE, BUS_ECALL, BUS_MEM_A, BUS_OUTPUT,
    BUS_REG_ACCESS, BYTE_RANGE, IO_OUT, IO_ZERO, SYS_BRK, SYS_EXIT, SYS_READ, SYS_WRITE,
};

pub const EXIT: u64 = SYS_EXIT as u64;
pub const WRITE: u64 = SYS_WRITE as u64;
pub const READ: u64 = SYS_READ as u64;
pub const BRK: u64 = SYS_BRK as u64;

pub const HEAP_START: u64 = 0x10_0000;
pub const HEAP_LIMIT: u64 = 0x20_0000;

/// A reference model of the calls: memory words, the input and output streams, the break.
pub struct Sim {
    pub mem: BTreeMap<u32, u64>,
    pub input: Vec<u8>,
    pub in_pos: usize,
    pub out: Vec<u8>,
    pub clk: u64,
    /// Old break, heap limit, heap start.
    pub regs: [u64; 3],
    pub ops: Vec<EcallOp>,
    pub words: Vec<IoWord>,
}

impl Sim {
    pub fn new(input: Vec<u8>) -> Sim {
        let mut mem = BTreeMap::new();
        for w in 0x1000 / 8..0x1100 / 8 {
            mem.insert(
                w,
                0x0101_0101_0101_0101u64.wrapping_mul(w as u64) ^ 0x8040_2010_0804_0201,
            );
        }
        Sim {
            mem,
            input,
            in_pos: 0,
            out: Vec::new(),
            clk: 3,
            regs: [HEAP_START, HEAP_LIMIT, HEAP_START],
            ops: Vec::new(),
            words: Vec::new(),
        }
    }

    /// Runs a call as the executor would; `res` overrides the result (a cheating prover).
    pub fn call_with(&mut self, a7: u64, a0: u64, a1: u64, a2: u64, res: Option<u64>) -> EcallOp {
        let [brk, limit, start] = self.regs;
        let remaining = (self.input.len() - self.in_pos) as u64;
        let honest = match (a7, a0) {
            (EXIT, _) => a0,
            (WRITE, 1 | 2) => a2,
            (READ, 0) => a2.min(remaining),
            (BRK, _) if (start..=limit).contains(&a0) => a0,
            (BRK, _) => brk,
            _ => a0,
        };
        let op = EcallOp {
            clk: self.clk,
            a7,
            a0,
            a1,
            a2,
            res: res.unwrap_or(honest),
            outpos: self.out.len() as u64,
            brk: self.regs,
            remaining: if (a7, a0) == (READ, 0) { remaining } else { 0 },
        };
        if a7 == BRK {
            self.regs[0] = op.res;
        }
        let chain = ecall::transfer(&op)
            .or_else(|| ecall::zero_range(&op).map(|(from, cnt)| (IO_ZERO, from, cnt)));
        if let Some((kind, buf, cnt)) = chain {
            let mut pos = if kind == IO_ZERO { 0 } else { op.outpos };
            for (w, lo, c) in io::words_of(buf, cnt) {
                let old = self.mem.get(&w).copied().unwrap_or(0);
                let mut b = old.to_le_bytes();
                for byte in &mut b[lo as usize..(lo + c) as usize] {
                    if kind == IO_OUT {
                        self.out.push(*byte);
                    } else if kind == IO_ZERO {
                        *byte = 0;
                    } else {
                        *byte = self.input[self.in_pos];
                        self.in_pos += 1;
                    }
                }
                let new = u64::from_le_bytes(b);
                self.mem.insert(w, new);
                self.words.push(IoWord {
                    kind,
                    ts: op.clk + 1,
                    pos,
                    w,
                    lo,
                    cnt: c,
                    old,
                    new,
                });
                pos += c as u64;
            }
        }
        self.clk += 5;
        self.ops.push(op);
        op
    }

    pub fn call(&mut self, a7: u64, a0: u64, a1: u64, a2: u64) -> EcallOp {
        self.call_with(a7, a0, a1, a2, None)
    }
}

/// Fills the heap's first `0x100` bytes with non-zero data (as stores would).
pub fn fill_heap(s: &mut Sim) {
    for w in HEAP_START / 8..(HEAP_START + 0x100) / 8 {
        s.mem
            .insert(w as u32, 0x1111_1111_1111_1111u64.wrapping_mul(w % 15 + 1));
    }
}

/// The IO rows of the call `op` (by timestamp).
pub fn rows_of(s: &Sim, op: &EcallOp) -> Vec<usize> {
    (0..s.words.len())
        .filter(|&i| s.words[i].ts == op.clk + 1)
        .collect()
}

/// Every call kind: writes (fd 1, fd 2, zero length, aligned, unaligned), reads (zero
/// length, full, short, at the end of input), brk (in range, below, above, on both bounds,
/// a query; shrinks: multi-word from an unaligned start, inside one word, from an unaligned
/// old break to a word boundary, back to the heap start), exit.
pub fn scenario() -> Sim {
    let input: Vec<u8> = (0..30u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(5))
        .collect();
    let mut s = Sim::new(input);
    fill_heap(&mut s);
    s.call(WRITE, 1, 0x1003, 13);
    s.call(WRITE, 2, 0x1020, 7);
    s.call(READ, 0, 0x3000, 0);
    assert_eq!(s.call(READ, 0, 0x3005, 20).res, 20);
    assert_eq!(s.call(READ, 0, 0x3100, 64).res, 10);
    assert_eq!(s.call(READ, 0, 0x3200, 5).res, 0);
    s.call(WRITE, 1, 0x1000, 0);
    s.call(WRITE, 1, 0x3005, 20);
    s.call(WRITE, 1, 0x1010, 8);
    s.call(WRITE, 1, 0x3101, 9);
    assert_eq!(
        s.call(BRK, HEAP_START + 0x100, 0, 0).res,
        HEAP_START + 0x100
    );
    assert_eq!(s.call(BRK, HEAP_START - 1, 0, 0).res, HEAP_START + 0x100);
    assert_eq!(s.call(BRK, HEAP_LIMIT + 1, 0, 0).res, HEAP_START + 0x100);
    assert_eq!(s.call(BRK, u64::MAX, 0, 0).res, HEAP_START + 0x100);
    // Shrink to 0x23: a partial first word (bytes 3..8), then whole words up to 0x100.
    let op = s.call(BRK, HEAP_START + 0x23, 0, 0);
    assert_eq!(
        ecall::zero_range(&op),
        Some((HEAP_START as u32 + 0x23, 0xdd))
    );
    assert_eq!(rows_of(&s, &op).len(), 28);
    // Grow to 0x2d (the bytes 0x23.. read as zero now), shrink inside one word to 0x29.
    s.call(BRK, HEAP_START + 0x2d, 0, 0);
    let op = s.call(BRK, HEAP_START + 0x29, 0, 0);
    assert_eq!(ecall::zero_range(&op), Some((HEAP_START as u32 + 0x29, 4)));
    assert_eq!(
        s.words[rows_of(&s, &op)[0]],
        IoWord {
            kind: IO_ZERO,
            ts: op.clk + 1,
            pos: 0,
            w: (HEAP_START / 8 + 5) as u32,
            lo: 1,
            cnt: 4,
            old: 0,
            new: 0,
        }
    );
    // Shrink from the unaligned 0x29 to the word boundary 0x10.
    let op = s.call(BRK, HEAP_START + 0x10, 0, 0);
    assert_eq!(rows_of(&s, &op).len(), 4);
    assert_ne!(s.words[rows_of(&s, &op)[0]].old, 0);
    // A query (no change), then shrink to the heap start.
    let op = s.call(BRK, HEAP_START + 0x10, 0, 0);
    assert_eq!(ecall::zero_range(&op), None);
    assert_eq!(s.call(BRK, HEAP_START, 0, 0).res, HEAP_START);
    assert_eq!(s.call(BRK, HEAP_LIMIT, 0, 0).res, HEAP_LIMIT);
    assert_eq!(s.call(BRK, 0, 0, 0).res, HEAP_LIMIT);
    s.call(EXIT, 3, 0, 0);
    assert_eq!(s.out.len(), 13 + 20 + 8 + 9);
    // The shrinks zeroed everything from the heap start on.
    for w in HEAP_START / 8..(HEAP_START + 0x100) / 8 {
        assert_eq!(s.mem[&(w as u32)], 0);
    }
    s
}

pub fn ecall_trace(ops: &[EcallOp]) -> RowMajorMatrix {
    ecall::build_trace(ops, &mut ByteCounts::default())
}

pub fn io_trace(words: &[IoWord]) -> RowMajorMatrix {
    io::build_trace(words, &mut ByteCounts::default())
}

pub fn le(values: &[Felt]) -> u64 {
    values.iter().rev().fold(0, |a, v| (a << 8) | v.as_u64())
}

/// The net tuples a table puts on `bus` (sends positive).
pub fn on_bus(table: &dyn TableAir, trace: &RowMajorMatrix, bus: u32) -> Vec<(Vec<Felt>, Felt)> {
    let l = table_ledger(table, trace, None, &[]);
    assert!(l.failures.is_empty(), "{}: {:?}", table.name(), l.failures);
    l.buses
        .into_iter()
        .filter(|((b, _), _)| *b == bus)
        .map(|((_, v), m)| (v, m))
        .collect()
}

/// Checks that every ALU tuple on the ledger is true; returns them as ops.
pub fn true_alu_ops(table: &dyn TableAir, trace: &RowMajorMatrix) -> Vec<AluOp> {
    let mut ops = Vec::new();
    for (v, m) in on_bus(table, trace, BUS_ALU) {
        assert_eq!(v.len(), 25);
        let (a, b, c) = (le(&v[1..9]), le(&v[9..17]), le(&v[17..25]));
        let op = v[0].as_u64() as u32;
        assert_eq!(
            alu_eval(op, a, b),
            Some(c),
            "false ALU tuple {op} {a:#x} {b:#x} {c}"
        );
        for _ in 0..m.as_u64() {
            ops.push(AluOp { op, a, b, c });
        }
    }
    ops
}

pub fn valid_byte_tuples(table: &dyn TableAir, trace: &RowMajorMatrix) {
    for (v, m) in on_bus(table, trace, BUS_BYTE) {
        assert!(m.as_u64() < 1 << 20, "byte lookup received, not sent");
        assert_eq!(v[0], Felt::from(BYTE_RANGE));
        assert!(v[1].as_u64() < 256 && v[2].as_u64() < 256 && v[3] == Felt::ZERO);
    }
}

// ---- The chain machine --------------------------------------------------------------

/// A stand-in table: each row puts `values[arity]` on `bus` with multiplicity `m` (the last
/// column), in the given direction.
pub struct Port {
    pub name: &'static str,
    pub bus: u32,
    pub arity: usize,
    pub direction: Direction,
}

impl Air for Port {
    fn name(&self) -> &str {
        self.name
    }
    fn width(&self) -> usize {
        self.arity + 1
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let values: Vec<B::Expr> = (0..self.arity).map(|i| b.main(i)).collect();
        let m = b.main(self.arity);
        b.interact(self.bus, self.direction, m, &values);
    }
}

/// The CPU's side of the calls.
pub static CPU: Port = Port {
    name: "CPU_ECALL",
    bus: BUS_ECALL,
    arity: 28,
    direction: Direction::Send,
};
/// The registers: any access is absorbed.
pub static REGS: Port = Port {
    name: "REGS",
    bus: BUS_REG_ACCESS,
    arity: 11,
    direction: Direction::Receive,
};
/// The memory: any word access is absorbed.
pub static MEM: Port = Port {
    name: "MEM",
    bus: BUS_MEM_A,
    arity: 19,
    direction: Direction::Receive,
};

pub fn port_trace(port: &Port, tuples: &[(Vec<Felt>, Felt)]) -> RowMajorMatrix {
    let h = tuples
        .len()
        .next_power_of_two()
        .max(crate::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, port.arity + 1);
    for (r, (v, m)) in tuples.iter().enumerate() {
        assert_eq!(v.len(), port.arity);
        let row = t.row_mut(r);
        row[..port.arity].copy_from_slice(v);
        row[port.arity] = *m;
    }
    t
}

/// CPU, ECALL, IO, registers, memory, LT, BITWISE; the public values are the output bytes.
pub struct ChainMachine;

impl Machine for ChainMachine {
    fn name(&self) -> &str {
        "ecall-io-test"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&CPU, &EcallAir, &IoAir, &REGS, &MEM, &LtAir, &BitwiseAir]
    }
    fn num_public_values(&self) -> usize {
        0
    }
    fn public_interactions(&self, public: &[Felt]) -> Vec<PublicInteraction> {
        public
            .iter()
            .enumerate()
            .map(|(i, &byte)| PublicInteraction {
                bus: BUS_OUTPUT,
                direction: Direction::Receive,
                multiplicity: Felt::ONE,
                values: vec![Felt::new(i as u64), byte],
            })
            .collect()
    }
}

pub fn bytes_felt(v: u64) -> impl Iterator<Item = Felt> {
    v.to_le_bytes().into_iter().map(|b| Felt::from(b as u32))
}

/// The CPU's BUS_ECALL tuple for `op`.
pub fn cpu_tuple(op: &EcallOp) -> Vec<Felt> {
    let mut t = vec![Felt::new(op.clk)];
    t.extend(bytes_felt(op.a7));
    t.extend(bytes_felt(op.a0));
    t.extend(bytes_felt(op.res));
    t.push(Felt::from(ecall::is_exit(op)));
    t.push(Felt::new(op.outpos));
    t.push(Felt::new(ecall::outn(op)));
    t
}

/// Checks the machine for these ECALL and IO traces: the CPU sends `ops`; registers and
/// memory absorb whatever ECALL and IO send them; LT answers every comparison ECALL asks,
/// truthfully; BITWISE counts every byte lookup of valid bytes.
pub fn check(ops: &[EcallOp], et: &RowMajorMatrix, it: &RowMajorMatrix, out: &[u8]) -> DebugReport {
    let cpu: Vec<(Vec<Felt>, Felt)> = ops.iter().map(|op| (cpu_tuple(op), Felt::ONE)).collect();
    let ledger = |t: &dyn TableAir, tr: &RowMajorMatrix, bus: u32| -> Vec<(Vec<Felt>, Felt)> {
        table_ledger(t, tr, None, &[])
            .buses
            .into_iter()
            .filter(|((b, _), _)| *b == bus)
            .map(|((_, v), m)| (v, m))
            .collect()
    };
    let regs = ledger(&EcallAir, et, BUS_REG_ACCESS);
    let mem = ledger(&IoAir, it, BUS_MEM_A);
    let mut bytes = ByteCounts::default();
    let mut alu = Vec::new();
    for (v, m) in ledger(&EcallAir, et, BUS_ALU) {
        let (op, a, b) = (v[0].as_u64() as u32, le(&v[1..9]), le(&v[9..17]));
        if let Some(c) = alu_eval(op, a, b) {
            for _ in 0..m.as_u64().min(16) {
                alu.push(AluOp { op, a, b, c });
            }
        }
    }
    let lt_t = lt::build_trace(&alu, &mut bytes);
    let byte_lookups = ledger(&IoAir, it, BUS_BYTE)
        .into_iter()
        .chain(ledger(&EcallAir, et, BUS_BYTE));
    for (v, m) in byte_lookups {
        if v[0] == Felt::from(BYTE_RANGE) && v[1].as_u64() < 256 && v[2].as_u64() < 256 {
            for _ in 0..m.as_u64().min(1 << 10) {
                bytes.range(v[1].as_u64() as u8, v[2].as_u64() as u8);
            }
        }
    }
    let traces = [
        port_trace(&CPU, &cpu),
        et.clone(),
        it.clone(),
        port_trace(&REGS, &regs),
        port_trace(&MEM, &mem),
        lt_t,
        bytes.trace(),
    ];
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    let public: Vec<Felt> = out.iter().map(|&b| Felt::from(b as u32)).collect();
    check_machine(
        &ChainMachine,
        &refs,
        &preprocessed_traces(&ChainMachine),
        &public,
    )
}

pub fn check_sim(s: &Sim) -> DebugReport {
    check(&s.ops, &ecall_trace(&s.ops), &io_trace(&s.words), &s.out)
}

#[track_caller]
pub fn assert_ok(r: &DebugReport) {
    assert!(r.is_ok(), "honest run rejected:\n{r}");
}

/// The run is rejected with an imbalance on `bus` and no constraint failure.
#[track_caller]
pub fn assert_unbalanced(r: &DebugReport, bus: u32) {
    assert!(r.failures.is_empty(), "{r}");
    assert!(
        r.imbalances.iter().any(|i| i.bus == bus),
        "expected an imbalance on bus {bus}:\n{r}"
    );
}

/// The run is rejected by the constraint `name`.
#[track_caller]
pub fn assert_fails(r: &DebugReport, name: &str) {
    assert!(
        r.failures.iter().any(|f| f.constraint == name),
        "expected `{name}` to fail:\n{r}"
    );
}

/// A small run with a shrink: grow, fill (a read into the heap), shrink to `HEAP_START + 5`.
pub fn shrink_run() -> (Sim, EcallOp) {
    let mut s = Sim::new((1..=40).collect());
    s.call(BRK, HEAP_START + 0x40, 0, 0);
    s.call(READ, 0, HEAP_START, 0x28);
    let op = s.call(BRK, HEAP_START + 5, 0, 0);
    s.call(EXIT, 0, 0, 0);
    (s, op)
}
