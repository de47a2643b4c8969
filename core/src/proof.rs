//! Proof types and their byte encoding (proof format version 7).
//!
//! The prover builds a [`ProofBody`] and writes it with [`ProofBody::to_bytes`]; the
//! verifier (`kestrel-verifier`) never builds one: it reads the same bytes as a stream,
//! record by record, in the order below, and keeps only what later steps need.
//!
//! Every integer is little-endian. A list is `count: u32` then `count` elements. A field
//! element ([`Felt`]) is a u64 that must be canonical (below p); an [`Ext3`] is its three
//! coordinates `c0 ‖ c1 ‖ c2`; a [`Digest`] is 32 raw bytes.
//!
//! ```text
//! magic               "KSTL"                                   4
//! version             u16 = FORMAT_VERSION (9)                 2
//! params              log_blowup u8, num_queries u16,          5
//!                     pow_bits u8, log_final_poly_len u8
//! log_heights         list<u8>
//! preprocessed_cap    list<Digest>
//! main_cap            list<Digest>
//! totals              list<Ext3>
//! aux_cap             list<Digest>
//! quotient_cap        list<Digest>
//! ood                 list<TableOod>    TableOod = 7 × list<Ext3>: pre, pre_next, main,
//!                                                  main_next, aux, aux_next, quotient
//! fri_caps            list<list<Digest>>
//! final_poly          list<Ext3>
//! pow_nonce           u64
//! queries             list<Query>       Query    = list<list<list<Felt>>> rows (per
//!                                                  table, per matrix), list<list<Digest>>
//!                                                  paths (per round that has matrices),
//!                                                  list<FriStep>
//!                                       FriStep  = list<Ext3> siblings (the layer's
//!                                                  coset but the query's own value),
//!                                                  list<Digest> path
//! ```
//!
//! Each round (preprocessed, main, aux, quotient) is one mixed-matrix Merkle tree over all
//! its tables' matrices, committed by its cap ([`crate::merkle`]); a query opens one row of
//! every matrix and one path per round. A round no table commits to has an empty cap and
//! no path.
//!
//! The queries come in increasing order of position (the positions drawn from the
//! transcript, sorted; a position drawn twice is opened twice). Each path, of a round or a
//! FRI layer, carries only its siblings below the step where it meets the previous query's
//! path in the same tree ([`crate::merkle::meet`]), and a table whose row the previous
//! query opened (`q >> (log max LDE − log LDE)` equal for both) has no rows (an empty
//! list): from format 7 on, shared nodes and repeated rows are sent once. Format 9 has
//! format 7's layout; its digests and challenges are TurboSHAKE128's ([`crate::hash`]; 7
//! used Keccak-256), so a format 7 file is refused by its version rather than failing at
//! its first digest.
//!
//! Nothing follows the last query. Every count is fixed by the parameters, the heights, the
//! AIR and the query positions; the verifier compares each one with the count it expects
//! before reading the elements.

use alloc::vec::Vec;

use crate::field::{Ext3, Felt};
use crate::merkle::Digest;
use crate::params::StarkParams;
use serde::Serialize;

pub const MAGIC: [u8; 4] = *b"KSTL";
pub const FORMAT_VERSION: u16 = 9;
/// Bytes of the header: magic and version.
pub const HEADER_LEN: usize = 6;
/// Bytes of the encoded parameter set.
pub const PARAMS_LEN: usize = 5;
/// Bytes of a list's count.
pub const COUNT_LEN: usize = 4;
/// Bytes of an encoded [`Felt`].
pub const FELT_LEN: usize = 8;
/// Bytes of an encoded [`Ext3`].
pub const EXT_LEN: usize = 24;
/// Bytes of an encoded [`Digest`].
pub const DIGEST_LEN: usize = 32;

/// One table's values at the out-of-domain point `ζ` and at `ζ·ω` (the next row).
/// Auxiliary and quotient columns are given per base coordinate column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TableOod {
    pub pre: Vec<Ext3>,
    pub pre_next: Vec<Ext3>,
    pub main: Vec<Ext3>,
    pub main_next: Vec<Ext3>,
    pub aux: Vec<Ext3>,
    pub aux_next: Vec<Ext3>,
    pub quotient: Vec<Ext3>,
}

impl TableOod {
    /// The seven lists in the order the proof writes them and the transcript absorbs them.
    pub fn lists(&self) -> [&Vec<Ext3>; 7] {
        [
            &self.pre,
            &self.pre_next,
            &self.main,
            &self.main_next,
            &self.aux,
            &self.aux_next,
            &self.quotient,
        ]
    }
}

/// One FRI layer's answer to one query: the other `2^a − 1` values of the query's coset
/// (the layer's leaf, in leaf order without the query's own value, which the verifier
/// computes) and the leaf's path up to below the layer's cap
/// ([`crate::stark::FriShape`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FriStep {
    pub siblings: Vec<Ext3>,
    pub path: Vec<Digest>,
}

