//! `kestrel prove`, `kestrel vk` and `kestrel verify` for RV64IM programs.
//!
//! A proof file is a statement and its proof: `b"KSTLSTMT" ‖ exit code (u64 LE) ‖ n (u32 LE)
//! ‖ n bytes of public output (what the guest wrote to fd 1) ‖ proof bytes`. The proof's
//! public values are the exit code's 8 bytes followed by the output bytes
//! ([`public_values`]).
//!
//! Exit codes: 0 success (verify: valid), 1 proving failed / proof invalid, 2 usage or
//! unreadable input, 3 the ELF cannot be loaded or run, 4 output cannot be written.
//!
//! Everything that can be checked before the work is (see [`crate::limits`]): flags
//! (`--blowup` 2, 4 or 8; `prove --max-cycles` at most [`MAX_PROVABLE_CYCLES`]), file sizes
//! (an input over [`MAX_INPUT`] or a proof file over [`MAX_PROOF_FILE`] is exit 2, an ELF
//! over [`crate::limits::MAX_ELF_FILE`] exit 3), and output paths (opened first; exit 4). `prove` then runs
//! the guest once without recording, so a run that cannot be proven (cycle or output limit)
//! stops before any record is kept, and records the second run into a buffer of the exact
//! size. `verify --elf` derives the key with the proof's own preset unless `--blowup` is
//! given; a `--blowup` that differs from the proof's is exit 2, naming both.

use std::path::{Path, PathBuf};
use std::time::Instant;

use kestrel_core::air::Machine;
use kestrel_core::keys::VerifyingKey;
use kestrel_core::params::StarkParams;

use crate::backend::{Backend, MainTrace};
use crate::cli_fib::{peak_rss_bytes, spinner};
use crate::cpu::CpuBackend;
use crate::limits::{
    read_capped, read_elf, OutFile, ReadError, MAX_INPUT, MAX_PROOF_FILE, MAX_PROVABLE_CYCLES,
    VK_BYTES,
};
use crate::prover::{prove_main, setup, ProvingKey};
use crate::rv::{machine_for, main_traces_timed, program_image, verifier_machine, RvFills};
use crate::select::{select, BackendChoice};
use crate::vm::record::VecRecorder;
use crate::vm::{Exit, NoRecorder, Program, Vm, VmError};

const EXIT_INVALID: i32 = 1;
const EXIT_USAGE: i32 = 2;
const EXIT_VM: i32 = 3;
const EXIT_WRITE: i32 = 4;

/// Arguments of `kestrel prove`.
#[derive(Debug, clap::Args)]
pub struct ProveArgs {
    /// The RV64IM ELF to prove.
    pub elf: PathBuf,
    /// Where to write the proof file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Private input (the guest's fd 0).
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Stop after this many instructions (at most 2^26 = 67108864, the most `prove` can
    /// prove, which is the default).
    #[arg(long, default_value_t = MAX_PROVABLE_CYCLES, value_parser = parse_prove_cycles)]
    pub max_cycles: u64,
    /// LDE blowup preset: 2, 4 or 8.
    #[arg(long, default_value_t = 4, value_parser = parse_blowup)]
    pub blowup: usize,
    /// Write machine-readable figures here.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Which backend proves.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Build every main trace on the host and upload it, even where the backend fills CPU
    /// and MEMW_R in device memory (for A/B comparisons; the proof is the same).
    #[arg(long)]
    pub host_fills: bool,
    /// Device-memory budget for the CUDA backend (e.g. 24G, 512M; default: the free device
    /// memory at start). Buffers already held count against it; a budget below the proof's
    /// working set is refused before anything is committed.
    #[arg(long, value_parser = crate::select::parse_bytes)]
    pub vram_budget: Option<u64>,
}

/// Arguments of `kestrel vk`.
#[derive(Debug, clap::Args)]
pub struct VkArgs {
    /// The RV64IM ELF whose verifying key to write.
    pub elf: PathBuf,
    /// Where to write the 32-byte key.
    #[arg(short, long)]
    pub output: PathBuf,
    /// LDE blowup preset: 2, 4 or 8.
    #[arg(long, default_value_t = 4, value_parser = parse_blowup)]
    pub blowup: usize,
}

/// Arguments of `kestrel verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The proof file.
    pub proof: PathBuf,
    /// The 32-byte verifying key.
    #[arg(long, required_unless_present = "elf", conflicts_with = "elf")]
    pub vk: Option<PathBuf>,
    /// Derive the verifying key from this ELF.
    #[arg(long)]
    pub elf: Option<PathBuf>,
    /// Blowup preset the proof must have been made with (2, 4 or 8); by default the proof's
    /// own preset (the key derived from `--elf` binds it).
    #[arg(long, value_parser = parse_blowup)]
    pub blowup: Option<usize>,
    /// Write the verified public output (the guest's fd 1) to this file.
    #[arg(long)]
    pub public_output: Option<PathBuf>,
}

