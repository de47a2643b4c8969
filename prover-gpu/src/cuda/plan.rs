//! The device-memory plan: the most one proof holds at once, stage by stage, checked
//! against the budget before anything is committed (see [`super::resident`] for how the
//! budget is kept while proving).
//!
//! Committed buffers are a cache the budget takes back (LDEs dropped and recomputed,
//! sources and Merkle trees spilled to the host and uploaded again), so a stage needs only
//! what it reads and writes: e.g. a table's preprocessed, main, aux and quotient sources in
//! DEEP, with the combinations it extends. What stays across stages is
//! the device traces not yet committed, the DEEP codeword sum of each LDE size, the FRI
//! layers and the twiddles. The plan is the largest of the stage totals, modelled on the
//! allocations the backend makes; with it under the budget the evictions always find
//! room. A budget below it is refused up front, and an
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
    /// recomputed: its source, uploaded again, and the copy the transform works on (a
    /// coefficient source is transposed first: one more).
    fn recompute(&self) -> u64 {
        (2 * self.pre.max(self.main).max(self.aux)).max(3 * self.quotient)
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
///
/// A stage holds what it reads and writes; committed buffers it does not read can be
/// evicted (sources and trees to the host, LDEs dropped), so only the uncommitted device
/// traces, the DEEP sums, the FRI layers and the twiddles stay across stages.
pub fn working_set(tables: &[TablePlan], log_blowup: u32) -> u64 {
    let s: Vec<Sizes> = tables.iter().map(|t| Sizes::of(t, log_blowup)).collect();
    let max_big = s.iter().map(|t| t.big).max().unwrap_or(0);
    let mut peak = 0u64;
    let mut held = twiddle_bytes(tables, log_blowup);
    let mut at = |held: u64, transient: u64| peak = peak.max(held + transient);

    // Main commitments: every device trace is filled before the first commitment and held
    // until its own. A device trace is copied into the LDE input; a host one is uploaded
    // row-major, transposed into its kept columns and into the LDE input.
    let mut pending: u64 = s.iter().filter(|t| t.resident).map(|t| t.main).sum();
    at(held, pending);
    for t in &s {
        let input = if t.resident { t.main } else { 3 * t.main };
        at(held, pending + input + t.lde(t.main) + t.tree(t.main));
        if t.resident {
            pending -= t.main;
        }
    }
    // LogUp: the main and preprocessed sources; multiplicities and fingerprints (k per
    // row), the aux rows and row sums; then the aux rows, the aux columns kept, the LDE
    // input, the LDE and its tree.
    for t in s.iter().filter(|t| t.interactions > 0) {
        let read = t.main + t.pre;
        let build = t.n * t.interactions * (WORD + EXT) + t.aux + t.n * EXT;
        let commit = 3 * t.aux + t.lde(t.aux) + t.tree(t.aux);
        at(held, read + build.max(commit));
    }
    // Quotients: the table's LDEs (one recomputed at a time), the evaluations on the LDE
    // domain and the chunks; then the chunks, the coefficient columns kept, their LDE and
    // tree.
    for t in &s {
        let evals = 3 * t.big * WORD;
        let ldes = t.lde(t.pre) + t.lde(t.main) + t.lde(t.aux);
        at(held, ldes + t.recompute() + evals + t.quotient);
        at(
            held,
            2 * t.quotient + t.lde(t.quotient) + t.tree(t.quotient),
        );
    }
    // Out-of-domain values: one source, its weights and its partial sums (two per column
    // and tile of at least 32 rows) at a time.
    for t in &s {
        let source = t.main.max(t.aux).max(t.pre);
        at(
            held,
            source + t.n * EXT + 2 * (source / WORD).div_ceil(32) * EXT,
        );
    }
    // DEEP: the table's sources, the two combinations on H_n (9 columns) and their LDEs
    // (with the transform's copy and powers), and the codeword, next to the sums made so
    // far (one per LDE size).
    let mut sizes: Vec<u64> = Vec::new();
    for t in &s {
        let sources = t.pre + t.main + t.aux + t.quotient;
        let combine = 13 * t.n * WORD + 9 * t.big * WORD;
        at(held, sources + combine + t.big * EXT);
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
    // Queries: one matrix at a time: its LDE, recomputed, and its tree.
    let largest = s
        .iter()
        .flat_map(|t| {
            [t.pre, t.main, t.aux, t.quotient].map(|c| t.lde(c) + t.tree(c) + t.recompute())
        })
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
    fn the_plan_is_its_largest_stage() {
        // One table, blowup 2: n = 1024 rows, main 20 columns, aux 9, quotient 6.
        let one = [table(10, 20, 9, true)];
        let n = 1u64 << 10;
        let (main, aux, q) = (20 * n * 8, 9 * n * 8, 6 * n * 8);
        // DEEP: the three sources, the combinations and their LDEs (13 + 9·2 columns of
        // n), and the codeword.
        let deep = (main + aux + q) + (13 + 18) * n * 8 + 2 * n * 24;
        assert!(working_set(&one, 1) >= deep + twiddle_bytes(&one, 1));
        // Growing the largest table grows the plan; growing a small one never shrinks it.
        let base = working_set(&[table(12, 20, 9, true), table(8, 4, 6, true)], 1);
        for bigger in [
            [table(13, 20, 9, true), table(8, 4, 6, true)],
            [table(12, 21, 9, true), table(8, 4, 6, true)],
        ] {
            assert!(
                working_set(&bigger, 1) > base,
                "{bigger:?}: {} vs {base}",
                working_set(&bigger, 1)
            );
        }
        for same_or_more in [
            [table(12, 20, 12, true), table(8, 4, 6, true)],
            [table(12, 20, 9, true), table(9, 4, 6, true)],
            [table(12, 20, 9, true), table(8, 4, 6, false)],
        ] {
            assert!(working_set(&same_or_more, 1) >= base);
        }
        assert!(working_set(&[table(12, 20, 9, true), table(8, 4, 6, true)], 2) > base);
        assert_eq!(
            resident_bytes(&[table(10, 20, 9, true), table(12, 4, 6, false)]),
            20 * 1024 * 8
        );
    }
}
