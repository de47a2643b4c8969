//! The quotient of any table on the device (kernels/quotient.cu), equal to
//! `CpuBackend::quotient`: the table's constraint program (compiled from its symbolic DAG)
//! runs in one generic kernel over the LDE rows, then an inverse NTT, the coset unshift,
//! the degree check and the split into chunks.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DeviceRepr};
use kestrel_core::field::{batch_inverse, powers, Felt, Field};
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
    len: u32,
    log_lde: u32,
    log_blowup: u32,
    num_interactions: u32,
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
        len: prog.code.len() as u32,
        log_lde,
        log_blowup: q.log_blowup,
        num_interactions: k as u32,
    };
    let out = dev.alloc::<u64>(stream, 3 * big, "quotient evaluations")?;
    let flags = dev.alloc_zeros::<u64>(stream, 2, "flags")?;
    launch!(
        dev,
        stream,
        kernel,
        time_as = time_as,
        grid_for(big as u64, 128),
        [&out.ptr(stream), &params, &flags.ptr(stream)]
    );
    // Q(g·y) on H_big in natural order → its coefficients (bit-reversed) by the inverse DIF.
    let inv = tw.get(dev, stream, log_lde, true)?;
    dif(dev, stream, out.ptr(stream), log_lde, 3, &inv)?;
    let split = dev.alloc::<u64>(stream, n * 3 * chunks, "quotient chunks")?;
    let big_inv = Felt::new(big as u64)
        .inverse()
        .ok_or(ProverError::Internal("big = 0"))?;
    let g_inv = COSET_SHIFT
        .inverse()
        .ok_or(ProverError::Internal("zero shift"))?;
    launch!(
        dev,
        stream,
        "ks_quotient_split",
        grid_for(big as u64, 256),
        [
            &split.ptr(stream),
            &out.ptr(stream),
            &log_lde,
            &q.log_height,
            &(chunks as u32),
            &big_inv.as_u64(),
            &g_inv.as_u64(),
            &flags.ptr_at(stream, 1)
        ]
    );
    let f = dev.download(stream, &flags, 0, 2, "flags")?;
    if f[0] != 0 {
        return Err(ProverError::Internal("zero in batch inversion"));
    }
    if f[1] != 0 {
        return Err(ProverError::ConstraintsNotSatisfied {
            table: q.table.name().into(),
        });
    }
    Ok((split, 3 * chunks))
}
