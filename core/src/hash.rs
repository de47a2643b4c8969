//! The hash of every commitment, transcript and key: TurboSHAKE128 with 32-byte output.
//!
//! TurboSHAKE128 (RFC 9861; Bertoni, Daemen, Hoffert, Peeters, Van Assche, Van Keer, Viguier)
//! is the Keccak sponge with capacity 256 bits (rate 168 bytes) over Keccak-p[1600, 12], the
//! last 12 of Keccak-f[1600]'s 24 rounds, by the Keccak team, with a claimed security of 128
//! bits against every attack, collisions included. Kestrel uses the domain byte `0x1F` (the
//! RFC's default) and the first 32 bytes of output. Every figure of the security estimator is
//! capped at 128 bits ([`crate::params::security::HASH_BITS`]), the same as with Keccak-256.
//! The best published collision attacks on round-reduced Keccak reach 6 rounds, half of the
//! 12 used here: the margin the RFC and KangarooTwelve rely on. Doubting that margin means
//! going back to Keccak-256 (24 rounds, rate 136, padding byte `0x01`): this module, the
//! sponge in [`crate::keccak32`] and `kernels/keccak.cuh` hold every difference.
//!
//! Half the rounds and a larger rate make every hash about twice as cheap as Keccak-256:
//! on the verifier's 32-bit cores, where hashing is most of the work, and in the provers'
//! Merkle trees and grinding.
//!
//! [`Hasher`] is this crate's sponge on 64-bit lanes (`keccak::p1600` with 12 rounds) on
//! 64-bit targets and the bit-interleaved sponge of [`crate::keccak32`] on 32-bit cores; the
//! tests check both against `sha3::TurboShake128` at every length.

pub use crate::keccak32::{DOMAIN, RATE, ROUNDS};

// `Hasher` and `hash_prefixed_pair` (`H(prefix ‖ a ‖ b)`, 65 bytes, one block, without a
// buffer: what a Merkle node or injection hashes) for this target.
#[cfg(target_pointer_width = "32")]
pub use crate::keccak32::{hash_prefixed_pair, Hasher};

#[cfg(not(target_pointer_width = "32"))]
pub use lanes64::{hash_prefixed_pair, Hasher};

#[cfg(not(target_pointer_width = "32"))]
mod lanes64 {
    use super::{RATE, ROUNDS};
    use crate::keccak32::{pair_head, Permutation, Sponge, PAD_BIT, PAD_LANE};

    /// The plain state of 64-bit lanes as the sponge's [`Permutation`].
    #[derive(Clone)]
    pub struct Lanes([u64; 25]);

    impl Permutation for Lanes {
        #[inline(always)]
        fn zero() -> Self {
            Lanes([0; 25])
        }

        #[inline]
        fn absorb(&mut self, block: &[u8; RATE]) {
            for (lane, w) in self.0.iter_mut().zip(block.chunks_exact(8)) {
                *lane ^= u64::from_le_bytes(w.try_into().unwrap());
            }
            keccak::p1600(&mut self.0, ROUNDS);
        }

        fn digest(&self) -> [u8; 32] {
            squeeze(&self.0)
        }
    }

    /// TurboSHAKE128 on 64-bit lanes.
    pub type Hasher = Sponge<Lanes>;

    fn squeeze(state: &[u64; 25]) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, lane) in out.chunks_exact_mut(8).zip(state) {
            chunk.copy_from_slice(&lane.to_le_bytes());
        }
        out
    }

    /// TurboSHAKE128 of `prefix ‖ a ‖ b` on 64-bit lanes.
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
    use crate::keccak32::tests::{pairs_match_sha3, reference, sponge_matches_sha3};

    /// RFC 9861 §5's first TurboSHAKE128 vector: the empty message with D = 0x1F.
    #[test]
    fn rfc_9861_empty_message() {
        let want = [
            0x1E, 0x41, 0x5F, 0x1C, 0x59, 0x83, 0xAF, 0xF2, 0x16, 0x92, 0x17, 0x27, 0x7D, 0x17,
            0xBB, 0x53, 0x8C, 0xD9, 0x45, 0xA3, 0x97, 0xDD, 0xEC, 0x54, 0x1F, 0x1C, 0xE4, 0x1A,
            0xF2, 0xC1, 0xB7, 0x4C,
        ];
        assert_eq!(Hasher::new().finalize(), want);
        assert_eq!(crate::keccak32::Hasher::new().finalize(), want);
        assert_eq!(reference(&[]), want);
    }

    #[test]
    fn matches_sha3_turboshake128_at_every_length_and_split() {
        #[cfg(not(target_pointer_width = "32"))]
        sponge_matches_sha3::<lanes64::Lanes>();
        #[cfg(target_pointer_width = "32")]
        sponge_matches_sha3::<crate::keccak32::Interleaved>();
    }

    #[test]
    fn prefixed_pairs_match_sha3() {
        pairs_match_sha3(hash_prefixed_pair);
    }
}
