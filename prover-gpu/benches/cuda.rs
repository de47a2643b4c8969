//! CUDA figures for BENCHMARKS.md, measured in one process on the GPU machine:
//! copy-kernel bandwidth (the roofline), coset LDE and Merkle hashing throughput as a
//! fraction of it, and whole-proof time of the CUDA backend against the CPU backend.
//!
//! `cargo bench -p kestrel-prover-gpu --features cuda --bench cuda -- [LOG_ROWS]`
//! (LOG_ROWS for the Fibonacci proof, default 20). Prints "not run: no CUDA device" and
//! exits 0 without a GPU.

use std::time::Instant;

use kestrel_core::air::examples::{fibonacci_trace, FibonacciMachine};
use kestrel_core::field::Felt;
use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::cuda::{bench, CudaBackend};
use kestrel_prover_gpu::prover::{prove, setup};

fn main() {
    let log_rows: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(20);
    let gpu = match CudaBackend::new() {
        Ok(b) => b,
        Err(e) => {
            println!("not run: no CUDA device ({e})");
            return;
        }
    };
    let dev = gpu.device().clone();
    println!("device: {}", dev.describe());
    let copy = bench::copy_bandwidth(&dev, 1 << 28).expect("copy bandwidth");
    println!("copy kernel: {copy:.1} GB/s (read + write, 2 x 2 GiB)");
    for (log_n, cols, lb) in [
        (20u32, 64usize, 1u32),
        (22, 16, 1),
        (24, 8, 1),
        (20, 32, 3),
        (21, 32, 2),
    ] {
        let f = bench::lde_and_merkle(&dev, log_n, cols, lb).expect("lde bench");
        let lde_gbs = f.lde_min_bytes / (f.lde_ms * 1e6);
        let merkle_gbs = f.merkle_bytes / (f.merkle_ms * 1e6);
        let rows = 1u64 << (log_n + lb);
        let perms = rows * (8 * cols as u64 + 2).div_ceil(136) + rows - 1;
        let ntt_gbs = 16.0 * (rows * cols as u64) as f64 / (f.ntt_ms * 1e6);
        println!(
            "LDE 2^{log_n} x {cols} cols, blowup 2^{lb}: {:.3} ms, {:.1} GB/s of minimum traffic = {:.0}% of copy; \
             Merkle over 2^{} rows: {:.3} ms, {:.1} GB/s hashed = {:.0}% of copy",
            f.lde_ms,
            lde_gbs,
            100.0 * lde_gbs / copy,
            log_n + lb,
            f.merkle_ms,
            merkle_gbs,
            100.0 * merkle_gbs / copy
        );
        println!(
            "  forward NTT alone 2^{} x {cols}: {:.3} ms = {:.1} GB/s per read+write pass-equivalent; Keccak: {:.2} G permutations/s",
            log_n + lb,
            f.ntt_ms,
            ntt_gbs,
            perms as f64 / (f.merkle_ms * 1e6)
        );
    }

    let params = StarkParams::PRESETS[0];
    let (trace, result) = fibonacci_trace(log_rows, Felt::ONE, Felt::ONE);
    let public = [Felt::ONE, Felt::ONE, result];
    let pk_cpu = setup(&CpuBackend, &FibonacciMachine, params).expect("setup");
    let pk_gpu = setup(&gpu, &FibonacciMachine, params).expect("setup");
    // Warm up (twiddles, module load, pinned staging) before timing.
    prove(
        &gpu,
        &pk_gpu,
        &FibonacciMachine,
        std::slice::from_ref(&trace),
        &public,
    )
    .expect("gpu proof");
    gpu.reset_stats();
    let t = Instant::now();
    let (g, gt) = prove(
        &gpu,
        &pk_gpu,
        &FibonacciMachine,
        std::slice::from_ref(&trace),
        &public,
    )
    .expect("gpu proof");
    let gpu_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (c, ct) = prove(
        &CpuBackend,
        &pk_cpu,
        &FibonacciMachine,
        std::slice::from_ref(&trace),
        &public,
    )
    .expect("cpu proof");
    let cpu_s = t.elapsed().as_secs_f64();
    let same = g.to_bytes() == c.to_bytes();
    println!(
        "Fibonacci 2^{log_rows} rows ({params:?}): cuda {gpu_s:.3} s, cpu {cpu_s:.3} s ({} threads), {:.1}x; proofs identical: {same}",
        rayon::current_num_threads(),
        cpu_s / gpu_s
    );
    for ((name, g), (_, c)) in gt.phases.iter().zip(&ct.phases) {
        println!(
            "  {name:<12} cuda {:>9.3} ms   cpu {:>9.3} ms",
            g.as_secs_f64() * 1e3,
            c.as_secs_f64() * 1e3
        );
    }
    let s = gpu.stats();
    println!("cuda stats: {}", serde_json::to_string(&s).expect("json"));
    assert!(same, "CUDA proof differs from the CPU proof");
}
