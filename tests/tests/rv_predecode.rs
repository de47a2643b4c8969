//! The packing pass's decode run ahead (`Predecoder`, chunk by chunk, in any order and on
//! any thread, as `kestrel prove` runs it while the run is recorded): the pass then packs
//! exactly what it packs when it decodes itself, fails with the same error, and sets aside
//! a decode made for other steps than its own. `record_predecoded` records the same run as
//! a plain recording.

use kestrel_core::par::ParMap;
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::decode::{class, decode_for_air, ProgramImage};
use kestrel_core::rv::machine::{PackedTraces, Rv64Machine, TraceError};
use kestrel_core::rv::pack::{
    pack_traces_overlapped, pack_traces_predecoded, Lookups, Predecoded, Predecoder,
};
use kestrel_prover_gpu::par::Rayon;
use kestrel_prover_gpu::rv::{machine_for, program_image, record_predecoded, steps};
use kestrel_prover_gpu::vm::{Program, Vm, VmError};
use kestrel_tests::vm_support::{input_of, run_recorded, PROVABLE_PROGRAMS};

const LOOKUPS: [Lookups; 2] = [Lookups::Host, Lookups::Device];

fn pack(
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    input: &[u8],
    lookups: Lookups,
    chunk_len: usize,
    pre: Option<Predecoded>,
) -> Result<PackedTraces, TraceError> {
    let par = Rayon { chunk_len };
    match pre {
        None => pack_traces_overlapped(&par, machine, image, steps, input, lookups, |_| ()),
        Some(p) => {
            pack_traces_predecoded(&par, machine, image, steps, input, lookups, Some(p), |_| ())
        }
    }
    .map(|(p, ())| p)
}

/// `steps` decoded ahead for a segment of `n` steps from `clk0`, the chunks in reverse
/// order (every chunk but `skip`).
fn predecode(
    machine: &Rv64Machine,
    image: &ProgramImage,
    steps: &[Step],
    lookups: Lookups,
    chunk_len: usize,
    (n, clk0): (usize, u64),
    skip: Option<usize>,
) -> Predecoded {
    let pre = Predecoder::new(machine, image, lookups, n, clk0, &Rayon { chunk_len });
    let mut out = pre.output();
    let mut chunks: Vec<_> = out.chunks().into_iter().enumerate().collect();
    chunks.reverse();
    for (c, chunk) in chunks {
        if Some(c) != skip {
            let r = chunk.range();
            pre.decode(
                &steps[r.start.min(steps.len())..r.end.min(steps.len())],
                chunk,
            );
        }
    }
    out
}

#[test]
fn a_predecoded_pack_is_the_pack() {
    for &(name, input) in PROVABLE_PROGRAMS {
        let (program, records, _) = run_recorded(name, input);
        let image = program_image(&program);
        let machine = machine_for(&image);
        let steps = steps(&records);
        let n = steps.len();
        for lookups in LOOKUPS {
            for chunk_len in [64, 1000] {
                let want = pack(&machine, &image, &steps, input, lookups, chunk_len, None).unwrap();
                let pre = predecode(&machine, &image, &steps, lookups, chunk_len, (n, 0), None);
                let got = pack(
                    &machine,
                    &image,
                    &steps,
                    input,
                    lookups,
                    chunk_len,
                    Some(pre),
                );
                assert!(got.unwrap() == want, "{name} {lookups:?} {chunk_len}");
            }
        }
    }
}

/// A decode made for the pass's steps is used (a decode of other steps, of the right
/// shape, gives their error); one of another shape, or with a chunk missing, is set aside
/// (the pass decodes its own steps and succeeds).
#[test]
fn a_predecode_is_used_only_where_it_fits() {
    let input = input_of("sort");
    let (image, machine, steps) = guest("sort");
    let n = steps.len();
    let mut other = steps.clone();
    other[n / 2].pc = 0x10;
    let chunk_len = 64;
    assert!(n > 4 * chunk_len);
    for lookups in LOOKUPS {
        let want = pack(&machine, &image, &steps, input, lookups, chunk_len, None).unwrap();
        let run = |pre| {
            pack(
                &machine,
                &image,
                &steps,
                input,
                lookups,
                chunk_len,
                Some(pre),
            )
        };
        let pre = |lk, shape, skip| predecode(&machine, &image, &other, lk, chunk_len, shape, skip);
        // The right shape: the decode of the other steps is what the pass goes on.
        assert_eq!(
            run(pre(lookups, (n, 0), None)).err(),
            Some(TraceError::NotInProgram { pc: 0x10 }),
            "{lookups:?}: a fitting predecode is used"
        );
        let other_lookups = match lookups {
            Lookups::Host => Lookups::Device,
            Lookups::Device => Lookups::Host,
        };
        for (what, p) in [
            ("another first clock", pre(lookups, (n, 1), None)),
            ("more steps", pre(lookups, (n + 1, 0), None)),
            ("fewer steps", pre(lookups, (n - 1, 0), None)),
            ("other lookups", pre(other_lookups, (n, 0), None)),
            (
                "a chunk missing",
                pre(lookups, (n, 0), Some(n / 2 / chunk_len)),
            ),
        ] {
            assert!(run(p).unwrap() == want, "{lookups:?}: {what}");
        }
    }
}

