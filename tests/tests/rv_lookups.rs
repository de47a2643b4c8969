//! BITWISE's multiplicities from the AIR's own sends: every table's program of byte sends
//! (`program::compile_sends`), run over its trace on the host (`byte_sends_host`, the
//! reference of the device's `ks_bytes` kernels), counts exactly the packing pass's
//! BITWISE trace on every program; the packing pass with `Lookups::Device` packs the same
//! records, leaves the run tables to the device (their records' host fills are the host
//! pass's traces) and BITWISE with REGISTER's lookups, and fails like the host pass; a
//! trace whose sends BITWISE has no row for is an error.
//!
//! The device's counts against these are in `cuda_fill.rs` (`bitwise_*`, GPU only).

use kestrel_core::air::debug::preprocessed_traces;
use kestrel_core::air::Machine;
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::bitwise::{ByteCounts, WIDTH};
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::decode::{self, fields_of};
use kestrel_core::rv::machine::{MemCounts, PackedTraces, Rv64Machine, TableId, TraceError};
use kestrel_core::rv::memw;
use kestrel_core::rv::pack::{pack_traces_overlapped, Lookups, Segmenter};
use kestrel_core::rv::page::MemoryImage;
use kestrel_core::rv::BUS_BYTE;
use kestrel_prover_gpu::par::{Rayon, StageClock};
use kestrel_prover_gpu::program::{
    byte_sends_host, compile_sends, BYTE_ROWS, MAX_BYTE_MULTIPLICITY,
};
use kestrel_prover_gpu::rv::{machine_for, program_image, steps};
use kestrel_tests::vm_support::{input_of, run_recorded, PROVABLE_PROGRAMS};

fn load(name: &str) -> (ProgramImage, Vec<Step>) {
    let (program, records, _) = run_recorded(name, input_of(name));
    (program_image(&program), steps(&records))
}

fn pack(
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    lookups: Lookups,
    chunk_len: usize,
) -> Result<PackedTraces, TraceError> {
    pack_traces_overlapped(
        &Rayon { chunk_len },
        machine,
        image,
        steps,
        input,
        lookups,
        |_| (),
    )
    .map(|(p, ())| p)
}

/// BITWISE's main trace column-major (`op · 2^16 + row`), as the device holds it.
fn columns(bitwise: &RowMajorMatrix) -> Vec<u64> {
    let mut out = vec![0u64; WIDTH * BYTE_ROWS];
    for row in 0..BYTE_ROWS {
        for (op, v) in bitwise.row(row).iter().enumerate() {
            out[op * BYTE_ROWS + row] = v.as_u64();
        }
    }
    out
}

/// Row-major counts (`row · WIDTH + op`) to column-major.
fn transpose(counts: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; counts.len()];
    for (row, c) in counts.chunks_exact(WIDTH).enumerate() {
        for (op, &v) in c.iter().enumerate() {
            out[op * BYTE_ROWS + row] = v;
        }
    }
    out
}

/// `hist` plus every send on the byte bus of the tables of `traces` (all but BITWISE).
fn count_sends(
    machine: &Rv64Machine,
    traces: &[(TableId, &RowMajorMatrix)],
    public: &[Felt],
    hist: &mut [u64],
) -> Result<(), String> {
    let airs = machine.tables();
    let pre = preprocessed_traces(machine);
    for &(t, m) in traces {
        let p = compile_sends(airs[t.index()], public, BUS_BYTE).unwrap();
        byte_sends_host(&p, m, pre[t.index()].as_ref(), hist).map_err(|e| format!("{t}: {e}"))?;
    }
    Ok(())
}

/// The premise of counting on the device: the AIR's sends over every other table's trace
/// are BITWISE's multiplicities as the packing pass counts them, on every program.
#[test]
fn the_air_sends_count_bitwise() {
    for &(name, input) in PROVABLE_PROGRAMS {
        let (image, steps) = load(name);
        let machine = machine_for(&image);
        let packed = pack(&machine, &image, &steps, input, Lookups::Host, 64).unwrap();
        let (traces, public) = packed.into_host_traces(&image).unwrap();
        let others: Vec<(TableId, &RowMajorMatrix)> = TableId::ALL
            .into_iter()
            .zip(&traces)
            .filter(|(t, _)| *t != TableId::Bitwise)
            .collect();
        let mut hist = vec![0u64; WIDTH * BYTE_ROWS];
        count_sends(&machine, &others, &public, &mut hist).unwrap();
        let want = columns(&traces[TableId::Bitwise.index()]);
        assert!(hist.iter().sum::<u64>() > 0, "{name}: no lookups");
        let diff = hist.iter().zip(&want).position(|(a, b)| a != b);
        assert!(
            diff.is_none(),
            "{name}: BITWISE differs at op {} row {:#06x}",
            diff.unwrap_or(0) / BYTE_ROWS,
            diff.unwrap_or(0) % BYTE_ROWS
        );
    }
}

