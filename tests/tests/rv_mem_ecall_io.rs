//! The ECALL and IO tables: honest traces of every call kind satisfy their constraints and
//! make only true ALU and byte lookups; every single-cell mutation of a real row is
//! detected; and in a small machine (stand-ins for the CPU, registers and memory; the real
//! LT and BITWISE) honest read/write/brk calls balance while forged output, broken chains,
//! out-of-range results, skipped or forged brk-shrink zeroing and unsupported calls do not.

use std::collections::BTreeMap;

use kestrel_core::air::debug::{check_machine, preprocessed_traces, table_ledger, DebugReport};
use kestrel_core::air::{
    Air, AirBuilder, Direction, Machine, PublicInteraction, TableAir, TableShape,
};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::bitwise::{BitwiseAir, ByteCounts};
use kestrel_core::rv::ecall::{self, EcallAir};
use kestrel_core::rv::io::{self, IoAir};
use kestrel_core::rv::lt::{self, LtAir};
use kestrel_core::rv::{
    alu_eval, AluOp, EcallOp, IoWord, BUS_ALU, BUS_BYTE, BUS_ECALL, BUS_IO, BUS_MEM_A, BUS_OUTPUT,
    BUS_REG_ACCESS, BYTE_RANGE, IO_IN, IO_OUT, IO_ZERO, SYS_BRK, SYS_EXIT, SYS_READ, SYS_WRITE,
};
use kestrel_tests::mutation::assert_all_detected;

const EXIT: u64 = SYS_EXIT as u64;
const WRITE: u64 = SYS_WRITE as u64;
const READ: u64 = SYS_READ as u64;
const BRK: u64 = SYS_BRK as u64;

const HEAP_START: u64 = 0x10_0000;
const HEAP_LIMIT: u64 = 0x20_0000;

/// A reference model of the calls: memory words, the input and output streams, the break.
struct Sim {
    mem: BTreeMap<u32, u64>,
    input: Vec<u8>,
    in_pos: usize,
    out: Vec<u8>,
    clk: u64,
    /// Old break, heap limit, heap start.
    regs: [u64; 3],
    ops: Vec<EcallOp>,
    words: Vec<IoWord>,
}

