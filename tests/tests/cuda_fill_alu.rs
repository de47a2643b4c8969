//! Device-resident fills of LT, EQ, SHIFT and MUL (kernels/rv/lt.cu, kernels/rv/eq.cu,
//! kernels/rv/shift.cu, kernels/rv/mul.cu) from their distinct ops.
//!
//! Without a GPU: the split builders (`distinct` + `fill_distinct` + `lookups`) give exactly
//! the traces and byte counts of the former `BTreeMap`-based builders, kept here as the
//! reference (for EQ, a builder inverting each row's sum on its own, as the device does,
//! where the host inverts them in one batch; for MUL, the former single pass keyed by the
//! whole op `(op, a, b, c)`, taking `c` from the op where the split builder computes it),
//! on edge-case, random and real-program ops.
//! The GPU tests are `#[ignore]`d ("needs a CUDA device") and run with `--ignored` on the
//! GPU machine, where a missing device fails them: each device trace equals
//! `fill_distinct` bit for bit.

use std::collections::BTreeMap;

use kestrel_core::field::{Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::cpu::{operand_b, result, sum_and_carries};
use kestrel_core::rv::decode::{class, decode_for_air};
use kestrel_core::rv::{
    alu_eval, distinct_height, eq, lt, mul, shift, AluOp, Distinct, ALU_EQ, ALU_MUL, ALU_MULH,
    ALU_MULHSU, ALU_MULHU, ALU_MULW, ALU_SLL, ALU_SLLW, ALU_SLT, ALU_SLTU, ALU_SRA, ALU_SRAW,
    ALU_SRL, ALU_SRLW,
};
use kestrel_prover_gpu::rv::steps;
use kestrel_tests::vm_support::run_recorded;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const LT_OPS: [u32; 2] = [ALU_SLT, ALU_SLTU];
const SHIFT_OPS: [u32; 6] = [ALU_SLL, ALU_SRL, ALU_SRA, ALU_SLLW, ALU_SRLW, ALU_SRAW];
const EQ_OPS: [u32; 1] = [ALU_EQ];
const MUL_OPS: [u32; 5] = [ALU_MUL, ALU_MULH, ALU_MULHSU, ALU_MULHU, ALU_MULW];

/// The LT builder as it was (a `BTreeMap` of distinct ops), the reference.
fn old_lt(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    use lt::*;
    let mut rows: BTreeMap<(u32, u64, u64), u32> = BTreeMap::new();
    for o in ops {
        *rows.entry((o.op, o.a, o.b)).or_default() += 1;
    }
    let h = rows
        .len()
        .next_power_of_two()
        .max(kestrel_core::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    let f = |v: u64| Felt::new(v);
    for (r, (&(op, a, b), &m)) in rows.iter().enumerate() {
        let row = t.row_mut(r);
        let signed = op == ALU_SLT;
        let flip = if signed { 1u64 << 63 } else { 0 };
        let (a2, b2) = (a ^ flip, b ^ flip);
        let d = a2.wrapping_sub(b2);
        let borrow = (a2 as u32) < (b2 as u32);
        row[SEL_SLT] = Felt::from(signed);
        row[SEL_SLTU] = Felt::from(!signed);
        let (ab, bb, db) = (a.to_le_bytes(), b.to_le_bytes(), d.to_le_bytes());
        for i in 0..8 {
            row[A + i] = f(ab[i] as u64);
            row[B + i] = f(bb[i] as u64);
            row[D + i] = f(db[i] as u64);
        }
        row[BORROW] = Felt::from(borrow);
        row[LT] = Felt::from(a2 < b2);
        let (ra, rb) = (ab[7] & 0x7f, bb[7] & 0x7f);
        row[SA] = f((ab[7] >> 7) as u64);
        row[RA] = f(ra as u64);
        row[SB] = f((bb[7] >> 7) as u64);
        row[RB] = f(rb as u64);
        row[M] = Felt::from(m);
        bytes.range(2 * ra, 2 * rb);
        for i in (0..8).step_by(2) {
            bytes.range(db[i], db[i + 1]);
        }
    }
    for _ in rows.len()..h {
        for _ in 0..5 {
            bytes.range(0, 0);
        }
    }
    t
}

/// The SHIFT builder as it was, the reference.
fn old_shift(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut rows: BTreeMap<(u32, u64, u64), u32> = BTreeMap::new();
    for o in ops {
        *rows.entry((o.op, o.a, o.b)).or_default() += 1;
    }
    let h = rows
        .len()
        .next_power_of_two()
        .max(kestrel_core::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, shift::WIDTH);
    for (r, (&(op, a, b), &m)) in rows.iter().enumerate() {
        old_shift_row(t.row_mut(r), op, a, b, m, bytes);
    }
    for _ in rows.len()..h {
        for _ in 0..10 {
            bytes.range(0, 0);
        }
    }
    t
}

/// An EQ builder of its own (a `BTreeMap` of distinct ops, each row's sum inverted on its
/// own as the device kernel does), the reference. EQ makes no byte lookups.
fn old_eq(ops: &[AluOp], _bytes: &mut ByteCounts) -> RowMajorMatrix {
    use eq::*;
    let mut rows: BTreeMap<(u32, u64, u64), u32> = BTreeMap::new();
    for o in ops {
        *rows.entry((o.op, o.a, o.b)).or_default() += 1;
    }
    let h = rows
        .len()
        .next_power_of_two()
        .max(kestrel_core::params::MIN_ROWS);
    let mut t = RowMajorMatrix::zeros(h, WIDTH);
    for (r, (&(_, a, b), &m)) in rows.iter().enumerate() {
        let row = t.row_mut(r);
        let (ab, bb) = (a.to_le_bytes(), b.to_le_bytes());
        let mut s = 0u64;
        for i in 0..8 {
            row[A + i] = Felt::new(ab[i] as u64);
            row[B + i] = Felt::new(bb[i] as u64);
            s += (ab[i].abs_diff(bb[i]) as u64).pow(2);
        }
        assert_eq!(s == 0, a == b);
        let s = Felt::new(s);
        row[S] = s;
        row[NEQ] = Felt::from(a != b);
        row[INV] = s.inverse().unwrap_or(Felt::ZERO);
        row[M] = Felt::from(m);
    }
    t
}

/// The MUL builder as it was (a `BTreeMap` keyed by the whole op, `c` taken from it, byte
/// lookups recorded row by row, none for padding rows), the reference.
fn old_mul(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut distinct: BTreeMap<AluOp, u64> = BTreeMap::new();
    for op in ops {
        *distinct.entry(*op).or_insert(0) += 1;
    }
    let h = distinct
        .len()
        .next_power_of_two()
        .max(kestrel_core::params::MIN_ROWS);
    let mut trace = RowMajorMatrix::zeros(h, mul::WIDTH);
    for (i, (op, &count)) in distinct.iter().enumerate() {
        old_mul_row(trace.row_mut(i), op, count, bytes);
    }
    trace
}

fn old_mul_row(row: &mut [Felt], op: &AluOp, count: u64, bytes: &mut ByteCounts) {
    use mul::*;
    let s = OPS
        .iter()
        .position(|&o| o == op.op)
        .unwrap_or_else(|| panic!("MUL does not take ALU op {}", op.op));
    let f = Felt::new;
    row[M] = f(count);
    row[SEL + s] = f(1);
    let (a, b, c) = (op.a.to_le_bytes(), op.b.to_le_bytes(), op.c.to_le_bytes());
    for i in 0..8 {
        row[A + i] = f(a[i] as u64);
        row[B + i] = f(b[i] as u64);
        row[C + i] = f(c[i] as u64);
    }
    let (sa, sb) = (a[7] >> 7, b[7] >> 7);
    let (ra, rb) = (a[7] & 0x7f, b[7] & 0x7f);
    row[SA] = f(sa as u64);
    row[RA] = f(ra as u64);
    row[SB] = f(sb as u64);
    row[RB] = f(rb as u64);
    let sa_ext = sa as u64 * (op.op == ALU_MULH || op.op == ALU_MULHSU) as u64;
    let sb_ext = sb as u64 * (op.op == ALU_MULH) as u64;
    row[SA_EXT] = f(sa_ext);
    row[SB_EXT] = f(sb_ext);
    // The byte convolution of the extended operands, four limbs per carry.
    let ext = |v: &[u8; 8], s: u64, i: usize| if i < 8 { v[i] as u64 } else { 255 * s };
    let mut p = [0u8; 16];
    let mut carry = 0u64;
    for g in 0..4 {
        let mut lhs = carry as u128;
        for j in 0..4 {
            let l = 4 * g + j;
            let conv: u64 = (0..=l)
                .filter(|&i| i < 8 || l - i < 8)
                .map(|i| ext(&a, sa_ext, i) * ext(&b, sb_ext, l - i))
                .sum();
            lhs += (conv as u128) << (8 * j);
        }
        let limbs = (lhs as u32).to_le_bytes();
        p[4 * g..4 * g + 4].copy_from_slice(&limbs);
        carry = (lhs >> 32) as u64;
        assert!(carry < 1 << 16);
        row[CARRY + 2 * g] = f(carry & 0xff);
        row[CARRY + 2 * g + 1] = f(carry >> 8);
        bytes.range(carry as u8, (carry >> 8) as u8);
    }
    // The product is the two's complement of the exact one.
    let lo = u64::from_le_bytes(p[..8].try_into().unwrap());
    let hi = u64::from_le_bytes(p[8..].try_into().unwrap());
    let expect = match op.op {
        ALU_MUL => lo,
        ALU_MULW => lo as u32 as i32 as i64 as u64,
        _ => hi,
    };
    assert_eq!(alu_eval(op.op, op.a, op.b), Some(expect), "{op:?}");
    for (i, &v) in p.iter().enumerate() {
        row[P + i] = f(v as u64);
    }
    for i in 0..8 {
        bytes.range(p[2 * i], p[2 * i + 1]);
    }
    row[SW] = f((p[3] >> 7) as u64);
    row[RW] = f((p[3] & 0x7f) as u64);
    bytes.range(2 * ra, 2 * rb);
    bytes.range(2 * (p[3] & 0x7f), 0);
}

fn old_shift_row(row: &mut [Felt], op: u32, a: u64, b: u64, m: u32, bytes: &mut ByteCounts) {
    use shift::*;
    let f = |v: u64| Felt::new(v);
    let sel = OPS.iter().position(|&o| o == op).unwrap_or(0);
    let word = sel >= 3;
    let left = op == ALU_SLL || op == ALU_SLLW;
    let c = alu_eval(op, a, b).unwrap_or(0);
    let (ab, bb, cb) = (a.to_le_bytes(), b.to_le_bytes(), c.to_le_bytes());
    row[SEL + sel] = Felt::ONE;
    for i in 0..8 {
        row[A + i] = f(ab[i] as u64);
        row[B + i] = f(bb[i] as u64);
        row[C + i] = f(cb[i] as u64);
    }
    let b0 = bb[0] as u64;
    row[H5] = f((b0 >> 5) & 1);
    row[H6] = f((b0 >> 6) & 1);
    row[H7] = f(b0 >> 7);
    let amount = if word { b0 & 31 } else { b0 & 63 };
    let e = if left { amount } else { 64 - amount };
    let s = e % 8;
    row[S0] = f(s & 1);
    row[S1] = f((s >> 1) & 1);
    row[S2] = f(s >> 2);
    row[POW] = f((1 << s) - 1);
    row[J + (e / 8) as usize] = Felt::ONE;
    let sign = |byte: u8| (byte >> 7) as u64;
    let fill_w = if op == ALU_SRAW { 255 * sign(ab[3]) } else { 0 };
    let mut hi7 = 0;
    for i in 0..8 {
        let x = if i >= 4 && word { fill_w } else { ab[i] as u64 };
        let (lo, hi) = ((x << s) & 0xff, (x << s) >> 8);
        row[LO + i] = f(lo);
        row[HI + i] = f(hi);
        hi7 = hi;
        bytes.range(lo as u8, hi as u8);
    }
    let sigma = match op {
        ALU_SRA => sign(ab[7]),
        ALU_SRAW => sign(ab[3]),
        _ => 0,
    };
    row[SIGMA] = f(sigma);
    row[T8] = f(hi7 + sigma * (256 - (1 << s)));
    let (ra7, ra3, rc) = (ab[7] & 0x7f, ab[3] & 0x7f, cb[3] & 0x7f);
    row[SA7] = f(sign(ab[7]));
    row[RA7] = f(ra7 as u64);
    row[SA3] = f(sign(ab[3]));
    row[RA3] = f(ra3 as u64);
    row[SC] = f(sign(cb[3]));
    row[RC] = f(rc as u64);
    row[M] = Felt::from(m);
    bytes.range(2 * ra7, 2 * ra3);
    bytes.range(2 * rc, 8 * (b0 & 31) as u8);
}

/// Values at the sign, word and byte boundaries.
const EDGE_VALUES: [u64; 18] = [
    0,
    1,
    2,
    u64::MAX,
    u64::MAX - 1,
    0x8000_0000_0000_0000,
    0x8000_0000_0000_0001,
    0x7fff_ffff_ffff_ffff,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_ffff_8000_0000,
    0xffff_ffff_0000_0000,
    0x1_0000_0000,
    0xff,
    0x80,
    0x8080_8080_8080_8080,
    0x0123_4567_89ab_cdef,
];

/// Shift amounts: 0, 1, 31, 32, 63, 64 and beyond, and high bits that do not count.
const SHIFT_AMOUNTS: [u64; 20] = [
    0,
    1,
    7,
    8,
    31,
    32,
    33,
    63,
    64,
    65,
    95,
    96,
    127,
    128,
    255,
    256,
    0x1_0000_001f,
    0xffff_ffff_ffff_ffe0,
    0xffff_ffff_ffff_ffc1,
    u64::MAX,
];

fn op(op: u32, a: u64, b: u64) -> AluOp {
    AluOp {
        op,
        a,
        b,
        c: alu_eval(op, a, b).unwrap(),
    }
}

/// Every LT op on every pair of edge values, some twice.
fn lt_edge_ops() -> Vec<AluOp> {
    let mut out = Vec::new();
    for &o in &LT_OPS {
        for (i, &a) in EDGE_VALUES.iter().enumerate() {
            for (j, &b) in EDGE_VALUES.iter().enumerate() {
                out.push(op(o, a, b));
                if (i + j) % 3 == 0 {
                    out.push(op(o, a, b));
                }
            }
        }
    }
    out
}

/// EQ on every pair of edge values (some twice), on every edge value with itself, with each
/// of its bytes changed by 1 and by 0x80 and set to its complement, and the largest sum
/// (every byte differing by 255).
fn eq_edge_ops() -> Vec<AluOp> {
    let mut out = Vec::new();
    for (i, &a) in EDGE_VALUES.iter().enumerate() {
        for (j, &b) in EDGE_VALUES.iter().enumerate() {
            out.push(op(ALU_EQ, a, b));
            if (i + j) % 3 == 0 {
                out.push(op(ALU_EQ, a, b));
            }
        }
        for k in 0..8 {
            for flip in [1u64, 0x80, 0xff] {
                out.push(op(ALU_EQ, a, a ^ (flip << (8 * k))));
                out.push(op(ALU_EQ, a ^ (flip << (8 * k)), a));
            }
            let plus = a.wrapping_add(1 << (8 * k));
            out.push(op(ALU_EQ, a, plus));
        }
    }
    out.push(op(ALU_EQ, 0, u64::MAX));
    out.push(op(ALU_EQ, u64::MAX, 0));
    out.push(op(ALU_EQ, 0x00ff_00ff_00ff_00ff, 0xff00_ff00_ff00_ff00));
    out
}

/// `n` random EQ ops ([`random_ops`]), a quarter of them made equal (`b = a`) and some
/// others made to differ from `a` in one byte, with repeats.
fn random_eq_ops(n: usize, seed: u64) -> Vec<AluOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xe9);
    random_ops(&EQ_OPS, n, seed)
        .into_iter()
        .map(|o| match rng.gen_range(0..8) {
            0 | 1 => op(ALU_EQ, o.a, o.a),
            2 => {
                let byte = rng.gen_range(1..=255u64) << (8 * rng.gen_range(0..8));
                op(ALU_EQ, o.a, o.a ^ byte)
            }
            _ => o,
        })
        .collect()
}

