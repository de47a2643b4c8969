//! Keccak-p[1600, 12] and TurboSHAKE128 ([`crate::hash`]) for 32-bit cores: bit-interleaved
//! lanes.
//!
//! Each 64-bit lane is held as two 32-bit words, its even bits and its odd bits, so a 64-bit
//! rotation is two 32-bit rotations (by `r/2`, or by `(r+1)/2` and `(r−1)/2` with the halves
//! swapped) instead of the four shifts and ORs a generic 64-bit rotation costs on a 32-bit
//! core. The state stays interleaved between permutations: only the absorbed input words and
//! the squeezed digest are converted. The same results as the `keccak` crate's `p1600` with 12
//! rounds and `sha3::TurboShake128` (tested on the host, where this code runs too).

/// A Keccak state, bit-interleaved: `s[2i]` holds lane `i`'s even bits, `s[2i+1]` its
/// odd bits (lane `i = x + 5y`, as in the `keccak` crate).
pub type State = [u32; 50];

/// TurboSHAKE's domain-separation byte used everywhere (RFC 9861's default).
pub const DOMAIN: u8 = 0x1F;
/// The sponge's rate in bytes (capacity 256 bits).
pub const RATE: usize = 168;
/// Keccak-p[1600, ROUNDS].
pub const ROUNDS: usize = 12;

/// The block that holds `prefix ‖ a ‖ b` and the padding's first byte: the first 72 bytes
/// (nine lanes); the rest of the block is zero except the padding's final `0x80` in its last
/// byte (lane [`PAD_LANE`]).
#[inline(always)]
pub(crate) fn pair_head(prefix: u8, a: &[u8; 32], b: &[u8; 32]) -> [u8; 72] {
    let mut head = [0u8; 72];
    head[0] = prefix;
    head[1..33].copy_from_slice(a);
    head[33..65].copy_from_slice(b);
    head[65] = DOMAIN;
    head
}

/// The lane that holds the padding's final `0x80`, and its value.
pub(crate) const PAD_LANE: usize = RATE / 8 - 1;
pub(crate) const PAD_BIT: u64 = 0x80 << 56;

/// Keccak-f[1600]'s 24 round constants; Keccak-p[1600, 12] uses the last 12.
const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// The round constants of Keccak-p[1600, 12] (rounds 12 to 23 of Keccak-f[1600]),
/// interleaved.
const RC_I: [(u32, u32); ROUNDS] = {
    let mut out = [(0u32, 0u32); ROUNDS];
    let mut i = 0;
    while i < ROUNDS {
        out[i] = interleave(RC[24 - ROUNDS + i]);
        i += 1;
    }
    out
};

/// ρ offsets by lane `x + 5y` (the round below has them inlined; kept for the tests). π moves
/// lane `x + 5y` to lane `y + 5((2x + 3y) mod 5)`.
#[cfg(test)]
const RHO: [u32; 25] = [
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
];

/// Gathers a 32-bit word's even bits into its low half and its odd bits into its high half.
const fn unshuffle(mut x: u32) -> u32 {
    let mut t = (x ^ (x >> 1)) & 0x2222_2222;
    x ^= t ^ (t << 1);
    t = (x ^ (x >> 2)) & 0x0c0c_0c0c;
    x ^= t ^ (t << 2);
    t = (x ^ (x >> 4)) & 0x00f0_00f0;
    x ^= t ^ (t << 4);
    t = (x ^ (x >> 8)) & 0x0000_ff00;
    x ^= t ^ (t << 8);
    x
}

/// The inverse of [`unshuffle`].
const fn shuffle(mut x: u32) -> u32 {
    let mut t = (x ^ (x >> 8)) & 0x0000_ff00;
    x ^= t ^ (t << 8);
    t = (x ^ (x >> 4)) & 0x00f0_00f0;
    x ^= t ^ (t << 4);
    t = (x ^ (x >> 2)) & 0x0c0c_0c0c;
    x ^= t ^ (t << 2);
    t = (x ^ (x >> 1)) & 0x2222_2222;
    x ^= t ^ (t << 1);
    x
}

/// A 64-bit lane as (even bits, odd bits).
pub const fn interleave(v: u64) -> (u32, u32) {
    let lo = unshuffle(v as u32);
    let hi = unshuffle((v >> 32) as u32);
    ((lo & 0xffff) | (hi << 16), (lo >> 16) | (hi & 0xffff_0000))
}

