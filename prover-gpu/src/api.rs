//! Prove and verify RV64IM programs from Rust code. The `kestrel` command line is a thin
//! layer on this module: it parses flags, opens files, calls these functions and prints.
//!
//! ```
//! use kestrel_prover_gpu::api::{verify_file, BackendChoice, Guest, ProveOptions};
//!
//! # fn main() -> Result<(), kestrel_prover_gpu::api::Error> {
//! # let elf = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/guests/bin/fibonacci.elf");
//! // Load a guest (an RV64IM ELF built with the guest SDK) and prove a run of it on the
//! // CPU backend at the default preset (blowup 4), with its private input (fd 0).
//! let guest = Guest::load(elf)?;
//! let options = ProveOptions { backend: BackendChoice::Cpu, ..ProveOptions::default() };
//! let proved = guest.prove(b"30", &options)?;
//! // The statement: the guest's exit code and its public output (what it wrote to fd 1).
//! assert_eq!(proved.statement.exit_code, 0);
//! assert_eq!(proved.statement.output, b"832040\n");
//!
//! // A proof file is what `kestrel prove -o` writes: the statement, then the proof.
//! let file = proved.file_bytes();
//! // Anyone holding the guest's verifying key checks it (the kestrel-verifier crate alone
//! // does the same: `kestrel_verifier::statement::verify_statement_file`).
//! let vk = guest.verifying_key(proved.report.blowup())?;
//! let statement = verify_file(&vk, &file)?;
//! assert_eq!(statement, proved.statement);
//!
//! // A proof of another output does not verify.
//! let mut forged = proved.statement.clone();
//! forged.output = b"832041\n".to_vec();
//! let bad = kestrel_prover_gpu::api::encode_statement(&forged, &proved.proof);
//! assert!(verify_file(&vk, &bad).is_err());
//! # Ok(())
//! # }
//! ```
//!
//! Progress: [`Guest::prove_with_progress`] calls back at the start of every phase
//! ([`Progress`]) with the time elapsed and, once the tables' shapes are known, an estimate
//! of the time left.
//!
//! Errors keep their kind ([`Error::kind`]): an option out of range, a file that cannot be
//! read, an ELF that cannot be loaded, a run that stops with an error, a run this version
//! cannot prove, a device-memory budget refusal, a device fault, a failed proof, a proof
//! that does not verify.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kestrel_core::air::Machine;
use kestrel_core::params::StarkParams;

use crate::backend::MainTrace;
use crate::cpu::CpuBackend;
use crate::error::ProverError;
use crate::limits::{
    read_capped, read_elf, ReadError, DEFAULT_PROVE_CYCLES, MAX_ELF_FILE, MAX_PROVABLE_CYCLES,
    MAX_SEGMENT_CYCLES, MIN_SEGMENT_CYCLES,
};
use crate::par::Rayon;
use crate::prover::{prove_main_observed, setup, ProvingKey};
use crate::roofline::{Ceilings, StageRoofline, STAGES};
use crate::rv::{
    machine_for, main_traces_timed, program_image, record_predecoded, MainTracesError,
};
use crate::vm::record::VecRecorder;
use crate::vm::{ElfError, NoRecorder, Program, Vm};
use kestrel_core::rv::pack::Predecoder;

pub use crate::rv::RvFills;
pub use crate::select::{BackendChoice, Devices};
pub use crate::vm::{ElfError as LoadError, Exit, VmError, DEFAULT_MAX_CYCLES};
pub use kestrel_core::keys::VerifyingKey;
pub use kestrel_verifier::statement::{decode_statement, encode_statement, Statement};

/// What kind of failure an [`Error`] is; the command line maps kinds to exit codes in one
/// place (`cli_common::exit_code`), and `--json` names them (`error.kind`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// An option out of range or a combination that does not apply (`"usage"`).
    Usage,
    /// A file that cannot be read or is over its cap (`"input"`).
    Input,
    /// The ELF cannot be loaded (`"load"`).
    Load,
    /// The guest's run stopped with an error: a fault, a cycle or output limit (`"run"`).
    Run,
    /// The run cannot be proven by this version (`"unprovable"`).
    Unprovable,
    /// The device-memory budget refuses the proof (`"budget"`).
    Budget,
    /// No device of the kind asked for (`"no_device"`).
    NoDevice,
    /// The device failed (`"device"`).
    Device,
    /// Proving failed otherwise (`"prove"`).
    Prove,
    /// The proof file is malformed or the proof does not verify (`"invalid"`).
    Invalid,
    /// An output cannot be written (`"write"`; the library never writes, the CLI does).
    Write,
}

impl ErrorKind {
    /// The kind's name in `--json` output.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::Input => "input",
            ErrorKind::Load => "load",
            ErrorKind::Run => "run",
            ErrorKind::Unprovable => "unprovable",
            ErrorKind::Budget => "budget",
            ErrorKind::NoDevice => "no_device",
            ErrorKind::Device => "device",
            ErrorKind::Prove => "prove",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Write => "write",
        }
    }
}

/// Why proving or verifying failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An option out of range.
    #[error("{0}")]
    Usage(String),
    /// A file could not be read (or is over its cap).
    #[error("cannot read {what} {}: {source}", path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: ReadError,
    },
    /// The ELF file is over its cap or not an ELF file.
    #[error("cannot load {}: {source}", path.display())]
    ElfFile {
        path: PathBuf,
        #[source]
        source: ReadError,
    },
    /// The ELF cannot be loaded.
    #[error("cannot load {}: {source}", path.display())]
    Load {
        path: PathBuf,
        #[source]
        source: ElfError,
    },
    /// The run stopped with an error.
    #[error("{source}{hint}")]
    Run {
        #[source]
        source: VmError,
        /// What to do about it, for limits (empty otherwise).
        hint: String,
    },
    /// Building the traces failed: the run is not provable by this version, or a device
    /// fill failed.
    #[error("{0}")]
    Trace(#[source] MainTracesError),
    /// Setup or the proof failed.
    #[error("{phase}: {source}")]
    Prove {
        phase: &'static str,
        #[source]
        source: ProverError,
    },
    /// No backend of the kind asked for.
    #[error("{0}")]
    NoBackend(String),
    /// The proof file is malformed or its proof does not verify.
    #[error("{0}")]
    Invalid(#[source] kestrel_verifier::statement::FileError),
    /// A broken invariant (a bug).
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// The failure's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Usage(_) => ErrorKind::Usage,
            Error::Read { .. } => ErrorKind::Input,
            Error::ElfFile { .. } | Error::Load { .. } => ErrorKind::Load,
            Error::Run { .. } => ErrorKind::Run,
            Error::Trace(MainTracesError::Trace(_)) => ErrorKind::Unprovable,
            Error::Trace(MainTracesError::Fill(e)) | Error::Prove { source: e, .. } => {
                prover_kind(e)
            }
            Error::NoBackend(_) => ErrorKind::NoDevice,
            Error::Invalid(_) => ErrorKind::Invalid,
            Error::Internal(_) => ErrorKind::Prove,
        }
    }
}

impl From<crate::segmented::SegmentedError> for Error {
    fn from(e: crate::segmented::SegmentedError) -> Error {
        use crate::segmented::SegmentedError;
        match e {
            SegmentedError::Run(source) => Error::Run {
                source,
                hint: String::new(),
            },
            SegmentedError::Trace(t) => Error::Trace(MainTracesError::Trace(t)),
            SegmentedError::Prove { phase, source } => Error::Prove { phase, source },
            SegmentedError::Internal(m) => Error::Internal(m),
        }
    }
}

fn prover_kind(e: &ProverError) -> ErrorKind {
    match e {
        ProverError::Budget(_) => ErrorKind::Budget,
        ProverError::Backend(_) => ErrorKind::Device,
        _ => ErrorKind::Prove,
    }
}

