//! Compiles a table's symbolic expression DAG (`kestrel_core::air::symbolic`) into the
//! straight-line register program that the CUDA LogUp and quotient kernels run: either
//! interpreted (kernels/program.cuh, any AIR) or, for the programs of the RV64IM machine,
//! as CUDA code generated from the same program ([`cuda_source`], committed in
//! `kernels/gen/<table>.cu` and picked at run time by the program's [`Program::fingerprint`]),
//! so a new table needs no new kernel, and the machine's LogUp programs and its quotient
//! programs up to [`MAX_GENERATED_QUOTIENT`] instructions run without the interpreter.
//!
//! Shared subexpressions stay shared (one register per DAG node, found by node identity;
//! column reads and constants are deduplicated by value), registers are reused after
//! their last read, and public values get constant-pool slots of their own (never shared
//! with a constant of the same value), so a program's code does not depend on the values of
//! the public inputs, only on the AIR.

use std::collections::HashMap;

use kestrel_core::air::symbolic::{Op, SymExpr};
use kestrel_core::air::{Direction, SymbolicBuilder, TableAir};
use kestrel_core::field::Felt;

/// A program the compiler cannot produce (a column index past `u32`, too many registers).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("constraint program: {0}")]
pub struct ProgramError(pub String);

const OP_CONST: u32 = 0;
const OP_MAIN: u32 = 1;
const OP_PRE: u32 = 2;
const OP_ADD: u32 = 3;
const OP_SUB: u32 = 4;
const OP_MUL: u32 = 5;
const OP_NEG: u32 = 6;
const OP_CONSTRAIN: u32 = 7;
const OP_INT_BEGIN: u32 = 8;
const OP_INT_VAL: u32 = 9;
const OP_INT_END: u32 = 10;

/// Registers per thread of the interpreter in kernels/program.cuh (`KS_MAX_REGS`).
pub const MAX_REGS: usize = 256;

/// A compiled program: instructions `[op, dst, a, b]` and its constant pool.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub code: Vec<[u32; 4]>,
    pub consts: Vec<u64>,
    /// Per constant-pool slot: the public value it holds, or `None` for a constant of the
    /// AIR (its value is part of the program).
    pub public_slots: Vec<Option<u32>>,
    pub registers: usize,
    pub constraints: usize,
    pub interactions: usize,
}

impl Program {
    /// The instructions as u64 words (two u32 per word, little-endian), for upload.
    pub fn words(&self) -> Vec<u64> {
        self.code
            .iter()
            .flat_map(|i| {
                [
                    i[0] as u64 | (i[1] as u64) << 32,
                    i[2] as u64 | (i[3] as u64) << 32,
                ]
            })
            .collect()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Leaf {
    Const(u64),
    Public(usize),
    Main(usize, bool),
    Pre(usize, bool),
}

enum VInstr {
    Def { op: u32, dst: u32, a: u32, b: u32 },
    Leaf { op: u32, dst: u32, a: u32, b: u32 },
    Constrain { class: u32, a: u32 },
    IntBegin { bus: u32 },
    IntVal { a: u32 },
    IntEnd { a: u32, negate: bool },
}

struct Compiler<'p> {
    public: &'p [Felt],
    nodes: HashMap<*const Op, u32>,
    leaves: HashMap<Leaf, u32>,
    consts: HashMap<u64, u32>,
    const_pool: Vec<u64>,
    public_slots: Vec<Option<u32>>,
    code: Vec<VInstr>,
    vregs: u32,
}

impl<'p> Compiler<'p> {
    fn fresh(&mut self) -> u32 {
        self.vregs += 1;
        self.vregs - 1
    }

    fn leaf(&mut self, l: Leaf) -> Result<u32, ProgramError> {
        if let Some(&v) = self.leaves.get(&l) {
            return Ok(v);
        }
        let dst = self.fresh();
        let (op, a, b) = match l {
            Leaf::Const(c) => {
                let next = self.const_pool.len() as u32;
                let idx = *self.consts.entry(c).or_insert(next);
                if idx == next {
                    self.const_pool.push(c);
                    self.public_slots.push(None);
                }
                (OP_CONST, idx, 0)
            }
            Leaf::Public(i) => {
                let f = self.public.get(i).ok_or_else(|| {
                    ProgramError(format!("public value {i} of {}", self.public.len()))
                })?;
                let idx = self.const_pool.len() as u32;
                self.const_pool.push(f.as_u64());
                self.public_slots.push(Some(index(i)?));
                (OP_CONST, idx, 0)
            }
            Leaf::Main(col, next) => (OP_MAIN, index(col)?, next as u32),
            Leaf::Pre(col, next) => (OP_PRE, index(col)?, next as u32),
        };
        self.code.push(VInstr::Leaf { op, dst, a, b });
        self.leaves.insert(l, dst);
        Ok(dst)
    }

