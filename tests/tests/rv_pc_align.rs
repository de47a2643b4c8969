//! Every executed pc is a multiple of 4, in the executor and in the proof (issue 13, items 1
//! and 2).
//!
//! The crafted ELF puts a second code segment at `0x20002`, reached by a `jal`. The loader
//! refuses it, for the executor and for the verifying key alike. Without that guard the old
//! program image held DECODE rows at `0x20002 + 4·i` and the proof of an exit the executor
//! never reaches verified; these tests build that image by hand and show the CPU table
//! itself rejects every way into it: a JAL or taken branch by an offset that is not a
//! multiple of 4, a JALR whose target has bit 1 set, and a JALR that keeps bit 0 (the old
//! `2·H` range check let `H = sum_0 / 2` in the field).

use kestrel_core::air::debug::DebugReport;
use kestrel_core::field::{Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::cpu::{self, Step};
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::machine::{Rv64Machine, TableId};
use kestrel_core::rv::pack::build_traces;
use kestrel_core::rv::BUS_BYTE;
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, steps};
use kestrel_prover_gpu::vm::record::VecRecorder;
use kestrel_prover_gpu::vm::{ElfError, Program, Vm};
use kestrel_tests::forge::assert_unprovable;
use kestrel_tests::vm_support::asm::{self, auipc, jal, jalr};
use kestrel_tests::vm_support::elf_writer::{elf_segments, Seg, CODE_BASE};

const TARGET: u32 = 0x20002;

