//! The CUDA fill kernels' column layouts are the Rust tables' (issue 14, item 1): every
//! object-like `#define` in `kernels/**/*.cu` and `kernels/**/*.cuh` (the table fills are
//! `kernels/rv/<table>.cu`) is evaluated and compared
//! with the Rust constant it mirrors, so a column moved in Rust and not in the kernels
//! fails here, on the CPU, in CI (the GPU parity suites, which would also catch it, cannot
//! run there). A new `#define` must be added to [`rust_values`] (or, if it is not a
//! layout, to [`NOT_LAYOUT`] with the reason), and every entry of the table must still be
//! used by a kernel.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kestrel_core::field::P;
use kestrel_core::rv::decode::{self, class};
use kestrel_core::rv::memw::{self, MEMW, MEMW_A};
use kestrel_core::rv::{cpu, dvrm, ecall, eq, io, load, lt, memw_r, mul, shift, store};
use kestrel_core::rv::{page, page0, register};
use kestrel_core::rv::{
    ALU_DIV, ALU_DIVU, ALU_DIVUW, ALU_DIVW, ALU_REM, ALU_REMU, ALU_REMUW, ALU_REMW,
};
use kestrel_core::rv::{ALU_MUL, ALU_MULH, ALU_MULHSU, ALU_MULHU, ALU_MULW};
use kestrel_core::rv::{ALU_SLL, ALU_SLLW, ALU_SLT, ALU_SRA, ALU_SRAW, ALU_SRL, ALU_SRLW};
use kestrel_core::rv::{IO_IN, IO_OUT, IO_ZERO, SYS_BRK, SYS_EXIT, SYS_READ, SYS_WRITE};

/// Defines that are not table layouts, and why they are not checked here.
const NOT_LAYOUT: &[(&str, &str)] = &[
    (
        "DEC_SHARED_SLOTS",
        "the most code slots DECODE's count keeps in one block's shared memory: the kernel \
         picks shared or global counters itself, and the GPU parity suite (cuda_fill_run.rs) \
         counts programs on both sides of it",
    ),
    (
        "KS_MAX_REGS",
        "the quotient program's register file, checked against cuda::program::MAX_REGS by \
         the program compiler at run time",
    ),
];

/// Prefix of the quotient program's op codes (`kernels/program.cuh`), mirrored by the
/// private constants of `prover-gpu/src/cuda/program.rs` (behind the `cuda` feature) and
/// exercised by the GPU parity suites: not table layouts.
const PROGRAM_OPS: &str = "KS_OP_";