/// The inverse of [`interleave`].
pub const fn deinterleave(even: u32, odd: u32) -> u64 {
    let lo = shuffle((even & 0xffff) | (odd << 16));
    let hi = shuffle((even >> 16) | (odd & 0xffff_0000));
    (lo as u64) | ((hi as u64) << 32)
}

/// Rotates the interleaved lane `(e, o)` left by `r` (as a 64-bit rotation; the round
/// applies the same rule with constant amounts).
#[cfg(test)]
fn rot(e: u32, o: u32, r: u32) -> (u32, u32) {
    if r % 2 == 0 {
        (e.rotate_left(r / 2), o.rotate_left(r / 2))
    } else {
        (o.rotate_left(r.div_ceil(2)), e.rotate_left(r / 2))
    }
}

/// Keccak-p[1600, 12] on an interleaved state: Thumb-2 assembly on the cores that have it, the
/// portable rounds below elsewhere.
pub fn permute(s: &mut State) {
    #[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
    #[allow(unsafe_code)]
    {
        // SAFETY: the routine reads and writes the 50 words of `s` and its own stack frame
        // only, and keeps the AAPCS (r4–r11 and lr saved, sp restored and 8-byte aligned).
        unsafe { thumb2::kestrel_keccak_p1600_12_thumb2(s) }
    }
    #[cfg(not(all(target_arch = "arm", target_feature = "thumb2")))]
    permute_portable(s)
}

// Keccak-p[1600, 12] in Thumb-2 assembly (ARMv7-M, ARMv8-M Mainline), generated by
// `scripts/gen_keccak_thumb2.py`: the same round as `round` below, scheduled for 13
// registers, with θ's column parities accumulated while χ writes the state (about 421
// instructions a round against about 540 from this file's Rust). The firmware checks it
// against known answers at boot (`verifier/firmware`).
#[cfg(all(target_arch = "arm", target_feature = "thumb2"))]
#[allow(unsafe_code)]
mod thumb2 {
    core::arch::global_asm!(include_str!("keccak32_thumb2.s"), options(raw));
    extern "C" {
        pub fn kestrel_keccak_p1600_12_thumb2(s: &mut super::State);
    }
}

/// [`permute`] in portable Rust: straight-line rounds with constant indices and rotation
/// amounts; each round reads one state and writes the other, with ρ and π folded into χ's
/// loads and χ done one half (even or odd words) of a row at a time.
#[cfg_attr(all(target_arch = "arm", target_feature = "thumb2"), allow(dead_code))]
fn permute_portable(s: &mut State) {
    let mut t = [0u32; 50];
    for rc in RC_I.chunks_exact(2) {
        round(s, &mut t, rc[0]);
        round(&t, s, rc[1]);
    }
}

