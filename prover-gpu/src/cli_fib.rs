//! `kestrel fib`: proves and verifies the Fibonacci example AIR — the main job until the VM
//! tables exist — and reports timings, proof size and peak memory.

use std::path::PathBuf;
use std::time::Instant;

use kestrel_core::params::estimate;

use crate::api::{self, ProveOptions};
use crate::cli_common::spinner;
use crate::select::BackendChoice;

/// Arguments of `kestrel fib`.
#[derive(Debug, clap::Args)]
pub struct FibArgs {
    /// log2 of the number of trace rows (the protocol's table heights: 4 to 26).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(
        kestrel_core::params::MIN_LOG_HEIGHT as i64..=kestrel_core::params::MAX_LOG_HEIGHT as i64
    ))]
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
    let options = ProveOptions {
        backend: args.backend,
        blowup: args.blowup,
        ..ProveOptions::default()
    };
    let pb = std::cell::RefCell::new(None);
    let proved = api::prove_fibonacci(args.log_rows, &options, &mut |p| {
        if let api::Progress::Backend { name, .. } = p {
            eprintln!("backend: {name}");
            *pb.borrow_mut() = spinner("proving");
        }
    });
    if let Some(pb) = pb.borrow_mut().take() {
        pb.finish_and_clear();
    }
    let f = match proved {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return match e.kind() {
                api::ErrorKind::Usage | api::ErrorKind::NoDevice => 2,
                _ => 1,
            };
        }
    };
    let params = f.params;
    let t1 = Instant::now();
    let verdict = api::verify_fibonacci(&f.vk, &f.public, &f.proof);
    let verify_time = t1.elapsed();
    let security = estimate(&params, args.log_rows);
    for (path, data) in [(&args.output, &f.proof[..]), (&args.vk_out, &f.vk.0[..])] {
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
    for (name, d) in f.phases.iter().filter(|(n, _)| *n != "setup") {
        eprintln!("  {name:<12} {:>9.3} ms", d.as_secs_f64() * 1e3);
    }
    eprintln!(
        "proved in {:.3} s ({:.0} rows/s), proof {} bytes, verified in {:.3} ms: {}",
        f.seconds,
        rows as f64 / f.seconds,
        f.proof.len(),
        verify_time.as_secs_f64() * 1e3,
        match &verdict {
            Ok(()) => "valid".to_string(),
            Err(e) => format!("INVALID ({e})"),
        }
    );
    if let Some(path) = &args.stats {
        let stats = serde_json::json!({
            "example": "fibonacci",
            "backend": f.backend,
            "backend_report": f.backend_report,
            "rows": rows,
            "columns": 2,
            "blowup": params.blowup(),
            "num_queries": params.num_queries,
            "provable_bits": security.provable_bits,
            "conjectured_bits": security.conjectured_bits,
            "phases_ms": f.phases.iter().filter(|(n, _)| *n != "setup").map(|(n, d)| (n.to_string(), serde_json::json!(d.as_secs_f64() * 1e3))).collect::<serde_json::Map<_, _>>(),
            "prove_s": f.seconds,
            "verify_ms": verify_time.as_secs_f64() * 1e3,
            "proof_bytes": f.proof.len(),
            "peak_rss_bytes": api::peak_rss_bytes(),
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
