//! ALU operation codes (the first value of a [`super::BUS_ALU`] tuple) and the op record
//! every ALU table's trace builder takes.

use alloc::vec::Vec;

/// `c = (a <s b)`.
pub const ALU_SLT: u32 = 1;
/// `c = (a <u b)`.
pub const ALU_SLTU: u32 = 2;
/// `c = (a == b)`.
pub const ALU_EQ: u32 = 3;
/// `c = a << (b & 63)`.
pub const ALU_SLL: u32 = 4;
/// `c = a >>u (b & 63)`.
pub const ALU_SRL: u32 = 5;
/// `c = a >>s (b & 63)`.
pub const ALU_SRA: u32 = 6;
/// `c = sext32((a << (b & 31)) mod 2^32)`.
pub const ALU_SLLW: u32 = 7;
/// `c = sext32((a mod 2^32) >>u (b & 31))`.
pub const ALU_SRLW: u32 = 8;
/// `c = sext32((a mod 2^32) >>s (b & 31))`.
pub const ALU_SRAW: u32 = 9;
/// `c = (a · b) mod 2^64`.
pub const ALU_MUL: u32 = 10;
/// High 64 bits of signed × signed.
pub const ALU_MULH: u32 = 11;
/// High 64 bits of signed × unsigned.
pub const ALU_MULHSU: u32 = 12;
/// High 64 bits of unsigned × unsigned.
pub const ALU_MULHU: u32 = 13;
/// `c = sext32((a · b) mod 2^32)`.
pub const ALU_MULW: u32 = 14;
/// Signed division (RISC-V: x/0 = −1, MIN/−1 = MIN).
pub const ALU_DIV: u32 = 15;
/// Unsigned division (x/0 = 2^64 − 1).
pub const ALU_DIVU: u32 = 16;
/// Signed remainder (x%0 = x, MIN%−1 = 0).
pub const ALU_REM: u32 = 17;
/// Unsigned remainder (x%0 = x).
pub const ALU_REMU: u32 = 18;
/// 32-bit signed division, result sign-extended.
pub const ALU_DIVW: u32 = 19;
/// 32-bit unsigned division, result sign-extended.
pub const ALU_DIVUW: u32 = 20;
/// 32-bit signed remainder, result sign-extended.
pub const ALU_REMW: u32 = 21;
/// 32-bit unsigned remainder, result sign-extended.
pub const ALU_REMUW: u32 = 22;

/// One ALU operation as the CPU dispatched it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AluOp {
    pub op: u32,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

/// One distinct `(op, a, b)` of a table's operations and how many times it occurred: the
/// content of one trace row of the tables that merge repeats into a multiplicity column.
#[derive(
    Copy,
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Distinct {
    pub op: u32,
    pub a: u64,
    pub b: u64,
    pub mult: u32,
}

/// The distinct `(op, a, b)` of `ops` with their multiplicities, sorted by `(op, a, b)`
/// (the order a `BTreeMap` keyed by `(op, a, b)` iterates in). Multiplicities wrap modulo
/// 2^32, as a `u32` counter incremented once per op would.
pub fn distinct_ops(ops: &[AluOp]) -> Vec<Distinct> {
    let mut keys: Vec<(u32, u64, u64)> = ops.iter().map(|o| (o.op, o.a, o.b)).collect();
    keys.sort_unstable();
    let mut out: Vec<Distinct> = Vec::new();
    let mut i = 0;
    while i < keys.len() {
        let k = keys[i];
        let mut j = i + 1;
        while j < keys.len() && keys[j] == k {
            j += 1;
        }
        out.push(Distinct {
            op: k.0,
            a: k.1,
            b: k.2,
            mult: (j - i) as u32,
        });
        i = j;
    }
    out
}

/// The [`distinct_ops`] of the concatenation of several op lists from the [`distinct_ops`]
/// of each (in any order): the same rows, multiplicities added modulo 2^32.
pub fn merge_distinct(parts: &[&[Distinct]]) -> Vec<Distinct> {
    let mut all: Vec<Distinct> = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        all.extend_from_slice(p);
    }
    // Sorted runs: the stable sort merges them.
    all.sort_by_key(|d| (d.op, d.a, d.b));
    let mut out: Vec<Distinct> = Vec::with_capacity(all.len());
    for d in all {
        match out.last_mut() {
            Some(last) if (last.op, last.a, last.b) == (d.op, d.a, d.b) => {
                last.mult = last.mult.wrapping_add(d.mult);
            }
            _ => out.push(d),
        }
    }
    out
}

/// The sort key of a [`Distinct`] row: `(op, a, b)`.
pub type DistinctKey = (u32, u64, u64);

/// A distinct row's [`DistinctKey`].
#[inline]
pub fn distinct_key(d: &Distinct) -> DistinctKey {
    (d.op, d.a, d.b)
}

/// Keys splitting the distinct rows of `lists` (each sorted by key) into `parts` ranges of
/// similar sizes: the first range ends before the first key, the last starts at the last
/// (chosen from a sample; any keys give the same rows, merged part by part with
/// [`merge_part`]).
pub fn part_bounds<'a>(
    lists: impl Iterator<Item = &'a [Distinct]> + Clone,
    parts: usize,
) -> Vec<DistinctKey> {
    let total: usize = lists.clone().map(<[Distinct]>::len).sum();
    let every = (total / (16 * parts)).max(1);
    let mut sample: Vec<DistinctKey> = lists
        .flat_map(|rows| rows.iter().step_by(every).map(distinct_key))
        .collect();
    sample.sort_unstable();
    (1..parts)
        .filter_map(|p| sample.get(p * sample.len() / parts).copied())
        .collect()
}