/// Every shift op on every edge value with every edge amount, some twice.
fn shift_edge_ops() -> Vec<AluOp> {
    let mut out = Vec::new();
    for &o in &SHIFT_OPS {
        for (i, &a) in EDGE_VALUES.iter().enumerate() {
            for (j, &b) in SHIFT_AMOUNTS.iter().enumerate() {
                out.push(op(o, a, b));
                if (i + j) % 4 == 1 {
                    out.push(op(o, a, b));
                }
            }
        }
    }
    out
}

/// Operands for MUL beyond [`EDGE_VALUES`]: small ones, 32-bit boundaries sign- and
/// zero-extended, and values whose products carry through every group.
const MUL_EXTRA: [u64; 9] = [
    3,
    7,
    0xffff_ffff_ffff_fff9,
    0x1_ffff_ffff,
    0x7fff_ffff_0000_0000,
    0x8000_0000_ffff_ffff,
    0xffff_ffff_7fff_ffff,
    0xdead_beef_cafe_babe,
    0x5555_5555_5555_5555,
];

/// Every MUL op on every pair of edge values (some twice): 0, 1, −1, i64::MIN, i64::MAX, the
/// 32-bit boundaries and [`MUL_EXTRA`].
fn mul_edge_ops() -> Vec<AluOp> {
    let values: Vec<u64> = EDGE_VALUES.iter().chain(&MUL_EXTRA).copied().collect();
    let mut out = Vec::new();
    for &o in &MUL_OPS {
        for (i, &a) in values.iter().enumerate() {
            for (j, &b) in values.iter().enumerate() {
                out.push(op(o, a, b));
                if (i + j) % 5 == 2 {
                    out.push(op(o, a, b));
                }
            }
        }
    }
    out
}