/// The Rust value of every layout define the kernels use.
fn rust_values() -> BTreeMap<&'static str, u64> {
    let u = |v: usize| v as u64;
    let mut m: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut put = |k: &'static str, v: u64| {
        assert!(m.insert(k, v).is_none(), "{k} listed twice");
    };
    // The NTT's elements per thread (log2): `MAX_EL` of prover-gpu/src/cuda/ntt.rs, which
    // sizes the launches (behind the `cuda` feature, so read from its source here).
    put(
        "KS_NTT_MAX_EL",
        rust_source_const("prover-gpu/src/cuda/ntt.rs", "MAX_EL"),
    );
    // Work per thread of the batched kernels: the launchers size their grids with these
    // (a mismatch would leave the grid-stride loops correct but the grids wrong).
    put(
        "KS_EVAL_CHUNK",
        rust_source_const("prover-gpu/src/cuda/eval.rs", "EVAL_CHUNK"),
    );
    put(
        "KS_DEEP_BATCH",
        rust_source_const("prover-gpu/src/cuda/deep.rs", "DEEP_BATCH"),
    );
    put(
        "AK_CHUNK",
        rust_source_const("prover-gpu/src/cuda/rv/alu_ops.rs", "ALU_CHUNK"),
    );
    put(
        "RW_SCAN_THREADS",
        rust_source_const("prover-gpu/src/cuda/rv/memw_r.rs", "REGWALK_SCAN_THREADS"),
    );
    // The byte-lookup kernels (kernels/bytes.cuh): BITWISE's columns (one per operation) and
    // the largest multiplicity a send may have (`program::MAX_BYTE_MULTIPLICITY`, which the
    // host reference enforces too).
    put("KS_BYTE_OPS", u(kestrel_core::rv::bitwise::WIDTH));
    put(
        "KS_BYTE_MAX_MULT",
        kestrel_prover_gpu::program::MAX_BYTE_MULTIPLICITY,
    );
    put(
        "RW_CHUNK",
        rust_source_const("prover-gpu/src/cuda/rv/memw_r.rs", "REGWALK_CHUNK"),
    );
    for (define, name) in [
        ("MK_CHUNK", "MEMWALK_CHUNK"),
        ("MK_TILE", "MEMWALK_TILE"),
        ("MK_SORT_TILE", "MEMWALK_SORT_TILE"),
        ("MK_SCAN_THREADS", "MEMWALK_SCAN_THREADS"),
        ("MK_COUNTS", "MEMWALK_COUNTS"),
    ] {
        put(
            define,
            rust_source_const("prover-gpu/src/cuda/rv/memw.rs", name),
        );
    }
    // The quotient's spot checks (kernels/quotient.cu): how many points one launch takes
    // (every spot row of a table) and its block size, which sizes its shared sums.
    put(
        "KS_QUOTIENT_SPOTS",
        u(kestrel_prover_gpu::backend::QUOTIENT_SPOT_CHECKS),
    );
    put(
        "KS_QUOTIENT_AT_THREADS",
        rust_source_const("prover-gpu/src/cuda/quotient.rs", "SPOT_THREADS"),
    );
    put(
        "KS_INV_BATCH",
        rust_source_const("prover-gpu/src/cuda/logup.rs", "INV_BATCH"),
    );
    // Field (kernels/field.cuh).
    put("KS_P", P);
    put("KS_EPS", (1 << 32) - 1);
    // CPU (core/src/rv/cpu/mod.rs) and the DECODE fields it copies.
    for (k, v) in [
        ("CPU_IS_REAL", cpu::IS_REAL),
        ("CPU_FIRST", cpu::FIRST),
        ("CPU_CLK", cpu::CLK),
        ("CPU_PC", cpu::PC),
        ("CPU_NEXT_PC", cpu::NEXT_PC),
        ("CPU_DEC", cpu::DEC),
        ("CPU_FIELDS", decode::FIELDS),
        ("CPU_RS1V", cpu::RS1V),
        ("CPU_RS2V", cpu::RS2V),
        ("CPU_OPB", cpu::OPB),
        ("CPU_SUM", cpu::SUM),
        ("CPU_CARRY", cpu::CARRY),
        ("CPU_RES", cpu::RES),
        ("CPU_RDV", cpu::RDV),
        ("CPU_TAKEN", cpu::TAKEN),
        ("CPU_Q", cpu::Q),
        ("CPU_BIT0", cpu::BIT0),
        ("CPU_SGN", cpu::SGN),
        ("CPU_L7", cpu::L7),
        ("CPU_EXIT", cpu::EXIT),
        ("CPU_OUTPOS", cpu::OUTPOS),
        ("CPU_OUTN", cpu::OUTN),
        ("CPU_HANDOFF", cpu::HANDOFF),
        ("CPU_WIDTH", cpu::WIDTH),
        ("CLS_ADD", class::ADD),
        ("CLS_SUB", class::SUB),
        ("CLS_ADDW", class::ADDW),
        ("CLS_SUBW", class::SUBW),
        ("CLS_BRANCH", class::BRANCH),
        ("CLS_JAL", class::JAL),
        ("CLS_JALR", class::JALR),
        ("CLS_LOAD", class::LOAD),
        ("CLS_STORE", class::STORE),
        ("F_BR_NEG", cpu::BR_NEG - cpu::DEC),
        ("F_USE_IMM", cpu::USE_IMM - cpu::DEC),
        ("F_WR", cpu::WR - cpu::DEC),
        ("F_IMM", cpu::IMM - cpu::DEC),
        // The register walk (kernels/rv/memw_r.cu): the DECODE fields it reads.
        ("RW_F_WR", cpu::WR - cpu::DEC),
        ("RW_F_ALU_OP", cpu::ALU_OP - cpu::DEC),
        ("RW_CLS_BRANCH", class::BRANCH),
        ("RW_CLS_JAL", class::JAL),
        ("RW_CLS_JALR", class::JALR),
        ("RW_CLS_STORE", class::STORE),
        ("RW_ALU_SLT", ALU_SLT as usize),
        ("RW_ALU_SLTU", kestrel_core::rv::ALU_SLTU as usize),
        ("RW_ALU_EQ", kestrel_core::rv::ALU_EQ as usize),
        ("RW_F_RD", cpu::RD - cpu::DEC),
        ("RW_F_RS1", cpu::RS1 - cpu::DEC),
        ("RW_F_RS2", cpu::RS2 - cpu::DEC),
        ("RW_DEC_WORDS", decode::TUPLE),
        // The memory walk (kernels/rv/memw.cu): the DECODE fields it reads.
        ("MK_CLS_ECALL", class::ECALL),
        ("MK_CLS_LOAD", class::LOAD),
        ("MK_CLS_STORE", class::STORE),
        ("MK_F_ALU_OP", cpu::ALU_OP - cpu::DEC),
        ("MK_F_IMM", cpu::IMM - cpu::DEC),
        ("MK_DEC_WORDS", decode::TUPLE),
        ("MK_MEMOP_LOAD", kestrel_core::rv::MEMOP_LOAD as usize),
        ("MK_MEMOP_STORE", kestrel_core::rv::MEMOP_STORE as usize),
        // The ALU tables' distinct rows (kernels/rv/alu_ops.cu): the DECODE fields they read.
        ("AK_CLS_ALU", class::ALU),
        ("AK_CLS_BRANCH", class::BRANCH),
        ("AK_F_USE_IMM", cpu::USE_IMM - cpu::DEC),
        ("AK_F_ALU_OP", cpu::ALU_OP - cpu::DEC),
        ("AK_F_IMM", cpu::IMM - cpu::DEC),
        ("AK_DEC_WORDS", decode::TUPLE),
        ("AK_TABLES", kestrel_core::rv::table::TableId::ALU.len()),
        ("RW_NUM_REGS", kestrel_core::rv::NUM_REGS),
        ("DEC_WORDS", decode::TUPLE),
        // MEMW_R (core/src/rv/memw_r/mod.rs).
        ("MW_REG", memw_r::REG),
        ("MW_OLD", memw_r::OLD),
        ("MW_OLD_TS", memw_r::OLD_TS),
        ("MW_NEW", memw_r::NEW),
        ("MW_TS", memw_r::TS),
        ("MW_IS_WRITE", memw_r::IS_WRITE),
        ("MW_IS_REAL", memw_r::IS_REAL),
        ("MW_DIFF", memw_r::DIFF),
        ("MW_WIDTH", memw_r::WIDTH),
        // LT (core/src/rv/lt/mod.rs).
        ("LT_SEL_SLT", lt::SEL_SLT),
        ("LT_SEL_SLTU", lt::SEL_SLTU),
        ("LT_A", lt::A),
        ("LT_B", lt::B),
        ("LT_D", lt::D),
        ("LT_BORROW", lt::BORROW),
        ("LT_LT", lt::LT),
        ("LT_SA", lt::SA),
        ("LT_RA", lt::RA),
        ("LT_SB", lt::SB),
        ("LT_RB", lt::RB),
        ("LT_M", lt::M),
        ("LT_WIDTH", lt::WIDTH),
        // EQ (core/src/rv/eq/mod.rs).
        ("EQ_A", eq::A),
        ("EQ_B", eq::B),
        ("EQ_S", eq::S),
        ("EQ_NEQ", eq::NEQ),
        ("EQ_INV", eq::INV),
        ("EQ_M", eq::M),
        ("EQ_WIDTH", eq::WIDTH),
        // SHIFT (core/src/rv/shift/mod.rs).
        ("SH_SEL", shift::SEL),
        ("SH_A", shift::A),
        ("SH_B", shift::B),
        ("SH_C", shift::C),
        ("SH_H5", shift::H5),
        ("SH_H6", shift::H6),
        ("SH_H7", shift::H7),
        ("SH_S0", shift::S0),
        ("SH_S1", shift::S1),
        ("SH_S2", shift::S2),
        ("SH_POW", shift::POW),
        ("SH_J", shift::J),
        ("SH_LO", shift::LO),
        ("SH_HI", shift::HI),
        ("SH_T8", shift::T8),
        ("SH_SIGMA", shift::SIGMA),
        ("SH_SA7", shift::SA7),
        ("SH_RA7", shift::RA7),
        ("SH_SA3", shift::SA3),
        ("SH_RA3", shift::RA3),
        ("SH_SC", shift::SC),
        ("SH_RC", shift::RC),
        ("SH_M", shift::M),
        ("SH_WIDTH", shift::WIDTH),
        // MUL (core/src/rv/mul/mod.rs).
        ("MUL_M", mul::M),
        ("MUL_SEL", mul::SEL),
        ("MUL_A", mul::A),
        ("MUL_B", mul::B),
        ("MUL_C", mul::C),
        ("MUL_P", mul::P),
        ("MUL_CARRY", mul::CARRY),
        ("MUL_SA", mul::SA),
        ("MUL_RA", mul::RA),
        ("MUL_SB", mul::SB),
        ("MUL_RB", mul::RB),
        ("MUL_SA_EXT", mul::SA_EXT),
        ("MUL_SB_EXT", mul::SB_EXT),
        ("MUL_SW", mul::SW),
        ("MUL_RW", mul::RW),
        ("MUL_WIDTH", mul::WIDTH),
        // DVRM (core/src/rv/dvrm/mod.rs).
        ("DVRM_M", dvrm::M),
        ("DVRM_SEL", dvrm::SEL),
        ("DVRM_A", dvrm::A),
        ("DVRM_B", dvrm::B),
        ("DVRM_C", dvrm::C),
        ("DVRM_YH", dvrm::YH),
        ("DVRM_Q", dvrm::Q),
        ("DVRM_R", dvrm::R),
        ("DVRM_BITS", dvrm::BITS),
        ("DVRM_NX", dvrm::NX),
        ("DVRM_NY", dvrm::NY),
        ("DVRM_NQ", dvrm::NQ),
        ("DVRM_NR", dvrm::NR),
        ("DVRM_Z", dvrm::Z),
        ("DVRM_OVF", dvrm::OVF),
        ("DVRM_CARRY", dvrm::CARRY),
        ("DVRM_ABS_R", dvrm::ABS_R),
        ("DVRM_KR", dvrm::KR),
        ("DVRM_ABS_Y", dvrm::ABS_Y),
        ("DVRM_KY", dvrm::KY),
        ("DVRM_D", dvrm::D),
        ("DVRM_KD", dvrm::KD),
        ("DVRM_WIDTH", dvrm::WIDTH),
        // LOAD (core/src/rv/load/mod.rs).
        ("LD_SZ", load::SZ),
        ("LD_U", load::U),
        ("LD_OFF", load::OFF),
        ("LD_Q", load::Q),
        ("LD_ADDR_HI", load::ADDR_HI),
        ("LD_VALUE", load::VALUE),
        ("LD_MEM", load::MEM),
        ("LD_TS", load::TS),
        ("LD_SPLIT", load::SPLIT),
        ("LD_SIGN", load::SIGN),
        ("LD_LOW7", load::LOW7),
        ("LD_WIDTH", load::WIDTH),
        // STORE (core/src/rv/store/mod.rs).
        ("ST_SZ", store::SZ),
        ("ST_OFF", store::OFF),
        ("ST_Q", store::Q),
        ("ST_ADDR_HI", store::ADDR_HI),
        ("ST_VALUE", store::VALUE),
        ("ST_OLD", store::OLD),
        ("ST_NEW", store::NEW),
        ("ST_TS", store::TS),
        ("ST_SPLIT", store::SPLIT),
        ("ST_WIDTH", store::WIDTH),
        // ECALL (core/src/rv/ecall/mod.rs), its call kinds and the call numbers.
        ("EC_SEL_EXIT", ecall::SEL_EXIT),
        ("EC_SEL_WOUT", ecall::SEL_WOUT),
        ("EC_SEL_WDBG", ecall::SEL_WDBG),
        ("EC_SEL_READ", ecall::SEL_READ),
        ("EC_SEL_BRK", ecall::SEL_BRK),
        ("EC_CLK", ecall::CLK),
        ("EC_A7", ecall::A7),
        ("EC_A0", ecall::A0),
        ("EC_RES", ecall::RES),
        ("EC_OUTPOS", ecall::OUTPOS),
        ("EC_OUTN", ecall::OUTN),
        ("EC_A1", ecall::A1),
        ("EC_A2", ecall::A2),
        ("EC_BRK_OLD", ecall::BRK_OLD),
        ("EC_LIMIT", ecall::LIMIT),
        ("EC_HSTART", ecall::HSTART),
        ("EC_LT_LO", ecall::LT_LO),
        ("EC_LT_HI", ecall::LT_HI),
        ("EC_OUT", ecall::OUT),
        ("EC_SHRINK", ecall::SHRINK),
        ("EC_REM", ecall::REM),
        ("EC_REM_NEW", ecall::REM_NEW),
        ("EC_SHORT", ecall::SHORT),
        ("EC_WIDTH", ecall::WIDTH),
        ("EC_CALL_EXIT", ecall::CALL_EXIT as usize),
        ("EC_CALL_WOUT", ecall::CALL_WOUT as usize),
        ("EC_CALL_WDBG", ecall::CALL_WDBG as usize),
        ("EC_CALL_READ", ecall::CALL_READ as usize),
        ("EC_CALL_BRK", ecall::CALL_BRK as usize),
        ("SYS_READ", SYS_READ as usize),
        ("SYS_WRITE", SYS_WRITE as usize),
        ("SYS_EXIT", SYS_EXIT as usize),
        ("SYS_BRK", SYS_BRK as usize),
        // The run tables (kernels/rv/run.cu): DECODE (core/src/rv/decode/mod.rs), REGISTER
        // (register/mod.rs), PAGE (page/mod.rs), PAGE0 (page0/mod.rs).
        ("DEC_M", decode::M),
        ("DEC_WIDTH", decode::WIDTH),
        ("RG_FINAL", register::FINAL),
        ("RG_FINAL_TS", register::FINAL_TS),
        ("RG_IN", register::IN),
        ("RG_WIDTH", register::WIDTH),
        ("PG_FIN", page::FIN),
        ("PG_FIN_TS", page::FIN_TS),
        ("PG_ZMULT", page::ZMULT),
        ("PG_WIDTH", page::WIDTH),
        ("P0_REAL", page0::P0_REAL),
        ("P0_W", page0::P0_W),
        ("P0_D", page0::P0_D),
        ("P0_E", page0::P0_E),
        ("P0_F", page0::P0_F),
        ("P0_LO", page0::P0_LO),
        ("P0_HI", page0::P0_HI),
        ("P0_RO", page0::P0_RO),
        ("P0_FIN", page0::P0_FIN),
        ("P0_FIN_TS", page0::P0_FIN_TS),
        ("P0_WIDTH", page0::P0_WIDTH),
        // IO (core/src/rv/io/mod.rs) and the chain kinds.
        ("IOW_REAL", io::REAL),
        ("IOW_KIND", io::KIND),
        ("IOW_TS", io::TS),
        ("IOW_POS", io::POS),
        ("IOW_WB", io::WB),
        ("IOW_LO", io::LO),
        ("IOW_M", io::M),
        ("IOW_OLD", io::OLD),
        ("IOW_NEW", io::NEW),
        ("IOW_OM", io::OM),
        ("IOW_ZERO", io::ZERO),
        ("IOW_WIDTH", io::WIDTH),
        ("IO_IN", IO_IN as usize),
        ("IO_OUT", IO_OUT as usize),
        ("IO_ZERO", IO_ZERO as usize),
        // MEMW_A (core/src/rv/memw/mod.rs, one word).
        ("MA_W", memw::W),
        ("MA_OLD", MEMW_A.old(0)),
        ("MA_NEW", MEMW_A.new_value(0)),
        ("MA_OLD_TS", MEMW_A.old_ts(0)),
        ("MA_TS", MEMW_A.ts()),
        ("MA_IS_REAL", MEMW_A.is_real()),
        ("MA_DIFF", MEMW_A.diff(0)),
        ("MA_WR", MEMW_A.wr()),
        ("MA_RO", MEMW_A.ro(0)),
        ("MA_WIDTH", MEMW_A.num_columns()),
        // MEMW (the same AIR over two words).
        ("MS_W", memw::W),
        ("MS_OLD0", MEMW.old(0)),
        ("MS_OLD1", MEMW.old(1)),
        ("MS_NEW0", MEMW.new_value(0)),
        ("MS_NEW1", MEMW.new_value(1)),
        ("MS_OLD_TS0", MEMW.old_ts(0)),
        ("MS_OLD_TS1", MEMW.old_ts(1)),
        ("MS_TS", MEMW.ts()),
        ("MS_IS_REAL", MEMW.is_real()),
        ("MS_DIFF0", MEMW.diff(0)),
        ("MS_DIFF1", MEMW.diff(1)),
        ("MS_WR", MEMW.wr()),
        ("MS_RO0", MEMW.ro(0)),
        ("MS_RO1", MEMW.ro(1)),
        ("MS_WIDTH", MEMW.num_columns()),
    ] {
        put(k, u(v));
    }
    // ALU op codes (core/src/rv/alu_ops.rs).
    for (k, v) in [
        ("OP_SLT", ALU_SLT),
        ("OP_SLL", ALU_SLL),
        ("OP_SRL", ALU_SRL),
        ("OP_SRA", ALU_SRA),
        ("OP_SLLW", ALU_SLLW),
        ("OP_SRLW", ALU_SRLW),
        ("OP_SRAW", ALU_SRAW),
        ("OP_MUL", ALU_MUL),
        ("OP_MULH", ALU_MULH),
        ("OP_MULHSU", ALU_MULHSU),
        ("OP_MULHU", ALU_MULHU),
        ("OP_MULW", ALU_MULW),
        ("OP_DIV", ALU_DIV),
        ("OP_DIVU", ALU_DIVU),
        ("OP_REM", ALU_REM),
        ("OP_REMU", ALU_REMU),
        ("OP_DIVW", ALU_DIVW),
        ("OP_DIVUW", ALU_DIVUW),
        ("OP_REMW", ALU_REMW),
        ("OP_REMUW", ALU_REMUW),
    ] {
        put(k, v as u64);
    }
    m
}

