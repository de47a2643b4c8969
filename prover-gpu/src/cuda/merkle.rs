//! Keccak-256 Merkle trees on the device (kernels/merkle.cu): all levels in one buffer,
//! leaves first (`2^log_leaves` digests of 4 words), the root last.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::merkle::Digest;

use super::buffer::DeviceBuffer;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;

/// A device-resident tree and its root (downloaded once, 32 bytes).
pub struct DeviceTree {
    pub nodes: DeviceBuffer<u64>,
    pub log_leaves: u32,
    pub root: Digest,
}

/// Where leaf hashing reads its rows from.
pub enum Leaves {
    /// Row i = `data[c·stride + i]` for c < cols (a column-major LDE).
    Columns { data: u64, stride: u64, cols: u32 },
    /// Row i = `data[i·width .. (i+1)·width]` (row-major, e.g. FRI leaf pairs).
    Rows { data: u64, width: u32 },
}

/// Hashes `2^log_leaves` rows and every level above them.
pub fn build(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    leaves: Leaves,
    log_leaves: u32,
) -> Result<DeviceTree, CudaError> {
    let n = 1u64 << log_leaves;
    let nodes = dev.alloc::<u64>(stream, 4 * (2 * n as usize - 1), "merkle tree")?;
    let base = nodes.ptr(stream);
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
    let mut offset = 0u64;
    let mut count = n;
    while count > 1 {
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
        offset += count;
        count = half;
    }
    let words = dev.download(stream, &nodes, 4 * offset as usize, 4, "merkle roots")?;
    let mut root = [0u8; 32];
    for (dst, w) in root.chunks_exact_mut(8).zip(&words) {
        dst.copy_from_slice(&w.to_le_bytes());
    }
    Ok(DeviceTree {
        nodes,
        log_leaves,
        root: Digest(root),
    })
}

/// Gathers `count` values `data[row·row_stride + k·col_stride]` and the path of `leaf`,
/// and downloads them (counted as openings): `(values, path)`.
#[allow(clippy::too_many_arguments)]
pub fn open(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    data: u64,
    row: u64,
    row_stride: u64,
    col_stride: u64,
    count: u32,
    (nodes, log_leaves): (u64, u32),
    leaf: u64,
) -> Result<(Vec<u64>, Vec<Digest>), CudaError> {
    let depth = log_leaves as usize;
    let total = count as usize + 4 * depth;
    let out = dev.alloc::<u64>(stream, total, "opening")?;
    let cfg = cudarc::driver::LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    launch!(
        dev,
        stream,
        "ks_open_gather",
        cfg,
        [
            &out.ptr(stream),
            &data,
            &row,
            &row_stride,
            &col_stride,
            &count,
            &nodes,
            &log_leaves,
            &leaf
        ]
    );
    let words = dev.download(stream, &out, 0, total, "openings")?;
    let (values, path) = words.split_at(count as usize);
    let path = path
        .chunks_exact(4)
        .map(|d| {
            let mut b = [0u8; 32];
            for (dst, w) in b.chunks_exact_mut(8).zip(d) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
            Digest(b)
        })
        .collect();
    Ok((values.to_vec(), path))
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
/// `(row, leaf)`, `count` values `data[row·row_stride + k·col_stride]` and the path of
/// `leaf` in the tree at device address `nodes` (`2^log_leaves` leaves).
#[allow(clippy::too_many_arguments)]
pub fn open_batch(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    data: u64,
    at: &[(u64, u64)],
    row_stride: u64,
    col_stride: u64,
    count: u32,
    (nodes, log_leaves): (u64, u32),
) -> Result<Vec<Gathered>, CudaError> {
    if at.is_empty() {
        return Ok(Vec::new());
    }
    let q = at.len();
    let depth = log_leaves as usize;
    let each = count as usize + 4 * depth;
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
            &log_leaves
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
