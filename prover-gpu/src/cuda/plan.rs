//! The device-memory plan: the most one proof holds at once, stage by stage, checked
//! against the budget before anything is committed (see [`super::resident`] for how the
//! budget is kept while proving).
//!
//! Per table the proof keeps on the device, until it ends: each committed matrix's source
//! (main trace, LogUp aux trace, quotient coefficients) and Merkle tree; the DEEP codeword
//! sum of each LDE size; the FRI layers; twiddles for the largest LDE. LDEs are a cache
//! the budget takes back, so a stage needs only the LDEs it reads (a table's preprocessed,
//! main, aux and quotient LDEs in DEEP) plus its own scratch. The plan is the largest of
//! those stage totals, modelled on the allocations the backend makes; with it under the
//! budget the evictions always find room. A budget below it is refused up front, and an
//! allocation that still does not fit stops the proof with an error, never a wrong proof.

use crate::backend::TablePlan;

const WORD: u64 = 8;
/// A Merkle node: four words.
const NODE: u64 = 32;
/// An extension element: three words.
const EXT: u64 = 3 * WORD;

/// One table's sizes in bytes at blowup `2^log_blowup`.
struct Sizes {
    n: u64,
    big: u64,
    main: u64,
    pre: u64,
    aux: u64,
    quotient: u64,
    resident: bool,
    interactions: u64,
}

impl Sizes {
    fn of(t: &TablePlan, log_blowup: u32) -> Sizes {
        let n = 1u64 << t.log_height;
        let cols = |w: usize| w as u64 * n * WORD;
        Sizes {
            n,
            big: n << log_blowup,
            main: cols(t.main),
            pre: cols(t.pre),
            aux: cols(t.aux),
            quotient: cols(t.quotient),
            resident: t.main_resident,
            interactions: t.interactions as u64,
        }
    }
    fn lde(&self, source: u64) -> u64 {
        source * (self.big / self.n)
    }
    /// Scratch for recomputing one of the table's evicted LDEs next to those already
    /// recomputed: a copy of its source (a coefficient source is transposed first: two).
    fn recompute(&self) -> u64 {
        self.pre.max(self.main).max(self.aux).max(2 * self.quotient)
    }
    fn tree(&self, source: u64) -> u64 {
        if source == 0 {
            0
        } else {
            NODE * (2 * self.big - 1)
        }
    }
}

