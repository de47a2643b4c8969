//! MEMW_R and MEMW_R2 on the register-only program (`kestrel_tests::register_program`): one
//! real row per register access (three per step), MEMW_R's first and MEMW_R2's after them
//! (`memw_r::split`); every single-cell change of a real row of either is caught; a read
//! that finds and returns another value (its old and new bytes changed together, so the
//! row's own constraints hold) unbalances the register buses, in either table.

use kestrel_core::field::Felt;
use kestrel_core::rv::machine::TableId;
use kestrel_core::rv::memw_r;
use kestrel_tests::register_program::{honest, Honest};

/// The real rows of MEMW_R and of MEMW_R2: the accesses (three per step; the program makes
/// no system call that accesses registers) over the two tables.
fn real_rows(h: &Honest) -> (usize, usize) {
    let n = 3 * h.records.len();
    let first = n.min(h.traces[TableId::MemwR.index()].height());
    (first, n - first)
}

#[test]
fn memw_r_rows_are_the_register_accesses() {
    let h = honest();
    let (real, real2) = real_rows(&h);
    // The program's accesses fill MEMW_R and spill into MEMW_R2: both tables are exercised.
    assert!(real2 > 0, "MEMW_R2 holds no access");
    let layout = memw_r::split(real + real2);
    let mut all = Vec::new();
    for (t, (real, height)) in [TableId::MemwR, TableId::MemwR2]
        .into_iter()
        .zip([(real, layout.height), (real2, layout.height2)])
    {
        let t = &h.traces[t.index()];
        assert_eq!(t.height(), height);
        assert!(t.rows().take(real).all(|r| r[memw_r::IS_REAL] == Felt::ONE));
        assert!(t
            .rows()
            .skip(real)
            .all(|r| r[memw_r::IS_REAL] == Felt::ZERO));
        all.extend(t.rows().take(real).map(|r| r.to_vec()));
    }
    // Step k reads rs1 at 4k + 1, rs2 at 4k + 2 and writes rd at 4k + 3.
    for (k, row) in all.iter().enumerate() {
        assert_eq!(row[memw_r::TS].as_u64(), (4 * (k / 3) + k % 3 + 1) as u64);
        assert_eq!(row[memw_r::IS_WRITE], Felt::from(k % 3 == 2));
    }
}

#[test]
fn every_real_memw_r_cell_mutation_is_caught() {
    let h = honest();
    let (real, real2) = real_rows(&h);
    h.assert_mutations_caught(TableId::MemwR, real, 9);
    h.assert_mutations_caught(TableId::MemwR2, real2, 10);
}

#[test]
fn a_read_of_another_value_is_caught() {
    let h = honest();
    let (real, real2) = real_rows(&h);
    for (table, real) in [(TableId::MemwR, real), (TableId::MemwR2, real2)] {
        let t = &h.traces[table.index()];
        let row = (0..real)
            .find(|&r| {
                let r = t.row(r);
                r[memw_r::IS_WRITE] == Felt::ZERO && r[memw_r::REG] != Felt::ZERO
            })
            .expect("a read of a register other than x0");
        h.assert_forgery_unbalanced(table, |t| {
            let r = t.row_mut(row);
            let byte = Felt::new((r[memw_r::OLD].as_u64() + 1) % 256);
            r[memw_r::OLD] = byte;
            r[memw_r::NEW] = byte;
        });
    }
}
