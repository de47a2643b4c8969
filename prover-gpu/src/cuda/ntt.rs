//! Batched NTTs and coset LDEs on the device (kernels/ntt.cu), producing exactly the values
//! of `cpu::ntt::{coset_lde, coset_lde_from_coeffs}`: the LDE of each column, bit-reversed,
//! stored column-major (column c at `c · 2^log_lde`).

use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUfunction_attribute_enum;
use cudarc::driver::{CudaStream, LaunchConfig};
use kestrel_core::field::{Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::stark::COSET_SHIFT;

use super::buffer::DeviceBuffer;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;

/// log2 of the elements one block transforms in shared memory (64 KiB of u64 plus the
/// bank-conflict padding of `ks_sh_pad`).
const TILE_LOG: u32 = 13;
/// Most stages fused in one pass over global memory for the long strides (keeps ≥ 8
/// consecutive words, 64 bytes, per access; 2^23 then takes two passes instead of three).
const UPPER_STAGES: u32 = TILE_LOG - 3;
/// log2 of the elements each thread holds in registers (`KS_NTT_MAX_EL` in kernels/ntt.cu).
const MAX_EL: u32 = 4;

/// Twiddle tables `t[h + j] = ω_{2h}^{±j}` for the largest size asked so far.
#[derive(Default)]
pub struct Twiddles {
    forward: Mutex<Option<(u32, Arc<DeviceBuffer<u64>>)>>,
    inverse: Mutex<Option<(u32, Arc<DeviceBuffer<u64>>)>>,
}

impl Twiddles {
    /// Device bytes the tables hold now.
    pub fn held_bytes(&self) -> u64 {
        [&self.forward, &self.inverse]
            .iter()
            .map(|m| {
                m.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .map_or(0, |(_, t)| t.num_bytes() as u64)
            })
            .sum()
    }

    /// The table for transforms up to `2^log_n`, built on the device when needed.
    pub fn get(
        &self,
        dev: &CudaDevice,
        stream: &Arc<CudaStream>,
        log_n: u32,
        inverse: bool,
    ) -> Result<Arc<DeviceBuffer<u64>>, CudaError> {
        let slot = if inverse {
            &self.inverse
        } else {
            &self.forward
        };
        let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((have, t)) = g.as_ref() {
            if *have >= log_n {
                return Ok(t.clone());
            }
        }
        let log = log_n.max(1);
        let n = 1usize << log;
        let t = dev.alloc::<u64>(stream, n, "twiddles")?;
        let root32 = Felt::two_adic_generator(32)
            .ok_or(CudaError::Unsupported("two-adic root"))?
            .as_u64();
        launch!(
            dev,
            stream,
            "ks_ntt_twiddles",
            grid_for((n as u64).div_ceil(32), 256),
            [&t.ptr(stream), &log, &root32, &(inverse as u32)]
        );
        dev.sync(stream, "twiddles")?;
        let t = Arc::new(t);
        *g = Some((log, t.clone()));
        Ok(t)
    }
}

/// In-place DIF NTT (natural in, bit-reversed out) of `cols` columns of length `2^log_n`
/// stored back to back from `data`.
pub fn dif(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    data: u64,
    log_n: u32,
    cols: usize,
    tw: &DeviceBuffer<u64>,
) -> Result<(), CudaError> {
    dif_passes(dev, stream, data, log_n, cols, tw, None)
}

/// Where the first pass of [`dif_passes`] reads its input instead of `data`: column c's
/// element g is `src[(c >> log_b)·src_stride + bitrev(g)] · pw[(c mod 2^log_b)·2^log_src + g]`
/// for g < 2^log_src, zero above (the bit-reversed coefficients of a coset LDE, scaled and
/// zero-padded on the fly; `src[… + g]` with `natural`, coefficients in natural order). With
/// `log_b > 0`, each source column feeds 2^log_b columns, one per scale table.
struct Gather {
    src: u64,
    src_stride: u64,
    pw: u64,
    log_src: u32,
    log_b: u32,
    natural: bool,
}

/// [`dif`], its first pass optionally reading through a [`Gather`].
fn dif_passes(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    data: u64,
    log_n: u32,
    cols: usize,
    tw: &DeviceBuffer<u64>,
    gather: Option<Gather>,
) -> Result<(), CudaError> {
    if log_n == 0 || cols == 0 {
        return Ok(());
    }
    if cols > MAX_BATCH {
        return Err(CudaError::Limit {
            op: "ntt",
            detail: format!("{cols} columns in one batch (at most {MAX_BATCH})"),
        });
    }
    if tw.len() < 1 << log_n {
        return Err(CudaError::Limit {
            op: "ntt",
            detail: format!("twiddle table of {} for size 2^{log_n}", tw.len()),
        });
    }
    if let Some(g) = &gather {
        if g.log_src > log_n {
            return Err(CudaError::Limit {
                op: "ntt",
                detail: format!("gather of 2^{} into 2^{log_n}", g.log_src),
            });
        }
    }
    let n = 1u64 << log_n;
    let tile_log = TILE_LOG.min(log_n);
    let twp = tw.ptr(stream);
    // Tiles above 48 KiB of shared memory need the opt-in (per loaded function).
    let max_shared = shared_bytes(TILE_LOG);
    dev.function("ks_ntt_dif_group")?
        .set_attribute(
            CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            max_shared as i32,
        )
        .map_err(CudaError::driver("cuFuncSetAttribute", "ntt shared memory"))?;
    let mut first = gather;
    let mut run = |lo: u32, s: u32, m_log: u32| -> Result<(), CudaError> {
        let tl = s + m_log;
        let el = tl.min(MAX_EL);
        let cfg = LaunchConfig {
            grid_dim: ((n >> tl) as u32, cols as u32, 1),
            block_dim: (1u32 << (tl - el), 1, 1),
            shared_mem_bytes: shared_bytes(tl),
        };
        let (src, src_stride, pw, log_src, log_b, natural) = match first.take() {
            Some(g) => (
                g.src,
                g.src_stride,
                g.pw,
                g.log_src,
                g.log_b,
                g.natural as u32,
            ),
            None => (0u64, 0u64, 0u64, 0u32, 0u32, 0u32),
        };
        launch!(
            dev,
            stream,
            "ks_ntt_dif_group",
            cfg,
            [
                &data,
                &n,
                &twp,
                &lo,
                &s,
                &m_log,
                &src,
                &src_stride,
                &pw,
                &log_src,
                &log_b,
                &natural
            ]
        );
        Ok(())
    };
    // Split the long-stride stages into as few passes as possible, of balanced sizes.
    let upper = log_n - tile_log;
    let mut passes = upper.div_ceil(UPPER_STAGES);
    let mut hi = log_n;
    while hi > tile_log {
        let left = hi - tile_log;
        let s = left.div_ceil(passes.max(1)).clamp(1, UPPER_STAGES);
        passes = passes.saturating_sub(1);
        let lo = hi - s;
        run(lo, s, tile_log - s)?;
        hi = lo;
    }
    run(0, tile_log, 0)
}

/// Dynamic shared memory of a `2^tile_log` tile: `ks_sh_pad(tile - 1) + 1` words.
fn shared_bytes(tile_log: u32) -> u32 {
    let tile = 1u32 << tile_log;
    8 * (tile + ((tile - 1) >> 4))
}

/// Uploads a row-major matrix as-is (counted under `category`).
pub fn upload_matrix(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    m: &RowMajorMatrix,
    category: &'static str,
) -> Result<DeviceBuffer<u64>, CudaError> {
    let v = &m.values;
    dev.upload_with(stream, v.len(), category, |off, dst| {
        for (d, s) in dst.iter_mut().zip(&v[off..]) {
            *d = s.as_u64();
        }
    })
}

/// Row-major `rows × cols` at `src` into column-major `dst` (column stride `rows`).
pub fn rows_to_cols(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    dst: u64,
    src: u64,
    rows: u64,
    cols: usize,
) -> Result<(), CudaError> {
    let cfg = LaunchConfig {
        grid_dim: (rows.div_ceil(32) as u32, (cols as u32).div_ceil(32), 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    // No scaling (a null table).
    launch!(
        dev,
        stream,
        "ks_rows_to_cols",
        cfg,
        [&dst, &rows, &rows, &src, &rows, &(cols as u32), &0u64]
    );
    Ok(())
}

/// Column-major (column stride `rows`) into row-major `rows × cols`.
pub fn cols_to_rows(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    dst: u64,
    src: u64,
    rows: u64,
    cols: usize,
) -> Result<(), CudaError> {
    let cfg = LaunchConfig {
        grid_dim: (rows.div_ceil(32) as u32, (cols as u32).div_ceil(32), 1),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    launch!(
        dev,
        stream,
        "ks_cols_to_rows",
        cfg,
        [&dst, &src, &rows, &rows, &(cols as u32)]
    );
    Ok(())
}

/// The `2^log_b` tables `scale · s_t^k` (k < 2^log_n, table t at `t · 2^log_n`) with
/// `s_t = shift · ω_N^{bitrev(t)}`, N = 2^(log_n + log_b): block t of a coset LDE (its
/// rows `[t·2^log_n, (t+1)·2^log_n)`, bit-reversed order) is the size-2^log_n DIF of the
/// coefficients times table t. The LDE as 2^log_b transforms of the unpadded size skips
/// the zero padding's butterflies (`log_b` of every `log_n + log_b` stages); the values
/// are those of `cpu::ntt`'s blocks.
fn block_scales(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    log_n: u32,
    log_b: u32,
    scale: Felt,
    shift: Felt,
) -> Result<DeviceBuffer<u64>, CudaError> {
    let total = 1u64 << (log_n + log_b);
    let out = dev.alloc::<u64>(stream, total as usize, "powers")?;
    let root =
        Felt::two_adic_generator(log_n + log_b).ok_or(CudaError::Unsupported("two-adic root"))?;
    launch!(
        dev,
        stream,
        "ks_block_powers",
        grid_for(total.div_ceil(32), 128),
        [
            &out.ptr(stream),
            &log_n,
            &log_b,
            &scale.as_u64(),
            &shift.as_u64(),
            &root.as_u64()
        ]
    );
    Ok(out)
}

/// Most columns of one batch of transforms: the launch grid's y dimension.
const MAX_BATCH: usize = 65535;

/// The coset LDE (bit-reversed, column-major, column c at `out + c·2^(log_n+log_blowup)`)
/// of `cols` coefficient columns of `2^log_n` at `src` (column-major; bit-reversed, or in
/// natural order with `natural`) times `scale`: block t of column c (at `c·big + t·n`) is
/// the size-n DIF of the coefficients times block t's table ([`block_scales`]), read and
/// scaled in the DIF's first pass. In batches of whole source columns.
#[allow(clippy::too_many_arguments)]
fn block_lde(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    out: u64,
    src: u64,
    log_n: u32,
    cols: usize,
    log_blowup: u32,
    scale: Felt,
    natural: bool,
) -> Result<(), CudaError> {
    let (n, big) = (1u64 << log_n, 1u64 << (log_n + log_blowup));
    let pw = block_scales(dev, stream, log_n, log_blowup, scale, COSET_SHIFT)?;
    if log_n == 0 {
        // No stage to fuse the scaling into: block t (one row) = the coefficient · table t.
        for t in 0..big {
            let cfg = LaunchConfig {
                grid_dim: (1, cols as u32, 1),
                block_dim: (32, 1, 1),
                shared_mem_bytes: 0,
            };
            launch!(
                dev,
                stream,
                "ks_bitrev_scale",
                cfg,
                [
                    &(out + 8 * t),
                    &big,
                    &1u64,
                    &src,
                    &1u64,
                    &0u32,
                    &(cols as u32),
                    &(pw.ptr(stream) + 8 * t)
                ]
            );
        }
        return Ok(());
    }
    let fwd = tw.get(dev, stream, log_n, false)?;
    let per = (MAX_BATCH >> log_blowup).max(1);
    for c0 in (0..cols).step_by(per) {
        let k = per.min(cols - c0);
        let gather = Gather {
            src: src + 8 * c0 as u64 * n,
            src_stride: n,
            pw: pw.ptr(stream),
            log_src: log_n,
            log_b: log_blowup,
            natural,
        };
        dif_passes(
            dev,
            stream,
            out + 8 * c0 as u64 * big,
            log_n,
            k << log_blowup,
            &fwd,
            Some(gather),
        )?;
    }
    // Frees are stream-ordered: `pw` is released after the kernels that read it.
    drop(pw);
    Ok(())
}

/// Coset LDE (bit-reversed, column-major) of a trace given on `H_n` in natural order,
/// already on the device column-major (`cols` columns of `2^log_n`); transforms `evals` in
/// place on the way.
pub fn lde_from_cols(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    evals: DeviceBuffer<u64>,
    log_n: u32,
    cols: usize,
    log_blowup: u32,
) -> Result<DeviceBuffer<u64>, CudaError> {
    let log_big = log_n + log_blowup;
    let inv = tw.get(dev, stream, log_n, true)?;
    dif(dev, stream, evals.ptr(stream), log_n, cols, &inv)?;
    let (n, big) = (1u64 << log_n, 1u64 << log_big);
    let out = dev.alloc::<u64>(stream, cols * big as usize, "lde")?;
    let n_inv = Felt::new(n)
        .inverse()
        .ok_or(CudaError::Unsupported("n = 0"))?;
    // The bit-reversed coefficients, scaled by n⁻¹ with the blocks' tables.
    block_lde(
        dev,
        tw,
        stream,
        out.ptr(stream),
        evals.ptr(stream),
        log_n,
        cols,
        log_blowup,
        n_inv,
        false,
    )?;
    // Frees are stream-ordered: `evals` is released after the kernels that read it.
    drop(evals);
    Ok(out)
}

/// Coset LDE of a row-major `2^log_n × cols` trace already on the device at `src`, and the
/// trace's natural-order columns (column-major, kept for out-of-domain evaluations).
pub fn lde_rows(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    src: u64,
    log_n: u32,
    cols: usize,
    log_blowup: u32,
) -> Result<(DeviceBuffer<u64>, DeviceBuffer<u64>), CudaError> {
    let n = 1usize << log_n;
    let natural = dev.alloc::<u64>(stream, n * cols, "trace columns")?;
    rows_to_cols(dev, stream, natural.ptr(stream), src, n as u64, cols)?;
    let evals = dev.alloc::<u64>(stream, n * cols, "lde input")?;
    rows_to_cols(dev, stream, evals.ptr(stream), src, n as u64, cols)?;
    let out = lde_from_cols(dev, tw, stream, evals, log_n, cols, log_blowup)?;
    Ok((out, natural))
}

/// The coset LDE of a host trace (commit_trace) and its natural-order columns.
pub fn lde_trace(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    trace: &RowMajorMatrix,
    log_blowup: u32,
    category: &'static str,
) -> Result<(DeviceBuffer<u64>, DeviceBuffer<u64>), CudaError> {
    let log_n = trace.height().trailing_zeros();
    let src = upload_matrix(dev, stream, trace, category)?;
    let out = lde_rows(
        dev,
        tw,
        stream,
        src.ptr(stream),
        log_n,
        trace.width,
        log_blowup,
    )?;
    // Frees are stream-ordered: `src` is released after the kernels that read it.
    drop(src);
    Ok(out)
}

/// The coset LDE of row-major `2^log_n × cols` coefficients on the device at `src` (scale
/// by `COSET_SHIFT^k`, pad, DIF), and the coefficients column-major.
pub fn lde_coeff_rows(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    src: u64,
    log_n: u32,
    cols: usize,
    log_blowup: u32,
) -> Result<(DeviceBuffer<u64>, DeviceBuffer<u64>), CudaError> {
    let n = 1u64 << log_n;
    let log_big = log_n + log_blowup;
    let big = 1u64 << log_big;
    let coeffs = dev.alloc::<u64>(stream, cols * n as usize, "coefficient columns")?;
    rows_to_cols(dev, stream, coeffs.ptr(stream), src, n, cols)?;
    let out = dev.alloc::<u64>(stream, cols * big as usize, "lde")?;
    block_lde(
        dev,
        tw,
        stream,
        out.ptr(stream),
        coeffs.ptr(stream),
        log_n,
        cols,
        log_blowup,
        Felt::ONE,
        true,
    )?;
    Ok((out, coeffs))
}

/// The coset LDE of host coefficients (commit_coeffs) and the coefficients column-major.
pub fn lde_coeffs(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    coeffs: &RowMajorMatrix,
    log_blowup: u32,
    category: &'static str,
) -> Result<(DeviceBuffer<u64>, DeviceBuffer<u64>), CudaError> {
    let src = upload_matrix(dev, stream, coeffs, category)?;
    let out = lde_coeff_rows(
        dev,
        tw,
        stream,
        src.ptr(stream),
        coeffs.height().trailing_zeros(),
        coeffs.width,
        log_blowup,
    )?;
    dev.sync(stream, "lde")?;
    drop(src);
    Ok(out)
}
