//! The memory map in a whole RV64IM proof (issue 13, item 4): a store into a read-only
//! segment and an access outside the mapped regions cannot be proven, whatever the
//! prover writes into its traces; the executor faults on both. (Table-level attacks on
//! MEMW_A, MEMW, PAGE and PAGE0 are their rooms' unit tests,
//! `core/src/rv/{memw,page,page0}/tests.rs`.)

use kestrel_core::air::debug::DebugReport;
use kestrel_core::field::Felt;
use kestrel_core::rv::machine::{TableId, TraceError};
use kestrel_core::rv::memw::MEMW_A;
use kestrel_core::rv::pack::build_traces;
use kestrel_core::rv::BUS_MEM;
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, steps};
use kestrel_prover_gpu::vm::record::{Record, VecRecorder};
use kestrel_prover_gpu::vm::{Program, Vm, VmError};
use kestrel_tests::forge::assert_unprovable;
use kestrel_tests::vm_support::asm::{addi, exit, li32, reg::*, sd};
use kestrel_tests::vm_support::elf_writer::{elf, elf_segments, Seg, CODE_BASE, DATA_BASE};

/// `sd t1, 0(addr)` then `exit(0)`.
fn store_to(addr: u64) -> Vec<u32> {
    let mut code = li32(T0, addr as i32).to_vec();
    code.extend([addi(T1, ZERO, 5), sd(T1, T0, 0)]);
    code.extend(exit(0));
    code
}

fn run(bytes: &[u8]) -> (Program, Result<Vec<Record>, VmError>) {
    let program = Program::from_elf(bytes).unwrap();
    let mut rec = VecRecorder::default();
    let r = Vm::new(&program, Vec::new()).run(&mut rec);
    (program, r.map(|_| rec.records))
}

fn unbalanced(r: &DebugReport, bus: u32) -> bool {
    r.imbalances.iter().any(|i| i.bus == bus)
}

#[test]
fn store_into_a_read_only_segment() {
    let data = |flags| Seg {
        vaddr: DATA_BASE,
        bytes: vec![1; 8],
        memsz: 8,
        flags,
    };
    let code: Vec<u8> = store_to(DATA_BASE)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let code_seg = Seg {
        vaddr: CODE_BASE,
        memsz: code.len() as u64,
        bytes: code,
        flags: 5,
    };
    let ro_elf = elf_segments(CODE_BASE, &[code_seg, data(4)]);
    // The executor faults.
    let (ro_program, r) = run(&ro_elf);
    assert!(
        matches!(r, Err(VmError::MemoryFault { addr, .. }) if addr == DATA_BASE),
        "{r:?}"
    );
    let ro_image = program_image(&ro_program);
    assert_eq!(
        ro_image
            .read_only
            .iter()
            .find(|r| r.0 == (DATA_BASE / 8) as u32),
        Some(&((DATA_BASE / 8) as u32, (DATA_BASE / 8 + 1) as u32))
    );
    // The forger runs the same program with the segment writable…
    let (rw_program, r) = run(&elf(&store_to(DATA_BASE), &[1; 8]));
    let s = steps(&r.unwrap());
    // …and the trace builder refuses to pack it for the read-only image.
    let ro_machine = machine_for(&ro_image);
    assert!(matches!(
        build_traces(&ro_machine, &ro_image, &s, &[]),
        Err(TraceError::ReadOnly { addr, .. }) if addr == DATA_BASE
    ));
    // The traces built for the writable image, against the read-only image's key: the
    // tokens say writable, PAGE says read-only.
    let rw_image = program_image(&rw_program);
    let (mut t, public) = build_traces(&machine_for(&rw_image), &rw_image, &s, &[]).unwrap();
    let r = debug_check(&ro_machine, &t, &public);
    assert!(r.failures.is_empty(), "{r}");
    assert!(unbalanced(&r, BUS_MEM), "{r}");
    assert_unprovable(&ro_machine, &t, &public);
    // With the store's access marked read-only too (consistent with PAGE): the write
    // check fails.
    let ma = TableId::MemwA.index();
    let w = Felt::from((DATA_BASE / 8) as u32);
    let row = (0..t[ma].height())
        .find(|&r| t[ma].row(r)[0] == w && t[ma].row(r)[MEMW_A.wr()] == Felt::ONE)
        .expect("the store's MEMW_A row");
    t[ma].row_mut(row)[MEMW_A.ro(0)] = Felt::ONE;
    let r = debug_check(&ro_machine, &t, &public);
    assert!(
        r.failures
            .iter()
            .any(|f| f.table == "MEMW_A" && f.constraint == "memw no write to a read-only word"),
        "{r}"
    );
    assert!(!unbalanced(&r, BUS_MEM), "{r}");
    assert_unprovable(&ro_machine, &t, &public);
}

#[test]
fn access_outside_the_mapped_regions() {
    // A store just past the heap's limit (the gap before the stack), with or without a
    // segment mapped there.
    let with = |gap: u64, extra: bool| {
        let code: Vec<u8> = store_to(gap).iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut segs = vec![Seg {
            vaddr: CODE_BASE,
            memsz: code.len() as u64,
            bytes: code,
            flags: 5,
        }];
        if extra {
            // The forger's executor: a writable segment where the store lands.
            segs.push(Seg {
                vaddr: gap,
                bytes: vec![0; 8],
                memsz: 8,
                flags: 6,
            });
        }
        elf_segments(CODE_BASE, &segs)
    };
    let real = Program::from_elf(&with(0, false)).unwrap();
    let gap = program_image(&real).heap_limit as u64;
    let real = Program::from_elf(&with(gap, false)).unwrap();
    let real_image = program_image(&real);
    assert_eq!(real_image.heap_limit as u64, gap);
    // The executor faults.
    let (_, r) = run(&with(gap, false));
    assert!(
        matches!(r, Err(VmError::MemoryFault { addr, .. }) if addr == gap),
        "{r:?}"
    );
    // The forger records the same code with the gap mapped; the trace builder refuses
    // those steps for the real program.
    let (fake, r) = run(&with(gap, true));
    let s = steps(&r.unwrap());
    let real_machine = machine_for(&real_image);
    assert!(matches!(
        build_traces(&real_machine, &real_image, &s, &[]),
        Err(TraceError::Unmapped { addr, .. }) if addr == gap
    ));
    // Traces built over the forger's memory map, against the real key: the word's token
    // has no sender, and the verifier rejects the proof.
    let fake_image = program_image(&fake);
    assert_eq!(fake_image.code, real_image.code);
    let (t, public) = build_traces(&machine_for(&fake_image), &fake_image, &s, &[]).unwrap();
    let r = debug_check(&real_machine, &t, &public);
    assert!(unbalanced(&r, BUS_MEM), "{r}");
    assert_unprovable(&real_machine, &t, &public);
}
