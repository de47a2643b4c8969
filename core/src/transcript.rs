//! Fiat–Shamir transcript over TurboSHAKE128 ([`crate::hash`]).
//!
//! The state is a 32-byte digest. Observations are absorbed into a running TurboSHAKE128
//! hasher seeded with the state, each prefixed by a one-byte tag naming its kind, so that
//! no sequence of observations of one kind can collide with another kind's. A squeeze
//! finalises `state ‖ absorbed ‖ SQUEEZE` into the new state and returns it; samples are
//! drawn from squeezed blocks by rejection, so field elements are exactly uniform.

use crate::hash::Hasher;

use crate::field::{Ext3, Felt, P};
use crate::merkle::Digest;

const TAG_INIT: u8 = 0x00;
const TAG_FELT: u8 = 0x01;
const TAG_EXT: u8 = 0x02;
const TAG_DIGEST: u8 = 0x03;
const TAG_U64: u8 = 0x04;
const TAG_BYTES: u8 = 0x05;
const TAG_LABEL: u8 = 0x06;
const TAG_SQUEEZE: u8 = 0x07;
const TAG_GRIND: u8 = 0x08;

/// The Fiat–Shamir channel shared by prover and verifier.
#[derive(Clone)]
pub struct Transcript {
    hasher: Hasher,
    /// Unused 8-byte words of the last squeezed block.
    block: [u8; 32],
    block_pos: usize,
}

impl Transcript {
    /// A transcript bound to a protocol domain (e.g. `b"kestrel-stark-v1"`).
    pub fn new(domain: &[u8]) -> Transcript {
        let mut hasher = Hasher::new();
        hasher.update([TAG_INIT]);
        hasher.update((domain.len() as u64).to_le_bytes());
        hasher.update(domain);
        Transcript {
            hasher,
            block: [0; 32],
            block_pos: 32,
        }
    }

    #[inline]
    fn absorb(&mut self, tag: u8, bytes: &[u8]) {
        // Anything absorbed invalidates the rest of the previous block.
        self.block_pos = 32;
        self.hasher.update([tag]);
        self.hasher.update(bytes);
    }

    /// Separates protocol phases; labels are fixed strings, length-prefixed.
    pub fn label(&mut self, label: &[u8]) {
        self.absorb(TAG_LABEL, &(label.len() as u64).to_le_bytes());
        self.hasher.update(label);
    }

    pub fn observe_felt(&mut self, f: Felt) {
        self.absorb(TAG_FELT, &f.as_u64().to_le_bytes());
    }

    pub fn observe_felts(&mut self, fs: &[Felt]) {
        for &f in fs {
            self.observe_felt(f);
        }
    }

    pub fn observe_ext(&mut self, e: Ext3) {
        let mut bytes = [0u8; 24];
        for (chunk, c) in bytes.chunks_exact_mut(8).zip(e.coords()) {
            chunk.copy_from_slice(&c.as_u64().to_le_bytes());
        }
        self.absorb(TAG_EXT, &bytes);
    }

    pub fn observe_exts(&mut self, es: &[Ext3]) {
        for &e in es {
            self.observe_ext(e);
        }
    }

    pub fn observe_digest(&mut self, d: &Digest) {
        self.absorb(TAG_DIGEST, &d.0);
    }

    pub fn observe_u64(&mut self, v: u64) {
        self.absorb(TAG_U64, &v.to_le_bytes());
    }

    pub fn observe_bytes(&mut self, bytes: &[u8]) {
        self.absorb(TAG_BYTES, &(bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
    }

    /// Finalises everything absorbed into a new 32-byte state and returns it.
    pub fn squeeze(&mut self) -> [u8; 32] {
        self.hasher.update([TAG_SQUEEZE]);
        let state: [u8; 32] = self.hasher.finalize_reset();
        self.hasher.update(state);
        self.block_pos = 32;
        state
    }

    fn next_u64(&mut self) -> u64 {
        if self.block_pos >= 32 {
            self.block = self.squeeze();
            self.block_pos = 0;
        }
        let mut w = [0u8; 8];
        w.copy_from_slice(&self.block[self.block_pos..self.block_pos + 8]);
        self.block_pos += 8;
        u64::from_le_bytes(w)
    }

    /// A uniform field element: 64-bit words ≥ p are rejected (probability 2^−32 each).
    pub fn sample_felt(&mut self) -> Felt {
        loop {
            let v = self.next_u64();
            if v < P {
                return Felt::new(v);
            }
        }
    }

    /// A uniform extension element.
    pub fn sample_ext(&mut self) -> Ext3 {
        Ext3::new(self.sample_felt(), self.sample_felt(), self.sample_felt())
    }

    /// A uniform integer in `[0, 2^bits)`; `bits <= 64`.
    pub fn sample_bits(&mut self, bits: u32) -> u64 {
        let v = self.next_u64();
        if bits >= 64 {
            v
        } else {
            v & ((1u64 << bits) - 1)
        }
    }

    /// The challenge a grinding nonce must answer; call once, then [`Self::observe_nonce`].
    pub fn grinding_challenge(&mut self) -> [u8; 32] {
        self.label(b"grind");
        self.squeeze()
    }

    /// Absorbs the accepted nonce.
    pub fn observe_nonce(&mut self, nonce: u64) {
        self.absorb(TAG_GRIND, &nonce.to_le_bytes());
    }
}

/// Whether `nonce` answers `challenge` with at least `bits` leading zero bits of
/// H(challenge ‖ nonce_le) ([`crate::hash`]).
pub fn check_pow(challenge: &[u8; 32], nonce: u64, bits: u32) -> bool {
    let mut h = Hasher::new();
    h.update(challenge);
    h.update(nonce.to_le_bytes());
    let out: [u8; 32] = h.finalize();
    leading_zero_bits(&out) >= bits
}

fn leading_zero_bits(bytes: &[u8; 32]) -> u32 {
    let mut n = 0;
    for &b in bytes {
        if b == 0 {
            n += 8;
        } else {
            return n + b.leading_zeros();
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_observations_same_challenges() {
        let mut a = Transcript::new(b"t");
        let mut b = Transcript::new(b"t");
        a.observe_felt(Felt::new(5));
        b.observe_felt(Felt::new(5));
        assert_eq!(a.sample_ext(), b.sample_ext());
    }

    #[test]
    fn domain_and_kind_separate() {
        let mut a = Transcript::new(b"t1");
        let mut b = Transcript::new(b"t2");
        assert_ne!(a.sample_felt(), b.sample_felt());
        let mut c = Transcript::new(b"t");
        let mut d = Transcript::new(b"t");
        c.observe_felt(Felt::new(5));
        d.observe_u64(5);
        assert_ne!(c.sample_felt(), d.sample_felt());
    }

    #[test]
    fn samples_advance() {
        let mut a = Transcript::new(b"t");
        let x = a.sample_felt();
        let y = a.sample_felt();
        assert_ne!(x, y);
        let mut b = Transcript::new(b"t");
        b.sample_felt();
        b.observe_felt(Felt::ONE);
        let mut c = Transcript::new(b"t");
        c.sample_felt();
        c.observe_felt(Felt::ONE);
        assert_eq!(b.sample_felt(), c.sample_felt());
    }

    #[test]
    fn pow_smallest_nonce() {
        let ch = [7u8; 32];
        let bits = 8;
        let first = (0..).find(|&n| check_pow(&ch, n, bits)).unwrap();
        assert!((0..first).all(|n| !check_pow(&ch, n, bits)));
        assert!(check_pow(&ch, first, bits));
    }
}
