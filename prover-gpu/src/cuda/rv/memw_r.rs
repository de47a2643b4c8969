//! The MEMW_R fill (`kernels/rv/memw_r.cu`): MEMW_R's trace from its packed records
//! ([`MemwRRecords`]), uploaded whole ([`CudaBackend::fill_memw_r`]) or made on the device
//! by the register walk ([`RegWalk`], what a proof uses), which also gives the CPU fill its
//! register values.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::cpu::CpuRecords;
use kestrel_core::rv::decode::{class, DECODE_WORDS};
use kestrel_core::rv::memw_r::{self, MemwRRecords};
use kestrel_core::rv::NUM_REGS;
use rayon::prelude::*;

use super::records::{call_word, DECODE_TABLE};
use super::{check_height, limit};
use crate::cuda::backend::CudaBackend;
use crate::cuda::buffer::DeviceBuffer;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;
use crate::prover::ProverError;
use crate::step_results::SentResults;

/// Where one of MEMW_R's two tables sits among `total` accesses ([`memw_r::split`]): MEMW_R
/// (`second` false) holds the first `min(total, height)`, MEMW_R2 the rest. Returns its
/// first access and log2 height.
fn part(rec: &MemwRRecords, total: usize, second: bool) -> Result<(usize, u32), CudaError> {
    let first = total.min(rec.height);
    let log_h = check_height("fill MEMW_R", rec.height, first)?;
    if !second {
        return Ok((0, log_h));
    }
    let log_h2 = check_height("fill MEMW_R2", rec.height2, total - first)?;
    Ok((rec.height, log_h2))
}

/// Enqueues the MEMW_R and MEMW_R2 fills on `stream`.
pub(super) fn enqueue_memw_r(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &MemwRRecords,
) -> Result<[CudaTrace; 2], CudaError> {
    const OP: &str = "fill MEMW_R";
    let n = rec.meta.len();
    let x = rec.extra.len();
    let parts = [part(rec, n + x, false)?, part(rec, n + x, true)?];
    if rec.old.len() != n || n == 0 || n != 3 * rec.new.len() {
        return Err(limit(
            OP,
            format!(
                "{n} accesses, {} old values, {} written values (3 accesses per step)",
                rec.old.len(),
                rec.new.len()
            ),
        ));
    }
    if rec.extra.iter().any(|r| r.access.ts >> 63 != 0) {
        return Err(limit(OP, "a timestamp of 2^63 or more".into()));
    }
    // The CPU accesses' timestamps (below 4·(clk0 + steps)) stay in `meta`'s 56 bits of
    // `old_ts` and in the field.
    if rec
        .clk0
        .checked_add(rec.new.len() as u64)
        .is_none_or(|c| c >> 53 != 0)
    {
        return Err(limit(OP, format!("first clock {} too large", rec.clk0)));
    }
    // Layout: meta[n + x], old[n + x], new[n / 3], then the extra rows' new values and
    // timestamps (ts | is_write << 63).
    let (nm, ne) = (n + x, rec.new.len());
    let words = 2 * nm + ne + 2 * x;
    let packed = dev.upload_with(stream, words, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = if g < n {
                rec.meta[g]
            } else if g < nm {
                let r = &rec.extra[g - n];
                r.access.reg as u64 | r.old_ts << 8
            } else if g < nm + n {
                rec.old[g - nm]
            } else if g < 2 * nm {
                rec.extra[g - nm - n].old
            } else if g < 2 * nm + ne {
                rec.new[g - 2 * nm]
            } else if g < 2 * nm + ne + x {
                let a = &rec.extra[g - 2 * nm - ne].access;
                if a.is_write {
                    a.value
                } else {
                    0
                }
            } else {
                let a = &rec.extra[g - 2 * nm - ne - x].access;
                a.ts | (a.is_write as u64) << 63
            };
        }
    })?;
    let p = |i: usize| packed.ptr_at(stream, i);
    let arrays = [p(0), p(nm), p(2 * nm), p(2 * nm + ne), p(2 * nm + ne + x)];
    let first = launch_memw_r(dev, stream, parts[0], arrays, n, x, rec.clk0)?;
    let second = launch_memw_r(dev, stream, parts[1], arrays, n, x, rec.clk0)?;
    drop(packed);
    Ok([first, second])
}

