//! The DEEP quotient of one table on the CPU (mirrors `cuda/deep.rs`).

use kestrel_core::field::Ext3;
use rayon::prelude::*;

use crate::backend::DeepInputs;
use crate::error::ProverError;

use super::committed::CpuCommitted;
use super::CpuBackend;
use super::{lde_points, par_batch_inverse};

impl CpuBackend {
    /// The DEEP quotient of one table over its LDE (bit-reversed).
    pub fn deep(&self, d: &DeepInputs<'_, CpuCommitted>) -> Result<Vec<Ext3>, ProverError> {
        let big = 1usize << d.log_lde;
        let xs = lde_points(d.log_lde);
        let dz: Vec<Ext3> = xs.par_iter().map(|&x| Ext3::from(x) - d.zeta).collect();
        let dzw: Vec<Ext3> = xs
            .par_iter()
            .map(|&x| Ext3::from(x) - d.zeta_next)
            .collect();
        let inv_z = par_batch_inverse(&dz).map_err(|_| ProverError::OodPointInDomain)?;
        let inv_zw = par_batch_inverse(&dzw).map_err(|_| ProverError::OodPointInDomain)?;
        let n_next = d.weights_zw.len();
        let mut out = vec![Ext3::ZERO; big];
        out.par_iter_mut().enumerate().for_each(|(i, o)| {
            let mut a = Ext3::ZERO;
            let mut b = Ext3::ZERO;
            let mut k = 0;
            for c in &d.committed {
                if c.lde.width == 0 {
                    continue;
                }
                for &v in c.lde.row(i) {
                    a += d.weights_z[k] * v;
                    if k < n_next {
                        b += d.weights_zw[k] * v;
                    }
                    k += 1;
                }
            }
            *o = (a - d.sum_z) * inv_z[i] + (b - d.sum_zw) * inv_zw[i];
        });
        Ok(out)
    }
}
