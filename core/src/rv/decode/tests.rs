//! DECODE's unit tests on the run's first [`BUS_ENTRY`] token: the entry row alone
//! receives `(0, entry, 0)`; the CPU's first segment meets it, a first segment from
//! another clock, output position or pc does not.

use alloc::vec;
use alloc::vec::Vec;

use crate::air::debug::table_ledger;
use crate::air::Air;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::cpu::{self, CpuAir};
use crate::rv::decode::{build_trace, DecodeAir, ProgramImage, PRE_WIDTH};
use crate::rv::testing::cpu::{program, run, Segment, BASE, LOOP, STEPS};
use crate::rv::BUS_ENTRY;

/// The net BUS_ENTRY traffic of DECODE for `image` (no executions counted).
fn decode_entry(image: &ProgramImage) -> Vec<(Vec<Felt>, Felt)> {
    let air = DecodeAir::new(image);
    let (values, _) = air.preprocessed_trace().unwrap();
    let pre = RowMajorMatrix::new(values, PRE_WIDTH);
    let main = build_trace(image, core::iter::empty::<&[u64]>());
    let l = table_ledger(&air, &main, Some(&pre), &[]);
    assert!(l.failures.is_empty(), "{:?}", l.failures);
    l.buses
        .into_iter()
        .filter(|((b, _), _)| *b == BUS_ENTRY)
        .map(|((_, v), m)| (v, m))
        .collect()
}

/// The net BUS_ENTRY traffic of a CPU segment.
fn cpu_entry(s: &Segment) -> Vec<(Vec<Felt>, Felt)> {
    let l = table_ledger(&CpuAir, &s.trace(), None, &[]);
    assert!(l.failures.is_empty(), "{:?}", l.failures);
    l.buses
        .into_iter()
        .filter(|((b, _), _)| *b == BUS_ENTRY)
        .map(|((_, v), m)| (v, m))
        .collect()
}

#[test]
fn the_entry_row_receives_clock_0_the_entry_and_no_output() {
    let token = |pc: u32| vec![Felt::ZERO, Felt::from(pc), Felt::ZERO];
    let image = program();
    assert_eq!(decode_entry(&image), vec![(token(BASE), -Felt::ONE)]);
    // Another entry point: that row's pc.
    let image = ProgramImage {
        entry: LOOP,
        ..program()
    };
    assert_eq!(decode_entry(&image), vec![(token(LOOP), -Felt::ONE)]);
}

#[test]
fn the_first_segment_meets_decodes_token() {
    let image = program();
    let balance = |s: &Segment| {
        let mut net: Vec<(Vec<Felt>, Felt)> = Vec::new();
        for (v, m) in decode_entry(&image).into_iter().chain(cpu_entry(s)) {
            match net.iter_mut().find(|(w, _)| *w == v) {
                Some(e) => e.1 += m,
                None => net.push((v, m)),
            }
        }
        net.retain(|(_, m)| *m != Felt::ZERO);
        net
    };
    let r = run();
    assert!(balance(&r.segment(0..STEPS, 0, 0)).is_empty());
    // A first segment (one that ends by handing off included) meets the token only by
    // starting at clock 0, at the entry, with no output written.
    let first = r.segment(0..20, 0, 0);
    assert_eq!(balance(&first), vec![(first.end.to_vec(), -Felt::ONE)]);
    for s in [
        r.segment(0..STEPS, 1, 0),
        r.segment(0..STEPS, 0, 1),
        r.segment(2..STEPS, 0, 0),
    ] {
        assert_eq!(balance(&s).len(), 2, "start {:?}", s.start);
    }
    // And its trace's row 0 holds that token.
    let t = r.segment(0..STEPS, 0, 0).trace();
    assert_eq!(
        [t.row(0)[cpu::CLK], t.row(0)[cpu::PC], t.row(0)[cpu::OUTPOS]],
        [Felt::ZERO, Felt::from(BASE), Felt::ZERO]
    );
}