/// With `Lookups::Device` the pass packs the same records (but the CPU's operands and
/// MEMW_R's accesses, which the device's register walk makes, and the memory accesses,
/// which its memory walk makes: those are counted), makes no distinct rows, leaves BITWISE
/// and the run tables out (their records' host fills, DECODE's from the steps' DECODE rows,
/// are the host pass's traces), and hands on REGISTER's lookups: those plus every other
/// table's sends (over their host fills) are the host pass's BITWISE.
#[test]
fn device_lookups_pack_the_same_records() {
    for &(name, input) in PROVABLE_PROGRAMS {
        let (image, steps) = load(name);
        let machine = machine_for(&image);
        for chunk_len in [1, 64, 1 << 16] {
            let host = pack(&machine, &image, &steps, input, Lookups::Host, chunk_len).unwrap();
            let dev = pack(&machine, &image, &steps, input, Lookups::Device, chunk_len).unwrap();
            // The same records but those the device's register walk makes (left empty).
            let (mut cpu, mut memw_r) = (host.cpu.clone(), host.memw_r.clone());
            (cpu.rs1, cpu.rs2) = (Vec::new(), Vec::new());
            (memw_r.meta, memw_r.old, memw_r.new) = (Vec::new(), Vec::new(), Vec::new());
            assert_eq!(cpu, dev.cpu, "{name}");
            assert_eq!(memw_r, dev.memw_r, "{name}");
            // The memory accesses are counted, not kept (the device's memory walk makes
            // them), but for the system calls' transfers; the words as first touched are
            // the host pass's.
            let counts = MemCounts {
                loads: host.loads.len(),
                stores: host.stores.len(),
                mem_a: host.mem_a.len(),
                mem_s: host.mem_s.len(),
            };
            assert_eq!(host.mem_counts, None, "{name}");
            assert_eq!(dev.mem_counts, Some(counts), "{name}");
            assert!(dev.loads.is_empty() && dev.stores.is_empty() && dev.mem_s.is_empty());
            let transfers = memw::transfers(&host.cpu, &host.mem_a, &fields_of(&image));
            assert_eq!(Some(dev.mem_a.clone()), transfers, "{name}");
            assert_eq!(host.mem_start, dev.mem_start, "{name}");
            // The real rows, but the ALU tables' (whose distinct rows the device makes).
            let (hr, dr) = (host.real_rows(), dev.real_rows());
            for t in TableId::ALL
                .into_iter()
                .filter(|t| !TableId::ALU.contains(t))
            {
                assert_eq!(hr[t.index()], dr[t.index()], "{name}: {t}'s real rows");
            }
            // Records a device completes fill no host trace.
            assert!(dev.fill_host(&image, TableId::Load).is_none(), "{name}");
            assert_eq!(host.ecalls, dev.ecalls, "{name}");
            assert_eq!(host.io, dev.io, "{name}");
            assert_eq!(host.public, dev.public, "{name}");
            assert!(
                dev.lt.is_empty()
                    && dev.eq.is_empty()
                    && dev.shift.is_empty()
                    && dev.mul.is_empty()
                    && dev.dvrm.is_empty(),
                "{name}: distinct rows made on the host"
            );
            assert!(host.run_lookups.is_none() && host.run.is_none(), "{name}");
            // The run tables are left to the device: their records' host fills are the host
            // pass's traces, DECODE's with the steps' DECODE rows counted.
            let run = dev.run.as_ref().expect("run records");
            assert_eq!(run.mult, None, "{name}: DECODE counted on the host");
            let mut mult = vec![0u64; image.code.len()];
            for &r in &dev.cpu.dec_row {
                mult[r as usize] += 1;
            }
            let mem = MemoryImage::of(&image);
            let mut run_fills = Vec::new();
            for t in TableId::ALL {
                let (a, b) = (&host.traces[t.index()], &dev.traces[t.index()]);
                if t == TableId::Bitwise {
                    assert!(a.is_some() && b.is_none(), "{name}: BITWISE");
                } else if t.is_run_table() {
                    let mut bytes = ByteCounts::default();
                    let fill = match t {
                        TableId::Decode => decode::build_trace(&image, [&mult[..]]),
                        _ => run.fill_host(t, &image, &mem, &mut bytes).unwrap(),
                    };
                    assert!(b.is_none(), "{name}: {t} built on the host");
                    assert!(a.as_ref() == Some(&fill), "{name}: {t}");
                    run_fills.push((t, fill));
                } else {
                    assert!(a == b, "{name}: {t}");
                }
            }
            // REGISTER's lookups are handed on (their multiplicity is preprocessed); the
            // device counts the other run tables' from their traces.
            let base = dev.run_lookups.as_deref().expect("run tables' lookups");
            let mut hist = transpose(base);
            let fills: Vec<(TableId, RowMajorMatrix)> = TableId::SEGMENT_TABLES
                .into_iter()
                .map(|t| (t, host.fill_host(&image, t).expect("a record table")))
                .chain(
                    run_fills
                        .into_iter()
                        .filter(|(t, _)| *t != TableId::Register),
                )
                .collect();
            let refs: Vec<(TableId, &RowMajorMatrix)> =
                fills.iter().map(|(t, m)| (*t, m)).collect();
            count_sends(&machine, &refs, &dev.public, &mut hist).unwrap();
            let want = columns(host.traces[TableId::Bitwise.index()].as_ref().unwrap());
            assert!(
                hist == want,
                "{name} ({chunk_len}): device-side counts differ"
            );
        }
    }
}