/// The value of `const NAME: u32 = <integer>;` in a source file of the repository.
fn rust_source_const(file: &str, name: &str) -> u64 {
    let path = repo().join(file);
    let text = std::fs::read_to_string(&path).expect("the source file");
    let needle = format!("const {name}: ");
    let at = text
        .find(&needle)
        .unwrap_or_else(|| panic!("{file} has no `{needle}…`"));
    let rest = &text[at + needle.len()..];
    let eq = rest
        .find(" = ")
        .unwrap_or_else(|| panic!("{file}: `{name}` has no value"));
    let digits: String = rest[eq + 3..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().expect("an integer constant")
}

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file under `dir` (its subfolders too) whose extension is one of `ext`, sorted.
fn files_under(dir: &Path, ext: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| ext.contains(&e))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `(file, name, value text)` of every object-like `#define` under `kernels/`.
fn kernel_defines() -> Vec<(PathBuf, String, String)> {
    let files = files_under(&repo().join("kernels"), &["cu", "cuh"]);
    assert!(files.len() >= 10, "kernels/ holds {} files", files.len());
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("kernel source");
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix("#define ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let after = &rest[name.len()..];
            if after.starts_with('(') {
                continue; // a function-like macro
            }
            let value = after.split("//").next().unwrap_or("").trim().to_string();
            out.push((f.clone(), name, value));
        }
    }
    out
}

