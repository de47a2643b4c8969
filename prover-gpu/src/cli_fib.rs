//! `kestrel fib`: proves and verifies the Fibonacci example AIR — the main job until the VM
//! tables exist — and reports timings, proof size and peak memory.

use std::path::PathBuf;
use std::time::Instant;

use kestrel_core::air::examples::{fibonacci_trace, FibonacciMachine};
use kestrel_core::field::Felt;
use kestrel_core::params::{estimate, StarkParams};

use crate::backend::Backend;
use crate::cli_common::{peak_rss_bytes, spinner};
use crate::prover::{prove, setup};
use crate::select::{select, BackendChoice};

/// Arguments of `kestrel fib`.
#[derive(Debug, clap::Args)]
pub struct FibArgs {
    /// log2 of the number of trace rows.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=26))]
    pub log_rows: u32,
    /// LDE blowup preset: 2, 4 or 8.
    #[arg(long, default_value_t = 4, value_parser = crate::cli_prove::parse_blowup)]
    pub blowup: usize,
    /// Write the proof here.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Write the 32-byte verifying key here.
    #[arg(long)]
    pub vk_out: Option<PathBuf>,
    /// Write machine-readable figures here.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Which backend proves.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
}

/// Runs `kestrel fib`; returns the process exit code.
pub fn fib_command(args: &FibArgs) -> i32 {
    let Some(params) = StarkParams::preset(args.blowup) else {
        eprintln!("error: --blowup must be 2, 4 or 8 (got {})", args.blowup);
        return 2;
    };
    let selected = match select(args.backend) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    eprintln!("backend: {}", selected.name());
    crate::with_backend!(selected, b => fib_with(b, args, params))
}

fn fib_with<B: Backend>(backend: &B, args: &FibArgs, params: StarkParams) -> i32 {
    let machine = FibonacciMachine;
    let t0 = Instant::now();
    let pk = match setup(backend, &machine, params) {
        Ok(pk) => pk,
        Err(e) => {
            eprintln!("error: setup: {e}");
            return 1;
        }
    };
    let (trace, result) = fibonacci_trace(args.log_rows, Felt::ONE, Felt::ONE);
    let public = [Felt::ONE, Felt::ONE, result];
    let pb = spinner("proving");
    let proved = prove(backend, &pk, &machine, &[trace], &public);
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let (proof, timings) = match proved {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: prove: {e}");
            return 1;
        }
    };
    let prove_time = t0.elapsed();
    let bytes = proof.to_bytes();
    let t1 = Instant::now();
    let verdict = kestrel_verifier::verify(&machine, &pk.vk, &public, &bytes);
    let verify_time = t1.elapsed();
    let security = estimate(&params, args.log_rows);
    for (path, data) in [(&args.output, &bytes[..]), (&args.vk_out, &pk.vk.0[..])] {
        if let Some(path) = path {
            if let Err(e) = std::fs::write(path, data) {
                eprintln!("error: writing {}: {e}", path.display());
                return 4;
            }
        }
    }
    let rows = 1u64 << args.log_rows;
    eprintln!(
        "fibonacci: 2^{} rows, blowup {}, {} queries, {:.1} provable / {:.1} conjectured bits",
        args.log_rows,
        params.blowup(),
        params.num_queries,
        security.provable_bits,
        security.conjectured_bits
    );
    for (name, d) in &timings.phases {
        eprintln!("  {name:<12} {:>9.3} ms", d.as_secs_f64() * 1e3);
    }
    eprintln!(
        "proved in {:.3} s ({:.0} rows/s), proof {} bytes, verified in {:.3} ms: {}",
        prove_time.as_secs_f64(),
        rows as f64 / prove_time.as_secs_f64(),
        bytes.len(),
        verify_time.as_secs_f64() * 1e3,
        match &verdict {
            Ok(()) => "valid".to_string(),
            Err(e) => format!("INVALID ({e})"),
        }
    );
    if let Some(path) = &args.stats {
        let stats = serde_json::json!({
            "example": "fibonacci",
            "backend": backend.name(),
            "backend_report": backend.report(),
            "rows": rows,
            "columns": 2,
            "blowup": params.blowup(),
            "num_queries": params.num_queries,
            "provable_bits": security.provable_bits,
            "conjectured_bits": security.conjectured_bits,
            "phases_ms": timings.phases.iter().map(|(n, d)| (n.to_string(), serde_json::json!(d.as_secs_f64() * 1e3))).collect::<serde_json::Map<_, _>>(),
            "prove_s": prove_time.as_secs_f64(),
            "verify_ms": verify_time.as_secs_f64() * 1e3,
            "proof_bytes": bytes.len(),
            "peak_rss_bytes": peak_rss_bytes(),
            "valid": verdict.is_ok(),
        });
        if let Err(e) = std::fs::write(
            path,
            serde_json::to_string_pretty(&stats).unwrap_or_default(),
        ) {
            eprintln!("error: writing {}: {e}", path.display());
            return 4;
        }
    }
    if verdict.is_ok() {
        0
    } else {
        1
    }
}
