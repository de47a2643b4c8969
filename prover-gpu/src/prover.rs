//! The STARK protocol, prover side, generic over a [`Backend`].
//!
//! Rounds (each absorbed into the transcript before the next challenge):
//! main commitment per table → LogUp challenges α, β → aux commitments and totals →
//! γ → quotient commitments → ζ → out-of-domain values → λ → DEEP codewords → FRI layers
//! (shorter tables join at the layer of their LDE size) → final polynomial → grinding →
//! query openings.

use std::collections::btree_map::{BTreeMap, Entry};
use std::time::{Duration, Instant};

use kestrel_core::air::{LogUpChallenges, Machine, TableShape};
use kestrel_core::field::{powers, Ext3, Felt, Field};
use kestrel_core::keys::{PreprocessedCommitment, VerifyingKey};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::{StarkParams, MAX_LOG_HEIGHT, MIN_LOG_HEIGHT};
use kestrel_core::proof::{FriStep, ProofBody, QueryProof, TableOod};
use kestrel_core::stark::{deep_columns, observe_ood, start_transcript, FriShape};

pub use crate::error::ProverError;

use crate::backend::{
    AuxCommitted, Backend, DeepInputs, DeviceTraces, MainTrace, QuotientInputs, TablePlan,
};
use crate::cpu::ntt::{bit_reverse_rows, interpolate, two_adic};

/// Everything the prover derives once per statement and parameter set.
pub struct ProvingKey<B: Backend> {
    pub params: StarkParams,
    pub machine_name: String,
    pub shapes: Vec<TableShape>,
    /// Preprocessed trace, its commitment and log height, per table.
    pub preprocessed: Vec<Option<(RowMajorMatrix, B::Committed, u8)>>,
    pub vk: VerifyingKey,
}

impl<B: Backend> ProvingKey<B> {
    pub fn preprocessed_roots(&self, backend: &B) -> Vec<kestrel_core::merkle::Digest> {
        self.preprocessed
            .iter()
            .flatten()
            .map(|(_, c, _)| backend.root(c))
            .collect()
    }
}

/// Checks the machine's AIRs and commits the preprocessed traces.
///
/// # Errors
/// [`ProverError::Shape`], [`ProverError::BadParams`] or [`ProverError::BlowupTooSmall`].
pub fn setup<B: Backend>(
    backend: &B,
    machine: &dyn Machine,
    params: StarkParams,
) -> Result<ProvingKey<B>, ProverError> {
    if !params.is_well_formed() {
        return Err(ProverError::BadParams(params));
    }
    let mut shapes = Vec::new();
    let mut preprocessed = Vec::new();
    let mut commitments = Vec::new();
    for (t, table) in machine.tables().into_iter().enumerate() {
        let shape =
            TableShape::of(table, machine.num_public_values()).map_err(ProverError::Shape)?;
        if shape.quotient_chunks > params.blowup() {
            return Err(ProverError::BlowupTooSmall {
                table: table.name().into(),
                chunks: shape.quotient_chunks,
                blowup: params.blowup(),
            });
        }
        let pre = match table.preprocessed_trace() {
            Some((values, log_h)) if shape.preprocessed_width > 0 => {
                let m = RowMajorMatrix::new(values, shape.preprocessed_width);
                if m.height() != 1 << log_h || !(MIN_LOG_HEIGHT..=MAX_LOG_HEIGHT).contains(&log_h) {
                    return Err(ProverError::TraceHeight {
                        table: table.name().into(),
                        height: m.height(),
                        why: "preprocessed trace height",
                    });
                }
                let c = backend.commit_trace(&m, params.log_blowup as u32)?;
                commitments.push((
                    t,
                    PreprocessedCommitment {
                        root: backend.root(&c),
                        log_height: log_h as u8,
                    },
                ));
                Some((m, c, log_h as u8))
            }
            _ => None,
        };
        shapes.push(shape);
        preprocessed.push(pre);
    }
    let vk = VerifyingKey::compute(
        machine.name(),
        &params,
        &shapes,
        commitments.iter().map(|(t, c)| (*t, c)),
    );
    Ok(ProvingKey {
        params,
        machine_name: machine.name().into(),
        shapes,
        preprocessed,
        vk,
    })
}

/// Wall time per phase, in order.
#[derive(Clone, Debug, Default)]
pub struct ProveTimings {
    pub phases: Vec<(&'static str, Duration)>,
}

impl ProveTimings {
    fn mark(&mut self, name: &'static str, since: &mut Instant) {
        let now = Instant::now();
        self.phases.push((name, now - *since));
        *since = now;
    }
}

/// Phase marks: the timings, and who is told as each phase ends.
struct Marks<'a> {
    timings: ProveTimings,
    observer: &'a mut dyn FnMut(&'static str),
}

