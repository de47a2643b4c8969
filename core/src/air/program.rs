//! A table's constraints compiled from the symbolic DAG into a flat program: one
//! straight-line list of base-field operations (shared subexpressions computed once), the
//! constraints as (class, slot) pairs, and the interactions as slot lists. One generic
//! evaluator runs it for any table — [`QuotientProgram::eval_row`] here, and the same
//! encoding ([`QuotientProgram::encode`]) for a GPU kernel — so a new table needs no new
//! kernel. Its results equal [`super::ProverFolder`]'s bit for bit (tested below).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::logup::{eval_logup, fingerprint, signed};
use super::symbolic::{Op, SymExpr, SymbolicBuilder};
use super::{ConstraintAccumulator, ConstraintClass, Direction, TableAir};
use crate::field::{Ext3, Felt};

/// One operation; it writes the slot equal to its own index. Operands are earlier slots.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    Const(Felt),
    Main { col: u32, next: bool },
    Preprocessed { col: u32, next: bool },
    Public(u32),
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Neg(u32),
}

/// An interaction with its multiplicity and values as slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramInteraction {
    pub bus: u32,
    pub direction: Direction,
    pub multiplicity: u32,
    pub values: Vec<u32>,
}

/// The compiled form of one table's `eval`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotientProgram {
    pub ops: Vec<Instr>,
    /// In emission order (which fixes the powers of γ).
    pub constraints: Vec<(ConstraintClass, u32)>,
    pub interactions: Vec<ProgramInteraction>,
}

/// The row a program reads (base field).
pub struct RowView<'a> {
    pub main: &'a [Felt],
    pub main_next: &'a [Felt],
    pub pre: &'a [Felt],
    pub pre_next: &'a [Felt],
    pub public: &'a [Felt],
}

/// Word encoding of [`Instr`] for device evaluators: `[code, a, b]` per operation.
pub mod opcode {
    pub const CONST: u32 = 0;
    pub const MAIN: u32 = 1;
    pub const MAIN_NEXT: u32 = 2;
    pub const PRE: u32 = 3;
    pub const PRE_NEXT: u32 = 4;
    pub const PUBLIC: u32 = 5;
    pub const ADD: u32 = 6;
    pub const SUB: u32 = 7;
    pub const MUL: u32 = 8;
    pub const NEG: u32 = 9;
}

impl QuotientProgram {
    /// Compiles `table`'s constraints and interactions.
    pub fn compile(table: &dyn TableAir, num_public: usize) -> QuotientProgram {
        let b = SymbolicBuilder::symbolic(table, num_public);
        let mut c = Compiler {
            ops: Vec::new(),
            memo: BTreeMap::new(),
        };
        let constraints = b
            .constraints
            .iter()
            .map(|k| (k.class, c.slot(&k.expr)))
            .collect();
        let interactions = b
            .interactions
            .iter()
            .map(|i| ProgramInteraction {
                bus: i.bus,
                direction: i.direction,
                multiplicity: c.slot(&i.multiplicity),
                values: i.values.iter().map(|v| c.slot(v)).collect(),
            })
            .collect();
        QuotientProgram {
            ops: c.ops,
            constraints,
            interactions,
        }
    }

    /// Evaluates the program on one row and returns the per-class accumulators, exactly as
    /// [`super::ProverFolder::finish`] would. `aux`/`aux_next` are the row's extension
    /// columns; `scratch` is reused across rows.
    #[allow(clippy::too_many_arguments)]
    pub fn eval_row(
        &self,
        row: &RowView<'_>,
        aux: &[Ext3],
        aux_next: &[Ext3],
        alpha_powers: &[Ext3],
        beta: Ext3,
        total: Ext3,
        gamma_powers: &[Ext3],
        scratch: &mut Vec<Felt>,
    ) -> [Ext3; 4] {
        scratch.clear();
        let get = |v: &[Felt], i: u32| v.get(i as usize).copied().unwrap_or_default();
        for op in &self.ops {
            let s = &*scratch;
            let v = match *op {
                Instr::Const(f) => f,
                Instr::Main { col, next: false } => get(row.main, col),
                Instr::Main { col, next: true } => get(row.main_next, col),
                Instr::Preprocessed { col, next: false } => get(row.pre, col),
                Instr::Preprocessed { col, next: true } => get(row.pre_next, col),
                Instr::Public(i) => get(row.public, i),
                Instr::Add(a, b) => get(s, a) + get(s, b),
                Instr::Sub(a, b) => get(s, a) - get(s, b),
                Instr::Mul(a, b) => get(s, a) * get(s, b),
                Instr::Neg(a) => -get(s, a),
            };
            scratch.push(v);
        }
        let mut acc = ConstraintAccumulator::new(gamma_powers);
        for &(class, slot) in &self.constraints {
            acc.add_base(class, get(scratch, slot));
        }
        if !self.interactions.is_empty() {
            let mut values = Vec::new();
            let inters: Vec<(Ext3, Ext3)> = self
                .interactions
                .iter()
                .map(|it| {
                    values.clear();
                    values.extend(it.values.iter().map(|&v| get(scratch, v)));
                    let m = signed(it.direction, get(scratch, it.multiplicity));
                    (
                        Ext3::from(m),
                        fingerprint(it.bus, &values, alpha_powers, beta),
                    )
                })
                .collect();
            eval_logup(&inters, aux, aux_next, total, &mut acc);
        }
        acc.acc
    }

