//! The packing pass: an execution's steps to the packed records of the
//! [`RECORD_TABLES`](super::machine::RECORD_TABLES), every other table's trace and the
//! public values. A [`Segmenter`] runs it one segment of steps at a time
//! ([`Segmenter::pack_segment`]: the [`SEGMENT_TABLES`](TableId::SEGMENT_TABLES)), carrying
//! the replay state from one segment to the next, and builds the
//! [`RUN_TABLES`](TableId::RUN_TABLES) once after the last ([`Segmenter::finish`]);
//! [`pack_traces`] is a run of one segment, its run tables merged in. A segment is packed
//! in four stages:
//!
//! 0. **Decode** (chunks of consecutive steps, in parallel): each step's DECODE row, up to
//!    the first step whose pc is not a provable instruction of the program.
//! 1. **Replay** (sequential), up to that step: what a step reads from the steps before it —
//!    the register file, memory replayed from the image, system calls with their IO chains,
//!    the input and output positions, the exit code. It makes every other check a step can
//!    fail, in step order, so an error is the earliest failing step's. Of the register file
//!    it keeps only a copy at the start of each chunk. With [`Lookups::Device`] (the memory
//!    records left to the device's walk) it runs in parallel instead ([`replay_par`]: chunk
//!    scans during the decode, memory by word owners), giving up to the sequential replay
//!    on anything that one would refuse.
//! 2. **Steps** (the chunks again, in parallel): what each step implies given the replay —
//!    its CPU and MEMW_R columns (the chunk runs the register file again from its copy),
//!    DECODE multiplicities (with [`Lookups::Host`]), ALU operations per table (merged into distinct rows per chunk:
//!    LT's, EQ's, SHIFT's, MUL's and DVRM's), the byte lookups of its CPU row and register
//!    accesses.
//! 3. **Tables** (one job per segment table, the ALU tables' split by ranges of keys, in
//!    parallel): each table's trace, rows or lookups from the records; their
//!    byte lookups and the DECODE multiplicities are added to the run's totals.
//!
//! Chunks are joined in step order and byte lookups are counts, so the result does not
//! depend on the [`ParMap`] or its chunk length.
//!
//! Clocks are global: step `i` of a segment starting at clock `c` runs at cycle `c + i`,
//! its register accesses at timestamps `4·(c + i) + 1 ..= 3` and its memory accesses at
//! `c + i + 1`.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::mem::MaybeUninit;
use core::ops::Range;

use super::bitwise::{ByteCounts, ByteTotals};
use super::cpu::{self, CallMark, CpuRecords, Step};
use super::decode::{class, decode_for_air, CodeSlots, Decoded, NoRow, ProgramImage};
use super::ecall;
use super::io;
use super::load;
use super::machine::{
    distinct_rows, public_values, MemCounts, PackedTraces, RecordRefs, RunRecords, RunTraces,
    Rv64Machine, TraceError, MAX_OUTPUT, MAX_RUN_CYCLES,
};
use super::memw;
use super::memw_r::{self, MemwRRecords, RegAccess, RegFile, RegRow};
use super::page;
use super::page0;
use super::register;
use super::store;
use super::table::TableId;
use super::{
    distinct_height, merge_part, part_bounds, AluOp, Distinct, DistinctKey, EcallOp, IoWord,
    LoadOp, StoreOp, WordAccess, WordStart, IO_IN, IO_ZERO,
};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::par::{ParMap, Sequential};

mod replay_par;

/// Who counts the segment tables' byte lookups (BITWISE's multiplicities).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lookups {
    /// The packing pass: it counts every table's lookups (merging LT's, EQ's, SHIFT's,
    /// MUL's and DVRM's distinct rows, whose lookups they are) and builds BITWISE.
    #[default]
    Host,
    /// A device that fills every table and counts their lookups from those traces (the
    /// AIR's sends on the byte bus): the pass makes no distinct rows and counts only
    /// REGISTER's lookups (their multiplicity is preprocessed), handed on as
    /// [`PackedTraces::run_lookups`]; BITWISE's trace is left `None` (the device builds it),
    /// and so are the run tables' ([`PackedTraces::run`] holds their records, without
    /// DECODE's multiplicities: the device counts them from the steps' DECODE rows, so a
    /// run packed in several segments has none). The device's register walk makes the CPU's
    /// operands and MEMW_R's accesses from the steps' DECODE rows and results, so the pass
    /// leaves those records empty (the CPU's `rs1` and `rs2`, MEMW_R's `meta`, `old` and
    /// `new`): a fill that reads them refuses the records.
    Device,
}

/// The [`RECORD_TABLES`](super::machine::RECORD_TABLES) as packed records (no rows built),
/// every other table's trace, and the public values. Memory is replayed from the program image; the recorded loads
/// must agree with it, and `input` feeds the reads. Runs on the calling thread
/// ([`pack_traces_with`] spreads the work over a thread pool).
///
/// # Errors
/// [`TraceError`] when the execution cannot be proven.
pub fn pack_traces<S: Copy + Into<Step> + Sync>(
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[S],
    input: &[u8],
) -> Result<PackedTraces, TraceError> {
    pack_traces_with(&Sequential, machine, program, steps, input)
}

/// [`pack_traces`], its independent work run through `par`: the same records and traces
/// (bit for bit) and the same errors, whatever `par`.
///
/// # Errors
/// [`TraceError`] when the execution cannot be proven.
pub fn pack_traces_with<S: Copy + Into<Step> + Sync>(
    par: &impl ParMap,
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[S],
    input: &[u8],
) -> Result<PackedTraces, TraceError> {
    pack_traces_overlapped(par, machine, program, steps, input, Lookups::Host, |_| ())
        .map(|(p, ())| p)
}

/// [`pack_traces_with`], running `early` on the records of the
/// [`EARLY_TABLES`](super::machine::EARLY_TABLES) as soon as they are final, while the last
/// stage builds the other tables (e.g. to start their fills on a device); returns its
/// result with the records. `early` runs only if the pass gets that far.
///
/// The whole run is one segment ([`Segmenter::pack_segment_overlapped`] with `last`), its
/// run tables and public values ([`Segmenter::finish`]) merged in; `lookups` says who
/// counts the byte lookups.
///
/// # Errors
/// [`TraceError`] when the execution cannot be proven.
#[allow(clippy::too_many_arguments)]
pub fn pack_traces_overlapped<S, R, E>(
    par: &impl ParMap,
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[S],
    input: &[u8],
    lookups: Lookups,
    early: E,
) -> Result<(PackedTraces, R), TraceError>
where
    S: Copy + Into<Step> + Sync,
    R: Send,
    E: FnOnce(RecordRefs<'_>) -> R + Send,
{
    pack_traces_predecoded(par, machine, program, steps, input, lookups, None, early)
}

/// [`pack_traces_overlapped`] with its decode already run (`pre`, from a [`Predecoder`] of
/// the same machine and program made for these steps with `lookups`): the same records,
/// traces and errors. A `pre` of another shape (steps, chunks, lookups) or with a chunk
/// left undecoded is set aside and the pass decodes itself.
///
/// # Errors
/// [`TraceError`] when the execution cannot be proven.
#[allow(clippy::too_many_arguments)]
pub fn pack_traces_predecoded<S, R, E>(
    par: &impl ParMap,
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[S],
    input: &[u8],
    lookups: Lookups,
    pre: Option<Predecoded>,
    early: E,
) -> Result<(PackedTraces, R), TraceError>
where
    S: Copy + Into<Step> + Sync,
    R: Send,
    E: FnOnce(RecordRefs<'_>) -> R + Send,
{
    let mut run = Segmenter::new(machine, program, input)?.with_lookups(lookups);
    let (segment, early) = run.pack_segment_predecoded(par, steps, true, pre, early)?;
    Ok((segment.with_run(run.finish(par)?), early))
}

/// The packing pass one segment at a time: packs each segment's steps into the records and
/// traces of the [`SEGMENT_TABLES`](TableId::SEGMENT_TABLES)
/// ([`Segmenter::pack_segment`]), then, after the last, the
/// [`RUN_TABLES`](TableId::RUN_TABLES) and the public values ([`Segmenter::finish`]).
///
/// It holds only the replay state that crosses segments — memory as replayed (the image and
/// each touched word's value and last timestamp), the register file, the input and output
/// positions, the public output so far, the next segment's first clock, DECODE's
/// multiplicities and BITWISE's byte lookup counts summed over the segments — and no
/// per-step data of an earlier segment, so its memory is bounded by one segment's (and the
/// touched memory's), whatever the run's length.
///
/// Once a call fails, every later call fails with the same error (the replay state is
/// then partway through the failing segment).
pub struct Segmenter<'a> {
    program: &'a ProgramImage,
    slots: CodeSlots,
    routes: AluRoutes,
    /// Per code slot, whether no ALU table takes its instruction's ALU operation
    /// ([`AluRoutes::unrouted`]).
    unrouted: Vec<bool>,
    carry: Carry<'a>,
    /// DECODE's multiplicities (executions per code slot) over the segments so far.
    mult: Vec<u64>,
    /// The byte lookups of every segment's tables so far (none with [`Lookups::Device`]).
    bytes: ByteTotals,
    lookups: Lookups,
    /// Whether the replay may run in parallel (with [`Lookups::Device`]).
    parallel_replay: bool,
    /// Whether the last segment has been packed.
    ended: bool,
    /// The error a call failed with.
    failed: Option<TraceError>,
    /// The run tables, when the last segment built them while its early job ran (with
    /// [`Lookups::Device`]).
    run: Option<RunTraces>,
}

/// The replay state one segment hands on to the next.
#[derive(Clone)]
struct Carry<'a> {
    mem: MemReplay,
    file: RegFile,
    input: &'a [u8],
    /// Input bytes read so far.
    input_pos: usize,
    /// The public output so far.
    output: Vec<u8>,
    /// Output bytes written so far (the next write's position).
    outpos: u64,
    /// The next segment's first clock.
    clk: u64,
    /// `a0` at the exit call, once replayed.
    exit_code: Option<u64>,
}

