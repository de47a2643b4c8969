//! Segmented proving: a run of any length in memory set by the segment, not by the run.
//!
//! The run is cut into segments of `2^segment_log` cycles (the last may be shorter). Each
//! segment is proven by a part of the per-segment tables, and one run part proves the
//! per-run tables ([`kestrel_core::air::SegmentLayout`]); all parts share the LogUp
//! challenges, drawn after every part's main commitment ([`RunRounds`]), so the prover works
//! in two phases over the run:
//!
//! 1. **Commit.** Execute and pack each segment, commit its main traces, keep only the cap
//!    (and the replay state the next segment needs); after the last segment, build and
//!    commit the run part's traces.
//! 2. **Prove.** Draw the shared challenges; execute and pack each segment again from the
//!    start (the executor and the packing pass are deterministic: the same traces, which
//!    the prover checks against phase 1's caps), and prove it to the end on its own
//!    transcript; then the run part.
//!
//! Re-executing is what keeps memory flat: spilling what phase 2 needs instead would
//! write every segment's main traces (about 3.5 KB per cycle, `--stats`' column counts) to
//! disk, 940 GB for 2^28 cycles, while executing and packing a segment again costs a small
//! part of proving it. In each phase a producer thread executes and packs the next segment
//! while the backend commits or proves this one; at most two segments' records are held at
//! once.
//!
//! **Several backends** (all the GPUs of one host, or several backends sharing one): each
//! part's proof depends only on its traces, the shared challenges and its own transcript
//! ([`RunRounds::part`]), so segments are committed and proven on different backends at
//! once and the proof is the same bytes. One worker thread per backend, each with its own
//! proving key (all giving the same verifying key), takes the next segment the producer
//! hands over, whichever worker is free; results are put back in segment order. The
//! producer (one executor) stays a segment ahead through a channel of one place per
//! backend, so at most one segment per backend is queued, one per backend worked on and
//! one executed: memory grows with the number of backends, not with the run. The run part
//! (small) is committed and proven on the first backend. The first failure stops every
//! thread and is returned. [`SegmentedRun::backends`] says what each backend did, and
//! [`SegmentedRun::backends_fed`] how many backends one executor can keep busy.
//!
//! The run's roofline ([`SegmentedRun::shape`], [`crate::roofline`]) counts each part's
//! least work once, while the time of each stage in [`SegmentedRun::phases`] is summed over
//! both phases: `commit main` is phase 1's and phase 2's commitments, `trace` the packing
//! (on the producer thread) and the fills in both phases, and the run part's tables (built
//! once, in phase 1); with several backends, summed over them (the total work, not the
//! wall time).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use kestrel_core::air::{LogUpChallenges, Machine, Part, SegmentLayout, TableShape};
use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::params::StarkParams;
use kestrel_core::proof::{ProofBody, SegmentedProof};
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::machine::{PackedTraces, RunTraces, Rv64Machine, TraceError, RECORD_TABLES};
use kestrel_core::rv::pack::{Lookups, Segmenter};
use kestrel_core::rv::table::TableId;
use kestrel_core::stark::RunRounds;

use crate::backend::DeviceTraces;
use crate::backend::MainTrace;
use crate::error::ProverError;
use crate::par::{Rayon, StageClock};
use crate::prover::{part_main_cap, prove_part, setup, ProveTimings, ProvingKey};
use crate::roofline::{PartShape, ProofShape, TableDims};
use crate::rv::{distinct_rows_agree, machine_for, program_image, RvFills};
use crate::vm::record::{mapped_records, Record, SliceRecorder};
use crate::vm::{Program, Vm, VmError};

/// Why a segmented proof failed.
#[derive(Debug, thiserror::Error)]
pub enum SegmentedError {
    #[error("{0}")]
    Run(VmError),
    #[error("{0}")]
    Trace(TraceError),
    #[error("{phase}: {source}")]
    Prove {
        phase: &'static str,
        source: ProverError,
    },
    #[error("{0}")]
    Internal(String),
}

/// Where a segmented proof is: given to the progress callback after each part.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentProgress {
    /// 1: committing; 2: proving.
    pub phase: u8,
    /// Parts done in this phase (segments, then the run part), of `total`.
    pub done: usize,
    pub total: usize,
    /// Cycles of the segments done in this phase.
    pub cycles_done: u64,
    /// Since the proof began.
    pub elapsed: Duration,
    /// The time both phases have left at the rate reached so far.
    pub time_left: Option<Duration>,
}

/// A segmented run's proof and what it took.
pub struct SegmentedRun {
    pub proof: SegmentedProof,
    pub public: Vec<Felt>,
    pub vk: VerifyingKey,
    pub segments: usize,
    /// Milliseconds per phase name, summed over parts, both phases and every backend (the
    /// total work, not the wall time): `execute+pack` (the producer's, overlapped with the
    /// rest), `trace` (building the main traces from the records: the producer's packing,
    /// the fills, the run part's tables), `fill`, then the prover's phases
    /// ([`crate::roofline::STAGES`] after `trace`).
    pub phases: Vec<(String, f64)>,
    /// Wall time of phase 1 and of phase 2.
    pub phase_seconds: [f64; 2],
    /// The segments' traces, each table's rows and real rows summed over every segment, then
    /// the run part's: (table, rows, columns, real rows).
    pub tables: Vec<(TableId, usize, usize, Option<usize>)>,
    /// Every part's shape as the roofline model reads it (the segments', then the run
    /// part's), its least work counted once.
    pub shape: ProofShape,
    /// What each backend did, in the order given.
    pub backends: Vec<BackendWork>,
    /// The executor's rate: the run's cycles in both phases per second of the producer's
    /// execute+pack time (with packers: its time recording each segment and running ahead
    /// through it), in MHz.
    pub executor_mhz: f64,
    /// How many backends the producer keeps busy: the workers' mean time per segment
    /// (both phases) over the producer's mean time per segment (both phases; with
    /// packers, the larger of the executor's and the packing's over the packers). Below
    /// the number of backends, the producer is what holds the proof back.
    pub backends_fed: f64,
    /// Threads packing segments from checkpoints (1: the executor packs them in order).
    pub packers: usize,
    /// One packer's rate: the run's cycles in both phases per second of packing, in MHz.
    pub packing_mhz: f64,
}

