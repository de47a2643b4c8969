//! [`Backend`] on the CPU with rayon.

use kestrel_core::air::debug::DebugRow;
use kestrel_core::air::logup::{fingerprint, signed};
use kestrel_core::air::{combine_quotient_base, ProverFolder, ZerofierInverses};
use kestrel_core::field::{batch_inverse, bit_reverse, powers, Ext3, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::{hash_leaf, hash_leaf_ext, Digest};
use kestrel_core::proof::Opening;
use kestrel_core::stark::{fold_pair, COSET_SHIFT};
use kestrel_core::transcript::check_pow;
use rayon::prelude::*;

use super::merkle::MerkleTree;
use super::ntt::{coset_lde, coset_lde_from_coeffs, interpolate, two_adic};
use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};

use crate::backend::{
    AuxCommitted, Backend, DeepInputs, QuotientCommitted, QuotientInputs, TablePlan,
};
use crate::error::ProverError;

/// Rows per rayon task in row-wise passes.
const CHUNK: usize = 1 << 12;

/// The reference backend: host memory, rayon.
#[derive(Copy, Clone, Debug, Default)]
pub struct CpuBackend;

/// A committed LDE on the host.
pub struct CpuCommitted {
    pub lde: RowMajorMatrix,
    pub tree: MerkleTree,
}

/// A committed FRI layer on the host.
pub struct CpuFriLayer {
    pub values: Vec<Ext3>,
    pub tree: MerkleTree,
}

fn commit(lde: RowMajorMatrix) -> CpuCommitted {
    let tree = MerkleTree::from_rows(&lde.values, lde.width.max(1), hash_leaf);
    CpuCommitted { lde, tree }
}

/// `x_i` for every row of an LDE of size `2^log_size` (bit-reversed).
fn lde_points(log_size: u32) -> Vec<Felt> {
    let n = 1usize << log_size;
    let w = two_adic(n);
    let natural = powers(w, n);
    (0..n)
        .into_par_iter()
        .map(|i| COSET_SHIFT * natural[bit_reverse(i, log_size)])
        .collect()
}

