//! What the CUDA backend holds: a main trace a fill built on the device, a committed
//! matrix's LDE, tree and source, and a FRI layer. The stages (fills, DEEP, quotient, FRI)
//! make and read these; the backend commits them.

use std::sync::Arc;

use kestrel_core::field::Ext3;
use kestrel_core::merkle::Digest;

use super::buffer::DeviceBuffer;
use super::merkle::DeviceTree;
use super::resident::Cached;
use crate::error::ProverError;

/// A committed matrix on the device: its LDE column-major (column c at `c · rows`, rows
/// bit-reversed), its rows' digests (its part of its round's tree), and the matrix it was
/// committed from, column-major (`width` columns of `2^log_n`, natural order) so that
/// evaluations and the LogUp build need no upload. All three are [`Cached`] under the
/// memory budget (see [`super::resident`]): the LDE is recomputed from the source, the
/// source and digests are spilled to the host.
pub struct CudaCommitted {
    pub(crate) lde: Cached,
    pub(crate) width: usize,
    pub(crate) log_rows: u32,
    /// `2^log_rows` row digests of 4 words.
    pub(crate) nodes: Cached,
    pub(crate) source: Cached,
    /// The source holds coefficients (a quotient's chunks), not evaluations.
    pub(crate) coefficients: bool,
}

/// How an operation gets a committed matrix's LDE (`CudaBackend::lde`).
pub(crate) type LdeOf<'a> =
    &'a dyn Fn(&CudaCommitted) -> Result<Arc<DeviceBuffer<u64>>, ProverError>;

/// What a commitment is made from (see [`CudaCommitted`]).
pub(crate) enum Source {
    /// A trace's values on `H_n`.
    Evaluations(DeviceBuffer<u64>),
    /// Coefficients (the quotient's chunks).
    Coefficients(DeviceBuffer<u64>),
}

impl CudaCommitted {
    pub fn rows(&self) -> usize {
        1 << self.log_rows
    }
    pub fn width(&self) -> usize {
        self.width
    }
}

/// A round's mixed-matrix tree on the device (all levels, leaves first; spilled to the
/// host under the budget) and its cap.
pub struct CudaRoundTree {
    pub(crate) nodes: Cached,
    pub(crate) log_leaves: u32,
    pub(crate) cap_bits: u32,
    pub(crate) cap: Vec<Digest>,
}

/// A committed FRI layer: its values (interleaved Ext3, device) and device tree, plus the
/// host values it was handed when committed through `commit_fri_layer`.
pub struct CudaFriLayer {
    pub(crate) words: DeviceBuffer<u64>,
    pub(crate) len: usize,
    /// log2 of the layer's arity (values per leaf).
    pub(crate) log_arity: u32,
    pub(crate) host: Option<Vec<Ext3>>,
    pub(crate) tree: DeviceTree,
}

/// A main trace in device memory: `width` columns of `2^log_height` rows, column-major,
/// natural row order. Committing it consumes it (it becomes the commitment's source).
pub struct CudaTrace {
    pub(crate) cols: DeviceBuffer<u64>,
    pub(crate) width: usize,
    pub(crate) log_height: u32,
}

impl CudaTrace {
    pub fn width(&self) -> usize {
        self.width
    }
    pub fn height(&self) -> usize {
        1 << self.log_height
    }
}
