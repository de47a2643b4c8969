//! RV64IM proofs on the CUDA backend are byte-identical to the CPU backend's and verify:
//! every register-only ISA test and the register-only Fibonacci bench guest.
//!
//! `#[ignore]`d without a GPU (counted as not run); run with `--ignored` on the GPU machine.
#![cfg(feature = "cuda")]

use kestrel_core::params::StarkParams;
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::cuda::CudaBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_prover_gpu::rv::{machine_for, program_image, traces, verifier_machine};
use kestrel_tests::vm_support::{run_recorded, PROVABLE_PROGRAMS};

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn vm_proofs_are_byte_identical_on_the_gpu() {
    let gpu = CudaBackend::new().expect("no CUDA device: this test needs one");
    for &(name, input) in PROVABLE_PROGRAMS {
        let (program, records, _) = run_recorded(name, input);
        let image = program_image(&program);
        let machine = machine_for(&image);
        let (tr, public) = traces(&machine, &image, &records, input).unwrap();
        let params = StarkParams::BLOWUP_2;
        let pk_cpu = setup(&CpuBackend, &machine, params).unwrap();
        let pk_gpu = setup(&gpu, &machine, params).unwrap();
        assert_eq!(pk_cpu.vk, pk_gpu.vk, "{name}: verifying keys differ");
        let cpu = prove(&CpuBackend, &pk_cpu, &machine, &tr, &public)
            .unwrap()
            .0
            .to_bytes();
        let t = std::time::Instant::now();
        let g = prove(&gpu, &pk_gpu, &machine, &tr, &public)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .0
            .to_bytes();
        println!(
            "{name}: {} cycles, gpu prove {:?}",
            records.len(),
            t.elapsed()
        );
        assert!(
            cpu == g,
            "{name}: CUDA proof bytes differ from the CPU backend's"
        );
        kestrel_verifier::verify(&verifier_machine(), &pk_gpu.vk, &public, &g).unwrap();
    }
    let s = gpu.stats();
    for op in [
        "commit_trace",
        "quotient",
        "logup_aux",
        "deep",
        "fri_fold",
        "grind",
    ] {
        assert!(s.op(op) > 0, "stage {op} did not run on the GPU");
    }
    // Every RV64IM table's LogUp program, and every quotient program small enough to be
    // generated, ran as its generated kernel (kernels/gen): none fell back to the
    // interpreter by a fingerprint that no longer matches the AIR.
    use kestrel_prover_gpu::cuda::gen_programs::{LOGUP, QUOTIENT};
    for (_, kernel, table) in LOGUP.iter().chain(QUOTIENT) {
        assert!(
            s.kernels.get(*kernel).copied().unwrap_or(0) > 0,
            "{table}: generated kernel {kernel} never ran"
        );
    }
    assert_eq!(
        s.kernels.get("ks_logup_eval"),
        None,
        "a LogUp program ran in the interpreter"
    );
}

/// Segmented proofs (format 10) on the CUDA backend, with the record tables filled on the
/// device, are byte-identical to the CPU backend's host-filled ones and verify.
#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn segmented_proofs_are_byte_identical_on_the_gpu() {
    use kestrel_prover_gpu::api::Guest;
    use kestrel_prover_gpu::segmented::prove_segmented;
    use kestrel_tests::vm_support::guest_path;
    let gpu = CudaBackend::new().expect("no CUDA device: this test needs one");
    for (name, input, log) in [("sha256", &b"abc"[..], 12), ("fibonacci", &b"3000"[..], 10)] {
        let g = Guest::load(guest_path(name)).unwrap();
        let cycles = g.execute(input, 1 << 26).cycles;
        let params = StarkParams::BLOWUP_2;
        let prove = |device: bool| {
            let t = std::time::Instant::now();
            let run = if device {
                prove_segmented(
                    std::slice::from_ref(&gpu),
                    g.program(),
                    input,
                    params,
                    cycles,
                    log,
                    true,
                    2,
                    &mut |_| {},
                )
            } else {
                prove_segmented(
                    &[CpuBackend],
                    g.program(),
                    input,
                    params,
                    cycles,
                    log,
                    false,
                    1,
                    &mut |_| {},
                )
            }
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            println!(
                "{name}: {cycles} cycles in {} segments, {} {:?}",
                run.segments,
                if device { "gpu" } else { "cpu" },
                t.elapsed()
            );
            run
        };
        let (c, d) = (prove(false), prove(true));
        assert!(c.segments > 1, "{name}: one segment");
        let bytes = d.proof.to_bytes();
        assert!(
            c.proof.to_bytes() == bytes,
            "{name}: CUDA segmented proof differs"
        );
        kestrel_verifier::verify(&verifier_machine(), &d.vk, &d.public, &bytes).unwrap();
    }
}
