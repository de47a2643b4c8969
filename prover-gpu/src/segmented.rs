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
//! The run's roofline ([`SegmentedRun::shape`], [`crate::roofline`]) counts each part's
//! least work once, while the time of each stage in [`SegmentedRun::phases`] is summed over
//! both phases: `commit main` is phase 1's and phase 2's commitments, `trace` the packing
//! (on the producer thread) and the fills in both phases, and the run part's tables (built
//! once, in phase 1).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use kestrel_core::air::{Machine, Part, SegmentLayout, TableShape};
use kestrel_core::field::Felt;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::params::StarkParams;
use kestrel_core::proof::{ProofBody, SegmentedProof};
use kestrel_core::rv::machine::{PackedTraces, RunTraces, Rv64Machine, TraceError, RECORD_TABLES};
use kestrel_core::rv::pack::Segmenter;
use kestrel_core::rv::table::TableId;
use kestrel_core::stark::RunRounds;

use crate::backend::MainTrace;
use crate::error::ProverError;
use crate::par::Rayon;
use crate::prover::{part_main_cap, prove_part, setup, ProveTimings, ProvingKey};
use crate::roofline::{PartShape, ProofShape, TableDims};
use crate::rv::{distinct_rows_agree, machine_for, program_image, RvFills};
use crate::vm::record::VecRecorder;
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
    /// Milliseconds per phase name, summed over parts and both phases: `execute+pack`
    /// (the producer's, overlapped with the rest), `trace` (building the main traces from
    /// the records: the producer's packing, the fills, the run part's tables), `fill`, then
    /// the prover's phases ([`crate::roofline::STAGES`] after `trace`).
    pub phases: Vec<(String, f64)>,
    /// Wall time of phase 1 and of phase 2.
    pub phase_seconds: [f64; 2],
    /// The first segment's and the run part's traces: (table, rows, columns, real rows).
    pub tables: Vec<(TableId, usize, usize, Option<usize>)>,
    /// Every part's shape as the roofline model reads it (the segments', then the run
    /// part's), its least work counted once.
    pub shape: ProofShape,
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
struct Packed {
    packed: PackedTraces,
    cycles: u64,
    /// Bytes of its execution records.
    record_bytes: u64,
    /// Executing and packing it.
    took: Duration,
    /// Packing it.
    pack: Duration,
}

/// What the producer returns: the run tables (when asked for) and the time they took
/// (`None`: it stopped early; the consumer says why).
type Produced = Option<(Option<RunTraces>, Duration)>;

/// Executes the run segment by segment on a producer thread, packing each, and calls
/// `consume` with each segment's packed traces in order, the producer a segment ahead;
/// returns the [`Segmenter`]'s run tables after the last segment (with `finish`; phase 2
/// needs none) and the time they took.
#[allow(clippy::too_many_arguments)]
fn for_each_segment(
    program: &Program,
    machine: &Rv64Machine,
    image: &kestrel_core::rv::decode::ProgramImage,
    input: &[u8],
    total_cycles: u64,
    segment: u64,
    finish: bool,
    consume: &mut dyn FnMut(usize, Packed) -> Result<(), SegmentedError>,
) -> Result<(Option<RunTraces>, Duration), SegmentedError> {
    let n_seg = total_cycles.div_ceil(segment) as usize;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Result<Packed, SegmentedError>>(1);
        let producer = scope.spawn(move || -> Result<Produced, SegmentedError> {
            let par = Rayon::default();
            let mut seg = Segmenter::new(machine, image, input).map_err(SegmentedError::Trace)?;
            let mut vm = Vm::new(program, input.to_vec()).with_max_cycles(total_cycles);
            let mut rec = VecRecorder::with_capacity_mapped(segment as usize);
            for k in 0..n_seg {
                let start = Instant::now();
                rec.records.clear();
                let exit = vm
                    .run_until(&mut rec, (k as u64 + 1) * segment)
                    .map_err(SegmentedError::Run)?;
                let last = exit.is_some();
                if last != (k + 1 == n_seg) {
                    return Err(SegmentedError::Internal(format!(
                        "the run ended in segment {k} of {n_seg}"
                    )));
                }
                let packing = Instant::now();
                let packed = seg
                    .pack_segment(&par, &rec.records, last)
                    .map_err(SegmentedError::Trace);
                let item = packed.map(|packed| Packed {
                    packed,
                    cycles: rec.records.len() as u64,
                    record_bytes: std::mem::size_of_val(rec.records.as_slice()) as u64,
                    took: start.elapsed(),
                    pack: packing.elapsed(),
                });
                let failed = item.is_err();
                if tx.send(item).is_err() || failed {
                    // The consumer stopped (it says why), or this segment failed (sent).
                    return Ok(None);
                }
            }
            drop(tx);
            if !finish {
                return Ok(Some((None, Duration::ZERO)));
            }
            let start = Instant::now();
            let run = seg.finish(&par).map_err(SegmentedError::Trace)?;
            Ok(Some((Some(run), start.elapsed())))
        });
        let mut consumed = Ok(());
        for (k, item) in rx.iter().enumerate() {
            consumed = item.and_then(|p| consume(k, p));
            if consumed.is_err() {
                break;
            }
        }
        drop(rx);
        let produced = producer
            .join()
            .map_err(|_| SegmentedError::Internal("the executor thread panicked".into()))?;
        consumed?;
        produced?.ok_or_else(|| SegmentedError::Internal("the run ended early".into()))
    })
}

