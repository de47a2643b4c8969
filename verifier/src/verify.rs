//! Verification, streamed: the proof is read record by record in protocol order (format
//! version 7, [`kestrel_core::proof`]), each record's shape checked before it is read, and
//! only what later steps need is kept (caps, challenges, the DEEP sums, FRI's caps and
//! challenges, the final polynomial). Queries are checked one at a time and nothing of
//! them is kept.

use alloc::vec::Vec;

use kestrel_core::air::logup::signed;
use kestrel_core::air::{
    combine_quotient, logup, LogUpChallenges, Machine, PublicInteraction, TableAir, TableShape,
    VerifierFolder, ZerofierInverses,
};
use kestrel_core::field::{batch_inverse_in_place, bit_reverse, powers, Ext3, Felt, Field};
use kestrel_core::keys::VerifyingKey;
use kestrel_core::merkle::{
    hash_inject, hash_leaf_ext, hash_node, meet, siblings_sent, Digest, LeafHasher,
};
use kestrel_core::params::{
    estimate_with, StarkParams, MAX_LOG_HEIGHT, MIN_LOG_HEIGHT, SECURITY_FLOOR_BITS,
};
use kestrel_core::proof::{
    COUNT_LEN, DIGEST_LEN, EXT_LEN, FELT_LEN, FORMAT_VERSION, MAGIC, SEGMENTED_FORMAT_VERSION,
};
use kestrel_core::stark::{
    deep_columns, fold_coset, lde_point, max_fri_cap_nodes, max_fri_layers, protocol_shape,
    FriShape, Matrix, RoundTreeShape, Rounds, FRI_MAX_LOG_ARITY, ROUND_CAP_BITS,
};
use kestrel_core::transcript::{check_pow, Transcript};

use crate::read::Reader;
use crate::source::ProofSource;
use crate::VerifyError;

/// Reads the header and the parameter set of a proof, and nothing else: what a proof says
/// it is, before any check.
///
/// # Errors
/// [`VerifyError::Truncated`], [`VerifyError::BadMagic`] or
/// [`VerifyError::UnsupportedVersion`].
pub fn read_params(source: &mut dyn ProofSource) -> Result<StarkParams, VerifyError> {
    let mut r = Reader::new(source);
    header(&mut r).map(|(_, p)| p)
}

/// The header: magic, a version this verifier reads (3, or 4 for a segmented run), the
/// parameters.
pub(crate) fn header(r: &mut Reader<'_>) -> Result<(u16, StarkParams), VerifyError> {
    if r.bytes::<4>()? != MAGIC {
        return Err(VerifyError::BadMagic);
    }
    let version = r.u16()?;
    if version != FORMAT_VERSION && version != SEGMENTED_FORMAT_VERSION {
        return Err(VerifyError::UnsupportedVersion { got: version });
    }
    let params = StarkParams {
        log_blowup: r.u8()?,
        num_queries: r.u16()?,
        pow_bits: r.u8()?,
        log_final_poly_len: r.u8()?,
    };
    Ok((version, params))
}

/// Reads a list of `n` extension elements (count first).
pub(crate) fn exts(
    r: &mut Reader<'_>,
    what: &'static str,
    n: usize,
) -> Result<Vec<Ext3>, VerifyError> {
    r.count(what, n, EXT_LEN)?;
    (0..n).map(|_| r.ext()).collect()
}

