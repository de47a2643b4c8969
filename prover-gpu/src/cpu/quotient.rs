//! The quotient on the CPU: constraints over the LDE, divided by the zerofiers, split into
//! chunks (mirrors `cuda/quotient.rs`).

use kestrel_core::air::{combine_quotient_base, ProverFolder, ZerofierInverses};
use kestrel_core::field::{batch_inverse, bit_reverse, powers, Ext3, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::stark::COSET_SHIFT;
use rayon::prelude::*;

use super::ntt::{interpolate, two_adic};

use crate::backend::QuotientInputs;
use crate::error::ProverError;

use super::committed::CpuCommitted;
use super::CpuBackend;
use super::{lde_points, par_batch_inverse, row_of, CHUNK};

impl CpuBackend {
    /// The quotient's coefficients split into chunks: `n × 3·chunks` (chunk c's coordinate
    /// k in column 3c+k). The constraints are evaluated on the quotient's domain
    /// ([`QuotientInputs::domain_log`]) and at its spot rows
    /// ([`QuotientInputs::spot_rows`]). Fails when the constraints do not vanish on the
    /// trace (as far as those rows show).
    pub fn quotient(
        &self,
        q: &QuotientInputs<'_, CpuCommitted>,
    ) -> Result<RowMajorMatrix, ProverError> {
        let n = 1usize << q.log_height;
        let log_lde = q.log_height + q.log_blowup;
        let log_d = q.domain_log()?;
        let (big, d) = (1usize << log_lde, 1usize << log_d);
        let blowup = 1usize << q.log_blowup;
        // The domain's points are the LDE's first d rows (bit-reversed): the coset g·H_d.
        let xs = lde_points(log_d);
        let omega_last = two_adic(n).inverse().expect("nonzero"); // ω^{n−1}
                                                                  // x^n − 1 takes `blowup` distinct values on the coset.
        let g_n = COSET_SHIFT.exp_u64(n as u64);
        let w_b = two_adic(blowup);
        let zh: Vec<Felt> = (0..blowup)
            .map(|k| g_n * w_b.exp_u64(k as u64) - Felt::ONE)
            .collect();
        let inv_zh =
            batch_inverse(&zh).ok_or(ProverError::Internal("zerofier vanishes on coset"))?;
        let x_minus_one: Vec<Felt> = xs.par_iter().map(|&x| x - Felt::ONE).collect();
        let x_minus_last: Vec<Felt> = xs.par_iter().map(|&x| x - omega_last).collect();
        let inv_first = par_batch_inverse(&x_minus_one)?;
        let inv_last = par_batch_inverse(&x_minus_last)?;
        let alpha_powers: Vec<Ext3> =
            powers(q.challenges.alpha, q.shape.max_interaction_values + 1)[1..].to_vec();
        let empty = RowMajorMatrix::default();
        let pre = q.preprocessed.map_or(&empty, |c| &c.lde);
        let aux = q.aux.map_or(&empty, |c| &c.lde);
        let folder = || {
            ProverFolder::new(
                q.public,
                &alpha_powers,
                q.challenges.beta,
                q.total,
                q.gamma_powers,
            )
        };
        // Q at LDE row i (any row, not only the domain's), given x − ω^{n−1} there and the
        // inverses of x − 1 and x − ω^{n−1}.
        let at_row = one_folder(|f, i, x_last, inv_1, inv_l| {
            // The next row of x is x·ω_n = g·ω_N^{bitrev(i) + blowup}.
            let j = bit_reverse((bit_reverse(i, log_lde) + blowup) & (big - 1), log_lde);
            f.reset();
            f.main = q.main.lde.row(i);
            f.main_next = q.main.lde.row(j);
            f.pre = row_of(pre, i);
            f.pre_next = row_of(pre, j);
            f.aux = row_of(aux, i);
            f.aux_next = row_of(aux, j);
            q.table.eval_prover(f);
            let acc = f.finish();
            let z = ZerofierInverses {
                inv_zh: inv_zh[bit_reverse(i, log_lde) & (blowup - 1)],
                x_minus_last: x_last,
                inv_first: inv_1,
                inv_last: inv_l,
            };
            combine_quotient_base(&acc, &z)
        });
        let mut out = vec![Ext3::ZERO; d];
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, dst)| {
            let mut f = folder();
            for (r, o) in dst.iter_mut().enumerate() {
                let i = c * CHUNK + r;
                *o = at_row(&mut f, i, x_minus_last[i], inv_first[i], inv_last[i]);
            }
        });
        // Coefficients of Q(g·y) in y, natural order; then undo the shift.
        let mut m = RowMajorMatrix::new(out.iter().flat_map(|e| e.coords()).collect(), 3);
        super::ntt::bit_reverse_rows(&mut m);
        let mut coeffs = interpolate(&m);
        let g_inv = COSET_SHIFT.inverse().expect("nonzero");
        let mut s = Felt::ONE;
        for row in coeffs.values.chunks_mut(3) {
            for v in row {
                *v *= s;
            }
            s *= g_inv;
        }
        let chunks = q.shape.quotient_chunks;
        if coeffs.values[chunks * n * 3..]
            .iter()
            .any(|&v| v != Felt::ZERO)
        {
            return Err(ProverError::ConstraintsNotSatisfied {
                table: q.table.name().into(),
            });
        }
        // Q's interpolant at the spot rows against the constraints there.
        let mut f = folder();
        for (r, x) in q.spot_rows(log_d) {
            let (x_1, x_last) = (x - Felt::ONE, x - omega_last);
            let (Some(inv_1), Some(inv_l)) = (x_1.inverse(), x_last.inverse()) else {
                return Err(ProverError::Internal("zero in batch inversion"));
            };
            if at_row(&mut f, r, x_last, inv_1, inv_l) != evaluate_at(&coeffs, x) {
                return Err(ProverError::ConstraintsNotSatisfied {
                    table: q.table.name().into(),
                });
            }
        }
        let mut split = RowMajorMatrix::zeros(n, 3 * chunks);
        for c in 0..chunks {
            for k in 0..n {
                split.row_mut(k)[3 * c..3 * c + 3].copy_from_slice(coeffs.row(c * n + k));
            }
        }
        Ok(split)
    }
}

/// Pins a row closure's folder to one lifetime (the data's, not any lifetime).
fn one_folder<'a, F>(f: F) -> F
where
    F: Fn(&mut ProverFolder<'a>, usize, Felt, Felt, Felt) -> Ext3,
{
    f
}

/// `Σ_k c_k·x^k` for the coefficients `c_k` (rows of 3 coordinates) of `coeffs`.
fn evaluate_at(coeffs: &RowMajorMatrix, x: Felt) -> Ext3 {
    coeffs
        .values
        .par_chunks(3 * CHUNK)
        .enumerate()
        .map(|(c, rows)| {
            let acc = rows
                .rchunks(3)
                .fold(Ext3::ZERO, |acc, r| acc * x + Ext3::new(r[0], r[1], r[2]));
            acc * x.exp_u64((c * CHUNK) as u64)
        })
        .reduce(|| Ext3::ZERO, |a, b| a + b)
}
