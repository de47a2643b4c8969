//! A roofline report per proving stage: the least memory traffic and the Keccak-p[1600, 12]
//! permutations each stage of [`crate::prover`] must do, from the proof's shape alone, set
//! against measured ceilings (a copy bandwidth and a permutation rate).
//!
//! Nothing here runs on the proving path: [`model`] is computed after the proof from the
//! table shapes, and the ceilings ([`Backend::ceilings`](crate::backend::Backend::ceilings))
//! are measured only when `prove --stats` asks for the report.
//!
//! # The model
//!
//! A proof is a list of parts ([`ProofShape`]): a whole proof is one part; a segmented run
//! ([`crate::segmented`]) has one per segment and the run part, each a proof of its own
//! tables with its own heights, FRI, grinding nonce and queries ([`PartShape`]). The model
//! of a proof is its parts' models ([`part_model`]) summed stage by stage. It counts the
//! work the run must do at least once: a segmented run's phase 1 commits every segment's
//! main traces and phase 2 executes, packs and commits them again, but the least work
//! counts one trace and one main commitment per part (the measured time of a stage is
//! both phases', so the repetition shows as a lower fraction).
//!
//! Per table of a part: `n` rows (the trace height), `w` main, `p` preprocessed and `a`
//! auxiliary columns (base-field cells of 8 bytes), `c` quotient chunks (`3c` base
//! columns), blowup `b`, LDE size `N = b·n`, the quotient's domain `D = min(n·c', N)` with
//! `c'` the power of two at or above `c` (`QuotientInputs::domain_log`). `q` queries; FRI has `L` committed layers, layer `l` folding
//! by `2^a_l` ([`kestrel_core::stark::FriShape`]) a codeword of
//! `M_l = 2^(log_max_lde − a_0 − … − a_(l−1))` extension elements (24 bytes), and a final
//! codeword of `M_L`. A commitment of an `N`-row matrix of `k` cells per row writes its LDE
//! (`8·N·k` bytes) and its Merkle tree as the prover keeps it (all `2N − 1` digests of 32
//! bytes), and hashes `N` leaves and `N − 1` inner nodes.
//!
//! Keccak-p[1600, 12] permutations, counted as [`kestrel_core::merkle`] hashes
//! (TurboSHAKE128, [`kestrel_core::hash`]): a leaf of `k` cells absorbs `1 + 8k` bytes (a
//! prefix byte and the cells), and the padding adds at least one byte (the domain byte), so
//! it takes `⌊(1 + 8k)/168⌋ + 1` permutations ([`leaf_perms`]; 168 bytes is the rate). An
//! inner node absorbs `1 + 64` bytes: one permutation. A leaf of FRI layer `l` is a coset of
//! `2^a_l` extension elements (`3·2^a_l` cells): `leaf(3·2^a_l)` permutations.
//!
//! | stage | bytes read | bytes written | permutations |
//! |---|---|---|---|
//! | trace | `R` (the part's execution records, `cycles · size_of::<Record>()`; 0 for a run part) | `Σ 8·n·w` | 0 |
//! | commit main | `Σ 8·n·w` | `Σ 8·N·w + 32·(2N−1)` | `Σ N·leaf(w) + N − 1` |
//! | LogUp aux (tables with interactions) | `Σ 8·n·(w+p)` | `Σ 8·n·a + 8·N·a + 32·(2N−1)` | `Σ N·leaf(a) + N − 1` |
//! | quotient | `Σ 8·D·(p+w+a)` | `Σ 8·n·3c + 8·N·3c + 32·(2N−1)` | `Σ N·leaf(3c) + N − 1` |
//! | OOD | `Σ 8·n·(p+w+a) + 8·n·3c` | `Σ 24·(2(p+w+a) + 3c)` | 0 |
//! | DEEP | `Σ 8·N·(p+w+a+3c)` | `24·N` per distinct LDE size | 0 |
//! | FRI | `Σ_l 24·M_l` + `24·M` per joining DEEP codeword + `24·M_L` | `Σ_l 24·M_(l+1) + 32·(2·M_(l+1) − 1)` | `Σ_l M_(l+1)·leaf(3·2^a_l) + M_(l+1) − 1` |
//! | grinding | — | — | `nonce + 1` |
//! | queries | `q·(Σ_matrices 8k + 32·log N + Σ_l 24·(2^a_l − 1) + 32·log M_(l+1))` | the same (into the proof) | 0 |
//!
//! (`Σ` over tables; FRI's per-layer read covers both its commitment and its fold, which a
//! fused pass does in one read; layer `l` has `M_(l+1) = M_l / 2^a_l` leaves and
//! `M_(l+1) − 1` nodes. The query figures ignore the sharing of paths and rows between
//! sorted queries, so they are an upper bound.)
//!
//! What the model leaves out, so that it stays a lower bound: reading the LDE back to hash
//! it and the tree's lower levels back to hash the upper ones (a fused pass keeps them on
//! chip), the next-row reads of the quotient (the same rows as the current ones, at another
//! index), twiddle factors, the NTTs' passes beyond one read and one write, the points and
//! inverses the quotient and DEEP compute, host↔device transfers, the transcript's
//! hashing (a few thousand permutations), the preprocessed commitments (made in setup, not
//! in these stages) and all arithmetic (the field multiplications of the NTTs, constraint
//! evaluation and folding are not a ceiling here). Grinding's count is the smallest number
//! of nonces that finds the answer (the prover searches in parallel batches and may try
//! more). A fraction near 1 says the stage runs at its roofline; far below 1, that it does
//! more than the minimum or is bounded by something the model does not count.