/// What one backend did in a segmented proof ([`SegmentedRun::backends`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct BackendWork {
    /// Segments whose main traces it committed (phase 1).
    pub committed: usize,
    /// Segments it proved (phase 2).
    pub proved: usize,
    /// Seconds it worked: its segments' fills, commitments and proofs in both phases, and
    /// on the first backend the run part's commitment and proof.
    pub busy_seconds: f64,
}

/// The verifying key of the whole machine (what `kestrel vk` derives) from the parts' keys:
/// every table's shape, the run part's preprocessed tables and cap.
fn machine_vk<B: RvFills>(
    machine: &Rv64Machine,
    layout: &SegmentLayout,
    seg: &ProvingKey<B>,
    run: &ProvingKey<B>,
    params: &StarkParams,
) -> VerifyingKey {
    let mut shapes: Vec<Option<TableShape>> = vec![None; layout.segment.len() + layout.run.len()];
    for (list, pk) in [(&layout.segment, seg), (&layout.run, run)] {
        for (&t, s) in list.iter().zip(&pk.shapes) {
            shapes[t] = Some(s.clone());
        }
    }
    let shapes: Vec<TableShape> = shapes.into_iter().flatten().collect();
    let pre = layout
        .run
        .iter()
        .zip(&run.preprocessed)
        .filter_map(|(&t, p)| p.as_ref().map(|(_, _, h)| (t, *h)));
    VerifyingKey::compute(machine.name(), params, &shapes, pre, &run.preprocessed_cap)
}

/// A segment as the producer hands it over.
pub(crate) struct Packed {
    pub(crate) packed: PackedTraces,
    pub(crate) cycles: u64,
    /// Bytes of its execution records.
    pub(crate) record_bytes: u64,
    /// Executing and packing it.
    pub(crate) took: Duration,
    /// Packing it.
    pub(crate) pack: Duration,
    /// The packing pass's stages and their times.
    pub(crate) pack_stages: Vec<(&'static str, Duration)>,
}

/// The one executor of a segmented run: executes the run segment by segment and packs each
/// ([`Segmenter::pack_segment`], which carries the replay state from one segment to the
/// next, so segments come out in order), then builds the run part's tables
/// ([`SegmentProducer::finish`]). Holds one segment's records at a time.
pub(crate) struct SegmentProducer<'a> {
    seg: Segmenter<'a>,
    vm: Vm,
    /// Room for one segment's records, mapped once and written in place each segment
    /// ([`SliceRecorder`]).
    records: Vec<Record>,
    par: Rayon,
    /// The next segment's index, and how many there are.
    next: usize,
    segments: usize,
    segment: u64,
}

impl<'a> SegmentProducer<'a> {
    /// The producer of a run of `total_cycles` cycles (its length, from an unrecorded run)
    /// in segments of `segment` cycles.
    ///
    /// # Errors
    /// [`SegmentedError::Trace`] if the input is too long to pack.
    pub(crate) fn new(
        program: &Program,
        machine: &'a Rv64Machine,
        image: &'a ProgramImage,
        input: &'a [u8],
        total_cycles: u64,
        segment: u64,
    ) -> Result<SegmentProducer<'a>, SegmentedError> {
        Ok(SegmentProducer {
            seg: Segmenter::new(machine, image, input).map_err(SegmentedError::Trace)?,
            vm: Vm::new(program, input.to_vec()).with_max_cycles(total_cycles),
            records: mapped_records(segment as usize),
            par: Rayon::default(),
            next: 0,
            segments: total_cycles.div_ceil(segment) as usize,
            segment,
        })
    }

    /// The next segment, executed and packed; `None` after the last.
    ///
    /// # Errors
    /// The run failed, ended in another segment than its length says, or its packing
    /// failed.
    pub(crate) fn next_segment(&mut self) -> Option<Result<Packed, SegmentedError>> {
        let k = self.next;
        if k >= self.segments {
            return None;
        }
        self.next += 1;
        Some(self.pack(k))
    }

    fn pack(&mut self, k: usize) -> Result<Packed, SegmentedError> {
        let start = Instant::now();
        let (len, last) = record_segment(
            &mut self.vm,
            &mut self.records,
            k,
            self.segments,
            self.segment,
        )?;
        let records = &self.records[..len];
        let packing = Instant::now();
        let par = StageClock::new(self.par);
        let packed = self
            .seg
            .pack_segment(&par, records, last)
            .map_err(SegmentedError::Trace)?;
        Ok(Packed {
            packed,
            cycles: records.len() as u64,
            record_bytes: std::mem::size_of_val(records) as u64,
            took: start.elapsed(),
            pack: packing.elapsed(),
            pack_stages: par.stages(),
        })
    }

    /// The run part's tables, after the last segment.
    ///
    /// # Errors
    /// [`SegmentedError::Internal`] before the last segment, [`SegmentedError::Trace`] if
    /// building them failed.
    pub(crate) fn finish(self) -> Result<RunTraces, SegmentedError> {
        if self.next < self.segments {
            return Err(SegmentedError::Internal(format!(
                "the run tables asked for after {} of {} segments",
                self.next, self.segments
            )));
        }
        self.seg.finish(&self.par).map_err(SegmentedError::Trace)
    }
}

/// A part's heights and main cap: what phase 1 commits it to
/// ([`RunRounds::part_main`]).
pub type Head = (Vec<u8>, Vec<Digest>);

/// A program's machine split into its segment part and its run part
/// ([`SegmentLayout`]): what every phase of a segmented proof works on, in one process or
/// spread over many ([`crate::dist`]).
pub(crate) struct SegmentedMachine {
    pub(crate) image: ProgramImage,
    pub(crate) machine: Rv64Machine,
    pub(crate) layout: SegmentLayout,
}

impl SegmentedMachine {
    /// The machine of `program`.
    ///
    /// # Errors
    /// [`SegmentedError::Internal`] if the machine has no segment layout.
    pub(crate) fn new(program: &Program) -> Result<SegmentedMachine, SegmentedError> {
        let image = program_image(program);
        let machine = machine_for(&image);
        let layout = machine
            .segment_layout()
            .ok_or_else(|| SegmentedError::Internal("the machine has no segment layout".into()))?;
        Ok(SegmentedMachine {
            image,
            machine,
            layout,
        })
    }

