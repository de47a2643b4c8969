//! The symbolic builder: runs a table's `eval` once to learn its shape — constraint and
//! interaction counts, degrees, quotient chunks — and keeps each constraint as an
//! expression DAG (shared subexpressions stay shared) for later GPU evaluation.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::{Add, Mul, Neg, Sub};

use super::logup::{aux_ext_columns, logup_constraint_count};
use super::{AirBuilder, ConstraintClass, Direction, TableAir};
use crate::field::Felt;

/// Largest constraint degree the prover supports (the LogUp pair constraint needs 3).
pub const MAX_CONSTRAINT_DEGREE: usize = 3;

/// A node of the expression DAG.
#[derive(Debug)]
pub enum Op {
    Const(Felt),
    Main { col: usize, next: bool },
    Preprocessed { col: usize, next: bool },
    Public(usize),
    Add(SymExpr, SymExpr),
    Sub(SymExpr, SymExpr),
    Mul(SymExpr, SymExpr),
    Neg(SymExpr),
}

/// A shared expression with its degree in the trace columns.
#[derive(Clone, Debug)]
pub struct SymExpr(Rc<(Op, usize)>);

impl SymExpr {
    fn new(op: Op, degree: usize) -> SymExpr {
        SymExpr(Rc::new((op, degree)))
    }
    pub fn op(&self) -> &Op {
        &self.0 .0
    }
    pub fn degree(&self) -> usize {
        self.0 .1
    }
    /// Identity of the shared node (equal for clones of one expression).
    pub fn id(&self) -> usize {
        Rc::as_ptr(&self.0) as usize
    }
}

impl From<Felt> for SymExpr {
    fn from(f: Felt) -> SymExpr {
        SymExpr::new(Op::Const(f), 0)
    }
}

impl Add for SymExpr {
    type Output = SymExpr;
    fn add(self, r: SymExpr) -> SymExpr {
        let d = self.degree().max(r.degree());
        SymExpr::new(Op::Add(self, r), d)
    }
}

impl Sub for SymExpr {
    type Output = SymExpr;
    fn sub(self, r: SymExpr) -> SymExpr {
        let d = self.degree().max(r.degree());
        SymExpr::new(Op::Sub(self, r), d)
    }
}

#[allow(clippy::suspicious_arithmetic_impl)] // degrees add under multiplication
impl Mul for SymExpr {
    type Output = SymExpr;
    fn mul(self, r: SymExpr) -> SymExpr {
        let d = self.degree() + r.degree();
        SymExpr::new(Op::Mul(self, r), d)
    }
}

impl Neg for SymExpr {
    type Output = SymExpr;
    fn neg(self) -> SymExpr {
        let d = self.degree();
        SymExpr::new(Op::Neg(self), d)
    }
}

impl Add<Felt> for SymExpr {
    type Output = SymExpr;
    fn add(self, r: Felt) -> SymExpr {
        self + SymExpr::from(r)
    }
}

impl Sub<Felt> for SymExpr {
    type Output = SymExpr;
    fn sub(self, r: Felt) -> SymExpr {
        self - SymExpr::from(r)
    }
}

impl Mul<Felt> for SymExpr {
    type Output = SymExpr;
    fn mul(self, r: Felt) -> SymExpr {
        self * SymExpr::from(r)
    }
}

/// A recorded constraint.
#[derive(Clone, Debug)]
pub struct SymConstraint {
    pub class: ConstraintClass,
    pub name: &'static str,
    pub expr: SymExpr,
}

/// A recorded interaction.
#[derive(Clone, Debug)]
pub struct SymInteraction {
    pub bus: u32,
    pub direction: Direction,
    pub multiplicity: SymExpr,
    pub values: Vec<SymExpr>,
}

