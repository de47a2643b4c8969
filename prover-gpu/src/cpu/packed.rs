//! Packed Goldilocks arithmetic for the CPU NTT: butterflies and scalings that act on whole
//! rows of a row-major matrix (one twiddle per row pair, the same for every column), four
//! columns at a time.
//!
//! Two implementations of the same four-lane operations sit behind one dispatch, decided once
//! per process: AVX2 on `x86_64` CPUs that have it (`is_x86_feature_detected!`), and plain
//! [`Felt`] arithmetic everywhere else. Both return canonical values, so every result is
//! bit-identical to the scalar field operations. Columns left over past a multiple of
//! [`LANES`] always take the scalar path.
//!
//! Layout of the arguments: a "row" is `w` consecutive values; `lo`, `hi` and `x` hold whole
//! rows; a twiddle table `tw` is [`super::ntt::Twiddles`]' (`tw[h + j] = ω_{2h}^j`).

use kestrel_core::field::Felt;
use std::sync::OnceLock;

/// Columns per packed vector.
pub const LANES: usize = 4;

/// Four field elements and the operations the NTT needs; inputs and outputs canonical.
trait Packed: Copy {
    fn load(x: &[Felt; LANES]) -> Self;
    fn store(self, x: &mut [Felt; LANES]);
    fn splat(x: Felt) -> Self;
    fn add(self, rhs: Self) -> Self;
    fn sub(self, rhs: Self) -> Self;
    fn mul(self, rhs: Self) -> Self;
}

/// The portable implementation: four scalar field elements.
#[derive(Clone, Copy)]
struct Scalar([Felt; LANES]);

