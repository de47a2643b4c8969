//! Merkle trees (hashed with TurboSHAKE128, [`crate::hash`]) over the rows of committed matrices.
//!
//! A row's digest is `H(0x00 ‖ row[0]_le ‖ row[1]_le ‖ …)` with canonical
//! little-endian u64s ([`hash_leaf`]). An inner node is `H(0x01 ‖ left ‖ right)`
//! ([`hash_node`]); an injection is `H(0x02 ‖ acc ‖ d)` ([`hash_inject`]). The
//! prefixes keep a row digest, a node and an injection apart.
//!
//! # The mixed-matrix tree of one round
//!
//! A round (preprocessed, main, aux, quotient) commits all its matrices `M_0, M_1, …` (in
//! table order; each an LDE of `2^{h_t}` bit-reversed rows) in ONE tree of `2^L` leaves,
//! `L = max h_t`. Level `ℓ` has `2^ℓ` nodes; the leaf level is `ℓ = L`:
//!
//! - `N_L[i] = d_a(i)` injected with `d_b(i), d_c(i), …`, where `a < b < c < …` are the
//!   matrices of height `2^L` in table order and `d_t(i) = hash_leaf(M_t row i)`;
//! - for `ℓ < L`: `N_ℓ[i] = hash_node(N_{ℓ+1}[2i], N_{ℓ+1}[2i+1])`, then injected, in table
//!   order, with `d_t(i)` of every matrix `t` with `h_t = ℓ`;
//!
//! where "`x` injected with `d`" is `hash_inject(x, d)`. A query at leaf index `q` (of the
//! round's `2^L`) opens row `q >> (L − h_t)` of every matrix `t`, and ONE path: the
//! siblings `N_ℓ[(q >> (L−ℓ)) ^ 1]` for `ℓ = L, L−1, …, c+1`.
//!
//! # Caps
//!
//! A tree is committed by its cap: the `2^c` nodes of level `c` (`c = 0`: the root), in
//! index order. A path stops below the cap, and the verifier checks the node it reaches
//! against cap entry `q >> (L − c)`. A round's `c` is at most its smallest `h_t`, so every
//! matrix is injected below the cap ([`crate::stark::round_cap_bits`]). Caps change no
//! soundness bound: a cap is `2^c` roots of `2^c` subtrees, each binding as a Merkle root.

use crate::hash::Hasher;
use serde::{Deserialize, Serialize};

use crate::field::{Ext3, Felt};

const LEAF_PREFIX: u8 = 0x00;
const NODE_PREFIX: u8 = 0x01;
const INJECT_PREFIX: u8 = 0x02;

/// A 32-byte digest ([`crate::hash`]).
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Digest(pub [u8; 32]);

impl core::fmt::Debug for Digest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in &self.0[..6] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…")
    }
}

/// Hashes one matrix row.
#[inline]
pub fn hash_leaf(row: &[Felt]) -> Digest {
    let mut h = LeafHasher::new();
    for &f in row {
        h.felt(f);
    }
    h.finish()
}

/// [`hash_leaf`] fed one element at a time (a verifier reading a row from a stream).
#[derive(Clone)]
pub struct LeafHasher(Hasher);

impl LeafHasher {
    #[inline]
    pub fn new() -> LeafHasher {
        let mut h = Hasher::new();
        h.update([LEAF_PREFIX]);
        LeafHasher(h)
    }

    /// The row's next element.
    #[inline]
    pub fn felt(&mut self, f: Felt) {
        self.0.update_8(f.as_u64().to_le_bytes());
    }

    /// The leaf's digest.
    #[inline]
    pub fn finish(self) -> Digest {
        Digest(self.0.finalize())
    }
}

impl Default for LeafHasher {
    fn default() -> LeafHasher {
        LeafHasher::new()
    }
}

/// Hashes a row of extension elements as their 3·n base coordinates.
#[inline]
pub fn hash_leaf_ext(row: &[Ext3]) -> Digest {
    let mut h = Hasher::new();
    h.update([LEAF_PREFIX]);
    for e in row {
        for c in e.coords() {
            h.update(c.as_u64().to_le_bytes());
        }
    }
    Digest(h.finalize())
}