/// The device-lookups pass fails with the host pass's error (a pc outside the program, a
/// load that disagrees with memory, a run that does not exit).
#[test]
fn device_lookups_fail_like_the_host_pass() {
    let name = "sort";
    let input = input_of(name);
    let (image, steps) = load(name);
    let machine = machine_for(&image);
    let k = steps.len() / 2;
    let mut bad_pc = steps.clone();
    bad_pc[k].pc = 0x10;
    let mut bad_load = steps.clone();
    let j = (0..steps.len())
        .find(|&j| steps[j].mem_addr != 0 && j > 100)
        .unwrap();
    bad_load[j].mem_val ^= 1;
    for (what, s) in [
        ("bad pc", &bad_pc[..]),
        ("bad load", &bad_load[..]),
        ("no exit", &steps[..steps.len() - 1]),
    ] {
        for chunk_len in [1, 64] {
            let h = pack(&machine, &image, s, input, Lookups::Host, chunk_len).err();
            let d = pack(&machine, &image, s, input, Lookups::Device, chunk_len).err();
            assert!(h.is_some(), "{what}: the host pass accepts it");
            assert_eq!(h, d, "{what} ({chunk_len})");
        }
    }
}

/// A trace whose sends BITWISE has no row for is an error, never a count: a byte cell
/// moved past 255 (alone, and with the cells it is summed with moved to keep the CPU's
/// other constraints), an operation past BITWISE's columns, a multiplicity of 2^26; a cell
/// moved to another byte counts that byte instead.
#[test]
fn sends_without_a_bitwise_row_are_errors() {
    let name = "fibonacci";
    let (image, steps) = load(name);
    let machine = machine_for(&image);
    let input = input_of(name);
    let packed = pack(&machine, &image, &steps, input, Lookups::Host, 64).unwrap();
    let public = packed.public.clone();
    let (traces, _) = packed.into_host_traces(&image).unwrap();
    let airs = machine.tables();
    // The MEMW_R table range-checks byte pairs of its timestamp difference: find a cell
    // that one of its sends reads as `x`, by moving each cell and watching the counts.
    let t = TableId::MemwR;
    let p = compile_sends(airs[t.index()], &public, BUS_BYTE).unwrap();
    let trace = &traces[t.index()];
    let count = |m: &RowMajorMatrix| -> Result<Vec<u64>, String> {
        let mut hist = vec![0u64; WIDTH * BYTE_ROWS];
        byte_sends_host(&p, m, None, &mut hist)
            .map(|()| hist)
            .map_err(|e| e.to_string())
    };
    let base = count(trace).unwrap();
    let mut byte_cells = 0;
    for col in 0..trace.width {
        let mut m = trace.clone();
        let v = m.row(0)[col];
        let moved = Felt::new((v.as_u64() + 1) % 256);
        m.values[col] = moved;
        // A byte cell: another byte moves counts but not their number (a cell that
        // changes the number is a multiplicity); past 255, an error.
        let Ok(h) = count(&m) else { continue };
        if h == base || h.iter().sum::<u64>() != base.iter().sum::<u64>() {
            continue;
        }
        byte_cells += 1;
        m.values[col] = Felt::new(256);
        assert!(count(&m).is_err(), "column {col} = 256 counted");
        m.values[col] = Felt::new(0) - Felt::ONE;
        assert!(count(&m).is_err(), "column {col} = -1 counted");
    }
    assert!(byte_cells > 0, "no byte cell found in MEMW_R");
    // An operation past BITWISE's columns and a huge multiplicity: a hand-made send.
    use kestrel_core::air::{Air, AirBuilder};
    struct Sends(u64, u64);
    impl Air for Sends {
        fn name(&self) -> &str {
            "SENDS"
        }
        fn width(&self) -> usize {
            1
        }
        fn eval<B: AirBuilder>(&self, b: &mut B) {
            let c = |v: u64| B::Expr::from(Felt::new(v));
            b.send(BUS_BYTE, c(self.1), &[c(self.0), c(1), c(2), c(0)]);
        }
    }
    let one = RowMajorMatrix::new(vec![Felt::ZERO; 16], 1);
    for (op, m, ok) in [
        (0, 1, true),
        (WIDTH as u64 - 1, MAX_BYTE_MULTIPLICITY - 1, true),
        (WIDTH as u64, 1, false),
        (0, MAX_BYTE_MULTIPLICITY, false),
        (0, 0, true),
    ] {
        let p = compile_sends(&Sends(op, m), &[], BUS_BYTE).unwrap();
        let mut hist = vec![0u64; WIDTH * BYTE_ROWS];
        let r = byte_sends_host(&p, &one, None, &mut hist);
        assert_eq!(r.is_ok(), ok, "op {op} multiplicity {m}");
        if ok {
            let at = op as usize * BYTE_ROWS + (1 | 2 << 8);
            assert_eq!(hist[at], 16 * m, "op {op} multiplicity {m}");
            assert_eq!(hist.iter().sum::<u64>(), 16 * m);
        }
    }
}

