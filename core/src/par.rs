//! The seam through which host passes run independent work concurrently: core stays
//! `no_std` and names no thread pool; a std caller passes one (the prover's rayon
//! [`ParMap`]). Results never depend on the implementation or on [`ParMap::chunk_len`].

use alloc::vec;
use alloc::vec::Vec;

use crate::field::Felt;

/// Steps per chunk of a chunked pass when a [`ParMap`] runs on threads.
pub const DEFAULT_CHUNK_LEN: usize = 1 << 16;

/// Runs independent calls, possibly concurrently and in any order, and returns their
/// results in index order.
pub trait ParMap: Sync {
    /// `[f(0, &mut items[0]), f(1, &mut items[1]), …]`.
    fn map_mut<T, R, F>(&self, items: &mut [T], f: F) -> Vec<R>
    where
        T: Send,
        R: Send,
        F: Fn(usize, &mut T) -> R + Sync + Send;

    /// `[f(0), f(1), …, f(n − 1)]`.
    fn map<R, F>(&self, n: usize, f: F) -> Vec<R>
    where
        R: Send,
        F: Fn(usize) -> R + Sync + Send,
    {
        self.map_mut(&mut vec![(); n], |i, _| f(i))
    }

    /// Items per chunk when a pass splits a long sequence (steps) into chunks: large enough
    /// that per-chunk overhead is small, small enough to spread over the threads.
    fn chunk_len(&self) -> usize;

    /// `(a(), b())`, possibly concurrently.
    fn join<A, B, FA, FB>(&self, a: FA, b: FB) -> (A, B)
    where
        A: Send,
        B: Send,
        FA: FnOnce() -> A + Send,
        FB: FnOnce() -> B + Send,
    {
        (a(), b())
    }

    /// `(a(), b())`, possibly concurrently, where `b` mostly waits (on a device, say) or is
    /// one sequential job beside `a`'s parallel ones: a std implementation runs it on its
    /// own thread, so that it starts at once, whatever `a` keeps busy, and holds no worker
    /// of a pool.
    fn join_waiting<A, B, FA, FB>(&self, a: FA, b: FB) -> (A, B)
    where
        A: Send,
        B: Send,
        FA: FnOnce() -> A + Send,
        FB: FnOnce() -> B + Send,
    {
        self.join(a, b)
    }

    /// A pass has finished its stage `stage` (a std implementation may time the stages
    /// for a report); nothing by default. Results never depend on it.
    fn stage_done(&self, _stage: &'static str) {}

    /// `n` zeros, for a trace the calls then fill in slices. This writes them; a std
    /// implementation can take zeroed pages from the system instead, so that the threads
    /// filling the slices fault them in parallel rather than one thread writing them all.
    fn zeroed_felts(&self, n: usize) -> Vec<Felt> {
        vec![Felt::ZERO; n]
    }
}

/// Every call in order on the calling thread, and one chunk per pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl ParMap for Sequential {
    fn map_mut<T, R, F>(&self, items: &mut [T], f: F) -> Vec<R>
    where
        T: Send,
        R: Send,
        F: Fn(usize, &mut T) -> R + Sync + Send,
    {
        items.iter_mut().enumerate().map(|(i, t)| f(i, t)).collect()
    }

    fn chunk_len(&self) -> usize {
        usize::MAX
    }
}
