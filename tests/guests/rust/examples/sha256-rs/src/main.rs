//! sha256-rs: commits the SHA-256 of the whole private input, as 64 lowercase hex digits and a
//! newline: the same output as the C guest `tests/guests/src/sha256.c` (and `sha256sum`'s
//! first field).
#![no_std]
#![no_main]

use sha2::{Digest, Sha256};

kestrel_guest::entry!(main);

fn main() -> i32 {
    let input = kestrel_guest::read_input();
    let digest = Sha256::digest(&input);
    let mut hex = [0u8; 65];
    for (i, b) in digest.iter().enumerate() {
        hex[2 * i] = HEX[(b >> 4) as usize];
        hex[2 * i + 1] = HEX[(b & 15) as usize];
    }
    hex[64] = b'\n';
    kestrel_guest::commit(&hex);
    0
}

const HEX: &[u8; 16] = b"0123456789abcdef";
