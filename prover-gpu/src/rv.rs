//! From an ELF to an RV64IM proof: program image, execution with recording, traces, proof.

use kestrel_core::air::debug::{check_machine, preprocessed_traces, DebugReport};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::distinct_height;
use kestrel_core::rv::machine::{
    PackedTraces, RecordRefs, RunRecords, Rv64Machine, TableId, TraceError, EARLY_TABLES,
    LATE_TABLES, RECORD_TABLES,
};
use kestrel_core::rv::pack::{
    build_traces, pack_traces_predecoded, Lookups, Predecoded, Predecoder,
};

use crate::backend::{DeviceTraces, MainTrace};
use crate::cpu::CpuBackend;
use crate::par::{Rayon, StageClock};
use crate::prover::ProverError;

use crate::vm::map;
use crate::vm::record::{mapped_records, Record, SliceRecorder};
use crate::vm::{Exit, Program, Vm, VmError};

/// A program's machine together with its image.
pub struct RvMachine {
    pub machine: Rv64Machine,
    pub image: ProgramImage,
}

/// The program's image, as the executor maps it: every aligned instruction word of its
/// executable segments' file bytes, every file-backed 8-byte word of its readable segments,
/// their bss as zero ranges, which words are read-only, and its heap bounds. Costs time and
/// memory in proportion to the file-backed bytes only. Segments without read permission
/// have no words: the proof cannot touch them (the executor lets a store reach a
/// write-only segment; no real toolchain makes one).
pub fn program_image(program: &Program) -> ProgramImage {
    let mut code = Vec::new();
    let mut words = Vec::new();
    let mut bss = Vec::new();
    let mut read_only: Vec<(u32, u32)> = Vec::new();
    for seg in &program.segments {
        // Segments are whole words (the loader rounds them out), sorted and disjoint.
        let w0 = (seg.vaddr / 8) as u32;
        if seg.perm.exec {
            for (i, w) in seg.data.chunks_exact(4).enumerate() {
                let w = u32::from_le_bytes(w.try_into().expect("4 bytes"));
                code.push(((seg.vaddr + 4 * i as u64) as u32, w));
            }
        }
        if !seg.perm.read {
            continue;
        }
        for (i, w) in seg.data.chunks_exact(8).enumerate() {
            let v = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            words.push((w0 + i as u32, v));
        }
        let (file_end, end) = (w0 + (seg.data.len() / 8) as u32, w0 + (seg.size / 8) as u32);
        if file_end < end {
            bss.push((file_end, end));
        }
        if !seg.perm.write {
            read_only.push((w0, end));
        }
    }
    let heap_start = program.heap_start();
    ProgramImage {
        entry: program.entry as u32,
        code,
        words,
        bss,
        read_only,
        heap_start: heap_start as u32,
        heap_limit: map::heap_limit(heap_start) as u32,
    }
}

impl From<Record> for Step {
    fn from(r: Record) -> Step {
        Step {
            pc: r.pc,
            word: r.word,
            rs1_val: r.rs1_val,
            rs2_val: r.rs2_val,
            rd_val: r.rd_val,
            mem_addr: r.mem_addr,
            mem_val: r.mem_val,
        }
    }
}

/// The CPU steps of an execution (the trace builders also take the records themselves).
pub fn steps(records: &[Record]) -> Vec<Step> {
    records.iter().map(|&r| r.into()).collect()
}

/// The machine proving `program` (its DECODE table carries the program).
pub fn machine_for(image: &ProgramImage) -> Rv64Machine {
    Rv64Machine::new(image)
}

/// The machine a verifier uses: shapes only, commitments from the verifying key.
pub fn verifier_machine() -> Rv64Machine {
    Rv64Machine::verifier()
}

/// Traces and public values of an execution that read `input` (its private input).
///
/// # Errors
/// [`TraceError`] when the execution uses something this version cannot prove.
pub fn traces(
    machine: &Rv64Machine,
    image: &ProgramImage,
    records: &[Record],
    input: &[u8],
) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
    build_traces(machine, image, records, input)
}

/// Runs the debug checker over the traces.
pub fn debug_check(
    machine: &Rv64Machine,
    traces: &[RowMajorMatrix],
    public: &[Felt],
) -> DebugReport {
    let pre = preprocessed_traces(machine);
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(machine, &refs, &pre, public)
}

/// Byte lookups a backend has started counting ([`RvFills::count_lookups_early`]), of a
/// type only that backend knows.
pub type LookupTally = Box<dyn std::any::Any + Send>;