/// One round from `a` into `out`.
#[inline(always)]
fn round(a: &State, out: &mut State, (rc_e, rc_o): (u32, u32)) {
    let c0e = a[0] ^ a[10] ^ a[20] ^ a[30] ^ a[40];
    let c0o = a[1] ^ a[11] ^ a[21] ^ a[31] ^ a[41];
    let c1e = a[2] ^ a[12] ^ a[22] ^ a[32] ^ a[42];
    let c1o = a[3] ^ a[13] ^ a[23] ^ a[33] ^ a[43];
    let c2e = a[4] ^ a[14] ^ a[24] ^ a[34] ^ a[44];
    let c2o = a[5] ^ a[15] ^ a[25] ^ a[35] ^ a[45];
    let c3e = a[6] ^ a[16] ^ a[26] ^ a[36] ^ a[46];
    let c3o = a[7] ^ a[17] ^ a[27] ^ a[37] ^ a[47];
    let c4e = a[8] ^ a[18] ^ a[28] ^ a[38] ^ a[48];
    let c4o = a[9] ^ a[19] ^ a[29] ^ a[39] ^ a[49];
    let d = [
        c4e ^ c1o.rotate_left(1),
        c4o ^ c1e,
        c0e ^ c2o.rotate_left(1),
        c0o ^ c2e,
        c1e ^ c3o.rotate_left(1),
        c1o ^ c3e,
        c2e ^ c4o.rotate_left(1),
        c2o ^ c4e,
        c3e ^ c0o.rotate_left(1),
        c3o ^ c0e,
    ];
    // row 0, even words
    let b0 = (a[0] ^ d[0]).rotate_left(0);
    let b1 = (a[12] ^ d[2]).rotate_left(22);
    let b2 = (a[25] ^ d[5]).rotate_left(22);
    let b3 = (a[37] ^ d[7]).rotate_left(11);
    let b4 = (a[48] ^ d[8]).rotate_left(7);
    out[0] = b0 ^ (!b1 & b2) ^ rc_e;
    out[2] = b1 ^ (!b2 & b3);
    out[4] = b2 ^ (!b3 & b4);
    out[6] = b3 ^ (!b4 & b0);
    out[8] = b4 ^ (!b0 & b1);
    // row 0, odd words
    let b0 = (a[1] ^ d[1]).rotate_left(0);
    let b1 = (a[13] ^ d[3]).rotate_left(22);
    let b2 = (a[24] ^ d[4]).rotate_left(21);
    let b3 = (a[36] ^ d[6]).rotate_left(10);
    let b4 = (a[49] ^ d[9]).rotate_left(7);
    out[1] = b0 ^ (!b1 & b2) ^ rc_o;
    out[3] = b1 ^ (!b2 & b3);
    out[5] = b2 ^ (!b3 & b4);
    out[7] = b3 ^ (!b4 & b0);
    out[9] = b4 ^ (!b0 & b1);
    // row 1, even words
    let b0 = (a[6] ^ d[6]).rotate_left(14);
    let b1 = (a[18] ^ d[8]).rotate_left(10);
    let b2 = (a[21] ^ d[1]).rotate_left(2);
    let b3 = (a[33] ^ d[3]).rotate_left(23);
    let b4 = (a[45] ^ d[5]).rotate_left(31);
    out[10] = b0 ^ (!b1 & b2);
    out[12] = b1 ^ (!b2 & b3);
    out[14] = b2 ^ (!b3 & b4);
    out[16] = b3 ^ (!b4 & b0);
    out[18] = b4 ^ (!b0 & b1);
    // row 1, odd words
    let b0 = (a[7] ^ d[7]).rotate_left(14);
    let b1 = (a[19] ^ d[9]).rotate_left(10);
    let b2 = (a[20] ^ d[0]).rotate_left(1);
    let b3 = (a[32] ^ d[2]).rotate_left(22);
    let b4 = (a[44] ^ d[4]).rotate_left(30);
    out[11] = b0 ^ (!b1 & b2);
    out[13] = b1 ^ (!b2 & b3);
    out[15] = b2 ^ (!b3 & b4);
    out[17] = b3 ^ (!b4 & b0);
    out[19] = b4 ^ (!b0 & b1);
    // row 2, even words
    let b0 = (a[3] ^ d[3]).rotate_left(1);
    let b1 = (a[14] ^ d[4]).rotate_left(3);
    let b2 = (a[27] ^ d[7]).rotate_left(13);
    let b3 = (a[38] ^ d[8]).rotate_left(4);
    let b4 = (a[40] ^ d[0]).rotate_left(9);
    out[20] = b0 ^ (!b1 & b2);
    out[22] = b1 ^ (!b2 & b3);
    out[24] = b2 ^ (!b3 & b4);
    out[26] = b3 ^ (!b4 & b0);
    out[28] = b4 ^ (!b0 & b1);
    // row 2, odd words
    let b0 = (a[2] ^ d[2]).rotate_left(0);
    let b1 = (a[15] ^ d[5]).rotate_left(3);
    let b2 = (a[26] ^ d[6]).rotate_left(12);
    let b3 = (a[39] ^ d[9]).rotate_left(4);
    let b4 = (a[41] ^ d[1]).rotate_left(9);
    out[21] = b0 ^ (!b1 & b2);
    out[23] = b1 ^ (!b2 & b3);
    out[25] = b2 ^ (!b3 & b4);
    out[27] = b3 ^ (!b4 & b0);
    out[29] = b4 ^ (!b0 & b1);
    // row 3, even words
    let b0 = (a[9] ^ d[9]).rotate_left(14);
    let b1 = (a[10] ^ d[0]).rotate_left(18);
    let b2 = (a[22] ^ d[2]).rotate_left(5);
    let b3 = (a[35] ^ d[5]).rotate_left(8);
    let b4 = (a[46] ^ d[6]).rotate_left(28);
    out[30] = b0 ^ (!b1 & b2);
    out[32] = b1 ^ (!b2 & b3);
    out[34] = b2 ^ (!b3 & b4);
    out[36] = b3 ^ (!b4 & b0);
    out[38] = b4 ^ (!b0 & b1);
    // row 3, odd words
    let b0 = (a[8] ^ d[8]).rotate_left(13);
    let b1 = (a[11] ^ d[1]).rotate_left(18);
    let b2 = (a[23] ^ d[3]).rotate_left(5);
    let b3 = (a[34] ^ d[4]).rotate_left(7);
    let b4 = (a[47] ^ d[7]).rotate_left(28);
    out[31] = b0 ^ (!b1 & b2);
    out[33] = b1 ^ (!b2 & b3);
    out[35] = b2 ^ (!b3 & b4);
    out[37] = b3 ^ (!b4 & b0);
    out[39] = b4 ^ (!b0 & b1);
    // row 4, even words
    let b0 = (a[4] ^ d[4]).rotate_left(31);
    let b1 = (a[17] ^ d[7]).rotate_left(28);
    let b2 = (a[29] ^ d[9]).rotate_left(20);
    let b3 = (a[31] ^ d[1]).rotate_left(21);
    let b4 = (a[42] ^ d[2]).rotate_left(1);
    out[40] = b0 ^ (!b1 & b2);
    out[42] = b1 ^ (!b2 & b3);
    out[44] = b2 ^ (!b3 & b4);
    out[46] = b3 ^ (!b4 & b0);
    out[48] = b4 ^ (!b0 & b1);
    // row 4, odd words
    let b0 = (a[5] ^ d[5]).rotate_left(31);
    let b1 = (a[16] ^ d[6]).rotate_left(27);
    let b2 = (a[28] ^ d[8]).rotate_left(19);
    let b3 = (a[30] ^ d[0]).rotate_left(20);
    let b4 = (a[43] ^ d[3]).rotate_left(1);
    out[41] = b0 ^ (!b1 & b2);
    out[43] = b1 ^ (!b2 & b3);
    out[45] = b2 ^ (!b3 & b4);
    out[47] = b3 ^ (!b4 & b0);
    out[49] = b4 ^ (!b0 & b1);
}

