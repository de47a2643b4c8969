//! The packing pass on threads: `pack_traces_with` on rayon, with chunks small enough that
//! every program spans several, packs exactly what the sequential `pack_traces` packs (every
//! record and trace, in order) and fails with the same error, the earliest step's.
//!
//! `pack_timing` (ignored) times both on a long sha256 run:
//! `PACK_KIB=12 cargo test --release -p kestrel-tests --test rv_pack -- --ignored --nocapture`.

use kestrel_core::air::Machine;
use kestrel_core::par::ParMap;
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::decode::{class, decode_for_air, ProgramImage};
use kestrel_core::rv::machine::{PackedTraces, Rv64Machine, TableId, TraceError};
use kestrel_core::rv::pack::{pack_traces, pack_traces_overlapped, pack_traces_with, Lookups};
use kestrel_prover_gpu::par::Rayon;
use kestrel_prover_gpu::rv::{machine_for, program_image, steps};
use kestrel_tests::vm_support::{input_of, run_recorded, PROVABLE_PROGRAMS};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Steps per chunk: programs longer than a chunk span several (one step per chunk: every
/// system call on a chunk boundary; one length not a power of two).
const CHUNKS: [usize; 3] = [1, 64, 1000];

fn load(name: &str) -> (ProgramImage, Vec<Step>) {
    let (program, records, _) = run_recorded(name, input_of(name));
    (program_image(&program), steps(&records))
}

fn pack_both(
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    chunk_len: usize,
) -> (
    Result<PackedTraces, TraceError>,
    Result<PackedTraces, TraceError>,
) {
    (
        pack_traces(machine, image, steps, input),
        pack_traces_with(&Rayon { chunk_len }, machine, image, steps, input),
    )
}

/// Field by field, so that a failure names the field.
fn assert_same(name: &str, a: &PackedTraces, b: &PackedTraces) {
    assert_eq!(a.cpu, b.cpu, "{name}: cpu records");
    assert_eq!(a.memw_r, b.memw_r, "{name}: memw_r records");
    assert_eq!(a.lt, b.lt, "{name}: lt rows");
    assert_eq!(a.eq, b.eq, "{name}: eq rows");
    assert_eq!(a.shift, b.shift, "{name}: shift rows");
    assert_eq!(a.mul, b.mul, "{name}: mul rows");
    assert_eq!(a.dvrm, b.dvrm, "{name}: dvrm rows");
    assert_eq!(a.loads, b.loads, "{name}: loads");
    assert_eq!(a.stores, b.stores, "{name}: stores");
    assert_eq!(a.mem_a, b.mem_a, "{name}: mem_a");
    assert_eq!(a.ecalls, b.ecalls, "{name}: ecalls");
    assert_eq!(a.io, b.io, "{name}: io");
    assert_eq!(a.traces.len(), b.traces.len(), "{name}: tables");
    for (t, (x, y)) in a.traces.iter().zip(&b.traces).enumerate() {
        assert!(x == y, "{name}: trace of table {t}");
    }
    assert_eq!(a.table_rows, b.table_rows, "{name}: real rows");
    assert_eq!(a.public, b.public, "{name}: public values");
    assert!(a == b, "{name}");
}

/// The real rows the packing pass reports (the stats' fill) fit each trace: at most its
/// height, the CPU's the steps, and past them only zero rows in the tables padded with
/// zeros.
#[test]
fn real_rows_fit_the_traces() {
    use TableId::*;
    const ZERO_PADDED: [TableId; 10] =
        [Mul, Dvrm, Load, Store, MemwA, Memw, Page, Page0, Ecall, Io];
    for &(name, input) in PROVABLE_PROGRAMS {
        let (image, steps) = load(name);
        let machine = machine_for(&image);
        let packed = pack_traces(&machine, &image, &steps, input).unwrap();
        let real = packed.real_rows();
        let (traces, _) = packed.into_host_traces(&image).unwrap();
        let tables = machine.tables();
        assert_eq!(real.len(), traces.len(), "{name}");
        assert_eq!(tables.len(), TableId::COUNT, "{name}");
        assert_eq!(real[Cpu.index()], Some(steps.len()), "{name}: CPU");
        for ((t, m), r) in TableId::ALL.into_iter().zip(&traces).zip(&real) {
            let Some(r) = *r else { continue };
            assert!(r <= m.height(), "{name}: {t} {r} > {}", m.height());
            if ZERO_PADDED.contains(&t) {
                assert!(
                    m.values[r * m.width..].iter().all(|v| v.as_u64() == 0),
                    "{name}: {t} has a nonzero row past its {r} real rows"
                );
            }
        }
        for t in ZERO_PADDED {
            assert!(real[t.index()].is_some(), "{name}: {t} has no real rows");
        }
    }
}

#[test]
fn records_handed_out_early_are_the_final_ones() {
    for &(name, input) in PROVABLE_PROGRAMS {
        let (image, steps) = load(name);
        let machine = machine_for(&image);
        let whole = pack_traces(&machine, &image, &steps, input).unwrap();
        for chunk_len in [64, 1 << 16] {
            let (p, early) = pack_traces_overlapped(
                &Rayon { chunk_len },
                &machine,
                &image,
                &steps,
                input,
                Lookups::Host,
                |r| {
                    assert!(
                        r.lt.is_empty()
                            && r.eq.is_empty()
                            && r.shift.is_empty()
                            && r.mul.is_empty()
                            && r.dvrm.is_empty(),
                        "{name}: LT/EQ/SHIFT/MUL/DVRM early"
                    );
                    (
                        r.cpu.clone(),
                        r.memw_r.clone(),
                        r.loads.to_vec(),
                        r.stores.to_vec(),
                        r.mem_a.to_vec(),
                        r.ecalls.to_vec(),
                        r.io.to_vec(),
                    )
                },
            )
            .unwrap();
            assert!(p == whole, "{name}: overlapped pack differs");
            assert!(
                early == (p.cpu, p.memw_r, p.loads, p.stores, p.mem_a, p.ecalls, p.io),
                "{name}: early records differ from the final ones"
            );
        }
    }
}

#[test]
fn parallel_pack_equals_sequential() {
    for &(name, input) in PROVABLE_PROGRAMS {
        let (image, steps) = load(name);
        let machine = machine_for(&image);
        for chunk_len in CHUNKS.into_iter().filter(|&l| l < steps.len()) {
            let (seq, par) = pack_both(&machine, &image, &steps, input, chunk_len);
            let (seq, par) = (seq.unwrap(), par.unwrap());
            assert_same(name, &seq, &par);
        }
    }
}

/// A copy of `steps` whose step `k` executes a pc outside the program.
fn bad_pc(steps: &[Step], k: usize) -> Vec<Step> {
    let mut s = steps.to_vec();
    s[k].pc = 0x10;
    s
}

/// The indices of `steps` that load.
fn loads(steps: &[Step]) -> Vec<usize> {
    (0..steps.len())
        .filter(|&k| {
            decode_for_air(steps[k].pc, steps[k].word).is_some_and(|d| d.class[class::LOAD])
        })
        .collect()
}

fn assert_same_error(
    what: &str,
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    want: &TraceError,
) {
    for chunk_len in CHUNKS {
        let (seq, par) = pack_both(machine, image, steps, input, chunk_len);
        assert_eq!(seq.as_ref().err(), Some(want), "{what}: sequential");
        assert_eq!(par.as_ref().err(), Some(want), "{what}: parallel");
    }
}

#[test]
fn parallel_pack_fails_like_sequential() {
    let name = "sort";
    let input = input_of(name);
    let (image, steps) = load(name);
    let machine = machine_for(&image);
    let n = steps.len();

    // No exit: the run stops early.
    assert_same_error(
        "truncated",
        &machine,
        &image,
        &steps[..n - 1],
        input,
        &TraceError::NoExit,
    );

    // A pc outside the program, alone and against a memory error before or after it (in
    // another chunk): the earliest step's error wins.
    let loads = loads(&steps);
    let (early, late) = (loads[loads.len() / 4], loads[3 * loads.len() / 4]);
    let bad = (early + late) / 2;
    assert!(early + 64 < bad && bad + 64 < late, "{early} {bad} {late}");
    let pc_error = TraceError::NotInProgram { pc: 0x10 };
    assert_same_error(
        "bad pc",
        &machine,
        &image,
        &bad_pc(&steps, bad),
        input,
        &pc_error,
    );
    for (k, want_pc) in [(early, false), (late, true)] {
        let mut s = bad_pc(&steps, bad);
        s[k].mem_val ^= 1;
        let want = if want_pc {
            pc_error.clone()
        } else {
            TraceError::MemoryMismatch {
                pc: s[k].pc,
                addr: s[k].mem_addr,
            }
        };
        assert_same_error("bad pc and a load", &machine, &image, &s, input, &want);
    }

    // An instruction this version cannot prove, first run at step `k` (in another chunk than
    // the loads), against a memory error before or after it.
    let fresh = |k: usize| steps[..k].iter().all(|s| s.pc != steps[k].pc);
    let k = (early + 64..n).find(|&k| fresh(k)).unwrap();
    let after = *loads.iter().find(|&&j| j > k + 64).unwrap();
    let mut unprovable = image.clone();
    for c in &mut unprovable.code {
        if c.0 == steps[k].pc {
            c.1 = 0;
        }
    }
    let want = TraceError::Unsupported {
        pc: steps[k].pc,
        word: steps[k].word,
    };
    assert_same_error("unprovable", &machine, &unprovable, &steps, input, &want);
    for (j, want_unprovable) in [(early, false), (after, true)] {
        let mut s = steps.clone();
        s[j].mem_val ^= 1;
        let want = if want_unprovable {
            want.clone()
        } else {
            TraceError::MemoryMismatch {
                pc: s[j].pc,
                addr: s[j].mem_addr,
            }
        };
        assert_same_error(
            "unprovable and a load",
            &machine,
            &unprovable,
            &s,
            input,
            &want,
        );
    }

    // An ALU operation no table accepts (a machine whose DVRM table receives no operations,
    // a program that divides): the first such operation.
    let name = "isa/div";
    let (image, steps) = load(name);
    let machine = machine_for(&image).without_alu_ops(TableId::Dvrm);
    assert_eq!(machine.tables().len(), TableId::COUNT);
    let accepted = |op: u32| TableId::ALU.into_iter().any(|t| machine.accepts(t, op));
    assert!(kestrel_core::rv::dvrm::OPS.iter().all(|&op| !accepted(op)));
    let first = steps
        .iter()
        .find_map(|s| {
            let d = decode_for_air(s.pc, s.word)?;
            (d.class[class::ALU] && !accepted(d.alu_op)).then_some(d.alu_op)
        })
        .expect("isa/div divides");
    assert_same_error(
        "no ALU table",
        &machine,
        &image,
        &steps,
        input_of(name),
        &TraceError::NoAluTable { op: first },
    );
}

/// Sequential and parallel packing side by side on a sha256 run of `PACK_KIB` KiB of input
/// (default 12: about 1.1M steps), or on the fibonacci guest with input `PACK_FIB` when it
/// is set (840000: about 4.2M steps), best and median of `PACK_REPS` (default 7) runs each.
#[test]
#[ignore = "timing driver; run with --ignored --nocapture"]
fn pack_timing() {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let (guest, input) = match std::env::var("PACK_FIB") {
        Ok(n) => ("fibonacci", n.into_bytes()),
        Err(_) => ("sha256", vec![0x61u8; env("PACK_KIB", 12) << 10]),
    };
    let reps = env("PACK_REPS", 7);
    let (program, records, _) = run_recorded(guest, &input);
    let image = program_image(&program);
    let machine = machine_for(&image);
    let par = Rayon::default();
    let n = records.len();
    eprintln!(
        "{guest}, {} B input: {n} steps, {} threads, chunks of {}",
        input.len(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        par.chunk_len
    );
    let time = |f: &dyn Fn() -> PackedTraces| {
        let start = Instant::now();
        let p = f();
        let dt = start.elapsed();
        drop(p);
        dt
    };
    // Alternated, so that both see the same load on the machine.
    let (mut seq, mut parl): (Vec<Duration>, Vec<Duration>) = (0..reps)
        .map(|_| {
            (
                time(&|| pack_traces(&machine, &image, &records, &input).unwrap()),
                time(&|| pack_traces_with(&par, &machine, &image, &records, &input).unwrap()),
            )
        })
        .unzip();
    seq.sort();
    parl.sort();
    let (best, median) = (|t: &[Duration]| t[0], |t: &[Duration]| t[t.len() / 2]);
    let ns = |d: Duration| d.as_nanos() as f64 / n as f64;
    for (what, t) in [("sequential", &seq), ("parallel", &parl)] {
        eprintln!(
            "{what:>10}: best {:?} ({:.1} ns/step), median {:?}",
            best(t),
            ns(best(t)),
            median(t)
        );
    }
    eprintln!(
        "speedup: {:.2}x (best), {:.2}x (median)",
        best(&seq).as_secs_f64() / best(&parl).as_secs_f64(),
        median(&seq).as_secs_f64() / median(&parl).as_secs_f64()
    );
    // Where the parallel pack's time goes: the calls through the ParMap are the decode, the
    // step chunks, the table jobs and BITWISE's sum; the replay runs between the first two.
    let timed = Timed {
        inner: par,
        start: Instant::now(),
        calls: Mutex::new(Vec::new()),
    };
    let p = pack_traces_with(&timed, &machine, &image, &records, &input).unwrap();
    let end = timed.start.elapsed();
    drop(p);
    let calls = timed.calls.into_inner().unwrap();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // The calls: decode, step chunks, table jobs, then EQ's fill and BITWISE's sum; the
    // replay runs between the first two, and the rest between and after the calls.
    let names = ["decode", "steps", "tables", "eq fill", "bitwise"];
    let mut line = String::new();
    let mut gaps = Duration::ZERO;
    let mut prev = Duration::ZERO;
    for (k, &(s, e)) in calls.iter().enumerate() {
        if k == 1 {
            line += &format!("replay {:.1}, ", ms(s - prev));
        } else {
            gaps += s - prev;
        }
        let name = if calls.len() == names.len() {
            names[k]
        } else {
            ["decode", "steps", "tables"]
                .get(k)
                .copied()
                .unwrap_or("other")
        };
        line += &format!("{name} {:.1}, ", ms(e - s));
        prev = e;
    }
    eprintln!(
        "one parallel pack, ms: {line}rest {:.1}, total {:.1}",
        ms(gaps + (end - prev)),
        ms(end)
    );
}

/// A [`ParMap`] noting when each call starts and ends (since `start`).
struct Timed<P> {
    inner: P,
    start: Instant,
    calls: Mutex<Vec<(Duration, Duration)>>,
}

impl<P: ParMap> Timed<P> {
    fn note<R>(&self, call: impl FnOnce() -> R) -> R {
        let s = self.start.elapsed();
        let r = call();
        let e = self.start.elapsed();
        self.calls.lock().unwrap().push((s, e));
        r
    }
}

impl<P: ParMap> ParMap for Timed<P> {
    fn map_mut<T, R, F>(&self, items: &mut [T], f: F) -> Vec<R>
    where
        T: Send,
        R: Send,
        F: Fn(usize, &mut T) -> R + Sync + Send,
    {
        self.note(|| self.inner.map_mut(items, f))
    }

    fn map<R, F>(&self, n: usize, f: F) -> Vec<R>
    where
        R: Send,
        F: Fn(usize) -> R + Sync + Send,
    {
        self.note(|| self.inner.map(n, f))
    }

    fn chunk_len(&self) -> usize {
        self.inner.chunk_len()
    }

    fn zeroed_felts(&self, n: usize) -> Vec<kestrel_core::field::Felt> {
        self.inner.zeroed_felts(n)
    }
}
