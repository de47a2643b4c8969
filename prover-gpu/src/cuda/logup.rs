//! The LogUp auxiliary trace on the device (kernels/logup.cu), equal to
//! `CpuBackend::logup_aux`'s: interactions from the compiled program, per-element
//! inversion, pair columns, and the running sum by a parallel scan.

use std::sync::Arc;

use cudarc::driver::{CudaStream, LaunchConfig};
use kestrel_core::air::{LogUpChallenges, TableAir, TableShape};
use kestrel_core::field::{powers, Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;

use super::buffer::DeviceBuffer;
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::gen_programs;
use super::ntt::{rows_to_cols, upload_matrix};
use crate::error::ProverError;
use crate::program::compile;

/// Values one thread of `ks_ext_inverse` inverts together (`KS_INV_BATCH`); a grid hint
/// only (the kernel loops over its tiles).
const INV_BATCH: usize = 8;

/// Flattens extension elements into their coordinates.
pub(crate) fn ext_words(v: &[Ext3]) -> Vec<u64> {
    v.iter()
        .flat_map(|e| e.coords().map(Felt::as_u64))
        .collect()
}

/// Reads canonical field elements back (the kernels only produce canonical values).
pub(crate) fn felts(words: &[u64]) -> Result<Vec<Felt>, ProverError> {
    words
        .iter()
        .map(|&w| {
            Felt::from_canonical(w)
                .ok_or(ProverError::Internal("non-canonical value from the device"))
        })
        .collect()
}

pub(crate) fn exts(words: &[u64]) -> Result<Vec<Ext3>, ProverError> {
    Ok(felts(words)?
        .chunks_exact(3)
        .map(|c| Ext3::new(c[0], c[1], c[2]))
        .collect())
}

const SCAN_BLOCK: u32 = 1024;

/// Inclusive prefix sums of `n` Ext3 values at `v`, in place.
pub(crate) fn scan(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    v: u64,
    n: u64,
) -> Result<(), CudaError> {
    let blocks = n.div_ceil(SCAN_BLOCK as u64);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (SCAN_BLOCK, 1, 1),
        shared_mem_bytes: 3 * 8 * SCAN_BLOCK,
    };
    if blocks == 1 {
        launch!(dev, stream, "ks_scan_block", cfg, [&v, &n, &0u64]);
        return Ok(());
    }
    let totals = dev.alloc::<u64>(stream, 3 * blocks as usize, "scan totals")?;
    launch!(
        dev,
        stream,
        "ks_scan_block",
        cfg,
        [&v, &n, &totals.ptr(stream)]
    );
    scan(dev, stream, totals.ptr(stream), blocks)?;
    let add = LaunchConfig {
        shared_mem_bytes: 0,
        ..cfg
    };
    launch!(
        dev,
        stream,
        "ks_scan_add",
        add,
        [&v, &n, &totals.ptr(stream)]
    );
    Ok(())
}

/// The LogUp aux trace of a host trace: uploads it (counted), builds the aux trace on the
/// device and downloads it (counted).
#[allow(clippy::too_many_arguments)]
pub fn logup_aux(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    table: &dyn TableAir,
    shape: &TableShape,
    main: &RowMajorMatrix,
    preprocessed: Option<&RowMajorMatrix>,
    public: &[Felt],
    ch: LogUpChallenges,
) -> Result<(RowMajorMatrix, Ext3), ProverError> {
    let n = main.height();
    let columns = |m: &RowMajorMatrix, category, what| -> Result<DeviceBuffer<u64>, CudaError> {
        let src = upload_matrix(dev, stream, m, category)?;
        let cols = dev.alloc::<u64>(stream, n * m.width, what)?;
        rows_to_cols(
            dev,
            stream,
            cols.ptr(stream),
            src.ptr(stream),
            n as u64,
            m.width,
        )?;
        Ok(cols)
    };
    let main_cols = columns(main, "logup main trace", "logup main columns")?;
    let pre_cols = match preprocessed {
        Some(p) => Some(columns(
            p,
            "logup preprocessed trace",
            "logup preprocessed columns",
        )?),
        None => None,
    };
    let (aux, width, total) = logup_aux_device(
        dev,
        stream,
        table,
        shape,
        main_cols.ptr(stream),
        pre_cols.as_ref().map(|c| c.ptr(stream)),
        n,
        public,
        ch,
    )?;
    let values = felts(&dev.download(stream, &aux, 0, aux.len(), "logup aux trace")?)?;
    Ok((RowMajorMatrix::new(values, width), total))
}

