//! DVRM's records and host fill (the `trace` feature: the verifier compiles without it).

use super::*;
use crate::air::columns::Columns;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{
    alu_eval, distinct_height, distinct_ops, AluOp, Distinct, ALU_DIV, ALU_DIVU, ALU_DIVUW,
    ALU_DIVW, ALU_REM, ALU_REMUW, ALU_REMW,
};
use alloc::vec::Vec;

/// The distinct DVRM operations of `ops` (any order), sorted by `(op, a, b)`, repeats merged
/// into multiplicities: DVRM's rows in order. (`c` is a function of `(op, a, b)`, so this is
/// the order of the whole operations `(op, a, b, c)` too: the former builder's `BTreeMap`
/// order.)
pub fn distinct(ops: &[AluOp]) -> Vec<Distinct> {
    for o in ops {
        debug_assert!(OPS.contains(&o.op), "DVRM got op {}", o.op);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(o.c));
    }
    distinct_ops(ops)
}

/// DVRM's trace with one row per entry of `rows` (in order; each row's quotient, remainder
/// and result computed from `(op, a, b)` by [`divide`] and [`result_of`]), then all-zero
/// padding rows up to [`distinct_height`]. Records no lookups ([`lookups`] does).
///
/// # Panics
/// If an op is not one of [`OPS`].
pub fn fill_distinct(rows: &[Distinct]) -> RowMajorMatrix {
    let mut t = RowMajorMatrix::zeros(distinct_height(rows.len()), WIDTH);
    for (i, x) in rows.iter().enumerate() {
        let w = witness_of(x.op, x.a, x.b);
        let c = result_of(x.op, w.0, w.1);
        Row::of(x.op, x.a, x.b, c, w).fill(t.row_mut(i), x.mult as u64);
    }
    t
}

/// The byte lookups of DVRM's trace of `rows` with `height` rows: sixteen per real row (the
/// identity's carries, `q`, `r`, `|r|`, `|y|` and `d` in byte pairs, the doubled low 7 bits
/// of the sign decompositions); padding rows make none (their lookups have multiplicity
/// `is_real = 0`).
pub fn lookups(rows: &[Distinct], height: usize, bytes: &mut ByteCounts) {
    debug_assert!(height >= rows.len());
    for x in rows {
        let w = witness_of(x.op, x.a, x.b);
        let c = result_of(x.op, w.0, w.1);
        Row::of(x.op, x.a, x.b, c, w).lookups(bytes);
    }
}

/// DVRM's main trace for `ops` (any order, repeats allowed): one row per distinct op with
/// its count in [`M`], zero padding to [`distinct_height`] (a power of two ≥ 8). Records
/// every byte lookup in `bytes`. ([`distinct`], [`fill_distinct`] and [`lookups`].)
///
/// # Panics
/// If an op is not one of [`OPS`].
pub fn build_trace(ops: &[AluOp], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let rows = distinct(ops);
    let t = fill_distinct(&rows);
    lookups(&rows, t.height(), bytes);
    t
}

/// DVRM's trace as the operations were sent, forged results included: one row per distinct
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
    for (i, (o, &m)) in distinct.iter().enumerate() {
        let w = witness_of(o.op, o.a, o.b);
        debug_assert_eq!(alu_eval(o.op, o.a, o.b), Some(result_of(o.op, w.0, w.1)));
        let row = Row::of(o.op, o.a, o.b, o.c, w);
        row.fill(t.row_mut(i), m);
        row.lookups(bytes);
    }
    t
}

/// Little-endian 32-bit group `g` of a byte vector.
fn group32(v: &[u8; 8], g: usize) -> u64 {
    u32::from_le_bytes([v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3]]) as u64
}

/// The dividend and divisor of an op: `a`, `b` or their 32-bit extensions; and whether the
/// op is signed.
fn operands(op: u32, a: u64, b: u64) -> (u64, u64, bool) {
    let is_w = matches!(op, ALU_DIVW | ALU_DIVUW | ALU_REMW | ALU_REMUW);
    let signed = matches!(op, ALU_DIV | ALU_REM | ALU_DIVW | ALU_REMW);
    let (x, y) = match (is_w, signed) {
        (false, _) => (a, b),
        (true, true) => (a as i32 as i64 as u64, b as i32 as i64 as u64),
        (true, false) => (a as u32 as u64, b as u32 as u64),
    };
    (x, y, signed)
}

