//! Device-resident trace fills (kernels/rv/cpu.cu, kernels/rv/memw_r.cu): the CPU table first, then MEMW_R, each
//! bit for bit against its Rust builder on real programs and on edge-case records; an
//! integration test that the fills fire by default and the proof verifies and equals the
//! CPU backend's byte for byte; fault injection showing an error and no proof file.
//!
//! The packing pass itself (every other table unchanged) is checked without a GPU; the GPU
//! tests are `#[ignore]`d ("needs a CUDA device") and run with `--ignored` on the GPU
//! machine, where a missing device fails them.

use kestrel_core::par::Sequential;
use kestrel_core::rv::alu_eval;
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::cpu::{self, CpuRecords};
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::decode::{class, fields_of as decode_fields, DECODE_WORDS};
use kestrel_core::rv::machine::alu_table;
use kestrel_core::rv::machine::PackedTraces;
use kestrel_core::rv::machine::{TableId, RECORD_TABLES};
use kestrel_core::rv::memw_r::{MemwRRecords, RegAccess};
use kestrel_core::rv::pack::{build_traces, pack_traces, Segmenter};
use kestrel_core::rv::{distinct_ops, ecall, AluOp, Distinct, EcallOp};
use kestrel_core::rv::{load, memw, store, LoadOp, StoreOp, WordAccess, WordStart};
use kestrel_prover_gpu::rv::{machine_for, program_image, steps};
use kestrel_prover_gpu::step_results::{decode_result, encode_results};
use kestrel_tests::vm_support::asm::{self, addi, auipc, b, i, jal, jalr, lui, r};
use kestrel_tests::vm_support::{input_of, run_recorded, PROVABLE_PROGRAMS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

fn load(name: &str) -> (ProgramImage, Vec<Step>) {
    let (program, records, _) = run_recorded(name, input_of(name));
    (program_image(&program), steps(&records))
}

/// A program covering every CPU class, with x0 destinations (results recomputed rather
/// than written) and extreme immediates.
fn edge_program() -> ProgramImage {
    edge_program_with(0)
}

/// [`edge_program`] with `more` further instructions (`addi x5, x5, 1`) before its exit.
fn edge_program_with(more: usize) -> ProgramImage {
    let mut code = vec![
        r(0x33, 0, 0, 5, 6, 7),    // add
        r(0x33, 0, 0x20, 8, 5, 6), // sub
        r(0x33, 0, 0, 0, 5, 6),    // add to x0
        r(0x33, 0, 0x20, 0, 5, 6), // sub to x0
        r(0x3b, 0, 0, 9, 5, 6),    // addw
        r(0x3b, 0, 0x20, 10, 5, 6),
        r(0x3b, 0, 0, 0, 5, 6),    // addw to x0
        r(0x3b, 0, 0x20, 0, 5, 6), // subw to x0
        i(0x1b, 0, 11, 5, -1),     // addiw
        r(0x33, 4, 0, 12, 5, 6),   // xor
        r(0x33, 6, 0, 0, 5, 6),    // or to x0
        r(0x33, 7, 0, 0, 5, 6),    // and to x0
        i(0x13, 7, 13, 6, -2048),  // andi
        i(0x13, 4, 0, 6, 2047),    // xori to x0
        r(0x33, 2, 0, 14, 5, 6),   // slt
        r(0x33, 3, 0, 0, 5, 6),    // sltu to x0
        r(0x33, 1, 0, 15, 5, 6),   // sll
        r(0x33, 5, 0x20, 0, 5, 6), // sra to x0
        r(0x3b, 5, 0, 0, 5, 6),    // srlw to x0
        r(0x33, 0, 1, 0, 5, 6),    // mul to x0
        r(0x33, 1, 1, 0, 5, 6),    // mulh to x0
        r(0x33, 4, 1, 0, 5, 6),    // div to x0
        r(0x3b, 7, 1, 0, 5, 6),    // remuw to x0
        b(0, 5, 6, 8),             // beq
        b(1, 5, 6, -8),            // bne
        b(4, 5, 6, 16),            // blt
        b(5, 5, 6, 4),             // bge
        b(6, 5, 6, -4096),         // bltu
        b(7, 5, 6, 4094),          // bgeu
        jal(1, 8),
        jal(0, -16),
        jalr(1, 5, -1),
        jalr(0, 5, 2047),
        lui(16, 0x80000),
        lui(0, 0xfffff),
        auipc(17, 0xfffff),
        addi(0, 0, 0),
        0x0ff0_000f, // fence
    ];
    code.extend(std::iter::repeat_n(addi(5, 5, 1), more));
    code.extend(asm::exit(0));
    ProgramImage {
        entry: 0x1000,
        code: code
            .iter()
            .enumerate()
            .map(|(k, &w)| (0x1000 + 4 * k as u32, w))
            .collect(),
        heap_start: 0x10_0000,
        heap_limit: 0x20_0000,
        ..ProgramImage::default()
    }
}

const EDGE_VALUES: [u64; 10] = [
    0,
    1,
    u64::MAX,
    0x8000_0000_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0xff,
    0x1_0000_0000,
];

/// `n` steps through the edge program in random order with extreme and random register
/// values (the trace builders take any values; the last step is the exit call).
fn edge_steps(image: &ProgramImage, n: usize, seed: u64) -> Vec<Step> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ecall = image.code.last().unwrap().0;
    let body = image.code.len() - 1;
    let value = |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.5) {
            EDGE_VALUES[rng.gen_range(0..EDGE_VALUES.len())]
        } else {
            rng.gen()
        }
    };
    let mut out: Vec<Step> = (0..n.saturating_sub(1))
        .map(|_| {
            let (pc, word) = image.code[rng.gen_range(0..body)];
            Step {
                pc,
                word,
                rs1_val: value(&mut rng),
                rs2_val: value(&mut rng),
                rd_val: value(&mut rng),
                ..Step::default()
            }
        })
        .collect();
    let a0 = value(&mut rng);
    out.push(Step {
        pc: ecall,
        word: image.code.last().unwrap().1,
        rs1_val: 93,
        rs2_val: a0,
        rd_val: a0,
        ..Step::default()
    });
    out
}

/// Without a GPU: the packing pass leaves every other table's trace and the public values
/// exactly as the host builder makes them, and its records have the traces' heights.
#[test]
fn packing_keeps_every_other_trace() {
    let mut cases: Vec<(String, ProgramImage, Vec<Step>)> = PROVABLE_PROGRAMS
        .iter()
        .map(|(n, _)| {
            let (im, st) = load(n);
            (n.to_string(), im, st)
        })
        .collect();
    let edge = edge_program();
    for (k, n) in [1usize, 7, 8, 9, 64, 1000].into_iter().enumerate() {
        cases.push((
            format!("edge {n}"),
            edge.clone(),
            edge_steps(&edge, n, k as u64),
        ));
    }
    for (name, image, steps) in &cases {
        let machine = machine_for(image);
        let (tr, public) = build_traces(&machine, image, steps, input_of(name)).unwrap();
        let packed = pack_traces(&machine, image, steps, input_of(name)).unwrap();
        assert_eq!(packed.public, public, "{name}: public values");
        let cpu = TableId::Cpu.index();
        assert_eq!(packed.cpu.height, tr[cpu].height(), "{name}");
        let memw_r = TableId::MemwR.index();
        assert_eq!(packed.memw_r.height, tr[memw_r].height(), "{name}");
        assert_eq!(packed.traces.len(), TableId::COUNT, "{name}");
        for (t, (p, m)) in TableId::ALL.into_iter().zip(packed.traces.iter().zip(&tr)) {
            match p {
                None => {
                    assert!(RECORD_TABLES.contains(&t), "{name}: table {t}");
                    assert!(
                        packed.fill_host(image, t).as_ref() == Some(m),
                        "{name}: table {t}: host fill from records differs"
                    );
                }
                Some(p) => assert!(p == m, "{name}: table {t} differs"),
            }
        }
    }
}

