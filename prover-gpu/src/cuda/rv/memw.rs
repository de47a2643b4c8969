//! The MEMW_A fill (`kernels/rv/memw.cu`): MEMW_A's trace from its records, equal to
//! its room's host fill (the byte lookups stay on the host) (MEMW, the split accesses' table, is built on the host).
//! Its records, and LOAD's and STORE's, are uploaded whole ([`CudaBackend::fill_memw_a`]) or
//! made on the device by the memory walk ([`MemWalk`], what a proof uses).

use std::sync::Arc;

use cudarc::driver::{CudaStream, LaunchConfig};
use kestrel_core::rv::machine::RecordRefs;
use kestrel_core::rv::{memw, LoadOp, StoreOp, WordAccess, WordStart};
use rayon::prelude::*;

use super::limit;
use super::memw_r::RegWalk;
use super::records::{fill_from, fill_uploaded, MemTable};
use crate::cuda::backend::CudaBackend;
use crate::cuda::buffer::DeviceBuffer;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

pub(super) const MEMW_A: MemTable = MemTable {
    op: "fill MEMW_A",
    kernel: "ks_fill_memw_a",
    name: "MEMW_A",
    what: "MEMW_A trace",
    width: memw::MEMW_A.num_columns(),
};

pub(super) const MEMW_S: MemTable = MemTable {
    op: "fill MEMW",
    kernel: "ks_fill_memw_s",
    name: "MEMW",
    what: "MEMW trace",
    width: memw::MEMW.num_columns(),
};

/// Enqueues MEMW's fill on `stream` from its split accesses (`ks_fill_memw_s`'s arrays).
pub(super) fn enqueue_memw_s(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    pairs: &[(WordAccess, WordAccess)],
) -> Result<CudaTrace, CudaError> {
    if let Some((a0, a1)) = pairs
        .iter()
        .find(|(a0, a1)| a1.w != a0.w.wrapping_add(1) || a1.ts != a0.ts || a1.wr != a0.wr)
    {
        return Err(limit(
            "fill MEMW",
            format!(
                "a split access of words {} and {} at timestamps {} and {}",
                a0.w, a1.w, a0.ts, a1.ts
            ),
        ));
    }
    fill_uploaded(dev, stream, &MEMW_S, pairs.len(), 8, |r, k| {
        let (a0, a1) = &pairs[r];
        match k {
            0 => a0.w as u64 | (a0.ro as u64) << 32 | (a0.wr as u64) << 33 | (a1.ro as u64) << 34,
            1 => a0.old,
            2 => a1.old,
            3 => a0.new,
            4 => a1.new,
            5 => a0.old_ts,
            6 => a1.old_ts,
            _ => a0.ts,
        }
    })
}

/// Enqueues the MEMW_A fill on `stream`.
pub(super) fn enqueue_memw_a(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    accesses: &[WordAccess],
) -> Result<CudaTrace, CudaError> {
    fill_uploaded(dev, stream, &MEMW_A, accesses.len(), 5, |r, k| {
        let a = &accesses[r];
        match k {
            // The flags ride above the word index (w < 2^29): bit 32 ro, bit 33 wr.
            0 => a.w as u64 | (a.ro as u64) << 32 | (a.wr as u64) << 33,
            1 => a.old,
            2 => a.new,
            3 => a.old_ts,
            _ => a.ts,
        }
    })
}

impl CudaBackend {
    /// MEMW's main trace in device memory from its split accesses: equal to
    /// `memw::build_trace_s`.
    ///
    /// # Errors
    /// A pair that is not words `w`, `w + 1` at one timestamp, too many records, or any
    /// device failure.
    pub fn fill_memw_s(
        &self,
        pairs: &[(WordAccess, WordAccess)],
    ) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_memw_s(dev, &s, pairs)?;
        dev.sync(&s, "fill MEMW")?;
        Ok(t)
    }

    /// MEMW_A's main trace in device memory from its word accesses.
    ///
    /// # Errors
    /// Too many records, or any device failure.
    pub fn fill_memw_a(&self, accesses: &[WordAccess]) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let t = enqueue_memw_a(dev, &s, accesses)?;
        dev.sync(&s, "fill MEMW_A")?;
        Ok(t)
    }
}