/// `n` random MUL ops ([`random_ops`]), some of them with small, negative small or
/// sign-extended 32-bit operands, with repeats.
fn random_mul_ops(n: usize, seed: u64) -> Vec<AluOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x3a);
    random_ops(&MUL_OPS, n, seed)
        .into_iter()
        .map(|o| match rng.gen_range(0..8) {
            0 => op(o.op, rng.gen_range(0..300), o.b),
            1 => op(o.op, o.a, rng.gen_range(-300i64..300) as u64),
            2 => op(
                o.op,
                rng.gen::<i32>() as i64 as u64,
                rng.gen::<i32>() as i64 as u64,
            ),
            _ => o,
        })
        .collect()
}

/// `n` random ops from `ops`: edge or random values and amounts, with repeats.
fn random_ops(ops: &[u32], n: usize, seed: u64) -> Vec<AluOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let shift = ops[0] == ALU_SLL;
    let mut out: Vec<AluOp> = Vec::with_capacity(n);
    for _ in 0..n {
        if !out.is_empty() && rng.gen_bool(0.2) {
            let k = rng.gen_range(0..out.len());
            out.push(out[k]);
            continue;
        }
        let o = ops[rng.gen_range(0..ops.len())];
        let a = if rng.gen_bool(0.3) {
            EDGE_VALUES[rng.gen_range(0..EDGE_VALUES.len())]
        } else {
            rng.gen()
        };
        let b = match (shift, rng.gen_range(0..3)) {
            (true, 0) => SHIFT_AMOUNTS[rng.gen_range(0..SHIFT_AMOUNTS.len())],
            (true, 1) => rng.gen_range(0..64),
            (false, 0) => EDGE_VALUES[rng.gen_range(0..EDGE_VALUES.len())],
            // Close to a: equal high or low halves.
            (false, 1) => a ^ (rng.gen::<u64>() >> rng.gen_range(0..64)),
            _ => rng.gen(),
        };
        out.push(op(o, a, b));
    }
    out
}

