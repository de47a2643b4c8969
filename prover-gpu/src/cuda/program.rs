//! Compiles a table's symbolic expression DAG (`kestrel_core::air::symbolic`) into the
//! straight-line register program that kernels/program.cuh interprets, so the LogUp and
//! quotient kernels serve every AIR without a kernel per table.
//!
//! Shared subexpressions stay shared (one register per DAG node, found by node identity;
//! column reads and constants are deduplicated by value), registers are reused after
//! their last read, and public values become constants.

use std::collections::HashMap;

use kestrel_core::air::symbolic::{Op, SymExpr};
use kestrel_core::air::{Direction, SymbolicBuilder, TableAir};
use kestrel_core::field::Felt;

use super::error::CudaError;

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

/// Registers per thread in kernels/program.cuh (`KS_MAX_REGS`).
pub const MAX_REGS: usize = 256;

/// A compiled program: instructions `[op, dst, a, b]` and its constant pool.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub code: Vec<[u32; 4]>,
    pub consts: Vec<u64>,
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
    code: Vec<VInstr>,
    vregs: u32,
}

impl<'p> Compiler<'p> {
    fn fresh(&mut self) -> u32 {
        self.vregs += 1;
        self.vregs - 1
    }

    fn leaf(&mut self, l: Leaf) -> Result<u32, CudaError> {
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
                }
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
    fn emit(&mut self, root: &SymExpr) -> Result<u32, CudaError> {
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
                Op::Public(i) => {
                    let f = self.public.get(*i).ok_or(CudaError::Limit {
                        op: "constraint program",
                        detail: format!("public value {i} of {}", self.public.len()),
                    })?;
                    self.leaf(Leaf::Const(f.as_u64()))?
                }
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

fn index(i: usize) -> Result<u32, CudaError> {
    u32::try_from(i).map_err(|_| CudaError::Limit {
        op: "constraint program",
        detail: format!("column {i}"),
    })
}

/// Compiles `table`'s interactions, and its constraints too when `constraints` is set
/// (constraints first, in order, then the interactions, as the CPU folder accumulates them).
pub fn compile(
    table: &dyn TableAir,
    public: &[Felt],
    constraints: bool,
) -> Result<Program, CudaError> {
    let b = SymbolicBuilder::symbolic(table, public.len());
    let mut c = Compiler {
        public,
        nodes: HashMap::new(),
        leaves: HashMap::new(),
        consts: HashMap::new(),
        const_pool: Vec::new(),
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
    for it in &b.interactions {
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
        b.interactions.len(),
    )
}

/// Maps virtual registers to physical ones, reusing a register after its last read.
fn allocate(
    c: Compiler<'_>,
    constraints: usize,
    interactions: usize,
) -> Result<Program, CudaError> {
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
        return Err(CudaError::Limit {
            op: "constraint program",
            detail: format!("needs {used} registers, the kernel has {MAX_REGS}"),
        });
    }
    Ok(Program {
        code,
        consts: c.const_pool,
        registers: used as usize,
        constraints,
        interactions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