/// A whole proof (format 9) after its header: `params` read and well formed, the public
/// values' count checked.
pub(crate) fn verify_whole(
    machine: &dyn Machine,
    vk: &VerifyingKey,
    public: &[Felt],
    params: StarkParams,
    r: &mut Reader<'_>,
) -> Result<(), VerifyError> {
    let tables = machine.tables();
    let shapes: Vec<TableShape> = tables
        .iter()
        .map(|t| TableShape::of(*t, public.len()))
        .collect::<Result<_, _>>()
        .map_err(VerifyError::Air)?;
    let nt = shapes.len();
    let n_pre = shapes.iter().filter(|s| s.preprocessed_width > 0).count();

    // 2. Heights; the security floor (it depends only on the parameters, the heights and
    //    the AIR) before anything else is read; the preprocessed cap.
    r.count("table heights", nt, 1)?;
    let log_heights = (0..nt).map(|_| r.u8()).collect::<Result<Vec<u8>, _>>()?;
    for (t, &h) in log_heights.iter().enumerate() {
        if (h as u32) < MIN_LOG_HEIGHT || h as u32 > MAX_LOG_HEIGHT {
            return Err(VerifyError::LogHeight { table: t, got: h });
        }
    }
    check_floor(&params, &shapes, &log_heights, None)?;
    let lb = params.log_blowup as u32;
    // Each round's mixed-matrix tree (none for a round no table commits to).
    let trees = Matrix::ROUNDS.map(|m| RoundTreeShape::of(m, &shapes, &log_heights, lb));
    // Each round's cap, held until the queries (at most 2^ROUND_CAP_BITS digests each).
    let mut caps: [Vec<Digest>; 4] = Default::default();
    caps[0] = read_cap(r, &trees, 0)?;

    // 3. The verifying key binds the statement, parameters and preprocessed commitment.
    let pre_tables = shapes
        .iter()
        .enumerate()
        .filter(|(_, s)| s.preprocessed_width > 0)
        .map(|(t, _)| (t, log_heights[t]));
    if VerifyingKey::compute(machine.name(), &params, &shapes, pre_tables, &caps[0]) != *vk {
        return Err(VerifyError::VkMismatch);
    }
    debug_assert_eq!(n_pre > 0, trees[0].is_some());

    // 4. The main commitment and the LogUp challenges; the rest of the protocol, the LogUp
    //    sum checked once the totals are read.
    let mut rounds = Rounds::start(machine.name(), &params, &caps[0], &log_heights, public);
    caps[1] = read_cap(r, &trees, 1)?;
    let ch = rounds.main(&caps[1]);
    let pub_inters = machine.public_interactions(public);
    let alpha_powers = alpha_powers(ch, &shapes, &pub_inters);
    // The public contribution now, so that nothing of the public values is held longer.
    let pub_sum = public_sum(&pub_inters, &alpha_powers, ch);
    drop(pub_inters);
    let [pre_cap, main_cap, ..] = caps;
    let part = PartInput {
        tables: &tables,
        shapes: &shapes,
        log_heights: &log_heights,
        params,
        public,
        pre_cap,
        main_cap,
        ch,
        alpha_powers: &alpha_powers,
    };
    verify_part(r, &part, rounds, &mut |totals| {
        let sum = totals.iter().copied().sum::<Ext3>() + pub_sum.clone()?;
        if sum != Ext3::ZERO {
            return Err(VerifyError::LogUpSum);
        }
        Ok(())
    })?;

    // 9. Nothing after the last query.
    r.end()
}

/// Fails unless the parameters give at least [`SECURITY_FLOOR_BITS`] provable bits for
/// tables of these shapes and heights. `run_fractions`: in a segmented run, the LogUp
/// fractions of all its parts, which share one set of challenges (the LogUp term counts
/// them all).
pub(crate) fn check_floor(
    params: &StarkParams,
    shapes: &[TableShape],
    log_heights: &[u8],
    run_fractions: Option<u128>,
) -> Result<(), VerifyError> {
    let max_log_height = log_heights.iter().copied().max().unwrap_or(0) as u32;
    let mut shape = protocol_shape(shapes, log_heights);
    if let Some(m) = run_fractions {
        let per_row = m.div_ceil(1u128 << max_log_height);
        shape.lookup_fractions_per_row = u64::try_from(per_row).unwrap_or(u64::MAX).max(1);
    }
    let security = estimate_with(params, max_log_height, &shape);
    if security.provable_bits < SECURITY_FLOOR_BITS as f64 {
        return Err(VerifyError::BelowSecurityFloor {
            provable_bits: security.provable_bits as u32,
            floor: SECURITY_FLOOR_BITS,
        });
    }
    Ok(())
}

/// The powers `α^1 ..= α^w` for the widest tuple of the tables and the public
/// interactions.
pub(crate) fn alpha_powers(
    ch: LogUpChallenges,
    shapes: &[TableShape],
    pub_inters: &[PublicInteraction],
) -> Vec<Ext3> {
    let max_values = shapes
        .iter()
        .map(|s| s.max_interaction_values)
        .max()
        .unwrap_or(0);
    let max_pub_values = pub_inters.iter().map(|i| i.values.len()).max().unwrap_or(0);
    let mut alpha_powers = powers(ch.alpha, max_values.max(max_pub_values) + 1);
    alpha_powers.remove(0);
    alpha_powers
}

/// The public interactions' contribution to the LogUp sum.
pub(crate) fn public_sum(
    pub_inters: &[PublicInteraction],
    alpha_powers: &[Ext3],
    ch: LogUpChallenges,
) -> Result<Ext3, VerifyError> {
    let mut sum = Ext3::ZERO;
    for it in pub_inters {
        let f = logup::fingerprint(it.bus, &it.values, alpha_powers, ch.beta);
        let inv = f.inverse().ok_or(VerifyError::LogUpFingerprintZero)?;
        sum += inv * signed(it.direction, it.multiplicity);
    }
    Ok(sum)
}