/// Everything opened for one query index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct QueryProof {
    /// The opened rows: per table, in round order: preprocessed (if any), main, aux (if
    /// any), quotient.
    pub tables: Vec<Vec<Vec<Felt>>>,
    /// One path per round that has matrices (preprocessed, main, aux, quotient), leaf up
    /// to below the cap.
    pub paths: Vec<Vec<Digest>>,
    /// Per committed FRI layer.
    pub fri: Vec<FriStep>,
}

/// A proof's encoded size by part (bytes, counts included); the parts sum to
/// [`ProofBody::encoded_len`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SizeParts {
    /// The queries' opened rows.
    pub opened_values: usize,
    /// The queries' round paths.
    pub merkle_paths: usize,
    /// FRI: the layers' caps, the final polynomial, and the queries' FRI steps.
    pub fri: usize,
    /// The out-of-domain values.
    pub ood: usize,
    /// Everything else: header, parameters, heights, round caps, totals, nonce, counts.
    pub other: usize,
}

/// The proof as the prover assembles it, before it is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ProofBody {
    pub params: StarkParams,
    /// Cap of the preprocessed round's tree; its digest with the parameters must equal the
    /// verifying key.
    pub preprocessed_cap: Vec<Digest>,
    /// log2 of each table's height, in the machine's table order.
    pub log_heights: Vec<u8>,
    pub main_cap: Vec<Digest>,
    /// LogUp total of each table with interactions, in table order.
    pub totals: Vec<Ext3>,
    /// Cap of the aux round's tree (tables with interactions).
    pub aux_cap: Vec<Digest>,
    pub quotient_cap: Vec<Digest>,
    pub ood: Vec<TableOod>,
    /// Cap of each committed FRI layer's tree.
    pub fri_caps: Vec<Vec<Digest>>,
    /// Coefficients of FRI's final polynomial.
    pub final_poly: Vec<Ext3>,
    pub pow_nonce: u64,
    pub queries: Vec<QueryProof>,
}

/// Appends the encodings of the format's elements to a byte vector.
struct Writer(Vec<u8>);

impl Writer {
    fn header(&mut self, version: u16, p: &StarkParams) {
        self.0.extend_from_slice(&MAGIC);
        self.0.extend_from_slice(&version.to_le_bytes());
        self.0.push(p.log_blowup);
        self.0.extend_from_slice(&p.num_queries.to_le_bytes());
        self.0.push(p.pow_bits);
        self.0.push(p.log_final_poly_len);
    }
    fn heights(&mut self, h: &[u8]) {
        self.count(h.len());
        self.0.extend_from_slice(h);
    }
    fn count(&mut self, n: usize) {
        // Every list is bounded far below 2^32 (the prover's shapes); saturate regardless.
        self.0
            .extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
    }
    fn felt(&mut self, f: Felt) {
        self.0.extend_from_slice(&f.as_u64().to_le_bytes());
    }
    fn ext(&mut self, e: Ext3) {
        for c in e.coords() {
            self.felt(c);
        }
    }
    fn digests(&mut self, ds: &[Digest]) {
        self.count(ds.len());
        for d in ds {
            self.0.extend_from_slice(&d.0);
        }
    }
    fn exts(&mut self, es: &[Ext3]) {
        self.count(es.len());
        for &e in es {
            self.ext(e);
        }
    }
}