/// Keccak-p[1600, 12] on a plain state of 64-bit lanes (the `keccak` crate's
/// `p1600(lanes, 12)`), through the interleaved form.
pub fn p1600(lanes: &mut [u64; 25]) {
    let mut s = [0u32; 50];
    for (i, &v) in lanes.iter().enumerate() {
        (s[2 * i], s[2 * i + 1]) = interleave(v);
    }
    permute(&mut s);
    for (i, v) in lanes.iter_mut().enumerate() {
        *v = deinterleave(s[2 * i], s[2 * i + 1]);
    }
}

/// Whether [`permute`] computes Keccak-p[1600, 12] here: a known answer (the all-zero state
/// permuted twice, lane 0 and the XOR of all lanes; the host test checks the constants
/// against the `keccak` crate). For a target whose permutation is assembly, which the host
/// tests cannot run: the firmware calls it at boot.
pub fn self_test() -> bool {
    let mut lanes = [0u64; 25];
    p1600(&mut lanes);
    p1600(&mut lanes);
    lanes[0] == SELF_TEST_LANE0 && lanes.iter().fold(0, |a, v| a ^ v) == SELF_TEST_XOR
}

const SELF_TEST_LANE0: u64 = 0x4b03_66dc_36bb_8c04;
const SELF_TEST_XOR: u64 = 0x3758_750c_f240_ec61;

/// A Keccak state the sponge drives: XOR a rate block in and permute; read the digest.
pub trait Permutation: Clone {
    /// The all-zero state.
    fn zero() -> Self;
    /// XORs one rate block into the state and applies Keccak-p[1600, 12].
    fn absorb(&mut self, block: &[u8; RATE]);
    /// The first 32 bytes of the state.
    fn digest(&self) -> [u8; 32];
}

/// TurboSHAKE128 (domain [`DOMAIN`], 32-byte output), incremental, over a state `S`: this
/// module's interleaved [`Interleaved`] on 32-bit cores, 64-bit lanes elsewhere
/// ([`crate::hash::Hasher`]).
#[derive(Clone)]
pub struct Sponge<S: Permutation> {
    state: S,
    buf: [u8; RATE],
    pos: usize,
}

impl<S: Permutation> Default for Sponge<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Permutation> Sponge<S> {
    #[inline(always)]
    pub fn new() -> Sponge<S> {
        Sponge {
            state: S::zero(),
            buf: [0; RATE],
            pos: 0,
        }
    }

