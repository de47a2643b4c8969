//! Property tests for Goldilocks (`Felt`) and its cubic extension (`Ext3`) against
//! independent references: `u128` / `i128` remainder arithmetic and `num-bigint`'s `modpow`
//! for the base field, schoolbook polynomial multiplication reduced by X^3 = 7 (in `BigUint`)
//! for the extension.

use kestrel_core::field::{batch_inverse, bit_reverse, powers, Ext3, Felt, Field, P, W};
use num_bigint::BigUint;
use proptest::prelude::*;

const P128: u128 = P as u128;

/// Values where reductions and carries go wrong first.
const EDGE_U64: [u64; 14] = [
    0,
    1,
    2,
    0xFFFF_FFFF,           // 2^32 − 1 (= 2^64 mod p)
    0x1_0000_0000,         // 2^32
    0x1_0000_0001,         // 2^32 + 1
    0x7FFF_FFFF_8000_0000, // (p − 1) / 2
    P - 0x1_0000_0000,     // p − 2^32
    P - 2,
    P - 1,
    P,
    P + 1,
    u64::MAX - 1,
    u64::MAX,
];

fn big(v: u128) -> BigUint {
    BigUint::from(v)
}

fn big_p() -> BigUint {
    big(P128)
}

/// `base^exp mod p`, computed without any Kestrel code.
fn ref_pow(base: u64, exp: &BigUint) -> u64 {
    let r = big(base as u128).modpow(exp, &big_p());
    u64::try_from(r).expect("residue fits in u64")
}

/// A canonical value: uniform or one of the edge values reduced.
fn canonical() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u64>().prop_map(|v| v % P),
        1 => proptest::sample::select(EDGE_U64.to_vec()).prop_map(|v| v % P),
    ]
}

fn felt() -> impl Strategy<Value = Felt> {
    canonical().prop_map(|v| Felt::from_canonical(v).unwrap())
}

fn nonzero_felt() -> impl Strategy<Value = Felt> {
    felt().prop_filter("nonzero", |f| f.as_u64() != 0)
}

fn any_u64_with_edges() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u64>(),
        1 => proptest::sample::select(EDGE_U64.to_vec()),
    ]
}

fn ext3() -> impl Strategy<Value = Ext3> {
    (felt(), felt(), felt()).prop_map(|(a, b, c)| Ext3::new(a, b, c))
}

fn nonzero_ext3() -> impl Strategy<Value = Ext3> {
    ext3().prop_filter("nonzero", |e| *e != Ext3::ZERO)
}

/// `u128` edge values for `reduce128`.
fn edge_u128() -> Vec<u128> {
    let pm1 = P128 - 1;
    vec![
        0,
        1,
        pm1,
        P128,
        P128 + 1,
        1 << 32,
        (1 << 64) - 1,
        1 << 64,
        1 << 96,
        (1 << 96) - 1,
        (1 << 96) + 1,
        pm1 * pm1,
        P128 * P128,
        (u64::MAX as u128) * (u64::MAX as u128),
        u128::MAX,
        u128::MAX - 1,
        u128::MAX - P128,
        (P128 << 64) - 1,
        P128 << 64,
    ]
}

// ---------------------------------------------------------------------------------------
// Goldilocks
// ---------------------------------------------------------------------------------------

#[test]
fn modulus_is_goldilocks() {
    assert_eq!(P128, (1u128 << 64) - (1u128 << 32) + 1);
    assert_eq!(Felt::NEG_ONE.as_u64(), P - 1);
    assert_eq!(Felt::ZERO.as_u64(), 0);
    assert_eq!(Felt::ONE.as_u64(), 1);
    assert_eq!(Felt::TWO.as_u64(), 2);
}

#[test]
fn reduce128_edge_values() {
    for x in edge_u128() {
        assert_eq!(Felt::reduce128(x).as_u64() as u128, x % P128, "x = {x:#x}");
    }
}

#[test]
fn new_and_from_canonical_edge_values() {
    for v in EDGE_U64 {
        assert_eq!(Felt::new(v).as_u64(), v % P, "v = {v:#x}");
        assert_eq!(
            Felt::from_canonical(v).map(Felt::as_u64),
            (v < P).then_some(v)
        );
    }
    // Every non-canonical u64 is in [p, 2^64): check both ends and a stride through it.
    let mut v = P;
    loop {
        assert_eq!(Felt::from_canonical(v), None, "v = {v:#x}");
        assert_eq!(Felt::new(v).as_u64(), v - P);
        match v.checked_add(0x0100_0001) {
            Some(n) => v = n,
            None => break,
        }
    }
    assert_eq!(Felt::from_canonical(u64::MAX), None);
}