/// One segment's CPU and MEMW_R records, its program's DECODE field table, and whether the
/// steps' register values are the replayed ones (an execution; edge steps take any values).
struct WalkCase {
    name: String,
    decode: Vec<u64>,
    cpu: CpuRecords,
    memw: MemwRRecords,
    loads: Vec<LoadOp>,
    stores: Vec<StoreOp>,
    mem_a: Vec<WordAccess>,
    mem_start: Vec<WordStart>,
    mem_s: Vec<(WordAccess, WordAccess)>,
    ecalls: Vec<EcallOp>,
    /// LT's, EQ's, SHIFT's, MUL's and DVRM's distinct rows.
    alu: Vec<(TableId, Vec<Distinct>)>,
    executed: bool,
}

impl WalkCase {
    fn new(name: String, decode: &[u64], p: PackedTraces, executed: bool) -> WalkCase {
        WalkCase {
            name,
            decode: decode.to_vec(),
            cpu: p.cpu,
            memw: p.memw_r,
            loads: p.loads,
            stores: p.stores,
            mem_a: p.mem_a,
            mem_start: p.mem_start,
            mem_s: p.mem_s,
            ecalls: p.ecalls,
            alu: vec![
                (TableId::Lt, p.lt),
                (TableId::Eq, p.eq),
                (TableId::Shift, p.shift),
                (TableId::Mul, p.mul),
                (TableId::Dvrm, p.dvrm),
            ],
            executed,
        }
    }
}

/// Records for the register walk: every provable program whole, programs with system calls
/// and input cut into segments (a first clock and a register file carried in, segments
/// shorter and longer than the walk's chunks and cut across them), and edge steps.
fn walk_cases() -> Vec<WalkCase> {
    let mut out = Vec::new();
    for &(name, _) in PROVABLE_PROGRAMS {
        let (image, steps) = load(name);
        let packed = pack_traces(&machine_for(&image), &image, &steps, input_of(name)).unwrap();
        out.push(WalkCase::new(
            name.into(),
            &decode_fields(&image),
            packed,
            true,
        ));
    }
    for name in ["isa/syscall", "sort", "fibonacci", "bignum"] {
        let (image, steps) = load(name);
        let machine = machine_for(&image);
        let decode = decode_fields(&image);
        for seg in [7usize, 255, 256, 257, 1000] {
            let mut run = Segmenter::new(&machine, &image, input_of(name)).unwrap();
            let n = steps.chunks(seg).len();
            for (k, s) in steps.chunks(seg).enumerate() {
                let p = run.pack_segment(&Sequential, s, k + 1 == n).unwrap();
                // Every segment of the short runs; a few of the long ones.
                if n <= 64 || k % (n / 16) == 1 || k + 1 == n {
                    out.push(WalkCase::new(
                        format!("{name}, segment {k} of {seg} steps"),
                        &decode,
                        p,
                        true,
                    ));
                }
            }
        }
    }
    let edge = edge_program();
    let decode = decode_fields(&edge);
    for (k, n) in [1usize, 2, 255, 256, 257, 1000, 70_001]
        .into_iter()
        .enumerate()
    {
        let steps = edge_steps(&edge, n, 300 + k as u64);
        let packed = pack_traces(&machine_for(&edge), &edge, &steps, b"").unwrap();
        out.push(WalkCase::new(format!("edge {n}"), &decode, packed, false));
    }
    // More code slots than 2^16: the DECODE rows go up as u32, not u16.
    let big = edge_program_with(70_000);
    let steps = edge_steps(&big, 5000, 400);
    let packed = pack_traces(&machine_for(&big), &big, &steps, b"").unwrap();
    assert!(packed.cpu.dec_row.iter().any(|&r| r >= 1 << 16));
    out.push(WalkCase::new(
        "edge 5000, over 2^16 code slots".into(),
        &decode_fields(&big),
        packed,
        false,
    ));
    out
}

/// The register walk of `kernels/rv/memw_r.cu`, on the host: replays the register file
/// from MEMW_R's `start` through each step's accesses (rs1, rs2, the system call's own at
/// the step's clock, rd writing the result if the instruction writes), and returns what
/// the device derives: `[rs1, rs2, new, meta, old, res]` (`res` from the results sent, JAL's
/// and JALR's pc + 4, STORE's 0 and BRANCH's compare of the walk's rs1 and rs2).
fn walk_on_host(c: &WalkCase) -> [Vec<u64>; 6] {
    let (cpu, rec) = (&c.cpu, &c.memw);
    let n = cpu.dec_row.len();
    let x = rec.extra.len();
    let mut file = rec.start.clone();
    let [mut rs1, mut rs2, mut new, mut res] = [vec![0; n], vec![0; n], vec![0; n], vec![0; n]];
    let (mut meta, mut old) = (vec![0; 3 * n + x], vec![0; 3 * n + x]);
    let mut e = 0;
    let field = |i: usize, f: usize| c.decode[cpu.dec_row[i] as usize * DECODE_WORDS + f];
    let mut access = |slot: usize, a: RegAccess| {
        let (o, ts) = file.access(&a);
        meta[slot] = a.reg as u64 | ts << 8;
        old[slot] = o;
        o
    };
    for i in 0..n {
        let clk = cpu.clk0 + i as u64;
        let read = |reg: u64, ts: u64| RegAccess {
            reg: reg as u8,
            value: 0,
            ts,
            is_write: false,
        };
        rs1[i] = access(3 * i, read(field(i, cpu::RS1 - cpu::DEC + 1), 4 * clk + 1));
        rs2[i] = access(
            3 * i + 1,
            read(field(i, cpu::RS2 - cpu::DEC + 1), 4 * clk + 2),
        );
        while e < x && rec.extra[e].access.ts / 4 == clk {
            access(3 * n + e, rec.extra[e].access);
            e += 1;
        }
        let wr = field(i, cpu::WR - cpu::DEC + 1) != 0;
        let is = |k: usize| field(i, 1 + k) != 0;
        res[i] = if is(class::JAL) || is(class::JALR) {
            field(i, 0) + 4
        } else if is(class::STORE) {
            0
        } else if is(class::BRANCH) {
            alu_eval(field(i, cpu::ALU_OP - cpu::DEC + 1) as u32, rs1[i], rs2[i]).unwrap()
        } else {
            cpu.res[i]
        };
        new[i] = if wr { res[i] } else { 0 };
        access(
            3 * i + 2,
            RegAccess {
                reg: field(i, cpu::RD - cpu::DEC + 1) as u8,
                value: new[i],
                ts: 4 * clk + 3,
                is_write: true,
            },
        );
    }
    assert_eq!(e, x, "{}: system call accesses outside the steps", c.name);
    [rs1, rs2, new, meta, old, res]
}

