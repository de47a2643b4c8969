//! PAGE and PAGE0: the initial and final memory tokens, and the memory map.
//!
//! A memory token is `(w, value[8], ts, ro)`: `ro = 1` marks a read-only word, which
//! MEMW_A and MEMW let a load read but no write (store, input, break shrink) touch. The
//! words that have an initial token are exactly the words the executor maps: PAGE's
//! file-backed image words and PAGE0's zero-initialised words inside the map's zero ranges
//! (bss, heap, stack). A word with no initial token cannot be accessed at all (its old
//! token would need a sender), so a proof attests a run over the executor's memory map.
//!
//! # PAGE (preprocessed, bound to the verifying key)
//!
//! One row per file-backed word of the program's memory image, in increasing word order;
//! its first rows also list the zero ranges. The height is the larger of the two counts
//! rounded up to a power of two (at least 8). [`PagePreCols`] (preprocessed) and
//! [`PageCols`] (main) are the layout's source; the index constants are their fields'
//! offsets.
//!
//! | preprocessed column | index | |
//! | --- | --- | --- |
//! | `w` | [`PRE_W`] | word index |
//! | `init[8]` | [`PRE_INIT`] | initial value bytes |
//! | `real` | [`PRE_REAL`] | 1 on image rows |
//! | `ro` | [`PRE_RO`] | 1 on read-only image rows |
//! | `zlo`, `zhi`, `zro` | [`PRE_ZLO`], [`PRE_ZHI`], [`PRE_ZRO`] | zero range `zlo .. zhi` (words), read-only flag |
//! | `zreal` | [`PRE_ZREAL`] | 1 on the zero-range rows |
//!
//! | main column | index |
//! | --- | --- |
//! | `fin[8]` | [`FIN`] (final value bytes) |
//! | `fin_ts` | [`FIN_TS`] |
//! | `zmult` | [`ZMULT`] (PAGE0 rows in this row's zero range) |
//!
//! Interactions: send `BUS_MEM (w, init, 0, ro)` and receive `BUS_MEM (w, fin, fin_ts, ro)`,
//! both with multiplicity `real`; send `BUS_ZRANGE (zlo, zhi, zro)` with multiplicity
//! `zmult`. One constraint: `(1 − zreal)·zmult = 0`, so only the key's zero ranges are
//! offered. Every other multiplicity and every initial value is fixed by the verifying key,
//! and `fin`/`fin_ts` must match the word's last token.
//!
//! # PAGE0 (zero-initialised words the run touches: bss, heap, stack)
//!
//! [`Page0Cols`] is the layout's source; the index constants are its fields' offsets.
//!
//! | column | index | |
//! | --- | --- | --- |
//! | `real` | [`P0_REAL`] | 1 on touched-word rows, which come first |
//! | `w` | [`P0_W`] | word index |
//! | `d[4]` | [`P0_D`] | bytes of `D = w − w_prev − 1` (0 on row 0) |
//! | `e[4]` | [`P0_E`] | bytes of `E = w − lo` |
//! | `f[4]` | [`P0_F`] | bytes of `F = hi − 1 − w` |
//! | `lo`, `hi`, `ro` | [`P0_LO`], [`P0_HI`], [`P0_RO`] | the zero range holding `w` |
//! | `fin[8]` | [`P0_FIN`] | final value bytes |
//! | `fin_ts` | [`P0_FIN_TS`] | |
//!
//! - `real ∈ {0, 1}`; transition: `(1 − real)·real_next = 0` (real rows, then padding);
//! - first row: `D = 0`; transition: `real_next·(w_next − w − 1 − D_next) = 0`;
//! - `real·(w − lo − E) = 0`, `real·(hi − 1 − w − F) = 0`;
//! - `d`, `e`, `f` range-checked by six [`BYTE_RANGE`] lookups, multiplicity `real`;
//! - receive `BUS_ZRANGE (lo, hi, ro)`, multiplicity `real`;
//! - send `BUS_MEM (w, 0^8, 0, ro)` and receive `BUS_MEM (w, fin, fin_ts, ro)`,
//!   multiplicity `real`.
//!
//! The cost is per touched zero word (one PAGE0 row), never per access.
//!
//! # Soundness: every word has at most one initial token, and only mapped words have one
//!
//! PAGE's words are strictly increasing and fixed by the verifying key, so PAGE emits at
//! most one initial token per word, with the key's read-only flag. Each real PAGE0 row
//! receives a zero range from PAGE's list (fixed by the key, disjoint ranges, none
//! containing an image word: [`MemoryImage::validate`]) and proves `lo ≤ w ≤ hi − 1` over
//! the integers: `w = lo + E` with `E < 2^32`, and `w = hi − 1 − F` with `F < 2^32`, which
//! cannot wrap the field for `lo, hi < 2^29`. Its words satisfy `w_0 < w_1 < …` over the
//! integers (`w = w_prev + 1 + D`, `D < 2^32`, real rows a prefix), so no word repeats
//! within PAGE0, and none is an image word. Hence each word has at most one initial token,
//! its flag is the memory map's, and the chain of tokens from it is unique (see
//! `memw.rs`). Words outside the image and the zero ranges — the unmapped gaps, the words
//! at and above the stack's top, word 2^29 of a split access at `0xFFFF_FFFC` — have no
//! initial token: accessing them cannot balance.

