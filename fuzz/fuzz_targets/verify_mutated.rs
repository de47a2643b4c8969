//! Structure-aware mutations of real proofs (`kestrel_fuzz::mutate`): the proof is decoded
//! with `parse_proof`, one to eight fields are changed (parameters, nonce, every list at
//! every depth: lengths, counts, order, values), the body is re-encoded with
//! `ProofBody::to_bytes`, and optionally a byte patch is XOR-ed in on top (which reaches the
//! encoding itself: length prefixes, tags, non-canonical elements). Verification must reject
//! every changed proof and accept an unchanged one, without panicking.
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
    let mut body = kestrel_verifier::parse_proof(&s.proof).expect("seed proof parses");
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
    let verdict = kestrel_verifier::verify(s.machine, &s.vk, &s.public, &bytes);
    if bytes == s.proof {
        assert!(
            verdict.is_ok(),
            "an unchanged proof was rejected: {verdict:?}"
        );
    } else {
        assert!(verdict.is_err(), "a changed proof was accepted");
    }
});