/// Steps per chunk of the memory walk (`MK_CHUNK` in `kernels/rv/memw.cu`).
const MEMWALK_CHUNK: usize = 256;
/// Sorted accesses per tile of its value pass (`MK_TILE`).
const MEMWALK_TILE: usize = 256;
/// Keys per tile of its radix sort (`MK_SORT_TILE`).
const MEMWALK_SORT_TILE: usize = 1024;
/// Threads of its one-block scans (`MK_SCAN_THREADS`).
const MEMWALK_SCAN_THREADS: u32 = 1024;
/// Counts per chunk (`MK_COUNTS`): loads, stores, accesses, MEMW_A rows, MEMW rows.
const MEMWALK_COUNTS: usize = 5;

/// LOAD's, STORE's, MEMW_A's and MEMW's records, as the memory walk makes them.
pub type MemRecords = (
    Vec<LoadOp>,
    Vec<StoreOp>,
    Vec<WordAccess>,
    Vec<(WordAccess, WordAccess)>,
);

/// Category of the memory walk's uploads: the system calls' transfers (3 words per word
/// moved) and each touched word as the segment found it (3 words per word).
pub const MEM_RECORDS: &str = "memory records (memory walk)";

/// LOAD's, STORE's and MEMW_A's records made on the device by the memory walk
/// (`kernels/rv/memw.cu`) from the register walk's `rs1`/`rs2` and DECODE rows, the system
/// calls' transfers ([`memw::transfers`]) and the words as the segment found them
/// ([`RecordRefs::mem_start`]): 24 bytes per touched word and per word a system call moves
/// cross the bus instead of 32–40 per access. Equal to the host's records whenever the
/// executor's register values are the replayed ones (every execution of the executor).
pub(super) struct MemWalk {
    /// LOAD's arrays (`4·nl` words), STORE's (`5·ns`), MEMW_A's (`5·na`), MEMW's (`8·np`),
    /// in [`Walked`] order.
    recs: DeviceBuffer<u64>,
    nl: usize,
    ns: usize,
    na: usize,
    np: usize,
}

/// The tables filled from the memory walk's records, in the order of its record buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Walked {
    Load,
    Store,
    MemwA,
    Memw,
}

impl Walked {
    const ALL: [Walked; 4] = [Walked::Load, Walked::Store, Walked::MemwA, Walked::Memw];

    /// Words per record of its arrays (`MK_*` in `kernels/rv/memw.cu`).
    const fn words_per_record(self) -> usize {
        match self {
            Walked::Load => 4,
            Walked::Store | Walked::MemwA => 5,
            Walked::Memw => 8,
        }
    }

    /// Its fill.
    pub(super) fn table(self) -> &'static MemTable {
        match self {
            Walked::Load => &super::load::LOAD,
            Walked::Store => &super::store::STORE,
            Walked::MemwA => &MEMW_A,
            Walked::Memw => &MEMW_S,
        }
    }
}

impl MemWalk {
    /// Records of each [`Walked`] table.
    fn counts(&self) -> [usize; 4] {
        [self.nl, self.ns, self.na, self.np]
    }

    /// Word offsets of each [`Walked`] table's arrays in the record buffer, and its length.
    fn layout(counts: [usize; 4]) -> ([usize; 4], usize) {
        let mut at = [0; 4];
        let mut end = 0;
        for (w, (o, n)) in Walked::ALL.iter().zip(at.iter_mut().zip(counts)) {
            *o = end;
            end += w.words_per_record() * n;
        }
        (at, end)
    }

    /// Table `w`'s records: their count and the device address of its arrays.
    fn records(&self, s: &CudaStream, w: Walked) -> (usize, u64) {
        let (at, _) = MemWalk::layout(self.counts());
        let i = w as usize;
        (self.counts()[i], self.recs.ptr_at(s, at[i]))
    }

    fn words(&self) -> usize {
        MemWalk::layout(self.counts()).1
    }

