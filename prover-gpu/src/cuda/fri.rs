//! FRI on the device (kernels/fri.cu, kernels/merkle.cu): folding, joins and layer
//! commitments. Codewords are interleaved Ext3 values (3 words each) in device memory.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::field::{Ext3, Felt, Field};
use kestrel_core::merkle::Digest;

use super::buffer::DeviceBuffer;
use super::committed::CudaFriLayer;
use super::device::{grid_for, launch, CudaDevice};
use super::logup::{ext_words, exts};
use super::merkle::{self, Leaves};
use crate::cpu::ntt::two_adic;
use crate::error::ProverError;

/// A codeword in device memory: `len` interleaved Ext3 values.
pub struct DeviceWords {
    pub(crate) words: DeviceBuffer<u64>,
    pub(crate) len: usize,
}

/// Uploads a host codeword (counted under `category`).
pub fn upload(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    cw: &[Ext3],
    category: &'static str,
) -> Result<DeviceWords, ProverError> {
    let words = dev.upload_with(stream, 3 * cw.len(), category, |off, dst| {
        for (i, d) in dst.iter_mut().enumerate() {
            let j = off + i;
            *d = cw[j / 3].coords()[j % 3].as_u64();
        }
    })?;
    Ok(DeviceWords {
        words,
        len: cw.len(),
    })
}

/// Folds the `len`-value codeword at `src` in half, on the device.
pub fn fold_device(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    src: u64,
    len: usize,
    beta: Ext3,
    shift: Felt,
) -> Result<DeviceWords, ProverError> {
    if len < 2 || !len.is_power_of_two() {
        return Err(ProverError::Internal("FRI codeword length"));
    }
    let half = len / 2;
    let log_half = half.trailing_zeros();
    let out = dev.alloc::<u64>(stream, 3 * half, "fri folded")?;
    let w_inv = two_adic(len)
        .inverse()
        .ok_or(ProverError::Internal("zero root"))?;
    let two_shift_inv = (shift + shift)
        .inverse()
        .ok_or(ProverError::Internal("zero shift"))?;
    let [b0, b1, b2] = beta.coords().map(Felt::as_u64);
    launch!(
        dev,
        stream,
        "ks_fri_fold",
        grid_for(half as u64, 256),
        [
            &out.ptr(stream),
            &src,
            &log_half,
            &b0,
            &b1,
            &b2,
            &w_inv.as_u64(),
            &two_shift_inv.as_u64()
        ]
    );
    dev.sync(stream, "fri_fold")?;
    Ok(DeviceWords {
        words: out,
        len: half,
    })
}

/// Folds a host codeword (uploaded and downloaded, counted).
pub fn fold(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    cw: &[Ext3],
    beta: Ext3,
    shift: Felt,
) -> Result<Vec<Ext3>, ProverError> {
    if cw.len() < 2 || !cw.len().is_power_of_two() {
        return Err(ProverError::Internal("FRI codeword length"));
    }
    let src = upload(dev, stream, cw, "fri codeword")?;
    let out = fold_device(dev, stream, src.words.ptr(stream), cw.len(), beta, shift)?;
    exts(&dev.download(stream, &out.words, 0, out.words.len(), "fri folded")?)
}

/// `acc += scale · other` on the device (FRI's join).
pub fn add_scaled(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    acc: &mut DeviceWords,
    scale: Ext3,
    other: &DeviceWords,
) -> Result<(), ProverError> {
    if acc.len != other.len {
        return Err(ProverError::Internal("add_scaled: lengths differ"));
    }
    let [s0, s1, s2] = scale.coords().map(Felt::as_u64);
    launch!(
        dev,
        stream,
        "ks_ext_axpy",
        grid_for(acc.len as u64, 256),
        [
            &acc.words.ptr(stream),
            &other.words.ptr(stream),
            &(acc.len as u64),
            &s0,
            &s1,
            &s2
        ]
    );
    dev.sync(stream, "add_scaled")?;
    Ok(())
}

/// Commits a device codeword as a FRI layer (leaf j = values 2j, 2j+1); `host` is the
/// host copy it came from, if any.
pub fn commit_words(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    cw: DeviceWords,
    host: Option<Vec<Ext3>>,
) -> Result<CudaFriLayer, ProverError> {
    if cw.len < 2 || !cw.len.is_power_of_two() {
        return Err(ProverError::Internal("FRI layer length"));
    }
    let log_leaves = (cw.len / 2).trailing_zeros();
    let tree = merkle::build(
        dev,
        stream,
        Leaves::Rows {
            data: cw.words.ptr(stream),
            width: 6,
        },
        log_leaves,
        kestrel_core::stark::fri_cap_bits(log_leaves),
    )?;
    dev.sync(stream, "commit_fri_layer")?;
    Ok(CudaFriLayer {
        words: cw.words,
        len: cw.len,
        host,
        tree,
    })
}

/// Commits a host codeword (uploaded, counted as "fri layer").
pub fn commit_layer(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    values: Vec<Ext3>,
) -> Result<CudaFriLayer, ProverError> {
    if values.len() < 2 || !values.len().is_power_of_two() {
        return Err(ProverError::Internal("FRI layer length"));
    }
    let words = dev.upload(stream, &ext_words(&values), "fri layer")?;
    let len = values.len();
    commit_words(dev, stream, DeviceWords { words, len }, Some(values))
}

/// For each position: the sibling value and the path of its pair, gathered on the device
/// in one launch and one download.
pub fn open_batch(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    layer: &CudaFriLayer,
    positions: &[usize],
) -> Result<Vec<(Ext3, Vec<Digest>)>, ProverError> {
    if positions.iter().any(|&p| p >= layer.len) {
        return Err(ProverError::Internal("FRI position out of range"));
    }
    let at: Vec<(u64, u64)> = positions
        .iter()
        .map(|&p| ((p ^ 1) as u64, (p >> 1) as u64))
        .collect();
    let opened = merkle::open_batch(
        dev,
        stream,
        layer.words.ptr(stream),
        &at,
        3,
        1,
        3,
        (
            layer.tree.nodes.ptr(stream),
            layer.tree.log_leaves,
            layer.tree.log_leaves - layer.tree.cap_bits,
        ),
    )?;
    opened
        .into_iter()
        .map(|(v, path)| {
            let e = exts(&v)?;
            Ok((
                *e.first().ok_or(ProverError::Internal("FRI sibling"))?,
                path,
            ))
        })
        .collect()
}

/// The values of a device codeword, downloaded (counted as "fri final values").
pub fn download(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    cw: &DeviceWords,
) -> Result<Vec<Ext3>, ProverError> {
    exts(&dev.download(stream, &cw.words, 0, 3 * cw.len, "fri final values")?)
}
