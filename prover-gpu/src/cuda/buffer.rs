//! Typed device memory that owns its allocation: it knows its length and element type,
//! counts itself in the device's memory accounting, and frees on drop.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr};

use super::stats::Counters;

/// `len` elements of `T` in device memory (never managed memory).
pub struct DeviceBuffer<T: DeviceRepr> {
    slice: CudaSlice<T>,
    counters: Arc<Counters>,
    _t: PhantomData<T>,
}

impl<T: DeviceRepr> DeviceBuffer<T> {
    pub(crate) fn new(slice: CudaSlice<T>, counters: Arc<Counters>) -> Self {
        counters.alloc(slice.num_bytes() as u64);
        DeviceBuffer {
            slice,
            counters,
            _t: PhantomData,
        }
    }

    pub fn len(&self) -> usize {
        self.slice.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slice.len() == 0
    }

    pub fn num_bytes(&self) -> usize {
        self.slice.num_bytes()
    }

    /// The raw device address, for kernel arguments. The backend disables cudarc's event
    /// tracking and synchronises each operation's stream before it returns, so the address
    /// is valid for every launch that happens while `self` is alive.
    pub fn ptr(&self, stream: &CudaStream) -> u64 {
        let (p, _guard) = self.slice.device_ptr(stream);
        p
    }

    /// The address of element `index` (which may equal `len`).
    pub fn ptr_at(&self, stream: &CudaStream, index: usize) -> u64 {
        debug_assert!(index <= self.len());
        self.ptr(stream) + (index * std::mem::size_of::<T>()) as u64
    }

    pub(crate) fn slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    pub(crate) fn slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }

    /// The same memory, freed on `stream` when dropped (instead of the stream it was
    /// allocated on). The caller orders `stream` after the allocation (an event wait).
    pub(crate) fn rehome(self, stream: &Arc<CudaStream>) -> Self {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: each field is moved out exactly once and `this` is never dropped, so the
        // allocation is neither freed nor counted as freed here.
        let (slice, counters) =
            unsafe { (std::ptr::read(&this.slice), std::ptr::read(&this.counters)) };
        let len = slice.len();
        let ptr = slice.leak();
        DeviceBuffer {
            // SAFETY: `ptr` is a live allocation of `len` elements of `T` that nothing else
            // owns (leaked just above).
            slice: unsafe { stream.upgrade_device_ptr(ptr, len) },
            counters,
            _t: PhantomData,
        }
    }
}

impl<T: DeviceRepr> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        self.counters.free(self.slice.num_bytes() as u64);
    }
}

impl<T: DeviceRepr> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}]",
            std::any::type_name::<T>(),
            self.len()
        )
    }
}
