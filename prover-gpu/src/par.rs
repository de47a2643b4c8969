//! [`ParMap`] on rayon's thread pool: how the prover runs core's host passes (trace
//! packing) on every core.

use kestrel_core::par::{ParMap, DEFAULT_CHUNK_LEN};
use rayon::prelude::*;

/// Calls spread over rayon's global pool; chunked passes use `chunk_len` items per chunk.
#[derive(Clone, Copy, Debug)]
pub struct Rayon {
    pub chunk_len: usize,
}

impl Default for Rayon {
    fn default() -> Self {
        Rayon {
            chunk_len: DEFAULT_CHUNK_LEN,
        }
    }
}

impl ParMap for Rayon {
    fn map_mut<T, R, F>(&self, items: &mut [T], f: F) -> Vec<R>
    where
        T: Send,
        R: Send,
        F: Fn(usize, &mut T) -> R + Sync + Send,
    {
        items
            .par_iter_mut()
            .enumerate()
            .map(|(i, t)| f(i, t))
            .collect()
    }

    fn map<R, F>(&self, n: usize, f: F) -> Vec<R>
    where
        R: Send,
        F: Fn(usize) -> R + Sync + Send,
    {
        (0..n).into_par_iter().map(f).collect()
    }

    fn chunk_len(&self) -> usize {
        self.chunk_len
    }
}
