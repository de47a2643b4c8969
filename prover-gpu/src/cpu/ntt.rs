//! Radix-2 NTTs over row-major matrices (every column transformed at once, a butterfly
//! acting on whole rows) and the coset low-degree extension built from them.
//!
//! Conventions: traces are in natural order (row i ↔ ω_n^i); LDEs are in bit-reversed
//! order (row i ↔ g·ω_N^{bitrev(i)}, g = 7), so rows 2j and 2j+1 hold x and −x, and a
//! shorter table's row for query index q is q shifted right.

use kestrel_core::field::{bit_reverse, Felt, Field};
use kestrel_core::matrix::RowMajorMatrix;
use rayon::prelude::*;

use super::packed;

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

/// Elements an iterative block of rows may hold (its layers then run within L2).
const BLOCK_ELEMS: usize = 1 << 15;
/// A layer whose halves hold more elements than this is split into parallel chunks.
const PAR_ELEMS: usize = 1 << 15;

/// Rows per iterative block for rows of `w` values: the largest power of two that keeps
/// the block within [`BLOCK_ELEMS`], at least 1.
fn block_rows(w: usize) -> usize {
    let r = (BLOCK_ELEMS / w).max(1);
    1 << (usize::BITS - 1 - r.leading_zeros())
}

/// Runs one butterfly layer over the row pairs of `lo` and `hi`, in parallel chunks when big.
fn layer(
    lo: &mut [Felt],
    hi: &mut [Felt],
    tw: &[Felt],
    w: usize,
    f: fn(&mut [Felt], &mut [Felt], &[Felt], usize),
) {
    if lo.len() <= PAR_ELEMS {
        f(lo, hi, tw, w);
        return;
    }
    let rows = (PAR_ELEMS / w).max(1);
    lo.par_chunks_mut(rows * w)
        .zip(hi.par_chunks_mut(rows * w))
        .zip(tw.par_chunks(rows))
        .for_each(|((a, b), t)| f(a, b, t, w));
}