/// What one part of a proof (a whole proof's tables, or one part of a segmented run) is
/// verified against once its main cap and the LogUp challenges are known.
pub(crate) struct PartInput<'a> {
    pub tables: &'a [&'a dyn TableAir],
    pub shapes: &'a [TableShape],
    pub log_heights: &'a [u8],
    pub params: StarkParams,
    pub public: &'a [Felt],
    pub pre_cap: Vec<Digest>,
    pub main_cap: Vec<Digest>,
    pub ch: LogUpChallenges,
    pub alpha_powers: &'a [Ext3],
}

/// Reads and checks a part's records after its main cap, from the LogUp totals to its last
/// query, on the part's transcript `rounds` (after the LogUp challenges); `on_totals` gets
/// the part's totals once they are read (before the out-of-domain values).
pub(crate) fn verify_part(
    r: &mut Reader<'_>,
    part: &PartInput<'_>,
    mut rounds: Rounds,
    on_totals: &mut dyn FnMut(&[Ext3]) -> Result<(), VerifyError>,
) -> Result<(), VerifyError> {
    let PartInput {
        tables,
        shapes,
        log_heights,
        params,
        public,
        ch,
        alpha_powers,
        ..
    } = *part;
    let nt = shapes.len();
    let n_aux = shapes.iter().filter(|s| s.num_interactions > 0).count();
    let lb = params.log_blowup as u32;
    let trees = Matrix::ROUNDS.map(|m| RoundTreeShape::of(m, shapes, log_heights, lb));
    let mut caps: [Vec<Digest>; 4] = Default::default();
    caps[0] = part.pre_cap.clone();
    caps[1] = part.main_cap.clone();
    let totals = exts(r, "LogUp totals", n_aux)?;
    caps[2] = read_cap(r, &trees, 2)?;
    let gamma = rounds.aux(&totals, &caps[2]);
    caps[3] = read_cap(r, &trees, 3)?;
    let zeta = rounds.quotient(&caps[3]);
    on_totals(&totals)?;

    // 6. Out-of-domain values, table by table: each table's constraints checked against its
    //    quotient at ζ as its values are read, all of them absorbed, then λ drawn and every
    //    table's values reduced to its two DEEP sums. A source that can rewind is read
    //    twice (once for the checks and λ, once after λ for the sums: no values held);
    //    otherwise the values are held until λ.
    r.count("OOD tables", nt, 0)?;
    let ood_len: usize = shapes.iter().map(|s| OodLayout::of(s).len).sum();
    r.fits(ood_len * EXT_LEN + nt * 7 * COUNT_LEN)?;
    let check = OodCheck {
        tables,
        shapes,
        log_heights,
        totals: &totals,
        public,
        alpha_powers,
        beta: ch.beta,
        gamma,
        zeta,
    };
    let rewind = r.position();
    let (lambda, deep) = if let Some(start) = rewind {
        let max_len = shapes
            .iter()
            .map(|s| OodLayout::of(s).len)
            .max()
            .unwrap_or(0);
        let mut pass = OodPass::new(r, &check, max_len, false);
        let lambda = rounds.ood_values(&mut pass);
        let first = pass.finish()?;
        let end = r.position();
        // The second read: the same bytes or a source error (what it reads was read, shape
        // checked and bound by the transcript the first time).
        r.seek(start)?;
        let mut second = OodStream::new(r, true);
        let deep = deep_sums(shapes, log_heights, zeta, lambda, &mut second)
            .map_err(|_| VerifyError::Source)?;
        if second.digest() != first || r.position() != end {
            return Err(VerifyError::Source);
        }
        (lambda, deep)
    } else {
        let mut pass = OodPass::new(r, &check, ood_len, true);
        let lambda = rounds.ood_values(&mut pass);
        pass.finish()?;
        let mut held = OodHeld(pass.buf.iter());
        let deep = deep_sums(shapes, log_heights, zeta, lambda, &mut held)?;
        (lambda, deep)
    };
    let max_nz = shapes.iter().map(|s| deep_columns(s).0).max().unwrap_or(0);
    let lambda_powers = powers(lambda, max_nz);

    // 7. FRI commitments, final polynomial, grinding.
    let fri = FriShape::new(&params, log_heights);
    // Room for the most layers and caps any proof of this AIR has, so the heap does not
    // depend on the heights. Layer l's cap is held flat.
    let mut fri_caps = Vec::with_capacity(max_fri_cap_nodes(nt));
    let mut betas = Vec::with_capacity(max_fri_layers(nt));
    r.count("FRI layers", fri.num_layers as usize, COUNT_LEN)?;
    for l in 0..fri.num_layers {
        let n = 1usize << fri.cap_bits(l);
        r.count("FRI cap", n, DIGEST_LEN)?;
        let at = fri_caps.len();
        for _ in 0..n {
            fri_caps.push(r.digest()?);
        }
        betas.push(rounds.fri_layer(&fri_caps[at..]));
    }
    let final_poly = exts(r, "final polynomial", 1 << fri.log_final_len)?;
    let challenge = rounds.final_poly(&final_poly);
    let nonce = r.u64()?;
    if !check_pow(&challenge, nonce, params.pow_bits as u32) {
        return Err(VerifyError::PowInvalid);
    }
    rounds.nonce(nonce);

    // 8. Queries, one at a time in increasing order of position: openings against
    //    commitments (leaves hashed and DEEP combined as the values are read; each path
    //    shares with the previous query's, `merkle::meet`), FRI folding to the final
    //    polynomial.
    let mut positions: Vec<usize> = Vec::with_capacity(params.num_queries as usize);
    for _ in 0..params.num_queries {
        positions.push(rounds.query(fri.log_max_lde));
    }
    insertion_sort(&mut positions);
    // Each table's DEEP value at this query and the previous one: (log LDE, value).
    let mut reduced: Vec<(u32, Ext3)> = Vec::with_capacity(nt);
    let mut prev_reduced: Vec<(u32, Ext3)> = Vec::with_capacity(nt);
    // The opened rows' digests of this query and the previous one, per round, in table
    // order: (log LDE, digest).
    let mut row_digests: [Vec<RowDigest>; 4] = Default::default();
    let mut prev_rows: [Vec<RowDigest>; 4] = Default::default();
    for d in row_digests.iter_mut().chain(&mut prev_rows) {
        d.reserve_exact(nt);
    }
    let mut round_memos = trees.map(|t| PathMemo::new(t.map_or(0, |t| t.path_len())));
    let mut fri_memos: Vec<PathMemo> = Vec::with_capacity(max_fri_layers(nt));
    for l in 0..fri.num_layers {
        fri_memos.push(PathMemo::new(fri.path_len(l)));
    }
    let n_paths = trees.iter().flatten().count();
    // Per query, every table's `1/(x − ζ)` and `1/(x − ζω)`, inverted as one batch.
    let (mut inv, mut scratch) = (Vec::with_capacity(2 * nt), Vec::with_capacity(2 * nt));
    r.count("queries", params.num_queries as usize, 0)?;
    for (qi, &q) in positions.iter().enumerate() {
        let prev_q = qi.checked_sub(1).map(|p| positions[p]);
        core::mem::swap(&mut reduced, &mut prev_reduced);
        reduced.clear();
        core::mem::swap(&mut row_digests, &mut prev_rows);
        for d in &mut row_digests {
            d.clear();
        }
        inv.clear();
        for (t, d) in deep.iter().enumerate() {
            let log_lde = log_heights[t] as u32 + lb;
            let x = Ext3::from(lde_point(log_lde, q >> (fri.log_max_lde - log_lde)));
            inv.push(x - zeta);
            inv.push(x - d.zeta_next);
        }
        if !batch_inverse_in_place(&mut inv, &mut scratch) {
            return Err(VerifyError::OodPointInDomain);
        }
        r.count("query tables", nt, 0)?;
        // Each round's next row-digest slot (the tables that have the round, in order).
        let mut slot = [0usize; 4];
        for (t, s) in shapes.iter().enumerate() {
            let log_lde = log_heights[t] as u32 + lb;
            let d = &deep[t];
            // A table row the previous query opened too is not sent again: its digests
            // and DEEP value are that query's.
            if fri.same_row(prev_q, q, log_lde) {
                r.count("table openings", 0, 0)?;
                for m in Matrix::of(s) {
                    let i = m as usize;
                    row_digests[i].push(prev_rows[i][slot[i]]);
                    slot[i] += 1;
                }
                reduced.push(prev_reduced[t]);
                continue;
            }
            r.count("table openings", Matrix::of(s).count(), 0)?;
            let (mut a, mut b) = (Ext3::ZERO, Ext3::ZERO);
            let mut k = 0;
            for m in Matrix::of(s) {
                let width = m.width(s);
                r.count("opened row", width, FELT_LEN)?;
                let mut leaf = LeafHasher::new();
                for _ in 0..width {
                    let v = r.felt()?;
                    leaf.felt(v);
                    let term = lambda_powers[k] * v;
                    a += term;
                    if k < d.nzw {
                        b += term;
                    }
                    k += 1;
                }
                row_digests[m as usize].push((log_lde, leaf.finish()));
                slot[m as usize] += 1;
            }
            let (inv_z, inv_zw) = (inv[2 * t], inv[2 * t + 1]);
            let v = (d.scale * a - d.sum_z) * inv_z + (d.scale_next * b - d.sum_zw) * inv_zw;
            reduced.push((log_lde, v));
        }
        // One path per round, the shorter matrices' rows injected on the way up.
        r.count("query paths", n_paths, 0)?;
        for (i, tree) in trees.iter().enumerate() {
            let Some(tree) = tree else { continue };
            let index = q >> (fri.log_max_lde - tree.log_leaves);
            let rows = &row_digests[i];
            if !round_path(r, tree, &caps[i], &mut round_memos[i], index, rows)? {
                return Err(VerifyError::MerklePath {
                    query: qi,
                    round: Matrix::ROUNDS[i],
                });
            }
        }
        // Layer 0 is the sum of the tables with the largest LDE; others join later.
        let mut f: Ext3 = reduced
            .iter()
            .filter(|(l, _)| *l == fri.log_max_lde)
            .map(|(_, v)| *v)
            .sum();
        r.count("FRI steps", fri.num_layers as usize, 0)?;
        let mut cap_at = 0;
        for (l, beta) in betas.iter().enumerate() {
            let l32 = l as u32;
            let a = fri.log_arity(l32);
            let pos = q >> fri.folds_before(l32);
            let (leaf_index, own) = (pos >> a, pos & ((1 << a) - 1));
            // The leaf's values: the siblings in leaf order, the computed value at `own`.
            let mut coset = [Ext3::ZERO; 1 << FRI_MAX_LOG_ARITY];
            let coset = &mut coset[..1 << a];
            r.count("FRI siblings", coset.len() - 1, EXT_LEN)?;
            for (k, v) in coset.iter_mut().enumerate() {
                *v = if k == own { f } else { r.ext()? };
            }
            let cap_bits = fri.cap_bits(l32);
            let cap = &fri_caps[cap_at..cap_at + (1 << cap_bits)];
            cap_at += 1 << cap_bits;
            let depth = fri.path_len(l32);
            let leaf = hash_leaf_ext(coset);
            let memo = &mut fri_memos[l];
            if !shared_path(r, "FRI path", depth, cap, memo, leaf_index, leaf, |c, _| c)? {
                return Err(VerifyError::FriMerklePath {
                    query: qi,
                    layer: l,
                });
            }
            let log_len = fri.log_len(l32);
            f = fold_coset(coset, log_len, fri.layer_shift(l32), leaf_index, *beta)
                .ok_or(VerifyError::OodPointInDomain)?;
            let joining: Ext3 = reduced
                .iter()
                .filter(|(lg, _)| *lg == log_len - a)
                .map(|(_, v)| *v)
                .sum();
            f += beta.exp_u64(1 << a) * joining;
        }
        let log_final = fri.log_len(fri.num_layers);
        let pos = q >> fri.folds_before(fri.num_layers);
        let x = fri.layer_shift(fri.num_layers)
            * two_adic(log_final).exp_u64(bit_reverse(pos, log_final) as u64);
        let expected = final_poly
            .iter()
            .rev()
            .fold(Ext3::ZERO, |acc, &c| acc * x + c);
        if f != expected {
            return Err(VerifyError::FriFinalPoly { query: qi });
        }
    }

    Ok(())
}