/// Records a table's constraints and interactions.
pub struct SymbolicBuilder {
    width: usize,
    preprocessed_width: usize,
    num_public: usize,
    pub constraints: Vec<SymConstraint>,
    pub interactions: Vec<SymInteraction>,
    /// Degrees only ([`TableShape::of`]): each expression is dropped once its degree is
    /// recorded, so the builder holds no DAG (a verifier's heap stays small).
    degrees_only: bool,
    /// Per constraint, in order: class, name, degree (degrees-only mode).
    constraint_degrees: Vec<(ConstraintClass, &'static str, usize)>,
    /// Per interaction, in order: the multiplicity's degree, the values' highest degree (0
    /// without values), the number of values (degrees-only mode).
    interaction_degrees: Vec<(usize, usize, usize)>,
}

impl SymbolicBuilder {
    pub fn new(width: usize, preprocessed_width: usize, num_public: usize) -> Self {
        SymbolicBuilder {
            width,
            preprocessed_width,
            num_public,
            constraints: Vec::new(),
            interactions: Vec::new(),
            degrees_only: false,
            constraint_degrees: Vec::new(),
            interaction_degrees: Vec::new(),
        }
    }
}

impl AirBuilder for SymbolicBuilder {
    type Expr = SymExpr;

    fn main(&self, col: usize) -> SymExpr {
        self.read_pure(col, self.width, Op::Main { col, next: false })
    }
    fn main_next(&self, col: usize) -> SymExpr {
        self.read_pure(col, self.width, Op::Main { col, next: true })
    }
    fn preprocessed(&self, col: usize) -> SymExpr {
        self.read_pure(
            col,
            self.preprocessed_width,
            Op::Preprocessed { col, next: false },
        )
    }
    fn preprocessed_next(&self, col: usize) -> SymExpr {
        self.read_pure(
            col,
            self.preprocessed_width,
            Op::Preprocessed { col, next: true },
        )
    }
    fn public(&self, index: usize) -> SymExpr {
        self.read_pure(index, self.num_public, Op::Public(index))
    }
    fn constrain(&mut self, class: ConstraintClass, name: &'static str, e: SymExpr) {
        if self.degrees_only {
            self.constraint_degrees.push((class, name, e.degree()));
            return;
        }
        self.constraints.push(SymConstraint {
            class,
            name,
            expr: e,
        });
    }
    fn interact(
        &mut self,
        bus: u32,
        direction: Direction,
        multiplicity: SymExpr,
        values: &[SymExpr],
    ) {
        if self.degrees_only {
            let f = values.iter().map(SymExpr::degree).max().unwrap_or(0);
            self.interaction_degrees
                .push((multiplicity.degree(), f, values.len()));
            return;
        }
        self.interactions.push(SymInteraction {
            bus,
            direction,
            multiplicity,
            values: values.to_vec(),
        });
    }
}

impl SymbolicBuilder {
    // Reads take `&self` in the builder trait; out-of-range reads are recorded through a
    // marker expression and collected by `TableShape::of`.
    fn read_pure(&self, index: usize, limit: usize, op: Op) -> SymExpr {
        if index >= limit {
            // A huge degree makes the shape check fail and name the constraint that read it.
            return SymExpr::new(op, BAD_READ_DEGREE);
        }
        let degree = if matches!(op, Op::Public(_)) { 0 } else { 1 };
        SymExpr::new(op, degree)
    }
}

const BAD_READ_DEGREE: usize = usize::MAX / 4;

/// Why a table cannot be proven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// A constraint's degree exceeds [`MAX_CONSTRAINT_DEGREE`].
    DegreeTooHigh {
        table: String,
        constraint: &'static str,
        degree: usize,
    },
    /// An interaction's multiplicity or values have degree above 1.
    InteractionDegree {
        table: String,
        index: usize,
        degree: usize,
    },
    /// The AIR reads a column or public value past its declared width.
    OutOfRangeRead { table: String, constraint: String },
}

impl core::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ShapeError::DegreeTooHigh { table, constraint, degree } => write!(
                f,
                "table {table}: constraint `{constraint}` has degree {degree} > {MAX_CONSTRAINT_DEGREE}"
            ),
            ShapeError::InteractionDegree { table, index, degree } => {
                write!(f, "table {table}: interaction {index} has degree {degree} > 1")
            }
            ShapeError::OutOfRangeRead { table, constraint } => {
                write!(f, "table {table}: `{constraint}` reads past the declared columns")
            }
        }
    }
}

/// Everything the prover and verifier derive from a table's AIR alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableShape {
    pub width: usize,
    pub preprocessed_width: usize,
    /// Constraints written by the table (without LogUp's).
    pub num_air_constraints: usize,
    pub num_interactions: usize,
    /// Most values in one interaction (how many powers of α are needed).
    pub max_interaction_values: usize,
    /// Auxiliary base columns (3 per extension column).
    pub aux_width: usize,
    /// All constraints including LogUp's: the number of powers of γ.
    pub num_constraints: usize,
    /// Highest constraint degree, LogUp's included.
    pub max_degree: usize,
    /// Quotient chunks, each of degree < n, committed as 3 base columns each.
    pub quotient_chunks: usize,
}