/// `H(prefix ‖ a ‖ b)`: one block.
#[inline]
fn hash_pair(prefix: u8, a: &Digest, b: &Digest) -> Digest {
    Digest(crate::hash::hash_prefixed_pair(prefix, &a.0, &b.0))
}

/// Hashes two children.
#[inline]
pub fn hash_node(left: &Digest, right: &Digest) -> Digest {
    hash_pair(NODE_PREFIX, left, right)
}

/// Injects a shorter matrix's row digest `d` into the node `acc` (see the module's doc).
#[inline]
pub fn hash_inject(acc: &Digest, d: &Digest) -> Digest {
    hash_pair(INJECT_PREFIX, acc, d)
}

/// Checks that `leaf` sits at `index` under `root`, given the siblings from the leaf up.
/// The caller has checked `path.len()` against the tree's depth; `index` must be below
/// 2^path.len().
pub fn verify_path(root: &Digest, mut index: usize, leaf: Digest, path: &[Digest]) -> bool {
    if path.len() < usize::BITS as usize && (index >> path.len()) != 0 {
        return false;
    }
    let mut cur = leaf;
    for sib in path {
        cur = if index & 1 == 0 {
            hash_node(&cur, sib)
        } else {
            hash_node(sib, &cur)
        };
        index >>= 1;
    }
    cur == *root
}

/// Sorted queries share their paths (format 7). The queries of a proof open their leaves in
/// increasing order; the path of leaf `cur` meets the path of the query before it, leaf
/// `prev ≤ cur`, `s` steps up, where `s` is the bit length of `prev ⊕ cur` (`s = 0`: the same
/// leaf). Below the meeting the two paths are disjoint, except that one step below it each
/// path's node is the other's sibling. So `cur` carries only its first `s − 1` siblings (none
/// for the same leaf): the node its climb reaches must equal the sibling the previous query
/// had there (the same leaf's digest for `s = 0`), and the rest of the path is the previous
/// query's, already checked. Paths that meet only at or above the cap are sent whole.
///
/// `meet` is `s`, or `None` when there is no previous query or the paths meet above
/// `depth` steps (the cap).
#[inline]
pub fn meet(prev: Option<usize>, cur: usize, depth: usize) -> Option<usize> {
    let s = (usize::BITS - (prev? ^ cur).leading_zeros()) as usize;
    (s <= depth).then_some(s)
}

/// How many siblings a path of `depth` steps carries at [`meet`] `m`.
#[inline]
pub fn siblings_sent(m: Option<usize>, depth: usize) -> usize {
    match m {
        None => depth,
        Some(s) => s.saturating_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_meet_at_the_highest_differing_bit() {
        assert_eq!(meet(None, 5, 10), None);
        assert_eq!(meet(Some(5), 5, 10), Some(0));
        assert_eq!(meet(Some(4), 5, 10), Some(1)); // siblings: no sibling is sent
        assert_eq!(meet(Some(3), 4, 10), Some(3));
        assert_eq!(meet(Some(0), 1 << 9, 10), Some(10));
        assert_eq!(meet(Some(0), 1 << 10, 10), None); // they meet in the cap
        assert_eq!(siblings_sent(None, 10), 10);
        assert_eq!(siblings_sent(Some(0), 10), 0);
        assert_eq!(siblings_sent(Some(1), 10), 0);
        assert_eq!(siblings_sent(Some(3), 10), 2);
        assert_eq!(siblings_sent(Some(10), 10), 9);
    }

    #[test]
    fn leaf_and_node_domains_differ() {
        let a = hash_leaf(&[Felt::new(1), Felt::new(2), Felt::new(3), Felt::new(4)]);
        let d = Digest([0; 32]);
        assert_ne!(a, hash_node(&d, &d));
        assert_ne!(hash_inject(&d, &d), hash_node(&d, &d));
    }

    #[test]
    fn two_leaf_path() {
        let l0 = hash_leaf(&[Felt::new(1)]);
        let l1 = hash_leaf(&[Felt::new(2)]);
        let root = hash_node(&l0, &l1);
        assert!(verify_path(&root, 0, l0, &[l1]));
        assert!(verify_path(&root, 1, l1, &[l0]));
        assert!(!verify_path(&root, 1, l0, &[l1]));
        assert!(!verify_path(&root, 2, l0, &[l1]));
    }
}