/// Runs a radix-4 step over the quarters of `x` (rows `j + m·q`), in parallel chunks when big.
fn quad_step(x: &mut [Felt], w: usize, tw: &Twiddles, f: fn(packed::Quad<'_>, usize)) {
    let q = x.len() / w / 4;
    let (x01, x23) = x.split_at_mut(2 * q * w);
    let (x0, x1) = x01.split_at_mut(q * w);
    let (x2, x3) = x23.split_at_mut(q * w);
    let (t2, t1a, t1b) = (&tw.t[q..2 * q], &tw.t[2 * q..3 * q], &tw.t[3 * q..4 * q]);
    let rows = (PAR_ELEMS / w).max(1);
    x0.par_chunks_mut(rows * w)
        .zip(x1.par_chunks_mut(rows * w))
        .zip(x2.par_chunks_mut(rows * w))
        .zip(x3.par_chunks_mut(rows * w))
        .zip(t1a.par_chunks(rows))
        .zip(t1b.par_chunks(rows))
        .zip(t2.par_chunks(rows))
        .for_each(|((((((x0, x1), x2), x3), t1a), t1b), t2)| {
            let x = [x0, x1, x2, x3];
            f(packed::Quad { x, t1a, t1b, t2 }, w)
        });
}

/// In-place DIF of the rows of a row-major matrix (`w` values a row, a power-of-two row
/// count): natural-order rows in, bit-reversed rows out, every column at once.
/// Cache-oblivious: radix-4 steps (one pass for two layers) over the whole, then the
/// quarters recurse in parallel, until a block fits [`BLOCK_ELEMS`]; a radix-2 layer where
/// only one layer is left above the block size.
fn dif_rows(x: &mut [Felt], w: usize, tw: &Twiddles) {
    let rows = x.len() / w;
    let b = block_rows(w);
    if rows <= b {
        packed::dif_block(x, w, &tw.t);
        return;
    }
    if rows == 2 * b {
        let h = rows / 2;
        let (lo, hi) = x.split_at_mut(h * w);
        layer(lo, hi, &tw.t[h..2 * h], w, packed::dif_layer);
        rayon::join(|| dif_rows(lo, w, tw), || dif_rows(hi, w, tw));
        return;
    }
    quad_step(x, w, tw, packed::dif4);
    dif_quarters(x, w, tw);
}

/// [`dif_rows`] of each quarter of `x`, in parallel.
fn dif_quarters(x: &mut [Felt], w: usize, tw: &Twiddles) {
    let rows = x.len() / w;
    let (x01, x23) = x.split_at_mut(rows / 2 * w);
    let (x0, x1) = x01.split_at_mut(rows / 4 * w);
    let (x2, x3) = x23.split_at_mut(rows / 4 * w);
    rayon::join(
        || rayon::join(|| dif_rows(x0, w, tw), || dif_rows(x1, w, tw)),
        || rayon::join(|| dif_rows(x2, w, tw), || dif_rows(x3, w, tw)),
    );
}

/// [`dif_rows`] into `x` of the rows of `src` scaled by `s` (row `j` times `s[j]`), the
/// scaling fused into the first radix-4 step where there is one (one pass fewer).
fn dif_rows_scaled(x: &mut [Felt], src: &[Felt], s: &[Felt], w: usize, tw: &Twiddles) {
    let rows = x.len() / w;
    if rows <= 2 * block_rows(w) {
        packed::scale_rows_into(x, src, s, w);
        dif_rows(x, w, tw);
        return;
    }
    let q = rows / 4;
    let (x01, x23) = x.split_at_mut(2 * q * w);
    let (x0, x1) = x01.split_at_mut(q * w);
    let (x2, x3) = x23.split_at_mut(q * w);
    let (t2, t1a, t1b) = (&tw.t[q..2 * q], &tw.t[2 * q..3 * q], &tw.t[3 * q..4 * q]);
    let chunk = (PAR_ELEMS / w).max(1);
    fn quarter(v: &[Felt], m: usize, size: usize) -> &[Felt] {
        &v[m * size..(m + 1) * size]
    }
    let srcs = quarter(src, 0, q * w)
        .par_chunks(chunk * w)
        .zip(quarter(src, 1, q * w).par_chunks(chunk * w))
        .zip(quarter(src, 2, q * w).par_chunks(chunk * w))
        .zip(quarter(src, 3, q * w).par_chunks(chunk * w));
    let scales = quarter(s, 0, q)
        .par_chunks(chunk)
        .zip(quarter(s, 1, q).par_chunks(chunk))
        .zip(quarter(s, 2, q).par_chunks(chunk))
        .zip(quarter(s, 3, q).par_chunks(chunk));
    x0.par_chunks_mut(chunk * w)
        .zip(x1.par_chunks_mut(chunk * w))
        .zip(x2.par_chunks_mut(chunk * w))
        .zip(x3.par_chunks_mut(chunk * w))
        .zip(t1a.par_chunks(chunk))
        .zip(t1b.par_chunks(chunk))
        .zip(t2.par_chunks(chunk))
        .zip(srcs)
        .zip(scales)
        .for_each(
            |(
                (((((((x0, x1), x2), x3), t1a), t1b), t2), (((u0, u1), u2), u3)),
                (((s0, s1), s2), s3),
            )| {
                let quad = packed::Quad {
                    x: [x0, x1, x2, x3],
                    t1a,
                    t1b,
                    t2,
                };
                packed::dif4_scaled([u0, u1, u2, u3], [s0, s1, s2, s3], quad, w)
            },
        );
    dif_quarters(x, w, tw);
}

/// A DIT of the rows of a row-major matrix, bit-reversed rows in, natural order out (the
/// inverse permutation of [`dif_rows`]', its steps in reverse order), into `x`: row `r` of
/// the whole transform's input is row `bitrev_bits(r)` of `src`, and `first` is the index of
/// `x`'s first row in the whole. Each leaf block gathers its input rows just before it
/// transforms them (no separate permutation pass).
fn dit_rows(x: &mut [Felt], w: usize, tw: &Twiddles, src: &[Felt], bits: u32, first: usize) {
    let rows = x.len() / w;
    let b = block_rows(w);
    if rows <= b {
        for (k, row) in x.chunks_exact_mut(w).enumerate() {
            let r = bit_reverse(first + k, bits);
            row.copy_from_slice(&src[r * w..(r + 1) * w]);
        }
        packed::dit_block(x, w, &tw.t);
        return;
    }
    if rows == 2 * b {
        let h = rows / 2;
        let (lo, hi) = x.split_at_mut(h * w);
        rayon::join(
            || dit_rows(lo, w, tw, src, bits, first),
            || dit_rows(hi, w, tw, src, bits, first + h),
        );
        layer(lo, hi, &tw.t[h..2 * h], w, packed::dit_layer);
        return;
    }
    {
        let q = rows / 4;
        let (x01, x23) = x.split_at_mut(2 * q * w);
        let (x0, x1) = x01.split_at_mut(q * w);
        let (x2, x3) = x23.split_at_mut(q * w);
        rayon::join(
            || {
                rayon::join(
                    || dit_rows(x0, w, tw, src, bits, first),
                    || dit_rows(x1, w, tw, src, bits, first + q),
                )
            },
            || {
                rayon::join(
                    || dit_rows(x2, w, tw, src, bits, first + 2 * q),
                    || dit_rows(x3, w, tw, src, bits, first + 3 * q),
                )
            },
        );
    }
    quad_step(x, w, tw, packed::dit4);
}

/// The natural-order coefficients, unscaled (`n ·` the true ones), of the trace `src`
/// (`n` rows of `w`, natural order on `H_n`): a DIT with ω_n^{-1} of its bit-reversed rows.
fn unscaled_coeffs(src: &[Felt], n: usize, w: usize) -> Vec<Felt> {
    let itw = Twiddles::new(two_adic(n).inverse().expect("nonzero"), n);
    let mut x = vec![Felt::ZERO; n * w];
    dit_rows(&mut x, w, &itw, src, n.trailing_zeros(), 0);
    x
}

/// Rows handled by one task of the parallel row-wise passes.
const PAR_ROWS_ELEMS: usize = 1 << 14;

/// `start · base^k` for `k < n`.
fn powers(base: Felt, start: Felt, n: usize) -> Vec<Felt> {
    const CHUNK: usize = 1 << 12;
    let mut out = vec![Felt::ZERO; n];
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(i, c)| {
        let mut s = start * base.exp_u64((i * CHUNK) as u64);
        for v in c {
            *v = s;
            s *= base;
        }
    });
    out
}