/// A segment's main traces (its tables in table order): record tables filled on the device
/// with `device_fills`, else on the host.
fn segment_traces<B: RvFills>(
    backend: &B,
    image: &kestrel_core::rv::decode::ProgramImage,
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
    image: &kestrel_core::rv::decode::ProgramImage,
    p: Packed,
    device_fills: bool,
    phases: &mut Vec<(String, f64)>,
) -> Result<Vec<MainTrace<B>>, SegmentedError> {
    add_ms(phases, "execute+pack", p.took.as_secs_f64() * 1e3);
    add_ms(phases, "trace", p.pack.as_secs_f64() * 1e3);
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

/// Proves a run of `total_cycles` cycles (its length, from an unrecorded run) in segments
/// of `2^segment_log` cycles.
///
/// # Errors
/// [`SegmentedError`]: the run, its packing or a backend failed.
#[allow(clippy::too_many_arguments)]
pub fn prove_segmented<B: RvFills>(
    backend: &B,
    program: &Program,
    input: &[u8],
    params: StarkParams,
    total_cycles: u64,
    segment_log: u32,
    device_fills: bool,
    progress: &mut dyn FnMut(&SegmentProgress),
) -> Result<SegmentedRun, SegmentedError> {
    let began = Instant::now();
    let image = program_image(program);
    let machine = machine_for(&image);
    let layout = machine
        .segment_layout()
        .ok_or_else(|| SegmentedError::Internal("the machine has no segment layout".into()))?;
    let seg_part = Part {
        machine: &machine,
        tables: &layout.segment,
    };
    let run_part = Part {
        machine: &machine,
        tables: &layout.run,
    };
    let prove_err = |phase| move |source| SegmentedError::Prove { phase, source };
    let pk_seg: ProvingKey<B> = setup(backend, &seg_part, params).map_err(prove_err("setup"))?;
    let pk_run: ProvingKey<B> = setup(backend, &run_part, params).map_err(prove_err("setup"))?;
    let vk = machine_vk(&machine, &layout, &pk_seg, &pk_run, &params);
    let segment = 1u64 << segment_log;
    let n_seg = total_cycles.div_ceil(segment) as usize;
    let total = n_seg + 1;
    let mut phases: Vec<(String, f64)> = Vec::new();
    let mut tables = Vec::new();
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
    let mut heads: Vec<(Vec<u8>, Vec<Digest>)> = Vec::with_capacity(total);
    let mut record_bytes: Vec<u64> = Vec::with_capacity(n_seg);
    let mut cycles_done = 0;
    let (run, built) = for_each_segment(
        program,
        &machine,
        &image,
        input,
        total_cycles,
        segment,
        true,
        &mut |k, p| {
            let (real, cycles) = (p.packed.real_rows(), p.cycles);
            record_bytes.push(p.record_bytes);
            let traces = timed_traces(backend, &image, p, device_fills, &mut phases)?;
            if k == 0 {
                for ((&t, tr), r) in layout.segment.iter().zip(&traces).zip(
                    layout
                        .segment
                        .iter()
                        .map(|&t| real.get(t).copied().flatten()),
                ) {
                    let (cols, rows) = tr.dims(backend);
                    tables.push((TableId::ALL[t], rows, cols, r));
                }
            }
            let start = Instant::now();
            heads.push(
                part_main_cap(backend, &pk_seg, &seg_part, traces, &[])
                    .map_err(prove_err("commit main"))?,
            );
            add_ms(
                &mut phases,
                "commit main",
                start.elapsed().as_secs_f64() * 1e3,
            );
            cycles_done += cycles;
            report(1, k + 1, cycles_done);
            Ok(())
        },
    )?;
    add_ms(&mut phases, "trace", built.as_secs_f64() * 1e3);
    let RunTraces {
        traces: mut run_traces,
        public,
        table_rows,
    } = run.ok_or_else(|| SegmentedError::Internal("phase 1 built no run tables".into()))?;
    let run_host: Vec<RowMajorMatrix> = layout
        .run
        .iter()
        .map(|&t| {
            run_traces[t]
                .take()
                .ok_or_else(|| SegmentedError::Internal(format!("run table {t} has no trace")))
        })
        .collect::<Result<_, _>>()?;
    for (&t, m) in layout.run.iter().zip(&run_host) {
        tables.push((
            TableId::ALL[t],
            m.height(),
            m.width,
            table_rows.get(t).copied().flatten(),
        ));
    }
    let host = |ms: &[RowMajorMatrix]| ms.iter().cloned().map(MainTrace::Host).collect();
    let traces = host(&run_host);
    let start = Instant::now();
    heads.push(
        part_main_cap(backend, &pk_run, &run_part, traces, &public)
            .map_err(prove_err("commit main"))?,
    );
    add_ms(
        &mut phases,
        "commit main",
        start.elapsed().as_secs_f64() * 1e3,
    );
    report(1, total, cycles_done);
    let phase1 = began.elapsed();

    // The shared challenges.
    let mut rounds = RunRounds::start(
        machine.name(),
        &params,
        &pk_run.preprocessed_cap,
        &public,
        total,
    );
    for (h, cap) in &heads {
        rounds.part_main(h, cap);
    }
    let ch = rounds.challenges();

    // Phase 2: every part proven.
    let mut parts: Vec<ProofBody> = Vec::with_capacity(total);
    let mut cycles_done = 0;
    let same = |body: &ProofBody, k: usize| -> Result<(), SegmentedError> {
        let (h, cap) = &heads[k];
        if body.log_heights != *h || body.main_cap != *cap {
            return Err(SegmentedError::Internal(format!(
                "part {k} committed other traces the second time"
            )));
        }
        Ok(())
    };
    // Phase 1's run tables are the run part's: phase 2 does not build them again.
    for_each_segment(
        program,
        &machine,
        &image,
        input,
        total_cycles,
        segment,
        false,
        &mut |k, p| {
            let cycles = p.cycles;
            let traces = timed_traces(backend, &image, p, device_fills, &mut phases)?;
            let (body, t) = prove_part(
                backend,
                &pk_seg,
                &seg_part,
                traces,
                &public,
                ch,
                rounds.part(k),
                &mut |_| {},
            )
            .map_err(prove_err("prove"))?;
            add_phases(&mut phases, &t);
            same(&body, k)?;
            parts.push(body);
            cycles_done += cycles;
            report(2, k + 1, cycles_done);
            Ok(())
        },
    )?;
    let (body, t) = prove_part(
        backend,
        &pk_run,
        &run_part,
        host(&run_host),
        &public,
        ch,
        rounds.part(n_seg),
        &mut |_| {},
    )
    .map_err(prove_err("prove"))?;
    add_phases(&mut phases, &t);
    same(&body, n_seg)?;
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
                    (&pk_seg, record_bytes.get(k).copied().unwrap_or(0))
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
    })
}