impl Packed for Scalar {
    #[inline(always)]
    fn load(x: &[Felt; LANES]) -> Self {
        Scalar(*x)
    }
    #[inline(always)]
    fn store(self, x: &mut [Felt; LANES]) {
        *x = self.0;
    }
    #[inline(always)]
    fn splat(x: Felt) -> Self {
        Scalar([x; LANES])
    }
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Scalar(core::array::from_fn(|i| self.0[i] + rhs.0[i]))
    }
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        Scalar(core::array::from_fn(|i| self.0[i] - rhs.0[i]))
    }
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        Scalar(core::array::from_fn(|i| self.0[i] * rhs.0[i]))
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! AVX2 Goldilocks: 64-bit products from four `_mm256_mul_epu32` 32×32→64 partial
    //! products, reduced with 2^64 ≡ 2^32 − 1 and 2^96 ≡ −1 (mod p); unsigned comparisons
    //! as signed ones after flipping the sign bit.
    //!
    //! Soundness: an [`Avx2`] value exists, and its methods run, only inside the
    //! `#[target_feature(enable = "avx2")]` entry points at the bottom of this module, and
    //! those are called only once [`super::isa`] has detected AVX2 on this CPU.

    use super::{Felt, Packed, LANES};
    use core::arch::x86_64::*;

    #[derive(Clone, Copy)]
    pub(super) struct Avx2(__m256i);

    const P: u64 = kestrel_core::field::P;
    const EPSILON: i64 = 0xFFFF_FFFF;
    const SIGN: i64 = i64::MIN;

    /// `x` with its sign bit flipped: unsigned order becomes signed order.
    #[inline(always)]
    fn flip(x: __m256i) -> __m256i {
        // SAFETY: AVX2 is available (module docs).
        unsafe { _mm256_xor_si256(x, _mm256_set1_epi64x(SIGN)) }
    }

    /// All-ones lanes where `a < b` (unsigned), zero elsewhere.
    #[inline(always)]
    fn lt(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 is available (module docs).
        unsafe { _mm256_cmpgt_epi64(flip(b), flip(a)) }
    }

    /// `x + ε` on the lanes where `mask` is all ones (ε = 2^32 − 1 = the all-ones mask >> 32).
    #[inline(always)]
    fn add_eps(x: __m256i, mask: __m256i) -> __m256i {
        // SAFETY: AVX2 is available (module docs).
        unsafe { _mm256_add_epi64(x, _mm256_srli_epi64::<32>(mask)) }
    }

    /// The high 32 bits of each lane moved to the low half (the high half is don't-care).
    #[inline(always)]
    fn hi32(x: __m256i) -> __m256i {
        // SAFETY: AVX2 is available (module docs); a bit-cast and a shuffle, no memory access.
        unsafe { _mm256_castps_si256(_mm256_movehdup_ps(_mm256_castsi256_ps(x))) }
    }

    impl Packed for Avx2 {
        #[inline(always)]
        fn load(x: &[Felt; LANES]) -> Self {
            // SAFETY: `x` is 32 readable bytes (`Felt` is a `repr(transparent)` u64) and
            // `loadu` needs no alignment; AVX2 is available (module docs).
            Avx2(unsafe { _mm256_loadu_si256(x.as_ptr().cast()) })
        }

        #[inline(always)]
        fn store(self, x: &mut [Felt; LANES]) {
            // SAFETY: `x` is 32 writable bytes; every lane is canonical (all operations
            // below return canonical values), so the `Felt` invariant holds; AVX2 is
            // available (module docs).
            unsafe { _mm256_storeu_si256(x.as_mut_ptr().cast(), self.0) }
        }

        #[inline(always)]
        fn splat(x: Felt) -> Self {
            // SAFETY: AVX2 is available (module docs).
            Avx2(unsafe { _mm256_set1_epi64x(x.as_u64() as i64) })
        }

        #[inline(always)]
        fn add(self, rhs: Self) -> Self {
            // s = a + b mod 2^64. A carry means a + b = s + 2^64 ≡ s + ε, and then
            // s + ε = a + b − p < p. Without a carry, s ≥ p needs s − p ≡ s + ε (mod 2^64).
            // SAFETY: AVX2 is available (module docs).
            unsafe {
                let s = _mm256_add_epi64(self.0, rhs.0);
                let carry = lt(s, self.0);
                let ge_p = _mm256_cmpgt_epi64(flip(s), _mm256_set1_epi64x((P - 1) as i64 ^ SIGN));
                Avx2(add_eps(s, _mm256_or_si256(carry, ge_p)))
            }
        }

        #[inline(always)]
        fn sub(self, rhs: Self) -> Self {
            // d = a − b mod 2^64. A borrow means the value is d − 2^64, and d − 2^64 + p =
            // d − ε, which lies in [0, p).
            // SAFETY: AVX2 is available (module docs).
            unsafe {
                let d = _mm256_sub_epi64(self.0, rhs.0);
                let borrow = lt(self.0, rhs.0);
                Avx2(_mm256_sub_epi64(d, _mm256_srli_epi64::<32>(borrow)))
            }
        }

        #[inline(always)]
        fn mul(self, rhs: Self) -> Self {
            // SAFETY: AVX2 is available (module docs).
            unsafe {
                let (a, b) = (self.0, rhs.0);
                let eps = _mm256_set1_epi64x(EPSILON);
                let (a_hi, b_hi) = (hi32(a), hi32(b));
                // The 128-bit product (hi, lo) from 32-bit halves; no sum below overflows:
                // (2^32 − 1)^2 + 2 (2^32 − 1) = 2^64 − 1.
                let ll = _mm256_mul_epu32(a, b);
                let lh = _mm256_mul_epu32(a, b_hi);
                let hl = _mm256_mul_epu32(a_hi, b);
                let hh = _mm256_mul_epu32(a_hi, b_hi);
                let t0 = _mm256_add_epi64(hl, _mm256_srli_epi64::<32>(ll));
                let t1 = _mm256_add_epi64(lh, _mm256_and_si256(t0, eps));
                let t2 = _mm256_add_epi64(hh, _mm256_srli_epi64::<32>(t0));
                let hi = _mm256_add_epi64(t2, _mm256_srli_epi64::<32>(t1));
                let lo = _mm256_blend_epi32::<0b1010_1010>(ll, _mm256_slli_epi64::<32>(t1));
                // Reduce as `Felt::reduce128`, on sign-flipped values (`_s`, so that signed
                // comparisons order them as unsigned): lo − hi_hi (2^96 ≡ −1); a borrow
                // wraps by 2^64 ≡ ε, fixed by subtracting ε (no second borrow: hi_hi < 2^32).
                let hi_hi = _mm256_srli_epi64::<32>(hi);
                let lo_s = flip(lo);
                let r0_s = _mm256_sub_epi64(lo_s, hi_hi);
                let borrow = _mm256_cmpgt_epi64(r0_s, lo_s);
                let r0_s = _mm256_sub_epi64(r0_s, _mm256_srli_epi64::<32>(borrow));
                // + hi_lo · ε (2^64 ≡ ε); a carry adds ε, which cannot carry again.
                let r1 = _mm256_mul_epu32(hi, eps);
                let r_s = _mm256_add_epi64(r0_s, r1);
                let carry = _mm256_cmpgt_epi64(r0_s, r_s);
                let r_s = add_eps(r_s, carry);
                // Canonical: r ≥ p becomes r − p ≡ r + ε (mod 2^64).
                let ge_p = _mm256_cmpgt_epi64(r_s, _mm256_set1_epi64x((P - 1) as i64 ^ SIGN));
                Avx2(add_eps(flip(r_s), ge_p))
            }
        }
    }

    /// [`super::dif_layer_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dif_layer(lo: &mut [Felt], hi: &mut [Felt], tw: &[Felt], w: usize) {
        super::dif_layer_g::<Avx2>(lo, hi, tw, w)
    }

    /// [`super::dit_layer_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dit_layer(lo: &mut [Felt], hi: &mut [Felt], tw: &[Felt], w: usize) {
        super::dit_layer_g::<Avx2>(lo, hi, tw, w)
    }

    /// [`super::dif_block_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dif_block(x: &mut [Felt], w: usize, tw: &[Felt]) {
        super::dif_block_g::<Avx2>(x, w, tw)
    }

    /// [`super::dit_block_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dit_block(x: &mut [Felt], w: usize, tw: &[Felt]) {
        super::dit_block_g::<Avx2>(x, w, tw)
    }

    /// [`super::dif4_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dif4(q: super::Quad<'_>, w: usize) {
        super::dif4_g::<Avx2>(q, w)
    }

    /// [`super::dit4_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dit4(q: super::Quad<'_>, w: usize) {
        super::dit4_g::<Avx2>(q, w)
    }

    /// [`super::dif4_scaled_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dif4_scaled(
        src: [&[Felt]; 4],
        s: [&[Felt]; 4],
        q: super::Quad<'_>,
        w: usize,
    ) {
        super::dif4_scaled_g::<Avx2>(src, s, q, w)
    }

    /// [`super::scale_rows_into_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scale_rows_into(dst: &mut [Felt], src: &[Felt], s: &[Felt], w: usize) {
        super::scale_rows_into_g::<Avx2>(dst, src, s, w)
    }

    /// [`super::scale_g`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scale(x: &mut [Felt], c: Felt) {
        super::scale_g::<Avx2>(x, c)
    }
}

