//! Proof types and their byte encoding.
//!
//! Encoding: `MAGIC (4 bytes) ‖ FORMAT_VERSION (u16 LE) ‖ postcard(ProofBody)`. The body
//! starts with the parameter set. Field elements are fixed 8-byte little-endian words and
//! must be canonical. Parsing (in `kestrel-verifier`) checks the header, decodes the body,
//! rejects trailing bytes, then checks every length against the shape the parameters and
//! the AIR imply before any arithmetic.

use alloc::vec::Vec;
use core::marker::PhantomData;

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::field::{Ext3, Felt};
use crate::merkle::Digest;
use crate::params::StarkParams;

pub const MAGIC: [u8; 4] = *b"KSTL";
pub const FORMAT_VERSION: u16 = 1;
/// Bytes before the postcard body.
pub const HEADER_LEN: usize = 6;

/// A Merkle opening of one row of a committed matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    #[serde(deserialize_with = "seq")]
    pub values: Vec<Felt>,
    #[serde(deserialize_with = "seq")]
    pub path: Vec<Digest>,
}

/// One table's values at the out-of-domain point `ζ` and at `ζ·ω` (the next row).
/// Auxiliary and quotient columns are given per base coordinate column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableOod {
    #[serde(deserialize_with = "seq")]
    pub pre: Vec<Ext3>,
    #[serde(deserialize_with = "seq")]
    pub pre_next: Vec<Ext3>,
    #[serde(deserialize_with = "seq")]
    pub main: Vec<Ext3>,
    #[serde(deserialize_with = "seq")]
    pub main_next: Vec<Ext3>,
    #[serde(deserialize_with = "seq")]
    pub aux: Vec<Ext3>,
    #[serde(deserialize_with = "seq")]
    pub aux_next: Vec<Ext3>,
    #[serde(deserialize_with = "seq")]
    pub quotient: Vec<Ext3>,
}

/// One FRI layer's answer to one query: the sibling of the folded pair, and the path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FriStep {
    pub sibling: Ext3,
    #[serde(deserialize_with = "seq")]
    pub path: Vec<Digest>,
}

/// Everything opened for one query index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryProof {
    /// Per table, in round order: preprocessed (if any), main, aux (if any), quotient.
    #[serde(deserialize_with = "seq_of_seq")]
    pub tables: Vec<Vec<Opening>>,
    /// Per committed FRI layer.
    #[serde(deserialize_with = "seq")]
    pub fri: Vec<FriStep>,
}

/// The proof, after the header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofBody {
    pub params: StarkParams,
    /// Merkle roots of the preprocessed tables' LDEs, in table order; their digest with
    /// the parameters must equal the verifying key.
    #[serde(deserialize_with = "seq")]
    pub preprocessed_roots: Vec<Digest>,
    /// log2 of each table's height, in the machine's table order.
    #[serde(deserialize_with = "seq")]
    pub log_heights: Vec<u8>,
    #[serde(deserialize_with = "seq")]
    pub main_roots: Vec<Digest>,
    /// LogUp total of each table with interactions, in table order.
    #[serde(deserialize_with = "seq")]
    pub totals: Vec<Ext3>,
    /// Auxiliary commitment of each table with interactions, in table order.
    #[serde(deserialize_with = "seq")]
    pub aux_roots: Vec<Digest>,
    #[serde(deserialize_with = "seq")]
    pub quotient_roots: Vec<Digest>,
    #[serde(deserialize_with = "seq")]
    pub ood: Vec<TableOod>,
    #[serde(deserialize_with = "seq")]
    pub fri_roots: Vec<Digest>,
    /// Coefficients of FRI's final polynomial.
    #[serde(deserialize_with = "seq")]
    pub final_poly: Vec<Ext3>,
    pub pow_nonce: u64,
    #[serde(deserialize_with = "seq")]
    pub queries: Vec<QueryProof>,
}

impl ProofBody {
    /// The proof's bytes: header, then the postcard body.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        // Serialising into a Vec cannot fail: every type here has a total encoding.
        let body = postcard::to_allocvec(self).unwrap_or_default();
        out.extend_from_slice(&body);
        out
    }
}

/// Deserialises a list reserving at most [`MAX_PREALLOC`] bytes for the count its length
/// prefix claims; beyond that, memory grows only with elements actually decoded, so a
/// hostile length costs at most 4 KiB per list (serde's default reserves up to 1 MiB).
fn seq<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    d.deserialize_seq(SeqVisitor(PhantomData))
}

/// [`seq`] for a list of lists.
fn seq_of_seq<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Vec<Vec<T>>, D::Error> {
    let outer: Vec<Seq<T>> = seq(d)?;
    Ok(outer.into_iter().map(|s| s.0).collect())
}

/// Bytes a list may reserve before its elements are read.
const MAX_PREALLOC: usize = 4096;

struct Seq<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Seq<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        seq(d).map(Seq)
    }
}

struct SeqVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for SeqVisitor<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Vec<T>, A::Error> {
        let cap = a
            .size_hint()
            .unwrap_or(0)
            .min(MAX_PREALLOC / core::mem::size_of::<T>().max(1));
        let mut out = Vec::with_capacity(cap);
        while let Some(x) = a.next_element()? {
            out.push(x);
        }
        Ok(out)
    }
}