    /// The operations as `[code, a, b]` words (see [`opcode`]); constants are split into
    /// low and high 32-bit halves in `a` and `b`.
    pub fn encode(&self) -> Vec<[u32; 3]> {
        self.ops
            .iter()
            .map(|op| match *op {
                Instr::Const(f) => [opcode::CONST, f.as_u64() as u32, (f.as_u64() >> 32) as u32],
                Instr::Main { col, next } => [
                    if next {
                        opcode::MAIN_NEXT
                    } else {
                        opcode::MAIN
                    },
                    col,
                    0,
                ],
                Instr::Preprocessed { col, next } => {
                    [if next { opcode::PRE_NEXT } else { opcode::PRE }, col, 0]
                }
                Instr::Public(i) => [opcode::PUBLIC, i, 0],
                Instr::Add(a, b) => [opcode::ADD, a, b],
                Instr::Sub(a, b) => [opcode::SUB, a, b],
                Instr::Mul(a, b) => [opcode::MUL, a, b],
                Instr::Neg(a) => [opcode::NEG, a, 0],
            })
            .collect()
    }
}

struct Compiler {
    ops: Vec<Instr>,
    /// Node identity → slot, so shared subexpressions are computed once.
    memo: BTreeMap<usize, u32>,
}

impl Compiler {
    fn slot(&mut self, e: &SymExpr) -> u32 {
        if let Some(&s) = self.memo.get(&e.id()) {
            return s;
        }
        let op = match e.op() {
            Op::Const(f) => Instr::Const(*f),
            Op::Main { col, next } => Instr::Main {
                col: *col as u32,
                next: *next,
            },
            Op::Preprocessed { col, next } => Instr::Preprocessed {
                col: *col as u32,
                next: *next,
            },
            Op::Public(i) => Instr::Public(*i as u32),
            Op::Add(a, b) => {
                let (a, b) = (self.slot(a), self.slot(b));
                Instr::Add(a, b)
            }
            Op::Sub(a, b) => {
                let (a, b) = (self.slot(a), self.slot(b));
                Instr::Sub(a, b)
            }
            Op::Mul(a, b) => {
                let (a, b) = (self.slot(a), self.slot(b));
                Instr::Mul(a, b)
            }
            Op::Neg(a) => Instr::Neg(self.slot(a)),
        };
        let s = self.ops.len() as u32;
        self.ops.push(op);
        self.memo.insert(e.id(), s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::air::examples::{ByteRangeAir, FibonacciAir, SumSenderAir};
    use crate::air::logup::aux_ext_columns;
    use crate::air::{ProverFolder, TableShape};
    use crate::field::powers;

    fn pseudo(seed: &mut u64) -> Felt {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        Felt::new(*seed)
    }

    fn check(table: &dyn TableAir) {
        let num_public = 3;
        let shape = TableShape::of(table, num_public).unwrap();
        let prog = QuotientProgram::compile(table, num_public);
        assert_eq!(prog.constraints.len(), shape.num_air_constraints);
        assert_eq!(prog.interactions.len(), shape.num_interactions);
        let mut seed = 99;
        let mut rnd = |n: usize| (0..n).map(|_| pseudo(&mut seed)).collect::<Vec<_>>();
        let ext = |v: Vec<Felt>| {
            v.chunks(3)
                .map(|c| Ext3::new(c[0], c[1], c[2]))
                .collect::<Vec<_>>()
        };
        let mut scratch = Vec::new();
        for _ in 0..20 {
            let (main, main_next) = (rnd(shape.width), rnd(shape.width));
            let (pre, pre_next) = (rnd(shape.preprocessed_width), rnd(shape.preprocessed_width));
            let public = rnd(num_public);
            let (aux, aux_next) = (rnd(shape.aux_width), rnd(shape.aux_width));
            let r = rnd(9);
            let (alpha, beta, gamma) = (
                Ext3::new(r[0], r[1], r[2]),
                Ext3::new(r[3], r[4], r[5]),
                Ext3::new(r[6], r[7], r[8]),
            );
            let total = Ext3::new(r[1], r[5], r[7]);
            let alpha_powers = powers(alpha, shape.max_interaction_values + 1)[1..].to_vec();
            let gamma_powers = powers(gamma, shape.num_constraints);
            let mut f = ProverFolder::new(&public, &alpha_powers, beta, total, &gamma_powers);
            f.main = &main;
            f.main_next = &main_next;
            f.pre = &pre;
            f.pre_next = &pre_next;
            f.aux = &aux;
            f.aux_next = &aux_next;
            table.eval_prover(&mut f);
            let expected = f.finish();
            let view = RowView {
                main: &main,
                main_next: &main_next,
                pre: &pre,
                pre_next: &pre_next,
                public: &public,
            };
            let (ae, ane) = (ext(aux.clone()), ext(aux_next.clone()));
            assert_eq!(ae.len(), aux_ext_columns(shape.num_interactions));
            let got = prog.eval_row(
                &view,
                &ae,
                &ane,
                &alpha_powers,
                beta,
                total,
                &gamma_powers,
                &mut scratch,
            );
            assert_eq!(got, expected, "table {}", table.name());
        }
    }

    #[test]
    fn program_matches_prover_folder() {
        check(&FibonacciAir);
        check(&SumSenderAir);
        check(&ByteRangeAir);
    }

    #[test]
    fn shared_subexpressions_are_computed_once() {
        // SumSenderAir uses `sel` in several constraints; it is loaded once.
        let prog = QuotientProgram::compile(&SumSenderAir, 0);
        let loads = prog
            .ops
            .iter()
            .filter(|o| {
                matches!(
                    o,
                    Instr::Main {
                        col: 3,
                        next: false
                    }
                )
            })
            .count();
        assert_eq!(loads, 1);
        for (i, op) in prog.ops.iter().enumerate() {
            if let Instr::Add(a, b) | Instr::Sub(a, b) | Instr::Mul(a, b) = *op {
                assert!(
                    (a as usize) < i && (b as usize) < i,
                    "operands precede their use"
                );
            }
        }
    }
}