use alloc::vec;
use alloc::vec::Vec;

use super::decode::ProgramImage;
use super::{padded_height, BUS_MEM, BUS_ZRANGE, STACK_BOTTOM, STACK_TOP};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

/// One range of zero-initialised words, `lo .. hi`, read-only or writable.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ZeroRange {
    pub lo: u32,
    pub hi: u32,
    pub ro: bool,
}

/// The program's initial memory as PAGE and PAGE0 prove it: the file-backed words and the
/// zero ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryImage {
    /// `(w, value, read-only)`, strictly increasing in `w`.
    pub words: Vec<(u32, u64, bool)>,
    /// Zero ranges, sorted and disjoint, none holding an image word, all below 2^29.
    pub zero: Vec<ZeroRange>,
}

/// Whether word `w` lies in one of the sorted, disjoint `ranges`.
pub fn in_ranges(ranges: &[(u32, u32)], w: u32) -> bool {
    let k = ranges.partition_point(|r| r.0 <= w);
    k > 0 && w < ranges[k - 1].1
}

impl MemoryImage {
    /// PAGE's real rows: one per image word and one per zero range, side by side.
    pub fn page_rows(&self) -> usize {
        self.words.len().max(self.zero.len())
    }

    /// The memory map of `program`: its image words (read-only where a read-only segment
    /// holds them), then its bss ranges, its heap `heap_start .. heap_limit` and the stack
    /// `STACK_BOTTOM .. STACK_TOP` as zero ranges (empty ones left out).
    pub fn of(program: &ProgramImage) -> MemoryImage {
        let ro = |w: u32| in_ranges(&program.read_only, w);
        let words = program.words.iter().map(|&(w, v)| (w, v, ro(w))).collect();
        let mut zero: Vec<ZeroRange> = Vec::with_capacity(program.bss.len() + 2);
        // A bss range is read-only or writable as a whole only within one segment; split it
        // where the read-only ranges start or end.
        for &(lo, hi) in &program.bss {
            let mut cuts: Vec<u32> = program
                .read_only
                .iter()
                .flat_map(|&(a, b)| [a, b])
                .filter(|&c| lo < c && c < hi)
                .collect();
            cuts.push(hi);
            let mut a = lo;
            for c in cuts {
                zero.push(ZeroRange {
                    lo: a,
                    hi: c,
                    ro: ro(a),
                });
                a = c;
            }
        }
        for (lo, hi) in [
            (program.heap_start / 8, program.heap_limit / 8),
            (STACK_BOTTOM / 8, STACK_TOP / 8),
        ] {
            zero.push(ZeroRange { lo, hi, ro: false });
        }
        zero.retain(|z| z.lo < z.hi);
        MemoryImage { words, zero }
    }

    /// The zero range holding word `w`, if any.
    pub fn zero_range(&self, w: u32) -> Option<ZeroRange> {
        let k = self.zero.partition_point(|z| z.lo <= w);
        let z = *self.zero.get(k.checked_sub(1)?)?;
        (w < z.hi).then_some(z)
    }

    /// Checks the invariants PAGE's soundness relies on.
    ///
    /// # Errors
    /// A description of the first violation.
    pub fn validate(&self) -> Result<(), &'static str> {
        if self.words.windows(2).any(|p| p[0].0 >= p[1].0) {
            return Err("image words are not strictly increasing");
        }
        if self.zero.iter().any(|z| z.lo >= z.hi || z.hi > 1 << 29) {
            return Err("a zero range is empty or reaches past word 2^29");
        }
        if self.zero.windows(2).any(|p| p[0].hi > p[1].lo) {
            return Err("zero ranges are not sorted and disjoint");
        }
        if self
            .words
            .iter()
            .any(|&(w, _, _)| self.zero_range(w).is_some())
        {
            return Err("an image word lies in a zero range");
        }
        Ok(())
    }
}

crate::columns! {
    /// PAGE's preprocessed columns (the layout's source).
    pub struct PagePreCols {
        /// Word index.
        w,
        /// Initial value bytes.
        init[8],
        /// 1 on image rows.
        real,
        /// 1 on read-only image rows.
        ro,
        /// Zero range `zlo .. zhi` (words).
        zlo,
        zhi,
        /// The zero range's read-only flag.
        zro,
        /// 1 on the zero-range rows.
        zreal,
    }
}