/// clap's parser of `--blowup`: 2, 4 or 8.
///
/// # Errors
/// A message for clap.
pub fn parse_blowup(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(b @ (2 | 4 | 8)) => Ok(b),
        _ => Err("the blowup preset must be 2, 4 or 8".into()),
    }
}

/// clap's parser of `prove --max-cycles`: at most [`MAX_PROVABLE_CYCLES`].
///
/// # Errors
/// A message for clap.
pub fn parse_prove_cycles(s: &str) -> Result<u64, String> {
    let n: u64 = s.parse().map_err(|e| format!("{e}"))?;
    check_cycles(n)?;
    Ok(n)
}

fn check_cycles(n: u64) -> Result<(), String> {
    if n > MAX_PROVABLE_CYCLES {
        return Err(format!(
            "{n} is more cycles than prove can prove: at most 2^26 = {MAX_PROVABLE_CYCLES} \
             (`kestrel run` takes more)"
        ));
    }
    Ok(())
}

fn read_input(path: &Path) -> Result<Vec<u8>, i32> {
    read_capped(path, (MAX_INPUT, "private input"), None).map_err(|e| {
        eprintln!("error: cannot read input {}: {e}", path.display());
        EXIT_USAGE
    })
}

/// Opens an output file before the work (exit 4 if it cannot be).
fn out_file(path: &Path, what: &str) -> Result<OutFile, i32> {
    OutFile::create(path).map_err(|e| {
        eprintln!("error: cannot write {what} {}: {e}", path.display());
        EXIT_WRITE
    })
}

fn commit(out: OutFile, what: &str, data: &[u8]) -> Result<(), i32> {
    let path = out.path().to_path_buf();
    out.commit(data).map_err(|e| {
        eprintln!("error: cannot write {what} {}: {e}", path.display());
        EXIT_WRITE
    })
}

fn params(blowup: usize) -> Result<StarkParams, i32> {
    StarkParams::preset(blowup).ok_or_else(|| {
        eprintln!("error: --blowup must be 2, 4 or 8 (got {blowup})");
        EXIT_USAGE
    })
}

fn load(path: &Path) -> Result<Program, i32> {
    let elf = read_elf(path).map_err(|e| match e {
        ReadError::Io(e) => {
            eprintln!("error: cannot read ELF {}: {e}", path.display());
            EXIT_USAGE
        }
        e => {
            eprintln!("error: cannot load {}: {e}", path.display());
            EXIT_VM
        }
    })?;
    Program::from_elf(&elf).map_err(|e| {
        eprintln!("error: cannot load {}: {e}", path.display());
        EXIT_VM
    })
}

