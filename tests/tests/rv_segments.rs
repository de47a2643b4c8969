//! The packing pass one segment at a time (`Segmenter`): a run packed as segments of 2^10
//! and 2^12 steps makes the records and traces of the one-segment pack, cut at the
//! segments' boundaries — the run tables equal, the per-segment records concatenate to the
//! whole run's, clocks and output positions global — and the same public values; exits
//! out of place are refused; and every segment with the run part balances every bus.

use kestrel_core::air::debug::{check_parts, preprocessed_traces, DebugReport};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::par::{ParMap, Sequential};
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::machine::{PackedTraces, RunTraces, Rv64Machine, TableId, TraceError};
use kestrel_core::rv::pack::{pack_traces, Lookups, Segmenter};
use kestrel_prover_gpu::par::Rayon;
use kestrel_prover_gpu::rv::{machine_for, program_image, steps};
use kestrel_tests::vm_support::run_recorded;

/// Segment lengths (steps): each run spans several segments of each.
const SEGMENTS: [usize; 2] = [1 << 10, 1 << 12];

/// The guests and their inputs: runs of several segments of 2^12 steps.
fn guests() -> Vec<(&'static str, Vec<u8>)> {
    vec![("fibonacci", b"2000".to_vec()), ("sha256", vec![0x61; 300])]
}

fn load(name: &str, input: &[u8]) -> (ProgramImage, Vec<Step>) {
    let (program, records, _) = run_recorded(name, input);
    (program_image(&program), steps(&records))
}

/// `steps` packed as segments of `seg` steps (the last one shorter), and the run part.
fn pack_segments(
    par: &impl ParMap,
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    seg: usize,
) -> (Vec<PackedTraces>, RunTraces) {
    let mut run = Segmenter::new(machine, image, input).unwrap();
    let n = steps.chunks(seg).len();
    let segments = steps
        .chunks(seg)
        .enumerate()
        .map(|(k, s)| {
            assert_eq!(run.clk(), (k * seg) as u64);
            run.pack_segment(par, s, k + 1 == n)
                .unwrap_or_else(|e| panic!("segment {k}: {e}"))
        })
        .collect();
    (segments, run.finish(par).unwrap())
}

