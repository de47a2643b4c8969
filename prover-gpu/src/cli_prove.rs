//! `kestrel prove`, `kestrel vk` and `kestrel verify` for RV64IM programs: flags and files
//! around [`crate::api`].
//!
//! A proof file is a statement and its proof (the format is the verifier's:
//! [`kestrel_verifier::statement`]).
//!
//! Exit codes ([`crate::cli_common::exit_code`]): 0 success (verify: valid), 1 proving failed /
//! proof invalid, 2 usage or unreadable input, 3 the ELF cannot be loaded or run, 4 output
//! cannot be written.
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

use serde_json::{json, Map, Value};

use crate::api::{self, ErrorKind, Guest, ProveOptions, Proved, RvFills};
use crate::cli_common::{finish, hex, null_fields, output_fields, Cmd, Failure};
use crate::limits::{
    read_capped, OutFile, ReadError, DEFAULT_PROVE_CYCLES, MAX_INPUT, MAX_PROOF_FILE, VK_BYTES,
};
use crate::select::BackendChoice;

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
    /// Stop after this many instructions (default 2^26 = 67108864; at most 2^36, the most
    /// `prove` can prove).
    #[arg(long, default_value_t = DEFAULT_PROVE_CYCLES, value_parser = parse_prove_cycles)]
    pub max_cycles: u64,
    /// Most cycles per segment: a power of two from 2^8 to 2^24 (default: what fits the
    /// backend: on CUDA the largest under the device-memory budget, up to 2^21 at blowup 4;
    /// 2^16 on the CPU at blowup 4). A longer run is proven in
    /// segments, in memory set by the segment size; a shorter one in one proof.
    #[arg(long, value_parser = parse_segment_cycles)]
    pub segment_cycles: Option<u32>,
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
    /// CUDA devices that prove a segmented run together: `all`, or ordinals such as `0,1`
    /// (one may repeat: `0,0` shares device 0 between two backends). Each backend's
    /// device-memory budget is `--vram-budget` (default: the device's free memory) divided
    /// by the times its device is listed. Default: device 0, shared by two backends for a
    /// segmented run when half its budget holds the same segments (`0` keeps one backend).
    #[arg(long, value_parser = crate::select::parse_devices)]
    pub devices: Option<crate::select::Devices>,
    /// Threads that pack a segmented run's segments at once, each from the replay state at
    /// its segment's start while the one executor runs ahead (1: the executor packs them in
    /// order). Default: `KESTREL_PACKERS`, else 1 up to two backends (one executor packing
    /// in order feeds about 2.7) and one per backend beyond. The proof is the same.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=crate::api::MAX_PACKERS as u64))]
    pub packers: Option<u64>,
    /// Print one JSON object on stdout (schema in the README's "JSON output").
    #[arg(long)]
    pub json: bool,
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
    /// Print one JSON object on stdout (schema in the README's "JSON output").
    #[arg(long)]
    pub json: bool,
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
    /// Print one JSON object on stdout (schema in the README's "JSON output").
    #[arg(long)]
    pub json: bool,
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
    api::check_cycles(n)?;
    Ok(n)
}

/// clap's parser of `prove --segment-cycles`: a power of two in range; its log2.
///
/// # Errors
/// A message for clap.
pub fn parse_segment_cycles(s: &str) -> Result<u32, String> {
    let n: u64 = s.parse().map_err(|e| format!("{e}"))?;
    api::check_segment_cycles(n)
}

/// Opens an output file before the work.
fn out_file(path: &Path, what: &str) -> Result<OutFile, Failure> {
    OutFile::create(path).map_err(|e| {
        Failure::new(
            ErrorKind::Write,
            format!("cannot write {what} {}: {e}", path.display()),
        )
    })
}

fn commit(out: OutFile, what: &str, data: &[u8]) -> Result<(), Failure> {
    let path = out.path().to_path_buf();
    out.commit(data).map_err(|e| {
        Failure::new(
            ErrorKind::Write,
            format!("cannot write {what} {}: {e}", path.display()),
        )
    })
}

fn read_input(path: Option<&Path>) -> Result<Vec<u8>, Failure> {
    Ok(match path {
        Some(p) => api::read_file(p, "input", (MAX_INPUT, "private input"))?,
        None => Vec::new(),
    })
}

