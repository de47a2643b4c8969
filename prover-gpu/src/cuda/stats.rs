//! Accounting: dispatches per operation and per kernel, bytes moved each way by category,
//! and device memory (tracked by our own allocations, so the peak is exact for this backend).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A snapshot of the counters, for the stats JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CudaStats {
    /// Backend operations run on the device (`commit_trace`, `quotient`, …).
    pub ops: BTreeMap<String, u64>,
    /// Kernel launches by kernel name.
    pub kernels: BTreeMap<String, u64>,
    /// Microseconds each kernel ran, summed over its launches; only with
    /// `KESTREL_KERNEL_TIMES=1` (each launch is then synchronised before and after, so the
    /// proof runs slower and the phases' times are not representative).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub kernel_us: BTreeMap<String, u64>,
    /// Microseconds of host time in the steps of the device fills (`fill: …`: the host's
    /// preparation and enqueueing of each walk and fill, and the waits for the device),
    /// summed over calls.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub host_us: BTreeMap<String, u64>,
    /// Host→device bytes by category.
    pub h2d_bytes: BTreeMap<String, u64>,
    /// Device→host bytes by category.
    pub d2h_bytes: BTreeMap<String, u64>,
    /// Main traces built in device memory by a fill kernel, per table.
    pub fills: BTreeMap<String, u64>,
    /// Byte lookups counted on the device from a table's trace (for BITWISE), per table.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub byte_counts: BTreeMap<String, u64>,
    /// Highest device memory held at once by this backend's buffers.
    pub device_bytes_peak: u64,
    /// Device memory held now.
    pub device_bytes_now: u64,
    /// The device-memory budget every allocation fits under (free memory at start less a margin, or
    /// `--vram-budget`); `u64::MAX` when turned off.
    pub vram_budget: u64,
    /// The last plan: the proof's working set in bytes (see `cuda::plan`).
    pub vram_planned: u64,
    /// The smallest budget the last plan accepts: the working set, its slack and what was
    /// held for other reasons when it was checked.
    pub vram_floor: u64,
    /// Device memory mapped ahead of the proof while its run was recorded
    /// (`Backend::warm_memory`), summed over proofs.
    pub device_bytes_warmed: u64,
}

impl CudaStats {
    pub fn op(&self, name: &str) -> u64 {
        self.ops.get(name).copied().unwrap_or(0)
    }
    /// Device-resident builds of `table`'s main trace.
    pub fn fill(&self, table: &str) -> u64 {
        self.fills.get(table).copied().unwrap_or(0)
    }
    /// Device counts of `table`'s byte lookups.
    pub fn byte_counts(&self, table: &str) -> u64 {
        self.byte_counts.get(table).copied().unwrap_or(0)
    }
    pub fn h2d_total(&self) -> u64 {
        self.h2d_bytes.values().sum()
    }
    pub fn d2h_total(&self) -> u64 {
        self.d2h_bytes.values().sum()
    }
}

#[derive(Default)]
struct Maps {
    ops: BTreeMap<&'static str, u64>,
    kernels: BTreeMap<&'static str, u64>,
    kernel_us: BTreeMap<&'static str, u64>,
    host_us: BTreeMap<&'static str, u64>,
    h2d: BTreeMap<&'static str, u64>,
    d2h: BTreeMap<&'static str, u64>,
    fills: BTreeMap<&'static str, u64>,
    byte_counts: BTreeMap<&'static str, u64>,
}

/// The live counters, shared by the device and every buffer it allocated.
#[derive(Default)]
pub struct Counters {
    maps: Mutex<Maps>,
    now: AtomicU64,
    peak: AtomicU64,
    planned: AtomicU64,
    floor: AtomicU64,
    warmed: AtomicU64,
}

impl Counters {
    fn with<R>(&self, f: impl FnOnce(&mut Maps) -> R) -> R {
        // A poisoned lock only means another thread panicked mid-count; counts stay usable.
        let mut m = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut m)
    }
    pub fn op(&self, name: &'static str) {
        self.with(|m| *m.ops.entry(name).or_default() += 1);
    }
    pub fn kernel(&self, name: &'static str) {
        self.with(|m| *m.kernels.entry(name).or_default() += 1);
    }
    /// Whether launches are timed (`KESTREL_KERNEL_TIMES=1`, read once per process).
    pub fn timing(&self) -> bool {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ON.get_or_init(|| std::env::var("KESTREL_KERNEL_TIMES").is_ok_and(|v| v == "1"))
    }
    pub fn kernel_time(&self, name: &'static str, took: std::time::Duration) {
        self.with(|m| *m.kernel_us.entry(name).or_default() += took.as_micros() as u64);
    }
    /// Adds the host time of step `name` since `since`.
    pub fn host_time(&self, name: &'static str, since: std::time::Instant) {
        let us = since.elapsed().as_micros() as u64;
        self.with(|m| *m.host_us.entry(name).or_default() += us);
    }
    pub fn h2d(&self, category: &'static str, bytes: u64) {
        self.with(|m| *m.h2d.entry(category).or_default() += bytes);
    }
    pub fn fill(&self, table: &'static str) {
        self.with(|m| *m.fills.entry(table).or_default() += 1);
    }
    pub fn byte_counts(&self, table: &'static str) {
        self.with(|m| *m.byte_counts.entry(table).or_default() += 1);
    }
    pub fn d2h(&self, category: &'static str, bytes: u64) {
        self.with(|m| *m.d2h.entry(category).or_default() += bytes);
    }
    pub fn alloc(&self, bytes: u64) {
        let now = self.now.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }
    pub fn free(&self, bytes: u64) {
        self.now.fetch_sub(bytes, Ordering::Relaxed);
    }
    /// Records a plan: its working set and the smallest budget it accepts.
    pub fn planned(&self, bytes: u64, floor: u64) {
        self.planned.store(bytes, Ordering::Relaxed);
        self.floor.store(floor, Ordering::Relaxed);
    }
    /// Adds device memory mapped ahead of a proof.
    pub fn warmed(&self, bytes: u64) {
        self.warmed.fetch_add(bytes, Ordering::Relaxed);
    }
    /// Device memory held now.
    pub fn held(&self) -> u64 {
        self.now.load(Ordering::Relaxed)
    }
    /// Restarts the peak at the current level (e.g. before one proof).
    pub fn reset_peak(&self) {
        self.peak
            .store(self.now.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    pub fn snapshot(&self) -> CudaStats {
        let conv =
            |m: &BTreeMap<&'static str, u64>| m.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        self.with(|m| CudaStats {
            ops: conv(&m.ops),
            kernels: conv(&m.kernels),
            kernel_us: conv(&m.kernel_us),
            host_us: conv(&m.host_us),
            h2d_bytes: conv(&m.h2d),
            d2h_bytes: conv(&m.d2h),
            fills: conv(&m.fills),
            byte_counts: conv(&m.byte_counts),
            device_bytes_peak: self.peak.load(Ordering::Relaxed),
            device_bytes_now: self.now.load(Ordering::Relaxed),
            vram_budget: 0,
            vram_planned: self.planned.load(Ordering::Relaxed),
            vram_floor: self.floor.load(Ordering::Relaxed),
            device_bytes_warmed: self.warmed.load(Ordering::Relaxed),
        })
    }
    /// Clears every counter but the memory now held.
    pub fn reset(&self) {
        self.with(|m| *m = Maps::default());
        self.warmed.store(0, Ordering::Relaxed);
        self.reset_peak();
    }
}

/// Category of the packed per-table records uploaded for device fills.
pub const PACKED: &str = "packed op records";