#[test]
fn from_i64_edge_values() {
    for v in [
        0,
        1,
        -1,
        2,
        -2,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        -(1 << 32),
        1 << 32,
    ] {
        let want = (v as i128).rem_euclid(P128 as i128) as u64;
        assert_eq!(Felt::from_i64(v).as_u64(), want, "v = {v}");
    }
    assert_eq!(Felt::from_i64(-1), Felt::NEG_ONE);
    assert_eq!(Felt::from_i64(i64::MIN), -Felt::new(1 << 63));
}

#[test]
fn zero_has_no_inverse() {
    assert_eq!(Felt::ZERO.inverse(), None);
    assert_eq!(Ext3::ZERO.inverse(), None);
    assert_eq!(Felt::ONE.inverse(), Some(Felt::ONE));
    assert_eq!(Felt::NEG_ONE.inverse(), Some(Felt::NEG_ONE));
}

#[test]
fn two_adic_generators_have_exact_order() {
    let p = big_p();
    for bits in 0..=32u32 {
        let g = Felt::two_adic_generator(bits).expect("bits <= 32");
        let gb = big(g.as_u64() as u128);
        // g^(2^bits) = 1 ...
        let order = BigUint::from(1u8) << bits;
        assert_eq!(gb.modpow(&order, &p), BigUint::from(1u8), "bits = {bits}");
        // ... and g^(2^(bits−1)) = −1 ≠ 1, so the order is exactly 2^bits.
        if bits > 0 {
            let half = BigUint::from(1u8) << (bits - 1);
            assert_eq!(gb.modpow(&half, &p), big(P128 - 1), "bits = {bits}");
        } else {
            assert_eq!(g, Felt::ONE);
        }
        // The generators form a squaring chain.
        if bits > 0 {
            let prev = Felt::two_adic_generator(bits - 1).unwrap();
            assert_eq!(g * g, prev, "bits = {bits}");
        }
    }
    assert_eq!(Felt::two_adic_generator(33), None);
    assert_eq!(Felt::two_adic_generator(u32::MAX), None);
    assert_eq!(Felt::TWO_ADICITY, (P - 1).trailing_zeros());
}

#[test]
fn generator_generates_the_multiplicative_group() {
    // 7 has order p − 1 iff 7^((p−1)/q) ≠ 1 for every prime q | p − 1.
    // p − 1 = 2^32 · 3 · 5 · 17 · 257 · 65537.
    let factors = [2u64, 3, 5, 17, 257, 65537];
    let mut rest = P - 1;
    for q in factors {
        while rest.checked_rem(q) == Some(0) {
            rest /= q;
        }
    }
    assert_eq!(rest, 1, "p − 1 factorisation");
    for q in factors {
        let e = BigUint::from((P - 1) / q);
        assert_ne!(ref_pow(Felt::GENERATOR.as_u64(), &e), 1, "q = {q}");
    }
}

#[test]
fn serde_rejects_short_and_noncanonical_words() {
    assert!(postcard::from_bytes::<Felt>(&[0u8; 7]).is_err());
    for v in [P, P + 1, u64::MAX - 1, u64::MAX] {
        assert!(
            postcard::from_bytes::<Felt>(&v.to_le_bytes()).is_err(),
            "v = {v:#x}"
        );
    }
    assert_eq!(
        postcard::from_bytes::<Felt>(&(P - 1).to_le_bytes()).unwrap(),
        Felt::NEG_ONE
    );
    // An extension element is three words; one bad coordinate rejects the whole element.
    let mut bytes = postcard::to_allocvec(&Ext3::new(Felt::ONE, Felt::TWO, Felt::ZERO)).unwrap();
    assert_eq!(bytes.len(), 24);
    bytes[16..24].copy_from_slice(&P.to_le_bytes());
    assert!(postcard::from_bytes::<Ext3>(&bytes).is_err());
}

#[test]
fn batch_inverse_edge_cases() {
    assert_eq!(batch_inverse::<Felt>(&[]), Some(vec![]));
    assert_eq!(batch_inverse(&[Felt::ZERO]), None);
    assert_eq!(
        batch_inverse(&[Felt::ONE, Felt::NEG_ONE]),
        Some(vec![Felt::ONE, Felt::NEG_ONE])
    );
    assert_eq!(batch_inverse(&[Ext3::ONE, Ext3::ZERO]), None);
}

