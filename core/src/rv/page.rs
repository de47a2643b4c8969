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

use super::bitwise::ByteCounts;
use super::decode::ProgramImage;
use super::{BUS_BYTE, BUS_MEM, BUS_ZRANGE, BYTE_RANGE, STACK_BOTTOM, STACK_TOP};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// One range of zero-initialised words, `lo .. hi`, read-only or writable.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
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

fn padded_height(n: usize) -> usize {
    n.next_power_of_two().max(8)
}

fn page_height(image: &MemoryImage) -> usize {
    padded_height(image.words.len().max(image.zero.len()))
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

/// PAGE's main trace: `finals[i]` is image word `i`'s final value and timestamp (`(init,
/// 0)` when untouched); `zmult[k]` the number of PAGE0 rows in zero range `k`.
///
/// # Panics
/// If `finals` and the image's words, or `zmult` and its zero ranges, differ in length.
pub fn build_trace(image: &MemoryImage, finals: &[(u64, u64)], zmult: &[u64]) -> RowMajorMatrix {
    assert_eq!(
        finals.len(),
        image.words.len(),
        "one final token per image word"
    );
    assert_eq!(zmult.len(), image.zero.len(), "one count per zero range");
    let mut m = RowMajorMatrix::zeros(page_height(image), WIDTH);
    for (r, &(fin, ts)) in finals.iter().enumerate() {
        let row = m.row_mut(r);
        let mut c = PageCols::read(row);
        for (i, byte) in fin.to_le_bytes().into_iter().enumerate() {
            c.fin[i] = Felt::from(byte as u32);
        }
        c.fin_ts = Felt::new(ts);
        c.write(row);
    }
    for (r, &k) in zmult.iter().enumerate() {
        let row = m.row_mut(r);
        let mut c = PageCols::read(row);
        c.zmult = Felt::new(k);
        c.write(row);
    }
    m
}

crate::columns! {
    /// PAGE0's columns (the layout's source).
    pub struct Page0Cols {
        /// 1 on touched-word rows, which come first.
        real,
        /// Word index.
        w,
        /// Bytes of `D = w − w_prev − 1` (0 on row 0).
        d[4],
        /// Bytes of `E = w − lo`.
        e[4],
        /// Bytes of `F = hi − 1 − w`.
        f[4],
        /// The zero range holding `w`, and its read-only flag.
        lo,
        hi,
        ro,
        /// Final value bytes.
        fin[8],
        /// Final timestamp.
        fin_ts,
    }
}

/// PAGE0's column indices, from [`Page0Cols`].
pub const P0_REAL: usize = col!(Page0Cols, real);
pub const P0_W: usize = col!(Page0Cols, w);
pub const P0_D: usize = col!(Page0Cols, d);
pub const P0_E: usize = col!(Page0Cols, e);
pub const P0_F: usize = col!(Page0Cols, f);
pub const P0_LO: usize = col!(Page0Cols, lo);
pub const P0_HI: usize = col!(Page0Cols, hi);
pub const P0_RO: usize = col!(Page0Cols, ro);
pub const P0_FIN: usize = col!(Page0Cols, fin);
pub const P0_FIN_TS: usize = col!(Page0Cols, fin_ts);
/// PAGE0's columns.
pub const P0_WIDTH: usize = <Page0Cols<u8> as Columns<u8>>::WIDTH;

/// The PAGE0 table.
pub struct Page0Air;

impl Air for Page0Air {
    fn name(&self) -> &str {
        "PAGE0"
    }
    fn width(&self) -> usize {
        P0_WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let zero = B::Expr::from(Felt::ZERO);
        let one = B::Expr::from(Felt::ONE);
        let c: Page0Cols<B::Expr> = Page0Cols::from_fn(|i| b.main(i));
        let nx: Page0Cols<B::Expr> = Page0Cols::from_fn(|i| b.main_next(i));
        let real = c.real.clone();
        let w = c.w.clone();
        let lin4 = |x: &[B::Expr; 4]| {
            (0..4).fold(zero.clone(), |a, i| {
                a + x[i].clone() * Felt::new(1 << (8 * i))
            })
        };
        let d_next = lin4(&nx.d);
        let real_next = nx.real;

        b.assert_bool("page0 real boolean", real.clone());
        b.assert_transition(
            "page0 real rows first",
            (one.clone() - real.clone()) * real_next.clone(),
        );
        b.assert_first("page0 row 0 has no gap", lin4(&c.d));
        b.assert_transition(
            "page0 words strictly increase",
            real_next * (nx.w - w.clone() - Felt::ONE - d_next),
        );
        b.assert_zero(
            "page0 word at or above its range",
            real.clone() * (w.clone() - c.lo.clone() - lin4(&c.e)),
        );
        b.assert_zero(
            "page0 word below its range's end",
            real.clone() * (c.hi.clone() - one - w.clone() - lin4(&c.f)),
        );

        b.receive(
            BUS_ZRANGE,
            real.clone(),
            &[c.lo.clone(), c.hi.clone(), c.ro.clone()],
        );
        let range = B::Expr::from(Felt::from(BYTE_RANGE));
        for x in [&c.d, &c.e, &c.f] {
            for j in [0, 2] {
                b.send(
                    BUS_BYTE,
                    real.clone(),
                    &[range.clone(), x[j].clone(), x[j + 1].clone(), zero.clone()],
                );
            }
        }

        let ro = c.ro.clone();
        let init = token(
            w.clone(),
            (0..8).map(|_| zero.clone()),
            zero.clone(),
            ro.clone(),
        );
        b.send(BUS_MEM, real.clone(), &init);
        let fin = token(w, c.fin, c.fin_ts, ro);
        b.receive(BUS_MEM, real, &fin);
    }
}

/// One touched zero-initialised word: its index, range, final value and timestamp.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ZeroWord {
    pub w: u32,
    pub range: ZeroRange,
    pub fin: u64,
    pub fin_ts: u64,
}