use std::sync::OnceLock;
use std::time::Instant;

use kestrel_core::air::TableShape;
use kestrel_core::merkle::{hash_node, Digest};
use kestrel_core::params::StarkParams;
use kestrel_core::stark::FriShape;
use rayon::prelude::*;

/// log2 of the quotient's domain for a table of `2^log_height` rows and `chunks` chunks:
/// `chunks·n` rounded up to a power of two. The provers take it through
/// [`crate::backend::QuotientInputs::domain_log`] (which also checks that it fits the LDE),
/// the VRAM plan and this model directly.
pub fn quotient_domain_log(log_height: u32, chunks: usize) -> u32 {
    log_height + chunks.max(1).next_power_of_two().trailing_zeros()
}

/// The hash's rate in bytes.
pub const HASH_RATE: u64 = kestrel_core::hash::RATE as u64;

/// Permutations to hash a leaf of `cells` base cells (`0x00 ‖ cells`, 8 bytes each).
pub fn leaf_perms(cells: u64) -> u64 {
    (1 + 8 * cells) / HASH_RATE + 1
}

/// One table's shape as the model reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDims {
    pub log_n: u32,
    pub main: u64,
    pub pre: u64,
    pub aux: u64,
    pub quotient_chunks: u64,
    /// Whether the table has LogUp interactions (an auxiliary trace).
    pub interactions: bool,
}

impl TableDims {
    /// A table of `2^log_n` rows of the shape `shape`.
    pub fn of(shape: &TableShape, log_n: u32) -> TableDims {
        TableDims {
            log_n,
            main: shape.width as u64,
            pre: shape.preprocessed_width as u64,
            aux: shape.aux_width as u64,
            quotient_chunks: shape.quotient_chunks as u64,
            interactions: shape.num_interactions > 0,
        }
    }
}

/// One part's shape as the model reads it: a proof of some tables with its own FRI,
/// grinding and queries (a whole proof, or one part of a segmented run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartShape {
    pub tables: Vec<TableDims>,
    pub log_blowup: u32,
    pub num_queries: u64,
    /// FRI: log2 of the largest LDE, and log2 of each committed layer's arity.
    pub log_max_lde: u32,
    pub fri_log_arities: Vec<u32>,
    /// The grinding nonce found.
    pub pow_nonce: u64,
    /// Bytes of execution records the trace stage reads.
    pub record_bytes: u64,
}

impl PartShape {
    /// The part of `tables` proven with `params` (its FRI shape follows from the tables'
    /// heights, as the prover's does: [`FriShape::new`]).
    pub fn new(
        params: &StarkParams,
        tables: Vec<TableDims>,
        pow_nonce: u64,
        record_bytes: u64,
    ) -> PartShape {
        let log_heights: Vec<u8> = tables
            .iter()
            .map(|t| u8::try_from(t.log_n).unwrap_or(u8::MAX))
            .collect();
        let fri = FriShape::new(params, &log_heights);
        PartShape {
            tables,
            log_blowup: u32::from(params.log_blowup),
            num_queries: u64::from(params.num_queries),
            log_max_lde: fri.log_max_lde,
            fri_log_arities: (0..fri.num_layers).map(|l| fri.log_arity(l)).collect(),
            pow_nonce,
            record_bytes,
        }
    }
}