/// Reads round `i`'s cap (count first): `2^c` digests, none for a round without a tree.
pub(crate) fn read_cap(
    r: &mut Reader<'_>,
    trees: &[Option<RoundTreeShape>; 4],
    i: usize,
) -> Result<Vec<Digest>, VerifyError> {
    const NAMES: [&str; 4] = ["preprocessed cap", "main cap", "aux cap", "quotient cap"];
    let n = trees[i].map_or(0, |t| t.cap_len());
    // The most a tree of this round has, whatever the heights (none without a tree).
    let mut cap = Vec::with_capacity(if trees[i].is_some() {
        1 << ROUND_CAP_BITS
    } else {
        0
    });
    r.count(NAMES[i], n, DIGEST_LEN)?;
    for _ in 0..n {
        cap.push(r.digest()?);
    }
    Ok(cap)
}

/// Sorts the query positions (at most `MAX_QUERIES`, drawn uniformly: about n²/4 moves),
/// without the code size of `sort_unstable` in firmware.
fn insertion_sort(v: &mut [usize]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// An opened row's digest with its matrix's log LDE height.
type RowDigest = (u32, Digest);

/// What the previous query (in increasing order) left of one tree's path: its leaf index,
/// its leaf's digest and its siblings from the leaf up, as it read them or took them from
/// the query before it ([`kestrel_core::merkle::meet`]).
struct PathMemo {
    prev: Option<usize>,
    leaf: Digest,
    sibs: Vec<Digest>,
}

impl PathMemo {
    fn new(depth: usize) -> PathMemo {
        PathMemo {
            prev: None,
            leaf: Digest::default(),
            sibs: alloc::vec![Digest::default(); depth],
        }
    }
}

/// Reads the siblings leaf `index`'s path carries (count first) and checks that `leaf` sits
/// at `index` of a tree `depth` levels below `cap`: up to the cap, or up to where the path
/// meets the previous query's (`memo`). `inject(node, k)` is applied to the node `k` steps
/// above the leaf (a round's shorter matrices); the caller checks what the climb skips.
#[allow(clippy::too_many_arguments)]
fn shared_path(
    r: &mut Reader<'_>,
    what: &'static str,
    depth: usize,
    cap: &[Digest],
    memo: &mut PathMemo,
    index: usize,
    leaf: Digest,
    mut inject: impl FnMut(Digest, usize) -> Digest,
) -> Result<bool, VerifyError> {
    let m = meet(memo.prev, index, depth);
    let sent = siblings_sent(m, depth);
    r.count(what, sent, DIGEST_LEN)?;
    let (mut cur, mut i) = (leaf, index);
    for k in 0..sent {
        let sib = r.digest()?;
        // Steps below the meeting; the sibling at the step below it stays the previous
        // query's (a later query never needs it: this one is the right child there).
        memo.sibs[k] = sib;
        cur = if i & 1 == 0 {
            hash_node(&cur, &sib)
        } else {
            hash_node(&sib, &cur)
        };
        i >>= 1;
        cur = inject(cur, k + 1);
    }
    let ok = match m {
        None => cap.get(i) == Some(&cur),
        Some(0) => cur == memo.leaf,
        Some(s) => cur == memo.sibs[s - 1],
    };
    memo.prev = Some(index);
    memo.leaf = leaf;
    Ok(ok)
}

/// Checks one round's path: that the opened rows' digests `rows` (table order, with their
/// matrices' log LDE heights) sit at leaf `index` of the round's mixed-matrix tree under
/// `cap` ([`kestrel_core::merkle`] has the tree's definition), climbing to where the path
/// meets the previous query's. The rows injected at or above the meeting (log LDE height
/// `≤ L − s`) are exactly the tables whose row the previous query opened too (`q >> shift`
/// equal for both), so their digests here are that query's, already bound.
fn round_path(
    r: &mut Reader<'_>,
    tree: &RoundTreeShape,
    cap: &[Digest],
    memo: &mut PathMemo,
    index: usize,
    rows: &[RowDigest],
) -> Result<bool, VerifyError> {
    let inject = |mut cur: Option<Digest>, level: u32| {
        for (_, d) in rows.iter().filter(|(l, _)| *l == level) {
            cur = Some(match cur {
                None => *d,
                Some(c) => hash_inject(&c, d),
            });
        }
        cur
    };
    let Some(leaf) = inject(None, tree.log_leaves) else {
        return Ok(false);
    };
    let depth = tree.path_len();
    let climb =
        |cur: Digest, k: usize| inject(Some(cur), tree.log_leaves - k as u32).unwrap_or(cur);
    shared_path(r, "Merkle path", depth, cap, memo, index, leaf, climb)
}

/// What the query phase needs of a table's DEEP weights and out-of-domain values: table
/// `t`'s weight of its `k`-th opened column is `scale·λ^k` at ζ and `scale_next·λ^k` at ζω
/// (for `k < nzw`, the columns opened at ζω).
struct DeepTable {
    scale: Ext3,
    scale_next: Ext3,
    nzw: usize,
    sum_z: Ext3,
    sum_zw: Ext3,
    zeta_next: Ext3,
}

/// The names of a table's seven OOD lists, in proof order.
const OOD_LISTS: [&str; 7] = [
    "OOD preprocessed",
    "OOD preprocessed next",
    "OOD main",
    "OOD main next",
    "OOD aux",
    "OOD aux next",
    "OOD quotient",
];

/// The lengths of a table's seven OOD lists.
struct OodLayout {
    lens: [usize; 7],
    len: usize,
}

impl OodLayout {
    fn of(s: &TableShape) -> OodLayout {
        let (p, w, a) = (s.preprocessed_width, s.width, s.aux_width);
        let lens = [p, p, w, w, a, a, 3 * s.quotient_chunks];
        OodLayout {
            lens,
            len: lens.iter().sum(),
        }
    }

    /// The seven lists within one table's flat values.
    fn view<'a>(&self, mut flat: &'a [Ext3]) -> [&'a [Ext3]; 7] {
        self.lens.map(|n| {
            let (head, rest) = flat.split_at(n.min(flat.len()));
            flat = rest;
            head
        })
    }
}