#[test]
fn bit_reverse_small() {
    assert_eq!(bit_reverse(0, 0), 0);
    assert_eq!(bit_reverse(5, 0), 0);
    assert_eq!(bit_reverse(1, 1), 1);
    assert_eq!(bit_reverse(1, 3), 4);
    assert_eq!(bit_reverse(0b0011, 4), 0b1100);
    for bits in 0..=10u32 {
        let n = 1usize << bits;
        let mut seen = vec![false; n];
        for i in 0..n {
            let r = bit_reverse(i, bits);
            assert_eq!(bit_reverse(r, bits), i);
            seen[r] = true;
        }
        assert!(seen.into_iter().all(|s| s));
    }
}

proptest! {
    #[test]
    fn felt_add(a in felt(), b in felt()) {
        let want = (a.as_u64() as u128 + b.as_u64() as u128) % P128;
        prop_assert_eq!((a + b).as_u64() as u128, want);
        let mut c = a;
        c += b;
        prop_assert_eq!(c, a + b);
    }

    #[test]
    fn felt_sub(a in felt(), b in felt()) {
        let want = (a.as_u64() as u128 + P128 - b.as_u64() as u128) % P128;
        prop_assert_eq!((a - b).as_u64() as u128, want);
        let mut c = a;
        c -= b;
        prop_assert_eq!(c, a - b);
    }

    #[test]
    fn felt_mul(a in felt(), b in felt()) {
        let want = (a.as_u64() as u128 * b.as_u64() as u128) % P128;
        prop_assert_eq!((a * b).as_u64() as u128, want);
        let mut c = a;
        c *= b;
        prop_assert_eq!(c, a * b);
        prop_assert_eq!(a.square(), a * a);
        prop_assert_eq!(a.mul_felt(b), a * b);
    }

    #[test]
    fn felt_neg(a in felt()) {
        prop_assert_eq!((-a).as_u64() as u128, (P128 - a.as_u64() as u128) % P128);
        prop_assert_eq!(a + (-a), Felt::ZERO);
    }

    #[test]
    fn felt_inverse(a in nonzero_felt()) {
        let inv = a.inverse().expect("nonzero");
        prop_assert_eq!(a * inv, Felt::ONE);
        prop_assert_eq!(inv.as_u64(), ref_pow(a.as_u64(), &BigUint::from(P - 2)));
        prop_assert!(inv.as_u64() < P);
    }

    #[test]
    fn felt_exp_u64(a in felt(), e in any_u64_with_edges()) {
        prop_assert_eq!(a.exp_u64(e).as_u64(), ref_pow(a.as_u64(), &BigUint::from(e)));
    }

    #[test]
    fn felt_reduce128(x in any::<u128>()) {
        prop_assert_eq!(Felt::reduce128(x).as_u64() as u128, x % P128);
    }

    #[test]
    fn felt_reduce128_near_edges(i in 0usize..19, delta in -1000i64..1000) {
        let x = edge_u128()[i].wrapping_add_signed(delta as i128);
        prop_assert_eq!(Felt::reduce128(x).as_u64() as u128, x % P128);
    }

    #[test]
    fn felt_new_reduces_any_u64(v in any_u64_with_edges()) {
        prop_assert_eq!(Felt::new(v).as_u64(), v % P);
        prop_assert_eq!(Felt::from_canonical(v).is_some(), v < P);
        if let Some(f) = Felt::from_canonical(v) {
            prop_assert_eq!(f.as_u64(), v);
        }
    }

    #[test]
    fn felt_from_i64(v in any::<i64>()) {
        let want = (v as i128).rem_euclid(P128 as i128) as u64;
        prop_assert_eq!(Felt::from_i64(v).as_u64(), want);
    }

    #[test]
    fn felt_from_small_ints(v in any::<u32>(), b in any::<bool>()) {
        prop_assert_eq!(Felt::from(v).as_u64(), v as u64);
        prop_assert_eq!(Felt::from(b).as_u64(), b as u64);
    }

    #[test]
    fn felt_sum(values in proptest::collection::vec(felt(), 0..32)) {
        let want = values.iter().fold(0u128, |acc, f| (acc + f.as_u64() as u128) % P128);
        prop_assert_eq!(values.iter().copied().sum::<Felt>().as_u64() as u128, want);
    }

    #[test]
    fn felt_batch_inverse(values in proptest::collection::vec(nonzero_felt(), 0..40)) {
        let inv = batch_inverse(&values).expect("no zero");
        prop_assert_eq!(inv.len(), values.len());
        for (v, i) in values.iter().zip(&inv) {
            prop_assert_eq!(Some(*i), v.inverse());
        }
    }

    #[test]
    fn felt_batch_inverse_with_a_zero(
        mut values in proptest::collection::vec(felt(), 0..40),
        at in any::<prop::sample::Index>(),
    ) {
        let at = at.index(values.len() + 1);
        values.insert(at, Felt::ZERO);
        prop_assert_eq!(batch_inverse(&values), None);
    }

    #[test]
    fn felt_powers(base in felt(), n in 0usize..40) {
        let ps = powers(base, n);
        prop_assert_eq!(ps.len(), n);
        for (i, p) in ps.iter().enumerate() {
            prop_assert_eq!(*p, base.exp_u64(i as u64));
        }
    }

    #[test]
    fn felt_serde_is_8_bytes_le(a in felt()) {
        let bytes = postcard::to_allocvec(&a).unwrap();
        prop_assert_eq!(&bytes[..], &a.as_u64().to_le_bytes()[..]);
        prop_assert_eq!(postcard::from_bytes::<Felt>(&bytes).unwrap(), a);
    }

    #[test]
    fn felt_serde_rejects_noncanonical(v in P..=u64::MAX) {
        prop_assert!(postcard::from_bytes::<Felt>(&v.to_le_bytes()).is_err());
    }

    #[test]
    fn felt_serde_accepts_every_canonical_word(v in 0..P) {
        prop_assert_eq!(postcard::from_bytes::<Felt>(&v.to_le_bytes()).unwrap().as_u64(), v);
    }
}

