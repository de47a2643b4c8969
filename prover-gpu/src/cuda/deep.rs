//! DEEP combination on the device (kernels/deep.cu), equal to `CpuBackend::deep`.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DeviceRepr};
use kestrel_core::field::{Ext3, Felt};

use super::buffer::DeviceBuffer;
use super::committed::{CudaCommitted, LdeOf};
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::logup::{ext_words, exts};
use crate::backend::DeepInputs;
use crate::cpu::ntt::two_adic;
use crate::error::ProverError;

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
    d: &DeepInputs<'_, CudaCommitted>,
    lde: LdeOf<'_>,
) -> Result<Vec<Ext3>, ProverError> {
    let out = deep_device(dev, stream, d, lde)?;
    exts(&dev.download(stream, &out, 0, out.len(), "deep codeword")?)
}

/// The DEEP codeword on the device: `2^log_lde` interleaved Ext3 values.
pub fn deep_device(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    d: &DeepInputs<'_, CudaCommitted>,
    lde: LdeOf<'_>,
) -> Result<DeviceBuffer<u64>, ProverError> {
    let big = 1usize << d.log_lde;
    let mut mats = DeepMats::default();
    let mut count = 0usize;
    let mut columns = 0usize;
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
        let b = lde(c)?;
        mats.ptr[count] = b.ptr(stream);
        held.push(b);
        mats.width[count] = c.width as u32;
        count += 1;
        columns += c.width;
    }
    if d.weights_z.len() < columns || d.weights_zw.len() > columns {
        return Err(ProverError::Internal(
            "DEEP weights do not match the columns",
        ));
    }
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
    let out = dev.alloc::<u64>(stream, 3 * big, "deep codeword")?;
    let flag = dev.alloc_zeros::<u64>(stream, 1, "flags")?;
    let omega: Felt = two_adic(big);
    launch!(
        dev,
        stream,
        "ks_deep",
        grid_for(big as u64, 128),
        [
            &out.ptr(stream),
            &mats,
            &(count as u32),
            &wz.ptr(stream),
            &wzw.ptr(stream),
            &(d.weights_zw.len() as u32),
            &consts.ptr(stream),
            &d.log_lde,
            &omega.as_u64(),
            &flag.ptr(stream)
        ]
    );
    if dev.download(stream, &flag, 0, 1, "flags")?[0] != 0 {
        return Err(ProverError::OodPointInDomain);
    }
    Ok(out)
}
