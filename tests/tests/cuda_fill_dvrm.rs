//! The device-resident fill of DVRM (kernels/rv/dvrm.cu) from its distinct ops.
//!
//! Without a GPU: the split builder (`distinct` + `fill_distinct` + `lookups`) gives exactly
//! the trace and byte counts of the former builder (a `BTreeMap` keyed by the whole op
//! `(op, a, b, c)`, `c` taken from the op, lookups recorded row by row), kept here as the
//! reference, on edge-case, random and real-program ops, and the packing pass keeps DVRM's
//! distinct rows as its records.
//! The GPU tests are `#[ignore]`d ("needs a CUDA device") and run with `--ignored` on the
//! GPU machine, where a missing device fails them: each device trace equals
//! `fill_distinct` bit for bit.

use std::collections::BTreeMap;

use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::cpu::{operand_b, result, sum_and_carries};
use kestrel_core::rv::decode::{class, decode_for_air};
use kestrel_core::rv::{
    alu_eval, distinct_height, dvrm, AluOp, Distinct, ALU_DIV, ALU_DIVU, ALU_DIVUW, ALU_DIVW,
    ALU_REM, ALU_REMU, ALU_REMUW, ALU_REMW,
};
use kestrel_prover_gpu::rv::steps;
use kestrel_tests::vm_support::run_recorded;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DVRM_OPS: [u32; 8] = [
    ALU_DIV, ALU_DIVU, ALU_REM, ALU_REMU, ALU_DIVW, ALU_DIVUW, ALU_REMW, ALU_REMUW,
];

// ---------------------------------------------------------------------------------------
// The former builder, the reference.

/// The DVRM builder as it was (a `BTreeMap` keyed by the whole op, `c` taken from it, byte
/// lookups recorded row by row, none for padding rows).
fn old_dvrm(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut distinct: BTreeMap<AluOp, u64> = BTreeMap::new();
    for op in ops {
        *distinct.entry(*op).or_insert(0) += 1;
    }
    let h = distinct
        .len()
        .next_power_of_two()
        .max(kestrel_core::params::MIN_ROWS);
    let mut trace = RowMajorMatrix::zeros(h, dvrm::WIDTH);
    for (i, (op, &count)) in distinct.iter().enumerate() {
        old_dvrm_row(trace.row_mut(i), op, count, bytes);
    }
    trace
}

fn old_group32(v: &[u8; 8], g: usize) -> u64 {
    u32::from_le_bytes([v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]]) as u64
}

fn old_operands(op: &AluOp) -> (u64, u64, bool) {
    let is_w = matches!(op.op, ALU_DIVW | ALU_DIVUW | ALU_REMW | ALU_REMUW);
    let signed = matches!(op.op, ALU_DIV | ALU_REM | ALU_DIVW | ALU_REMW);
    let (x, y) = match (is_w, signed) {
        (false, _) => (op.a, op.b),
        (true, true) => (op.a as i32 as i64 as u64, op.b as i32 as i64 as u64),
        (true, false) => (op.a as u32 as u64, op.b as u32 as u64),
    };
    (x, y, signed)
}

fn old_divide(op: &AluOp) -> (u64, u64, bool, bool) {
    let (x, y, signed) = old_operands(op);
    let z = y == 0;
    let ovf = matches!(op.op, ALU_DIV | ALU_REM) && x == i64::MIN as u64 && y == u64::MAX;
    let (q, r) = if z {
        (u64::MAX, x)
    } else if ovf {
        (x, 0)
    } else if signed {
        (
            ((x as i64) / (y as i64)) as u64,
            ((x as i64) % (y as i64)) as u64,
        )
    } else {
        (x / y, x % y)
    };
    (q, r, z, ovf)
}

