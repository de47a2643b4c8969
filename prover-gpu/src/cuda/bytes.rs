//! BITWISE's multiplicities counted on the device (kernels/bytes.cuh): each table that
//! sends byte lookups runs its program of byte sends ([`compile_sends`]) over its
//! device-resident trace and adds every send to one histogram, which is BITWISE's main
//! trace column-major. The lookups are the AIR's own sends, read from the committed traces,
//! so the counts are what the LogUp argument balances against, whichever fill made the
//! trace; [`program::byte_sends_host`](crate::program::byte_sends_host) is the host reference.

use std::sync::Arc;

use cudarc::driver::CudaStream;
use kestrel_core::air::Machine;
use kestrel_core::field::Felt;
use kestrel_core::rv::bitwise::{LOG_HEIGHT, WIDTH};
use kestrel_core::rv::machine::TableId;
use kestrel_core::rv::BUS_BYTE;
use rayon::prelude::*;

use super::buffer::DeviceBuffer;
use super::committed::CudaTrace;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::gen_programs;
use crate::error::ProverError;
use crate::program::{compile_sends, BYTE_ROWS};

/// Values per send the unit challenges cover (a byte send has four: op, x, y, z).
const UNIT_VALUES: usize = 8;

/// BITWISE's main trace on the device: the byte lookups of every table in `tables` (each
/// with its device trace; `machine`'s AIR of it and the public values `public` make its
/// program) added to `base`, the lookups counted elsewhere (the run tables', on the host)
/// in BITWISE's row-major order
/// ([`ByteTotals::into_counts`](kestrel_core::rv::bitwise::ByteTotals::into_counts)).
///
/// # Errors
/// A table with preprocessed columns, a send that BITWISE has no row for (a malformed
/// trace: its operation, `x` or `y` out of range, or a multiplicity of 2^26 or more), or
/// any device failure. Nothing is built in its place.
pub fn bitwise_trace(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    machine: &dyn Machine,
    tables: &[(TableId, &CudaTrace)],
    public: &[Felt],
    base: &[u64],
) -> Result<CudaTrace, ProverError> {
    let mut tally = ByteTally::new(dev, stream)?;
    tally.count(dev, stream, machine, tables, Some(public))?;
    tally.finish(dev, stream, base)
}

/// Byte lookups counted on the device so far: BITWISE's histogram (column-major), the flag
/// of sends it has no row for, and the tables counted. Tables are counted as their traces
/// are made ([`ByteTally::count`], e.g. right after the early fills, before the public
/// values are known); [`ByteTally::finish`] adds the lookups counted elsewhere and checks
/// the flag.
pub struct ByteTally {
    hist: DeviceBuffer<u64>,
    flag: DeviceBuffer<u64>,
    unit: DeviceBuffer<u64>,
    counted: Vec<TableId>,
}

impl ByteTally {
    /// No lookups yet.
    ///
    /// # Errors
    /// Any device failure.
    pub fn new(dev: &CudaDevice, stream: &Arc<CudaStream>) -> Result<Self, CudaError> {
        let hist = dev.alloc_zeros::<u64>(stream, WIDTH * BYTE_ROWS, "bitwise counts")?;
        let flag = dev.alloc_zeros::<u64>(stream, 1, "flags")?;
        let mut unit = vec![0u64; 3 * UNIT_VALUES];
        for k in 0..3 {
            unit[3 * k + k] = 1;
        }
        let unit = dev.upload(stream, &unit, "challenges")?;
        Ok(ByteTally {
            hist,
            flag,
            unit,
            counted: Vec::new(),
        })
    }

    /// Enqueues the counts of the tables of `tables` not counted yet. With `public` `None`
    /// (not known yet), a table whose sends read a public value is left for a later call.
    ///
    /// # Errors
    /// BITWISE itself or a table with preprocessed columns among `tables`, or any device
    /// failure.
    pub fn count(
        &mut self,
        dev: &CudaDevice,
        stream: &Arc<CudaStream>,
        machine: &dyn Machine,
        tables: &[(TableId, &CudaTrace)],
        public: Option<&[Felt]>,
    ) -> Result<(), ProverError> {
        let at = std::time::Instant::now();
        let airs = machine.tables();
        // Without the public values, programs are compiled with zeros in their place and
        // kept only if they read none.
        let zeros = vec![Felt::ZERO; machine.num_public_values()];
        let values = public.unwrap_or(&zeros);
        let todo: Vec<_> = tables
            .iter()
            .filter(|(t, _)| !self.counted.contains(t))
            .collect();
        // The programs, compiled on the host threads (the CPU's AIR alone takes milliseconds).
        let progs = todo
            .par_iter()
            .map(|&&(t, _)| {
                let air = *airs
                    .get(t.index())
                    .ok_or(ProverError::Internal("a table the machine does not have"))?;
                if t == TableId::Bitwise {
                    return Err(ProverError::Internal(
                        "BITWISE's own trace counted for BITWISE",
                    ));
                }
                let prog = compile_sends(air, values, BUS_BYTE).map_err(CudaError::from)?;
                if prog.interactions > 0 && air.preprocessed_width() != 0 {
                    return Err(ProverError::Internal(
                        "byte lookups of a table with preprocessed columns",
                    ));
                }
                Ok((air, prog))
            })
            .collect::<Result<Vec<_>, ProverError>>()?;
        dev.counters.host_time("bitwise: programs compiled", at);
        let at = std::time::Instant::now();
        for (&&(t, trace), (air, prog)) in todo.iter().zip(progs) {
            if public.is_none() && prog.public_slots.iter().any(Option::is_some) {
                continue;
            }
            self.counted.push(t);
            if prog.interactions == 0 {
                continue;
            }
            let (kernel, time_as) =
                dev.program_kernel(gen_programs::BYTES, &prog, "ks_bytes", air.name());
            let code = dev.upload(stream, &prog.words(), "constraint program")?;
            let consts = dev.upload(stream, &prog.consts, "constraint program")?;
            let main = trace.cols.ptr(stream);
            let n = trace.height() as u64;
            launch!(
                dev,
                stream,
                kernel,
                time_as = time_as,
                grid_for(n, 256),
                [
                    &self.hist.ptr(stream),
                    &self.flag.ptr(stream),
                    &code.ptr(stream),
                    &(prog.code.len() as u32),
                    &consts.ptr(stream),
                    &main,
                    &main,
                    &trace.log_height,
                    &self.unit.ptr(stream),
                    &BUS_BYTE
                ]
            );
            dev.counters.byte_counts(t.name());
        }
        dev.counters.host_time("bitwise: uploads, launches", at);
        Ok(())
    }