/// Packs `steps` with device lookups in segments of `seg` steps, the replay in parallel
/// (where it can) or sequentially; how many segments the parallel replay packed.
fn pack_segments(
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    seg: usize,
    parallel: bool,
) -> (Result<PackedTraces, TraceError>, Vec<PackedTraces>, usize) {
    let mut run = Segmenter::new(machine, image, input)
        .unwrap()
        .with_lookups(Lookups::Device);
    if !parallel {
        run = run.with_sequential_replay();
    }
    let parts: Vec<&[Step]> = steps.chunks(seg).collect();
    let (mut packed, mut ran) = (Vec::new(), 0);
    let mut out = Err(TraceError::Empty);
    for (i, part) in parts.iter().enumerate() {
        let par = StageClock::new(Rayon { chunk_len: 64 });
        let p = run.pack_segment(&par, part, i + 1 == parts.len());
        ran += par.stages().iter().any(|(s, _)| *s == "replay: memory") as usize;
        match p {
            Ok(p) => packed.push(p),
            Err(e) => {
                out = Err(e);
                break;
            }
        }
    }
    if packed.len() == parts.len() {
        let par = Rayon { chunk_len: 64 };
        out = run.finish(&par).map(|r| packed.pop().unwrap().with_run(r));
    }
    (out, packed, ran)
}

/// The parallel replay (device lookups) packs what the sequential one does, field for
/// field, on every program, whole and in three segments (memory and registers carried
/// across), and it is the one that ran.
#[test]
fn parallel_replay_is_the_sequential_one() {
    for &(name, input) in PROVABLE_PROGRAMS {
        let (image, steps) = load(name);
        let machine = machine_for(&image);
        for seg in [steps.len(), steps.len() / 3 + 1] {
            let parts = steps.len().div_ceil(seg);
            let (p, ps, ran) = pack_segments(&machine, &image, &steps, input, seg, true);
            let (s, ss, none) = pack_segments(&machine, &image, &steps, input, seg, false);
            assert_eq!(ran, parts, "{name}: the parallel replay did not run");
            assert_eq!(none, 0, "{name}");
            assert!(p.is_ok(), "{name}: {:?}", p.err());
            assert!(p == s && ps == ss, "{name} ({parts} segments)");
        }
    }
}