/// Allocates the trace of one of MEMW_R's tables (`part`: its first access and log2 height,
/// from [`part`]) and launches its fill on the arrays at `[meta, old, new, xnew, xts]`
/// (device addresses; `n` CPU accesses, `x` extra rows), then counts the fill.
fn launch_memw_r(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    (row0, log_h): (usize, u32),
    arrays: [u64; 5],
    n: usize,
    x: usize,
    clk0: u64,
) -> Result<CudaTrace, CudaError> {
    let h = 1u64 << log_h;
    let name = if row0 == 0 { "MEMW_R" } else { "MEMW_R2" };
    let out = dev.alloc::<u64>(stream, memw_r::WIDTH << log_h, "MEMW_R trace")?;
    let [meta, old, new, xnew, xts] = arrays;
    dev.injected_fill_launch_failure("ks_fill_memw_r")?;
    launch!(
        dev,
        stream,
        "ks_fill_memw_r",
        grid_for(h, 256),
        [
            &out.ptr(stream),
            &h,
            &(row0 as u64),
            &meta,
            &old,
            &new,
            &xnew,
            &xts,
            &(n as u64),
            &(x as u64),
            &clk0
        ]
    );
    dev.counters.fill(name);
    Ok(CudaTrace {
        cols: out,
        width: memw_r::WIDTH,
        log_height: log_h,
    })
}

/// Steps per chunk of the register walk (`RW_CHUNK` in `kernels/rv/memw_r.cu`).
const REGWALK_CHUNK: usize = 256;
/// Threads per register of the walk's carry scan (`RW_SCAN_THREADS`).
const REGWALK_SCAN_THREADS: u32 = 256;

/// Category of the register walk's uploads: per step its DECODE row (2 B, or 4 B for a
/// program of more than 2^16 code slots) and its result where the device cannot derive it
/// (none for JAL, JALR, STORE and BRANCH; 4 B when it is the sign or zero extension of its
/// low 32 bits, else 8 B, and 2 bits of class: [`crate::step_results`]), the system calls'
/// accesses and marks, the file at the first step.
pub const STEP_RECORDS: &str = "step records (register walk)";

/// The CPU's and MEMW_R's records derived on the device by the register walk
/// (`kernels/rv/memw_r.cu`) from what only the execution knows: each step's DECODE row, the
/// results the device cannot derive, the system calls (their register accesses, the CPU's
/// marks) and the register file before the first step. At most 10.25 bytes per step (6.25
/// when the result fits 32 bits) cross the bus instead of the 84 of the CPU's and MEMW_R's
/// packed records. Equal to the host's
/// records ([`CpuRecords`]'s `rs1`/`rs2`/`res`, [`MemwRRecords`]'s `meta`/`old`/`new`)
/// whenever the executor's register values are the replayed ones (every execution of the
/// executor).
pub(super) struct RegWalk {
    /// The DECODE rows (`rows` words), the chunks' first sent results and their first words
    /// (`chunks` each), the sent results' classes and words ([`crate::step_results`]), the
    /// CPU's calls (`3·nc`), then the extra accesses' `xreg[x]`, `xnew[x]`, `xts[x]`, then the
    /// file (values, timestamps).
    input: DeviceBuffer<u64>,
    /// `rs1[n]`, `rs2[n]`, `new[n]`, `meta[3n + x]`, `old[3n + x]`, `res[n]`, then the
    /// DECODE rows as u32 pairs.
    out: DeviceBuffer<u64>,
    /// The program's DECODE field table ([`decode::fields_of`]).
    pub(super) dec: DeviceBuffer<u64>,
    /// The program's code slots (DECODE's real rows).
    pub(super) code_slots: usize,
    n: usize,
    x: usize,
    /// Where the calls start in `input`.
    calls: usize,
    /// How many calls.
    nc: usize,
}

impl RegWalk {
    fn nm(&self) -> usize {
        3 * self.n + self.x
    }

    /// Device addresses of the CPU fill's arrays: `[dec_row, rs1, rs2, res, calls]`.
    pub(super) fn cpu_arrays(&self, s: &CudaStream) -> [u64; 5] {
        let (n, nm) = (self.n, self.nm());
        [
            self.out.ptr_at(s, 4 * n + 2 * nm),
            self.out.ptr(s),
            self.out.ptr_at(s, n),
            self.out.ptr_at(s, 3 * n + 2 * nm),
            self.input.ptr_at(s, self.calls),
        ]
    }

