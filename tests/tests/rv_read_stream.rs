//! `read(0, buf, len)` is tied to one private input stream: the executor returns
//! `n = min(len, remaining)` (so after a short read every later read returns 0), and the
//! proof shows exactly that, with `remaining` fixed (privately) at the start and lowered by
//! every read.
//!
//! The attack: a program reads with len 2, then with len 1, and exits with `16·n₁ + n₂`.
//! An input of length 0, 1, 2 or ≥ 3 gives `(0, 0)`, `(1, 0)`, `(2, 0)` or `(2, 1)`; no
//! input gives `(1, 1)` (exit code 17). A witness claiming `(1, 1)` — alone, or with the
//! REGISTER initial value, the ECALL rows, the register tokens and the byte counts forged
//! consistently around it — is rejected by the debug checker, and the prover refuses it or
//! the verifier rejects its proof. Honest runs with reads of every shape prove and verify.

use kestrel_core::air::debug::DebugReport;
use kestrel_core::air::Air;
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::machine::{public_values, Rv64Machine, TableId};
use kestrel_core::rv::memw_r::RegFile;
use kestrel_core::rv::pack::build_traces;
use kestrel_core::rv::register::RegisterAir;
use kestrel_core::rv::{
    ecall, memw_r, register, BUS_ALU, BUS_BYTE, BUS_REG, BYTE_RANGE, NUM_REGS, REG_INPUT,
};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup, ProverError};
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, steps, verifier_machine};
use kestrel_prover_gpu::vm::record::VecRecorder;
use kestrel_prover_gpu::vm::{Program, Vm};
use kestrel_tests::mutation::assert_all_detected;
use kestrel_tests::vm_support::asm::{addi, i, lui, r, reg, ECALL};
use kestrel_tests::vm_support::elf_writer::{elf, DATA_BASE};
use kestrel_verifier::{verify, VerifyError};

const T0: u32 = reg::T0;

fn slli(rd: u32, rs1: u32, sh: i64) -> u32 {
    i(0x13, 1, rd, rs1, sh)
}

fn add(rd: u32, rs1: u32, rs2: u32) -> u32 {
    r(0x33, 0, 0, rd, rs1, rs2)
}

/// `read(0, DATA_BASE + off, len)` then `t0 = (t0 << 4) + n` (len as a 12-bit immediate,
/// sign-extended: -1 is `u64::MAX`).
fn read_into_t0(off: i64, len: i64) -> Vec<u32> {
    vec![
        addi(reg::A0, 0, 0),
        lui(reg::A1, (DATA_BASE >> 12) as u32),
        addi(reg::A1, reg::A1, off),
        addi(reg::A2, 0, len),
        addi(reg::A7, 0, 63),
        ECALL,
        slli(T0, T0, 4),
        add(T0, T0, reg::A0),
    ]
}

/// `exit(t0)`.
fn exit_t0() -> Vec<u32> {
    vec![addi(reg::A0, T0, 0), addi(reg::A7, 0, 93), ECALL]
}

/// The attack program: `read(len 2)`, `read(len 1)`, exit `16·n₁ + n₂`.
fn attack_elf() -> Vec<u8> {
    let mut code = read_into_t0(0, 2);
    code.extend(read_into_t0(8, 1));
    code.extend(exit_t0());
    elf(&code, &[0u8; 64])
}

/// Reads of every shape: len 0, len 2, len 1, len `u64::MAX` (≥ 2^32 and ≥ p: takes the
/// rest), len 3 (after the end); then writes the buffer to fd 1 and exits with the counts,
/// four bits each (the first read's highest).
fn shapes_elf() -> Vec<u8> {
    let mut code = read_into_t0(0, 0);
    code.extend(read_into_t0(0, 2));
    code.extend(read_into_t0(8, 1));
    code.extend(read_into_t0(16, -1));
    code.extend(read_into_t0(40, 3));
    code.extend([
        addi(reg::A0, 0, 1),
        lui(reg::A1, (DATA_BASE >> 12) as u32),
        addi(reg::A2, 0, 48),
        addi(reg::A7, 0, 64),
        ECALL,
    ]);
    code.extend(exit_t0());
    elf(&code, &[0u8; 64])
}