impl Marks<'_> {
    fn mark(&mut self, name: &'static str, since: &mut Instant) {
        self.timings.mark(name, since);
        (self.observer)(name);
    }
}

/// Proves that `traces` (one per table, natural row order) satisfy `machine` with `public`.
///
/// # Errors
/// Shape errors for traces that do not fit the machine, [`ProverError::ConstraintsNotSatisfied`]
/// when the witness is wrong, and backend failures.
pub fn prove<B: Backend>(
    backend: &B,
    pk: &ProvingKey<B>,
    machine: &dyn Machine,
    traces: &[RowMajorMatrix],
    public: &[Felt],
) -> Result<(ProofBody, ProveTimings), ProverError> {
    let dims: Vec<(usize, usize)> = traces.iter().map(|m| (m.width, m.height())).collect();
    let host: Vec<Option<&RowMajorMatrix>> = traces.iter().map(Some).collect();
    let lb = pk.params.log_blowup as u32;
    prove_core(
        backend,
        pk,
        machine,
        &dims,
        &host,
        public,
        &mut |_| {},
        |t| backend.commit_trace(&traces[t], lb),
    )
}

/// As [`prove`], for main traces of which some live in the backend's memory
/// ([`MainTrace::Device`]): each is committed device to device (consumed: it becomes the
/// commitment's source, which the LogUp build and the out-of-domain evaluations read).
/// Every failure on a device trace is an error; nothing is committed in its place.
///
/// # Errors
/// As [`prove`].
pub fn prove_main<B: DeviceTraces>(
    backend: &B,
    pk: &ProvingKey<B>,
    machine: &dyn Machine,
    traces: Vec<MainTrace<B>>,
    public: &[Felt],
) -> Result<(ProofBody, ProveTimings), ProverError> {
    prove_main_observed(backend, pk, machine, traces, public, &mut |_| {})
}