/// Evaluates a define's value: integers (decimal or hex, with C suffixes), names defined
/// earlier, `+`, `-`, `*` and parentheses.
fn eval(text: &str, known: &BTreeMap<String, u64>) -> Result<u64, String> {
    let tokens: Vec<String> = {
        let mut t = Vec::new();
        let mut cur = String::new();
        for c in text.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                cur.push(c);
            } else {
                if !cur.is_empty() {
                    t.push(std::mem::take(&mut cur));
                }
                if !c.is_whitespace() {
                    t.push(c.to_string());
                }
            }
        }
        if !cur.is_empty() {
            t.push(cur);
        }
        t
    };
    let mut pos = 0;
    let v = expr(&tokens, &mut pos, known)?;
    if pos != tokens.len() {
        return Err(format!("cannot evaluate {text:?}"));
    }
    Ok(v)
}

fn expr(t: &[String], pos: &mut usize, known: &BTreeMap<String, u64>) -> Result<u64, String> {
    let mut v = term(t, pos, known)?;
    while let Some(op) = t.get(*pos).filter(|o| *o == "+" || *o == "-") {
        let add = op == "+";
        *pos += 1;
        let r = term(t, pos, known)?;
        v = if add {
            v.wrapping_add(r)
        } else {
            v.wrapping_sub(r)
        };
    }
    Ok(v)
}