impl<'a> Segmenter<'a> {
    /// A run of `program` on private input `input`, before its first segment: the register
    /// file and memory in their initial state.
    ///
    /// # Errors
    /// [`TraceError::InputTooLong`] for 2^32 bytes of input or more.
    pub fn new(
        machine: &'a Rv64Machine,
        program: &'a ProgramImage,
        input: &'a [u8],
    ) -> Result<Self, TraceError> {
        // REG_INPUT holds the unread input bytes as four bytes.
        let input_len = u32::try_from(input.len())
            .map_err(|_| TraceError::InputTooLong { bytes: input.len() })?;
        let slots = CodeSlots::new(program);
        let routes = AluRoutes::new(machine);
        Ok(Segmenter {
            program,
            mult: vec![0; slots.len()],
            unrouted: routes.unrouted(&slots),
            slots,
            routes,
            carry: Carry {
                mem: MemReplay {
                    image: page::MemoryImage::of(program),
                    words: Words::default(),
                },
                file: RegFile::new(register::initial_file(program, input_len)),
                input,
                input_pos: 0,
                output: Vec::new(),
                outpos: 0,
                clk: 0,
                exit_code: None,
            },
            bytes: ByteTotals::default(),
            lookups: Lookups::Host,
            parallel_replay: true,
            ended: false,
            failed: None,
            run: None,
        })
    }

    /// This segmenter with `lookups` counting the byte lookups (before its first segment).
    pub fn with_lookups(mut self, lookups: Lookups) -> Self {
        self.lookups = lookups;
        self
    }

    /// This segmenter replaying sequentially even where it could in parallel (with
    /// [`Lookups::Device`]): the reference the parallel replay is tested against.
    #[doc(hidden)]
    pub fn with_sequential_replay(mut self) -> Self {
        self.parallel_replay = false;
        self
    }

    /// The clock of the next segment's first step (0 before the first).
    pub fn clk(&self) -> u64 {
        self.carry.clk
    }