/// The proof's shape as the model reads it: its parts (one for a whole proof; every
/// segment's, then the run part's, for a segmented run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProofShape {
    pub parts: Vec<PartShape>,
}

impl ProofShape {
    /// A proof of one part.
    pub fn whole(part: PartShape) -> ProofShape {
        ProofShape { parts: vec![part] }
    }
}

/// The least work of one stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageWork {
    pub stage: &'static str,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub keccak_perms: u64,
}

impl StageWork {
    pub fn bytes_min(&self) -> u64 {
        self.bytes_read + self.bytes_written
    }
}

/// The stages in order, named as `prove --stats` names their phases.
pub const STAGES: [&str; 9] = [
    "trace",
    "commit main",
    "logup aux",
    "quotient",
    "ood",
    "deep",
    "fri",
    "grinding",
    "queries",
];

/// Bytes written and permutations of a commitment of `rows` rows of `k` cells: its LDE and
/// its tree.
fn commitment(rows: u64, k: u64) -> (u64, u64) {
    (
        8 * rows * k + 32 * (2 * rows - 1),
        rows * leaf_perms(k) + rows - 1,
    )
}

/// The least work of every stage of [`STAGES`], in order: each part's
/// ([`part_model`]) summed over the parts.
pub fn model(s: &ProofShape) -> Vec<StageWork> {
    let mut out: Vec<StageWork> = STAGES
        .iter()
        .map(|&stage| StageWork {
            stage,
            bytes_read: 0,
            bytes_written: 0,
            keccak_perms: 0,
        })
        .collect();
    for part in &s.parts {
        for (o, w) in out.iter_mut().zip(part_model(part)) {
            debug_assert_eq!(o.stage, w.stage);
            o.bytes_read += w.bytes_read;
            o.bytes_written += w.bytes_written;
            o.keccak_perms += w.keccak_perms;
        }
    }
    out
}

/// The least work of every stage of [`STAGES`] for one part, in order.
pub fn part_model(s: &PartShape) -> Vec<StageWork> {
    let b = 1u64 << s.log_blowup;
    let w = |stage, bytes_read, bytes_written, keccak_perms| StageWork {
        stage,
        bytes_read,
        bytes_written,
        keccak_perms,
    };
    let mut out = Vec::with_capacity(STAGES.len());
    let n = |t: &TableDims| 1u64 << t.log_n;
    let committed = |t: &TableDims| t.pre + t.main + t.aux;

    out.push(w(
        "trace",
        s.record_bytes,
        s.tables.iter().map(|t| 8 * n(t) * t.main).sum(),
        0,
    ));

    let (mut r, mut wr, mut k) = (0, 0, 0);
    for t in &s.tables {
        let (bytes, perms) = commitment(b * n(t), t.main);
        r += 8 * n(t) * t.main;
        wr += bytes;
        k += perms;
    }
    out.push(w("commit main", r, wr, k));

    let (mut r, mut wr, mut k) = (0, 0, 0);
    for t in s.tables.iter().filter(|t| t.interactions) {
        let (bytes, perms) = commitment(b * n(t), t.aux);
        r += 8 * n(t) * (t.main + t.pre);
        wr += 8 * n(t) * t.aux + bytes;
        k += perms;
    }
    out.push(w("logup aux", r, wr, k));

    let (mut r, mut wr, mut k) = (0, 0, 0);
    for t in &s.tables {
        let q = 3 * t.quotient_chunks;
        let (bytes, perms) = commitment(b * n(t), q);
        // The constraints are evaluated on the quotient's domain, not the whole LDE.
        let log_d = quotient_domain_log(t.log_n, t.quotient_chunks as usize);
        let domain = (1u64 << log_d).min(b * n(t));
        r += 8 * domain * committed(t);
        wr += 8 * n(t) * q + bytes;
        k += perms;
    }
    out.push(w("quotient", r, wr, k));

    out.push(w(
        "ood",
        s.tables
            .iter()
            .map(|t| 8 * n(t) * (committed(t) + 3 * t.quotient_chunks))
            .sum(),
        s.tables
            .iter()
            .map(|t| 24 * (2 * committed(t) + 3 * t.quotient_chunks))
            .sum(),
        0,
    ));

    let mut sizes: Vec<u32> = s.tables.iter().map(|t| t.log_n + s.log_blowup).collect();
    sizes.sort_unstable();
    sizes.dedup();
    out.push(w(
        "deep",
        s.tables
            .iter()
            .map(|t| 8 * b * n(t) * (committed(t) + 3 * t.quotient_chunks))
            .sum(),
        sizes.iter().map(|&l| 24u64 << l).sum(),
        0,
    ));

    let (mut r, mut wr, mut k) = (0, 0, 0);
    let mut log_m = s.log_max_lde;
    for &a in &s.fri_log_arities {
        let (m, leaves) = (1u64 << log_m, 1u64 << (log_m - a));
        r += 24 * m;
        wr += 24 * leaves + 32 * (2 * leaves - 1);
        k += leaves * leaf_perms(3 << a) + leaves - 1;
        log_m -= a;
    }
    // The shorter tables' DEEP codewords join the folds; the final codeword is read back.
    r += sizes
        .iter()
        .filter(|&&l| l != s.log_max_lde)
        .map(|&l| 24u64 << l)
        .sum::<u64>();
    r += 24u64 << log_m;
    out.push(w("fri", r, wr, k));

    out.push(w("grinding", 0, 0, s.pow_nonce.saturating_add(1)));

    let mut per_query = 0u64;
    for t in &s.tables {
        let depth = u64::from(t.log_n + s.log_blowup);
        let mut widths = vec![t.main, 3 * t.quotient_chunks];
        if t.pre > 0 {
            widths.push(t.pre);
        }
        if t.interactions {
            widths.push(t.aux);
        }
        per_query += widths.iter().map(|k| 8 * k + 32 * depth).sum::<u64>();
    }
    let mut log_m = s.log_max_lde;
    for &a in &s.fri_log_arities {
        log_m -= a;
        per_query += 24 * ((1u64 << a) - 1) + 32 * u64::from(log_m);
    }
    let q = s.num_queries * per_query;
    out.push(w("queries", q, q, 0));
    out
}