/// What checking a table's out-of-domain values against its quotient needs.
struct OodCheck<'a> {
    tables: &'a [&'a dyn TableAir],
    shapes: &'a [TableShape],
    log_heights: &'a [u8],
    totals: &'a [Ext3],
    public: &'a [Felt],
    alpha_powers: &'a [Ext3],
    beta: Ext3,
    gamma: Ext3,
    zeta: Ext3,
}

impl OodCheck<'_> {
    /// Table `t`'s constraints at ζ (its values `o`, the seven lists) against its quotient;
    /// `total` is its LogUp total (zero without interactions).
    fn table(&self, t: usize, o: [&[Ext3]; 7], total: Ext3) -> Result<(), VerifyError> {
        let s = &self.shapes[t];
        let zeta = self.zeta;
        let n = 1u64 << self.log_heights[t];
        let omega = two_adic(self.log_heights[t] as u32);
        let omega_last = omega.inverse().ok_or(VerifyError::OodPointInDomain)?;
        let zn = zeta.exp_u64(n);
        let z = ZerofierInverses {
            inv_zh: (zn - Felt::ONE)
                .inverse()
                .ok_or(VerifyError::OodPointInDomain)?,
            x_minus_last: zeta - omega_last,
            inv_first: (zeta - Felt::ONE)
                .inverse()
                .ok_or(VerifyError::OodPointInDomain)?,
            inv_last: (zeta - omega_last)
                .inverse()
                .ok_or(VerifyError::OodPointInDomain)?,
        };
        let aux = recombine(o[4]);
        let aux_next = recombine(o[5]);
        let gamma_powers = powers(self.gamma, s.num_constraints);
        let mut f = VerifierFolder::new(
            o[2],
            o[3],
            o[0],
            o[1],
            &aux,
            &aux_next,
            self.public,
            self.alpha_powers,
            self.beta,
            total,
            &gamma_powers,
        );
        self.tables[t].eval_verifier(&mut f);
        let acc = f.finish();
        let c = combine_quotient(&acc, &z);
        let mut q = Ext3::ZERO;
        let mut zpow = Ext3::ONE;
        for chunk in o[6].chunks_exact(3) {
            q += zpow * Ext3::from_coord_evals([chunk[0], chunk[1], chunk[2]]);
            zpow *= zn;
        }
        if c != q {
            return Err(VerifyError::OodMismatch { table: t });
        }
        Ok(())
    }
}