/// Backends that can build RV64IM main traces in their own memory (device fills).
pub trait RvFills: DeviceTraces {
    /// Whether [`RvFills::fill_records`] builds traces here (false: every trace is built on
    /// the host).
    fn has_device_fills(&self) -> bool;

    /// The main traces of the record tables `tables` (of the
    /// [`RECORD_TABLES`](kestrel_core::rv::machine::RECORD_TABLES): CPU, MEMW_R, LT, EQ,
    /// SHIFT, MUL, DVRM, LOAD, STORE, MEMW_A, ECALL, IO) built in the backend's memory from their packed
    /// records, each with its table (e.g. the [`EARLY_TABLES`] while the packing pass builds
    /// the others). A backend that [`RvFills::counts_lookups`] also takes DECODE, a whole
    /// run's (its multiplicities counted from the steps' DECODE rows).
    ///
    /// # Errors
    /// Any backend failure; nothing is built in its place.
    fn fill_records(
        &self,
        image: &ProgramImage,
        records: &RecordRefs<'_>,
        tables: &[TableId],
    ) -> Result<Vec<(TableId, Self::DeviceTrace)>, ProverError>;

    /// Whether record table `t`'s fill reads only the records that are final before the
    /// packing pass's last stage (the [`EARLY_TABLES`]'), so that it can run while the pass
    /// builds the rest. By default the [`EARLY_TABLES`]; a backend that makes LT's, EQ's,
    /// SHIFT's, MUL's and DVRM's distinct rows itself fills those early too.
    fn fills_early(&self, t: TableId) -> bool {
        EARLY_TABLES.contains(&t)
    }

    /// Whether BITWISE is built here ([`RvFills::fill_bitwise`]) from the other tables'
    /// traces, so that the packing pass counts no byte lookups of its own but REGISTER's
    /// ([`Lookups::Device`]); a whole run's run tables are then built here too: DECODE by
    /// [`RvFills::fill_records`] (its multiplicities counted from the steps' DECODE rows),
    /// REGISTER, PAGE and PAGE0 by [`RvFills::fill_run`]. By default not.
    fn counts_lookups(&self) -> bool {
        false
    }

    /// REGISTER's, PAGE's and PAGE0's main traces in the backend's memory from a whole run's
    /// run records ([`PackedTraces::run`]), each with its table.
    ///
    /// # Errors
    /// Any backend failure; nothing is built in its place.
    fn fill_run(
        &self,
        _image: &ProgramImage,
        _run: &RunRecords,
    ) -> Result<Vec<(TableId, Self::DeviceTrace)>, ProverError> {
        Err(ProverError::Internal(
            "this backend does not build the run tables",
        ))
    }

    /// Starts counting BITWISE's byte lookups over the traces `filled` (record tables'
    /// fills) as soon as they are made, before the packing pass has the public values: the
    /// backend's tally, which [`RvFills::fill_bitwise`] finishes. `None`: this backend counts
    /// in `fill_bitwise` only (the default).
    ///
    /// # Errors
    /// Any backend failure.
    fn count_lookups_early(
        &self,
        _machine: &Rv64Machine,
        _filled: &[(TableId, &Self::DeviceTrace)],
    ) -> Result<Option<LookupTally>, ProverError> {
        Ok(None)
    }

    /// BITWISE's main trace in the backend's memory: the byte lookups the AIR's sends make
    /// over the traces `filled` (every record table's), added to `base`, the run tables'
    /// lookups counted by the packing pass ([`PackedTraces::run_lookups`]). `tally`: what
    /// [`RvFills::count_lookups_early`] counted already (those tables are not counted again).
    ///
    /// # Errors
    /// Any backend failure, a tally this backend did not make, or a send BITWISE has no row
    /// for; nothing is built in its place.
    fn fill_bitwise(
        &self,
        _machine: &Rv64Machine,
        _filled: &[(TableId, &Self::DeviceTrace)],
        _public: &[Felt],
        _base: &[u64],
        _tally: Option<LookupTally>,
    ) -> Result<Self::DeviceTrace, ProverError> {
        Err(ProverError::Internal("this backend does not build BITWISE"))
    }
}

impl RvFills for CpuBackend {
    fn has_device_fills(&self) -> bool {
        false
    }