/// Measured ceilings.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Ceilings {
    /// Copy bandwidth, bytes read + written, in GB/s.
    pub copy_gb_s: f64,
    /// Keccak-p[1600, 12] permutations per second, in 10^9.
    pub keccak_gperm_s: f64,
    /// What measured them.
    pub measured_by: String,
}

/// The host's ceilings over every rayon thread, measured once per process (≈ 100 ms): a
/// parallel copy of 2 × 64 MiB (best of 3) and Merkle node hashes (one permutation each,
/// [`hash_node`] as the CPU Merkle code calls it), best of 4 windows of 12 ms. Best-of
/// because a measurement shared with other work on the machine reads low.
pub fn cpu_ceilings() -> Ceilings {
    static CEIL: OnceLock<Ceilings> = OnceLock::new();
    CEIL.get_or_init(|| {
        const WORDS: usize = 8 << 20;
        const CHUNK: usize = 1 << 16;
        let src: Vec<u64> = (0..WORDS as u64).into_par_iter().collect();
        let mut dst = vec![0u64; WORDS];
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t = Instant::now();
            dst.par_chunks_mut(CHUNK)
                .zip(src.par_chunks(CHUNK))
                .for_each(|(d, s)| d.copy_from_slice(s));
            best = best.min(t.elapsed().as_secs_f64());
            std::hint::black_box(&dst);
        }
        let copy_gb_s = 2.0 * 8.0 * WORDS as f64 / best.max(1e-9) / 1e9;
        // Keccak: each thread chains node hashes in batches for a window of 12 ms; the best
        // of 4 windows (a window shared with other work on the machine reads low).
        let threads = rayon::current_num_threads().max(1);
        let mut best_rate = 0.0f64;
        for _ in 0..4 {
            let t = Instant::now();
            let perms: u64 = (0..threads)
                .into_par_iter()
                .map(|i| {
                    let mut d = Digest([i as u8; 32]);
                    let mut count = 0u64;
                    while t.elapsed().as_secs_f64() < 0.012 {
                        for _ in 0..64 {
                            d = hash_node(&d, &d);
                        }
                        count += 64;
                    }
                    std::hint::black_box(d);
                    count
                })
                .sum();
            best_rate = best_rate.max(perms as f64 / t.elapsed().as_secs_f64().max(1e-9));
        }
        Ceilings {
            copy_gb_s,
            keccak_gperm_s: best_rate / 1e9,
            measured_by: format!(
                "cpu: parallel copy of 2x64 MiB (best of 3), Merkle node hashes (kestrel_core::merkle), \
                 best of 4 windows of 12 ms, {threads} rayon threads"
            ),
        }
    })
    .clone()
}

