//! From an ELF to an RV64IM proof: program image, execution with recording, traces, proof.

use kestrel_core::air::debug::{check_machine, preprocessed_traces, DebugReport};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::cpu::Step;
use kestrel_core::rv::decode::ProgramImage;
use kestrel_core::rv::machine::{build_traces, Rv64Machine, TraceError};

use crate::vm::record::Record;
use crate::vm::Program;

/// A program's machine together with its image.
pub struct RvMachine {
    pub machine: Rv64Machine,
    pub image: ProgramImage,
}

/// Every aligned instruction word of the program's executable segments.
pub fn program_image(program: &Program) -> ProgramImage {
    let mut code = Vec::new();
    for seg in program.segments.iter().filter(|s| s.perm.exec) {
        for (i, w) in seg.data.chunks_exact(4).enumerate() {
            let pc = seg.vaddr + 4 * i as u64;
            code.push((pc as u32, u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
        }
    }
    ProgramImage {
        entry: program.entry as u32,
        code,
    }
}

/// The CPU steps of an execution.
pub fn steps(records: &[Record]) -> Vec<Step> {
    records
        .iter()
        .map(|r| Step {
            pc: r.pc,
            word: r.word,
            rs1_val: r.rs1_val,
            rs2_val: r.rs2_val,
            rd_val: r.rd_val,
        })
        .collect()
}

/// The machine proving `program` (its DECODE table carries the program).
pub fn machine_for(image: &ProgramImage) -> Rv64Machine {
    Rv64Machine::new(image)
}

/// The machine a verifier uses: shapes only, commitments from the verifying key.
pub fn verifier_machine() -> Rv64Machine {
    Rv64Machine::verifier()
}

/// Traces and public values of an execution.
///
/// # Errors
/// [`TraceError`] when the execution uses something this version cannot prove.
pub fn traces(
    machine: &Rv64Machine,
    image: &ProgramImage,
    records: &[Record],
) -> Result<(Vec<RowMajorMatrix>, Vec<Felt>), TraceError> {
    build_traces(machine, image, &steps(records))
}

/// Runs the debug checker over the traces.
pub fn debug_check(
    machine: &Rv64Machine,
    traces: &[RowMajorMatrix],
    public: &[Felt],
) -> DebugReport {
    let pre = preprocessed_traces(machine);
    let refs: Vec<&RowMajorMatrix> = traces.iter().collect();
    check_machine(machine, &refs, &pre, public)
}
