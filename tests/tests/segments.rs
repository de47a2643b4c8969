//! Segmented proofs (format 10): a run cut into segments proves and verifies, the same
//! statement as one proof of the whole run; the verifier rejects dropped, duplicated,
//! reordered and truncated segments, segments and run parts spliced in from another run or
//! another input, and a second listing that differs from the first; its heap does not grow
//! with the number of segments.

use kestrel_core::proof::SegmentedProof;
use kestrel_core::rv::machine::Rv64Machine;
use kestrel_prover_gpu::api::{BackendChoice, Guest, Progress, ProveOptions};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::segmented::{prove_segmented, SegmentedRun};
use kestrel_tests::heap::{count_heap, CountingAlloc};
use kestrel_tests::vm_support::guest_path;
use kestrel_verifier::statement::Statement;
use kestrel_verifier::VerifyError;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const BLOWUP: usize = 2;

fn guest(name: &str) -> Guest {
    Guest::load(guest_path(name)).unwrap()
}

/// A run of `name` on `input` proven on the CPU in segments of `2^log` cycles.
fn segmented(name: &str, input: &[u8], log: u32) -> SegmentedRun {
    segmented_by(name, input, log, 1)
}

/// [`segmented`] with `packers` threads packing the segments from checkpoints.
fn segmented_by(name: &str, input: &[u8], log: u32, packers: usize) -> SegmentedRun {
    let g = guest(name);
    let cycles = g.execute(input, 1 << 26).cycles;
    let params = kestrel_prover_gpu::api::params(BLOWUP).unwrap();
    prove_segmented(
        &[CpuBackend],
        g.program(),
        input,
        params,
        cycles,
        log,
        false,
        packers,
        &mut |_| {},
    )
    .unwrap()
}

fn verify(name: &str, run: &SegmentedRun, proof: &[u8]) -> Result<(), VerifyError> {
    let vk = guest(name).verifying_key(BLOWUP).unwrap();
    assert_eq!(vk, run.vk, "the segmented key is the program's key");
    kestrel_verifier::verify(&Rv64Machine::verifier(), &vk, &run.public, proof)
}

fn with_parts(
    run: &SegmentedRun,
    edit: impl FnOnce(&mut Vec<kestrel_core::proof::ProofBody>),
) -> Vec<u8> {
    let mut p: SegmentedProof = run.proof.clone();
    edit(&mut p.parts);
    p.to_bytes()
}

#[test]
fn a_segmented_run_proves_the_statement_of_the_whole_run() {
    let run = segmented("sha256", b"abc", 12);
    assert!(run.segments >= 4, "{} segments", run.segments);
    let bytes = run.proof.to_bytes();
    assert_eq!(bytes.len(), run.proof.encoded_len());
    verify("sha256", &run, &bytes).unwrap();
    // The statement is the one a whole proof of the run makes.
    let whole = guest("sha256")
        .prove(
            b"abc",
            &ProveOptions {
                backend: BackendChoice::Cpu,
                blowup: BLOWUP,
                segment_log: Some(24),
                ..ProveOptions::default()
            },
        )
        .unwrap();
    assert_eq!(Statement::from_public(&run.public), whole.statement);
    assert!(whole.report.segmented.is_none());
    // Deterministic: the same bytes again.
    assert_eq!(segmented("sha256", b"abc", 12).proof.to_bytes(), bytes);
}