    /// The register holding `root`, emitting what it needs (iteratively: DAGs can be deep).
    fn emit(&mut self, root: &SymExpr) -> Result<u32, ProgramError> {
        let mut stack: Vec<(&SymExpr, bool)> = vec![(root, false)];
        while let Some((e, expanded)) = stack.pop() {
            let key = e.op() as *const Op;
            if self.nodes.contains_key(&key) {
                continue;
            }
            let v = match e.op() {
                Op::Const(f) => self.leaf(Leaf::Const(f.as_u64()))?,
                Op::Main { col, next } => self.leaf(Leaf::Main(*col, *next))?,
                Op::Preprocessed { col, next } => self.leaf(Leaf::Pre(*col, *next))?,
                Op::Public(i) => self.leaf(Leaf::Public(*i))?,
                Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) => {
                    if !expanded {
                        stack.push((e, true));
                        stack.push((b, false));
                        stack.push((a, false));
                        continue;
                    }
                    let (va, vb) = (
                        self.nodes[&(a.op() as *const Op)],
                        self.nodes[&(b.op() as *const Op)],
                    );
                    let op = match e.op() {
                        Op::Add(..) => OP_ADD,
                        Op::Sub(..) => OP_SUB,
                        _ => OP_MUL,
                    };
                    let dst = self.fresh();
                    self.code.push(VInstr::Def {
                        op,
                        dst,
                        a: va,
                        b: vb,
                    });
                    dst
                }
                Op::Neg(a) => {
                    if !expanded {
                        stack.push((e, true));
                        stack.push((a, false));
                        continue;
                    }
                    let va = self.nodes[&(a.op() as *const Op)];
                    let dst = self.fresh();
                    self.code.push(VInstr::Def {
                        op: OP_NEG,
                        dst,
                        a: va,
                        b: 0,
                    });
                    dst
                }
            };
            self.nodes.insert(key, v);
        }
        Ok(self.nodes[&(root.op() as *const Op)])
    }
}

fn index(i: usize) -> Result<u32, ProgramError> {
    u32::try_from(i).map_err(|_| ProgramError(format!("index {i} past u32")))
}

/// Compiles `table`'s interactions, and its constraints too when `constraints` is set
/// (constraints first, in order, then the interactions, as the CPU folder accumulates them).
pub fn compile(
    table: &dyn TableAir,
    public: &[Felt],
    constraints: bool,
) -> Result<Program, ProgramError> {
    compile_kept(table, public, constraints, |_| true)
}

/// `table`'s sends on `bus` alone, as a program of interactions (no constraints): what the
/// byte-lookup kernel (kernels/bytes.cuh) runs to count BITWISE's multiplicities from a
/// table's trace, and [`sends_host`] on the host.
///
/// # Errors
/// As [`compile`].
pub fn compile_sends(
    table: &dyn TableAir,
    public: &[Felt],
    bus: u32,
) -> Result<Program, ProgramError> {
    compile_kept(table, public, false, |it| {
        it.bus == bus && it.direction == Direction::Send
    })
}

fn compile_kept(
    table: &dyn TableAir,
    public: &[Felt],
    constraints: bool,
    keep: impl Fn(&kestrel_core::air::symbolic::SymInteraction) -> bool,
) -> Result<Program, ProgramError> {
    let b = SymbolicBuilder::symbolic(table, public.len());
    let mut c = Compiler {
        public,
        nodes: HashMap::new(),
        leaves: HashMap::new(),
        consts: HashMap::new(),
        const_pool: Vec::new(),
        public_slots: Vec::new(),
        code: Vec::new(),
        vregs: 0,
    };
    if constraints {
        for k in &b.constraints {
            let a = c.emit(&k.expr)?;
            c.code.push(VInstr::Constrain {
                class: k.class as u32,
                a,
            });
        }
    }
    let kept: Vec<_> = b.interactions.iter().filter(|it| keep(it)).collect();
    for it in &kept {
        let vals = it
            .values
            .iter()
            .map(|v| c.emit(v))
            .collect::<Result<Vec<_>, _>>()?;
        let m = c.emit(&it.multiplicity)?;
        c.code.push(VInstr::IntBegin { bus: it.bus });
        for a in vals {
            c.code.push(VInstr::IntVal { a });
        }
        c.code.push(VInstr::IntEnd {
            a: m,
            negate: it.direction == Direction::Receive,
        });
    }
    allocate(
        c,
        if constraints { b.constraints.len() } else { 0 },
        kept.len(),
    )
}