    /// The records downloaded (tests).
    fn download(&self, dev: &CudaDevice, s: &Arc<CudaStream>) -> Result<MemRecords, CudaError> {
        let (nl, ns, na, np) = (self.nl, self.ns, self.na, self.np);
        let all = dev.download(s, &self.recs, 0, self.words(), "memory walk (test)")?;
        let (l, rest) = all.split_at(4 * nl);
        let (st, rest) = rest.split_at(5 * ns);
        let (a, q) = rest.split_at(5 * na);
        let loads = (0..nl)
            .map(|i| LoadOp {
                ts: l[i],
                funct3: l[nl + i] as u8,
                addr: (l[nl + i] >> 8) as u32,
                word0: l[2 * nl + i],
                word1: l[3 * nl + i],
            })
            .collect();
        let stores = (0..ns)
            .map(|i| StoreOp {
                ts: st[i],
                funct3: st[ns + i] as u8,
                addr: (st[ns + i] >> 8) as u32,
                value: st[2 * ns + i],
                old0: st[3 * ns + i],
                old1: st[4 * ns + i],
            })
            .collect();
        let mem_a = (0..na)
            .map(|i| WordAccess {
                w: a[i] as u32,
                ro: (a[i] >> 32) & 1 != 0,
                wr: (a[i] >> 33) & 1 != 0,
                old: a[na + i],
                new: a[2 * na + i],
                old_ts: a[3 * na + i],
                ts: a[4 * na + i],
            })
            .collect();
        let mem_s = (0..np)
            .map(|i| {
                let word = |j: usize| WordAccess {
                    w: q[i] as u32 + j as u32,
                    ro: (q[i] >> (32 + 2 * j)) & 1 != 0,
                    wr: (q[i] >> 33) & 1 != 0,
                    old: q[(1 + j) * np + i],
                    new: q[(3 + j) * np + i],
                    old_ts: q[(5 + j) * np + i],
                    ts: q[7 * np + i],
                };
                (word(0), word(1))
            })
            .collect();
        Ok((loads, stores, mem_a, mem_s))
    }
}

