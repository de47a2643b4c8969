//! The prover's folder: evaluates a table's constraints on one row of its LDE, in the base
//! field, and folds them with powers of γ.

use alloc::vec::Vec;

use super::logup::{eval_logup, fingerprint, signed};
use super::{AirBuilder, ConstraintAccumulator, ConstraintClass, Direction};
use crate::field::{Ext3, Felt};

/// One LDE row's view for quotient evaluation. Reused across rows: set the slices, call
/// `eval_prover`, then [`ProverFolder::finish`].
pub struct ProverFolder<'a> {
    pub main: &'a [Felt],
    pub main_next: &'a [Felt],
    pub pre: &'a [Felt],
    pub pre_next: &'a [Felt],
    /// Auxiliary columns as base coordinates (3 per extension column).
    pub aux: &'a [Felt],
    pub aux_next: &'a [Felt],
    pub public: &'a [Felt],
    /// `α^1, α^2, …`
    pub alpha_powers: &'a [Ext3],
    pub beta: Ext3,
    pub total: Ext3,
    pub acc: ConstraintAccumulator<'a>,
    inters: Vec<(Ext3, Ext3)>,
    aux_ext: Vec<Ext3>,
    aux_next_ext: Vec<Ext3>,
}

impl<'a> ProverFolder<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        public: &'a [Felt],
        alpha_powers: &'a [Ext3],
        beta: Ext3,
        total: Ext3,
        gamma_powers: &'a [Ext3],
    ) -> Self {
        ProverFolder {
            main: &[],
            main_next: &[],
            pre: &[],
            pre_next: &[],
            aux: &[],
            aux_next: &[],
            public,
            alpha_powers,
            beta,
            total,
            acc: ConstraintAccumulator::new(gamma_powers),
            inters: Vec::new(),
            aux_ext: Vec::new(),
            aux_next_ext: Vec::new(),
        }
    }

    /// Clears the per-row state before the next `eval_prover`.
    pub fn reset(&mut self) {
        self.acc.reset();
        self.inters.clear();
    }

    /// Appends the LogUp constraints and returns the per-class accumulators.
    pub fn finish(&mut self) -> [Ext3; 4] {
        if !self.inters.is_empty() {
            to_ext(self.aux, &mut self.aux_ext);
            to_ext(self.aux_next, &mut self.aux_next_ext);
            eval_logup(
                &self.inters,
                &self.aux_ext,
                &self.aux_next_ext,
                self.total,
                &mut self.acc,
            );
        }
        self.acc.acc
    }
}

/// Reassembles extension elements from base coordinates.
pub(crate) fn to_ext(base: &[Felt], out: &mut Vec<Ext3>) {
    out.clear();
    out.extend(base.chunks_exact(3).map(|c| Ext3::new(c[0], c[1], c[2])));
}

impl AirBuilder for ProverFolder<'_> {
    type Expr = Felt;

    #[inline(always)]
    fn main(&self, col: usize) -> Felt {
        self.main[col]
    }
    #[inline(always)]
    fn main_next(&self, col: usize) -> Felt {
        self.main_next[col]
    }
    #[inline(always)]
    fn preprocessed(&self, col: usize) -> Felt {
        self.pre[col]
    }
    #[inline(always)]
    fn preprocessed_next(&self, col: usize) -> Felt {
        self.pre_next[col]
    }
    #[inline(always)]
    fn public(&self, index: usize) -> Felt {
        self.public[index]
    }
    #[inline(always)]
    fn constrain(&mut self, class: ConstraintClass, _name: &'static str, e: Felt) {
        self.acc.add_base(class, e);
    }
    #[inline]
    fn interact(&mut self, bus: u32, direction: Direction, multiplicity: Felt, values: &[Felt]) {
        let f = fingerprint(bus, values, self.alpha_powers, self.beta);
        self.inters
            .push((Ext3::from(signed(direction, multiplicity)), f));
    }
}
