//! DECODE on the register-only program (`kestrel_tests::register_program`): its
//! multiplicities count the executions of each code word; every single-cell change of a
//! real row is caught; an execution moved from one code word to another (two
//! multiplicities changed together, which no row constraint sees) unbalances the DECODE bus.

use kestrel_core::field::Felt;
use kestrel_core::rv::decode;
use kestrel_core::rv::machine::TableId;
use kestrel_tests::register_program::honest;

#[test]
fn decode_multiplicities_count_the_executions() {
    let h = honest();
    let t = &h.traces[TableId::Decode.index()];
    for (row, &(pc, _)) in h.image.code.iter().enumerate() {
        let runs = h.records.iter().filter(|r| r.pc == pc).count() as u64;
        assert_eq!(t.row(row)[decode::M].as_u64(), runs, "pc {pc:#x}");
    }
    let total: u64 = t.rows().map(|r| r[decode::M].as_u64()).sum();
    assert_eq!(total, h.records.len() as u64);
}

#[test]
fn every_real_decode_cell_mutation_is_caught() {
    let h = honest();
    h.assert_mutations_caught(TableId::Decode, h.image.code.len(), 8);
}

#[test]
fn an_execution_moved_to_another_code_word_is_caught() {
    let h = honest();
    let t = &h.traces[TableId::Decode.index()];
    let ran: Vec<usize> = (0..h.image.code.len())
        .filter(|&r| t.row(r)[decode::M] != Felt::ZERO)
        .collect();
    let (from, to) = (ran[0], ran[1]);
    h.assert_forgery_unbalanced(TableId::Decode, |t| {
        t.row_mut(from)[decode::M] -= Felt::ONE;
        t.row_mut(to)[decode::M] += Felt::ONE;
    });
}