fn keys<B: Backend>(
    backend: &B,
    program: &Program,
    params: StarkParams,
) -> Result<(ProvingKey<B>, crate::rv::RvMachine), i32> {
    let image = program_image(program);
    let machine = machine_for(&image);
    let pk = setup(backend, &machine, params).map_err(|e| {
        eprintln!("error: setup: {e}");
        EXIT_INVALID
    })?;
    Ok((pk, crate::rv::RvMachine { machine, image }))
}

pub use kestrel_verifier::statement::{
    decode_statement, encode_statement, Statement, STATEMENT_MAGIC,
};

/// `kestrel prove`.
pub fn prove_command(a: &ProveArgs) -> i32 {
    match prove_inner(a) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

fn prove_inner(a: &ProveArgs) -> Result<(), i32> {
    // Without the cuda feature every backend but cuda (refused by select) is the CPU's.
    if a.vram_budget.is_some() && (a.backend == BackendChoice::Cpu || !cfg!(feature = "cuda")) {
        eprintln!("error: --vram-budget applies to the cuda backend only");
        return Err(EXIT_USAGE);
    }
    let prepared = prepare(a)?;
    let selected = select(a.backend).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_USAGE
    })?;
    eprintln!("backend: {}", selected.name());
    match (&selected, a.vram_budget) {
        (_, None) => {}
        #[cfg(feature = "cuda")]
        (crate::select::Selected::Cuda(b), Some(bytes)) => b.set_vram_budget(Some(bytes)),
        _ => {
            eprintln!("error: --vram-budget applies to the cuda backend only");
            return Err(EXIT_USAGE);
        }
    }
    crate::with_backend!(selected, b => prove_prepared(b, a, prepared))
}

/// What `prove` checks and does before a backend is chosen.
struct Prepared {
    params: StarkParams,
    output: OutFile,
    stats: Option<OutFile>,
    program: Program,
    input: Vec<u8>,
    /// How the unrecorded run ended.
    exit: Exit,
    execute_ms: f64,
}

/// Flags, output paths, the ELF and the input, then a run without records: every error
/// that does not need the prover, before any proving work.
fn prepare(a: &ProveArgs) -> Result<Prepared, i32> {
    let params = params(a.blowup)?;
    check_cycles(a.max_cycles).map_err(|e| {
        eprintln!("error: --max-cycles: {e}");
        EXIT_USAGE
    })?;
    let output = out_file(&a.output, "proof")?;
    let stats = a
        .stats
        .as_deref()
        .map(|p| out_file(p, "stats"))
        .transpose()?;
    let program = load(&a.elf)?;
    let input = match &a.input {
        Some(p) => read_input(p)?,
        None => Vec::new(),
    };
    let clock = Instant::now();
    let mut vm = Vm::new(&program, input.clone()).with_max_cycles(a.max_cycles);
    let exit = vm.run(&mut NoRecorder).map_err(|e| {
        match e {
            VmError::MaxCycles { .. } if a.max_cycles == MAX_PROVABLE_CYCLES => eprintln!(
                "error: {e}: prove can prove at most 2^26 = {MAX_PROVABLE_CYCLES} cycles \
                 (the default and largest --max-cycles)"
            ),
            VmError::MaxCycles { .. } => eprintln!(
                "error: {e} (raise it with --max-cycles, up to {MAX_PROVABLE_CYCLES} for prove)"
            ),
            e => eprintln!("error: {e}"),
        }
        EXIT_VM
    })?;
    Ok(Prepared {
        params,
        output,
        stats,
        program,
        input,
        exit,
        execute_ms: clock.elapsed().as_secs_f64() * 1e3,
    })
}

/// `kestrel prove` on a given backend; returns the exit code on failure. The output paths
/// are opened before any work and the proof file is put in place only after the proof
/// succeeded.
///
/// # Errors
/// The exit code (see the module doc), after printing why.
pub fn prove_with<B: RvFills>(backend: &B, a: &ProveArgs) -> Result<(), i32> {
    let prepared = prepare(a)?;
    prove_prepared(backend, a, prepared)
}