/// The instruction set the packed operations use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

/// Detected once per process.
fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Isa::Avx2;
        }
        Isa::Scalar
    })
}

/// `(a, b) ← (a + b, (a − b)·t)` on every column of one row pair.
#[inline(always)]
fn dif_row<V: Packed>(a: &mut [Felt], b: &mut [Felt], t: Felt) {
    let tv = V::splat(t);
    let mut ca = a.chunks_exact_mut(LANES);
    let mut cb = b.chunks_exact_mut(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        let x: &mut [Felt; LANES] = x.try_into().expect("exact chunk");
        let y: &mut [Felt; LANES] = y.try_into().expect("exact chunk");
        let (u, v) = (V::load(x), V::load(y));
        u.add(v).store(x);
        u.sub(v).mul(tv).store(y);
    }
    for (x, y) in ca.into_remainder().iter_mut().zip(cb.into_remainder()) {
        let (u, v) = (*x, *y);
        *x = u + v;
        *y = (u - v) * t;
    }
}

/// `(a, b) ← (a + b·t, a − b·t)` on every column of one row pair.
#[inline(always)]
fn dit_row<V: Packed>(a: &mut [Felt], b: &mut [Felt], t: Felt) {
    let tv = V::splat(t);
    let mut ca = a.chunks_exact_mut(LANES);
    let mut cb = b.chunks_exact_mut(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        let x: &mut [Felt; LANES] = x.try_into().expect("exact chunk");
        let y: &mut [Felt; LANES] = y.try_into().expect("exact chunk");
        let u = V::load(x);
        let v = V::load(y).mul(tv);
        u.add(v).store(x);
        u.sub(v).store(y);
    }
    for (x, y) in ca.into_remainder().iter_mut().zip(cb.into_remainder()) {
        let (u, v) = (*x, *y * t);
        *x = u + v;
        *y = u - v;
    }
}

#[inline(always)]
fn dif_layer_g<V: Packed>(lo: &mut [Felt], hi: &mut [Felt], tw: &[Felt], w: usize) {
    for ((a, b), &t) in lo.chunks_exact_mut(w).zip(hi.chunks_exact_mut(w)).zip(tw) {
        dif_row::<V>(a, b, t);
    }
}

#[inline(always)]
fn dit_layer_g<V: Packed>(lo: &mut [Felt], hi: &mut [Felt], tw: &[Felt], w: usize) {
    for ((a, b), &t) in lo.chunks_exact_mut(w).zip(hi.chunks_exact_mut(w)).zip(tw) {
        dit_row::<V>(a, b, t);
    }
}

#[inline(always)]
fn dif_block_g<V: Packed>(x: &mut [Felt], w: usize, tw: &[Felt]) {
    let mut h = x.len() / w / 2;
    while h >= 1 {
        for blk in x.chunks_exact_mut(2 * h * w) {
            let (lo, hi) = blk.split_at_mut(h * w);
            dif_layer_g::<V>(lo, hi, &tw[h..2 * h], w);
        }
        h /= 2;
    }
}

