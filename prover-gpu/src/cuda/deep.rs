//! DEEP combination on the device (kernels/deep.cu), equal to `CpuBackend::deep`.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DeviceRepr};
use kestrel_core::field::{Ext3, Felt};

use super::buffer::DeviceBuffer;
use super::committed::{CudaCommitted, LdeOf};
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::logup::{ext_words, exts};
use super::ntt::{lde_coeff_rows, lde_from_cols, Twiddles};
use crate::backend::DeepInputs;
use crate::cpu::ntt::two_adic;
use crate::error::ProverError;

/// Points one thread of `ks_deep_finish` inverts together (`KS_DEEP_BATCH`).
const DEEP_BATCH: usize = 8;

/// `DeepMats` in kernels/deep.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct DeepMats {
    ptr: [u64; 4],
    width: [u32; 4],
}

// SAFETY: plain old data with the kernel's layout.
unsafe impl DeviceRepr for DeepMats {}

/// The DEEP codeword on the host (downloaded, counted).
pub fn deep(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    tw: &Twiddles,
    d: &DeepInputs<'_, CudaCommitted>,
    source: LdeOf<'_>,
) -> Result<Vec<Ext3>, ProverError> {
    let out = deep_device(dev, stream, tw, d, source)?;
    exts(&dev.download(stream, &out, 0, out.len(), "deep codeword")?)
}

/// The DEEP codeword on the device: `2^log_lde` interleaved Ext3 values. The weighted
/// sums are taken over the committed matrices' sources (`source` gives one: evaluations
/// on `H_n` or coefficients), then extended (see kernels/deep.cu).
pub fn deep_device(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    tw: &Twiddles,
    d: &DeepInputs<'_, CudaCommitted>,
    source: LdeOf<'_>,
) -> Result<DeviceBuffer<u64>, ProverError> {
    let big = 1usize << d.log_lde;
    let mut mats = DeepMats::default();
    let mut count = 0usize;
    let mut columns = 0usize;
    let mut coeff_mask = 0u32;
    let mut n = 0usize;
    // Held until the stream is synchronised (the flag download below).
    let mut held = Vec::with_capacity(4);
    for c in &d.committed {
        if c.width == 0 {
            continue;
        }
        if count == 4 {
            return Err(CudaError::Limit {
                op: "deep",
                detail: format!("{} committed matrices (at most 4)", d.committed.len()),
            }
            .into());
        }
        if c.rows() != big {
            return Err(ProverError::Internal("DEEP inputs of different heights"));
        }
        let b = source(c)?;
        let rows = b.len() / c.width;
        if rows * c.width != b.len() || !rows.is_power_of_two() || (n != 0 && rows != n) {
            return Err(ProverError::Internal("DEEP sources of different heights"));
        }
        n = rows;
        if c.coefficients {
            // The coefficient part has no ζω weight (only the quotient is committed so).
            if columns < d.weights_zw.len() {
                return Err(ProverError::Internal("DEEP ζω weight on coefficients"));
            }
            coeff_mask |= 1 << count;
        }
        mats.ptr[count] = b.ptr(stream);
        held.push(b);
        mats.width[count] = c.width as u32;
        count += 1;
        columns += c.width;
    }
    if n == 0 || n > big {
        return Err(ProverError::Internal("DEEP of no columns"));
    }
    if d.weights_z.len() < columns || d.weights_zw.len() > columns {
        return Err(ProverError::Internal(
            "DEEP weights do not match the columns",
        ));
    }
    let log_n = n.trailing_zeros();
    let log_blowup = d.log_lde - log_n;
    let wz = dev.upload(stream, &ext_words(d.weights_z), "deep weights")?;
    let wzw = dev.upload(
        stream,
        &ext_words(if d.weights_zw.is_empty() {
            &[Ext3::ZERO]
        } else {
            d.weights_zw
        }),
        "deep weights",
    )?;
    let consts = dev.upload(
        stream,
        &ext_words(&[d.sum_z, d.sum_zw, d.zeta, d.zeta_next]),
        "deep weights",
    )?;
    let evals = dev.alloc::<u64>(stream, 6 * n, "deep combination")?;
    let coeffs = dev.alloc::<u64>(stream, 3 * n, "deep combination")?;
    launch!(
        dev,
        stream,
        "ks_deep_combine",
        grid_for(n as u64, 128),
        [
            &evals.ptr(stream),
            &coeffs.ptr(stream),
            &mats,
            &(count as u32),
            &coeff_mask,
            &wz.ptr(stream),
            &wzw.ptr(stream),
            &(d.weights_zw.len() as u32),
            &(n as u64)
        ]
    );
    let lde_e = lde_from_cols(dev, tw, stream, evals, log_n, 6, log_blowup)?;
    let lde_q = if coeff_mask != 0 {
        Some(lde_coeff_rows(dev, tw, stream, coeffs.ptr(stream), log_n, 3, log_blowup)?.0)
    } else {
        None
    };
    let out = dev.alloc::<u64>(stream, 3 * big, "deep codeword")?;
    let flag = dev.alloc_zeros::<u64>(stream, 1, "flags")?;
    let omega: Felt = two_adic(big);
    launch!(
        dev,
        stream,
        "ks_deep_finish",
        grid_for(big.div_ceil(DEEP_BATCH) as u64, 128),
        [
            &out.ptr(stream),
            &lde_e.ptr(stream),
            &lde_q.as_ref().map_or(0, |q| q.ptr(stream)),
            &consts.ptr(stream),
            &d.log_lde,
            &omega.as_u64(),
            &flag.ptr(stream)
        ]
    );
    if dev.download(stream, &flag, 0, 1, "flags")?[0] != 0 {
        return Err(ProverError::OodPointInDomain);
    }
    drop((held, coeffs, lde_e, lde_q));
    Ok(out)
}