    fn fill_records(
        &self,
        _image: &ProgramImage,
        _records: &RecordRefs<'_>,
        _tables: &[TableId],
    ) -> Result<Vec<(TableId, Self::DeviceTrace)>, ProverError> {
        Err(ProverError::Internal("the CPU backend has no device fills"))
    }
}

/// Why main traces could not be built.
#[derive(Debug, thiserror::Error)]
pub enum MainTracesError {
    /// The execution cannot be proven by this version.
    #[error("{0}")]
    Trace(TraceError),
    /// A device fill failed (no host fallback once a fill was asked for).
    #[error("device trace fill: {0}")]
    Fill(ProverError),
}

/// Every table's main trace and the public values: with `device_fills`, the record tables
/// (CPU, MEMW_R, LT, EQ, SHIFT, MUL, DVRM, LOAD, STORE, MEMW_A, ECALL, IO) are built in the
/// backend's memory from packed records (one host pass packs them and builds the other
/// tables); otherwise every trace is built on the host from the same records ([`traces`]).
///
/// # Errors
/// [`MainTracesError`]; asking a backend without device fills for them is an error.
pub fn main_traces<B: RvFills>(
    backend: &B,
    machine: &Rv64Machine,
    image: &ProgramImage,
    records: &[Record],
    input: &[u8],
    device_fills: bool,
) -> Result<(Vec<MainTrace<B>>, Vec<Felt>), MainTracesError> {
    main_traces_timed(backend, machine, image, records, input, device_fills, None)
        .map(|(t, p, _)| (t, p))
}

/// Who counts the byte lookups when [`main_traces_timed`] packs for `backend`: the device
/// when it fills the tables and can (unless `KESTREL_HOST_LOOKUPS` forces the host).
pub fn pack_lookups<B: RvFills>(backend: &B, device_fills: bool) -> Lookups {
    if device_fills && backend.counts_lookups() && !host_lookups_forced() {
        Lookups::Device
    } else {
        Lookups::Host
    }
}

/// Records the run of `vm` (`n` cycles, as its first run found) into exactly `n` records,
/// a chunk of `pre`'s at a time, each chunk decoded on rayon's pool ([`Predecoder`]) while
/// the next is recorded. Returns how the run ended, the records and their decode (a chunk
/// whose records did not come is left undecoded, so the packing pass decodes itself).
///
/// # Errors
/// The run's [`VmError`].
pub fn record_predecoded(
    vm: &mut Vm,
    n: usize,
    pre: &Predecoder,
) -> (Result<Exit, VmError>, Vec<Record>, Predecoded) {
    let mut records = mapped_records(n);
    let mut out = pre.output();
    let mut exit = None;
    rayon::in_place_scope(|s| {
        let mut rest: &mut [Record] = &mut records;
        for chunk in out.chunks() {
            let (buf, tail) = std::mem::take(&mut rest).split_at_mut(chunk.range().len());
            rest = tail;
            let mut rec = SliceRecorder::new(buf);
            let ended = vm.run_until(&mut rec, chunk.range().end as u64);
            let (buf, len) = rec.finish();
            let full = len == buf.len();
            let steps: &[Record] = buf;
            match ended {
                Ok(None) if full => s.spawn(move |_| pre.decode(steps, chunk)),
                Ok(Some(e)) => {
                    if full && rest.is_empty() {
                        s.spawn(move |_| pre.decode(steps, chunk));
                    }
                    exit = Some(Ok(e));
                    return;
                }
                // Stopped short of its chunk (not reached with the first run's length).
                Ok(None) => return,
                Err(e) => {
                    exit = Some(Err(e));
                    return;
                }
            }
        }
    });
    // Every chunk recorded and the run not ended: it goes on past the first run's length
    // (`vm`'s cycle limit says so).
    let exit = exit.unwrap_or_else(|| vm.run(&mut crate::vm::NoRecorder));
    (exit, records, out)
}