/// [`prove_main`], calling `observer` with each phase's name as it ends (the names of
/// [`ProveTimings::phases`], in order).
///
/// # Errors
/// As [`prove`].
pub fn prove_main_observed<B: DeviceTraces>(
    backend: &B,
    pk: &ProvingKey<B>,
    machine: &dyn Machine,
    traces: Vec<MainTrace<B>>,
    public: &[Felt],
    observer: &mut dyn FnMut(&'static str),
) -> Result<(ProofBody, ProveTimings), ProverError> {
    let dims: Vec<(usize, usize)> = traces.iter().map(|t| t.dims(backend)).collect();
    let mut hosts = Vec::with_capacity(traces.len());
    let mut devices: Vec<Option<B::DeviceTrace>> = Vec::with_capacity(traces.len());
    for t in traces {
        match t {
            MainTrace::Host(m) => {
                hosts.push(Some(m));
                devices.push(None);
            }
            MainTrace::Device(d) => {
                hosts.push(None);
                devices.push(Some(d));
            }
        }
    }
    let host: Vec<Option<&RowMajorMatrix>> = hosts.iter().map(Option::as_ref).collect();
    let lb = pk.params.log_blowup as u32;
    prove_core(
        backend,
        pk,
        machine,
        &dims,
        &host,
        public,
        observer,
        |t| match (host[t], devices[t].take()) {
            (Some(m), None) => backend.commit_trace(m, lb),
            (None, Some(d)) => backend.commit_device_trace(d, lb),
            _ => Err(ProverError::Internal("main trace committed twice")),
        },
    )
}

/// The protocol over main traces given by their shapes, their host values where there are
/// any, and how to commit each (called once per table, in order, after every shape check).
#[allow(clippy::too_many_arguments)]
fn prove_core<B: Backend>(
    backend: &B,
    pk: &ProvingKey<B>,
    machine: &dyn Machine,
    dims: &[(usize, usize)],
    host: &[Option<&RowMajorMatrix>],
    public: &[Felt],
    observer: &mut dyn FnMut(&'static str),
    mut commit_main: impl FnMut(usize) -> Result<B::Committed, ProverError>,
) -> Result<(ProofBody, ProveTimings), ProverError> {
    let mut timings = Marks {
        timings: ProveTimings::default(),
        observer,
    };
    let mut clock = Instant::now();
    let tables = machine.tables();
    let params = pk.params;
    let lb = params.log_blowup as u32;
    if dims.len() != tables.len() || host.len() != tables.len() || pk.shapes.len() != tables.len() {
        return Err(ProverError::TraceCount {
            expected: tables.len(),
            got: dims.len(),
        });
    }
    if !machine.public_len_ok(public.len()) {
        return Err(ProverError::PublicCount {
            expected: machine.num_public_values(),
            got: public.len(),
        });
    }
    let mut log_heights = Vec::with_capacity(tables.len());
    for (t, (&(width, h), shape)) in dims.iter().zip(&pk.shapes).enumerate() {
        let name = || tables[t].name().to_string();
        if width != shape.width {
            return Err(ProverError::TraceWidth {
                table: name(),
                expected: shape.width,
                got: width,
            });
        }
        if !h.is_power_of_two() || !(1 << MIN_LOG_HEIGHT..=1 << MAX_LOG_HEIGHT).contains(&h) {
            return Err(ProverError::TraceHeight {
                table: name(),
                height: h,
                why: "must be a power of two in [2^3, 2^28]",
            });
        }
        if let Some((_, _, lh)) = &pk.preprocessed[t] {
            if h != 1 << lh {
                return Err(ProverError::TraceHeight {
                    table: name(),
                    height: h,
                    why: "differs from the preprocessed height",
                });
            }
        }
        log_heights.push(h.trailing_zeros() as u8);
    }
    let plan: Vec<TablePlan> = (0..tables.len())
        .map(|t| {
            let shape = &pk.shapes[t];
            TablePlan {
                log_height: log_heights[t] as u32,
                main: shape.width,
                pre: shape.preprocessed_width,
                aux: shape.aux_width,
                quotient: 3 * shape.quotient_chunks,
                interactions: shape.num_interactions,
                main_resident: host[t].is_none(),
            }
        })
        .collect();
    backend.plan_memory(&plan, lb)?;
    let pre_roots = pk.preprocessed_roots(backend);
    let mut tr = start_transcript(&pk.machine_name, &params, &pre_roots, &log_heights, public);

    // Round 1: main traces.
    tr.label(b"main");
    let main: Vec<B::Committed> = (0..tables.len())
        .map(&mut commit_main)
        .collect::<Result<_, _>>()?;
    let main_roots: Vec<_> = main.iter().map(|c| backend.root(c)).collect();
    for r in &main_roots {
        tr.observe_digest(r);
    }
    timings.mark("commit main", &mut clock);

    // Round 2: LogUp.
    tr.label(b"logup");
    let ch = LogUpChallenges {
        alpha: tr.sample_ext(),
        beta: tr.sample_ext(),
    };
    let mut aux: Vec<Option<AuxCommitted<B::Committed>>> = Vec::with_capacity(tables.len());
    let mut totals = Vec::new();
    let mut table_totals = vec![Ext3::ZERO; tables.len()];
    let mut aux_roots = Vec::new();
    for (t, table) in tables.iter().enumerate() {
        let shape = &pk.shapes[t];
        if shape.num_interactions == 0 {
            aux.push(None);
            continue;
        }
        let pre = pk.preprocessed[t].as_ref().map(|(m, c, _)| (c, m));
        let a =
            backend.commit_logup_aux(*table, shape, (&main[t], host[t]), pre, public, ch, lb)?;
        totals.push(a.total);
        table_totals[t] = a.total;
        aux_roots.push(backend.root(&a.committed));
        aux.push(Some(a));
    }
    tr.label(b"aux");
    tr.observe_exts(&totals);
    for r in &aux_roots {
        tr.observe_digest(r);
    }
    timings.mark("logup aux", &mut clock);

    // Round 3: quotients.
    tr.label(b"quotient");
    let gamma = tr.sample_ext();
    let mut quotient = Vec::with_capacity(tables.len());
    for (t, table) in tables.iter().enumerate() {
        let shape = &pk.shapes[t];
        let gamma_powers = powers(gamma, shape.num_constraints);
        let q = QuotientInputs {
            table: *table,
            shape,
            log_height: log_heights[t] as u32,
            log_blowup: lb,
            preprocessed: pk.preprocessed[t].as_ref().map(|(_, c, _)| c),
            main: &main[t],
            aux: aux[t].as_ref().map(|a| &a.committed),
            public,
            challenges: ch,
            total: table_totals[t],
            gamma_powers: &gamma_powers,
        };
        let c = backend.commit_quotient(&q)?;
        tr.observe_digest(&backend.root(&c.committed));
        quotient.push(c);
    }
    let quotient_roots: Vec<_> = quotient
        .iter()
        .map(|c| backend.root(&c.committed))
        .collect();
    timings.mark("quotient", &mut clock);

    // Round 4: out-of-domain evaluations.
    tr.label(b"ood");
    let zeta = tr.sample_ext();
    let mut ood = Vec::with_capacity(tables.len());
    for t in 0..tables.len() {
        let zeta_next = zeta * two_adic(1 << log_heights[t]);
        // Both points in one call, from the backend's copy of each committed trace.
        let eval2 = |c: Option<(&B::Committed, Option<&RowMajorMatrix>)>| -> Result<(Vec<Ext3>, Vec<Ext3>), ProverError> {
            let Some((c, m)) = c else {
                return Ok((Vec::new(), Vec::new()));
            };
            let mut v = backend.evaluate_committed(c, m, &[zeta, zeta_next])?;
            let next = v.pop().ok_or(ProverError::Internal("evaluation count"))?;
            let here = v.pop().ok_or(ProverError::Internal("evaluation count"))?;
            Ok((here, next))
        };
        let (pre, pre_next) = eval2(pk.preprocessed[t].as_ref().map(|(m, c, _)| (c, Some(m))))?;
        let (main_z, main_next) = eval2(Some((&main[t], host[t])))?;
        let (aux_z, aux_next) = eval2(aux[t].as_ref().map(|a| (&a.committed, a.host.as_ref())))?;
        let q = backend.evaluate_quotient(&quotient[t], zeta)?;
        let o = TableOod {
            pre,
            pre_next,
            main: main_z,
            main_next,
            aux: aux_z,
            aux_next,
            quotient: q,
        };
        observe_ood(&mut tr, &o);
        ood.push(o);
    }
    timings.mark("ood", &mut clock);

    // Round 5: DEEP.
    tr.label(b"deep");
    let lambda = tr.sample_ext();
    // One codeword per LDE size: each table's is added to its size's sum as soon as it is
    // made (FRI adds a size's tables together anyway), so at most one is held per size.
    let mut deep: BTreeMap<u32, B::Codeword> = BTreeMap::new();
    let mut offset = 0usize;
    for t in 0..tables.len() {
        let (nz, nzw) = deep_columns(&pk.shapes[t]);
        let w = powers(lambda, offset + nz + nzw);
        let (weights_z, weights_zw) = w[offset..].split_at(nz);
        offset += nz + nzw;
        let o = &ood[t];
        let vz = o.pre.iter().chain(&o.main).chain(&o.aux).chain(&o.quotient);
        let vzw = o.pre_next.iter().chain(&o.main_next).chain(&o.aux_next);
        let sum_z = weights_z.iter().zip(vz).map(|(a, b)| *a * *b).sum();
        let sum_zw = weights_zw.iter().zip(vzw).map(|(a, b)| *a * *b).sum();
        let mut committed = Vec::with_capacity(4);
        if let Some((_, c, _)) = &pk.preprocessed[t] {
            committed.push(c);
        }
        committed.push(&main[t]);
        if let Some(a) = &aux[t] {
            committed.push(&a.committed);
        }
        committed.push(&quotient[t].committed);
        let d = DeepInputs {
            committed,
            weights_z,
            weights_zw,
            sum_z,
            sum_zw,
            zeta,
            zeta_next: zeta * two_adic(1 << log_heights[t]),
            log_lde: log_heights[t] as u32 + lb,
        };
        let cw = backend.deep_codeword(&d)?;
        match deep.entry(d.log_lde) {
            Entry::Vacant(e) => {
                e.insert(cw);
            }
            Entry::Occupied(mut e) => backend.add_scaled(e.get_mut(), Ext3::ONE, &cw)?,
        }
    }
    timings.mark("deep", &mut clock);

    // Round 6: FRI.
    let fri = FriShape::new(&params, &log_heights);
    // The first codeword: the sum of the largest tables' DEEP codewords.
    let mut cw = deep
        .remove(&fri.log_max_lde)
        .ok_or(ProverError::Internal("no table of the largest LDE size"))?;
    if backend.codeword_len(&cw) != 1 << fri.log_max_lde {
        return Err(ProverError::Internal("DEEP codeword length"));
    }
    let mut layers = Vec::with_capacity(fri.num_layers as usize);
    tr.label(b"fri");
    for l in 0..fri.num_layers {
        let layer = backend.commit_codeword(cw)?;
        tr.observe_digest(&backend.fri_root(&layer));
        let beta = tr.sample_ext();
        let mut folded = backend.fold_layer(&layer, beta, fri.layer_shift(l))?;
        if let Some(d) = deep.remove(&(fri.log_max_lde - l - 1)) {
            backend.add_scaled(&mut folded, beta.square(), &d)?;
        }
        layers.push(layer);
        cw = folded;
    }
    if !deep.is_empty() {
        return Err(ProverError::Internal("a DEEP codeword never joined FRI"));
    }
    let last = backend.final_values(cw)?;
    let final_poly = final_polynomial(
        &last,
        fri.layer_shift(fri.num_layers),
        1 << fri.log_final_len,
    )?;
    tr.observe_exts(&final_poly);
    timings.mark("fri", &mut clock);

    // Round 7: grinding, then queries.
    let challenge = tr.grinding_challenge();
    let pow_nonce = backend.grind(&challenge, params.pow_bits as u32)?;
    tr.observe_nonce(pow_nonce);
    timings.mark("grinding", &mut clock);
    tr.label(b"queries");
    // All positions first (nothing is observed between them), then one batch of openings
    // per committed matrix and per FRI layer.
    let positions: Vec<usize> = (0..params.num_queries)
        .map(|_| tr.sample_bits(fri.log_max_lde) as usize)
        .collect();
    let mut table_openings = Vec::with_capacity(tables.len());
    for t in 0..tables.len() {
        let shift = fri.log_max_lde - (log_heights[t] as u32 + lb);
        let rows: Vec<usize> = positions.iter().map(|q| q >> shift).collect();
        let mut per_matrix = Vec::with_capacity(4);
        if let Some((_, c, _)) = &pk.preprocessed[t] {
            per_matrix.push(backend.open_batch(c, &rows)?.into_iter());
        }
        per_matrix.push(backend.open_batch(&main[t], &rows)?.into_iter());
        if let Some(a) = &aux[t] {
            per_matrix.push(backend.open_batch(&a.committed, &rows)?.into_iter());
        }
        per_matrix.push(
            backend
                .open_batch(&quotient[t].committed, &rows)?
                .into_iter(),
        );
        table_openings.push(per_matrix);
    }
    let mut fri_openings = Vec::with_capacity(layers.len());
    for (l, layer) in layers.iter().enumerate() {
        let pos: Vec<usize> = positions.iter().map(|q| q >> l).collect();
        fri_openings.push(backend.open_fri_batch(layer, &pos)?.into_iter());
    }
    let missing = || ProverError::Internal("opening batch too short");
    let mut queries = Vec::with_capacity(positions.len());
    for _ in &positions {
        let tables = table_openings
            .iter_mut()
            .map(|ms| {
                ms.iter_mut()
                    .map(|m| m.next().ok_or_else(missing))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        let fri = fri_openings
            .iter_mut()
            .map(|o| {
                o.next()
                    .map(|(sibling, path)| FriStep { sibling, path })
                    .ok_or_else(missing)
            })
            .collect::<Result<Vec<_>, _>>()?;
        queries.push(QueryProof { tables, fri });
    }
    timings.mark("queries", &mut clock);

    let body = ProofBody {
        params,
        preprocessed_roots: pre_roots,
        log_heights,
        main_roots,
        totals,
        aux_roots,
        quotient_roots,
        ood,
        fri_roots: layers.iter().map(|l| backend.fri_root(l)).collect(),
        final_poly,
        pow_nonce,
        queries,
    };
    Ok((body, timings.timings))
}

/// Coefficients of the polynomial whose evaluations on `shift·H` (bit-reversed) are `cw`;
/// errors if its degree is not below `len`.
fn final_polynomial(cw: &[Ext3], shift: Felt, len: usize) -> Result<Vec<Ext3>, ProverError> {
    let mut m = RowMajorMatrix::new(cw.iter().flat_map(|e| e.coords()).collect(), 3);
    bit_reverse_rows(&mut m);
    let c = interpolate(&m);
    let inv = shift.inverse().ok_or(ProverError::Internal("zero shift"))?;
    let mut s = Felt::ONE;
    let mut out = Vec::with_capacity(c.height());
    for row in c.rows() {
        out.push(Ext3::new(row[0] * s, row[1] * s, row[2] * s));
        s *= inv;
    }
    if out[len..].iter().any(|v| *v != Ext3::ZERO) {
        return Err(ProverError::Internal(
            "FRI final polynomial degree too high",
        ));
    }
    out.truncate(len);
    Ok(out)
}
