//! The library API (`kestrel_prover_gpu::api`): prove, verify, progress and error kinds,
//! without the command line.

use std::time::Duration;

use kestrel_prover_gpu::api::{
    self, verify_file, BackendChoice, ErrorKind, Guest, Progress, ProveOptions, PHASES,
};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_tests::vm_support::guest_path;

fn cpu(blowup: usize) -> ProveOptions {
    ProveOptions {
        backend: BackendChoice::Cpu,
        blowup,
        ..ProveOptions::default()
    }
}

/// Every phase is announced once, in order, after the backend; the time left is known from
/// the first phase the roofline model covers, and the report names the same phases.
#[test]
fn progress_announces_every_phase_in_order() {
    let guest = Guest::load(guest_path("fibonacci")).unwrap();
    let mut events = Vec::new();
    let proved = guest
        .prove_with_progress(b"30", &cpu(2), &mut |p| events.push(p.clone()))
        .unwrap();
    let backend_at = events
        .iter()
        .position(|e| matches!(e, Progress::Backend { name: "cpu", cycles } if *cycles == proved.report.cycles))
        .expect("a backend event");
    let phases: Vec<(usize, &str, Duration, Option<Duration>)> = events
        .iter()
        .filter_map(|e| match e {
            Progress::Phase {
                index,
                name,
                elapsed,
                time_left,
            } => Some((*index, *name, *elapsed, *time_left)),
            Progress::Backend { .. } | Progress::Segment(_) => None,
        })
        .collect();
    assert_eq!(
        phases.iter().map(|p| p.0).collect::<Vec<_>>(),
        (0..PHASES.len()).collect::<Vec<_>>()
    );
    assert!(phases.iter().all(|p| PHASES[p.0] == p.1));
    // The backend is chosen after the unrecorded run (phase 0) and before the record.
    assert_eq!(backend_at, 1);
    assert!(
        phases.windows(2).all(|w| w[0].2 <= w[1].2),
        "elapsed only grows"
    );
    let trace = PHASES.iter().position(|p| *p == "trace").unwrap();
    for (i, name, elapsed, left) in &phases {
        // Known once the trace is built (its shapes give the model), not before.
        assert_eq!(left.is_some(), *i > trace, "{name}: {left:?}");
        eprintln!("{name:<12} at {elapsed:>10.3?}, time left {left:?}");
    }
    let total = Duration::from_secs_f64(proved.report.seconds);
    eprintln!("total {total:.3?}");
    let names: Vec<&str> = proved
        .report
        .phases
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    for p in PHASES {
        assert!(names.contains(&p), "{p} in the report: {names:?}");
    }
}

#[test]
fn error_kinds() {
    assert_eq!(
        Guest::from_elf(b"\x7fELF garbage").err().map(|e| e.kind()),
        Some(ErrorKind::Load)
    );
    assert_eq!(
        Guest::load("/nonexistent/guest.elf")
            .err()
            .map(|e| e.kind()),
        Some(ErrorKind::Input)
    );
    let guest = Guest::load(guest_path("fibonacci")).unwrap();
    let kind = |o: ProveOptions| guest.prove(b"30", &o).err().map(|e| e.kind());
    assert_eq!(kind(cpu(3)), Some(ErrorKind::Usage));
    assert_eq!(
        kind(ProveOptions {
            max_cycles: 10,
            ..cpu(2)
        }),
        Some(ErrorKind::Run)
    );
    assert_eq!(
        kind(ProveOptions {
            max_cycles: (1 << 36) + 1,
            ..cpu(2)
        }),
        Some(ErrorKind::Usage)
    );
    assert_eq!(
        kind(ProveOptions {
            vram_budget: Some(1 << 30),
            ..cpu(2)
        }),
        Some(ErrorKind::Usage)
    );
    assert_eq!(
        guest.verifying_key(5).err().map(|e| e.kind()),
        Some(ErrorKind::Usage)
    );
    assert_eq!(
        verify_file(&guest.verifying_key(2).unwrap(), b"KSTLSTMT")
            .err()
            .map(|e| e.kind()),
        Some(ErrorKind::Invalid)
    );
}

/// A proof made on a backend the caller holds verifies like any other, and a proof checks
/// only against its own guest's key and statement.
#[test]
fn prove_on_a_given_backend_and_verify() {
    let guest = Guest::load(guest_path("fibonacci")).unwrap();
    let proved = guest
        .prove_with_backend(&CpuBackend, b"25", &cpu(2), &mut |_| {})
        .unwrap();
    assert_eq!(proved.statement.output, b"75025\n");
    assert_eq!(proved.report.backend, "cpu");
    let file = proved.file_bytes();
    let vk = guest.verifying_key(2).unwrap();
    assert_eq!(vk, proved.report.vk);
    assert_eq!(verify_file(&vk, &file).unwrap(), proved.statement);
    let (statement, params) = api::inspect_file(&file).unwrap();
    assert_eq!(
        (statement, api::preset_of(&params)),
        (proved.statement.clone(), Some(2))
    );
    // Another guest's key, another preset's key, another statement: each is refused.
    let other = Guest::load(guest_path("sort"))
        .unwrap()
        .verifying_key(2)
        .unwrap();
    assert_eq!(
        verify_file(&other, &file).unwrap_err().kind(),
        ErrorKind::Invalid
    );
    let blowup4 = guest.verifying_key(4).unwrap();
    assert_eq!(
        verify_file(&blowup4, &file).unwrap_err().kind(),
        ErrorKind::Invalid
    );
    let mut st = proved.statement.clone();
    st.exit_code = 1;
    let forged = api::encode_statement(&st, &proved.proof);
    assert_eq!(
        verify_file(&vk, &forged).unwrap_err().kind(),
        ErrorKind::Invalid
    );
}

/// `execute` is `run`'s pre-flight: it reports output, cycles and whether `prove` can prove
/// the run.
#[test]
fn execute_reports_the_run() {
    let guest = Guest::load(guest_path("fibonacci")).unwrap();
    let run = guest.execute(b"30", 1 << 20);
    assert!(run.provable());
    assert_eq!(run.public_output, b"832040\n");
    assert_eq!(run.result.as_ref().unwrap().cycles, run.cycles);
    let short = guest.execute(b"30", 10);
    assert!(!short.provable());
    assert!(short.result.is_err());
    assert_eq!(short.cycles, 10);
}