#[test]
fn a_predecoded_pack_fails_like_the_pack() {
    let input = input_of("sort");
    let (image, machine, mut steps) = guest("sort");
    let n = steps.len();
    let chunk_len = 64;
    // A pc outside the program in a late chunk; with it, a loaded value that memory does
    // not hold in an earlier chunk: the earliest step's error, the memory's.
    let truncated = steps[..n - 1].to_vec();
    steps[3 * n / 4].pc = 0x10;
    let load = (n / 4..n / 2)
        .find(|&k| decode_for_air(steps[k].pc, steps[k].word).is_some_and(|d| d.class[class::LOAD]))
        .expect("sort loads");
    let mut both = steps.clone();
    both[load].mem_val ^= 1;
    for (what, s, want) in [
        (
            "bad pc",
            steps.clone(),
            TraceError::NotInProgram { pc: 0x10 },
        ),
        (
            "bad pc and a load before it",
            both.clone(),
            TraceError::MemoryMismatch {
                pc: both[load].pc,
                addr: both[load].mem_addr,
            },
        ),
        ("truncated", truncated, TraceError::NoExit),
    ] {
        for lookups in LOOKUPS {
            let m = s.len();
            let plain = pack(&machine, &image, &s, input, lookups, chunk_len, None).err();
            assert_eq!(plain.as_ref(), Some(&want), "{what} {lookups:?}: the pass");
            let pre = predecode(&machine, &image, &s, lookups, chunk_len, (m, 0), None);
            let got = pack(&machine, &image, &s, input, lookups, chunk_len, Some(pre)).err();
            assert_eq!(got, plain, "{what} {lookups:?}");
        }
    }
}

/// A guest's run on its listed input: its image, machine and steps.
fn guest(name: &str) -> (ProgramImage, Rv64Machine, Vec<Step>) {
    let (program, records, _) = run_recorded(name, input_of(name));
    let image = program_image(&program);
    let machine = machine_for(&image);
    (image, machine, steps(&records))
}

fn program(name: &str) -> Program {
    run_recorded(name, input_of(name)).0
}

/// `record_predecoded` records what a plain recording records, its decode is the pass's,
/// and a run of another length than it was told ends in an error or a shorter exit.
#[test]
fn recording_with_the_decode_records_the_run() {
    for name in ["sort", "isa/div"] {
        let input = input_of(name);
        let (_, records, exit) = run_recorded(name, input);
        let program = program(name);
        let image = program_image(&program);
        let machine = machine_for(&image);
        let n = records.len();
        for lookups in LOOKUPS {
            for chunk_len in [64, 1000, 1 << 16] {
                let pre = Predecoder::new(&machine, &image, lookups, n, 0, &Rayon { chunk_len });
                let mut vm = Vm::new(&program, input.to_vec()).with_max_cycles(n as u64);
                let (got_exit, got, decoded) = record_predecoded(&mut vm, n, &pre);
                assert_eq!(got_exit.unwrap(), exit, "{name}");
                assert!(got == records, "{name}: records");
                let steps = steps(&records);
                let want = pack(&machine, &image, &steps, input, lookups, chunk_len, None).unwrap();
                let packed = pack(
                    &machine,
                    &image,
                    &steps,
                    input,
                    lookups,
                    chunk_len,
                    Some(decoded),
                );
                assert!(packed.unwrap() == want, "{name} {lookups:?} {chunk_len}");
            }
        }
        // Told a longer run: it exits short of it (the caller compares the exits).
        let pre = Predecoder::new(
            &machine,
            &image,
            Lookups::Device,
            n + 70,
            0,
            &Rayon { chunk_len: 64 },
        );
        let mut vm = Vm::new(&program, input.to_vec()).with_max_cycles(n as u64 + 70);
        let (e, recs, _) = record_predecoded(&mut vm, n + 70, &pre);
        assert_eq!(e.unwrap().cycles, n as u64, "{name}: longer");
        assert_eq!(recs[..n], records[..], "{name}: longer");
        // Told a shorter run: the cycle limit ends it.
        let pre = Predecoder::new(
            &machine,
            &image,
            Lookups::Device,
            n - 70,
            0,
            &Rayon { chunk_len: 64 },
        );
        let mut vm = Vm::new(&program, input.to_vec()).with_max_cycles(n as u64 - 70);
        let (e, _, _) = record_predecoded(&mut vm, n - 70, &pre);
        assert!(
            matches!(e, Err(VmError::MaxCycles { .. })),
            "{name}: shorter: {e:?}"
        );
    }
}

/// The chunks decode on the pool in parallel as they would while recording.
#[test]
fn chunks_decode_on_any_thread() {
    let input = input_of("sort");
    let (image, machine, steps) = guest("sort");
    let n = steps.len();
    let want = pack(&machine, &image, &steps, input, Lookups::Device, 64, None).unwrap();
    let pre = Predecoder::new(
        &machine,
        &image,
        Lookups::Device,
        n,
        0,
        &Rayon { chunk_len: 64 },
    );
    let mut out = pre.output();
    let mut chunks: Vec<_> = out.chunks().into_iter().map(Some).collect();
    Rayon { chunk_len: 64 }.map_mut(&mut chunks, |_, c| {
        if let Some(c) = c.take() {
            let r = c.range();
            pre.decode(&steps[r], c);
        }
    });
    drop(chunks);
    let got = pack(
        &machine,
        &image,
        &steps,
        input,
        Lookups::Device,
        64,
        Some(out),
    )
    .unwrap();
    assert!(got == want);
}
