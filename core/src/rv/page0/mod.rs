//! PAGE0: the zero-initialised part of PAGE, one row per touched zero word (see
//! [`super::page`] for the memory map and the token argument both tables share).
//!
//! [`Page0Cols`] is the layout's source; the index constants are its fields' offsets.

use super::page::token;
use super::{BUS_BYTE, BUS_MEM, BUS_ZRANGE, BYTE_RANGE};
use crate::air::columns::Columns;
use crate::air::{Air, AirBuilder};
use crate::col;
use crate::field::Felt;

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

#[cfg(feature = "trace")]
mod fill;
#[cfg(feature = "trace")]
pub use fill::*;

#[cfg(all(test, feature = "trace"))]
mod tests;
