//! Verification, step by step in protocol order.

use alloc::vec::Vec;

use kestrel_core::air::logup::signed;
use kestrel_core::air::{
    combine_quotient, logup, Machine, TableShape, VerifierFolder, ZerofierInverses,
};
use kestrel_core::field::{bit_reverse, powers, Ext3, Felt, Field};
use kestrel_core::keys::{PreprocessedCommitment, VerifyingKey};
use kestrel_core::merkle::{hash_leaf, hash_leaf_ext, verify_path};
use kestrel_core::params::{estimate_with, MAX_LOG_HEIGHT, MIN_LOG_HEIGHT, SECURITY_FLOOR_BITS};
use kestrel_core::proof::{Opening, ProofBody};
use kestrel_core::stark::{
    deep_weights, fold_pair, lde_point, protocol_shape, DeepWeights, FriShape, Matrix, Rounds,
};
use kestrel_core::transcript::check_pow;

use crate::{parse_proof, VerifyError};

fn expect_len(what: &'static str, expected: usize, got: usize) -> Result<(), VerifyError> {
    if expected == got {
        Ok(())
    } else {
        Err(VerifyError::Length {
            what,
            expected,
            got,
        })
    }
}

/// Verifies `proof` for `machine` with `public` values under the verifying key `vk`.
///
/// # Errors
/// A [`VerifyError`] naming the first check that failed.
pub fn verify(
    machine: &dyn Machine,
    vk: &VerifyingKey,
    public: &[Felt],
    proof: &[u8],
) -> Result<(), VerifyError> {
    // 1. Parse the containers.
    let p = parse_proof(proof)?;

    // 2. Parameters: well-formed, above the security floor.
    if !p.params.is_well_formed() {
        return Err(VerifyError::BadParams);
    }
    let tables = machine.tables();
    expect_len("table heights", tables.len(), p.log_heights.len())?;
    for (t, &h) in p.log_heights.iter().enumerate() {
        if (h as u32) < MIN_LOG_HEIGHT || h as u32 > MAX_LOG_HEIGHT {
            return Err(VerifyError::LogHeight { table: t, got: h });
        }
    }
    if !machine.public_len_ok(public.len()) {
        return Err(VerifyError::PublicCount {
            expected: machine.num_public_values(),
            got: public.len(),
        });
    }

    // 3. The AIR's shape, and the proof's shape against it.
    let shapes: Vec<TableShape> = tables
        .iter()
        .map(|t| TableShape::of(*t, public.len()))
        .collect::<Result<_, _>>()
        .map_err(VerifyError::Air)?;
    // The floor depends only on the parameters, the heights and the AIR: check it before
    // reading the rest of the proof.
    let max_log_height = p.log_heights.iter().copied().max().unwrap_or(0) as u32;
    let security = estimate_with(
        &p.params,
        max_log_height,
        &protocol_shape(&shapes, &p.log_heights),
    );
    if security.provable_bits < SECURITY_FLOOR_BITS as f64 {
        return Err(VerifyError::BelowSecurityFloor {
            provable_bits: security.provable_bits as u32,
            floor: SECURITY_FLOOR_BITS,
        });
    }
    check_shape(&p, &shapes)?;

    // 4. The verifying key binds the statement, parameters and preprocessed roots.
    let mut pre_roots = p.preprocessed_roots.iter();
    let mut pre = Vec::new();
    for (t, s) in shapes.iter().enumerate() {
        if s.preprocessed_width > 0 {
            if let Some(r) = pre_roots.next() {
                pre.push((
                    t,
                    PreprocessedCommitment {
                        root: *r,
                        log_height: p.log_heights[t],
                    },
                ));
            }
        }
    }
    if VerifyingKey::compute(
        machine.name(),
        &p.params,
        &shapes,
        pre.iter().map(|(t, c)| (*t, c)),
    ) != *vk
    {
        return Err(VerifyError::VkMismatch);
    }

    // 5. Replay the transcript up to the query phase.
    let lb = p.params.log_blowup as u32;
    let mut rounds = Rounds::start(
        machine.name(),
        &p.params,
        &p.preprocessed_roots,
        &p.log_heights,
        public,
    );
    let ch = rounds.main(&p.main_roots);
    let gamma = rounds.aux(&p.totals, &p.aux_roots);
    let zeta = rounds.quotient(&p.quotient_roots);
    let lambda = rounds.ood(&p.ood);

    // 6. LogUp: every table's total plus the public interactions' sum to zero.
    let max_values = shapes
        .iter()
        .map(|s| s.max_interaction_values)
        .max()
        .unwrap_or(0);
    let pub_inters = machine.public_interactions(public);
    let max_pub_values = pub_inters.iter().map(|i| i.values.len()).max().unwrap_or(0);
    let alpha_powers: Vec<Ext3> =
        powers(ch.alpha, max_values.max(max_pub_values) + 1)[1..].to_vec();
    let mut sum: Ext3 = p.totals.iter().copied().sum();
    for it in &pub_inters {
        let f = logup::fingerprint(it.bus, &it.values, &alpha_powers, ch.beta);
        let inv = f.inverse().ok_or(VerifyError::LogUpFingerprintZero)?;
        sum += inv * signed(it.direction, it.multiplicity);
    }
    if sum != Ext3::ZERO {
        return Err(VerifyError::LogUpSum);
    }

    // 7. Out-of-domain check: constraints at ζ equal the committed quotient.
    let mut totals = p.totals.iter();
    let mut table_totals = Vec::with_capacity(tables.len());
    for (t, table) in tables.iter().enumerate() {
        let s = &shapes[t];
        let o = &p.ood[t];
        let total = if s.num_interactions > 0 {
            totals.next().copied().unwrap_or_default()
        } else {
            Ext3::ZERO
        };
        table_totals.push(total);
        let n = 1u64 << p.log_heights[t];
        let omega = two_adic(p.log_heights[t] as u32);
        let omega_last = omega.inverse().ok_or(VerifyError::OodPointInDomain)?;
        let zn = zeta.exp_u64(n);
        let z = ZerofierInverses {
            inv_zh: (zn - Felt::ONE)
                .inverse()
                .ok_or(VerifyError::OodPointInDomain)?,
            x_minus_last: zeta - omega_last,
            inv_first: (zeta - Felt::ONE)
                .inverse()
                .ok_or(VerifyError::OodPointInDomain)?,
            inv_last: (zeta - omega_last)
                .inverse()
                .ok_or(VerifyError::OodPointInDomain)?,
        };
        let aux = recombine(&o.aux);
        let aux_next = recombine(&o.aux_next);
        let gamma_powers = powers(gamma, s.num_constraints);
        let mut f = VerifierFolder::new(
            &o.main,
            &o.main_next,
            &o.pre,
            &o.pre_next,
            &aux,
            &aux_next,
            public,
            &alpha_powers,
            ch.beta,
            total,
            &gamma_powers,
        );
        table.eval_verifier(&mut f);
        let acc = f.finish();
        let c = combine_quotient(&acc, &z);
        let mut q = Ext3::ZERO;
        let mut zpow = Ext3::ONE;
        for chunk in o.quotient.chunks_exact(3) {
            q += zpow * Ext3::from_coord_evals([chunk[0], chunk[1], chunk[2]]);
            zpow *= zn;
        }
        if c != q {
            return Err(VerifyError::OodMismatch { table: t });
        }
    }

    // 8. DEEP weights and the values they combine at ζ and ζω.
    let mut deep = Vec::with_capacity(tables.len());
    for (t, w) in deep_weights(lambda, &shapes).into_iter().enumerate() {
        let (sum_z, sum_zw) = w.sums(&p.ood[t]);
        let zeta_next = zeta * two_adic(p.log_heights[t] as u32);
        deep.push(DeepTable {
            w,
            sum_z,
            sum_zw,
            zeta_next,
        });
    }

    // 9. FRI commitments, final polynomial, grinding.
    let fri = FriShape::new(&p.params, &p.log_heights);
    let betas: Vec<Ext3> = p.fri_roots.iter().map(|r| rounds.fri_layer(r)).collect();
    let challenge = rounds.final_poly(&p.final_poly);
    if !check_pow(&challenge, p.pow_nonce, p.params.pow_bits as u32) {
        return Err(VerifyError::PowInvalid);
    }
    rounds.nonce(p.pow_nonce);

    // 10. Queries: openings against commitments, DEEP values, FRI folding to the final
    //     polynomial.
    for (qi, query) in p.queries.iter().enumerate() {
        let q = rounds.query(fri.log_max_lde);
        let mut reduced = Vec::with_capacity(tables.len());
        for (t, s) in shapes.iter().enumerate() {
            let log_lde = p.log_heights[t] as u32 + lb;
            let row = q >> (fri.log_max_lde - log_lde);
            let openings = &query.tables[t];
            let roots = Matrix::of(s).map(|m| {
                let root = match m {
                    Matrix::Preprocessed => &p.preprocessed_roots[pre_index(&shapes, t)],
                    Matrix::Main => &p.main_roots[t],
                    Matrix::Aux => &p.aux_roots[aux_index(&shapes, t)],
                    Matrix::Quotient => &p.quotient_roots[t],
                };
                (m, root)
            });
            for ((round, root), o) in roots.zip(openings) {
                if !verify_path(root, row, hash_leaf(&o.values), &o.path) {
                    return Err(VerifyError::MerklePath {
                        query: qi,
                        table: t,
                        round,
                    });
                }
            }
            let x = lde_point(log_lde, row);
            reduced.push((log_lde, deep_value(&deep[t], openings, x, zeta)?));
        }
        // Layer 0 is the sum of the tables with the largest LDE; others join later.
        let mut f: Ext3 = reduced
            .iter()
            .filter(|(l, _)| *l == fri.log_max_lde)
            .map(|(_, v)| *v)
            .sum();
        for (l, step) in query.fri.iter().enumerate() {
            let l32 = l as u32;
            let pos = q >> l;
            let (lo, hi) = if pos & 1 == 0 {
                (f, step.sibling)
            } else {
                (step.sibling, f)
            };
            if !verify_path(
                &p.fri_roots[l],
                pos >> 1,
                hash_leaf_ext(&[lo, hi]),
                &step.path,
            ) {
                return Err(VerifyError::FriMerklePath {
                    query: qi,
                    layer: l,
                });
            }
            let log_layer = fri.log_max_lde - l32;
            let x = fri.layer_shift(l32)
                * two_adic(log_layer).exp_u64(bit_reverse(pos >> 1, log_layer - 1) as u64);
            let inv_two_x = (x + x).inverse().ok_or(VerifyError::OodPointInDomain)?;
            let beta = betas[l];
            f = fold_pair(lo, hi, beta, inv_two_x);
            let joining: Ext3 = reduced
                .iter()
                .filter(|(lg, _)| *lg == log_layer - 1)
                .map(|(_, v)| *v)
                .sum();
            f += beta.square() * joining;
        }
        let log_final = fri.log_max_lde - fri.num_layers;
        let pos = q >> fri.num_layers;
        let x = fri.layer_shift(fri.num_layers)
            * two_adic(log_final).exp_u64(bit_reverse(pos, log_final) as u64);
        let expected = p
            .final_poly
            .iter()
            .rev()
            .fold(Ext3::ZERO, |acc, &c| acc * x + c);
        if f != expected {
            return Err(VerifyError::FriFinalPoly { query: qi });
        }
    }
    Ok(())
}