    /// The device address of the steps' DECODE rows (`u32` each) and how many steps.
    pub(super) fn dec_rows(&self, s: &CudaStream) -> (u64, usize) {
        (self.out.ptr_at(s, 4 * self.n + 2 * self.nm()), self.n)
    }

    /// Device addresses of the memory walk's per-step arrays: `[dec_row, rs1, rs2]`.
    pub(super) fn mem_arrays(&self, s: &CudaStream) -> [u64; 3] {
        let (n, nm) = (self.n, self.nm());
        [
            self.out.ptr_at(s, 4 * n + 2 * nm),
            self.out.ptr(s),
            self.out.ptr_at(s, n),
        ]
    }

    /// Device addresses of MEMW_R's fill's arrays: `[meta, old, new, xnew, xts]`.
    fn memw_arrays(&self, s: &CudaStream) -> [u64; 5] {
        let (n, x, nm) = (self.n, self.x, self.nm());
        let xs = self.calls + 3 * self.nc;
        [
            self.out.ptr_at(s, 3 * n),
            self.out.ptr_at(s, 3 * n + nm),
            self.out.ptr_at(s, 2 * n),
            self.input.ptr_at(s, xs + x),
            self.input.ptr_at(s, xs + 2 * x),
        ]
    }

    /// The walk's outputs downloaded (tests): `[rs1, rs2, new, meta, old, res]`.
    pub(super) fn download(
        &self,
        dev: &CudaDevice,
        s: &Arc<CudaStream>,
    ) -> Result<[Vec<u64>; 6], CudaError> {
        let (n, nm) = (self.n, self.nm());
        let all = dev.download(s, &self.out, 0, 4 * n + 2 * nm, "register walk (test)")?;
        let cut = [
            0,
            n,
            2 * n,
            3 * n,
            3 * n + nm,
            3 * n + 2 * nm,
            4 * n + 2 * nm,
        ];
        Ok(core::array::from_fn(|k| all[cut[k]..cut[k + 1]].to_vec()))
    }
}

/// Per DECODE row of `decode`, whether its steps send their results: not JAL, JALR, STORE
/// or BRANCH, whose results the device derives.
fn sends_results(decode: &[u64]) -> Vec<bool> {
    decode
        .chunks_exact(DECODE_WORDS)
        .map(|row| {
            [class::JAL, class::JALR, class::STORE, class::BRANCH]
                .iter()
                .all(|&c| row[1 + c] == 0)
        })
        .collect()
}

