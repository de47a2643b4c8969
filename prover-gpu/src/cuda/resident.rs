//! Device memory under a budget.
//!
//! Every device buffer counts against one budget: the free device memory when the backend
//! started, or `--vram-budget`. Buffers are counted the moment they are allocated, so what
//! is left for the next operation is always `budget − held`.
//!
//! A committed matrix's buffers are [`Cached`]: they stay on the device while memory allows,
//! and an allocation that would pass the budget first evicts the least recently used one
//! that no operation is reading:
//! - its LDE ([`Kind::Recompute`], `blowup` times its source) is dropped, and recomputed from
//!   the source with the kernels that first made it when an operation needs it again;
//! - its source (trace on `H_n`, quotient coefficients) and its Merkle tree
//!   ([`Kind::Spill`]) are immutable once committed: the first eviction downloads them to
//!   host memory (counted as "spill"), and an operation that needs them uploads them again
//!   (counted as "spill reload"). LDEs go first: dropping one costs nothing.
//!
//! The values an operation reads are the same either way, so every proof byte is too. An
//! allocation that still does not fit is an error naming the buffer, never a silent
//! fallback.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::buffer::DeviceBuffer;
use super::error::CudaError;

/// What a budget needs of the device whose memory it keeps (`CudaDevice` implements it):
/// the bytes held now, a counted download of an evicted buffer, a counted upload of a
/// reloaded one, and the operation counter.
pub trait Spill {
    fn held(&self) -> u64;
    /// The buffer's words on the host (counted as `"spill"` bytes).
    ///
    /// # Errors
    /// A failed download.
    fn download_words(&self, buf: &DeviceBuffer<u64>) -> Result<Vec<u64>, CudaError>;
    /// The words on the device again, synchronised (counted as `"spill reload"` bytes).
    ///
    /// # Errors
    /// A failed upload.
    fn upload_words(&self, words: &[u64]) -> Result<DeviceBuffer<u64>, CudaError>;
    fn count(&self, op: &'static str);
}

/// No budget: allocations are limited only by the device.
pub const UNLIMITED: u64 = u64::MAX;

/// What an eviction does with a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Dropped; the owner recomputes it.
    Recompute,
    /// Kept on the host, uploaded again on demand.
    Spill,
}

/// A device buffer the budget may take back (see the module doc).
pub struct Cached {
    cell: Arc<Cell>,
    len: usize,
}

struct Cell {
    kind: Kind,
    slot: Mutex<Slot>,
}

struct Slot {
    device: Option<Arc<DeviceBuffer<u64>>>,
    /// The host copy of a spilled buffer (kept after a reload: the data never changes).
    host: Option<Arc<Vec<u64>>>,
    /// Last use, on the budget's clock (for least-recently-used eviction).
    used: u64,
}