/// The ALU ops of the CPU's ALU and branch rows of a guest's run (the system calls' own
/// compares are not included), restricted to `ops`.
fn program_ops(name: &str, input: &[u8], ops: &[u32]) -> Vec<AluOp> {
    let (_, records, _) = run_recorded(name, input);
    steps(&records)
        .iter()
        .filter_map(|s| {
            let d = decode_for_air(s.pc, s.word)?;
            if !(d.class[class::ALU] || d.class[class::BRANCH]) || !ops.contains(&d.alu_op) {
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

type Distinctor = fn(&[AluOp]) -> Vec<Distinct>;
type Builder = fn(&[AluOp], &mut ByteCounts) -> RowMajorMatrix;
type Lookups = fn(&[Distinct], usize, &mut ByteCounts);

struct Split {
    name: &'static str,
    distinct: Distinctor,
    fill: fn(&[Distinct]) -> RowMajorMatrix,
    lookups: Lookups,
    build: Builder,
    old: Builder,
}

const LT: Split = Split {
    name: "LT",
    distinct: lt::distinct,
    fill: lt::fill_distinct,
    lookups: lt::lookups,
    build: lt::build_trace,
    old: old_lt,
};

const EQ: Split = Split {
    name: "EQ",
    distinct: eq::distinct,
    fill: eq::fill_distinct,
    lookups: eq::lookups,
    build: eq::build_trace,
    old: old_eq,
};

const SHIFT: Split = Split {
    name: "SHIFT",
    distinct: shift::distinct,
    fill: shift::fill_distinct,
    lookups: shift::lookups,
    build: shift::build_trace,
    old: old_shift,
};

const MUL: Split = Split {
    name: "MUL",
    distinct: mul::distinct,
    fill: mul::fill_distinct,
    lookups: mul::lookups,
    build: mul::build_trace,
    old: old_mul,
};

/// The new builder and its parts against the old builder on `ops`.
fn check_split(t: &Split, what: &str, ops: &[AluOp]) {
    let mut old_bytes = ByteCounts::default();
    let old = (t.old)(ops, &mut old_bytes);
    let mut new_bytes = ByteCounts::default();
    let new = (t.build)(ops, &mut new_bytes);
    assert!(new == old, "{} {what}: build_trace changed", t.name);
    assert!(
        new_bytes.trace() == old_bytes.trace(),
        "{} {what}: byte lookups changed",
        t.name
    );

    let rows = (t.distinct)(ops);
    let mut map: BTreeMap<(u32, u64, u64), u32> = BTreeMap::new();
    for o in ops {
        *map.entry((o.op, o.a, o.b)).or_default() += 1;
    }
    let expect: Vec<Distinct> = map
        .into_iter()
        .map(|((op, a, b), mult)| Distinct { op, a, b, mult })
        .collect();
    assert_eq!(rows, expect, "{} {what}: distinct", t.name);
    let h = distinct_height(rows.len());
    assert_eq!(h, old.height());
    assert!((t.fill)(&rows) == old, "{} {what}: fill_distinct", t.name);
    let mut bytes = ByteCounts::default();
    (t.lookups)(&rows, h, &mut bytes);
    assert!(
        bytes.trace() == old_bytes.trace(),
        "{} {what}: lookups",
        t.name
    );
}

#[test]
fn lt_builder_unchanged_on_edge_ops() {
    check_split(&LT, "edge ops", &lt_edge_ops());
}

#[test]
fn eq_builder_unchanged_on_edge_ops() {
    let ops = eq_edge_ops();
    assert!(ops.iter().any(|o| o.a == o.b) && ops.iter().any(|o| o.a != o.b));
    check_split(&EQ, "edge ops", &ops);
}

#[test]
fn shift_builder_unchanged_on_edge_ops() {
    check_split(&SHIFT, "edge ops", &shift_edge_ops());
}

#[test]
fn mul_builder_unchanged_on_edge_ops() {
    assert_eq!(MUL_OPS, mul::OPS);
    let ops = mul_edge_ops();
    check_split(&MUL, "edge ops", &ops);
    // Each op alone (one row, seven padding rows: padding makes no lookups).
    for (k, o) in ops.iter().enumerate().step_by(97) {
        check_split(&MUL, &format!("edge op {k}"), &[*o]);
    }
    check_split(&MUL, "no ops", &[]);
}

#[test]
fn builders_unchanged_on_random_ops() {
    for (k, n) in [0usize, 1, 7, 8, 9, 17, 1000, 20_000]
        .into_iter()
        .enumerate()
    {
        check_split(
            &LT,
            &format!("{n} random ops"),
            &random_ops(&LT_OPS, n, k as u64),
        );
        check_split(
            &SHIFT,
            &format!("{n} random ops"),
            &random_ops(&SHIFT_OPS, n, 50 + k as u64),
        );
        check_split(
            &EQ,
            &format!("{n} random ops"),
            &random_eq_ops(n, 100 + k as u64),
        );
        check_split(
            &MUL,
            &format!("{n} random ops"),
            &random_mul_ops(n, 150 + k as u64),
        );
    }
}

#[test]
fn builders_unchanged_on_a_real_program() {
    let lt_ops = program_ops("sha256", b"abc", &LT_OPS);
    let shift_ops = program_ops("sha256", b"abc", &SHIFT_OPS);
    let eq_ops = program_ops("sha256", b"abc", &EQ_OPS);
    assert!(!lt_ops.is_empty() && !shift_ops.is_empty() && !eq_ops.is_empty());
    check_split(&LT, "sha256", &lt_ops);
    check_split(&SHIFT, "sha256", &shift_ops);
    check_split(&EQ, "sha256", &eq_ops);
}

/// Guests whose multiplications MUL's tests take: bignum computing 3^2000 (schoolbook
/// products of 64-bit limbs: thousands of MUL and MULHU), matmul (signed MUL) and the ISA
/// test (every MUL op).
const MUL_PROGRAMS: [(&str, &[u8]); 3] = [("bignum", b"2000"), ("matmul", b""), ("isa/mul", b"")];

/// MUL's builder on the multiplications of real programs.
#[test]
fn mul_builder_unchanged_on_real_programs() {
    for (name, input) in MUL_PROGRAMS {
        let ops = program_ops(name, input, &MUL_OPS);
        let rows = mul::distinct(&ops).len();
        println!("{name}: {} MUL ops, {rows} distinct", ops.len());
        assert!(rows > 20, "{name}: {rows} distinct MUL ops");
        check_split(&MUL, name, &ops);
    }
    let isa: Vec<u32> = program_ops("isa/mul", b"", &MUL_OPS)
        .iter()
        .map(|o| o.op)
        .collect();
    for o in MUL_OPS {
        assert!(isa.contains(&o), "isa/mul has no op {o}");
    }
}

/// EQ's rows as the packing pass keeps them (its records, the device fill's input) for a
/// guest's run, and its host fill from them.
fn packed_eq(name: &str, input: &[u8]) -> (Vec<Distinct>, RowMajorMatrix, Option<usize>) {
    use kestrel_core::rv::machine::TableId;
    use kestrel_core::rv::pack::pack_traces;
    use kestrel_prover_gpu::rv::{machine_for, program_image};
    let (program, records, _) = run_recorded(name, input);
    let image = program_image(&program);
    let packed = pack_traces(&machine_for(&image), &image, &steps(&records), input).unwrap();
    assert!(
        packed.traces[TableId::Eq.index()].is_none(),
        "{name}: EQ built"
    );
    let host = packed
        .fill_host(&image, TableId::Eq)
        .expect("EQ is a record table");
    let real = packed.real_rows()[TableId::Eq.index()];
    (packed.eq, host, real)
}

/// MUL's rows as the packing pass keeps them for a guest's run, its host fill from them and
/// its real rows.
fn packed_mul(name: &str, input: &[u8]) -> (Vec<Distinct>, RowMajorMatrix, Option<usize>) {
    use kestrel_core::rv::machine::TableId;
    use kestrel_core::rv::pack::pack_traces;
    use kestrel_prover_gpu::rv::{machine_for, program_image};
    let (program, records, _) = run_recorded(name, input);
    let image = program_image(&program);
    let packed = pack_traces(&machine_for(&image), &image, &steps(&records), input).unwrap();
    assert!(
        packed.traces[TableId::Mul.index()].is_none(),
        "{name}: MUL built"
    );
    let host = packed
        .fill_host(&image, TableId::Mul)
        .expect("MUL is a record table");
    let real = packed.real_rows()[TableId::Mul.index()];
    (packed.mul, host, real)
}

/// The packing pass keeps MUL's distinct rows in `distinct`'s order (sorted by `(op, a, b)`,
/// repeats merged): exactly those of the CPU's multiplications (no system call sends one),
/// reported as its real rows; its host fill is `fill_distinct`, the former builder's trace.
#[test]
fn mul_records_are_its_distinct_rows() {
    for (name, input) in MUL_PROGRAMS {
        let (rows, host, real) = packed_mul(name, input);
        let ops = program_ops(name, input, &MUL_OPS);
        assert!(!rows.is_empty(), "{name}");
        assert!(rows.iter().all(|r| MUL_OPS.contains(&r.op) && r.mult > 0));
        assert!(rows
            .windows(2)
            .all(|w| (w[0].op, w[0].a, w[0].b) < (w[1].op, w[1].a, w[1].b)));
        assert_eq!(rows, mul::distinct(&ops), "{name}");
        assert_eq!(real, Some(rows.len()), "{name}");
        assert!(host == mul::fill_distinct(&rows), "{name}");
        assert!(host == old_mul(&ops, &mut ByteCounts::default()), "{name}");
    }
}

/// The packing pass keeps EQ's distinct rows in `distinct`'s order (sorted by `(op, a, b)`,
/// repeats merged), reports them as its real rows, and its host fill is `fill_distinct`.
#[test]
fn eq_records_are_its_distinct_rows() {
    let (rows, host, real) = packed_eq("sha256", b"abc");
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.op == ALU_EQ && r.mult > 0));
    assert!(rows
        .windows(2)
        .all(|w| (w[0].op, w[0].a, w[0].b) < (w[1].op, w[1].a, w[1].b)));
    assert_eq!(real, Some(rows.len()));
    assert!(host == eq::fill_distinct(&rows));
    // Every operation the CPU's rows dispatch is among them (the system calls' own
    // compares may add rows, never remove one).
    for d in eq::distinct(&program_ops("sha256", b"abc", &EQ_OPS)) {
        let r = rows
            .iter()
            .find(|r| (r.a, r.b) == (d.a, d.b))
            .unwrap_or_else(|| panic!("{d:?} missing"));
        assert!(r.mult >= d.mult, "{d:?}");
    }
}

/// Lookups add to what a counter already holds, and a taller height adds padding lookups.
#[test]
fn lookups_accumulate_and_pad() {
    let ops = random_ops(&SHIFT_OPS, 100, 7);
    let rows = shift::distinct(&ops);
    let h = distinct_height(rows.len());
    let mut twice = ByteCounts::default();
    shift::lookups(&rows, h, &mut twice);
    shift::lookups(&rows, h, &mut twice);
    let mut once = ByteCounts::default();
    shift::lookups(&rows, h, &mut once);
    let mut merged = once.clone();
    merged.merge(&once);
    assert!(twice.trace() == merged.trace());
    let mut taller = ByteCounts::default();
    lt::lookups(&[], 16, &mut taller);
    let mut pad = ByteCounts::default();
    for _ in 0..16 * 5 {
        pad.range(0, 0);
    }
    assert!(taller.trace() == pad.trace());
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use kestrel_prover_gpu::cuda::CudaBackend;
    use kestrel_tests::distinct_fill::{gpu, DistinctFill};

    const LT: DistinctFill = DistinctFill {
        name: "LT",
        width: lt::WIDTH,
        fill: CudaBackend::fill_lt,
        host: lt::fill_distinct,
        distinct: lt::distinct,
    };
    const SHIFT: DistinctFill = DistinctFill {
        name: "SHIFT",
        width: shift::WIDTH,
        fill: CudaBackend::fill_shift,
        host: shift::fill_distinct,
        distinct: shift::distinct,
    };
    const EQ: DistinctFill = DistinctFill {
        name: "EQ",
        width: eq::WIDTH,
        fill: CudaBackend::fill_eq,
        host: eq::fill_distinct,
        distinct: eq::distinct,
    };
    const MUL: DistinctFill = DistinctFill {
        name: "MUL",
        width: mul::WIDTH,
        fill: CudaBackend::fill_mul,
        host: mul::fill_distinct,
        distinct: mul::distinct,
    };

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_on_edge_ops() {
        let g = gpu();
        let lt_fills = LT.check_edge_ops(&g, lt_edge_ops(), 3, 5);
        let shift_fills = SHIFT.check_edge_ops(&g, shift_edge_ops(), 5, 6);
        let s = g.stats();
        assert_eq!(s.fill("LT"), lt_fills);
        assert_eq!(s.fill("SHIFT"), shift_fills);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_on_random_rows() {
        let g = gpu();
        LT.check_random(&g, &|n, seed| random_ops(&LT_OPS, n, seed), 200);
        SHIFT.check_random(&g, &|n, seed| random_ops(&SHIFT_OPS, n, seed), 300);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_on_a_real_program() {
        let g = gpu();
        let lt_rows = lt::distinct(&program_ops("sha256", b"abc", &LT_OPS));
        let shift_rows = shift::distinct(&program_ops("sha256", b"abc", &SHIFT_OPS));
        assert!(!lt_rows.is_empty() && !shift_rows.is_empty());
        LT.check(&g, "sha256", &lt_rows);
        SHIFT.check(&g, "sha256", &shift_rows);
        let s = g.stats();
        assert_eq!(s.fill("LT"), 1);
        assert_eq!(s.fill("SHIFT"), 1);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn eq_fill_matches_on_edge_ops() {
        let g = gpu();
        let fills = EQ.check_edge_ops(&g, eq_edge_ops(), 5, 7);
        assert_eq!(g.stats().fill("EQ"), fills);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn eq_fill_matches_on_random_rows() {
        EQ.check_random(&gpu(), &random_eq_ops, 400);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn eq_fill_matches_on_a_real_program() {
        let g = gpu();
        let rows = eq::distinct(&program_ops("sha256", b"abc", &EQ_OPS));
        assert!(!rows.is_empty());
        EQ.check(&g, "sha256 ops", &rows);
        // The rows the packing pass hands the device, against its host fill.
        let (rows, host, _) = packed_eq("sha256", b"abc");
        EQ.check_against(&g, "sha256 records", &rows, &host);
        let s = g.stats();
        assert_eq!(s.fill("EQ"), 2);
    }

    /// Ops of another table, an injected launch failure and a failed allocation are
    /// errors, not traces; the device works afterwards.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn eq_bad_rows_and_faults_are_errors() {
        let g = gpu();
        let row = |op| Distinct {
            op,
            a: 1,
            b: 2,
            mult: 1,
        };
        assert!(g.fill_eq(&[row(ALU_EQ), row(ALU_SLT)]).is_err());
        assert!(g.fill_eq(&[row(ALU_SLTU)]).is_err());
        assert!(g.fill_eq(&[row(0)]).is_err());
        assert!(g.fill_eq(&[row(ALU_SLL), row(ALU_EQ)]).is_err());
        // And EQ rows are not the other tables'.
        assert!(g.fill_lt(&[row(ALU_EQ)]).is_err());
        assert!(g.fill_shift(&[row(ALU_EQ)]).is_err());
        let s = g.stats();
        assert_eq!(s.fill("EQ"), 0);
        EQ.check_faults(&g, row(ALU_EQ));
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn mul_fill_matches_on_edge_ops() {
        let g = gpu();
        let fills = MUL.check_edge_ops(&g, mul_edge_ops(), 7, 11);
        assert_eq!(g.stats().fill("MUL"), fills);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn mul_fill_matches_on_random_rows() {
        MUL.check_random(&gpu(), &random_mul_ops, 600);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn mul_fill_matches_on_real_programs() {
        let g = gpu();
        for (name, input) in MUL_PROGRAMS {
            let rows = mul::distinct(&program_ops(name, input, &MUL_OPS));
            assert!(!rows.is_empty());
            MUL.check(&g, &format!("{name} ops"), &rows);
            // The rows the packing pass hands the device, against its host fill.
            let (rows, host, _) = packed_mul(name, input);
            MUL.check_against(&g, &format!("{name} records"), &rows, &host);
        }
        let s = g.stats();
        assert_eq!(s.fill("MUL"), 2 * MUL_PROGRAMS.len() as u64);
    }

    /// Ops of another table, an injected launch failure and a failed allocation are
    /// errors, not traces; the device works afterwards.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn mul_bad_rows_and_faults_are_errors() {
        let g = gpu();
        let row = |op| Distinct {
            op,
            a: 1,
            b: 2,
            mult: 1,
        };
        assert!(g.fill_mul(&[row(ALU_MUL), row(ALU_SLT)]).is_err());
        assert!(g.fill_mul(&[row(ALU_EQ)]).is_err());
        assert!(g.fill_mul(&[row(0)]).is_err());
        // DIV (15) and the codes around MUL's are not MUL's.
        assert!(g.fill_mul(&[row(ALU_MULW + 1)]).is_err());
        assert!(g.fill_mul(&[row(ALU_SRAW), row(ALU_MULHU)]).is_err());
        // And MUL rows are not the other tables'.
        for o in MUL_OPS {
            assert!(g.fill_lt(&[row(o)]).is_err());
            assert!(g.fill_eq(&[row(o)]).is_err());
            assert!(g.fill_shift(&[row(o)]).is_err());
        }
        let s = g.stats();
        assert_eq!(s.fill("MUL"), 0);
        MUL.check_faults(&g, row(ALU_MULHSU));
    }

    /// Ops of another table and an injected launch failure are errors, not traces.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn bad_rows_and_faults_are_errors() {
        let g = gpu();
        let row = |op| Distinct {
            op,
            a: 1,
            b: 2,
            mult: 1,
        };
        assert!(g.fill_lt(&[row(ALU_SLT), row(ALU_SLL)]).is_err());
        assert!(g.fill_lt(&[row(0)]).is_err());
        assert!(g.fill_shift(&[row(ALU_SRAW), row(ALU_SLTU)]).is_err());
        assert!(g.fill_shift(&[row(10)]).is_err());
        let s = g.stats();
        assert_eq!(s.fill("LT"), 0);
        assert_eq!(s.fill("SHIFT"), 0);
        LT.check_faults(&g, row(ALU_SLT));
        SHIFT.check_faults(&g, row(ALU_SRL));
    }
}