impl ProofBody {
    /// The proof's bytes in format version 7 (the module's layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(Vec::with_capacity(self.encoded_len()));
        w.header(FORMAT_VERSION, &self.params);
        w.heights(&self.log_heights);
        w.digests(&self.preprocessed_cap);
        w.digests(&self.main_cap);
        self.write_after_main(&mut w);
        w.0
    }

    /// Everything after the main cap, from the totals to the last query.
    fn write_after_main(&self, w: &mut Writer) {
        w.exts(&self.totals);
        w.digests(&self.aux_cap);
        w.digests(&self.quotient_cap);
        w.count(self.ood.len());
        for o in &self.ood {
            for l in o.lists() {
                w.exts(l);
            }
        }
        w.count(self.fri_caps.len());
        for c in &self.fri_caps {
            w.digests(c);
        }
        w.exts(&self.final_poly);
        w.0.extend_from_slice(&self.pow_nonce.to_le_bytes());
        w.count(self.queries.len());
        for q in &self.queries {
            w.count(q.tables.len());
            for t in &q.tables {
                w.count(t.len());
                for row in t {
                    w.count(row.len());
                    for &v in row {
                        w.felt(v);
                    }
                }
            }
            w.count(q.paths.len());
            for p in &q.paths {
                w.digests(p);
            }
            w.count(q.fri.len());
            for s in &q.fri {
                w.exts(&s.siblings);
                w.digests(&s.path);
            }
        }
    }

    /// The length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        let p = self.size_parts();
        p.opened_values + p.merkle_paths + p.fri + p.ood + p.other
    }

    /// The encoded size by part.
    pub fn size_parts(&self) -> SizeParts {
        let list = |n: usize, each: usize| COUNT_LEN + n * each;
        let mut p = SizeParts {
            other: HEADER_LEN + PARAMS_LEN,
            ..SizeParts::default()
        };
        p.other += list(self.preprocessed_cap.len(), DIGEST_LEN);
        p.other += list(self.log_heights.len(), 1);
        p.other += list(self.main_cap.len(), DIGEST_LEN);
        p.other += list(self.totals.len(), EXT_LEN);
        p.other += list(self.aux_cap.len(), DIGEST_LEN);
        p.other += list(self.quotient_cap.len(), DIGEST_LEN);
        p.ood += COUNT_LEN;
        for o in &self.ood {
            p.ood += o
                .lists()
                .iter()
                .map(|l| list(l.len(), EXT_LEN))
                .sum::<usize>();
        }
        p.fri += COUNT_LEN;
        for c in &self.fri_caps {
            p.fri += list(c.len(), DIGEST_LEN);
        }
        p.fri += list(self.final_poly.len(), EXT_LEN);
        p.other += 8 + COUNT_LEN;
        for q in &self.queries {
            p.opened_values += COUNT_LEN;
            for t in &q.tables {
                p.opened_values += COUNT_LEN;
                for row in t {
                    p.opened_values += list(row.len(), FELT_LEN);
                }
            }
            p.merkle_paths += COUNT_LEN;
            for path in &q.paths {
                p.merkle_paths += list(path.len(), DIGEST_LEN);
            }
            p.fri += COUNT_LEN;
            for s in &q.fri {
                p.fri += list(s.siblings.len(), EXT_LEN) + list(s.path.len(), DIGEST_LEN);
            }
        }
        p
    }
}

/// The format version of a segmented run's proof ([`SegmentedProof`]).
pub const SEGMENTED_FORMAT_VERSION: u16 = 10;

/// A segmented run's proof (format version 10: format 8's layout, hashed as format 9): one part per segment, in execution order,
/// then the run part, all under the LogUp challenges drawn after every part's main cap
/// ([`crate::stark::RunRounds`]). Each part is a [`ProofBody`] of its tables (the run
/// part's carries the preprocessed cap; the segments' have none), with the same
/// parameters.
///
/// ```text
/// magic, version (10), params         as format 9
/// preprocessed_cap    list<Digest>
/// parts               u32             segments + 1
/// phase 1, per part   log_heights list<u8>, main_cap list<Digest>
/// phase 2, per part   log_heights list<u8>, main_cap list<Digest>, then format 9's
///                     records from totals to the last query
/// ```
///
/// Phase 2 repeats each part's heights and main cap so that a verifier holds none of
/// phase 1: it keeps a running digest of what phase 1 listed and checks that phase 2
/// lists the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentedProof {
    pub params: StarkParams,
    pub preprocessed_cap: Vec<Digest>,
    /// The segments' parts in execution order, then the run part.
    pub parts: Vec<ProofBody>,
}

impl SegmentedProof {
    /// The proof's bytes (the type's layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(Vec::with_capacity(self.encoded_len()));
        w.header(SEGMENTED_FORMAT_VERSION, &self.params);
        w.digests(&self.preprocessed_cap);
        w.count(self.parts.len());
        for p in &self.parts {
            w.heights(&p.log_heights);
            w.digests(&p.main_cap);
        }
        for p in &self.parts {
            w.heights(&p.log_heights);
            w.digests(&p.main_cap);
            p.write_after_main(&mut w);
        }
        w.0
    }

    /// The length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        let p = self.size_parts();
        p.opened_values + p.merkle_paths + p.fri + p.ood + p.other
    }

    /// The encoded size by part, summed over the parts.
    pub fn size_parts(&self) -> SizeParts {
        let mut sum = SizeParts {
            other: HEADER_LEN
                + PARAMS_LEN
                + COUNT_LEN
                + COUNT_LEN
                + self.preprocessed_cap.len() * DIGEST_LEN,
            ..SizeParts::default()
        };
        for p in &self.parts {
            let s = p.size_parts();
            let phase1 = 2 * COUNT_LEN + p.log_heights.len() + p.main_cap.len() * DIGEST_LEN;
            sum.opened_values += s.opened_values;
            sum.merkle_paths += s.merkle_paths;
            sum.fri += s.fri;
            sum.ood += s.ood;
            // Each part's own header, parameters and preprocessed cap are not written;
            // its heights and main cap are written twice.
            sum.other += s.other
                - HEADER_LEN
                - PARAMS_LEN
                - COUNT_LEN
                - p.preprocessed_cap.len() * DIGEST_LEN
                + phase1;
        }
        sum
    }
}
