//! The memory and system-call tables inside the whole machine, on real programs: every
//! single-cell mutation of a real row of LOAD, STORE, MEMW_A, MEMW, PAGE, PAGE0, ECALL, IO,
//! REGISTER, MEMW_R and CPU is detected (a constraint fails or the table's bus traffic
//! changes, so the machine's buses no longer balance), and the prover refuses executions
//! whose records disagree with memory.

use kestrel_core::air::debug::preprocessed_traces;
use kestrel_core::air::Machine;
use kestrel_core::field::Felt;
use kestrel_core::rv::machine::TraceError;
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
            // CPU's clock and PAGE0's floor row, which the CPU's is_real column marks).
            let rows: Vec<usize> = (0..tr[t].height())
                .filter(|&r| {
                    let row = tr[t].row(r);
                    if tname == "CPU" {
                        row[0] == Felt::ONE
                    } else if tname == "PAGE" {
                        pre[t].as_ref().unwrap().row(r)[9] == Felt::ONE
                    } else if tname == "PAGE0" {
                        row[1] == Felt::ONE
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