/// A table's out-of-domain values, list by list, in proof order.
trait OodValues {
    /// List `i` (of [`OOD_LISTS`]) of `n` values begins.
    fn list(&mut self, i: usize, n: usize) -> Result<(), VerifyError>;
    /// The next value.
    fn value(&mut self) -> Result<Ext3, VerifyError>;
}

/// Out-of-domain values read from the proof: each list's count checked, each value
/// canonical, and (when `hash`) every value absorbed into a digest of the record, which
/// tells a second read of the record from the first.
struct OodStream<'r, 'a> {
    r: &'r mut Reader<'a>,
    hash: Option<Transcript>,
}

impl<'r, 'a> OodStream<'r, 'a> {
    fn new(r: &'r mut Reader<'a>, hash: bool) -> OodStream<'r, 'a> {
        OodStream {
            r,
            hash: hash.then(|| Transcript::new(b"kestrel-ood-record")),
        }
    }

    /// The digest of the values read (all zero without hashing).
    fn digest(&mut self) -> [u8; 32] {
        self.hash.as_mut().map_or([0; 32], |h| h.squeeze())
    }
}

impl OodValues for OodStream<'_, '_> {
    fn list(&mut self, i: usize, n: usize) -> Result<(), VerifyError> {
        self.r.count(OOD_LISTS[i], n, EXT_LEN)
    }

