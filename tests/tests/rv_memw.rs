//! The memory argument's proof (MEMW_A, MEMW, PAGE, PAGE0 in the test machine of
//! `kestrel_core::rv::testing::mem`): an honest run proves and verifies, also one with gaps
//! between an access and its word's previous one beyond 2^32, and another image's key
//! rejects the proof. The tables' other tests are their rooms' unit tests
//! (`core/src/rv/{memw,page,page0}/tests.rs`).

use kestrel_core::params::StarkParams;
use kestrel_core::rv::page::PageAir;
use kestrel_core::rv::testing::mem::{honest, image, requests, traces, wide_requests, MemMachine};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_verifier::verify;

#[test]
fn honest_run_proves_and_verifies() {
    let img = image();
    let run = honest(&img, &requests(4, 30));
    let t = traces(&img, &run, None);
    let machine = MemMachine {
        page: PageAir::new(&img),
    };
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_8).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &t, &[]).unwrap();
    // The verifier's PAGE carries no trace: its commitment comes from the verifying key.
    let verifier = MemMachine {
        page: PageAir::shape_only(),
    };
    verify(&verifier, &pk.vk, &[], &proof.to_bytes()).unwrap();
    // Another image's key rejects the proof.
    let mut other = image();
    other.words[3].1 ^= 1;
    let mut other_ro = image();
    other_ro.words[3].2 = true;
    let mut other_map = image();
    other_map.zero[1].hi += 1;
    for other in [other_ro, other_map] {
        let pk2 = setup(
            &CpuBackend,
            &MemMachine {
                page: PageAir::new(&other),
            },
            StarkParams::BLOWUP_8,
        )
        .unwrap();
        assert!(verify(&verifier, &pk2.vk, &[], &proof.to_bytes()).is_err());
    }
    let pk2 = setup(
        &CpuBackend,
        &MemMachine {
            page: PageAir::new(&other),
        },
        StarkParams::BLOWUP_8,
    )
    .unwrap();
    assert!(verify(&verifier, &pk2.vk, &[], &proof.to_bytes()).is_err());
}

#[test]
fn gaps_beyond_four_bytes_prove_and_verify() {
    let img = image();
    let run = honest(&img, &wide_requests(4, 30));
    let t = traces(&img, &run, None);
    let machine = MemMachine {
        page: PageAir::new(&img),
    };
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_8).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &t, &[]).unwrap();
    let verifier = MemMachine {
        page: PageAir::shape_only(),
    };
    verify(&verifier, &pk.vk, &[], &proof.to_bytes()).unwrap();
}