#[test]
fn segments_make_the_one_segment_pack() {
    for (name, input) in guests() {
        let (image, steps) = load(name, &input);
        let machine = machine_for(&image);
        let whole = pack_traces(&machine, &image, &steps, &input).unwrap();
        for seg in SEGMENTS {
            let what = format!("{name}, segments of {seg}");
            assert!(steps.len() > 2 * seg, "{what}: {} steps", steps.len());
            let (segments, run) = pack_segments(&Sequential, &machine, &image, &steps, &input, seg);

            // The run tables: DECODE, REGISTER, PAGE, PAGE0 as the whole run's (BITWISE
            // counts the segments' padding rows too).
            for t in TableId::RUN_TABLES {
                for p in &segments {
                    assert!(p.traces[t.index()].is_none(), "{what}: {t} in a segment");
                    assert_eq!(p.table_rows[t.index()], None, "{what}: {t} rows");
                }
                if t != TableId::Bitwise {
                    assert!(
                        run.traces[t.index()] == whole.traces[t.index()],
                        "{what}: {t}"
                    );
                    assert_eq!(
                        run.table_rows[t.index()],
                        whole.table_rows[t.index()],
                        "{what}: {t} rows"
                    );
                }
            }
            assert!(run.traces[TableId::Bitwise.index()].is_some(), "{what}");
            for t in TableId::SEGMENT_TABLES {
                assert!(
                    run.traces[t.index()].is_none(),
                    "{what}: {t} in the run part"
                );
            }
            assert_eq!(run.public, whole.public, "{what}: public values");
            assert!(segments.iter().all(|p| p.public.is_empty()), "{what}");

            // The records, concatenated.
            let cat = |f: &dyn Fn(&PackedTraces) -> Vec<u64>| -> Vec<u64> {
                segments.iter().flat_map(f).collect()
            };
            assert_eq!(cat(&|p| p.cpu.rs1.clone()), whole.cpu.rs1, "{what}: rs1");
            assert_eq!(cat(&|p| p.cpu.rs2.clone()), whole.cpu.rs2, "{what}: rs2");
            assert_eq!(cat(&|p| p.cpu.res.clone()), whole.cpu.res, "{what}: res");
            let dec: Vec<u32> = segments
                .iter()
                .flat_map(|p| p.cpu.dec_row.clone())
                .collect();
            assert_eq!(dec, whole.cpu.dec_row, "{what}: DECODE rows");
            let calls: Vec<_> = segments.iter().flat_map(|p| p.cpu.calls.clone()).collect();
            assert_eq!(calls, whole.cpu.calls, "{what}: calls");
            assert_eq!(cat(&|p| p.memw_r.meta.clone()), whole.memw_r.meta, "{what}");
            assert_eq!(cat(&|p| p.memw_r.old.clone()), whole.memw_r.old, "{what}");
            assert_eq!(cat(&|p| p.memw_r.new.clone()), whole.memw_r.new, "{what}");
            let extra: Vec<_> = segments
                .iter()
                .flat_map(|p| p.memw_r.extra.clone())
                .collect();
            assert_eq!(extra, whole.memw_r.extra, "{what}: system calls' accesses");
            let loads: Vec<_> = segments.iter().flat_map(|p| p.loads.clone()).collect();
            assert_eq!(loads, whole.loads, "{what}: loads");
            let stores: Vec<_> = segments.iter().flat_map(|p| p.stores.clone()).collect();
            assert_eq!(stores, whole.stores, "{what}: stores");
            let mem_a: Vec<_> = segments.iter().flat_map(|p| p.mem_a.clone()).collect();
            assert_eq!(mem_a, whole.mem_a, "{what}: word accesses");
            let mem_s: Vec<_> = segments.iter().flat_map(|p| p.mem_s.clone()).collect();
            assert_eq!(mem_s, whole.mem_s, "{what}: split accesses");
            let ecalls: Vec<_> = segments.iter().flat_map(|p| p.ecalls.clone()).collect();
            assert_eq!(ecalls, whole.ecalls, "{what}: system calls");
            let io: Vec<_> = segments.iter().flat_map(|p| p.io.clone()).collect();
            assert_eq!(io, whole.io, "{what}: transfers");
            assert!(
                whole.cpu.calls.iter().any(|c| c.outn > 0),
                "{what}: writes output"
            );

            // Each segment's boundary: its first clock, the output before it, handing on.
            let mut outpos = 0;
            for (k, p) in segments.iter().enumerate() {
                let n = p.cpu.len();
                assert_eq!(p.cpu.clk0, (k * seg) as u64, "{what}: segment {k} clk0");
                assert_eq!(p.memw_r.clk0, p.cpu.clk0, "{what}: segment {k} MEMW_R clk0");
                assert_eq!(p.cpu.outpos0, outpos, "{what}: segment {k} outpos0");
                assert_eq!(p.cpu.handoff, k + 1 < segments.len(), "{what}: {k} handoff");
                assert_eq!(
                    p.cpu.height,
                    n.next_power_of_two().max(kestrel_core::params::MIN_ROWS),
                    "{what}: {k}"
                );
                assert_eq!(p.real_rows()[TableId::Cpu.index()], Some(n), "{what}");
                let clks = p.cpu.clk0..p.cpu.clk0 + n as u64;
                assert!(p.cpu.calls.iter().all(|c| clks.contains(&c.clk)), "{what}");
                outpos += p.cpu.calls.iter().map(|c| c.outn).sum::<u64>();
            }
            assert_eq!(whole.cpu.clk0, 0, "{what}");
            assert_eq!((whole.cpu.outpos0, whole.cpu.handoff), (0, false), "{what}");
        }
    }
}

/// The same segments, whatever the `ParMap` and its chunk length.
#[test]
fn segments_do_not_depend_on_the_thread_pool() {
    let (name, input) = ("sha256", vec![0x61; 300]);
    let (image, steps) = load(name, &input);
    let machine = machine_for(&image);
    let seq = pack_segments(&Sequential, &machine, &image, &steps, &input, 1 << 12);
    for chunk_len in [64, 1000] {
        let par = pack_segments(
            &Rayon { chunk_len },
            &machine,
            &image,
            &steps,
            &input,
            1 << 12,
        );
        assert!(par == seq, "{name}: chunks of {chunk_len}");
    }
}

