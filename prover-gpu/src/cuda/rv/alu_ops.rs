//! What the fills of the tables with one row per distinct operation (LT, EQ, SHIFT, MUL,
//! DVRM) share, as their rooms share `core/src/rv/alu_ops.rs`. Their records are
//! [`Distinct`] rows, three words each (`op | mult << 32`, `a`, `b`), made on the device from
//! the register walk's operands ([`enqueue_alu_rows`], `kernels/rv/alu_ops.cu`): only the
//! system calls' few ALU lookups are uploaded, counted under "packed op records". The fills
//! also take rows uploaded from the host ([`enqueue`]: the tests' edge rows).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::decode::{class, DECODE_WORDS};
use kestrel_core::rv::machine::{RecordRefs, TableId};
use kestrel_core::rv::{distinct_height, ecall, Distinct};
use rayon::prelude::*;

use super::memw::{enqueue_scan, RadixSort};
use super::memw_r::RegWalk;
use super::records::{fill_from, MemTable};

use crate::cuda::backend::CudaBackend;
use crate::cuda::buffer::DeviceBuffer;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{grid_for, launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::cuda::stats::PACKED;
use crate::error::ProverError;

/// Words per uploaded record.
const RECORD_WORDS: usize = 3;

/// Which table a fill builds: its fill (kernel `(out, h, rec, n)`, one row per distinct
/// row) and the op codes it accepts.
pub(super) struct Table {
    pub(super) fill: MemTable,
    pub(super) accepts: fn(u32) -> bool,
}

/// Checks `rows` against `t` and uploads them (three words each).
fn upload_rows(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    t: &Table,
    rows: &[Distinct],
) -> Result<DeviceBuffer<u64>, CudaError> {
    let n = rows.len();
    if let Some(r) = rows.iter().find(|r| !(t.accepts)(r.op)) {
        return Err(CudaError::Limit {
            op: t.fill.op,
            detail: format!("op {} is not one of the table's", r.op),
        });
    }
    let words = n
        .checked_mul(RECORD_WORDS)
        .ok_or_else(|| CudaError::Limit {
            op: t.fill.op,
            detail: format!("{n} records"),
        })?;
    dev.upload_with(stream, words, PACKED, |off, dst| {
        for (j, w) in dst.iter_mut().enumerate() {
            let g = off + j;
            let r = &rows[g / RECORD_WORDS];
            *w = match g % RECORD_WORDS {
                0 => r.op as u64 | (r.mult as u64) << 32,
                1 => r.a,
                _ => r.b,
            };
        }
    })
}

/// Enqueues `t`'s fill from its distinct rows uploaded from the host on `stream` (the
/// upload synchronises; the kernel does not).
pub(super) fn enqueue(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    t: &Table,
    rows: &[Distinct],
) -> Result<CudaTrace, CudaError> {
    let packed = upload_rows(dev, stream, t, rows)?;
    let trace = fill_from(dev, stream, &t.fill, rows.len(), packed.ptr(stream))?;
    // Stream-ordered free, after the kernel reads the rows.
    drop(packed);
    Ok(trace)
}

/// Steps (and sorted operations) per chunk of the ALU rows' kernels (`AK_CHUNK`).
const ALU_CHUNK: usize = 256;

/// The tables of distinct rows, in the order of their op codes (`AK_TABLES` of them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum AluTable {
    Lt,
    Eq,
    Shift,
    Mul,
    Dvrm,
}

impl AluTable {
    pub(super) const ALL: [AluTable; 5] = [
        AluTable::Lt,
        AluTable::Eq,
        AluTable::Shift,
        AluTable::Mul,
        AluTable::Dvrm,
    ];

    /// Its table.
    pub fn id(self) -> TableId {
        match self {
            AluTable::Lt => TableId::Lt,
            AluTable::Eq => TableId::Eq,
            AluTable::Shift => TableId::Shift,
            AluTable::Mul => TableId::Mul,
            AluTable::Dvrm => TableId::Dvrm,
        }
    }
}