    /// A checkpoint: a segmenter that packs the next segment as this one would, from a copy
    /// of its replay state (registers, memory words and their timestamps, input and output
    /// positions, clock), counting with `lookups`, with no totals of its own (DECODE's
    /// multiplicities and byte lookups start at zero; [`Segmenter::absorb`] adds them
    /// back). Segments are packed in parallel from checkpoints: one segmenter runs ahead
    /// through every segment (its packing with [`Lookups::Device`] replays in parallel and
    /// builds no tables), forking before each; each fork packs its segment; after the last,
    /// a fork of the one ahead absorbs every fork and builds the run tables
    /// ([`Segmenter::finish`]). The traces are those of packing the segments in order on
    /// one segmenter.
    pub fn fork(&self, lookups: Lookups) -> Segmenter<'a> {
        Segmenter {
            program: self.program,
            slots: self.slots.clone(),
            routes: self.routes.clone(),
            unrouted: self.unrouted.clone(),
            carry: self.carry.clone(),
            mult: vec![0; self.mult.len()],
            bytes: ByteTotals::default(),
            lookups,
            parallel_replay: self.parallel_replay,
            ended: self.ended,
            failed: self.failed.clone(),
            run: None,
        }
    }

    /// Adds a fork's totals (DECODE's multiplicities and the byte lookups of the segments
    /// it packed) to this segmenter's.
    ///
    /// # Errors
    /// The fork's error if it failed; [`TraceError::ForeignFork`] for a fork of another
    /// program.
    pub fn absorb(&mut self, fork: &Segmenter<'_>) -> Result<(), TraceError> {
        if let Some(e) = &fork.failed {
            return Err(e.clone());
        }
        if fork.mult.len() != self.mult.len() {
            return Err(TraceError::ForeignFork);
        }
        for (a, b) in self.mult.iter_mut().zip(&fork.mult) {
            *a += b;
        }
        self.bytes.merge(&fork.bytes);
        Ok(())
    }

    /// [`Segmenter::pack_segment_overlapped`] without an early job.
    ///
    /// # Errors
    /// As [`Segmenter::pack_segment_overlapped`].
    pub fn pack_segment<S: Copy + Into<Step> + Sync>(
        &mut self,
        par: &impl ParMap,
        steps: &[S],
        last: bool,
    ) -> Result<PackedTraces, TraceError> {
        self.pack_segment_overlapped(par, steps, last, |_| ())
            .map(|(p, ())| p)
    }

    /// Packs the next segment's steps (from clock [`Segmenter::clk`]): the records and
    /// traces of the [`SEGMENT_TABLES`](TableId::SEGMENT_TABLES) as
    /// [`pack_traces_overlapped`] packs them (the CPU's and MEMW_R's records with the
    /// segment's first clock, the CPU's with the output written before it and whether it
    /// hands on to a next segment), `None` at the run tables' traces and real rows, no
    /// public values. `last`: the run ends in these steps (the last is the exit call). A
    /// segment that is not the last must not contain the exit call. `early` runs on the
    /// records of the [`EARLY_TABLES`](super::machine::EARLY_TABLES) as soon as they are
    /// final (as in [`pack_traces_overlapped`]).
    ///
    /// # Errors
    /// [`TraceError`] when the steps cannot be proven: the earliest failing step's error;
    /// [`TraceError::NoExit`] if `last` and the steps do not end with the exit call,
    /// [`TraceError::ExitBeforeLast`] if not `last` and they contain it,
    /// [`TraceError::AfterLast`] after the last segment, and the error of an earlier call
    /// that failed.
    pub fn pack_segment_overlapped<S, R, E>(
        &mut self,
        par: &impl ParMap,
        steps: &[S],
        last: bool,
        early: E,
    ) -> Result<(PackedTraces, R), TraceError>
    where
        S: Copy + Into<Step> + Sync,
        R: Send,
        E: FnOnce(RecordRefs<'_>) -> R + Send,
    {
        self.pack_segment_predecoded(par, steps, last, None, early)
    }

    /// [`Segmenter::pack_segment_overlapped`] with the segment's decode already run (`pre`:
    /// see [`pack_traces_predecoded`]; a [`Predecoder`] made for the segment's first clock,
    /// [`Segmenter::clk`]).
    ///
    /// # Errors
    /// As [`Segmenter::pack_segment_overlapped`].
    pub fn pack_segment_predecoded<S, R, E>(
        &mut self,
        par: &impl ParMap,
        steps: &[S],
        last: bool,
        pre: Option<Predecoded>,
        early: E,
    ) -> Result<(PackedTraces, R), TraceError>
    where
        S: Copy + Into<Step> + Sync,
        R: Send,
        E: FnOnce(RecordRefs<'_>) -> R + Send,
    {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.ended {
            return Err(TraceError::AfterLast);
        }
        let out = self.segment(par, steps, last, pre, early);
        match &out {
            Ok(_) => self.ended = last,
            Err(e) => self.failed = Some(e.clone()),
        }
        out
    }

    /// After the last segment: the [`RUN_TABLES`](TableId::RUN_TABLES)' traces — DECODE
    /// with the multiplicities of every segment, REGISTER and PAGE with the final register
    /// file and memory, PAGE0 with the touched zero-initialised words, BITWISE with every
    /// segment's byte lookups and the run tables' own — their real rows and the public
    /// values.
    ///
    /// # Errors
    /// [`TraceError::NoExit`] before the last segment, and the error of an earlier call that
    /// failed.
    pub fn finish(mut self, par: &impl ParMap) -> Result<RunTraces, TraceError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let (true, Some(exit_code)) = (self.ended, self.carry.exit_code) else {
            return Err(TraceError::NoExit);
        };
        if let Some(run) = self.run.take() {
            return Ok(run);
        }
        Ok(run_traces(
            par,
            self.program,
            &self.mult,
            &self.carry,
            exit_code,
            &mut self.bytes,
            self.lookups,
        ))
    }

    /// [`Segmenter::pack_segment_overlapped`] on a segmenter that has not failed or ended.
    fn segment<S, R, E>(
        &mut self,
        par: &impl ParMap,
        steps: &[S],
        last: bool,
        pre: Option<Predecoded>,
        early: E,
    ) -> Result<(PackedTraces, R), TraceError>
    where
        S: Copy + Into<Step> + Sync,
        R: Send,
        E: FnOnce(RecordRefs<'_>) -> R + Send,
    {
        let last_step: Step = (*steps.last().ok_or(TraceError::Empty)?).into();
        if steps.len() > 1 << (crate::params::MAX_LOG_HEIGHT - 2) {
            return Err(TraceError::TooLong { steps: steps.len() });
        }
        let n = steps.len();
        let clk0 = self.carry.clk;
        if clk0 + n as u64 > MAX_RUN_CYCLES {
            return Err(TraceError::RunTooLong {
                cycles: clk0 + n as u64,
            });
        }
        let outpos0 = self.carry.outpos;
        let slots = &self.slots;
        let len = chunk_len(par, n);

        // 0. Decode, counting the loads and stores; for a parallel replay, each chunk's scan
        // and steps in the same pass over its steps as its decode (each step read once).
        // Run ahead (`pre`) when it was, else here.
        let keep = self.lookups == Lookups::Host;
        let parallel = !keep && self.parallel_replay;
        let shape = DecodeShape {
            n,
            len,
            clk0,
            parallel,
        };
        let routes = &self.routes;
        let (dec_row, mut res, decoded) = match pre.and_then(|p| p.take(shape)) {
            Some(done) => done,
            None => {
                let mut dec_row = vec![0u32; n];
                let mut res = vec![0u64; n];
                let mut rows: Vec<(&mut [u32], &mut [u64])> =
                    dec_row.chunks_mut(len).zip(res.chunks_mut(len)).collect();
                let unrouted = &self.unrouted[..];
                let decoded = par.map_mut(&mut rows, |c, (rows, res)| {
                    let at = c * len;
                    let chunk = &steps[at..at + rows.len()];
                    decode_one(shape, at, rows, res, chunk, slots, unrouted)
                });
                drop(rows);
                (dec_row, res, decoded)
            }
        };
        let (mut first_bad, mut n_loads, mut n_stores) = (None, 0, 0);
        let mut scans = Vec::with_capacity(if parallel { decoded.len() } else { 0 });
        let mut stepped = Vec::with_capacity(scans.capacity());
        for r in decoded {
            match r {
                Ok(((l, s), scan)) => {
                    (n_loads, n_stores) = (n_loads + l, n_stores + s);
                    if let Some((scan, chunk)) = scan {
                        scans.push(scan);
                        stepped.push(chunk);
                    }
                }
                Err(e) => {
                    first_bad.get_or_insert(e);
                }
            }
        }
        par.stage_done("decode");

        // 1. Replay, up to the first step that has no DECODE row, and 2. the steps, chunk by
        // chunk, each writing its part of the CPU and MEMW_R columns. The replay is
        // sequential and each chunk's steps need the replay to have passed it: with enough
        // chunks, the replay of the next piece of chunks runs while the pool runs the steps
        // of the piece before (the same records; an error is the one the replay or the
        // steps of the whole segment would give, in the same order of checks).
        let upto = first_bad.as_ref().map_or(n, |&(k, _)| k);
        let n_chunks = n.div_ceil(len);
        let mut replay = Run::new(&mut self.carry, n, len, keep);
        // Without the memory records kept, the replay runs in parallel (sequentially where
        // that one gives up: a step it would refuse).
        let replayed = parallel
            && first_bad.is_none()
            && replay.replay_parallel(par, slots, steps, &dec_row, scans, len, clk0);
        let pieces = if first_bad.is_none() && !replayed {
            (n_chunks / PIPELINE_CHUNKS).clamp(1, PIPELINE_PIECES)
        } else {
            1
        };
        let bound = |i: usize| i * n_chunks / pieces;
        if keep {
            replay.rec.prefault(par, n_loads, n_stores);
        }
        if !replayed {
            replay.chunks(slots, steps, &dec_row, len, clk0, 0..bound(1), upto)?;
        }
        if let Some((_, e)) = first_bad {
            return Err(e);
        }
        par.stage_done("replay");
        // With the device counting the lookups, its register walk makes the CPU's operands
        // and MEMW_R's accesses: the pass leaves those records empty.
        let full = self.lookups == Lookups::Host;
        let m = if full { n } else { 0 };
        let (mut rs1, mut rs2) = (vec![0; m], vec![0; m]);
        let (mut meta, mut old, mut new) = (vec![0; 3 * m], vec![0; 3 * m], vec![0; m]);
        let mut cols: Vec<Cols<'_>> = res
            .chunks_mut(len)
            .zip(parts(&mut rs1, len, n_chunks))
            .zip(parts(&mut rs2, len, n_chunks))
            .zip(parts(&mut meta, 3 * len, n_chunks))
            .zip(parts(&mut old, 3 * len, n_chunks))
            .zip(parts(&mut new, len, n_chunks))
            .map(|(((((res, rs1), rs2), meta), old), new)| Cols {
                rs1,
                rs2,
                res,
                meta,
                old,
                new,
            })
            .collect();
        let mut chunks = Vec::with_capacity(n_chunks);
        // The parallel replay's steps ran with the decode: the system calls' ALU operations
        // are checked here, each in its chunk in step order.
        let pieces = if replayed {
            // Every chunk decoded, so every chunk was stepped.
            debug_assert_eq!(stepped.len(), n_chunks);
            for (op, mark) in replay.rec.ecalls.iter().zip(&replay.rec.calls) {
                let k = (mark.clk - clk0) as usize;
                let (chunk, first) = &mut stepped[k / len];
                if first.is_some_and(|f| f < k) {
                    continue;
                }
                if let Some(o) = ecall::alu_lookups(op)
                    .into_iter()
                    .find(|o| routes.table_of(o.op).is_none())
                {
                    (chunk.no_table, *first) = (Some(o.op), Some(k));
                }
            }
            chunks.extend(stepped.into_iter().map(|(c, _)| c));
            0
        } else {
            pieces
        };
        for i in 0..pieces {
            let (c0, c1) = (bound(i), bound(i + 1));
            let view = replay.rec.view(c0..c1);
            let shared = ChunkInputs {
                len,
                clk0,
                steps,
                dec_row: &dec_row,
                slots,
                routes: &self.routes,
                run: &view,
                lookups: self.lookups,
            };
            let next = (i + 1 < pieces).then(|| c1..bound(i + 2));
            let replay = &mut replay;
            let (done, replayed) = par.join_waiting(
                || {
                    par.map_mut(&mut cols[c0..c1], |c, cols| {
                        step_chunk(c0 + c, cols, &shared)
                    })
                },
                || match next {
                    Some(r) => replay.chunks(slots, steps, &dec_row, len, clk0, r, upto),
                    None => Ok(()),
                },
            );
            replayed?;
            chunks.extend(done);
        }
        drop(cols);
        let mut run = replay.rec;
        self.carry.clk = clk0 + n as u64;
        par.stage_done("replay + steps");
        let exits = decode_for_air(last_step.pc, last_step.word)
            .is_some_and(|d| d.class[class::ECALL])
            && run.calls.last().is_some_and(|c| c.exit)
            && self.carry.exit_code.is_some();
        if last && !exits {
            return Err(TraceError::NoExit);
        }
        if let Some(c) = run.calls.iter().find(|c| c.exit).filter(|_| !last) {
            return Err(TraceError::ExitBeforeLast { clk: c.clk });
        }
        if self.carry.output.len() > MAX_OUTPUT {
            return Err(TraceError::OutputTooLong {
                bytes: self.carry.output.len(),
            });
        }
        if let Some(op) = chunks.iter().find_map(|c| c.no_table) {
            return Err(TraceError::NoAluTable { op });
        }
        let cpu = CpuRecords {
            height: n.next_power_of_two().max(crate::params::MIN_ROWS),
            dec_row,
            rs1,
            rs2,
            res,
            calls: core::mem::take(&mut run.calls),
            clk0,
            outpos0,
            handoff: !last,
        };

        // 3. Tables, while `early` reads the records that are final.
        let (mem_start, mem_counts) = if keep {
            (mem_start(&run, clk0), None)
        } else {
            let mut starts = core::mem::take(&mut run.starts);
            starts.sort_unstable_by_key(|s| s.w);
            (starts, Some(run.counts))
        };
        let layout = memw_r::split(3 * n + run.extra.len());
        let memw_r = MemwRRecords {
            height: layout.height,
            height2: layout.height2,
            meta,
            old,
            new,
            extra: core::mem::take(&mut run.extra),
            clk0,
            start: run.file_at.first().cloned().unwrap_or_default(),
        };
        let refs = RecordRefs {
            cpu: &cpu,
            memw_r: &memw_r,
            lt: &[],
            eq: &[],
            shift: &[],
            mul: &[],
            dvrm: &[],
            loads: &run.loads,
            stores: &run.stores,
            mem_a: &run.mem_a,
            mem_start: &mem_start,
            mem_s: &run.mem_s,
            ecalls: &run.ecalls,
            io: &run.io,
            mem_counts,
        };
        let mult = &mut self.mult;
        let lookups = self.lookups;
        // With device lookups the pass has no tables of its own to build: the last
        // segment's run tables (and BITWISE's base counts) are built while the early job
        // runs instead of after it.
        let (program, carry, totals) = (self.program, &self.carry, &mut self.bytes);
        let run_now = (last && lookups == Lookups::Device)
            .then_some(carry.exit_code)
            .flatten();
        let (((tables, ()), run_traces), early) = par.join_waiting(
            || {
                let out = par.join(
                    || match lookups {
                        Lookups::Host => tables(par, &run, &memw_r.extra, &chunks),
                        Lookups::Device => Tables::none(),
                    },
                    || add_mult(mult, &chunks),
                );
                par.stage_done("tables");
                // On this thread alone: the early job's host steps are the longer branch
                // and need the pool.
                let run = run_now.map(|code| {
                    let run = run_traces(&Sequential, program, mult, carry, code, totals, lookups);
                    par.stage_done("run tables");
                    run
                });
                (out, run)
            },
            || early(refs),
        );
        self.run = run_traces;
        par.stage_done("early fills (wait)");
        let Tables {
            traces,
            lt,
            eq,
            shift,
            mul,
            dvrm,
            table_rows,
            lookups,
        } = tables;
        let lookups: Vec<&ByteCounts> = chunks
            .iter()
            .filter_map(|c| c.bytes.as_ref())
            .chain(&lookups)
            .collect();
        if !lookups.is_empty() {
            self.bytes.add(par, &lookups);
        }
        drop(chunks);
        par.stage_done("byte lookups");
        Ok((
            PackedTraces {
                cpu,
                memw_r,
                lt,
                eq,
                shift,
                mul,
                dvrm,
                loads: run.loads,
                stores: run.stores,
                mem_a: run.mem_a,
                mem_start,
                mem_s: run.mem_s,
                ecalls: run.ecalls,
                io: run.io,
                mem_counts,
                traces,
                table_rows,
                public: Vec::new(),
                run_lookups: None,
                run: None,
            },
            early,
        ))
    }
}

/// The words a segment's memory accesses touch as they were before its first access to each
/// (the accesses whose previous timestamp precedes the segment's first, `clk0 + 1`), by
/// increasing word index.
fn mem_start(run: &Replayed, clk0: u64) -> Vec<WordStart> {
    let split = run.mem_s.iter().flat_map(|(a, b)| [a, b]);
    let mut out: Vec<WordStart> = run
        .mem_a
        .iter()
        .chain(split)
        .filter(|a| a.old_ts <= clk0)
        .map(|a| WordStart {
            w: a.w,
            value: a.old,
            ts: a.old_ts,
            ro: a.ro,
        })
        .collect();
    out.sort_unstable_by_key(|s| s.w);
    out
}

/// The [`RUN_TABLES`](TableId::RUN_TABLES)' records and traces after the last segment (see
/// [`Segmenter::finish`]): from DECODE's multiplicities `mult`, the final replay state `c`
/// and the exit code. With [`Lookups::Host`] every run table's trace is built here and its
/// byte lookups added to `bytes` (BITWISE's trace from them); with [`Lookups::Device`] the
/// records are handed on ([`RunTraces::records`], without the multiplicities the device
/// counts) with REGISTER's lookups, the one a device does not count, added to the counts
/// handed on.
fn run_traces(
    par: &impl ParMap,
    program: &ProgramImage,
    mult: &[u64],
    c: &Carry<'_>,
    exit_code: u64,
    bytes: &mut ByteTotals,
    lookups: Lookups,
) -> RunTraces {
    let mem = &c.mem;
    let zero = page0::zero_words(
        &mem.image,
        mem.words.iter().map(|(w, (v, t))| (w, v, t & !RO_BIT)),
    );
    // Final memory of the image words (untouched ones keep their initial token).
    let page = mem
        .image
        .words
        .iter()
        .map(|&(w, init, _)| {
            mem.words
                .get(w)
                .map_or((init, 0), |(v, t)| (v, t & !RO_BIT))
        })
        .collect();
    let records = RunRecords {
        mult: (lookups == Lookups::Host).then(|| mult.to_vec()),
        file: c.file.clone(),
        // `Segmenter::new` refuses inputs of 2^32 bytes or more.
        input_len: c.input.len() as u32,
        page,
        zmult: page::zero_counts(&mem.image, &zero),
        zero,
    };
    let mut out = RunTraces {
        traces: vec![None; TableId::COUNT],
        table_rows: vec![None; TableId::COUNT],
        public: public_values(exit_code, &c.output),
        run_lookups: None,
        records: None,
    };
    for (t, rows) in [
        (TableId::Decode, program.code.len()),
        (TableId::Register, super::NUM_REGS),
        (TableId::Page, mem.image.page_rows()),
        (TableId::Page0, records.zero.len()),
    ] {
        out.table_rows[t.index()] = Some(rows);
    }
    match lookups {
        Lookups::Host => {
            let built = par.map(TableId::RUN_TABLES.len(), |j| {
                let mut bytes = ByteCounts::default();
                let t = TableId::RUN_TABLES[j];
                (records.fill_host(t, program, &mem.image, &mut bytes), bytes)
            });
            let mut counted = Vec::with_capacity(built.len());
            for (&t, (trace, bytes)) in TableId::RUN_TABLES.iter().zip(built) {
                out.traces[t.index()] = trace;
                counted.push(bytes);
            }
            par.stage_done("run tables");
            bytes.add(par, &counted.iter().collect::<Vec<_>>());
            out.traces[TableId::Bitwise.index()] = Some(bytes.trace(par));
            par.stage_done("bitwise");
        }
        Lookups::Device => {
            let mut counted = ByteCounts::default();
            register::input_lookups(records.input_len, &mut counted);
            bytes.add(par, &[&counted]);
            out.run_lookups = Some(core::mem::take(bytes).into_counts());
            out.records = Some(records);
            par.stage_done("run records");
        }
    }
    out
}

/// Adds the chunks' DECODE multiplicities to the run's.
fn add_mult(mult: &mut [u64], chunks: &[Chunk]) {
    for c in chunks {
        for (m, x) in mult.iter_mut().zip(&c.mult) {
            *m += x;
        }
    }
}

/// Stage 3's output: every segment table's trace but the record tables' (`None` there and
/// at the run tables), LT's, EQ's, SHIFT's, MUL's and DVRM's distinct rows, the real rows of
/// the tables built here where one row stands for one record ([`PackedTraces::table_rows`]), and the
/// byte lookups of the jobs (the chunks' are their own).
struct Tables {
    traces: Vec<Option<RowMajorMatrix>>,
    lt: Vec<Distinct>,
    eq: Vec<Distinct>,
    shift: Vec<Distinct>,
    mul: Vec<Distinct>,
    dvrm: Vec<Distinct>,
    table_rows: Vec<Option<usize>>,
    lookups: Vec<ByteCounts>,
}

/// Stage 3: every segment table's trace but the record tables' (`None` there), and LT's,
/// EQ's, SHIFT's and MUL's distinct rows.
fn tables(par: &impl ParMap, run: &Replayed, extra: &[RegRow], chunks: &[Chunk]) -> Tables {
    let parts = chunks.len().min(MAX_DISTINCT_PARTS);
    let records = Records {
        run,
        extra,
        chunks,
        bounds: TableId::ALL
            .iter()
            .map(|&t| match distinct_rows(t) {
                Some(_) => part_bounds(chunks.iter().map(|c| &c.rows[t.index()][..]), parts),
                None => Vec::new(),
            })
            .collect(),
    };
    let jobs = table_jobs(parts);
    let (built, mut lookups): (Vec<Built>, Vec<ByteCounts>) = par
        .map(jobs.len(), |j| {
            let mut bytes = ByteCounts::default();
            (build_table(jobs[j], &records, &mut bytes), bytes)
        })
        .into_iter()
        .unzip();
    drop(records);
    // Every segment table is a record table: none has a trace here.
    let traces: Vec<Option<RowMajorMatrix>> = vec![None; TableId::COUNT];
    // Per table, its distinct rows (LT, EQ, SHIFT, MUL, DVRM): the parts in order.
    let mut distinct: Vec<Vec<Distinct>> = vec![Vec::new(); TableId::COUNT];
    let mut real_rows: Vec<Option<usize>> = vec![None; TableId::COUNT];
    for (&(t, _), out) in jobs.iter().zip(built) {
        match out {
            Built::Nothing => {}
            Built::Rows(rows) => distinct[t.index()].extend(rows),
        }
    }
    // Their padding rows' lookups (their traces are filled from the rows elsewhere).
    let mut padding = ByteCounts::default();
    for (&t, rows) in TableId::ALL.iter().zip(&distinct) {
        if let Some(d) = distinct_rows(t) {
            let h = distinct_height(rows.len());
            (d.lookups)(&[], h - rows.len(), &mut padding);
            real_rows[t.index()] = Some(rows.len());
        }
    }
    let mut rows_of = |t: TableId| core::mem::take(&mut distinct[t.index()]);
    let (lt, eq, shift, mul, dvrm) = (
        rows_of(TableId::Lt),
        rows_of(TableId::Eq),
        rows_of(TableId::Shift),
        rows_of(TableId::Mul),
        rows_of(TableId::Dvrm),
    );
    lookups.push(padding);
    Tables {
        traces,
        lt,
        eq,
        shift,
        mul,
        dvrm,
        table_rows: real_rows,
        lookups,
    }
}

impl Tables {
    /// Nothing built: with [`Lookups::Device`], the segment tables are all filled and
    /// their lookups counted from their traces elsewhere.
    fn none() -> Tables {
        Tables {
            traces: vec![None; TableId::COUNT],
            lt: Vec::new(),
            eq: Vec::new(),
            shift: Vec::new(),
            mul: Vec::new(),
            dvrm: Vec::new(),
            table_rows: vec![None; TableId::COUNT],
            lookups: Vec::new(),
        }
    }
}

/// The most chunks the steps are split into.
const MAX_CHUNKS: usize = 256;

/// A segment of `k` chunks is cut into `k / PIPELINE_CHUNKS` pieces (at most
/// [`PIPELINE_PIECES`]; one below 2 · PIPELINE_CHUNKS chunks) whose replay runs while the
/// steps of the piece before do: each piece keeps a chunk for every thread of a 16-core
/// host (with pieces of 8 chunks, half of them idle, the 2^21-step segments of a long run
/// packed 13 % slower on the H200 host).
const PIPELINE_CHUNKS: usize = 16;
const PIPELINE_PIECES: usize = 4;

// ---------------------------------------------------------------------------------------
// Stage 1: replay.

/// A segment's replay: the state carried from step to step, and what the segment records.
struct Run<'c, 'a> {
    st: &'c mut Carry<'a>,
    rec: Replayed,
    /// Whether the loads', stores' and word accesses' records are kept (else counted, for a
    /// device's memory walk: [`Lookups::Device`]).
    keep: bool,
}

/// What a segment's replay records.
struct Replayed {
    /// The register file at the start of each chunk.
    file_at: Vec<RegFile>,
    /// The system calls' register accesses (MEMW_R's rows after the CPU's).
    extra: Vec<RegRow>,
    /// Per system call, its rows of `extra`.
    extra_of: Vec<Range<usize>>,
    loads: Vec<LoadOp>,
    stores: Vec<StoreOp>,
    mem_a: Vec<WordAccess>,
    mem_s: Vec<(WordAccess, WordAccess)>,
    /// Every system call, in execution order.
    ecalls: Vec<EcallOp>,
    /// The CPU's view of each system call.
    calls: Vec<CallMark>,
    io: Vec<IoWord>,
    /// Without kept records: the accesses counted, and each word as the segment's first
    /// access to it found it (`mem_start`, unsorted).
    counts: MemCounts,
    starts: Vec<WordStart>,
}

impl<'c, 'a> Run<'c, 'a> {
    /// The replay of a segment of `n` steps in chunks of `len` from the state `st`, before
    /// its first step; `keep`: whether it keeps the memory records (see [`Run::keep`]).
    fn new(st: &'c mut Carry<'a>, n: usize, len: usize, keep: bool) -> Self {
        // Reserved for the worst case: untouched capacity costs no memory, and the records
        // are never copied by a regrowth.
        let room = if keep { n } else { 0 };
        Run {
            st,
            keep,
            rec: Replayed {
                file_at: Vec::with_capacity(n.div_ceil(len)),
                extra: Vec::new(),
                extra_of: Vec::new(),
                loads: Vec::with_capacity(room),
                stores: Vec::with_capacity(room),
                mem_a: Vec::with_capacity(room),
                mem_s: Vec::new(),
                ecalls: Vec::new(),
                calls: Vec::new(),
                io: Vec::new(),
                counts: MemCounts::default(),
                starts: Vec::new(),
            },
        }
    }

    /// Replays chunks `chunks` of the segment's `steps` (their DECODE rows `dec_row`;
    /// chunks of `len` steps from the segment's first clock `clk0`), which must follow the
    /// chunks replayed so far, stopping at step `upto` and at the first step that cannot be
    /// proven. The carried state's clock is the caller's to advance.
    #[allow(clippy::too_many_arguments)]
    fn chunks<S: Copy + Into<Step>>(
        &mut self,
        slots: &CodeSlots,
        steps: &[S],
        dec_row: &[u32],
        len: usize,
        clk0: u64,
        chunks: Range<usize>,
        upto: usize,
    ) -> Result<(), TraceError> {
        debug_assert_eq!(self.rec.file_at.len(), chunks.start);
        for c in chunks {
            let (start, end) = (c * len, ((c + 1) * len).min(upto));
            if start >= end {
                break;
            }
            self.rec.file_at.push(self.st.file.clone());
            for (k, (&step, &r)) in steps[start..end]
                .iter()
                .zip(&dec_row[start..end])
                .enumerate()
            {
                let clk = clk0 + (start + k) as u64;
                let s: Step = step.into();
                let d = slots.fields(r);
                let ts = 4 * clk;
                // The CPU's register accesses (the chunks record them).
                self.reg(d.rs1, s.rs1_val, ts + 1, false);
                self.reg(d.rs2, s.rs2_val, ts + 2, false);
                if d.class[class::LOAD] || d.class[class::STORE] {
                    self.load_store(s.pc, d, &s, clk)?;
                }
                if d.class[class::ECALL] {
                    let outpos = self.st.outpos;
                    let op = self.ecall(s.pc, &s, clk, outpos)?;
                    let outn = ecall::outn(&op);
                    let exit = ecall::is_exit(&op);
                    self.rec.calls.push(CallMark {
                        clk,
                        outpos,
                        outn,
                        exit,
                    });
                    self.st.outpos += outn;
                    if exit {
                        self.st.exit_code = Some(s.rs2_val);
                    }
                }
                self.reg(d.rd, cpu::written(&s, d), ts + 3, true);
            }
        }
        Ok(())
    }
}

/// Records per part when [`Replayed::prefault`] touches reserved records.
const PREFAULT_PART: usize = 1 << 14;

/// Writes the first `k` records of `v`'s reserved capacity (not its length) on the pool.
fn prefault<T: Copy + Default + Send>(par: &impl ParMap, v: &mut Vec<T>, k: usize) {
    let spare = v.spare_capacity_mut();
    let k = k.min(spare.len());
    let mut parts: Vec<&mut [MaybeUninit<T>]> = spare[..k].chunks_mut(PREFAULT_PART).collect();
    par.map_mut(&mut parts, |_, part| {
        part.fill(MaybeUninit::new(T::default()))
    });
}

impl Replayed {
    /// Touches the reserved records that a segment of `loads` loads and `stores` stores
    /// will push, on the pool: the first touch of fresh memory is a page fault, and in the
    /// sequential replay those were about a quarter of its time (`perf`, bignum).
    fn prefault(&mut self, par: &impl ParMap, loads: usize, stores: usize) {
        prefault(par, &mut self.loads, loads);
        prefault(par, &mut self.stores, stores);
        prefault(par, &mut self.mem_a, loads + stores);
    }

    /// What the steps of chunks `chunks` read of the replay so far (which has passed them).
    fn view(&self, chunks: Range<usize>) -> ReplayView {
        ReplayView {
            c0: chunks.start,
            file_at: self.file_at[chunks].to_vec(),
            ecalls: self.ecalls.clone(),
            extra_of: self.extra_of.clone(),
            extra: self.extra.clone(),
        }
    }
}

/// A copy of what the steps of some chunks read of the replay ([`Replayed::view`]), so that
/// the replay can go on with the next chunks while they run.
struct ReplayView {
    /// The first chunk, and the register file at the start of each chunk from it.
    c0: usize,
    file_at: Vec<RegFile>,
    /// The system calls so far, their rows of `extra`, and `extra`.
    ecalls: Vec<EcallOp>,
    extra_of: Vec<Range<usize>>,
    extra: Vec<RegRow>,
}

/// The DECODE rows of steps `start .. start + rows.len()` (`steps`, the chunk's own) into
/// `rows` and how many of them load and store, up to the first step that has none: its
/// index and error.
fn decode_chunk<S: Copy + Into<Step>>(
    start: usize,
    rows: &mut [u32],
    steps: &[S],
    slots: &CodeSlots,
) -> Result<(usize, usize), (usize, TraceError)> {
    let nothing = core::iter::repeat(());
    decode_steps(start, rows, nothing, steps, slots, |_, _, _, _, ()| {})
}

/// [`decode_chunk`] (`steps` the chunk's, its first being step `start` of the segment),
/// handing each step that has a DECODE row to `each` as it goes (its index in the segment,
/// the step, its row and fields, and the next item of `with`), so that a caller's work on
/// the steps reads them once. `with` has an item per step (or the decode stops at its end).
#[inline(always)]
fn decode_steps<S, T, F>(
    start: usize,
    rows: &mut [u32],
    with: impl Iterator<Item = T>,
    steps: &[S],
    slots: &CodeSlots,
    mut each: F,
) -> Result<(usize, usize), (usize, TraceError)>
where
    S: Copy + Into<Step>,
    F: FnMut(usize, &Step, u32, &Decoded, T),
{
    let (mut loads, mut stores) = (0, 0);
    for (k, ((row, &step), t)) in (start..).zip(rows.iter_mut().zip(steps).zip(with)) {
        let s: Step = step.into();
        *row = slots.row(s.pc).map_err(|e| {
            let e = match e {
                NoRow::NotInProgram => TraceError::NotInProgram { pc: s.pc },
                NoRow::Unsupported => TraceError::Unsupported {
                    pc: s.pc,
                    word: s.word,
                },
            };
            (k, e)
        })?;
        let d = slots.fields(*row);
        loads += d.class[class::LOAD] as usize;
        stores += d.class[class::STORE] as usize;
        each(k, &s, *row, d, t);
    }
    Ok((loads, stores))
}

/// What a chunk's decode gives with a parallel replay ([`decode_scan_step`]): its loads and
/// stores, its scan, and its steps' [`Chunk`] with the index of the step of its first
/// operation that no table takes.
type Scanned = ((usize, usize), replay_par::Scan, (Chunk, Option<usize>));

/// With a parallel replay (device lookups), [`decode_chunk`] of the chunk of steps `start ..`
/// (`steps` the chunk's) and, in the same pass over its steps (each read and decoded once),
/// its scan ([`replay_par::Scanner`]) and its steps stage, which needs nothing replayed: each
/// step's result into `res`, no DECODE multiplicities (the device's to count), and the
/// first ALU operation that no table takes (`unrouted`: per code slot, whether its
/// instruction's is one) with its step's index in the segment (the system calls' ALU
/// operations are left to the caller). On a step without a DECODE row, its index and error
/// (the rest is dropped, as the chunk is not replayed).
fn decode_scan_step<S: Copy + Into<Step>>(
    start: usize,
    rows: &mut [u32],
    res: &mut [u64],
    steps: &[S],
    slots: &CodeSlots,
    unrouted: &[bool],
    clk0: u64,
) -> Result<Scanned, (usize, TraceError)> {
    let mut scan = replay_par::Scanner::new(clk0, rows.len());
    let mut first = None;
    let counts = decode_steps(
        start,
        rows,
        res.iter_mut(),
        steps,
        slots,
        |k, s, r, d, res| {
            let (_, v) = cpu::b_and_result(d, s);
            *res = v;
            // What the step writes to rd: its result where it writes (as `cpu::written`, which
            // takes a writing row's result from the step just as `b_and_result` does).
            let written = if d.wr { v } else { 0 };
            debug_assert_eq!(written, cpu::written(s, d));
            scan.step(k, s, d, written);
            // Whether a table takes the step's ALU operation depends only on its code slot.
            if unrouted[r as usize] && first.is_none() {
                first = Some((k, d.alu_op));
            }
        },
    )?;
    // DECODE's multiplicities are the device's to count; the ALU operations are only
    // checked for a table that takes them.
    let chunk = Chunk {
        mult: Vec::new(),
        ops: vec![Vec::new(); TableId::COUNT],
        rows: vec![Vec::new(); TableId::COUNT],
        no_table: first.map(|(_, op)| op),
        bytes: None,
    };
    Ok((counts, scan.finish(), (chunk, first.map(|(k, _)| k))))
}

/// Steps per chunk of a segment of `n` steps: `par`'s chunk length, but at most
/// [`MAX_CHUNKS`] chunks (each has its own byte lookup counter).
fn chunk_len(par: &impl ParMap, n: usize) -> usize {
    par.chunk_len().max(n.div_ceil(MAX_CHUNKS)).clamp(1, n)
}

/// What fixes a segment's decode: its steps, their chunks, its first clock, and whether the
/// replay is parallel (the decode then also scans and steps each chunk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DecodeShape {
    n: usize,
    len: usize,
    clk0: u64,
    parallel: bool,
}