/// `steps` packed as `pack_segments` packs them, from checkpoints: one segmenter runs
/// ahead with device lookups (its parallel replay, no tables), forking before each
/// segment; the forks pack their segments last first; a fork of the one ahead absorbs
/// every fork's totals and builds the run tables.
fn pack_checkpointed(
    par: &impl ParMap,
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    seg: usize,
) -> (Vec<PackedTraces>, RunTraces) {
    let mut ahead = Segmenter::new(machine, image, input)
        .unwrap()
        .with_lookups(Lookups::Device);
    let n = steps.chunks(seg).len();
    let mut forks: Vec<Segmenter<'_>> = Vec::new();
    for (k, s) in steps.chunks(seg).enumerate() {
        forks.push(ahead.fork(Lookups::Host));
        ahead.pack_segment(par, s, k + 1 == n).unwrap();
    }
    let mut out: Vec<Option<PackedTraces>> = (0..n).map(|_| None).collect();
    for (k, s) in steps.chunks(seg).enumerate().rev() {
        assert_eq!(forks[k].clk(), (k * seg) as u64);
        out[k] = Some(forks[k].pack_segment(par, s, k + 1 == n).unwrap());
    }
    let mut last = ahead.fork(Lookups::Host);
    assert_eq!(last.clk(), steps.len() as u64);
    for f in &forks {
        last.absorb(f).unwrap();
    }
    let run = last.finish(par).unwrap();
    (out.into_iter().map(Option::unwrap).collect(), run)
}

/// Segments packed from checkpoints, in any order, are the segments packed in order, and
/// so is the run part built from the checkpoints' totals.
#[test]
fn checkpoints_pack_the_segments_in_any_order() {
    for (name, input) in guests() {
        let (image, steps) = load(name, &input);
        let machine = machine_for(&image);
        for seg in SEGMENTS {
            let par = Rayon { chunk_len: 256 };
            let order = pack_segments(&par, &machine, &image, &steps, &input, seg);
            let ahead = pack_checkpointed(&par, &machine, &image, &steps, &input, seg);
            assert!(ahead.0 == order.0, "{name}, segments of {seg}: segments");
            assert!(ahead.1 == order.1, "{name}, segments of {seg}: run part");
        }
    }
}

/// A fork's error is the segment's, and absorbing it fails with it; a fork of another
/// program is refused.
#[test]
fn checkpoint_errors_are_kept() {
    let (name, input) = ("fibonacci", b"2000".to_vec());
    let (image, steps) = load(name, &input);
    let machine = machine_for(&image);
    let n = steps.len();
    let mut ahead = Segmenter::new(&machine, &image, &input).unwrap();
    let mut fork = ahead.fork(Lookups::Host);
    // The whole run as a segment that is not the last: its exit is refused.
    let exit = TraceError::ExitBeforeLast { clk: n as u64 - 1 };
    assert_eq!(
        fork.pack_segment(&Sequential, &steps, false).err(),
        Some(exit.clone())
    );
    assert_eq!(ahead.absorb(&fork).err(), Some(exit));
    // Forks of a failed segmenter keep its error.
    assert!(fork
        .fork(Lookups::Host)
        .pack_segment(&Sequential, &steps, true)
        .is_err());

    let (other_image, _) = load("sha256", &[0x61; 300]);
    let other_machine = machine_for(&other_image);
    let other = Segmenter::new(&other_machine, &other_image, &input).unwrap();
    let got = ahead.absorb(&other.fork(Lookups::Host));
    assert_eq!(got.err(), Some(TraceError::ForeignFork));
}

#[test]
fn exits_out_of_place_are_refused() {
    let (name, input) = ("fibonacci", b"2000".to_vec());
    let (image, steps) = load(name, &input);
    let machine = machine_for(&image);
    let n = steps.len();
    let new = || Segmenter::new(&machine, &image, &input).unwrap();

    // A segment with the exit that is not the last.
    let mut run = new();
    let half = &steps[..n / 2];
    run.pack_segment(&Sequential, half, false).unwrap();
    let exit = TraceError::ExitBeforeLast { clk: n as u64 - 1 };
    let got = run.pack_segment(&Sequential, &steps[n / 2..], false);
    assert_eq!(got.err(), Some(exit.clone()));
    // Every later call fails with that error.
    let got = run.pack_segment(&Sequential, &steps[n / 2..], true);
    assert_eq!(got.err(), Some(exit.clone()));
    assert_eq!(run.finish(&Sequential).err(), Some(exit));

    // A last segment without the exit.
    let mut run = new();
    let got = run.pack_segment(&Sequential, half, true);
    assert_eq!(got.err(), Some(TraceError::NoExit));

    // No last segment.
    let mut run = new();
    run.pack_segment(&Sequential, half, false).unwrap();
    assert_eq!(run.finish(&Sequential).err(), Some(TraceError::NoExit));

    // A segment after the last.
    let mut run = new();
    run.pack_segment(&Sequential, &steps, true).unwrap();
    let got = run.pack_segment(&Sequential, &steps[..1], true);
    assert_eq!(got.err(), Some(TraceError::AfterLast));

    // An empty segment.
    let got = new().pack_segment(&Sequential, &steps[..0], false);
    assert_eq!(got.err(), Some(TraceError::Empty));
}