// ---------------------------------------------------------------------------------------
// Cubic extension
// ---------------------------------------------------------------------------------------

/// Schoolbook product of `a0 + a1 X + a2 X^2` and `b0 + b1 X + b2 X^2` as a degree-4
/// polynomial over the integers, then reduced with X^3 = 7 and X^4 = 7X, then mod p.
fn ref_ext_mul(a: [u64; 3], b: [u64; 3]) -> [u64; 3] {
    let mut c = vec![BigUint::from(0u8); 5];
    for i in 0..3 {
        for j in 0..3 {
            c[i + j] += BigUint::from(a[i]) * BigUint::from(b[j]);
        }
    }
    let seven = BigUint::from(7u8);
    let r = [&c[0] + &seven * &c[3], &c[1] + &seven * &c[4], c[2].clone()];
    r.map(|x| u64::try_from(x % big_p()).unwrap())
}

fn coords_u64(e: Ext3) -> [u64; 3] {
    e.coords().map(Felt::as_u64)
}

#[test]
fn x3_minus_7_is_irreducible() {
    // Proof: p − 1 is divisible by 3, so x ↦ x^3 is 3-to-1 on F_p^* and the cubes are
    // exactly the solutions of y^((p−1)/3) = 1. 7^((p−1)/3) ≠ 1, so 7 is not a cube:
    // X^3 − 7 has no root in F_p. A cubic without a root has no linear factor, hence no
    // factorisation at all: X^3 − 7 is irreducible and F_p[X]/(X^3 − 7) is a field.
    let p = big_p();
    let one = BigUint::from(1u8);
    let pm1 = &p - &one;
    assert_eq!(&pm1 % 3u8, BigUint::from(0u8), "3 | p − 1");
    let e = &pm1 / 3u8;
    let r = BigUint::from(7u8).modpow(&e, &p);
    assert_ne!(r, one, "7 must not be a cube mod p");
    // r is a primitive cube root of unity, as it must be.
    assert_eq!(r.modpow(&BigUint::from(3u8), &p), one);

    // The code's non-residue and its X really satisfy X^3 = 7.
    assert_eq!(W.as_u64(), 7);
    let x = Ext3::X;
    assert_eq!(x * x * x, Ext3::from(Felt::new(7)));
}

#[test]
fn ext3_frobenius_has_order_three() {
    // In F_{p^3}, x ↦ x^p is an automorphism of order 3 fixing exactly F_p.
    let x = Ext3::new(Felt::new(3), Felt::new(5), Felt::new(11));
    let f1 = x.exp_u64(P);
    let f3 = f1.exp_u64(P).exp_u64(P);
    assert_ne!(f1, x);
    assert_eq!(f3, x);
    let base = Ext3::from(Felt::new(12345));
    assert_eq!(base.exp_u64(P), base);
}

