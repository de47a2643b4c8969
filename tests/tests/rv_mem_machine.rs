//! The memory and system-call tables inside the whole machine, on real programs: every
//! single-cell mutation of a real row of LOAD, STORE, MEMW_A, MEMW, PAGE, PAGE0, ECALL, IO,
//! REGISTER, MEMW_R and CPU is detected (a constraint fails or the table's bus traffic
//! changes, so the machine's buses no longer balance), and the prover refuses executions
//! whose records disagree with memory.

use kestrel_core::air::debug::preprocessed_traces;
use kestrel_core::air::Machine;
use kestrel_core::field::Felt;
use kestrel_core::rv::machine::TraceError;
use kestrel_core::rv::{page, page0};
use kestrel_prover_gpu::rv::{machine_for, program_image, traces};
use kestrel_tests::mutation::mutate_cells;
use kestrel_tests::vm_support::run_recorded;

const PROGRAMS: &[(&str, &[u8])] = &[
    ("isa/load", b""),
    ("isa/store", b""),
    ("isa/syscall", b""),
    ("bignum", b""),
    ("sort", b"12"),
];

const TABLES: &[&str] = &[
    "CPU", "MEMW_R", "REGISTER", "LOAD", "STORE", "MEMW_A", "MEMW", "PAGE", "PAGE0", "ECALL", "IO",
];

#[test]
fn memory_tables_detect_every_mutation_in_real_runs() {
    let mut covered = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for &(name, input) in PROGRAMS {
        let (program, records, _) = run_recorded(name, input);
        let image = program_image(&program);
        let machine = machine_for(&image);
        let (tr, public) = traces(&machine, &image, &records, input).unwrap();
        let pre = preprocessed_traces(&machine);
        for (t, table) in machine.tables().into_iter().enumerate() {
            let Some(&tname) = TABLES.iter().find(|&&n| n == table.name()) else {
                continue;
            };
            // Real rows: not all zero (padding rows of these tables are zero, except the
            // CPU's clock, which the CPU's is_real column marks).
            let rows: Vec<usize> = (0..tr[t].height())
                .filter(|&r| {
                    let row = tr[t].row(r);
                    if tname == "CPU" {
                        row[0] == Felt::ONE
                    } else if tname == "PAGE" {
                        let p = pre[t].as_ref().unwrap().row(r);
                        p[page::PRE_REAL] == Felt::ONE || p[page::PRE_ZREAL] == Felt::ONE
                    } else if tname == "PAGE0" {
                        row[page0::P0_REAL] == Felt::ONE
                    } else {
                        row.iter().any(|&v| v != Felt::ZERO)
                    }
                })
                .take(4096)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let r = mutate_cells(table, &tr[t], pre[t].as_ref(), &public, &rows, 6, 11);
            assert!(
                r.missed.is_empty(),
                "{name}: {tname}: undetected (row, col, old, new): {:?}",
                &r.missed[..r.missed.len().min(8)]
            );
            let e = covered.entry(tname).or_default();
            e.0 += r.detected;
            e.1 += r.total;
        }
    }
    for (t, (d, n)) in &covered {
        println!("{t}: {d}/{n} mutations detected");
    }
    for t in TABLES {
        assert!(
            covered.contains_key(t),
            "no real rows of {t} in any program"
        );
    }
}

#[test]
fn prover_refuses_records_that_disagree_with_memory() {
    let (program, records, _) = run_recorded("isa/load", b"");
    let image = program_image(&program);
    let machine = machine_for(&image);
    let load = records
        .iter()
        .position(|r| r.word & 0x7f == 0x03)
        .expect("a load");
    let mut forged = records.clone();
    forged[load].mem_val ^= 1;
    forged[load].rd_val ^= 1;
    assert!(matches!(
        traces(&machine, &image, &forged, b""),
        Err(TraceError::MemoryMismatch { .. })
    ));
    // A read that consumes input that was never given.
    let (program, records, _) = run_recorded("fibonacci", b"20");
    let image = program_image(&program);
    let machine = machine_for(&image);
    assert!(matches!(
        traces(&machine, &image, &records, b"2"),
        Err(TraceError::InputExhausted { .. })
    ));
}

