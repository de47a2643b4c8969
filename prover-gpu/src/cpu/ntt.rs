//! Radix-2 NTTs over row-major matrices (every column transformed at once, a butterfly
//! acting on whole rows) and the coset low-degree extension built from them.
//!
//! Conventions: traces are in natural order (row i ↔ ω_n^i); LDEs are in bit-reversed
//! order (row i ↔ g·ω_N^{bitrev(i)}, g = 7), so rows 2j and 2j+1 hold x and −x, and a
//! shorter table's row for query index q is q shifted right.

use kestrel_core::field::{bit_reverse, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use rayon::prelude::*;

/// Transforms at most this long run stage by stage; longer ones recurse (cache-friendly).
const ITERATIVE_MAX: usize = 1 << 11;

/// Twiddles for every stage of a size-`n` transform: `t[h + j] = ω_{2h}^j` for each power
/// of two `h < n`, `j < h`, so each stage reads its factors contiguously.
pub struct Twiddles {
    t: Vec<Felt>,
}

impl Twiddles {
    /// Tables for the transform of size `n` with root `root` (of order `n`).
    pub fn new(root: Felt, n: usize) -> Twiddles {
        let mut t = vec![Felt::ZERO; n.max(2)];
        let mut h = n / 2;
        let mut w = root; // ω_{2h}
        while h >= 1 {
            let mut cur = Felt::ONE;
            for x in &mut t[h..2 * h] {
                *x = cur;
                cur *= w;
            }
            w = w * w;
            h /= 2;
        }
        Twiddles { t }
    }
}

/// In-place decimation-in-frequency NTT of one column: natural-order input,
/// bit-reversed output. `tw` must have been built for a size ≥ `x.len()` with matching root
/// power (the size-`x.len()` sub-tables of a larger table are the right ones).
pub fn dif(x: &mut [Felt], tw: &Twiddles) {
    let n = x.len();
    if n <= 1 {
        return;
    }
    if n > ITERATIVE_MAX {
        let h = n / 2;
        let (lo, hi) = x.split_at_mut(h);
        let w = &tw.t[h..2 * h];
        for ((a, b), &t) in lo.iter_mut().zip(hi.iter_mut()).zip(w) {
            let s = *a + *b;
            *b = (*a - *b) * t;
            *a = s;
        }
        dif(lo, tw);
        dif(hi, tw);
        return;
    }
    let mut h = n / 2;
    while h >= 1 {
        let w = &tw.t[h..2 * h];
        for blk in x.chunks_exact_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            for ((a, b), &t) in lo.iter_mut().zip(hi.iter_mut()).zip(w) {
                let s = *a + *b;
                *b = (*a - *b) * t;
                *a = s;
            }
        }
        h /= 2;
    }
}

/// In-place decimation-in-time NTT of one column: bit-reversed input, natural-order output
/// (the inverse permutation of [`dif`]'s).
pub fn dit(x: &mut [Felt], tw: &Twiddles) {
    let n = x.len();
    if n <= 1 {
        return;
    }
    if n > ITERATIVE_MAX {
        let h = n / 2;
        let (lo, hi) = x.split_at_mut(h);
        dit(lo, tw);
        dit(hi, tw);
        let w = &tw.t[h..2 * h];
        for ((a, b), &t) in lo.iter_mut().zip(hi.iter_mut()).zip(w) {
            let bt = *b * t;
            *b = *a - bt;
            *a += bt;
        }
        return;
    }
    let mut h = 1;
    while h < n {
        let w = &tw.t[h..2 * h];
        for blk in x.chunks_exact_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            for ((a, b), &t) in lo.iter_mut().zip(hi.iter_mut()).zip(w) {
                let bt = *b * t;
                *b = *a - bt;
                *a += bt;
            }
        }
        h *= 2;
    }
}

/// Permutes a column into bit-reversed order.
pub fn bit_reverse_column<T>(x: &mut [T]) {
    let n = x.len();
    let bits = n.trailing_zeros();
    for i in 0..n {
        let j = bit_reverse(i, bits);
        if i < j {
            x.swap(i, j);
        }
    }
}

/// Permutes rows into bit-reversed order.
pub fn bit_reverse_rows(m: &mut RowMajorMatrix) {
    let n = m.height();
    let bits = n.trailing_zeros();
    let w = m.width;
    for i in 0..n {
        let j = bit_reverse(i, bits);
        if i < j {
            let (a, b) = m.values.split_at_mut(j * w);
            a[i * w..(i + 1) * w].swap_with_slice(&mut b[..w]);
        }
    }
}

/// Tile edge of the blocked transposes.
const TILE: usize = 16;

/// Writes the transpose of the `rows × cols` row-major `src` into `dst`, where row `c` of
/// the result starts at `c · dst_stride` (so columns can be padded in place). With
/// `bitrev`, output position `r` takes input row `bitrev(r)`.
fn transpose_into(
    src: &[Felt],
    rows: usize,
    cols: usize,
    dst: &mut [Felt],
    dst_stride: usize,
    bitrev: bool,
) {
    let bits = rows.trailing_zeros();
    // Parallel over bands of TILE output rows (= input columns); tiles keep both sides in cache.
    dst.par_chunks_mut(TILE * dst_stride)
        .enumerate()
        .for_each(|(band, out)| {
            let c0 = band * TILE;
            let c1 = (c0 + TILE).min(cols);
            for r0 in (0..rows).step_by(TILE) {
                let r1 = (r0 + TILE).min(rows);
                for c in c0..c1 {
                    let o = &mut out[(c - c0) * dst_stride..];
                    if bitrev {
                        for r in r0..r1 {
                            o[r] = src[bit_reverse(r, bits) * cols + c];
                        }
                    } else {
                        for r in r0..r1 {
                            o[r] = src[r * cols + c];
                        }
                    }
                }
            }
        });
}