    fn absorb_block(&mut self) {
        self.state.absorb(&self.buf);
        self.pos = 0;
    }

    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        let mut data = data.as_ref();
        while !data.is_empty() {
            let n = (RATE - self.pos).min(data.len());
            self.buf[self.pos..self.pos + n].copy_from_slice(&data[..n]);
            self.pos += n;
            data = &data[n..];
            if self.pos == RATE {
                self.absorb_block();
            }
        }
    }

    /// [`Sponge::update`] with eight bytes (a field element), copied without a call.
    #[inline]
    pub fn update_8(&mut self, bytes: [u8; 8]) {
        if self.pos + 8 <= RATE {
            let at = self.pos;
            self.buf[at..at + 8].copy_from_slice(&bytes);
            self.pos += 8;
            if self.pos == RATE {
                self.absorb_block();
            }
        } else {
            self.update(bytes);
        }
    }

    /// The digest; the hasher is reset to empty.
    pub fn finalize_reset(&mut self) -> [u8; 32] {
        self.buf[self.pos..].fill(0);
        self.buf[self.pos] = DOMAIN;
        self.buf[RATE - 1] ^= 0x80;
        self.absorb_block();
        let out = self.state.digest();
        // Reset in place (the buffer is always filled before it is absorbed again).
        self.state = S::zero();
        out
    }

    /// The digest.
    #[inline(always)]
    pub fn finalize(mut self) -> [u8; 32] {
        self.finalize_reset()
    }
}

/// The interleaved state as the sponge's [`Permutation`].
#[derive(Clone)]
pub struct Interleaved(State);

impl Permutation for Interleaved {
    #[inline(always)]
    fn zero() -> Self {
        Interleaved([0; 50])
    }

    fn absorb(&mut self, block: &[u8; RATE]) {
        for (i, w) in block.chunks_exact(8).enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            let (e, o) = interleave(u64::from_le_bytes(b));
            self.0[2 * i] ^= e;
            self.0[2 * i + 1] ^= o;
        }
        permute(&mut self.0);
    }

    fn digest(&self) -> [u8; 32] {
        squeeze(&self.0)
    }
}

/// TurboSHAKE128 on the interleaved state.
pub type Hasher = Sponge<Interleaved>;

/// The first 32 bytes of the state (the digest).
fn squeeze(state: &State) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, chunk) in out.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&deinterleave(state[2 * i], state[2 * i + 1]).to_le_bytes());
    }
    out
}