/// One stage's line of the report.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StageRoofline {
    pub stage: &'static str,
    pub ms: f64,
    pub bytes_min: u64,
    pub keccak_perms: u64,
    pub bytes_per_s: f64,
    pub perms_per_s: f64,
    pub bandwidth_fraction: f64,
    pub keccak_fraction: f64,
    /// The ceiling that bounds the stage at its least work: `"bandwidth"`, `"keccak"`, or
    /// `"none"` for a stage with no counted work.
    pub bound: &'static str,
}

/// The report: each stage's least work against its measured time (`ms_of(stage)`, `None`
/// for a stage that was not timed: left out) and the ceilings.
pub fn report(
    work: &[StageWork],
    ms_of: impl Fn(&str) -> Option<f64>,
    c: &Ceilings,
) -> Vec<StageRoofline> {
    let ratio = |x: f64, y: f64| if y > 0.0 && x.is_finite() { x / y } else { 0.0 };
    work.iter()
        .filter_map(|s| {
            let ms = ms_of(s.stage)?;
            let secs = (ms / 1e3).max(1e-9);
            let bytes = s.bytes_min();
            let bytes_per_s = bytes as f64 / secs;
            let perms_per_s = s.keccak_perms as f64 / secs;
            // Seconds each ceiling alone needs for the least work.
            let t_bw = ratio(bytes as f64, c.copy_gb_s * 1e9);
            let t_k = ratio(s.keccak_perms as f64, c.keccak_gperm_s * 1e9);
            let bound = if t_bw == 0.0 && t_k == 0.0 {
                "none"
            } else if t_k > t_bw {
                "keccak"
            } else {
                "bandwidth"
            };
            Some(StageRoofline {
                stage: s.stage,
                ms,
                bytes_min: bytes,
                keccak_perms: s.keccak_perms,
                bytes_per_s,
                perms_per_s,
                bandwidth_fraction: ratio(bytes_per_s, c.copy_gb_s * 1e9),
                keccak_fraction: ratio(perms_per_s, c.keccak_gperm_s * 1e9),
                bound,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_permutations_follow_the_rate() {
        // 1 + 8k bytes plus at least one byte of padding, in blocks of 136.
        assert_eq!(leaf_perms(0), 1);
        assert_eq!(leaf_perms(20), 1); // 161 bytes
        assert_eq!(leaf_perms(21), 2); // 169 bytes
        assert_eq!(leaf_perms(41), 2); // 329 bytes
        assert_eq!(leaf_perms(42), 3); // 337 bytes
    }

    /// One table of 8 rows, 2 main, 1 preprocessed, 3 aux columns, 1 quotient chunk,
    /// blowup 2 (N = 16), 2 queries, FRI from 2^4 with 1 layer, nonce 5, 100 record bytes.
    #[test]
    fn a_small_shape_by_hand() {
        let s = PartShape {
            tables: vec![TableDims {
                log_n: 3,
                main: 2,
                pre: 1,
                aux: 3,
                quotient_chunks: 1,
                interactions: true,
            }],
            log_blowup: 1,
            num_queries: 2,
            log_max_lde: 4,
            fri_log_arities: vec![1],
            pow_nonce: 5,
            record_bytes: 100,
        };
        let m = model(&ProofShape::whole(s));
        let names: Vec<&str> = m.iter().map(|x| x.stage).collect();
        assert_eq!(names, STAGES);
        let get = |n: &str| m.iter().find(|x| x.stage == n).unwrap().clone();
        let tree = 32 * 31; // 2·16 − 1 digests
                            // trace: write 8·8·2.
        assert_eq!(get("trace").bytes_read, 100);
        assert_eq!(get("trace").bytes_written, 128);
        // commit main: read 8·8·2 = 128, write 8·16·2 = 256 + tree; 16 leaves of 17 bytes
        // (1 permutation) + 15 nodes.
        let c = get("commit main");
        assert_eq!(
            (c.bytes_read, c.bytes_written, c.keccak_perms),
            (128, 256 + tree, 31)
        );
        // LogUp: read 8·8·3 = 192; write 8·8·3 = 192 + 8·16·3 = 384 + tree; 31 perms.
        let c = get("logup aux");
        assert_eq!(
            (c.bytes_read, c.bytes_written, c.keccak_perms),
            (192, 192 + 384 + tree, 31)
        );
        // Quotient: one chunk, so a domain of n = 8 rows: read 8·8·6 = 384; write
        // 8·8·3 = 192 + 8·16·3 = 384 + tree.
        let c = get("quotient");
        assert_eq!(
            (c.bytes_read, c.bytes_written, c.keccak_perms),
            (384, 192 + 384 + tree, 31)
        );
        // OOD: read 8·8·(6 + 3) = 576; write 24·(12 + 3) = 360.
        let c = get("ood");
        assert_eq!(
            (c.bytes_read, c.bytes_written, c.keccak_perms),
            (576, 360, 0)
        );
        // DEEP: read 8·16·9 = 1152; write 24·16 = 384.
        let c = get("deep");
        assert_eq!((c.bytes_read, c.bytes_written), (1152, 384));
        // FRI: layer 0 reads 24·16 = 384 and the final 8 values 192; writes 24·8 = 192 and
        // 15 digests 480; 8 leaves + 7 nodes.
        let c = get("fri");
        assert_eq!(
            (c.bytes_read, c.bytes_written, c.keccak_perms),
            (384 + 192, 192 + 480, 15)
        );
        assert_eq!(get("grinding").keccak_perms, 6);
        // Queries: per query, 4 matrices (main 2, quotient 3, pre 1, aux 3 cells: 72 bytes)
        // with paths of 4 digests (4·128), one FRI step of 24 + 3·32; both ways, 2 queries.
        let per = 72 + 4 * 128 + 24 + 96;
        let c = get("queries");
        assert_eq!((c.bytes_read, c.bytes_written), (2 * per, 2 * per));
    }

    /// FRI folding by 16 then by 4, from 2^8: layer 0 has 16 leaves of 16 extension
    /// elements (48 cells, 385 bytes: 3 permutations), layer 1 4 leaves of 4 (12 cells, one
    /// permutation); the final codeword has 4 values.
    #[test]
    fn fri_layers_of_larger_arity() {
        let s = PartShape {
            tables: vec![TableDims {
                log_n: 6,
                main: 1,
                pre: 0,
                aux: 0,
                quotient_chunks: 1,
                interactions: false,
            }],
            log_blowup: 2,
            num_queries: 1,
            log_max_lde: 8,
            fri_log_arities: vec![4, 2],
            pow_nonce: 0,
            record_bytes: 0,
        };
        let m = model(&ProofShape::whole(s));
        let c = m.iter().find(|x| x.stage == "fri").unwrap();
        assert_eq!(c.keccak_perms, (16 * 3 + 15) + (4 + 3));
        assert_eq!(c.bytes_read, 24 * 256 + 24 * 16 + 24 * 4);
        assert_eq!(c.bytes_written, (24 * 16 + 32 * 31) + (24 * 4 + 32 * 7));
        let q = m.iter().find(|x| x.stage == "queries").unwrap();
        // main (1 cell) and quotient (3 cells) rows with paths of 8 digests, then the FRI
        // steps: 15 values and 4 digests, 3 values and 2 digests.
        assert_eq!(
            q.bytes_read,
            32 + 2 * 8 * 32 + (15 * 24 + 4 * 32) + (3 * 24 + 2 * 32)
        );
    }

    /// A run of parts is the sum of its parts, stage by stage: two parts of one table of 8
    /// rows (2 main columns, no interactions, 1 quotient chunk, blowup 2, 1 query, FRI from
    /// 2^4 in one layer), one of them with 64 record bytes and nonce 2, the other none and
    /// nonce 9; no parts, no work.
    #[test]
    fn parts_add_up() {
        let part = |nonce, record_bytes| PartShape {
            tables: vec![TableDims {
                log_n: 3,
                main: 2,
                pre: 0,
                aux: 0,
                quotient_chunks: 1,
                interactions: false,
            }],
            log_blowup: 1,
            num_queries: 1,
            log_max_lde: 4,
            fri_log_arities: vec![1],
            pow_nonce: nonce,
            record_bytes,
        };
        let m = model(&ProofShape {
            parts: vec![part(2, 64), part(9, 0)],
        });
        let names: Vec<&str> = m.iter().map(|x| x.stage).collect();
        assert_eq!(names, STAGES);
        let get = |n: &str| {
            let w = m.iter().find(|x| x.stage == n).unwrap();
            (w.bytes_read, w.bytes_written, w.keccak_perms)
        };
        let tree = 32 * 31;
        // Each part writes 8·8·2 = 128 trace bytes; the records are read once.
        assert_eq!(get("trace"), (64, 2 * 128, 0));
        // Each commits 16 leaves of 2 cells: 128 read, 256 + tree written, 31 permutations.
        assert_eq!(get("commit main"), (2 * 128, 2 * (256 + tree), 2 * 31));
        assert_eq!(get("logup aux"), (0, 0, 0));
        // Quotient: on its domain of 8 rows, read 8·8·2 = 128; write 8·8·3 = 192 +
        // 8·16·3 = 384 + tree.
        assert_eq!(get("quotient"), (2 * 128, 2 * (192 + 384 + tree), 2 * 31));
        assert_eq!(get("grinding"), (0, 0, 3 + 10));
        // Queries: main (2 cells) and quotient (3 cells) rows with 4-digest paths, one FRI
        // step of 24 + 3·32, both ways.
        let per = 16 + 128 + 24 + 128 + 24 + 96;
        assert_eq!(get("queries"), (2 * per, 2 * per, 0));
        let none = model(&ProofShape::default());
        assert_eq!(none.len(), STAGES.len());
        assert!(none
            .iter()
            .all(|w| w.bytes_min() == 0 && w.keccak_perms == 0));
    }

    /// A part's FRI shape is the prover's for its tables' heights: the largest LDE, folded
    /// down to the final codeword's LDE.
    #[test]
    fn a_part_takes_its_fri_shape_from_its_heights() {
        let params = StarkParams::preset(4).unwrap();
        let table = |log_n| TableDims {
            log_n,
            main: 1,
            pre: 0,
            aux: 0,
            quotient_chunks: 1,
            interactions: false,
        };
        let p = PartShape::new(&params, vec![table(10), table(6)], 7, 5);
        let lb = u32::from(params.log_blowup);
        assert_eq!(p.log_blowup, lb);
        assert_eq!(p.num_queries, u64::from(params.num_queries));
        assert_eq!(p.log_max_lde, 10 + lb);
        let final_lde = u32::from(params.log_final_poly_len).min(6) + lb;
        assert_eq!(p.fri_log_arities.iter().sum::<u32>(), 10 + lb - final_lde);
        assert_eq!((p.pow_nonce, p.record_bytes), (7, 5));
    }

    #[test]
    fn fractions_and_bounds() {
        let work = vec![
            StageWork {
                stage: "a",
                bytes_read: 1_000_000,
                bytes_written: 1_000_000,
                keccak_perms: 0,
            },
            StageWork {
                stage: "b",
                bytes_read: 0,
                bytes_written: 0,
                keccak_perms: 1_000_000,
            },
            StageWork {
                stage: "c",
                bytes_read: 0,
                bytes_written: 0,
                keccak_perms: 0,
            },
        ];
        let c = Ceilings {
            copy_gb_s: 2.0,
            keccak_gperm_s: 0.01,
            measured_by: "test".into(),
        };
        let r = report(&work, |_| Some(10.0), &c);
        // 2 MB in 10 ms = 0.2 GB/s of 2; 1e6 perms in 10 ms = 0.1 Gperm/s of 0.01.
        assert!((r[0].bandwidth_fraction - 0.1).abs() < 1e-12);
        assert_eq!(r[0].bound, "bandwidth");
        assert!((r[1].keccak_fraction - 10.0).abs() < 1e-9);
        assert_eq!(r[1].bound, "keccak");
        assert_eq!(r[2].bound, "none");
        assert_eq!(r[2].bandwidth_fraction, 0.0);
        assert_eq!(report(&work, |s| (s == "a").then_some(1.0), &c).len(), 1);
    }

    #[test]
    fn cpu_ceilings_are_measured_and_positive() {
        let t = Instant::now();
        let c = cpu_ceilings();
        assert!(c.copy_gb_s.is_finite() && c.copy_gb_s > 0.0);
        assert!(c.keccak_gperm_s.is_finite() && c.keccak_gperm_s > 0.0);
        // Once per process: the second call measures nothing.
        let t2 = Instant::now();
        assert_eq!(cpu_ceilings(), c);
        assert!(t2.elapsed().as_millis() < 5);
        // About 150 ms; generous for a loaded machine.
        assert!(t.elapsed().as_secs_f64() < 2.0, "{:?}", t.elapsed());
    }
}
