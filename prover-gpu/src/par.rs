//! [`ParMap`] on rayon's thread pool: how the prover runs core's host passes (trace
//! packing) on every core.

use kestrel_core::field::Felt;
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

    fn join<A, B, FA, FB>(&self, a: FA, b: FB) -> (A, B)
    where
        A: Send,
        B: Send,
        FA: FnOnce() -> A + Send,
        FB: FnOnce() -> B + Send,
    {
        rayon::join(a, b)
    }

    /// `b` on a thread of its own (started at once; it waits without holding a pool
    /// thread), `a` on this one; if no thread can be started, one after the other.
    fn join_waiting<A, B, FA, FB>(&self, a: FA, b: FB) -> (A, B)
    where
        A: Send,
        B: Send,
        FA: FnOnce() -> A + Send,
        FB: FnOnce() -> B + Send,
    {
        let b = std::sync::Mutex::new(Some(b));
        let take = || b.lock().ok().and_then(|mut f| f.take());
        std::thread::scope(|s| {
            let spawned = std::thread::Builder::new()
                .name("waiting job".into())
                .spawn_scoped(s, || take().map(|f| f()));
            let ra = a();
            let rb = match spawned.map(|h| h.join()) {
                Ok(Ok(Some(rb))) => rb,
                // The job panicked: as `rayon::join`, the panic goes on here.
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                // No thread started (or it found no job): run it here.
                Ok(Ok(None)) | Err(_) => match take() {
                    Some(f) => f(),
                    None => std::panic::resume_unwind(Box::new("the waiting job was lost")),
                },
            };
            (ra, rb)
        })
    }

    /// Zeroed pages from the allocator (`calloc`: mapped on first touch), not written here.
    fn zeroed_felts(&self, n: usize) -> Vec<Felt> {
        let mut words = std::mem::ManuallyDrop::new(vec![0u64; n]);
        let (ptr, len, cap) = (words.as_mut_ptr(), words.len(), words.capacity());
        // SAFETY: `Felt` is `repr(transparent)` over `u64` (same size and alignment, so the
        // allocation's layout is the same), and 0 is the canonical zero; the words' vector
        // is not dropped, so the allocation has one owner.
        unsafe { Vec::from_raw_parts(ptr.cast::<Felt>(), len, cap) }
    }
}