/// Coefficients (natural order, `n` rows of `w`) → evaluations of `scale · p(X)` on the coset
/// `shift·H_{n·2^log_blowup}`, bit-reversed.
///
/// Row `c·n + j` of the bit-reversed LDE is the point `shift·ω_N^{bitrev_L(c·n + j)}`, and
/// `bitrev_L(c·n + j) = bitrev_l(j)·2^b + bitrev_b(c)` (L = l + b, n = 2^l, N = 2^L), so that
/// point is `s_c·ω_n^{bitrev_l(j)}` with `s_c = shift·ω_N^{bitrev_b(c)}`: block `c` of the LDE
/// is the size-`n` bit-reversed DIF of the coefficients scaled by `scale·s_c^k`.
fn lde_rows(
    coeffs: &[Felt],
    n: usize,
    w: usize,
    log_blowup: u32,
    shift: Felt,
    scale: Felt,
) -> RowMajorMatrix {
    let big = n << log_blowup;
    let tw = Twiddles::new(two_adic(n), n);
    let root_big = two_adic(big);
    let mut values = vec![Felt::ZERO; big * w];
    values
        .par_chunks_mut(n * w)
        .enumerate()
        .for_each(|(c, block)| {
            let s_c = shift * root_big.exp_u64(bit_reverse(c, log_blowup) as u64);
            let pows = powers(s_c, scale, n);
            dif_rows_scaled(block, coeffs, &pows, w, &tw);
        });
    RowMajorMatrix { values, width: w }
}

/// Coefficients (natural order) of the columns of a trace given on `H_n` in natural order.
pub fn interpolate(trace: &RowMajorMatrix) -> RowMajorMatrix {
    let n = trace.height();
    let w = trace.width;
    if n <= 1 || w == 0 {
        return trace.clone();
    }
    let n_inv = Felt::new(n as u64).inverse().expect("n < p");
    let mut values = unscaled_coeffs(&trace.values, n, w);
    values
        .par_chunks_mut(PAR_ROWS_ELEMS)
        .for_each(|c| packed::scale(c, n_inv));
    RowMajorMatrix { values, width: w }
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
    if n == 0 || w == 0 {
        return RowMajorMatrix {
            values: Vec::new(),
            width: w,
        };
    }
    lde_rows(&coeffs.values, n, w, log_blowup, shift, Felt::ONE)
}

