//! Merkle trees (TurboSHAKE128, kernels/keccak.cuh) on the device (kernels/merkle.cu): all levels in one buffer,
//! leaves first (`2^log_leaves` digests of 4 words), the root last; the cap (the level of
//! `2^cap_bits` nodes) downloaded once. Plain trees (FRI layers, [`build`]) and the
//! mixed-matrix trees of rounds ([`build_mixed`], `kestrel_core::merkle` has the
//! definition; mirrors `cpu/merkle.rs`).

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::merkle::Digest;

use super::buffer::DeviceBuffer;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;

/// A device-resident tree and its cap (downloaded once, `2^cap_bits` digests).
pub struct DeviceTree {
    pub nodes: DeviceBuffer<u64>,
    pub log_leaves: u32,
    pub cap_bits: u32,
    pub cap: Vec<Digest>,
}

/// Where leaf hashing reads its rows from.
pub enum Leaves {
    /// Row i = `data[c·stride + i]` for c < cols (a column-major LDE).
    Columns { data: u64, stride: u64, cols: u32 },
    /// Row i = `data[i·width .. (i+1)·width]` (row-major, e.g. FRI leaf pairs).
    Rows { data: u64, width: u32 },
}

/// Hashes `2^log_leaves` rows into `out` (at least `4·2^log_leaves` words).
fn hash_rows(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    base: u64,
    leaves: Leaves,
    n: u64,
) -> Result<(), CudaError> {
    match leaves {
        Leaves::Columns { data, stride, cols } => {
            launch!(
                dev,
                stream,
                "ks_merkle_leaves_cols",
                grid_for(n, 128),
                [&base, &data, &stride, &n, &cols]
            );
        }
        Leaves::Rows { data, width } => {
            launch!(
                dev,
                stream,
                "ks_merkle_leaves_rows",
                grid_for(n, 128),
                [&base, &data, &n, &width]
            );
        }
    }
    Ok(())
}

/// The digests of `2^log_rows` rows (a matrix's part of its round's tree): `4·2^log_rows`
/// words.
pub fn row_digests(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    leaves: Leaves,
    log_rows: u32,
) -> Result<DeviceBuffer<u64>, CudaError> {
    let n = 1u64 << log_rows;
    let out = dev.alloc::<u64>(stream, 4 * n as usize, "row digests")?;
    hash_rows(dev, stream, out.ptr(stream), leaves, n)?;
    Ok(out)
}

/// Hashes one level of `count` nodes from the level below (at word offsets of `base`).
fn level_up(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    base: u64,
    offset: u64,
    count: u64,
) -> Result<(), CudaError> {
    let input = base + 32 * offset;
    let output = base + 32 * (offset + count);
    let half = count / 2;
    launch!(
        dev,
        stream,
        "ks_merkle_level",
        grid_for(half, 128),
        [&output, &input, &half]
    );
    Ok(())
}

/// Downloads the `2^cap_bits` nodes of the level that many above the root of a tree of
/// `2^log_leaves` leaves.
fn download_cap(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    nodes: &DeviceBuffer<u64>,
    log_leaves: u32,
    cap_bits: u32,
) -> Result<Vec<Digest>, CudaError> {
    let offset = (1u64 << (log_leaves + 1)) - (1u64 << (cap_bits + 1));
    let words = dev.download(
        stream,
        nodes,
        4 * offset as usize,
        4 << cap_bits,
        "merkle caps",
    )?;
    Ok(words.chunks_exact(4).map(digest).collect())
}

/// Hashes `2^log_leaves` rows and every level above them; the cap of `2^cap_bits` nodes.
pub fn build(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    leaves: Leaves,
    log_leaves: u32,
    cap_bits: u32,
) -> Result<DeviceTree, CudaError> {
    let n = 1u64 << log_leaves;
    let nodes = dev.alloc::<u64>(stream, 4 * (2 * n as usize - 1), "merkle tree")?;
    let base = nodes.ptr(stream);
    hash_rows(dev, stream, base, leaves, n)?;
    let mut offset = 0u64;
    let mut count = n;
    while count > 1 {
        level_up(dev, stream, base, offset, count)?;
        offset += count;
        count /= 2;
    }
    let cap = download_cap(dev, stream, &nodes, log_leaves, cap_bits)?;
    Ok(DeviceTree {
        nodes,
        log_leaves,
        cap_bits,
        cap,
    })
}