/// The executor's reads on a stream of `len` bytes: `min(ask, remaining)` each.
fn model(asks: &[u64], len: u64) -> Vec<u64> {
    let mut rem = len;
    asks.iter()
        .map(|&a| {
            let n = a.min(rem);
            rem -= n;
            n
        })
        .collect()
}

fn pack_counts(ns: &[u64]) -> u64 {
    ns.iter().fold(0, |a, &n| (a << 4) + n)
}

/// Runs `elf` on `input` with recording.
fn run(elf: &[u8], input: &[u8]) -> (Program, Vec<Step>, u64, Vec<u8>) {
    let program = Program::from_elf(elf).unwrap();
    let mut rec = VecRecorder::default();
    let mut vm = Vm::new(&program, input.to_vec());
    let exit = vm.run(&mut rec).unwrap();
    let out = vm.public_output().to_vec();
    (program, steps(&rec.records), exit.exit_code, out)
}

fn input(len: usize) -> Vec<u8> {
    (0..len as u8)
        .map(|b| b.wrapping_mul(29).wrapping_add(3))
        .collect()
}

/// Proves and verifies an honest run.
fn prove_and_verify(machine: &Rv64Machine, traces: &[RowMajorMatrix], public: &[Felt]) {
    let pk = setup(&CpuBackend, machine, StarkParams::BLOWUP_2).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, machine, traces, public).unwrap();
    verify(&verifier_machine(), &pk.vk, public, &proof.to_bytes()).unwrap();
}

#[test]
fn executor_reads_are_min_of_len_and_remaining() {
    let elf = attack_elf();
    for len in 0..=4u64 {
        let (_, _, exit, _) = run(&elf, &input(len as usize));
        let want = model(&[2, 1], len);
        assert_eq!(exit, 16 * want[0] + want[1], "input of {len} bytes");
    }
    // Exactly (0,0), (1,0), (2,0), (2,1): never (1,1).
    let seen: Vec<u64> = (0..=4).map(|l| run(&elf, &input(l)).2).collect();
    assert_eq!(seen, vec![0x00, 0x10, 0x20, 0x21, 0x21]);

    let elf = shapes_elf();
    for len in [0usize, 1, 2, 3, 4, 7, 9] {
        let inp = input(len);
        let (_, _, exit, out) = run(&elf, &inp);
        let ns = model(&[0, 2, 1, u64::MAX, 3], len as u64);
        assert_eq!(exit, pack_counts(&ns), "input of {len} bytes");
        // The bytes landed at their buffers, in stream order.
        let mut want = vec![0u8; 48];
        let mut pos = 0;
        for (off, n) in [(0, ns[1]), (8, ns[2]), (16, ns[3]), (40, ns[4])] {
            want[off..off + n as usize].copy_from_slice(&inp[pos..pos + n as usize]);
            pos += n as usize;
        }
        assert_eq!(out, want, "input of {len} bytes");
    }
}

#[test]
fn honest_reads_of_every_shape_prove() {
    for (elf, lens) in [
        (attack_elf(), vec![0usize, 1, 2, 3]),
        (shapes_elf(), vec![0, 1, 3, 4, 9]),
    ] {
        for len in lens {
            let inp = input(len);
            let (program, steps, exit, out) = run(&elf, &inp);
            let image = program_image(&program);
            let machine = machine_for(&image);
            let (traces, public) = build_traces(&machine, &image, &steps, &inp).unwrap();
            assert_eq!(public, public_values(exit, &out));
            let report = debug_check(&machine, &traces, &public);
            assert!(report.is_ok(), "input of {len} bytes: {report}");
            prove_and_verify(&machine, &traces, &public);
        }
    }
}