impl Sim {
    fn new(input: Vec<u8>) -> Sim {
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
    fn call_with(&mut self, a7: u64, a0: u64, a1: u64, a2: u64, res: Option<u64>) -> EcallOp {
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

    fn call(&mut self, a7: u64, a0: u64, a1: u64, a2: u64) -> EcallOp {
        self.call_with(a7, a0, a1, a2, None)
    }
}

/// Fills the heap's first `0x100` bytes with non-zero data (as stores would).
fn fill_heap(s: &mut Sim) {
    for w in HEAP_START / 8..(HEAP_START + 0x100) / 8 {
        s.mem
            .insert(w as u32, 0x1111_1111_1111_1111u64.wrapping_mul(w % 15 + 1));
    }
}

/// The IO rows of the call `op` (by timestamp).
fn rows_of(s: &Sim, op: &EcallOp) -> Vec<usize> {
    (0..s.words.len())
        .filter(|&i| s.words[i].ts == op.clk + 1)
        .collect()
}

/// Every call kind: writes (fd 1, fd 2, zero length, aligned, unaligned), reads (zero
/// length, full, short, at the end of input), brk (in range, below, above, on both bounds,
/// a query; shrinks: multi-word from an unaligned start, inside one word, from an unaligned
/// old break to a word boundary, back to the heap start), exit.
fn scenario() -> Sim {
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

fn ecall_trace(ops: &[EcallOp]) -> RowMajorMatrix {
    ecall::build_trace(ops, &mut ByteCounts::default())
}

fn io_trace(words: &[IoWord]) -> RowMajorMatrix {
    io::build_trace(words, &mut ByteCounts::default())
}

fn le(values: &[Felt]) -> u64 {
    values.iter().rev().fold(0, |a, v| (a << 8) | v.as_u64())
}

/// The net tuples a table puts on `bus` (sends positive).
fn on_bus(table: &dyn TableAir, trace: &RowMajorMatrix, bus: u32) -> Vec<(Vec<Felt>, Felt)> {
    let l = table_ledger(table, trace, None, &[]);
    assert!(l.failures.is_empty(), "{}: {:?}", table.name(), l.failures);
    l.buses
        .into_iter()
        .filter(|((b, _), _)| *b == bus)
        .map(|((_, v), m)| (v, m))
        .collect()
}

/// Checks that every ALU tuple on the ledger is true; returns them as ops.
fn true_alu_ops(table: &dyn TableAir, trace: &RowMajorMatrix) -> Vec<AluOp> {
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

fn valid_byte_tuples(table: &dyn TableAir, trace: &RowMajorMatrix) {
    for (v, m) in on_bus(table, trace, BUS_BYTE) {
        assert!(m.as_u64() < 1 << 20, "byte lookup received, not sent");
        assert_eq!(v[0], Felt::from(BYTE_RANGE));
        assert!(v[1].as_u64() < 256 && v[2].as_u64() < 256 && v[3] == Felt::ZERO);
    }
}

#[test]
fn shapes() {
    for t in [&EcallAir as &dyn TableAir, &IoAir] {
        let s = TableShape::of(t, 0).unwrap();
        assert!(s.max_degree <= 3);
        println!(
            "{}: {} columns, {} constraints, {} interactions, max degree {}",
            t.name(),
            s.width,
            s.num_air_constraints,
            s.num_interactions,
            s.max_degree
        );
    }
}

#[test]
fn honest_calls() {
    let s = scenario();
    let et = ecall_trace(&s.ops);
    let it = io_trace(&s.words);
    for (t, tr) in [(&EcallAir as &dyn TableAir, &et), (&IoAir, &it)] {
        let l = table_ledger(t, tr, None, &[]);
        assert!(l.failures.is_empty(), "{}: {:?}", t.name(), l.failures);
    }
    // ALU lookups: all true, and exactly what `alu_lookups` lists.
    let mut sent = true_alu_ops(&EcallAir, &et);
    let mut listed: Vec<AluOp> = s.ops.iter().flat_map(ecall::alu_lookups).collect();
    sent.sort();
    listed.sort();
    assert_eq!(sent, listed);
    assert!(true_alu_ops(&IoAir, &it).is_empty());
    valid_byte_tuples(&IoAir, &it);
    valid_byte_tuples(&EcallAir, &et);
    // IO's byte lookups are what the builder counted.
    let mut counted = ByteCounts::default();
    io::build_trace(&s.words, &mut counted);
    let mut from_ledger = ByteCounts::default();
    for (v, m) in on_bus(&IoAir, &it, BUS_BYTE) {
        for _ in 0..m.as_u64() {
            from_ledger.range(v[1].as_u64() as u8, v[2].as_u64() as u8);
        }
    }
    assert!(counted.trace().values == from_ledger.trace().values);
    // So are ECALL's (a read's rem').
    let mut counted = ByteCounts::default();
    ecall::build_trace(&s.ops, &mut counted);
    let mut from_ledger = ByteCounts::default();
    for (v, m) in on_bus(&EcallAir, &et, BUS_BYTE) {
        for _ in 0..m.as_u64() {
            from_ledger.range(v[1].as_u64() as u8, v[2].as_u64() as u8);
        }
    }
    assert!(counted.trace().values == from_ledger.trace().values);
    // The reads' input register: 30 bytes, then 30, 10, 0, 0 left.
    let reads: Vec<&EcallOp> = s.ops.iter().filter(|op| op.a7 == READ).collect();
    let rems: Vec<(u64, u64)> = reads
        .iter()
        .map(|op| (op.remaining, ecall::remaining_after(op)))
        .collect();
    assert_eq!(rems, vec![(30, 30), (30, 10), (10, 0), (0, 0)]);
    // The output published is the output written.
    let mut out: Vec<(u64, u64)> = on_bus(&IoAir, &it, BUS_OUTPUT)
        .into_iter()
        .map(|(v, m)| {
            assert_eq!(m, Felt::ONE);
            (v[0].as_u64(), v[1].as_u64())
        })
        .collect();
    out.sort();
    let expect: Vec<(u64, u64)> = s
        .out
        .iter()
        .enumerate()
        .map(|(i, &b)| (i as u64, b as u64))
        .collect();
    assert_eq!(out, expect);
    // words_of covers the buffer word by word.
    assert_eq!(io::words_of(5, 0), vec![]);
    assert_eq!(io::words_of(5, 3), vec![(0, 5, 3)]);
    assert_eq!(io::words_of(5, 4), vec![(0, 5, 3), (1, 0, 1)]);
    assert_eq!(
        io::words_of(0x1003, 21),
        vec![(0x200, 3, 5), (0x201, 0, 8), (0x202, 0, 8)]
    );
    assert_eq!(io::words_of(u32::MAX, 1), vec![((u32::MAX / 8), 7, 1)]);
    // Helpers.
    assert!(ecall::is_exit(s.ops.last().unwrap()));
    assert!(!ecall::is_exit(&s.ops[0]));
    assert_eq!(ecall::outn(&s.ops[0]), 13);
    assert_eq!(ecall::outn(&s.ops[1]), 0);
    assert_eq!(ecall::transfer(&s.ops[1]), None);
    // Zeroing rows publish nothing and write zeros.
    let zero_rows = s.words.iter().filter(|w| w.kind == IO_ZERO).count();
    assert_eq!(zero_rows, 28 + 1 + 4 + 2);
    for r in 0..s.words.len() {
        if s.words[r].kind == IO_ZERO {
            assert_eq!(it.row(r)[io::ZERO], Felt::ONE);
            assert_eq!(it.row(r)[io::KIND], Felt::ZERO);
        }
    }
    let shrinks: Vec<_> = s
        .ops
        .iter()
        .filter(|op| ecall::zero_range(op).is_some())
        .collect();
    assert_eq!(shrinks.len(), 4);
    for op in shrinks {
        assert!(ecall::transfer(op).is_none());
        assert!(ecall::alu_lookups(op)
            .iter()
            .any(|a| a.a == op.res && a.b == op.brk[0] && a.c == 1));
    }
}

#[test]
fn mutations() {
    let s = scenario();
    let et = ecall_trace(&s.ops);
    let rows: Vec<usize> = (0..s.ops.len()).collect();
    assert_all_detected(&EcallAir, &et, None, &[], &rows, 64);
    // The read rows alone (the input register's columns): empty, full, short, at the end.
    let reads: Vec<usize> = (0..s.ops.len()).filter(|&r| s.ops[r].a7 == READ).collect();
    assert_eq!(reads.len(), 4);
    assert_all_detected(&EcallAir, &et, None, &[], &reads, 64);
    let it = io_trace(&s.words);
    let rows: Vec<usize> = (0..s.words.len()).collect();
    assert_all_detected(&IoAir, &it, None, &[], &rows, 64);
}

// ---- The chain machine --------------------------------------------------------------

/// A stand-in table: each row puts `values[arity]` on `bus` with multiplicity `m` (the last
/// column), in the given direction.
struct Port {
    name: &'static str,
    bus: u32,
    arity: usize,
    direction: Direction,
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
static CPU: Port = Port {
    name: "CPU_ECALL",
    bus: BUS_ECALL,
    arity: 28,
    direction: Direction::Send,
};
/// The registers: any access is absorbed.
static REGS: Port = Port {
    name: "REGS",
    bus: BUS_REG_ACCESS,
    arity: 11,
    direction: Direction::Receive,
};
/// The memory: any word access is absorbed.
static MEM: Port = Port {
    name: "MEM",
    bus: BUS_MEM_A,
    arity: 19,
    direction: Direction::Receive,
};

fn port_trace(port: &Port, tuples: &[(Vec<Felt>, Felt)]) -> RowMajorMatrix {
    let h = tuples.len().next_power_of_two().max(8);
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
struct ChainMachine;

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

fn bytes_felt(v: u64) -> impl Iterator<Item = Felt> {
    v.to_le_bytes().into_iter().map(|b| Felt::from(b as u32))
}

/// The CPU's BUS_ECALL tuple for `op`.
fn cpu_tuple(op: &EcallOp) -> Vec<Felt> {
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
fn check(ops: &[EcallOp], et: &RowMajorMatrix, it: &RowMajorMatrix, out: &[u8]) -> DebugReport {
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

fn check_sim(s: &Sim) -> DebugReport {
    check(&s.ops, &ecall_trace(&s.ops), &io_trace(&s.words), &s.out)
}

#[track_caller]
fn assert_ok(r: &DebugReport) {
    assert!(r.is_ok(), "honest run rejected:\n{r}");
}

/// The run is rejected with an imbalance on `bus` and no constraint failure.
#[track_caller]
fn assert_unbalanced(r: &DebugReport, bus: u32) {
    assert!(r.failures.is_empty(), "{r}");
    assert!(
        r.imbalances.iter().any(|i| i.bus == bus),
        "expected an imbalance on bus {bus}:\n{r}"
    );
}

/// The run is rejected by the constraint `name`.
#[track_caller]
fn assert_fails(r: &DebugReport, name: &str) {
    assert!(
        r.failures.iter().any(|f| f.constraint == name),
        "expected `{name}` to fail:\n{r}"
    );
}

#[test]
fn chain_honest() {
    let s = scenario();
    assert_ok(&check_sim(&s));
    // IO rows may come in any order.
    let mut words = s.words.clone();
    words.reverse();
    words.rotate_left(5);
    assert_ok(&check(
        &s.ops,
        &ecall_trace(&s.ops),
        &io_trace(&words),
        &s.out,
    ));
}

#[test]
fn chain_forged_output() {
    let s = scenario();
    let mut out = s.out.clone();
    out[7] ^= 1;
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
    let mut out = s.out.clone();
    out.push(0);
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
    let mut out = s.out.clone();
    out.pop();
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
    // Bytes reordered in the public output.
    let mut out = s.out.clone();
    assert_ne!(out[0], out[1]);
    out.swap(0, 1);
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
}

#[test]
fn chain_broken() {
    let s = scenario();
    let et = ecall_trace(&s.ops);
    // The first write's rows: (0x200, 3, 5), (0x201, 0, 8).
    let first: Vec<usize> = (0..s.words.len())
        .filter(|&i| s.words[i].ts == s.ops[0].clk + 1)
        .collect();
    assert_eq!(first.len(), 2);
    // A read's rows.
    let read: Vec<usize> = (0..s.words.len())
        .filter(|&i| s.words[i].ts == s.ops[3].clk + 1)
        .collect();
    assert_eq!(read.len(), 4);

    for drop in [first[0], first[1], read[1], read[3]] {
        let mut words = s.words.clone();
        words.remove(drop);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }
    for dup in [first[0], read[2]] {
        let mut words = s.words.clone();
        words.push(s.words[dup]);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }
    // Reordered: the two rows of the first write swap their positions, so its bytes would
    // come out in another order.
    let mut words = s.words.clone();
    let (p0, p1) = (words[first[0]].pos, words[first[1]].pos);
    words[first[0]].pos = p1;
    words[first[1]].pos = p0;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    // Reordered words: the rows swap words (and bytes with them).
    let mut words = s.words.clone();
    let (a, b) = (words[first[0]], words[first[1]]);
    words[first[0]] = IoWord {
        w: b.w,
        old: b.old,
        new: b.new,
        ..a
    };
    words[first[1]] = IoWord {
        w: a.w,
        old: a.old,
        new: a.new,
        ..b
    };
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    // A row split in two (one word accessed twice at one ts: only memory would notice; the
    // chain itself balances, as the soundness argument expects).
    let mut words = s.words.clone();
    let r = words[first[1]];
    words[first[1]].cnt = 3;
    words.push(IoWord {
        lo: 3,
        cnt: 5,
        pos: r.pos + 3,
        ..r
    });
    let report = check(&s.ops, &et, &io_trace(&words), &s.out);
    assert_ok(&report);
    // A transfer claiming another kind.
    let mut words = s.words.clone();
    for &i in &read {
        words[i].kind = IO_OUT;
    }
    let r = check(&s.ops, &et, &io_trace(&words), &s.out);
    assert!(r.imbalances.iter().any(|i| i.bus == BUS_IO), "{r}");
    let mut words = s.words.clone();
    for &i in &read {
        words[i].kind = IO_ZERO;
    }
    let r = check(&s.ops, &et, &io_trace(&words), &s.out);
    assert!(r.imbalances.iter().any(|i| i.bus == BUS_IO), "{r}");
}

/// A small run with a shrink: grow, fill (a read into the heap), shrink to `HEAP_START + 5`.
fn shrink_run() -> (Sim, EcallOp) {
    let mut s = Sim::new((1..=40).collect());
    s.call(BRK, HEAP_START + 0x40, 0, 0);
    s.call(READ, 0, HEAP_START, 0x28);
    let op = s.call(BRK, HEAP_START + 5, 0, 0);
    s.call(EXIT, 0, 0, 0);
    (s, op)
}

#[test]
fn chain_brk_shrink() {
    let (s, op) = shrink_run();
    assert_ok(&check_sim(&s));
    let zero = rows_of(&s, &op);
    // (w0, 5, 3), w1 .. w7 whole: the first five hold input bytes.
    assert_eq!(zero.len(), 8);
    assert_eq!(s.words[zero[0]].lo, 5);
    assert!(zero[..5].iter().all(|&i| s.words[i].old != 0));
    let et = ecall_trace(&s.ops);
    let brk_row = 2;
    assert_eq!(et.row(brk_row)[ecall::SHRINK], Felt::ONE);

    // The zero chain missing entirely, or stopping early (last row, a middle row, the first
    // row dropped).
    let words: Vec<IoWord> = s
        .words
        .iter()
        .copied()
        .filter(|w| w.kind != IO_ZERO)
        .collect();
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    for drop in [zero[7], zero[3], zero[0]] {
        let mut words = s.words.clone();
        words.remove(drop);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }
    // A row covering fewer bytes: the last (the chain stops short of the old break) or a
    // middle one (a byte skipped, left non-zero).
    for r in [7, 4] {
        let mut words = s.words.clone();
        words[zero[r]].cnt = 7;
        words[zero[r]].new = s.words[zero[r]].old & (0xff << 56);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }

    // The shrink denied (shrink = 0, so no chain is due): LT disagrees.
    let words: Vec<IoWord> = s
        .words
        .iter()
        .copied()
        .filter(|w| w.kind != IO_ZERO)
        .collect();
    let mut et2 = et.clone();
    et2.row_mut(brk_row)[ecall::SHRINK] = Felt::ZERO;
    assert_unbalanced(&check(&s.ops, &et2, &io_trace(&words), &s.out), BUS_ALU);

    // A zeroing row leaving a non-zero byte (covered, or keeping the old byte).
    for (r, byte) in [(0, 5), (0, 7), (3, 0), (3, 6)] {
        let mut words = s.words.clone();
        let wd = &mut words[zero[r]];
        wd.new |= 0x2a << (8 * byte);
        assert_fails(
            &check(&s.ops, &et, &io_trace(&words), &s.out),
            "io zeroing clears covered bytes",
        );
        let mut words = s.words.clone();
        words[zero[r]].new = s.words[zero[r]].old;
        assert_fails(
            &check(&s.ops, &et, &io_trace(&words), &s.out),
            "io zeroing clears covered bytes",
        );
    }
    // A zeroing row changing an uncovered byte.
    let mut words = s.words.clone();
    words[zero[0]].new ^= 1;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&words), &s.out),
        "io input keeps uncovered bytes",
    );

    // The zero chain relabelled as input (which could keep any bytes) or as output.
    for kind in [IO_IN, IO_OUT] {
        let mut words = s.words.clone();
        for &i in &zero {
            words[i].kind = kind;
            words[i].new = s.words[i].old;
        }
        let r = check(&s.ops, &et, &io_trace(&words), &s.out);
        assert!(r.imbalances.iter().any(|i| i.bus == BUS_IO), "{r}");
    }
    // Only one flag may be set.
    let mut it = io_trace(&s.words);
    it.row_mut(zero[1])[io::KIND] = Felt::ONE;
    assert_fails(&check(&s.ops, &et, &it, &s.out), "io one kind");
}

#[test]
fn chain_brk_false_shrink() {
    // A shrink claimed when res = old (a query) or res > old (a grow), with a zero chain
    // that wipes memory the break still covers: LT refuses (SLTU, res, old, 1).
    let mut s = Sim::new((1..=40).collect());
    s.call(BRK, HEAP_START + 0x40, 0, 0);
    s.call(READ, 0, HEAP_START, 0x28);
    let query = s.call(BRK, HEAP_START + 0x40, 0, 0);
    let grow = s.call(BRK, HEAP_START + 0x50, 0, 0);
    s.call(EXIT, 0, 0, 0);
    assert_ok(&check_sim(&s));
    assert_eq!(ecall::zero_range(&query), None);
    assert_eq!(ecall::zero_range(&grow), None);

    // The query: its two zero tokens cancel, so the bus balances without IO rows; only LT
    // objects.
    let mut et = ecall_trace(&s.ops);
    et.row_mut(2)[ecall::SHRINK] = Felt::ONE;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);

    // The grow, pretending it zeroes the data [old .. res) backwards: not even a chain
    // exists, and LT objects.
    let mut et = ecall_trace(&s.ops);
    et.row_mut(3)[ecall::SHRINK] = Felt::ONE;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);

    // A shrink flag on a call that is no brk.
    let mut et = ecall_trace(&s.ops);
    et.row_mut(1)[ecall::SHRINK] = Felt::ONE;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall shrink unused",
    );

    // A "shrink" to a result with high bytes set (which the LT comparison with the old
    // break would also reject).
    let mut s = Sim::new(vec![]);
    s.call(BRK, HEAP_START + 0x40, 0, 0);
    s.call_with(
        BRK,
        HEAP_START + (1 << 32),
        0,
        0,
        Some(HEAP_START + (1 << 32)),
    );
    let mut et = ecall_trace(&s.ops);
    et.row_mut(1)[ecall::SHRINK] = Felt::ONE;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall shrink res below 2^32",
    );
}

#[test]
fn chain_read_too_long() {
    let mut s = Sim::new((0..40).collect());
    s.call(READ, 0, 0x3000, 8);
    // n = 6 > len = 4: the row asks LT for (len <u n) = 0, which is false.
    let op = s.call_with(READ, 0, 0x3100, 4, Some(6));
    assert_eq!(ecall::alu_lookups(&op)[0].c, 0);
    s.call(EXIT, 0, 0, 0);
    assert_unbalanced(&check_sim(&s), BUS_ALU);
    // n ≥ 2^32.
    let mut s = Sim::new(vec![]);
    let op = s.call_with(READ, 0, 0x3100, u64::MAX, Some(1 << 32));
    assert_eq!(ecall::transfer(&op), Some((0, 0x3100, 0)));
    assert_fails(&check_sim(&s), "ecall len, n below 2^32");
    // An honest short read balances.
    let mut s = Sim::new((0..40).collect());
    s.call(READ, 0, 0x3100, 4);
    s.call(READ, 0, 0x3200, 100);
    assert_ok(&check_sim(&s));
}

#[test]
fn chain_read_not_min() {
    // A short read that leaves input unread: 4 of 8 asked, 36 left.
    let mut s = Sim::new((0..40).collect());
    let op = s.call_with(READ, 0, 0x3100, 8, Some(4));
    assert_eq!(ecall::remaining_after(&op), 36);
    s.call(EXIT, 0, 0, 0);
    assert_fails(&check_sim(&s), "ecall short read exhausts the input");
    // ... with the short flag denied: LT disagrees (SLTU(4, 8) = 1).
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::SHORT] = Felt::ZERO;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);
    // A read of more than remains: 5 of 8 with 3 left (rem' = 3 − 5 is no four bytes).
    let mut s = Sim::new((0..40).collect());
    s.call_with(READ, 0, 0x3100, 8, Some(5));
    s.ops[0].remaining = 3;
    s.call(EXIT, 0, 0, 0);
    assert_fails(&check_sim(&s), "ecall read consumes n input bytes");
    // A read that leaves the input register unchanged (rem' = rem): the subtraction fails.
    let mut s = Sim::new((0..40).collect());
    s.call(READ, 0, 0x3100, 8);
    s.call(EXIT, 0, 0, 0);
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::REM_NEW] = Felt::new(40);
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall read consumes n input bytes",
    );
    // Input register columns on a call that is no read.
    let mut s = Sim::new((0..40).collect());
    s.call(WRITE, 1, 0x1000, 8);
    s.call(EXIT, 0, 0, 0);
    for col in [ecall::REM, ecall::REM_NEW + 3] {
        let mut et = ecall_trace(&s.ops);
        et.row_mut(0)[col] = Felt::ONE;
        assert_fails(
            &check(&s.ops, &et, &io_trace(&s.words), &s.out),
            "ecall input registers unused",
        );
    }
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::SHORT] = Felt::ONE;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall short unused",
    );
    // Honest reads of every shape balance: full, short, at the end, of len 0, of a len
    // ≥ 2^32 (as a 64-bit value, even ≥ p).
    let mut s = Sim::new((0..40).collect());
    assert_eq!(s.call(READ, 0, 0x3000, 0).res, 0);
    assert_eq!(s.call(READ, 0, 0x3000, 8).res, 8);
    assert_eq!(s.call(READ, 0, 0x3100, u64::MAX).res, 32);
    assert_eq!(s.call(READ, 0, 0x3200, 1 << 32).res, 0);
    assert_eq!(s.call(READ, 0, 0x3200, 3).res, 0);
    s.call(EXIT, 0, 0, 0);
    assert_ok(&check_sim(&s));
    let mut s = Sim::new((0..40).collect());
    assert_eq!(s.call(READ, 0, 0x3000, (1 << 32) + 5).res, 40);
    s.call(EXIT, 0, 0, 0);
    assert_ok(&check_sim(&s));
}

