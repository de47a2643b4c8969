//! Verification of a segmented run (format version 8,
//! [`kestrel_core::proof::SegmentedProof`]), streamed like a whole proof: phase 1's parts
//! (heights and main caps) are absorbed and digested as they are read, the shared LogUp
//! challenges drawn, then each part of phase 2 is verified on its own transcript and
//! dropped before the next. What is held between parts is a running LogUp sum, two
//! digests and the challenges, so the heap does not grow with the number of segments.
//!
//! Phase 2 repeats each part's heights and main cap; the verifier checks that the digest of
//! what phase 2 lists equals the digest of what phase 1 listed (the transcript saw phase
//! 1's), so a part verified in phase 2 is the part the challenges were drawn after.

use alloc::vec::Vec;

use kestrel_core::air::{Machine, SegmentLayout, TableAir, TableShape};
use kestrel_core::field::{Ext3, Felt};
use kestrel_core::keys::VerifyingKey;
use kestrel_core::merkle::Digest;
use kestrel_core::params::{StarkParams, MAX_LOG_HEIGHT, MIN_LOG_HEIGHT};
use kestrel_core::proof::DIGEST_LEN;
use kestrel_core::stark::{Matrix, RoundTreeShape, RunRounds, ROUND_CAP_BITS};
use kestrel_core::transcript::Transcript;

use crate::read::Reader;
use crate::verify::{alpha_powers, check_floor, public_sum, read_cap, verify_part, PartInput};
use crate::VerifyError;

/// The most parts a segmented proof may have (segments and the run part).
pub const MAX_PARTS: usize = 1 << 20;

/// log2 of the most cycles a segmented run may have: the clock table's rows over all
/// segments are at most `2^MAX_RUN_LOG_CYCLES`, which keeps every timestamp below 2^39
/// (what the memory argument's five-byte freshness checks assume, `core/src/rv/mod.rs`).
pub const MAX_RUN_LOG_CYCLES: u32 = 36;

/// One kind of part: its tables and their shapes.
struct Kind<'a> {
    tables: Vec<&'a dyn TableAir>,
    shapes: Vec<TableShape>,
}

impl<'a> Kind<'a> {
    fn of(
        indices: &[usize],
        tables: &[&'a dyn TableAir],
        shapes: &[TableShape],
    ) -> Result<Kind<'a>, VerifyError> {
        let mut k = Kind {
            tables: Vec::with_capacity(indices.len()),
            shapes: Vec::with_capacity(indices.len()),
        };
        for &i in indices {
            match (tables.get(i), shapes.get(i)) {
                (Some(t), Some(s)) => {
                    k.tables.push(*t);
                    k.shapes.push(s.clone());
                }
                _ => return Err(VerifyError::NotSegmentable),
            }
        }
        Ok(k)
    }

    /// Reads a part's heights and main cap (counts first); the heights in range.
    fn head(&self, r: &mut Reader<'_>, lb: u32) -> Result<(Vec<u8>, Vec<Digest>), VerifyError> {
        let nt = self.shapes.len();
        r.count("part heights", nt, 1)?;
        let heights = (0..nt).map(|_| r.u8()).collect::<Result<Vec<u8>, _>>()?;
        for (t, &h) in heights.iter().enumerate() {
            if (h as u32) < MIN_LOG_HEIGHT || h as u32 > MAX_LOG_HEIGHT {
                return Err(VerifyError::LogHeight { table: t, got: h });
            }
        }
        let trees = Matrix::ROUNDS.map(|m| RoundTreeShape::of(m, &self.shapes, &heights, lb));
        let cap = read_cap(r, &trees, 1)?;
        Ok((heights, cap))
    }

    /// The LogUp fractions of a part of these heights.
    fn fractions(&self, heights: &[u8]) -> u128 {
        self.shapes
            .iter()
            .zip(heights)
            .map(|(s, &h)| (s.num_interactions as u128) << h)
            .sum()
    }
}

fn list(t: &mut Transcript, heights: &[u8], cap: &[Digest]) {
    t.observe_bytes(heights);
    for d in cap {
        t.observe_digest(d);
    }
}

