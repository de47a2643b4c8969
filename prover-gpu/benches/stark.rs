//! Proof-system benchmarks: field operations, batched coset LDE next to Plonky3's
//! `Radix2DitParallel` on Goldilocks, Merkle commitment, and a whole Fibonacci proof.
//!
//! `cargo bench -p kestrel-prover-gpu --bench stark` (filter with e.g. `-- lde`).

use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput,
};
use kestrel_core::air::examples::{fibonacci_trace, FibonacciMachine};
use kestrel_core::field::{batch_inverse, Ext3, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::hash_leaf;
use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::merkle::MerkleTree;
use kestrel_prover_gpu::cpu::ntt::coset_lde;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::{Field as _, PrimeCharacteristicRing};
use p3_goldilocks::Goldilocks;

fn pseudo(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s % kestrel_core::field::P
        })
        .collect()
}

fn field(c: &mut Criterion) {
    let xs: Vec<Felt> = pseudo(1024, 1).into_iter().map(Felt::new).collect();
    let ys: Vec<Felt> = pseudo(1024, 2).into_iter().map(Felt::new).collect();
    let es: Vec<Ext3> = xs
        .chunks_exact(3)
        .map(|c| Ext3::new(c[0], c[1], c[2]))
        .collect();
    let mut g = c.benchmark_group("field");
    g.throughput(Throughput::Elements(1024));
    g.bench_function("felt mul ×1024", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .fold(Felt::ONE, |a, (x, y)| a + black_box(*x) * *y)
        })
    });
    g.bench_function("felt add ×1024", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .fold(Felt::ZERO, |a, (x, y)| a + (black_box(*x) + *y))
        })
    });
    g.bench_function("felt batch inverse ×1024", |b| {
        b.iter(|| batch_inverse(black_box(&xs)))
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("felt inverse", |b| b.iter(|| black_box(xs[5]).inverse()));
    g.throughput(Throughput::Elements(es.len() as u64));
    g.bench_function("ext3 mul ×341", |b| {
        b.iter(|| es.iter().fold(Ext3::ONE, |a, x| a * black_box(*x)))
    });
    g.finish();
}

const LDE_COLS: usize = 32;
const LDE_LOG_BLOWUP: u32 = 1;

fn lde(c: &mut Criterion) {
    let mut g = c.benchmark_group("coset_lde_32cols_blowup2");
    g.sample_size(10);
    for log_n in [16u32, 18, 20, 22] {
        let n = 1usize << log_n;
        let raw = pseudo(n * LDE_COLS, log_n as u64);
        let ours = RowMajorMatrix::new(raw.iter().map(|&v| Felt::new(v)).collect(), LDE_COLS);
        let theirs = p3_matrix::dense::RowMajorMatrix::new(
            raw.iter()
                .map(|&v| Goldilocks::from_u64(v))
                .collect::<Vec<_>>(),
            LDE_COLS,
        );
        g.throughput(Throughput::Elements((n * LDE_COLS) as u64));
        // Both sides drop their output outside the measurement (iter_batched).
        g.bench_with_input(BenchmarkId::new("kestrel", log_n), &ours, |b, m| {
            b.iter_batched(
                || (),
                |()| coset_lde(m, LDE_LOG_BLOWUP),
                BatchSize::LargeInput,
            )
        });
        let dft = Radix2DitParallel::<Goldilocks>::default();
        // Warm the peer's twiddle cache outside the measurement, as ours builds twiddles inline.
        let _ = dft.coset_lde_batch(
            theirs.clone(),
            LDE_LOG_BLOWUP as usize,
            Goldilocks::GENERATOR,
        );
        g.bench_with_input(
            BenchmarkId::new("p3-dft Radix2DitParallel", log_n),
            &theirs,
            |b, m| {
                b.iter_batched(
                    || m.clone(),
                    |m| dft.coset_lde_batch(m, LDE_LOG_BLOWUP as usize, Goldilocks::GENERATOR),
                    BatchSize::LargeInput,
                )
            },
        );
    }
    g.finish();
}

fn merkle(c: &mut Criterion) {
    let mut g = c.benchmark_group("merkle_commit_8cols");
    g.sample_size(10);
    for log_n in [16u32, 18, 20] {
        let n = 1usize << log_n;
        let values: Vec<Felt> = pseudo(n * 8, 3).into_iter().map(Felt::new).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(log_n), &values, |b, v| {
            b.iter(|| MerkleTree::from_rows(v, 8, hash_leaf).root())
        });
    }
    g.finish();
}

fn prove_fib(c: &mut Criterion) {
    let mut g = c.benchmark_group("prove_fibonacci");
    g.sample_size(10);
    let log_n = 20;
    for params in [StarkParams::BLOWUP_2, StarkParams::BLOWUP_4] {
        let pk = setup(&CpuBackend, &FibonacciMachine, params).expect("setup");
        let (trace, result) = fibonacci_trace(log_n, Felt::ONE, Felt::ONE);
        let public = [Felt::ONE, Felt::ONE, result];
        g.throughput(Throughput::Elements(1 << log_n));
        g.bench_function(
            BenchmarkId::new(format!("blowup{}", params.blowup()), log_n),
            |b| {
                b.iter(|| {
                    prove(
                        &CpuBackend,
                        &pk,
                        &FibonacciMachine,
                        std::slice::from_ref(&trace),
                        &public,
                    )
                    .expect("prove")
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, field, lde, merkle, prove_fib);
criterion_main!(benches);