/// Attacks on the records the parallel replay must refuse as the sequential replay and
/// the host pass do (it gives up and the sequential replay names the earliest failing
/// step), each alone and several cells changed together: loaded or overwritten bytes
/// that memory does not hold, a store of another value (caught at the next load of it),
/// bytes above the access's width, an address past 32 bits or outside the memory map, a
/// store into read-only code with the bytes it holds, a system call the VM has none of,
/// and a read past the input.
#[test]
fn parallel_replay_refuses_what_the_sequential_one_does() {
    use kestrel_core::rv::decode::{class, decode_for_air};
    let mut cases: Vec<(String, &str, Vec<Step>, Vec<u8>)> = Vec::new();
    for (name, input) in [
        ("sort", input_of("sort").to_vec()),
        ("sha256", b"abc".to_vec()),
    ] {
        let (_, steps) = load_with(name, &input);
        let class_of = |s: &Step| decode_for_air(s.pc, s.word).map(|d| d.class);
        let find = |c: usize, from: usize| {
            (from..steps.len())
                .find(|&j| class_of(&steps[j]).is_some_and(|k| k[c]))
                .unwrap()
        };
        let mid = steps.len() / 2;
        let (ld, st, call) = (
            find(class::LOAD, mid),
            find(class::STORE, mid),
            find(class::ECALL, 0),
        );
        let mut add = |what: &str, f: &dyn Fn(&mut Vec<Step>)| {
            let mut s = steps.clone();
            f(&mut s);
            cases.push((format!("{name}: {what}"), name, s, input.clone()));
        };
        add("loaded bytes", &|s| s[ld].mem_val ^= 1);
        add("overwritten bytes", &|s| s[st].mem_val ^= 1 << 2);
        add("high bytes", &|s| {
            let w = (ld..s.len())
                .find(|&j| {
                    let d = decode_for_air(s[j].pc, s[j].word);
                    d.is_some_and(|d| d.class[class::LOAD] && (s[j].word >> 12) & 3 != 3)
                })
                .unwrap();
            s[w].mem_val |= 1 << 63;
        });
        add("stored value", &|s| {
            // A store whose word a later load reads back.
            let (j, _) = (mid..s.len())
                .filter(|&j| class_of(&s[j]).is_some_and(|k| k[class::STORE]))
                .find_map(|j| {
                    let next = (j + 1..s.len()).find(|&i| s[i].mem_addr == s[j].mem_addr)?;
                    class_of(&s[next])
                        .is_some_and(|k| k[class::LOAD])
                        .then_some((j, next))
                })
                .unwrap();
            s[j].rs2_val ^= 1;
        });
        add("address past 32 bits", &|s| s[ld].mem_addr |= 1 << 40);
        add("unmapped address", &|s| s[ld].mem_addr = 0x100);
        add("store into code", &|s| {
            // A word-sized store over an instruction, with the instruction's bytes.
            let j = (0..s.len())
                .find(|&j| {
                    let d = decode_for_air(s[j].pc, s[j].word);
                    d.is_some_and(|d| d.class[class::STORE] && (s[j].word >> 12) & 7 == 2)
                })
                .unwrap();
            let k = s.len() / 3;
            s[j].mem_addr = s[k].pc as u64;
            s[j].mem_val = s[k].word as u64;
        });
        add("unknown call", &|s| s[call].rs1_val = 4000);
        add("steps cut short", &|s| s.truncate(mid));
    }
    let (_, steps) = load_with("sha256", b"abc");
    let reads: Vec<usize> = (0..steps.len())
        .filter(|&j| {
            let d = decode_for_air(steps[j].pc, steps[j].word);
            d.is_some_and(|d| d.class[class::ECALL]) && steps[j].rs1_val == 63
        })
        .collect();
    assert!(!reads.is_empty(), "sha256 reads no input");
    let mut past = steps.clone();
    past[reads[0]].rd_val += 1;
    let read_past = (
        "sha256: a read past the input".into(),
        "sha256",
        past,
        b"abc".to_vec(),
    );
    cases.push(read_past);
    for (what, name, s, input) in &cases {
        let image = load_with(name, input).0;
        let machine = machine_for(&image);
        let h = pack(&machine, &image, s, input, Lookups::Host, 64).err();
        assert!(h.is_some(), "{what}: the host pass accepts it");
        for seg in [s.len(), s.len() / 3 + 1] {
            let (p, _, _) = pack_segments(&machine, &image, s, input, seg, true);
            let (q, _, _) = pack_segments(&machine, &image, s, input, seg, false);
            assert_eq!(p.as_ref().err(), q.as_ref().err(), "{what} ({seg})");
            if seg == s.len() {
                assert_eq!(p.err(), h, "{what}");
            }
        }
    }
}

fn load_with(name: &str, input: &[u8]) -> (ProgramImage, Vec<Step>) {
    let (program, records, _) = run_recorded(name, input);
    (program_image(&program), steps(&records))
}