/// The host's records, as the walk derives them: `[rs1, rs2, new, meta, old, res]`.
fn host_records(c: &WalkCase) -> [Vec<u64>; 6] {
    let rec = &c.memw;
    let mut meta = rec.meta.clone();
    let mut old = rec.old.clone();
    for r in &rec.extra {
        meta.push(r.access.reg as u64 | r.old_ts << 8);
        old.push(r.old);
    }
    [
        c.cpu.rs1.clone(),
        c.cpu.rs2.clone(),
        rec.new.clone(),
        meta,
        old,
        c.cpu.res.clone(),
    ]
}

/// Compares a walk's `[rs1, rs2, new, meta, old, res]` with the host records: all of them
/// for an execution; MEMW_R's (new, meta, old) for edge steps, whose register values are not
/// the replayed ones (the walk gives the replayed values, and the branches' compares of them).
fn assert_walk(c: &WalkCase, what: &str, walk: &[Vec<u64>; 6]) {
    let host = host_records(c);
    let names = ["rs1", "rs2", "new", "meta", "old", "res"];
    let range = if c.executed { 0..6 } else { 2..5 };
    for k in range {
        if let Some(i) =
            (0..host[k].len().max(walk[k].len())).find(|&i| host[k].get(i) != walk[k].get(i))
        {
            panic!(
                "{}: {what}: {} differs at {i} of {}: {:?} against the host's {:?}",
                c.name,
                names[k],
                host[k].len(),
                walk[k].get(i),
                host[k].get(i)
            );
        }
    }
}

/// Without a GPU: the walk the device runs, replayed on the host from only what the device
/// receives, gives the host's records (so the segment's `start` file and the extra accesses'
/// clocks are what the walk needs, whatever the packing pass does).
#[test]
fn the_register_walk_gives_the_host_records() {
    let cases = walk_cases();
    assert!(cases.len() > 60, "{} cases", cases.len());
    assert!(cases
        .iter()
        .any(|c| c.cpu.clk0 > 0 && !c.memw.extra.is_empty()));
    for c in &cases {
        assert_walk(c, "host walk", &walk_on_host(c));
    }
}

/// Without a GPU: the results the register walk is sent decode, chunk by chunk from each
/// chunk's first word as `ks_regwalk_expand` reads them, to the results themselves, on every
/// walk case and on values at the edges of the 32-bit classes.
#[test]
fn sent_results_decode_to_the_results() {
    const CHUNK: usize = 256;
    let edges = [
        0u64,
        1,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        u64::MAX,
        u64::MAX - 0x7fff_ffff,
        0xffff_ffff_8000_0000,
        0xffff_fffe_ffff_ffff,
        1 << 63,
    ];
    let mut sets: Vec<Vec<u64>> = walk_cases().iter().map(|c| c.cpu.res.clone()).collect();
    sets.push(edges.iter().cycle().take(1000).copied().collect());
    let mut classes = [false; 3];
    for sent in &sets {
        let first: Vec<usize> = (0..sent.len().div_ceil(CHUNK)).map(|c| c * CHUNK).collect();
        let enc = encode_results(sent, &first, first.len());
        let mut words = 0;
        for (c, &j0) in first.iter().enumerate() {
            let mut k = enc.first_word[c];
            for (j, &v) in sent.iter().enumerate().skip(j0).take(CHUNK) {
                let at = k;
                assert_eq!(
                    decode_result(&enc.tags, &enc.words, j, &mut k),
                    v,
                    "result {j}"
                );
                let class = if v as i32 as i64 as u64 == v {
                    0
                } else if v >> 32 == 0 {
                    1
                } else {
                    2
                };
                assert_eq!(k - at, 1 + class / 2, "words of result {j}");
                classes[class] = true;
            }
            words = k;
        }
        assert_eq!(words, enc.words.len());
        // Four bytes for a result that fits 32 bits.
        let short = sent
            .iter()
            .filter(|&&v| v >> 32 == 0 || v >> 31 == (1 << 33) - 1)
            .count();
        assert_eq!(enc.words.len(), 2 * sent.len() - short);
    }
    assert_eq!(classes, [true; 3], "every class was decoded");
}

/// The ALU tables' distinct rows as `kernels/rv/alu_ops.cu` makes them, on the host, from
/// only what the device has: each step's DECODE row, rs1 and rs2 (the register walk's),
/// and the system calls.
fn alu_rows_on_host(c: &WalkCase) -> Vec<(TableId, Vec<Distinct>)> {
    let cpu = &c.cpu;
    let f = |i: usize, k: usize| c.decode[cpu.dec_row[i] as usize * DECODE_WORDS + 1 + k];
    let mut ops: Vec<AluOp> = (0..cpu.dec_row.len())
        .filter(|&i| f(i, class::ALU) != 0 || f(i, class::BRANCH) != 0)
        .map(|i| {
            let imm = (0..8).fold(0, |acc, k| {
                acc | (f(i, cpu::IMM - cpu::DEC + k) & 0xff) << (8 * k)
            });
            AluOp {
                op: f(i, cpu::ALU_OP - cpu::DEC) as u32,
                a: cpu.rs1[i],
                b: if f(i, cpu::USE_IMM - cpu::DEC) != 0 {
                    imm
                } else {
                    cpu.rs2[i]
                },
                c: 0,
            }
        })
        .collect();
    ops.extend(c.ecalls.iter().flat_map(ecall::alu_lookups));
    let all = distinct_ops(&ops);
    TableId::ALU
        .iter()
        .map(|&t| {
            let accepts = alu_table(t).expect("an ALU table").ops;
            let rows = all
                .iter()
                .filter(|d| accepts.contains(&d.op))
                .copied()
                .collect();
            (t, rows)
        })
        .collect()
}

/// Compares ALU rows with the packing pass's.
fn assert_alu_rows(c: &WalkCase, what: &str, rows: &[(TableId, Vec<Distinct>)]) {
    assert_eq!(rows.len(), c.alu.len(), "{}: {what}: tables", c.name);
    for ((t, got), (u, host)) in rows.iter().zip(&c.alu) {
        assert_eq!(t, u, "{}: {what}: table order", c.name);
        if let Some(i) = (0..got.len().max(host.len())).find(|&i| got.get(i) != host.get(i)) {
            panic!(
                "{}: {what}: {} row {i} of {} is {:?}, the host's {:?}",
                c.name,
                t.name(),
                host.len(),
                got.get(i),
                host.get(i)
            );
        }
    }
}

/// Without a GPU: the ALU tables' distinct rows the device makes, made on the host from
/// only what the device has, are the packing pass's (every table and order, on programs,
/// segments and long runs).
#[test]
fn the_alu_rows_from_the_steps_are_the_host_rows() {
    let mut cases: Vec<WalkCase> = walk_cases().into_iter().filter(|c| c.executed).collect();
    cases.extend(long_walk_cases());
    for t in TableId::ALU {
        assert!(
            cases
                .iter()
                .any(|c| c.alu.iter().any(|(u, r)| *u == t && r.len() > 100)),
            "a case with many {} rows",
            t.name()
        );
    }
    assert!(cases.iter().any(
        |c| !c.ecalls.is_empty() && c.ecalls.iter().any(|e| !ecall::alu_lookups(e).is_empty())
    ));
    for c in &cases {
        assert_alu_rows(c, "host rows", &alu_rows_on_host(c));
    }
}

