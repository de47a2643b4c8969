//! CUDA backend parity: every `Backend` operation against the CPU backend (the oracle) on
//! random inputs of sizes 2^10..2^24, bit for bit; whole proofs of the test AIRs with
//! CUDA bytes == CPU bytes; and a dispatch-counter test proving each stage ran on the GPU.
//!
//! Built only with `--features cuda`. Every test is `#[ignore]`d with the reason "needs a
//! CUDA device", so a machine without one (CI) compiles the suite and counts each test as
//! not run; on the GPU machine run them with `--ignored`, where a missing device fails them.
#![cfg(feature = "cuda")]

use std::sync::OnceLock;

use kestrel_core::air::examples::{
    fibonacci_trace, range_check_traces, FibonacciMachine, RangeCheckMachine, SumSenderAir,
};
use kestrel_core::air::{LogUpChallenges, Machine, TableShape};
use kestrel_core::field::{powers, Ext3, Felt};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_core::stark::{RoundTreeShape, FRI_MAX_LOG_ARITY};
use kestrel_prover_gpu::backend::{Backend, DeepInputs, QuotientCommitted, QuotientInputs};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::cuda::CudaBackend;
use kestrel_prover_gpu::prover::{prove, setup, ProverError};
use kestrel_verifier::verify;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The shared GPU backend, or `None` when the test must not run (see the module doc).
fn gpu() -> Option<&'static CudaBackend> {
    static GPU: OnceLock<Result<CudaBackend, String>> = OnceLock::new();
    match GPU.get_or_init(|| CudaBackend::new().map_err(|e| e.to_string())) {
        Ok(b) => Some(b),
        Err(e) => panic!("no CUDA device ({e}): these tests need one"),
    }
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn felt(r: &mut ChaCha8Rng) -> Felt {
    Felt::new(r.next_u64())
}

fn ext(r: &mut ChaCha8Rng) -> Ext3 {
    Ext3::new(felt(r), felt(r), felt(r))
}

fn matrix(r: &mut ChaCha8Rng, log_n: u32, width: usize) -> RowMajorMatrix {
    RowMajorMatrix::new((0..(width << log_n)).map(|_| felt(r)).collect(), width)
}

/// Widths keeping each case around 2^22..2^24 values.
fn width_for(log_n: u32) -> usize {
    (1usize << 22u32.saturating_sub(log_n)).clamp(1, 24)
}

const LOGS: [u32; 6] = [10, 12, 16, 20, 22, 24];

fn assert_commit_eq(
    g: &CudaBackend,
    gc: &kestrel_prover_gpu::cuda::CudaCommitted,
    cc: &kestrel_prover_gpu::cpu::CpuCommitted,
    r: &mut ChaCha8Rng,
    what: &str,
) {
    assert!(g.lde_to_host(gc).unwrap() == cc.lde, "{what}: LDE differs");
    // A round of this one matrix: its tree is the plain tree over its rows.
    let (gt, ct) = (
        g.commit_round(&[gc]).unwrap(),
        CpuBackend.commit_round(&[cc]).unwrap(),
    );
    assert_eq!(g.round_cap(&gt), CpuBackend.round_cap(&ct), "{what}: cap");
    let rows = cc.lde.height();
    for row in [0, rows - 1, (r.next_u64() as usize) % rows] {
        assert_eq!(
            g.open_round(&gt, &[gc], &[row]).unwrap(),
            CpuBackend.open_round(&ct, &[cc], &[row]).unwrap(),
            "{what}: opening {row}"
        );
    }
    assert!(g.open_round(&gt, &[gc], &[rows]).is_err());
    assert!(CpuBackend.open_round(&ct, &[cc], &[rows]).is_err());
}