#[test]
fn the_verifier_rejects_edited_segment_lists() {
    let run = segmented("sha256", b"abc", 12);
    let n = run.proof.parts.len();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("dropped", with_parts(&run, |p| drop(p.remove(1)))),
        (
            "dropped last segment",
            with_parts(&run, |p| drop(p.remove(n - 2))),
        ),
        (
            "duplicated",
            with_parts(&run, |p| p.insert(1, p[1].clone())),
        ),
        ("reordered", with_parts(&run, |p| p.swap(1, 2))),
        (
            "run part only",
            with_parts(&run, |p| drop(p.drain(..n - 1))),
        ),
    ];
    for (what, bytes) in cases {
        assert!(verify("sha256", &run, &bytes).is_err(), "{what} accepted");
    }
    // Truncated anywhere: refused, never a panic.
    let bytes = run.proof.to_bytes();
    for cut in [
        7,
        20,
        100,
        bytes.len() / 3,
        bytes.len() / 2,
        bytes.len() - 1,
    ] {
        assert!(
            verify("sha256", &run, &bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    // Phase 2 listing a part's main cap differently from phase 1.
    let mut edited = bytes.clone();
    let phase2 = phase2_start(&run.proof);
    let cap_at = phase2 + 4 + run.proof.parts[0].log_heights.len() + 4;
    edited[cap_at] ^= 1;
    assert!(verify("sha256", &run, &edited).is_err());
}

/// Where phase 2 starts in a format-4 proof.
fn phase2_start(p: &SegmentedProof) -> usize {
    let head = 4 + 2 + 5 + 4 + 32 * p.preprocessed_cap.len() + 4;
    head + p
        .parts
        .iter()
        .map(|b| 4 + b.log_heights.len() + 4 + 32 * b.main_cap.len())
        .sum::<usize>()
}

#[test]
fn parts_of_another_run_do_not_splice_in() {
    let a = segmented("sha256", b"abc", 12);
    let b = segmented("sha256", b"abd", 12);
    assert_eq!(a.proof.parts.len(), b.proof.parts.len());
    let n = a.proof.parts.len();
    for k in [0, 1, n - 2, n - 1] {
        let bytes = with_parts(&a, |p| p[k] = b.proof.parts[k].clone());
        assert!(
            verify("sha256", &a, &bytes).is_err(),
            "part {k} of another input accepted"
        );
    }
    // b's proof does not prove a's statement.
    assert!(verify("sha256", &a, &b.proof.to_bytes()).is_err());
}

#[test]
fn the_verifier_heap_does_not_grow_with_the_segments() {
    let few = segmented("sha256", b"abc", 14);
    let many = segmented("sha256", b"abc", 11);
    assert!(
        many.segments >= 4 * few.segments,
        "{} vs {}",
        many.segments,
        few.segments
    );
    let vk = guest("sha256").verifying_key(BLOWUP).unwrap();
    let machine = Rv64Machine::verifier();
    let heap = |run: &SegmentedRun| {
        let bytes = run.proof.to_bytes();
        let (r, h) = count_heap(|| kestrel_verifier::verify(&machine, &vk, &run.public, &bytes));
        r.unwrap();
        h.peak
    };
    let (a, b) = (heap(&few), heap(&many));
    // The tallest tables are in the run part (BITWISE), the same for both: the peak is
    // set by the part shapes, not by how many segments there are.
    assert!(
        b <= a + a / 10,
        "{b} B for {} segments vs {a} B for {}",
        many.segments,
        few.segments
    );
}

#[test]
fn prove_reports_segments_and_progress() {
    let mut events = Vec::new();
    let proved = guest("sha256")
        .prove_with_progress(
            b"abc",
            &ProveOptions {
                backend: BackendChoice::Cpu,
                blowup: BLOWUP,
                segment_log: Some(12),
                ..ProveOptions::default()
            },
            &mut |p| events.push(p.clone()),
        )
        .unwrap();
    let seg = proved.report.segmented.clone().expect("a segmented report");
    assert_eq!(seg.segment_log, 12);
    assert_eq!(seg.segments as u64, proved.report.cycles.div_ceil(1 << 12));
    let parts: Vec<(u8, usize, usize)> = events
        .iter()
        .filter_map(|e| match e {
            Progress::Segment(p) => Some((p.phase, p.done, p.total)),
            _ => None,
        })
        .collect();
    let total = seg.segments + 1;
    let expect: Vec<(u8, usize, usize)> = (1..=2u8)
        .flat_map(|ph| (1..=total).map(move |d| (ph, d, total)))
        .collect();
    assert_eq!(parts, expect);
    let vk = guest("sha256").verifying_key(BLOWUP).unwrap();
    assert_eq!(
        kestrel_prover_gpu::api::verify_file(&vk, &proved.file_bytes()).unwrap(),
        proved.statement
    );
}

/// A run of about 10^5 cycles in segments of 2^12: every segment hands its registers,
/// memory and output position on, and the proven statement is what the executor reports.
#[test]
fn a_long_run_proves_in_many_segments() {
    let g = guest("fibonacci");
    let run = segmented("fibonacci", b"20000", 12);
    assert!(run.segments >= 24, "{} segments", run.segments);
    verify("fibonacci", &run, &run.proof.to_bytes()).unwrap();
    let exec = g.execute(b"20000", 1 << 26);
    let s = Statement::from_public(&run.public);
    assert_eq!(s.exit_code, exec.result.unwrap().exit_code);
    assert_eq!(s.output, exec.public_output);
}

/// Segments packed at once by several threads, each from the replay state at its start
/// while the executor runs ahead, make the proof of the segments packed in order.
#[test]
fn packers_make_the_in_order_proof() {
    let (name, input) = ("fibonacci", b"1000".to_vec());
    let one = segmented_by(name, &input, 10, 1);
    assert!(one.segments >= 5, "{} segments", one.segments);
    assert_eq!(one.packers, 1);
    for packers in [2, 7] {
        let many = segmented_by(name, &input, 10, packers);
        assert_eq!(many.packers, packers);
        assert!(many.packing_mhz > 0.0);
        assert!(
            many.proof.to_bytes() == one.proof.to_bytes(),
            "{packers} packers: another proof"
        );
    }
    verify(name, &one, &one.proof.to_bytes()).unwrap();
}

/// A run that fails in a late segment (here: it runs past the cycles it was given) stops
/// the proof with that error, whether the executor packs in order or runs ahead for
/// packers; nothing waits forever.
#[test]
fn a_failing_segment_stops_the_packers() {
    let g = guest("fibonacci");
    let cycles = g.execute(b"1000", 1 << 26).cycles;
    let params = kestrel_prover_gpu::api::params(BLOWUP).unwrap();
    for packers in [1, 3] {
        let got = prove_segmented(
            &[CpuBackend],
            g.program(),
            b"1000",
            params,
            cycles - 100,
            10,
            false,
            packers,
            &mut |_| {},
        );
        let e = got
            .err()
            .unwrap_or_else(|| panic!("{packers} packers: proved"));
        assert!(
            matches!(e, kestrel_prover_gpu::segmented::SegmentedError::Run(_)),
            "{packers} packers: {e}"
        );
    }
}