fn old_dvrm_row(out: &mut [Felt], op: &AluOp, count: u64, bytes: &mut ByteCounts) {
    use dvrm::*;
    let (q, r, z, ovf) = old_divide(op);
    assert_eq!(alu_eval(op.op, op.a, op.b), Some(op.c), "{op:?}");
    let s = OPS
        .iter()
        .position(|&o| o == op.op)
        .unwrap_or_else(|| panic!("DVRM does not take ALU op {}", op.op));
    let f = Felt::new;
    out[M] = f(count);
    out[SEL + s] = f(1);
    let (x, y, signed) = old_operands(op);
    let [a, b, c, xb, yb, qb, rb] = [op.a, op.b, op.c, x, y, q, r].map(u64::to_le_bytes);
    for i in 0..8 {
        out[A + i] = f(a[i] as u64);
        out[B + i] = f(b[i] as u64);
        out[C + i] = f(c[i] as u64);
        out[Q + i] = f(qb[i] as u64);
        out[R + i] = f(rb[i] as u64);
    }
    for (i, &v) in yb[4..].iter().enumerate() {
        out[YH + i] = f(v as u64);
    }
    let decomposed = [a[3], a[7], b[3], b[7], qb[7], rb[7], c[3]];
    for (i, &v) in decomposed.iter().enumerate() {
        out[BITS + 2 * i] = f((v >> 7) as u64);
        out[BITS + 2 * i + 1] = f((v & 0x7f) as u64);
    }
    let sgn = signed as u64;
    let (nx, ny, nq, nr) = (
        sgn * (xb[7] >> 7) as u64,
        sgn * (yb[7] >> 7) as u64,
        sgn * (qb[7] >> 7) as u64,
        sgn * (rb[7] >> 7) as u64,
    );
    out[NX] = f(nx);
    out[NY] = f(ny);
    out[NQ] = f(nq);
    out[NR] = f(nr);
    out[Z] = f(z as u64);
    out[OVF] = f(ovf as u64);
    let ext = |v: &[u8; 8], n: u64, i: usize| if i < 8 { v[i] as u64 } else { 255 * n };
    let mut carry = 0i128;
    for g in 0..4 {
        let mut lhs = carry;
        let mut rhs = 0i128;
        for j in 0..4 {
            let l = 4 * g + j;
            let conv: u64 = ext(&rb, nr, l)
                + (0..=l)
                    .filter(|&i| i < 8 || l - i < 8)
                    .map(|i| ext(&qb, nq, i) * ext(&yb, ny, l - i))
                    .sum::<u64>();
            lhs += (conv as i128) << (8 * j);
            rhs += (ext(&xb, nx, l) as i128) << (8 * j);
        }
        carry = if ovf && g >= 2 { 0 } else { (lhs - rhs) >> 32 };
        assert!((0..1 << 16).contains(&carry), "{op:?}: carry {carry}");
        out[CARRY + 2 * g] = f((carry & 0xff) as u64);
        out[CARRY + 2 * g + 1] = f(((carry >> 8) & 0xff) as u64);
        bytes.range(carry as u8, (carry >> 8) as u8);
    }
    let abs = |v: u64, n: u64| if n == 1 { v.wrapping_neg() } else { v };
    let (abs_r, abs_y) = (abs(r, nr), abs(y, ny));
    let d = if z {
        0
    } else {
        abs_y.wrapping_sub(abs_r).wrapping_sub(1)
    };
    let [abs_rb, abs_yb, db] = [abs_r, abs_y, d].map(u64::to_le_bytes);
    for i in 0..8 {
        out[ABS_R + i] = f(abs_rb[i] as u64);
        out[ABS_Y + i] = f(abs_yb[i] as u64);
        out[D + i] = f(db[i] as u64);
    }
    let neg_carry = |v: &[u8; 8], n: u64, av: &[u8; 8]| {
        (n == 1 && old_group32(v, 0) + old_group32(av, 0) >= 1 << 32) as u64
    };
    out[KR] = f(neg_carry(&rb, nr, &abs_rb));
    out[KY] = f(neg_carry(&yb, ny, &abs_yb));
    out[KD] = f((!z && old_group32(&abs_rb, 0) + old_group32(&db, 0) + 1 >= 1 << 32) as u64);
    for v in [&qb, &rb, &abs_rb, &abs_yb, &db] {
        for i in 0..4 {
            bytes.range(v[2 * i], v[2 * i + 1]);
        }
    }
    let low7 = decomposed.map(|v| 2 * (v & 0x7f));
    bytes.range(low7[0], low7[1]);
    bytes.range(low7[2], low7[3]);
    bytes.range(low7[4], low7[5]);
    bytes.range(low7[6], 0);
}