fn words(code: &[u32]) -> Vec<u8> {
    code.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// An ELF with `entry_code` at [`CODE_BASE`] and `exit(7)` at `at` (one code segment each).
fn two_segments(entry_code: &[u32], at: u64) -> Vec<u8> {
    let body = words(&asm::exit(7));
    let head = words(entry_code);
    elf_segments(
        CODE_BASE,
        &[
            Seg {
                vaddr: CODE_BASE,
                memsz: head.len() as u64,
                bytes: head,
                flags: 5,
            },
            Seg {
                vaddr: at,
                memsz: body.len() as u64,
                bytes: body,
                flags: 5,
            },
        ],
    )
}

/// The honest run of `entry_code` jumping to `exit(7)` at `target + 2` (a multiple of 4),
/// then the same run moved to the crafted layout: the exit code at `target`, the entry code
/// replaced by `forged_entry` (same registers), and the image the old loader built for it.
fn forged(entry_code: &[u32], forged_entry: &[u32], target: u32) -> (ProgramImage, Vec<Step>) {
    let program = Program::from_elf(&two_segments(entry_code, target as u64 + 2)).unwrap();
    let mut vm = Vm::new(&program, Vec::new());
    let mut rec = VecRecorder::default();
    assert_eq!(vm.run(&mut rec).unwrap().exit_code, 7);
    let mut s = steps(&rec.records);
    let mut image = program_image(&program);
    for st in &mut s {
        if st.pc >= target {
            st.pc -= 2;
        } else {
            st.word = forged_entry[((st.pc - CODE_BASE as u32) / 4) as usize];
        }
    }
    image.code = forged_entry
        .iter()
        .enumerate()
        .map(|(i, &w)| (CODE_BASE as u32 + 4 * i as u32, w))
        .chain(
            asm::exit(7)
                .into_iter()
                .enumerate()
                .map(|(i, w)| (target + 4 * i as u32, w)),
        )
        .collect();
    (image, s)
}

fn traces(image: &ProgramImage, s: &[Step]) -> (Rv64Machine, Vec<RowMajorMatrix>, Vec<Felt>) {
    let machine = machine_for(image);
    let (t, public) = build_traces(&machine, image, s, &[]).unwrap();
    (machine, t, public)
}

#[track_caller]
fn assert_fails(r: &DebugReport, constraint: &str) {
    assert!(
        r.failures
            .iter()
            .any(|f| f.table == "CPU" && f.constraint == constraint),
        "expected `{constraint}` to fail:\n{r}"
    );
}

#[test]
fn the_crafted_elf_is_refused_by_the_loader() {
    let elf = two_segments(&[jal(0, (TARGET as u64 - CODE_BASE) as i64)], TARGET as u64);
    // The one loader behind `kestrel run`, `prove`, `vk` and `verify --elf`.
    assert_eq!(
        Program::from_elf(&elf).unwrap_err(),
        ElfError::MisalignedCode {
            index: 1,
            vaddr: TARGET as u64
        }
    );
    // The same jump into a segment at a multiple of 4 faults in the executor: the pc is not
    // a multiple of 4.
    let elf = two_segments(
        &[jal(0, (TARGET as u64 - CODE_BASE) as i64)],
        TARGET as u64 + 2,
    );
    let program = Program::from_elf(&elf).unwrap();
    let err = Vm::new(&program, Vec::new())
        .run(&mut VecRecorder::default())
        .unwrap_err();
    assert!(
        matches!(err, kestrel_prover_gpu::vm::VmError::FetchFault { pc } if pc == TARGET as u64),
        "{err:?}"
    );
}

#[test]
fn jal_by_an_offset_not_a_multiple_of_4() {
    let off = |t: u32| (t - CODE_BASE as u32) as i64;
    let (image, s) = forged(&[jal(0, off(TARGET + 2))], &[jal(0, off(TARGET))], TARGET);
    // The honest layout proves (the forgery below changes only the jump).
    let (image_ok, s_ok) = {
        let program =
            Program::from_elf(&two_segments(&[jal(0, off(TARGET + 2))], TARGET as u64 + 2))
                .unwrap();
        let mut rec = VecRecorder::default();
        Vm::new(&program, Vec::new()).run(&mut rec).unwrap();
        (program_image(&program), steps(&rec.records))
    };
    let (m, t, p) = traces(&image_ok, &s_ok);
    assert!(debug_check(&m, &t, &p).is_ok());

    let (machine, t, public) = traces(&image, &s);
    let r = debug_check(&machine, &t, &public);
    assert_fails(&r, "cpu jump offset a multiple of 4");
    assert_unprovable(&machine, &t, &public);
}

#[test]
fn taken_branch_by_an_offset_not_a_multiple_of_4() {
    // beq x0, x0: always taken, to a segment within a branch's reach.
    let target = CODE_BASE as u32 + 0x802;
    let off = |t: u32| (t - CODE_BASE as u32) as i64;
    let (image, s) = forged(
        &[asm::b(0, 0, 0, off(target + 2))],
        &[asm::b(0, 0, 0, off(target))],
        target,
    );
    let (machine, t, public) = traces(&image, &s);
    let r = debug_check(&machine, &t, &public);
    assert_fails(&r, "cpu jump offset a multiple of 4");
    assert_unprovable(&machine, &t, &public);
}

#[test]
fn jalr_to_a_target_with_bit_1_set() {
    // auipc t0, 0x10 (t0 = 0x20000); jalr x0, t0, 4 → 0x20004; forged: jalr x0, t0, 2.
    let t0 = asm::reg::T0;
    let (image, s) = forged(
        &[auipc(t0, 0x10), jalr(0, t0, 4)],
        &[auipc(t0, 0x10), jalr(0, t0, 2)],
        TARGET,
    );
    let (machine, mut t, public) = traces(&image, &s);
    let r = debug_check(&machine, &t, &public);
    assert_fails(&r, "cpu jalr target a multiple of 4");
    assert_unprovable(&machine, &t, &public);
    // The consistent forgery: Q = sum_0 / 4 in the field satisfies the constraint, and
    // fails its byte range check.
    let c = TableId::Cpu.index();
    let row = t[c].row_mut(1);
    assert_eq!(row[cpu::SUM], Felt::new(2));
    row[cpu::Q] = Felt::new(2) * Field::inverse(Felt::new(4)).unwrap();
    let r = debug_check(&machine, &t, &public);
    assert!(r.failures.is_empty(), "{r}");
    assert!(r.imbalances.iter().any(|i| i.bus == BUS_BYTE), "{r}");
    assert_unprovable(&machine, &t, &public);
}

#[test]
fn jalr_keeping_its_low_bit() {
    // jalr x0, t0, 5 from t0 = 0x20000 jumps to 0x20004 (bit 0 cleared). The forgery of
    // item 2: BIT0 = 0 and the quarter taken in the field (the old H = sum_0 / 2), so the
    // next pc is the odd sum 0x20005 itself.
    let t0 = asm::reg::T0;
    let program =
        Program::from_elf(&two_segments(&[auipc(t0, 0x10), jalr(0, t0, 5)], 0x20004)).unwrap();
    let mut rec = VecRecorder::default();
    assert_eq!(
        Vm::new(&program, Vec::new())
            .run(&mut rec)
            .unwrap()
            .exit_code,
        7
    );
    let image = program_image(&program);
    let (machine, mut t, public) = traces(&image, &steps(&rec.records));
    assert!(debug_check(&machine, &t, &public).is_ok());
    let c = TableId::Cpu.index();
    let row = t[c].row_mut(1);
    assert_eq!((row[cpu::SUM], row[cpu::BIT0]), (Felt::new(5), Felt::ONE));
    row[cpu::BIT0] = Felt::ZERO;
    row[cpu::Q] = Felt::new(5) * Field::inverse(Felt::new(4)).unwrap();
    row[cpu::NEXT_PC] = Felt::new(0x20005);
    let r = debug_check(&machine, &t, &public);
    // The CPU's own constraints hold on the row; the range check of Q catches it (and the
    // next row's pc no longer follows, nor has a DECODE row).
    assert!(
        !r.failures
            .iter()
            .any(|f| f.row == 1 && f.constraint != "cpu pc follows"),
        "{r}"
    );
    assert!(r.imbalances.iter().any(|i| i.bus == BUS_BYTE), "{r}");
    assert_unprovable(&machine, &t, &public);
}
