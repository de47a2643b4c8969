//! Structure-aware mutations of real proofs (`kestrel_fuzz::mutate`): the proof is decoded
//! with the tests' decoder (`kestrel_tests::codec`, not a verifier), one to eight fields are changed (parameters, nonce, every list at
//! every depth: lengths, counts, order, values), the body is re-encoded with
//! `ProofBody::to_bytes`, and optionally a byte patch is XOR-ed in on top (which reaches the
//! encoding itself: counts, non-canonical elements). The streaming verifier must reject every
//! changed proof and accept an unchanged one, without panicking. The statements include an
//! RV64IM proof file, verified with `verify_statement_stream`.
#![no_main]

use arbitrary::Unstructured;
use kestrel_fuzz::{mutate::mutate, statements};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let all = statements();
    let Ok(i) = u.choose_index(all.len()) else {
        return;
    };
    let s = &all[i];
    let mut body = kestrel_tests::codec::decode_proof(&s.proof).expect("seed proof decodes");
    if mutate(&mut body, &mut u).is_err() {
        return;
    }
    let mut bytes = body.to_bytes();
    // A raw patch on top: offset (u16) and XOR bytes from what is left of the input.
    if u.arbitrary::<bool>().unwrap_or(false) && !bytes.is_empty() {
        let off = u.arbitrary::<u16>().unwrap_or(0) as usize % bytes.len();
        for (b, x) in bytes[off..].iter_mut().zip(u.take_rest()) {
            *b ^= x;
        }
    }
    let verdict = s.verify(&bytes);
    if bytes == s.proof {
        assert!(
            verdict.is_ok(),
            "an unchanged proof was rejected: {verdict:?}"
        );
    } else {
        assert!(verdict.is_err(), "a changed proof was accepted");
    }
});
