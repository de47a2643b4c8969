//! The verifier's folder: evaluates a table's constraints at the out-of-domain point, over
//! the extension field, from the opened values.

use alloc::vec::Vec;

use super::logup::{eval_logup, fingerprint, signed};
use super::{AirBuilder, ConstraintAccumulator, ConstraintClass, Direction};
use crate::field::{Ext3, Felt};

/// The out-of-domain view of one table. Aux values are already recombined extension
/// elements `[h_0, …, S]`.
pub struct VerifierFolder<'a> {
    pub main: &'a [Ext3],
    pub main_next: &'a [Ext3],
    pub pre: &'a [Ext3],
    pub pre_next: &'a [Ext3],
    pub aux: &'a [Ext3],
    pub aux_next: &'a [Ext3],
    pub public: &'a [Felt],
    pub alpha_powers: &'a [Ext3],
    pub beta: Ext3,
    pub total: Ext3,
    pub acc: ConstraintAccumulator<'a>,
    inters: Vec<(Ext3, Ext3)>,
}

impl<'a> VerifierFolder<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        main: &'a [Ext3],
        main_next: &'a [Ext3],
        pre: &'a [Ext3],
        pre_next: &'a [Ext3],
        aux: &'a [Ext3],
        aux_next: &'a [Ext3],
        public: &'a [Felt],
        alpha_powers: &'a [Ext3],
        beta: Ext3,
        total: Ext3,
        gamma_powers: &'a [Ext3],
    ) -> Self {
        VerifierFolder {
            main,
            main_next,
            pre,
            pre_next,
            aux,
            aux_next,
            public,
            alpha_powers,
            beta,
            total,
            acc: ConstraintAccumulator::new(gamma_powers),
            inters: Vec::new(),
        }
    }

    /// Appends the LogUp constraints and returns the per-class accumulators.
    pub fn finish(&mut self) -> [Ext3; 4] {
        if !self.inters.is_empty() {
            eval_logup(
                &self.inters,
                self.aux,
                self.aux_next,
                self.total,
                &mut self.acc,
            );
        }
        self.acc.acc
    }
}

impl AirBuilder for VerifierFolder<'_> {
    type Expr = Ext3;

    // Indices come from the AIR, whose widths the verifier matched against the proof's
    // shape before evaluating; an AIR reading past its declared width is a bug in the AIR.
    fn main(&self, col: usize) -> Ext3 {
        self.main.get(col).copied().unwrap_or_default()
    }
    fn main_next(&self, col: usize) -> Ext3 {
        self.main_next.get(col).copied().unwrap_or_default()
    }
    fn preprocessed(&self, col: usize) -> Ext3 {
        self.pre.get(col).copied().unwrap_or_default()
    }
    fn preprocessed_next(&self, col: usize) -> Ext3 {
        self.pre_next.get(col).copied().unwrap_or_default()
    }
    fn public(&self, index: usize) -> Ext3 {
        self.public
            .get(index)
            .copied()
            .map(Ext3::from)
            .unwrap_or_default()
    }
    fn constrain(&mut self, class: ConstraintClass, _name: &'static str, e: Ext3) {
        self.acc.add_ext(class, e);
    }
    fn interact(&mut self, bus: u32, direction: Direction, multiplicity: Ext3, values: &[Ext3]) {
        let f = fingerprint(bus, values, self.alpha_powers, self.beta);
        self.inters.push((signed(direction, multiplicity), f));
    }
}