// ---------------------------------------------------------------------------------------
// Workloads.

/// Operands at the sign, word and byte boundaries, small dividends and divisors, and W
/// operands whose upper 32 bits are garbage (low halves 0, 1, −1, INT32_MIN, INT32_MAX, 7).
const EDGE_VALUES: [u64; 34] = [
    0,
    1,
    2,
    3,
    7,
    u64::MAX,              // −1
    u64::MAX - 1,          // −2
    0xffff_ffff_ffff_fff9, // −7
    0x8000_0000_0000_0000, // INT64_MIN
    0x8000_0000_0000_0001, // INT64_MIN + 1
    0x7fff_ffff_ffff_ffff, // INT64_MAX
    0xffff_ffff,           // u32::MAX
    0x8000_0000,           // 2^31
    0x7fff_ffff,           // INT32_MAX
    0xffff_ffff_8000_0000, // INT32_MIN sign-extended
    0xffff_ffff_0000_0000, // W: 0 with ones above
    0x1_0000_0000,         // W: 0
    0xff,
    0x80,
    0x8080_8080_8080_8080,
    0x0123_4567_89ab_cdef,
    0xdead_beef_8000_0000,     // W: INT32_MIN under garbage
    0x1234_5678_ffff_ffff,     // W: −1 under garbage
    0x8000_0000_0000_0000 | 1, // W: 1 under the sign bit
    0x7fff_ffff_0000_0001,     // W: 1
    0xcafe_babe_7fff_ffff,     // W: INT32_MAX under garbage
    0x0000_0001_0000_0007,     // W: 7
    0xffff_fffe_ffff_fff9,     // W: −7 under garbage
    0x4000_0000_0000_0000,
    0x0000_0001_0000_0001,
    10,
    0xffff_ffff_ffff_fff6, // −10
    0x5555_5555_5555_5555,
    0xaaaa_aaaa_aaaa_aaaa,
];

fn op(op: u32, a: u64, b: u64) -> AluOp {
    AluOp {
        op,
        a,
        b,
        c: alu_eval(op, a, b).unwrap(),
    }
}

/// Every DVRM op on every pair of edge values (some twice): 0, 1, −1, INT64_MIN and
/// INT64_MIN / −1, x / 0, the 32-bit boundaries, W operands with garbage upper halves.
fn dvrm_edge_ops() -> Vec<AluOp> {
    let mut out = Vec::new();
    for &o in &DVRM_OPS {
        for (i, &a) in EDGE_VALUES.iter().enumerate() {
            for (j, &b) in EDGE_VALUES.iter().enumerate() {
                out.push(op(o, a, b));
                if (i + j) % 5 == 2 {
                    out.push(op(o, a, b));
                }
            }
        }
    }
    out
}

/// A random operand: an edge value, a small or small negative one, a sign-extended 32-bit
/// one, one with garbage above a small low half, or any.
fn operand(rng: &mut ChaCha8Rng) -> u64 {
    match rng.gen_range(0..8) {
        0 => EDGE_VALUES[rng.gen_range(0..EDGE_VALUES.len())],
        1 => rng.gen_range(0..300),
        2 => rng.gen_range(-300i64..300) as u64,
        3 => rng.gen::<i32>() as i64 as u64,
        4 => (rng.gen::<u64>() & !0xffff_ffff) | rng.gen_range(-20i64..20) as u32 as u64,
        5 => rng.gen::<u64>() >> rng.gen_range(0..64),
        _ => rng.gen(),
    }
}