/// PAGE0's trace (PAGE's builder is [`build_trace`]): `words` are the touched
/// zero-initialised words, strictly increasing. Records the range checks in `bytes`.
pub fn build_trace0(words: &[ZeroWord], bytes: &mut ByteCounts) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(padded_height(words.len()), P0_WIDTH);
    let mut prev = None;
    for (r, z) in words.iter().enumerate() {
        let mut row = Page0Cols::from_fn(|_| Felt::ZERO);
        row.real = Felt::ONE;
        row.w = Felt::from(z.w);
        // Wrapping, so that a dishonest word list yields a trace that fails the checks.
        let d = prev.map_or(0, |p: u32| z.w.wrapping_sub(p).wrapping_sub(1));
        let e = z.w.wrapping_sub(z.range.lo);
        let f = z.range.hi.wrapping_sub(1).wrapping_sub(z.w);
        for (x, v) in [(&mut row.d, d), (&mut row.e, e), (&mut row.f, f)] {
            let v = v.to_le_bytes();
            for i in 0..4 {
                x[i] = Felt::from(v[i] as u32);
            }
            bytes.range(v[0], v[1]);
            bytes.range(v[2], v[3]);
        }
        row.lo = Felt::from(z.range.lo);
        row.hi = Felt::from(z.range.hi);
        row.ro = Felt::from(z.range.ro);
        for (i, byte) in z.fin.to_le_bytes().into_iter().enumerate() {
            row.fin[i] = Felt::from(byte as u32);
        }
        row.fin_ts = Felt::new(z.fin_ts);
        row.write(m.row_mut(r));
        prev = Some(z.w);
    }
    m
}

/// How many of `words` (PAGE0's) lie in each of `image`'s zero ranges (PAGE's `zmult`).
pub fn zero_counts(image: &MemoryImage, words: &[ZeroWord]) -> Vec<u64> {
    let mut counts = vec![0u64; image.zero.len()];
    for z in words {
        if let Ok(k) = image.zero.binary_search_by_key(&z.range.lo, |r| r.lo) {
            if image.zero[k] == z.range {
                counts[k] += 1;
            }
        }
    }
    counts
}
