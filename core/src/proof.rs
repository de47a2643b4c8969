//! Proof types and their byte encoding.
//!
//! Encoding: `MAGIC (4 bytes) ‖ FORMAT_VERSION (u16 LE) ‖ postcard(ProofBody)`. The body
//! starts with the parameter set. Field elements are fixed 8-byte little-endian words and
//! must be canonical. Parsing (in `kestrel-verifier`) checks the header, decodes the body,
//! rejects trailing bytes, then checks every length against the shape the parameters and
//! the AIR imply before any arithmetic.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

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
    pub values: Vec<Felt>,
    pub path: Vec<Digest>,
}

/// One table's values at the out-of-domain point `ζ` and at `ζ·ω` (the next row).
/// Auxiliary and quotient columns are given per base coordinate column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableOod {
    pub pre: Vec<Ext3>,
    pub pre_next: Vec<Ext3>,
    pub main: Vec<Ext3>,
    pub main_next: Vec<Ext3>,
    pub aux: Vec<Ext3>,
    pub aux_next: Vec<Ext3>,
    pub quotient: Vec<Ext3>,
}

/// One FRI layer's answer to one query: the sibling of the folded pair, and the path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FriStep {
    pub sibling: Ext3,
    pub path: Vec<Digest>,
}

/// Everything opened for one query index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryProof {
    /// Per table, in round order: preprocessed (if any), main, aux (if any), quotient.
    pub tables: Vec<Vec<Opening>>,
    /// Per committed FRI layer.
    pub fri: Vec<FriStep>,
}

/// The proof, after the header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofBody {
    pub params: StarkParams,
    /// Merkle roots of the preprocessed tables' LDEs, in table order; their digest with
    /// the parameters must equal the verifying key.
    pub preprocessed_roots: Vec<Digest>,
    /// log2 of each table's height, in the machine's table order.
    pub log_heights: Vec<u8>,
    pub main_roots: Vec<Digest>,
    /// LogUp total of each table with interactions, in table order.
    pub totals: Vec<Ext3>,
    /// Auxiliary commitment of each table with interactions, in table order.
    pub aux_roots: Vec<Digest>,
    pub quotient_roots: Vec<Digest>,
    pub ood: Vec<TableOod>,
    pub fri_roots: Vec<Digest>,
    /// Coefficients of FRI's final polynomial.
    pub final_poly: Vec<Ext3>,
    pub pow_nonce: u64,
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
