//! MUL's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{
    alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_MUL, ALU_MULH, ALU_MULHSU,
    ALU_MULW,
};
use alloc::vec::Vec;

/// The distinct MUL operations of `ops` (any order), sorted by `(op, a, b)`, repeats merged
/// into multiplicities: MUL's rows in order. (`c` is a function of `(op, a, b)`, so this is
/// the order of the whole operations `(op, a, b, c)` too.)
pub fn distinct(ops: &[AluOp]) -> Vec<Distinct> {
    for o in ops {
        debug_assert!(OPS.contains(&o.op), "MUL got op {}", o.op);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(o.c));
    }
    distinct_ops(ops)
}

/// MUL's trace with one row per entry of `rows` (in order; each row's result `c` computed
/// from `(op, a, b)`), then all-zero padding rows up to [`distinct_height`]. Records no
/// lookups ([`lookups`] does).
///
/// # Panics
/// If an op is not one of [`OPS`].
pub fn fill_distinct(rows: &[Distinct]) -> RowMajorMatrix {
    let mut t = RowMajorMatrix::zeros(distinct_height(rows.len()), WIDTH);
    for (r, x) in rows.iter().enumerate() {
        let w = Witness::of(x.op, x.a, x.b);
        fill_row(t.row_mut(r), x.op, x.a, x.b, w.c, x.mult as u64, &w);
    }
    t
}

/// The byte lookups of MUL's trace of `rows` with `height` rows: fourteen per real row (the
/// product bytes in pairs, the carries, `2·ra` with `2·rb`, `2·rw`); padding rows make none
/// (their lookups have multiplicity `is_real = 0`).
///
/// # Panics
/// If an op is not one of [`OPS`].
pub fn lookups(rows: &[Distinct], height: usize, bytes: &mut ByteCounts) {
    debug_assert!(height >= rows.len());
    for x in rows {
        row_lookups(x.a, x.b, &Witness::of(x.op, x.a, x.b), bytes);
    }
}

/// MUL's main trace for `ops` (any order, repeats allowed): one row per distinct op with its
/// count in [`M`], zero padding to [`distinct_height`] (a power of two ≥ 8). Records every
/// byte lookup in `bytes`. ([`distinct`], [`fill_distinct`] and [`lookups`].)
///
/// # Panics
/// If an op is not one of [`OPS`].
pub fn build_trace(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let rows = distinct(ops);
    let t = fill_distinct(&rows);
    lookups(&rows, t.height(), bytes);
    t
}

/// What a row derives from `(op, a, b)`.
struct Witness {
    /// Index of the op in [`OPS`].
    sel: usize,
    /// The result, [`alu_eval`].
    c: u64,
    /// The extension bits of `a` and `b`.
    sa_ext: u64,
    sb_ext: u64,
    /// The product bytes `p = a' · b' mod 2^128`.
    p: [u8; 16],
    /// The four group carries (each below 2^16).
    carry: [u64; 4],
}

impl Witness {
    /// # Panics
    /// If `op` is not one of [`OPS`].
    fn of(op: u32, a: u64, b: u64) -> Witness {
        let sel = OPS
            .iter()
            .position(|&o| o == op)
            .unwrap_or_else(|| panic!("MUL does not take ALU op {op}"));
        let (ab, bb) = (a.to_le_bytes(), b.to_le_bytes());
        let sa_ext = (ab[7] >> 7) as u64 * (op == ALU_MULH || op == ALU_MULHSU) as u64;
        let sb_ext = (bb[7] >> 7) as u64 * (op == ALU_MULH) as u64;
        // The byte convolution of the extended operands, four limbs per carry.
        let ext = |v: &[u8; 8], s: u64, i: usize| if i < 8 { v[i] as u64 } else { 255 * s };
        let mut p = [0u8; 16];
        let mut carries = [0u64; 4];
        let mut carry = 0u64;
        for g in 0..4 {
            let mut lhs = carry as u128;
            for j in 0..4 {
                let l = 4 * g + j;
                let conv: u64 = (0..=l)
                    .filter(|&i| i < 8 || l - i < 8)
                    .map(|i| ext(&ab, sa_ext, i) * ext(&bb, sb_ext, l - i))
                    .sum();
                lhs += (conv as u128) << (8 * j);
            }
            p[4 * g..4 * g + 4].copy_from_slice(&(lhs as u32).to_le_bytes());
            carry = (lhs >> 32) as u64;
            debug_assert!(carry < 1 << 16);
            carries[g] = carry;
        }
        let c = alu_eval(op, a, b).unwrap_or_default();
        debug_assert!({
            let lo = u64::from_le_bytes(p[..8].try_into().unwrap_or_default());
            let hi = u64::from_le_bytes(p[8..].try_into().unwrap_or_default());
            let expect = match op {
                ALU_MUL => lo,
                ALU_MULW => lo as u32 as i32 as i64 as u64,
                _ => hi,
            };
            c == expect
        });
        Witness {
            sel,
            c,
            sa_ext,
            sb_ext,
            p,
            carry: carries,
        }
    }
}

