//! PAGE0's unit tests, in the memory argument's test machine (`rv::testing::mem`): shape;
//! honest rows; every single-cell mutation of a real row is detected; a word listed twice
//! (with a consistent second token), an image word and unsorted words are caught.

extern crate std;

use alloc::vec::Vec;
use std::println;

use crate::air::debug::table_ledger;
use crate::air::TableShape;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::page0::{self, Page0Air};
use crate::rv::testing::mem::*;
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::BUS_ZRANGE;

#[test]
fn page0_shapes_are_valid() {
    let shape = TableShape::of(&Page0Air, 0);
    assert!(shape.is_ok(), "PAGE0: {shape:?}");
    println!("PAGE0: {:?}", shape.unwrap());
}

/// On honest runs PAGE0's rows satisfy their constraints: one row per touched zero word,
/// in increasing order, each inside its zero range.
#[test]
fn page0_rows_are_the_touched_zero_words() {
    let img = image();
    let run = honest(&img, &requests(11, 40));
    let t = traces(&img, &run, None);
    let l = table_ledger(&Page0Air, &t[4], None, &[]);
    assert!(l.failures.is_empty(), "{:?}", l.failures);
    assert!(!run.page0.is_empty());
    assert!(run.page0.windows(2).all(|p| p[0].0 < p[1].0));
    for &(w, _, ts) in &run.page0 {
        assert!(img.zero_range(w).is_some(), "word {w}");
        assert!(ts > 0, "word {w}");
    }
    assert!(check(&img, &run).is_ok());
}

#[test]
fn page0_mutations_are_detected() {
    let img = image();
    let run = honest(&img, &requests(9, 60));
    let t = traces(&img, &run, None);
    let rows: Vec<usize> = (0..run.page0.len()).collect();
    assert_all_detected(&Page0Air, &t[4], None, &[], &rows, 40);
}

#[test]
fn page0_word_twice() {
    // Request 7 reads heap word 125 as 0 by restarting it from a second initial token.
    let (run, r) = attack(&mut |i, acc, _| {
        if i == 7 {
            acc[0].old = 0;
            acc[0].new = 0;
            acc[0].old_ts = 0;
        }
    });
    assert_eq!(run.page0.iter().filter(|e| e.0 == 125).count(), 2);
    // The buses balance; only the ordering constraint catches it.
    assert!(r.imbalances.is_empty(), "{r}");
    assert!(fails(&r, "PAGE0", "page0 words strictly increase"), "{r}");

    // The same, hiding the second copy after a padding row (w chosen so the gap is 0).
    let img = image();
    let mut dup: Vec<(u32, u64, u64)> = run.page0.clone();
    let k = dup.iter().position(|e| e.0 == 125).unwrap();
    let second = dup.remove(k + 1);
    let mut sink = ByteCounts::default();
    let base = page0::build_trace(&zero_words(&img, &dup), &mut sink);
    let n = dup.len();
    let mut t = RowMajorMatrix::zeros(
        (n + 2).next_power_of_two().max(crate::params::MIN_ROWS),
        page0::P0_WIDTH,
    );
    for r in 0..n {
        t.row_mut(r).copy_from_slice(base.row(r));
    }
    // Row n: padding with w = 124; row n + 1: the second 125, gap 125 − 124 − 1 = 0.
    t.row_mut(n)[page0::P0_W] = Felt::from(124u32);
    let row = t.row_mut(n + 1);
    row[page0::P0_REAL] = Felt::ONE;
    row[page0::P0_W] = Felt::from(second.0);
    for (i, byte) in second.1.to_le_bytes().into_iter().enumerate() {
        row[page0::P0_FIN + i] = Felt::from(byte as u32);
    }
    row[page0::P0_FIN_TS] = Felt::new(second.2);
    // Its range, and bounds, as an honest row would have them.
    let heap = img.zero_range(125).unwrap();
    row[page0::P0_LO] = Felt::from(heap.lo);
    row[page0::P0_HI] = Felt::from(heap.hi);
    for (base, v) in [
        (page0::P0_E, 125 - heap.lo),
        (page0::P0_F, heap.hi - 1 - 125),
    ] {
        for (i, byte) in v.to_le_bytes().into_iter().enumerate() {
            row[base + i] = Felt::from(byte as u32);
        }
    }
    let r = check_traces(&img, &traces(&img, &run, Some(t)));
    assert!(r.imbalances.is_empty(), "{r}");
    assert!(fails(&r, "PAGE0", "page0 real rows first"), "{r}");
}

#[test]
fn page0_image_word() {
    // Request 3 reads image word 105 as 0 by taking a zero token from PAGE0.
    let (run, r) = attack(&mut |i, acc, _| {
        if i == 3 {
            acc[0].old = 0;
            acc[0].new = 0;
            acc[0].old_ts = 0;
        }
    });
    assert_eq!(run.page0[0].0, 105);
    assert!(unbalanced(&r, BUS_ZRANGE), "{r}");
    // A word that is not in the image and in no zero range either (112: the image's hole).
    let img = image();
    let mut reqs = requests(11, 0);
    reqs[8].w = 112;
    let r = check(&img, &honest(&img, &reqs));
    assert!(unbalanced(&r, BUS_ZRANGE), "{r}");
}

#[test]
fn page0_unsorted() {
    let img = image();
    let mut run = honest(&img, &requests(11, 40));
    assert!(check(&img, &run).is_ok());
    let n = run.page0.len();
    assert!(n >= 4);
    // Swap two later words and then the first two.
    run.page0.swap(2, 3);
    let r = check(&img, &run);
    assert!(r.imbalances.is_empty(), "{r}");
    assert!(fails(&r, "PAGE0", "page0 words strictly increase"), "{r}");
    run.page0.swap(2, 3);
    run.page0.swap(0, 1);
    let r = check(&img, &run);
    assert!(fails(&r, "PAGE0", "page0 words strictly increase"), "{r}");
}
