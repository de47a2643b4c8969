//! The STARK protocol, prover side, generic over a [`Backend`].
//!
//! Rounds, as the protocol's schedule ([`kestrel_core::stark::Rounds`], shared with the
//! verifier) orders them: main commitment per table → LogUp challenges α, β → aux
//! commitments and totals → γ → quotient commitments → ζ → out-of-domain values → λ →
//! DEEP codewords → FRI layers (shorter tables join at the layer of their LDE size) →
//! final polynomial → grinding → query openings. Which matrices a table commits and opens,
//! and the DEEP weights, come from the same module ([`kestrel_core::stark::Matrix`],
//! [`kestrel_core::stark::deep_weights`]).

use std::collections::btree_map::{BTreeMap, Entry};
use std::time::{Duration, Instant};

use kestrel_core::air::{LogUpChallenges, Machine, TableAir, TableShape};
use kestrel_core::field::{powers, Ext3, Felt, Field};
use kestrel_core::keys::VerifyingKey;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::{meet, siblings_sent, Digest};
use kestrel_core::params::{StarkParams, MAX_LOG_HEIGHT, MIN_LOG_HEIGHT};
use kestrel_core::proof::{FriStep, ProofBody, QueryProof, TableOod};
use kestrel_core::stark::{deep_weights, FriShape, Matrix, RoundTreeShape, Rounds};

pub use crate::error::ProverError;

use crate::backend::{
    AuxCommitted, Backend, DeepInputs, DeviceTraces, MainTrace, QuotientCommitted, QuotientInputs,
    TablePlan,
};
use crate::cpu::ntt::{bit_reverse_rows, interpolate, two_adic};

/// Everything the prover derives once per statement and parameter set.
pub struct ProvingKey<B: Backend> {
    pub params: StarkParams,
    pub machine_name: String,
    pub shapes: Vec<TableShape>,
    /// Preprocessed trace, its commitment and log height, per table.
    pub preprocessed: Vec<Option<(RowMajorMatrix, B::Committed, u8)>>,
    /// The preprocessed round's tree (none without preprocessed tables) and its cap.
    pub preprocessed_tree: Option<B::RoundTree>,
    pub preprocessed_cap: Vec<Digest>,
    pub vk: VerifyingKey,
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
    let mut pre_tables = Vec::new();
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
                pre_tables.push((t, log_h as u8));
                Some((m, c, log_h as u8))
            }
            _ => None,
        };
        shapes.push(shape);
        preprocessed.push(pre);
    }
    let pre: Vec<&B::Committed> = preprocessed.iter().flatten().map(|(_, c, _)| c).collect();
    let preprocessed_tree = if pre.is_empty() {
        None
    } else {
        Some(backend.commit_round(&pre)?)
    };
    let preprocessed_cap = preprocessed_tree
        .as_ref()
        .map(|t| backend.round_cap(t))
        .unwrap_or_default();
    let vk = VerifyingKey::compute(
        machine.name(),
        &params,
        &shapes,
        pre_tables.iter().copied(),
        &preprocessed_cap,
    );
    Ok(ProvingKey {
        params,
        machine_name: machine.name().into(),
        shapes,
        preprocessed,
        preprocessed_tree,
        preprocessed_cap,
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
        Schedule::Whole,
        &mut |_| {},
        |t| backend.commit_trace(&traces[t], lb),
    )?
    .body()
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
    prove_scheduled(
        backend,
        pk,
        machine,
        traces,
        public,
        Schedule::Whole,
        observer,
    )?
    .body()
}

/// Phase 1 of a segmented run's part ([`kestrel_core::proof::SegmentedProof`]): its main
/// traces committed (and dropped); its heights and main cap, for
/// [`kestrel_core::stark::RunRounds::part_main`].
///
/// # Errors
/// As [`prove`].
pub fn part_main_cap<B: DeviceTraces>(
    backend: &B,
    pk: &ProvingKey<B>,
    machine: &dyn Machine,
    traces: Vec<MainTrace<B>>,
    public: &[Felt],
) -> Result<(Vec<u8>, Vec<Digest>), ProverError> {
    match prove_scheduled(
        backend,
        pk,
        machine,
        traces,
        public,
        Schedule::MainOnly,
        &mut |_| {},
    )? {
        Outcome::Main { log_heights, cap } => Ok((log_heights, cap)),
        Outcome::Body(_) => Err(ProverError::Internal("phase 1 made a proof")),
    }
}

