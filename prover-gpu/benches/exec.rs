//! Executor throughput on compute-bound guests: the pure path and the recording path; and
//! the trace packing pass over the recorded run (`pack`: every host-built table, the records
//! for device fills and the byte lookups; what the `trace` phase spends on the host).
//!
//! `ahead` is a segmented run's executor running ahead through checkpoints over the
//! recorded run in segments of 2^20 (`Segmenter::fork` before each, then its packing with
//! device lookups: the parallel replay, no tables), what `--packers` leaves on the one
//! executor's thread besides recording (`record_slice`).
//!
//! `cargo bench -p kestrel-prover-gpu --bench exec`; criterion reports elements/s, where one
//! element is one executed instruction (so Kelem/s ÷ 1000 = MHz).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kestrel_core::rv::pack::{pack_traces_with, Lookups, Segmenter};
use kestrel_prover_gpu::par::Rayon;
use kestrel_prover_gpu::rv::{machine_for, program_image};
use kestrel_prover_gpu::vm::record::SliceRecorder;
use kestrel_prover_gpu::vm::{NoRecorder, Program, Record, VecRecorder, Vm};
use std::path::Path;

fn guest(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/guests/bin")
        .join(format!("{name}.elf"));
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Program::from_elf(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bench_guest(c: &mut Criterion, name: &str, input: &[u8]) {
    let program = guest(name);
    let cycles = Vm::new(&program, input.to_vec())
        .run(&mut NoRecorder)
        .expect("guest runs")
        .cycles;
    let mut group = c.benchmark_group(format!("exec/{name}"));
    group.throughput(Throughput::Elements(cycles));
    group.sample_size(10);
    group.bench_function("pure", |b| {
        b.iter(|| {
            let mut vm = Vm::new(&program, input.to_vec());
            vm.run(&mut NoRecorder).expect("guest runs")
        })
    });
    // The record buffer is reused across iterations (as a chunked trace builder would), so this
    // measures recording rather than the kernel's first-touch page faults of a fresh buffer.
    let mut rec = VecRecorder {
        records: Vec::<Record>::with_capacity(cycles as usize),
    };
    group.bench_function("record", |b| {
        b.iter(|| {
            rec.records.clear();
            let mut vm = Vm::new(&program, input.to_vec());
            vm.run(&mut rec).expect("guest runs");
            rec.records.len()
        })
    });
    // Into a mapped buffer of the run's length in place (`SliceRecorder`, as `kestrel prove`
    // records a whole run: non-temporal stores on x86-64).
    let mut buf = vec![Record::default(); cycles as usize];
    group.bench_function("record_slice", |b| {
        b.iter(|| {
            let mut rec = SliceRecorder::new(&mut buf);
            let mut vm = Vm::new(&program, input.to_vec());
            vm.run(&mut rec).expect("guest runs");
            rec.finish().1
        })
    });
    // The recorded run, whether or not `record` ran (a filter may skip it).
    rec.records.clear();
    Vm::new(&program, input.to_vec())
        .run(&mut rec)
        .expect("guest runs");
    let image = program_image(&program);
    let machine = machine_for(&image);
    group.bench_function("pack", |b| {
        b.iter(|| {
            pack_traces_with(&Rayon::default(), &machine, &image, &rec.records, input)
                .expect("the run packs")
                .real_rows()
                .len()
        })
    });
    group.bench_function("ahead", |b| {
        b.iter(|| {
            let par = Rayon::default();
            let mut ahead = Segmenter::new(&machine, &image, input)
                .expect("the input fits")
                .with_lookups(Lookups::Device);
            let n = rec.records.chunks(AHEAD_SEGMENT).len();
            for (k, s) in rec.records.chunks(AHEAD_SEGMENT).enumerate() {
                // A packer's: made here, handed over (here dropped).
                std::hint::black_box(ahead.fork(Lookups::Host));
                ahead
                    .pack_segment(&par, s, k + 1 == n)
                    .expect("the run packs");
            }
            ahead.clk()
        })
    });
    group.finish();
}

/// Steps per segment of the `ahead` bench.
const AHEAD_SEGMENT: usize = 1 << 20;

fn exec(c: &mut Criterion) {
    bench_guest(c, "sha256", &vec![0x61; 64 << 10]);
    bench_guest(c, "fibonacci", b"1000000");
    bench_guest(c, "bignum", b"4000");
}

criterion_group!(benches, exec);
criterion_main!(benches);