/// What a chunk's decode gives: its loads and stores and, with a parallel replay, its scan
/// and stepped [`Chunk`]; or its first step without a DECODE row (index and error).
type ChunkDecode = Result<
    (
        (usize, usize),
        Option<(replay_par::Scan, (Chunk, Option<usize>))>,
    ),
    (usize, TraceError),
>;

/// Stage 0 of the packing pass on one chunk (`steps` the chunk's, the first being step
/// `start` of the segment): its DECODE rows into `rows` and, with a parallel replay, its
/// scan and steps (results into `res`) in the same pass.
fn decode_one<S: Copy + Into<Step>>(
    shape: DecodeShape,
    start: usize,
    rows: &mut [u32],
    res: &mut [u64],
    steps: &[S],
    slots: &CodeSlots,
    unrouted: &[bool],
) -> ChunkDecode {
    if !shape.parallel {
        return decode_chunk(start, rows, steps, slots).map(|c| (c, None));
    }
    decode_scan_step(start, rows, res, steps, slots, unrouted, shape.clk0)
        .map(|(counts, scan, stepped)| (counts, Some((scan, stepped))))
}

/// The packing pass's first stage, its decode (each step's DECODE row and, with device
/// lookups, each chunk's scan and steps, which need nothing replayed), run ahead of the
/// pass one chunk at a time as the steps come: e.g. on the pool's threads while the run is
/// still being recorded, so that the pass ([`pack_traces_predecoded`],
/// [`Segmenter::pack_segment_predecoded`]) starts at the replay. Made for one segment: its
/// number of steps, first clock and lookups, and the pool's chunk length; the chunks are
/// independent and may be decoded in any order, on any thread.
pub struct Predecoder {
    slots: CodeSlots,
    unrouted: Vec<bool>,
    shape: DecodeShape,
}

