//! A decoder of proof format version 2 into an owned [`ProofBody`], for the tests and the
//! fuzzer's structure-aware mutator only: they change a proof field by field and write it
//! back with [`ProofBody::to_bytes`]. It is not a verifier and checks nothing the format
//! does not fix (counts are whatever the bytes say, bounded by the bytes left); the
//! verifier (`kestrel_verifier::verify_stream`) reads proofs without it.

use kestrel_core::field::{Ext3, Felt};
use kestrel_core::merkle::Digest;
use kestrel_core::params::StarkParams;
use kestrel_core::proof::{FriStep, ProofBody, QueryProof, TableOod, FORMAT_VERSION, MAGIC};

struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_at_checked(N)?;
        self.0 = rest;
        head.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take::<1>()?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take()?))
    }
    fn felt(&mut self) -> Option<Felt> {
        Felt::from_canonical(self.u64()?)
    }
    fn ext(&mut self) -> Option<Ext3> {
        Some(Ext3::new(self.felt()?, self.felt()?, self.felt()?))
    }
    fn digest(&mut self) -> Option<Digest> {
        Some(Digest(self.take()?))
    }
    /// A list: the count, then as many elements (at most one per byte left).
    fn list<T>(&mut self, mut each: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n = u32::from_le_bytes(self.take()?) as usize;
        if n > self.0.len() {
            return None;
        }
        (0..n).map(|_| each(self)).collect()
    }
}

/// Decodes proof bytes written by [`ProofBody::to_bytes`]; `None` unless the bytes are
/// exactly such an encoding.
pub fn decode_proof(bytes: &[u8]) -> Option<ProofBody> {
    let mut c = Cursor(bytes);
    if c.take::<4>()? != MAGIC || c.u16()? != FORMAT_VERSION {
        return None;
    }
    let params = StarkParams {
        log_blowup: c.u8()?,
        num_queries: c.u16()?,
        pow_bits: c.u8()?,
        log_final_poly_len: c.u8()?,
    };
    let body = ProofBody {
        params,
        log_heights: c.list(Cursor::u8)?,
        preprocessed_cap: c.list(Cursor::digest)?,
        main_cap: c.list(Cursor::digest)?,
        totals: c.list(Cursor::ext)?,
        aux_cap: c.list(Cursor::digest)?,
        quotient_cap: c.list(Cursor::digest)?,
        ood: c.list(|c| {
            Some(TableOod {
                pre: c.list(Cursor::ext)?,
                pre_next: c.list(Cursor::ext)?,
                main: c.list(Cursor::ext)?,
                main_next: c.list(Cursor::ext)?,
                aux: c.list(Cursor::ext)?,
                aux_next: c.list(Cursor::ext)?,
                quotient: c.list(Cursor::ext)?,
            })
        })?,
        fri_caps: c.list(|c| c.list(Cursor::digest))?,
        final_poly: c.list(Cursor::ext)?,
        pow_nonce: c.u64()?,
        queries: c.list(|c| {
            Some(QueryProof {
                tables: c.list(|c| c.list(|c| c.list(Cursor::felt)))?,
                paths: c.list(|c| c.list(Cursor::digest))?,
                fri: c.list(|c| {
                    Some(FriStep {
                        siblings: c.list(Cursor::ext)?,
                        path: c.list(Cursor::digest)?,
                    })
                })?,
            })
        })?,
    };
    c.0.is_empty().then_some(body)
}