/// `n` random DVRM ops, some divisors zero, some dividends multiples of their divisors,
/// with repeats.
fn random_dvrm_ops(n: usize, seed: u64) -> Vec<AluOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out: Vec<AluOp> = Vec::with_capacity(n);
    for _ in 0..n {
        if !out.is_empty() && rng.gen_bool(0.2) {
            let k = rng.gen_range(0..out.len());
            out.push(out[k]);
            continue;
        }
        let o = DVRM_OPS[rng.gen_range(0..DVRM_OPS.len())];
        let b = match rng.gen_range(0..10) {
            0 => 0,
            1 => rng.gen::<u64>() & !0xffff_ffff, // zero low half: W division by zero
            _ => operand(&mut rng),
        };
        let a = if rng.gen_bool(0.1) {
            b.wrapping_mul(rng.gen_range(-50i64..50) as u64)
        } else {
            operand(&mut rng)
        };
        out.push(op(o, a, b));
    }
    out
}

/// The DVRM ops of the CPU's ALU rows of a guest's run.
fn program_ops(name: &str, input: &[u8]) -> Vec<AluOp> {
    let (_, records, _) = run_recorded(name, input);
    steps(&records)
        .iter()
        .filter_map(|s| {
            let d = decode_for_air(s.pc, s.word)?;
            if !d.class[class::ALU] || !DVRM_OPS.contains(&d.alu_op) {
                return None;
            }
            let b = operand_b(&d, s.rs2_val);
            let (sum, _) = sum_and_carries(s.rs1_val, b, &d);
            Some(AluOp {
                op: d.alu_op,
                a: s.rs1_val,
                b,
                c: result(s, &d, b, sum),
            })
        })
        .collect()
}

/// Guests that divide: the ISA tests (every DVRM op, by zero and INT64_MIN / −1 included)
/// and the interpreter running `/` and `%` on int64 (positive and negative operands).
const DVRM_PROGRAMS: [(&str, &[u8]); 3] = [
    ("isa/div", b""),
    ("isa/divw", b""),
    (
        "interp",
        b"1000000 [ dup 7 % . 3 / dup ] drop 0 999999 - [ dup 0 13 - % . 5 / dup ] drop",
    ),
];

/// DVRM's rows as the packing pass keeps them (its records, the device fill's input) for a
/// guest's run, its host fill from them and its real rows.
fn packed_dvrm(name: &str, input: &[u8]) -> (Vec<Distinct>, RowMajorMatrix, Option<usize>) {
    use kestrel_core::rv::machine::TableId;
    use kestrel_core::rv::pack::pack_traces;
    use kestrel_prover_gpu::rv::{machine_for, program_image};
    let (program, records, _) = run_recorded(name, input);
    let image = program_image(&program);
    let packed = pack_traces(&machine_for(&image), &image, &steps(&records), input).unwrap();
    assert!(
        packed.traces[TableId::Dvrm.index()].is_none(),
        "{name}: DVRM built"
    );
    let host = packed
        .fill_host(&image, TableId::Dvrm)
        .expect("DVRM is a record table");
    let real = packed.real_rows()[TableId::Dvrm.index()];
    (packed.dvrm, host, real)
}

// ---------------------------------------------------------------------------------------
// The split builder against the former one (no GPU).

/// The new builder and its parts against the old builder on `ops`.
fn check_split(what: &str, ops: &[AluOp]) {
    let mut old_bytes = ByteCounts::default();
    let old = old_dvrm(ops, &mut old_bytes);
    let mut new_bytes = ByteCounts::default();
    let new = dvrm::build_trace(ops, &mut new_bytes);
    assert!(new == old, "DVRM {what}: build_trace changed");
    assert!(
        new_bytes.trace() == old_bytes.trace(),
        "DVRM {what}: byte lookups changed"
    );

    let rows = dvrm::distinct(ops);
    let mut map: BTreeMap<(u32, u64, u64), u32> = BTreeMap::new();
    for o in ops {
        *map.entry((o.op, o.a, o.b)).or_default() += 1;
    }
    let expect: Vec<Distinct> = map
        .into_iter()
        .map(|((op, a, b), mult)| Distinct { op, a, b, mult })
        .collect();
    assert_eq!(rows, expect, "DVRM {what}: distinct");
    let h = distinct_height(rows.len());
    assert_eq!(h, old.height());
    assert!(
        dvrm::fill_distinct(&rows) == old,
        "DVRM {what}: fill_distinct"
    );
    let mut bytes = ByteCounts::default();
    dvrm::lookups(&rows, h, &mut bytes);
    assert!(bytes.trace() == old_bytes.trace(), "DVRM {what}: lookups");
}