/// The coset LDE `g·H_{N}` (bit-reversed) of a trace given on `H_n` (natural order).
pub fn coset_lde(trace: &RowMajorMatrix, log_blowup: u32) -> RowMajorMatrix {
    let n = trace.height();
    let w = trace.width;
    if n <= 1 || w == 0 {
        return coset_lde_from_coeffs(trace, log_blowup, Felt::GENERATOR);
    }
    let n_inv = Felt::new(n as u64).inverse().expect("n < p");
    let coeffs = unscaled_coeffs(&trace.values, n, w);
    // Coefficient k is scaled by g^k / n (block 0; other blocks by ω_N^{bitrev(c)·k} more).
    lde_rows(&coeffs, n, w, log_blowup, Felt::GENERATOR, n_inv)
}

/// A primitive root of unity of order `n` (a power of two ≤ 2^32).
pub fn two_adic(n: usize) -> Felt {
    Felt::two_adic_generator(n.trailing_zeros()).expect("size within Goldilocks' two-adicity")
}

#[cfg(test)]
mod tests {
    use super::*;
    use kestrel_core::field::P;

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

    /// The previous implementation (column-major, per-column scalar radix-2 on the
    /// zero-padded column), kept as the oracle the row-wise packed one must match bit for bit.
    mod old {
        use super::super::*;

        fn transpose_into(
            src: &[Felt],
            rows: usize,
            cols: usize,
            dst: &mut [Felt],
            dst_stride: usize,
            bitrev: bool,
        ) {
            let bits = rows.trailing_zeros();
            for c in 0..cols {
                for r in 0..rows {
                    let s = if bitrev { bit_reverse(r, bits) } else { r };
                    dst[c * dst_stride + r] = src[s * cols + c];
                }
            }
        }

        fn map_columns(
            m: &RowMajorMatrix,
            len: usize,
            bitrev_input: bool,
            f: impl Fn(&mut [Felt]) + Sync + Send,
        ) -> RowMajorMatrix {
            let n = m.height();
            let w = m.width;
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
                let mut s = n_inv;
                for v in data.iter_mut() {
                    *v *= s;
                    s *= Felt::GENERATOR;
                }
                dif(col, &tw);
            })
        }
    }

    /// Random values with the edge values 0, 1, p − 1, 2^32, 2^63 mixed in.
    fn edgy_matrix(n: usize, w: usize, seed: u64) -> RowMajorMatrix {
        const EDGES: [u64; 6] = [0, 1, P - 1, 1 << 32, 1 << 63, (1 << 32) - 1];
        let mut m = matrix(n, w, seed);
        let mut s = seed ^ 0x9E37_79B9_7F4A_7C15;
        for v in m.values.iter_mut() {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (s >> 59) < 8 {
                *v = Felt::new(EDGES[(s >> 32) as usize % EDGES.len()]);
            }
        }
        m
    }

    #[test]
    fn matches_previous_implementation() {
        for log_n in 0..=14u32 {
            let n = 1usize << log_n;
            let widths: &[usize] = match log_n {
                0..=6 => &[1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 31, 32, 33, 40],
                7..=11 => &[1, 3, 4, 8, 17, 32, 40],
                _ => &[1, 4, 9, 32],
            };
            for &w in widths {
                let t = edgy_matrix(n, w, (log_n as u64) << 8 | w as u64);
                assert_eq!(
                    interpolate(&t),
                    old::interpolate(&t),
                    "interpolate n={n} w={w}"
                );
                let max_b = if log_n <= 10 { 3 } else { 1 };
                for log_b in 0..=max_b {
                    assert_eq!(
                        coset_lde(&t, log_b),
                        old::coset_lde(&t, log_b),
                        "coset_lde n={n} w={w} b={log_b}"
                    );
                    let shift = Felt::new(0x1234_5678_9ABC_DEF0 ^ w as u64);
                    assert_eq!(
                        coset_lde_from_coeffs(&t, log_b, shift),
                        old::coset_lde_from_coeffs(&t, log_b, shift),
                        "from_coeffs n={n} w={w} b={log_b}"
                    );
                }
            }
        }
    }

    #[test]
    fn large_lde_matches_previous_implementation() {
        // Past the iterative block size and the parallel-layer threshold for every width.
        for (log_n, w) in [(16u32, 1usize), (18, 1), (15, 32), (14, 6), (13, 40)] {
            let t = edgy_matrix(1 << log_n, w, 99 + log_n as u64);
            assert_eq!(coset_lde(&t, 1), old::coset_lde(&t, 1), "n=2^{log_n} w={w}");
        }
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
