//! Evaluations of traces and coefficient matrices at a point, on the CPU (mirrors
//! `cuda/eval.rs`).

use kestrel_core::field::{powers, Ext3, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use rayon::prelude::*;

use super::ntt::two_adic;

use crate::error::ProverError;

use super::CpuBackend;
use super::{par_batch_inverse, CHUNK};

impl CpuBackend {
    /// Each column of a trace (natural order on `H_n`) evaluated at `point`.
    pub fn evaluate_trace(
        &self,
        trace: &RowMajorMatrix,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        // Barycentric on H_n: f(z) = (z^n − 1)/n · Σ_i f(ω^i)·ω^i/(z − ω^i).
        let n = trace.height();
        let w = trace.width;
        let omegas = powers(two_adic(n), n);
        let diffs: Vec<Ext3> = omegas.par_iter().map(|&o| point - o).collect();
        let inv = par_batch_inverse(&diffs).map_err(|_| ProverError::OodPointInDomain)?;
        let weights: Vec<Ext3> = inv.par_iter().zip(&omegas).map(|(d, &o)| *d * o).collect();
        let scale =
            (point.exp_u64(n as u64) - Felt::ONE) * Felt::new(n as u64).inverse().expect("n < p");
        let sums = trace
            .values
            .par_chunks(w.max(1) * CHUNK)
            .zip(weights.par_chunks(CHUNK))
            .map(|(rows, ws)| {
                let mut acc = vec![Ext3::ZERO; w];
                for (row, &wt) in rows.chunks(w.max(1)).zip(ws) {
                    for (a, &v) in acc.iter_mut().zip(row) {
                        *a += wt * v;
                    }
                }
                acc
            })
            .reduce(
                || vec![Ext3::ZERO; w],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            );
        Ok(sums.into_iter().map(|s| s * scale).collect())
    }

    /// Each column of a coefficient matrix evaluated at `point`.
    pub fn evaluate_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        let w = coeffs.width;
        let mut acc = vec![Ext3::ZERO; w];
        for row in coeffs.rows().rev() {
            for (a, &c) in acc.iter_mut().zip(row) {
                *a = *a * point + c;
            }
        }
        Ok(acc)
    }
}