/// The CPU backend's own computations, which its [`Backend`] operations are made of (and
/// which the parity suites compare device backends against).
impl CpuBackend {
    /// Coset LDE of a coefficient matrix and its Merkle commitment.
    pub fn commit_coeffs(
        &self,
        coeffs: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<CpuCommitted, ProverError> {
        Ok(commit(coset_lde_from_coeffs(
            coeffs,
            log_blowup,
            COSET_SHIFT,
        )))
    }

    /// Row `row` of the LDE and its Merkle path.
    pub fn open(&self, c: &CpuCommitted, row: usize) -> Result<Opening, ProverError> {
        if row >= c.lde.height() {
            return Err(ProverError::Internal("opening row out of range"));
        }
        Ok(Opening {
            values: c.lde.row(row).to_vec(),
            path: c.tree.path(row),
        })
    }

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

    /// The quotient's coefficients split into chunks: `n × 3·chunks` (chunk c's coordinate
    /// k in column 3c+k). Fails when the constraints do not vanish on the trace.
    pub fn quotient(
        &self,
        q: &QuotientInputs<'_, CpuCommitted>,
    ) -> Result<RowMajorMatrix, ProverError> {
        let n = 1usize << q.log_height;
        let log_lde = q.log_height + q.log_blowup;
        let big = 1usize << log_lde;
        let blowup = 1usize << q.log_blowup;
        let xs = lde_points(log_lde);
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
        let lb = q.log_blowup;
        let empty = RowMajorMatrix::default();
        let pre = q.preprocessed.map_or(&empty, |c| &c.lde);
        let aux = q.aux.map_or(&empty, |c| &c.lde);
        let mut out = vec![Ext3::ZERO; big];
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, dst)| {
            let mut f = ProverFolder::new(
                q.public,
                &alpha_powers,
                q.challenges.beta,
                q.total,
                q.gamma_powers,
            );
            for (r, o) in dst.iter_mut().enumerate() {
                let i = c * CHUNK + r;
                // The next row of x is x·ω_n = g·ω_N^{bitrev(i) + blowup}.
                let j = bit_reverse((bit_reverse(i, log_lde) + blowup) & (big - 1), log_lde);
                f.reset();
                f.main = q.main.lde.row(i);
                f.main_next = q.main.lde.row(j);
                f.pre = row_of(pre, i);
                f.pre_next = row_of(pre, j);
                f.aux = row_of(aux, i);
                f.aux_next = row_of(aux, j);
                q.table.eval_prover(&mut f);
                let acc = f.finish();
                let z = ZerofierInverses {
                    inv_zh: inv_zh[bit_reverse(i, log_lde) & (blowup - 1)],
                    x_minus_last: x_minus_last[i],
                    inv_first: inv_first[i],
                    inv_last: inv_last[i],
                };
                *o = combine_quotient_base(&acc, &z);
            }
        });
        let _ = lb;
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
        let mut split = RowMajorMatrix::zeros(n, 3 * chunks);
        for c in 0..chunks {
            for k in 0..n {
                split.row_mut(k)[3 * c..3 * c + 3].copy_from_slice(coeffs.row(c * n + k));
            }
        }
        Ok(split)
    }

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

    /// Folds a codeword on layer domain `shift·H` (bit-reversed) in half.
    pub fn fri_fold(&self, cw: &[Ext3], beta: Ext3, shift: Felt) -> Result<Vec<Ext3>, ProverError> {
        let half = cw.len() / 2;
        let log_len = cw.len().trailing_zeros();
        // 1/(2x_j) with x_j = shift·ω_L^{bitrev_{L/2}(j)}.
        let w_inv = two_adic(cw.len()).inverse().expect("nonzero");
        let inv_pows = powers(w_inv, half);
        let two_shift_inv = (shift + shift).inverse().expect("nonzero");
        Ok((0..half)
            .into_par_iter()
            .map(|j| {
                let inv_two_x = two_shift_inv * inv_pows[bit_reverse(j, log_len - 1)];
                fold_pair(cw[2 * j], cw[2 * j + 1], beta, inv_two_x)
            })
            .collect())
    }

    /// Commits a FRI layer (leaf j = the pair of positions 2j, 2j+1).
    pub fn commit_fri_layer(&self, values: Vec<Ext3>) -> Result<CpuFriLayer, ProverError> {
        let tree = MerkleTree::from_rows(&values, 2, hash_leaf_ext);
        Ok(CpuFriLayer { values, tree })
    }

    /// The sibling of position `pos` and the path of its pair.
    pub fn open_fri(
        &self,
        layer: &CpuFriLayer,
        pos: usize,
    ) -> Result<(Ext3, Vec<Digest>), ProverError> {
        let sib = *layer
            .values
            .get(pos ^ 1)
            .ok_or(ProverError::Internal("FRI position out of range"))?;
        Ok((sib, layer.tree.path(pos >> 1)))
    }

    /// The values a layer was committed from.
    pub fn fri_values<'a>(&self, layer: &'a CpuFriLayer) -> &'a [Ext3] {
        &layer.values
    }
}

impl Backend for CpuBackend {
    type Committed = CpuCommitted;
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

    fn root(&self, c: &CpuCommitted) -> Digest {
        c.tree.root()
    }

    fn fri_root(&self, layer: &CpuFriLayer) -> Digest {
        layer.tree.root()
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

    fn commit_codeword(&self, codeword: Vec<Ext3>) -> Result<CpuFriLayer, ProverError> {
        self.commit_fri_layer(codeword)
    }

    fn fold_layer(
        &self,
        layer: &CpuFriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<Vec<Ext3>, ProverError> {
        self.fri_fold(&layer.values, beta, shift)
    }

    fn final_values(&self, codeword: Vec<Ext3>) -> Result<Vec<Ext3>, ProverError> {
        Ok(codeword)
    }

    fn open_batch(&self, c: &CpuCommitted, rows: &[usize]) -> Result<Vec<Opening>, ProverError> {
        rows.iter().map(|&r| self.open(c, r)).collect()
    }

    fn open_fri_batch(
        &self,
        layer: &CpuFriLayer,
        positions: &[usize],
    ) -> Result<Vec<(Ext3, Vec<Digest>)>, ProverError> {
        positions.iter().map(|&p| self.open_fri(layer, p)).collect()
    }
}

/// Batch inversion in parallel chunks.
fn par_batch_inverse<F: Field>(values: &[F]) -> Result<Vec<F>, ProverError> {
    let parts: Option<Vec<Vec<F>>> = values.par_chunks(CHUNK).map(batch_inverse).collect();
    parts
        .map(|p| p.into_iter().flatten().collect())
        .ok_or(ProverError::Internal("zero in batch inversion"))
}

/// Row `i` of `m`, or nothing for a matrix without columns.
fn row_of(m: &RowMajorMatrix, i: usize) -> &[Felt] {
    if m.width == 0 {
        &[]
    } else {
        m.row(i)
    }
}
