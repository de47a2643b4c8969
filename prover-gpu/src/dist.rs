//! A segmented proof spread over processes and hosts: the phases of
//! [`crate::segmented`] as separate steps that exchange files, for a distributed engine to
//! schedule (`scripts/kestrel_ray.py` drives them on Ray; the `kestrel dist` commands are
//! in `cli_dist`).
//!
//! 1. [`pack`] (the coordinator, one executor): executes the run, writes each segment's
//!    packed traces (`seg-K.bin`) as soon as it is packed, then the run part's traces and
//!    public values (`run.bin`) and `manifest.json`.
//! 2. [`commit`] (any worker, one per segment): commits a segment's main traces; its
//!    [`Head`] (`head-K.bin`).
//! 3. [`challenges`] (the coordinator): commits the run part and writes every part's head
//!    with the public values and the run part's preprocessed cap (`rounds.bin`), from
//!    which a worker draws the shared challenges ([`SharedRounds::draw`]).
//! 4. [`prove`] (any worker, one per segment): proves a segment under the shared
//!    challenges (`part-K.bin`), checking that it commits to its phase-1 head.
//! 5. [`assemble`] (the coordinator): proves the run part, checks every part against its
//!    head, assembles the proof, verifies it against the verifying key of the ELF and
//!    writes the proof file: the same bytes as `kestrel prove --segment-cycles` of the same
//!    run ([`crate::api::Proved::file_bytes`]).
//!
//! Every file is one envelope: `"KSDF"`, the version ([`DIST_VERSION`], u16 LE), the kind
//! (u8, [`FileKind`]), the postcard encoding of the kind's payload, then a TurboSHAKE128
//! digest of everything before it (32 bytes). Decoding checks the magic, the version, the
//! kind, the length and the digest before it reads the payload, and the payload must end
//! where the digest begins. Every payload starts with the run's [`RunId`] (the ELF's digest,
//! a digest of the ELF, the input and the options, the parameters and the segment size), and
//! a segment's, head's or part's file with its index, so a file from another run, program,
//! option set or segment is refused naming what differs. The digest catches corruption; it
//! does not make a file trusted: the assembler checks every part against the heads the
//! challenges were drawn from and verifies the proof before writing it, and the workers
//! check the packed traces' shapes before proving ([`check_packed`]) and stop with an error,
//! not a crash, if the prover still fails on them.

use std::path::{Path, PathBuf};

use kestrel_core::field::Felt;
use kestrel_core::hash::Hasher;
use kestrel_core::merkle::Digest;
use kestrel_core::params::StarkParams;
use kestrel_core::proof::{ProofBody, SegmentedProof};
use kestrel_core::rv::machine::{PackedTraces, RunTraces, RECORD_TABLES};
use kestrel_core::rv::table::TableId;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::api::{self, BackendChoice, Error, Guest, ProveOptions, Statement};
use crate::limits::{read_capped, OutFile, ReadError};
use crate::rv::RvFills;
use crate::segmented::{host_traces, segment_traces, Feed, Head, SegmentedMachine, SharedRounds};

/// The envelope's magic.
pub const DIST_MAGIC: [u8; 4] = *b"KSDF";
/// The envelope's version: a file of another version is refused by it.
pub const DIST_VERSION: u16 = 2;
/// Bytes before the payload: magic, version, kind.
const PREFIX_LEN: usize = 7;
/// Bytes of the closing digest.
const DIGEST_LEN: usize = 32;
/// The largest file the commands read (a segment of 2^24 cycles is a few GiB).
pub const MAX_DIST_FILE: u64 = 64 << 30;

/// What a file holds (its envelope's kind byte).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FileKind {
    /// `seg-K.bin`: a segment's packed traces ([`SegmentFile`]).
    Segment = 1,
    /// `run.bin`: the run part's traces and the public values ([`RunFile`]).
    Run = 2,
    /// `head-K.bin`: a segment's phase-1 head ([`HeadFile`]).
    Head = 3,
    /// `rounds.bin`: what the shared challenges are drawn from ([`RoundsFile`]).
    Rounds = 4,
    /// `part-K.bin`: a segment's part of the proof ([`PartFile`]).
    Part = 5,
}