/// Verifies a segmented run's proof after its header (`params` read and well formed, the
/// public values' count checked).
pub(crate) fn verify_segmented(
    machine: &dyn Machine,
    vk: &VerifyingKey,
    public: &[Felt],
    params: StarkParams,
    r: &mut Reader<'_>,
) -> Result<(), VerifyError> {
    let SegmentLayout {
        segment,
        run,
        clock,
    } = machine
        .segment_layout()
        .ok_or(VerifyError::NotSegmentable)?;
    let tables = machine.tables();
    let shapes: Vec<TableShape> = tables
        .iter()
        .map(|t| TableShape::of(*t, public.len()))
        .collect::<Result<_, _>>()
        .map_err(VerifyError::Air)?;
    let seg = Kind::of(&segment, &tables, &shapes)?;
    let runk = Kind::of(&run, &tables, &shapes)?;
    let clock = segment
        .iter()
        .position(|&t| t == clock)
        .ok_or(VerifyError::NotSegmentable)?;
    let lb = params.log_blowup as u32;

    // The run part's preprocessed cap, the number of parts.
    let has_pre = runk.shapes.iter().any(|s| s.preprocessed_width > 0);
    // The cap's height depends on the run part's heights, listed later: at most
    // 2^ROUND_CAP_BITS digests now, the exact count checked with the key.
    let n_pre = if has_pre { 1 << ROUND_CAP_BITS } else { 0 };
    let n_pre = r.count_at_most("preprocessed cap", n_pre, DIGEST_LEN)?;
    let pre_cap = (0..n_pre)
        .map(|_| r.digest())
        .collect::<Result<Vec<_>, _>>()?;
    let n_parts = u32::from_le_bytes(r.bytes()?) as usize;
    if !(2..=MAX_PARTS).contains(&n_parts) {
        return Err(VerifyError::Length {
            what: "parts",
            expected: MAX_PARTS,
            got: n_parts,
        });
    }
    let kind = |k: usize| if k + 1 == n_parts { &runk } else { &seg };

    // Phase 1: every part's heights and main cap; the run's length bounded; the key.
    let mut rounds = RunRounds::start(machine.name(), &params, &pre_cap, public, n_parts);
    let mut listed = Transcript::new(b"kestrel-parts");
    let (mut cycles, mut fractions) = (0u64, 0u128);
    for k in 0..n_parts {
        let (heights, cap) = kind(k).head(r, lb)?;
        fractions += kind(k).fractions(&heights);
        if k + 1 < n_parts {
            cycles += 1 << heights[clock];
            if cycles > 1 << MAX_RUN_LOG_CYCLES {
                return Err(VerifyError::RunTooLong);
            }
        } else {
            let pre_tables = run
                .iter()
                .zip(&heights)
                .filter(|(&t, _)| shapes[t].preprocessed_width > 0)
                .map(|(&t, &h)| (t, h));
            let pre_tree = RoundTreeShape::of(Matrix::Preprocessed, &runk.shapes, &heights, lb);
            if pre_tree.map_or(0, |t| t.cap_len()) != pre_cap.len()
                || VerifyingKey::compute(machine.name(), &params, &shapes, pre_tables, &pre_cap)
                    != *vk
            {
                return Err(VerifyError::VkMismatch);
            }
        }
        rounds.part_main(&heights, &cap);
        list(&mut listed, &heights, &cap);
    }
    let ch = rounds.challenges();
    let pub_inters = machine.public_interactions(public);
    let alpha_powers = alpha_powers(ch, &shapes, &pub_inters);
    let mut sum = public_sum(&pub_inters, &alpha_powers, ch)?;
    drop(pub_inters);

    // Phase 2: each part on its own transcript, its totals added to the run's sum.
    let mut relisted = Transcript::new(b"kestrel-parts");
    for k in 0..n_parts {
        let kd = kind(k);
        let (heights, main_cap) = kd.head(r, lb)?;
        list(&mut relisted, &heights, &main_cap);
        check_floor(&params, &kd.shapes, &heights, Some(fractions))?;
        let part = PartInput {
            tables: &kd.tables,
            shapes: &kd.shapes,
            log_heights: &heights,
            params,
            public,
            pre_cap: if k + 1 == n_parts {
                pre_cap.clone()
            } else {
                Vec::new()
            },
            main_cap,
            ch,
            alpha_powers: &alpha_powers,
        };
        verify_part(r, &part, rounds.part(k), &mut |totals| {
            sum += totals.iter().copied().sum::<Ext3>();
            Ok(())
        })?;
    }
    if listed.grinding_challenge() != relisted.grinding_challenge() {
        return Err(VerifyError::PartsMismatch);
    }
    if sum != Ext3::ZERO {
        return Err(VerifyError::LogUpSum);
    }
    r.end()
}