/// One round over matrices of several heights and widths, in the given order: the caps,
/// and openings (each matrix's row and the one path) at the first, the last and random
/// leaves, in one batch.
fn assert_round_eq(g: &CudaBackend, r: &mut ChaCha8Rng, shapes: &[(u32, usize)], lb: u32) {
    let what = format!("round {shapes:?}, blowup 2^{lb}");
    let ms: Vec<RowMajorMatrix> = shapes
        .iter()
        .map(|&(log_n, w)| matrix(r, log_n, w))
        .collect();
    let gc: Vec<_> = ms.iter().map(|m| g.commit_trace(m, lb).unwrap()).collect();
    let cc: Vec<_> = ms
        .iter()
        .map(|m| CpuBackend.commit_trace(m, lb).unwrap())
        .collect();
    let (gr, cr): (Vec<_>, Vec<_>) = (gc.iter().collect(), cc.iter().collect());
    let (gt, ct) = (
        g.commit_round(&gr).unwrap(),
        CpuBackend.commit_round(&cr).unwrap(),
    );
    let cap = CpuBackend.round_cap(&ct);
    assert_eq!(g.round_cap(&gt), cap, "{what}: cap");
    let log_leaves = shapes.iter().map(|s| s.0).max().unwrap() + lb;
    let shape = RoundTreeShape::over(shapes.iter().map(|s| s.0 + lb)).unwrap();
    assert_eq!(cap.len(), shape.cap_len(), "{what}: cap length");
    let leaves = 1usize << log_leaves;
    let mut idx = vec![0, leaves - 1, leaves / 2];
    idx.extend((0..60).map(|_| (r.next_u64() as usize) % leaves));
    let (a, b) = (
        g.open_round(&gt, &gr, &idx).unwrap(),
        CpuBackend.open_round(&ct, &cr, &idx).unwrap(),
    );
    assert_eq!(a.len(), idx.len());
    for ((i, x), y) in idx.iter().zip(&a).zip(&b) {
        assert_eq!(x, y, "{what}: opening of leaf {i}");
        assert_eq!(x.0.len(), shapes.len(), "{what}: rows of leaf {i}");
        assert_eq!(x.1.len(), shape.path_len(), "{what}: path of leaf {i}");
    }
    assert!(g.open_round(&gt, &gr, &[leaves]).is_err());
    // The reversed order: another tree where two matrices share a height (injected at
    // one level, in table order), the same tree otherwise.
    if shapes.len() > 1 {
        let gr2: Vec<_> = gr.iter().rev().copied().collect();
        let cr2: Vec<_> = cr.iter().rev().copied().collect();
        let (gt2, ct2) = (
            g.commit_round(&gr2).unwrap(),
            CpuBackend.commit_round(&cr2).unwrap(),
        );
        assert_eq!(
            g.round_cap(&gt2),
            CpuBackend.round_cap(&ct2),
            "{what}: reversed"
        );
        let shared = (1..shapes.len()).any(|i| shapes[..i].iter().any(|s| s.0 == shapes[i].0));
        if shared {
            assert_ne!(g.round_cap(&gt2), cap, "{what}: reversed order, same cap");
        } else {
            assert_eq!(g.round_cap(&gt2), cap, "{what}: reversed order, other cap");
        }
    }
}

/// Mixed-matrix rounds: several heights in one round (the tallest first, last, or
/// repeated; heights 2^1 apart and 2^12 apart; one-column and wide matrices), every blowup.
#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn mixed_rounds_match_cpu() {
    let Some(g) = gpu() else { return };
    let mut r = rng(11);
    let rounds: [&[(u32, usize)]; 6] = [
        &[(12, 5), (10, 3), (12, 1), (8, 7), (11, 2), (8, 1)],
        &[(8, 3), (10, 4), (10, 4), (9, 70)],
        &[(3, 2), (1, 1), (2, 3)],
        &[(20, 4), (16, 8), (8, 30)],
        &[(6, 9)],
        &[(14, 1), (2, 1), (14, 40), (13, 1)],
    ];
    for lb in 1..=3u32 {
        for shapes in rounds {
            assert_round_eq(g, &mut r, shapes, lb);
        }
        println!("ok: mixed rounds, blowup 2^{lb}");
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn commit_trace_and_coeffs_match_cpu() {
    let Some(g) = gpu() else { return };
    let mut r = rng(1);
    for log_n in LOGS {
        let w = width_for(log_n);
        for lb in [1u32, 3] {
            if log_n + lb > 25 {
                continue;
            }
            let m = matrix(&mut r, log_n, w);
            let what = format!("commit_trace 2^{log_n} x {w}, blowup 2^{lb}");
            let (gc, cc) = (
                g.commit_trace(&m, lb).unwrap(),
                CpuBackend.commit_trace(&m, lb).unwrap(),
            );
            assert_commit_eq(g, &gc, &cc, &mut r, &what);
            let what = format!("commit_coeffs 2^{log_n} x {w}, blowup 2^{lb}");
            let (gc, cc) = (
                g.commit_coeffs(&m, lb).unwrap(),
                CpuBackend.commit_coeffs(&m, lb).unwrap(),
            );
            assert_commit_eq(g, &gc, &cc, &mut r, &what);
            println!("ok: 2^{log_n} x {w}, blowup 2^{lb}");
        }
    }
}

/// Merkle leaves of every width around the sponge's rate (21 lanes a block: the last lane
/// holds the prefix's spill and the domain byte, so 20 and 21 columns end blocks
/// differently): the device's commitments are the CPU's.
#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn merkle_leaves_around_the_rate_match_cpu() {
    let Some(g) = gpu() else { return };
    let mut r = rng(21);
    for w in [
        1usize, 2, 19, 20, 21, 22, 40, 41, 42, 43, 62, 63, 64, 105, 106,
    ] {
        let m = matrix(&mut r, 5, w);
        let what = format!("commit_trace 2^5 x {w}");
        let (gc, cc) = (
            g.commit_trace(&m, 1).unwrap(),
            CpuBackend.commit_trace(&m, 1).unwrap(),
        );
        assert_commit_eq(g, &gc, &cc, &mut r, &what);
    }
}

