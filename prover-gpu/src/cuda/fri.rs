//! FRI on the device (kernels/fri.cu, kernels/merkle.cu): folding and layer commitments.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::field::{Ext3, Felt, Field};

use super::backend::CudaFriLayer;
use super::device::{grid_for, launch, CudaDevice};
use super::logup::{ext_words, exts};
use super::merkle::{self, Leaves};
use crate::cpu::ntt::two_adic;
use crate::prover::ProverError;

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
    let half = cw.len() / 2;
    let log_half = half.trailing_zeros();
    let src = dev.upload_with(stream, 3 * cw.len(), "fri codeword", |off, dst| {
        for (i, d) in dst.iter_mut().enumerate() {
            let j = off + i;
            *d = cw[j / 3].coords()[j % 3].as_u64();
        }
    })?;
    let out = dev.alloc::<u64>(stream, 3 * half, "fri folded")?;
    let w_inv = two_adic(cw.len())
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
            &src.ptr(stream),
            &log_half,
            &b0,
            &b1,
            &b2,
            &w_inv.as_u64(),
            &two_shift_inv.as_u64()
        ]
    );
    exts(&dev.download(stream, &out, 0, out.len(), "fri folded")?)
}

pub fn commit_layer(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    values: Vec<Ext3>,
) -> Result<CudaFriLayer, ProverError> {
    if values.len() < 2 || !values.len().is_power_of_two() {
        return Err(ProverError::Internal("FRI layer length"));
    }
    let words = dev.upload(stream, &ext_words(&values), "fri layer")?;
    let log_leaves = (values.len() / 2).trailing_zeros();
    let tree = merkle::build(
        dev,
        stream,
        Leaves::Rows {
            data: words.ptr(stream),
            width: 6,
        },
        log_leaves,
    )?;
    Ok(CudaFriLayer {
        values,
        tree,
        host_tree: std::sync::OnceLock::new(),
    })
}

/// The sibling of `pos` (from the layer's host values, which the trait handed over) and the
/// path of its pair, read from the layer's tree downloaded once per layer.
pub fn open(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    layer: &CudaFriLayer,
    pos: usize,
) -> Result<(Ext3, Vec<kestrel_core::merkle::Digest>), ProverError> {
    let sib = *layer
        .values
        .get(pos ^ 1)
        .ok_or(ProverError::Internal("FRI position out of range"))?;
    let nodes = match layer.host_tree.get() {
        Some(t) => t,
        None => {
            let t = dev.download(
                stream,
                &layer.tree.nodes,
                0,
                layer.tree.nodes.len(),
                "fri tree download",
            )?;
            layer.host_tree.get_or_init(|| t)
        }
    };
    let depth = layer.tree.log_leaves as usize;
    let mut path = Vec::with_capacity(depth);
    let (mut offset, mut count, mut index) = (0usize, 1usize << depth, pos >> 1);
    for _ in 0..depth {
        let d = &nodes[4 * (offset + (index ^ 1))..][..4];
        let mut b = [0u8; 32];
        for (dst, w) in b.chunks_exact_mut(8).zip(d) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
        path.push(kestrel_core::merkle::Digest(b));
        offset += count;
        count /= 2;
        index >>= 1;
    }
    Ok((sib, path))
}
