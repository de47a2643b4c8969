//! PAGE's unit tests, in the memory argument's test machine (`rv::testing::mem`): shapes;
//! honest final tokens; images it refuses; every single-cell mutation of a real row is
//! detected; final tokens that differ from the last access (value or timestamp) and words
//! outside the memory map are caught.

extern crate std;

use alloc::vec::Vec;
use std::println;

use crate::air::debug::{preprocessed_traces, table_ledger};
use crate::air::{TableAir, TableShape};
use crate::field::Felt;
use crate::rv::bitwise::ByteCounts;
use crate::rv::page::{self, PageAir, ZeroRange};
use crate::rv::page0;
use crate::rv::testing::mem::*;
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::{BUS_MEM, BUS_ZRANGE};

#[test]
fn page_shapes_are_valid() {
    let img = image();
    for t in [PageAir::new(&img), PageAir::shape_only()] {
        let shape = TableShape::of(&t, 0);
        assert!(shape.is_ok(), "{}: {shape:?}", TableAir::name(&t));
        println!("{}: {:?}", TableAir::name(&t), shape.unwrap());
    }
}

/// On honest runs PAGE's rows satisfy their constraints and carry each image word's last
/// token: its initial value and timestamp 0 when never accessed.
#[test]
fn page_final_tokens_are_the_last_accesses() {
    let img = image();
    let run = honest(&img, &requests(11, 40));
    let machine = MemMachine {
        page: PageAir::new(&img),
    };
    let pre = preprocessed_traces(&machine);
    let t = traces(&img, &run, None);
    let l = table_ledger(&machine.page, &t[3], pre[3].as_ref(), &[]);
    assert!(l.failures.is_empty(), "{:?}", l.failures);
    for (k, &(w, v, _)) in img.words.iter().enumerate() {
        let (fin, ts) = run.page_finals[k];
        let touched = run.rows.iter().any(|r| match r {
            Row::A(a) => a.w == w,
            Row::S(a, b) => a.w == w || b.w == w,
        });
        assert_eq!(ts != 0, touched, "word {w}");
        if !touched {
            assert_eq!(fin, v, "word {w}");
        }
    }
    assert!(check(&img, &run).is_ok());
}

#[test]
#[should_panic(expected = "an image word lies in a zero range")]
fn page_rejects_image_word_in_zero_range() {
    let mut img = image();
    img.zero[0].lo = 115;
    let _ = PageAir::new(&img);
}

#[test]
#[should_panic(expected = "zero ranges are not sorted and disjoint")]
fn page_rejects_overlapping_zero_ranges() {
    let mut img = image();
    img.zero[1].lo = 119;
    let _ = PageAir::new(&img);
}

#[test]
fn page_mutations_are_detected() {
    let img = image();
    let run = honest(&img, &requests(9, 60));
    let t = traces(&img, &run, None);
    let machine = MemMachine {
        page: PageAir::new(&img),
    };
    let pre = preprocessed_traces(&machine);
    let rows: Vec<usize> = (0..img.words.len().max(img.zero.len())).collect();
    assert_all_detected(&machine.page, &t[3], pre[3].as_ref(), &[], &rows, 40);
}

#[test]
fn final_value_differs_from_last_write() {
    let img = image();
    let run = honest(&img, &requests(11, 40));
    // PAGE: word 100's final claimed as its initial value (as if never written).
    let mut bad = run.clone();
    let k = img.words.iter().position(|e| e.0 == 100).unwrap();
    assert_ne!(bad.page_finals[k].0, img.words[k].1);
    bad.page_finals[k].0 = img.words[k].1;
    let r = check(&img, &bad);
    assert!(unbalanced(&r, BUS_MEM), "{r}");
    // PAGE: right value, wrong timestamp (an earlier token).
    let mut bad = run.clone();
    bad.page_finals[k].1 -= 1;
    assert!(unbalanced(&check(&img, &bad), BUS_MEM));
    // PAGE0: heap word 125's final value changed.
    let mut bad = run.clone();
    let k = bad.page0.iter().position(|e| e.0 == 125).unwrap();
    bad.page0[k].1 ^= 0x100;
    let r = check(&img, &bad);
    assert!(unbalanced(&r, BUS_MEM), "{r}");
}

#[test]
fn words_outside_the_map() {
    let img = image();
    // The image's hole, just past the heap's end, just below and at the stack's end, and
    // word 2^29 (a split access at 0xFFFF_FFFC reaches it).
    for w in [112u32, 113, 140, 989, 1010, 1 << 29] {
        let mut reqs = requests(11, 0);
        reqs[8].w = w;
        let run = honest(&img, &reqs);
        assert!(run.page0.iter().any(|e| e.0 == w));
        // Honestly: no zero range holds the word.
        let r = check(&img, &run);
        assert!(unbalanced(&r, BUS_ZRANGE), "w {w}: {r}");
        // Forged: the row claims the nearest range (with PAGE's counts to match); its
        // bounds fail.
        let mut zero = zero_words(&img, &run.page0);
        let k = zero.iter().position(|z| z.w == w).unwrap();
        zero[k].range = if w < 990 { img.zero[1] } else { img.zero[2] };
        let mut sink = ByteCounts::default();
        let t0 = page0::build_trace(&zero, &mut sink);
        let mut t = traces(&img, &run, Some(t0));
        t[3] = page::build_trace(&img, &run.page_finals, &page::zero_counts(&img, &zero));
        let r = check_traces(&img, &t);
        assert!(r.imbalances.is_empty(), "w {w}: {r}");
        assert!(
            fails(&r, "PAGE0", "page0 word at or above its range")
                || fails(&r, "PAGE0", "page0 word below its range's end"),
            "w {w}: {r}"
        );
    }
    // A range the key does not list (the heap's, one word longer).
    let mut reqs = requests(11, 0);
    reqs[8].w = 140;
    let run = honest(&img, &reqs);
    let mut zero = zero_words(&img, &run.page0);
    let k = zero.iter().position(|z| z.w == 140).unwrap();
    zero[k].range = ZeroRange {
        lo: 120,
        hi: 141,
        ro: false,
    };
    let mut sink = ByteCounts::default();
    let t = traces(&img, &run, Some(page0::build_trace(&zero, &mut sink)));
    let r = check_traces(&img, &t);
    assert!(unbalanced(&r, BUS_ZRANGE), "{r}");
    // PAGE offering a range on a row that holds none.
    let run = honest(&img, &requests(11, 0));
    let mut t = traces(&img, &run, None);
    let last = t[3].height() - 1;
    t[3].row_mut(last)[page::ZMULT] = Felt::ONE;
    let r = check_traces(&img, &t);
    assert!(
        fails(&r, "PAGE", "page zmult only on zero-range rows"),
        "{r}"
    );
}