#[inline(always)]
fn dit_block_g<V: Packed>(x: &mut [Felt], w: usize, tw: &[Felt]) {
    let rows = x.len() / w;
    let mut h = 1;
    while h < rows {
        for blk in x.chunks_exact_mut(2 * h * w) {
            let (lo, hi) = blk.split_at_mut(h * w);
            dit_layer_g::<V>(lo, hi, &tw[h..2 * h], w);
        }
        h *= 2;
    }
}

/// The four quarters of a radix-4 step and its twiddles, for the rows of one chunk:
/// `x[m]` holds rows `j + m·q`, `t1a[j] = tw[2q + j]`, `t1b[j] = tw[3q + j]`, `t2[j] = tw[q + j]`.
pub struct Quad<'a> {
    pub x: [&'a mut [Felt]; 4],
    pub t1a: &'a [Felt],
    pub t1b: &'a [Felt],
    pub t2: &'a [Felt],
}

/// Loads, runs `f` on, and stores the four rows `j` of the quarters, vector by vector.
#[inline(always)]
fn quad_rows<V: Packed>(
    q: Quad<'_>,
    w: usize,
    f: impl Fn([V; 4], [V; 3]) -> [V; 4],
    g: impl Fn([Felt; 4], [Felt; 3]) -> [Felt; 4],
) {
    let [x0, x1, x2, x3] = q.x;
    let rows = x0
        .chunks_exact_mut(w)
        .zip(x1.chunks_exact_mut(w))
        .zip(x2.chunks_exact_mut(w))
        .zip(x3.chunks_exact_mut(w));
    let tws = q.t1a.iter().zip(q.t1b).zip(q.t2);
    for ((((r0, r1), r2), r3), ((&ta, &tb), &tc)) in rows.zip(tws) {
        let tv = [V::splat(ta), V::splat(tb), V::splat(tc)];
        let mut c0 = r0.chunks_exact_mut(LANES);
        let mut c1 = r1.chunks_exact_mut(LANES);
        let mut c2 = r2.chunks_exact_mut(LANES);
        let mut c3 = r3.chunks_exact_mut(LANES);
        for (((a, b), c), d) in (&mut c0).zip(&mut c1).zip(&mut c2).zip(&mut c3) {
            let a: &mut [Felt; LANES] = a.try_into().expect("exact chunk");
            let b: &mut [Felt; LANES] = b.try_into().expect("exact chunk");
            let c: &mut [Felt; LANES] = c.try_into().expect("exact chunk");
            let d: &mut [Felt; LANES] = d.try_into().expect("exact chunk");
            let [y0, y1, y2, y3] = f([V::load(a), V::load(b), V::load(c), V::load(d)], tv);
            y0.store(a);
            y1.store(b);
            y2.store(c);
            y3.store(d);
        }
        let rem = c0
            .into_remainder()
            .iter_mut()
            .zip(c1.into_remainder())
            .zip(c2.into_remainder())
            .zip(c3.into_remainder());
        for (((a, b), c), d) in rem {
            [*a, *b, *c, *d] = g([*a, *b, *c, *d], [ta, tb, tc]);
        }
    }
}

/// Two DIF layers at once (halves 2q, then q) on the rows `j + m·q`, `m < 4`.
#[inline(always)]
fn dif4_g<V: Packed>(q: Quad<'_>, w: usize) {
    quad_rows::<V>(
        q,
        w,
        |[a, b, c, d], [ta, tb, tc]| {
            let (a1, c1) = (a.add(c), a.sub(c).mul(ta));
            let (b1, d1) = (b.add(d), b.sub(d).mul(tb));
            [
                a1.add(b1),
                a1.sub(b1).mul(tc),
                c1.add(d1),
                c1.sub(d1).mul(tc),
            ]
        },
        |[a, b, c, d], [ta, tb, tc]| {
            let (a1, c1) = (a + c, (a - c) * ta);
            let (b1, d1) = (b + d, (b - d) * tb);
            [a1 + b1, (a1 - b1) * tc, c1 + d1, (c1 - d1) * tc]
        },
    )
}

/// Two DIT layers at once (halves q, then 2q) on the rows `j + m·q`, `m < 4`.
#[inline(always)]
fn dit4_g<V: Packed>(q: Quad<'_>, w: usize) {
    quad_rows::<V>(
        q,
        w,
        |[a, b, c, d], [ta, tb, tc]| {
            let (b1, d1) = (b.mul(tc), d.mul(tc));
            let (a1, b1, c1, d1) = (a.add(b1), a.sub(b1), c.add(d1), c.sub(d1));
            let (c2, d2) = (c1.mul(ta), d1.mul(tb));
            [a1.add(c2), b1.add(d2), a1.sub(c2), b1.sub(d2)]
        },
        |[a, b, c, d], [ta, tb, tc]| {
            let (b1, d1) = (b * tc, d * tc);
            let (a1, b1, c1, d1) = (a + b1, a - b1, c + d1, c - d1);
            let (c2, d2) = (c1 * ta, d1 * tb);
            [a1 + c2, b1 + d2, a1 - c2, b1 - d2]
        },
    )
}