/// A segment's decode from a [`Predecoder`], chunk by chunk ([`Predecoded::chunks`]).
pub struct Predecoded {
    shape: DecodeShape,
    dec_row: Vec<u32>,
    res: Vec<u64>,
    chunks: Vec<Option<ChunkDecode>>,
}

/// One chunk's place in a [`Predecoded`], which [`Predecoder::decode`] fills.
pub struct PredecodeChunk<'p> {
    start: usize,
    rows: &'p mut [u32],
    res: &'p mut [u64],
    out: &'p mut Option<ChunkDecode>,
}

impl PredecodeChunk<'_> {
    /// The chunk's steps: `range().len()` from step `range().start` of the segment.
    pub fn range(&self) -> Range<usize> {
        self.start..self.start + self.rows.len()
    }
}

impl Predecoder {
    /// The decoder of a segment of `n` steps from clock `clk0` of `program` on `machine`
    /// (the same the pass packs), packed with `lookups`, in `par`'s chunks.
    pub fn new(
        machine: &Rv64Machine,
        program: &ProgramImage,
        lookups: Lookups,
        n: usize,
        clk0: u64,
        par: &impl ParMap,
    ) -> Predecoder {
        let slots = CodeSlots::new(program);
        let unrouted = AluRoutes::new(machine).unrouted(&slots);
        Predecoder {
            slots,
            unrouted,
            shape: DecodeShape {
                n,
                len: chunk_len(par, n),
                clk0,
                // A segmenter replays in parallel with device lookups unless told otherwise
                // (a predecode for a sequential one is set aside).
                parallel: lookups == Lookups::Device,
            },
        }
    }

