//! BITWISE on the register-only program (`kestrel_tests::register_program`): its counts
//! are every byte lookup the other tables make; every single-cell change of a real row is
//! caught; a lookup count moved from one byte pair to another (two cells changed together,
//! which no row constraint sees) unbalances the byte bus.

use kestrel_core::field::Felt;
use kestrel_core::rv::machine::TableId;
use kestrel_core::rv::BYTE_RANGE;
use kestrel_tests::register_program::honest;

#[test]
fn bitwise_counts_the_lookups() {
    let h = honest();
    let t = &h.traces[TableId::Bitwise.index()];
    assert_eq!(t.height(), 1 << 16);
    // Every step range-checks its result and its register timestamps: at least one range
    // lookup per step.
    let range: u64 = t.rows().map(|r| r[BYTE_RANGE as usize].as_u64()).sum();
    assert!(range >= h.records.len() as u64, "{range} range lookups");
}

#[test]
fn every_real_bitwise_cell_mutation_is_caught() {
    let h = honest();
    h.assert_mutations_caught(TableId::Bitwise, 1 << 16, 11);
}

#[test]
fn a_lookup_count_moved_to_another_pair_is_caught() {
    let h = honest();
    let t = &h.traces[TableId::Bitwise.index()];
    let col = BYTE_RANGE as usize;
    let from = (0..t.height())
        .find(|&r| t.row(r)[col] != Felt::ZERO)
        .expect("a range lookup");
    let to = (from + 1..t.height())
        .find(|&r| t.row(r)[col] == Felt::ZERO)
        .expect("an unused byte pair");
    h.assert_forgery_unbalanced(TableId::Bitwise, |t| {
        t.row_mut(from)[col] -= Felt::ONE;
        t.row_mut(to)[col] += Felt::ONE;
    });
}