    fn value(&mut self) -> Result<Ext3, VerifyError> {
        let v = self.r.ext()?;
        if let Some(h) = &mut self.hash {
            h.observe_ext(v);
        }
        Ok(v)
    }
}

/// Out-of-domain values held in memory (flat, in proof order).
struct OodHeld<'a>(core::slice::Iter<'a, Ext3>);

impl OodValues for OodHeld<'_> {
    fn list(&mut self, _: usize, _: usize) -> Result<(), VerifyError> {
        Ok(())
    }

    fn value(&mut self) -> Result<Ext3, VerifyError> {
        self.0.next().copied().ok_or(VerifyError::Truncated)
    }
}

/// The first read of the out-of-domain record, as the values the transcript absorbs: each
/// table's values are read into `buf` and checked against its quotient before they are
/// yielded. Without `keep`, `buf` holds one table's values at a time; with it, all of them
/// (for the DEEP sums). The first error ends the values; [`OodPass::finish`] returns it.
struct OodPass<'r, 'a, 'c> {
    src: OodStream<'r, 'a>,
    check: &'c OodCheck<'c>,
    keep: bool,
    buf: Vec<Ext3>,
    next: usize,
    table: usize,
    aux_table: usize,
    err: Option<VerifyError>,
}

impl<'r, 'a, 'c> OodPass<'r, 'a, 'c> {
    fn new(
        r: &'r mut Reader<'a>,
        check: &'c OodCheck<'c>,
        capacity: usize,
        keep: bool,
    ) -> OodPass<'r, 'a, 'c> {
        OodPass {
            src: OodStream::new(r, !keep),
            check,
            keep,
            buf: Vec::with_capacity(capacity),
            next: 0,
            table: 0,
            aux_table: 0,
            err: None,
        }
    }

    /// Reads and checks the next table's values into `buf`.
    fn read_table(&mut self) -> Result<(), VerifyError> {
        let t = self.table;
        let s = &self.check.shapes[t];
        if !self.keep {
            self.buf.clear();
            self.next = 0;
        }
        let at = self.buf.len();
        let l = OodLayout::of(s);
        for (i, &n) in l.lens.iter().enumerate() {
            self.src.list(i, n)?;
            for _ in 0..n {
                self.buf.push(self.src.value()?);
            }
        }
        let total = if s.num_interactions > 0 {
            self.aux_table += 1;
            self.check
                .totals
                .get(self.aux_table - 1)
                .copied()
                .unwrap_or_default()
        } else {
            Ext3::ZERO
        };
        self.check.table(t, l.view(&self.buf[at..]), total)?;
        self.table += 1;
        Ok(())
    }

    /// The record's digest (the first error instead, if reading or a check failed).
    fn finish(&mut self) -> Result<[u8; 32], VerifyError> {
        match self.err.take() {
            Some(e) => Err(e),
            None if self.table < self.check.shapes.len() => Err(VerifyError::Truncated),
            None => Ok(self.src.digest()),
        }
    }
}