crate::columns! {
    /// PAGE's main columns (the layout's source).
    pub struct PageCols {
        /// Final value bytes.
        fin[8],
        /// Final timestamp.
        fin_ts,
        /// PAGE0 rows in this row's zero range.
        zmult,
    }
}

/// Preprocessed column indices, from [`PagePreCols`].
pub const PRE_W: usize = col!(PagePreCols, w);
pub const PRE_INIT: usize = col!(PagePreCols, init);
pub const PRE_REAL: usize = col!(PagePreCols, real);
pub const PRE_RO: usize = col!(PagePreCols, ro);
pub const PRE_ZLO: usize = col!(PagePreCols, zlo);
pub const PRE_ZHI: usize = col!(PagePreCols, zhi);
pub const PRE_ZRO: usize = col!(PagePreCols, zro);
pub const PRE_ZREAL: usize = col!(PagePreCols, zreal);
/// Preprocessed columns.
pub const PRE_WIDTH: usize = <PagePreCols<u8> as Columns<u8>>::WIDTH;

/// Main column indices, from [`PageCols`].
pub const FIN: usize = col!(PageCols, fin);
pub const FIN_TS: usize = col!(PageCols, fin_ts);
pub const ZMULT: usize = col!(PageCols, zmult);
/// Main columns.
pub const WIDTH: usize = <PageCols<u8> as Columns<u8>>::WIDTH;

/// The PAGE table of one memory image (the verifier's instance carries no trace).
pub struct PageAir {
    rows: Option<(Vec<Felt>, u32)>,
}

/// PAGE's trace height for `image`: its real rows ([`MemoryImage::page_rows`]) padded.
pub fn page_height(image: &MemoryImage) -> usize {
    padded_height(image.page_rows())
}

impl PageAir {
    /// The table for `image`, with its preprocessed trace.
    ///
    /// # Panics
    /// If `image` violates [`MemoryImage::validate`].
    pub fn new(image: &MemoryImage) -> PageAir {
        if let Err(e) = image.validate() {
            panic!("invalid memory image: {e}");
        }
        let h = page_height(image);
        let mut v = vec![Felt::ZERO; h * PRE_WIDTH];
        for (r, &(w, init, ro)) in image.words.iter().enumerate() {
            let row = &mut v[r * PRE_WIDTH..(r + 1) * PRE_WIDTH];
            let mut p = PagePreCols::read(row);
            p.w = Felt::from(w);
            for (i, byte) in init.to_le_bytes().into_iter().enumerate() {
                p.init[i] = Felt::from(byte as u32);
            }
            p.real = Felt::ONE;
            p.ro = Felt::from(ro);
            p.write(row);
        }
        for (r, z) in image.zero.iter().enumerate() {
            let row = &mut v[r * PRE_WIDTH..(r + 1) * PRE_WIDTH];
            let mut p = PagePreCols::read(row);
            p.zlo = Felt::from(z.lo);
            p.zhi = Felt::from(z.hi);
            p.zro = Felt::from(z.ro);
            p.zreal = Felt::ONE;
            p.write(row);
        }
        PageAir {
            rows: Some((v, h.trailing_zeros())),
        }
    }

    /// The verifier's view: shape only; the commitment comes from the verifying key.
    pub fn shape_only() -> PageAir {
        PageAir { rows: None }
    }
}

/// A memory token `(w, value, ts, ro)` as a bus tuple.
pub fn token<E: Clone>(w: E, value: impl IntoIterator<Item = E>, ts: E, ro: E) -> Vec<E> {
    let mut t = Vec::with_capacity(11);
    t.push(w);
    t.extend(value);
    t.push(ts);
    t.push(ro);
    t
}

impl Air for PageAir {
    fn name(&self) -> &str {
        "PAGE"
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn preprocessed_width(&self) -> usize {
        PRE_WIDTH
    }
    fn preprocessed_trace(&self) -> Option<(Vec<Felt>, u32)> {
        self.rows.clone()
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let p: PagePreCols<B::Expr> = PagePreCols::from_fn(|i| b.preprocessed(i));
        let c: PageCols<B::Expr> = PageCols::from_fn(|i| b.main(i));
        let (real, w, ro) = (p.real, p.w, p.ro);
        let zero = B::Expr::from(Felt::ZERO);
        let init = token(w.clone(), p.init, zero, ro.clone());
        b.send(BUS_MEM, real.clone(), &init);
        let fin = token(w, c.fin, c.fin_ts, ro);
        b.receive(BUS_MEM, real, &fin);
        b.assert_zero(
            "page zmult only on zero-range rows",
            (B::Expr::from(Felt::ONE) - p.zreal) * c.zmult.clone(),
        );
        b.send(BUS_ZRANGE, c.zmult, &[p.zlo, p.zhi, p.zro]);
    }
}

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