fn prove_prepared<B: RvFills>(backend: &B, a: &ProveArgs, prep: Prepared) -> Result<(), i32> {
    // The proving time counts the unrecorded run and everything from here, not choosing
    // (and starting) the backend, which `prepare` does not do either.
    let start = Instant::now() - std::time::Duration::from_secs_f64(prep.execute_ms / 1e3);
    let Prepared {
        params,
        output,
        stats: stats_out,
        program,
        input,
        exit: first,
        execute_ms,
    } = prep;
    let mut phases: Vec<(String, f64)> = vec![("execute".into(), execute_ms)];
    let mut clock = Instant::now();
    let mut lap = |name: &str, clock: &mut Instant| {
        phases.push((name.to_string(), clock.elapsed().as_secs_f64() * 1e3));
        *clock = Instant::now();
    };
    // The same run again, recorded into a buffer of its exact length.
    let mut vm = Vm::new(&program, input.clone()).with_max_cycles(first.cycles);
    let mut rec = VecRecorder {
        records: Vec::with_capacity(usize::try_from(first.cycles).unwrap_or(0)),
    };
    let exit = vm.run(&mut rec).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_VM
    })?;
    if exit != first {
        eprintln!("error: the recorded run differs from the first ({exit:?}, {first:?})");
        return Err(EXIT_INVALID);
    }
    lap("record", &mut clock);
    let (pk, rv) = keys(backend, &program, params)?;
    lap("setup", &mut clock);
    let device_fills = backend.has_device_fills() && !a.host_fills;
    let (tr, public, times) = main_traces_timed(
        backend,
        &rv.machine,
        &rv.image,
        &rec.records,
        &input,
        device_fills,
    )
    .map_err(|e| {
        eprintln!("error: {e}");
        EXIT_INVALID
    })?;
    lap("trace", &mut clock);
    phases.push(("trace: pack".into(), times.pack.as_secs_f64() * 1e3));
    phases.push(("trace: fill".into(), times.fill.as_secs_f64() * 1e3));
    let dims: Vec<(usize, usize)> = tr.iter().map(|t| t.dims(backend)).collect();
    let built_on: Vec<&str> = tr
        .iter()
        .map(|t| match t {
            MainTrace::Host(_) => "host",
            MainTrace::Device(_) => "device",
        })
        .collect();
    let pb = spinner("proving");
    let proved = prove_main(backend, &pk, &rv.machine, tr, &public);
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let (proof, timings) = proved.map_err(|e| {
        eprintln!("error: prove: {e}");
        EXIT_INVALID
    })?;
    for (name, d) in &timings.phases {
        phases.push((name.to_string(), d.as_secs_f64() * 1e3));
    }
    let bytes = proof.to_bytes();
    let statement = Statement::from_public(&public);
    commit(output, "proof", &encode_statement(&statement, &bytes))?;
    let total = start.elapsed().as_secs_f64();
    let cycles = exit.cycles;
    eprintln!(
        "proved {} cycles in {:.3} s ({:.1} kHz), exit code {}, {} bytes of public output, proof {} bytes",
        cycles,
        total,
        cycles as f64 / total / 1e3,
        exit.exit_code,
        statement.output.len(),
        bytes.len()
    );
    for (name, ms) in &phases {
        eprintln!("  {name:<12} {ms:>10.3} ms");
    }
    let names: Vec<&str> = rv.machine.tables().iter().map(|t| t.name()).collect();
    let fills: Vec<Option<f64>> = dims
        .iter()
        .zip(&times.real_rows)
        .map(|(&(_, h), r)| r.map(|r| r as f64 / h.max(1) as f64))
        .collect();
    eprintln!("  fill (real rows / trace height) of the largest tables:");
    eprint!("{}", fill_summary(&names, &dims, &pk.shapes, &fills, 4));
    if let Some(out) = stats_out {
        // Taken first: the ceilings' measurement (its buffers, its dispatches) must not
        // count in the backend's figures or the peak memory.
        let backend_report = backend.report();
        let peak_rss = peak_rss_bytes();
        // The roofline, after the proof: the model from the shapes, the ceilings measured
        // now (only with --stats).
        let work = crate::roofline::model(&proof_shape(
            &pk.shapes,
            &dims,
            &params,
            proof.pow_nonce,
            std::mem::size_of_val(rec.records.as_slice()) as u64,
        ));
        let (ceilings, roofline) = match backend.ceilings() {
            Ok(c) => {
                let r = crate::roofline::report(
                    &work,
                    |stage| phases.iter().find(|(n, _)| n == stage).map(|(_, ms)| *ms),
                    &c,
                );
                eprint!("{}", roofline_table(&r, &c));
                (serde_json::json!(c), serde_json::json!(r))
            }
            Err(e) => {
                eprintln!("warning: roofline ceilings not measured: {e}");
                (
                    serde_json::json!({ "error": e.to_string() }),
                    serde_json::Value::Null,
                )
            }
        };
        let tables: Vec<serde_json::Value> = rv
            .machine
            .tables()
            .iter()
            .zip(dims.iter().zip(&built_on))
            .zip(pk.shapes.iter().zip(&fills))
            .map(|((t, (&(width, height), on)), (shape, fill))| {
                let cells = height * (width + shape.aux_width);
                serde_json::json!({
                    "table": t.name(),
                    "built_on": on,
                    "rows": height,
                    "fill": fill,
                    "columns": width,
                    "aux_columns": shape.aux_width,
                    "preprocessed_columns": t.preprocessed_width(),
                    "cells_per_cycle": cells as f64 / cycles.max(1) as f64,
                })
            })
            .collect();
        let total_cells: f64 = tables
            .iter()
            .filter_map(|t| t["cells_per_cycle"].as_f64())
            .sum();
        // The parameter set and its security at this proof's largest table.
        let log_max_height = dims
            .iter()
            .map(|&(_, h)| h.max(1).trailing_zeros())
            .max()
            .unwrap_or(0);
        let security = kestrel_core::params::estimate(&params, log_max_height);
        let vk_hex: String = pk.vk.0.iter().map(|b| format!("{b:02x}")).collect();
        let stats = serde_json::json!({
            "preset": {
                "blowup": 1u32 << params.log_blowup,
                "queries": params.num_queries,
                "pow_bits": params.pow_bits,
                "log_final_poly_len": params.log_final_poly_len,
                "log_max_height": log_max_height,
                "provable_bits": security.provable_bits,
                "conjectured_bits": security.conjectured_bits,
            },
            "vk": vk_hex,
            "backend": backend.name(),
            "backend_report": backend_report,
            "device_fills": device_fills,
            "cycles": cycles,
            "exit_code": exit.exit_code,
            "tables": tables,
            "cells_per_cycle": total_cells,
            "phases_ms": phases.iter().map(|(n, v)| (n.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
            "prove_s": total,
            "khz": cycles as f64 / total / 1e3,
            "proof_bytes": bytes.len(),
            "peak_rss_bytes": peak_rss,
            "ceilings": ceilings,
            "roofline": roofline,
        });
        commit(
            out,
            "stats",
            serde_json::to_string_pretty(&stats)
                .unwrap_or_default()
                .as_bytes(),
        )?;
    }
    Ok(())
}

/// The roofline model's view of a proof: the tables' shapes and heights, the parameters,
/// the grinding nonce and the bytes of execution records.
fn proof_shape(
    shapes: &[kestrel_core::air::TableShape],
    dims: &[(usize, usize)],
    params: &StarkParams,
    pow_nonce: u64,
    record_bytes: u64,
) -> crate::roofline::ProofShape {
    let log_heights: Vec<u8> = dims
        .iter()
        .map(|&(_, h)| h.trailing_zeros() as u8)
        .collect();
    let fri = kestrel_core::stark::FriShape::new(params, &log_heights);
    crate::roofline::ProofShape {
        tables: shapes
            .iter()
            .zip(&log_heights)
            .map(|(s, &lh)| crate::roofline::TableDims {
                log_n: u32::from(lh),
                main: s.width as u64,
                pre: s.preprocessed_width as u64,
                aux: s.aux_width as u64,
                quotient_chunks: s.quotient_chunks as u64,
                interactions: s.num_interactions > 0,
            })
            .collect(),
        log_blowup: u32::from(params.log_blowup),
        num_queries: u64::from(params.num_queries),
        log_max_lde: fri.log_max_lde,
        fri_layers: fri.num_layers,
        pow_nonce,
        record_bytes,
    }
}

/// The `top` tables of the most main and auxiliary cells, with their fill (`n/a` where
/// the real rows are not known), one line each.
fn fill_summary(
    names: &[&str],
    dims: &[(usize, usize)],
    shapes: &[kestrel_core::air::TableShape],
    fills: &[Option<f64>],
    top: usize,
) -> String {
    let mut order: Vec<usize> = (0..names.len().min(dims.len()).min(shapes.len())).collect();
    order.sort_by_key(|&t| std::cmp::Reverse(dims[t].1 * (dims[t].0 + shapes[t].aux_width)));
    let mut out = String::new();
    for &t in order.iter().take(top) {
        let fill = match fills.get(t).copied().flatten() {
            Some(f) => format!("{:>6.1} %", 100.0 * f),
            None => "     n/a".into(),
        };
        out += &format!("    {:<10} {:>10} rows  {fill}\n", names[t], dims[t].1);
    }
    out
}

/// The roofline report as a short table.
fn roofline_table(r: &[crate::roofline::StageRoofline], c: &crate::roofline::Ceilings) -> String {
    let mut out = format!(
        "  roofline (ceilings: copy {:.1} GB/s, Keccak {:.4} Gperm/s):\n    {:<12} {:>10} {:>10} {:>12} {:>8} {:>8}  bound\n",
        c.copy_gb_s, c.keccak_gperm_s, "stage", "ms", "MB min", "perms", "bw %", "keccak %"
    );
    for s in r {
        out += &format!(
            "    {:<12} {:>10.3} {:>10.2} {:>12} {:>8.2} {:>8.2}  {}\n",
            s.stage,
            s.ms,
            s.bytes_min as f64 / 1e6,
            s.keccak_perms,
            100.0 * s.bandwidth_fraction,
            100.0 * s.keccak_fraction,
            s.bound
        );
    }
    out
}

/// `kestrel vk`.
pub fn vk_command(a: &VkArgs) -> i32 {
    let run = || -> Result<(), i32> {
        let params = params(a.blowup)?;
        let out = out_file(&a.output, "verifying key")?;
        let program = load(&a.elf)?;
        let (pk, _) = keys(&CpuBackend, &program, params)?;
        commit(out, "verifying key", &pk.vk.0)
    };
    match run() {
        Ok(()) => 0,
        Err(c) => c,
    }
}

/// The preset `p` is, if it is one.
fn preset_of(p: &StarkParams) -> Option<usize> {
    StarkParams::PRESETS
        .iter()
        .find(|q| *q == p)
        .map(StarkParams::blowup)
}

fn read_proof_file(path: &Path) -> Result<Result<Vec<u8>, &'static str>, i32> {
    match read_capped(
        path,
        (MAX_PROOF_FILE, "proof file"),
        Some((STATEMENT_MAGIC, "not a Kestrel proof file (bad magic)")),
    ) {
        Ok(b) => Ok(Ok(b)),
        Err(ReadError::BadStart(why)) => Ok(Err(why)),
        Err(e) => {
            eprintln!("error: cannot read proof {}: {e}", path.display());
            Err(EXIT_USAGE)
        }
    }
}

