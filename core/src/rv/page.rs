//! PAGE and PAGE0: the initial and final memory tokens.
//!
//! # PAGE (preprocessed, bound to the verifying key)
//!
//! One row per word of the program's memory image (every word of the ELF's loadable
//! segments, bss included as zeros), in increasing word order; the height is the word count
//! rounded up to a power of two (at least 8).
//!
//! | preprocessed column | index | |
//! | --- | --- | --- |
//! | `w` | [`PRE_W`] | word index |
//! | `init[8]` | [`PRE_INIT`] | initial value bytes |
//! | `real` | [`PRE_REAL`] | 1 on image rows |
//! | `first` | [`PRE_FIRST`] | 1 on row 0 only |
//! | `floor` | [`PRE_FLOOR`] | `heap_start / 8` on row 0, else 0 |
//!
//! | main column | index |
//! | --- | --- |
//! | `fin[8]` | [`FIN`] (final value bytes) |
//! | `fin_ts` | [`FIN_TS`] |
//!
//! Interactions: send `BUS_MEM (w, init, 0)` and receive `BUS_MEM (w, fin, fin_ts)`, both
//! with multiplicity `real`; send `BUS_FLOOR (floor)` with multiplicity `first`. No
//! constraints: every multiplicity and every initial value is fixed by the verifying key,
//! and `fin`/`fin_ts` must match the word's last token (canonical by construction).
//!
//! # PAGE0 (zero-initialised words the run touches: heap, stack)
//!
//! | column | index | |
//! | --- | --- | --- |
//! | `first` | [`P0_FIRST`] | 1 on row 0 only |
//! | `real` | [`P0_REAL`] | 1 on touched-word rows, which come first |
//! | `w` | [`P0_W`] | word index |
//! | `d[4]` | [`P0_D`] | bytes of `D`: on row 0 `w − floor`, later `w − w_prev − 1` |
//! | `fin[8]` | [`P0_FIN`] | final value bytes |
//! | `fin_ts` | [`P0_FIN_TS`] | |
//!
//! With `D = Σ d_i·256^i`:
//!
//! - first row: `first = 1`; transition: `first_next = 0`;
//! - `real ∈ {0, 1}`; transition: `(1 − real)·real_next = 0` (real rows, then padding);
//! - transition: `real_next·(w_next − w − 1 − D_next) = 0`;
//! - receive `BUS_FLOOR (w − D)` with multiplicity `first`, i.e. row 0's `w ≥ floor`;
//! - `d` range-checked by two [`BYTE_RANGE`] lookups, multiplicity `real`;
//! - send `BUS_MEM (w, 0^8, 0)` and receive `BUS_MEM (w, fin, fin_ts)`, multiplicity `real`.
//!
//! An empty PAGE0 (no touched words) still consumes the floor token on row 0 (`w = floor`,
//! `d = 0`, `real = 0`).
//!
//! # Soundness: every word has at most one initial token
//!
//! PAGE's words are strictly increasing and fixed by the verifying key, so PAGE emits at
//! most one initial token per word. PAGE sends exactly one floor token, `heap_start / 8`,
//! which PAGE0's row 0 must consume (its multiplicity `first` is forced to 1): so row 0's
//! `w = floor + D_0` with `D_0 ∈ [0, 2^32)`. Each later real row has
//! `w = w_prev + 1 + D` with `D ∈ [0, 2^32)`, and the real rows are a prefix, so PAGE0's
//! words are `floor ≤ w_0 < w_1 < …` as integers (the sums stay far below the field
//! modulus): no word repeats within PAGE0. Every image word satisfies `8w + 8 ≤ heap_start`,
//! i.e. `w < floor`, so no PAGE0 word is an image word. Hence each word has at most one
//! initial token, and the MEMW chain from it is unique. (Words below the floor that are
//! not image words have no initial token: accessing them cannot balance.)

use alloc::vec;
use alloc::vec::Vec;

use super::bitwise::ByteCounts;
use super::{BUS_BYTE, BUS_FLOOR, BUS_MEM, BYTE_RANGE};
use crate::air::{Air, AirBuilder};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;