/// Checks what the memory walk reads and enqueues it on `stream` after the register walk
/// `walk` (the uploads synchronise; the kernels do not).
pub(super) fn enqueue_memwalk(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    r: &RecordRefs<'_>,
    decode: &[u64],
    walk: &RegWalk,
) -> Result<MemWalk, CudaError> {
    const OP: &str = "memory walk";
    let mut at = std::time::Instant::now();
    let mut mark = |name: &'static str| {
        dev.counters.host_time(name, at);
        at = std::time::Instant::now();
    };
    let cpu = r.cpu;
    let n = cpu.dec_row.len();
    // `transfers` over pieces of the accesses on the host threads (each access is checked
    // and kept on its own), joined in order.
    let io = r
        .mem_a
        .par_chunks(1 << 16)
        .map(|part| memw::transfers(cpu, part, decode))
        .collect::<Option<Vec<_>>>()
        .map(|parts| parts.concat());
    let io = io.ok_or_else(|| {
        limit(
            OP,
            "a MEMW_A row outside the steps' memory timestamps".into(),
        )
    })?;
    let (nl, ns, na, x, d) = (
        r.n_loads(),
        r.n_stores(),
        r.n_mem_a(),
        io.len(),
        r.mem_start.len(),
    );
    // Loads and stores not in MEMW_A are split: two accesses each.
    let np = r.n_mem_s();
    let split = na
        .checked_sub(x)
        .and_then(|single| (nl + ns).checked_sub(single))
        .filter(|&s| s == np);
    let m = split.map(|s| na + 2 * s);
    let Some(m) = m.filter(|&m| m < 1 << 32) else {
        return Err(limit(
            OP,
            format!(
                "{nl} loads, {ns} stores, {na} MEMW_A rows of which {x} transfers, {np} MEMW rows"
            ),
        ));
    };
    if r.mem_start
        .iter()
        .any(|s| s.w >= 1 << 29 || s.ts >> 63 != 0)
        || r.mem_start.windows(2).any(|s| s[0].w >= s[1].w)
    {
        return Err(limit(OP, "start words out of order or out of range".into()));
    }
    let start = |s: &WordStart, k: usize| match k {
        0 => s.w as u64,
        1 => s.value,
        _ => s.ts | (s.ro as u64) << 63,
    };
    mark("memory walk: checks, transfers");
    let input = dev.upload_with(stream, 3 * (x + d), MEM_RECORDS, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            *w = if g < 3 * x {
                let a = &io[g % x];
                match g / x {
                    0 => a.w as u64 | (a.wr as u64) << 32,
                    1 => a.new,
                    _ => a.ts,
                }
            } else {
                let g = g - 3 * x;
                start(&r.mem_start[g % d], g / d)
            };
        }
    })?;
    mark("memory walk: upload");
    let (_, words) = MemWalk::layout([nl, ns, na, np]);
    let recs = dev.alloc::<u64>(stream, words, "memory walk records")?;
    let walked = MemWalk {
        recs,
        nl,
        ns,
        na,
        np,
    };
    if m == 0 {
        return Ok(walked);
    }
    let chunks = n.div_ceil(MEMWALK_CHUNK);
    let cnt = dev.alloc::<u64>(
        stream,
        chunks * MEMWALK_COUNTS + MEMWALK_COUNTS,
        "memory walk counts",
    )?;
    let sort = RadixSort::new(dev, stream, m, "memory walk sort")?;
    let acc = dev.alloc::<u64>(stream, 6 * m, "memory walk accesses")?;
    let tiles = m.div_ceil(MEMWALK_TILE);
    let ops = dev.alloc::<u64>(stream, 2 * tiles, "memory walk carries")?;

    let p = |i: usize| input.ptr_at(stream, i);
    let (io_w, io_new, io_ts) = (p(0), p(x), p(2 * x));
    let (sw, sv, sts) = (p(3 * x), p(3 * x + d), p(3 * x + 2 * d));
    let a = |k: usize| acc.ptr_at(stream, k * m);
    let (ts, mask, data, old, new, old_ts) = (a(0), a(1), a(2), a(3), a(4), a(5));
    let [dec_row, rs1, rs2] = walk.mem_arrays(stream);
    let dec = walk.dec.ptr(stream);
    let (nn, xx, dd, mm, clk0) = (n as u64, x as u64, d as u64, m as u64, cpu.clk0);
    let (nch, nt) = (chunks as u64, tiles as u64);
    let one_block = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (MEMWALK_SCAN_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    dev.injected_fill_launch_failure("ks_memwalk_count")?;
    launch!(
        dev,
        stream,
        "ks_memwalk_count",
        grid_for(nch, 128),
        [
            &cnt.ptr(stream),
            &dec_row,
            &rs1,
            &dec,
            &io_ts,
            &nn,
            &xx,
            &clk0
        ]
    );
    launch!(
        dev,
        stream,
        "ks_memwalk_offsets",
        one_block,
        [
            &cnt.ptr(stream),
            &cnt.ptr_at(stream, chunks * MEMWALK_COUNTS),
            &nch
        ]
    );
    launch!(
        dev,
        stream,
        "ks_memwalk_list",
        grid_for(nch, 128),
        [
            &sort.keys[0].ptr(stream),
            &sort.vals[0].ptr(stream),
            &ts,
            &mask,
            &data,
            &cnt.ptr(stream),
            &dec_row,
            &rs1,
            &rs2,
            &dec,
            &io_w,
            &io_new,
            &io_ts,
            &nn,
            &xx,
            &clk0,
            &mm
        ]
    );
    // Word indices are below 2^29: four passes of 8 bits, back to the first buffers.
    let at = sort.sort(dev, stream, 0, 0..4)?;
    let (skey, sval) = (sort.keys[at].ptr(stream), sort.vals[at].ptr(stream));
    let (op_mask, op_data) = (ops.ptr(stream), ops.ptr_at(stream, tiles));
    launch!(
        dev,
        stream,
        "ks_memwalk_tiles",
        grid_for(nt, 128),
        [&op_mask, &op_data, &skey, &sval, &mask, &data, &sw, &sv, &sts, &dd, &mm]
    );
    launch!(
        dev,
        stream,
        "ks_memwalk_carry",
        one_block,
        [&op_mask, &op_data, &nt]
    );
    launch!(
        dev,
        stream,
        "ks_memwalk_values",
        grid_for(nt, 128),
        [
            &old, &new, &old_ts, &op_data, &skey, &sval, &ts, &mask, &data, &sw, &sv, &sts, &dd,
            &mm
        ]
    );
    let [lrec, srec, arec, prec] = Walked::ALL.map(|w| walked.records(stream, w).1);
    launch!(
        dev,
        stream,
        "ks_memwalk_records",
        grid_for(nch, 128),
        [
            &lrec,
            &srec,
            &arec,
            &prec,
            &cnt.ptr(stream),
            &old,
            &new,
            &old_ts,
            &ts,
            &dec_row,
            &rs1,
            &rs2,
            &dec,
            &io_w,
            &io_ts,
            &nn,
            &xx,
            &clk0,
            &(nl as u64),
            &(ns as u64),
            &(na as u64),
            &(np as u64),
            &mm
        ]
    );
    // Stream-ordered frees: released after the walk reads them.
    drop((input, cnt, sort, acc, ops));
    mark("memory walk: launches");
    Ok(walked)
}