/// [`dif4_g`] on `src` rows scaled first: `q.x[m]` row `j` ← the DIF-4 of
/// `src[m]` row `j` · `s[m][j]` (`m < 4`).
#[inline(always)]
fn dif4_scaled_g<V: Packed>(src: [&[Felt]; 4], s: [&[Felt]; 4], q: Quad<'_>, w: usize) {
    let [x0, x1, x2, x3] = q.x;
    let dst = x0
        .chunks_exact_mut(w)
        .zip(x1.chunks_exact_mut(w))
        .zip(x2.chunks_exact_mut(w))
        .zip(x3.chunks_exact_mut(w));
    let srcs = src[0]
        .chunks_exact(w)
        .zip(src[1].chunks_exact(w))
        .zip(src[2].chunks_exact(w))
        .zip(src[3].chunks_exact(w));
    let scales = s[0].iter().zip(s[1]).zip(s[2]).zip(s[3]);
    let tws = q.t1a.iter().zip(q.t1b).zip(q.t2);
    for (
        (((((r0, r1), r2), r3), (((u0, u1), u2), u3)), (((&s0, &s1), &s2), &s3)),
        ((&ta, &tb), &tc),
    ) in dst.zip(srcs).zip(scales).zip(tws)
    {
        let sv = [V::splat(s0), V::splat(s1), V::splat(s2), V::splat(s3)];
        let (tav, tbv, tcv) = (V::splat(ta), V::splat(tb), V::splat(tc));
        let mut c0 = r0.chunks_exact_mut(LANES);
        let mut c1 = r1.chunks_exact_mut(LANES);
        let mut c2 = r2.chunks_exact_mut(LANES);
        let mut c3 = r3.chunks_exact_mut(LANES);
        let mut i0 = u0.chunks_exact(LANES);
        let mut i1 = u1.chunks_exact(LANES);
        let mut i2 = u2.chunks_exact(LANES);
        let mut i3 = u3.chunks_exact(LANES);
        let outs = (&mut c0).zip(&mut c1).zip(&mut c2).zip(&mut c3);
        let ins = (&mut i0).zip(&mut i1).zip(&mut i2).zip(&mut i3);
        for ((((o0, o1), o2), o3), (((v0, v1), v2), v3)) in outs.zip(ins) {
            let a = V::load(v0.try_into().expect("exact chunk")).mul(sv[0]);
            let b = V::load(v1.try_into().expect("exact chunk")).mul(sv[1]);
            let c = V::load(v2.try_into().expect("exact chunk")).mul(sv[2]);
            let d = V::load(v3.try_into().expect("exact chunk")).mul(sv[3]);
            let (a1, c1) = (a.add(c), a.sub(c).mul(tav));
            let (b1, d1) = (b.add(d), b.sub(d).mul(tbv));
            a1.add(b1).store(o0.try_into().expect("exact chunk"));
            a1.sub(b1)
                .mul(tcv)
                .store(o1.try_into().expect("exact chunk"));
            c1.add(d1).store(o2.try_into().expect("exact chunk"));
            c1.sub(d1)
                .mul(tcv)
                .store(o3.try_into().expect("exact chunk"));
        }
        let outs = c0
            .into_remainder()
            .iter_mut()
            .zip(c1.into_remainder())
            .zip(c2.into_remainder())
            .zip(c3.into_remainder());
        let ins = i0
            .remainder()
            .iter()
            .zip(i1.remainder())
            .zip(i2.remainder())
            .zip(i3.remainder());
        for ((((o0, o1), o2), o3), (((&v0, &v1), &v2), &v3)) in outs.zip(ins) {
            let (a, b, c, d) = (v0 * s0, v1 * s1, v2 * s2, v3 * s3);
            let (a1, c1) = (a + c, (a - c) * ta);
            let (b1, d1) = (b + d, (b - d) * tb);
            [*o0, *o1, *o2, *o3] = [a1 + b1, (a1 - b1) * tc, c1 + d1, (c1 - d1) * tc];
        }
    }
}

#[inline(always)]
fn scale_rows_into_g<V: Packed>(dst: &mut [Felt], src: &[Felt], s: &[Felt], w: usize) {
    for ((d, x), &t) in dst.chunks_exact_mut(w).zip(src.chunks_exact(w)).zip(s) {
        let tv = V::splat(t);
        let mut cd = d.chunks_exact_mut(LANES);
        let mut cx = x.chunks_exact(LANES);
        for (d, x) in (&mut cd).zip(&mut cx) {
            let d: &mut [Felt; LANES] = d.try_into().expect("exact chunk");
            let x: &[Felt; LANES] = x.try_into().expect("exact chunk");
            V::load(x).mul(tv).store(d);
        }
        for (d, &x) in cd.into_remainder().iter_mut().zip(cx.remainder()) {
            *d = x * t;
        }
    }
}