/// Applies `f` to every column of `m`, each padded with zeros to `len` values, in parallel
/// over columns, and returns the `len`-row result.
fn map_columns(
    m: &RowMajorMatrix,
    len: usize,
    bitrev_input: bool,
    f: impl Fn(&mut [Felt]) + Sync + Send,
) -> RowMajorMatrix {
    let n = m.height();
    let w = m.width;
    if w == 0 {
        return RowMajorMatrix {
            values: Vec::new(),
            width: 0,
        };
    }
    let mut cols = vec![Felt::ZERO; w * len];
    transpose_into(&m.values, n, w, &mut cols, len, bitrev_input);
    cols.par_chunks_mut(len).for_each(f);
    let mut out = RowMajorMatrix {
        values: vec![Felt::ZERO; len * w],
        width: w,
    };
    transpose_into(&cols, w, len, &mut out.values, w, false);
    out
}

/// Coefficients (natural order) of the columns of a trace given on `H_n` in natural order.
pub fn interpolate(trace: &RowMajorMatrix) -> RowMajorMatrix {
    let n = trace.height();
    if n <= 1 {
        return trace.clone();
    }
    let tw = Twiddles::new(two_adic(n).inverse().expect("nonzero"), n);
    let n_inv = Felt::new(n as u64).inverse().expect("n < p");
    map_columns(trace, n, true, |col| {
        dit(col, &tw);
        for v in col.iter_mut() {
            *v *= n_inv;
        }
    })
}

/// Evaluations on the coset `shift·H_{n·2^log_blowup}`, bit-reversed, of the polynomials
/// whose coefficients are the columns of `coeffs`.
pub fn coset_lde_from_coeffs(
    coeffs: &RowMajorMatrix,
    log_blowup: u32,
    shift: Felt,
) -> RowMajorMatrix {
    let big = coeffs.height() << log_blowup;
    let tw = Twiddles::new(two_adic(big), big);
    let n = coeffs.height();
    map_columns(coeffs, big, false, |col| {
        let mut s = Felt::ONE;
        for v in col[..n].iter_mut() {
            *v *= s;
            s *= shift;
        }
        dif(col, &tw);
    })
}

/// The coset LDE `g·H_{N}` (bit-reversed) of a trace given on `H_n` (natural order).
pub fn coset_lde(trace: &RowMajorMatrix, log_blowup: u32) -> RowMajorMatrix {
    let n = trace.height();
    let big = n << log_blowup;
    if n <= 1 {
        return coset_lde_from_coeffs(trace, log_blowup, Felt::GENERATOR);
    }
    let itw = Twiddles::new(two_adic(n).inverse().expect("nonzero"), n);
    let tw = Twiddles::new(two_adic(big), big);
    let n_inv = Felt::new(n as u64).inverse().expect("n < p");
    map_columns(trace, big, true, |col| {
        let (data, _) = col.split_at_mut(n);
        dit(data, &itw);
        // Scale coefficient k by g^k / n in one pass.
        let mut s = n_inv;
        for v in data.iter_mut() {
            *v *= s;
            s *= Felt::GENERATOR;
        }
        dif(col, &tw);
    })
}

/// A primitive root of unity of order `n` (a power of two ≤ 2^32).
pub fn two_adic(n: usize) -> Felt {
    Felt::two_adic_generator(n.trailing_zeros()).expect("size within Goldilocks' two-adicity")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_eval(coeffs: &[Felt], x: Felt) -> Felt {
        coeffs.iter().rev().fold(Felt::ZERO, |acc, &c| acc * x + c)
    }

    fn matrix(n: usize, w: usize, seed: u64) -> RowMajorMatrix {
        let mut s = seed;
        let values = (0..n * w)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                Felt::new(s)
            })
            .collect();
        RowMajorMatrix::new(values, w)
    }

    #[test]
    fn interpolate_then_evaluate_roundtrips() {
        for log_n in [0u32, 1, 2, 5, 11] {
            let n = 1 << log_n;
            let t = matrix(n, 3, log_n as u64);
            let c = interpolate(&t);
            let w = two_adic(n);
            for i in 0..n {
                for col in 0..3 {
                    let coeffs: Vec<Felt> = (0..n).map(|k| c.row(k)[col]).collect();
                    assert_eq!(naive_eval(&coeffs, w.exp_u64(i as u64)), t.row(i)[col]);
                }
            }
        }
    }

    #[test]
    fn lde_matches_naive_evaluation() {
        for (log_n, log_b) in [(0u32, 1u32), (3, 1), (4, 2), (6, 3)] {
            let n = 1 << log_n;
            let t = matrix(n, 2, 7 + log_n as u64);
            let lde = coset_lde(&t, log_b);
            let c = interpolate(&t);
            let big = n << log_b;
            let w = two_adic(big);
            for i in 0..big {
                let x = Felt::GENERATOR * w.exp_u64(bit_reverse(i, big.trailing_zeros()) as u64);
                for col in 0..2 {
                    let coeffs: Vec<Felt> = (0..n).map(|k| c.row(k)[col]).collect();
                    assert_eq!(lde.row(i)[col], naive_eval(&coeffs, x), "n={n} i={i}");
                }
            }
        }
    }
}