/// Where [`main_traces`] spent its time: the host packing pass (with the host-built tables)
/// and the fills of the record tables (on the device, or on the host with `--host-fills`).
#[derive(Clone, Debug, Default)]
pub struct TraceTimes {
    pub pack: std::time::Duration,
    pub fill: std::time::Duration,
    /// Each table's real rows where the packing pass knows them
    /// ([`PackedTraces::real_rows`]).
    pub real_rows: Vec<Option<usize>>,
    /// The packing pass's stages ([`ParMap::stage_done`]) and their times.
    pub pack_stages: Vec<(&'static str, std::time::Duration)>,
    /// BITWISE built by the backend ([`RvFills::fill_bitwise`]), part of `fill`.
    pub bitwise: Option<std::time::Duration>,
}

/// Main traces, public values and where the time went.
pub type TimedTraces<B> = (Vec<MainTrace<B>>, Vec<Felt>, TraceTimes);

/// [`main_traces`] and its [`TraceTimes`].
///
/// # Errors
/// As [`main_traces`].
pub fn main_traces_timed<B: RvFills>(
    backend: &B,
    machine: &Rv64Machine,
    image: &ProgramImage,
    records: &[Record],
    input: &[u8],
    device_fills: bool,
    pre: Option<Predecoded>,
) -> Result<TimedTraces<B>, MainTracesError> {
    let start = std::time::Instant::now();
    let lookups = pack_lookups(backend, device_fills);
    if !device_fills {
        let par = StageClock::new(Rayon::default());
        let packed =
            pack_traces_predecoded(&par, machine, image, records, input, lookups, pre, |_| ())
                .map(|(p, ())| p)
                .map_err(MainTracesError::Trace)?;
        let pack = start.elapsed();
        let real_rows = packed.real_rows();
        let (tr, public) = packed
            .into_host_traces(image)
            .map_err(MainTracesError::Trace)?;
        let times = TraceTimes {
            pack,
            fill: start.elapsed() - pack,
            real_rows,
            pack_stages: par.stages(),
            bitwise: None,
        };
        return Ok((tr.into_iter().map(MainTrace::Host).collect(), public, times));
    }
    if !backend.has_device_fills() {
        return Err(MainTracesError::Fill(ProverError::Internal(
            "device fills asked of a backend without them",
        )));
    }
    // The fills that read only the records final first run while the packing pass builds
    // the others (with a backend that makes the ALU tables' distinct rows itself, every
    // fill); the rest follow it.
    let (mut early_tables, late_tables): (Vec<TableId>, Vec<TableId>) =
        RECORD_TABLES.iter().partition(|&&t| backend.fills_early(t));
    let par = StageClock::new(Rayon::default());
    // With the device counting the byte lookups, it builds the run tables too: DECODE
    // with the early fills (from the steps' DECODE rows), the others from the run records.
    if lookups == Lookups::Device {
        early_tables.push(TableId::Decode);
    }
    // With the device counting the byte lookups, the early fills' are counted right after
    // them, while the pass ends.
    let (mut packed, early) =
        pack_traces_predecoded(&par, machine, image, records, input, lookups, pre, |r| {
            let filled = backend.fill_records(image, &r, &early_tables)?;
            let tally = match lookups {
                Lookups::Device => {
                    let refs: Vec<(TableId, &B::DeviceTrace)> =
                        filled.iter().map(|(t, d)| (*t, d)).collect();
                    backend.count_lookups_early(machine, &refs)?
                }
                Lookups::Host => None,
            };
            Ok((filled, tally))
        })
        .map_err(MainTracesError::Trace)?;
    let (early, tally) = match early {
        Ok((filled, tally)) => (Ok(filled), tally),
        Err(e) => (Err(e), None),
    };
    let pack = start.elapsed();
    let late = if late_tables.is_empty() {
        Ok(Vec::new())
    } else {
        backend.fill_records(image, &packed.records(), &late_tables)
    };
    let mut real_rows = packed.real_rows();
    match lookups {
        Lookups::Host => {
            if let Ok(e) = &early {
                distinct_rows_agree(backend, &real_rows, e).map_err(MainTracesError::Fill)?;
            }
        }
        // The pass made no distinct rows: their counts are the backend's.
        Lookups::Device => {
            for t in LATE_TABLES {
                real_rows[t.index()] = None;
            }
        }
    }
    let run_lookups = packed.run_lookups.take();
    let run_filled = match packed.run.take() {
        Some(run) => backend
            .fill_run(image, &run)
            .map_err(MainTracesError::Fill)?,
        None => Vec::new(),
    };
    let mut filled: Vec<Option<B::DeviceTrace>> = (0..packed.traces.len()).map(|_| None).collect();
    for (t, trace) in early
        .and_then(|e| Ok(e.into_iter().chain(late?)))
        .map_err(MainTracesError::Fill)?
        .chain(run_filled)
    {
        if let Some(slot) = filled.get_mut(t.index()) {
            *slot = Some(trace);
        }
    }
    let PackedTraces {
        cpu,
        memw_r,
        lt,
        eq,
        shift,
        mul,
        dvrm,
        loads,
        stores,
        mem_a,
        mem_start,
        mem_s,
        ecalls,
        io,
        traces,
        table_rows: _,
        public,
        run_lookups: _,
        run: _,
        mem_counts: _,
    } = packed;
    // The records are on the device now: their host memory (hundreds of MB at 2^22 steps)
    // is given back on another thread instead of holding up the proof.
    let records = (
        cpu, memw_r, lt, eq, shift, mul, dvrm, loads, stores, mem_a, mem_start, mem_s, ecalls, io,
    );
    // If no thread can be started, the closure and the records are dropped right here.
    let _ = std::thread::Builder::new()
        .name("free records".into())
        .spawn(move || drop(records));
    let bitwise = match (lookups, run_lookups) {
        (Lookups::Host, _) => None,
        (Lookups::Device, Some(base)) => {
            let at = std::time::Instant::now();
            // REGISTER's lookups are the packing pass's (in `base`): their multiplicity is
            // preprocessed.
            let refs: Vec<(TableId, &B::DeviceTrace)> = TableId::ALL
                .iter()
                .zip(&filled)
                .filter(|(&t, _)| t != TableId::Register)
                .filter_map(|(&t, d)| d.as_ref().map(|d| (t, d)))
                .collect();
            let trace = backend
                .fill_bitwise(machine, &refs, &public, &base, tally)
                .map_err(MainTracesError::Fill)?;
            filled[TableId::Bitwise.index()] = Some(trace);
            Some(at.elapsed())
        }
        (Lookups::Device, None) => {
            return Err(MainTracesError::Fill(ProverError::Internal(
                "the packing pass left BITWISE without the run tables' lookups",
            )))
        }
    };
    let out = traces
        .into_iter()
        .zip(filled)
        .map(|(m, d)| {
            match (m, d) {
                (Some(m), None) => Some(MainTrace::Host(m)),
                (None, Some(d)) => Some(MainTrace::Device(d)),
                _ => None,
            }
            .ok_or(MainTracesError::Fill(ProverError::Internal(
                "a table without exactly one trace",
            )))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let times = TraceTimes {
        pack,
        fill: start.elapsed() - pack,
        real_rows,
        pack_stages: par.stages(),
        bitwise,
    };
    Ok((out, public, times))
}

/// `KESTREL_HOST_LOOKUPS=1`: the packing pass counts every byte lookup and builds BITWISE
/// on the host even for a backend that would count them itself (to compare the two).
fn host_lookups_forced() -> bool {
    std::env::var("KESTREL_HOST_LOOKUPS").is_ok_and(|v| v == "1")
}

/// Checks that the ALU tables' traces a backend filled before the packing pass merged
/// their distinct rows (from rows it made itself, [`RvFills::fills_early`]) have the
/// heights of the pass's rows (`real_rows`, [`PackedTraces::real_rows`]); the parity suites
/// compare the rows themselves.
///
/// # Errors
/// [`ProverError::Internal`] naming the disagreement.
pub fn distinct_rows_agree<B: RvFills>(
    backend: &B,
    real_rows: &[Option<usize>],
    filled: &[(TableId, B::DeviceTrace)],
) -> Result<(), ProverError> {
    for (t, trace) in filled.iter().filter(|(t, _)| LATE_TABLES.contains(t)) {
        let rows = real_rows.get(t.index()).copied().flatten().unwrap_or(0);
        if backend.trace_dims(trace).1 != distinct_height(rows) {
            return Err(ProverError::Internal(
                "the backend's distinct rows of an ALU table are not the packing pass's",
            ));
        }
    }
    Ok(())
}

/// [`debug_check`] over main traces of which some live in the backend's memory: those are
/// downloaded first (explicitly; a device backend counts the bytes).
///
/// # Errors
/// A backend failure while downloading.
pub fn debug_check_main<B: DeviceTraces>(
    backend: &B,
    machine: &Rv64Machine,
    traces: &[MainTrace<B>],
    public: &[Felt],
) -> Result<DebugReport, ProverError> {
    let host = traces
        .iter()
        .map(|t| t.to_host(backend))
        .collect::<Result<Vec<_>, _>>()?;
    let pre = preprocessed_traces(machine);
    let refs: Vec<&RowMajorMatrix> = host.iter().map(|c| c.as_ref()).collect();
    Ok(check_machine(machine, &refs, &pre, public))
}