/// Bytes the proof over `tables` holds at its fullest stage, including main traces that
/// are already resident (`main_resident`) but not what was held before the proof (the
/// preprocessed commitments, staging).
pub fn working_set(tables: &[TablePlan], log_blowup: u32) -> u64 {
    let s: Vec<Sizes> = tables.iter().map(|t| Sizes::of(t, log_blowup)).collect();
    let max_big = s.iter().map(|t| t.big).max().unwrap_or(0);
    let twiddles = twiddle_bytes(tables, log_blowup);
    let resident: u64 = s.iter().filter(|t| t.resident).map(|t| t.main).sum();
    let mut peak = 0u64;
    let mut held = twiddles + resident;
    let mut at = |held: u64, transient: u64| peak = peak.max(held + transient);

    // Main commitments: a device trace is copied into the LDE input; a host one is uploaded
    // row-major, transposed into its kept columns and into the LDE input.
    for t in &s {
        if !t.resident {
            held += t.main;
        }
        let input = if t.resident { t.main } else { 2 * t.main };
        at(held, input + t.lde(t.main) + t.tree(t.main));
        held += t.tree(t.main);
    }
    // LogUp: multiplicities and fingerprints (k per row), the aux rows and row sums; then
    // the aux columns kept, the LDE input and the LDE.
    for t in s.iter().filter(|t| t.interactions > 0) {
        let build = t.n * t.interactions * (WORD + EXT) + t.aux + t.n * EXT;
        at(held, build);
        at(held, 2 * t.aux + t.lde(t.aux) + t.tree(t.aux));
        held += t.aux + t.tree(t.aux);
    }
    // Quotients: the table's LDEs, the evaluations on the LDE domain and the chunks; then
    // the chunks, the coefficient columns kept and their LDE.
    for t in &s {
        let evals = 3 * t.big * WORD;
        at(
            held,
            t.lde(t.pre) + t.lde(t.main) + t.lde(t.aux) + t.recompute() + evals + t.quotient,
        );
        at(
            held,
            2 * t.quotient + t.lde(t.quotient) + t.tree(t.quotient),
        );
        held += t.quotient + t.tree(t.quotient);
    }
    // DEEP: every LDE of the table and its codeword, next to the sums made so far (one per
    // LDE size).
    let mut sizes: Vec<u64> = Vec::new();
    for t in &s {
        let lde = t.lde(t.pre) + t.lde(t.main) + t.lde(t.aux) + t.lde(t.quotient);
        at(held, lde + t.recompute() + t.big * EXT);
        if !sizes.contains(&t.big) {
            sizes.push(t.big);
            held += t.big * EXT;
        }
    }
    // FRI: each layer's values and tree (a leaf per pair), and the folded codeword.
    let mut len = max_big;
    while len > 1 {
        held += len * EXT + NODE * len;
        at(held, len / 2 * EXT);
        len /= 2;
    }
    // Queries: one matrix's LDE at a time, recomputed.
    let largest = s
        .iter()
        .flat_map(|t| [t.pre, t.main, t.aux, t.quotient].map(|c| t.lde(c) + t.recompute()))
        .max()
        .unwrap_or(0);
    at(held, largest);
    peak
}

/// The twiddle tables the plan counts (forward and inverse for the largest LDE), in bytes.
pub fn twiddle_bytes(tables: &[TablePlan], log_blowup: u32) -> u64 {
    let max_big = tables
        .iter()
        .map(|t| 1u64 << (t.log_height + log_blowup))
        .max()
        .unwrap_or(0);
    2 * max_big * WORD
}

/// Main traces already held among `tables`, in bytes.
pub fn resident_bytes(tables: &[TablePlan]) -> u64 {
    tables
        .iter()
        .filter(|t| t.main_resident)
        .map(|t| t.main as u64 * (1u64 << t.log_height) * WORD)
        .sum()
}

/// Room for the small buffers the model leaves out (programs, challenges, flags, opening
/// gathers, partial sums): 1 % and 64 MiB.
pub fn slack(bytes: u64) -> u64 {
    bytes / 100 + (64 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(log_height: u32, main: usize, aux: usize, resident: bool) -> TablePlan {
        TablePlan {
            log_height,
            main,
            pre: 0,
            aux,
            quotient: 6,
            interactions: aux / 3,
            main_resident: resident,
        }
    }

    #[test]
    fn the_plan_grows_with_every_size_and_counts_resident_traces_once() {
        let base = working_set(&[table(10, 20, 9, true), table(12, 4, 6, true)], 1);
        // At least every main trace, its LDE and tree, and the DEEP sums.
        assert!(base > (20 << 10) * 8 * 3 + (4 << 12) * 8 * 3);
        for bigger in [
            [table(11, 20, 9, true), table(12, 4, 6, true)],
            [table(10, 21, 9, true), table(12, 4, 6, true)],
            [table(10, 20, 12, true), table(12, 4, 6, true)],
        ] {
            assert!(working_set(&bigger, 1) > base);
        }
        // A host trace is uploaded (more scratch at its commit), never less than a device one.
        assert!(working_set(&[table(10, 20, 9, true), table(12, 4, 6, false)], 1) >= base);
        assert!(working_set(&[table(10, 20, 9, true), table(12, 4, 6, true)], 2) > base);
        assert_eq!(
            resident_bytes(&[table(10, 20, 9, true), table(12, 4, 6, false)]),
            20 * 1024 * 8
        );
    }
}