/// The program's initial memory: word index and value of every image word, and the lowest
/// address PAGE0 may hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryImage {
    /// `(w, value)`, strictly increasing in `w`.
    pub words: Vec<(u32, u64)>,
    /// A multiple of 8 above every image word: PAGE0's floor is `heap_start / 8`.
    pub heap_start: u32,
}

impl MemoryImage {
    /// PAGE0's lowest word, `heap_start / 8`.
    pub fn floor(&self) -> u32 {
        self.heap_start / 8
    }

    /// Checks the invariants PAGE's soundness relies on.
    ///
    /// # Errors
    /// A description of the first violation.
    pub fn validate(&self) -> Result<(), &'static str> {
        if !self.heap_start.is_multiple_of(8) {
            return Err("heap_start is not a multiple of 8");
        }
        if self.words.windows(2).any(|p| p[0].0 >= p[1].0) {
            return Err("image words are not strictly increasing");
        }
        if self.words.last().is_some_and(|&(w, _)| w >= self.floor()) {
            return Err("an image word lies at or above heap_start");
        }
        Ok(())
    }
}

pub const PRE_W: usize = 0;
pub const PRE_INIT: usize = 1;
pub const PRE_REAL: usize = 9;
pub const PRE_FIRST: usize = 10;
pub const PRE_FLOOR: usize = 11;
pub const PRE_WIDTH: usize = 12;

pub const FIN: usize = 0;
pub const FIN_TS: usize = 8;
pub const WIDTH: usize = 9;

/// The PAGE table of one memory image (the verifier's instance carries no trace).
pub struct PageAir {
    rows: Option<(Vec<Felt>, u32)>,
}

fn padded_height(n: usize) -> usize {
    n.next_power_of_two().max(8)
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
        let h = padded_height(image.words.len());
        let mut v = vec![Felt::ZERO; h * PRE_WIDTH];
        for (r, &(w, init)) in image.words.iter().enumerate() {
            let row = &mut v[r * PRE_WIDTH..(r + 1) * PRE_WIDTH];
            row[PRE_W] = Felt::from(w);
            for (i, byte) in init.to_le_bytes().into_iter().enumerate() {
                row[PRE_INIT + i] = Felt::from(byte as u32);
            }
            row[PRE_REAL] = Felt::ONE;
        }
        v[PRE_FIRST] = Felt::ONE;
        v[PRE_FLOOR] = Felt::from(image.floor());
        PageAir {
            rows: Some((v, h.trailing_zeros())),
        }
    }

    /// The verifier's view: shape only; the commitment comes from the verifying key.
    pub fn shape_only() -> PageAir {
        PageAir { rows: None }
    }
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
        let real = b.preprocessed(PRE_REAL);
        let w = b.preprocessed(PRE_W);
        let mut init = Vec::with_capacity(10);
        init.push(w.clone());
        init.extend((0..8).map(|i| b.preprocessed(PRE_INIT + i)));
        init.push(B::Expr::from(Felt::ZERO));
        b.send(BUS_MEM, real.clone(), &init);
        let mut fin = Vec::with_capacity(10);
        fin.push(w);
        fin.extend((0..8).map(|i| b.main(FIN + i)));
        fin.push(b.main(FIN_TS));
        b.receive(BUS_MEM, real, &fin);
        b.send(
            BUS_FLOOR,
            b.preprocessed(PRE_FIRST),
            &[b.preprocessed(PRE_FLOOR)],
        );
    }
}

/// PAGE's main trace: `finals[i]` is image word `i`'s final value and timestamp (`(init,
/// 0)` when untouched).
///
/// # Panics
/// If `finals` and the image differ in length.
pub fn build_trace(image: &MemoryImage, finals: &[(u64, u64)]) -> RowMajorMatrix {
    assert_eq!(
        finals.len(),
        image.words.len(),
        "one final token per image word"
    );
    let mut m = RowMajorMatrix::zeros(padded_height(finals.len()), WIDTH);
    for (r, &(fin, ts)) in finals.iter().enumerate() {
        let row = m.row_mut(r);
        for (i, byte) in fin.to_le_bytes().into_iter().enumerate() {
            row[FIN + i] = Felt::from(byte as u32);
        }
        row[FIN_TS] = Felt::new(ts);
    }
    m
}