/// Phase 2 of a segmented run's part: its main traces (the same as phase 1's) committed
/// again and proven under the run's shared LogUp challenges `ch`, on the part's own
/// transcript `rounds` ([`kestrel_core::stark::RunRounds::part`]).
///
/// # Errors
/// As [`prove`].
#[allow(clippy::too_many_arguments)]
pub fn prove_part<B: DeviceTraces>(
    backend: &B,
    pk: &ProvingKey<B>,
    machine: &dyn Machine,
    traces: Vec<MainTrace<B>>,
    public: &[Felt],
    ch: LogUpChallenges,
    rounds: Rounds,
    observer: &mut dyn FnMut(&'static str),
) -> Result<(ProofBody, ProveTimings), ProverError> {
    let schedule = Schedule::Part {
        ch,
        rounds: Box::new(rounds),
    };
    prove_scheduled(backend, pk, machine, traces, public, schedule, observer)?.body()
}

/// Which rounds a call proves.
enum Schedule {
    /// The whole protocol on its own transcript (format 9).
    Whole,
    /// The main round only: a segmented part's phase 1.
    MainOnly,
    /// Everything after the main round, under a segmented run's shared challenges.
    Part {
        ch: LogUpChallenges,
        rounds: Box<Rounds>,
    },
}

/// What a [`Schedule`] yields.
enum Outcome {
    Body(Box<(ProofBody, ProveTimings)>),
    Main {
        log_heights: Vec<u8>,
        cap: Vec<Digest>,
    },
}

impl Outcome {
    fn body(self) -> Result<(ProofBody, ProveTimings), ProverError> {
        match self {
            Outcome::Body(b) => Ok(*b),
            Outcome::Main { .. } => Err(ProverError::Internal("a main round without a proof")),
        }
    }
}

fn prove_scheduled<B: DeviceTraces>(
    backend: &B,
    pk: &ProvingKey<B>,
    machine: &dyn Machine,
    traces: Vec<MainTrace<B>>,
    public: &[Felt],
    schedule: Schedule,
    observer: &mut dyn FnMut(&'static str),
) -> Result<Outcome, ProverError> {
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
        schedule,
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
    schedule: Schedule,
    observer: &mut dyn FnMut(&'static str),
    mut commit_main: impl FnMut(usize) -> Result<B::Committed, ProverError>,
) -> Result<Outcome, ProverError> {
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
    // A segmented part's phase 1 comes before the run's public values are known.
    if !matches!(schedule, Schedule::MainOnly) && !machine.public_len_ok(public.len()) {
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
                why: "must be a power of two in [2^MIN_LOG_HEIGHT, 2^MAX_LOG_HEIGHT] (16 to 2^26 rows)",
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
    let pre_cap = pk.preprocessed_cap.clone();
    let p = Proving {
        backend,
        pk,
        tables,
        host,
        public,
        log_heights,
        lb,
    };

    let main = p.commit_main(&mut commit_main)?;
    timings.mark("commit main", &mut clock);
    let (ch, mut rounds) = match schedule {
        Schedule::Whole => {
            let mut rounds =
                Rounds::start(&pk.machine_name, &params, &pre_cap, &p.log_heights, public);
            (rounds.main(&main.cap), rounds)
        }
        Schedule::MainOnly => {
            return Ok(Outcome::Main {
                log_heights: p.log_heights,
                cap: main.cap,
            })
        }
        Schedule::Part { ch, rounds } => (ch, *rounds),
    };
    let aux = p.logup(&main, ch)?;
    timings.mark("logup aux", &mut clock);
    let gamma = rounds.aux(&aux.totals, &aux.cap);
    let quotient = p.quotient(&main, &aux, ch, gamma)?;
    timings.mark("quotient", &mut clock);
    let zeta = rounds.quotient(&quotient.cap);
    let ood = p.ood(&main, &aux, &quotient, zeta)?;
    timings.mark("ood", &mut clock);
    let lambda = rounds.ood(&ood);
    let committed = Committed {
        pk,
        main: &main,
        aux: &aux,
        quotient: &quotient,
    };
    let deep = p.deep(&committed, &ood, zeta, lambda)?;
    timings.mark("deep", &mut clock);
    let fri = FriShape::new(&params, &p.log_heights);
    let (layers, final_poly) = p.fri(&fri, deep, &mut rounds)?;
    let challenge = rounds.final_poly(&final_poly);
    timings.mark("fri", &mut clock);
    let pow_nonce = backend.grind(&challenge, params.pow_bits as u32)?;
    rounds.nonce(pow_nonce);
    timings.mark("grinding", &mut clock);
    // All positions first (nothing is observed between them), then the openings, in
    // increasing order of position (paths shared: `merkle::meet`).
    let mut positions: Vec<usize> = (0..params.num_queries)
        .map(|_| rounds.query(fri.log_max_lde))
        .collect();
    positions.sort_unstable();
    let queries = p.queries(&committed, &fri, &layers, &positions)?;
    timings.mark("queries", &mut clock);

    let body = ProofBody {
        params,
        preprocessed_cap: pre_cap,
        log_heights: p.log_heights,
        main_cap: main.cap,
        totals: aux.totals,
        aux_cap: aux.cap,
        quotient_cap: quotient.cap,
        ood,
        fri_caps: layers.iter().map(|l| backend.fri_cap(l)).collect(),
        final_poly,
        pow_nonce,
        queries,
    };
    Ok(Outcome::Body(Box::new((body, timings.timings))))
}

/// What every round reads: the backend, the key, the tables and their heights, the main
/// traces' host values (where they have any) and the public values.
struct Proving<'a, B: Backend> {
    backend: &'a B,
    pk: &'a ProvingKey<B>,
    tables: Vec<&'a dyn TableAir>,
    host: &'a [Option<&'a RowMajorMatrix>],
    public: &'a [Felt],
    log_heights: Vec<u8>,
    lb: u32,
}

/// Round 1's output: the main commitments, their round's tree and its cap.
struct MainRound<C, T> {
    committed: Vec<C>,
    tree: T,
    cap: Vec<Digest>,
}

/// Round 2's output: the LogUp aux commitments (tables with interactions), the totals in
/// proof order and per table (zero without interactions), the aux round's tree (none
/// without interactions) and its cap.
struct LogUpRound<C, T> {
    committed: Vec<Option<AuxCommitted<C>>>,
    totals: Vec<Ext3>,
    table_totals: Vec<Ext3>,
    tree: Option<T>,
    cap: Vec<Digest>,
}

/// Round 3's output: the quotient commitments, their round's tree and its cap.
struct QuotientRound<C, T> {
    committed: Vec<QuotientCommitted<C>>,
    tree: T,
    cap: Vec<Digest>,
}

/// Every committed matrix, for DEEP and the queries.
struct Committed<'a, B: Backend> {
    pk: &'a ProvingKey<B>,
    main: &'a MainRound<B::Committed, B::RoundTree>,
    aux: &'a LogUpRound<B::Committed, B::RoundTree>,
    quotient: &'a QuotientRound<B::Committed, B::RoundTree>,
}

impl<B: Backend> Committed<'_, B> {
    /// Table `t`'s committed matrix `m`.
    fn matrix(&self, t: usize, m: Matrix) -> Result<&B::Committed, ProverError> {
        match m {
            Matrix::Preprocessed => {
                self.pk.preprocessed[t]
                    .as_ref()
                    .map(|(_, c, _)| c)
                    .ok_or(ProverError::Internal(
                        "a preprocessed table without its trace",
                    ))
            }
            Matrix::Main => Ok(&self.main.committed[t]),
            Matrix::Aux => {
                self.aux.committed[t]
                    .as_ref()
                    .map(|a| &a.committed)
                    .ok_or(ProverError::Internal(
                        "a table with interactions without aux",
                    ))
            }
            Matrix::Quotient => Ok(&self.quotient.committed[t].committed),
        }
    }
}

