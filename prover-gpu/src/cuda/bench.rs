//! Device-side measurements for BENCHMARKS.md: a copy kernel (the memory-bandwidth
//! roofline), the coset LDE and Merkle hashing on device-resident data, all timed with
//! CUDA events in the same process.

use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::CudaStream;
use kestrel_core::field::Felt;

use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::merkle::{self, Leaves};
use super::ntt::{lde_from_cols, Twiddles};

/// Milliseconds `f` takes on `stream`, measured with events (best of `reps`).
pub fn time_ms(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    reps: usize,
    mut f: impl FnMut() -> Result<(), CudaError>,
) -> Result<f64, CudaError> {
    let ctx = dev.context();
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let a = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(CudaError::driver("cuEventCreate", ""))?;
        let b = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(CudaError::driver("cuEventCreate", ""))?;
        a.record(stream)
            .map_err(CudaError::driver("cuEventRecord", ""))?;
        f()?;
        b.record(stream)
            .map_err(CudaError::driver("cuEventRecord", ""))?;
        b.synchronize()
            .map_err(CudaError::driver("cuEventSynchronize", ""))?;
        let ms = a
            .elapsed_ms(&b)
            .map_err(CudaError::driver("cuEventElapsedTime", ""))? as f64;
        best = best.min(ms);
    }
    Ok(best)
}

/// Copy bandwidth in GB/s (bytes read + written) over `words` u64.
pub fn copy_bandwidth(dev: &CudaDevice, words: usize) -> Result<f64, CudaError> {
    let s = dev.stream();
    let src = dev.alloc_zeros::<u64>(&s, words, "bench copy")?;
    let dst = dev.alloc::<u64>(&s, words, "bench copy")?;
    let n = words as u64;
    let ms = time_ms(dev, &s, 5, || {
        launch!(
            dev,
            &s,
            "ks_copy",
            grid_for(n, 256),
            [&dst.ptr(&s), &src.ptr(&s), &n]
        );
        Ok(())
    })?;
    Ok(2.0 * 8.0 * words as f64 / (ms * 1e6))
}

/// Keccak-p[1600, 12] permutations per second (in 10^9) of the Merkle level kernel
/// (`ks_merkle_level`: one node, `H(0x01 ‖ left ‖ right)`, 65 bytes, is one
/// permutation) hashing `nodes` nodes from `2·nodes` zeroed digests (best of 5).
pub fn keccak_rate(dev: &CudaDevice, nodes: usize) -> Result<f64, CudaError> {
    let s = dev.stream();
    let input = dev.alloc_zeros::<u64>(&s, 8 * nodes, "bench keccak")?;
    let output = dev.alloc::<u64>(&s, 4 * nodes, "bench keccak")?;
    let n = nodes as u64;
    let ms = time_ms(dev, &s, 5, || {
        launch!(
            dev,
            &s,
            "ks_merkle_level",
            grid_for(n, 128),
            [&output.ptr(&s), &input.ptr(&s), &n]
        );
        Ok(())
    })?;
    Ok(nodes as f64 / (ms * 1e6))
}

/// The roofline ceilings of `dev` ([`crate::roofline`]): [`copy_bandwidth`] over 1 GiB
/// (2 GiB moved) and [`keccak_rate`] over 2^24 nodes (768 MiB of digests).
pub fn ceilings(dev: &CudaDevice) -> Result<crate::roofline::Ceilings, CudaError> {
    const COPY_WORDS: usize = 1 << 27;
    const NODES: usize = 1 << 24;
    let copy_gb_s = copy_bandwidth(dev, COPY_WORDS)?;
    let keccak = keccak_rate(dev, NODES)?;
    Ok(crate::roofline::Ceilings {
        copy_gb_s,
        keccak_gperm_s: keccak,
        measured_by: "cuda: ks_copy over 2 x 1 GiB, ks_merkle_level over 2^24 nodes \
                      (one permutation each), CUDA events, best of 5"
            .into(),
    })
}

/// One LDE measurement.
#[derive(Clone, Debug)]
pub struct LdeFigure {
    pub log_n: u32,
    pub cols: usize,
    pub log_blowup: u32,
    pub lde_ms: f64,
    pub merkle_ms: f64,
    /// One forward DIF of the whole `N × cols` LDE buffer alone.
    pub ntt_ms: f64,
    /// Minimum bytes an LDE must move (read n·w words, write N·w words).
    pub lde_min_bytes: f64,
    /// Bytes the leaf hashing must read (N·w words).
    pub merkle_bytes: f64,
}

/// Times the coset LDE of a device-resident `2^log_n × cols` matrix and the Merkle tree over
/// its result.
pub fn lde_and_merkle(
    dev: &CudaDevice,
    log_n: u32,
    cols: usize,
    log_blowup: u32,
) -> Result<LdeFigure, CudaError> {
    let s = dev.stream();
    let tw = Twiddles::default();
    let n = 1usize << log_n;
    let big = n << log_blowup;
    // Warm the twiddle caches so the timing covers the transforms only.
    tw.get(dev, &s, log_n, true)?;
    tw.get(dev, &s, log_n + log_blowup, false)?;
    let seed = dev.upload_with(&s, n * cols, "bench input", |off, d| {
        for (i, x) in d.iter_mut().enumerate() {
            *x = Felt::new(((off + i) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).as_u64();
        }
    })?;
    let mut lde = None;
    let lde_ms = time_ms(dev, &s, 3, || {
        let mut input = dev.alloc::<u64>(&s, n * cols, "bench input")?;
        // Device-to-device copy of the input (the LDE transforms its input in place); timed
        // separately below and subtracted.
        s.memcpy_dtod(seed.slice(), input.slice_mut())
            .map_err(CudaError::driver("cuMemcpyDtoD", "bench"))?;
        lde = Some(lde_from_cols(dev, &tw, &s, input, log_n, cols, log_blowup)?);
        Ok(())
    })?;
    let copy_ms = time_ms(dev, &s, 3, || {
        let mut input = dev.alloc::<u64>(&s, n * cols, "bench input")?;
        s.memcpy_dtod(seed.slice(), input.slice_mut())
            .map_err(CudaError::driver("cuMemcpyDtoD", "bench"))?;
        Ok(())
    })?;
    let lde = lde.ok_or(CudaError::Unsupported("bench produced no LDE"))?;
    let merkle_ms = time_ms(dev, &s, 3, || {
        merkle::build(
            dev,
            &s,
            Leaves::Columns {
                data: lde.ptr(&s),
                stride: big as u64,
                cols: cols as u32,
            },
            log_n + log_blowup,
            0,
        )?;
        Ok(())
    })?;
    let fwd = tw.get(dev, &s, log_n + log_blowup, false)?;
    let ntt_ms = time_ms(dev, &s, 3, || {
        super::ntt::dif(dev, &s, lde.ptr(&s), log_n + log_blowup, cols, &fwd)
    })?;
    Ok(LdeFigure {
        ntt_ms,
        log_n,
        cols,
        log_blowup,
        lde_ms: (lde_ms - copy_ms).max(1e-6),
        merkle_ms,
        lde_min_bytes: 8.0 * (n + big) as f64 * cols as f64,
        merkle_bytes: 8.0 * big as f64 * cols as f64,
    })
}