impl Cached {
    /// Length in words.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The budget and the evictable buffers of one device.
pub struct Budget {
    limit: AtomicU64,
    clock: AtomicU64,
    cache: Mutex<Vec<Weak<Cell>>>,
    /// Serialises "check, evict, allocate" so concurrent allocations (the fills run on
    /// several streams) cannot together pass the budget.
    room: Mutex<()>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means another thread panicked; the data stays consistent (each
    // critical section is a few assignments or a scan).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An idle buffer on the device: not read by any operation now.
fn idle(slot: &Slot) -> Option<&Arc<DeviceBuffer<u64>>> {
    slot.device.as_ref().filter(|b| Arc::strong_count(b) == 1)
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
    /// cached buffers as needed.
    ///
    /// # Errors
    /// [`CudaError::Budget`] when evicting every idle buffer still leaves too little room;
    /// a failed spill download.
    pub fn allocate<R>(
        &self,
        dev: &impl Spill,
        bytes: u64,
        what: &'static str,
        alloc: impl FnOnce() -> Result<R, CudaError>,
    ) -> Result<R, CudaError> {
        let limit = self.limit();
        if limit == UNLIMITED {
            return alloc();
        }
        let _room = lock(&self.room);
        // Each round takes one buffer off the device, and only the prover's own thread
        // puts them back; the bound is a guard, not a limit reached in practice.
        let mut rounds = lock(&self.cache).len() + 1;
        loop {
            let held = dev.held();
            if held.saturating_add(bytes) <= limit {
                return alloc();
            }
            if rounds == 0 || !self.evict_one(dev)? {
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

    /// The least recently used idle buffer, LDEs before spills.
    fn victim(&self) -> Option<Arc<Cell>> {
        let mut cache = lock(&self.cache);
        cache.retain(|w| w.strong_count() > 0);
        cache
            .iter()
            .filter_map(Weak::upgrade)
            .filter_map(|cell| {
                let rank = {
                    let s = lock(&cell.slot);
                    idle(&s).map(|_| (cell.kind == Kind::Spill, s.used))
                };
                rank.map(|r| (r, cell))
            })
            .min_by_key(|(r, _)| *r)
            .map(|(_, cell)| cell)
    }

    /// Takes the least recently used idle buffer off the device; false if there is none.
    fn evict_one(&self, dev: &impl Spill) -> Result<bool, CudaError> {
        let Some(cell) = self.victim() else {
            return Ok(false);
        };
        let mut s = lock(&cell.slot);
        let Some(buf) = idle(&s).cloned() else {
            // Taken by an operation since it was chosen: the caller looks again.
            return Ok(true);
        };
        if cell.kind == Kind::Spill && s.host.is_none() {
            let words = dev.download_words(&buf)?;
            s.host = Some(Arc::new(words));
            dev.count("spill");
        }
        s.device = None;
        drop(s);
        // The last reference: the buffer frees itself (stream-ordered, after the work that
        // used it, which each operation synchronised before returning).
        drop(buf);
        dev.count(match cell.kind {
            Kind::Recompute => "lde evicted",
            Kind::Spill => "spill evicted",
        });
        Ok(true)
    }

    /// Bytes of cached buffers no operation holds (what evictions could give back now).
    pub fn evictable(&self) -> u64 {
        lock(&self.cache)
            .iter()
            .filter_map(Weak::upgrade)
            .map(|cell| idle(&lock(&cell.slot)).map_or(0, |b| b.num_bytes() as u64))
            .sum()
    }

    /// A new cached buffer, on the device.
    pub fn cache(&self, buf: DeviceBuffer<u64>, kind: Kind) -> Cached {
        let len = buf.len();
        let cell = Arc::new(Cell {
            kind,
            slot: Mutex::new(Slot {
                device: Some(Arc::new(buf)),
                host: None,
                used: self.tick(),
            }),
        });
        lock(&self.cache).push(Arc::downgrade(&cell));
        Cached { cell, len }
    }

    /// The buffer if it is on the device (marking it used).
    pub fn get(&self, c: &Cached) -> Option<Arc<DeviceBuffer<u64>>> {
        let mut s = lock(&c.cell.slot);
        s.used = self.tick();
        s.device.clone()
    }

    /// Puts a recomputed buffer back on the device.
    pub fn put(&self, c: &Cached, buf: Arc<DeviceBuffer<u64>>) {
        let mut s = lock(&c.cell.slot);
        s.used = self.tick();
        s.device = Some(buf);
    }

    /// A spillable buffer on the device, uploaded again from its host copy if it was
    /// evicted (counted as "spill reload").
    ///
    /// # Errors
    /// A failed upload; a recompute-kind buffer that is not on the device.
    pub fn load(&self, dev: &impl Spill, c: &Cached) -> Result<Arc<DeviceBuffer<u64>>, CudaError> {
        let host = {
            let mut s = lock(&c.cell.slot);
            s.used = self.tick();
            if let Some(b) = &s.device {
                return Ok(b.clone());
            }
            s.host.clone().ok_or(CudaError::Limit {
                op: "reload",
                detail: "an evicted buffer with no host copy".into(),
            })?
        };
        // Uploaded with no lock held: the allocation may evict other buffers.
        let buf = Arc::new(dev.upload_words(&host)?);
        dev.count("spill reload");
        self.put(c, buf.clone());
        Ok(buf)
    }
}
