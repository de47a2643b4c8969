//! [`Backend`] on the CPU with rayon: the protocol's operations, made of the CPU backend's
//! own computations in the files beside this one (`committed`, `logup`, `quotient`, `eval`,
//! `deep`, `fri`; mirroring `cuda/`).

use kestrel_core::field::{Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::stark::fri_cap_bits;
use kestrel_core::transcript::check_pow;
use rayon::prelude::*;

use super::ntt::coset_lde;
use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};

use crate::backend::{
    AuxCommitted, Backend, DeepInputs, FriOpening, QuotientCommitted, QuotientInputs, RoundOpening,
    TablePlan,
};
use crate::error::ProverError;

use super::committed::{commit, CpuCommitted, CpuFriLayer, CpuRoundTree};

use super::CpuBackend;

impl Backend for CpuBackend {
    type Committed = CpuCommitted;
    type RoundTree = CpuRoundTree;
    type Codeword = Vec<Ext3>;
    type FriLayer = CpuFriLayer;

    fn name(&self) -> &'static str {
        "cpu"
    }

    fn commit_trace(
        &self,
        trace: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<CpuCommitted, ProverError> {
        Ok(commit(coset_lde(trace, log_blowup)))
    }

    fn commit_round(&self, matrices: &[&CpuCommitted]) -> Result<CpuRoundTree, ProverError> {
        self.round_tree(matrices)
    }

    fn round_cap(&self, tree: &CpuRoundTree) -> Vec<Digest> {
        tree.tree.cap(tree.shape.cap_bits)
    }

    fn fri_cap(&self, layer: &CpuFriLayer) -> Vec<Digest> {
        layer.tree.cap(fri_cap_bits(layer.tree.depth() as u32))
    }

    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError> {
        const BATCH: u64 = 1 << 14;
        let mut start = 0u64;
        loop {
            if let Some(n) = (start..start + BATCH)
                .into_par_iter()
                .find_first(|&n| check_pow(challenge, n, bits))
            {
                return Ok(n);
            }
            start = start
                .checked_add(BATCH)
                .ok_or(ProverError::Internal("grinding exhausted"))?;
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::Value::Null
    }

    /// The host's ceilings ([`crate::roofline::cpu_ceilings`]).
    fn ceilings(&self) -> Result<crate::roofline::Ceilings, ProverError> {
        Ok(crate::roofline::cpu_ceilings())
    }

    /// Host memory has no budget here: nothing to check.
    fn plan_memory(&self, _tables: &[TablePlan], _log_blowup: u32) -> Result<(), ProverError> {
        Ok(())
    }

    fn commit_logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: (&CpuCommitted, Option<&RowMajorMatrix>),
        preprocessed: Option<(&CpuCommitted, &RowMajorMatrix)>,
        public: &[Felt],
        challenges: LogUpChallenges,
        log_blowup: u32,
    ) -> Result<AuxCommitted<CpuCommitted>, ProverError> {
        let host = main.1.ok_or(ProverError::Internal(
            "commit_logup_aux: the CPU backend holds every main trace on the host",
        ))?;
        let (aux, total) = self.logup_aux(
            table,
            shape,
            host,
            preprocessed.map(|p| p.1),
            public,
            challenges,
        )?;
        let committed = self.commit_trace(&aux, log_blowup)?;
        Ok(AuxCommitted {
            committed,
            host: Some(aux),
            total,
        })
    }

    fn commit_quotient(
        &self,
        q: &QuotientInputs<'_, CpuCommitted>,
    ) -> Result<QuotientCommitted<CpuCommitted>, ProverError> {
        let coeffs = self.quotient(q)?;
        let committed = self.commit_coeffs(&coeffs, q.log_blowup)?;
        Ok(QuotientCommitted {
            committed,
            host: Some(coeffs),
        })
    }

    fn evaluate_committed(
        &self,
        _c: &CpuCommitted,
        trace: Option<&RowMajorMatrix>,
        points: &[Ext3],
    ) -> Result<Vec<Vec<Ext3>>, ProverError> {
        let trace = trace.ok_or(ProverError::Internal(
            "evaluate_committed: the CPU backend holds every trace on the host",
        ))?;
        points
            .iter()
            .map(|&p| self.evaluate_trace(trace, p))
            .collect()
    }

    fn evaluate_quotient(
        &self,
        q: &QuotientCommitted<CpuCommitted>,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        let coeffs = q.host.as_ref().ok_or(ProverError::Internal(
            "evaluate_quotient: the CPU backend holds every quotient on the host",
        ))?;
        self.evaluate_coeffs(coeffs, point)
    }

    fn deep_codeword(&self, d: &DeepInputs<'_, CpuCommitted>) -> Result<Vec<Ext3>, ProverError> {
        self.deep(d)
    }

    fn add_scaled(
        &self,
        acc: &mut Vec<Ext3>,
        scale: Ext3,
        other: &Vec<Ext3>,
    ) -> Result<(), ProverError> {
        if acc.len() != other.len() {
            return Err(ProverError::Internal("add_scaled: lengths differ"));
        }
        for (x, y) in acc.iter_mut().zip(other) {
            *x += scale * *y;
        }
        Ok(())
    }

    fn codeword_len(&self, c: &Vec<Ext3>) -> usize {
        c.len()
    }

    fn commit_codeword(
        &self,
        codeword: Vec<Ext3>,
        log_arity: u32,
    ) -> Result<CpuFriLayer, ProverError> {
        self.commit_fri_layer(codeword, log_arity)
    }

    fn fold_layer(
        &self,
        layer: &CpuFriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.fri_fold_layer(layer, beta, shift)
    }

    fn final_values(&self, codeword: Vec<Ext3>) -> Result<Vec<Ext3>, ProverError> {
        Ok(codeword)
    }

    fn open_round(
        &self,
        tree: &CpuRoundTree,
        matrices: &[&CpuCommitted],
        indices: &[usize],
    ) -> Result<Vec<RoundOpening>, ProverError> {
        indices
            .iter()
            .map(|&i| self.open_round_at(tree, matrices, i))
            .collect()
    }

    fn open_fri_batch(
        &self,
        layer: &CpuFriLayer,
        positions: &[usize],
    ) -> Result<Vec<FriOpening>, ProverError> {
        positions.iter().map(|&p| self.open_fri(layer, p)).collect()
    }
}
