//! Merkle trees (TurboSHAKE128) over matrix rows, built in parallel: plain trees (FRI layers)
//! and the mixed-matrix trees of rounds (`kestrel_core::merkle` has the definition;
//! mirrors `cuda/merkle.rs`).

use kestrel_core::merkle::{hash_inject, hash_node, Digest};
use rayon::prelude::*;

/// All levels of a tree: `levels[0]` are the leaf digests, the last level is the root.
#[derive(Clone, Debug)]
pub struct MerkleTree {
    levels: Vec<Vec<Digest>>,
}

impl MerkleTree {
    /// Builds the tree over `leaves` (a power of two of them, at least one).
    pub fn from_leaves(leaves: Vec<Digest>) -> MerkleTree {
        debug_assert!(leaves.len().is_power_of_two());
        let mut levels = vec![leaves];
        while levels.last().map_or(0, Vec::len) > 1 {
            let prev = levels.last().expect("nonempty");
            let next: Vec<Digest> = prev
                .par_chunks_exact(2)
                .map(|p| hash_node(&p[0], &p[1]))
                .collect();
            levels.push(next);
        }
        MerkleTree { levels }
    }

    /// Builds the tree whose leaf `i` is `hash(rows[i])`.
    pub fn from_rows<T: Sync>(
        rows: &[T],
        width: usize,
        hash: impl Fn(&[T]) -> Digest + Sync + Send,
    ) -> MerkleTree {
        let leaves = rows.par_chunks_exact(width).map(hash).collect();
        MerkleTree::from_leaves(leaves)
    }

    /// The mixed-matrix tree over matrices given by their row digests (table order; each
    /// a power of two of them, at least one matrix).
    pub fn mixed(matrices: &[&[Digest]]) -> MerkleTree {
        let log = |m: &[Digest]| m.len().trailing_zeros();
        let top = matrices.iter().map(|m| log(m)).max().unwrap_or(0);
        let at = |l: u32| matrices.iter().filter(move |m| log(m) == l);
        let inject = |level: &mut [Digest], l: u32| {
            for m in at(l) {
                level
                    .par_iter_mut()
                    .zip(m.par_iter())
                    .for_each(|(n, d)| *n = hash_inject(n, d));
            }
        };
        let mut tallest = at(top);
        let mut leaves = tallest
            .next()
            .map_or_else(|| vec![Digest::default()], |m| m.to_vec());
        for m in tallest {
            leaves
                .par_iter_mut()
                .zip(m.par_iter())
                .for_each(|(n, d)| *n = hash_inject(n, d));
        }
        let mut levels = vec![leaves];
        for l in (0..top).rev() {
            let prev = levels.last().expect("nonempty");
            let mut next: Vec<Digest> = prev
                .par_chunks_exact(2)
                .map(|p| hash_node(&p[0], &p[1]))
                .collect();
            inject(&mut next, l);
            levels.push(next);
        }
        MerkleTree { levels }
    }

    /// The `2^cap_bits` nodes of the level that many above the root.
    pub fn cap(&self, cap_bits: u32) -> Vec<Digest> {
        self.levels[self.depth() - cap_bits as usize].clone()
    }

    /// Siblings from the leaf up to below the cap of `2^cap_bits` nodes.
    pub fn path_to_cap(&self, index: usize, cap_bits: u32) -> Vec<Digest> {
        let mut p = self.path(index);
        p.truncate(self.depth() - cap_bits as usize);
        p
    }

    pub fn root(&self) -> Digest {
        self.levels
            .last()
            .and_then(|l| l.first())
            .copied()
            .unwrap_or_default()
    }

    pub fn depth(&self) -> usize {
        self.levels.len() - 1
    }

    /// Siblings from the leaf up to (not including) the root.
    pub fn path(&self, mut index: usize) -> Vec<Digest> {
        let mut out = Vec::with_capacity(self.depth());
        for level in &self.levels[..self.depth()] {
            out.push(level[index ^ 1]);
            index >>= 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kestrel_core::field::Felt;
    use kestrel_core::merkle::{hash_leaf, verify_path};

    #[test]
    fn every_path_verifies() {
        for log in 0..6 {
            let n = 1usize << log;
            let rows: Vec<Felt> = (0..n as u64 * 3).map(Felt::new).collect();
            let t = MerkleTree::from_rows(&rows, 3, hash_leaf);
            for i in 0..n {
                let leaf = hash_leaf(&rows[i * 3..i * 3 + 3]);
                assert!(verify_path(&t.root(), i, leaf, &t.path(i)));
                assert!(!verify_path(&t.root(), i ^ 1, leaf, &t.path(i)) || n == 1);
            }
        }
    }

    fn digests(n: usize, seed: u64) -> Vec<Digest> {
        (0..n as u64)
            .map(|i| hash_leaf(&[Felt::new(seed), Felt::new(i)]))
            .collect()
    }

    /// The module doc's definition, level by level, from the leaves up.
    fn reference(matrices: &[&[Digest]]) -> Vec<Vec<Digest>> {
        let log = |m: &[Digest]| m.len().trailing_zeros();
        let top = matrices.iter().map(|m| log(m)).max().unwrap();
        let mut levels: Vec<Vec<Digest>> = Vec::new();
        for l in (0..=top).rev() {
            let mut level: Vec<Option<Digest>> = match levels.last() {
                None => vec![None; 1 << top],
                Some(prev) => prev
                    .chunks(2)
                    .map(|p| Some(hash_node(&p[0], &p[1])))
                    .collect(),
            };
            for m in matrices.iter().filter(|m| log(m) == l) {
                for (n, d) in level.iter_mut().zip(m.iter()) {
                    *n = Some(n.map_or(*d, |acc| hash_inject(&acc, d)));
                }
            }
            levels.push(level.into_iter().map(Option::unwrap).collect());
        }
        levels
    }

    #[test]
    fn mixed_tree_matches_its_definition_and_binds_the_order() {
        let (a, b, c, d) = (digests(16, 1), digests(4, 2), digests(16, 3), digests(2, 4));
        let m: [&[Digest]; 4] = [&a, &b, &c, &d];
        let t = MerkleTree::mixed(&m);
        let r = reference(&m);
        assert_eq!(t.depth(), 4);
        for (k, level) in r.iter().enumerate() {
            assert_eq!(t.cap(4 - k as u32), *level, "level {k} from the leaves");
        }
        for cap_bits in 0..=1 {
            for i in 0..16 {
                let p = t.path_to_cap(i, cap_bits);
                assert_eq!(p.len(), 4 - cap_bits as usize);
                assert_eq!(p, t.path(i)[..p.len()].to_vec());
            }
        }
        // One matrix: a plain tree over its row digests.
        assert_eq!(
            MerkleTree::mixed(&[&a]).root(),
            MerkleTree::from_leaves(a.clone()).root()
        );
        // Two matrices of one height injected in the other order, or a shorter one
        // injected at another level: another root. Matrices of different heights are
        // injected at different levels, so only the order within one height matters.
        assert_ne!(t.root(), MerkleTree::mixed(&[&c, &b, &a, &d]).root());
        assert_eq!(t.root(), MerkleTree::mixed(&[&a, &d, &c, &b]).root());
        assert_ne!(
            t.root(),
            MerkleTree::mixed(&[&a, &b, &c, &digests(4, 4)]).root()
        );
    }
}
