//! The device-memory plan: the most one proof holds at once, stage by stage, checked
//! against the budget before anything is committed (see [`super::resident`] for how the
//! budget is kept while proving).
//!
//! Committed buffers are a cache the budget takes back (LDEs dropped and recomputed,
//! sources, row digests and round trees spilled to the host and uploaded again), so a
//! stage needs only
//! what it reads and writes: e.g. a table's preprocessed, main, aux and quotient sources in
//! DEEP, with the combinations it extends. What stays across stages is
//! the device traces not yet committed, the DEEP codeword sum of each LDE size, the FRI
//! layers and the twiddles. The plan is the largest of the stage totals, modelled on the
//! allocations the backend makes; with it under the budget the evictions always find
//! room. A budget below it is refused up front, and an
//! allocation that still does not fit stops the proof with an error, never a wrong proof.
//!
//! Merkle commitments (`kestrel_core::merkle`): each committed matrix holds its
//! `n_lde` row digests (`merkle::row_digests`); each round (main, aux, quotient) is one
//! mixed-matrix tree of `2·2^L − 1` nodes over the round's matrices, `2^L` the round's
//! tallest LDE (`merkle::build_mixed`, which reads every matrix's digests at once); an
//! opening reads one matrix's LDE at a time, then the round's tree
//! (`Backend::open_round`).

use kestrel_core::params::MAX_QUERIES;

use crate::backend::{TablePlan, QUOTIENT_SPOT_CHECKS};
use crate::roofline::quotient_domain_log;

const WORD: u64 = 8;
/// A Merkle node: four words.
const NODE: u64 = 32;
/// An extension element: three words.
const EXT: u64 = 3 * WORD;
/// The most queries a proof opens (a batch's positions and gathers are per query).
const QUERIES: u64 = MAX_QUERIES as u64;

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
    /// Rows the quotient is evaluated on (`QuotientInputs::domain_log`).
    fn domain(&self) -> u64 {
        let chunks = (self.quotient / (3 * WORD * self.n)) as usize;
        (1u64 << quotient_domain_log(self.n.trailing_zeros(), chunks)).min(self.big)
    }
    /// The quotient's buffer of flags and spot checks.
    fn quotient_checks(&self) -> u64 {
        let spots = if self.domain() < self.big {
            QUOTIENT_SPOT_CHECKS
        } else {
            0
        };
        WORD * super::quotient::check_words(spots) as u64
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
    /// The row digests of the LDE of a source (none for an absent matrix).
    fn digests(&self, source: u64) -> u64 {
        if source == 0 {
            0
        } else {
            NODE * self.big
        }
    }
}

/// A round's mixed-matrix tree over matrices of LDE heights `bigs`: `2·2^L − 1` nodes.
fn round_tree(bigs: impl IntoIterator<Item = u64>) -> u64 {
    bigs.into_iter().max().map_or(0, |big| NODE * (2 * big - 1))
}

/// Committing a round (`build_mixed`): every matrix's row digests, uploaded again where
/// spilled, and the tree.
fn commit_round(s: &[Sizes], source: impl Fn(&Sizes) -> u64) -> u64 {
    let with: Vec<&Sizes> = s.iter().filter(|t| source(t) > 0).collect();
    let digests: u64 = with.iter().map(|t| t.digests(source(t))).sum();
    digests + round_tree(with.iter().map(|t| t.big))
}

