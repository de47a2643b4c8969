//! The device: context, embedded kernels, a small stream pool, pinned staging for
//! transfers, and the counters every buffer and launch reports to.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaStream, DeviceRepr, PinnedHostSlice, ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;
use rayon::prelude::*;

use super::buffer::DeviceBuffer;
use super::error::CudaError;
use super::resident::{Budget, Spill};
use super::stats::Counters;

mod embedded {
    // (file stem, sm_XX cubin, compute_XX PTX) for every kernels/*.cu, from build.rs.
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

/// Every kernel the backend launches, by module (= kernels/<module>.cu; the table fills
/// are `rv/<table>`).
const KERNELS: &[(&str, &[&str])] = &[
    ("bench", &["ks_copy"]),
    ("bytes", &["ks_bytes", "ks_bytes_add"]),
    ("deep", &["ks_deep_combine", "ks_deep_finish"]),
    (
        "eval",
        &["ks_eval_weights", "ks_weighted_col_sums", "ks_sum_partials"],
    ),
    ("fri", &["ks_fri_fold", "ks_ext_axpy"]),
    ("grind", &["ks_grind"]),
    (
        "logup",
        &[
            "ks_logup_eval",
            "ks_ext_inverse",
            "ks_logup_rows",
            "ks_scan_block",
            "ks_scan_add",
            "ks_logup_running",
        ],
    ),
    (
        "merkle",
        &[
            "ks_merkle_leaves_cols",
            "ks_merkle_leaves_rows",
            "ks_merkle_level",
            "ks_merkle_inject",
            "ks_open_gather_batch",
        ],
    ),
    (
        "ntt",
        &[
            "ks_ntt_twiddles",
            "ks_ntt_dif_group",
            "ks_rows_to_cols",
            "ks_cols_to_rows",
            "ks_bitrev_scale",
            "ks_block_powers",
        ],
    ),
    (
        "quotient",
        &["ks_quotient_eval", "ks_quotient_split", "ks_quotient_at"],
    ),
    // The table fills, one module per table (kernels/rv/<table>.cu), and the ALU tables'
    // distinct rows (kernels/rv/alu_ops.cu).
    (
        "rv/alu_ops",
        &[
            "ks_alu_count",
            "ks_alu_list",
            "ks_alu_keys",
            "ks_alu_heads_count",
            "ks_alu_heads",
            "ks_alu_rows",
            "ks_alu_bounds",
        ],
    ),
    ("rv/cpu", &["ks_fill_cpu"]),
    ("rv/decode", &["ks_fill_decode_mult"]),
    ("rv/dvrm", &["ks_fill_dvrm"]),
    ("rv/ecall", &["ks_fill_ecall"]),
    ("rv/eq", &["ks_fill_eq"]),
    ("rv/io", &["ks_fill_io"]),
    ("rv/load", &["ks_fill_load"]),
    ("rv/lt", &["ks_fill_lt"]),
    (
        "rv/memw",
        &[
            "ks_fill_memw_a",
            "ks_fill_memw_s",
            "ks_memwalk_count",
            "ks_memwalk_offsets",
            "ks_memwalk_list",
            "ks_memwalk_sort_hist",
            "ks_memwalk_sort_scan",
            "ks_memwalk_scan_reduce",
            "ks_memwalk_scan_apply",
            "ks_memwalk_sort_scatter",
            "ks_memwalk_tiles",
            "ks_memwalk_carry",
            "ks_memwalk_values",
            "ks_memwalk_records",
        ],
    ),
    (
        "rv/memw_r",
        &[
            "ks_fill_memw_r",
            "ks_regwalk_expand",
            "ks_regwalk_summary",
            "ks_regwalk_scan",
            "ks_regwalk",
            "ks_regwalk_branches",
        ],
    ),
    ("rv/mul", &["ks_fill_mul"]),
    ("rv/page", &["ks_fill_page"]),
    ("rv/page0", &["ks_fill_page0"]),
    ("rv/register", &["ks_fill_register"]),
    ("rv/shift", &["ks_fill_shift"]),
    ("rv/store", &["ks_fill_store"]),
];

/// Streams in the pool; each backend operation runs on one and synchronises it.
const STREAMS: usize = 4;
/// Pinned staging buffer size in u64 words (8 MiB); transfers go through it in chunks, an
/// upload's next chunk filled while the last one is copied.
const STAGING_WORDS: usize = 1 << 20;
/// Words per task when an upload's chunk is filled on the host threads: small, because a
/// word can stand for many steps (a tag word of the register walk's results covers 32).
const FILL_PIECE: usize = 1 << 12;

/// One CUDA device with the kernels loaded.
pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    streams: Vec<Arc<CudaStream>>,
    /// Uploads' own stream (not in the pool): an upload's copies never queue behind the
    /// kernels of the stream that will read it, so the host waits for the copies alone.
    uploads: Arc<CudaStream>,
    next_stream: AtomicUsize,
    functions: HashMap<&'static str, CudaFunction>,
    pub(crate) counters: Arc<Counters>,
    /// Every allocation fits under it; cached LDEs make room (see [`super::resident`]).
    pub(crate) budget: Budget,
    /// Free device memory when the backend started: the default budget.
    free_at_start: u64,
    /// Two pinned buffers: uploads fill one while the other is being copied.
    staging: Mutex<Vec<PinnedHostSlice<u64>>>,
    /// Fault injection (tests): allocations left before one fails (0 = off).
    fail_alloc_in: AtomicU64,
    /// Fault injection (tests): the next fill launch fails.
    fail_fill_launch: AtomicBool,
    /// Fault injection (tests): the next launch of this fill kernel fails.
    fail_fill_kernel: Mutex<Option<&'static str>>,
    name: String,
    memory: usize,
}

