//! Arbitrary bytes as a proof: parsing must return Ok or Err, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = kestrel_verifier::parse_proof(data);
});