    /// The tables every segment proves.
    pub(crate) fn seg_part(&self) -> Part<'_> {
        Part {
            machine: &self.machine,
            tables: &self.layout.segment,
        }
    }

    /// The tables the run part proves.
    pub(crate) fn run_part(&self) -> Part<'_> {
        Part {
            machine: &self.machine,
            tables: &self.layout.run,
        }
    }

    /// The segment part's proving key on `backend`.
    ///
    /// # Errors
    /// [`SegmentedError::Prove`] (`setup`).
    pub(crate) fn seg_key<B: RvFills>(
        &self,
        backend: &B,
        params: StarkParams,
    ) -> Result<ProvingKey<B>, SegmentedError> {
        setup(backend, &self.seg_part(), params).map_err(prove_err("setup"))
    }

    /// The run part's proving key on `backend`.
    ///
    /// # Errors
    /// [`SegmentedError::Prove`] (`setup`).
    pub(crate) fn run_key<B: RvFills>(
        &self,
        backend: &B,
        params: StarkParams,
    ) -> Result<ProvingKey<B>, SegmentedError> {
        setup(backend, &self.run_part(), params).map_err(prove_err("setup"))
    }

    /// The whole machine's verifying key from the parts' keys.
    pub(crate) fn vk<B: RvFills>(
        &self,
        seg: &ProvingKey<B>,
        run: &ProvingKey<B>,
        params: &StarkParams,
    ) -> VerifyingKey {
        machine_vk(&self.machine, &self.layout, seg, run, params)
    }

    /// Phase 1 of a segment: its main traces committed.
    ///
    /// # Errors
    /// [`SegmentedError::Prove`] (`commit main`).
    pub(crate) fn commit_segment<B: RvFills>(
        &self,
        backend: &B,
        pk: &ProvingKey<B>,
        traces: Vec<MainTrace<B>>,
    ) -> Result<Head, SegmentedError> {
        part_main_cap(backend, pk, &self.seg_part(), traces, &[]).map_err(prove_err("commit main"))
    }

    /// Phase 1 of the run part: its main traces (host traces in the layout's order, from
    /// [`run_host_traces`]) committed with the run's public values.
    ///
    /// # Errors
    /// [`SegmentedError::Prove`] (`commit main`).
    pub(crate) fn commit_run<B: RvFills>(
        &self,
        backend: &B,
        pk: &ProvingKey<B>,
        run_host: &[RowMajorMatrix],
        public: &[Felt],
    ) -> Result<Head, SegmentedError> {
        part_main_cap(backend, pk, &self.run_part(), host_traces(run_host), public)
            .map_err(prove_err("commit main"))
    }

    /// The run tables' host traces in the layout's order, the public values and the real
    /// rows, from the [`Segmenter`]'s run tables.
    ///
    /// # Errors
    /// [`SegmentedError::Internal`] if a run table has no trace.
    pub(crate) fn run_host_traces(&self, run: RunTraces) -> Result<RunHost, SegmentedError> {
        let RunTraces {
            traces: mut run_traces,
            public,
            table_rows,
            // Segmented runs count their lookups on the host: BITWISE has its trace.
            run_lookups: _,
            records: _,
        } = run;
        let host =
            self.layout
                .run
                .iter()
                .map(|&t| {
                    run_traces.get_mut(t).and_then(Option::take).ok_or_else(|| {
                        SegmentedError::Internal(format!("run table {t} has no trace"))
                    })
                })
                .collect::<Result<_, _>>()?;
        Ok((host, public, table_rows))
    }
}

/// The run tables' host traces in the layout's order, the public values and the real rows.
pub(crate) type RunHost = (Vec<RowMajorMatrix>, Vec<Felt>, Vec<Option<usize>>);

/// Host traces as the prover takes them.
pub(crate) fn host_traces<B: DeviceTraces>(ms: &[RowMajorMatrix]) -> Vec<MainTrace<B>> {
    ms.iter().cloned().map(MainTrace::Host).collect()
}

fn prove_err(phase: &'static str) -> impl Fn(crate::error::ProverError) -> SegmentedError {
    move |source| SegmentedError::Prove { phase, source }
}

/// The shared challenges of a segmented run, drawn from every part's [`Head`], and what
/// phase 2 checks against them: each part's proof must commit to its phase-1 head.
pub(crate) struct SharedRounds {
    rounds: RunRounds,
    ch: LogUpChallenges,
    heads: Vec<Head>,
}

impl SharedRounds {
    /// The run's transcript on the statement (the machine's name, the parameters, the run
    /// part's preprocessed cap, the public values, the number of parts) and every part's
    /// head in order (the segments', then the run part's), and the challenges drawn.
    pub(crate) fn draw(
        machine: &str,
        params: &StarkParams,
        preprocessed_cap: &[Digest],
        public: &[Felt],
        heads: Vec<Head>,
    ) -> SharedRounds {
        let mut rounds = RunRounds::start(machine, params, preprocessed_cap, public, heads.len());
        for (h, cap) in &heads {
            rounds.part_main(h, cap);
        }
        let ch = rounds.challenges();
        SharedRounds { rounds, ch, heads }
    }

    /// Checks that part `k`'s proof commits to its phase-1 head.
    ///
    /// # Errors
    /// [`SegmentedError::Internal`] naming the part.
    pub(crate) fn check(&self, k: usize, body: &ProofBody) -> Result<(), SegmentedError> {
        let (h, cap) = self
            .heads
            .get(k)
            .ok_or_else(|| SegmentedError::Internal(format!("part {k} has no commitment")))?;
        if body.log_heights != *h || body.main_cap != *cap {
            return Err(SegmentedError::Internal(format!(
                "part {k} committed other traces the second time"
            )));
        }
        Ok(())
    }