impl FileKind {
    fn name(self) -> &'static str {
        match self {
            FileKind::Segment => "segment",
            FileKind::Run => "run",
            FileKind::Head => "head",
            FileKind::Rounds => "rounds",
            FileKind::Part => "part",
        }
    }

    fn of(b: u8) -> Option<FileKind> {
        [
            FileKind::Segment,
            FileKind::Run,
            FileKind::Head,
            FileKind::Rounds,
            FileKind::Part,
        ]
        .into_iter()
        .find(|k| *k as u8 == b)
    }
}

/// Which run a file belongs to; in every file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunId {
    /// TurboSHAKE128 of the ELF file.
    pub elf: [u8; 32],
    /// TurboSHAKE128 of the ELF's digest, the input's digest, the parameters, the segment
    /// size and the cycle limit: one run.
    pub run: [u8; 32],
    pub params: StarkParams,
    /// log2 of the segment size.
    pub segment_log: u32,
    /// The run's cycles.
    pub cycles: u64,
    /// The run's segments (its parts less the run part).
    pub segments: u32,
}

/// `seg-K.bin`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentFile {
    pub id: RunId,
    pub index: u32,
    pub packed: PackedTraces,
}

/// `run.bin`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunFile {
    pub id: RunId,
    pub traces: RunTraces,
}

/// `head-K.bin`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadFile {
    pub id: RunId,
    pub index: u32,
    pub log_heights: Vec<u8>,
    pub main_cap: Vec<Digest>,
}

/// `rounds.bin`: the statement the run's transcript starts on and every part's head (the
/// segments', then the run part's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundsFile {
    pub id: RunId,
    pub preprocessed_cap: Vec<Digest>,
    pub public: Vec<Felt>,
    pub heads: Vec<(Vec<u8>, Vec<Digest>)>,
}

/// `part-K.bin`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartFile {
    pub id: RunId,
    pub index: u32,
    pub body: ProofBody,
}

