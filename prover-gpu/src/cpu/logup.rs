//! The LogUp auxiliary trace on the CPU (mirrors `cuda/logup.rs`).

use kestrel_core::air::debug::DebugRow;
use kestrel_core::air::logup::{fingerprint, signed};
use kestrel_core::field::{batch_inverse, powers, Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use rayon::prelude::*;

use crate::error::ProverError;

use super::CpuBackend;
use super::CHUNK;

impl CpuBackend {
    /// The LogUp auxiliary trace (base coordinates, natural order) and the table's total.
    pub fn logup_aux(
        &self,
        table: &dyn kestrel_core::air::TableAir,
        shape: &kestrel_core::air::TableShape,
        main: &RowMajorMatrix,
        preprocessed: Option<&RowMajorMatrix>,
        public: &[Felt],
        ch: kestrel_core::air::LogUpChallenges,
    ) -> Result<(RowMajorMatrix, Ext3), ProverError> {
        let n = main.height();
        let k = shape.num_interactions;
        let pairs = k.div_ceil(2);
        let alpha_powers: Vec<Ext3> =
            powers(ch.alpha, shape.max_interaction_values + 1)[1..].to_vec();
        // Phase 1: signed multiplicities and fingerprints, row-major n × k.
        let mut mults = vec![Ext3::ZERO; n * k];
        let mut fps = vec![Ext3::ZERO; n * k];
        mults
            .par_chunks_mut(CHUNK * k)
            .zip(fps.par_chunks_mut(CHUNK * k))
            .enumerate()
            .try_for_each(|(c, (ms, fs))| {
                let mut b = DebugRow::new(public);
                for (r, (m_row, f_row)) in ms.chunks_mut(k).zip(fs.chunks_mut(k)).enumerate() {
                    let row = c * CHUNK + r;
                    b.set_row(main, preprocessed, row, n);
                    table.eval_debug(&mut b);
                    if b.interactions.len() != k {
                        return Err(ProverError::Internal(
                            "interaction count differs from shape",
                        ));
                    }
                    for (j, it) in b.interactions.iter().enumerate() {
                        m_row[j] = Ext3::from(signed(it.direction, it.multiplicity));
                        f_row[j] =
                            fingerprint(it.bus, b.interaction_values(it), &alpha_powers, ch.beta);
                    }
                }
                Ok(())
            })?;
        // Phase 2: one batch inversion per chunk.
        fps.par_chunks_mut(CHUNK * k).try_for_each(|fs| {
            let inv = batch_inverse(fs).ok_or(ProverError::LogUpFingerprintZero)?;
            fs.copy_from_slice(&inv);
            Ok::<_, ProverError>(())
        })?;
        // Phase 3: h_j per row, then the running sum.
        let ext_w = pairs + 1;
        let mut aux = vec![Ext3::ZERO; n * ext_w];
        aux.par_chunks_mut(ext_w)
            .enumerate()
            .for_each(|(row, out)| {
                let (ms, fs) = (&mults[row * k..(row + 1) * k], &fps[row * k..(row + 1) * k]);
                for (h, (m, f)) in out.iter_mut().zip(ms.chunks(2).zip(fs.chunks(2))) {
                    *h = m.iter().zip(f).map(|(m, f)| *m * *f).sum();
                }
            });
        let mut s = Ext3::ZERO;
        for row in aux.chunks_mut(ext_w) {
            s += row[..pairs].iter().copied().sum::<Ext3>();
            row[pairs] = s;
        }
        let values = aux.iter().flat_map(|e| e.coords()).collect();
        Ok((RowMajorMatrix::new(values, 3 * ext_w), s))
    }
}