struct DeepTable {
    w: DeepWeights,
    sum_z: Ext3,
    sum_zw: Ext3,
    zeta_next: Ext3,
}

fn deep_value(
    d: &DeepTable,
    openings: &[Opening],
    x: Felt,
    zeta: Ext3,
) -> Result<Ext3, VerifyError> {
    let mut a = Ext3::ZERO;
    let mut b = Ext3::ZERO;
    let values = openings.iter().flat_map(|o| o.values.iter());
    for (k, &v) in values.enumerate() {
        if let Some(w) = d.w.z.get(k) {
            a += *w * v;
        }
        if let Some(w) = d.w.zw.get(k) {
            b += *w * v;
        }
    }
    let inv_z = (Ext3::from(x) - zeta)
        .inverse()
        .ok_or(VerifyError::OodPointInDomain)?;
    let inv_zw = (Ext3::from(x) - d.zeta_next)
        .inverse()
        .ok_or(VerifyError::OodPointInDomain)?;
    Ok((a - d.sum_z) * inv_z + (b - d.sum_zw) * inv_zw)
}

fn pre_index(shapes: &[TableShape], t: usize) -> usize {
    shapes[..t]
        .iter()
        .filter(|s| s.preprocessed_width > 0)
        .count()
}

fn aux_index(shapes: &[TableShape], t: usize) -> usize {
    shapes[..t]
        .iter()
        .filter(|s| s.num_interactions > 0)
        .count()
}