/// How to prove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProveOptions {
    /// Which backend proves ([`BackendChoice::Auto`]: CUDA when built with it and a device
    /// answers, else the CPU).
    pub backend: BackendChoice,
    /// The parameter preset, by its LDE blowup: 2, 4 (the default) or 8.
    pub blowup: usize,
    /// Stop with an error after this many instructions; at most [`MAX_PROVABLE_CYCLES`]
    /// (2^36), by default [`DEFAULT_PROVE_CYCLES`] (2^26).
    pub max_cycles: u64,
    /// Device-memory budget in bytes for the CUDA backend (`None`: the free device memory
    /// at start).
    pub vram_budget: Option<u64>,
    /// Build every main trace on the host, even where the backend fills some on the device
    /// (the proof is the same).
    pub host_fills: bool,
    /// After the proof, measure the backend's ceilings and report the roofline
    /// ([`Report::roofline`]); costs a fraction of a second.
    pub roofline: bool,
    /// log2 of the most cycles per segment (`--segment-cycles`): a longer run is proven in
    /// segments ([`crate::segmented`]); `None`: the backend's default
    /// ([`default_segment_log`]).
    pub segment_log: Option<u32>,
    /// Which devices prove (`--devices`, CUDA only): with several, a segmented run's
    /// segments are proven on all of them at once, each backend with its own device-memory
    /// budget ([`crate::select::cuda_backends`]); the proof is the same bytes. Given with
    /// [`BackendChoice::Auto`], CUDA is required.
    pub devices: Devices,
    /// Threads packing a segmented run's segments from checkpoints (`--packers`): the one
    /// executor runs ahead and each packer packs a segment from the replay state at its
    /// start ([`kestrel_core::rv::pack::Segmenter::fork`]); 1 packs them in order on the
    /// executor's thread. `None`: `KESTREL_PACKERS` if set, else in order up to two
    /// backends and one per backend beyond ([`default_packers`]). The proof is the same
    /// bytes. From 1 to [`MAX_PACKERS`]: [`ProveOptions::check`] refuses others.
    pub packers: Option<usize>,
}

/// Packers for a segmented run on `backends` backends when [`ProveOptions::packers`] is
/// not given: `KESTREL_PACKERS` if it is a number; else 1 (in order) for up to
/// [`IN_ORDER_FEEDS`] backends, one per backend beyond.
pub fn default_packers(backends: usize) -> usize {
    std::env::var("KESTREL_PACKERS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(if backends <= IN_ORDER_FEEDS {
            1
        } else {
            backends
        })
        .clamp(1, MAX_PACKERS)
}

/// Backends one executor packing in order keeps busy: it fed 2.7 on the H200 host
/// (`backends_fed` of a 2^26-cycle run, BENCHMARKS.md "A modelled scaling curve"), so a
/// run on more backends packs from checkpoints by default.
pub const IN_ORDER_FEEDS: usize = 2;

impl Default for ProveOptions {
    fn default() -> ProveOptions {
        ProveOptions {
            backend: BackendChoice::Auto,
            blowup: 4,
            max_cycles: DEFAULT_PROVE_CYCLES,
            vram_budget: None,
            host_fills: false,
            roofline: false,
            segment_log: None,
            devices: Devices::Default,
            packers: None,
        }
    }
}

impl ProveOptions {
    /// The parameter set of [`ProveOptions::blowup`].
    ///
    /// # Errors
    /// [`Error::Usage`] for a blowup that is no preset.
    pub fn params(&self) -> Result<StarkParams, Error> {
        params(self.blowup)
    }

    /// Checks every option: the preset, the cycle limit, and a budget or devices only for a
    /// backend that can be CUDA.
    ///
    /// # Errors
    /// [`Error::Usage`], naming the option.
    pub fn check(&self) -> Result<(), Error> {
        self.params()?;
        check_cycles(self.max_cycles).map_err(|e| Error::Usage(format!("--max-cycles: {e}")))?;
        if let Some(l) = self.segment_log {
            check_segment_cycles(1u64.checked_shl(l).unwrap_or(0))
                .map_err(|e| Error::Usage(format!("--segment-cycles: {e}")))?;
        }
        if self.vram_budget.is_some()
            && (self.backend == BackendChoice::Cpu || !cfg!(feature = "cuda"))
        {
            return Err(Error::Usage(
                "--vram-budget applies to the cuda backend only".into(),
            ));
        }
        if self.devices != Devices::Default {
            if self.backend == BackendChoice::Cpu || !cfg!(feature = "cuda") {
                return Err(Error::Usage(
                    "--devices applies to the cuda backend only".into(),
                ));
            }
            self.devices
                .check()
                .map_err(|e| Error::Usage(format!("--devices: {e}")))?;
        }
        if let Some(p) = self.packers {
            check_packers(p)?;
        }
        Ok(())
    }
}

/// The most packer threads one run takes (`--packers`).
pub const MAX_PACKERS: usize = 256;

/// A packer count within 1 ..= [`MAX_PACKERS`]; else [`Error::Usage`] naming the range.
fn check_packers(packers: usize) -> Result<(), Error> {
    if (1..=MAX_PACKERS).contains(&packers) {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "--packers {packers}: expected 1 to {MAX_PACKERS}"
        )))
    }
}

/// Whether a run of `cycles` on one CUDA device with a budget of `budget` bytes is proven by
/// two backends sharing the device (what `--devices 0,0` asks for): the run is segmented on
/// one backend (longer than [`whole_run_log`], or than `segment_log` when given), and half
/// the budget still holds the segments one backend would prove, so the proof is the same
/// bytes. One backend's host work (its fills' uploads) then runs beside the other's kernels
/// (H200, 2^26 cycles: 8 % faster; BENCHMARKS.md, "Session 22").
pub fn shares_one_device(
    blowup: usize,
    budget: u64,
    cycles: u64,
    segment_log: Option<u32>,
) -> bool {
    let one = segment_log.unwrap_or_else(|| default_segment_log("cuda", blowup, Some(budget)));
    let whole = match segment_log {
        None => whole_run_log("cuda", blowup, Some(budget)),
        Some(l) => l,
    };
    let fits_half = (1u64 << one)
        .saturating_mul(CUDA_SEGMENT_BYTES_PER_CYCLE_AND_BLOWUP * blowup as u64)
        <= budget / 2;
    // Given segments are the same whatever the budget; the default ones must come out the
    // same from half of it.
    let same_segments =
        segment_log.is_some() || default_segment_log("cuda", blowup, Some(budget / 2)) == one;
    cycles > 1u64 << whole.max(one) && same_segments && fits_half
}

/// The parameter preset of LDE blowup `blowup` (2, 4 or 8).
///
/// # Errors
/// [`Error::Usage`] for any other blowup.
pub fn params(blowup: usize) -> Result<StarkParams, Error> {
    StarkParams::preset(blowup)
        .ok_or_else(|| Error::Usage(format!("--blowup must be 2, 4 or 8 (got {blowup})")))
}

/// The preset `p` is (its blowup), if it is one.
pub fn preset_of(p: &StarkParams) -> Option<usize> {
    StarkParams::PRESETS
        .iter()
        .find(|q| *q == p)
        .map(StarkParams::blowup)
}

/// Checks a segment size: a power of two in [`MIN_SEGMENT_CYCLES`]`..=`[`MAX_SEGMENT_CYCLES`].
///
/// # Errors
/// A message saying which sizes are accepted.
pub fn check_segment_cycles(n: u64) -> Result<u32, String> {
    if !n.is_power_of_two() || !(MIN_SEGMENT_CYCLES..=MAX_SEGMENT_CYCLES).contains(&n) {
        return Err(format!(
            "{n} is not a power of two from 2^8 = {MIN_SEGMENT_CYCLES} to 2^24 = \
             {MAX_SEGMENT_CYCLES}"
        ));
    }
    Ok(n.trailing_zeros())
}