    /// Where each chunk's decode goes.
    pub fn output(&self) -> Predecoded {
        let DecodeShape { n, len, .. } = self.shape;
        Predecoded {
            shape: self.shape,
            dec_row: vec![0; n],
            res: vec![0; n],
            chunks: (0..n.div_ceil(len)).map(|_| None).collect(),
        }
    }

    /// Decodes one chunk: `steps` are its steps ([`PredecodeChunk::range`] of the
    /// segment's). Steps of another count leave the chunk undecoded (and the pass then
    /// decodes the whole segment itself).
    pub fn decode<S: Copy + Into<Step>>(&self, steps: &[S], chunk: PredecodeChunk<'_>) {
        if steps.len() != chunk.rows.len() {
            return;
        }
        *chunk.out = Some(decode_one(
            self.shape,
            chunk.start,
            chunk.rows,
            chunk.res,
            steps,
            &self.slots,
            &self.unrouted,
        ));
    }
}

impl Predecoded {
    /// Every chunk's place, in order.
    pub fn chunks(&mut self) -> Vec<PredecodeChunk<'_>> {
        let len = self.shape.len;
        self.dec_row
            .chunks_mut(len)
            .zip(self.res.chunks_mut(len))
            .zip(self.chunks.iter_mut())
            .enumerate()
            .map(|(c, ((rows, res), out))| PredecodeChunk {
                start: c * len,
                rows,
                res,
                out,
            })
            .collect()
    }

    /// The decode, if it was made for `shape` and every chunk is decoded.
    #[allow(clippy::type_complexity)]
    fn take(self, shape: DecodeShape) -> Option<(Vec<u32>, Vec<u64>, Vec<ChunkDecode>)> {
        if self.shape != shape {
            return None;
        }
        let chunks: Option<Vec<ChunkDecode>> = self.chunks.into_iter().collect();
        Some((self.dec_row, self.res, chunks?))
    }
}

/// Touched memory words' `(value, last timestamp)` by word index, in pages of
/// `2^PAGE_BITS` words allocated on first touch. Timestamp 0 marks an untouched word: every
/// access has a memory timestamp ≥ 1. The timestamp's top bit holds the word's read-only
/// flag ([`RO_BIT`]; timestamps stay far below 2^63).
#[derive(Clone, Default)]
struct Words {
    pages: Vec<Option<Page>>,
}

/// One page of [`Words`]: `(value, last timestamp)` per word.
type Page = Box<[(u64, u64)]>;

const PAGE_BITS: u32 = 12;

/// The read-only flag in a [`Words`] timestamp.
const RO_BIT: u64 = 1 << 63;

impl Words {
    fn get(&self, w: u32) -> Option<(u64, u64)> {
        let page = self.pages.get((w >> PAGE_BITS) as usize)?.as_ref()?;
        let e = page[(w & ((1 << PAGE_BITS) - 1)) as usize];
        (e.1 != 0).then_some(e)
    }

    fn insert(&mut self, w: u32, e: (u64, u64)) {
        debug_assert!(e.1 != 0, "a memory access at timestamp 0");
        let p = (w >> PAGE_BITS) as usize;
        if self.pages.len() <= p {
            self.pages.resize_with(p + 1, || None);
        }
        let page = self.pages[p].get_or_insert_with(|| vec![(0, 0); 1 << PAGE_BITS].into());
        page[(w & ((1 << PAGE_BITS) - 1)) as usize] = e;
    }

    /// Every touched word, by increasing index.
    fn iter(&self) -> impl Iterator<Item = (u32, (u64, u64))> + '_ {
        self.pages.iter().enumerate().flat_map(|(p, page)| {
            page.iter().flat_map(move |page| {
                page.iter()
                    .enumerate()
                    .filter(|(_, e)| e.1 != 0)
                    .map(move |(k, &e)| (((p << PAGE_BITS) + k) as u32, e))
            })
        })
    }
}

/// A word as the replay found it: value, last timestamp, read-only flag.
#[derive(Copy, Clone)]
struct Found {
    value: u64,
    ts: u64,
    ro: bool,
}

/// Memory as the memory argument sees it: the memory map, and each touched word's value
/// and last timestamp.
#[derive(Clone)]
struct MemReplay {
    image: page::MemoryImage,
    words: Words,
}

impl MemReplay {
    /// Image word `w`'s initial value and read-only flag.
    fn image_word(&self, w: u32) -> Option<(u64, bool)> {
        let i = self.image.words.binary_search_by_key(&w, |e| e.0).ok()?;
        let (_, v, ro) = self.image.words[i];
        Some((v, ro))
    }