/// Parts a long scan is cut into (the most one block then scans).
const SCAN_PARTS: u64 = MEMWALK_SCAN_THREADS as u64;

/// Scans of at most this many words run in one block.
const SHORT_SCAN: u64 = 1 << 16;

/// Enqueues the exclusive prefix sums of the `len` words at device address `v`, in place,
/// and their total into the word at `total`: in one block (`ks_memwalk_sort_scan`), or,
/// given `parts` (device scratch of [`SCAN_PARTS`] words) and more than [`SHORT_SCAN`]
/// words, by parts over every SM (`ks_memwalk_scan_reduce`, the one-block scan of the
/// parts' sums, `ks_memwalk_scan_apply`).
pub(super) fn enqueue_scan(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    v: u64,
    len: u64,
    total: u64,
    parts: Option<u64>,
) -> Result<(), CudaError> {
    let blocks = |n: u64, threads: u32| LaunchConfig {
        grid_dim: (n as u32, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    let Some(part) = parts.filter(|_| len > SHORT_SCAN) else {
        launch!(
            dev,
            stream,
            "ks_memwalk_sort_scan",
            blocks(1, MEMWALK_SCAN_THREADS),
            [&v, &len, &total]
        );
        return Ok(());
    };
    let per = len.div_ceil(SCAN_PARTS);
    let n = len.div_ceil(per);
    launch!(
        dev,
        stream,
        "ks_memwalk_scan_reduce",
        blocks(n, 256),
        [&part, &v, &len, &per]
    );
    launch!(
        dev,
        stream,
        "ks_memwalk_sort_scan",
        blocks(1, MEMWALK_SCAN_THREADS),
        [&part, &n, &total]
    );
    launch!(
        dev,
        stream,
        "ks_memwalk_scan_apply",
        blocks(n, 256),
        [&v, &part, &len, &per]
    );
    Ok(())
}

/// A stable LSD radix sort of `m` pairs of 32-bit keys and values on the device (8 bits a
/// pass: per tile of `MEMWALK_SORT_TILE` keys a digit histogram, one scan over all tiles'
/// histograms, a warp-ranked scatter), shared by the memory walk and the ALU rows
/// (`alu_ops.rs`). Its buffers are double: a sort reads `keys[at]`, `vals[at]`.
pub(super) struct RadixSort {
    pub(super) keys: [DeviceBuffer<u32>; 2],
    pub(super) vals: [DeviceBuffer<u32>; 2],
    /// 256 counts per tile, then their total, then the scan's parts ([`SCAN_PARTS`]).
    hist: DeviceBuffer<u64>,
    m: usize,
}

impl RadixSort {
    /// Buffers for `m` pairs (`m > 0`).
    pub(super) fn new(
        dev: &CudaDevice,
        stream: &Arc<CudaStream>,
        m: usize,
        what: &'static str,
    ) -> Result<RadixSort, CudaError> {
        let tiles = m.div_ceil(MEMWALK_SORT_TILE);
        Ok(RadixSort {
            keys: [dev.alloc(stream, m, what)?, dev.alloc(stream, m, what)?],
            vals: [dev.alloc(stream, m, what)?, dev.alloc(stream, m, what)?],
            hist: dev.alloc(stream, 256 * tiles + 1 + SCAN_PARTS as usize, what)?,
            m,
        })
    }

    /// Enqueues a stable sort of the pairs in buffers `at` by their keys' bytes `bytes`
    /// (least significant first); returns the buffers that hold the result.
    pub(super) fn sort(
        &self,
        dev: &CudaDevice,
        stream: &Arc<CudaStream>,
        mut at: usize,
        bytes: std::ops::Range<u64>,
    ) -> Result<usize, CudaError> {
        let tiles = self.m.div_ceil(MEMWALK_SORT_TILE);
        let tiles_cfg = |threads: u32| LaunchConfig {
            grid_dim: (tiles.min(1 << 20) as u32, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let (mm, hist) = (self.m as u64, self.hist.ptr(stream));
        for byte in bytes {
            let (from, to) = (at, 1 - at);
            let shift = 8 * byte;
            launch!(
                dev,
                stream,
                "ks_memwalk_sort_hist",
                tiles_cfg(256),
                [&hist, &self.keys[from].ptr(stream), &mm, &shift]
            );
            enqueue_scan(
                dev,
                stream,
                hist,
                256 * tiles as u64,
                self.hist.ptr_at(stream, 256 * tiles),
                Some(self.hist.ptr_at(stream, 256 * tiles + 1)),
            )?;
            launch!(
                dev,
                stream,
                "ks_memwalk_sort_scatter",
                tiles_cfg(32),
                [
                    &self.keys[to].ptr(stream),
                    &self.vals[to].ptr(stream),
                    &self.keys[from].ptr(stream),
                    &self.vals[from].ptr(stream),
                    &hist,
                    &mm,
                    &shift
                ]
            );
            at = to;
        }
        Ok(at)
    }
}

/// Table `w`'s fill on the records the memory walk made (enqueued after it on `stream`).
pub(super) fn enqueue_walked(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    walk: &MemWalk,
    w: Walked,
) -> Result<CudaTrace, CudaError> {
    let (n, rec) = walk.records(stream, w);
    fill_from(dev, stream, w.table(), n, rec)
}

impl CudaBackend {
    /// The exclusive prefix sums of `v` (wrapping) and their total, by the scan the memory
    /// walk's and the ALU rows' sorts use (by parts over every SM past [`SHORT_SCAN`]
    /// words); for tests and diagnostics.
    ///
    /// # Errors
    /// Any device failure.
    pub fn scan_words(&self, v: &[u64]) -> Result<(Vec<u64>, u64), ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let len = v.len();
        let buf = dev.upload_with(
            &s,
            len + 1 + SCAN_PARTS as usize,
            "scan (test)",
            |off, dst| {
                for (j, w) in dst.iter_mut().enumerate() {
                    *w = v.get(off + j).copied().unwrap_or(0);
                }
            },
        )?;
        enqueue_scan(
            dev,
            &s,
            buf.ptr(&s),
            len as u64,
            buf.ptr_at(&s, len),
            Some(buf.ptr_at(&s, len + 1)),
        )?;
        let mut out = dev.download(&s, &buf, 0, len + 1, "scan (test)")?;
        let total = out.pop().unwrap_or(0);
        Ok((out, total))
    }

    /// The memory walk's records for one segment's records `r` (`decode`:
    /// [`decode::fields_of`](kestrel_core::rv::decode::fields_of) of the program),
    /// downloaded: what a proof's LOAD, STORE and MEMW_A fills read; for tests and
    /// diagnostics.
    ///
    /// # Errors
    /// Malformed records, or any device failure.
    pub fn walk_memory(
        &self,
        r: &RecordRefs<'_>,
        decode: &[u64],
    ) -> Result<MemRecords, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let regs = super::memw_r::enqueue_regwalk(dev, &s, r.cpu, r.memw_r, decode)?;
        let walk = enqueue_memwalk(dev, &s, r, decode, &regs)?;
        Ok(walk.download(dev, &s)?)
    }
}