/// Maps virtual registers to physical ones, reusing a register after its last read.
fn allocate(
    c: Compiler<'_>,
    constraints: usize,
    interactions: usize,
) -> Result<Program, ProgramError> {
    let reads = |i: &VInstr| -> [Option<u32>; 2] {
        match *i {
            VInstr::Def { op, a, b, .. } => [Some(a), (op != OP_NEG).then_some(b)],
            VInstr::Constrain { a, .. } | VInstr::IntVal { a } | VInstr::IntEnd { a, .. } => {
                [Some(a), None]
            }
            VInstr::Leaf { .. } | VInstr::IntBegin { .. } => [None, None],
        }
    };
    let mut last = vec![usize::MAX; c.vregs as usize];
    for (pc, i) in c.code.iter().enumerate() {
        for v in reads(i).into_iter().flatten() {
            last[v as usize] = pc;
        }
    }
    let mut phys = vec![u32::MAX; c.vregs as usize];
    let mut free: Vec<u32> = Vec::new();
    let mut used = 0u32;
    let mut code = Vec::with_capacity(c.code.len());
    for (pc, i) in c.code.iter().enumerate() {
        let r = reads(i);
        let p = |v: Option<u32>| v.map_or(0, |v| phys[v as usize]);
        let (pa, pb) = (p(r[0]), p(r[1]));
        // Operands read for the last time free their registers before the result is placed,
        // which may then reuse one (the kernel reads operands before writing).
        let mut seen = [u32::MAX; 2];
        for (k, v) in r.into_iter().flatten().enumerate() {
            if last[v as usize] == pc && !seen.contains(&v) {
                free.push(phys[v as usize]);
                seen[k] = v;
            }
        }
        let mut def = |dst: u32| -> u32 {
            let reg = free.pop().unwrap_or_else(|| {
                used += 1;
                used - 1
            });
            phys[dst as usize] = reg;
            reg
        };
        code.push(match *i {
            VInstr::Def { op, dst, .. } => [op, def(dst), pa, pb],
            VInstr::Leaf { op, dst, a, b } => [op, def(dst), a, b],
            VInstr::Constrain { class, .. } => [OP_CONSTRAIN, class, pa, 0],
            VInstr::IntBegin { bus } => [OP_INT_BEGIN, 0, bus, 0],
            VInstr::IntVal { .. } => [OP_INT_VAL, 0, pa, 0],
            VInstr::IntEnd { negate, .. } => [OP_INT_END, 0, pa, negate as u32],
        });
    }
    if used as usize > MAX_REGS {
        return Err(ProgramError(format!(
            "needs {used} registers, the interpreter has {MAX_REGS}"
        )));
    }
    Ok(Program {
        code,
        consts: c.const_pool,
        public_slots: c.public_slots,
        registers: used as usize,
        constraints,
        interactions,
    })
}

impl Program {
    /// A digest of everything the program computes, constants of the AIR included, public
    /// values by slot only (their values are inputs): two programs with one fingerprint run
    /// the same code on any public input. FNV-1a, 64 bits: it names a generated kernel, it
    /// guards against nothing adversarial (the verifier never sees it).
    pub fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |w: u64| {
            for b in w.to_le_bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for v in [
            self.code.len(),
            self.registers,
            self.constraints,
            self.interactions,
            self.consts.len(),
        ] {
            eat(v as u64);
        }
        for i in &self.code {
            eat(i[0] as u64 | (i[1] as u64) << 32);
            eat(i[2] as u64 | (i[3] as u64) << 32);
        }
        for (c, p) in self.consts.iter().zip(&self.public_slots) {
            match p {
                None => {
                    eat(0);
                    eat(*c);
                }
                Some(i) => {
                    eat(1);
                    eat(*i as u64);
                }
            }
        }
        h
    }