proptest! {
    #[test]
    fn ext3_mul_matches_schoolbook(a in ext3(), b in ext3()) {
        prop_assert_eq!(coords_u64(a * b), ref_ext_mul(coords_u64(a), coords_u64(b)));
        let mut c = a;
        c *= b;
        prop_assert_eq!(c, a * b);
        prop_assert_eq!(a.square(), a * a);
    }

    #[test]
    fn ext3_add_sub_neg_are_coordinatewise(a in ext3(), b in ext3()) {
        let (ca, cb) = (coords_u64(a), coords_u64(b));
        let add: [u64; 3] =
            core::array::from_fn(|i| ((ca[i] as u128 + cb[i] as u128) % P128) as u64);
        let sub: [u64; 3] =
            core::array::from_fn(|i| ((ca[i] as u128 + P128 - cb[i] as u128) % P128) as u64);
        let neg: [u64; 3] = core::array::from_fn(|i| ((P128 - ca[i] as u128) % P128) as u64);
        prop_assert_eq!(coords_u64(a + b), add);
        prop_assert_eq!(coords_u64(a - b), sub);
        prop_assert_eq!(coords_u64(-a), neg);
        let mut c = a;
        c += b;
        prop_assert_eq!(c, a + b);
        c -= b;
        prop_assert_eq!(c, a);
    }

    #[test]
    fn ext3_ring_axioms(a in ext3(), b in ext3(), c in ext3()) {
        prop_assert_eq!((a + b) + c, a + (b + c));
        prop_assert_eq!((a * b) * c, a * (b * c));
        prop_assert_eq!(a + b, b + a);
        prop_assert_eq!(a * b, b * a);
        prop_assert_eq!(a * (b + c), a * b + a * c);
        prop_assert_eq!((a + b) * c, a * c + b * c);
        prop_assert_eq!(a + Ext3::ZERO, a);
        prop_assert_eq!(a * Ext3::ONE, a);
        prop_assert_eq!(a * Ext3::ZERO, Ext3::ZERO);
        prop_assert_eq!(a - a, Ext3::ZERO);
        prop_assert_eq!(a + (-a), Ext3::ZERO);
    }

    #[test]
    fn ext3_inverse(a in nonzero_ext3()) {
        let inv = a.inverse().expect("nonzero elements of a field are invertible");
        prop_assert_eq!(a * inv, Ext3::ONE);
        prop_assert_eq!(inv.inverse(), Some(a));
    }

    #[test]
    fn ext3_inverse_of_base_element(f in nonzero_felt()) {
        prop_assert_eq!(Ext3::from(f).inverse(), f.inverse().map(Ext3::from));
    }

    #[test]
    fn ext3_batch_inverse(values in proptest::collection::vec(nonzero_ext3(), 0..20)) {
        let inv = batch_inverse(&values).expect("no zero");
        for (v, i) in values.iter().zip(&inv) {
            prop_assert_eq!(Some(*i), v.inverse());
        }
    }

    #[test]
    fn ext3_exp_u64(a in ext3(), e in 0u64..64, e2 in any::<u64>()) {
        let mut want = Ext3::ONE;
        for _ in 0..e {
            want *= a;
        }
        prop_assert_eq!(a.exp_u64(e), want);
        // x^(e + e2) = x^e · x^e2, with the sum kept in range.
        let e2 = e2 >> 1;
        prop_assert_eq!(a.exp_u64(e + e2), a.exp_u64(e) * a.exp_u64(e2));
    }

    #[test]
    fn ext3_base_field_embedding(f in felt(), g in felt(), a in ext3()) {
        let ef = Ext3::from(f);
        prop_assert!(ef.is_base());
        prop_assert_eq!(ef, Ext3::from_felt(f));
        prop_assert_eq!(ef + Ext3::from(g), Ext3::from(f + g));
        prop_assert_eq!(ef * Ext3::from(g), Ext3::from(f * g));
        prop_assert_eq!(a * f, a * ef);
        prop_assert_eq!(a.mul_felt(f), a * ef);
        prop_assert_eq!(a + f, a + ef);
        prop_assert_eq!(a - f, a - ef);
        prop_assert_eq!(a.is_base(), a.coords()[1] == Felt::ZERO && a.coords()[2] == Felt::ZERO);
    }

    #[test]
    fn ext3_from_coord_evals(a in ext3(), b in ext3(), c in ext3()) {
        let x = Ext3::X;
        prop_assert_eq!(Ext3::from_coord_evals([a, b, c]), a + b * x + c * x * x);
    }

    #[test]
    fn ext3_serde_round_trip(a in ext3()) {
        let bytes = postcard::to_allocvec(&a).unwrap();
        prop_assert_eq!(bytes.len(), 24);
        for (i, c) in a.coords().iter().enumerate() {
            prop_assert_eq!(&bytes[8 * i..8 * i + 8], &c.as_u64().to_le_bytes()[..]);
        }
        prop_assert_eq!(postcard::from_bytes::<Ext3>(&bytes).unwrap(), a);
    }
}