/// The memory walk of `kernels/rv/memw.cu`, on the host: from only what the device has
/// (each step's DECODE row, rs1 and rs2, the system calls' transfers, each touched word as
/// the segment found it), the records of LOAD, STORE, MEMW_A and MEMW.
fn memory_walk_on_host(c: &WalkCase) -> MemRecords {
    let cpu = &c.cpu;
    let io = memw::transfers(cpu, &c.mem_a, &c.decode).expect("transfers at the steps");
    let mut words: HashMap<u32, (u64, u64, bool)> = c
        .mem_start
        .iter()
        .map(|s| (s.w, (s.value, s.ts, s.ro)))
        .collect();
    let (mut loads, mut stores, mut mem_a, mut mem_s) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut access = |w: u32, ts: u64, wr: bool, new: &dyn Fn(u64) -> u64| {
        let (old, old_ts, ro) = words.get(&w).copied().unwrap_or_default();
        let a = WordAccess {
            w,
            old,
            new: new(old),
            old_ts,
            ts,
            ro,
            wr,
        };
        words.insert(w, (a.new, ts, ro));
        a
    };
    let mut e = 0;
    for i in 0..cpu.dec_row.len() {
        let f = |k: usize| c.decode[cpu.dec_row[i] as usize * DECODE_WORDS + 1 + k];
        let ts = cpu.clk0 + i as u64 + 1;
        let (is_load, is_store) = (f(class::LOAD) != 0, f(class::STORE) != 0);
        if is_load || is_store {
            let base = cpu::IMM - cpu::DEC;
            let imm = (0..8).fold(0u64, |v, k| v | (f(base + k) & 0xff) << (8 * k));
            let funct3 = load::funct3_of(f(cpu::ALU_OP - cpu::DEC) as u32, is_load);
            let addr = cpu.rs1[i].wrapping_add(imm) as u32;
            let split = load::is_split(funct3, addr);
            let value = cpu.rs2[i];
            // The words after: a load leaves them; a store writes its bytes (store_words).
            let after = |old0: u64, old1: u64| {
                if is_load {
                    (old0, old1)
                } else {
                    store::record(ts, funct3, addr, value, old0, old1).1
                }
            };
            let w = addr / 8;
            // The first word's bytes after do not depend on the second's.
            let a0 = access(w, ts, is_store, &|old0| after(old0, 0).0);
            let a1 = split.then(|| access(w + 1, ts, is_store, &|o1| after(a0.old, o1).1));
            let old1 = a1.map_or(0, |a| a.old);
            if is_load {
                loads.push(load::record(ts, funct3, addr, a0.old, old1).0);
            } else {
                stores.push(store::record(ts, funct3, addr, value, a0.old, old1).0);
            }
            match a1 {
                Some(a1) => mem_s.push((a0, a1)),
                None => mem_a.push(a0),
            }
        } else if f(class::ECALL) != 0 {
            while e < io.len() && io[e].ts == ts {
                let t = io[e];
                mem_a.push(access(t.w, ts, t.wr, &|old| if t.wr { t.new } else { old }));
                e += 1;
            }
        }
    }
    assert_eq!(e, io.len(), "{}: transfers outside the steps", c.name);
    (loads, stores, mem_a, mem_s)
}

/// LOAD's, STORE's, MEMW_A's and MEMW's records.
type MemRecords = (
    Vec<LoadOp>,
    Vec<StoreOp>,
    Vec<WordAccess>,
    Vec<(WordAccess, WordAccess)>,
);

/// Longer runs cut into three segments of thousands of memory accesses each (more than one
/// tile of the device walk's radix sort and value pass; hot words whose accesses cross tiles).
fn long_walk_cases() -> Vec<WalkCase> {
    let mut out = Vec::new();
    let sha_input = vec![b'a'; 4000];
    for (name, input) in [
        ("sha256", &sha_input[..]),
        ("sort", b"2000"),
        ("bignum", b"8000"),
    ] {
        let (program, records, _) = run_recorded(name, input);
        let (image, steps) = (program_image(&program), steps(&records));
        let machine = machine_for(&image);
        let decode = decode_fields(&image);
        let seg = steps.len().div_ceil(3);
        let mut run = Segmenter::new(&machine, &image, input).unwrap();
        let n = steps.chunks(seg).len();
        for (k, s) in steps.chunks(seg).enumerate() {
            let p = run.pack_segment(&Sequential, s, k + 1 == n).unwrap();
            let c = WalkCase::new(format!("{name}, segment {k} of {n}"), &decode, p, true);
            assert!(
                c.mem_a.len() > 4 * 1024,
                "{}: {} accesses",
                c.name,
                c.mem_a.len()
            );
            out.push(c);
        }
    }
    out
}

/// Compares a memory walk's records with the host's.
fn assert_memory_walk(c: &WalkCase, what: &str, walk: &MemRecords) {
    fn same<T: PartialEq + std::fmt::Debug>(c: &WalkCase, what: &str, t: &str, a: &[T], b: &[T]) {
        if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
            panic!(
                "{}: {what}: {t} differs at {i} of {}: {:?} against the host's {:?}",
                c.name,
                b.len(),
                a.get(i),
                b.get(i)
            );
        }
    }
    same(c, what, "LOAD", &walk.0, &c.loads);
    same(c, what, "STORE", &walk.1, &c.stores);
    same(c, what, "MEMW_A", &walk.2, &c.mem_a);
    same(c, what, "MEMW", &walk.3, &c.mem_s);
}