/// The LogUp aux trace (row-major `n × width` on the device, base coordinates), its width
/// and the table's total, from the main (and preprocessed) trace's natural-order columns
/// already on the device. Downloads only the total.
#[allow(clippy::too_many_arguments)]
pub fn logup_aux_device(
    dev: &CudaDevice,
    stream: &Arc<CudaStream>,
    table: &dyn TableAir,
    shape: &TableShape,
    main_cols: u64,
    pre_cols: Option<u64>,
    n: usize,
    public: &[Felt],
    ch: LogUpChallenges,
) -> Result<(DeviceBuffer<u64>, usize, Ext3), ProverError> {
    let k = shape.num_interactions;
    if k == 0 || n == 0 || !n.is_power_of_two() {
        return Err(ProverError::Internal(
            "logup_aux on a table without interactions",
        ));
    }
    let log_n = n.trailing_zeros();
    let pairs = k.div_ceil(2);
    let ext_w = pairs + 1;
    let prog = compile(table, public, false).map_err(CudaError::from)?;
    let (kernel, time_as) =
        dev.program_kernel(gen_programs::LOGUP, &prog, "ks_logup_eval", table.name());
    if prog.interactions != k {
        return Err(ProverError::Internal(
            "interaction count differs from shape",
        ));
    }
    let code = dev.upload(stream, &prog.words(), "constraint program")?;
    let consts = dev.upload(stream, &prog.consts, "constraint program")?;
    let alpha = powers(ch.alpha, shape.max_interaction_values + 1);
    let alpha = dev.upload(stream, &ext_words(&alpha[1..]), "challenges")?;
    let pre_ptr = pre_cols.unwrap_or(main_cols);

    let mults = dev.alloc::<u64>(stream, n * k, "logup multiplicities")?;
    let fps = dev.alloc::<u64>(stream, 3 * n * k, "logup fingerprints")?;
    let [b0, b1, b2] = ch.beta.coords().map(Felt::as_u64);
    launch!(
        dev,
        stream,
        kernel,
        time_as = time_as,
        grid_for(n as u64, 128),
        [
            &mults.ptr(stream),
            &fps.ptr(stream),
            &code.ptr(stream),
            &(prog.code.len() as u32),
            &consts.ptr(stream),
            &main_cols,
            &pre_ptr,
            &log_n,
            &(k as u32),
            &alpha.ptr(stream),
            &b0,
            &b1,
            &b2
        ]
    );
    let flag = dev.alloc_zeros::<u64>(stream, 1, "flags")?;
    launch!(
        dev,
        stream,
        "ks_ext_inverse",
        grid_for((n * k).div_ceil(INV_BATCH) as u64, 256),
        [&fps.ptr(stream), &((n * k) as u64), &flag.ptr(stream)]
    );
    let aux = dev.alloc::<u64>(stream, n * 3 * ext_w, "logup aux")?;
    let sums = dev.alloc::<u64>(stream, 3 * n, "logup row sums")?;
    launch!(
        dev,
        stream,
        "ks_logup_rows",
        grid_for(n as u64, 256),
        [
            &aux.ptr(stream),
            &sums.ptr(stream),
            &mults.ptr(stream),
            &fps.ptr(stream),
            &(n as u64),
            &(k as u32)
        ]
    );
    scan(dev, stream, sums.ptr(stream), n as u64)?;
    launch!(
        dev,
        stream,
        "ks_logup_running",
        grid_for(n as u64, 256),
        [
            &aux.ptr(stream),
            &sums.ptr(stream),
            &(n as u64),
            &(k as u32)
        ]
    );
    if dev.download(stream, &flag, 0, 1, "flags")?[0] != 0 {
        return Err(ProverError::LogUpFingerprintZero);
    }
    let w = 3 * ext_w;
    let last = exts(&dev.download(stream, &aux, (n - 1) * w + 3 * pairs, 3, "logup totals")?)?;
    let total = *last.first().ok_or(ProverError::Internal("logup total"))?;
    Ok((aux, w, total))
}