/// Device memory one segment's proof holds at its peak on the CUDA backend, per cycle and
/// per unit of blowup: 42,973,182,232 B for 2^21 cycles at blowup 4, 21,506,734,360 B for
/// 2^20 (the stats' `device_bytes_peak`, H200, BENCHMARKS.md "Segment sizes"), about
/// 5.1 KB × blowup per cycle.
const CUDA_SEGMENT_BYTES_PER_CYCLE_AND_BLOWUP: u64 = 5_200;

/// The default segment size (log2) of a backend at a preset. On the CUDA backend, the
/// largest whose proof fits the device-memory budget (`budget`: the backend's, `None`:
/// 24 GB), up to 2^22 cycles at blowup 2, 2^21 at 4, 2^20 at 8: on the H200, 2^24 cycles
/// proved in 3.96 s in segments of 2^22 against 4.16 s of 2^21 at blowup 2, in 6.0 s of
/// 2^21 against 7.0 s of 2^20 and 6.1 s of 2^22 at blowup 4 (equal to 2^20 in another
/// call), in 9.0 s of 2^20 against 9.4 s of 2^21 at blowup 8 (BENCHMARKS.md, "Segment
/// sizes"); fewer segments also make smaller proofs. On the CPU backend, what fits a few
/// GB of host memory.
pub fn default_segment_log(backend: &str, blowup: usize, budget: Option<u64>) -> u32 {
    let lb = blowup.trailing_zeros();
    match backend {
        "cuda" => {
            let budget = budget.unwrap_or(24 << 30);
            let per_cycle = CUDA_SEGMENT_BYTES_PER_CYCLE_AND_BLOWUP * blowup as u64;
            let cap = 23u32.saturating_sub(lb).max(16);
            (16..=cap)
                .rev()
                .find(|&l| (1u64 << l).saturating_mul(per_cycle) <= budget)
                .unwrap_or(16)
        }
        _ => 17 - lb.saturating_sub(1),
    }
}

/// log2 of the longest run a backend proves whole (in one proof, not in segments) when no
/// segment size is given: on the CUDA backend the largest run whose proof fits the
/// device-memory budget (as [`default_segment_log`] counts it; `None`: 24 GB), up to
/// [`MAX_SEGMENT_CYCLES`], even past the segment size a segmented run would use. A run that
/// fits is proven once, where in segments every segment is executed, packed and committed
/// twice (phase 1, then phase 2): on the H200, 4,190,374 cycles of the Fibonacci guest at
/// blowup 4 proved in 1.044 s whole against 1.421 s in two segments of 2^21 (BENCHMARKS.md,
/// "Session 15"). The preset's provable security holds at the taller tables (≥ 100 bits at
/// every preset up to 2^26 rows). Elsewhere the segment size itself.
pub fn whole_run_log(backend: &str, blowup: usize, budget: Option<u64>) -> u32 {
    let segment = default_segment_log(backend, blowup, budget);
    match backend {
        "cuda" => {
            let budget = budget.unwrap_or(24 << 30);
            let per_cycle = CUDA_SEGMENT_BYTES_PER_CYCLE_AND_BLOWUP * blowup as u64;
            let max = MAX_SEGMENT_CYCLES.trailing_zeros();
            (segment..=max)
                .rev()
                .find(|&l| (1u64 << l).saturating_mul(per_cycle) <= budget)
                .unwrap_or(segment)
        }
        _ => segment,
    }
}

/// An ELF file's bytes, capped.
///
/// # Errors
/// [`Error::Read`] if it cannot be read, [`Error::ElfFile`] if it is too large.
pub(crate) fn read_elf_file(path: &Path) -> Result<Vec<u8>, Error> {
    read_elf(path).map_err(|e| match e {
        ReadError::Io(_) => Error::Read {
            what: "ELF",
            path: path.into(),
            source: e,
        },
        e => Error::ElfFile {
            path: path.into(),
            source: e,
        },
    })
}

/// Checks a cycle limit against [`MAX_PROVABLE_CYCLES`].
///
/// # Errors
/// A message saying the most `prove` proves.
pub fn check_cycles(n: u64) -> Result<(), String> {
    if n > MAX_PROVABLE_CYCLES {
        return Err(format!(
            "{n} is more cycles than prove can prove: at most 2^36 = {MAX_PROVABLE_CYCLES}"
        ));
    }
    Ok(())
}

/// The phases of a proof, in order, as [`Progress`] and [`Report::phases`] name them: the
/// runs and setup, then the proving stages as the prover and the roofline model name them
/// ([`crate::roofline::STAGES`]).
pub const PHASES: [&str; 3 + STAGES.len()] = {
    let mut out = [""; 3 + STAGES.len()];
    out[0] = "execute";
    out[1] = "record";
    out[2] = "setup";
    let mut i = 0;
    while i < STAGES.len() {
        out[3 + i] = STAGES[i];
        i += 1;
    }
    out
};

/// Where a proof is, given to [`Guest::prove_with_progress`]'s callback.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    /// The backend was chosen (after the unrecorded run, before anything is proven).
    Backend {
        /// Its name: `"cpu"` or `"cuda"`.
        name: &'static str,
        /// The run's cycles.
        cycles: u64,
    },
    /// A segmented proof finished a part ([`crate::segmented`]).
    Segment(crate::segmented::SegmentProgress),
    /// Phase `index` of [`PHASES`] starts.
    Phase {
        index: usize,
        name: &'static str,
        /// Since the proof began.
        elapsed: Duration,
        /// The time the remaining phases will take, estimated from the roofline model's
        /// least work of each stage ([`crate::roofline::model`]) scaled by the rate the
        /// stages done so far reached; `None` before the tables' shapes are known.
        time_left: Option<Duration>,
    },
}

/// One table of a proof, as [`Report`] gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct TableReport {
    pub name: String,
    /// Where its main trace was built: `"host"` or `"device"`.
    pub built_on: &'static str,
    pub rows: usize,
    pub columns: usize,
    pub aux_columns: usize,
    pub preprocessed_columns: usize,
    pub quotient_chunks: usize,
    pub interactions: usize,
    /// Real rows ÷ rows, where the packing pass knows the real rows.
    pub fill: Option<f64>,
}

/// What a proof took.
#[derive(Clone, Debug)]
pub struct Report {
    pub backend: &'static str,
    /// Whether record tables were filled in the backend's memory.
    pub device_fills: bool,
    pub cycles: u64,
    pub params: StarkParams,
    pub vk: VerifyingKey,
    /// Milliseconds per phase of [`PHASES`] (and `trace: pack`, `trace: fill` after
    /// `trace`).
    pub phases: Vec<(String, f64)>,
    /// End to end, the unrecorded run included, choosing the backend not.
    pub seconds: f64,
    pub tables: Vec<TableReport>,
    pub pow_nonce: u64,
    /// Bytes of execution records the trace phase read (a segmented proof: every
    /// segment's, once).
    pub record_bytes: u64,
    /// The proof's encoded size by part (opened values, Merkle paths, FRI, OOD, other).
    pub proof_parts: kestrel_core::proof::SizeParts,
    /// The backend's own figures (bytes moved, peak memory; `null` for the CPU); with
    /// several backends, an array of each one's, in order.
    pub backend_report: serde_json::Value,
    /// This process's peak resident memory after the proof ([`peak_rss_bytes`]).
    pub peak_rss_bytes: Option<u64>,
    /// With [`ProveOptions::roofline`]: the ceilings measured after the proof (or why not)
    /// and each stage against them: the least work of [`Report::proof_shape`] (for a
    /// segmented proof, summed over its parts, each counted once) against the stage's time
    /// in [`Report::phases`] (for a segmented proof, summed over both of its phases).
    pub roofline: Option<Result<(Ceilings, Vec<StageRoofline>), String>>,
    /// A segmented proof: its segments and their size (log2 cycles), and the wall time of
    /// its two phases (`None`: one proof of the whole run).
    pub segmented: Option<SegmentedReport>,
}