impl Iterator for OodPass<'_, '_, '_> {
    type Item = Ext3;

    fn next(&mut self) -> Option<Ext3> {
        while self.next == self.buf.len() {
            if self.err.is_some() || self.table == self.check.shapes.len() {
                return None;
            }
            if let Err(e) = self.read_table() {
                self.err = Some(e);
                return None;
            }
        }
        self.next += 1;
        self.buf.get(self.next - 1).copied()
    }
}

/// Every table's DEEP sums from its out-of-domain values, read in proof order. The
/// weights are λ^0, λ^1, … over every table's columns in table order, each table's at ζ
/// then at ζω ([`kestrel_core::stark::deep_weights`]). Table t's weights are λ^off_t·λ^k,
/// so one list of powers λ^k (as long as the widest table's opened row) serves every
/// table and every query.
fn deep_sums(
    shapes: &[TableShape],
    log_heights: &[u8],
    zeta: Ext3,
    lambda: Ext3,
    values: &mut dyn OodValues,
) -> Result<Vec<DeepTable>, VerifyError> {
    let mut deep = Vec::with_capacity(shapes.len());
    let mut scale = Ext3::ONE;
    for (t, s) in shapes.iter().enumerate() {
        let l = OodLayout::of(s);
        let (nz, nzw) = deep_columns(s);
        let scale_next = scale * lambda.exp_u64(nz as u64);
        // Σ λ^k·v_k by running powers: the lists at ζ (even) and at ζω (odd) in turn.
        let (mut sum_z, mut w_z, mut sum_zw, mut w_zw) =
            (Ext3::ZERO, Ext3::ONE, Ext3::ZERO, Ext3::ONE);
        for (i, &n) in l.lens.iter().enumerate() {
            values.list(i, n)?;
            for _ in 0..n {
                let v = values.value()?;
                if i % 2 == 0 {
                    sum_z += w_z * v;
                    w_z *= lambda;
                } else {
                    sum_zw += w_zw * v;
                    w_zw *= lambda;
                }
            }
        }
        deep.push(DeepTable {
            scale,
            scale_next,
            nzw,
            sum_z: scale * sum_z,
            sum_zw: scale_next * sum_zw,
            zeta_next: zeta * two_adic(log_heights[t] as u32),
        });
        scale = scale_next * lambda.exp_u64(nzw as u64);
    }
    Ok(deep)
}

fn two_adic(bits: u32) -> Felt {
    Felt::two_adic_generator(bits).unwrap_or(Felt::ONE)
}

fn recombine(coords: &[Ext3]) -> Vec<Ext3> {
    coords
        .chunks_exact(3)
        .map(|c| Ext3::from_coord_evals([c[0], c[1], c[2]]))
        .collect()
}