/// Opening a round (`open_round`) for every query: one matrix at a time, its LDE
/// (recomputed: with its scratch), the positions (two words a query) and the gathered
/// rows; then the round's tree, the positions and the gathered paths (four words a level).
fn open_round(s: &[Sizes], source: impl Fn(&Sizes) -> u64) -> u64 {
    let with: Vec<&Sizes> = s.iter().filter(|t| source(t) > 0).collect();
    let rows = with
        .iter()
        .map(|t| {
            let width = source(t) / (t.n * WORD);
            t.lde(source(t)) + t.recompute() + QUERIES * (2 + width) * WORD
        })
        .max()
        .unwrap_or(0);
    let big = with.iter().map(|t| t.big).max().unwrap_or(0);
    let path = if big == 0 {
        0
    } else {
        round_tree([big]) + QUERIES * (2 + 4 * big.trailing_zeros() as u64) * WORD
    };
    rows.max(path)
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
    // row-major, transposed into its kept columns and into the LDE input. Then the main
    // round's tree.
    let mut pending: u64 = s.iter().filter(|t| t.resident).map(|t| t.main).sum();
    at(held, pending);
    for t in &s {
        let input = if t.resident { t.main } else { 3 * t.main };
        at(held, pending + input + t.lde(t.main) + t.digests(t.main));
        if t.resident {
            pending -= t.main;
        }
    }
    at(held, commit_round(&s, |t| t.main));
    // LogUp: the main and preprocessed sources; multiplicities and fingerprints (k per
    // row), the aux rows and row sums; then the aux rows, the aux columns kept, the LDE
    // input, the LDE and its row digests. Then the aux round's tree.
    for t in s.iter().filter(|t| t.interactions > 0) {
        let read = t.main + t.pre;
        let build = t.n * t.interactions * (WORD + EXT) + t.aux + t.n * EXT;
        let commit = 3 * t.aux + t.lde(t.aux) + t.digests(t.aux);
        at(held, read + build.max(commit));
    }
    at(held, commit_round(&s, |t| t.aux));
    // Quotients: the table's LDEs (one recomputed at a time), the evaluations on the LDE
    // domain and the chunks; then the chunks, the coefficient columns kept, their LDE and
    // row digests. Then the quotient round's tree.
    for t in &s {
        let evals = 3 * t.domain() * WORD + t.quotient_checks();
        let ldes = t.lde(t.pre) + t.lde(t.main) + t.lde(t.aux);
        at(held, ldes + t.recompute() + evals + t.quotient);
        at(
            held,
            2 * t.quotient + t.lde(t.quotient) + t.digests(t.quotient),
        );
    }
    at(held, commit_round(&s, |t| t.quotient));
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
    // Queries: one round at a time (the preprocessed round's tree, made at setup, too).
    let opening = [
        open_round(&s, |t| t.pre),
        open_round(&s, |t| t.main),
        open_round(&s, |t| t.aux),
        open_round(&s, |t| t.quotient),
    ];
    at(held, opening.into_iter().max().unwrap_or(0));
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

/// Room for the small buffers the model leaves out (programs, challenges, flags, FRI
/// opening gathers, partial sums): 1 % and 64 MiB.
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

    /// The Merkle part of the plan: `n_lde` row digests a matrix, one `2·2^L − 1`-node tree
    /// a round, and committing a round reads every matrix's digests at once.
    #[test]
    fn the_plan_counts_row_digests_and_one_tree_a_round() {
        let lb = 1;
        let s: Vec<Sizes> = [table(12, 20, 9, true), table(8, 4, 6, true)]
            .iter()
            .map(|t| Sizes::of(t, lb))
            .collect();
        let (big0, big1) = (1u64 << 13, 1u64 << 9);
        assert_eq!(s[0].digests(s[0].main), NODE * big0);
        assert_eq!(s[1].digests(s[1].pre), 0, "no preprocessed matrix");
        assert_eq!(round_tree([big1, big0]), NODE * (2 * big0 - 1));
        assert_eq!(round_tree([]), 0);
        assert_eq!(
            commit_round(&s, |t| t.main),
            NODE * (big0 + big1) + NODE * (2 * big0 - 1)
        );
        assert_eq!(commit_round(&s, |t| t.pre), 0, "no preprocessed round");
        // Opening the main round: the larger of the tallest matrix's LDE with its scratch
        // and gathers, and the tree with the paths' gathers.
        let rows = s[0].lde(s[0].main) + s[0].recompute() + QUERIES * (2 + 20) * WORD;
        let path = NODE * (2 * big0 - 1) + QUERIES * (2 + 4 * 13) * WORD;
        assert_eq!(open_round(&s, |t| t.main), rows.max(path));
        assert_eq!(open_round(&s, |t| t.pre), 0);
        // A round tree is counted once, not per matrix: a second table of the tallest
        // height adds its digests (and its LDE) to committing the round, not a tree.
        let two: Vec<Sizes> = [table(12, 20, 9, true), table(12, 20, 9, true)]
            .iter()
            .map(|t| Sizes::of(t, lb))
            .collect();
        assert_eq!(
            commit_round(&two, |t| t.main) - commit_round(&s[..1], |t| t.main),
            NODE * big0
        );
        // Every stage model is inside the plan.
        let plan = working_set(&[table(12, 20, 9, true), table(8, 4, 6, true)], lb);
        for part in [
            commit_round(&s, |t| t.main),
            commit_round(&s, |t| t.aux),
            commit_round(&s, |t| t.quotient),
            open_round(&s, |t| t.main),
        ] {
            assert!(plan >= part, "{part} above the plan {plan}");
        }
    }
}