    /// The program as a CUDA functor `name` with the interpreter's interface
    /// (`KsInterp::run` in kernels/program.cuh): straight-line code in SSA form, the AIR's
    /// constants inline, public values read from the constant pool by slot, each
    /// fingerprint's sum `bus + Σ α^i·v_i` accumulated unreduced and reduced once (the same
    /// value: the field's arithmetic is exact).
    ///
    /// # Errors
    /// An op the generator does not know (a program not made by [`compile`]).
    pub fn cuda_functor(&self, name: &str) -> Result<String, ProgramError> {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str("        ");
            out.push_str(&s);
            out.push('\n');
        };
        // The SSA value each physical register holds.
        let mut holds: Vec<String> = vec![String::new(); self.registers.max(1)];
        let (mut vi, mut ii, mut bus) = (0u32, 0u32, 0u32);
        for (pc, i) in self.code.iter().enumerate() {
            let [op, dst, a, b] = *i;
            let v = format!("v{pc}");
            let reg = |r: u32| holds[r as usize].clone();
            let def = match op {
                OP_CONST => Some(match self.public_slots[a as usize] {
                    None => format!("0x{:016x}ull", self.consts[a as usize]),
                    Some(_) => format!("consts[{a}]"),
                }),
                OP_MAIN => Some(format!(
                    "main.base[{a}ull * main.stride + {}]",
                    if b == 1 { "next" } else { "row" }
                )),
                OP_PRE => Some(format!(
                    "pre.base[{a}ull * pre.stride + {}]",
                    if b == 1 { "next" } else { "row" }
                )),
                OP_ADD => Some(format!("gl_add({}, {})", reg(a), reg(b))),
                OP_SUB => Some(format!("gl_sub({}, {})", reg(a), reg(b))),
                OP_MUL => Some(format!("gl_mul({}, {})", reg(a), reg(b))),
                OP_NEG => Some(format!("gl_neg({})", reg(a))),
                _ => None,
            };
            if let Some(e) = def {
                line(format!("const uint64_t {v} = {e};"));
                holds[dst as usize] = v;
                continue;
            }
            match op {
                OP_CONSTRAIN => line(format!("on_constraint({dst}u, {});", reg(a))),
                OP_INT_BEGIN => {
                    line("fa = acc3_zero();".into());
                    bus = a;
                    vi = 0;
                }
                OP_INT_VAL => {
                    line(format!(
                        "acc3_mad(fa, e3_load(alpha_powers + {}), {});",
                        3 * vi,
                        reg(a)
                    ));
                    vi += 1;
                }
                OP_INT_END => {
                    let m = if b != 0 {
                        format!("gl_neg({})", reg(a))
                    } else {
                        reg(a)
                    };
                    line(format!(
                        "on_interaction({ii}u, {m}, e3_sub(beta, e3_add(e3({bus}ull), acc3_reduce(fa))));"
                    ));
                    ii += 1;
                }
                _ => return Err(ProgramError(format!("unknown op {op} at {pc}"))),
            }
        }
        Ok(format!(
            "struct {name} {{\n    static constexpr bool kStraightLine = true;\n    \
             static constexpr uint32_t kInteractions = {0}u;\n    \
             static __device__ __forceinline__ uint32_t interactions(uint32_t) {{ return {0}u; }}\n\n    \
             template <typename C, typename I>\n    \
             static __device__ __forceinline__ void run(const uint4 *, uint32_t, \
             const uint64_t *consts, KsCols main, KsCols pre, uint64_t row, uint64_t next, \
             const uint64_t *alpha_powers, ext3 beta, C on_constraint, I on_interaction) {{\n        \
             acc3 fa = acc3_zero();\n        \
             (void)consts; (void)main; (void)pre; (void)row; (void)next; (void)alpha_powers; \
             (void)beta; (void)fa; (void)on_constraint; (void)on_interaction;\n\
             {out}    }}\n}};\n",
            self.interactions
        ))
    }
}

/// The RV64IM machine's constraint programs as the CUDA backend compiles them: per table,
/// the quotient program (constraints and interactions) and, for a table with interactions,
/// the LogUp program (interactions only). Named by table.
pub fn rv_programs() -> Result<Vec<(&'static str, bool, Program)>, ProgramError> {
    use kestrel_core::air::Machine;
    use kestrel_core::rv::machine::{Rv64Machine, NUM_PUBLIC};
    let machine = Rv64Machine::verifier();
    let public = vec![Felt::ZERO; NUM_PUBLIC];
    let mut out = Vec::new();
    for (t, air) in kestrel_core::rv::table::TableId::ALL
        .iter()
        .zip(machine.tables())
    {
        out.push((t.name(), true, compile(air, &public, true)?));
        let logup = compile(air, &public, false)?;
        if logup.interactions > 0 {
            out.push((t.name(), false, logup));
        }
    }
    Ok(out)
}