/// Why a distributed step failed.
#[derive(Debug, thiserror::Error)]
pub enum DistError {
    /// A file cannot be read, is malformed, or belongs to another run, program or segment.
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    /// The options or the run do not allow the step.
    #[error("{0}")]
    Usage(String),
    /// An output cannot be written.
    #[error("cannot write {path}: {message}")]
    Write { path: PathBuf, message: String },
    /// Loading, running or proving failed.
    #[error(transparent)]
    Api(#[from] Error),
}

impl DistError {
    /// The failure's kind (exit codes: `cli_common::exit_code`): a bad file is an
    /// unreadable input (2).
    pub fn kind(&self) -> api::ErrorKind {
        match self {
            DistError::File { .. } => api::ErrorKind::Input,
            DistError::Usage(_) => api::ErrorKind::Usage,
            DistError::Write { .. } => api::ErrorKind::Write,
            DistError::Api(e) => e.kind(),
        }
    }
}

impl From<crate::segmented::SegmentedError> for DistError {
    fn from(e: crate::segmented::SegmentedError) -> DistError {
        DistError::Api(e.into())
    }
}

fn file_err(path: &Path, message: impl Into<String>) -> DistError {
    DistError::File {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn digest(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Hasher::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize()
}

/// A payload in its envelope.
///
/// # Errors
/// If postcard cannot encode it (never for these types).
pub fn encode<T: Serialize>(kind: FileKind, payload: &T) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    out.extend_from_slice(&DIST_MAGIC);
    out.extend_from_slice(&DIST_VERSION.to_le_bytes());
    out.push(kind as u8);
    // The payload straight after the prefix (no second buffer to copy from).
    let mut out = postcard::to_extend(payload, out).map_err(|e| format!("cannot encode: {e}"))?;
    let d = digest(&[&out]);
    out.extend_from_slice(&d);
    Ok(out)
}

/// The payload of a `kind` file: the envelope checked (magic, version, kind, digest) and
/// the payload read to its end. Never panics.
///
/// # Errors
/// A message saying what is wrong.
pub fn decode<T: DeserializeOwned>(kind: FileKind, bytes: &[u8]) -> Result<T, String> {
    if bytes.len() < PREFIX_LEN + DIGEST_LEN {
        if bytes.len() >= 4 && bytes[..4] != DIST_MAGIC {
            return Err("not a kestrel dist file (bad magic)".into());
        }
        return Err(format!("truncated ({} bytes)", bytes.len()));
    }
    if bytes[..4] != DIST_MAGIC {
        return Err("not a kestrel dist file (bad magic)".into());
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != DIST_VERSION {
        return Err(format!(
            "dist file version {version}; this kestrel reads version {DIST_VERSION}"
        ));
    }
    match FileKind::of(bytes[6]) {
        Some(k) if k == kind => {}
        Some(k) => {
            return Err(format!(
                "a {} file where a {} file was expected",
                k.name(),
                kind.name()
            ))
        }
        None => return Err(format!("unknown file kind {}", bytes[6])),
    }
    let (content, tail) = bytes.split_at(bytes.len() - DIGEST_LEN);
    if digest(&[content]) != tail {
        return Err("corrupt or truncated (its digest does not match)".into());
    }
    let (payload, rest) = postcard::take_from_bytes::<T>(&content[PREFIX_LEN..])
        .map_err(|e| format!("malformed {} file: {e}", kind.name()))?;
    if !rest.is_empty() {
        return Err(format!(
            "malformed {} file: {} bytes after the payload",
            kind.name(),
            rest.len()
        ));
    }
    Ok(payload)
}

/// Reads and decodes a `kind` file.
fn read<T: DeserializeOwned>(kind: FileKind, path: &Path) -> Result<T, DistError> {
    let bytes = read_capped(path, (MAX_DIST_FILE, "dist file"), None).map_err(|e| match e {
        ReadError::Io(e) => file_err(path, format!("cannot read: {e}")),
        e => file_err(path, e.to_string()),
    })?;
    decode(kind, &bytes).map_err(|m| file_err(path, m))
}

/// Encodes and writes a `kind` file (through a temporary file renamed into place, so a
/// reader never sees half a file).
fn write<T: Serialize>(kind: FileKind, path: &Path, payload: &T) -> Result<(), DistError> {
    let bytes = encode(kind, payload).map_err(|m| write_err(path, m))?;
    write_bytes(path, &bytes)
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), DistError> {
    OutFile::create(path)
        .and_then(|out| out.commit(bytes))
        .map_err(|e| write_err(path, e.to_string()))
}

fn write_err(path: &Path, message: impl Into<String>) -> DistError {
    DistError::Write {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The ELF (its bytes' digest and the loaded guest).
pub struct Elf {
    pub digest: [u8; 32],
    pub guest: Guest,
}

impl Elf {
    /// Reads and loads an ELF.
    ///
    /// # Errors
    /// As [`Guest::load`].
    pub fn load(path: &Path) -> Result<Elf, DistError> {
        let bytes = api::read_elf_file(path)?;
        let guest = Guest::from_elf(&bytes)?;
        Ok(Elf {
            digest: digest(&[b"kestrel dist elf", &bytes]),
            guest,
        })
    }

    /// Checks that a file of `id` was made from this ELF, with a preset's parameters.
    fn check(&self, id: &RunId, path: &Path) -> Result<(), DistError> {
        if id.elf != self.digest {
            return Err(file_err(
                path,
                "belongs to another program (its ELF digest differs from --elf's)",
            ));
        }
        if api::preset_of(&id.params).is_none() {
            return Err(file_err(path, "its parameters are no preset"));
        }
        let segment = 1u64.checked_shl(id.segment_log).unwrap_or(0);
        if api::check_segment_cycles(segment).is_err()
            || id.cycles.div_ceil(segment.max(1)) != u64::from(id.segments)
        {
            return Err(file_err(path, "its segment size or count is out of range"));
        }
        Ok(())
    }
}

/// Checks that a file of `id` belongs to the run `want`.
fn same_run(id: &RunId, want: &RunId, path: &Path) -> Result<(), DistError> {
    if id != want {
        return Err(file_err(
            path,
            "belongs to another run (its run digest, options or size differ)",
        ));
    }
    Ok(())
}

/// Checks a file's index against the one asked for.
fn same_index(index: u32, want: usize, id: &RunId, path: &Path) -> Result<(), DistError> {
    if index as usize != want {
        return Err(file_err(
            path,
            format!("is segment {index}'s, not segment {want}'s"),
        ));
    }
    if index >= id.segments {
        return Err(file_err(
            path,
            format!("segment {index} of a run of {} segments", id.segments),
        ));
    }
    Ok(())
}

/// Checks the shapes of a segment's packed traces before a backend reads them: one trace
/// slot per table, none at the record tables and the run tables, every other one present
/// with the table's width and a power-of-two height of at most `4·2^segment_log` rows, and
/// the CPU's and MEMW_R's records consistent with their heights.
///
/// # Errors
/// A message naming the first table that is wrong.
pub fn check_packed(
    sm_machine: &kestrel_core::rv::machine::Rv64Machine,
    p: &PackedTraces,
    segment_log: u32,
) -> Result<(), String> {
    let most = 4usize.checked_shl(segment_log).unwrap_or(0);
    if p.traces.len() != TableId::COUNT || p.table_rows.len() != TableId::COUNT {
        return Err("wrong number of tables".into());
    }
    let height_ok = |h: usize| h.is_power_of_two() && h >= 8 && h <= most;
    for t in TableId::ALL {
        let slot = &p.traces[t.index()];
        let expect = !t.is_run_table() && !RECORD_TABLES.contains(&t);
        match slot {
            None if expect => return Err(format!("{} has no trace", t.name())),
            Some(_) if !expect => return Err(format!("{} has a trace it must not", t.name())),
            Some(m) => {
                let width = sm_machine.air(t).width();
                if m.width != width || m.values.len() % width.max(1) != 0 {
                    return Err(format!("{}'s trace has the wrong width", t.name()));
                }
                if !height_ok(m.height()) {
                    return Err(format!("{}'s trace has a bad height", t.name()));
                }
            }
            None => {}
        }
    }
    let c = &p.cpu;
    let n = c.dec_row.len();
    if c.rs1.len() != n
        || c.rs2.len() != n
        || c.res.len() != n
        || !height_ok(c.height)
        || n > c.height
    {
        return Err("CPU's records are inconsistent".into());
    }
    // MEMW_R's accesses (three per step, then the system calls') in the layout that
    // `memw_r::split` gives them over MEMW_R and MEMW_R2; their per-access records are
    // either left to the device (empty) or one per CPU access.
    let m = &p.memw_r;
    let layout = kestrel_core::rv::memw_r::split(3 * n + m.extra.len());
    if (m.height, m.height2) != (layout.height, layout.height2)
        || !height_ok(m.height)
        || !height_ok(m.height2)
        || !(m.meta.is_empty() || m.meta.len() == 3 * n)
        || m.new.len() > n
        || m.old.len() != m.meta.len()
    {
        return Err("MEMW_R's records are inconsistent".into());
    }
    Ok(())
}

/// Runs `work` (a backend's work on a file's content); a panic in it (content that passed
/// the checks but that the prover cannot take) is an error naming the file.
fn guarded<T>(path: &Path, work: impl FnOnce() -> Result<T, DistError>) -> Result<T, DistError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(file_err(
            path,
            format!("its traces cannot be proven (the prover stopped: {why})"),
        ))
    })
}

/// What [`pack`] made.
#[derive(Clone, Debug, Serialize)]
pub struct PackSummary {
    pub segments: usize,
    pub cycles: u64,
    pub segment_log: u32,
    pub blowup: usize,
    /// Hex of [`RunId::run`].
    pub run: String,
}

/// Step 1: runs the guest on `input` and writes `out/seg-K.bin` for every segment (calling
/// `on_segment(K, path, cycles)` as each is written: in order with one packer, else as
/// `packers` threads finish packing them from checkpoints; the files are the same), then
/// `out/run.bin` and `out/manifest.json`. The run must be longer than one segment (a
/// shorter one is one proof: `kestrel prove`).
///
/// # Errors
/// [`DistError::Usage`] for options out of range or a run of one segment; the API's
/// errors of the run; a file that cannot be written.
#[allow(clippy::too_many_arguments)]
pub fn pack(
    elf_path: &Path,
    input: &[u8],
    max_cycles: u64,
    segment_log: u32,
    blowup: usize,
    packers: usize,
    out: &Path,
    on_segment: &mut (dyn FnMut(usize, &Path, u64) + Send),
) -> Result<PackSummary, DistError> {
    let options = ProveOptions {
        backend: BackendChoice::Cpu,
        blowup,
        max_cycles,
        segment_log: Some(segment_log),
        packers: Some(packers),
        ..ProveOptions::default()
    };
    options.check()?;
    let params = options.params()?;
    let elf = Elf::load(elf_path)?;
    let program = elf.guest.program();
    let first = elf.guest.execute(input, max_cycles);
    first.result.map_err(|source| Error::Run {
        source,
        hint: String::new(),
    })?;
    let segment = 1u64 << segment_log;
    if first.cycles <= segment {
        return Err(DistError::Usage(format!(
            "the run ({} cycles) fits one segment of 2^{segment_log} cycles: prove it with \
             `kestrel prove`",
            first.cycles
        )));
    }
    let segments = first.cycles.div_ceil(segment);
    let id = RunId {
        elf: elf.digest,
        run: digest(&[
            b"kestrel dist run",
            &elf.digest,
            &digest(&[input]),
            &postcard::to_allocvec(&params).unwrap_or_default(),
            &segment_log.to_le_bytes(),
            &max_cycles.to_le_bytes(),
        ]),
        params,
        segment_log,
        cycles: first.cycles,
        segments: u32::try_from(segments)
            .map_err(|_| DistError::Usage(format!("{segments} segments are too many")))?,
    };
    std::fs::create_dir_all(out).map_err(|e| write_err(out, e.to_string()))?;
    let sm = SegmentedMachine::new(program)?;
    let feed = Feed {
        program,
        machine: &sm.machine,
        image: &sm.image,
        input,
        total_cycles: first.cycles,
        segment,
        finish: true,
    };
    // Each segment's file is encoded and written on one of `packers` threads.
    let on_segment = std::sync::Mutex::new(on_segment);
    let run = crate::segmented::pack_run(packers, feed, &|k, p| -> Result<(), DistError> {
        let path = out.join(format!("seg-{k}.bin"));
        let file = SegmentFile {
            id,
            index: k as u32,
            packed: p.packed,
        };
        write(FileKind::Segment, &path, &file)?;
        let mut on_segment = on_segment.lock().unwrap_or_else(|e| e.into_inner());
        (*on_segment)(k, &path, p.cycles);
        Ok(())
    })?;
    write(
        FileKind::Run,
        &out.join("run.bin"),
        &RunFile { id, traces: run },
    )?;
    let summary = PackSummary {
        // pack_run returned: every segment was produced and written.
        segments: id.segments as usize,
        cycles: first.cycles,
        segment_log,
        blowup,
        run: id.run.iter().map(|b| format!("{b:02x}")).collect(),
    };
    let manifest = out.join("manifest.json");
    let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
    write_bytes(&manifest, text.as_bytes())?;
    Ok(summary)
}

/// Step 2: commits segment `seg`'s main traces on `backend` and writes its head to `out`.
///
/// # Errors
/// A bad, foreign or mismatched file; setup or the commitment failed.
pub fn commit(
    seg: &Path,
    elf_path: &Path,
    backend: BackendChoice,
    host_fills: bool,
    out: &Path,
) -> Result<usize, DistError> {
    let elf = Elf::load(elf_path)?;
    let file: SegmentFile = read(FileKind::Segment, seg)?;
    elf.check(&file.id, seg)?;
    let index = file.index as usize;
    same_index(file.index, index, &file.id, seg)?;
    let sm = SegmentedMachine::new(elf.guest.program())?;
    check_packed(&sm.machine, &file.packed, file.id.segment_log).map_err(|m| file_err(seg, m))?;
    let selected = crate::select::select(backend).map_err(Error::NoBackend)?;
    let head: Head = crate::with_backend!(selected, b => guarded(seg, || {
        let pk = sm.seg_key(b, file.id.params)?;
        let traces = segment_traces(b, &sm.image, file.packed, b.has_device_fills() && !host_fills)?;
        Ok(sm.commit_segment(b, &pk, traces)?)
    }))?;
    let (log_heights, main_cap) = head;
    write(
        FileKind::Head,
        out,
        &HeadFile {
            id: file.id,
            index: file.index,
            log_heights,
            main_cap,
        },
    )?;
    Ok(index)
}

/// The run part's file of `dir` and the run it belongs to, checked against the ELF.
fn run_file(dir: &Path, elf: &Elf) -> Result<(RunFile, PathBuf), DistError> {
    let path = dir.join("run.bin");
    let run: RunFile = read(FileKind::Run, &path)?;
    elf.check(&run.id, &path)?;
    if run.traces.traces.len() != TableId::COUNT {
        return Err(file_err(&path, "wrong number of tables"));
    }
    Ok((run, path))
}

/// Step 3: commits the run part (`dir/run.bin`), reads every segment's head
/// (`heads[K]`, by default `dir/head-K.bin`) and writes what the shared challenges are
/// drawn from to `out`.
///
/// # Errors
/// A bad, foreign or missing file; setup or the commitment failed.
pub fn challenges(
    dir: &Path,
    heads: &[PathBuf],
    elf_path: &Path,
    backend: BackendChoice,
    out: &Path,
) -> Result<usize, DistError> {
    let elf = Elf::load(elf_path)?;
    let (run, run_path) = run_file(dir, &elf)?;
    let id = run.id;
    let n_seg = id.segments as usize;
    let head_paths: Vec<PathBuf> = if heads.is_empty() {
        (0..n_seg)
            .map(|k| dir.join(format!("head-{k}.bin")))
            .collect()
    } else {
        heads.to_vec()
    };
    if head_paths.len() != n_seg {
        return Err(DistError::Usage(format!(
            "{} heads given for a run of {n_seg} segments",
            head_paths.len()
        )));
    }
    let mut all: Vec<Head> = Vec::with_capacity(n_seg + 1);
    for (k, path) in head_paths.iter().enumerate() {
        let h: HeadFile = read(FileKind::Head, path)?;
        same_run(&h.id, &id, path)?;
        same_index(h.index, k, &id, path)?;
        all.push((h.log_heights, h.main_cap));
    }
    let sm = SegmentedMachine::new(elf.guest.program())?;
    let (run_host, public, _) = sm.run_host_traces(run.traces)?;
    let selected = crate::select::select(backend).map_err(Error::NoBackend)?;
    let (pre_cap, head) = crate::with_backend!(selected, b => guarded(&run_path, || {
        let pk = sm.run_key(b, id.params)?;
        let head = sm.commit_run(b, &pk, &run_host, &public)?;
        Ok((pk.preprocessed_cap.clone(), head))
    }))?;
    all.push(head);
    write(
        FileKind::Rounds,
        out,
        &RoundsFile {
            id,
            preprocessed_cap: pre_cap,
            public,
            heads: all,
        },
    )?;
    Ok(n_seg)
}

/// The shared challenges of a rounds file.
fn shared(
    elf: &Elf,
    sm: &SegmentedMachine,
    rounds: RoundsFile,
    path: &Path,
) -> Result<(RunId, Vec<Felt>, SharedRounds), DistError> {
    elf.check(&rounds.id, path)?;
    if rounds.heads.len() != rounds.id.segments as usize + 1 {
        return Err(file_err(
            path,
            "the number of heads is not the number of parts",
        ));
    }
    let s = SharedRounds::draw(
        kestrel_core::air::Machine::name(&sm.machine),
        &rounds.id.params,
        &rounds.preprocessed_cap,
        &rounds.public,
        rounds.heads,
    );
    Ok((rounds.id, rounds.public, s))
}

/// Step 4: proves segment `part` (`seg`, its packed traces) under the shared challenges of
/// `rounds` on `backend`, checks it commits to its phase-1 head, and writes it to `out`.
///
/// # Errors
/// A bad, foreign or mismatched file; the proof failed or committed other traces.
pub fn prove(
    seg: &Path,
    rounds: &Path,
    part: usize,
    elf_path: &Path,
    backend: BackendChoice,
    host_fills: bool,
    out: &Path,
) -> Result<(), DistError> {
    let elf = Elf::load(elf_path)?;
    let sm = SegmentedMachine::new(elf.guest.program())?;
    let r: RoundsFile = read(FileKind::Rounds, rounds)?;
    let (id, public, shared) = shared(&elf, &sm, r, rounds)?;
    let file: SegmentFile = read(FileKind::Segment, seg)?;
    same_run(&file.id, &id, seg)?;
    same_index(file.index, part, &id, seg)?;
    check_packed(&sm.machine, &file.packed, id.segment_log).map_err(|m| file_err(seg, m))?;
    let selected = crate::select::select(backend).map_err(Error::NoBackend)?;
    let body = crate::with_backend!(selected, b => guarded(seg, || {
        let pk = sm.seg_key(b, id.params)?;
        let traces = segment_traces(b, &sm.image, file.packed, b.has_device_fills() && !host_fills)?;
        Ok(shared.prove(b, &pk, &sm.seg_part(), traces, &public, part)?.0)
    }))?;
    write(
        FileKind::Part,
        out,
        &PartFile {
            id,
            index: part as u32,
            body,
        },
    )
}

/// What [`assemble`] made.
pub struct Assembled {
    /// The proof file's bytes (what `kestrel prove -o` writes).
    pub file: Vec<u8>,
    pub statement: Statement,
    pub segments: usize,
}

/// Step 5: proves the run part (`dir/run.bin`) under the challenges of `dir/rounds.bin`,
/// reads every segment's part (`parts[K]`, by default `dir/part-K.bin`), checks each
/// against its head, assembles the proof and verifies it against the ELF's verifying key.
///
/// # Errors
/// A bad, foreign, mismatched or missing file; a part that commits to other traces than its
/// head; the run part's proof failed; the proof does not verify.
pub fn assemble(
    dir: &Path,
    parts: &[PathBuf],
    elf_path: &Path,
    backend: BackendChoice,
) -> Result<Assembled, DistError> {
    let elf = Elf::load(elf_path)?;
    let (run, run_path) = run_file(dir, &elf)?;
    let rounds_path = dir.join("rounds.bin");
    let r: RoundsFile = read(FileKind::Rounds, &rounds_path)?;
    same_run(&r.id, &run.id, &rounds_path)?;
    let pre_cap = r.preprocessed_cap.clone();
    let sm = SegmentedMachine::new(elf.guest.program())?;
    let (id, public, shared) = shared(&elf, &sm, r, &rounds_path)?;
    let n_seg = id.segments as usize;
    let part_paths: Vec<PathBuf> = if parts.is_empty() {
        (0..n_seg)
            .map(|k| dir.join(format!("part-{k}.bin")))
            .collect()
    } else {
        parts.to_vec()
    };
    if part_paths.len() != n_seg {
        return Err(DistError::Usage(format!(
            "{} parts given for a run of {n_seg} segments",
            part_paths.len()
        )));
    }
    let mut bodies = Vec::with_capacity(n_seg + 1);
    for (k, path) in part_paths.iter().enumerate() {
        let p: PartFile = read(FileKind::Part, path)?;
        same_run(&p.id, &id, path)?;
        same_index(p.index, k, &id, path)?;
        shared
            .check(k, &p.body)
            .map_err(|e| file_err(path, e.to_string()))?;
        bodies.push(p.body);
    }
    let (run_host, run_public, _) = sm.run_host_traces(run.traces)?;
    if run_public != public {
        return Err(file_err(
            &rounds_path,
            "its public values are not the run's",
        ));
    }
    let selected = crate::select::select(backend).map_err(Error::NoBackend)?;
    let (vk, body, pk_cap) = crate::with_backend!(selected, b => guarded(&run_path, || {
        let pk_seg = sm.seg_key(b, id.params)?;
        let pk_run = sm.run_key(b, id.params)?;
        let vk = sm.vk(&pk_seg, &pk_run, &id.params);
        let (body, _) = shared.prove(b, &pk_run, &sm.run_part(), host_traces(&run_host), &public, n_seg)?;
        Ok((vk, body, pk_run.preprocessed_cap.clone()))
    }))?;
    if pk_cap != pre_cap {
        return Err(file_err(
            &rounds_path,
            "its preprocessed cap is not the program's",
        ));
    }
    bodies.push(body);
    let proof = SegmentedProof {
        params: id.params,
        preprocessed_cap: pk_cap,
        parts: bodies,
    };
    let statement = Statement::from_public(&public);
    let file = api::encode_statement(&statement, &proof.to_bytes());
    api::verify_file(&vk, &file)?;
    Ok(Assembled {
        file,
        statement,
        segments: n_seg,
    })
}
