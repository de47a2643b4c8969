//! The hash of every commitment, transcript and key: TurboSHAKE128 with 32-byte output.
//!
//! TurboSHAKE128 (RFC 9861; Bertoni, Daemen, Hoffert, Peeters, Van Assche, Van Keer, Viguier)
//! is the Keccak sponge with capacity 256 bits (rate 168 bytes) over Keccak-p[1600, 12], the
//! last 12 of Keccak-f[1600]'s 24 rounds, by the Keccak team, with a claimed security of 128
//! bits against every attack, collisions included. Kestrel uses the domain byte `0x1F` (the
//! RFC's default) and the first 32 bytes of output. Every figure of the security estimator is
//! capped at 128 bits ([`crate::params::security::HASH_BITS`]), the same as with Keccak-256;
//! the best published attacks on the Keccak permutation reach 6 rounds for collisions and 8
//! for distinguishers of this use, so 12 rounds keep the margin the RFC relies on.
//!
//! Half the rounds and a larger rate make every hash about twice as cheap as Keccak-256:
//! on the verifier's 32-bit cores, where hashing is most of the work, and in the provers'
//! Merkle trees and grinding.
//!
//! [`Hasher`] is this crate's sponge on 64-bit lanes (`keccak::p1600` with 12 rounds) on
//! 64-bit targets and the bit-interleaved sponge of [`crate::keccak32`] on 32-bit cores; the
//! tests check both against `sha3::TurboShake128` at every length.

pub use crate::keccak32::{DOMAIN, RATE, ROUNDS};

#[cfg(target_pointer_width = "32")]
pub use crate::keccak32::Hasher;

#[cfg(not(target_pointer_width = "32"))]
pub use lanes64::Hasher;

/// `H(prefix ‖ a ‖ b)` (65 bytes, one block) without a buffer: what a Merkle node or
/// injection hashes ([`crate::merkle`]).
#[inline]
pub fn hash_prefixed_pair(prefix: u8, a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    #[cfg(target_pointer_width = "32")]
    {
        crate::keccak32::hash_prefixed_pair(prefix, a, b)
    }
    #[cfg(not(target_pointer_width = "32"))]
    {
        lanes64::hash_prefixed_pair(prefix, a, b)
    }
}

#[cfg(not(target_pointer_width = "32"))]
mod lanes64 {
    use super::{DOMAIN, RATE, ROUNDS};
    use crate::keccak32::{pair_head, PAD_BIT, PAD_LANE};

    /// TurboSHAKE128 (domain [`DOMAIN`], 32-byte output), incremental.
    #[derive(Clone)]
    pub struct Hasher {
        state: [u64; 25],
        buf: [u8; RATE],
        pos: usize,
    }

    impl Default for Hasher {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Hasher {
        #[inline(always)]
        pub fn new() -> Hasher {
            Hasher {
                state: [0; 25],
                buf: [0; RATE],
                pos: 0,
            }
        }

        fn absorb_block(&mut self) {
            for (lane, w) in self.state.iter_mut().zip(self.buf.chunks_exact(8)) {
                *lane ^= u64::from_le_bytes(w.try_into().unwrap());
            }
            keccak::p1600(&mut self.state, ROUNDS);
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

        /// [`Hasher::update`] with eight bytes (a field element).
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
            let out = squeeze(&self.state);
            self.state = [0; 25];
            out
        }

        /// The digest.
        #[inline(always)]
        pub fn finalize(mut self) -> [u8; 32] {
            self.finalize_reset()
        }
    }

    fn squeeze(state: &[u64; 25]) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, lane) in out.chunks_exact_mut(8).zip(state) {
            chunk.copy_from_slice(&lane.to_le_bytes());
        }
        out
    }

    pub fn hash_prefixed_pair(prefix: u8, a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
        let head = pair_head(prefix, a, b);
        let mut state = [0u64; 25];
        for (lane, w) in state.iter_mut().zip(head.chunks_exact(8)) {
            *lane = u64::from_le_bytes(w.try_into().unwrap());
        }
        state[PAD_LANE] = PAD_BIT;
        keccak::p1600(&mut state, ROUNDS);
        squeeze(&state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha3::digest::{ExtendableOutput, Update};

    fn reference(data: &[u8]) -> [u8; 32] {
        let mut h = sha3::TurboShake128::from_core(sha3::TurboShake128Core::new(DOMAIN));
        h.update(data);
        let mut out = [0u8; 32];
        h.finalize_xof_into(&mut out);
        out
    }

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// RFC 9861 §5's first TurboSHAKE128 vector: the empty message with D = 0x1F.
    #[test]
    fn rfc_9861_empty_message() {
        let want = [
            0x1E, 0x41, 0x5F, 0x1C, 0x59, 0x83, 0xAF, 0xF2, 0x16, 0x92, 0x17, 0x27, 0x7D, 0x17,
            0xBB, 0x53, 0x8C, 0xD9, 0x45, 0xA3, 0x97, 0xDD, 0xEC, 0x54, 0x1F, 0x1C, 0xE4, 0x1A,
            0xF2, 0xC1, 0xB7, 0x4C,
        ];
        assert_eq!(Hasher::new().finalize(), want);
        assert_eq!(reference(&[]), want);
    }

    #[test]
    fn matches_sha3_turboshake128_at_every_length_and_split() {
        let mut seed = 99;
        let data: alloc::vec::Vec<u8> = (0..800).map(|_| rng(&mut seed) as u8).collect();
        for len in (0..400).chain([503, 504, 671, 672, 800]) {
            let want = reference(&data[..len]);
            let mut h = Hasher::new();
            h.update(&data[..len]);
            assert_eq!(h.finalize(), want, "length {len}");
            // The same bytes in uneven pieces, and a reset hasher reused.
            let mut h = Hasher::new();
            h.update(b"junk");
            h.finalize_reset();
            for piece in data[..len].chunks(1 + len % 37) {
                h.update(piece);
            }
            assert_eq!(h.finalize_reset(), want, "length {len} in pieces");
            // One byte, then eight at a time (as a leaf hasher feeds field elements).
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
        let mut seed = 5;
        for prefix in [0u8, 1, 2, 0xff] {
            for _ in 0..50 {
                let mut m = [0u8; 65];
                m[0] = prefix;
                m[1..].iter_mut().for_each(|x| *x = rng(&mut seed) as u8);
                let a: [u8; 32] = m[1..33].try_into().unwrap();
                let b: [u8; 32] = m[33..].try_into().unwrap();
                assert_eq!(hash_prefixed_pair(prefix, &a, &b), reference(&m));
            }
        }
    }
}