pub const P0_FIRST: usize = 0;
pub const P0_REAL: usize = 1;
pub const P0_W: usize = 2;
pub const P0_D: usize = 3;
pub const P0_FIN: usize = 7;
pub const P0_FIN_TS: usize = 15;
pub const P0_WIDTH: usize = 16;

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
        let first = b.main(P0_FIRST);
        let real = b.main(P0_REAL);
        let w = b.main(P0_W);
        let d_of = |col: &dyn Fn(usize) -> B::Expr| {
            (0..4).fold(zero.clone(), |a, i| {
                a + col(P0_D + i) * Felt::new(1 << (8 * i))
            })
        };
        let d = d_of(&|c| b.main(c));
        let d_next = d_of(&|c| b.main_next(c));
        let real_next = b.main_next(P0_REAL);

        b.assert_first("page0 first row flagged", first.clone() - one.clone());
        b.assert_transition("page0 only the first row flagged", b.main_next(P0_FIRST));
        b.assert_bool("page0 real boolean", real.clone());
        b.assert_transition(
            "page0 real rows first",
            (one - real.clone()) * real_next.clone(),
        );
        b.assert_transition(
            "page0 words strictly increase",
            real_next * (b.main_next(P0_W) - w.clone() - Felt::ONE - d_next),
        );

        b.receive(BUS_FLOOR, first, &[w.clone() - d]);
        let range = B::Expr::from(Felt::from(BYTE_RANGE));
        b.send(
            BUS_BYTE,
            real.clone(),
            &[range.clone(), b.main(P0_D), b.main(P0_D + 1), zero.clone()],
        );
        b.send(
            BUS_BYTE,
            real.clone(),
            &[range, b.main(P0_D + 2), b.main(P0_D + 3), zero.clone()],
        );

        let mut init = Vec::with_capacity(10);
        init.push(w.clone());
        init.extend((0..9).map(|_| zero.clone()));
        b.send(BUS_MEM, real.clone(), &init);
        let mut fin = Vec::with_capacity(10);
        fin.push(w);
        fin.extend((0..8).map(|i| b.main(P0_FIN + i)));
        fin.push(b.main(P0_FIN_TS));
        b.receive(BUS_MEM, real, &fin);
    }
}

/// PAGE0's trace (PAGE's builder is [`build_trace`]): `words` are `(w, final value,
/// final ts)` of the touched words at or above `floor`, strictly increasing. Records the
/// `d` range checks in `bytes`.
pub fn build_trace0(
    floor: u32,
    words: &[(u32, u64, u64)],
    bytes: &mut ByteCounts,
) -> RowMajorMatrix {
    let mut m = RowMajorMatrix::zeros(padded_height(words.len()), P0_WIDTH);
    m.row_mut(0)[P0_FIRST] = Felt::ONE;
    if words.is_empty() {
        m.row_mut(0)[P0_W] = Felt::from(floor);
        return m;
    }
    let mut prev = floor;
    for (r, &(w, fin, ts)) in words.iter().enumerate() {
        let row = m.row_mut(r);
        row[P0_REAL] = Felt::ONE;
        row[P0_W] = Felt::from(w);
        // Wrapping, so that a dishonest word list yields a trace that fails the checks.
        let d = if r == 0 {
            w.wrapping_sub(floor)
        } else {
            w.wrapping_sub(prev).wrapping_sub(1)
        }
        .to_le_bytes();
        for i in 0..4 {
            row[P0_D + i] = Felt::from(d[i] as u32);
        }
        bytes.range(d[0], d[1]);
        bytes.range(d[2], d[3]);
        for (i, byte) in fin.to_le_bytes().into_iter().enumerate() {
            row[P0_FIN + i] = Felt::from(byte as u32);
        }
        row[P0_FIN_TS] = Felt::new(ts);
        prev = w;
    }
    m
}