/// Without a GPU: the memory walk the device runs, replayed on the host from only what the
/// device receives, gives the host's records (so `mem_start` and the transfers are what the
/// walk needs, whatever the packing pass does).
#[test]
fn the_memory_walk_gives_the_host_records() {
    let mut cases: Vec<WalkCase> = walk_cases().into_iter().filter(|c| c.executed).collect();
    cases.extend(long_walk_cases());
    assert!(cases
        .iter()
        .any(|c| c.cpu.clk0 > 0 && !c.mem_start.is_empty()));
    assert!(cases
        .iter()
        .any(|c| c.stores.iter().any(|s| load::is_split(s.funct3, s.addr))));
    for c in &cases {
        assert_memory_walk(c, "host walk", &memory_walk_on_host(c));
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use kestrel_core::params::StarkParams;
    use kestrel_core::rv::machine::RecordRefs;
    use kestrel_core::rv::memw_r;
    use kestrel_prover_gpu::backend::{DeviceTraces, MainTrace};
    use kestrel_prover_gpu::cli_prove::{decode_statement, prove_with, ProveArgs};
    use kestrel_prover_gpu::cpu::CpuBackend;
    use kestrel_prover_gpu::cuda::rv::memw::MEM_RECORDS;
    use kestrel_prover_gpu::cuda::rv::memw_r::STEP_RECORDS;
    use kestrel_prover_gpu::cuda::rv::RUN_RECORDS;
    use kestrel_prover_gpu::cuda::CudaBackend;
    use kestrel_prover_gpu::prover::{prove, prove_main, setup};
    use kestrel_prover_gpu::rv::{debug_check_main, main_traces, verifier_machine};
    use kestrel_prover_gpu::select::BackendChoice;
    use kestrel_tests::vm_support::guest_bin_dir;

    fn gpu() -> CudaBackend {
        CudaBackend::new().unwrap_or_else(|e| panic!("no CUDA device ({e}): this test needs one"))
    }

    use kestrel_core::rv::cpu::{fill_host, CallMark};
    use kestrel_core::rv::testing::cpu as segments;
    use kestrel_tests::first_diff;
    use std::ops::Range;

    /// Fills CPU and MEMW_R on the device and compares each with the host builder.
    fn check(g: &CudaBackend, name: &str, image: &ProgramImage, steps: &[Step]) {
        let machine = machine_for(image);
        let (tr, _) = build_traces(&machine, image, steps, input_of(name)).unwrap();
        let packed = pack_traces(&machine, image, steps, input_of(name)).unwrap();
        let cpu = g.fill_cpu(&packed.cpu, &decode_fields(image)).unwrap();
        let host = g.download_trace(&cpu).unwrap();
        let cpu = &tr[TableId::Cpu.index()];
        assert!(
            host == *cpu,
            "{name}: CPU fill differs at {}",
            first_diff(&host, cpu)
        );
        let memw = g.fill_memw_r(&packed.memw_r).unwrap();
        for (t, table) in memw.iter().zip([TableId::MemwR, TableId::MemwR2]) {
            let host = g.download_trace(t).unwrap();
            let want = &tr[table.index()];
            assert!(
                host == *want,
                "{name}: {table} fill differs at {}",
                first_diff(&host, want)
            );
        }
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_the_host_builders_on_programs() {
        let g = gpu();
        for &(name, _) in PROVABLE_PROGRAMS {
            let (image, steps) = load(name);
            check(&g, name, &image, &steps);
        }
        let s = g.stats();
        assert_eq!(s.fill("CPU"), PROVABLE_PROGRAMS.len() as u64);
        assert_eq!(s.fill("MEMW_R"), PROVABLE_PROGRAMS.len() as u64);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_the_host_builders_on_edge_records() {
        let g = gpu();
        let image = edge_program();
        // Heights: the minimum (8), exactly full (no padding), one past, and larger.
        for (k, n) in [1usize, 2, 8, 9, 16, 1000, 4096, 70_001]
            .into_iter()
            .enumerate()
        {
            let steps = edge_steps(&image, n, 100 + k as u64);
            check(&g, &format!("edge {n}"), &image, &steps);
        }
    }

    /// The register walk on the device gives the host's records (all of them for
    /// executions; MEMW_R's for edge steps), on programs, segments and edge steps.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn register_walk_matches_the_host_records() {
        let g = gpu();
        let cases = walk_cases();
        for c in &cases {
            let walk = g
                .walk_registers(&c.cpu, &c.memw, &c.decode)
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
            assert_walk(c, "device walk", &walk);
        }
        assert_eq!(g.stats().kernels["ks_regwalk"], cases.len() as u64);
    }

    /// Records the walk cannot take are errors before any launch: system call accesses out
    /// of order or outside the steps' clocks, a DECODE row outside the table, records of
    /// different segments.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn register_walk_rejects_bad_records() {
        let g = gpu();
        let (image, steps) = load("isa/syscall");
        let packed = pack_traces(&machine_for(&image), &image, &steps, b"").unwrap();
        let decode = decode_fields(&image);
        let (cpu, memw) = (&packed.cpu, &packed.memw_r);
        assert!(memw.extra.len() >= 2);
        g.walk_registers(cpu, memw, &decode).unwrap();
        let mut bad = memw.clone();
        let last = bad.extra.len() - 1;
        bad.extra.swap(0, last);
        let mut late = memw.clone();
        late.extra[0].access.ts = 4 * (cpu.clk0 + cpu.len() as u64);
        let mut clock = memw.clone();
        clock.clk0 += 1;
        let mut row = cpu.clone();
        row.dec_row[0] = (decode.len() / DECODE_WORDS) as u32;
        for (what, c, m) in [
            ("out of order", cpu, &bad),
            ("after the last step", cpu, &late),
            ("another first clock", cpu, &clock),
            ("a DECODE row outside the table", &row, memw),
        ] {
            let e = g
                .walk_registers(c, m, &decode)
                .err()
                .unwrap_or_else(|| panic!("{what}: accepted"));
            assert!(e.to_string().contains("register walk"), "{what}: {e}");
        }
        g.device().inject_fill_launch_failure();
        let e = g
            .walk_registers(cpu, memw, &decode)
            .expect_err("an injected failure");
        assert!(
            e.to_string()
                .contains("ks_regwalk: injected launch failure"),
            "{e}"
        );
        assert_eq!(g.stats().kernels["ks_regwalk"], 1, "a bad walk launched");
    }

    fn refs(c: &WalkCase) -> RecordRefs<'_> {
        RecordRefs {
            cpu: &c.cpu,
            memw_r: &c.memw,
            lt: &[],
            eq: &[],
            shift: &[],
            mul: &[],
            dvrm: &[],
            loads: &c.loads,
            stores: &c.stores,
            mem_a: &c.mem_a,
            mem_start: &c.mem_start,
            mem_s: &c.mem_s,
            ecalls: &c.ecalls,
            io: &[],
            mem_counts: None,
        }
    }

    /// The sorts' scan gives the host's prefix sums, in one block and by parts over every
    /// SM (lengths around the switch between them and parts of uneven length).
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn the_device_scan_is_the_host_prefix_sum() {
        let g = gpu();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for len in [
            0usize,
            1,
            31,
            1000,
            65_536,
            65_537,
            1 << 20,
            (1 << 20) + 17,
            3_000_001,
        ] {
            for wide in [false, true] {
                let v: Vec<u64> = (0..len)
                    .map(|_| {
                        if wide {
                            rng.gen()
                        } else {
                            rng.gen_range(0..300)
                        }
                    })
                    .collect();
                let (got, total) = g.scan_words(&v).unwrap();
                let mut acc = 0u64;
                for (i, (&x, &y)) in v.iter().zip(&got).enumerate() {
                    assert_eq!(y, acc, "length {len}, wide {wide}: prefix {i}");
                    acc = acc.wrapping_add(x);
                }
                assert_eq!((got.len(), total), (len, acc), "length {len}, wide {wide}");
            }
        }
        assert!(g.stats().kernels["ks_memwalk_scan_apply"] >= 8);
    }

    /// The ALU tables' distinct rows made on the device are the packing pass's, on every
    /// executed walk case and the long runs (many sort tiles, repeats across chunks).
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn alu_rows_match_the_host_rows() {
        let g = gpu();
        let mut cases: Vec<WalkCase> = walk_cases().into_iter().filter(|c| c.executed).collect();
        cases.extend(long_walk_cases());
        let mut derived = 0;
        for c in &cases {
            let rows = g.derive_alu_rows(&refs(c), &c.decode).unwrap();
            assert_alu_rows(c, "device rows", &rows);
            derived += c.alu.iter().any(|(_, r)| !r.is_empty()) as u64;
        }
        assert!(derived > 40, "{derived} cases with ALU operations");
        assert_eq!(g.stats().kernels["ks_alu_bounds"], derived);
        // An injected launch failure is an error, and nothing after it launches.
        g.device().inject_fill_launch_failure_of("ks_alu_count");
        let c = &cases[0];
        let e = g
            .derive_alu_rows(&refs(c), &c.decode)
            .expect_err("an injected failure");
        assert!(
            e.to_string()
                .contains("ks_alu_count: injected launch failure"),
            "{e}"
        );
        assert_eq!(g.stats().kernels["ks_alu_bounds"], derived);
    }

    /// The memory walk on the device gives the host's LOAD, STORE and MEMW_A records on
    /// every execution case: whole programs (split stores among them), and segments with a
    /// first clock and words carried in.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn memory_walk_matches_the_host_records() {
        let g = gpu();
        let cases: Vec<WalkCase> = walk_cases().into_iter().filter(|c| c.executed).collect();
        let mut walked = 0;
        for c in &cases {
            let walk = g.walk_memory(&refs(c), &c.decode).unwrap();
            assert_memory_walk(c, "device walk", &walk);
            // The walk launches unless the segment has no memory access at all (a split one
            // has no MEMW_A row).
            walked += !(c.mem_a.is_empty() && c.loads.is_empty() && c.stores.is_empty()) as u64;
        }
        assert!(walked > 40, "{walked} cases with memory accesses");
        assert_eq!(g.stats().kernels["ks_memwalk_records"], walked);
        assert!(g.stats().h2d_bytes[MEM_RECORDS] > 0);
    }

    /// A long run's accesses (more than one radix-sort tile and value tile, hot words whose
    /// runs cross tiles) cut into segments, against the host walk.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn memory_walk_matches_on_long_segments() {
        let g = gpu();
        for c in &long_walk_cases() {
            let walk = g.walk_memory(&refs(c), &c.decode).unwrap();
            assert_memory_walk(c, "device walk", &walk);
        }
    }

    /// Records the memory walk cannot take are errors before any launch; an injected launch
    /// failure is an error.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn memory_walk_rejects_bad_records() {
        let g = gpu();
        let c = walk_cases()
            .into_iter()
            .find(|c| c.executed && c.mem_start.len() >= 2 && c.cpu.clk0 > 0)
            .expect("a segment with words carried in");
        g.walk_memory(&refs(&c), &c.decode).unwrap();
        let mut bad = Vec::new();
        let mut order = c.mem_start.clone();
        order.swap(0, 1);
        bad.push(("start words out of order", order, c.mem_a.clone()));
        let mut late = c.mem_a.clone();
        late[0].ts = c.cpu.clk0 + c.cpu.len() as u64 + 1;
        bad.push((
            "a MEMW_A row after the last step",
            c.mem_start.clone(),
            late,
        ));
        let mut early = c.mem_a.clone();
        early[0].ts = c.cpu.clk0;
        bad.push((
            "a MEMW_A row before the first step",
            c.mem_start.clone(),
            early,
        ));
        let mut far = c.mem_start.clone();
        far.last_mut().unwrap().w = 1 << 29;
        bad.push(("a word past the memory", far, c.mem_a.clone()));
        for (what, start, mem_a) in &bad {
            let mut r = refs(&c);
            r.mem_start = start;
            r.mem_a = mem_a;
            let e = g
                .walk_memory(&r, &c.decode)
                .err()
                .unwrap_or_else(|| panic!("{what}: accepted"));
            assert!(e.to_string().contains("memory walk"), "{what}: {e}");
        }
        g.device().inject_fill_launch_failure_of("ks_memwalk_count");
        let e = g
            .walk_memory(&refs(&c), &c.decode)
            .expect_err("an injected failure");
        assert!(
            e.to_string()
                .contains("ks_memwalk_count: injected launch failure"),
            "{e}"
        );
        assert_eq!(
            g.stats().kernels["ks_memwalk_count"],
            1,
            "a bad walk launched"
        );
    }

    /// `rec` moved to a segment starting at cycle `clk0`: every timestamp `4·clk0` later,
    /// except the initial tokens' 0 (registers first touched there), as a later segment's
    /// records of a long run.
    fn at_clock(rec: &MemwRRecords, clk0: u64) -> MemwRRecords {
        let shift = |ts: u64| if ts == 0 { 0 } else { ts + 4 * clk0 };
        let mut r = rec.clone();
        r.clk0 = clk0;
        for m in &mut r.meta {
            *m = (*m & 0xff) | shift(*m >> 8) << 8;
        }
        for x in &mut r.extra {
            x.old_ts = shift(x.old_ts);
            x.access.ts = shift(x.access.ts);
        }
        r
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn memw_r_fills_match_the_host_at_a_first_clock() {
        let g = gpu();
        let mut sets = Vec::new();
        for name in ["sort", "isa/syscall"] {
            let (image, steps) = load(name);
            let machine = machine_for(&image);
            sets.push((
                name.to_string(),
                pack_traces(&machine, &image, &steps, input_of(name)),
            ));
        }
        let image = edge_program();
        let machine = machine_for(&image);
        let steps = edge_steps(&image, 1000, 7);
        sets.push((
            "edge 1000".into(),
            pack_traces(&machine, &image, &steps, b""),
        ));
        for (name, packed) in sets {
            let packed = packed.unwrap();
            // Past 2^32 cycles, and the last cycles of a run of 2^36.
            let last = (1u64 << 36) - packed.memw_r.new.len() as u64 - 1;
            for clk0 in [1, (1 << 32) + 5, last] {
                let rec = at_clock(&packed.memw_r, clk0);
                let host = [memw_r::fill_host(&rec), memw_r::fill_host2(&rec)];
                assert_eq!(host[0].row(0)[memw_r::TS].as_u64(), 4 * clk0 + 1, "{name}");
                let t = g.fill_memw_r(&rec).unwrap();
                for (part, (t, host)) in t.iter().zip(&host).enumerate() {
                    let dev = g.download_trace(t).unwrap();
                    assert!(
                        dev == *host,
                        "{name}, clk0 {clk0}: MEMW_R part {part} fill differs at {}",
                        first_diff(&dev, host)
                    );
                }
            }
        }
    }

    /// `rec`'s steps `range` as one segment from clock `clk0`, `outpos0` output bytes
    /// before it, handing off after its last step unless that is the exit (the calls in
    /// the range moved to the segment's clocks and output positions).
    fn segment_of(rec: &CpuRecords, range: Range<usize>, clk0: u64, outpos0: u64) -> CpuRecords {
        let start = range.start as u64;
        let before: u64 = rec
            .calls
            .iter()
            .filter(|c| c.clk < start)
            .map(|c| c.outn)
            .sum();
        let calls: Vec<CallMark> = rec
            .calls
            .iter()
            .filter(|c| range.contains(&(c.clk as usize)))
            .map(|c| CallMark {
                clk: clk0 + c.clk - start,
                outpos: outpos0 + c.outpos - before,
                ..*c
            })
            .collect();
        CpuRecords {
            height: range
                .len()
                .next_power_of_two()
                .max(kestrel_core::params::MIN_ROWS),
            clk0,
            outpos0,
            handoff: !calls.last().is_some_and(|c| c.exit),
            dec_row: rec.dec_row[range.clone()].to_vec(),
            rs1: rec.rs1[range.clone()].to_vec(),
            rs2: rec.rs2[range.clone()].to_vec(),
            res: rec.res[range].to_vec(),
            calls,
        }
    }

    /// Segments (a first clock ≠ 0, output written before them, a handoff after the last
    /// step unless it exits; last steps of every kind, jumps and taken branches among them):
    /// the device fill equals the host fill.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn cpu_fill_matches_the_host_builder_on_segments() {
        let g = gpu();
        let loop_run = segments::run();
        let mut cases: Vec<(String, ProgramImage, CpuRecords)> = vec![(
            "looping program 9..30".into(),
            segments::program(),
            loop_run.segment(9..30, 1000, 7).records,
        )];
        let edge = edge_program();
        let steps = edge_steps(&edge, 1000, 7);
        let packed = pack_traces(&machine_for(&edge), &edge, &steps, &[]).unwrap();
        let mut ranges: Vec<Range<usize>> = vec![0..1, 1..9, 100..612, 3..999, 990..1000];
        ranges.extend((0..40).map(|k| 200 + k..230 + 2 * k));
        for r in ranges {
            let rec = segment_of(&packed.cpu, r.clone(), 1000 + r.start as u64, 7);
            cases.push((format!("edge {r:?}"), edge.clone(), rec));
        }
        for name in ["isa/syscall", "sort"] {
            let (image, steps) = load(name);
            let packed = pack_traces(&machine_for(&image), &image, &steps, input_of(name)).unwrap();
            let n = steps.len();
            for r in [0..n / 2, n / 3..n - 1, n / 2..n] {
                let rec = segment_of(&packed.cpu, r.clone(), (1 << 36) - n as u64, 1 << 20);
                cases.push((format!("{name} {r:?}"), image.clone(), rec));
            }
        }
        for (name, image, rec) in &cases {
            let decode = decode_fields(image);
            let dev = g.fill_cpu(rec, &decode).unwrap();
            let dev = g.download_trace(&dev).unwrap();
            let host = fill_host(rec, &decode);
            assert!(
                dev == host,
                "{name}: CPU fill differs at {}",
                first_diff(&dev, &host)
            );
        }
    }

    fn proofs_equal(g: &CudaBackend, name: &str) {
        let (image, steps_) = load(name);
        let (_, records, _) = run_recorded(name, input_of(name));
        assert_eq!(steps(&records), steps_);
        let machine = machine_for(&image);
        let params = StarkParams::BLOWUP_2;
        let pk_cpu = setup(&CpuBackend, &machine, params).unwrap();
        let pk_gpu = setup(g, &machine, params).unwrap();
        let (tr, public) = build_traces(&machine, &image, &steps_, input_of(name)).unwrap();
        let cpu = prove(&CpuBackend, &pk_cpu, &machine, &tr, &public)
            .unwrap()
            .0
            .to_bytes();
        let (main, public2) =
            main_traces(g, &machine, &image, &records, input_of(name), true).unwrap();
        assert_eq!(public, public2);
        // Every table: the record tables, BITWISE and the run tables.
        for t in TableId::ALL {
            assert!(
                main[t.index()].is_device(),
                "{name}: table {t} not filled on the device"
            );
        }
        let before = g.stats();
        let report = debug_check_main(g, &machine, &main, &public).unwrap();
        assert!(report.is_ok(), "{name}: debug checker on device fills");
        let downloaded = g.stats().d2h_bytes["device trace download"]
            - before
                .d2h_bytes
                .get("device trace download")
                .copied()
                .unwrap_or(0);
        assert!(downloaded > 0, "the debug checker's downloads are counted");
        let gp = prove_main(g, &pk_gpu, &machine, main, &public)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .0
            .to_bytes();
        assert!(
            cpu == gp,
            "{name}: device-fill proof differs from the CPU backend's"
        );
        kestrel_verifier::verify(&verifier_machine(), &pk_gpu.vk, &public, &gp).unwrap();
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn device_fills_fire_and_proofs_are_byte_identical() {
        let g = gpu();
        // Together these programs use every record table with real rows (isa/mul: MUL's
        // every op; isa/div and isa/divw: DVRM's; sort: IO's input rows; every program:
        // ECALL's exit).
        let programs = [
            "isa/branch",
            "isa/word",
            "isa/load",
            "isa/store",
            "isa/mul",
            "isa/div",
            "isa/divw",
            "sort",
            "bench/fib_reg_16",
        ];
        for name in programs {
            proofs_equal(&g, name);
        }
        let runs = programs.len() as u64;
        let s = g.stats();
        let tables = [
            "CPU", "MEMW_R", "LT", "EQ", "SHIFT", "MUL", "DVRM", "LOAD", "STORE", "MEMW_A", "MEMW",
            "ECALL", "IO", "DECODE", "REGISTER", "PAGE", "PAGE0",
        ];
        for table in tables {
            assert_eq!(
                s.fill(table),
                runs,
                "the {table} fill did not run on the GPU for each program"
            );
        }
        assert!(
            s.op("commit_device_trace") >= tables.len() as u64 * runs,
            "device traces committed"
        );
        // BITWISE is counted on the device from every table that sends byte lookups (EQ,
        // DECODE and PAGE send none; REGISTER's, whose multiplicity is preprocessed, are
        // the packing pass's), once per program, the early fills' right after them.
        assert_eq!(s.fill("BITWISE"), runs);
        assert_eq!(s.op("bitwise_early"), runs);
        assert_eq!(s.kernels["ks_bytes_add"], runs);
        let none = ["EQ", "DECODE", "PAGE", "REGISTER"];
        for table in tables.iter().filter(|t| !none.contains(t)) {
            assert_eq!(s.byte_counts(table), runs, "{table}'s byte lookups");
        }
        for table in none {
            assert_eq!(s.byte_counts(table), 0, "{table}'s byte lookups");
        }
        // DECODE's multiplicities from the register walk's DECODE rows; REGISTER's, PAGE's
        // and PAGE0's from their records (the proofs' only host traces are the
        // preprocessed ones the setups commit).
        assert_eq!(s.kernels["ks_fill_decode_mult"], runs);
        assert!(s.h2d_bytes[RUN_RECORDS] > 0);
        assert!(s.h2d_bytes.get("packed op records").copied().unwrap_or(0) > 0);
        // CPU's and MEMW_R's records come from the register walk, once per program.
        assert_eq!(s.kernels["ks_regwalk"], runs);
        assert!(s.h2d_bytes[STEP_RECORDS] > 0);
        // LOAD's, STORE's and MEMW_A's records come from the memory walk, once per program
        // that accesses memory (isa/load, isa/store and sort do).
        assert!((3..=runs).contains(&s.kernels["ks_memwalk_records"]));
        assert!(s.h2d_bytes[MEM_RECORDS] > 0);
    }

    /// BITWISE counted on the device is the packing pass's BITWISE on every program.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn bitwise_counts_match_the_host_on_programs() {
        let g = gpu();
        for &(name, input) in PROVABLE_PROGRAMS {
            let (image, steps_) = load(name);
            let (_, records, _) = run_recorded(name, input);
            let machine = machine_for(&image);
            let (tr, _) = build_traces(&machine, &image, &steps_, input).unwrap();
            let (main, _) = main_traces(&g, &machine, &image, &records, input, true).unwrap();
            let dev = main[TableId::Bitwise.index()].to_host(&g).unwrap();
            let host = &tr[TableId::Bitwise.index()];
            assert!(
                dev.as_ref() == host,
                "{name}: BITWISE differs at {}",
                first_diff(dev.as_ref(), host)
            );
        }
        assert_eq!(g.stats().fill("BITWISE"), PROVABLE_PROGRAMS.len() as u64);
    }

    /// The device's counts are the host reference's (`byte_sends_host`) on arbitrary
    /// traces: real traces with random cells set to random bytes, to bytes past 255, to
    /// -1 and to large multiplicities; where the host finds a send BITWISE has no row for,
    /// the device fails too and builds nothing.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn bitwise_counts_match_the_host_reference_on_edge_traces() {
        use kestrel_core::air::Machine;
        use kestrel_core::field::Felt;
        use kestrel_core::rv::bitwise::WIDTH;
        use kestrel_prover_gpu::program::{byte_sends_host, compile_sends, BYTE_ROWS};
        let g = gpu();
        let name = "sort";
        let (image, steps_) = load(name);
        let machine = machine_for(&image);
        let (tr, public) = build_traces(&machine, &image, &steps_, input_of(name)).unwrap();
        let airs = machine.tables();
        let base: Vec<u64> = (0..WIDTH * BYTE_ROWS).map(|i| (i % 7) as u64).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(19);
        let (mut ok, mut bad) = (0, 0);
        for round in 0..24 {
            let tables: Vec<(TableId, kestrel_core::matrix::RowMajorMatrix)> = RECORD_TABLES
                .iter()
                .map(|&t| {
                    let mut m = tr[t.index()].clone();
                    let cells = if round == 0 { 0 } else { 1 + round % 5 };
                    for _ in 0..cells {
                        let at = rng.gen_range(0..m.values.len());
                        m.values[at] = Felt::new(match round % 4 {
                            0 | 1 => rng.gen_range(0..256),
                            2 => [256, 1 << 26, 1 << 40][rng.gen_range(0..3)],
                            _ => u64::MAX,
                        });
                    }
                    (t, m)
                })
                .collect();
            // The host reference: base (row-major) plus every table's sends.
            let mut want = vec![0u64; WIDTH * BYTE_ROWS];
            for (row, c) in base.chunks_exact(WIDTH).enumerate() {
                for (op, &v) in c.iter().enumerate() {
                    want[op * BYTE_ROWS + row] = v;
                }
            }
            let host = tables.iter().try_for_each(|(t, m)| {
                let p =
                    compile_sends(airs[t.index()], &public, kestrel_core::rv::BUS_BYTE).unwrap();
                byte_sends_host(&p, m, None, &mut want)
            });
            let refs: Vec<_> = tables.iter().map(|(t, m)| (*t, m)).collect();
            let dev = g.bitwise_of_host_traces(&machine, &refs, &public, &base);
            match (host, dev) {
                (Ok(()), Ok(d)) => {
                    let d = g.download_trace(&d).unwrap();
                    let have: Vec<u64> = (0..WIDTH * BYTE_ROWS)
                        .map(|i| d.row(i % BYTE_ROWS)[i / BYTE_ROWS].as_u64())
                        .collect();
                    assert!(have == want, "round {round}: device counts differ");
                    ok += 1;
                }
                (Err(_), Err(e)) => {
                    assert!(e.to_string().contains("malformed"), "round {round}: {e}");
                    bad += 1;
                }
                (h, d) => panic!("round {round}: host {h:?}, device {:?}", d.err()),
            }
        }
        assert!(ok >= 6 && bad >= 6, "{ok} accepted, {bad} refused");
    }

    fn args(name: &str, out: &std::path::Path, host_fills: bool) -> ProveArgs {
        ProveArgs {
            json: false,
            elf: guest_bin_dir().join(format!("{name}.elf")),
            output: out.to_path_buf(),
            input: None,
            max_cycles: 1 << 24,
            blowup: 2,
            stats: None,
            backend: BackendChoice::Cuda,
            host_fills,
            vram_budget: None,
            devices: None,
            segment_cycles: None,
            packers: None,
        }
    }

    /// The CLI path: device fills by default, `--host-fills` on the host; the two proof
    /// files are identical, and the host path uploads whole traces where the device path
    /// uploads packed records.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn cli_device_and_host_fills_give_the_same_proof() {
        let dir = std::env::temp_dir();
        let pid = std::process::id();
        let mut files = Vec::new();
        let mut uploads = Vec::new();
        for host_fills in [false, true] {
            let g = gpu();
            let out = dir.join(format!("kestrel-fill-{pid}-{host_fills}.proof"));
            prove_with(&g, &args("bench/fib_reg_16", &out, host_fills)).unwrap();
            let s = g.stats();
            for table in [
                "CPU", "MEMW_R", "LT", "EQ", "SHIFT", "MUL", "DVRM", "LOAD", "STORE", "MEMW_A",
                "MEMW", "ECALL", "IO", "DECODE", "REGISTER", "PAGE", "PAGE0",
            ] {
                assert_eq!(s.fill(table) > 0, !host_fills, "{table}");
            }
            uploads.push((
                s.h2d_bytes.get("trace upload").copied().unwrap_or(0),
                s.h2d_bytes.get("packed op records").copied().unwrap_or(0)
                    + s.h2d_bytes.get(STEP_RECORDS).copied().unwrap_or(0)
                    + s.h2d_bytes.get(MEM_RECORDS).copied().unwrap_or(0),
            ));
            files.push(std::fs::read(&out).unwrap());
            let _ = std::fs::remove_file(&out);
        }
        assert!(
            files[0] == files[1],
            "device and host fills prove differently"
        );
        assert!(decode_statement(&files[0]).is_ok());
        let ((dev_trace, dev_packed), (host_trace, host_packed)) = (uploads[0], uploads[1]);
        assert_eq!(host_packed, 0);
        assert!(dev_trace + dev_packed < host_trace, "{uploads:?}");
    }

    /// A failed device allocation or fill launch is an error, before or after the traces
    /// are device-resident; the CLI writes no proof file.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn faults_are_errors_and_write_no_proof() {
        let name = "bench/fib_reg_16";
        let (image, _) = load(name);
        let (_, records, _) = run_recorded(name, input_of(name));
        let machine = machine_for(&image);
        let g = gpu();
        let pk = setup(&g, &machine, StarkParams::BLOWUP_2).unwrap();
        // Each allocation of the fills (the register walk's decode table, records, outputs,
        // summaries and carries, the CPU and MEMW_R traces, the memory walk's inputs,
        // records, counts, keys, accesses, sort and carries, the others' records and
        // traces) failing in turn, until the fills make fewer allocations.
        let mut failed = 0;
        for nth in 1..=128 {
            g.device().inject_alloc_failure(nth);
            let r = main_traces(&g, &machine, &image, &records, input_of(name), true);
            g.device().inject_alloc_failure(0);
            match r {
                Err(e) => assert!(e.to_string().contains("injected"), "{nth}: {e}"),
                Ok(_) => break,
            }
            failed += 1;
        }
        assert!(
            (26..128).contains(&failed),
            "{failed} allocations failed in turn"
        );
        g.device().inject_fill_launch_failure();
        let e = main_traces(&g, &machine, &image, &records, input_of(name), true)
            .err()
            .expect("a failed fill launch is an error");
        assert!(e.to_string().contains("injected launch failure"), "{e}");
        // Once the traces are device-resident: allocations in the commit, LDE, LogUp build,
        // quotient, … failing in turn.
        for nth in [1, 2, 3, 4, 6, 9, 14, 25, 50, 100] {
            let (main, public) =
                main_traces(&g, &machine, &image, &records, input_of(name), true).unwrap();
            assert!(main.iter().any(MainTrace::is_device));
            g.device().inject_alloc_failure(nth);
            let r = prove_main(&g, &pk, &machine, main, &public);
            g.device().inject_alloc_failure(0);
            let e = r
                .err()
                .unwrap_or_else(|| panic!("allocation {nth} failed silently"));
            assert!(e.to_string().contains("injected"), "{e}");
        }
        // The CLI: an error exit and no proof file.
        let out = std::env::temp_dir().join(format!("kestrel-fault-{}.proof", std::process::id()));
        let _ = std::fs::remove_file(&out);
        g.device().inject_fill_launch_failure();
        assert_eq!(prove_with(&g, &args(name, &out, false)), Err(1));
        assert!(
            !out.exists(),
            "a proof file was written after a fill failure"
        );
        // And the backend still proves afterwards.
        prove_with(&g, &args(name, &out, false)).unwrap();
        assert!(out.exists());
        let _ = std::fs::remove_file(&out);
    }
}