    /// Phase 2 of part `k` (of `part`'s tables): proven under the shared challenges on its
    /// own transcript, and checked against its head.
    ///
    /// # Errors
    /// [`SegmentedError::Prove`] (`prove`), or the check's.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prove<B: RvFills>(
        &self,
        backend: &B,
        pk: &ProvingKey<B>,
        part: &Part<'_>,
        traces: Vec<MainTrace<B>>,
        public: &[Felt],
        k: usize,
    ) -> Result<(ProofBody, ProveTimings), SegmentedError> {
        let (body, t) = prove_part(
            backend,
            pk,
            part,
            traces,
            public,
            self.ch,
            self.rounds.part(k),
            &mut |_| {},
        )
        .map_err(prove_err("prove"))?;
        self.check(k, &body)?;
        Ok((body, t))
    }
}

/// What the producer returns: the run tables (when asked for) and the time they took
/// (`None`: it stopped early; a worker says why).
type Produced = Option<(Option<RunTraces>, Duration)>;

/// What a worker made of one segment in one phase.
struct SegmentDone<T> {
    /// The segment's index in the run.
    index: usize,
    /// The backend (its index) that worked on it.
    worker: usize,
    out: T,
    /// Milliseconds per phase name the work took (see [`SegmentedRun::phases`]).
    phases: Vec<(String, f64)>,
    cycles: u64,
    /// The producer's time executing and packing it (from checkpoints: recording it and
    /// running ahead through it).
    took: Duration,
    /// Packing it.
    pack: Duration,
    /// The worker's time on it, from taking it to the end of its work.
    busy: Duration,
}

/// One phase's segments (by index), and the run tables when asked for and their time.
struct PhaseDone<T> {
    segments: Vec<SegmentDone<T>>,
    run: Option<RunTraces>,
    built: Duration,
}

/// The work of a phase on one segment: given the backend's index, the segment's index, the
/// packed segment and the phases' times to add to; run on the backend's worker thread.
type SegmentWork<'a, T> =
    dyn Fn(usize, usize, Packed, &mut Vec<(String, f64)>) -> Result<T, SegmentedError> + Sync + 'a;

/// Locks the producer's channel, poisoned or not (a panicking worker holds nothing the
/// others cannot use: the receiver or nothing).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Executes the run segment by segment on a producer thread, packing each, and hands the
/// packed segments in order to `workers` worker threads (one per backend) through a channel
/// of `workers` places: any idle worker takes the next segment and runs `work` on it. At
/// most `workers` segments are queued, `workers` worked on and one executed at once, so
/// memory is bounded by the number of backends, not by the run. `done` is called on this
/// thread as each segment is done, in the order they finish. Returns every segment's work
/// by index, and the [`Segmenter`]'s run tables after the last segment (with `finish`;
/// phase 2 needs none) and the time they took.
///
/// The first failure stops the phase: the failing worker drops the channel's receiver, so
/// the producer's next hand-over fails and it stops; the other workers finish the segment
/// in hand and stop. This function waits for every thread and returns the failure (a
/// worker's before the producer's).
fn for_each_segment<T: Send>(
    workers: usize,
    packers: usize,
    feed: Feed<'_>,
    work: &SegmentWork<'_, T>,
    done: &mut dyn FnMut(&SegmentDone<T>),
) -> Result<PhaseDone<T>, SegmentedError> {
    let n_seg = feed.segments();
    let (tx, rx) = mpsc::sync_channel::<(usize, Result<Packed, SegmentedError>)>(workers);
    let rx = Mutex::new(Some(rx));
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || feed.run(packers, tx));
        let (done_tx, done_rx) = mpsc::channel::<Result<SegmentDone<T>, SegmentedError>>();
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let done_tx = done_tx.clone();
                let (rx, stop) = (&rx, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let next = lock(rx).as_ref().and_then(|r| r.recv().ok());
                        let Some((index, item)) = next else { break };
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let start = Instant::now();
                        let mut phases = Vec::new();
                        let result = item.and_then(|p| {
                            let (cycles, took, pack) = (p.cycles, p.took, p.pack);
                            let out = work(w, index, p, &mut phases)?;
                            Ok(SegmentDone {
                                index,
                                worker: w,
                                out,
                                phases,
                                cycles,
                                took,
                                pack,
                                busy: start.elapsed(),
                            })
                        });
                        let failed = result.is_err();
                        if failed {
                            stop.store(true, Ordering::Relaxed);
                            // Without a receiver the producer's next hand-over fails.
                            drop(lock(rx).take());
                        }
                        if done_tx.send(result).is_err() || failed {
                            break;
                        }
                    }
                })
            })
            .collect();
        drop(done_tx);
        let mut slots: Vec<Option<SegmentDone<T>>> = (0..n_seg).map(|_| None).collect();
        let mut failed = None;
        // Until every worker has ended (each holds a sender).
        for result in done_rx.iter() {
            match result {
                Ok(d) => {
                    done(&d);
                    if let Some(slot) = slots.get_mut(d.index) {
                        *slot = Some(d);
                    }
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        // No worker is left to take a segment (even one that panicked): the producer must
        // not wait on a hand-over.
        drop(lock(&rx).take());
        // Every worker joined (one not joined that panicked would panic the scope).
        let mut panicked = false;
        for h in handles {
            panicked |= h.join().is_err();
        }
        let produced = producer.join();
        if let Some(e) = failed {
            return Err(e);
        }
        if panicked {
            return Err(SegmentedError::Internal("a prover thread panicked".into()));
        }
        let produced = produced
            .map_err(|_| SegmentedError::Internal("the executor thread panicked".into()))?;
        let (run, built) =
            produced?.ok_or_else(|| SegmentedError::Internal("the run ended early".into()))?;
        let segments = slots
            .into_iter()
            .enumerate()
            .map(|(k, s)| {
                s.ok_or_else(|| SegmentedError::Internal(format!("segment {k} was not done")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PhaseDone {
            segments,
            run,
            built,
        })
    })
}

/// Every segment of `feed`'s run (which builds the run tables: `finish`) packed, with
/// `packers` threads from checkpoints ([`Feed::checkpointed`]; 1: in order,
/// [`Feed::in_order`]), each handed to `each(k, packed)` as its packing ends (in any order
/// with more than one packer; on `packers` threads at once), then the run tables: what
/// `kestrel dist pack` writes. The first failure, the run's or `each`'s, stops the
/// producer and is returned.
///
/// # Errors
/// The run or its packing failed, or `each` did.
pub(crate) fn pack_run<E: From<SegmentedError> + Send>(
    packers: usize,
    feed: Feed<'_>,
    each: &(dyn Fn(usize, Packed) -> Result<(), E> + Sync),
) -> Result<RunTraces, E> {
    let (tx, rx) = mpsc::sync_channel::<(usize, Result<Packed, SegmentedError>)>(packers.max(1));
    // Taken by the first consumer that fails: the producer's next hand-over then fails.
    let rx = Mutex::new(Some(rx));
    let failed: Mutex<Option<E>> = Mutex::new(None);
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || feed.run(packers, tx));
        // `each` runs on as many threads as there are packers (e.g. encoding and writing
        // each segment's file beside the packing of the next ones).
        let consumers: Vec<_> = (0..packers.max(1))
            .map(|_| {
                let (rx, failed) = (&rx, &failed);
                scope.spawn(move || loop {
                    let next = lock(rx).as_ref().and_then(|r| r.recv().ok());
                    let Some((k, item)) = next else { break };
                    if let Err(e) = item.map_err(E::from).and_then(|p| each(k, p)) {
                        lock(failed).get_or_insert(e);
                        drop(lock(rx).take());
                        break;
                    }
                })
            })
            .collect();
        let mut panicked = false;
        for c in consumers {
            panicked |= c.join().is_err();
        }
        // No consumer is left: the producer must not wait on a hand-over.
        drop(lock(&rx).take());
        let produced = producer.join();
        if let Some(e) = lock(&failed).take() {
            return Err(e);
        }
        if panicked {
            return Err(
                SegmentedError::Internal("a packed segment's consumer panicked".into()).into(),
            );
        }
        let produced = produced
            .map_err(|_| SegmentedError::Internal("the executor thread panicked".into()))?;
        let (run, _) =
            produced?.ok_or_else(|| SegmentedError::Internal("the run ended early".into()))?;
        Ok(run.ok_or_else(|| SegmentedError::Internal("no run tables".into()))?)
    })
}