    /// Word `w` (its initial token if untouched); an error if the memory map has no such
    /// word.
    fn read(&self, pc: u32, w: u32) -> Result<Found, TraceError> {
        if let Some((value, t)) = self.words.get(w) {
            return Ok(Found {
                value,
                ts: t & !RO_BIT,
                ro: t & RO_BIT != 0,
            });
        }
        let (value, ro) = match self.image_word(w) {
            Some(e) => e,
            None => match self.image.zero_range(w) {
                Some(z) => (0, z.ro),
                None => {
                    return Err(TraceError::Unmapped {
                        pc,
                        addr: 8 * w as u64,
                    })
                }
            },
        };
        Ok(Found { value, ts: 0, ro })
    }

    /// Records the access (a write if `wr`) that found `old` (from [`MemReplay::read`]) and
    /// left `new` at `ts`; an error for a write to a read-only word.
    fn write(
        &mut self,
        pc: u32,
        w: u32,
        old: Found,
        new: u64,
        ts: u64,
        wr: bool,
    ) -> Result<WordAccess, TraceError> {
        if wr && old.ro {
            return Err(TraceError::ReadOnly {
                pc,
                addr: 8 * w as u64,
            });
        }
        self.words
            .insert(w, (new, ts | if old.ro { RO_BIT } else { 0 }));
        Ok(WordAccess {
            w,
            old: old.value,
            new,
            old_ts: old.ts,
            ts,
            ro: old.ro,
            wr,
        })
    }
}

impl Run<'_, '_> {
    /// A register access on the file: its row (the value and timestamp it found).
    fn reg(&mut self, reg: u8, value: u64, ts: u64, is_write: bool) -> RegRow {
        let access = RegAccess {
            reg,
            value,
            ts,
            is_write,
        };
        let (old, old_ts) = self.st.file.access(&access);
        RegRow {
            access,
            old,
            old_ts,
        }
    }

    fn extra_reg(&mut self, reg: u32, value: u64, ts: u64, is_write: bool) -> u64 {
        let r = self.reg(reg as u8, value, ts, is_write);
        self.rec.extra.push(r);
        r.old
    }

    fn load_store(&mut self, pc: u32, d: &Decoded, s: &Step, clk: u64) -> Result<(), TraceError> {
        let addr = s.mem_addr;
        let unmapped = TraceError::Unmapped { pc, addr };
        let addr32 = u32::try_from(addr).map_err(|_| unmapped.clone())?;
        let ts = clk + 1;
        let w = addr32 / 8;
        let load = d.class[class::LOAD];
        let funct3 = load::funct3_of(d.alu_op, load);
        let split = load::is_split(funct3, addr32);
        if split && w + 1 >= 1 << 29 {
            return Err(unmapped);
        }
        let old0 = self.st.mem.read(pc, w)?;
        let old1 = if split {
            self.st.mem.read(pc, w + 1)?
        } else {
            Found {
                value: 0,
                ts: 0,
                ro: false,
            }
        };
        // The bytes the access reads or overwrites must be those the executor recorded.
        if load::accessed_bytes(funct3, addr32, old0.value, old1.value) != s.mem_val {
            return Err(TraceError::MemoryMismatch { pc, addr });
        }
        let (new0, new1) = if load {
            let (op, new) = load::record(ts, funct3, addr32, old0.value, old1.value);
            self.rec.counts.loads += 1;
            if self.keep {
                self.rec.loads.push(op);
            }
            new
        } else {
            let (op, new) = store::record(ts, funct3, addr32, s.rs2_val, old0.value, old1.value);
            self.rec.counts.stores += 1;
            if self.keep {
                self.rec.stores.push(op);
            }
            new
        };
        let a0 = self.st.mem.write(pc, w, old0, new0, ts, !load)?;
        let a1 = if split {
            Some(self.st.mem.write(pc, w + 1, old1, new1, ts, !load)?)
        } else {
            None
        };
        self.route(a0, a1);
        Ok(())
    }

    fn route(&mut self, a0: WordAccess, a1: Option<WordAccess>) {
        self.touched(&a0);
        if let Some(a1) = &a1 {
            self.touched(a1);
        }
        match a1 {
            Some(a1) => {
                self.rec.counts.mem_s += 1;
                if self.keep {
                    self.rec.mem_s.push((a0, a1));
                }
            }
            None => {
                self.rec.counts.mem_a += 1;
                if self.keep {
                    self.rec.mem_a.push(a0);
                }
            }
        }
    }

    /// Without kept records, notes the word as access `a` found it if it is the segment's
    /// first access to it (one from before the segment's first clock): `mem_start` from
    /// the records otherwise.
    fn touched(&mut self, a: &WordAccess) {
        if !self.keep && a.old_ts <= self.st.clk {
            self.rec.starts.push(WordStart {
                w: a.w,
                value: a.old,
                ts: a.old_ts,
                ro: a.ro,
            });
        }
    }

    /// The IO rows of one chain over bytes `from .. from + cnt` at memory time `ts`, one per
    /// word: input bytes come from the private input, output bytes go to the public output,
    /// zeroed bytes become 0.
    fn io_chain(
        &mut self,
        pc: u32,
        kind: u32,
        from: u32,
        cnt: u32,
        ts: u64,
        mut pos: u64,
    ) -> Result<(), TraceError> {
        for (w, lo, c) in io::words_of(from, cnt) {
            let old = self.st.mem.read(pc, w)?;
            let rest = self.st.input.get(self.st.input_pos..).unwrap_or(&[]);
            let (new, taken) = io::transfer(kind, old.value, lo, c, rest, &mut self.st.output)
                .ok_or(TraceError::InputExhausted { pc })?;
            self.st.input_pos += taken;
            let a = self.st.mem.write(pc, w, old, new, ts, io::writes(kind))?;
            self.rec.io.push(io::record(kind, pos, lo, c, &a));
            self.touched(&a);
            self.rec.counts.mem_a += 1;
            self.rec.mem_a.push(a);
            pos += c as u64;
        }
        Ok(())
    }

    /// A system call's register accesses, transfer and ECALL record (its ALU operations are
    /// the chunks').
    fn ecall(&mut self, pc: u32, s: &Step, clk: u64, outpos: u64) -> Result<EcallOp, TraceError> {
        let (a7, a0) = (s.rs1_val, s.rs2_val);
        let mut op = ecall::record(clk, a7, a0, s.mem_addr, s.mem_val, s.rd_val, outpos).ok_or(
            TraceError::UnsupportedCall {
                pc,
                number: a7,
                arg: a0,
            },
        )?;
        let first_extra = self.rec.extra.len();
        ecall::reg_accesses(&mut op, |reg, value, ts, is_write| {
            self.extra_reg(reg, value, ts, is_write)
        });
        if let Some((IO_IN, ..)) = ecall::transfer(&op) {
            debug_assert_eq!(
                op.remaining,
                (self.st.input.len() - self.st.input_pos) as u64
            );
        }
        self.rec.extra_of.push(first_extra..self.rec.extra.len());
        if let Some((kind, buf, cnt)) = ecall::transfer(&op) {
            self.io_chain(pc, kind, buf, cnt, clk + 1, outpos)?;
        }
        if let Some((from, cnt)) = ecall::zero_range(&op) {
            // A break shrink: the released bytes become zero.
            self.io_chain(pc, IO_ZERO, from, cnt, clk + 1, 0)?;
        }
        self.rec.ecalls.push(op);
        Ok(op)
    }
}

// ---------------------------------------------------------------------------------------
// Stage 2: steps, by chunks.

/// One chunk's part of the CPU and MEMW_R columns ([`CpuRecords`], [`MemwRRecords`]).
struct Cols<'a> {
    rs1: &'a mut [u64],
    rs2: &'a mut [u64],
    res: &'a mut [u64],
    meta: &'a mut [u64],
    old: &'a mut [u64],
    new: &'a mut [u64],
}

impl Cols<'_> {
    /// The chunk's CPU register access `i` (`3·k + j` for its step `k`): runs it on `file`,
    /// records its MEMW_R columns and its lookups (if counted here).
    fn access(
        &mut self,
        i: usize,
        a: &RegAccess,
        file: &mut RegFile,
        bytes: &mut Option<ByteCounts>,
    ) {
        let (old, old_ts) = file.access(a);
        self.meta[i] = a.reg as u64 | old_ts << 8;
        self.old[i] = old;
        if let Some(bytes) = bytes {
            memw_r::ts_lookups(a.ts, old_ts, bytes);
        }
    }
}

/// `v` in `n` chunks of `len` (the last shorter), or `n` empty slices if `v` is empty (a
/// column the pass leaves empty).
fn parts(v: &mut [u64], len: usize, n: usize) -> Vec<&mut [u64]> {
    if v.is_empty() {
        return (0..n).map(|_| <&mut [u64]>::default()).collect();
    }
    v.chunks_mut(len).collect()
}

/// What a chunk of steps yields besides its CPU columns.
struct Chunk {
    /// Executions per code slot (DECODE's multiplicities).
    mult: Vec<u64>,
    /// Per table ([`TableId::index`]), its ALU operations in step order while the chunk
    /// runs (empty once it has merged them into `rows`)…
    ops: Vec<Vec<AluOp>>,
    /// …and then their distinct rows (every ALU table: LT, EQ, SHIFT, MUL, DVRM).
    rows: Vec<Vec<Distinct>>,
    /// The first operation that no table accepts.
    no_table: Option<u32>,
    /// The chunk's byte lookups, with [`Lookups::Host`]; only then are its ALU operations
    /// kept (their distinct rows' lookups are counted here), else only checked for a table
    /// that accepts them.
    bytes: Option<ByteCounts>,
}

/// Operation codes are small: which ALU table accepts each.
const OP_CODES: usize = 32;

/// Where ALU operations go.
#[derive(Clone)]
struct AluRoutes {
    /// The ALU table accepting each operation code (the first that does).
    owner: [Option<TableId>; OP_CODES],
}