#[test]
fn dvrm_builder_unchanged_on_edge_ops() {
    assert_eq!(DVRM_OPS, dvrm::OPS);
    let ops = dvrm_edge_ops();
    // The cases the kernel must get right are among them.
    let has = |o: u32, a: u64, b: u64| ops.iter().any(|x| (x.op, x.a, x.b) == (o, a, b));
    assert!(has(ALU_DIV, 1 << 63, u64::MAX) && has(ALU_REM, 1 << 63, u64::MAX));
    assert!(has(ALU_DIVW, 0xffff_ffff_8000_0000, u64::MAX));
    assert!(has(ALU_DIVUW, 7, 0xffff_ffff_0000_0000) && has(ALU_REMU, 7, 0));
    check_split("edge ops", &ops);
    // Each op alone (one row, padding rows make no lookups).
    for (k, o) in ops.iter().enumerate().step_by(97) {
        check_split(&format!("edge op {k}"), &[*o]);
    }
    check_split("no ops", &[]);
}

#[test]
fn dvrm_builder_unchanged_on_random_ops() {
    for (k, n) in [0usize, 1, 7, 8, 9, 17, 1000, 20_000]
        .into_iter()
        .enumerate()
    {
        check_split(&format!("{n} random ops"), &random_dvrm_ops(n, k as u64));
    }
}

/// DVRM's builder on the divisions of real programs, which use every DVRM op.
#[test]
fn dvrm_builder_unchanged_on_real_programs() {
    let mut seen = Vec::new();
    for (name, input) in DVRM_PROGRAMS {
        let ops = program_ops(name, input);
        let rows = dvrm::distinct(&ops).len();
        println!("{name}: {} DVRM ops, {rows} distinct", ops.len());
        assert!(rows > 0, "{name}: no DVRM op");
        check_split(name, &ops);
        seen.extend(ops.iter().map(|o| o.op));
    }
    for o in DVRM_OPS {
        assert!(seen.contains(&o), "no program has op {o}");
    }
}

/// The packing pass keeps DVRM's distinct rows in `distinct`'s order (sorted by
/// `(op, a, b)`, repeats merged): exactly those of the CPU's divisions (no system call sends
/// one), reported as its real rows; its host fill is `fill_distinct`, the former builder's
/// trace.
#[test]
fn dvrm_records_are_its_distinct_rows() {
    for (name, input) in DVRM_PROGRAMS {
        let (rows, host, real) = packed_dvrm(name, input);
        let ops = program_ops(name, input);
        assert!(!rows.is_empty(), "{name}");
        assert!(rows.iter().all(|r| DVRM_OPS.contains(&r.op) && r.mult > 0));
        assert!(rows
            .windows(2)
            .all(|w| (w[0].op, w[0].a, w[0].b) < (w[1].op, w[1].a, w[1].b)));
        assert_eq!(rows, dvrm::distinct(&ops), "{name}");
        assert_eq!(real, Some(rows.len()), "{name}");
        assert!(host == dvrm::fill_distinct(&rows), "{name}");
        assert!(host == old_dvrm(&ops, &mut ByteCounts::default()), "{name}");
    }
    // A program without divisions: no rows, all-zero padding.
    assert!(program_ops("isa/add_sub", b"").is_empty());
    let (rows, host, real) = packed_dvrm("isa/add_sub", b"");
    assert!(rows.is_empty() && real == Some(0));
    assert!(host.values.iter().all(|v| *v == Felt::ZERO));
}

