//! Radix-2 NTTs over row-major matrices (every column transformed at once, a butterfly
//! acting on whole rows) and the coset low-degree extension built from them.
//!
//! Conventions: traces are in natural order (row i ↔ ω_n^i); LDEs are in bit-reversed
//! order (row i ↔ g·ω_N^{bitrev(i)}, g = 7), so rows 2j and 2j+1 hold x and −x, and a
//! shorter table's row for query index q is q shifted right.

use kestrel_core::field::{bit_reverse, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use rayon::prelude::*;

/// Rows per parallel task in elementwise passes.
const PAR_ROWS: usize = 1 << 10;

/// `ω^0 … ω^{len−1}`.
fn twiddles(root: Felt, len: usize) -> Vec<Felt> {
    let mut t = Vec::with_capacity(len);
    let mut cur = Felt::ONE;
    for _ in 0..len {
        t.push(cur);
        cur *= root;
    }
    t
}

#[inline(always)]
fn butterfly_dif(a: &mut [Felt], b: &mut [Felt], w: Felt) {
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        let s = *x + *y;
        let d = (*x - *y) * w;
        *x = s;
        *y = d;
    }
}

/// In-place decimation-in-frequency NTT with root `root` of order `height`: natural-order
/// input, bit-reversed output.
pub fn dif_in_place(m: &mut RowMajorMatrix, root: Felt) {
    let n = m.height();
    let w = m.width;
    if n <= 1 || w == 0 {
        return;
    }
    let tw = twiddles(root, n / 2);
    let mut half = n / 2;
    while half >= 1 {
        let stride = n / (2 * half); // twiddle step: ω_{2·half}^j = ω_n^{j·stride}
        let block = 2 * half * w;
        let blocks = n / (2 * half);
        if blocks >= rayon::current_num_threads() * 4 || half * w < PAR_ROWS {
            m.values.par_chunks_mut(block).for_each(|blk| {
                let (lo, hi) = blk.split_at_mut(half * w);
                for j in 0..half {
                    butterfly_dif(
                        &mut lo[j * w..(j + 1) * w],
                        &mut hi[j * w..(j + 1) * w],
                        tw[j * stride],
                    );
                }
            });
        } else {
            for blk in m.values.chunks_mut(block) {
                let (lo, hi) = blk.split_at_mut(half * w);
                let rows = (PAR_ROWS / w).max(1);
                lo.par_chunks_mut(rows * w)
                    .zip(hi.par_chunks_mut(rows * w))
                    .enumerate()
                    .for_each(|(c, (l, h))| {
                        for (r, (a, b)) in l.chunks_mut(w).zip(h.chunks_mut(w)).enumerate() {
                            butterfly_dif(a, b, tw[(c * rows + r) * stride]);
                        }
                    });
            }
        }
        half /= 2;
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

/// Coefficients (natural order) of the columns of a trace given on `H_n` in natural order.
pub fn interpolate(trace: &RowMajorMatrix) -> RowMajorMatrix {
    let n = trace.height();
    let mut m = trace.clone();
    if n <= 1 {
        return m;
    }
    let root = two_adic(n);
    let inv_root = root.inverse().expect("root of unity is nonzero");
    dif_in_place(&mut m, inv_root);
    bit_reverse_rows(&mut m);
    let n_inv = Felt::new(n as u64).inverse().expect("n < p");
    m.values.par_iter_mut().for_each(|v| *v *= n_inv);
    m
}

/// Evaluations on the coset `shift·H_{n·2^log_blowup}`, bit-reversed, of the polynomials
/// whose coefficients are the columns of `coeffs`.
pub fn coset_lde_from_coeffs(
    coeffs: &RowMajorMatrix,
    log_blowup: u32,
    shift: Felt,
) -> RowMajorMatrix {
    let n = coeffs.height();
    let w = coeffs.width;
    let big = n << log_blowup;
    let mut out = RowMajorMatrix {
        values: vec![Felt::ZERO; big * w],
        width: w,
    };
    let rows = (PAR_ROWS / w.max(1)).max(1);
    out.values[..n * w]
        .par_chunks_mut(rows * w.max(1))
        .zip(coeffs.values.par_chunks(rows * w.max(1)))
        .enumerate()
        .for_each(|(c, (dst, src))| {
            let mut s = shift.exp_u64((c * rows) as u64);
            for (d, r) in dst.chunks_mut(w).zip(src.chunks(w)) {
                for (x, y) in d.iter_mut().zip(r) {
                    *x = *y * s;
                }
                s *= shift;
            }
        });
    dif_in_place(&mut out, two_adic(big));
    out
}

/// The coset LDE `g·H_{N}` (bit-reversed) of a trace given on `H_n` (natural order).
pub fn coset_lde(trace: &RowMajorMatrix, log_blowup: u32) -> RowMajorMatrix {
    coset_lde_from_coeffs(&interpolate(trace), log_blowup, Felt::GENERATOR)
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