/// What the producer of a phase executes and packs: the run, its segment length, and
/// whether it builds the run tables after the last segment.
pub(crate) struct Feed<'a> {
    pub(crate) program: &'a Program,
    pub(crate) machine: &'a Rv64Machine,
    pub(crate) image: &'a ProgramImage,
    pub(crate) input: &'a [u8],
    pub(crate) total_cycles: u64,
    pub(crate) segment: u64,
    pub(crate) finish: bool,
}

/// Where the producer hands each segment (by index) over to the workers.
type Handover = mpsc::SyncSender<(usize, Result<Packed, SegmentedError>)>;

/// A segment recorded by the checkpointed producer's executor: its index, records (and
/// how many), whether it is the last, and the time recording it took.
type Recorded = (usize, Vec<Record>, usize, bool, Duration);

/// A segment recorded by the checkpointed producer, and the checkpoint that packs it.
struct Checkpoint<'a> {
    index: usize,
    records: Vec<Record>,
    len: usize,
    last: bool,
    fork: Segmenter<'a>,
    /// The slower of recording it and running ahead through it (the executor's two
    /// stages run at once, on consecutive segments).
    took: Duration,
}

impl<'a> Feed<'a> {
    /// The run's segments.
    fn segments(&self) -> usize {
        self.total_cycles.div_ceil(self.segment) as usize
    }

    /// Produces the segments with `packers` threads from checkpoints
    /// ([`Feed::checkpointed`]), or in order with one ([`Feed::in_order`]).
    fn run(self, packers: usize, tx: Handover) -> Result<Produced, SegmentedError> {
        if packers > 1 {
            self.checkpointed(packers, tx)
        } else {
            self.in_order(tx)
        }
    }

    /// One executor packing the segments in order ([`SegmentProducer`]).
    fn in_order(self, tx: Handover) -> Result<Produced, SegmentedError> {
        let n_seg = self.segments();
        let mut producer = SegmentProducer::new(
            self.program,
            self.machine,
            self.image,
            self.input,
            self.total_cycles,
            self.segment,
        )?;
        for k in 0..n_seg {
            let item = producer.next_segment().unwrap_or_else(|| {
                Err(SegmentedError::Internal(format!(
                    "segment {k} was not produced"
                )))
            });
            let failed = item.is_err();
            if tx.send((k, item)).is_err() || failed {
                // The workers stopped (one says why), or this segment failed (sent).
                return Ok(None);
            }
        }
        drop(tx);
        if !self.finish {
            return Ok(Some((None, Duration::ZERO)));
        }
        let start = Instant::now();
        let run = producer.finish()?;
        Ok(Some((Some(run), start.elapsed())))
    }