fn term(t: &[String], pos: &mut usize, known: &BTreeMap<String, u64>) -> Result<u64, String> {
    let mut v = atom(t, pos, known)?;
    while t.get(*pos).is_some_and(|o| o == "*") {
        *pos += 1;
        v = v.wrapping_mul(atom(t, pos, known)?);
    }
    Ok(v)
}

fn atom(t: &[String], pos: &mut usize, known: &BTreeMap<String, u64>) -> Result<u64, String> {
    let tok = t.get(*pos).ok_or("unexpected end")?.clone();
    *pos += 1;
    if tok == "(" {
        let v = expr(t, pos, known)?;
        if t.get(*pos).map(String::as_str) != Some(")") {
            return Err("unbalanced parentheses".into());
        }
        *pos += 1;
        return Ok(v);
    }
    if tok.starts_with(|c: char| c.is_ascii_digit()) {
        let digits = tok.trim_end_matches(['u', 'U', 'l', 'L']);
        return match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => digits.parse(),
        }
        .map_err(|e| format!("{tok}: {e}"));
    }
    known
        .get(&tok)
        .copied()
        .ok_or_else(|| format!("{tok} is not defined before use"))
}

#[test]
fn kernel_layouts_are_the_rust_tables() {
    let rust = rust_values();
    let mut known: BTreeMap<String, u64> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, name, value) in kernel_defines() {
        let file = file
            .strip_prefix(repo().join("kernels"))
            .unwrap()
            .display()
            .to_string();
        if name.starts_with(PROGRAM_OPS) || NOT_LAYOUT.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let v = match eval(&value, &known) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{file}: {name}: {e}"));
                continue;
            }
        };
        known.insert(name.clone(), v);
        match rust.get(name.as_str()) {
            Some(&r) if r == v => checked += 1,
            Some(&r) => problems.push(format!("{file}: {name} is {v}, the Rust table says {r}")),
            None => problems.push(format!(
                "{file}: {name} has no Rust counterpart in kernel_layout.rs (add it, or list \
                 it as not a layout)"
            )),
        }
    }
    for name in rust.keys() {
        if !known.contains_key(*name) {
            problems.push(format!("{name} is listed but no kernel defines it"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(checked, rust.len());
    println!("{checked} kernel defines match their Rust constants");
}

/// The check catches the experiment of issue 14: LT's `SA` and `RA` swapped on one side.
#[test]
fn a_swapped_column_is_caught() {
    let mut rust = rust_values();
    let (sa, ra) = (rust["LT_SA"], rust["LT_RA"]);
    rust.insert("LT_SA", ra);
    rust.insert("LT_RA", sa);
    let mut known = BTreeMap::new();
    let mut mismatches = Vec::new();
    for (_, name, value) in kernel_defines() {
        if name.starts_with(PROGRAM_OPS) || NOT_LAYOUT.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let v = eval(&value, &known).unwrap();
        known.insert(name.clone(), v);
        if rust.get(name.as_str()).is_some_and(|&r| r != v) {
            mismatches.push(name);
        }
    }
    assert_eq!(mismatches, ["LT_SA", "LT_RA"]);
}

#[test]
fn the_evaluator_reads_c_constants() {
    let mut k = BTreeMap::new();
    k.insert("A".to_string(), 5u64);
    assert_eq!(eval("(A + 1)", &k), Ok(6));
    assert_eq!(eval("(1 + A * 2) - 3", &k), Ok(8));
    assert_eq!(eval("0xFFFFFFFF00000001ull", &k), Ok(P));
    assert!(eval("B", &k).is_err());
    assert!(eval("(A", &k).is_err());
}

/// Every kernel of `kernels/rv/<name>.cu` is loaded from the module `rv/<name>` by
/// `prover-gpu/src/cuda/device.rs` and launched by name from `prover-gpu/src/cuda/rv/<name>.rs`.
fn assert_kernels_loaded_and_launched(name: &str) {
    let src = std::fs::read_to_string(repo().join(format!("kernels/rv/{name}.cu"))).unwrap();
    let device = std::fs::read_to_string(repo().join("prover-gpu/src/cuda/device.rs")).unwrap();
    let launcher =
        std::fs::read_to_string(repo().join(format!("prover-gpu/src/cuda/rv/{name}.rs"))).unwrap();
    let kernels: Vec<&str> = src
        .split("__global__ void ")
        .skip(1)
        .map(|r| r.split('(').next().unwrap())
        .collect();
    assert!(!kernels.is_empty(), "kernels/rv/{name}.cu has no kernel");
    for k in kernels {
        // The module's entry: `("rv/<name>", &[…])`, the kernel among its names.
        let module = format!("\"rv/{name}\",");
        let names = device
            .find(&module)
            .map(|at| &device[at..])
            .and_then(|rest| rest.split("])").next())
            .unwrap_or_else(|| panic!("device.rs does not load the module rv/{name}"));
        assert!(
            names.contains(&format!("\"{k}\"")),
            "device.rs does not load {k} from rv/{name}: {names}"
        );
        assert!(
            launcher.contains(&format!("\"{k}\"")),
            "prover-gpu/src/cuda/rv/{name}.rs never names {k}"
        );
    }
}

/// The kernels the ALU tables share (their distinct rows, `kernels/rv/alu_ops.cu`) are
/// loaded and launched by their shared launcher.
#[test]
fn shared_alu_kernels_are_launched() {
    assert_kernels_loaded_and_launched("alu_ops");
}

/// The table fills mirror the rooms one to one: every `kernels/rv/<table>.cu` has its
/// room `core/src/rv/<table>/` and its launcher `prover-gpu/src/cuda/rv/<table>.rs`, and
/// every launcher its kernel (the launchers' shared modules excepted).
#[test]
fn fills_mirror_the_rooms() {
    const SHARED_LAUNCHERS: &[&str] = &["mod", "alu_ops", "records"];
    let stems = |dir: &str, ext: &str| -> Vec<String> {
        files_under(&repo().join(dir), &[ext])
            .iter()
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .filter(|s| !SHARED_LAUNCHERS.contains(&s.as_str()))
            .collect()
    };
    let kernels = stems("kernels/rv", "cu");
    let launchers = stems("prover-gpu/src/cuda/rv", "rs");
    assert_eq!(
        kernels, launchers,
        "kernels/rv/*.cu and prover-gpu/src/cuda/rv/*.rs"
    );
    assert_eq!(
        kernels.len(),
        16,
        "the record tables' and run tables' fills: {kernels:?}"
    );
    for t in &kernels {
        let room = repo().join("core/src/rv").join(t).join("mod.rs");
        assert!(
            room.is_file(),
            "kernels/rv/{t}.cu has no room {}",
            room.display()
        );
        assert_kernels_loaded_and_launched(t);
    }
}
