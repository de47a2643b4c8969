//! The register-only program of the CPU, DECODE, MEMW_R, REGISTER and BITWISE tests
//! (`tests/tests/rv_cpu.rs`, `rv_decode.rs`, `rv_memw_r.rs`, `rv_register.rs`,
//! `rv_bitwise.rs`): no ALU-table instruction, so those five tables carry it alone; its
//! honest run, and the checks each of those tests makes on one table.

use kestrel_core::air::debug::DebugReport;
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::machine::{Rv64Machine, TableId};
use kestrel_prover_gpu::rv::{debug_check, machine_for, program_image, traces};
use kestrel_prover_gpu::vm::record::{Record, VecRecorder};
use kestrel_prover_gpu::vm::{Program, Vm};
use rand::{Rng, SeedableRng};

use crate::vm_support::asm::{self, addi, auipc, i, jal, jalr, lui, r};
use crate::vm_support::elf_writer::elf;

/// The program: register arithmetic, logic, upper immediates, jumps, a fence, then
/// `exit(42)`.
pub fn program() -> Vec<u32> {
    let mut p = vec![
        addi(5, 0, 7),
        addi(6, 0, -3),
        r(0x33, 0, 0, 7, 5, 6),    // add
        r(0x33, 0, 0x20, 8, 5, 6), // sub
        r(0x33, 4, 0, 9, 5, 6),    // xor
        r(0x33, 6, 0, 12, 5, 6),   // or
        r(0x33, 7, 0, 13, 5, 6),   // and
        i(0x13, 7, 14, 6, 0xff),   // andi
        i(0x13, 6, 15, 6, -256),   // ori
        i(0x13, 4, 16, 5, -1),     // xori
        lui(18, 0x80000),          // sign-extended 0xffff_ffff_8000_0000
        auipc(19, 1),
        r(0x3b, 0, 0, 20, 18, 6),    // addw
        r(0x3b, 0, 0x20, 21, 18, 5), // subw
        i(0x1b, 0, 22, 18, -1),      // addiw (wraps to positive)
        addi(0, 5, 9),               // write to x0 is dropped
        jal(1, 8),                   // skip one
        addi(23, 0, 1),              // skipped
        auipc(24, 0),
        jalr(25, 24, 13),        // target auipc + 12 (bit 0 cleared)
        addi(26, 0, 5),          // skipped
        0x0ff0_000f,             // fence
        r(0x33, 0, 0, 27, 0, 0), // add x27, x0, x0
    ];
    p.extend(asm::exit(42));
    p
}

/// Runs `code` (which must exit with 42) in the executor.
pub fn run(code: &[u32]) -> (Program, Vec<Record>) {
    let program = Program::from_elf(&elf(code, &[])).unwrap();
    let mut vm = Vm::new(&program, Vec::new());
    let mut rec = VecRecorder::default();
    let exit = vm.run(&mut rec).unwrap();
    assert_eq!(exit.exit_code, 42);
    (program, rec.records)
}

/// The honest run of [`program`]: its machine, every table's trace, the public values.
pub struct Honest {
    pub program: Program,
    pub image: ProgramImage,
    pub records: Vec<Record>,
    pub machine: Rv64Machine,
    pub traces: Vec<RowMajorMatrix>,
    pub public: Vec<Felt>,
}

/// [`program`]'s honest run; its traces pass the debug checker.
pub fn honest() -> Honest {
    let (program, records) = run(&program());
    let image = program_image(&program);
    let machine = machine_for(&image);
    let (traces, public) = traces(&machine, &image, &records, &[]).unwrap();
    let report = debug_check(&machine, &traces, &public);
    assert!(report.is_ok(), "{report}");
    Honest {
        program,
        image,
        records,
        machine,
        traces,
        public,
    }
}

impl Honest {
    /// The debug checker on `traces` (the honest ones, changed).
    pub fn check(&self, traces: &[RowMajorMatrix]) -> DebugReport {
        debug_check(&self.machine, traces, &self.public)
    }

    /// 150 random cells of `table`'s first `real` rows (those the program fills), each set
    /// to a random field element: the debug checker catches every one.
    pub fn assert_mutations_caught(&self, table: TableId, real: usize, seed: u64) {
        let (t, name) = (table.index(), table.name());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let (mut caught, mut tried) = (0, 0);
        let width = self.traces[t].width;
        for _ in 0..150 {
            let row = rng.gen_range(0..real);
            let col = rng.gen_range(0..width);
            let mut mutated: Vec<RowMajorMatrix> = self.traces.clone();
            let cell = &mut mutated[t].row_mut(row)[col];
            let new = Felt::new(rng.gen::<u64>());
            if new == *cell {
                continue;
            }
            *cell = new;
            tried += 1;
            if !self.check(&mutated).is_ok() {
                caught += 1;
            } else {
                eprintln!("{name}: undetected change at row {row}, column {col}");
            }
        }
        eprintln!("{name}: {caught}/{tried} mutations caught");
        assert!(tried > 100, "{name}: too few mutations tried");
        assert_eq!(caught, tried, "{name}: mutation detection below 100%");
    }

    /// `table`'s trace changed by `forge` (several cells at once, each row still satisfying
    /// its own constraints): the checker finds no failing constraint but an unbalanced bus.
    pub fn assert_forgery_unbalanced(
        &self,
        table: TableId,
        forge: impl FnOnce(&mut RowMajorMatrix),
    ) {
        let mut forged = self.traces.clone();
        let t = table.index();
        forge(&mut forged[t]);
        assert_ne!(
            forged[t], self.traces[t],
            "{table}: the forgery changes nothing"
        );
        let report = self.check(&forged);
        assert!(
            report.failures.is_empty(),
            "{table}: the forgery fails a row's constraints:\n{report}"
        );
        assert!(
            !report.imbalances.is_empty(),
            "{table}: the forgery balances"
        );
    }
}