/// A [`ParMap`] that runs every call on `inner` and times the stages a pass reports
/// ([`ParMap::stage_done`]): each stage's time is from the previous report (or the clock's
/// start) to its own, summed over the reports of the same name.
pub struct StageClock<P> {
    inner: P,
    marks: std::sync::Mutex<(std::time::Instant, Vec<(&'static str, std::time::Duration)>)>,
}

impl<P: ParMap> StageClock<P> {
    /// A clock started now.
    pub fn new(inner: P) -> Self {
        StageClock {
            inner,
            marks: std::sync::Mutex::new((std::time::Instant::now(), Vec::new())),
        }
    }

    /// The stages in order of their first report, with their summed times.
    pub fn stages(&self) -> Vec<(&'static str, std::time::Duration)> {
        self.marks.lock().map(|m| m.1.clone()).unwrap_or_default()
    }
}

impl<P: ParMap> ParMap for StageClock<P> {
    fn map_mut<T, R, F>(&self, items: &mut [T], f: F) -> Vec<R>
    where
        T: Send,
        R: Send,
        F: Fn(usize, &mut T) -> R + Sync + Send,
    {
        self.inner.map_mut(items, f)
    }

    fn map<R, F>(&self, n: usize, f: F) -> Vec<R>
    where
        R: Send,
        F: Fn(usize) -> R + Sync + Send,
    {
        self.inner.map(n, f)
    }

    fn chunk_len(&self) -> usize {
        self.inner.chunk_len()
    }

    fn join<A, B, FA, FB>(&self, a: FA, b: FB) -> (A, B)
    where
        A: Send,
        B: Send,
        FA: FnOnce() -> A + Send,
        FB: FnOnce() -> B + Send,
    {
        self.inner.join(a, b)
    }

    fn join_waiting<A, B, FA, FB>(&self, a: FA, b: FB) -> (A, B)
    where
        A: Send,
        B: Send,
        FA: FnOnce() -> A + Send,
        FB: FnOnce() -> B + Send,
    {
        self.inner.join_waiting(a, b)
    }

    fn stage_done(&self, stage: &'static str) {
        self.inner.stage_done(stage);
        if let Ok(mut m) = self.marks.lock() {
            let now = std::time::Instant::now();
            let d = now - m.0;
            m.0 = now;
            match m.1.iter_mut().find(|(n, _)| *n == stage) {
                Some(e) => e.1 += d,
                None => m.1.push((stage, d)),
            }
        }
    }

    fn zeroed_felts(&self, n: usize) -> Vec<Felt> {
        self.inner.zeroed_felts(n)
    }
}

/// A buffer of `counts.len()` consecutive parts, part `c` of `counts[c]` items filled by
/// `fill(c, part)` on rayon's pool, and each part's first index.
pub fn fill_parts<T, F>(counts: &[usize], fill: F) -> (Vec<T>, Vec<usize>)
where
    T: Default + Clone + Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    let mut first = Vec::with_capacity(counts.len());
    let mut total = 0;
    for c in counts {
        first.push(total);
        total += c;
    }
    let mut buf = vec![T::default(); total];
    let mut parts = Vec::with_capacity(counts.len());
    let mut rest = &mut buf[..];
    for &c in counts {
        let (part, tail) = rest.split_at_mut(c);
        parts.push(part);
        rest = tail;
    }
    parts
        .into_par_iter()
        .enumerate()
        .for_each(|(c, part)| fill(c, part));
    (buf, first)
}

/// Calls `fill(region, at, out)` on each part of `dst` (words `off ..` of a buffer whose
/// region `i` is words `bounds[i] .. bounds[i + 1]`), `at` its first word's index in its
/// region.
pub fn for_regions(
    bounds: &[usize],
    off: usize,
    dst: &mut [u64],
    mut fill: impl FnMut(usize, usize, &mut [u64]),
) {
    let mut g = off;
    let mut rest = dst;
    for (i, w) in bounds.windows(2).enumerate() {
        if rest.is_empty() {
            break;
        }
        if g >= w[1] {
            continue;
        }
        let (part, tail) = rest.split_at_mut((w[1] - g).min(rest.len()));
        fill(i, g - w[0], part);
        g += part.len();
        rest = tail;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each word of a piece goes to its region with its index there, whatever the piece.
    #[test]
    fn regions_split_a_piece_at_their_bounds() {
        let bounds = [0, 3, 3, 7, 10];
        for off in 0..10 {
            for len in 0..=10 - off {
                let mut dst = vec![0u64; len];
                let mut calls = 0;
                for_regions(&bounds, off, &mut dst, |i, at, out| {
                    calls += 1;
                    assert!(!out.is_empty() && i != 1, "empty region {i} filled");
                    for (k, o) in out.iter_mut().enumerate() {
                        *o = (i * 100 + at + k) as u64;
                    }
                });
                let want: Vec<u64> = (off..off + len)
                    .map(|g| {
                        let i = bounds
                            .windows(2)
                            .position(|w| w[0] <= g && g < w[1])
                            .unwrap();
                        (i * 100 + g - bounds[i]) as u64
                    })
                    .collect();
                assert_eq!(dst, want, "off {off} len {len}");
                assert!(calls <= 3);
            }
        }
    }

    #[test]
    fn stage_clock_sums_stages_in_report_order() {
        let clock = StageClock::new(Rayon::default());
        for stage in ["a", "b", "a"] {
            std::thread::sleep(std::time::Duration::from_millis(2));
            clock.stage_done(stage);
        }
        let stages = clock.stages();
        assert_eq!(stages.iter().map(|s| s.0).collect::<Vec<_>>(), ["a", "b"]);
        assert!(stages[0].1 >= std::time::Duration::from_millis(4));
        assert!(stages[1].1 >= std::time::Duration::from_millis(2));
        assert_eq!(clock.map(3, |i| i * 2), [0, 2, 4]);
    }

    #[test]
    fn zeroed_felts_are_zeros_and_writable() {
        for n in [0, 1, 1000, 1 << 20] {
            let mut v = Rayon::default().zeroed_felts(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|x| *x == Felt::ZERO));
            v.push(Felt::new(7));
            assert_eq!(v[n], Felt::new(7));
        }
    }

    #[test]
    fn parts_are_filled_in_place() {
        let counts = [3, 0, 2, 4];
        let (buf, first) = super::fill_parts(&counts, |c, part: &mut [usize]| {
            for (k, x) in part.iter_mut().enumerate() {
                *x = 10 * c + k;
            }
        });
        assert_eq!(first, [0, 3, 3, 5]);
        assert_eq!(buf, [0, 1, 2, 20, 21, 30, 31, 32, 33]);
    }

    #[test]
    fn a_waiting_job_runs_on_its_own_thread_and_its_panic_goes_on() {
        let r = Rayon::default();
        let (a, b) = r.join_waiting(
            || 6 * 7,
            || std::thread::current().name().map(str::to_string),
        );
        assert_eq!(a, 42);
        assert_eq!(b.as_deref(), Some("waiting job"));
        let caught = std::panic::catch_unwind(|| r.join_waiting(|| 1, || panic!("job failed")));
        assert!(caught.is_err());
    }
}