/// The RV64IM machine's byte-lookup programs ([`compile_sends`] on
/// [`BUS_BYTE`](kestrel_core::rv::BUS_BYTE)), per table that sends byte lookups, named by
/// table: what the device counts BITWISE's multiplicities with.
pub fn rv_byte_programs() -> Result<Vec<(&'static str, Program)>, ProgramError> {
    use kestrel_core::air::Machine;
    use kestrel_core::rv::machine::{Rv64Machine, NUM_PUBLIC};
    let machine = Rv64Machine::verifier();
    let public = vec![Felt::ZERO; NUM_PUBLIC];
    let mut out = Vec::new();
    for (t, air) in kestrel_core::rv::table::TableId::ALL
        .iter()
        .zip(machine.tables())
    {
        let p = compile_sends(air, &public, kestrel_core::rv::BUS_BYTE)?;
        if p.interactions > 0 {
            out.push((t.name(), p));
        }
    }
    Ok(out)
}

/// BITWISE's rows: byte pairs `x | y << 8`.
pub const BYTE_ROWS: usize = 1 << kestrel_core::rv::bitwise::LOG_HEIGHT;

/// The largest multiplicity one byte lookup may have (the kernel sums a warp's equal
/// lookups in 32 bits); a program's larger one is an error, never a wrong count.
pub const MAX_BYTE_MULTIPLICITY: u64 = 1 << 26;

/// The byte lookups a program from [`compile_sends`] makes over every row of `main` (and
/// `pre`, its preprocessed trace), added to `hist`: BITWISE's main trace column-major
/// (`hist[op · 2^16 + (x | y << 8)]`), as the device's `ks_bytes` kernels count them. The
/// host reference of those kernels.
///
/// # Errors
/// A send whose operation is not a BITWISE column, whose `x` or `y` is not a byte, or whose
/// multiplicity is [`MAX_BYTE_MULTIPLICITY`] or more (a malformed trace).
pub fn byte_sends_host(
    p: &Program,
    main: &kestrel_core::matrix::RowMajorMatrix,
    pre: Option<&kestrel_core::matrix::RowMajorMatrix>,
    hist: &mut [u64],
) -> Result<(), ProgramError> {
    let n = main.height();
    let width = kestrel_core::rv::bitwise::WIDTH;
    if hist.len() != width * BYTE_ROWS {
        return Err(ProgramError(format!(
            "a histogram of {} counts",
            hist.len()
        )));
    }
    let mut r = vec![Felt::ZERO; p.registers.max(1)];
    let mut vals: Vec<u64> = Vec::with_capacity(4);
    for row in 0..n {
        let next = (row + 1) % n;
        let cell = |m: Option<&kestrel_core::matrix::RowMajorMatrix>, c: usize, b: u32| {
            m.and_then(|m| m.row(if b == 1 { next } else { row }).get(c).copied())
                .ok_or_else(|| ProgramError(format!("column {c} past the trace")))
        };
        for i in &p.code {
            let (d, a, b) = (i[1] as usize, i[2] as usize, i[3] as usize);
            match i[0] {
                OP_CONST => r[d] = Felt::new(p.consts[a]),
                OP_MAIN => r[d] = cell(Some(main), a, i[3])?,
                OP_PRE => r[d] = cell(pre, a, i[3])?,
                OP_ADD => r[d] = r[a] + r[b],
                OP_SUB => r[d] = r[a] - r[b],
                OP_MUL => r[d] = r[a] * r[b],
                OP_NEG => r[d] = -r[a],
                OP_INT_BEGIN => vals.clear(),
                OP_INT_VAL => vals.push(r[a].as_u64()),
                OP_INT_END => {
                    let m = r[a].as_u64();
                    if m == 0 {
                        continue;
                    }
                    let key = byte_key(vals.first(), vals.get(1), vals.get(2), width);
                    match key {
                        Some(k) if m < MAX_BYTE_MULTIPLICITY => hist[k] += m,
                        _ => {
                            return Err(ProgramError(format!(
                                "row {row}: byte lookup {vals:?} with multiplicity {m}"
                            )))
                        }
                    }
                }
                op => return Err(ProgramError(format!("op {op} in a byte program"))),
            }
        }
    }
    Ok(())
}

/// A byte lookup's place in the column-major histogram: `op · 2^16 + (x | y << 8)`.
fn byte_key(op: Option<&u64>, x: Option<&u64>, y: Option<&u64>, width: usize) -> Option<usize> {
    let (&op, &x, &y) = (op?, x?, y?);
    (op < width as u64 && x < 256 && y < 256)
        .then(|| op as usize * BYTE_ROWS + (x | y << 8) as usize)
}