impl ProveArgs {
    /// The API's options of these flags.
    pub fn options(&self) -> ProveOptions {
        ProveOptions {
            backend: self.backend,
            blowup: self.blowup,
            max_cycles: self.max_cycles,
            vram_budget: self.vram_budget,
            host_fills: self.host_fills,
            roofline: self.stats.is_some(),
            segment_log: self.segment_cycles,
            devices: self.devices.clone().unwrap_or_default(),
            packers: self.packers.map(|p| p as usize),
        }
    }
}

/// The files `prove` writes, opened before the work, and what it proves.
struct Prepared {
    output: OutFile,
    stats: Option<OutFile>,
    guest: Guest,
    input: Vec<u8>,
}

fn prepare(a: &ProveArgs) -> Result<Prepared, Failure> {
    a.options().check()?;
    let output = out_file(&a.output, "proof")?;
    let stats = a
        .stats
        .as_deref()
        .map(|p| out_file(p, "stats"))
        .transpose()?;
    let guest = Guest::load(&a.elf)?;
    let input = read_input(a.input.as_deref())?;
    Ok(Prepared {
        output,
        stats,
        guest,
        input,
    })
}

/// `kestrel prove`.
pub fn prove_command(a: &ProveArgs) -> i32 {
    prove_run(a, |guest, input, opts, progress| {
        guest.prove_with_progress(input, opts, progress)
    })
}

/// `kestrel prove` on a given backend (for example a CUDA backend with its own budget);
/// `--backend` and `--vram-budget` are not used. The exit code on failure.
///
/// # Errors
/// The exit code (see the module doc), after printing why.
pub fn prove_with<B: RvFills>(backend: &B, a: &ProveArgs) -> Result<(), i32> {
    match prove_run(a, |guest, input, opts, progress| {
        guest.prove_with_backend(backend, input, opts, progress)
    }) {
        0 => Ok(()),
        code => Err(code),
    }
}

type ProveFn<'a> = dyn FnMut(
        &Guest,
        &[u8],
        &ProveOptions,
        &mut dyn FnMut(&api::Progress),
    ) -> Result<Proved, api::Error>
    + 'a;

fn prove_run(
    a: &ProveArgs,
    mut prove: impl FnMut(
        &Guest,
        &[u8],
        &ProveOptions,
        &mut dyn FnMut(&api::Progress),
    ) -> Result<Proved, api::Error>,
) -> i32 {
    let mut fields = null_fields(Cmd::Prove);
    let outcome = prove_inner(a, &mut prove, &mut fields);
    finish(Cmd::Prove, a.json, outcome.map(|()| 0), fields)
}