#[inline(always)]
fn scale_g<V: Packed>(x: &mut [Felt], c: Felt) {
    let cv = V::splat(c);
    let mut cx = x.chunks_exact_mut(LANES);
    for x in &mut cx {
        let x: &mut [Felt; LANES] = x.try_into().expect("exact chunk");
        V::load(x).mul(cv).store(x);
    }
    for x in cx.into_remainder() {
        *x *= c;
    }
}

fn check_layer(lo: &[Felt], hi: &[Felt], tw: &[Felt], w: usize) {
    assert!(
        w > 0 && lo.len() == hi.len() && lo.len() == tw.len() * w,
        "layer shape"
    );
}

fn check_block(x: &[Felt], w: usize, tw: &[Felt]) {
    assert!(w > 0 && x.len().is_multiple_of(w), "block shape");
    let rows = x.len() / w;
    assert!(rows.is_power_of_two() && tw.len() >= rows, "block size");
}

/// One DIF layer: for every `j`, rows `lo[j]`, `hi[j]` become `lo[j] + hi[j]`,
/// `(lo[j] − hi[j])·tw[j]` (column by column); rows are `w` values long.
pub fn dif_layer(lo: &mut [Felt], hi: &mut [Felt], tw: &[Felt], w: usize) {
    check_layer(lo, hi, tw, w);
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dif_layer(lo, hi, tw, w) },
        Isa::Scalar => dif_layer_g::<Scalar>(lo, hi, tw, w),
    }
}

/// One DIT layer: for every `j`, rows `lo[j]`, `hi[j]` become `lo[j] + hi[j]·tw[j]`,
/// `lo[j] − hi[j]·tw[j]`.
pub fn dit_layer(lo: &mut [Felt], hi: &mut [Felt], tw: &[Felt], w: usize) {
    check_layer(lo, hi, tw, w);
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dit_layer(lo, hi, tw, w) },
        Isa::Scalar => dit_layer_g::<Scalar>(lo, hi, tw, w),
    }
}

/// A whole in-place DIF (natural-order rows in, bit-reversed out) of the power-of-two
/// number of `w`-value rows in `x`, layer by layer; `tw` is a twiddle table of a size ≥ the
/// row count.
pub fn dif_block(x: &mut [Felt], w: usize, tw: &[Felt]) {
    check_block(x, w, tw);
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dif_block(x, w, tw) },
        Isa::Scalar => dif_block_g::<Scalar>(x, w, tw),
    }
}

/// A whole in-place DIT (bit-reversed rows in, natural order out), as [`dif_block`].
pub fn dit_block(x: &mut [Felt], w: usize, tw: &[Felt]) {
    check_block(x, w, tw);
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dit_block(x, w, tw) },
        Isa::Scalar => dit_block_g::<Scalar>(x, w, tw),
    }
}

fn check_quad(q: &Quad<'_>, w: usize) {
    let rows = q.t2.len();
    assert!(
        w > 0
            && q.x.iter().all(|x| x.len() == rows * w)
            && q.t1a.len() == rows
            && q.t1b.len() == rows,
        "radix-4 shape"
    );
}

/// Two DIF layers in one pass over the quarters (see [`Quad`]): halves `2q` with twiddles
/// `t1a`/`t1b`, then halves `q` with `t2`.
pub fn dif4(q: Quad<'_>, w: usize) {
    check_quad(&q, w);
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dif4(q, w) },
        Isa::Scalar => dif4_g::<Scalar>(q, w),
    }
}

/// Two DIT layers in one pass over the quarters: halves `q` with `t2`, then halves `2q`
/// with `t1a`/`t1b` (the inverse order of [`dif4`]).
pub fn dit4(q: Quad<'_>, w: usize) {
    check_quad(&q, w);
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dit4(q, w) },
        Isa::Scalar => dit4_g::<Scalar>(q, w),
    }
}

/// [`dif4`] of rows scaled on the way in: quarter `m` of the output, row `j`, takes row `j`
/// of `src[m]` times `s[m][j]` (out of place: the sources are read only).
pub fn dif4_scaled(src: [&[Felt]; 4], s: [&[Felt]; 4], q: Quad<'_>, w: usize) {
    check_quad(&q, w);
    let rows = q.t2.len();
    assert!(
        src.iter().all(|x| x.len() == rows * w) && s.iter().all(|x| x.len() == rows),
        "scaled radix-4 shape"
    );
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::dif4_scaled(src, s, q, w) },
        Isa::Scalar => dif4_scaled_g::<Scalar>(src, s, q, w),
    }
}