/// Every segment's host traces (the segment tables' in their order), the run part's (the
/// run tables' in theirs) and the public values.
fn host_parts(
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    seg: usize,
) -> (Vec<Vec<RowMajorMatrix>>, Vec<RowMajorMatrix>, Vec<Felt>) {
    let (segments, run) = pack_segments(&Rayon::default(), machine, image, steps, input, seg);
    let (run, public) = run.into_host_traces().unwrap();
    let segments = segments
        .into_iter()
        .map(|p| p.into_host_segment_traces(image).unwrap())
        .collect();
    (segments, run, public)
}

/// A part of segment tables' traces as `check_parts` takes it.
fn segment_part(traces: &[RowMajorMatrix]) -> Vec<(usize, &RowMajorMatrix)> {
    TableId::SEGMENT_TABLES
        .iter()
        .map(|t| t.index())
        .zip(traces)
        .collect()
}

/// The run part as `check_parts` takes it.
fn run_part(traces: &[RowMajorMatrix]) -> Vec<(usize, &RowMajorMatrix)> {
    TableId::RUN_TABLES
        .iter()
        .map(|t| t.index())
        .zip(traces)
        .collect()
}

/// Every segment's host traces and the run part's, checked together: each table's
/// constraints, and every bus over all the parts with the public interactions.
fn check_segments(
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    seg: usize,
) -> DebugReport {
    let (segments, run, public) = host_parts(machine, image, steps, input, seg);
    let mut parts: Vec<_> = segments.iter().map(|s| segment_part(s)).collect();
    parts.push(run_part(&run));
    check_parts(machine, &parts, &preprocessed_traces(machine), &public)
}

/// The parts balance only all together, each once: without the run part (the initial and
/// final tokens, the byte lookups' counts) or with the segment twice, buses are left
/// unbalanced while every table's constraints hold.
#[test]
fn a_missing_or_repeated_part_unbalances() {
    let (name, input) = ("fibonacci", b"2000".to_vec());
    let (image, steps) = load(name, &input);
    let machine = machine_for(&image);
    let pre = preprocessed_traces(&machine);
    let (segments, run, public) = host_parts(&machine, &image, &steps, &input, steps.len());
    let (seg, run) = (segment_part(&segments[0]), run_part(&run));
    let check =
        |parts: &[Vec<(usize, &RowMajorMatrix)>]| check_parts(&machine, parts, &pre, &public);
    assert!(check(&[seg.clone(), run.clone()]).is_ok(), "{name}");
    for (what, parts) in [
        ("no run part", vec![seg.clone()]),
        ("no segment", vec![run.clone()]),
        (
            "the segment twice",
            vec![seg.clone(), seg.clone(), run.clone()],
        ),
    ] {
        let report = check(&parts);
        assert!(report.failures.is_empty(), "{what}:\n{report}");
        assert!(!report.imbalances.is_empty(), "{what}: balances");
    }
}

/// A run cut into segments balances every bus, as the one-segment run does. Multi-segment
/// runs balance only with the CPU's boundary tokens (its first row, a non-final segment's
/// last row) and MEMW_R's timestamps from its first clock.
#[test]
fn segments_balance() {
    for (name, input) in guests() {
        let (image, steps) = load(name, &input);
        let machine = machine_for(&image);
        let one = check_segments(&machine, &image, &steps, &input, steps.len());
        assert!(one.is_ok(), "{name}, one segment:\n{one}");
        for seg in SEGMENTS {
            let report = check_segments(&machine, &image, &steps, &input, seg);
            assert!(report.is_ok(), "{name}, segments of {seg}:\n{report}");
        }
    }
}