fn prove_inner(
    a: &ProveArgs,
    prove: &mut ProveFn<'_>,
    fields: &mut Map<String, Value>,
) -> Result<(), Failure> {
    let prep = prepare(a)?;
    let bar = crate::cli_common::spinner("execute");
    let mut cycles = 0u64;
    let mut on_progress = |p: &api::Progress| match p {
        api::Progress::Backend { name, cycles: c } => {
            cycles = *c;
            match &bar {
                Some(pb) => pb.suspend(|| eprintln!("backend: {name}")),
                None => eprintln!("backend: {name}"),
            }
        }
        api::Progress::Phase {
            index,
            name,
            elapsed,
            time_left,
        } => {
            if let Some(pb) = &bar {
                pb.set_message(progress_line(*index, name, *elapsed, *time_left, cycles));
            }
        }
        api::Progress::Segment(p) => {
            if let Some(pb) = &bar {
                pb.set_message(segment_line(p, cycles));
            }
        }
    };
    let proved = prove(&prep.guest, &prep.input, &a.options(), &mut on_progress);
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let proved = proved?;
    let r = &proved.report;
    fields.insert("backend".into(), json!(r.backend));
    fields.insert("cycles".into(), json!(r.cycles));
    output_fields(
        fields,
        Some(proved.statement.exit_code),
        Some(&proved.statement.output),
    );
    fields.insert("blowup".into(), json!(r.blowup()));
    fields.insert("vk".into(), json!(hex(&r.vk.0)));
    commit(prep.output, "proof", &proved.file_bytes())?;
    fields.insert("proof".into(), json!(a.output.display().to_string()));
    fields.insert("proof_bytes".into(), json!(proved.proof.len()));
    fields.insert("seconds".into(), json!(r.seconds));
    fields.insert("khz".into(), json!(r.khz()));
    eprintln!(
        "proved {} cycles in {:.3} s ({:.1} kHz), exit code {}, {} bytes of public output, proof {} bytes",
        r.cycles,
        r.seconds,
        r.khz(),
        proved.statement.exit_code,
        proved.statement.output.len(),
        proved.proof.len()
    );
    for (name, ms) in &r.phases {
        eprintln!("  {name:<12} {ms:>10.3} ms");
    }
    if let Some(s) = &r.segmented {
        eprintln!(
            "  {} segments of 2^{} cycles; the executor ran at {:.2} MHz, {} packer(s) at {:.2} MHz each, enough for {:.1} backends",
            s.segments, s.segment_log, s.executor_mhz, s.packers, s.packing_mhz, s.backends_fed
        );
        if s.backends.len() > 1 {
            for (i, b) in s.backends.iter().enumerate() {
                eprintln!(
                    "    backend {i}: committed {}, proved {} segments, busy {:.3} s",
                    b.committed, b.proved, b.busy_seconds
                );
            }
        }
    }
    eprintln!("  fill (real rows / trace height) of the largest tables:");
    eprint!("{}", fill_summary(&r.tables, 4));
    if let Some(Ok((c, roof))) = &r.roofline {
        eprint!(
            "{}",
            roofline_table(roof, c, r.segmented.as_ref().map(|s| s.segments + 1))
        );
    } else if let Some(Err(e)) = &r.roofline {
        eprintln!("warning: roofline ceilings not measured: {e}");
    }
    if let Some(out) = prep.stats {
        let stats = stats_json(&proved);
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

/// The terminal's progress line: the phase, the time so far and, once known, the time
/// left and the rate it implies.
fn progress_line(
    index: usize,
    name: &str,
    elapsed: std::time::Duration,
    time_left: Option<std::time::Duration>,
    cycles: u64,
) -> String {
    let mut s = format!(
        "[{}/{}] {name} · {:.1} s",
        index + 1,
        api::PHASES.len(),
        elapsed.as_secs_f64()
    );
    if let Some(left) = time_left {
        let total = (elapsed + left).as_secs_f64().max(1e-9);
        let hz = cycles as f64 / total;
        let rate = if hz >= 1e6 {
            format!("{:.2} MHz", hz / 1e6)
        } else {
            format!("{:.1} kHz", hz / 1e3)
        };
        s += &format!(" · about {:.1} s left · {rate}", left.as_secs_f64());
    }
    s
}

/// The progress line of a segmented proof: the phase, parts done of total, the rate so far
/// over both phases' work, the time left.
fn segment_line(p: &crate::segmented::SegmentProgress, cycles: u64) -> String {
    let what = if p.phase == 1 { "commit" } else { "prove" };
    let mut s = format!(
        "[{}/2] {what}: part {}/{} · {:.1} s",
        p.phase,
        p.done,
        p.total,
        p.elapsed.as_secs_f64()
    );
    if let Some(left) = p.time_left {
        let hz = cycles as f64 / (p.elapsed + left).as_secs_f64().max(1e-9);
        s += &format!(
            " · about {:.0} s left · {:.2} MHz",
            left.as_secs_f64(),
            hz / 1e6
        );
    }
    s
}

/// `prove --stats`'s object.
fn stats_json(proved: &Proved) -> Value {
    let r = &proved.report;
    let (ceilings, roofline) = match &r.roofline {
        Some(Ok((c, roof))) => (json!(c), json!(roof)),
        Some(Err(e)) => (json!({ "error": e }), Value::Null),
        None => (Value::Null, Value::Null),
    };
    let tables: Vec<Value> = r
        .tables
        .iter()
        .map(|t| {
            let cells = t.rows * (t.columns + t.aux_columns);
            // A segmented proof reports each segment table's rows summed over its segments,
            // and its run part's: both per cycle of the run.
            let per = r.cycles;
            json!({
                "table": t.name,
                "built_on": t.built_on,
                "rows": t.rows,
                "fill": t.fill,
                "columns": t.columns,
                "aux_columns": t.aux_columns,
                "preprocessed_columns": t.preprocessed_columns,
                "cells_per_cycle": cells as f64 / per.max(1) as f64,
            })
        })
        .collect();
    let total_cells: f64 = tables
        .iter()
        .filter_map(|t| t["cells_per_cycle"].as_f64())
        .sum();
    // The parameter set and its security at this proof's largest table.
    let log_max_height = r
        .tables
        .iter()
        .map(|t| t.rows.max(1).trailing_zeros())
        .max()
        .unwrap_or(0);
    let params = &r.params;
    let security = kestrel_core::params::estimate(params, log_max_height);
    json!({
        "h2d_bytes_per_cycle": h2d_per_cycle(&r.backend_report, r.cycles),
        "preset": {
            "blowup": 1u32 << params.log_blowup,
            "queries": params.num_queries,
            "pow_bits": params.pow_bits,
            "log_final_poly_len": params.log_final_poly_len,
            "log_max_height": log_max_height,
            "provable_bits": security.provable_bits,
            "conjectured_bits": security.conjectured_bits,
        },
        "vk": hex(&r.vk.0),
        "backend": r.backend,
        "backend_report": r.backend_report,
        "device_fills": r.device_fills,
        "cycles": r.cycles,
        "exit_code": proved.statement.exit_code,
        "tables": tables,
        "cells_per_cycle": total_cells,
        "phases_ms": r.phases.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<Map<_, _>>(),
        "prove_s": r.seconds,
        "khz": r.khz(),
        "proof_bytes": proved.proof.len(),
        "proof_parts": r.proof_parts,
        "peak_rss_bytes": r.peak_rss_bytes,
        "segmented": r.segmented,
        "ceilings": ceilings,
        "roofline": roofline,
    })
}

/// Host→device bytes per cycle, by the backend's categories and in total (`null` for a
/// backend that reports no transfers, such as the CPU's).
fn h2d_per_cycle(report: &Value, cycles: u64) -> Value {
    let Some(bytes) = report.get("h2d_bytes").and_then(Value::as_object) else {
        return Value::Null;
    };
    let per = |b: f64| b / cycles.max(1) as f64;
    let mut out: Map<String, Value> = bytes
        .iter()
        .map(|(k, v)| (k.clone(), json!(per(v.as_f64().unwrap_or(0.0)))))
        .collect();
    let total: f64 = bytes.values().filter_map(Value::as_f64).sum();
    out.insert("total".into(), json!(per(total)));
    Value::Object(out)
}

/// The `top` tables of the most main and auxiliary cells, with their fill (`n/a` where
/// the real rows are not known), one line each.
fn fill_summary(tables: &[api::TableReport], top: usize) -> String {
    let mut order: Vec<&api::TableReport> = tables.iter().collect();
    order.sort_by_key(|t| std::cmp::Reverse(t.rows * (t.columns + t.aux_columns)));
    let mut out = String::new();
    for t in order.into_iter().take(top) {
        let fill = match t.fill {
            Some(f) => format!("{:>6.1} %", 100.0 * f),
            None => "     n/a".into(),
        };
        out += &format!("    {:<10} {:>10} rows  {fill}\n", t.name, t.rows);
    }
    out
}

/// The roofline report as a short table; for a segmented proof of `parts` parts, a note
/// that its least work is summed over the parts and its times over both phases.
fn roofline_table(
    r: &[crate::roofline::StageRoofline],
    c: &crate::roofline::Ceilings,
    parts: Option<usize>,
) -> String {
    let over = parts.map_or(String::new(), |n| {
        format!(" over {n} parts, least work once, time of both phases")
    });
    let mut out = format!(
        "  roofline{over} (ceilings: copy {:.1} GB/s, Keccak {:.4} Gperm/s):\n    {:<12} {:>10} {:>10} {:>12} {:>8} {:>8}  bound\n",
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
    let mut fields = null_fields(Cmd::Vk);
    fields.insert("blowup".into(), json!(a.blowup));
    let mut run = || -> Result<(), Failure> {
        api::params(a.blowup)?;
        let out = out_file(&a.output, "verifying key")?;
        let vk = Guest::load(&a.elf)?.verifying_key(a.blowup)?;
        commit(out, "verifying key", &vk.0)?;
        fields.insert("vk".into(), json!(hex(&vk.0)));
        fields.insert("path".into(), json!(a.output.display().to_string()));
        Ok(())
    };
    let outcome = run();
    finish(Cmd::Vk, a.json, outcome.map(|()| 0), fields)
}

fn read_proof_file(path: &Path) -> Result<Vec<u8>, Failure> {
    read_capped(
        path,
        (MAX_PROOF_FILE, "proof file"),
        Some((STATEMENT_MAGIC, "not a Kestrel proof file (bad magic)")),
    )
    .map_err(|e| match e {
        ReadError::BadStart(why) => Failure::new(ErrorKind::Invalid, why),
        e => Failure::new(
            ErrorKind::Input,
            format!("cannot read proof {}: {e}", path.display()),
        ),
    })
}

fn read_vk(path: &Path) -> Result<api::VerifyingKey, Failure> {
    let bad = |msg: String| Failure::new(ErrorKind::Input, msg);
    let bytes = read_capped(path, (VK_BYTES, "verifying key"), None).map_err(|e| match e {
        ReadError::TooLarge { size: Some(n), .. } => bad(format!(
            "{} is not a {VK_BYTES}-byte verifying key ({n} bytes)",
            path.display()
        )),
        ReadError::TooLarge { size: None, .. } => bad(format!(
            "{} is not a {VK_BYTES}-byte verifying key (longer)",
            path.display()
        )),
        e => bad(format!("cannot read verifying key {}: {e}", path.display())),
    })?;
    let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
        bad(format!(
            "{} is not a {VK_BYTES}-byte verifying key ({} bytes)",
            path.display(),
            bytes.len()
        ))
    })?;
    Ok(api::VerifyingKey(key))
}

/// `kestrel verify`.
pub fn verify_command(a: &VerifyArgs) -> i32 {
    let mut fields = null_fields(Cmd::Verify);
    fields.insert("valid".into(), json!(false));
    let outcome = verify_inner(a, &mut fields);
    if outcome.is_ok() {
        fields.insert("valid".into(), json!(true));
    }
    finish(Cmd::Verify, a.json, outcome.map(|()| 0), fields)
}

fn verify_inner(a: &VerifyArgs, fields: &mut Map<String, Value>) -> Result<(), Failure> {
    let wanted = a.blowup.map(api::params).transpose()?;
    let out = a
        .public_output
        .as_deref()
        .map(|p| out_file(p, "public output"))
        .transpose()?;
    let file = read_proof_file(&a.proof)?;
    let given_vk = a.vk.as_deref().map(read_vk).transpose()?;
    // The parameters the proof says it was made with (the key binds them).
    let (_, made_with) = api::inspect_file(&file)?;
    fields.insert("blowup".into(), json!(api::preset_of(&made_with)));
    if let Some(w) = wanted {
        if w != made_with {
            let made = match api::preset_of(&made_with) {
                Some(b) => format!("--blowup {b}"),
                None => format!("parameters that are no preset ({made_with:?})"),
            };
            return Err(Failure::new(
                ErrorKind::Usage,
                format!(
                    "proof was made with {made}; this verify used --blowup {}",
                    w.blowup()
                ),
            ));
        }
    }
    let vk = match (given_vk, &a.elf) {
        (Some(vk), _) => vk,
        (None, Some(elf)) => {
            // The key is derived with the proof's own preset: the verifier still checks
            // it against the security floor, and only presets are accepted here.
            let Some(blowup) = api::preset_of(&made_with) else {
                return Err(Failure::new(
                    ErrorKind::Invalid,
                    format!(
                        "the proof's parameters are not a preset (blowup 2, 4 or 8): \
                         {made_with:?}; verify it with --vk"
                    ),
                ));
            };
            Guest::load(elf)?.verifying_key(blowup)?
        }
        (None, None) => {
            return Err(Failure::new(ErrorKind::Usage, "give --vk or --elf"));
        }
    };
    let statement = api::verify_file(&vk, &file)?;
    output_fields(fields, Some(statement.exit_code), Some(&statement.output));
    println_unless_json(
        a.json,
        &format!(
            "valid: exit code {}, {} bytes of public output",
            statement.exit_code,
            statement.output.len()
        ),
    );
    if let Some(out) = out {
        commit(out, "public output", &statement.output)?;
    }
    Ok(())
}

/// A human line on stdout, or on stderr when stdout carries the JSON object.
fn println_unless_json(json: bool, line: &str) {
    if json {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

pub use kestrel_verifier::statement::{
    decode_statement, encode_statement, Statement, STATEMENT_MAGIC,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h2d_per_cycle_divides_each_category_and_the_total() {
        let report = json!({ "h2d_bytes": { "step records": 120, "trace upload": 40 } });
        let v = h2d_per_cycle(&report, 10);
        assert_eq!(v["step records"], json!(12.0));
        assert_eq!(v["trace upload"], json!(4.0));
        assert_eq!(v["total"], json!(16.0));
        assert!(h2d_per_cycle(&json!({ "ops": 3 }), 10).is_null());
        assert!(h2d_per_cycle(&Value::Null, 10).is_null());
    }
}