/// Row `j` of `dst` ← row `j` of `src` times `s[j]`, for the rows of `dst`.
pub fn scale_rows_into(dst: &mut [Felt], src: &[Felt], s: &[Felt], w: usize) {
    assert!(
        w > 0 && dst.len() == src.len() && dst.len() == s.len() * w,
        "scale shape"
    );
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::scale_rows_into(dst, src, s, w) },
        Isa::Scalar => scale_rows_into_g::<Scalar>(dst, src, s, w),
    }
}

/// Every value of `x` times `c`.
pub fn scale(x: &mut [Felt], c: Felt) {
    match isa() {
        // SAFETY: `isa` detected AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::scale(x, c) },
        Isa::Scalar => scale_g::<Scalar>(x, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kestrel_core::field::P;
    use proptest::prelude::*;

    const EDGES: [u64; 10] = [
        0,
        1,
        2,
        P - 1,
        P - 2,
        1 << 32,
        (1 << 32) - 1,
        (1 << 32) + 1,
        1 << 63,
        (1 << 63) + 12345,
    ];

    fn felt(v: u64) -> Felt {
        Felt::new(v)
    }

    /// Every packed operation against the scalar field ops on one set of lanes.
    fn check_ops<V: Packed>(a: [u64; LANES], b: [u64; LANES]) {
        let (a, b) = (a.map(felt), b.map(felt));
        let (va, vb) = (V::load(&a), V::load(&b));
        let mut out = [Felt::ZERO; LANES];
        va.add(vb).store(&mut out);
        assert_eq!(
            out,
            core::array::from_fn(|i| a[i] + b[i]),
            "add {a:?} {b:?}"
        );
        va.sub(vb).store(&mut out);
        assert_eq!(
            out,
            core::array::from_fn(|i| a[i] - b[i]),
            "sub {a:?} {b:?}"
        );
        va.mul(vb).store(&mut out);
        assert_eq!(
            out,
            core::array::from_fn(|i| a[i] * b[i]),
            "mul {a:?} {b:?}"
        );
        V::splat(a[0]).store(&mut out);
        assert_eq!(out, [a[0]; LANES]);
    }

    fn check_all_isas(a: [u64; LANES], b: [u64; LANES]) {
        check_ops::<Scalar>(a, b);
        #[cfg(target_arch = "x86_64")]
        if isa() == Isa::Avx2 {
            // SAFETY: AVX2 detected; `check_ops` only runs AVX2 instructions.
            unsafe { check_ops_avx2(a, b) }
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn check_ops_avx2(a: [u64; LANES], b: [u64; LANES]) {
        check_ops::<avx2::Avx2>(a, b)
    }

    #[test]
    fn edge_values() {
        for &x in &EDGES {
            for &y in &EDGES {
                check_all_isas([x, y, x, y], [y, x, x, y]);
            }
        }
    }

    proptest! {
        #[test]
        fn random_lanes(a in any::<[u64; LANES]>(), b in any::<[u64; LANES]>(), e in 0usize..EDGES.len()) {
            check_all_isas(a, b);
            check_all_isas([a[0], EDGES[e], a[2], EDGES[e]], b);
            // Values near p and near 2^32 multiples stress the carries.
            check_all_isas(a.map(|v| P - 1 - (v & 0xFFFF)), b.map(|v| v | 0xFFFF_FFFF));
        }
    }

    fn rand_felts(n: usize, seed: u64) -> Vec<Felt> {
        let mut s = seed;
        (0..n)
            .map(|i| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if i % 7 == 0 {
                    Felt::new(EDGES[(s >> 60) as usize % EDGES.len()])
                } else {
                    Felt::new(s)
                }
            })
            .collect()
    }

    #[test]
    fn layers_match_scalar_butterflies() {
        for w in 1..=13 {
            for h in [1usize, 2, 5, 16] {
                let lo0 = rand_felts(h * w, (w * 100 + h) as u64);
                let hi0 = rand_felts(h * w, (w * 1000 + h) as u64);
                let tw = rand_felts(h, (w + h) as u64);
                let (mut lo, mut hi) = (lo0.clone(), hi0.clone());
                dif_layer(&mut lo, &mut hi, &tw, w);
                for j in 0..h * w {
                    let (a, b, t) = (lo0[j], hi0[j], tw[j / w]);
                    assert_eq!((lo[j], hi[j]), (a + b, (a - b) * t), "dif w={w} h={h}");
                }
                let (mut lo, mut hi) = (lo0.clone(), hi0.clone());
                dit_layer(&mut lo, &mut hi, &tw, w);
                for j in 0..h * w {
                    let (a, b, t) = (lo0[j], hi0[j], tw[j / w]);
                    assert_eq!((lo[j], hi[j]), (a + b * t, a - b * t), "dit w={w} h={h}");
                }
                let mut d = vec![Felt::ZERO; h * w];
                scale_rows_into(&mut d, &lo0, &tw, w);
                for j in 0..h * w {
                    assert_eq!(d[j], lo0[j] * tw[j / w]);
                }
                let mut x = hi0.clone();
                scale(&mut x, tw[0]);
                for j in 0..h * w {
                    assert_eq!(x[j], hi0[j] * tw[0]);
                }
            }
        }
    }

    /// The whole-block and radix-4 kernels of the dispatched ISA against the scalar ones.
    #[test]
    fn blocks_match_scalar_kernels() {
        for w in [1usize, 3, 4, 6, 8, 9, 32] {
            for log_rows in 0..=7u32 {
                let rows = 1usize << log_rows;
                let x0 = rand_felts(rows * w, (w * 31 + rows) as u64);
                let tw = rand_felts(rows.max(2), 5 + rows as u64);
                let (mut a, mut b) = (x0.clone(), x0.clone());
                dif_block(&mut a, w, &tw);
                dif_block_g::<Scalar>(&mut b, w, &tw);
                assert_eq!(a, b, "dif_block w={w} rows={rows}");
                let (mut a, mut b) = (x0.clone(), x0.clone());
                dit_block(&mut a, w, &tw);
                dit_block_g::<Scalar>(&mut b, w, &tw);
                assert_eq!(a, b, "dit_block w={w} rows={rows}");
                if rows >= 4 {
                    let q = rows / 4;
                    type Kernels = (fn(Quad<'_>, usize), fn(Quad<'_>, usize));
                    let kernels: [Kernels; 2] = [
                        (dif4, |q, w| dif4_g::<Scalar>(q, w)),
                        (dit4, |q, w| dit4_g::<Scalar>(q, w)),
                    ];
                    for (packed, scalar) in kernels {
                        let mut outs = Vec::new();
                        for f in [packed, scalar] {
                            let mut x = x0.clone();
                            let (x01, x23) = x.split_at_mut(2 * q * w);
                            let (p0, p1) = x01.split_at_mut(q * w);
                            let (p2, p3) = x23.split_at_mut(q * w);
                            let quad = Quad {
                                x: [p0, p1, p2, p3],
                                t1a: &tw[2 * q..3 * q],
                                t1b: &tw[3 * q..4 * q],
                                t2: &tw[q..2 * q],
                            };
                            f(quad, w);
                            outs.push(x);
                        }
                        assert_eq!(outs[0], outs[1], "radix-4 w={w} rows={rows}");
                    }
                    let s = rand_felts(rows, 77 + w as u64);
                    let mut outs = Vec::new();
                    for scalar in [false, true] {
                        let mut x = vec![Felt::ZERO; rows * w];
                        let (x01, x23) = x.split_at_mut(2 * q * w);
                        let (p0, p1) = x01.split_at_mut(q * w);
                        let (p2, p3) = x23.split_at_mut(q * w);
                        let quad = Quad {
                            x: [p0, p1, p2, p3],
                            t1a: &tw[2 * q..3 * q],
                            t1b: &tw[3 * q..4 * q],
                            t2: &tw[q..2 * q],
                        };
                        let src: [&[Felt]; 4] =
                            core::array::from_fn(|m| &x0[m * q * w..(m + 1) * q * w]);
                        let sc: [&[Felt]; 4] = core::array::from_fn(|m| &s[m * q..(m + 1) * q]);
                        if scalar {
                            dif4_scaled_g::<Scalar>(src, sc, quad, w);
                        } else {
                            dif4_scaled(src, sc, quad, w);
                        }
                        outs.push(x);
                    }
                    // And against scale-then-DIF-4.
                    let mut y: Vec<Felt> = (0..rows * w).map(|i| x0[i] * s[i / w]).collect();
                    let (y01, y23) = y.split_at_mut(2 * q * w);
                    let (p0, p1) = y01.split_at_mut(q * w);
                    let (p2, p3) = y23.split_at_mut(q * w);
                    let quad = Quad {
                        x: [p0, p1, p2, p3],
                        t1a: &tw[2 * q..3 * q],
                        t1b: &tw[3 * q..4 * q],
                        t2: &tw[q..2 * q],
                    };
                    dif4_g::<Scalar>(quad, w);
                    assert_eq!(outs[0], outs[1], "scaled radix-4 w={w} rows={rows}");
                    assert_eq!(outs[0], y, "scaled radix-4 vs scale+dif4 w={w} rows={rows}");
                }
            }
        }
    }
}