impl<B: Backend> Proving<'_, B> {
    /// Round 1: every main trace committed, in table order.
    fn commit_main(
        &self,
        commit_main: &mut impl FnMut(usize) -> Result<B::Committed, ProverError>,
    ) -> Result<MainRound<B::Committed, B::RoundTree>, ProverError> {
        let committed: Vec<B::Committed> = (0..self.tables.len())
            .map(commit_main)
            .collect::<Result<_, _>>()?;
        let tree = self
            .backend
            .commit_round(&committed.iter().collect::<Vec<_>>())?;
        let cap = self.backend.round_cap(&tree);
        Ok(MainRound {
            committed,
            tree,
            cap,
        })
    }

    /// Round 2: the LogUp aux trace of every table with interactions, committed.
    fn logup(
        &self,
        main: &MainRound<B::Committed, B::RoundTree>,
        ch: LogUpChallenges,
    ) -> Result<LogUpRound<B::Committed, B::RoundTree>, ProverError> {
        let (backend, pk) = (self.backend, self.pk);
        let n = self.tables.len();
        let mut out = LogUpRound {
            committed: Vec::with_capacity(n),
            totals: Vec::new(),
            table_totals: vec![Ext3::ZERO; n],
            tree: None,
            cap: Vec::new(),
        };
        for (t, table) in self.tables.iter().enumerate() {
            let shape = &pk.shapes[t];
            if shape.num_interactions == 0 {
                out.committed.push(None);
                continue;
            }
            let pre = pk.preprocessed[t].as_ref().map(|(m, c, _)| (c, m));
            let a = backend.commit_logup_aux(
                *table,
                shape,
                (&main.committed[t], self.host[t]),
                pre,
                self.public,
                ch,
                self.lb,
            )?;
            out.totals.push(a.total);
            out.table_totals[t] = a.total;
            out.committed.push(Some(a));
        }
        let aux: Vec<&B::Committed> = out
            .committed
            .iter()
            .flatten()
            .map(|a| &a.committed)
            .collect();
        if !aux.is_empty() {
            let tree = backend.commit_round(&aux)?;
            out.cap = backend.round_cap(&tree);
            out.tree = Some(tree);
        }
        Ok(out)
    }

    /// Round 3: every table's quotient, committed.
    fn quotient(
        &self,
        main: &MainRound<B::Committed, B::RoundTree>,
        aux: &LogUpRound<B::Committed, B::RoundTree>,
        ch: LogUpChallenges,
        gamma: Ext3,
    ) -> Result<QuotientRound<B::Committed, B::RoundTree>, ProverError> {
        let pk = self.pk;
        let mut committed = Vec::with_capacity(self.tables.len());
        for (t, table) in self.tables.iter().enumerate() {
            let shape = &pk.shapes[t];
            let gamma_powers = powers(gamma, shape.num_constraints);
            let q = QuotientInputs {
                table: *table,
                shape,
                log_height: self.log_heights[t] as u32,
                log_blowup: self.lb,
                preprocessed: pk.preprocessed[t].as_ref().map(|(_, c, _)| c),
                main: &main.committed[t],
                aux: aux.committed[t].as_ref().map(|a| &a.committed),
                public: self.public,
                challenges: ch,
                total: aux.table_totals[t],
                gamma_powers: &gamma_powers,
            };
            committed.push(self.backend.commit_quotient(&q)?);
        }
        let tree = self.backend.commit_round(
            &committed
                .iter()
                .map(|c: &QuotientCommitted<B::Committed>| &c.committed)
                .collect::<Vec<_>>(),
        )?;
        let cap = self.backend.round_cap(&tree);
        Ok(QuotientRound {
            committed,
            tree,
            cap,
        })
    }

    /// Round 4: every committed column at `ζ` (and at `ζ·ω`, but the quotient's).
    fn ood(
        &self,
        main: &MainRound<B::Committed, B::RoundTree>,
        aux: &LogUpRound<B::Committed, B::RoundTree>,
        quotient: &QuotientRound<B::Committed, B::RoundTree>,
        zeta: Ext3,
    ) -> Result<Vec<TableOod>, ProverError> {
        let (backend, pk) = (self.backend, self.pk);
        let mut ood = Vec::with_capacity(self.tables.len());
        for t in 0..self.tables.len() {
            let zeta_next = zeta * two_adic(1 << self.log_heights[t]);
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
            let (main_z, main_next) = eval2(Some((&main.committed[t], self.host[t])))?;
            let (aux_z, aux_next) = eval2(
                aux.committed[t]
                    .as_ref()
                    .map(|a| (&a.committed, a.host.as_ref())),
            )?;
            let q = backend.evaluate_quotient(&quotient.committed[t], zeta)?;
            ood.push(TableOod {
                pre,
                pre_next,
                main: main_z,
                main_next,
                aux: aux_z,
                aux_next,
                quotient: q,
            });
        }
        Ok(ood)
    }

    /// Round 5: one DEEP codeword per LDE size. Each table's is added to its size's sum as
    /// soon as it is made (FRI adds a size's tables together anyway), so at most one is
    /// held per size.
    fn deep(
        &self,
        committed: &Committed<'_, B>,
        ood: &[TableOod],
        zeta: Ext3,
        lambda: Ext3,
    ) -> Result<BTreeMap<u32, B::Codeword>, ProverError> {
        let backend = self.backend;
        let mut deep: BTreeMap<u32, B::Codeword> = BTreeMap::new();
        let weights = deep_weights(lambda, &self.pk.shapes);
        for (t, w) in weights.iter().enumerate() {
            let (sum_z, sum_zw) = w.sums(&ood[t]);
            let d = DeepInputs {
                committed: Matrix::of(&self.pk.shapes[t])
                    .map(|m| committed.matrix(t, m))
                    .collect::<Result<Vec<_>, _>>()?,
                weights_z: &w.z,
                weights_zw: &w.zw,
                sum_z,
                sum_zw,
                zeta,
                zeta_next: zeta * two_adic(1 << self.log_heights[t]),
                log_lde: self.log_heights[t] as u32 + self.lb,
            };
            let cw = backend.deep_codeword(&d)?;
            match deep.entry(d.log_lde) {
                Entry::Vacant(e) => {
                    e.insert(cw);
                }
                Entry::Occupied(mut e) => backend.add_scaled(e.get_mut(), Ext3::ONE, &cw)?,
            }
        }
        Ok(deep)
    }

    /// Round 6: the FRI layers (shorter tables' codewords join at the layer of their LDE
    /// size) and the final polynomial.
    fn fri(
        &self,
        fri: &FriShape,
        mut deep: BTreeMap<u32, B::Codeword>,
        rounds: &mut Rounds,
    ) -> Result<(Vec<B::FriLayer>, Vec<Ext3>), ProverError> {
        let backend = self.backend;
        // The first codeword: the sum of the largest tables' DEEP codewords.
        let mut cw = deep
            .remove(&fri.log_max_lde)
            .ok_or(ProverError::Internal("no table of the largest LDE size"))?;
        if backend.codeword_len(&cw) != 1 << fri.log_max_lde {
            return Err(ProverError::Internal("DEEP codeword length"));
        }
        let mut layers = Vec::with_capacity(fri.num_layers as usize);
        for l in 0..fri.num_layers {
            let a = fri.log_arity(l);
            let layer = backend.commit_codeword(cw, a)?;
            let beta = rounds.fri_layer(&backend.fri_cap(&layer));
            let mut folded = backend.fold_layer(&layer, beta, fri.layer_shift(l))?;
            if let Some(d) = deep.remove(&fri.log_len(l + 1)) {
                backend.add_scaled(&mut folded, beta.exp_u64(1 << a), &d)?;
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
        Ok((layers, final_poly))
    }

    /// Round 7: the openings of every query: one batch per round tree and per FRI layer.
    fn queries(
        &self,
        committed: &Committed<'_, B>,
        fri: &FriShape,
        layers: &[B::FriLayer],
        positions: &[usize],
    ) -> Result<Vec<QueryProof>, ProverError> {
        let backend = self.backend;
        let shapes = &self.pk.shapes;
        let trees = [
            self.pk.preprocessed_tree.as_ref(),
            Some(&committed.main.tree),
            committed.aux.tree.as_ref(),
            Some(&committed.quotient.tree),
        ];
        // Per round: the openings, as iterators, and which tables have a matrix in it.
        let mut round_openings = Vec::with_capacity(4);
        // Per round tree: each query's leaf and the path's depth.
        let mut round_leaves = Vec::with_capacity(4);
        for (m, tree) in Matrix::ROUNDS.into_iter().zip(trees) {
            let tables: Vec<usize> = (0..shapes.len())
                .filter(|&t| m.in_table(&shapes[t]))
                .collect();
            let Some(tree) = tree else {
                if !tables.is_empty() {
                    return Err(ProverError::Internal("a round's tree is missing"));
                }
                continue;
            };
            let shape = RoundTreeShape::of(m, shapes, &self.log_heights, self.lb)
                .ok_or(ProverError::Internal("a round tree without matrices"))?;
            let matrices = tables
                .iter()
                .map(|&t| committed.matrix(t, m))
                .collect::<Result<Vec<_>, _>>()?;
            let indices: Vec<usize> = positions
                .iter()
                .map(|q| q >> (fri.log_max_lde - shape.log_leaves))
                .collect();
            let opened = backend.open_round(tree, &matrices, &indices)?;
            round_openings.push((m, tables, opened.into_iter()));
            round_leaves.push((indices, shape.path_len()));
        }
        let mut fri_openings = Vec::with_capacity(layers.len());
        for (l, layer) in layers.iter().enumerate() {
            let folds = fri.folds_before(l as u32);
            let pos: Vec<usize> = positions.iter().map(|q| q >> folds).collect();
            fri_openings.push(backend.open_fri_batch(layer, &pos)?.into_iter());
        }
        let missing = || ProverError::Internal("opening batch too short");
        let mut queries = Vec::with_capacity(positions.len());
        for _ in positions {
            let mut tables: Vec<Vec<Vec<Felt>>> = shapes
                .iter()
                .map(|s| Vec::with_capacity(Matrix::of(s).count()))
                .collect();
            let mut paths = Vec::with_capacity(round_openings.len());
            // Rounds in order, so each table's rows come out in round order.
            for (_, ts, opened) in &mut round_openings {
                let (rows, path) = opened.next().ok_or_else(missing)?;
                if rows.len() != ts.len() {
                    return Err(missing());
                }
                for (&t, row) in ts.iter().zip(rows) {
                    tables[t].push(row);
                }
                paths.push(path);
            }
            let fri = fri_openings
                .iter_mut()
                .map(|o| {
                    o.next()
                        .map(|(siblings, path)| FriStep { siblings, path })
                        .ok_or_else(missing)
                })
                .collect::<Result<Vec<_>, _>>()?;
            queries.push(QueryProof { tables, paths, fri });
        }
        // Each path from the leaf up to where it meets the previous query's.
        let fri_leaves: Vec<(Vec<usize>, usize)> = (0..layers.len() as u32)
            .map(|l| {
                let shift = fri.folds_before(l) + fri.log_arity(l);
                let leaves = positions.iter().map(|q| q >> shift).collect();
                (leaves, fri.path_len(l))
            })
            .collect();
        // A table row the previous query opened is not sent again.
        for (k, q) in queries.iter_mut().enumerate() {
            let prev = k.checked_sub(1).map(|p| positions[p]);
            for (rows, &h) in q.tables.iter_mut().zip(&self.log_heights) {
                if fri.same_row(prev, positions[k], h as u32 + self.lb) {
                    rows.clear();
                }
            }
            let sent = |(leaves, depth): &(Vec<usize>, usize)| {
                let prev = k.checked_sub(1).map(|p| leaves[p]);
                siblings_sent(meet(prev, leaves[k], *depth), *depth)
            };
            for (path, tree) in q.paths.iter_mut().zip(&round_leaves) {
                path.truncate(sent(tree));
            }
            for (step, layer) in q.fri.iter_mut().zip(&fri_leaves) {
                step.path.truncate(sent(layer));
            }
        }
        Ok(queries)
    }
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
