//! FRI on the device (kernels/fri.cu, kernels/merkle.cu): folding, joins and layer
//! commitments. Codewords are interleaved Ext3 values (3 words each) in device memory.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::field::{Ext3, Felt, Field};

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

/// Folds a committed layer by its arity: binary folds with `β, β², …` on
/// `shift·H, shift²·H², …`, each intermediate codeword freed once folded.
pub fn fold_layer(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    layer: &CudaFriLayer,
    beta: Ext3,
    shift: Felt,
) -> Result<DeviceWords, ProverError> {
    let (mut beta, mut shift) = (beta, shift);
    let mut cw = fold_device(dev, stream, layer.words.ptr(stream), layer.len, beta, shift)?;
    for _ in 1..layer.log_arity {
        beta = beta.square();
        shift = shift.square();
        cw = fold_device(dev, stream, cw.words.ptr(stream), cw.len, beta, shift)?;
    }
    Ok(cw)
}

/// Commits a device codeword as a FRI layer of arity `2^log_arity` (leaf j = values
/// `j·2^a … (j+1)·2^a − 1`); `host` is the host copy it came from, if any.
pub fn commit_words(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    cw: DeviceWords,
    log_arity: u32,
    host: Option<Vec<Ext3>>,
) -> Result<CudaFriLayer, ProverError> {
    if log_arity == 0 || cw.len < 1 << log_arity || !cw.len.is_power_of_two() {
        return Err(ProverError::Internal("FRI layer shorter than its arity"));
    }
    let log_leaves = cw.len.trailing_zeros() - log_arity;
    let tree = merkle::build(
        dev,
        stream,
        Leaves::Rows {
            data: cw.words.ptr(stream),
            width: 3 << log_arity,
        },
        log_leaves,
        kestrel_core::stark::fri_cap_bits(log_leaves),
    )?;
    dev.sync(stream, "commit_fri_layer")?;
    Ok(CudaFriLayer {
        words: cw.words,
        len: cw.len,
        log_arity,
        host,
        tree,
    })
}

/// Commits a host codeword (uploaded, counted as "fri layer").
pub fn commit_layer(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    values: Vec<Ext3>,
    log_arity: u32,
) -> Result<CudaFriLayer, ProverError> {
    if log_arity == 0 || values.len() < 1 << log_arity || !values.len().is_power_of_two() {
        return Err(ProverError::Internal("FRI layer shorter than its arity"));
    }
    let words = dev.upload(stream, &ext_words(&values), "fri layer")?;
    let len = values.len();
    commit_words(
        dev,
        stream,
        DeviceWords { words, len },
        log_arity,
        Some(values),
    )
}

/// For each position: the other values of its leaf (leaf order) and the leaf's path,
/// gathered on the device in one launch and one download.
pub fn open_batch(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    layer: &CudaFriLayer,
    positions: &[usize],
) -> Result<Vec<crate::backend::FriOpening>, ProverError> {
    if positions.iter().any(|&p| p >= layer.len) {
        return Err(ProverError::Internal("FRI position out of range"));
    }
    let a = layer.log_arity;
    let at: Vec<(u64, u64)> = positions
        .iter()
        .map(|&p| ((p >> a) as u64, (p >> a) as u64))
        .collect();
    let opened = merkle::open_batch(
        dev,
        stream,
        layer.words.ptr(stream),
        &at,
        3 << a,
        1,
        3 << a,
        (
            layer.tree.nodes.ptr(stream),
            layer.tree.log_leaves,
            layer.tree.log_leaves - layer.tree.cap_bits,
        ),
    )?;
    opened
        .into_iter()
        .zip(positions)
        .map(|((v, path), &p)| {
            let own = p & ((1 << a) - 1);
            let siblings = exts(&v)?
                .into_iter()
                .enumerate()
                .filter(|&(k, _)| k != own)
                .map(|(_, e)| e)
                .collect();
            Ok((siblings, path))
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
