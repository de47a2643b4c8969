//! Single-cell mutation testing of one table in isolation (see
//! [`crate::air::debug::table_ledger`]): a mutation is detected when the mutated trace
//! fails a constraint or changes the table's bus traffic.

extern crate std;

use crate::air::debug::table_ledger;
use crate::air::TableAir;
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use alloc::vec::Vec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::println;

/// The outcome of [`mutate_cells`].
#[derive(Debug)]
pub struct MutationReport {
    pub detected: usize,
    pub total: usize,
    /// Undetected mutations: (row, column, old, new).
    pub missed: Vec<(usize, usize, Felt, Felt)>,
}

/// The `k`-th way of changing a cell holding `old` (cycling through ±1, a random byte, a
/// random field element): a value other than `old`.
pub fn mutated(rng: &mut ChaCha8Rng, old: Felt, k: usize) -> Felt {
    loop {
        let v = match k % 4 {
            0 => old + Felt::ONE,
            1 => old - Felt::ONE,
            2 => Felt::new(rng.gen_range(0..256)),
            _ => Felt::new(rng.gen()),
        };
        if v != old {
            break v;
        }
    }
}

/// Mutates `per_column` random cells of every column of `rows` (real rows) of `trace`, one
/// at a time (±1, a random byte, a random field element), and checks each against the
/// honest trace's ledger. The honest trace itself must satisfy every constraint.
///
/// # Panics
/// If the honest trace fails a constraint or `rows` is empty.
pub fn mutate_cells(
    table: &dyn TableAir,
    trace: &RowMajorMatrix,
    pre: Option<&RowMajorMatrix>,
    public: &[Felt],
    rows: &[usize],
    per_column: usize,
    seed: u64,
) -> MutationReport {
    assert!(!rows.is_empty(), "{}: no rows to mutate", table.name());
    let honest = table_ledger(table, trace, pre, public);
    assert!(
        honest.failures.is_empty(),
        "{}: honest trace fails {:?}",
        table.name(),
        &honest.failures[..honest.failures.len().min(8)]
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tr = trace.clone();
    let mut report = MutationReport {
        detected: 0,
        total: 0,
        missed: Vec::new(),
    };
    for col in 0..trace.width {
        for k in 0..per_column {
            let row = rows[rng.gen_range(0..rows.len())];
            let old = tr.row(row)[col];
            let new = mutated(&mut rng, old, k);
            tr.row_mut(row)[col] = new;
            let l = table_ledger(table, &tr, pre, public);
            tr.row_mut(row)[col] = old;
            report.total += 1;
            if l.failures.is_empty() && l.buses == honest.buses {
                report.missed.push((row, col, old, new));
            } else {
                report.detected += 1;
            }
        }
    }
    report
}

/// [`mutate_cells`], printing the rate and asserting that every mutation was detected.
pub fn assert_all_detected(
    table: &dyn TableAir,
    trace: &RowMajorMatrix,
    pre: Option<&RowMajorMatrix>,
    public: &[Felt],
    rows: &[usize],
    per_column: usize,
) {
    let r = mutate_cells(table, trace, pre, public, rows, per_column, 7);
    println!(
        "{}: mutation detection {}/{} = {:.1}% ({} rows, {} columns)",
        table.name(),
        r.detected,
        r.total,
        100.0 * r.detected as f64 / r.total as f64,
        rows.len(),
        trace.width
    );
    assert!(
        r.missed.is_empty(),
        "{}: undetected (row, col, old, new): {:?}",
        table.name(),
        &r.missed[..r.missed.len().min(16)]
    );
}
