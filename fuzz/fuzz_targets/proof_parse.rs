//! Arbitrary bytes as a proof, streamed into the verifier for each seed statement (the
//! golden Fibonacci proof's, the range-check proof's, and an RV64IM statement file's, whose
//! statement header is read from the same stream): the verifier returns Ok or Err, never
//! panics or hangs, and accepts only the seed's own proof.
#![no_main]

use kestrel_fuzz::statements;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for s in statements() {
        if s.verify_whole(data).is_ok() {
            assert!(
                data == s.whole(),
                "a proof other than the seed's was accepted"
            );
        }
    }
});