/// How a segmented proof went ([`Report::segmented`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SegmentedReport {
    pub segments: usize,
    pub segment_log: u32,
    /// Seconds of phase 1 (execute, pack and commit every part) and of phase 2 (again, and
    /// prove every part).
    pub phase_seconds: [f64; 2],
    /// Every part's shape as the roofline model reads it (not in `--stats`).
    #[serde(skip)]
    pub shape: crate::roofline::ProofShape,
    /// Per backend, in the order given: the segments it committed and proved, and its busy
    /// seconds ([`crate::segmented::BackendWork`]).
    pub backends: Vec<crate::segmented::BackendWork>,
    /// The executor's rate: cycles per second of the producer's execute+pack time (both
    /// phases), in MHz.
    pub executor_mhz: f64,
    /// How many backends the producer keeps busy: the workers' mean time per segment over
    /// the producer's, both phases ([`crate::segmented::SegmentedRun::backends_fed`]).
    pub backends_fed: f64,
    /// Threads that packed segments from checkpoints (1: in order, by the executor).
    pub packers: usize,
    /// One packer's rate, cycles per second of packing (both phases), in MHz.
    pub packing_mhz: f64,
}

impl Report {
    /// The preset's blowup.
    pub fn blowup(&self) -> usize {
        self.params.blowup()
    }

    /// Cycles per second, in kHz, end to end.
    pub fn khz(&self) -> f64 {
        self.cycles as f64 / self.seconds.max(1e-9) / 1e3
    }

    /// The roofline model's view of this proof: one part for a whole proof, every part of
    /// a segmented one ([`SegmentedReport::shape`]).
    pub fn proof_shape(&self) -> crate::roofline::ProofShape {
        if let Some(s) = &self.segmented {
            return s.shape.clone();
        }
        crate::roofline::ProofShape::whole(part_shape(
            &self.tables,
            &self.params,
            self.pow_nonce,
            self.record_bytes,
        ))
    }
}

/// A whole proof's tables as the roofline model reads them.
fn part_shape(
    tables: &[TableReport],
    params: &StarkParams,
    pow_nonce: u64,
    record_bytes: u64,
) -> crate::roofline::PartShape {
    let dims = tables
        .iter()
        .map(|t| crate::roofline::TableDims {
            log_n: t.rows.max(1).trailing_zeros(),
            main: t.columns as u64,
            pre: t.preprocessed_columns as u64,
            aux: t.aux_columns as u64,
            quotient_chunks: t.quotient_chunks as u64,
            interactions: t.interactions > 0,
        })
        .collect();
    crate::roofline::PartShape::new(params, dims, pow_nonce, record_bytes)
}

/// The roofline of a finished proof: [`Report::proof_shape`]'s least work per stage
/// against the stage's time in [`Report::phases`] and the backend's ceilings, measured now.
fn roofline_of<B: RvFills>(
    backend: &B,
    report: &Report,
) -> Result<(Ceilings, Vec<StageRoofline>), String> {
    let work = crate::roofline::model(&report.proof_shape());
    let c = backend.ceilings().map_err(|e| e.to_string())?;
    let ms_of = |stage: &str| {
        report
            .phases
            .iter()
            .find(|(n, _)| n == stage)
            .map(|(_, ms)| *ms)
    };
    let r = crate::roofline::report(&work, ms_of, &c);
    Ok((c, r))
}

/// A proof of a run.
#[derive(Clone, Debug)]
pub struct Proved {
    /// What the proof claims: exit code and public output.
    pub statement: Statement,
    /// The proof's bytes.
    pub proof: Vec<u8>,
    pub report: Report,
}

impl Proved {
    /// The proof file (`kestrel prove -o`'s bytes): the statement, then the proof.
    pub fn file_bytes(&self) -> Vec<u8> {
        encode_statement(&self.statement, &self.proof)
    }
}

/// A run without a proof ([`Guest::execute`]).
#[derive(Clone, Debug)]
pub struct Execution {
    /// How it ended: the exit call, or the error that stopped it.
    pub result: Result<Exit, VmError>,
    pub cycles: u64,
    pub seconds: f64,
    /// What the guest wrote to fd 1 (public) and fd 2 (debug), up to where it stopped.
    pub public_output: Vec<u8>,
    pub debug_output: Vec<u8>,
}

impl Execution {
    /// Whether `prove` could prove this run: it exited, within [`MAX_PROVABLE_CYCLES`].
    pub fn provable(&self) -> bool {
        self.result.is_ok() && self.cycles <= MAX_PROVABLE_CYCLES
    }
}

/// A loaded guest program.
pub struct Guest {
    program: Program,
}

impl Guest {
    /// Loads an ELF from memory.
    ///
    /// # Errors
    /// [`Error::Load`] if it is not a loadable RV64IM executable or is larger than
    /// [`MAX_ELF_FILE`].
    pub fn from_elf(elf: &[u8]) -> Result<Guest, Error> {
        Guest::from_bytes(elf, Path::new("the ELF"))
    }

    fn from_bytes(elf: &[u8], path: &Path) -> Result<Guest, Error> {
        if elf.len() as u64 > MAX_ELF_FILE {
            return Err(Error::ElfFile {
                path: path.into(),
                source: ReadError::TooLarge {
                    size: Some(elf.len() as u64),
                    cap: MAX_ELF_FILE,
                    limit: "ELF file",
                },
            });
        }
        Program::from_elf(elf)
            .map(|program| Guest { program })
            .map_err(|source| Error::Load {
                path: path.into(),
                source,
            })
    }

    /// Reads and loads an ELF file (at most [`MAX_ELF_FILE`] bytes, checked before reading).
    ///
    /// # Errors
    /// [`Error::Read`] if it cannot be read, [`Error::ElfFile`] if it is too large or not
    /// an ELF file, [`Error::Load`] if it cannot be loaded.
    pub fn load(path: impl AsRef<Path>) -> Result<Guest, Error> {
        let path = path.as_ref();
        Guest::from_bytes(&read_elf_file(path)?, path)
    }

    /// The loaded program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Runs the guest on `input` without proving it, for at most `max_cycles` instructions.
    pub fn execute(&self, input: &[u8], max_cycles: u64) -> Execution {
        let mut vm = Vm::new(&self.program, input.to_vec()).with_max_cycles(max_cycles);
        let start = Instant::now();
        let result = vm.run(&mut NoRecorder);
        Execution {
            result,
            cycles: vm.cycles(),
            seconds: start.elapsed().as_secs_f64(),
            public_output: vm.public_output().to_vec(),
            debug_output: vm.debug_output().to_vec(),
        }
    }

    /// The verifying key of this guest at a preset: what a verifier needs, 32 bytes.
    ///
    /// # Errors
    /// [`Error::Usage`] for a blowup that is no preset, [`Error::Prove`] if setup fails.
    pub fn verifying_key(&self, blowup: usize) -> Result<VerifyingKey, Error> {
        self.verifying_key_with(params(blowup)?)
    }

    fn verifying_key_with(&self, params: StarkParams) -> Result<VerifyingKey, Error> {
        let machine = machine_for(&program_image(&self.program));
        setup(&CpuBackend, &machine, params)
            .map(|pk| pk.vk)
            .map_err(|source| Error::Prove {
                phase: "setup",
                source,
            })
    }

    /// Proves a run of the guest on `input` (its fd 0).
    ///
    /// # Errors
    /// Every [`Error`] kind but [`ErrorKind::Invalid`].
    pub fn prove(&self, input: &[u8], options: &ProveOptions) -> Result<Proved, Error> {
        self.prove_with_progress(input, options, &mut |_| {})
    }

