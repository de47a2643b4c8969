//! The quotient of any table on the device (kernels/quotient.cu), equal to
//! `CpuBackend::quotient`: the table's constraint program (compiled from its symbolic DAG)
//! runs in one generic kernel over the LDE rows, then an inverse NTT, the coset unshift,
//! the degree check and the split into chunks.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DeviceRepr, LaunchConfig};
use kestrel_core::field::{batch_inverse, powers, Ext3, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::stark::COSET_SHIFT;

use super::buffer::DeviceBuffer;
use super::committed::{CudaCommitted, LdeOf};
use super::device::{grid_for, launch, CudaDevice};
use super::error::CudaError;
use super::gen_programs;
use super::logup::{ext_words, felts};
use super::ntt::{dif, Twiddles};
use crate::backend::QuotientInputs;
use crate::cpu::ntt::two_adic;
use crate::error::ProverError;
use crate::program::compile;

/// `QuotientParams` in kernels/quotient.cuh.
#[repr(C)]
#[derive(Clone, Copy)]
struct QuotientParams {
    prog: u64,
    consts: u64,
    gamma: u64,
    alpha_powers: u64,
    inv_zh: u64,
    main: u64,
    pre: u64,
    aux: u64,
    beta: [u64; 3],
    total: [u64; 3],
    omega: u64,
    omega_last: u64,
    rows: u64,
    len: u32,
    log_lde: u32,
    log_blowup: u32,
    num_interactions: u32,
    log_domain: u32,
    num_rows: u32,
}

// SAFETY: plain old data with the kernel's layout.
unsafe impl DeviceRepr for QuotientParams {}

/// The quotient's coefficients on the host (downloaded, counted).
pub fn quotient(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    q: &QuotientInputs<'_, CudaCommitted>,
    lde: LdeOf<'_>,
) -> Result<RowMajorMatrix, ProverError> {
    let (split, cols) = quotient_device(dev, tw, stream, q, lde)?;
    let values = felts(&dev.download(stream, &split, 0, split.len(), "quotient coefficients")?)?;
    Ok(RowMajorMatrix::new(values, cols))
}

/// The quotient's coefficients split into chunks, row-major `n × 3·chunks` on the device
/// (as [`crate::backend::Backend::quotient`]'s matrix), and that width.
pub fn quotient_device(
    dev: &CudaDevice,
    tw: &Twiddles,
    stream: &Arc<CudaStream>,
    q: &QuotientInputs<'_, CudaCommitted>,
    lde: LdeOf<'_>,
) -> Result<(DeviceBuffer<u64>, usize), ProverError> {
    let n = 1usize << q.log_height;
    let log_lde = q.log_height + q.log_blowup;
    let big = 1usize << log_lde;
    let blowup = 1usize << q.log_blowup;
    let chunks = q.shape.quotient_chunks;
    let log_d = q.domain_log()?;
    let d = 1usize << log_d;
    if q.main.rows() != big
        || q.aux.is_some_and(|a| a.rows() != big)
        || q.preprocessed.is_some_and(|p| p.rows() != big)
    {
        return Err(ProverError::Internal(
            "quotient inputs of different heights",
        ));
    }
    if chunks > blowup {
        return Err(ProverError::Internal(
            "more quotient chunks than the blowup",
        ));
    }
    let prog = compile(q.table, q.public, true).map_err(CudaError::from)?;
    let (kernel, time_as) = dev.program_kernel(
        gen_programs::QUOTIENT,
        &prog,
        "ks_quotient_eval",
        q.table.name(),
    );
    let k = prog.interactions;
    if k != q.shape.num_interactions
        || prog.constraints + kestrel_core::air::logup::logup_constraint_count(k)
            != q.shape.num_constraints
        || q.gamma_powers.len() < q.shape.num_constraints
    {
        return Err(ProverError::Internal("constraint count differs from shape"));
    }
    if k > 0 && q.aux.is_none_or(|a| a.width < 3 * (k.div_ceil(2) + 1)) {
        return Err(ProverError::Internal(
            "aux trace missing for a table with interactions",
        ));
    }

    // 1/(x^n − 1) takes `blowup` values on the coset: g^n·w_b^k − 1.
    let g_n = COSET_SHIFT.exp_u64(n as u64);
    let w_b = two_adic(blowup);
    let zh: Vec<Felt> = (0..blowup)
        .map(|k| g_n * w_b.exp_u64(k as u64) - Felt::ONE)
        .collect();
    let inv_zh = batch_inverse(&zh).ok_or(ProverError::Internal("zerofier vanishes on coset"))?;

    let code = dev.upload(stream, &prog.words(), "constraint program")?;
    let consts = dev.upload(
        stream,
        if prog.consts.is_empty() {
            &[0]
        } else {
            &prog.consts
        },
        "constraint program",
    )?;
    let gamma = dev.upload(stream, &ext_words(q.gamma_powers), "challenges")?;
    let alpha = powers(q.challenges.alpha, q.shape.max_interaction_values + 1);
    let alpha = dev.upload(
        stream,
        &ext_words(
            &alpha[1..]
                .iter()
                .copied()
                .chain([kestrel_core::field::Ext3::ZERO])
                .collect::<Vec<_>>(),
        ),
        "challenges",
    )?;
    let inv_zh = dev.upload(
        stream,
        &inv_zh.iter().map(|f| f.as_u64()).collect::<Vec<_>>(),
        "zerofiers",
    )?;
    // Held until the stream is synchronised (the flags download below).
    let main_lde = lde(q.main)?;
    let pre_lde = q.preprocessed.map(lde).transpose()?;
    let aux_lde = q.aux.map(lde).transpose()?;
    let main = main_lde.ptr(stream);
    let params = QuotientParams {
        prog: code.ptr(stream),
        consts: consts.ptr(stream),
        gamma: gamma.ptr(stream),
        alpha_powers: alpha.ptr(stream),
        inv_zh: inv_zh.ptr(stream),
        main,
        pre: pre_lde.as_ref().map_or(main, |b| b.ptr(stream)),
        aux: aux_lde.as_ref().map_or(main, |b| b.ptr(stream)),
        beta: q.challenges.beta.coords().map(Felt::as_u64),
        total: q.total.coords().map(Felt::as_u64),
        omega: two_adic(big).as_u64(),
        omega_last: two_adic(n)
            .inverse()
            .ok_or(ProverError::Internal("zero root"))?
            .as_u64(),
        rows: 0,
        len: prog.code.len() as u32,
        log_lde,
        log_blowup: q.log_blowup,
        num_interactions: k as u32,
        log_domain: log_d,
        num_rows: 0,
    };
    // One buffer for what the host reads back: the two flags, Q at the spot rows (3 per
    // row) and the interpolant's partial sums there (3 per row and block).
    let spots = q.spot_rows(log_d);
    let np = spots.len();
    let at_blocks = if np == 0 { 0 } else { SPOT_BLOCKS };
    let checks = dev.alloc_zeros::<u64>(stream, check_words(np), "quotient checks")?;
    let out = dev.alloc::<u64>(stream, 3 * d, "quotient evaluations")?;
    launch!(
        dev,
        stream,
        kernel,
        time_as = time_as,
        grid_for(d as u64, 128),
        [&out.ptr(stream), &params, &checks.ptr(stream)]
    );
    let spot_rows = if np > 0 {
        let rows = dev.upload(
            stream,
            &spots.iter().map(|&(r, _)| r as u64).collect::<Vec<_>>(),
            "quotient spot rows",
        )?;
        let params = QuotientParams {
            rows: rows.ptr(stream),
            num_rows: np as u32,
            ..params
        };
        launch!(
            dev,
            stream,
            kernel,
            time_as = time_as,
            grid_for(np as u64, 128),
            [&checks.ptr_at(stream, 2), &params, &checks.ptr(stream)]
        );
        Some(rows)
    } else {
        None
    };
    // Q(g·y) on H_d in natural order → its coefficients (bit-reversed) by the inverse DIF.
    let inv = tw.get(dev, stream, log_d, true)?;
    dif(dev, stream, out.ptr(stream), log_d, 3, &inv)?;
    let split = dev.alloc::<u64>(stream, n * 3 * chunks, "quotient chunks")?;
    let d_inv = Felt::new(d as u64)
        .inverse()
        .ok_or(ProverError::Internal("d = 0"))?;
    let g_inv = COSET_SHIFT
        .inverse()
        .ok_or(ProverError::Internal("zero shift"))?;
    launch!(
        dev,
        stream,
        "ks_quotient_split",
        grid_for(d as u64, 256),
        [
            &split.ptr(stream),
            &out.ptr(stream),
            &log_d,
            &q.log_height,
            &(chunks as u32),
            &d_inv.as_u64(),
            &g_inv.as_u64(),
            &checks.ptr_at(stream, 1)
        ]
    );
    // The interpolant at the spot rows' points.
    let xs_buf = if np > 0 {
        let xs: Vec<u64> = spots.iter().map(|&(_, x)| x.as_u64()).collect();
        let xs_buf = dev.upload(stream, &xs, "quotient spot rows")?;
        launch!(
            dev,
            stream,
            "ks_quotient_at",
            LaunchConfig {
                grid_dim: (at_blocks as u32, 1, 1),
                block_dim: (SPOT_THREADS, 1, 1),
                shared_mem_bytes: 0,
            },
            [
                &checks.ptr_at(stream, 2 + 3 * np),
                &split.ptr(stream),
                &q.log_height,
                &(chunks as u32),
                &xs_buf.ptr(stream),
                &(np as u32)
            ]
        );
        Some(xs_buf)
    } else {
        None
    };
    let c = dev.download(stream, &checks, 0, checks.len(), "quotient checks")?;
    drop((spot_rows, xs_buf));
    if c[0] != 0 {
        return Err(ProverError::Internal("zero in batch inversion"));
    }
    // The interpolant's value at each spot row against Q there.
    let ext = |w: &[u64]| Ext3::new(Felt::new(w[0]), Felt::new(w[1]), Felt::new(w[2]));
    let at = &c[2 + 3 * np..];
    let spot_ok = (0..np).all(|p| {
        let want = ext(&[c[2 + p], c[2 + np + p], c[2 + 2 * np + p]]);
        let got = (0..at_blocks).fold(Ext3::ZERO, |s, b| s + ext(&at[3 * (b * np + p)..]));
        want == got
    });
    if c[1] != 0 || !spot_ok {
        return Err(ProverError::ConstraintsNotSatisfied {
            table: q.table.name().into(),
        });
    }
    Ok((split, 3 * chunks))
}

/// Blocks of `ks_quotient_at` (each adds a share of the coefficients at every spot point).
const SPOT_BLOCKS: usize = 264;
/// Threads per block of `ks_quotient_at` (`KS_QUOTIENT_AT_THREADS`).
const SPOT_THREADS: u32 = 256;

/// Words of the quotient's checks buffer with `spots` spot rows: two flags, then Q and the
/// interpolant's partial sums per block at each row (3 words each).
pub(super) fn check_words(spots: usize) -> usize {
    let blocks = if spots == 0 { 0 } else { SPOT_BLOCKS };
    2 + 3 * spots * (1 + blocks)
}