/// The largest quotient program (instructions) that gets a generated kernel. Measured on
/// the H200 (2^22-cycle proof at blowup 4, `KESTREL_KERNEL_TIMES=1`, generated against
/// `KESTREL_INTERPRET=1`): MEMW_R (140 instructions) 86.1 → 54.4 ms and EQ (87) 3.7 → 1.8 ms
/// generated, but CPU (926) 100.3 → 180.8 ms: its straight-line code needs every register
/// (255, spilling) and runs at 12.5 % occupancy with 84 % of cycles issuing nothing. The
/// LogUp programs (at most 454 instructions, no constraints) are all faster generated
/// (CPU 21.6 → 16.0 ms, MEMW_R 13.4 → 8.0).
pub const MAX_GENERATED_QUOTIENT: usize = 300;

/// The generated sources: per table, `kernels/gen/<table>.cu` (a quotient kernel and, for
/// a table with interactions, a LogUp kernel, from [`rv_programs`]), and
/// `prover-gpu/src/cuda/gen_programs.rs` (the kernels by program fingerprint and module, for
/// the backend to load and pick). Regenerate with
/// `KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs`.
pub fn cuda_source() -> Result<(Vec<(String, String)>, String), ProgramError> {
    const HEAD: &str = "// Generated from the RV64IM tables' constraint programs (prover-gpu/src/program.rs,\n\
         // `cuda_source`); do not edit. Regenerate with\n\
         // KESTREL_BLESS_PROGRAMS=1 cargo test --release -p kestrel-prover-gpu --lib generated_programs\n\
         // Each kernel is the generic quotient or LogUp kernel (quotient.cuh, logup.cuh) with the\n\
         // program's straight-line code in place of the interpreter; the backend picks it when\n\
         // the program it compiles at run time has the same fingerprint.\n\
         #include \"bytes.cuh\"\n#include \"logup.cuh\"\n#include \"quotient.cuh\"\n";
    let mut files: Vec<(String, String)> = Vec::new();
    let (mut quotient, mut logup, mut modules) = (Vec::new(), Vec::new(), Vec::new());
    let mut bytes = Vec::new();
    // A program already generated for an earlier table (MEMW_R2 has MEMW_R's AIR) is
    // picked by its fingerprint: no second kernel.
    let mut seen = std::collections::HashSet::new();
    for (table, constraints, p) in rv_programs()? {
        if constraints && p.code.len() > MAX_GENERATED_QUOTIENT
            || !seen.insert((constraints, p.fingerprint()))
        {
            continue;
        }
        let module = format!("gen/{}", table.to_lowercase());
        if files.last().is_none_or(|f| f.0 != module) {
            files.push((module.clone(), HEAD.to_string()));
            modules.push((module.clone(), Vec::new()));
        }
        let cu = &mut files.last_mut().expect("pushed").1;
        let fp = p.fingerprint();
        let functor = format!("KsGen{fp:016x}");
        if !cu.contains(&format!("struct {functor} ")) {
            cu.push_str(&format!(
                "\n// {table}: {} instructions, {} constraints, {} interactions\n",
                p.code.len(),
                p.constraints,
                p.interactions
            ));
            cu.push_str(&p.cuda_functor(&functor)?);
        }
        let kernel = if constraints {
            let k = format!("ks_quotient_eval_g{fp:016x}");
            cu.push_str(&format!(
                "extern \"C\" __global__ void {k}(uint64_t *out, QuotientParams q, uint32_t *zero_flag) {{\n    \
                 ks_quotient_eval_with<{functor}>(out, q, zero_flag);\n}}\n"
            ));
            quotient.push((fp, k.clone(), table));
            k
        } else {
            let k = format!("ks_logup_eval_g{fp:016x}");
            cu.push_str(&format!(
                "extern \"C\" __global__ void {k}(uint64_t *mults, uint64_t *fps, const uint4 *prog, \
                 uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, \
                 uint32_t log_n, uint32_t k, const uint64_t *alpha_powers, uint64_t b0, uint64_t b1, \
                 uint64_t b2) {{\n    ks_logup_eval_with<{functor}>(mults, fps, prog, len, consts, main, \
                 pre, log_n, k, alpha_powers, b0, b1, b2);\n}}\n"
            ));
            logup.push((fp, k.clone(), table));
            k
        };
        modules.last_mut().expect("pushed").1.push(kernel);
    }
    // The byte-lookup kernels, in their table's module (every table that sends byte lookups
    // has interactions, so a LogUp kernel and a module).
    let mut seen_bytes = std::collections::HashSet::new();
    for (table, p) in rv_byte_programs()? {
        if !seen_bytes.insert(p.fingerprint()) {
            continue;
        }
        let module = format!("gen/{}", table.to_lowercase());
        let (Some(file), Some(kernels)) = (
            files.iter_mut().find(|f| f.0 == module),
            modules.iter_mut().find(|m| m.0 == module),
        ) else {
            return Err(ProgramError(format!(
                "{table} sends byte lookups but has no module"
            )));
        };
        let fp = p.fingerprint();
        let functor = format!("KsGen{fp:016x}");
        let cu = &mut file.1;
        if !cu.contains(&format!("struct {functor} ")) {
            cu.push_str(&format!(
                "\n// {table} byte lookups: {} instructions, {} sends\n",
                p.code.len(),
                p.interactions
            ));
            cu.push_str(&p.cuda_functor(&functor)?);
        }
        let k = format!("ks_bytes_g{fp:016x}");
        cu.push_str(&format!(
            "extern \"C\" __global__ void {k}(uint64_t *hist, uint32_t *flag, const uint4 *prog, \
             uint32_t len, const uint64_t *consts, const uint64_t *main, const uint64_t *pre, \
             uint32_t log_n, const uint64_t *unit, uint32_t bus) {{\n    ks_bytes_with<{functor}>(hist, \
             flag, prog, len, consts, main, pre, log_n, unit, bus);\n}}\n"
        ));
        bytes.push((fp, k.clone(), table));
        kernels.1.push(k);
    }
    let mut rs = String::from(
        "// Generated with kernels/gen/*.cu by prover-gpu/src/program.rs (`cuda_source`); do not\n\
         // edit.\n\n",
    );
    for (what, list) in [
        ("QUOTIENT", &quotient),
        ("LOGUP", &logup),
        ("BYTES", &bytes),
    ] {
        rs.push_str(&format!(
            "/// The generated {} kernels: (program fingerprint, kernel, table).\n\
             pub const {what}: &[(u64, &str, &str)] = &[\n",
            what.to_lowercase()
        ));
        for (fp, k, t) in list {
            rs.push_str(&format!("    (0x{fp:016x}, {k:?}, {t:?}),\n"));
        }
        rs.push_str("];\n\n");
    }
    rs.push_str("/// The generated modules and their kernels, for loading.\npub const MODULES: &[(&str, &[&str])] = &[\n");
    for (m, ks) in &modules {
        rs.push_str(&format!("    ({m:?}, &{ks:?}),\n"));
    }
    rs.push_str("];\n");
    let files = files
        .into_iter()
        .map(|(m, cu)| (format!("{m}.cu"), cu))
        .collect();
    Ok((files, rs))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kernels/gen/*.cu and src/cuda/gen_programs.rs are the generator's output for
    /// the current AIRs (`KESTREL_BLESS_PROGRAMS=1` rewrites them): an AIR changed without
    /// regenerating would still prove (the backend falls back to the interpreter on an
    /// unknown fingerprint), only slower, so CI catches it here.
    #[test]
    fn generated_programs() {
        let (cu, rs) = cuda_source().unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let gen = root.join("../kernels/gen");
        let mut files: Vec<_> = cu
            .into_iter()
            .map(|(f, s)| (root.join("../kernels").join(f), s))
            .collect();
        files.push((root.join("src/cuda/gen_programs.rs"), rs));
        // No stale file: every .cu under kernels/gen is one the generator writes.
        if std::env::var_os("KESTREL_BLESS_PROGRAMS").is_some() {
            let _ = std::fs::remove_dir_all(&gen);
        }
        for e in std::fs::read_dir(&gen).into_iter().flatten() {
            let p = e.unwrap().path();
            assert!(
                files
                    .iter()
                    .any(|f| f.0.canonicalize().ok() == p.canonicalize().ok()),
                "{} is not generated",
                p.display()
            );
        }
        for (path, want) in files {
            if std::env::var_os("KESTREL_BLESS_PROGRAMS").is_some() {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &want).unwrap();
            }
            let have = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                have == want,
                "{} is not the generator's output: run KESTREL_BLESS_PROGRAMS=1 cargo test \
                 --release -p kestrel-prover-gpu --lib generated_programs",
                path.display()
            );
        }
    }

    /// The fingerprint follows the code and the AIR's constants, not the public values: a
    /// kernel generated for one program is never picked for another.
    #[test]
    fn fingerprints_follow_code_and_constants_not_public_values() {
        let fib = |public: &[u64]| {
            let public: Vec<Felt> = public.iter().map(|&v| Felt::new(v)).collect();
            compile(&FibonacciAir, &public, true).unwrap()
        };
        let p = fib(&[1, 1, 5]);
        assert_eq!(p.fingerprint(), fib(&[7, 9, 11]).fingerprint());
        assert!(p.public_slots.iter().any(Option::is_some));
        let cpu = &rv_programs().unwrap()[0].2;
        let k = cpu.public_slots.iter().position(Option::is_none).unwrap();
        let mut q = cpu.clone();
        q.consts[k] = q.consts[k].wrapping_add(1);
        assert_ne!(cpu.fingerprint(), q.fingerprint());
        let mut q = p.clone();
        let last = q.code.len() - 1;
        q.code[last][2] ^= 1;
        assert_ne!(p.fingerprint(), q.fingerprint());
        // A public value equal to a constant still gets its own slot.
        let same = fib(&[1, 1, 1]);
        assert_eq!(same.code, p.code);
    }

    /// The programs do not depend on the program proven nor on the public values: the
    /// machine of a real ELF with other public values compiles to the same fingerprints
    /// as the verifier's machine the generator uses.
    #[test]
    fn rv_programs_do_not_depend_on_the_elf_or_the_public_values() {
        use kestrel_core::air::Machine;
        let elf = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/guests/bin/sha256.elf"
        ))
        .unwrap();
        let program = crate::vm::Program::from_elf(&elf).unwrap();
        let machine =
            kestrel_core::rv::machine::Rv64Machine::new(&crate::rv::program_image(&program));
        let public: Vec<Felt> = (0..20u64).map(|i| Felt::new(i * 7 + 3)).collect();
        let want: Vec<u64> = rv_programs()
            .unwrap()
            .iter()
            .map(|p| p.2.fingerprint())
            .collect();
        let mut have = Vec::new();
        for air in machine.tables() {
            have.push(compile(air, &public, true).unwrap().fingerprint());
            let l = compile(air, &public, false).unwrap();
            if l.interactions > 0 {
                have.push(l.fingerprint());
            }
        }
        assert_eq!(have, want);
    }
    use kestrel_core::air::examples::{FibonacciAir, SumSenderAir};

    /// Runs a program on the host the way the kernel does (base-field part only).
    fn run(p: &Program, main: &[Felt], next: &[Felt]) -> Vec<(u32, Felt)> {
        let mut r = vec![Felt::ZERO; p.registers.max(1)];
        let mut out = Vec::new();
        for i in &p.code {
            let (a, b) = (i[2] as usize, i[3] as usize);
            match i[0] {
                OP_CONST => r[i[1] as usize] = Felt::new(p.consts[a]),
                OP_MAIN => r[i[1] as usize] = if b == 1 { next[a] } else { main[a] },
                OP_ADD => r[i[1] as usize] = r[a] + r[b],
                OP_SUB => r[i[1] as usize] = r[a] - r[b],
                OP_MUL => r[i[1] as usize] = r[a] * r[b],
                OP_NEG => r[i[1] as usize] = -r[a],
                OP_CONSTRAIN => out.push((i[1], r[a])),
                OP_INT_VAL | OP_INT_END => out.push((100 + i[0], r[a])),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn fibonacci_program_evaluates_constraints() {
        let public = [Felt::new(1), Felt::new(1), Felt::new(5)];
        let p = compile(&FibonacciAir, &public, true).unwrap();
        assert_eq!(p.constraints, 5);
        // Row (2, 3) → next (3, 5): transitions hold, boundaries against pub do not.
        let out = run(
            &p,
            &[Felt::new(2), Felt::new(3)],
            &[Felt::new(3), Felt::new(5)],
        );
        let vals: Vec<Felt> = out.iter().map(|x| x.1).collect();
        assert_eq!(
            vals,
            vec![
                Felt::new(1),
                Felt::new(2),
                Felt::ZERO,
                Felt::ZERO,
                Felt::NEG_ONE - Felt::ONE
            ]
        );
    }

    #[test]
    fn interactions_compile_in_order_and_reuse_registers() {
        let p = compile(&SumSenderAir, &[Felt::ONE], false).unwrap();
        assert_eq!(p.interactions, 5);
        assert_eq!(p.code.iter().filter(|i| i[0] == OP_INT_END).count(), 5);
        assert!(p.registers <= 8, "{} registers", p.registers);
    }
}