impl CudaDevice {
    /// How many devices the driver lists.
    ///
    /// # Errors
    /// [`CudaError::NoDevice`] without a driver.
    pub fn count() -> Result<usize, CudaError> {
        // SAFETY: only probes whether the driver library can be opened.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(CudaError::NoDevice(
                "the CUDA driver library (libcuda) is not installed".into(),
            ));
        }
        let count = CudaContext::device_count()
            .map_err(|e| CudaError::NoDevice(format!("cuInit/cuDeviceGetCount: {e}")))?;
        Ok(count.max(0) as usize)
    }

    /// Opens device `ordinal` and loads the embedded kernels.
    ///
    /// # Errors
    /// [`CudaError::NoDevice`] without a driver or device; [`CudaError::Module`] when the
    /// embedded cubin and PTX both fail to load (e.g. a driver older than CUDA 13.0).
    pub fn new(ordinal: usize) -> Result<Arc<CudaDevice>, CudaError> {
        // SAFETY: only probes whether the driver library can be opened.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(CudaError::NoDevice(
                "the CUDA driver library (libcuda) is not installed".into(),
            ));
        }
        let count = CudaContext::device_count()
            .map_err(|e| CudaError::NoDevice(format!("cuInit/cuDeviceGetCount: {e}")))?;
        if ordinal >= count.max(0) as usize {
            return Err(CudaError::NoDevice(format!(
                "device {ordinal} requested, {count} present"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| {
            CudaError::NoDevice(format!("creating a context on device {ordinal}: {e}"))
        })?;
        // Each operation synchronises its own stream before returning, so cudarc's per-buffer
        // events are not needed.
        // SAFETY: every operation runs on one stream and synchronises it before returning;
        // buffers outlive the work that uses them (see DeviceBuffer::ptr).
        unsafe { ctx.disable_event_tracking() };
        // Keep freed device memory in the stream-ordered pool instead of returning it to the
        // driver at every synchronisation (the default), which re-maps pages each operation.
        // SAFETY: plain driver calls on this context's device with valid out-pointers.
        unsafe {
            use cudarc::driver::sys;
            let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
            sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device())
                .result()
                .map_err(CudaError::driver("cuDeviceGetDefaultMemPool", ""))?;
            let mut threshold = u64::MAX;
            sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut threshold as *mut u64 as *mut std::ffi::c_void,
            )
            .result()
            .map_err(CudaError::driver(
                "cuMemPoolSetAttribute",
                "release threshold",
            ))?;
        }
        let name = ctx
            .name()
            .map_err(CudaError::driver("cuDeviceGetName", ""))?;
        let memory = ctx
            .total_mem()
            .map_err(CudaError::driver("cuDeviceTotalMem", ""))?;
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent", ""))?;
        let streams = (0..STREAMS)
            .map(|i| {
                ctx.new_stream()
                    .map_err(CudaError::driver("cuStreamCreate", format!("stream {i}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let uploads = ctx
            .new_stream()
            .map_err(CudaError::driver("cuStreamCreate", "upload stream"))?;
        let mut functions = HashMap::new();
        for &(module, kernels) in KERNELS.iter().chain(super::gen_programs::MODULES) {
            let (_, cubin, ptx) = embedded::MODULES
                .iter()
                .find(|(m, _, _)| *m == module)
                .ok_or_else(|| CudaError::Module {
                    what: module.into(),
                    detail: "not embedded in this binary".into(),
                })?;
            let loaded = match ctx.load_module(Ptx::from_binary(cubin.to_vec())) {
                Ok(m) => m,
                // A generated constraint-program module comes as a cubin only: on a device
                // it does not load on, the interpreter runs those programs (same values).
                Err(_) if ptx.is_empty() && module.starts_with("gen/") => continue,
                // The cubin targets one architecture; the PTX is JIT-compiled by the driver
                // for others. Both run on the GPU.
                Err(cubin_err) => {
                    let src = String::from_utf8(ptx.to_vec()).map_err(|e| CudaError::Module {
                        what: module.into(),
                        detail: format!("PTX is not UTF-8: {e}"),
                    })?;
                    ctx.load_module(Ptx::from_src(src))
                        .map_err(|e| CudaError::Module {
                            what: module.into(),
                            detail: format!("cubin: {cubin_err}; PTX: {e}"),
                        })?
                }
            };
            for &k in kernels {
                let f = loaded.load_function(k).map_err(|e| CudaError::Module {
                    what: format!("{module}::{k}"),
                    detail: e.to_string(),
                })?;
                functions.insert(k, f);
            }
        }
        // The default budget: what the device has free once the kernels are loaded and the
        // streams made, before any buffer of ours, less a margin for what the budget does
        // not see (the allocator's granularity and fragmentation, the driver's own memory):
        // 1/12 of it, at least 1 GiB. Measured on the H200 (150.1 GB free), a whole
        // 2^22-cycle proof at blowup 8 fills any budget it is given: it ran out of device
        // memory under budgets of 146.6 GB (the former 2 % margin) and 143.9 GB, and proved
        // under 139.6 GB (peak 137.6 GB held) and 135.3 GB; 1/12 leaves 137.6 GB.
        let (free, _) = cudarc::driver::result::mem_get_info()
            .map_err(CudaError::driver("cuMemGetInfo", ""))?;
        let free = free as u64;
        let free_at_start = free.saturating_sub((free / 12).max(1 << 30));
        Ok(Arc::new(CudaDevice {
            ctx,
            streams,
            uploads,
            next_stream: AtomicUsize::new(0),
            functions,
            counters: Arc::new(Counters::default()),
            budget: Budget::new(free_at_start),
            free_at_start,
            staging: Mutex::new(Vec::new()),
            fail_alloc_in: AtomicU64::new(0),
            fail_fill_launch: AtomicBool::new(false),
            fail_fill_kernel: Mutex::new(None),
            name,
            memory,
        }))
    }

    /// The default budget: free device memory when the backend started, less a margin
    /// (see [`CudaDevice::new`]).
    pub fn free_at_start(&self) -> u64 {
        self.free_at_start
    }

    /// The device's name and memory, for logs.
    pub fn describe(&self) -> String {
        format!("{} ({} MiB)", self.name, self.memory >> 20)
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// A stream outside the pool, for work beside everything else (e.g. warming the memory
    /// pool); each call makes a new one.
    ///
    /// # Errors
    /// If the driver cannot make a stream.
    pub fn side_stream(&self) -> Result<Arc<CudaStream>, CudaError> {
        self.ctx
            .new_stream()
            .map_err(CudaError::driver("cuStreamCreate", "side stream"))
    }

    /// The next stream of the pool, round robin.
    pub fn stream(&self) -> Arc<CudaStream> {
        let i = self.next_stream.fetch_add(1, Ordering::Relaxed) % self.streams.len();
        self.streams[i].clone()
    }

    /// The kernel that runs `prog` (the generated one for its fingerprint, if loaded, else
    /// `interpreter`: the same values either way; `KESTREL_INTERPRET=1` forces the interpreter,
    /// for benchmarks), and the key its time is kept under with `KESTREL_KERNEL_TIMES=1`
    /// (per table for the interpreter).
    pub(crate) fn program_kernel(
        &self,
        generated: &'static [(u64, &'static str, &'static str)],
        prog: &crate::program::Program,
        interpreter: &'static str,
        table: &str,
    ) -> (&'static str, &'static str) {
        static FORCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let force =
            *FORCE.get_or_init(|| std::env::var("KESTREL_INTERPRET").is_ok_and(|v| v == "1"));
        let fp = prog.fingerprint();
        if let Some(g) = generated
            .iter()
            .find(|g| !force && g.0 == fp && self.has_function(g.1))
        {
            return (g.1, g.1);
        }
        if !self.counters.timing() {
            return (interpreter, interpreter);
        }
        // Timing only: one leaked key per (kernel, table) name, kept for the process.
        static KEYS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
        let key = format!("{interpreter}@{table}");
        let mut keys = KEYS.lock().unwrap_or_else(|e| e.into_inner());
        let k = match keys.iter().find(|k| **k == key) {
            Some(k) => *k,
            None => {
                let k: &'static str = Box::leak(key.into_boxed_str());
                keys.push(k);
                k
            }
        };
        (interpreter, k)
    }

    /// Whether kernel `name` is loaded (a generated module may not be: [`CudaDevice::new`]).
    pub(crate) fn has_function(&self, name: &str) -> bool {
        self.functions.contains_key(name)
    }

    pub(crate) fn function(&self, name: &'static str) -> Result<&CudaFunction, CudaError> {
        self.functions.get(name).ok_or_else(|| CudaError::Module {
            what: name.into(),
            detail: "kernel not registered".into(),
        })
    }

    /// Fault injection for tests: the `nth` device allocation from now (1 = the next) fails
    /// with an error, as a real out-of-memory would; 0 turns it off.
    #[doc(hidden)]
    pub fn inject_alloc_failure(&self, nth: u64) {
        self.fail_alloc_in.store(nth, Ordering::SeqCst);
    }

    /// Fault injection for tests: the next trace-fill kernel launch fails.
    #[doc(hidden)]
    pub fn inject_fill_launch_failure(&self) {
        self.fail_fill_launch.store(true, Ordering::SeqCst);
    }

    /// Fault injection (tests): the next launch of the fill kernel `kernel` (one with a
    /// fault hook) fails with an error, whatever launches before it.
    pub fn inject_fill_launch_failure_of(&self, kernel: &'static str) {
        *self
            .fail_fill_kernel
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(kernel);
    }

    /// Takes a pending injected fill-launch failure.
    pub(crate) fn injected_fill_launch_failure(
        &self,
        kernel: &'static str,
    ) -> Result<(), CudaError> {
        let named = {
            let mut k = self
                .fail_fill_kernel
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            k.take_if(|k| *k == kernel).is_some()
        };
        if named || self.fail_fill_launch.swap(false, Ordering::SeqCst) {
            return Err(CudaError::Limit {
                op: "launch",
                detail: format!("{kernel}: injected launch failure"),
            });
        }
        Ok(())
    }

    fn injected_alloc_failure(&self, what: &'static str) -> Result<(), CudaError> {
        let hit = self
            .fail_alloc_in
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok_and(|n| n == 1);
        if hit {
            return Err(CudaError::Limit {
                op: "cuMemAllocAsync",
                detail: format!("{what}: injected allocation failure"),
            });
        }
        Ok(())
    }

    /// `len` elements, uninitialised (every caller's kernel writes all of them).
    pub fn alloc<T: DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        len: usize,
        what: &'static str,
    ) -> Result<DeviceBuffer<T>, CudaError> {
        self.injected_alloc_failure(what)?;
        let bytes = (len.max(1) * std::mem::size_of::<T>()) as u64;
        self.budget.allocate(self, bytes, what, || {
            // SAFETY: the memory is written by a kernel before it is read.
            let s = unsafe { stream.alloc::<T>(len.max(1)) }.map_err(CudaError::driver(
                "cuMemAllocAsync",
                format!("{what}: {len} x {} B", std::mem::size_of::<T>()),
            ))?;
            Ok(DeviceBuffer::new(s, self.counters.clone()))
        })
    }

    /// `len` zeroed elements.
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        stream: &Arc<CudaStream>,
        len: usize,
        what: &'static str,
    ) -> Result<DeviceBuffer<T>, CudaError> {
        self.injected_alloc_failure(what)?;
        let bytes = (len.max(1) * std::mem::size_of::<T>()) as u64;
        self.budget.allocate(self, bytes, what, || {
            let s = stream
                .alloc_zeros::<T>(len.max(1))
                .map_err(CudaError::driver(
                    "cuMemAllocAsync+memset",
                    format!("{what}: {len} x {} B", std::mem::size_of::<T>()),
                ))?;
            Ok(DeviceBuffer::new(s, self.counters.clone()))
        })
    }

    /// Uploads `len` words produced by `fill(offset, chunk)` through pinned staging memory,
    /// counting them under `category`, for work on `stream`.
    ///
    /// The buffer is allocated and copied on the device's upload stream, and `stream` waits
    /// (on the device) for the copies before anything queued on it later: the host waits
    /// for its own copies only, never for kernels already queued on `stream`. The buffer
    /// is freed on `stream`, after the work that reads it there.
    pub fn upload_with(
        &self,
        stream: &Arc<CudaStream>,
        len: usize,
        category: &'static str,
        fill: impl Fn(usize, &mut [u64]) + Sync,
    ) -> Result<DeviceBuffer<u64>, CudaError> {
        let up = &self.uploads;
        let mut dst = self.alloc::<u64>(up, len, category)?;
        let mut guard = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        let staging = self.staging_buffers(&mut guard, 2)?;
        // Double buffering: chunk k is filled (on the host threads) into buffer k % 2 while
        // the copy of chunk k − 1 from the other buffer runs; a buffer is refilled only after
        // the event recorded behind its previous copy has completed.
        let mut pending: [Option<cudarc::driver::CudaEvent>; 2] = [None, None];
        let (mut start, mut k) = (0, 0);
        while start < len {
            let m = STAGING_WORDS.min(len - start);
            let b = k % 2;
            if let Some(e) = pending[b].take() {
                e.synchronize()
                    .map_err(CudaError::driver("cuEventSynchronize", "staging reuse"))?;
            }
            let host = staging[b]
                .as_mut_slice()
                .map_err(CudaError::driver("pinned staging", ""))?;
            let chunk = &mut host[..m];
            let at = std::time::Instant::now();
            chunk
                .par_chunks_mut(FILL_PIECE)
                .enumerate()
                .for_each(|(i, c)| fill(start + i * FILL_PIECE, c));
            self.counters.host_time("uploads: staging filled", at);
            let mut view = dst.slice_mut().slice_mut(start..start + m);
            // A plain host slice: the copy is asynchronous (pinned memory); the event below
            // marks its completion.
            up.memcpy_htod(&*chunk, &mut view)
                .map_err(CudaError::driver(
                    "cuMemcpyHtoDAsync",
                    format!("{category}: {m} words at {start} of {len}"),
                ))?;
            pending[b] = Some(
                up.record_event(None)
                    .map_err(CudaError::driver("cuEventRecord", "staging copy"))?,
            );
            start += m;
            k += 1;
        }
        // `stream`'s later work reads the buffer only after the allocation and the copies.
        let copied = up
            .record_event(None)
            .map_err(CudaError::driver("cuEventRecord", "upload done"))?;
        stream
            .wait(&copied)
            .map_err(CudaError::driver("cuStreamWaitEvent", category))?;
        let dst = dst.rehome(stream);
        // The buffers go back to the pool only after every copy that reads them is done.
        let at = std::time::Instant::now();
        for e in pending.into_iter().flatten() {
            e.synchronize()
                .map_err(CudaError::driver("cuEventSynchronize", "staging release"))?;
        }
        self.counters.host_time("uploads: last copies (wait)", at);
        self.counters.h2d(category, (len * 8) as u64);
        Ok(dst)
    }

    /// A device-to-device copy of `src` into a new buffer.
    pub fn copy(
        &self,
        stream: &Arc<CudaStream>,
        src: &DeviceBuffer<u64>,
        what: &'static str,
    ) -> Result<DeviceBuffer<u64>, CudaError> {
        let mut dst = self.alloc::<u64>(stream, src.len(), what)?;
        stream
            .memcpy_dtod(src.slice(), dst.slice_mut())
            .map_err(CudaError::driver(
                "cuMemcpyDtoDAsync",
                format!("{what}: {} words", src.len()),
            ))?;
        Ok(dst)
    }

    /// Copies a few words into an existing buffer (e.g. resetting a result slot).
    pub fn upload_into(
        &self,
        stream: &Arc<CudaStream>,
        dst: &mut DeviceBuffer<u64>,
        src: &[u64],
        category: &'static str,
    ) -> Result<(), CudaError> {
        if src.len() > dst.len() {
            return Err(CudaError::Limit {
                op: "upload",
                detail: format!("{category}: {} words into {}", src.len(), dst.len()),
            });
        }
        let mut view = dst.slice_mut().slice_mut(0..src.len());
        stream
            .memcpy_htod(src, &mut view)
            .map_err(CudaError::driver(
                "cuMemcpyHtoDAsync",
                format!("{category}: {} words", src.len()),
            ))?;
        self.sync(stream, "upload")?;
        self.counters.h2d(category, (src.len() * 8) as u64);
        Ok(())
    }

    /// Uploads a slice of words.
    pub fn upload(
        &self,
        stream: &Arc<CudaStream>,
        src: &[u64],
        category: &'static str,
    ) -> Result<DeviceBuffer<u64>, CudaError> {
        self.upload_with(stream, src.len(), category, |off, dst| {
            dst.copy_from_slice(&src[off..off + dst.len()])
        })
    }

    /// Downloads words `[start, start + len)` of `src` through pinned staging memory,
    /// counting them under `category`; synchronises the stream.
    pub fn download(
        &self,
        stream: &Arc<CudaStream>,
        src: &DeviceBuffer<u64>,
        start: usize,
        len: usize,
        category: &'static str,
    ) -> Result<Vec<u64>, CudaError> {
        if start + len > src.len() {
            return Err(CudaError::Limit {
                op: "download",
                detail: format!(
                    "{category}: words {start}..{} of a {}-word buffer",
                    start + len,
                    src.len()
                ),
            });
        }
        let mut out = vec![0u64; len];
        let mut guard = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        let staging = &mut self.staging_buffers(&mut guard, 1)?[0];
        let mut done = 0;
        while done < len {
            let m = STAGING_WORDS.min(len - done);
            let host = staging
                .as_mut_slice()
                .map_err(CudaError::driver("pinned staging", ""))?;
            let view = src.slice().slice(start + done..start + done + m);
            stream
                .memcpy_dtoh(&view, &mut host[..m])
                .map_err(CudaError::driver(
                    "cuMemcpyDtoHAsync",
                    format!("{category}: {m} words at {} of {}", start + done, src.len()),
                ))?;
            self.sync(stream, "download")?;
            out[done..done + m]
                .par_chunks_mut(1 << 16)
                .zip(host[..m].par_chunks(1 << 16))
                .for_each(|(o, h)| o.copy_from_slice(h));
            done += m;
        }
        self.counters.d2h(category, (len * 8) as u64);
        Ok(out)
    }

    /// The first `n` pinned staging buffers, allocated on first use.
    fn staging_buffers<'a>(
        &self,
        pool: &'a mut Vec<PinnedHostSlice<u64>>,
        n: usize,
    ) -> Result<&'a mut [PinnedHostSlice<u64>], CudaError> {
        while pool.len() < n {
            // SAFETY: staging memory is always written before it is read.
            let p = unsafe { self.ctx.alloc_pinned_with_flags::<u64>(STAGING_WORDS, 0) }.map_err(
                CudaError::driver("cuMemHostAlloc", format!("{} B staging", STAGING_WORDS * 8)),
            )?;
            pool.push(p);
        }
        Ok(&mut pool[..n])
    }

    /// Waits for the stream; `op` names the operation in errors (kernel faults surface here).
    pub fn sync(&self, stream: &CudaStream, op: &'static str) -> Result<(), CudaError> {
        stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize", op))
    }
}

/// A 1-D grid for `n` items with `threads` per block, capped (kernels loop grid-stride).
pub(crate) fn grid_for(n: u64, threads: u32) -> cudarc::driver::LaunchConfig {
    let blocks = n.div_ceil(threads as u64).clamp(1, 1 << 20) as u32;
    cudarc::driver::LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Launches a registered kernel on a stream with the given arguments and counts it.
macro_rules! launch {
    ($dev:expr, $stream:expr, $name:expr, $cfg:expr, [$($arg:expr),* $(,)?]) => {
        $crate::cuda::device::launch!($dev, $stream, $name, time_as = $name, $cfg, [$($arg),*])
    };
    // `time_as`: the key of the launch's time under KESTREL_KERNEL_TIMES=1 (e.g. per table).
    ($dev:expr, $stream:expr, $name:expr, time_as = $key:expr, $cfg:expr, [$($arg:expr),* $(,)?]) => {{
        let cfg: cudarc::driver::LaunchConfig = $cfg;
        let f = $dev.function($name)?;
        #[allow(unused_imports)]
        use cudarc::driver::PushKernelArg as _;
        // SAFETY: the argument list matches the kernel's signature in kernels/*.cu; device
        // addresses come from live DeviceBuffers whose frees are ordered after the launch on
        // the same stream. One expression, so the argument temporaries outlive the launch.
        let timed = if $dev.counters.timing() {
            $dev.sync(&$stream, $name)?;
            Some(std::time::Instant::now())
        } else {
            None
        };
        unsafe { $stream.launch_builder(f)$(.arg($arg))*.launch(cfg) }.map_err(|source| $crate::cuda::error::CudaError::Launch {
            kernel: $name,
            grid: cfg.grid_dim,
            block: cfg.block_dim,
            shared: cfg.shared_mem_bytes,
            source,
        })?;
        if let Some(t0) = timed {
            $dev.sync(&$stream, $name)?;
            $dev.counters.kernel_time($key, t0.elapsed());
        }
        $dev.counters.kernel($name);
    }};
}
pub(crate) use launch;

/// The budget's view of the device.
impl Spill for CudaDevice {
    fn held(&self) -> u64 {
        self.counters.held()
    }

    fn download_words(&self, buf: &DeviceBuffer<u64>) -> Result<Vec<u64>, CudaError> {
        let st = self.stream();
        self.download(&st, buf, 0, buf.len(), "spill")
    }

    fn upload_words(&self, words: &[u64]) -> Result<DeviceBuffer<u64>, CudaError> {
        let st = self.stream();
        let buf = self.upload(&st, words, "spill reload")?;
        self.sync(&st, "spill reload")?;
        Ok(buf)
    }

    fn count(&self, op: &'static str) {
        self.counters.op(op);
    }
}
