//! STORE's unit tests: `store_words` against a byte-buffer reference; honest traces satisfy
//! every constraint and make exactly the expected bus traffic; every single-cell mutation
//! of a real row is detected; stray byte writes and invalid funct3 cannot be proven.

extern crate std;

use alloc::vec::Vec;
use std::println;

use super::*;
use crate::field::Felt;
use crate::rv::bitwise::ByteCounts;
use crate::rv::testing::loadstore::*;
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::{load, store, StoreOp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn store_words_match_reference() {
    let mut n = 0;
    for op in store_ops(3, 14, 20_000) {
        let want = ref_store(op.funct3, op.addr, op.value, op.old0, op.old1);
        assert_eq!(store::store_words(&op), want, "{op:?}");
        let (rec, new) = store::record(op.ts, op.funct3, op.addr, op.value, op.old0, op.old1);
        assert_eq!((rec, new), (op, want));
        n += 1;
    }
    let sw = store::store_words(&StoreOp {
        ts: 1,
        funct3: 2,
        addr: 6,
        value: 0xdead_beef_0403_0201,
        old0: u64::MAX,
        old1: u64::MAX,
    });
    assert_eq!(sw, (0x0201_ffff_ffff_ffff, 0xffff_ffff_ffff_0403));
    println!("reference: {n} stores agree");
}

#[test]
fn store_honest_traces() {
    shape(&StoreAir);
    for ops in [store_ops(6, 0, 5), store_ops(7, 6, 700), Vec::new()] {
        let mut bytes = ByteCounts::default();
        let tr = store::build_trace(&ops, &mut bytes);
        assert_eq!(
            tr.height(),
            ops.len().next_power_of_two().max(crate::params::MIN_ROWS)
        );
        assert_eq!(tr.width, store::WIDTH);
        let l = ledger(&StoreAir, &tr);
        assert!(
            l.failures.is_empty(),
            "{:?}",
            &l.failures[..l.failures.len().min(8)]
        );
        assert_eq!(l.buses, expected_store_bus(&ops, &bytes));
        for r in ops.len()..tr.height() {
            assert!(tr.row(r).iter().all(|&v| v == Felt::ZERO));
        }
    }
}

#[test]
fn store_mutations_are_detected() {
    let ops = store_ops(10, 3, 200);
    let mut bytes = ByteCounts::default();
    let tr = store::build_trace(&ops, &mut bytes);
    let rows: Vec<usize> = (0..ops.len()).collect();
    assert_all_detected(&StoreAir, &tr, None, &[], &rows, 24);

    let ops = store_ops(12, 2, 0);
    let tr = store::build_trace(&ops, &mut ByteCounts::default());
    let (d, t) = exhaustive_mutations(&StoreAir, &tr, ops.len());
    println!(
        "STORE: exhaustive mutation detection {d}/{t} ({} rows)",
        ops.len()
    );
}

/// A store row whose new words change one byte outside the written range, or write a
/// wrong byte inside it: a constraint fails.
#[test]
fn stray_store_writes_are_rejected() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let (mut outside, mut inside) = (0, 0);
    for op in store_ops(16, 3, 300) {
        let off = (op.addr % 8) as usize;
        let w = load::width_of(op.funct3) as usize;
        let honest = store::build_trace(&[op], &mut ByteCounts::default());
        for i in 0..16 {
            let mut tr = honest.clone();
            let cell = store::NEW + i;
            let old = tr.row(0)[cell];
            let new = loop {
                let v = f(rng.gen_range(0..256));
                if v != old {
                    break v;
                }
            };
            tr.row_mut(0)[cell] = new;
            let l = ledger(&StoreAir, &tr);
            assert!(
                !l.failures.is_empty(),
                "{op:?}: byte {i} changed to {new:?} accepted"
            );
            if (off..off + w).contains(&i) {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    println!("STORE: {outside} stray writes outside and {inside} wrong bytes inside rejected");
}

/// A consistent forgery: the row of a store of another value (its value bytes and new words
/// changed together, as the builder derives them) satisfies every constraint, but its bus
/// traffic is not the honest store's, so the CPU's request and the memory tokens do not
/// balance.
#[test]
fn store_of_another_value_unbalances_the_bus() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut n = 0;
    for op in store_ops(18, 1, 100) {
        let mut bytes = ByteCounts::default();
        store::build_trace(&[op], &mut bytes);
        let expected = expected_store_bus(&[op], &bytes);
        let bits = 8 * load::width_of(op.funct3);
        let forged = StoreOp {
            value: op.value ^ (1u64 << rng.gen_range(0..bits)),
            ..op
        };
        let tr = store::build_trace(&[forged], &mut ByteCounts::default());
        let l = ledger(&StoreAir, &tr);
        assert!(l.failures.is_empty(), "{forged:?}: {:?}", l.failures);
        assert_ne!(l.buses, expected, "{forged:?}: the same bus traffic");
        n += 1;
    }
    println!("STORE: {n} stores of another value unbalance the bus");
}

#[test]
fn invalid_store_funct3_is_unprovable() {
    let selector_only = ["store width selector boolean", "store is_real boolean"];
    let op = StoreOp {
        ts: 9,
        funct3: 3,
        addr: 0x1000 + 3,
        value: 0x0102_0304_0506_0708,
        old0: u64::MAX,
        old1: 0x55,
    };
    let honest = store::build_trace(&[op], &mut ByteCounts::default());
    for mask in 0u32..16 {
        let mut tr = honest.clone();
        for i in 0..4 {
            tr.row_mut(0)[store::SZ + i] = Felt::from(mask >> i & 1);
        }
        let l = ledger(&StoreAir, &tr);
        let selector_fails = l.failures.iter().any(|(_, c)| selector_only.contains(c));
        // Only one-hot selectors pass, and their funct3 is 0..=3.
        assert_eq!(selector_fails, mask.count_ones() > 1, "mask {mask:04b}");
    }
    // funct3 4..=7: the builder writes no width selector; a named failure, no panic.
    for funct3 in 4..8 {
        let tr = store::build_trace(&[StoreOp { funct3, ..op }], &mut ByteCounts::default());
        let l = ledger(&StoreAir, &tr);
        assert!(
            l.failures.contains(&(0, "store offset one-hot")),
            "{funct3}"
        );
    }
}
