//! REGISTER on the register-only program (`kestrel_tests::register_program`): its final
//! tokens are the registers' last values; every single-cell change of a real row is caught;
//! two registers' final tokens swapped (value and timestamp moved together, every row still
//! well formed) unbalance the register bus.

use kestrel_core::rv::machine::TableId;
use kestrel_core::rv::register;
use kestrel_tests::register_program::honest;

/// Register `reg`'s final value in REGISTER's trace.
fn final_value(t: &kestrel_core::matrix::RowMajorMatrix, reg: usize) -> u64 {
    (0..8).fold(0, |v, k| {
        v | t.row(reg)[register::FINAL + k].as_u64() << (8 * k)
    })
}

#[test]
fn register_final_values_are_the_last_writes() {
    let h = honest();
    let t = &h.traces[TableId::Register.index()];
    assert_eq!(final_value(t, 0), 0);
    assert_eq!(final_value(t, 5), 7);
    assert_eq!(final_value(t, 6), -3i64 as u64);
    assert_eq!(final_value(t, 7), 4); // add
    assert_eq!(final_value(t, 8), 10); // sub
    assert_eq!(final_value(t, 27), 0); // add x27, x0, x0
    assert_eq!(final_value(t, 23), 0); // skipped
    assert_eq!(final_value(t, 10), 42); // a0 at exit
}

#[test]
fn every_real_register_cell_mutation_is_caught() {
    let h = honest();
    h.assert_mutations_caught(TableId::Register, 32, 10);
}

#[test]
fn swapped_final_tokens_are_caught() {
    let h = honest();
    h.assert_forgery_unbalanced(TableId::Register, |t| {
        for c in (register::FINAL..register::FINAL + 8).chain([register::FINAL_TS]) {
            let (a, b) = (t.row(5)[c], t.row(6)[c]);
            t.row_mut(5)[c] = b;
            t.row_mut(6)[c] = a;
        }
    });
}
