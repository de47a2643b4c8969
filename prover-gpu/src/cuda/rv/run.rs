//! The run tables' fills (`kernels/rv/run.cu`): DECODE's multiplicities counted on the
//! device from the steps' DECODE rows the register walk already holds (nothing uploaded),
//! and REGISTER, PAGE and PAGE0 from their records ([`RunRecords`]: the final register file,
//! the image words' final tokens and the touched zero words, a few KB), each equal to
//! [`RunRecords::fill_host`]. Only a whole run's only segment fills them here: a segmented
//! run proves its run tables once, from every segment's state, on the host.
//!
//! Records uploaded (structure of arrays, counted under [`RUN_RECORDS`]):
//!
//! | table | arrays | bytes per row |
//! | --- | --- | --- |
//! | REGISTER | `value, ts, input` (the input length on `REG_INPUT`'s row) | 24 |
//! | PAGE | `fin, fin_ts, zmult` | 24 |
//! | PAGE0 | `w \| ro << 32, lo \| hi << 32, fin, fin_ts` | 32 |

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::machine::{RunRecords, TableId};
use kestrel_core::rv::{page, page0, register, NUM_REGS, REG_INPUT};

use super::memw_r::RegWalk;
use super::records::{fill_uploaded, log_height, MemTable};
use crate::cuda::backend::CudaBackend;
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::{launch, CudaDevice};
use crate::cuda::error::CudaError;
use crate::error::ProverError;

/// Category of the run tables' uploaded records.
pub const RUN_RECORDS: &str = "run table records";

const REGISTER_FILL: MemTable = MemTable {
    op: "fill REGISTER",
    kernel: "ks_fill_register",
    name: "REGISTER",
    what: "REGISTER trace",
    width: register::WIDTH,
};

const PAGE_FILL: MemTable = MemTable {
    op: "fill PAGE",
    kernel: "ks_fill_page",
    name: "PAGE",
    what: "PAGE trace",
    width: page::WIDTH,
};

const PAGE0_FILL: MemTable = MemTable {
    op: "fill PAGE0",
    kernel: "ks_fill_page0",
    name: "PAGE0",
    what: "PAGE0 trace",
    width: page0::P0_WIDTH,
};

/// Blocks of DECODE's count: enough to fill the device, few enough that each block's
/// shared counters see thousands of steps before they are added.
const DECODE_BLOCKS: u32 = 264;

/// Enqueues DECODE's fill on `stream`: its multiplicity column (one row per code slot,
/// padded to a power of two ≥ 16) from the register walk's DECODE rows of the steps.
pub(super) fn enqueue_decode(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    walk: &RegWalk,
) -> Result<CudaTrace, CudaError> {
    const OP: &str = "fill DECODE";
    let rows = walk.dec_rows;
    let log_h = log_height(OP, rows)?;
    let rows = u32::try_from(rows).map_err(|_| CudaError::Limit {
        op: OP,
        detail: format!("{rows} code slots"),
    })?;
    let out = dev.alloc_zeros::<u64>(stream, 1 << log_h, "DECODE trace")?;
    let (dec_row, n) = walk.dec_rows(stream);
    dev.injected_fill_launch_failure("ks_fill_decode_mult")?;
    if n > 0 {
        launch!(
            dev,
            stream,
            "ks_fill_decode_mult",
            cudarc::driver::LaunchConfig {
                grid_dim: (DECODE_BLOCKS, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            },
            [&out.ptr(stream), &dec_row, &(n as u64), &rows]
        );
    }
    dev.counters.fill(TableId::Decode.name());
    Ok(CudaTrace {
        cols: out,
        width: 1,
        log_height: log_h,
    })
}

/// Whether `run` fits the program's memory map: one final token per image word and one
/// count per zero range (`image_words` and `zero_ranges`), and touched zero words in
/// strictly increasing order.
fn check(run: &RunRecords, image_words: usize, zero_ranges: usize) -> Result<(), CudaError> {
    let bad = |detail: String| CudaError::Limit {
        op: "fill run tables",
        detail,
    };
    if run.page.len() != image_words || run.zmult.len() != zero_ranges {
        return Err(bad(format!(
            "{} final words and {} zero-range counts for {image_words} image words and {zero_ranges} zero ranges",
            run.page.len(),
            run.zmult.len()
        )));
    }
    if run.zero.windows(2).any(|z| z[0].w >= z[1].w) {
        return Err(bad("touched zero words out of order".into()));
    }
    Ok(())
}

/// Enqueues REGISTER's, PAGE's and PAGE0's fills on `stream` from `run` (`image_words`,
/// `zero_ranges`: the program's memory map's sizes, which PAGE's height follows).
pub(super) fn enqueue_run(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    run: &RunRecords,
    image_words: usize,
    zero_ranges: usize,
) -> Result<Vec<(TableId, CudaTrace)>, CudaError> {
    check(run, image_words, zero_ranges)?;
    let regs = 1 << register::LOG_HEIGHT;
    let register = fill_uploaded(dev, stream, &REGISTER_FILL, regs, 3, |r, a| {
        match (a, r < NUM_REGS) {
            (_, false) => 0,
            (0, _) => run.file.values[r],
            (1, _) => run.file.ts[r],
            _ => u64::from(if r == REG_INPUT as usize {
                run.input_len
            } else {
                0
            }),
        }
    })?;
    let n = image_words.max(zero_ranges);
    let page = fill_uploaded(dev, stream, &PAGE_FILL, n, 3, |r, a| match a {
        0 => run.page.get(r).map_or(0, |p| p.0),
        1 => run.page.get(r).map_or(0, |p| p.1),
        _ => run.zmult.get(r).copied().unwrap_or(0),
    })?;
    let page0 = fill_uploaded(dev, stream, &PAGE0_FILL, run.zero.len(), 4, |r, a| {
        let z = &run.zero[r];
        match a {
            0 => u64::from(z.w) | u64::from(z.range.ro) << 32,
            1 => u64::from(z.range.lo) | u64::from(z.range.hi) << 32,
            2 => z.fin,
            _ => z.fin_ts,
        }
    })?;
    Ok(vec![
        (TableId::Register, register),
        (TableId::Page, page),
        (TableId::Page0, page0),
    ])
}

impl CudaBackend {
    /// REGISTER's, PAGE's and PAGE0's main traces in device memory from `run` (`image`: the
    /// program's memory map): equal to [`RunRecords::fill_host`]'s.
    ///
    /// # Errors
    /// Records that do not fit the memory map, or any device failure.
    pub fn fill_run_records(
        &self,
        run: &RunRecords,
        image: &page::MemoryImage,
    ) -> Result<Vec<(TableId, CudaTrace)>, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let out = enqueue_run(dev, &s, run, image.words.len(), image.zero.len())?;
        dev.sync(&s, "fill run tables")?;
        Ok(out)
    }
}