/// Public values the verifier must refuse before any arithmetic: fewer than the exit code's
/// 8 bytes, or more output than a statement may carry; and output that is not bytes.
#[test]
fn verifier_refuses_malformed_public_output() {
    use kestrel_core::params::StarkParams;
    use kestrel_core::rv::machine::{MAX_OUTPUT, NUM_PUBLIC};
    use kestrel_prover_gpu::cpu::CpuBackend;
    use kestrel_prover_gpu::prover::{prove, setup};
    use kestrel_prover_gpu::rv::verifier_machine;

    let (program, records, _) = run_recorded("isa/syscall", b"");
    let image = program_image(&program);
    let machine = machine_for(&image);
    let (tr, public) = traces(&machine, &image, &records, b"").unwrap();
    assert_eq!(public.len(), NUM_PUBLIC + 6, "exit code and \"hello\\n\"");
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_2).unwrap();
    let proof = prove(&CpuBackend, &pk, &machine, &tr, &public)
        .unwrap()
        .0
        .to_bytes();
    let verifier = verifier_machine();
    let check = |p: &[Felt]| kestrel_verifier::verify(&verifier, &pk.vk, p, &proof);
    check(&public).expect("honest statement");
    assert!(check(&public[..NUM_PUBLIC - 1]).is_err(), "no exit code");
    let mut long = public.clone();
    long.resize(NUM_PUBLIC + MAX_OUTPUT + 1, Felt::ZERO);
    assert!(check(&long).is_err(), "output beyond the limit");
    let mut not_byte = public.clone();
    // 256 + 'h' has the same low byte as 'h' but is not a byte.
    not_byte[NUM_PUBLIC] += Felt::new(256);
    assert!(
        check(&not_byte).is_err(),
        "an output value that is not a byte"
    );
    let mut moved = public.clone();
    moved.swap(NUM_PUBLIC, NUM_PUBLIC + 1);
    assert!(check(&moved).is_err(), "output bytes reordered");
}

/// The verifying key binds the initial memory image: one different data byte, or a larger
/// bss (a different heap start), gives a different key, and a proof made for one program
/// does not verify under the other's key.
#[test]
fn verifying_key_binds_the_memory_image() {
    use kestrel_core::params::StarkParams;
    use kestrel_prover_gpu::cpu::CpuBackend;
    use kestrel_prover_gpu::prover::{prove, setup};
    use kestrel_prover_gpu::rv::verifier_machine;
    use kestrel_prover_gpu::vm::{Program, VecRecorder, Vm};
    use kestrel_tests::vm_support::asm::exit;
    use kestrel_tests::vm_support::elf_writer::elf;

    let key_and_proof = |data: &[u8]| {
        let program = Program::from_elf(&elf(&exit(0), data)).unwrap();
        let mut rec = VecRecorder::default();
        Vm::new(&program, Vec::new()).run(&mut rec).unwrap();
        let image = program_image(&program);
        let machine = machine_for(&image);
        let (tr, public) = traces(&machine, &image, &rec.records, b"").unwrap();
        let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_2).unwrap();
        let proof = prove(&CpuBackend, &pk, &machine, &tr, &public).unwrap().0;
        (pk.vk, public, proof.to_bytes())
    };
    let (vk_a, public, proof_a) = key_and_proof(&[1, 2, 3]);
    let (vk_b, _, _) = key_and_proof(&[1, 2, 4]);
    let (vk_c, _, _) = key_and_proof(&[1, 2, 3, 0, 0, 0, 0, 0, 0]);
    assert_ne!(vk_a, vk_b, "a data byte");
    assert_ne!(vk_a, vk_c, "the image's extent");
    let v = verifier_machine();
    kestrel_verifier::verify(&v, &vk_a, &public, &proof_a).unwrap();
    assert!(kestrel_verifier::verify(&v, &vk_b, &public, &proof_a).is_err());
}