// ---------------------------------------------------------------------------------------
// The device fill (needs a GPU).

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use kestrel_core::rv::{ALU_EQ, ALU_MUL, ALU_MULW, ALU_SLL, ALU_SLT};
    use kestrel_prover_gpu::cuda::CudaBackend;
    use kestrel_tests::distinct_fill::{gpu, DistinctFill};

    const DVRM: DistinctFill = DistinctFill {
        name: "DVRM",
        width: dvrm::WIDTH,
        fill: CudaBackend::fill_dvrm,
        host: dvrm::fill_distinct,
        distinct: dvrm::distinct,
    };

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn dvrm_fill_matches_on_edge_ops() {
        let g = gpu();
        let mut fills = DVRM.check_edge_ops(&g, dvrm_edge_ops(), 7, 11);
        // The cases most likely to go wrong, each alone.
        let min = 1u64 << 63;
        let min32 = 0xffff_ffff_8000_0000;
        for (o, a, b) in [
            (ALU_DIV, min, u64::MAX),
            (ALU_REM, min, u64::MAX),
            (ALU_DIV, 5, 0),
            (ALU_REM, min, 0),
            (ALU_DIVU, u64::MAX, 0),
            (ALU_REMU, 0, 0),
            (ALU_DIVW, min32, u64::MAX),
            (ALU_REMW, min32, u64::MAX),
            (ALU_DIVW, 0xdead_beef_8000_0000, 0x1234_5678_ffff_ffff),
            (ALU_DIVUW, 7, 0xffff_ffff_0000_0000),
            (ALU_REMUW, 0xffff_ffff_ffff_fff9, 0xffff_ffff_0000_0000),
            (ALU_DIV, 0xffff_ffff_ffff_fff9, 2),
            (ALU_REM, 0xffff_ffff_ffff_fff9, 2),
            (ALU_REM, 7, 0xffff_ffff_ffff_fffe),
        ] {
            DVRM.check(
                &g,
                &format!("op {o} ({a:#x}, {b:#x})"),
                &dvrm::distinct(&[op(o, a, b)]),
            );
            fills += 1;
        }
        assert_eq!(g.stats().fill("DVRM"), fills);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn dvrm_fill_matches_on_random_rows() {
        DVRM.check_random(&gpu(), &random_dvrm_ops, 600);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn dvrm_fill_matches_on_real_programs() {
        let g = gpu();
        for (name, input) in DVRM_PROGRAMS {
            let rows = dvrm::distinct(&program_ops(name, input));
            assert!(!rows.is_empty());
            DVRM.check(&g, &format!("{name} ops"), &rows);
            // The rows the packing pass hands the device, against its host fill.
            let (rows, host, _) = packed_dvrm(name, input);
            DVRM.check_against(&g, &format!("{name} records"), &rows, &host);
        }
        let s = g.stats();
        assert_eq!(s.fill("DVRM"), 2 * DVRM_PROGRAMS.len() as u64);
    }

    /// Ops of another table, an injected launch failure and a failed allocation are
    /// errors, not traces; the device works afterwards.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn dvrm_bad_rows_and_faults_are_errors() {
        let g = gpu();
        let row = |op| Distinct {
            op,
            a: 7,
            b: 2,
            mult: 1,
        };
        assert!(g.fill_dvrm(&[row(ALU_DIV), row(ALU_SLT)]).is_err());
        assert!(g.fill_dvrm(&[row(ALU_EQ)]).is_err());
        assert!(g.fill_dvrm(&[row(0)]).is_err());
        // The codes around DVRM's are not DVRM's.
        assert!(g.fill_dvrm(&[row(ALU_MULW)]).is_err());
        assert!(g.fill_dvrm(&[row(ALU_REMUW + 1)]).is_err());
        assert!(g.fill_dvrm(&[row(ALU_SLL), row(ALU_REMU)]).is_err());
        assert!(g.fill_dvrm(&[row(ALU_REMW), row(ALU_MUL)]).is_err());
        // And DVRM rows are not the other tables'.
        for o in DVRM_OPS {
            assert!(g.fill_lt(&[row(o)]).is_err());
            assert!(g.fill_eq(&[row(o)]).is_err());
            assert!(g.fill_shift(&[row(o)]).is_err());
            assert!(g.fill_mul(&[row(o)]).is_err());
        }
        let s = g.stats();
        assert_eq!(s.fill("DVRM"), 0);
        DVRM.check_faults(&g, row(ALU_REMUW));
        assert_eq!(g.stats().fill("DVRM"), 1);
    }
}
