//! Device memory under a budget.
//!
//! Every device buffer counts against one budget: the free device memory when the backend
//! started, or `--vram-budget`. Resident buffers (preprocessed commitments, twiddles, main
//! traces, Merkle trees, codewords) are counted the moment they are allocated, so what is
//! left for the next operation is always `budget − held`.
//!
//! A committed matrix keeps its source on the device (the trace on `H_n`, or the quotient's
//! coefficients) and its Merkle tree. Its LDE — `blowup` times the source — is only a cache:
//! [`Lde`] holds it while memory allows, and an allocation that would pass the budget first
//! evicts the least recently used LDE that no operation is reading. An operation that needs
//! an evicted LDE recomputes it from the source with the same kernels, so its values (and
//! every proof byte) are the same; recomputations and evictions are counted in the stats.
//! An allocation that still does not fit is an error naming the buffer, never a silent
//! fallback.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::buffer::DeviceBuffer;
use super::error::CudaError;
use super::stats::Counters;

/// No budget: allocations are limited only by the device.
pub const UNLIMITED: u64 = u64::MAX;

/// One committed LDE: on the device while the budget allows, else recomputed on demand.
pub struct Lde {
    cell: Arc<LdeCell>,
    len: usize,
}

struct LdeCell {
    slot: Mutex<Slot>,
}

struct Slot {
    buf: Option<Arc<DeviceBuffer<u64>>>,
    /// Last use, on the budget's clock (for least-recently-used eviction).
    used: u64,
}

impl Lde {
    /// Length in words.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The budget and the evictable LDEs of one device.
pub struct Budget {
    limit: AtomicU64,
    clock: AtomicU64,
    cache: Mutex<Vec<Weak<LdeCell>>>,
    /// Serialises "check, evict, allocate" so concurrent allocations (the fills run on
    /// several streams) cannot together pass the budget.
    room: Mutex<()>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means another thread panicked; the data stays consistent (each
    // critical section is a single assignment or a scan).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Budget {
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit: AtomicU64::new(limit),
            clock: AtomicU64::new(0),
            cache: Mutex::new(Vec::new()),
            room: Mutex::new(()),
        }
    }

    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::SeqCst)
    }

    pub fn set_limit(&self, limit: u64) {
        self.limit.store(limit, Ordering::SeqCst);
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// Runs `alloc` (which allocates `bytes`) once the bytes fit under the budget, evicting
    /// cached LDEs as needed.
    ///
    /// # Errors
    /// [`CudaError::Budget`] when evicting every idle LDE still leaves too little room.
    pub fn allocate<R>(
        &self,
        counters: &Counters,
        bytes: u64,
        what: &'static str,
        alloc: impl FnOnce() -> Result<R, CudaError>,
    ) -> Result<R, CudaError> {
        let limit = self.limit();
        if limit == UNLIMITED {
            return alloc();
        }
        let _room = lock(&self.room);
        // Each round takes one LDE out of its slot, and only the prover's own thread puts
        // them back; the bound is a guard, not a limit reached in practice.
        let mut rounds = lock(&self.cache).len() + 1;
        loop {
            let held = counters.held();
            if held.saturating_add(bytes) <= limit {
                return alloc();
            }
            if rounds == 0 || !self.evict_one(counters) {
                return Err(CudaError::Budget {
                    what,
                    bytes,
                    held,
                    budget: limit,
                });
            }
            rounds -= 1;
        }
    }

    /// Drops the least recently used LDE that no operation holds; false if there is none.
    fn evict_one(&self, counters: &Counters) -> bool {
        let victim = {
            let mut cache = lock(&self.cache);
            cache.retain(|w| w.strong_count() > 0);
            cache
                .iter()
                .filter_map(Weak::upgrade)
                .filter_map(|cell| {
                    let used = {
                        let s = lock(&cell.slot);
                        match &s.buf {
                            Some(b) if Arc::strong_count(b) == 1 => Some(s.used),
                            _ => None,
                        }
                    };
                    used.map(|u| (u, cell))
                })
                .min_by_key(|(u, _)| *u)
                .map(|(_, cell)| cell)
        };
        let Some(cell) = victim else {
            return false;
        };
        // Dropped outside every lock: the buffer frees itself (stream-ordered, after the
        // work that used it, which each operation synchronised before returning).
        let buf = lock(&cell.slot).buf.take();
        drop(buf);
        counters.op("lde evicted");
        true
    }

    /// Bytes of cached LDEs no operation holds (what evictions could give back now).
    pub fn evictable(&self) -> u64 {
        lock(&self.cache)
            .iter()
            .filter_map(Weak::upgrade)
            .map(|cell| match &lock(&cell.slot).buf {
                Some(b) if Arc::strong_count(b) == 1 => b.num_bytes() as u64,
                _ => 0,
            })
            .sum()
    }

    /// A new LDE, cached.
    pub fn cache(&self, buf: DeviceBuffer<u64>) -> Lde {
        let len = buf.len();
        let cell = Arc::new(LdeCell {
            slot: Mutex::new(Slot {
                buf: Some(Arc::new(buf)),
                used: self.tick(),
            }),
        });
        lock(&self.cache).push(Arc::downgrade(&cell));
        Lde { cell, len }
    }

    /// The LDE if it is still cached (marking it used).
    pub fn get(&self, lde: &Lde) -> Option<Arc<DeviceBuffer<u64>>> {
        let mut s = lock(&lde.cell.slot);
        s.used = self.tick();
        s.buf.clone()
    }

    /// Caches a recomputed LDE again.
    pub fn put(&self, lde: &Lde, buf: Arc<DeviceBuffer<u64>>) {
        let mut s = lock(&lde.cell.slot);
        s.used = self.tick();
        s.buf = Some(buf);
    }
}