    /// BITWISE's main trace: the counts plus `base` (row-major, as [`bitwise_trace`] takes
    /// it), once every kernel enqueued on `stream` has run.
    ///
    /// # Errors
    /// `base` of the wrong size, a send that BITWISE has no row for, or any device failure.
    pub fn finish(
        self,
        dev: &CudaDevice,
        stream: &Arc<CudaStream>,
        base: &[u64],
    ) -> Result<CudaTrace, ProverError> {
        if base.len() != WIDTH * BYTE_ROWS {
            return Err(ProverError::Internal(
                "BITWISE base counts of the wrong size",
            ));
        }
        dev.counters.op("bitwise_trace");
        let at = std::time::Instant::now();
        // The counts given (few: REGISTER's two with device lookups) as entries `index |
        // count << 32`, row-major (row · WIDTH + op) to column-major (op · 2^16 + row).
        let mut entries = Vec::new();
        for (row, counts) in base.chunks_exact(WIDTH).enumerate() {
            for (op, &c) in counts.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                if c >> 32 != 0 {
                    return Err(ProverError::Internal(
                        "a BITWISE base count of 2^32 or more",
                    ));
                }
                entries.push((op * BYTE_ROWS + row) as u64 | c << 32);
            }
        }
        if !entries.is_empty() {
            let src = dev.upload(stream, &entries, "run table byte lookups")?;
            let n = entries.len() as u64;
            launch!(
                dev,
                stream,
                "ks_bytes_add",
                grid_for(n, 256),
                [&self.hist.ptr(stream), &src.ptr(stream), &n]
            );
        }
        dev.counters
            .host_time("bitwise: run tables' lookups added", at);
        let at = std::time::Instant::now();
        let bad = dev.download(stream, &self.flag, 0, 1, "flags")?[0] != 0;
        dev.counters.host_time("bitwise: device (wait)", at);
        if bad {
            return Err(ProverError::Internal(
                "a byte lookup BITWISE has no row for (malformed trace)",
            ));
        }
        dev.counters.fill(TableId::Bitwise.name());
        Ok(CudaTrace {
            cols: self.hist,
            width: WIDTH,
            log_height: LOG_HEIGHT,
        })
    }
}

impl super::CudaBackend {
    /// BITWISE's main trace counted on the device from host traces of the tables in `tables`
    /// (uploaded first, counted as "trace upload") and `base` ([`bitwise_trace`]); for
    /// tests and diagnostics, e.g. against
    /// [`byte_sends_host`](crate::program::byte_sends_host) on arbitrary traces.
    ///
    /// # Errors
    /// As [`bitwise_trace`].
    pub fn bitwise_of_host_traces(
        &self,
        machine: &dyn Machine,
        tables: &[(TableId, &kestrel_core::matrix::RowMajorMatrix)],
        public: &[Felt],
        base: &[u64],
    ) -> Result<CudaTrace, ProverError> {
        let dev = self.device();
        let s = dev.stream();
        let mut traces = Vec::with_capacity(tables.len());
        for &(t, m) in tables {
            let n = m.height();
            if !n.is_power_of_two() {
                return Err(ProverError::Internal("a trace height not a power of two"));
            }
            let rows = super::ntt::upload_matrix(dev, &s, m, "trace upload")?;
            let cols = dev.alloc::<u64>(&s, n * m.width, "trace columns")?;
            super::ntt::rows_to_cols(dev, &s, cols.ptr(&s), rows.ptr(&s), n as u64, m.width)?;
            traces.push((
                t,
                CudaTrace {
                    cols,
                    width: m.width,
                    log_height: n.trailing_zeros(),
                },
            ));
        }
        let refs: Vec<(TableId, &CudaTrace)> = traces.iter().map(|(t, c)| (*t, c)).collect();
        let out = bitwise_trace(dev, &s, machine, &refs, public, base)?;
        dev.sync(&s, "bitwise trace")?;
        Ok(out)
    }
}