/// Checks the records the walk reads and enqueues it on `stream` (the uploads synchronise;
/// the kernels do not).
pub(super) fn enqueue_regwalk(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    cpu: &CpuRecords,
    rec: &MemwRRecords,
    decode: &[u64],
) -> Result<RegWalk, CudaError> {
    const OP: &str = "register walk";
    let mut at = std::time::Instant::now();
    let mut mark = |name: &'static str| {
        dev.counters.host_time(name, at);
        at = std::time::Instant::now();
    };
    let n = cpu.len();
    let x = rec.extra.len();
    // The walk reads the steps' DECODE rows, results and calls, and MEMW_R's extra accesses
    // and first register file (not the operands or accesses it makes itself, which a
    // device-lookups packing pass leaves empty).
    if n == 0 || cpu.res.len() != n || rec.clk0 != cpu.clk0 || rec.height < 3 * n + x {
        return Err(limit(
            OP,
            format!(
                "{n} steps with {} results, MEMW_R of height {} for {} accesses, first clocks {} and {}",
                cpu.res.len(),
                rec.height,
                3 * n + x,
                cpu.clk0,
                rec.clk0
            ),
        ));
    }
    if cpu.clk0.checked_add(n as u64).is_none_or(|c| c >> 53 != 0) {
        return Err(limit(OP, format!("first clock {} too large", cpu.clk0)));
    }
    let dec_rows = decode.len() / DECODE_WORDS;
    if !decode.len().is_multiple_of(DECODE_WORDS)
        || cpu.dec_row.par_iter().any(|&r| r as usize >= dec_rows)
    {
        return Err(limit(OP, format!("a DECODE row outside {dec_rows} rows")));
    }
    // Each extra access belongs to the step at its clock (ts / 4), in order.
    let clocks = cpu.clk0..cpu.clk0 + n as u64;
    if rec
        .extra
        .iter()
        .any(|r| r.access.ts >> 63 != 0 || !clocks.contains(&(r.access.ts / 4)))
        || rec
            .extra
            .windows(2)
            .any(|w| w[0].access.ts > w[1].access.ts)
    {
        return Err(limit(
            OP,
            "system call accesses out of order or outside the steps' clocks".into(),
        ));
    }
    mark("register walk: checks");
    let dec = dev.upload(stream, decode, DECODE_TABLE)?;
    // The results sent: per chunk of steps, those the device cannot derive, in order,
    // encoded (`encode_results`) straight into the upload.
    let sends = sends_results(decode);
    let sent = SentResults::new(&cpu.dec_row, &cpu.res, &sends, REGWALK_CHUNK);
    let chunks = sent.first.len();
    mark("register walk: results encoded");
    // DECODE rows as u16 when they fit (four per word), else u32 (two per word).
    let dec16 = dec_rows <= 1 << 16;
    let per_word = if dec16 { 4 } else { 2 };
    let rows = n.div_ceil(per_word);
    let nc = cpu.calls.len();
    let (nt, nw) = (sent.sent.div_ceil(32), sent.words.div_ceil(2));
    let (at_firstw, at_tags, at_words) = (rows + chunks, rows + 2 * chunks, rows + 2 * chunks + nt);
    let calls = at_words + nw;
    let xs = calls + 3 * nc;
    let words = xs + 3 * x + 2 * NUM_REGS;
    // The upload's regions, in order: each is written a range at a time.
    let bounds = [
        0,
        rows,
        at_firstw,
        at_tags,
        at_words,
        calls,
        xs,
        xs + 3 * x,
        words,
    ];
    let input = dev.upload_with(stream, words, STEP_RECORDS, |off, dst| {
        crate::par::for_regions(&bounds, off, dst, |region, at, out| match region {
            0 => {
                let bits = 64 / per_word;
                for (g, w) in (at..).zip(out.iter_mut()) {
                    let steps = cpu.dec_row.iter().skip(per_word * g).take(per_word);
                    *w = steps
                        .enumerate()
                        .fold(0, |acc, (k, &r)| acc | (r as u64) << (bits * k));
                }
            }
            1 => {
                for (o, &f) in out.iter_mut().zip(&sent.first[at..]) {
                    *o = f as u64;
                }
            }
            2 => {
                for (o, &f) in out.iter_mut().zip(&sent.first_word[at..]) {
                    *o = f as u64;
                }
            }
            3 => sent.write_tags(at, out),
            4 => sent.write_words(at, out),
            5 => {
                for (g, o) in (at..).zip(out.iter_mut()) {
                    *o = call_word(&cpu.calls, g);
                }
            }
            6 => {
                for (g, o) in (at..).zip(out.iter_mut()) {
                    let (k, e) = (g / x, g % x);
                    let a = &rec.extra[e].access;
                    *o = match k {
                        0 => a.reg as u64,
                        1 if a.is_write => a.value,
                        1 => 0,
                        _ => a.ts | (a.is_write as u64) << 63,
                    };
                }
            }
            _ => {
                for (r, o) in (at..).zip(out.iter_mut()) {
                    *o = if r < NUM_REGS {
                        rec.start.values[r]
                    } else {
                        rec.start.ts[r - NUM_REGS]
                    };
                }
            }
        });
    })?;
    mark("register walk: upload");
    let nm = 3 * n + x;
    let out = dev.alloc::<u64>(stream, 4 * n + 2 * nm + n.div_ceil(2), "register walk")?;
    let cells = chunks * NUM_REGS;
    let (sum_ts, sum_val) = (
        dev.alloc::<u64>(stream, cells, "register walk summaries")?,
        dev.alloc::<u64>(stream, cells, "register walk summaries")?,
    );
    let (in_val, in_ts) = (
        dev.alloc::<u64>(stream, cells, "register walk carries")?,
        dev.alloc::<u64>(stream, cells, "register walk carries")?,
    );
    let p = |i: usize| input.ptr_at(stream, i);
    let o = |i: usize| out.ptr_at(stream, i);
    let (xreg, xnew, xts) = (p(xs), p(xs + x), p(xs + 2 * x));
    let (rs1, rs2, res, dec_row) = (o(0), o(n), o(3 * n + 2 * nm), o(4 * n + 2 * nm));
    let (nn, xx, clk0, nch) = (n as u64, x as u64, cpu.clk0, chunks as u64);
    dev.injected_fill_launch_failure("ks_regwalk")?;
    launch!(
        dev,
        stream,
        "ks_regwalk_expand",
        grid_for(nch, 128),
        [
            &dec_row,
            &res,
            &p(0),
            &(dec16 as u64),
            &p(rows),
            &p(at_firstw),
            &p(at_tags),
            &p(at_words),
            &dec.ptr(stream),
            &nn
        ]
    );
    launch!(
        dev,
        stream,
        "ks_regwalk_summary",
        grid_for(nch, 128),
        [
            &sum_ts.ptr(stream),
            &sum_val.ptr(stream),
            &dec_row,
            &res,
            &dec.ptr(stream),
            &xreg,
            &xnew,
            &xts,
            &nn,
            &xx,
            &clk0
        ]
    );
    launch!(
        dev,
        stream,
        "ks_regwalk_scan",
        cudarc::driver::LaunchConfig {
            grid_dim: (NUM_REGS as u32, 1, 1),
            block_dim: (REGWALK_SCAN_THREADS, 1, 1),
            shared_mem_bytes: 0,
        },
        [
            &in_val.ptr(stream),
            &in_ts.ptr(stream),
            &sum_ts.ptr(stream),
            &sum_val.ptr(stream),
            &p(xs + 3 * x),
            &nch
        ]
    );
    launch!(
        dev,
        stream,
        "ks_regwalk",
        grid_for(nch, 128),
        [
            &o(3 * n),
            &o(3 * n + nm),
            &rs1,
            &rs2,
            &o(2 * n),
            &in_val.ptr(stream),
            &in_ts.ptr(stream),
            &dec_row,
            &res,
            &dec.ptr(stream),
            &xreg,
            &xnew,
            &xts,
            &nn,
            &xx,
            &clk0
        ]
    );
    launch!(
        dev,
        stream,
        "ks_regwalk_branches",
        grid_for(nn, 256),
        [&res, &dec_row, &rs1, &rs2, &dec.ptr(stream), &nn]
    );
    // Stream-ordered frees: released after the walk reads them.
    drop((sum_ts, sum_val, in_val, in_ts));
    mark("register walk: launches");
    Ok(RegWalk {
        input,
        out,
        dec,
        code_slots: dec_rows,
        n,
        x,
        calls,
        nc,
    })
}

