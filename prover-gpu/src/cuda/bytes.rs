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
    if base.len() != WIDTH * BYTE_ROWS {
        return Err(ProverError::Internal(
            "BITWISE base counts of the wrong size",
        ));
    }
    dev.counters.op("bitwise_trace");
    let at = std::time::Instant::now();
    // Row-major (row · WIDTH + op) to column-major (op · 2^16 + row).
    let mut cols = vec![0u64; base.len()];
    for (row, counts) in base.chunks_exact(WIDTH).enumerate() {
        for (op, &c) in counts.iter().enumerate() {
            cols[op * BYTE_ROWS + row] = c;
        }
    }
    let hist = dev.upload(stream, &cols, "run table byte lookups")?;
    let flag = dev.alloc_zeros::<u64>(stream, 1, "flags")?;
    let mut unit = vec![0u64; 3 * UNIT_VALUES];
    for k in 0..3 {
        unit[3 * k + k] = 1;
    }
    let unit = dev.upload(stream, &unit, "challenges")?;
    let airs = machine.tables();
    // The programs, compiled on the host threads (the CPU's AIR alone takes milliseconds).
    let progs = tables
        .par_iter()
        .map(|&(t, _)| {
            let air = *airs
                .get(t.index())
                .ok_or(ProverError::Internal("a table the machine does not have"))?;
            if t == TableId::Bitwise {
                return Err(ProverError::Internal(
                    "BITWISE's own trace counted for BITWISE",
                ));
            }
            let prog = compile_sends(air, public, BUS_BYTE).map_err(CudaError::from)?;
            if prog.interactions > 0 && air.preprocessed_width() != 0 {
                return Err(ProverError::Internal(
                    "byte lookups of a table with preprocessed columns",
                ));
            }
            Ok((air, prog))
        })
        .collect::<Result<Vec<_>, ProverError>>()?;
    dev.counters
        .host_time("bitwise: base, programs compiled", at);
    let at = std::time::Instant::now();
    for (&(t, trace), (air, prog)) in tables.iter().zip(progs) {
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
                &hist.ptr(stream),
                &flag.ptr(stream),
                &code.ptr(stream),
                &(prog.code.len() as u32),
                &consts.ptr(stream),
                &main,
                &main,
                &trace.log_height,
                &unit.ptr(stream),
                &BUS_BYTE
            ]
        );
        dev.counters.byte_counts(t.name());
    }
    dev.counters.host_time("bitwise: uploads, launches", at);
    let at = std::time::Instant::now();
    let bad = dev.download(stream, &flag, 0, 1, "flags")?[0] != 0;
    dev.counters.host_time("bitwise: device (wait)", at);
    if bad {
        return Err(ProverError::Internal(
            "a byte lookup BITWISE has no row for (malformed trace)",
        ));
    }
    dev.counters.fill(TableId::Bitwise.name());
    Ok(CudaTrace {
        cols: hist,
        width: WIDTH,
        log_height: LOG_HEIGHT,
    })
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