#[test]
fn chain_brk_out_of_range() {
    for (addr, flag) in [
        (HEAP_LIMIT + 8, ecall::LT_HI),
        (u64::MAX, ecall::LT_HI),
        (HEAP_START - 8, ecall::LT_LO),
        (0, ecall::LT_LO),
    ] {
        let mut s = Sim::new(vec![]);
        s.call(BRK, HEAP_START + 64, 0, 0);
        s.call_with(BRK, addr, 0, 0, Some(addr));
        s.call(EXIT, 0, 0, 0);
        // Honest flags: the result must be the old break.
        assert_fails(&check_sim(&s), "ecall brk result");
        // Flags forged to "in range": LT disagrees.
        let mut et = ecall_trace(&s.ops);
        et.row_mut(1)[flag] = Felt::ZERO;
        et.row_mut(1)[ecall::OUT] = Felt::ZERO;
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);
    }
    // A brk that refuses an in-range address (flags forged to "out of range").
    let mut s = Sim::new(vec![]);
    s.call_with(BRK, HEAP_START + 64, 0, 0, Some(HEAP_START));
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::LT_HI] = Felt::ONE;
    et.row_mut(0)[ecall::OUT] = Felt::ONE;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);
}

#[test]
fn chain_unsupported_calls() {
    for (a7, a0) in [
        (57, 0),
        (EXIT + 256, 0),
        (EXIT + (1 << 40), 0),
        (WRITE, 0),
        (WRITE, 3),
        (WRITE, 1 + (1 << 32)),
        (READ, 1),
        (READ, 256),
        (0, 0),
    ] {
        let mut s = Sim::new(vec![1, 2, 3]);
        s.call(a7, a0, 0x1000, 2);
        assert!(ecall::transfer(&s.ops[0]).is_none());
        let et = ecall_trace(&s.ops);
        assert!(et.row(0).iter().all(|&v| v == Felt::ZERO));
        assert_unbalanced(&check_sim(&s), BUS_ECALL);
    }
    // A row claiming a selector for the wrong call number or fd.
    let mut s = Sim::new(vec![]);
    s.call(57, 0, 0, 0);
    let mut et = ecall_trace(&s.ops);
    let row = et.row_mut(0);
    row[ecall::SEL_EXIT] = Felt::ONE;
    row[ecall::A7] = Felt::new(57);
    assert_fails(
        &check(&s.ops, &et, &io_trace(&[]), &[]),
        "ecall a7 is the selected call",
    );
    let mut s = Sim::new(vec![]);
    s.call(WRITE, 3, 0x1000, 2);
    let mut et = ecall_trace(&s.ops);
    let row = et.row_mut(0);
    row[ecall::SEL_WDBG] = Felt::ONE;
    row[ecall::A7] = Felt::new(WRITE);
    row[ecall::A0] = Felt::new(3);
    row[ecall::A1] = Felt::new(0);
    row[ecall::A1 + 1] = Felt::new(0x10);
    row[ecall::A2] = Felt::new(2);
    row[ecall::RES] = Felt::new(2);
    assert_fails(&check(&s.ops, &et, &io_trace(&[]), &[]), "ecall fd");
}