/// MEMW_R's fill (MEMW_R2's with `second`) on the records the register walk made (enqueued
/// after it on `stream`).
pub(super) fn enqueue_memw_r_walked(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rec: &MemwRRecords,
    walk: &RegWalk,
    second: bool,
) -> Result<CudaTrace, CudaError> {
    launch_memw_r(
        dev,
        stream,
        part(rec, 3 * walk.n + walk.x, second)?,
        walk.memw_arrays(stream),
        3 * walk.n,
        walk.x,
        rec.clk0,
    )
}

impl CudaBackend {
    /// The register walk's records for `cpu` and `rec` (the CPU's and MEMW_R's records of
    /// one segment; `decode`: [`decode::fields_of`](kestrel_core::rv::decode::fields_of) of
    /// the program), downloaded: `[rs1, rs2, new, meta, old, res]`, each as the host's records
    /// hold it (`meta` and `old` over the CPU's accesses, then the extra ones). What a
    /// proof's CPU and MEMW_R fills read; for tests and diagnostics.
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn walk_registers(
        &self,
        cpu: &CpuRecords,
        rec: &MemwRRecords,
        decode: &[u64],
    ) -> Result<[Vec<u64>; 6], ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let walk = enqueue_regwalk(dev, &s, cpu, rec, decode)?;
        Ok(walk.download(dev, &s)?)
    }

    /// MEMW_R's and MEMW_R2's main traces in device memory from their packed records.
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn fill_memw_r(&self, rec: &MemwRRecords) -> Result<[CudaTrace; 2], ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_memw_r(dev, &s, rec)?;
        dev.sync(&s, "fill MEMW_R")?;
        Ok(t)
    }
}