fn read_vk(path: &Path) -> Result<VerifyingKey, i32> {
    let bytes = read_capped(path, (VK_BYTES, "verifying key"), None).map_err(|e| {
        match e {
            ReadError::TooLarge { size: Some(n), .. } => eprintln!(
                "error: {} is not a {VK_BYTES}-byte verifying key ({n} bytes)",
                path.display()
            ),
            ReadError::TooLarge { size: None, .. } => eprintln!(
                "error: {} is not a {VK_BYTES}-byte verifying key (longer)",
                path.display()
            ),
            e => eprintln!("error: cannot read verifying key {}: {e}", path.display()),
        }
        EXIT_USAGE
    })?;
    let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
        eprintln!(
            "error: {} is not a {VK_BYTES}-byte verifying key ({} bytes)",
            path.display(),
            bytes.len()
        );
        EXIT_USAGE
    })?;
    Ok(VerifyingKey(key))
}

/// `kestrel verify`.
pub fn verify_command(a: &VerifyArgs) -> i32 {
    let run = || -> Result<i32, i32> {
        let wanted = a.blowup.map(params).transpose()?;
        let out = a
            .public_output
            .as_deref()
            .map(|p| out_file(p, "public output"))
            .transpose()?;
        let file = match read_proof_file(&a.proof)? {
            Ok(f) => f,
            Err(why) => {
                println!("invalid: {why}");
                return Ok(EXIT_INVALID);
            }
        };
        let given_vk = a.vk.as_deref().map(read_vk).transpose()?;
        if given_vk.is_none() && a.elf.is_none() {
            eprintln!("error: give --vk or --elf");
            return Err(EXIT_USAGE);
        }
        let (statement, proof) = match decode_statement(&file) {
            Ok(x) => x,
            Err(e) => {
                println!("invalid: {e}");
                return Ok(EXIT_INVALID);
            }
        };
        // The parameters the proof says it was made with (the key binds them).
        let made_with = match kestrel_verifier::parse_proof(proof) {
            Ok(p) => p.params,
            Err(e) => {
                println!("invalid: {e}");
                return Ok(EXIT_INVALID);
            }
        };
        if let Some(w) = wanted {
            if w != made_with {
                let made = match preset_of(&made_with) {
                    Some(b) => format!("--blowup {b}"),
                    None => format!("parameters that are no preset ({made_with:?})"),
                };
                eprintln!(
                    "error: proof was made with {made}; this verify used --blowup {}",
                    w.blowup()
                );
                return Err(EXIT_USAGE);
            }
        }
        let vk = match (given_vk, &a.elf) {
            (Some(vk), _) => vk,
            (None, Some(elf)) => {
                // The key is derived with the proof's own preset: the verifier still checks
                // it against the security floor, and only presets are accepted here.
                let Some(_) = preset_of(&made_with) else {
                    println!(
                        "invalid: the proof's parameters are not a preset (blowup 2, 4 or 8): \
                         {made_with:?}; verify it with --vk"
                    );
                    return Ok(EXIT_INVALID);
                };
                let program = load(elf)?;
                keys(&CpuBackend, &program, made_with)?.0.vk
            }
            (None, None) => {
                eprintln!("error: give --vk or --elf");
                return Err(EXIT_USAGE);
            }
        };
        match kestrel_verifier::verify(&verifier_machine(), &vk, &statement.public(), proof) {
            Ok(()) => {
                println!(
                    "valid: exit code {}, {} bytes of public output",
                    statement.exit_code,
                    statement.output.len()
                );
                if let Some(out) = out {
                    commit(out, "public output", &statement.output)?;
                }
                Ok(0)
            }
            Err(e) => {
                println!("invalid: {e}");
                Ok(EXIT_INVALID)
            }
        }
    };
    match run() {
        Ok(c) | Err(c) => c,
    }
}