impl AluRoutes {
    fn new(machine: &Rv64Machine) -> AluRoutes {
        AluRoutes {
            owner: core::array::from_fn(|op| {
                TableId::ALU
                    .into_iter()
                    .find(|&t| machine.accepts(t, op as u32))
            }),
        }
    }

    /// The ALU table that takes operation `op`, if one does.
    fn table_of(&self, op: u32) -> Option<TableId> {
        self.owner.get(op as usize).copied().flatten()
    }

    /// Per code slot of `slots`, whether its instruction looks up an ALU operation that no
    /// table takes: the operation's code is the slot's, whatever the step's values
    /// ([`cpu::alu_op`]).
    fn unrouted(&self, slots: &CodeSlots) -> Vec<bool> {
        (0..slots.len() as u32)
            .map(|r| {
                cpu::alu_op(slots.fields(r), 0, 0, 0).is_some_and(|o| self.table_of(o.op).is_none())
            })
            .collect()
    }
}

impl Chunk {
    fn push_alu(&mut self, routes: &AluRoutes, o: AluOp) {
        match routes.table_of(o.op) {
            Some(t) if self.bytes.is_some() => self.ops[t.index()].push(o),
            Some(_) => {}
            None => {
                self.no_table.get_or_insert(o.op);
            }
        }
    }
}

/// What every chunk reads.
struct ChunkInputs<'a, S> {
    /// Steps per chunk.
    len: usize,
    /// The segment's first clock.
    clk0: u64,
    steps: &'a [S],
    /// Every step's DECODE row.
    dec_row: &'a [u32],
    slots: &'a CodeSlots,
    routes: &'a AluRoutes,
    run: &'a ReplayView,
    lookups: Lookups,
}

/// Chunk `c`: its steps' CPU and MEMW_R columns into `cols`, and the rest.
fn step_chunk<S: Copy + Into<Step>>(
    c: usize,
    cols: &mut Cols<'_>,
    inputs: &ChunkInputs<'_, S>,
) -> Chunk {
    let &ChunkInputs {
        len,
        clk0,
        steps,
        dec_row,
        slots,
        routes,
        run,
        lookups,
    } = inputs;
    let start = c * len;
    let steps = &steps[start..start + cols.res.len()];
    // Only with host lookups are the operands and register accesses recorded here.
    let full = lookups == Lookups::Host;
    let mut out = Chunk {
        mult: vec![0; slots.len()],
        ops: vec![Vec::new(); TableId::COUNT],
        rows: vec![Vec::new(); TableId::COUNT],
        no_table: None,
        bytes: (lookups == Lookups::Host).then(ByteCounts::default),
    };
    let mut file = match full {
        true => run.file_at[c - run.c0].clone(),
        false => RegFile::default(),
    };
    let first_call = run.ecalls.partition_point(|e| e.clk < clk0 + start as u64);
    let mut calls = run.ecalls[first_call..]
        .iter()
        .zip(&run.extra_of[first_call..]);
    for (k, (&step, &r)) in steps.iter().zip(&dec_row[start..]).enumerate() {
        let clk = clk0 + (start + k) as u64;
        let s: Step = step.into();
        let d = slots.fields(r);
        out.mult[r as usize] += 1;
        let (b, sum, res) = cpu::values(d, &s);
        cols.res[k] = res;
        // The register accesses: rs1, rs2, the system call's own, rd (recorded only with
        // host lookups; the device's register walk makes them otherwise).
        let ts = 4 * clk;
        if full {
            cols.rs1[k] = s.rs1_val;
            cols.rs2[k] = s.rs2_val;
            let read = |j: u64, reg: u8, value: u64| RegAccess {
                reg,
                value,
                ts: ts + j,
                is_write: false,
            };
            cols.access(3 * k, &read(1, d.rs1, s.rs1_val), &mut file, &mut out.bytes);
            cols.access(
                3 * k + 1,
                &read(2, d.rs2, s.rs2_val),
                &mut file,
                &mut out.bytes,
            );
        }
        if d.class[class::ECALL] {
            if let Some((op, rows)) = calls.next() {
                debug_assert_eq!(op.clk, clk);
                if full {
                    for row in &run.extra[rows.clone()] {
                        file.access(&row.access);
                    }
                }
                for o in ecall::alu_lookups(op) {
                    out.push_alu(routes, o);
                }
            }
        }
        if full {
            let written = if d.wr { res } else { 0 };
            debug_assert_eq!(written, cpu::written(&s, d));
            let write = RegAccess {
                reg: d.rd,
                value: written,
                ts: ts + 3,
                is_write: true,
            };
            cols.access(3 * k + 2, &write, &mut file, &mut out.bytes);
            cols.new[k] = written;
        }
        let op = match &mut out.bytes {
            Some(bytes) => cpu::step_lookups(d, s.rs1_val, b, res, sum, bytes),
            None => cpu::alu_op(d, s.rs1_val, b, res),
        };
        if let Some(o) = op {
            out.push_alu(routes, o);
        }
    }
    for t in TableId::ALU {
        if let Some(d) = distinct_rows(t) {
            out.rows[t.index()] = (d.distinct)(&core::mem::take(&mut out.ops[t.index()]));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Stage 3: tables.

/// A job of the last stage: a table and, for a table of distinct rows (LT, EQ, SHIFT,
/// MUL, DVRM), the part of them it merges (those with keys in the part's range of the table's
/// [`part_bounds`]; 0 for the other tables).
type Job = (TableId, usize);

/// Every job, in proof order, with `parts` parts of each table of distinct rows: the
/// [`SEGMENT_TABLES`](TableId::SEGMENT_TABLES) but the CPU (the chunks make its records
/// and lookups).
fn table_jobs(parts: usize) -> Vec<Job> {
    let mut jobs = Vec::new();
    for t in TableId::SEGMENT_TABLES {
        let n = match (t, distinct_rows(t)) {
            (TableId::Cpu, _) => 0,
            (_, Some(_)) => parts,
            (_, None) => 1,
        };
        jobs.extend((0..n).map(|p| (t, p)));
    }
    jobs
}

/// The most parts LT's, EQ's, SHIFT's, MUL's and DVRM's distinct rows are merged in.
const MAX_DISTINCT_PARTS: usize = 16;

/// What a job builds.
enum Built {
    /// Only lookups (every segment table is a record table: its trace is filled from its
    /// records elsewhere).
    Nothing,
    /// Distinct rows (LT, EQ, SHIFT, MUL, DVRM).
    Rows(Vec<Distinct>),
}

/// What the table jobs read.
struct Records<'a> {
    run: &'a Replayed,
    /// The system calls' register accesses (MEMW_R's rows after the CPU's).
    extra: &'a [RegRow],
    chunks: &'a [Chunk],
    /// Per table ([`TableId::index`]), the [`part_bounds`] of its distinct rows (LT, EQ,
    /// SHIFT, MUL, DVRM).
    bounds: Vec<Vec<DistinctKey>>,
}

/// One table's trace, rows or nothing, recording its byte lookups in `bytes`.
fn build_table((t, part): Job, r: &Records<'_>, bytes: &mut ByteCounts) -> Built {
    let run = r.run;
    match t {
        // The chunks build the CPU's records and lookups; the run tables are built once
        // per run, by `Segmenter::finish`.
        // MEMW_R2's rows are MEMW_R's past its height: MEMW_R's job counts their lookups.
        TableId::Cpu
        | TableId::Decode
        | TableId::Register
        | TableId::Bitwise
        | TableId::Page
        | TableId::Page0
        | TableId::MemwR2 => Built::Nothing,
        TableId::MemwR => {
            // The system calls' register accesses (the CPU's are the chunks').
            for row in r.extra {
                memw_r::row_lookups(row, bytes);
            }
            Built::Nothing
        }
        TableId::Lt | TableId::Eq | TableId::Shift | TableId::Mul | TableId::Dvrm => {
            match distinct_rows(t) {
                Some(d) => {
                    let i = t.index();
                    let lists = r.chunks.iter().map(|c| &c.rows[i][..]);
                    let rows = merge_part(lists, &r.bounds[i], part);
                    (d.lookups)(&rows, rows.len(), bytes);
                    Built::Rows(rows)
                }
                None => Built::Nothing,
            }
        }
        TableId::Load => {
            load::lookups(&run.loads, bytes);
            Built::Nothing
        }
        TableId::Store => {
            store::lookups(&run.stores, bytes);
            Built::Nothing
        }
        TableId::MemwA => {
            memw::lookups_a(&run.mem_a, bytes);
            Built::Nothing
        }
        TableId::Memw => {
            memw::lookups_s(&run.mem_s, bytes);
            Built::Nothing
        }
        TableId::Ecall => {
            ecall::lookups(&run.ecalls, bytes);
            Built::Nothing
        }
        TableId::Io => {
            io::lookups(&run.io, bytes);
            Built::Nothing
        }
    }
}

/// Every table's trace (in [`Machine::tables`](crate::air::Machine::tables) order) and the public values: the packed
/// records of [`pack_traces`] with the [`RECORD_TABLES`](super::machine::RECORD_TABLES) filled on the host (the same fills
/// the device kernels make). `steps` are [`Step`]s or anything that converts to one (the
/// executor's records), read once each.
///
/// # Errors
/// [`TraceError`] when the execution cannot be proven.
pub fn build_traces<S: Copy + Into<Step> + Sync>(
    machine: &Rv64Machine,
    program: &ProgramImage,
    steps: &[S],
    input: &[u8],
) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
    pack_traces(machine, program, steps, input)?.into_host_traces(program)
}