    /// One executor running ahead through checkpoints, `packers` threads packing the
    /// segments from them at once ([`Segmenter::fork`]): the executor records each segment
    /// on this thread while a second replays the one recorded before for the next
    /// segment's replay state alone (device lookups: the parallel replay, no tables),
    /// forking the segmenter before it; a packer packs it from that fork and hands it over,
    /// so segments are handed over in the order their packing ends. After the last, a fork
    /// of the executor's segmenter absorbs the packed segments' totals (added up as each
    /// packer finishes, its fork then dropped) and builds the run tables:
    /// the same traces as [`Feed::in_order`]. At most `2·packers + 3` segments' records are
    /// held (recorded, replayed, queued, packed).
    fn checkpointed(self, packers: usize, tx: Handover) -> Result<Produced, SegmentedError> {
        let Feed {
            program,
            machine,
            image,
            input,
            total_cycles,
            segment,
            finish,
        } = self;
        let n_seg = self.segments();
        let par = Rayon::default();
        let mut ahead = Segmenter::new(machine, image, input)
            .map_err(SegmentedError::Trace)?
            .with_lookups(Lookups::Device);
        let mut vm = Vm::new(program, input.to_vec()).with_max_cycles(total_cycles);
        let (job_tx, job_rx) = mpsc::sync_channel::<Checkpoint<'_>>(packers);
        // Held by the packers alone: once every packer has stopped, a hand-over fails.
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (buf_tx, buf_rx) = mpsc::channel::<Vec<Record>>();
        // Every packed segment's totals, added as each packer finishes (its fork, with a
        // copy of the replay state, is then dropped): memory stays bounded by the packers.
        let totals = Mutex::new(ahead.fork(Lookups::Host));
        let stop = AtomicBool::new(false);
        let led = std::thread::scope(|scope| {
            for _ in 0..packers {
                let (buf_tx, tx, job_rx) = (buf_tx.clone(), tx.clone(), Arc::clone(&job_rx));
                let (totals, stop) = (&totals, &stop);
                scope.spawn(move || loop {
                    let Ok(job) = lock(&job_rx).recv() else { break };
                    let start = Instant::now();
                    let clock = StageClock::new(par);
                    let mut fork = job.fork;
                    let records = &job.records[..job.len];
                    let packed = fork
                        .pack_segment(&clock, records, job.last)
                        .and_then(|packed| lock(totals).absorb(&fork).map(|()| packed))
                        .map_err(SegmentedError::Trace)
                        .map(|packed| Packed {
                            packed,
                            cycles: job.len as u64,
                            record_bytes: std::mem::size_of_val(records) as u64,
                            took: job.took,
                            pack: start.elapsed(),
                            pack_stages: clock.stages(),
                        });
                    let failed = packed.is_err();
                    drop(fork);
                    // The executor may have stopped: its buffers are not needed.
                    let _ = buf_tx.send(job.records);
                    if tx.send((job.index, packed)).is_err() || failed {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                });
            }
            drop((buf_tx, job_rx));
            // Running ahead, beside the recording: each recorded segment is forked before
            // and replayed, then handed to the packers.
            let (rec_tx, rec_rx) = mpsc::sync_channel::<Recorded>(1);
            let runs_ahead = {
                let (tx, stop) = (tx.clone(), &stop);
                scope.spawn(move || {
                    for (k, records, len, last, recorded) in rec_rx {
                        let start = Instant::now();
                        let fork = ahead.fork(Lookups::Host);
                        if let Err(e) = ahead.pack_segment(&par, &records[..len], last) {
                            let _ = tx.send((k, Err(SegmentedError::Trace(e))));
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                        let job = Checkpoint {
                            index: k,
                            records,
                            len,
                            last,
                            fork,
                            // The slower of the executor's two stages.
                            took: recorded.max(start.elapsed()),
                        };
                        if job_tx.send(job).is_err() {
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    ahead
                })
            };
            let (mut made, most) = (0, 2 * packers + 3);
            let mut recorded_all = true;
            for k in 0..n_seg {
                if stop.load(Ordering::Relaxed) {
                    recorded_all = false;
                    break;
                }
                let mut records = match buf_rx.try_recv() {
                    Ok(b) => b,
                    Err(_) if made < most => {
                        made += 1;
                        mapped_records(segment as usize)
                    }
                    Err(_) => match buf_rx.recv() {
                        Ok(b) => b,
                        // Every packer stopped (one says why).
                        Err(_) => {
                            recorded_all = false;
                            break;
                        }
                    },
                };
                let start = Instant::now();
                match record_segment(&mut vm, &mut records, k, n_seg, segment) {
                    Ok((len, last)) => {
                        if rec_tx
                            .send((k, records, len, last, start.elapsed()))
                            .is_err()
                        {
                            recorded_all = false;
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send((k, Err(e)));
                        stop.store(true, Ordering::Relaxed);
                        recorded_all = false;
                        break;
                    }
                }
            }
            drop(rec_tx);
            let ahead = runs_ahead.join().map_err(|_| {
                SegmentedError::Internal("the thread running ahead panicked".into())
            })?;
            Ok::<_, SegmentedError>((recorded_all, ahead))
        })?;
        let (led, ahead) = led;
        if !led || stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        drop(tx);
        if !finish {
            return Ok(Some((None, Duration::ZERO)));
        }
        let start = Instant::now();
        let mut run = ahead.fork(Lookups::Host);
        let totals = totals
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        run.absorb(&totals).map_err(SegmentedError::Trace)?;
        let run = run.finish(&par).map_err(SegmentedError::Trace)?;
        Ok(Some((Some(run), start.elapsed())))
    }
}

/// Runs `vm` through segment `k` of `n_seg` (of `segment` cycles) into `records`: the
/// records' count and whether the run ended in it.
///
/// # Errors
/// The run failed, or ended in another segment than its length says.
fn record_segment(
    vm: &mut Vm,
    records: &mut [Record],
    k: usize,
    n_seg: usize,
    segment: u64,
) -> Result<(usize, bool), SegmentedError> {
    let mut rec = SliceRecorder::new(records);
    let exit = vm
        .run_until(&mut rec, (k as u64 + 1) * segment)
        .map_err(SegmentedError::Run)?;
    let (buf, len) = rec.finish();
    if len > buf.len() {
        return Err(SegmentedError::Internal(format!(
            "segment {k} ran past its {} cycles",
            buf.len()
        )));
    }
    let last = exit.is_some();
    if last != (k + 1 == n_seg) {
        return Err(SegmentedError::Internal(format!(
            "the run ended in segment {k} of {n_seg}"
        )));
    }
    Ok((len, last))
}

/// A segment's main traces (its tables in table order): record tables filled on the device
/// with `device_fills`, else on the host.
pub(crate) fn segment_traces<B: RvFills>(
    backend: &B,
    image: &ProgramImage,
    mut packed: PackedTraces,
    device_fills: bool,
) -> Result<Vec<MainTrace<B>>, SegmentedError> {
    let mut filled: Vec<Option<B::DeviceTrace>> = (0..TableId::COUNT).map(|_| None).collect();
    if device_fills {
        let fill_err = |source| SegmentedError::Prove {
            phase: "fill",
            source,
        };
        let fills = backend
            .fill_records(image, &packed.records(), &RECORD_TABLES)
            .map_err(fill_err)?;
        distinct_rows_agree(backend, &packed.real_rows(), &fills).map_err(fill_err)?;
        for (t, d) in fills {
            filled[t.index()] = Some(d);
        }
    }
    TableId::ALL
        .into_iter()
        .filter(|t| !t.is_run_table())
        .map(|t| {
            let host = packed.traces[t.index()].take();
            match (host, filled[t.index()].take()) {
                (Some(m), None) => Ok(MainTrace::Host(m)),
                (None, Some(d)) => Ok(MainTrace::Device(d)),
                (None, None) => packed
                    .fill_host(image, t)
                    .map(MainTrace::Host)
                    .ok_or_else(|| SegmentedError::Internal(format!("{} has no trace", t.name()))),
                (Some(_), Some(_)) => Err(SegmentedError::Internal(format!(
                    "{} has two traces",
                    t.name()
                ))),
            }
        })
        .collect()
}

/// [`segment_traces`] of a produced segment, adding the producer's time (`execute+pack`),
/// the fills' (`fill`) and the packing's and the fills' (`trace`) to `phases`.
fn timed_traces<B: RvFills>(
    backend: &B,
    image: &ProgramImage,
    p: Packed,
    device_fills: bool,
    phases: &mut Vec<(String, f64)>,
) -> Result<Vec<MainTrace<B>>, SegmentedError> {
    add_ms(phases, "execute+pack", p.took.as_secs_f64() * 1e3);
    add_ms(phases, "trace", p.pack.as_secs_f64() * 1e3);
    for (stage, d) in &p.pack_stages {
        add_ms(
            phases,
            &format!("trace: pack: {stage}"),
            d.as_secs_f64() * 1e3,
        );
    }
    let fill = Instant::now();
    let traces = segment_traces(backend, image, p.packed, device_fills)?;
    let fill_ms = fill.elapsed().as_secs_f64() * 1e3;
    add_ms(phases, "trace", fill_ms);
    add_ms(phases, "fill", fill_ms);
    Ok(traces)
}

fn add_phases(into: &mut Vec<(String, f64)>, t: &ProveTimings) {
    for (name, d) in &t.phases {
        add_ms(into, name, d.as_secs_f64() * 1e3);
    }
}

fn add_ms(into: &mut Vec<(String, f64)>, name: &str, ms: f64) {
    match into.iter_mut().find(|(n, _)| n == name) {
        Some(p) => p.1 += ms,
        None => into.push((name.to_string(), ms)),
    }
}

/// A segment's phase 1: its main commitment and its tables.
struct Committed {
    head: (Vec<u8>, Vec<Digest>),
    tables: Vec<(TableId, usize, usize, Option<usize>)>,
    record_bytes: u64,
}

/// Proves a run of `total_cycles` cycles (its length, from an unrecorded run) in segments
/// of `2^segment_log` cycles on `backends` (at least one), one worker thread per backend:
/// each segment is committed and proven on whichever backend is free, the run part on
/// `backends[0]`. The proof is the same bytes on any number of backends.
///
/// # Errors
/// [`SegmentedError`]: the run, its packing or a backend failed (the first failure; every
/// thread has stopped), or the backends' keys differ ([`SegmentedError::Internal`]).
#[allow(clippy::too_many_arguments)]
pub fn prove_segmented<B: RvFills>(
    backends: &[B],
    program: &Program,
    input: &[u8],
    params: StarkParams,
    total_cycles: u64,
    segment_log: u32,
    device_fills: bool,
    packers: usize,
    progress: &mut dyn FnMut(&SegmentProgress),
) -> Result<SegmentedRun, SegmentedError> {
    let began = Instant::now();
    let backend = backends
        .first()
        .ok_or_else(|| SegmentedError::Internal("no backend to prove on".into()))?;
    let sm = SegmentedMachine::new(program)?;
    let (image, machine, layout) = (&sm.image, &sm.machine, &sm.layout);
    let run_part = sm.run_part();
    // Every backend's key of the segment part, the run part's on backend 0 alone.
    let pk_segs: Vec<ProvingKey<B>> = backends
        .iter()
        .map(|b| sm.seg_key(b, params))
        .collect::<Result<_, _>>()?;
    if let Some(i) = pk_segs.iter().position(|pk| pk.vk != pk_segs[0].vk) {
        return Err(SegmentedError::Internal(format!(
            "backend {i}'s verifying key differs from backend 0's"
        )));
    }
    let pk_run: ProvingKey<B> = sm.run_key(backend, params)?;
    let vk = sm.vk(&pk_segs[0], &pk_run, &params);
    let segment = 1u64 << segment_log;
    let n_seg = total_cycles.div_ceil(segment) as usize;
    let total = n_seg + 1;
    let mut phases: Vec<(String, f64)> = Vec::new();
    let mut work: Vec<BackendWork> = vec![BackendWork::default(); backends.len()];
    let (mut executor, mut executed) = (Duration::ZERO, 0u64);
    let mut packing = Duration::ZERO;
    let mut segments_busy = Duration::ZERO;
    let mut report = |phase: u8, done: usize, cycles_done: u64| {
        let elapsed = began.elapsed();
        // Phase 1 is about a third of the work (execute, pack, commit main), phase 2 the rest.
        let frac = match phase {
            1 => done as f64 / total as f64 / 3.0,
            _ => (1.0 + 2.0 * done as f64 / total as f64) / 3.0,
        };
        let time_left = (frac > 0.0).then(|| elapsed.mul_f64((1.0 - frac) / frac));
        progress(&SegmentProgress {
            phase,
            done,
            total,
            cycles_done,
            elapsed,
            time_left,
        });
    };

    // Phase 1: every part's main commitment.
    let commit = |w: usize,
                  _k: usize,
                  p: Packed,
                  phases: &mut Vec<(String, f64)>|
     -> Result<Committed, SegmentedError> {
        let (backend, pk) = (&backends[w], &pk_segs[w]);
        let (real, record_bytes) = (p.packed.real_rows(), p.record_bytes);
        let traces = timed_traces(backend, image, p, device_fills, phases)?;
        let tables = layout
            .segment
            .iter()
            .zip(&traces)
            .map(|(&t, tr)| {
                let (cols, rows) = tr.dims(backend);
                (TableId::ALL[t], rows, cols, real.get(t).copied().flatten())
            })
            .collect();
        let start = Instant::now();
        let head = sm.commit_segment(backend, pk, traces)?;
        add_ms(phases, "commit main", start.elapsed().as_secs_f64() * 1e3);
        Ok(Committed {
            head,
            tables,
            record_bytes,
        })
    };
    // Phase 1 builds the run tables after the last segment; phase 2 does not again.
    let feed = |finish| Feed {
        program,
        machine,
        image,
        input,
        total_cycles,
        segment,
        finish,
    };
    let (mut done, mut cycles_done) = (0, 0);
    let phase1 = for_each_segment(backends.len(), packers, feed(true), &commit, &mut |d| {
        done += 1;
        cycles_done += d.cycles;
        report(1, done, cycles_done);
    })?;
    let mut heads: Vec<Head> = Vec::with_capacity(total);
    let mut record_bytes: Vec<u64> = Vec::with_capacity(n_seg);
    let mut tables = Vec::new();
    for d in phase1.segments {
        for (name, ms) in &d.phases {
            add_ms(&mut phases, name, *ms);
        }
        work[d.worker].committed += 1;
        work[d.worker].busy_seconds += d.busy.as_secs_f64();
        (executor, executed) = (executor + d.took, executed + d.cycles);
        packing += d.pack;
        segments_busy += d.busy;
        // Every segment's tables, summed: rows and real rows over the whole run.
        if tables.is_empty() {
            tables = d.out.tables;
        } else {
            for (sum, t) in tables.iter_mut().zip(d.out.tables) {
                sum.1 += t.1;
                sum.3 = sum.3.zip(t.3).map(|(a, b)| a + b);
            }
        }
        heads.push(d.out.head);
        record_bytes.push(d.out.record_bytes);
    }
    add_ms(&mut phases, "trace", phase1.built.as_secs_f64() * 1e3);
    let (run_host, public, table_rows) = sm.run_host_traces(
        phase1
            .run
            .ok_or_else(|| SegmentedError::Internal("phase 1 built no run tables".into()))?,
    )?;
    for (&t, m) in layout.run.iter().zip(&run_host) {
        tables.push((
            TableId::ALL[t],
            m.height(),
            m.width,
            table_rows.get(t).copied().flatten(),
        ));
    }
    let start = Instant::now();
    heads.push(sm.commit_run(backend, &pk_run, &run_host, &public)?);
    let took = start.elapsed().as_secs_f64();
    add_ms(&mut phases, "commit main", took * 1e3);
    work[0].busy_seconds += took;
    report(1, total, cycles_done);
    let phase1 = began.elapsed();

    // The shared challenges.
    let rounds = SharedRounds::draw(
        machine.name(),
        &params,
        &pk_run.preprocessed_cap,
        &public,
        heads,
    );

    // Phase 2: every part proven.
    let seg_part = sm.seg_part();
    let prove = |w: usize,
                 k: usize,
                 p: Packed,
                 phases: &mut Vec<(String, f64)>|
     -> Result<ProofBody, SegmentedError> {
        let (backend, pk) = (&backends[w], &pk_segs[w]);
        let traces = timed_traces(backend, image, p, device_fills, phases)?;
        let (body, t) = rounds.prove(backend, pk, &seg_part, traces, &public, k)?;
        add_phases(phases, &t);
        Ok(body)
    };
    let (mut done, mut cycles_done) = (0, 0);
    // Phase 1's run tables are the run part's: phase 2 does not build them again.
    let phase2 = for_each_segment(backends.len(), packers, feed(false), &prove, &mut |d| {
        done += 1;
        cycles_done += d.cycles;
        report(2, done, cycles_done);
    })?;
    let mut parts: Vec<ProofBody> = Vec::with_capacity(total);
    for d in phase2.segments {
        for (name, ms) in &d.phases {
            add_ms(&mut phases, name, *ms);
        }
        work[d.worker].proved += 1;
        work[d.worker].busy_seconds += d.busy.as_secs_f64();
        (executor, executed) = (executor + d.took, executed + d.cycles);
        packing += d.pack;
        segments_busy += d.busy;
        parts.push(d.out);
    }
    let start = Instant::now();
    let (body, t) = rounds.prove(
        backend,
        &pk_run,
        &run_part,
        host_traces(&run_host),
        &public,
        n_seg,
    )?;
    work[0].busy_seconds += start.elapsed().as_secs_f64();
    add_phases(&mut phases, &t);
    parts.push(body);
    report(2, total, cycles_done);
    let phase2 = began.elapsed() - phase1;
    // The roofline's view: each part's tables at its heights, its nonce and its records.
    let shape = ProofShape {
        parts: parts
            .iter()
            .enumerate()
            .map(|(k, body)| {
                let (pk, records) = if k < n_seg {
                    (&pk_segs[0], record_bytes.get(k).copied().unwrap_or(0))
                } else {
                    (&pk_run, 0)
                };
                let tables = pk
                    .shapes
                    .iter()
                    .zip(&body.log_heights)
                    .map(|(s, &lh)| TableDims::of(s, u32::from(lh)))
                    .collect();
                PartShape::new(&params, tables, body.pow_nonce, records)
            })
            .collect(),
    };
    let executor_s = executor.as_secs_f64();
    // With packers the producer is the slower of the one executor and the packers
    // together; in order, the executor's time holds the packing.
    let producer_s = if packers > 1 {
        executor_s.max(packing.as_secs_f64() / packers as f64)
    } else {
        executor_s
    };
    Ok(SegmentedRun {
        proof: SegmentedProof {
            params,
            preprocessed_cap: pk_run.preprocessed_cap.clone(),
            parts,
        },
        public,
        vk,
        segments: n_seg,
        phases,
        phase_seconds: [phase1.as_secs_f64(), phase2.as_secs_f64()],
        tables,
        shape,
        backends: work,
        executor_mhz: if executor_s > 0.0 {
            executed as f64 / executor_s / 1e6
        } else {
            0.0
        },
        backends_fed: if producer_s > 0.0 {
            segments_busy.as_secs_f64() / producer_s
        } else {
            0.0
        },
        packers: packers.max(1),
        packing_mhz: if packing.as_secs_f64() > 0.0 {
            executed as f64 / packing.as_secs_f64() / 1e6
        } else {
            0.0
        },
    })
}
