//! Kestrel's shared core (`no_std` + `alloc`): the Goldilocks field and its cubic extension,
//! the Fiat–Shamir transcript, Merkle verification, the AIR framework, proof types,
//! parameters and the security estimator. Used by both the prover and the verifier.
#![no_std]
// No unsafe code, except the calls into the Thumb-2 assembly (the Keccak-p of `keccak32`,
// the Goldilocks multiplication of `field`) on the cores that run it.
#![cfg_attr(
    not(all(target_arch = "arm", target_feature = "thumb2")),
    forbid(unsafe_code)
)]
#![cfg_attr(all(target_arch = "arm", target_feature = "thumb2"), deny(unsafe_code))]

extern crate alloc;

pub mod air;
pub mod field;
pub mod hash;
pub mod isa;
pub mod keccak32;
pub mod keys;
pub mod matrix;
pub mod merkle;
pub mod par;
pub mod params;
pub mod proof;
// MSRV: 1.85 (`rust-version.workspace`), checked by clippy's `incompatible_msrv` and by a CI
// build with Debian's 1.85.
pub mod rv;
pub mod stark;
pub mod transcript;