/// TurboSHAKE128 of `prefix ‖ a ‖ b` (65 bytes, one block) without a hasher: what a Merkle
/// node or injection hashes ([`crate::merkle`]), with no buffer to fill or hasher to move.
pub fn hash_prefixed_pair(prefix: u8, a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    // The block's first 72 bytes (9 lanes: the 65 bytes and the domain byte); lanes 9 to
    // 19 are zero and lane 20 holds the padding's final 0x80. The state starts at zero, so
    // the interleaved lanes are the state: nothing to interleave or XOR for the zero lanes.
    let head = pair_head(prefix, a, b);
    let mut state: State = [0; 50];
    for (i, w) in head.chunks_exact(8).enumerate() {
        let mut l = [0u8; 8];
        l.copy_from_slice(w);
        (state[2 * i], state[2 * i + 1]) = interleave(u64::from_le_bytes(l));
    }
    (state[2 * PAD_LANE], state[2 * PAD_LANE + 1]) = interleave(PAD_BIT);
    permute(&mut state);
    squeeze(&state)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    /// A small deterministic generator (xorshift64*) for random states.
    pub(crate) fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    #[test]
    fn interleaving_round_trips() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..1000 {
            let v = rng(&mut seed);
            let (e, o) = interleave(v);
            assert_eq!(deinterleave(e, o), v);
            for bit in 0..32 {
                assert_eq!((e >> bit) & 1, ((v >> (2 * bit)) & 1) as u32);
                assert_eq!((o >> bit) & 1, ((v >> (2 * bit + 1)) & 1) as u32);
            }
        }
    }

    #[test]
    fn rotation_matches_64_bit_rotation() {
        let mut seed = 7;
        assert_eq!(RHO[1], 1);
        for r in 0..64 {
            let v = rng(&mut seed);
            let (e, o) = interleave(v);
            let (re, ro) = rot(e, o, r);
            assert_eq!(deinterleave(re, ro), v.rotate_left(r), "r = {r}");
        }
    }

    #[test]
    fn permutation_matches_the_keccak_crate_on_random_states() {
        let mut seed = 0x1234_5678_9abc_def1;
        let mut zero = [0u64; 25];
        let mut reference = zero;
        p1600(&mut zero);
        keccak::p1600(&mut reference, ROUNDS);
        assert_eq!(zero, reference);
        for _ in 0..500 {
            let mut a = [0u64; 25];
            for v in &mut a {
                *v = rng(&mut seed);
            }
            let mut b = a;
            p1600(&mut a);
            keccak::p1600(&mut b, ROUNDS);
            assert_eq!(a, b);
        }
    }

    /// The committed assembly is what its generator writes (the firmware's boot self-test
    /// and its proofs check the assembly itself on an emulated Cortex-M33).
    #[test]
    fn thumb2_assembly_is_generated() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        extern crate std;
        use std::{format, string::String};
        let out = std::process::Command::new("python3")
            .arg(format!("{root}/scripts/gen_keccak_thumb2.py"))
            .output()
            .expect("python3 runs the generator (CI installs it)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            include_str!("keccak32_thumb2.s"),
            "run: python3 scripts/gen_keccak_thumb2.py > core/src/keccak32_thumb2.s"
        );
    }

    #[test]
    fn self_test_constants_are_the_keccak_crates() {
        let mut lanes = [0u64; 25];
        keccak::p1600(&mut lanes, ROUNDS);
        keccak::p1600(&mut lanes, ROUNDS);
        assert_eq!(lanes[0], SELF_TEST_LANE0, "{:#x}", lanes[0]);
        let xor = lanes.iter().fold(0, |a, v| a ^ v);
        assert_eq!(xor, SELF_TEST_XOR, "{xor:#x}");
        assert!(self_test());
    }

    /// `sha3::TurboShake128` with [`DOMAIN`], 32 bytes out: the reference.
    pub(crate) fn reference(data: &[u8]) -> [u8; 32] {
        use sha3::digest::{ExtendableOutput, Update};
        let mut h = sha3::TurboShake128::from_core(sha3::TurboShake128Core::new(DOMAIN));
        h.update(data);
        let mut out = [0u8; 32];
        h.finalize_xof_into(&mut out);
        out
    }

    /// `pair(prefix, a, b)` is the reference's hash of `prefix ‖ a ‖ b`.
    pub(crate) fn pairs_match_sha3(pair: fn(u8, &[u8; 32], &[u8; 32]) -> [u8; 32]) {
        let mut seed = 5;
        for prefix in [0u8, 1, 2, 0xff] {
            for _ in 0..50 {
                let mut m = [0u8; 65];
                m[0] = prefix;
                m[1..].iter_mut().for_each(|x| *x = rng(&mut seed) as u8);
                let a: [u8; 32] = m[1..33].try_into().unwrap();
                let b: [u8; 32] = m[33..].try_into().unwrap();
                assert_eq!(pair(prefix, &a, &b), reference(&m));
            }
        }
    }

    /// The sponge over `S` is the reference at every length from 0 to 400 bytes (and a few
    /// around block boundaries), whole, in uneven pieces, reset and reused, and fed eight
    /// bytes at a time.
    pub(crate) fn sponge_matches_sha3<S: Permutation>() {
        let mut seed = 99;
        let data: alloc::vec::Vec<u8> = (0..800).map(|_| rng(&mut seed) as u8).collect();
        for len in (0..400).chain([503, 504, 671, 672, 800]) {
            let want = reference(&data[..len]);
            let mut h = Sponge::<S>::new();
            h.update(&data[..len]);
            assert_eq!(h.finalize(), want, "length {len}");
            let mut h = Sponge::<S>::new();
            h.update(b"junk");
            h.finalize_reset();
            for piece in data[..len].chunks(1 + len % 37) {
                h.update(piece);
            }
            assert_eq!(h.finalize_reset(), want, "length {len} in pieces");
            if len % 8 == 1 {
                h.update(&data[..1]);
                for w in data[1..len].chunks_exact(8) {
                    h.update_8(w.try_into().unwrap());
                }
                assert_eq!(h.finalize_reset(), want, "length {len} in eights");
            }
        }
    }

    #[test]
    fn prefixed_pairs_match_sha3() {
        pairs_match_sha3(hash_prefixed_pair);
    }

    #[test]
    fn hasher_matches_sha3_at_every_length_and_split() {
        sponge_matches_sha3::<Interleaved>();
    }
}