/// A round's mixed-matrix tree over matrices given by their row digests on the device
/// (`(address, log2 of the row count)`, table order, at least one): the leaf level is the
/// first tallest matrix's digests with the other tallest ones injected, and each level
/// above is hashed from its children, then injected with the digests of the matrices of
/// its width, in order. All levels to the root (the layout of [`build`]); the cap of
/// `2^cap_bits` nodes.
pub fn build_mixed(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    matrices: &[(u64, u32)],
    cap_bits: u32,
) -> Result<DeviceTree, CudaError> {
    let log_leaves = matrices.iter().map(|m| m.1).max().unwrap_or(0);
    let n = 1u64 << log_leaves;
    let nodes = dev.alloc::<u64>(stream, 4 * (2 * n as usize - 1), "round tree")?;
    let base = nodes.ptr(stream);
    let inject = |at: u64, log: u32, first: bool| -> Result<(), CudaError> {
        let mut assign = u32::from(first);
        let count = 1u64 << log;
        for (digests, _) in matrices.iter().filter(|m| m.1 == log) {
            launch!(
                dev,
                stream,
                "ks_merkle_inject",
                grid_for(count, 128),
                [&at, digests, &count, &assign]
            );
            assign = 0;
        }
        Ok(())
    };
    inject(base, log_leaves, true)?;
    let mut offset = 0u64;
    let mut count = n;
    let mut log = log_leaves;
    while count > 1 {
        level_up(dev, stream, base, offset, count)?;
        offset += count;
        count /= 2;
        log -= 1;
        inject(base + 32 * offset, log, false)?;
    }
    let cap = download_cap(dev, stream, &nodes, log_leaves, cap_bits)?;
    Ok(DeviceTree {
        nodes,
        log_leaves,
        cap_bits,
        cap,
    })
}

/// One gathered opening: the values and the Merkle path.
pub type Gathered = (Vec<u64>, Vec<Digest>);

fn digest(words: &[u64]) -> Digest {
    let mut b = [0u8; 32];
    for (dst, w) in b.chunks_exact_mut(8).zip(words) {
        dst.copy_from_slice(&w.to_le_bytes());
    }
    Digest(b)
}

/// A batch of openings in one launch and one download (counted as openings): for each
/// `(row, leaf)`, `count` values `data[row·row_stride + k·col_stride]` and the first
/// `depth` siblings of the path of `leaf` in the tree at device address `nodes`
/// (`2^log_leaves` leaves; `depth` 0: values only).
#[allow(clippy::too_many_arguments)]
pub fn open_batch(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    data: u64,
    at: &[(u64, u64)],
    row_stride: u64,
    col_stride: u64,
    count: u32,
    (nodes, log_leaves, depth): (u64, u32, u32),
) -> Result<Vec<Gathered>, CudaError> {
    let q = at.len();
    let each = count as usize + 4 * depth.min(log_leaves) as usize;
    if each == 0 {
        // Nothing to gather (a path that ends at the cap, no values).
        return Ok(vec![(Vec::new(), Vec::new()); q]);
    }
    let idx: Vec<u64> = at
        .iter()
        .map(|a| a.0)
        .chain(at.iter().map(|a| a.1))
        .collect();
    let idx = dev.upload(stream, &idx, "opening positions")?;
    let out = dev.alloc::<u64>(stream, q * each, "opening")?;
    let cfg = cudarc::driver::LaunchConfig {
        grid_dim: (q.min(65535) as u32, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    launch!(
        dev,
        stream,
        "ks_open_gather_batch",
        cfg,
        [
            &out.ptr(stream),
            &data,
            &idx.ptr(stream),
            &(q as u32),
            &row_stride,
            &col_stride,
            &count,
            &nodes,
            &log_leaves,
            &depth.min(log_leaves)
        ]
    );
    let words = dev.download(stream, &out, 0, q * each, "openings")?;
    Ok(words
        .chunks_exact(each)
        .map(|o| {
            let (values, path) = o.split_at(count as usize);
            (values.to_vec(), path.chunks_exact(4).map(digest).collect())
        })
        .collect())
}