    /// [`Guest::prove`], calling `progress` as each phase starts.
    ///
    /// # Errors
    /// As [`Guest::prove`].
    pub fn prove_with_progress(
        &self,
        input: &[u8],
        options: &ProveOptions,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Proved, Error> {
        let (params, first, mut clock) = self.first_run(input, options, progress)?;
        if options.devices != Devices::Default {
            let devices = (&options.devices, options.vram_budget);
            return self.prove_on_devices(devices, input, options, params, first, &mut clock);
        }
        // Choosing (and starting) the backend is not part of the proving time.
        let choosing = Instant::now();
        let selected = crate::select::select(options.backend).map_err(Error::NoBackend)?;
        clock.shift(choosing.elapsed());
        match (&selected, options.vram_budget) {
            (_, None) => {}
            #[cfg(feature = "cuda")]
            (crate::select::Selected::Cuda(b), Some(bytes)) => b.set_vram_budget(Some(bytes)),
            _ => {
                return Err(Error::Usage(
                    "--vram-budget applies to the cuda backend only".into(),
                ))
            }
        }
        // A segmented run on one CUDA device: two backends share it when half the budget
        // holds the same segments (the same proof bytes).
        #[cfg(feature = "cuda")]
        if let crate::select::Selected::Cuda(b) = &selected {
            let budget = b.vram_budget();
            let share = std::env::var("KESTREL_SHARE_DEVICE").map_or(true, |v| v != "0");
            if share && shares_one_device(options.blowup, budget, first.cycles, options.segment_log)
            {
                drop(selected);
                let devices = (&Devices::List(vec![0, 0]), Some(budget));
                return self.prove_on_devices(devices, input, options, params, first, &mut clock);
            }
        }
        (clock.progress)(&Progress::Backend {
            name: selected.name(),
            cycles: first.cycles,
        });
        crate::with_backend!(selected, b => self.prove_on(std::slice::from_ref(b), input, options, params, first, &mut clock))
    }

    /// [`Guest::prove_with_progress`] on the CUDA backends of `devices` with a device's
    /// budget (`None`: its free memory; [`crate::select::cuda_backends`]).
    #[cfg(feature = "cuda")]
    fn prove_on_devices(
        &self,
        (devices, budget): (&Devices, Option<u64>),
        input: &[u8],
        options: &ProveOptions,
        params: StarkParams,
        first: Exit,
        clock: &mut Clock<'_>,
    ) -> Result<Proved, Error> {
        // Choosing (and starting) the backends is not part of the proving time.
        let choosing = Instant::now();
        let backends = crate::select::cuda_backends(devices, budget).map_err(Error::NoBackend)?;
        clock.shift(choosing.elapsed());
        (clock.progress)(&Progress::Backend {
            name: "cuda",
            cycles: first.cycles,
        });
        self.prove_on(&backends, input, options, params, first, clock)
    }

    /// Without CUDA there are no devices to choose ([`ProveOptions::check`] says so first).
    #[cfg(not(feature = "cuda"))]
    fn prove_on_devices(
        &self,
        _devices: (&Devices, Option<u64>),
        _input: &[u8],
        _options: &ProveOptions,
        _params: StarkParams,
        _first: Exit,
        _clock: &mut Clock<'_>,
    ) -> Result<Proved, Error> {
        Err(Error::Usage(
            "--devices applies to the cuda backend only".into(),
        ))
    }

    /// [`Guest::prove_with_progress`] on a backend the caller made (for example a CUDA
    /// backend with its own budget); [`ProveOptions::backend`] and
    /// [`ProveOptions::vram_budget`] are not used.
    ///
    /// # Errors
    /// As [`Guest::prove`].
    pub fn prove_with_backend<B: RvFills>(
        &self,
        backend: &B,
        input: &[u8],
        options: &ProveOptions,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Proved, Error> {
        self.prove_with_backends(std::slice::from_ref(backend), input, options, progress)
    }

    /// [`Guest::prove_with_progress`] on backends the caller made (for example a CUDA
    /// backend per device): a run longer than one segment is proven on all of them at once
    /// ([`crate::segmented`]), one that fits one segment on `backends[0]`; the proof is the
    /// same bytes as on one backend. The default segment size is the smallest of the
    /// backends' ([`default_segment_log`] of each one's [`Backend::memory_budget`]).
    /// [`ProveOptions::backend`], [`ProveOptions::vram_budget`] and
    /// [`ProveOptions::devices`] are not used.
    ///
    /// [`Backend::memory_budget`]: crate::backend::Backend::memory_budget
    ///
    /// # Errors
    /// As [`Guest::prove`]; [`Error::Usage`] for no backend.
    pub fn prove_with_backends<B: RvFills>(
        &self,
        backends: &[B],
        input: &[u8],
        options: &ProveOptions,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Proved, Error> {
        let backend = backends
            .first()
            .ok_or_else(|| Error::Usage("no backend to prove on".into()))?;
        let options = ProveOptions {
            backend: BackendChoice::Auto,
            vram_budget: None,
            devices: Devices::Default,
            ..options.clone()
        };
        let (params, first, mut clock) = self.first_run(input, &options, progress)?;
        (clock.progress)(&Progress::Backend {
            name: backend.name(),
            cycles: first.cycles,
        });
        self.prove_on(backends, input, &options, params, first, &mut clock)
    }

    /// The options checked, then a run without records: a run that cannot be proven stops
    /// before it costs memory, and the recorded run gets a buffer of its exact length.
    fn first_run<'a>(
        &self,
        input: &[u8],
        options: &ProveOptions,
        progress: &'a mut dyn FnMut(&Progress),
    ) -> Result<(StarkParams, Exit, Clock<'a>), Error> {
        options.check()?;
        let params = options.params()?;
        let mut clock = Clock::new(progress);
        clock.start(0);
        let mut vm = Vm::new(&self.program, input.to_vec()).with_max_cycles(options.max_cycles);
        let first = vm.run(&mut NoRecorder).map_err(|source| {
            let hint = match source {
                VmError::MaxCycles { .. } if options.max_cycles == MAX_PROVABLE_CYCLES => {
                    format!(
                        ": prove can prove at most 2^36 = {MAX_PROVABLE_CYCLES} cycles (the \
                         largest --max-cycles)"
                    )
                }
                VmError::MaxCycles { .. } => {
                    format!(" (raise it with --max-cycles, up to {MAX_PROVABLE_CYCLES} for prove)")
                }
                _ => String::new(),
            };
            Error::Run { source, hint }
        })?;
        Ok((params, first, clock))
    }

    /// Proves on `backends` (at least one): in segments on all of them, or in one proof on
    /// the first.
    fn prove_on<B: RvFills>(
        &self,
        backends: &[B],
        input: &[u8],
        options: &ProveOptions,
        params: StarkParams,
        first: Exit,
        clock: &mut Clock<'_>,
    ) -> Result<Proved, Error> {
        let backend = backends
            .first()
            .ok_or_else(|| Error::Usage("no backend to prove on".into()))?;
        // Each backend's segment must fit its own budget.
        let segment_log = options.segment_log.unwrap_or_else(|| {
            backends
                .iter()
                .map(|b| default_segment_log(b.name(), options.blowup, b.memory_budget()))
                .min()
                .unwrap_or(16)
        });
        // Without `--segment-cycles`, one backend proves a run whole when it fits its budget
        // (no second pass: see [`whole_run_log`]).
        let whole = match (options.segment_log, backends) {
            (None, [b]) => whole_run_log(b.name(), options.blowup, b.memory_budget()),
            _ => segment_log,
        };
        if first.cycles > 1 << whole.max(segment_log) {
            return self.prove_segmented(
                backends,
                input,
                options,
                params,
                first,
                segment_log,
                clock,
            );
        }
        clock.start(1);
        let image = program_image(&self.program);
        let machine = machine_for(&image);
        // What the proof will hold at its peak on a device: mapped while the run is recorded.
        let warm_bytes = if std::env::var("KESTREL_WARM_POOL").is_ok_and(|v| v == "0") {
            0
        } else {
            first
                .cycles
                .next_power_of_two()
                .saturating_mul(CUDA_SEGMENT_BYTES_PER_CYCLE_AND_BLOWUP * options.blowup as u64)
        };
        let recorded = std::sync::atomic::AtomicBool::new(false);
        let device_fills = backend.has_device_fills() && !options.host_fills;
        // The packing pass's decode runs on the pool while the run is recorded, a chunk at
        // a time (`KESTREL_PREDECODE=0`: after it, in the pass).
        let n = usize::try_from(first.cycles).unwrap_or(0);
        let predecoder = (std::env::var("KESTREL_PREDECODE").map_or(true, |v| v != "0") && n > 0)
            .then(|| {
                let lookups = crate::rv::pack_lookups(backend, device_fills);
                Predecoder::new(&machine, &image, lookups, n, 0, &Rayon::default())
            });
        // The proving key depends on the program alone: it is set up on another thread while
        // this one records the run (the `setup` phase is then the wait for it, if any). Then that
        // thread warms the device's memory until the recording ends: beside the setup, the
        // pool's growth held up the setup's own device work (H200: the setup then ended
        // 34–44 ms after the recording).
        let (rec, pk, exit, pre) = std::thread::scope(|s| {
            let keys = std::thread::Builder::new()
                .name("setup".into())
                .spawn_scoped(s, || {
                    let pk = setup(backend, &machine, params);
                    if pk.is_ok() {
                        backend.warm_memory(warm_bytes, &recorded);
                    }
                    pk
                });
            let mut vm = Vm::new(&self.program, input.to_vec()).with_max_cycles(first.cycles);
            let (exit, rec, pre) = match &predecoder {
                Some(p) => {
                    let (exit, records, pre) = record_predecoded(&mut vm, n, p);
                    (exit, VecRecorder { records }, Some(pre))
                }
                None => {
                    let mut rec = VecRecorder::with_capacity_mapped(n);
                    (vm.run(&mut rec), rec, None)
                }
            };
            let exit = exit.map_err(|source| Error::Run {
                source,
                hint: String::new(),
            });
            recorded.store(true, std::sync::atomic::Ordering::Relaxed);
            clock.start(2);
            let pk = match keys {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread could be started: set up here.
                Err(_) => setup(backend, &machine, params),
            };
            let exit = exit?;
            if exit != first {
                return Err(Error::Internal(format!(
                    "the recorded run differs from the first ({exit:?}, {first:?})"
                )));
            }
            let pk: ProvingKey<B> = pk.map_err(|source| Error::Prove {
                phase: "setup",
                source,
            })?;
            Ok((rec, pk, exit, pre))
        })?;
        clock.start(3);
        let (traces, public, times) = main_traces_timed(
            backend,
            &machine,
            &image,
            &rec.records,
            input,
            device_fills,
            pre,
        )
        .map_err(Error::Trace)?;
        let tables: Vec<TableReport> = machine
            .tables()
            .iter()
            .zip(&traces)
            .zip(pk.shapes.iter().zip(&times.real_rows))
            .map(|((t, tr), (shape, real))| {
                let (columns, rows) = tr.dims(backend);
                TableReport {
                    name: t.name().to_string(),
                    built_on: match tr {
                        MainTrace::Host(_) => "host",
                        MainTrace::Device(_) => "device",
                    },
                    rows,
                    columns,
                    aux_columns: shape.aux_width,
                    preprocessed_columns: shape.preprocessed_width,
                    quotient_chunks: shape.quotient_chunks,
                    interactions: shape.num_interactions,
                    fill: real.map(|r| r as f64 / rows.max(1) as f64),
                }
            })
            .collect();
        let record_bytes = std::mem::size_of_val(rec.records.as_slice()) as u64;
        // The recording (48 B a cycle: 200 MB at 2^22) is given back on another thread
        // instead of holding up the proof; if no thread can be started, it is dropped here.
        let _ = std::thread::Builder::new()
            .name("free recording".into())
            .spawn(move || drop(rec));
        // From here the roofline model's least work per stage paces the time left.
        // The grinding nonce is not known yet: its expected count of tries stands in.
        let expected_nonce = 1u64 << params.pow_bits.min(40);
        clock.pace(
            &crate::roofline::model(&crate::roofline::ProofShape::whole(part_shape(
                &tables,
                &params,
                expected_nonce,
                record_bytes,
            ))),
            setup_work(&tables, params.log_blowup),
            bytes_per_perm(backend.name()),
        );
        clock.start(4);
        let proved =
            prove_main_observed(
                backend,
                &pk,
                &machine,
                traces,
                &public,
                &mut |phase| match PHASES.iter().position(|p| *p == phase) {
                    Some(i) if i + 1 < PHASES.len() => clock.start(i + 1),
                    _ => {}
                },
            );
        let (proof, timings) = proved.map_err(|source| Error::Prove {
            phase: "prove",
            source,
        })?;
        let seconds = clock.since_start().as_secs_f64();
        let mut phases = clock.phase_ms();
        let at = phases
            .iter()
            .position(|(n, _)| n == "trace")
            .map_or(phases.len(), |i| i + 1);
        phases.splice(
            at..at,
            [
                ("trace: pack".to_string(), times.pack.as_secs_f64() * 1e3),
                ("trace: fill".to_string(), times.fill.as_secs_f64() * 1e3),
            ]
            .into_iter()
            .chain(
                times
                    .pack_stages
                    .iter()
                    .map(|(stage, d)| (format!("trace: pack: {stage}"), d.as_secs_f64() * 1e3)),
            )
            .chain(
                times
                    .bitwise
                    .map(|d| ("trace: fill: bitwise".to_string(), d.as_secs_f64() * 1e3)),
            ),
        );
        // The prover's own timings of its phases replace the clock's (the same phases).
        for (name, d) in &timings.phases {
            if let Some(p) = phases.iter_mut().find(|(n, _)| n == name) {
                p.1 = d.as_secs_f64() * 1e3;
            }
        }
        let bytes = proof.to_bytes();
        let statement = Statement::from_public(&public);
        // Taken before the ceilings: their measurement must not count in the backend's
        // figures.
        let backend_report = backend.report();
        let mut report = Report {
            backend: backend.name(),
            device_fills,
            cycles: exit.cycles,
            params,
            vk: pk.vk,
            phases,
            seconds,
            tables,
            pow_nonce: proof.pow_nonce,
            record_bytes,
            proof_parts: proof.size_parts(),
            backend_report,
            peak_rss_bytes: peak_rss_bytes(),
            roofline: None,
            segmented: None,
        };
        if options.roofline {
            report.roofline = Some(roofline_of(backend, &report));
        }
        Ok(Proved {
            statement,
            proof: bytes,
            report,
        })
    }
}

impl Guest {
    /// A run longer than one segment, proven in segments ([`crate::segmented`]).
    #[allow(clippy::too_many_arguments)]
    fn prove_segmented<B: RvFills>(
        &self,
        backends: &[B],
        input: &[u8],
        options: &ProveOptions,
        params: StarkParams,
        first: Exit,
        segment_log: u32,
        clock: &mut Clock<'_>,
    ) -> Result<Proved, Error> {
        let backend = backends
            .first()
            .ok_or_else(|| Error::Usage("no backend to prove on".into()))?;
        let device_fills = backend.has_device_fills() && !options.host_fills;
        let execute_ms = clock.phase_ms().first().map_or(0.0, |p| p.1);
        let run = crate::segmented::prove_segmented(
            backends,
            &self.program,
            input,
            params,
            first.cycles,
            segment_log,
            device_fills,
            options
                .packers
                .unwrap_or_else(|| default_packers(backends.len())),
            &mut |p| (clock.progress)(&Progress::Segment(p.clone())),
        )
        .map_err(Error::from)?;
        let seconds = clock.since_start().as_secs_f64();
        let machine = machine_for(&program_image(&self.program));
        let tables = run
            .tables
            .iter()
            .map(|&(t, rows, columns, real)| {
                let shape = kestrel_core::air::TableShape::of(
                    machine.air(t),
                    kestrel_core::rv::machine::NUM_PUBLIC,
                )
                .map_err(|e| Error::Internal(format!("{e}")))?;
                Ok(TableReport {
                    name: t.name().to_string(),
                    built_on: if device_fills
                        && kestrel_core::rv::machine::RECORD_TABLES.contains(&t)
                    {
                        "device"
                    } else {
                        "host"
                    },
                    rows,
                    columns,
                    aux_columns: shape.aux_width,
                    preprocessed_columns: shape.preprocessed_width,
                    quotient_chunks: shape.quotient_chunks,
                    interactions: shape.num_interactions,
                    fill: real.map(|r| r as f64 / rows.max(1) as f64),
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let mut phases = vec![("execute".to_string(), execute_ms)];
        phases.extend(run.phases);
        let statement = Statement::from_public(&run.public);
        let record_bytes = run.shape.parts.iter().map(|p| p.record_bytes).sum();
        let mut report = Report {
            backend: backend.name(),
            device_fills,
            cycles: first.cycles,
            params,
            vk: run.vk,
            phases,
            seconds,
            tables,
            pow_nonce: run.proof.parts.first().map_or(0, |p| p.pow_nonce),
            record_bytes,
            proof_parts: run.proof.size_parts(),
            backend_report: match backends {
                [one] => one.report(),
                all => serde_json::Value::Array(all.iter().map(|b| b.report()).collect()),
            },
            peak_rss_bytes: peak_rss_bytes(),
            roofline: None,
            segmented: Some(SegmentedReport {
                segments: run.segments,
                segment_log,
                phase_seconds: run.phase_seconds,
                shape: run.shape,
                backends: run.backends,
                executor_mhz: run.executor_mhz,
                backends_fed: run.backends_fed,
                packers: run.packers,
                packing_mhz: run.packing_mhz,
            }),
        };
        if options.roofline {
            report.roofline = Some(roofline_of(backend, &report));
        }
        Ok(Proved {
            statement,
            proof: run.proof.to_bytes(),
            report,
        })
    }
}

/// A proof of the example Fibonacci AIR ([`prove_fibonacci`]): the proof system alone,
/// without a guest (what `kestrel fib` measures).
pub struct FibonacciProof {
    pub backend: &'static str,
    pub params: StarkParams,
    pub vk: VerifyingKey,
    /// The public values: the two first terms and the last.
    pub public: Vec<kestrel_core::field::Felt>,
    pub proof: Vec<u8>,
    /// Setup and every proving phase.
    pub phases: Vec<(&'static str, Duration)>,
    pub seconds: f64,
    pub backend_report: serde_json::Value,
}

/// Proves the example Fibonacci AIR over `2^log_rows` rows (starting from 1, 1) with the
/// options' backend and preset (the cycle, budget and fill options do not apply), calling
/// `progress` with the backend chosen.
///
/// # Errors
/// [`Error::Usage`] for a preset or height out of range, [`Error::NoBackend`], and
/// [`Error::Prove`].
pub fn prove_fibonacci(
    log_rows: u32,
    options: &ProveOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<FibonacciProof, Error> {
    let params = options.params()?;
    use kestrel_core::params::{MAX_LOG_HEIGHT, MIN_LOG_HEIGHT};
    if !(MIN_LOG_HEIGHT..=MAX_LOG_HEIGHT).contains(&log_rows) {
        return Err(Error::Usage(format!(
            "--log-rows must be in {MIN_LOG_HEIGHT}..={MAX_LOG_HEIGHT} (got {log_rows})"
        )));
    }
    let selected = crate::select::select(options.backend).map_err(Error::NoBackend)?;
    progress(&Progress::Backend {
        name: selected.name(),
        cycles: 0,
    });
    crate::with_backend!(selected, b => fibonacci_on(b, log_rows, params))
}

fn fibonacci_on<B: crate::backend::Backend>(
    backend: &B,
    log_rows: u32,
    params: StarkParams,
) -> Result<FibonacciProof, Error> {
    use kestrel_core::air::examples::{fibonacci_trace, FibonacciMachine};
    use kestrel_core::field::Felt;
    let machine = FibonacciMachine;
    let start = Instant::now();
    let pk = setup(backend, &machine, params).map_err(|source| Error::Prove {
        phase: "setup",
        source,
    })?;
    let setup_time = start.elapsed();
    let (trace, result) = fibonacci_trace(log_rows, Felt::ONE, Felt::ONE);
    let public = vec![Felt::ONE, Felt::ONE, result];
    let (proof, timings) = crate::prover::prove(backend, &pk, &machine, &[trace], &public)
        .map_err(|source| Error::Prove {
            phase: "prove",
            source,
        })?;
    let mut phases = vec![("setup", setup_time)];
    phases.extend(timings.phases);
    Ok(FibonacciProof {
        backend: backend.name(),
        params,
        vk: pk.vk,
        public,
        proof: proof.to_bytes(),
        phases,
        seconds: start.elapsed().as_secs_f64(),
        backend_report: backend.report(),
    })
}

/// Verifies a proof of the example Fibonacci AIR.
///
/// # Errors
/// [`Error::Invalid`] if it does not verify.
pub fn verify_fibonacci(
    vk: &VerifyingKey,
    public: &[kestrel_core::field::Felt],
    proof: &[u8],
) -> Result<(), Error> {
    kestrel_verifier::verify(
        &kestrel_core::air::examples::FibonacciMachine,
        vk,
        public,
        proof,
    )
    .map_err(|e| Error::Invalid(kestrel_verifier::statement::FileError::Proof(e)))
}

/// Verifies a proof file (the statement, then the proof) against a verifying key: on
/// success, the statement it proves.
///
/// # Errors
/// [`Error::Invalid`] for a malformed file or a proof that does not verify.
pub fn verify_file(vk: &VerifyingKey, file: &[u8]) -> Result<Statement, Error> {
    kestrel_verifier::statement::verify_statement_file(vk, file).map_err(Error::Invalid)
}

/// The statement and parameter set a proof file says it has, before any check.
///
/// # Errors
/// [`Error::Invalid`] for a malformed file.
pub fn inspect_file(file: &[u8]) -> Result<(Statement, StarkParams), Error> {
    use kestrel_verifier::statement::FileError;
    let (statement, mut proof) =
        decode_statement(file).map_err(|e| Error::Invalid(FileError::Format(e)))?;
    let params = kestrel_verifier::read_params(&mut proof)
        .map_err(|e| Error::Invalid(FileError::Proof(e)))?;
    Ok((statement, params))
}

/// Reads a file of at most `cap` bytes (`what` names the file in messages, `limit` the
/// cap).
///
/// # Errors
/// [`Error::Read`].
pub fn read_file(
    path: &Path,
    what: &'static str,
    (cap, limit): (u64, &'static str),
) -> Result<Vec<u8>, Error> {
    read_capped(path, (cap, limit), None).map_err(|source| Error::Read {
        what,
        path: path.into(),
        source,
    })
}

/// Peak resident memory of this process (Linux `VmHWM`), in bytes; `None` elsewhere.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The phases' clock: when each started, and the time-left estimate.
struct Clock<'a> {
    progress: &'a mut dyn FnMut(&Progress),
    began: Instant,
    /// Time not counted (choosing the backend).
    skipped: Duration,
    /// Start of each phase started so far.
    starts: Vec<(usize, Duration)>,
    /// The least work of each phase (a weight), from the roofline model; empty before the
    /// shapes are known.
    weights: Vec<f64>,
}

/// Setup's least work as the roofline model counts a commitment: per preprocessed trace of
/// `n` rows and `p` columns, read `8·n·p` bytes, write its LDE and tree, hash its leaves
/// and nodes (bytes, permutations).
fn setup_work(tables: &[TableReport], log_blowup: u8) -> (u64, u64) {
    tables
        .iter()
        .filter(|t| t.preprocessed_columns > 0)
        .fold((0, 0), |(b, k), t| {
            let (n, p) = (t.rows as u64, t.preprocessed_columns as u64);
            let lde = n << log_blowup;
            (
                b + 8 * n * p + 8 * lde * p + 32 * (2 * lde - 1),
                k + lde * crate::roofline::leaf_perms(p) + lde - 1,
            )
        })
}

/// Bytes one Keccak-p[1600, 12] permutation is worth when weighing stages against each other
/// for the time-left estimate, per backend: about the ratio of copy bandwidth to
/// permutation rate that `prove --stats` measured (`ceilings`) on the H200 (3,875.5 GB/s ÷
/// 6.73 Gperm/s ≈ 580) and on a 2-core development host's CPU backend (34.5 GB/s ÷
/// 10.4 Mperm/s ≈ 3,300). Only the estimate uses it.
fn bytes_per_perm(backend: &str) -> f64 {
    match backend {
        "cuda" => 580.0,
        _ => 3_300.0,
    }
}

impl<'a> Clock<'a> {
    fn new(progress: &'a mut dyn FnMut(&Progress)) -> Clock<'a> {
        Clock {
            progress,
            began: Instant::now(),
            skipped: Duration::ZERO,
            starts: Vec::new(),
            weights: Vec::new(),
        }
    }

    fn since_start(&self) -> Duration {
        self.began.elapsed().saturating_sub(self.skipped)
    }

    fn shift(&mut self, d: Duration) {
        self.skipped += d;
    }

    /// Sets the weights: each proving stage's least work (`work`, the roofline model's),
    /// and setup's, the preprocessed commitments (`setup`: bytes, permutations). The trace
    /// stage does not pace the others: it is bound by the host's replay, not by the
    /// ceilings.
    fn pace(
        &mut self,
        work: &[crate::roofline::StageWork],
        setup: (u64, u64),
        bytes_per_perm: f64,
    ) {
        let weight = |bytes: u64, perms: u64| bytes as f64 + bytes_per_perm * perms as f64;
        self.weights = PHASES
            .iter()
            .map(|p| match *p {
                "trace" => 0.0,
                "setup" => weight(setup.0, setup.1),
                _ => work
                    .iter()
                    .find(|w| w.stage == *p)
                    .map_or(0.0, |w| weight(w.bytes_min(), w.keccak_perms)),
            })
            .collect();
    }

    /// Phase `index` starts now.
    fn start(&mut self, index: usize) {
        let now = self.since_start();
        self.starts.push((index, now));
        let time_left = self.time_left(index);
        (self.progress)(&Progress::Phase {
            index,
            name: PHASES[index.min(PHASES.len() - 1)],
            elapsed: now,
            time_left,
        });
    }

    /// The done phases' time per unit of weight, times the weight of the phases left.
    fn time_left(&self, index: usize) -> Option<Duration> {
        if self.weights.is_empty() {
            return None;
        }
        let ms = self.phase_ms();
        let (mut done_ms, mut done_w) = (0.0, 0.0);
        for (name, t) in &ms {
            if let Some(i) = PHASES.iter().position(|p| p == name) {
                if i < index && self.weights[i] > 0.0 {
                    done_ms += t;
                    done_w += self.weights[i];
                }
            }
        }
        let left_w: f64 = self.weights[index.min(self.weights.len())..].iter().sum();
        (done_w > 0.0).then(|| Duration::from_secs_f64(done_ms / 1e3 * left_w / done_w))
    }

    /// Milliseconds of each phase that has ended (a phase ends when the next starts).
    fn phase_ms(&self) -> Vec<(String, f64)> {
        let now = self.since_start();
        let mut out = Vec::with_capacity(self.starts.len());
        for (k, &(i, t)) in self.starts.iter().enumerate() {
            let end = self.starts.get(k + 1).map_or(now, |s| s.1);
            out.push((
                PHASES[i.min(PHASES.len() - 1)].to_string(),
                (end - t).as_secs_f64() * 1e3,
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packer counts outside 1 ..= MAX_PACKERS are usage errors, not a thread per request.
    #[test]
    fn packers_are_bounded() {
        let with = |p| ProveOptions {
            packers: Some(p),
            ..ProveOptions::default()
        };
        for p in [1, 2, MAX_PACKERS] {
            assert!(with(p).check().is_ok(), "{p}");
        }
        for p in [0, MAX_PACKERS + 1, usize::MAX] {
            let e = with(p).check().unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Usage, "{p}: {e}");
        }
        assert!(ProveOptions::default().check().is_ok());
    }

    /// A run is proven whole up to what fits the budget, never less than a segment, and
    /// never past the largest segment; other backends keep the segment size.
    #[test]
    fn whole_runs_fit_the_budget() {
        let h200 = Some(137_086_664_704);
        // 2^22 · 5,200 · 4 = 87.2 GB fits, 2^23 does not; at blowup 2, 2^23 fits.
        assert_eq!(whole_run_log("cuda", 4, h200), 22);
        assert_eq!(whole_run_log("cuda", 2, h200), 23);
        assert_eq!(whole_run_log("cuda", 8, h200), 21);
        assert_eq!(default_segment_log("cuda", 4, h200), 21);
        for blowup in [2, 4, 8] {
            for budget in [None, Some(1 << 20), Some(24 << 30), h200, Some(u64::MAX)] {
                let whole = whole_run_log("cuda", blowup, budget);
                assert!(whole >= default_segment_log("cuda", blowup, budget));
                assert!(whole <= MAX_SEGMENT_CYCLES.trailing_zeros());
                assert_eq!(
                    whole_run_log("cpu", blowup, budget),
                    default_segment_log("cpu", blowup, budget)
                );
            }
        }
        assert_eq!(
            whole_run_log("cuda", 2, Some(u64::MAX)),
            MAX_SEGMENT_CYCLES.trailing_zeros()
        );
    }

    /// Two backends share one device only for a segmented run whose segments half the
    /// budget still holds (so the proof is the same bytes).
    #[test]
    fn two_backends_share_a_device_for_the_same_segments() {
        let h200 = 137_086_664_704;
        // The H200 at blowup 4: whole up to 2^22 cycles, then 2^21-cycle segments, which
        // 68.5 GB (43.6 GB a segment) still holds.
        assert!(!shares_one_device(4, h200, 1 << 22, None));
        assert!(shares_one_device(4, h200, (1 << 22) + 1, None));
        assert!(shares_one_device(4, h200, 1 << 28, None));
        // At blowup 2 the whole-run limit is 2^23 cycles.
        assert!(!shares_one_device(2, h200, 1 << 23, None));
        assert!(shares_one_device(2, h200, (1 << 23) + 1, None));
        // 24 GB: one backend takes 2^20-cycle segments (21.8 GB), half of it only 2^19.
        let small = 24 << 30;
        assert_eq!(default_segment_log("cuda", 4, Some(small)), 20);
        assert!(!shares_one_device(4, small, 1 << 30, None));
        // Given segments: shared when half the budget holds one and the run is longer.
        assert!(shares_one_device(4, small, (1 << 18) + 1, Some(18)));
        assert!(!shares_one_device(4, small, 1 << 18, Some(18)));
        assert!(!shares_one_device(4, small, 1 << 30, Some(21)));
        // The defaults the two backends would find equal one backend's.
        for blowup in [2, 4, 8] {
            for budget in [1 << 20, 24 << 30, 80 << 30, h200, u64::MAX] {
                if shares_one_device(blowup, budget, u64::MAX, None) {
                    assert_eq!(
                        default_segment_log("cuda", blowup, Some(budget / 2)),
                        default_segment_log("cuda", blowup, Some(budget)),
                        "{blowup} {budget}"
                    );
                }
            }
        }
    }
}