/// Part `p` of the distinct rows of `lists` (each sorted by key), merged ([`merge_distinct`]):
/// those with keys from `bounds[p − 1]` (inclusive) to `bounds[p]` (exclusive); parts past
/// the last bound are empty.
pub fn merge_part<'a>(
    lists: impl Iterator<Item = &'a [Distinct]>,
    bounds: &[DistinctKey],
    p: usize,
) -> Vec<Distinct> {
    if p > bounds.len() {
        return Vec::new();
    }
    let (lo, hi) = (p.checked_sub(1).map(|q| &bounds[q]), bounds.get(p));
    let parts: Vec<&[Distinct]> = lists
        .map(|rows| {
            let start = lo.map_or(0, |lo| rows.partition_point(|d| distinct_key(d) < *lo));
            let end = hi.map_or(rows.len(), |hi| {
                rows.partition_point(|d| distinct_key(d) < *hi)
            });
            &rows[start..end.max(start)]
        })
        .collect();
    merge_distinct(&parts)
}

/// The height of a table with one row per distinct op: the next power of two ≥ 8.
pub fn distinct_height(rows: usize) -> usize {
    super::padded_height(rows)
}

/// The reference semantics of every ALU operation (what the executor computes).
pub fn alu_eval(op: u32, a: u64, b: u64) -> Option<u64> {
    let sext32 = |x: u32| x as i32 as i64 as u64;
    Some(match op {
        ALU_SLT => ((a as i64) < (b as i64)) as u64,
        ALU_SLTU => (a < b) as u64,
        ALU_EQ => (a == b) as u64,
        ALU_SLL => a << (b & 63),
        ALU_SRL => a >> (b & 63),
        ALU_SRA => ((a as i64) >> (b & 63)) as u64,
        ALU_SLLW => sext32((a as u32) << (b & 31)),
        ALU_SRLW => sext32((a as u32) >> (b & 31)),
        ALU_SRAW => ((a as i32) >> (b & 31)) as i64 as u64,
        ALU_MUL => a.wrapping_mul(b),
        ALU_MULH => (((a as i64 as i128) * (b as i64 as i128)) >> 64) as u64,
        ALU_MULHSU => (((a as i64 as i128) * (b as i128)) >> 64) as u64,
        ALU_MULHU => (((a as u128) * (b as u128)) >> 64) as u64,
        ALU_MULW => sext32((a as u32).wrapping_mul(b as u32)),
        ALU_DIV => {
            if b == 0 {
                u64::MAX
            } else {
                (a as i64).wrapping_div(b as i64) as u64
            }
        }
        ALU_DIVU => a.checked_div(b).unwrap_or(u64::MAX),
        ALU_REM => {
            if b == 0 {
                a
            } else {
                (a as i64).wrapping_rem(b as i64) as u64
            }
        }
        ALU_REMU => a.checked_rem(b).unwrap_or(a),
        ALU_DIVW => {
            let (x, y) = (a as i32, b as i32);
            if y == 0 {
                u64::MAX
            } else {
                x.wrapping_div(y) as i64 as u64
            }
        }
        ALU_DIVUW => {
            let (x, y) = (a as u32, b as u32);
            x.checked_div(y).map_or(u64::MAX, sext32)
        }
        ALU_REMW => {
            let (x, y) = (a as i32, b as i32);
            if y == 0 {
                x as i64 as u64
            } else {
                x.wrapping_rem(y) as i64 as u64
            }
        }
        ALU_REMUW => {
            let (x, y) = (a as u32, b as u32);
            if y == 0 {
                sext32(x)
            } else {
                sext32(x % y)
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_edge_cases_follow_the_spec() {
        assert_eq!(alu_eval(ALU_DIV, 5, 0), Some(u64::MAX));
        assert_eq!(
            alu_eval(ALU_DIV, i64::MIN as u64, u64::MAX),
            Some(i64::MIN as u64)
        );
        assert_eq!(alu_eval(ALU_REM, i64::MIN as u64, u64::MAX), Some(0));
        assert_eq!(alu_eval(ALU_REMU, 7, 0), Some(7));
        assert_eq!(
            alu_eval(ALU_DIVW, i32::MIN as u64, u64::MAX),
            Some(i32::MIN as i64 as u64)
        );
        assert_eq!(
            alu_eval(ALU_REMUW, 0xFFFF_FFFF_8000_0000, 0),
            Some(0xFFFF_FFFF_8000_0000)
        );
        assert_eq!(alu_eval(99, 1, 1), None);
    }

    #[test]
    fn merged_distinct_parts_equal_the_distinct_whole() {
        // Repeats within and across parts, several ops, parts of every size (empty too).
        let ops: Vec<AluOp> = (0..500u64)
            .map(|i| AluOp {
                op: [ALU_SLL, ALU_SRL][(i % 3 == 0) as usize],
                a: (i * 7919) % 13,
                b: i % 5,
                c: 0,
            })
            .collect();
        let whole = distinct_ops(&ops);
        for cuts in [&[][..], &[0, 0, 250], &[1, 2, 3, 100, 499]] {
            let mut parts = Vec::new();
            let mut from = 0;
            for &to in cuts.iter().chain([&500]) {
                parts.push(distinct_ops(&ops[from..to]));
                from = to;
            }
            // In any order.
            parts.reverse();
            let refs: Vec<&[Distinct]> = parts.iter().map(|p| &p[..]).collect();
            assert_eq!(merge_distinct(&refs), whole, "cuts {cuts:?}");
        }
    }
}