/// The ALU tables' fills, in [`AluTable::ALL`] order (their rooms' launchers hold them).
pub(super) type Fills = [&'static Table; 5];

/// The op codes the ALU tables accept: each table's least code, in table order, and the
/// last table's greatest; `None` unless they are consecutive ranges in that order (what the
/// device's merge of all the tables' rows into one sorted list relies on).
fn op_ranges(fills: &Fills) -> Option<([u32; 5], u32)> {
    let mut lo = [0; 5];
    let mut next = None;
    for (k, t) in fills.iter().enumerate() {
        let ops: Vec<u32> = (0..64).filter(|&op| (t.accepts)(op)).collect();
        let (&first, &last) = (ops.first()?, ops.last()?);
        if last - first + 1 != ops.len() as u32 || next.is_some_and(|n| n != first) {
            return None;
        }
        lo[k] = first;
        next = Some(last + 1);
    }
    Some((lo, next? - 1))
}

/// The ALU tables' distinct rows made on the device: all tables' rows in table order,
/// three words each.
pub(super) struct AluRows {
    rec: DeviceBuffer<u64>,
    /// Each table's first row, then the rows' count.
    first: [usize; 6],
}

impl AluRows {
    /// Table `t`'s rows.
    pub(super) fn rows(&self, t: AluTable) -> usize {
        let k = t as usize;
        self.first[k + 1] - self.first[k]
    }

    /// Table `t`'s trace height.
    pub(super) fn height(&self, t: AluTable) -> usize {
        distinct_height(self.rows(t))
    }

    /// The rows downloaded, per table in [`AluTable::ALL`] order (tests).
    pub(super) fn download(
        &self,
        dev: &CudaDevice,
        s: &Arc<CudaStream>,
    ) -> Result<Vec<(TableId, Vec<Distinct>)>, CudaError> {
        let words = dev.download(
            s,
            &self.rec,
            0,
            RECORD_WORDS * self.first[5],
            "ALU rows (test)",
        )?;
        Ok(AluTable::ALL
            .iter()
            .map(|&t| {
                let k = t as usize;
                let rows = words[RECORD_WORDS * self.first[k]..RECORD_WORDS * self.first[k + 1]]
                    .chunks_exact(RECORD_WORDS)
                    .map(|w| Distinct {
                        op: w[0] as u32,
                        a: w[1],
                        b: w[2],
                        mult: (w[0] >> 32) as u32,
                    })
                    .collect();
                (t.id(), rows)
            })
            .collect())
    }
}

/// The ALU rows enqueued ([`enqueue_alu_rows`]): their buffers until
/// [`PendingRows::finish`] learns the tables' row counts.
pub(super) struct PendingRows {
    rec: DeviceBuffer<u64>,
    /// The steps' operations listed, the distinct rows, each table's first row and their
    /// count (8 words), when there are operations.
    info: Option<DeviceBuffer<u64>>,
    /// The sort's and listing's buffers, given back once the rows are made.
    scratch: Vec<DeviceBuffer<u64>>,
    scratch32: Vec<DeviceBuffer<u32>>,
    sort: Option<RadixSort>,
    steps: usize,
    m: usize,
}

impl PendingRows {
    /// Synchronises `stream` (on which the rows were enqueued) to read the tables' row
    /// counts, and checks them.
    pub(super) fn finish(
        self,
        dev: &CudaDevice,
        stream: &Arc<CudaStream>,
    ) -> Result<AluRows, CudaError> {
        let PendingRows {
            rec,
            info,
            scratch,
            scratch32,
            sort,
            steps,
            m,
        } = self;
        let Some(info) = info else {
            return Ok(AluRows { rec, first: [0; 6] });
        };
        let got = dev.download(stream, &info, 0, 8, "ALU rows counts")?;
        drop((scratch, scratch32, sort));
        let (listed, u) = (got[0] as usize, got[1] as usize);
        let mut first = [0usize; 6];
        for (f, &g) in first.iter_mut().zip(&got[2..]) {
            *f = g as usize;
        }
        if listed != steps
            || u > m
            || first[0] != 0
            || first[5] != u
            || first.windows(2).any(|w| w[0] > w[1])
        {
            return Err(CudaError::Limit {
                op: "ALU rows",
                detail: format!(
                    "the device listed {listed} of {steps} steps' operations, {u} distinct \
                     rows of {m}, tables from {first:?} (an op no ALU table accepts?)"
                ),
            });
        }
        Ok(AluRows { rec, first })
    }
}

/// Enqueues the ALU tables' distinct rows on `stream` after the register walk `walk`, equal
/// to the packing pass's (`core::rv::pack`: each ALU or branch step's operation and the
/// system calls' ALU lookups, merged by `distinct_ops`); [`PendingRows::finish`] then learns
/// the tables' row counts (one synchronisation, after whatever else the stream runs).
pub(super) fn enqueue_alu_rows(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    r: &RecordRefs<'_>,
    decode: &[u64],
    walk: &RegWalk,
    fills: &Fills,
) -> Result<PendingRows, CudaError> {
    const OP: &str = "ALU rows";
    let limit = |detail: String| CudaError::Limit { op: OP, detail };
    let (lo, hi) =
        op_ranges(fills).ok_or_else(|| limit("ALU tables' op codes not consecutive".into()))?;
    let cpu = r.cpu;
    let n = cpu.len();
    // The steps that ask for an operation: those of a DECODE row of class ALU or BRANCH.
    let asks: Vec<bool> = decode
        .chunks_exact(DECODE_WORDS)
        .map(|f| f[1 + class::ALU] != 0 || f[1 + class::BRANCH] != 0)
        .collect();
    let steps = cpu
        .dec_row
        .par_iter()
        .filter(|&&row| asks.get(row as usize).copied().unwrap_or(false))
        .count();
    let xops: Vec<u64> = r
        .ecalls
        .iter()
        .flat_map(ecall::alu_lookups)
        .flat_map(|o| [o.op as u64, o.a, o.b])
        .collect();
    let x = xops.len() / 3;
    let m = steps + x;
    if m >= 1 << 32 {
        return Err(limit(format!("{m} ALU operations")));
    }
    if m == 0 {
        return Ok(PendingRows {
            rec: dev.alloc(stream, 0, "ALU rows")?,
            info: None,
            scratch: Vec::new(),
            scratch32: Vec::new(),
            sort: None,
            steps,
            m,
        });
    }
    let xbuf = dev.upload(stream, &xops, PACKED)?;
    let chunks = n.div_ceil(ALU_CHUNK);
    let m_chunks = m.div_ceil(ALU_CHUNK);
    let cnt = dev.alloc::<u64>(stream, chunks.max(m_chunks), "ALU rows counts")?;
    // The operations (op, a, b), then the distinct rows' first positions and the rows.
    let op = dev.alloc::<u32>(stream, m, "ALU operations")?;
    let ab = dev.alloc::<u64>(stream, 2 * m, "ALU operations")?;
    let sort = RadixSort::new(dev, stream, m, "ALU rows sort")?;
    let pos = dev.alloc::<u32>(stream, m, "ALU rows")?;
    let rec = dev.alloc::<u64>(stream, 3 * m, "ALU rows")?;
    // The steps' operations, the distinct rows, each table's first row and their count.
    let info = dev.alloc::<u64>(stream, 8, "ALU rows counts")?;
    let [dec_row, rs1, rs2] = walk.mem_arrays(stream);
    let dec = walk.dec.ptr(stream);
    let (a, b) = (ab.ptr(stream), ab.ptr_at(stream, m));
    let (nn, xx, mm, nch, mch) = (n as u64, x as u64, m as u64, chunks as u64, m_chunks as u64);
    let lo8 = lo
        .iter()
        .enumerate()
        .fold(0u64, |acc, (k, &l)| acc | (l as u64) << (8 * k));
    let (info0, info1, info2) = (
        info.ptr(stream),
        info.ptr_at(stream, 1),
        info.ptr_at(stream, 2),
    );
    dev.injected_fill_launch_failure("ks_alu_count")?;
    launch!(
        dev,
        stream,
        "ks_alu_count",
        grid_for(nch, 128),
        [&cnt.ptr(stream), &dec_row, &dec, &nn]
    );
    enqueue_scan(dev, stream, cnt.ptr(stream), nch, info0, None)?;
    launch!(
        dev,
        stream,
        "ks_alu_list",
        grid_for(mm.max(nch), 128),
        [
            &op.ptr(stream),
            &a,
            &b,
            &sort.vals[0].ptr(stream),
            &cnt.ptr(stream),
            &info0,
            &dec_row,
            &rs1,
            &rs2,
            &dec,
            &nn,
            &xbuf.ptr(stream),
            &xx,
            &mm
        ]
    );
    // Least significant word first: b's low and high, a's low and high (four bytes each),
    // then op (below 2^8).
    let mut at = 0;
    for (w, bytes) in [(0u64, 0..4), (1, 0..4), (2, 0..4), (3, 0..4), (4, 0..1)] {
        launch!(
            dev,
            stream,
            "ks_alu_keys",
            grid_for(mm, 256),
            [
                &sort.keys[at].ptr(stream),
                &sort.vals[at].ptr(stream),
                &op.ptr(stream),
                &a,
                &b,
                &mm,
                &w
            ]
        );
        at = sort.sort(dev, stream, at, bytes)?;
    }
    let perm = sort.vals[at].ptr(stream);
    launch!(
        dev,
        stream,
        "ks_alu_heads_count",
        grid_for(mch, 128),
        [&cnt.ptr(stream), &perm, &op.ptr(stream), &a, &b, &mm]
    );
    enqueue_scan(dev, stream, cnt.ptr(stream), mch, info1, None)?;
    launch!(
        dev,
        stream,
        "ks_alu_heads",
        grid_for(mch, 128),
        [
            &pos.ptr(stream),
            &cnt.ptr(stream),
            &perm,
            &op.ptr(stream),
            &a,
            &b,
            &mm
        ]
    );
    launch!(
        dev,
        stream,
        "ks_alu_rows",
        grid_for(mm, 256),
        [
            &rec.ptr(stream),
            &pos.ptr(stream),
            &perm,
            &op.ptr(stream),
            &a,
            &b,
            &info1,
            &mm
        ]
    );
    launch!(
        dev,
        stream,
        "ks_alu_bounds",
        grid_for(1, 32),
        [&info2, &rec.ptr(stream), &info1, &mm, &lo8, &(hi as u64)]
    );
    Ok(PendingRows {
        rec,
        info: Some(info),
        scratch: vec![xbuf, cnt, ab],
        scratch32: vec![op, pos],
        sort: Some(sort),
        steps,
        m,
    })
}

/// Table `t`'s fill from the rows [`enqueue_alu_rows`] made, on `stream`.
pub(super) fn enqueue_derived(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    rows: &AluRows,
    t: AluTable,
    fills: &Fills,
) -> Result<CudaTrace, CudaError> {
    let at = rows
        .rec
        .ptr_at(stream, RECORD_WORDS * rows.first[t as usize]);
    fill_from(dev, stream, &fills[t as usize].fill, rows.rows(t), at)
}

impl CudaBackend {
    /// `t`'s main trace in device memory from its distinct rows, synchronised.
    pub(super) fn fill_distinct(
        &self,
        t: &Table,
        rows: &[Distinct],
    ) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let trace = enqueue(dev, &s, t, rows)?;
        dev.sync(&s, t.fill.op)?;
        Ok(trace)
    }
}