fn two_adic(bits: u32) -> Felt {
    Felt::two_adic_generator(bits).unwrap_or(Felt::ONE)
}

fn recombine(coords: &[Ext3]) -> Vec<Ext3> {
    coords
        .chunks_exact(3)
        .map(|c| Ext3::from_coord_evals([c[0], c[1], c[2]]))
        .collect()
}

/// Checks every length in the proof against what the parameters and the AIR imply.
fn check_shape(p: &ProofBody, shapes: &[TableShape]) -> Result<(), VerifyError> {
    let t = shapes.len();
    let n_pre = shapes.iter().filter(|s| s.preprocessed_width > 0).count();
    let n_aux = shapes.iter().filter(|s| s.num_interactions > 0).count();
    expect_len("preprocessed roots", n_pre, p.preprocessed_roots.len())?;
    expect_len("main roots", t, p.main_roots.len())?;
    expect_len("LogUp totals", n_aux, p.totals.len())?;
    expect_len("aux roots", n_aux, p.aux_roots.len())?;
    expect_len("quotient roots", t, p.quotient_roots.len())?;
    expect_len("OOD tables", t, p.ood.len())?;
    for (s, o) in shapes.iter().zip(&p.ood) {
        expect_len("OOD preprocessed", s.preprocessed_width, o.pre.len())?;
        expect_len(
            "OOD preprocessed next",
            s.preprocessed_width,
            o.pre_next.len(),
        )?;
        expect_len("OOD main", s.width, o.main.len())?;
        expect_len("OOD main next", s.width, o.main_next.len())?;
        expect_len("OOD aux", s.aux_width, o.aux.len())?;
        expect_len("OOD aux next", s.aux_width, o.aux_next.len())?;
        expect_len("OOD quotient", 3 * s.quotient_chunks, o.quotient.len())?;
    }
    let fri = FriShape::new(&p.params, &p.log_heights);
    expect_len("FRI layers", fri.num_layers as usize, p.fri_roots.len())?;
    expect_len(
        "final polynomial",
        1 << fri.log_final_len,
        p.final_poly.len(),
    )?;
    expect_len("queries", p.params.num_queries as usize, p.queries.len())?;
    let lb = p.params.log_blowup as usize;
    for q in &p.queries {
        expect_len("query tables", t, q.tables.len())?;
        for ((s, openings), &lh) in shapes.iter().zip(&q.tables).zip(&p.log_heights) {
            let mut widths = Vec::with_capacity(4);
            if s.preprocessed_width > 0 {
                widths.push(s.preprocessed_width);
            }
            widths.push(s.width);
            if s.num_interactions > 0 {
                widths.push(s.aux_width);
            }
            widths.push(3 * s.quotient_chunks);
            expect_len("table openings", widths.len(), openings.len())?;
            for (w, o) in widths.iter().zip(openings) {
                expect_len("opened row", *w, o.values.len())?;
                expect_len("Merkle path", lh as usize + lb, o.path.len())?;
            }
        }
        expect_len("FRI steps", fri.num_layers as usize, q.fri.len())?;
        for (l, step) in q.fri.iter().enumerate() {
            expect_len(
                "FRI path",
                fri.log_max_lde as usize - l - 1,
                step.path.len(),
            )?;
        }
    }
    Ok(())
}
