//! MEMW_R on the register-only program (`kestrel_tests::register_program`): one real row
//! per register access (three per step); every single-cell change of a real row is caught;
//! a read that finds and returns another value (its old and new bytes changed together, so
//! the row's own constraints hold) unbalances the register buses.

use kestrel_core::field::Felt;
use kestrel_core::rv::machine::TableId;
use kestrel_core::rv::memw_r;
use kestrel_tests::register_program::honest;

#[test]
fn memw_r_rows_are_the_register_accesses() {
    let h = honest();
    let t = &h.traces[TableId::MemwR.index()];
    let real = 3 * h.records.len();
    assert!(t.rows().take(real).all(|r| r[memw_r::IS_REAL] == Felt::ONE));
    assert!(t
        .rows()
        .skip(real)
        .all(|r| r[memw_r::IS_REAL] == Felt::ZERO));
    // Step k reads rs1 at 4k + 1, rs2 at 4k + 2 and writes rd at 4k + 3.
    for (k, row) in t.rows().take(real).enumerate() {
        assert_eq!(row[memw_r::TS].as_u64(), (4 * (k / 3) + k % 3 + 1) as u64);
        assert_eq!(row[memw_r::IS_WRITE], Felt::from(k % 3 == 2));
    }
}

#[test]
fn every_real_memw_r_cell_mutation_is_caught() {
    let h = honest();
    h.assert_mutations_caught(TableId::MemwR, 3 * h.records.len(), 9);
}

#[test]
fn a_read_of_another_value_is_caught() {
    let h = honest();
    let t = &h.traces[TableId::MemwR.index()];
    let row = (0..3 * h.records.len())
        .find(|&r| {
            let r = t.row(r);
            r[memw_r::IS_WRITE] == Felt::ZERO && r[memw_r::REG] != Felt::ZERO
        })
        .expect("a read of a register other than x0");
    h.assert_forgery_unbalanced(TableId::MemwR, |t| {
        let r = t.row_mut(row);
        let byte = Felt::new((r[memw_r::OLD].as_u64() + 1) % 256);
        r[memw_r::OLD] = byte;
        r[memw_r::NEW] = byte;
    });
}