/// The forged witness: the attack program's steps with the reads returning `(1, 1)` (and
/// every later value following), from the honest steps of a 3-byte input, `(2, 1)`.
fn forged_steps() -> (Program, Vec<Step>) {
    let (program, mut s, exit, _) = run(&attack_elf(), &input(3));
    assert_eq!(exit, 0x21);
    // Steps: 0..8 the first read (ECALL at 5, t0 = n₁ at 7), 8..16 the second (ECALL at 13,
    // t0 = 16·n₁ at 14, t0 = 16·n₁ + n₂ at 15), 16..19 the exit.
    let ecall1 = 5;
    assert_eq!(
        (s[ecall1].word, s[ecall1].mem_val, s[ecall1].rd_val),
        (ECALL, 2, 2)
    );
    s[ecall1].rd_val = 1;
    // add t0, t0, a0 = 0 + 1.
    assert_eq!((s[7].rs2_val, s[7].rd_val), (2, 2));
    s[7].rs2_val = 1;
    s[7].rd_val = 1;
    // slli t0, t0, 4 = 16.
    assert_eq!((s[14].rs1_val, s[14].rd_val), (2, 32));
    s[14].rs1_val = 1;
    s[14].rd_val = 16;
    // add t0, t0, a0: 16 + 1 (the second read returned 1 honestly too).
    assert_eq!((s[13].mem_val, s[13].rd_val), (1, 1));
    assert_eq!((s[15].rs1_val, s[15].rs2_val, s[15].rd_val), (32, 1, 33));
    s[15].rs1_val = 16;
    s[15].rd_val = 17;
    // addi a0, t0, 0; exit(17).
    assert_eq!((s[16].rs1_val, s[16].rd_val), (33, 33));
    s[16].rs1_val = 17;
    s[16].rd_val = 17;
    assert_eq!(s.len(), 19);
    assert_eq!((s[18].word, s[18].rs2_val, s[18].rd_val), (ECALL, 33, 33));
    s[18].rs2_val = 17;
    s[18].rd_val = 17;
    (program, s)
}

/// How a forged witness fails to become a verifying proof.
#[derive(Debug, PartialEq, Eq)]
enum Rejected {
    /// A constraint of table `t` fails: the prover refuses the witness
    /// (`ConstraintsNotSatisfied`), or the quotient still fits and the verifier finds the
    /// constraints false at the out-of-domain point (`OodMismatch`).
    Constraint(usize),
    /// The buses do not balance: the verifier rejects the LogUp sum.
    LogUp,
}

/// Proves the forged traces and verifies the proof (if the prover makes one).
fn rejection(machine: &Rv64Machine, traces: &[RowMajorMatrix], public: &[Felt]) -> Rejected {
    let pk = setup(&CpuBackend, machine, StarkParams::BLOWUP_2).unwrap();
    match prove(&CpuBackend, &pk, machine, traces, public) {
        Err(ProverError::ConstraintsNotSatisfied { table: name }) => {
            let t = TableId::from_name(&name).unwrap_or_else(|| panic!("no table {name}"));
            Rejected::Constraint(t.index())
        }
        Err(e) => panic!("unexpected prover error {e}"),
        Ok((proof, _)) => match verify(&verifier_machine(), &pk.vk, public, &proof.to_bytes()) {
            Ok(()) => panic!("a proof of reads (1, 1) verified"),
            Err(VerifyError::OodMismatch { table }) => Rejected::Constraint(table),
            Err(VerifyError::LogUpSum) => Rejected::LogUp,
            Err(e) => panic!("unexpected verifier error {e:?}"),
        },
    }
}

/// The forged traces as the trace builder makes them: the input has 2 bytes (both reads'
/// IO chains find their byte), REG_INPUT starts at 2.
fn forged_traces() -> (Rv64Machine, Vec<RowMajorMatrix>, Vec<Felt>) {
    let (program, steps) = forged_steps();
    let image = program_image(&program);
    let machine = machine_for(&image);
    let (traces, public) = build_traces(&machine, &image, &steps, &input(2)).unwrap();
    assert_eq!(public, public_values(17, &[]));
    (machine, traces, public)
}

#[track_caller]
fn assert_fails(r: &DebugReport, table: &str, name: &str) {
    assert!(
        r.failures
            .iter()
            .any(|f| f.table == table && f.constraint == name),
        "expected `{name}` to fail in {table}:\n{r}"
    );
}

/// The report has no constraint failure and imbalances only on `bus`.
#[track_caller]
fn assert_only_unbalanced(r: &DebugReport, bus: u32) {
    assert!(r.failures.is_empty(), "{r}");
    assert!(!r.imbalances.is_empty(), "{r}");
    assert!(r.imbalances.iter().all(|i| i.bus == bus), "{r}");
}