/// The honest witness `(q, r, z, ovf)` of an op: quotient, remainder, divide by zero,
/// overflow.
pub fn divide(op: &AluOp) -> (u64, u64, bool, bool) {
    witness_of(op.op, op.a, op.b)
}

/// [`divide`] of `(op, a, b)`.
fn witness_of(op: u32, a: u64, b: u64) -> (u64, u64, bool, bool) {
    let (x, y, signed) = operands(op, a, b);
    let z = y == 0;
    let ovf = matches!(op, ALU_DIV | ALU_REM) && x == i64::MIN as u64 && y == u64::MAX;
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

/// The result `c` the table derives from a quotient and remainder.
pub fn result_of(op: u32, q: u64, r: u64) -> u64 {
    let res = if matches!(op, ALU_DIV | ALU_DIVU | ALU_DIVW | ALU_DIVUW) {
        q
    } else {
        r
    };
    if matches!(op, ALU_DIVW | ALU_DIVUW | ALU_REMW | ALU_REMUW) {
        res as u32 as i32 as i64 as u64
    } else {
        res
    }
}

/// One row of `op` (with `c` as given) for a claimed witness `(q, r, z, ovf)`, every other
/// cell derived from it as an honest prover would; records the row's byte lookups. For
/// soundness tests: the row satisfies the constraints only for the honest witness.
///
/// # Panics
/// If the op is not one of [`OPS`].
pub fn witness_row(
    op: &AluOp,
    witness: (u64, u64, bool, bool),
    bytes: &mut ByteCounts,
) -> Vec<Felt> {
    let mut out = alloc::vec![Felt::ZERO; WIDTH];
    let row = Row::of(op.op, op.a, op.b, op.c, witness);
    row.fill(&mut out, 1);
    row.lookups(bytes);
    out
}

/// Every value a row holds, derived from `(op, a, b)`, the result `c` and a witness
/// `(q, r, z, ovf)`: what [`Row::fill`] writes and [`Row::lookups`] records.
struct Row {
    /// The selector index (`None` for an op that is not one of [`OPS`]).
    sel: Option<usize>,
    op: u32,
    a: [u8; 8],
    b: [u8; 8],
    c: [u8; 8],
    y: [u8; 8],
    q: [u8; 8],
    r: [u8; 8],
    /// The decomposed bytes `a[3]`, `a[7]`, `b[3]`, `b[7]`, `q[7]`, `r[7]`, `c[3]`.
    decomposed: [u8; 7],
    /// `nx`, `ny`, `nq`, `nr`.
    signs: [u64; 4],
    z: bool,
    ovf: bool,
    /// The identity's group carries (exact for the honest witness; a dishonest one gets the
    /// floor).
    carry: [i128; 4],
    abs_r: [u8; 8],
    abs_y: [u8; 8],
    d: [u8; 8],
    kr: u64,
    ky: u64,
    kd: u64,
}

impl Row {
    fn of(op: u32, a: u64, b: u64, c: u64, (q, r, z, ovf): (u64, u64, bool, bool)) -> Row {
        let sel = OPS.iter().position(|&o| o == op);
        let (x, y, signed) = operands(op, a, b);
        let [a, b, c, xb, yb, qb, rb] = [a, b, c, x, y, q, r].map(u64::to_le_bytes);
        let decomposed = [a[3], a[7], b[3], b[7], qb[7], rb[7], c[3]];
        let sgn = signed as u64;
        let (nx, ny, nq, nr) = (
            sgn * (xb[7] >> 7) as u64,
            sgn * (yb[7] >> 7) as u64,
            sgn * (qb[7] >> 7) as u64,
            sgn * (rb[7] >> 7) as u64,
        );

        // Carries of q' · y' + r' = x' (mod 2^128), four limbs per group.
        let ext = |v: &[u8; 8], n: u64, i: usize| if i < 8 { v[i] as u64 } else { 255 * n };
        let mut carries = [0i128; 4];
        let mut carry = 0i128;
        for (g, out) in carries.iter_mut().enumerate() {
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
            // Exact for the honest witness; a dishonest one gets the floor.
            carry = if ovf && g >= 2 { 0 } else { (lhs - rhs) >> 32 };
            *out = carry;
        }

        // |r|, |y| and d = |y| − |r| − 1.
        let abs = |v: u64, n: u64| if n == 1 { v.wrapping_neg() } else { v };
        let (abs_r, abs_y) = (abs(r, nr), abs(y, ny));
        let d = if z {
            0
        } else {
            abs_y.wrapping_sub(abs_r).wrapping_sub(1)
        };
        let [abs_rb, abs_yb, db] = [abs_r, abs_y, d].map(u64::to_le_bytes);
        // Group carries: of v + |v| (low group) and of |r| + d + 1 (low group).
        let neg_carry = |v: &[u8; 8], n: u64, av: &[u8; 8]| {
            (n == 1 && group32(v, 0) + group32(av, 0) >= 1 << 32) as u64
        };
        let kd = (!z && group32(&abs_rb, 0) + group32(&db, 0) + 1 >= 1 << 32) as u64;
        Row {
            sel,
            op,
            a,
            b,
            c,
            y: yb,
            q: qb,
            r: rb,
            decomposed,
            signs: [nx, ny, nq, nr],
            z,
            ovf,
            carry: carries,
            kr: neg_carry(&rb, nr, &abs_rb),
            ky: neg_carry(&yb, ny, &abs_yb),
            abs_r: abs_rb,
            abs_y: abs_yb,
            d: db,
            kd,
        }
    }

    /// Writes the row, with multiplicity `count`, into `out`.
    ///
    /// # Panics
    /// If the op is not one of [`OPS`].
    fn fill(&self, out: &mut [Felt], count: u64) {
        let s = self
            .sel
            .unwrap_or_else(|| panic!("DVRM does not take ALU op {}", self.op));
        let mut row = DvrmCols::from_fn(|_| Felt::ZERO);
        let f = Felt::new;
        row.m = f(count);
        row.sel[s] = f(1);
        for i in 0..8 {
            row.a[i] = f(self.a[i] as u64);
            row.b[i] = f(self.b[i] as u64);
            row.c[i] = f(self.c[i] as u64);
            row.q[i] = f(self.q[i] as u64);
            row.r[i] = f(self.r[i] as u64);
        }
        for (i, &v) in self.y[4..].iter().enumerate() {
            row.yh[i] = f(v as u64);
        }
        for (i, &v) in self.decomposed.iter().enumerate() {
            row.bits[2 * i] = f((v >> 7) as u64);
            row.bits[2 * i + 1] = f((v & 0x7f) as u64);
        }
        let [nx, ny, nq, nr] = self.signs;
        row.nx = f(nx);
        row.ny = f(ny);
        row.nq = f(nq);
        row.nr = f(nr);
        row.z = f(self.z as u64);
        row.ovf = f(self.ovf as u64);
        for (g, &carry) in self.carry.iter().enumerate() {
            row.carry[2 * g] = f((carry & 0xff) as u64);
            row.carry[2 * g + 1] = f(((carry >> 8) & 0xff) as u64);
        }
        for i in 0..8 {
            row.abs_r[i] = f(self.abs_r[i] as u64);
            row.abs_y[i] = f(self.abs_y[i] as u64);
            row.d[i] = f(self.d[i] as u64);
        }
        row.kr = f(self.kr);
        row.ky = f(self.ky);
        row.kd = f(self.kd);
        row.write(out);
    }

    /// Records the row's byte lookups.
    fn lookups(&self, bytes: &mut ByteCounts) {
        for &carry in &self.carry {
            bytes.range(carry as u8, (carry >> 8) as u8);
        }
        for v in [&self.q, &self.r, &self.abs_r, &self.abs_y, &self.d] {
            for i in 0..4 {
                bytes.range(v[2 * i], v[2 * i + 1]);
            }
        }
        let low7 = self.decomposed.map(|v| 2 * (v & 0x7f));
        bytes.range(low7[0], low7[1]);
        bytes.range(low7[2], low7[3]);
        bytes.range(low7[4], low7[5]);
        bytes.range(low7[6], 0);
    }
}

/// DVRM under the shared ALU tests (`rv::testing::alu`): its room's tests and its
/// proving test in `kestrel-tests`. Its builder keeps a forged result
/// ([`build_trace_as_sent`]: `wrong_results_caught` needs the row to carry it).
#[cfg(any(test, feature = "testing"))]
pub const ALU_CASE: crate::rv::testing::alu::AluCase = crate::rv::testing::alu::AluCase {
    air: &DvrmAir,
    ops: &OPS,
    build: build_trace_as_sent,
    force_c: None,
};
