//! A segmented run proven on several CUDA backends at once (`--devices`): two backends
//! sharing device 0 (`List(vec![0, 0])`, each with half its memory; also the default for a
//! segmented run on one device), and with two devices or more every device (`All`), make
//! the bytes one backend (`List(vec![0])`) makes, and they verify.
//!
//! Built only with `--features cuda`. Every test is `#[ignore]`d with the reason "needs a
//! CUDA device", so a machine without one (CI) compiles the suite and counts each test as
//! not run; on the GPU machine run them with `--ignored`, where a missing device fails them.
#![cfg(feature = "cuda")]

use kestrel_prover_gpu::api::{verify_file, BackendChoice, Devices, Guest, ProveOptions, Proved};
use kestrel_prover_gpu::cuda::device::CudaDevice;
use kestrel_tests::vm_support::guest_path;

const BLOWUP: usize = 2;
const INPUT: &[u8] = b"3000";

fn prove(devices: Devices) -> Proved {
    let guest = Guest::load(guest_path("fibonacci")).unwrap();
    let options = ProveOptions {
        backend: BackendChoice::Cuda,
        blowup: BLOWUP,
        segment_log: Some(10),
        devices: devices.clone(),
        ..ProveOptions::default()
    };
    let proved = guest
        .prove(INPUT, &options)
        .unwrap_or_else(|e| panic!("{devices:?}: {e}"));
    let seg = proved.report.segmented.as_ref().expect("a segmented proof");
    assert!(seg.segments >= 4, "{} segments", seg.segments);
    let committed: usize = seg.backends.iter().map(|b| b.committed).sum();
    let proven: usize = seg.backends.iter().map(|b| b.proved).sum();
    assert_eq!((committed, proven), (seg.segments, seg.segments), "{seg:?}");
    println!(
        "{devices:?}: {} segments, {:?}, executor {:.2} MHz, feeds {:.2} backends",
        seg.segments, seg.backends, seg.executor_mhz, seg.backends_fed
    );
    let vk = guest.verifying_key(BLOWUP).unwrap();
    assert_eq!(vk, proved.report.vk);
    assert_eq!(
        verify_file(&vk, &proved.file_bytes()).unwrap(),
        proved.statement
    );
    proved
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
fn devices_make_the_one_device_proof() {
    let count = CudaDevice::count().unwrap_or_else(|e| panic!("no CUDA device ({e})"));
    assert!(count > 0, "no CUDA device: this test needs one");
    let one = prove(Devices::List(vec![0]));
    assert_eq!(one.report.segmented.as_ref().unwrap().backends.len(), 1);
    // Without a device list, a segmented run whose segments half the budget still holds is
    // proven by two backends sharing device 0 (`api::shares_one_device`).
    let default = prove(Devices::Default);
    assert_eq!(default.report.segmented.as_ref().unwrap().backends.len(), 2);
    assert!(default.proof == one.proof, "the default: another proof");
    let shared = prove(Devices::List(vec![0, 0]));
    assert_eq!(shared.report.segmented.as_ref().unwrap().backends.len(), 2);
    assert!(
        shared.proof == one.proof,
        "two backends on device 0: another proof"
    );
    if count >= 2 {
        let all = prove(Devices::All);
        assert_eq!(all.report.segmented.as_ref().unwrap().backends.len(), count);
        assert!(all.proof == one.proof, "every device: another proof");
    } else {
        println!("one CUDA device: Devices::All not tried");
    }
}