#[test]
fn forged_reads_are_rejected() {
    let (machine, traces, public) = forged_traces();
    let report = debug_check(&machine, &traces, &public);
    assert!(
        !report.is_ok(),
        "reads (1, 1) accepted by the debug checker"
    );
    assert_fails(&report, "ECALL", "ecall short read exhausts the input");
    assert_eq!(
        rejection(&machine, &traces, &public),
        Rejected::Constraint(TableId::Ecall.index())
    );
}

/// Sets REG_INPUT's 4 low bytes (value `v`) of a MEMW_R row's old or new value.
fn set_reg_value(row: &mut [Felt], col: usize, v: Felt) {
    row[col] = v;
    for j in 1..8 {
        row[col + j] = Felt::ZERO;
    }
}

/// Moves one BITWISE range count from `(x, y)` to `(x2, y2)` (`None`: dropped).
fn move_range(bitwise: &mut RowMajorMatrix, from: (u8, u8), to: Option<(u8, u8)>) {
    let at = |(x, y): (u8, u8)| x as usize + 256 * y as usize;
    let col = BYTE_RANGE as usize;
    bitwise.row_mut(at(from))[col] -= Felt::ONE;
    if let Some(to) = to {
        bitwise.row_mut(at(to))[col] += Felt::ONE;
    }
}

/// The forged traces with cells changed consistently around the lie, in several ways.
#[test]
fn forged_reads_rejected_with_consistent_forgeries() {
    let (machine, traces, public) = forged_traces();
    let (t_ecall, t_reg, t_memw_r, t_bitwise) = (
        TableId::Ecall.index(),
        TableId::Register.index(),
        TableId::MemwR.index(),
        TableId::Bitwise.index(),
    );
    // The two read rows (ECALL's rows are in call order).
    let e = &traces[t_ecall];
    for row in [0, 1] {
        assert_eq!(e.row(row)[ecall::SEL_READ], Felt::ONE);
    }
    assert_eq!(
        (
            e.row(0)[ecall::REM],
            e.row(0)[ecall::REM_NEW],
            e.row(0)[ecall::SHORT]
        ),
        (Felt::new(2), Felt::ONE, Felt::ONE)
    );
    assert_eq!(
        traces[t_reg].row(REG_INPUT as usize)[register::IN],
        Felt::new(2)
    );
    // REG_INPUT's MEMW_R rows (MEMW_R's, then MEMW_R2's: the accesses in order): read 1
    // (read, write), read 2 (read, write), as (table, row).
    let input_rows: Vec<(usize, usize)> = [t_memw_r, TableId::MemwR2.index()]
        .into_iter()
        .flat_map(|t| (0..traces[t].height()).map(move |r| (t, r)))
        .filter(|&(t, r)| {
            let row = traces[t].row(r);
            row[memw_r::IS_REAL] == Felt::ONE && row[memw_r::REG] == Felt::from(REG_INPUT)
        })
        .collect();
    assert_eq!(input_rows.len(), 4);
    let at = |t: &mut Vec<RowMajorMatrix>, k: usize, col: usize, v: Felt| {
        let (table, row) = input_rows[k];
        set_reg_value(t[table].row_mut(row), col, v);
    };

    // 1. Denying the short read (short = 0): LT does not prove SLTU(1, 2) = 0.
    let mut t = traces.clone();
    t[t_ecall].row_mut(0)[ecall::SHORT] = Felt::ZERO;
    let r = debug_check(&machine, &t, &public);
    assert_only_unbalanced(&r, BUS_ALU);
    assert_eq!(rejection(&machine, &t, &public), Rejected::LogUp);

    // An input of 1 byte (REG_INPUT starts at 1): the first read exhausts it honestly
    // (rem 1, rem' 0, short), the second must then take 1 from 0.
    let one_byte = |t: &mut Vec<RowMajorMatrix>| {
        t[t_reg].row_mut(REG_INPUT as usize)[register::IN] = Felt::ONE;
        move_range(&mut t[t_bitwise], (2, 0), Some((1, 0)));
        let row = t[t_ecall].row_mut(0);
        row[ecall::REM] = Felt::ONE;
        row[ecall::REM_NEW] = Felt::ZERO;
        move_range(&mut t[t_bitwise], (1, 0), Some((0, 0)));
        at(t, 0, memw_r::OLD, Felt::ONE);
        at(t, 0, memw_r::NEW, Felt::ONE);
        at(t, 1, memw_r::OLD, Felt::ONE);
        at(t, 1, memw_r::NEW, Felt::ZERO);
    };

    // 2. ... with rem' = -1 (as the field element p - 1 in its low byte, so that
    // rem - n - rem' = 0 holds), carried through the register tokens to REGISTER's final
    // value: only the range check of rem' objects.
    let mut t = traces.clone();
    one_byte(&mut t);
    let minus_one = -Felt::ONE;
    t[t_ecall].row_mut(1)[ecall::REM] = Felt::ZERO;
    t[t_ecall].row_mut(1)[ecall::REM_NEW] = minus_one;
    move_range(&mut t[t_bitwise], (0, 0), None);
    at(&mut t, 2, memw_r::OLD, Felt::ZERO);
    at(&mut t, 2, memw_r::NEW, Felt::ZERO);
    at(&mut t, 3, memw_r::OLD, Felt::ZERO);
    at(&mut t, 3, memw_r::NEW, minus_one);
    t[t_reg].row_mut(REG_INPUT as usize)[register::FINAL] = minus_one;
    let r = debug_check(&machine, &t, &public);
    assert_only_unbalanced(&r, BUS_BYTE);
    assert!(
        r.imbalances.iter().any(|i| i.values.contains(&minus_one)),
        "{r}"
    );
    assert_eq!(rejection(&machine, &t, &public), Rejected::LogUp);
    // With a canonical rem' instead (0xffffffff), the subtraction fails.
    let mut t2 = t.clone();
    for j in 0..4 {
        t2[t_ecall].row_mut(1)[ecall::REM_NEW + j] = Felt::new(255);
    }
    assert_fails(
        &debug_check(&machine, &t2, &public),
        "ECALL",
        "ecall read consumes n input bytes",
    );

    // 3. ... with the second read seeing the input again (rem 1, rem' 0, as in the honest
    // traces): every row is fine, but the token the first read wrote (0) is not the one the
    // second consumes (1).
    let mut t = traces.clone();
    one_byte(&mut t);
    let r = debug_check(&machine, &t, &public);
    assert_only_unbalanced(&r, BUS_REG);
    assert_eq!(rejection(&machine, &t, &public), Rejected::LogUp);

    // 4. REGISTER's private bytes on another row (sp's): the constraint keeping them on
    // REG_INPUT's row fails.
    let mut t = traces.clone();
    t[t_reg].row_mut(2)[register::IN] = Felt::ONE;
    assert_fails(
        &debug_check(&machine, &t, &public),
        "REGISTER",
        "register input bytes only on REG_INPUT's row",
    );
}

