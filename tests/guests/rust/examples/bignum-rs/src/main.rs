//! bignum-rs: 256-bit modular exponentiation with the `crypto-bigint` crate (0.5, no default
//! features). The private input is 96 bytes: BASE, EXPONENT and MODULUS, each 32 bytes
//! big-endian; the modulus must be odd (Montgomery form). Commits BASE^EXPONENT mod MODULUS as
//! 64 lowercase hex digits and a newline. Any other input (not 96 bytes, or an even modulus):
//! exit code 1 and nothing committed. The cycle count grows with the exponent's bit length.
#![no_std]
#![no_main]

use crypto_bigint::modular::runtime_mod::{DynResidue, DynResidueParams};
use crypto_bigint::{Encoding, Integer, U256};

kestrel_guest::entry!(main);

fn main() -> i32 {
    let input = kestrel_guest::read_input();
    if input.len() != 96 {
        kestrel_guest::debug("bignum-rs: input must be 96 bytes\n");
        return 1;
    }
    let base = U256::from_be_slice(&input[..32]);
    let exp = U256::from_be_slice(&input[32..64]);
    let modulus = U256::from_be_slice(&input[64..]);
    if !bool::from(modulus.is_odd()) {
        kestrel_guest::debug("bignum-rs: the modulus must be odd\n");
        return 1;
    }
    let params = DynResidueParams::new(&modulus);
    // Only the exponent's significant bits (crypto-bigint's `pow` always walks all 256): the
    // cycle count then depends on the exponent's bit length, which is no secret to the prover.
    let result = DynResidue::new(&base, params)
        .pow_bounded_exp(&exp, exp.bits_vartime())
        .retrieve();
    let bytes = result.to_be_bytes();
    let mut hex = [0u8; 65];
    for (i, b) in bytes.iter().enumerate() {
        hex[2 * i] = HEX[(b >> 4) as usize];
        hex[2 * i + 1] = HEX[(b & 15) as usize];
    }
    hex[64] = b'\n';
    kestrel_guest::commit(&hex);
    0
}

const HEX: &[u8; 16] = b"0123456789abcdef";