/// The NTT kernels' edge cases: sizes below, at and just above the shared-memory tile
/// (2^13) and one upper pass (2^14..2^15), every blowup the prover uses, one column and more
/// columns than a 32-wide transpose tile.
#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn lde_around_the_tile_sizes_matches_cpu() {
    let Some(g) = gpu() else { return };
    let mut r = rng(7);
    for log_n in 1..=15u32 {
        for lb in 1..=3u32 {
            for w in [1usize, 3, 70] {
                if log_n >= 14 && w > 3 {
                    continue;
                }
                let m = matrix(&mut r, log_n, w);
                let what = format!("commit_trace 2^{log_n} x {w}, blowup 2^{lb}");
                let (gc, cc) = (
                    g.commit_trace(&m, lb).unwrap(),
                    CpuBackend.commit_trace(&m, lb).unwrap(),
                );
                assert_commit_eq(g, &gc, &cc, &mut r, &what);
                let what = format!("commit_coeffs 2^{log_n} x {w}, blowup 2^{lb}");
                let (gc, cc) = (
                    g.commit_coeffs(&m, lb).unwrap(),
                    CpuBackend.commit_coeffs(&m, lb).unwrap(),
                );
                assert_commit_eq(g, &gc, &cc, &mut r, &what);
            }
        }
        println!("ok: 2^{log_n}");
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn evaluations_match_cpu() {
    let Some(g) = gpu() else { return };
    let mut r = rng(2);
    for log_n in LOGS {
        let m = matrix(&mut r, log_n, width_for(log_n).min(8));
        let z = ext(&mut r);
        assert_eq!(
            g.evaluate_trace(&m, z).unwrap(),
            CpuBackend.evaluate_trace(&m, z).unwrap(),
            "evaluate_trace 2^{log_n}"
        );
        assert_eq!(
            g.evaluate_coeffs(&m, z).unwrap(),
            CpuBackend.evaluate_coeffs(&m, z).unwrap(),
            "evaluate_coeffs 2^{log_n}"
        );
        // From the committed copies (device columns; no upload of `m`).
        let z2 = ext(&mut r);
        let gc = g.commit_trace(&m, 1).unwrap();
        let cc = CpuBackend.commit_trace(&m, 1).unwrap();
        assert_eq!(
            g.evaluate_committed(&gc, None, &[z, z2]).unwrap(),
            CpuBackend
                .evaluate_committed(&cc, Some(&m), &[z, z2])
                .unwrap(),
            "evaluate_committed 2^{log_n}"
        );
        let gq = QuotientCommitted {
            committed: g.commit_coeffs(&m, 1).unwrap(),
            host: None,
        };
        assert_eq!(
            g.evaluate_quotient(&gq, z).unwrap(),
            CpuBackend.evaluate_coeffs(&m, z).unwrap(),
            "evaluate_quotient 2^{log_n}"
        );
    }
    // A point of the domain is refused by both.
    let m = matrix(&mut r, 4, 2);
    let w = Ext3::from(kestrel_prover_gpu::cpu::ntt::two_adic(16));
    assert!(matches!(
        g.evaluate_trace(&m, w),
        Err(ProverError::OodPointInDomain)
    ));
    assert!(matches!(
        CpuBackend.evaluate_trace(&m, w),
        Err(ProverError::OodPointInDomain)
    ));
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn fri_matches_cpu() {
    let Some(g) = gpu() else { return };
    let mut r = rng(3);
    for log_n in LOGS {
        let cw: Vec<Ext3> = (0..1usize << log_n).map(|_| ext(&mut r)).collect();
        let (beta, shift) = (ext(&mut r), Felt::new(7).exp_u64(1 + r.next_u64() % 5));
        assert_eq!(
            g.fri_fold(&cw, beta, shift).unwrap(),
            CpuBackend.fri_fold(&cw, beta, shift).unwrap(),
            "fri_fold 2^{log_n}"
        );
        for a in (1..=FRI_MAX_LOG_ARITY).filter(|&a| a < log_n) {
            let (gl, cl) = (
                g.commit_fri_layer(cw.clone(), a).unwrap(),
                CpuBackend.commit_fri_layer(cw.clone(), a).unwrap(),
            );
            assert_eq!(
                g.fri_cap(&gl),
                CpuBackend.fri_cap(&cl),
                "fri cap 2^{log_n} arity 2^{a}"
            );
            assert!(g.fri_values(&gl) == CpuBackend.fri_values(&cl));
            // The device path: fold a device-committed layer by its arity, join, commit,
            // open in batches.
            let (gd, cd) = (
                g.commit_codeword(g.upload_codeword(CpuBackend.fri_values(&cl)).unwrap(), a)
                    .unwrap(),
                &cl,
            );
            let mut gf = g.fold_layer(&gd, beta, shift).unwrap();
            let mut cf = CpuBackend.fold_layer(cd, beta, shift).unwrap();
            assert_eq!(cf.len(), 1 << (log_n - a));
            let next: Vec<Ext3> = (0..1usize << (log_n - a)).map(|_| ext(&mut r)).collect();
            let s2 = ext(&mut r);
            g.add_scaled(&mut gf, s2, &g.upload_codeword(&next).unwrap())
                .unwrap();
            CpuBackend.add_scaled(&mut cf, s2, &next).unwrap();
            let a2 = 1.max((log_n - a).saturating_sub(1).min(a));
            let (gl2, cl2) = (
                g.commit_codeword(gf, a2).unwrap(),
                CpuBackend.commit_codeword(cf, a2).unwrap(),
            );
            assert_eq!(g.fri_cap(&gl2), CpuBackend.fri_cap(&cl2));
            let pos: Vec<usize> = (0..50)
                .map(|_| (r.next_u64() as usize) % (1 << (log_n - a)))
                .collect();
            assert_eq!(
                g.open_fri_batch(&gl2, &pos).unwrap(),
                CpuBackend.open_fri_batch(&cl2, &pos).unwrap(),
                "open_fri_batch 2^{log_n} arity 2^{a2}"
            );
            let last = g.fold_layer(&gl2, beta, shift).unwrap();
            let clast = CpuBackend.fold_layer(&cl2, beta, shift).unwrap();
            assert!(
                g.final_values(last).unwrap() == CpuBackend.final_values(clast).unwrap(),
                "final values 2^{log_n}"
            );
            for pos in [
                0,
                (1usize << log_n) - 1,
                (r.next_u64() as usize) % (1 << log_n),
            ] {
                assert_eq!(
                    g.open_fri(&gl, pos).unwrap(),
                    CpuBackend.open_fri(&cl, pos).unwrap(),
                    "open_fri 2^{log_n} arity 2^{a} at {pos}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn grind_finds_the_same_smallest_nonce() {
    let Some(g) = gpu() else { return };
    let mut r = rng(4);
    for bits in [0u32, 1, 4, 8, 12, 16, 20] {
        let mut ch = [0u8; 32];
        r.fill_bytes(&mut ch);
        assert_eq!(
            g.grind(&ch, bits).unwrap(),
            CpuBackend.grind(&ch, bits).unwrap(),
            "bits {bits}"
        );
    }
}

fn challenges(r: &mut ChaCha8Rng) -> LogUpChallenges {
    LogUpChallenges {
        alpha: ext(r),
        beta: ext(r),
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn logup_aux_quotient_and_deep_match_cpu() {
    let Some(g) = gpu() else { return };
    let mut r = rng(5);
    let machine = RangeCheckMachine;
    let sender: &dyn kestrel_core::air::TableAir = &SumSenderAir;
    let shape = TableShape::of(sender, machine.num_public_values()).unwrap();
    let public = [Felt::new(200)];
    for log_n in [10u32, 14, 18, 20] {
        let traces = range_check_traces(log_n, 42 + log_n as u64, 200);
        let main = &traces[0];
        let ch = challenges(&mut r);
        let (ga, gt) = g
            .logup_aux(sender, &shape, main, None, &public, ch)
            .unwrap();
        let (ca, ct) = CpuBackend
            .logup_aux(sender, &shape, main, None, &public, ch)
            .unwrap();
        assert!(ga == ca, "logup aux 2^{log_n}");
        assert_eq!(gt, ct, "logup total 2^{log_n}");

        // Blowup 2 evaluates the quotient on the whole LDE; 4 and 8 on half or a quarter of
        // it, with spot checks outside.
        let blowups: &[u32] = if log_n <= 14 { &[1, 2, 3] } else { &[1] };
        for &lb in blowups {
            let (gm, cm) = (
                g.commit_trace(main, lb).unwrap(),
                CpuBackend.commit_trace(main, lb).unwrap(),
            );
            let (gx, cx) = (
                g.commit_trace(&ca, lb).unwrap(),
                CpuBackend.commit_trace(&ca, lb).unwrap(),
            );
            let gamma = powers(ext(&mut r), shape.num_constraints);
            macro_rules! qi {
                ($m:expr, $a:expr) => {
                    QuotientInputs {
                        table: sender,
                        shape: &shape,
                        log_height: log_n,
                        log_blowup: lb,
                        preprocessed: None,
                        main: $m,
                        aux: Some($a),
                        public: &public,
                        challenges: ch,
                        total: ct,
                        gamma_powers: &gamma,
                    }
                };
            }
            let gq = g.quotient(&qi!(&gm, &gx)).unwrap();
            let cq = CpuBackend.quotient(&qi!(&cm, &cx)).unwrap();
            assert!(gq == cq, "quotient 2^{log_n} blowup 2^{lb}");

            // The device-resident path: aux from the committed main trace, quotient committed
            // without a host round trip, DEEP codeword kept on the device.
            let ga2 = g
                .commit_logup_aux(sender, &shape, (&gm, None), None, &public, ch, lb)
                .unwrap();
            assert!(ga2.host.is_none());
            assert_eq!(ga2.total, ct, "committed logup total 2^{log_n}");
            let cap = |c: &kestrel_prover_gpu::cpu::CpuCommitted| {
                CpuBackend.round_cap(&CpuBackend.commit_round(&[c]).unwrap())
            };
            let gcap = |c: &kestrel_prover_gpu::cuda::CudaCommitted| {
                g.round_cap(&g.commit_round(&[c]).unwrap())
            };
            assert_eq!(gcap(&ga2.committed), cap(&cx), "aux cap 2^{log_n}");
            let gq2 = g.commit_quotient(&qi!(&gm, &ga2.committed)).unwrap();
            let cq2 = CpuBackend.commit_quotient(&qi!(&cm, &cx)).unwrap();
            assert_eq!(
                gcap(&gq2.committed),
                cap(&cq2.committed),
                "quotient cap 2^{log_n}"
            );
            let z = ext(&mut r);
            assert_eq!(
                g.evaluate_quotient(&gq2, z).unwrap(),
                CpuBackend.evaluate_quotient(&cq2, z).unwrap(),
                "quotient at z 2^{log_n}"
            );
            let rows: Vec<usize> = (0..40)
                .map(|_| (r.next_u64() as usize) % (1 << (log_n + lb)))
                .collect();
            // A round of the main, aux and quotient matrices (one height, three widths).
            let (gt, ct) = (
                g.commit_round(&[&gm, &ga2.committed, &gq2.committed])
                    .unwrap(),
                CpuBackend
                    .commit_round(&[&cm, &cx, &cq2.committed])
                    .unwrap(),
            );
            assert_eq!(g.round_cap(&gt), CpuBackend.round_cap(&ct));
            assert_eq!(
                g.open_round(&gt, &[&gm, &ga2.committed, &gq2.committed], &rows)
                    .unwrap(),
                CpuBackend
                    .open_round(&ct, &[&cm, &cx, &cq2.committed], &rows)
                    .unwrap(),
                "open_round main/aux/quotient 2^{log_n}"
            );

            let (gqc, cqc) = (
                g.commit_coeffs(&cq, lb).unwrap(),
                CpuBackend.commit_coeffs(&cq, lb).unwrap(),
            );
            let cols = shape.width + shape.aux_width + cq.width;
            let wz: Vec<Ext3> = (0..cols).map(|_| ext(&mut r)).collect();
            let wzw: Vec<Ext3> = (0..shape.width + shape.aux_width)
                .map(|_| ext(&mut r))
                .collect();
            let (zeta, zn) = (ext(&mut r), ext(&mut r));
            let (sz, szw) = (ext(&mut r), ext(&mut r));
            // DEEP's inputs over `committed` (the GPU's or the CPU's matrices).
            macro_rules! deep_in {
                ($($c:expr),*) => {
                    DeepInputs {
                        committed: vec![$($c),*],
                        weights_z: &wz,
                        weights_zw: &wzw,
                        sum_z: sz,
                        sum_zw: szw,
                        zeta,
                        zeta_next: zn,
                        log_lde: log_n + lb,
                    }
                };
            }
            let gd = g.deep(&deep_in!(&gm, &gx, &gqc)).unwrap();
            let cd = CpuBackend.deep(&deep_in!(&cm, &cx, &cqc)).unwrap();
            assert!(gd == cd, "deep 2^{log_n}");
            let gdc = g.deep_codeword(&deep_in!(&gm, &gx, &gqc)).unwrap();
            assert!(
                g.final_values(gdc).unwrap() == cd,
                "deep codeword 2^{log_n}"
            );
        }
        println!("ok: logup/quotient/deep 2^{log_n}");
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn broken_trace_is_refused_like_the_cpu() {
    let Some(g) = gpu() else { return };
    // At every preset (blowups 2 to 8): one changed cell of Fibonacci (one quotient chunk,
    // so its domain is at most half the LDE and the spot rows find the witness wrong), then
    // a sender row of the range checker changed in two cells (a summand and the sum, off by
    // one from each other; two chunks, so at blowup 2 the domain is the whole LDE and no
    // prover can tell: both prove the same bytes and the verifier rejects them).
    for params in StarkParams::PRESETS {
        let (mut trace, result) = fibonacci_trace(10, Felt::ONE, Felt::ONE);
        trace.values[2 * 500 + 1] += Felt::ONE;
        let public = [Felt::ONE, Felt::ONE, result];
        refused(g, &FibonacciMachine, params, &[trace.clone()], &public);
        refused(&CpuBackend, &FibonacciMachine, params, &[trace], &public);
        let mut traces = range_check_traces(12, 3, 77);
        let w = traces[0].width;
        traces[0].values[w * 700] += Felt::ONE;
        traces[0].values[w * 700 + 2] += Felt::new(2);
        let public = [Felt::new(77)];
        if params.log_blowup > 1 {
            refused(g, &RangeCheckMachine, params, &traces, &public);
            refused(&CpuBackend, &RangeCheckMachine, params, &traces, &public);
        } else {
            let pk = setup(g, &RangeCheckMachine, params).unwrap();
            let (a, _) = prove(g, &pk, &RangeCheckMachine, &traces, &public).unwrap();
            let pc = setup(&CpuBackend, &RangeCheckMachine, params).unwrap();
            let (b, _) = prove(&CpuBackend, &pc, &RangeCheckMachine, &traces, &public).unwrap();
            assert!(
                a.to_bytes() == b.to_bytes(),
                "the same proof of a wrong witness"
            );
            assert!(verify(&RangeCheckMachine, &pk.vk, &public, &a.to_bytes()).is_err());
        }
    }
}

/// `backend` refuses to prove `traces`: a constraint does not hold.
fn refused<B: Backend, M: Machine>(
    backend: &B,
    machine: &M,
    params: StarkParams,
    traces: &[RowMajorMatrix],
    public: &[Felt],
) {
    let pk = setup(backend, machine, params).unwrap();
    let e = prove(backend, &pk, machine, traces, public).unwrap_err();
    assert!(
        matches!(e, ProverError::ConstraintsNotSatisfied { .. }),
        "{} at {params:?}: {e}",
        machine.name()
    );
}

fn same_proof<M: Machine>(
    g: &CudaBackend,
    machine: &M,
    params: StarkParams,
    traces: &[RowMajorMatrix],
    public: &[Felt],
) {
    let pg = setup(g, machine, params).unwrap();
    let pc = setup(&CpuBackend, machine, params).unwrap();
    assert_eq!(pg.vk, pc.vk);
    let (a, _) = prove(g, &pg, machine, traces, public).unwrap();
    let (b, _) = prove(&CpuBackend, &pc, machine, traces, public).unwrap();
    let bytes = a.to_bytes();
    assert!(
        bytes == b.to_bytes(),
        "{} proof bytes differ ({params:?})",
        machine.name()
    );
    verify(machine, &pg.vk, public, &bytes).unwrap();
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn whole_proofs_are_byte_identical() {
    let Some(g) = gpu() else { return };
    for params in StarkParams::PRESETS {
        for log_n in [4u32, 10, 16] {
            let (trace, result) = fibonacci_trace(log_n, Felt::ONE, Felt::new(2));
            same_proof(
                g,
                &FibonacciMachine,
                params,
                &[trace],
                &[Felt::ONE, Felt::new(2), result],
            );
            let traces = range_check_traces(log_n, 9 + log_n as u64, 77);
            same_proof(g, &RangeCheckMachine, params, &traces, &[Felt::new(77)]);
        }
        println!("ok: presets {params:?}");
    }
    let (trace, result) = fibonacci_trace(20, Felt::ONE, Felt::ONE);
    same_proof(
        g,
        &FibonacciMachine,
        StarkParams::PRESETS[0],
        &[trace],
        &[Felt::ONE, Felt::ONE, result],
    );
    let traces = range_check_traces(18, 5, 3);
    same_proof(
        g,
        &RangeCheckMachine,
        StarkParams::PRESETS[0],
        &traces,
        &[Felt::new(3)],
    );
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn every_stage_dispatches_to_the_gpu() {
    let Some(_) = gpu() else { return };
    // A backend of its own, so the counters see this proof only.
    let g = CudaBackend::new().unwrap();
    let params = StarkParams::PRESETS[0];
    let pk = setup(&g, &RangeCheckMachine, params).unwrap();
    let traces = range_check_traces(12, 1, 9);
    let before = g.stats();
    prove(&g, &pk, &RangeCheckMachine, &traces, &[Felt::new(9)]).unwrap();
    let s = g.stats();
    println!("cuda stats: {}", serde_json::to_string(&s).unwrap());
    for op in [
        "commit_trace",
        "commit_coeffs",
        "commit_round",
        "open",
        "logup_aux",
        "quotient",
        "evaluate_trace",
        "evaluate_coeffs",
        "deep",
        "fri_fold",
        "commit_fri_layer",
        "open_fri",
        "add_scaled",
        "grind",
    ] {
        assert!(
            s.op(op) > before.op(op),
            "stage {op} did not run on the GPU"
        );
    }
    for k in [
        "ks_ntt_dif_group",
        "ks_merkle_leaves_cols",
        "ks_merkle_level",
        "ks_merkle_inject",
        "ks_logup_eval",
        "ks_quotient_eval",
        "ks_deep_combine",
        "ks_deep_finish",
        "ks_fri_fold",
        "ks_grind",
        "ks_eval_weights",
        "ks_open_gather_batch",
        "ks_ext_axpy",
    ] {
        assert!(
            s.kernels.get(k).copied().unwrap_or(0) > 0,
            "kernel {k} never launched"
        );
    }
    assert!(s.h2d_total() > 0 && s.d2h_total() > 0);
    // Nothing already on the device goes back and forth.
    for c in [
        "ood trace",
        "ood coefficients",
        "logup main trace",
        "logup preprocessed trace",
        "coefficient upload",
        "fri codeword",
        "fri layer",
    ] {
        assert!(!s.h2d_bytes.contains_key(c), "host->device {c} in a proof");
    }
    for c in [
        "deep codeword",
        "fri folded",
        "fri tree download",
        "logup aux trace",
        "quotient coefficients",
    ] {
        assert!(!s.d2h_bytes.contains_key(c), "device->host {c} in a proof");
    }
    assert!(s.device_bytes_peak > 0);
}