impl TableShape {
    /// Runs the symbolic builder over `table`.
    ///
    /// # Errors
    /// A [`ShapeError`] when a degree is out of range or the AIR reads past its widths.
    pub fn of(table: &dyn TableAir, num_public: usize) -> Result<TableShape, ShapeError> {
        let b = SymbolicBuilder::degrees(table, num_public);
        let name = || String::from(table.name());
        let mut max_degree = 0;
        let mut chunks = 1;
        for &(class, constraint, d) in &b.constraint_degrees {
            if d >= BAD_READ_DEGREE {
                return Err(ShapeError::OutOfRangeRead {
                    table: name(),
                    constraint: constraint.into(),
                });
            }
            if d > MAX_CONSTRAINT_DEGREE {
                return Err(ShapeError::DegreeTooHigh {
                    table: name(),
                    constraint,
                    degree: d,
                });
            }
            max_degree = max_degree.max(d);
            chunks = chunks.max(quotient_chunks_for(class, d));
        }
        let mut max_values = 0;
        for (i, &(m, f, n_values)) in b.interaction_degrees.iter().enumerate() {
            let d = m.max(f);
            if d >= BAD_READ_DEGREE {
                return Err(ShapeError::OutOfRangeRead {
                    table: name(),
                    constraint: alloc::format!("interaction {i}"),
                });
            }
            if d > 1 {
                return Err(ShapeError::InteractionDegree {
                    table: name(),
                    index: i,
                    degree: d,
                });
            }
            max_values = max_values.max(n_values);
        }
        for pair in b.interaction_degrees.chunks(2) {
            let d = match *pair {
                [(ma, fa, _), (mb, fb, _)] => (1 + fa + fb).max(ma + fb).max(mb + fa),
                [(ma, fa, _)] => (1 + fa).max(ma),
                _ => 0,
            };
            max_degree = max_degree.max(d);
            chunks = chunks.max(quotient_chunks_for(ConstraintClass::AllRows, d));
        }
        if !b.interaction_degrees.is_empty() {
            // Running-sum constraints have degree 1 (boundary ones need one chunk).
            max_degree = max_degree.max(1);
        }
        let n_int = b.interaction_degrees.len();
        let n_constraints = b.constraint_degrees.len();
        Ok(TableShape {
            width: table.width(),
            preprocessed_width: table.preprocessed_width(),
            num_air_constraints: n_constraints,
            num_interactions: n_int,
            max_interaction_values: max_values,
            aux_width: 3 * aux_ext_columns(n_int),
            num_constraints: n_constraints + logup_constraint_count(n_int),
            max_degree,
            quotient_chunks: chunks,
        })
    }
}

impl SymbolicBuilder {
    /// Runs `table.eval` symbolically.
    pub fn symbolic(table: &dyn TableAir, num_public: usize) -> SymbolicBuilder {
        let mut b = SymbolicBuilder::new(table.width(), table.preprocessed_width(), num_public);
        table.eval_symbolic(&mut b);
        b
    }

    /// Runs `table.eval` symbolically keeping only degrees (what [`TableShape::of`] needs):
    /// no constraint or interaction is kept as a DAG.
    fn degrees(table: &dyn TableAir, num_public: usize) -> SymbolicBuilder {
        let mut b = SymbolicBuilder::new(table.width(), table.preprocessed_width(), num_public);
        b.degrees_only = true;
        table.eval_symbolic(&mut b);
        b
    }
}

/// Quotient chunks needed by one constraint: for a trace of height n, a constraint of degree
/// d has degree d(n−1); dividing by `x^n − 1` (or the transition zerofier) leaves degree
/// < (d−1)·n, dividing a boundary constraint by a linear factor leaves degree < d·n.
fn quotient_chunks_for(class: ConstraintClass, degree: usize) -> usize {
    match class {
        ConstraintClass::AllRows | ConstraintClass::Transition => degree.saturating_sub(1).max(1),
        ConstraintClass::FirstRow | ConstraintClass::LastRow => degree.max(1),
    }
}
