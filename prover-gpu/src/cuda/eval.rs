//! Column evaluations at an extension point on the device (kernels/eval.cu): barycentric
//! on `H_n` for traces, powers of the point for coefficients, then weighted column sums.

use std::sync::Arc;

use cudarc::driver::{CudaStream, LaunchConfig};
use kestrel_core::field::{Ext3, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;

use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::logup::exts;
use super::ntt::{rows_to_cols, upload_matrix};
use crate::cpu::ntt::two_adic;
use crate::error::ProverError;

const THREADS: u32 = 256;

/// Rows of weights one thread of `ks_eval_weights` computes (`KS_EVAL_CHUNK`).
const EVAL_CHUNK: u64 = 16;

/// Threads per block and rows per thread of `ks_weighted_col_sums` for `n` rows: a tile
/// of at most 1024 rows (its weights fit the default 48 KiB of shared memory).
fn sums_shape(n: u64) -> (u32, u32) {
    let threads = n.clamp(32, 128) as u32;
    let per_thread = (n / threads as u64).clamp(1, 8) as u32;
    (threads, per_thread)
}

/// `scale · Σ_r w_r · col_c[r]` for each column of a column-major `n × cols` matrix at
/// `m`, and with `two` also `scale · Σ_r w_{r-1 mod n} · col_c[r]` (the same trace at
/// `ζω`, see kernels/eval.cu): one pass over the columns.
#[allow(clippy::too_many_arguments)]
fn weighted_sums(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    m: u64,
    n: u64,
    cols: usize,
    w: u64,
    scale: Ext3,
    two: bool,
) -> Result<Vec<Vec<Ext3>>, ProverError> {
    if cols > 65535 {
        return Err(CudaError::Limit {
            op: "evaluate",
            detail: format!("{cols} columns"),
        }
        .into());
    }
    let (threads, per_thread) = sums_shape(n);
    let tile = threads as u64 * per_thread as u64;
    let parts = n.div_ceil(tile) as u32;
    let sums = if two { 2 * cols } else { cols };
    let partial = dev.alloc::<u64>(stream, 3 * sums * parts as usize, "eval partial sums")?;
    let cfg = LaunchConfig {
        grid_dim: (parts, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: (8 * (3 * (tile + 1) + 6 * (threads as u64 / 32))) as u32,
    };
    launch!(
        dev,
        stream,
        "ks_weighted_col_sums",
        cfg,
        [
            &partial.ptr(stream),
            &m,
            &n,
            &(cols as u32),
            &w,
            &per_thread,
            &(two as u32)
        ]
    );
    let out = dev.alloc::<u64>(stream, 3 * sums, "evaluations")?;
    let [s0, s1, s2] = scale.coords().map(Felt::as_u64);
    let cfg = LaunchConfig {
        grid_dim: (sums as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    launch!(
        dev,
        stream,
        "ks_sum_partials",
        cfg,
        [
            &out.ptr(stream),
            &partial.ptr(stream),
            &parts,
            &s0,
            &s1,
            &s2
        ]
    );
    let all = exts(&dev.download(stream, &out, 0, out.len(), "ood evaluations")?)?;
    Ok(all.chunks(cols).map(<[Ext3]>::to_vec).collect())
}

/// Each column of a host matrix `m` evaluated at `point`: barycentric on `H_n`
/// (`coefficients` false) or as coefficients (`true`). Uploads `m` (counted).
pub fn evaluate(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    m: &RowMajorMatrix,
    point: Ext3,
    coefficients: bool,
) -> Result<Vec<Ext3>, ProverError> {
    let n = m.height();
    let cols = m.width;
    if cols == 0 {
        return Ok(Vec::new());
    }
    let src = upload_matrix(
        dev,
        stream,
        m,
        if coefficients {
            "ood coefficients"
        } else {
            "ood trace"
        },
    )?;
    let cm = dev.alloc::<u64>(stream, n * cols, "ood columns")?;
    rows_to_cols(dev, stream, cm.ptr(stream), src.ptr(stream), n as u64, cols)?;
    let mut v = evaluate_cols(dev, stream, cm.ptr(stream), n, cols, &[point], coefficients)?;
    v.pop().ok_or(ProverError::Internal("evaluation count"))
}

/// Each column of the column-major `n × cols` matrix at `m` (on the device) evaluated at
/// each point: barycentric on `H_n` (`coefficients` false) or as coefficients (`true`).
/// Downloads only the values.
pub fn evaluate_cols(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    m: u64,
    n: usize,
    cols: usize,
    points: &[Ext3],
    coefficients: bool,
) -> Result<Vec<Vec<Ext3>>, ProverError> {
    if cols == 0 {
        return Ok(vec![Vec::new(); points.len()]);
    }
    let w = dev.alloc::<u64>(stream, 3 * n, "ood weights")?;
    let flag = dev.alloc_zeros::<u64>(stream, 1, "flags")?;
    let omega: Felt = two_adic(n.max(1));
    let omega_inv = omega.inverse().ok_or(ProverError::Internal("omega = 0"))?;
    // A trace at ζ and ζω shares one set of weights (shifted by a row).
    let fused = !coefficients && points.len() == 2 && points[1] == points[0] * omega;
    let mut out = Vec::with_capacity(points.len());
    for &point in points {
        let [z0, z1, z2] = point.coords().map(Felt::as_u64);
        launch!(
            dev,
            stream,
            "ks_eval_weights",
            grid_for((n as u64).div_ceil(EVAL_CHUNK), THREADS),
            [
                &w.ptr(stream),
                &(n as u64),
                &omega.as_u64(),
                &omega_inv.as_u64(),
                &z0,
                &z1,
                &z2,
                &(coefficients as u32),
                &flag.ptr(stream)
            ]
        );
        let scale = if coefficients {
            Ext3::ONE
        } else {
            (point.exp_u64(n as u64) - Felt::ONE)
                * Felt::new(n as u64)
                    .inverse()
                    .ok_or(ProverError::Internal("n = 0"))?
        };
        out.extend(weighted_sums(
            dev,
            stream,
            m,
            n as u64,
            cols,
            w.ptr(stream),
            scale,
            fused,
        )?);
        if fused {
            break;
        }
    }
    if dev.download(stream, &flag, 0, 1, "flags")?[0] != 0 {
        return Err(ProverError::OodPointInDomain);
    }
    Ok(out)
}
