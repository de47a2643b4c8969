//! The PAGE fill (`kernels/rv/page.cu`): PAGE's trace from a whole run's run records
//! ([`RunRecords`]: each image word's final value and timestamp, each zero range's touched
//! words), equal to [`RunRecords::fill_host`]. Three arrays of one word per row (`fin,
//! fin_ts, zmult`), under [`RUN_RECORDS`](super::records::RUN_RECORDS).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::rv::machine::RunRecords;
use kestrel_core::rv::page::{self, MemoryImage};

use super::records::{fill_uploaded_as, MemTable, RUN_RECORDS};
use crate::cuda::committed::CudaTrace;
use crate::cuda::device::CudaDevice;
use crate::cuda::error::CudaError;

const PAGE_FILL: MemTable = MemTable {
    op: "fill PAGE",
    kernel: "ks_fill_page",
    name: "PAGE",
    what: "PAGE trace",
    width: page::WIDTH,
};

/// Enqueues PAGE's fill on `stream` for the memory map `image` (the upload synchronises;
/// the kernel does not).
///
/// # Errors
/// Records that are not one final token per image word and one count per zero range, or
/// any device failure.
pub(super) fn enqueue_page(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    run: &RunRecords,
    image: &MemoryImage,
) -> Result<CudaTrace, CudaError> {
    let (words, ranges) = (image.words.len(), image.zero.len());
    if run.page.len() != words || run.zmult.len() != ranges {
        return Err(CudaError::Limit {
            op: PAGE_FILL.op,
            detail: format!(
                "{} final words and {} zero-range counts for {words} image words and {ranges} zero ranges",
                run.page.len(),
                run.zmult.len()
            ),
        });
    }
    fill_uploaded_as(
        dev,
        stream,
        &PAGE_FILL,
        image.page_rows(),
        3,
        RUN_RECORDS,
        |r, a| match a {
            0 => run.page.get(r).map_or(0, |p| p.0),
            1 => run.page.get(r).map_or(0, |p| p.1),
            _ => run.zmult.get(r).copied().unwrap_or(0),
        },
    )
}