/// One row for `(op, a, b)` with result `c` (the honest one, `w.c`, but for a forged row)
/// and multiplicity `m`, into `out`.
fn fill_row(out: &mut [Felt], op: u32, a: u64, b: u64, c: u64, m: u64, w: &Witness) {
    debug_assert!(OPS[w.sel] == op);
    let mut row = MulCols::from_fn(|_| Felt::ZERO);
    let f = Felt::new;
    row.m = f(m);
    row.sel[w.sel] = f(1);
    let (a, b, c) = (a.to_le_bytes(), b.to_le_bytes(), c.to_le_bytes());
    for i in 0..8 {
        row.a[i] = f(a[i] as u64);
        row.b[i] = f(b[i] as u64);
        row.c[i] = f(c[i] as u64);
    }
    row.sa = f((a[7] >> 7) as u64);
    row.ra = f((a[7] & 0x7f) as u64);
    row.sb = f((b[7] >> 7) as u64);
    row.rb = f((b[7] & 0x7f) as u64);
    row.sa_ext = f(w.sa_ext);
    row.sb_ext = f(w.sb_ext);
    for (g, &carry) in w.carry.iter().enumerate() {
        row.carry[2 * g] = f(carry & 0xff);
        row.carry[2 * g + 1] = f(carry >> 8);
    }
    for (i, &v) in w.p.iter().enumerate() {
        row.p[i] = f(v as u64);
    }
    row.sw = f((w.p[3] >> 7) as u64);
    row.rw = f((w.p[3] & 0x7f) as u64);
    row.write(out);
}

/// The byte lookups of the row of `(_, a, b)`.
fn row_lookups(a: u64, b: u64, w: &Witness, bytes: &mut ByteCounts) {
    for &carry in &w.carry {
        bytes.range(carry as u8, (carry >> 8) as u8);
    }
    for i in 0..8 {
        bytes.range(w.p[2 * i], w.p[2 * i + 1]);
    }
    let (ra, rb) = (a.to_le_bytes()[7] & 0x7f, b.to_le_bytes()[7] & 0x7f);
    bytes.range(2 * ra, 2 * rb);
    bytes.range(2 * (w.p[3] & 0x7f), 0);
}

/// MUL's trace as the operations were sent, forged results included: one row per distinct
/// `(op, a, b, c)` (sorted so), its result columns `c` as sent and every other cell derived
/// from `(op, a, b)`, with its byte lookups. For honest operations it is [`build_trace`];
/// the shared ALU tests build a consistent forgery with it (`rv::testing::alu`).
///
/// # Panics
/// If an op is not one of [`OPS`].
#[cfg(any(test, feature = "testing"))]
pub fn build_trace_as_sent(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut distinct: alloc::collections::BTreeMap<AluOp, u64> = Default::default();
    for op in ops {
        *distinct.entry(*op).or_insert(0) += 1;
    }
    let mut t = RowMajorMatrix::zeros(distinct_height(distinct.len()), WIDTH);
    for (r, (o, &m)) in distinct.iter().enumerate() {
        let w = Witness::of(o.op, o.a, o.b);
        fill_row(t.row_mut(r), o.op, o.a, o.b, o.c, m, &w);
        row_lookups(o.a, o.b, &w, bytes);
    }
    t
}

/// MUL under the shared ALU tests (`rv::testing::alu`): its room's tests and its
/// proving test in `kestrel-tests`. Its builder keeps a forged result
/// ([`build_trace_as_sent`]: `wrong_results_caught` needs the row to carry it).
#[cfg(any(test, feature = "testing"))]
pub const ALU_CASE: crate::rv::testing::alu::AluCase = crate::rv::testing::alu::AluCase {
    air: &MulAir,
    ops: &OPS,
    build: build_trace_as_sent,
    force_c: None,
};