/// Every single-cell mutation of REGISTER's register rows is detected, the private input
/// bytes included (an input length with four non-zero bytes).
#[test]
fn register_mutations() {
    let image = ProgramImage {
        entry: 0x1000,
        code: vec![(0x1000, ECALL)],
        words: vec![(0x200, 0x73)],
        heap_start: 0x2000,
        heap_limit: 0x8000,
        ..ProgramImage::default()
    };
    let air = RegisterAir::new(&image);
    let (pre, _) = air.preprocessed_trace().unwrap();
    let pre = RowMajorMatrix::new(pre, register::PRE_WIDTH);
    let len = 0x0403_02f1;
    let mut file = RegFile::new(register::initial_file(&image, len));
    assert_eq!(file.values[REG_INPUT as usize], len as u64);
    for r in 0..NUM_REGS {
        file.values[r] = (r as u64 + 1).wrapping_mul(0x0123_4567_89ab_cdef);
        file.ts[r] = 4 * r as u64 + 3;
    }
    file.values[REG_INPUT as usize] = 0x77;
    let mut bytes = ByteCounts::default();
    let trace = register::build_trace(&file, len, &mut bytes);
    let row = trace.row(REG_INPUT as usize);
    assert_eq!(
        &row[register::IN..register::IN + 4],
        &[0xf1, 2, 3, 4].map(Felt::new)
    );
    let rows: Vec<usize> = (0..NUM_REGS).collect();
    assert_all_detected(&air, &trace, Some(&pre), &[], &rows, 64);
    // The private bytes' row alone.
    assert_all_detected(&air, &trace, Some(&pre), &[], &[REG_INPUT as usize], 64);
}
