//! Tamper suite: an honest proof is decoded, one thing in it is changed, and the verifier
//! must reject the result with the specific error that names the check that caught it.
//!
//! Most cases use a parameter set without grinding (`pow_bits = 0`) so that mutations after
//! the out-of-domain round reach the query phase instead of stopping at the grinding check;
//! the nonce case uses a preset proof (16 grinding bits).
//!
//! Fiat–Shamir note. Everything up to and including the grinding nonce is absorbed into the
//! transcript before the query indices are drawn. A change to any of it (an OOD value the
//! constraints do not read, a FRI cap, a final-polynomial coefficient, the nonce of a
//! proof without grinding) therefore moves every query index, and the first check to fail
//! is a round path of the first query: `MerklePath { query: 0, .. }` (every table's rows
//! are read first, then one path per round, in round order; the byte table has a
//! preprocessed round, whose small tree the moved first query may still open at the same
//! leaf: queries are sorted, and the first opens the lowest). The FRI-specific errors
//! (`FriMerklePath`, `FriFinalPoly`) are reached only through query-phase data, which the
//! transcript does not absorb: FRI siblings and paths.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use kestrel_core::air::examples::{
    fibonacci_trace, range_check_traces, FibonacciAir, FibonacciMachine, RangeCheckMachine,
};
use kestrel_core::air::{Air, AirBuilder, Machine, TableAir};
use kestrel_core::air::{LogUpChallenges, TableShape};
use kestrel_core::field::{Ext3, Felt, P};
use kestrel_core::keys::VerifyingKey;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::merkle::Digest;
use kestrel_core::params::{estimate, StarkParams, SECURITY_FLOOR_BITS};
use kestrel_core::proof::{
    FriStep, ProofBody, FORMAT_VERSION, HEADER_LEN, SEGMENTED_FORMAT_VERSION,
};
use kestrel_core::stark::{FriShape, Matrix, ROUND_CAP_BITS};
use kestrel_prover_gpu::backend::{
    AuxCommitted, Backend, DeepInputs, FriOpening, QuotientCommitted, QuotientInputs, RoundOpening,
    TablePlan,
};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup, ProverError};
use kestrel_prover_gpu::roofline::Ceilings;
use kestrel_tests::codec::decode_proof;
use kestrel_verifier::{verify, verify_stream, ProofSource, Round, SourceError, VerifyError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Sender table of the range-check fixture: 2^10 rows; the byte table has 2^8.
const SENDER_LOG_N: u32 = 10;
const FIB_LOG_N: u32 = 8;
const PUBLIC_BYTE: u8 = 200;

/// Table indices and round order of the range-check machine's openings.
const SENDER: usize = 0;
const BYTE_RANGE: usize = 1;
const SENDER_ROUNDS: [Round; 3] = [Round::Main, Round::Aux, Round::Quotient];
const BYTE_RANGE_ROUNDS: [Round; 4] = [
    Round::Preprocessed,
    Round::Main,
    Round::Aux,
    Round::Quotient,
];
/// The range-check machine commits to all four rounds, so a query's `paths[i]` is round
/// `Matrix::ROUNDS[i]`'s.
const RC_ROUNDS: [Round; 4] = Matrix::ROUNDS;

/// Blowup 8 without grinding; `num_queries` starts at 90 and is raised (in steps of 10, at
/// most to 512) until the estimator puts every fixture above the security floor.
fn tamper_params() -> StarkParams {
    let mut p = StarkParams {
        log_blowup: 3,
        num_queries: 90,
        pow_bits: 0,
        log_final_poly_len: 3,
    };
    let floor = SECURITY_FLOOR_BITS as f64;
    while [SENDER_LOG_N, FIB_LOG_N]
        .iter()
        .any(|&h| estimate(&p, h).provable_bits < floor)
    {
        assert!(
            p.num_queries + 10 <= 512,
            "no query count up to 512 reaches the floor without grinding: {:?}",
            estimate(&p, SENDER_LOG_N)
        );
        p.num_queries += 10;
    }
    p
}

/// An honest proof with everything needed to verify it.
struct Fixture {
    machine: &'static dyn Machine,
    vk: VerifyingKey,
    public: Vec<Felt>,
    body: ProofBody,
    bytes: Vec<u8>,
}

impl Fixture {
    fn new(
        machine: &'static dyn Machine,
        params: StarkParams,
        traces: &[RowMajorMatrix],
        public: Vec<Felt>,
    ) -> Fixture {
        let pk = setup(&CpuBackend, machine, params).expect("setup");
        let (body, _) = prove(&CpuBackend, &pk, machine, traces, &public).expect("prove");
        let bytes = body.to_bytes();
        verify(machine, &pk.vk, &public, &bytes).expect("the untampered proof verifies");
        let mut once: &[u8] = &bytes;
        verify_stream(machine, &pk.vk, &public, &mut once)
            .expect("the untampered proof verifies from a source that cannot rewind");
        Fixture {
            machine,
            vk: pk.vk,
            public,
            body,
            bytes,
        }
    }

    /// Verifies raw bytes; panics (with the case name) if the verifier accepts them. The
    /// bytes are read in place (a source that rewinds: the OOD record read twice) and from
    /// a source that cannot rewind (the OOD values held): both must give the same error.
    fn reject_bytes(&self, bytes: &[u8], case: &str) -> VerifyError {
        let e = match verify(self.machine, &self.vk, &self.public, bytes) {
            Ok(()) => panic!("{case}: tampered proof was accepted"),
            Err(e) => e,
        };
        let mut once: &[u8] = bytes;
        assert_eq!(
            verify_stream(self.machine, &self.vk, &self.public, &mut once),
            Err(e.clone()),
            "{case}: a source that cannot rewind gives another result"
        );
        e
    }

    /// Re-encodes a mutated body and verifies it.
    fn reject(&self, body: &ProofBody, case: &str) -> VerifyError {
        assert_ne!(body, &self.body, "{case}: the mutation changed nothing");
        self.reject_bytes(&body.to_bytes(), case)
    }

    /// Decodes the fixture's bytes, applies `f`, and verifies the result.
    fn tamper(&self, case: &str, f: impl FnOnce(&mut ProofBody)) -> VerifyError {
        let mut body = decode_proof(&self.bytes).expect("the fixture decodes");
        assert_eq!(body, self.body, "decoding round-trips");
        f(&mut body);
        self.reject(&body, case)
    }

    fn fri_shape(&self) -> FriShape {
        FriShape::new(&self.body.params, &self.body.log_heights)
    }
}

/// The range-check machine (preprocessed, main, aux and quotient rounds; tables of 2^10
/// and 2^8 rows), proved without grinding.
fn range_check() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        Fixture::new(
            &RangeCheckMachine,
            tamper_params(),
            &range_check_traces(SENDER_LOG_N, 7, PUBLIC_BYTE),
            vec![Felt::from(PUBLIC_BYTE as u32)],
        )
    })
}

/// The same statement with the blowup-8 preset (16 grinding bits).
fn range_check_preset() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        Fixture::new(
            &RangeCheckMachine,
            StarkParams::BLOWUP_8,
            &range_check_traces(SENDER_LOG_N, 7, PUBLIC_BYTE),
            vec![Felt::from(PUBLIC_BYTE as u32)],
        )
    })
}

/// Fibonacci (one table, no interactions), proved without grinding.
fn fibonacci() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let (trace, result) = fibonacci_trace(FIB_LOG_N, Felt::ONE, Felt::ONE);
        Fixture::new(
            &FibonacciMachine,
            tamper_params(),
            &[trace],
            vec![Felt::ONE, Felt::ONE, result],
        )
    })
}

/// Asserts that an error matches a pattern, printing the error and the case otherwise.
macro_rules! assert_err {
    ($err:expr, $pat:pat $(if $guard:expr)?, $($ctx:tt)+) => {{
        let e: VerifyError = $err;
        assert!(
            matches!(e, $pat $(if $guard)?),
            "{}: expected {}, got {:?} (\"{}\")",
            format!($($ctx)+),
            stringify!($pat),
            e,
            e
        );
    }};
}

fn flip(d: &mut kestrel_core::merkle::Digest) {
    d.0[0] ^= 1;
}

fn bump(e: &mut Ext3) {
    *e += Ext3::ONE;
}

/// The error every post-OOD transcript change produces (see the module comment).
fn is_first_query_rederived(e: &VerifyError) -> bool {
    matches!(e, VerifyError::MerklePath { query: 0, .. })
}

// ---------------------------------------------------------------------------------------
// Fixtures and parameters.
// ---------------------------------------------------------------------------------------

#[test]
fn tamper_params_meet_the_floor() {
    let p = tamper_params();
    for h in [SENDER_LOG_N, FIB_LOG_N] {
        let s = estimate(&p, h);
        assert!(
            s.provable_bits >= SECURITY_FLOOR_BITS as f64,
            "{p:?} at log height {h}: {s:?}"
        );
    }
    assert_eq!(p.pow_bits, 0);
    // The fixture proofs are honest and have the shape the cases below rely on.
    let f = range_check();
    assert_eq!(f.body.log_heights, vec![SENDER_LOG_N as u8, 8]);
    // One tree per round; every matrix is at least 2^11 rows, so each cap is full.
    for cap in [
        &f.body.preprocessed_cap,
        &f.body.main_cap,
        &f.body.aux_cap,
        &f.body.quotient_cap,
    ] {
        assert_eq!(cap.len(), 1 << ROUND_CAP_BITS);
    }
    assert_eq!(f.body.totals.len(), 2);
    assert_eq!(f.body.queries[0].paths.len(), RC_ROUNDS.len());
    assert_eq!(f.body.queries[0].tables[SENDER].len(), SENDER_ROUNDS.len());
    assert_eq!(
        f.body.queries[0].tables[BYTE_RANGE].len(),
        BYTE_RANGE_ROUNDS.len()
    );
    assert!(f.fri_shape().num_layers >= 2);
    fibonacci();
    range_check_preset();
}

// ---------------------------------------------------------------------------------------
// Commitment roots and LogUp totals.
// ---------------------------------------------------------------------------------------

#[test]
fn preprocessed_cap_changed_is_vk_mismatch() {
    let f = range_check();
    for i in 0..f.body.preprocessed_cap.len() {
        let e = f.tamper("preprocessed cap", |b| flip(&mut b.preprocessed_cap[i]));
        assert_err!(e, VerifyError::VkMismatch, "preprocessed cap node {i}");
    }
}

/// The main cap feeds the LogUp challenges α, β. The range-check statement has a public
/// interaction (the verifier sends `p` on the byte bus), whose fingerprint under the new
/// challenges no longer cancels the committed totals, so the LogUp sum check — which runs
/// before the OOD check — fails. Fibonacci has no buses: the changed transcript moves ζ and
/// the OOD check fails.
#[test]
fn main_cap_changed() {
    let f = range_check();
    for i in 0..f.body.main_cap.len() {
        let e = f.tamper("main cap", |b| flip(&mut b.main_cap[i]));
        assert_err!(e, VerifyError::LogUpSum, "range-check main cap node {i}");
    }
    let f = fibonacci();
    for i in 0..f.body.main_cap.len() {
        let e = f.tamper("main cap", |b| flip(&mut b.main_cap[i]));
        assert_err!(
            e,
            VerifyError::OodMismatch { table: 0 },
            "fibonacci main cap node {i}"
        );
    }
}

/// The aux cap feeds γ and ζ; the totals are untouched so LogUp balances, and the first
/// table's OOD check fails at the new ζ.
#[test]
fn aux_cap_changed_is_ood_mismatch() {
    let f = range_check();
    for i in 0..f.body.aux_cap.len() {
        let e = f.tamper("aux cap", |b| flip(&mut b.aux_cap[i]));
        assert_err!(e, VerifyError::OodMismatch { table: 0 }, "aux cap node {i}");
    }
}

/// The quotient cap feeds ζ: the first table's OOD check fails at the new point.
#[test]
fn quotient_cap_changed_is_ood_mismatch() {
    for (name, f) in [("range-check", range_check()), ("fibonacci", fibonacci())] {
        for i in 0..f.body.quotient_cap.len() {
            let e = f.tamper("quotient cap", |b| flip(&mut b.quotient_cap[i]));
            assert_err!(
                e,
                VerifyError::OodMismatch { table: 0 },
                "{name}: quotient cap node {i}"
            );
        }
    }
}

/// A cap with a node more or fewer is a shape error, before anything is hashed.
#[test]
fn cap_length_changed_is_length() {
    let f = range_check();
    type Pick = fn(&mut ProofBody) -> &mut Vec<Digest>;
    let caps: [(&str, Pick); 4] = [
        ("preprocessed cap", |b| &mut b.preprocessed_cap),
        ("main cap", |b| &mut b.main_cap),
        ("aux cap", |b| &mut b.aux_cap),
        ("quotient cap", |b| &mut b.quotient_cap),
    ];
    for (name, pick) in caps {
        let n = pick(&mut f.body.clone()).len();
        let e = f.tamper(name, |b| pick(b).push(Digest::default()));
        assert_err!(
            e,
            VerifyError::Length { what, expected, got } if what == name && expected == n && got == n + 1,
            "{name} with a node appended"
        );
        let e = f.tamper(name, |b| {
            pick(b).pop();
        });
        assert_err!(
            e,
            VerifyError::Length { what, expected, got } if what == name && expected == n && got == n - 1,
            "{name} with its last node removed"
        );
    }
    let e = f.tamper("FRI cap", |b| b.fri_caps[1].push(Digest::default()));
    assert_err!(
        e,
        VerifyError::Length {
            what: "FRI cap",
            ..
        },
        "FRI cap of layer 1 with a node appended"
    );
}

#[test]
fn logup_total_changed_is_logup_sum() {
    let f = range_check();
    for t in 0..f.body.totals.len() {
        let e = f.tamper("total", |b| bump(&mut b.totals[t]));
        assert_err!(e, VerifyError::LogUpSum, "LogUp total {t}");
    }
    // Moving value between the totals keeps their sum, so LogUp balances; the totals are
    // absorbed before γ and ζ (and the first table's last-row constraint `S_{n−1} = total`
    // no longer holds either): the OOD check of the first table catches it.
    let e = f.tamper("totals shifted", |b| {
        b.totals[0] += Ext3::ONE;
        b.totals[1] -= Ext3::ONE;
    });
    assert_err!(
        e,
        VerifyError::OodMismatch { table: 0 },
        "totals shifted by ±1"
    );
}

// ---------------------------------------------------------------------------------------
// Out-of-domain values.
// ---------------------------------------------------------------------------------------

/// Every OOD category the constraints read, in every table and every column: OodMismatch
/// for that table (ζ is drawn before the OOD values are absorbed, so it does not move).
#[test]
fn ood_value_changed_is_ood_mismatch() {
    let f = range_check();
    type Pick = fn(&mut kestrel_core::proof::TableOod) -> &mut Vec<Ext3>;
    let categories: [(&str, Pick); 5] = [
        ("pre", |o| &mut o.pre),
        ("main", |o| &mut o.main),
        ("aux", |o| &mut o.aux),
        ("aux_next", |o| &mut o.aux_next),
        ("quotient", |o| &mut o.quotient),
    ];
    for (name, pick) in categories {
        for t in 0..f.body.ood.len() {
            let len = pick(&mut f.body.ood[t].clone()).len();
            for c in 0..len {
                let e = f.tamper(name, |b| bump(&mut pick(&mut b.ood[t])[c]));
                assert_err!(
                    e,
                    VerifyError::OodMismatch { table } if table == t,
                    "OOD {name}[{c}] of table {t}"
                );
            }
        }
    }
    // Fibonacci's constraints read the next row of both columns.
    let f = fibonacci();
    for c in 0..2 {
        let e = f.tamper("main_next", |b| bump(&mut b.ood[0].main_next[c]));
        assert_err!(
            e,
            VerifyError::OodMismatch { table: 0 },
            "fibonacci OOD main_next[{c}]"
        );
        let e = f.tamper("main", |b| bump(&mut b.ood[0].main[c]));
        assert_err!(
            e,
            VerifyError::OodMismatch { table: 0 },
            "fibonacci OOD main[{c}]"
        );
    }
}

/// Neither range-check table reads its main or preprocessed columns at the next row, so a
/// changed `main_next` / `pre_next` passes the OOD check; it is bound by DEEP, but since
/// it is absorbed before the queries are drawn, the re-derived query indices fail first.
#[test]
fn ood_value_not_read_by_constraints_is_caught_by_openings() {
    let f = range_check();
    for t in 0..f.body.ood.len() {
        for c in 0..f.body.ood[t].main_next.len() {
            let e = f.tamper("main_next", |b| bump(&mut b.ood[t].main_next[c]));
            assert!(
                is_first_query_rederived(&e),
                "OOD main_next[{c}] of table {t}: got {e:?}"
            );
        }
    }
    let e = f.tamper("pre_next", |b| bump(&mut b.ood[BYTE_RANGE].pre_next[0]));
    assert!(is_first_query_rederived(&e), "OOD pre_next: got {e:?}");
}

// ---------------------------------------------------------------------------------------
// FRI.
// ---------------------------------------------------------------------------------------

/// Every FRI layer cap is absorbed before the query indices are drawn (see the module
/// comment): the moved first query fails at its first round path.
#[test]
fn fri_layer_cap_changed() {
    let f = range_check();
    let layers = f.body.fri_caps.len();
    assert_eq!(layers, f.fri_shape().num_layers as usize);
    for l in 0..layers {
        for i in 0..f.body.fri_caps[l].len() {
            let e = f.tamper("FRI cap", |b| flip(&mut b.fri_caps[l][i]));
            assert!(
                is_first_query_rederived(&e),
                "FRI cap node {i} of layer {l}: expected MerklePath {{ query: 0, .. }}, got {e:?}"
            );
        }
    }
}

#[test]
fn fri_layer_added_or_removed_is_length() {
    let f = range_check();
    let n = f.body.fri_caps.len();
    let e = f.tamper("FRI layer added", |b| {
        b.fri_caps.push(b.fri_caps[n - 1].clone());
        for q in &mut b.queries {
            let last = q.fri[n - 1].clone();
            q.fri.push(FriStep {
                siblings: last.siblings,
                path: last.path.iter().skip(1).copied().collect(),
            });
        }
    });
    assert_err!(
        e,
        VerifyError::Length { what: "FRI layers", expected, got } if expected == n && got == n + 1,
        "FRI layer added"
    );
    let e = f.tamper("FRI layer removed", |b| {
        b.fri_caps.pop();
        for q in &mut b.queries {
            q.fri.pop();
        }
    });
    assert_err!(
        e,
        VerifyError::Length { what: "FRI layers", expected, got } if expected == n && got == n - 1,
        "FRI layer removed"
    );
    // Only the queries' steps (caps intact).
    let e = f.tamper("FRI step removed", |b| {
        b.queries[3].fri.pop();
    });
    assert_err!(
        e,
        VerifyError::Length { what: "FRI steps", expected, got } if expected == n && got == n - 1,
        "FRI step removed from one query"
    );
}

/// The final polynomial is absorbed before grinding and the queries: a changed coefficient
/// moves the query indices.
#[test]
fn final_poly_coefficient_changed() {
    let f = range_check();
    for i in 0..f.body.final_poly.len() {
        let e = f.tamper("final poly", |b| bump(&mut b.final_poly[i]));
        assert!(
            is_first_query_rederived(&e),
            "final polynomial coefficient {i}: got {e:?}"
        );
    }
}

#[test]
fn final_poly_length_changed_is_length() {
    let f = range_check();
    let n = f.body.final_poly.len();
    assert_eq!(n, 1 << f.fri_shape().log_final_len);
    let e = f.tamper("final poly longer", |b| b.final_poly.push(Ext3::ZERO));
    assert_err!(
        e,
        VerifyError::Length { what: "final polynomial", expected, got } if expected == n && got == n + 1,
        "final polynomial with a zero coefficient appended"
    );
    let e = f.tamper("final poly shorter", |b| {
        b.final_poly.pop();
    });
    assert_err!(
        e,
        VerifyError::Length { what: "final polynomial", expected, got } if expected == n && got == n - 1,
        "final polynomial with its last coefficient removed"
    );
}

// ---------------------------------------------------------------------------------------
// Grinding.
// ---------------------------------------------------------------------------------------

#[test]
fn grinding_nonce_changed_is_pow_invalid() {
    let f = range_check_preset();
    assert_eq!(f.body.params.pow_bits, 20);
    for delta in [1u64, 2, 1 << 20] {
        let e = f.tamper("nonce", |b| b.pow_nonce = b.pow_nonce.wrapping_add(delta));
        assert_err!(e, VerifyError::PowInvalid, "nonce + {delta}");
    }
    // The prover takes the smallest valid nonce, so every smaller one fails; check a few.
    let nonce = f.body.pow_nonce;
    for n in nonce.saturating_sub(3)..nonce {
        let e = f.tamper("nonce", |b| b.pow_nonce = n);
        assert_err!(
            e,
            VerifyError::PowInvalid,
            "nonce {n} below the prover's {nonce}"
        );
    }
    // Without grinding every nonce passes the PoW check, but it is absorbed before the
    // queries are drawn.
    let f = range_check();
    let e = f.tamper("nonce", |b| b.pow_nonce ^= 1);
    assert!(
        is_first_query_rederived(&e),
        "nonce of the pow-0 proof: got {e:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Query openings.
// ---------------------------------------------------------------------------------------

/// Every (table, round) of query 0 and the last query: one opened value changed; the
/// round's path no longer reaches its cap.
#[test]
fn query_opening_value_changed_is_merkle_path() {
    let f = range_check();
    let last = f.body.queries.len() - 1;
    for (t, rounds) in [
        (SENDER, &SENDER_ROUNDS[..]),
        (BYTE_RANGE, &BYTE_RANGE_ROUNDS[..]),
    ] {
        for (k, &round) in rounds.iter().enumerate() {
            for qi in [0, last] {
                for col in [0, f.body.queries[qi].tables[t][k].len() - 1] {
                    let e = f.tamper("opening value", |b| {
                        b.queries[qi].tables[t][k][col] += Felt::ONE;
                    });
                    assert_err!(
                        e,
                        VerifyError::MerklePath { query, round: r }
                            if query == qi && r == round,
                        "query {qi} table {t} {round:?} value {col}"
                    );
                }
            }
        }
    }
}

/// Every round's path of query 0 and the last query: a node changed at the leaf level,
/// at the byte table's injection level (levels below it hold only the sender's rows), in
/// the middle and just below the cap.
#[test]
fn query_path_sibling_changed_is_merkle_path() {
    let f = range_check();
    let last = f.body.queries.len() - 1;
    let lb = f.body.params.log_blowup as usize;
    for (i, &round) in RC_ROUNDS.iter().enumerate() {
        for qi in [0, last] {
            let depth = f.body.queries[qi].paths[i].len();
            let injected = depth.saturating_sub(8 + lb + 1);
            let mut levels = vec![0, injected, depth / 2, depth - 1];
            levels.dedup();
            for level in levels {
                let e = f.tamper("path sibling", |b| {
                    flip(&mut b.queries[qi].paths[i][level]);
                });
                assert_err!(
                    e,
                    VerifyError::MerklePath { query, round: r } if query == qi && r == round,
                    "query {qi} {round:?} path level {level}"
                );
            }
        }
    }
}

/// Openings moved where the tree's layout binds them: two tables' rows of one round
/// swapped (where the widths agree), one table's row of one round taken from another query,
/// two rounds' paths swapped, two queries' paths of one round swapped.
#[test]
fn query_openings_moved_are_merkle_path() {
    let f = range_check();
    let q0 = &f.body.queries[0];
    let k_of = |t: usize, round: Round| {
        let rounds: &[Round] = if t == SENDER {
            &SENDER_ROUNDS
        } else {
            &BYTE_RANGE_ROUNDS
        };
        rounds.iter().position(|&r| r == round)
    };
    let mut swapped = 0;
    for round in RC_ROUNDS {
        let (Some(ks), Some(kb)) = (k_of(SENDER, round), k_of(BYTE_RANGE, round)) else {
            continue;
        };
        let (a, b) = (&q0.tables[SENDER][ks], &q0.tables[BYTE_RANGE][kb]);
        if a == b {
            continue;
        }
        swapped += 1;
        let same_width = a.len() == b.len();
        let e = f.tamper("rows of two tables swapped", |b| {
            let q = &mut b.queries[0];
            let row = std::mem::take(&mut q.tables[SENDER][ks]);
            q.tables[SENDER][ks] = std::mem::replace(&mut q.tables[BYTE_RANGE][kb], row);
        });
        // Rows of another width are a shape error; rows of the same width would move
        // DEEP's sum too, but the paths are checked first.
        if same_width {
            assert_err!(
                e,
                VerifyError::MerklePath { query: 0, round: r } if r == round,
                "query 0: the two tables' {round:?} rows swapped"
            );
        } else {
            assert_err!(
                e,
                VerifyError::Length {
                    what: "opened row",
                    ..
                },
                "query 0: the two tables' {round:?} rows (of other widths) swapped"
            );
        }
    }
    assert_eq!(swapped, 3, "main, aux and quotient rows of both tables");
    for (t, rounds) in [
        (SENDER, &SENDER_ROUNDS[..]),
        (BYTE_RANGE, &BYTE_RANGE_ROUNDS[..]),
    ] {
        for (k, &round) in rounds.iter().enumerate() {
            let e = f.tamper("row from another query", |b| {
                b.queries[0].tables[t][k] = b.queries[1].tables[t][k].clone();
            });
            assert_err!(
                e,
                VerifyError::MerklePath { query: 0, round: r } if r == round,
                "query 0 table {t}: the {round:?} row of query 1"
            );
        }
    }
    // The aux and quotient trees have the same depth (the sender's LDE).
    let (ia, iq) = (Round::Aux as usize, Round::Quotient as usize);
    assert_eq!(q0.paths[ia].len(), q0.paths[iq].len());
    let e = f.tamper("two rounds' paths swapped", |b| {
        b.queries[0].paths.swap(ia, iq)
    });
    assert_err!(
        e,
        VerifyError::MerklePath {
            query: 0,
            round: Round::Aux
        },
        "query 0: aux and quotient paths swapped"
    );
    let q1 = &f.body.queries[1];
    for (i, &round) in RC_ROUNDS.iter().enumerate() {
        let e = f.tamper("two queries' paths swapped", |b| {
            let p = std::mem::take(&mut b.queries[0].paths[i]);
            b.queries[0].paths[i] = std::mem::replace(&mut b.queries[1].paths[i], p);
        });
        // Query 1's path is shorter where it meets query 0's: then the swap is a shape
        // error at query 0, else a wrong path.
        let (n0, n1) = (q0.paths[i].len(), q1.paths[i].len());
        if n0 == n1 {
            assert_err!(
                e,
                VerifyError::MerklePath { query: 0, round: r } if r == round,
                "queries 0 and 1: {round:?} paths swapped"
            );
        } else {
            assert_err!(
                e,
                VerifyError::Length { what: "Merkle path", expected, got } if expected == n0 && got == n1,
                "queries 0 and 1: {round:?} paths (of {n0} and {n1} siblings) swapped"
            );
        }
    }
}

#[test]
fn fri_sibling_changed_is_fri_merkle_path() {
    let f = range_check();
    for l in 0..f.body.fri_caps.len() {
        for qi in [0, 5] {
            let n = f.body.queries[qi].fri[l].siblings.len();
            for k in [0, n - 1] {
                let e = f.tamper("FRI sibling", |b| {
                    bump(&mut b.queries[qi].fri[l].siblings[k])
                });
                assert_err!(
                    e,
                    VerifyError::FriMerklePath { query, layer } if query == qi && layer == l,
                    "query {qi} FRI layer {l} sibling {k}"
                );
            }
        }
    }
}

#[test]
fn fri_path_node_changed_is_fri_merkle_path() {
    let f = range_check();
    for l in 0..f.body.fri_caps.len() {
        let depth = f.body.queries[0].fri[l].path.len();
        for level in [0, depth - 1] {
            let e = f.tamper("FRI path", |b| {
                flip(&mut b.queries[0].fri[l].path[level]);
            });
            assert_err!(
                e,
                VerifyError::FriMerklePath { query: 0, layer } if layer == l,
                "query 0 FRI layer {l} path level {level}"
            );
        }
    }
}

#[test]
fn query_count_changed_is_length() {
    let f = range_check();
    let n = f.body.queries.len();
    assert_eq!(n, f.body.params.num_queries as usize);
    let e = f.tamper("query removed", |b| {
        b.queries.pop();
    });
    assert_err!(
        e,
        VerifyError::Length { what: "queries", expected, got } if expected == n && got == n - 1,
        "one query removed"
    );
    let e = f.tamper("query added", |b| b.queries.push(b.queries[0].clone()));
    assert_err!(
        e,
        VerifyError::Length { what: "queries", expected, got } if expected == n && got == n + 1,
        "one query duplicated"
    );
}

/// Openings of the wrong width or depth are shape errors, found before any hashing.
#[test]
fn query_opening_shape_changed_is_length() {
    let f = range_check();
    let e = f.tamper("row longer", |b| {
        b.queries[2].tables[BYTE_RANGE][1].push(Felt::ZERO)
    });
    assert_err!(
        e,
        VerifyError::Length {
            what: "opened row",
            ..
        },
        "opened row with an extra value"
    );
    for (i, round) in RC_ROUNDS.iter().enumerate() {
        let e = f.tamper("path shorter", |b| {
            b.queries[2].paths[i].pop();
        });
        assert_err!(
            e,
            VerifyError::Length {
                what: "Merkle path",
                ..
            },
            "{round:?} path one node short"
        );
        let e = f.tamper("path longer", |b| {
            b.queries[2].paths[i].push(Digest::default());
        });
        assert_err!(
            e,
            VerifyError::Length {
                what: "Merkle path",
                ..
            },
            "{round:?} path one node long"
        );
    }
    let e = f.tamper("path missing", |b| {
        b.queries[2].paths.pop();
    });
    assert_err!(
        e,
        VerifyError::Length {
            what: "query paths",
            expected: 4,
            got: 3
        },
        "query without its quotient path"
    );
    let e = f.tamper("FRI path shorter", |b| {
        b.queries[0].fri[1].path.pop();
    });
    assert_err!(
        e,
        VerifyError::Length {
            what: "FRI path",
            ..
        },
        "FRI path one node short"
    );
    let e = f.tamper("round missing", |b| {
        b.queries[2].tables[BYTE_RANGE].remove(0);
    });
    assert_err!(
        e,
        VerifyError::Length {
            what: "table openings",
            ..
        },
        "byte-range opening without its preprocessed round"
    );
}

// ---------------------------------------------------------------------------------------
// Shared paths (format 7): a query's path stops where it meets the previous query's.
// ---------------------------------------------------------------------------------------

/// A table row the previous query opened too is not sent again: its digests and DEEP value
/// are that query's. Sending it anyway (with the right values) or leaving out a row that is
/// new are length errors, and the one copy sent is bound where it is sent: changed, it fails
/// that query's main path (the row is below where that path meets the one before it).
#[test]
fn repeated_rows_are_sent_once() {
    let f = range_check();
    let qs = &f.body.queries;
    let k = (1..qs.len())
        .find(|&k| qs[k].tables[BYTE_RANGE].is_empty())
        .expect("a query opening the byte table's row of the query before it");
    let j = (0..k)
        .rev()
        .find(|&j| !qs[j].tables[BYTE_RANGE].is_empty())
        .expect("the query that sent it");
    let e = f.tamper("repeated row sent", |b| {
        b.queries[k].tables[BYTE_RANGE] = b.queries[j].tables[BYTE_RANGE].clone();
    });
    assert_err!(
        e,
        VerifyError::Length {
            what: "table openings",
            expected: 0,
            ..
        },
        "query {k}: the byte table's row of query {j} sent again"
    );
    let e = f.tamper("sent row changed", |b| {
        b.queries[j].tables[BYTE_RANGE][1][0] += Felt::ONE;
    });
    assert_err!(
        e,
        VerifyError::MerklePath { query, round: Round::Main } if query == j,
        "query {j}: the byte table's main row, which query {k} reuses, changed"
    );
    let m = (1..qs.len())
        .find(|&m| !qs[m].tables[BYTE_RANGE].is_empty())
        .expect("a later query with a new byte-table row");
    let e = f.tamper("new row left out", |b| {
        b.queries[m].tables[BYTE_RANGE].clear()
    });
    assert_err!(
        e,
        VerifyError::Length {
            what: "table openings",
            got: 0,
            ..
        },
        "query {m}: its new byte-table row left out"
    );
}

/// A path that stops below the cap ends at the previous query's sibling: a changed sibling
/// below the meeting, or a changed value of a FRI coset whose path carries no sibling at
/// all, is caught at that query.
#[test]
fn shared_path_end_is_checked() {
    let f = range_check();
    let depth = f.body.queries[0].paths[1].len();
    let k = (1..f.body.queries.len())
        .find(|&k| (1..depth).contains(&f.body.queries[k].paths[1].len()))
        .expect("a query with a partial main path");
    let len = f.body.queries[k].paths[1].len();
    let e = f.tamper("shared path sibling", |b| {
        flip(&mut b.queries[k].paths[1][len - 1])
    });
    assert_err!(
        e,
        VerifyError::MerklePath { query, round: Round::Main } if query == k,
        "query {k}: last sibling of a shared main path"
    );
    let k = (1..f.body.queries.len())
        .find(|&k| f.body.queries[k].fri[0].path.is_empty())
        .expect("a query whose first FRI path is the previous query's");
    assert!(!f.body.queries[0].fri[0].path.is_empty());
    let e = f.tamper("shared FRI coset", |b| {
        bump(&mut b.queries[k].fri[0].siblings[0])
    });
    assert_err!(
        e,
        VerifyError::FriMerklePath { query, layer: 0 } if query == k,
        "query {k}: a value of a FRI coset whose path is the previous query's"
    );
}

/// The queries come in increasing order of position: the same openings in another order
/// are rejected.
#[test]
fn queries_out_of_order_are_rejected() {
    let f = range_check();
    let e = f.tamper("queries swapped", |b| b.queries.swap(0, 1));
    assert!(
        matches!(
            e,
            VerifyError::Length { .. } | VerifyError::MerklePath { query: 0 | 1, .. }
        ),
        "swapped queries: got {e:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Bytes: header, truncation, trailing data, non-canonical elements.
// ---------------------------------------------------------------------------------------

#[test]
fn truncated_proof_is_truncated() {
    let f = range_check();
    let len = f.bytes.len();
    for cut in 0..HEADER_LEN {
        let e = f.reject_bytes(&f.bytes[..cut], "truncated");
        assert_err!(
            e,
            VerifyError::Truncated,
            "cut at {cut} (inside the header)"
        );
    }
    for cut in [
        HEADER_LEN,
        HEADER_LEN + 1,
        HEADER_LEN + 5,
        100,
        len / 2,
        len - 1,
    ] {
        let e = f.reject_bytes(&f.bytes[..cut], "truncated");
        assert_err!(e, VerifyError::Truncated, "cut at {cut} of {len}");
    }
}

#[test]
fn trailing_bytes_are_rejected() {
    let f = range_check();
    for extra in [&[0u8][..], &[0xAB, 0xCD, 0xEF]] {
        let mut bytes = f.bytes.clone();
        bytes.extend_from_slice(extra);
        let e = f.reject_bytes(&bytes, "trailing");
        assert_err!(
            e,
            VerifyError::TrailingBytes { count } if count == extra.len(),
            "{} trailing bytes",
            extra.len()
        );
    }
}

#[test]
fn bad_magic_is_rejected() {
    let f = range_check();
    for i in 0..4 {
        let mut bytes = f.bytes.clone();
        bytes[i] ^= 0x20;
        let e = f.reject_bytes(&bytes, "magic");
        assert_err!(e, VerifyError::BadMagic, "magic byte {i} changed");
    }
}

#[test]
fn other_version_is_rejected() {
    let f = range_check();
    for v in [
        0u16,
        FORMAT_VERSION - 1,
        SEGMENTED_FORMAT_VERSION + 1,
        u16::MAX,
    ] {
        let mut bytes = f.bytes.clone();
        bytes[4..6].copy_from_slice(&v.to_le_bytes());
        let e = f.reject_bytes(&bytes, "version");
        assert_err!(
            e,
            VerifyError::UnsupportedVersion { got } if got == v,
            "version {v}"
        );
    }
    // A whole proof relabelled as a segmented run, for a machine that has no segments.
    let mut bytes = f.bytes.clone();
    bytes[4..6].copy_from_slice(&SEGMENTED_FORMAT_VERSION.to_le_bytes());
    let e = f.reject_bytes(&bytes, "version");
    assert_err!(e, VerifyError::NotSegmentable, "version 4");
}

/// A field element is located by planting a distinctive canonical value, then overwritten
/// in place with non-canonical words: `P` (the smallest) and `2^64 − 1` (the largest).
#[test]
fn non_canonical_field_element_is_decode() {
    let f = range_check();
    const SENTINEL: u64 = 0x0123_4567_89AB_CDEF;
    type Plant = fn(&mut ProofBody, Felt);
    let plants: [(&str, Plant); 3] = [
        ("final_poly[0]", |b, v| b.final_poly[0].0[0] = v),
        ("totals[1]", |b, v| b.totals[1].0[2] = v),
        ("opening value", |b, v| {
            b.queries[1].tables[SENDER][0][0] = v
        }),
    ];
    for (name, plant) in plants {
        let mut body = f.body.clone();
        plant(&mut body, Felt::new(SENTINEL));
        let mut bytes = body.to_bytes();
        let at: Vec<usize> = bytes
            .windows(8)
            .enumerate()
            .filter(|(_, w)| *w == SENTINEL.to_le_bytes())
            .map(|(i, _)| i)
            .collect();
        assert_eq!(at.len(), 1, "{name}: sentinel found at {at:?}");
        let at = at[0];
        assert!(
            decode_proof(&bytes).is_some(),
            "{name}: planted body decodes"
        );
        // P − 1 is the largest canonical value: still parses.
        bytes[at..at + 8].copy_from_slice(&(P - 1).to_le_bytes());
        assert!(decode_proof(&bytes).is_some(), "{name}: P − 1 decodes");
        for bad in [P, P + 1, u64::MAX] {
            bytes[at..at + 8].copy_from_slice(&bad.to_le_bytes());
            let e = f.reject_bytes(&bytes, name);
            assert_err!(e, VerifyError::Decode, "{name} = {bad:#x}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Statement: public values, AIR shape, parameters, verifying key.
// ---------------------------------------------------------------------------------------

#[test]
fn wrong_public_value() {
    // The public byte is sent on the bus by the verifier: a different byte does not cancel
    // the receive the trace made for the proved one.
    let f = range_check();
    for p in [PUBLIC_BYTE as u32 + 1, 0, 255, 1 << 20] {
        let e = verify(f.machine, &f.vk, &[Felt::from(p)], &f.bytes).unwrap_err();
        assert_err!(e, VerifyError::LogUpSum, "range-check public value {p}");
    }
    // Fibonacci's public values enter only its boundary constraints.
    let f = fibonacci();
    for i in 0..3 {
        let mut public = f.public.clone();
        public[i] += Felt::ONE;
        let e = verify(f.machine, &f.vk, &public, &f.bytes).unwrap_err();
        assert_err!(
            e,
            VerifyError::OodMismatch { table: 0 },
            "fibonacci public value {i} changed"
        );
    }
    let e = verify(f.machine, &f.vk, &f.public[..2], &f.bytes).unwrap_err();
    assert_err!(
        e,
        VerifyError::PublicCount {
            expected: 3,
            got: 2
        },
        "fibonacci with two public values"
    );
}

/// Fibonacci with three columns `(a, b, c = a + b)` under the Fibonacci machine's name and
/// public count: its verifying key for the same parameters is the same digest, so only the
/// shape check tells the proofs apart.
struct WideFibAir;

impl Air for WideFibAir {
    fn name(&self) -> &str {
        "FIB3"
    }
    fn width(&self) -> usize {
        3
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let (a, x, c) = (b.main(0), b.main(1), b.main(2));
        b.assert_first("a starts at pub0", a.clone() - b.public(0));
        b.assert_first("b starts at pub1", x.clone() - b.public(1));
        b.assert_zero("c = a + b", c.clone() - (a + x.clone()));
        b.assert_transition("a' = b", b.main_next(0) - x);
        b.assert_transition("b' = c", b.main_next(1) - c.clone());
        b.assert_last("result is pub2", c - b.public(2));
    }
}

struct WideFibMachine;

impl Machine for WideFibMachine {
    fn name(&self) -> &str {
        "fibonacci"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&WideFibAir]
    }
    fn num_public_values(&self) -> usize {
        3
    }
}

/// An AIR that reads a column past its width: the verifier's shape pass rejects the AIR.
struct OutOfRangeAir;

impl Air for OutOfRangeAir {
    fn name(&self) -> &str {
        "BROKEN"
    }
    fn width(&self) -> usize {
        2
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        FibonacciAir.eval(b);
        let e = b.main(2);
        b.assert_zero("reads column 2 of 2", e);
    }
}

struct OutOfRangeMachine;

impl Machine for OutOfRangeMachine {
    fn name(&self) -> &str {
        "fibonacci"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![&OutOfRangeAir]
    }
    fn num_public_values(&self) -> usize {
        3
    }
}

#[test]
fn different_air_shape() {
    let fib = fibonacci();
    let rc = range_check();
    // The range-check machine has two tables, the Fibonacci machine one: the first record
    // after the parameters tells them apart.
    let e = verify(&RangeCheckMachine, &rc.vk, &rc.public, &fib.bytes).unwrap_err();
    assert_err!(
        e,
        VerifyError::Length {
            what: "table heights",
            expected: 2,
            got: 1
        },
        "fibonacci proof against the range-check machine"
    );
    let e = verify(&FibonacciMachine, &fib.vk, &fib.public, &rc.bytes).unwrap_err();
    assert_err!(
        e,
        VerifyError::Length {
            what: "table heights",
            expected: 1,
            got: 2
        },
        "range-check proof against the fibonacci machine"
    );
    // Same name, same public count, same table count, one more column. The verifying key
    // binds the AIR's shape, so the Fibonacci key rejects it; under the wide AIR's own key
    // the proof's shape does not fit the AIR.
    let wide_vk = setup(&CpuBackend, &WideFibMachine, fib.body.params)
        .expect("setup")
        .vk;
    let e = verify(&WideFibMachine, &fib.vk, &fib.public, &fib.bytes).unwrap_err();
    assert_err!(
        e,
        VerifyError::VkMismatch,
        "three-column AIR, the Fibonacci key"
    );
    let e = verify(&WideFibMachine, &wide_vk, &fib.public, &fib.bytes).unwrap_err();
    assert_err!(
        e,
        VerifyError::Length {
            what: "OOD main",
            expected: 3,
            got: 2
        },
        "fibonacci proof against a three-column AIR named fibonacci"
    );
    // A malformed AIR is reported as such.
    let e = verify(&OutOfRangeMachine, &fib.vk, &fib.public, &fib.bytes).unwrap_err();
    assert_err!(e, VerifyError::Air(_), "AIR reading past its width");
}

#[test]
fn parameters_below_floor_or_out_of_range() {
    let f = range_check();
    for q in [1u16, 8, 20] {
        let e = f.tamper("few queries", |b| b.params.num_queries = q);
        assert_err!(
            e,
            VerifyError::BelowSecurityFloor { floor, .. } if floor == SECURITY_FLOOR_BITS,
            "num_queries {q}"
        );
    }
    type Set = fn(&mut StarkParams);
    let bad: [(&str, Set); 6] = [
        ("log_blowup 0", |p| p.log_blowup = 0),
        ("log_blowup 5", |p| p.log_blowup = 5),
        ("num_queries 0", |p| p.num_queries = 0),
        ("num_queries 513", |p| p.num_queries = 513),
        ("pow_bits 33", |p| p.pow_bits = 33),
        ("log_final_poly_len 7", |p| p.log_final_poly_len = 7),
    ];
    for (name, set) in bad {
        let e = f.tamper(name, |b| set(&mut b.params));
        assert_err!(e, VerifyError::BadParams, "{name}");
    }
    // Well-formed, above the floor, but not the proof's shape: the verifying key binds
    // the parameters and is checked before the queries are read.
    let n = f.body.params.num_queries;
    let e = f.tamper("one more query", |b| b.params.num_queries = n + 1);
    assert_err!(e, VerifyError::VkMismatch, "num_queries {}", n + 1);
    // Well-formed, same shape, different parameters: the verifying key binds them.
    let e = f.tamper("grinding", |b| b.params.pow_bits = 1);
    assert_err!(e, VerifyError::VkMismatch, "pow_bits 1");
}

#[test]
fn table_log_height_out_of_range() {
    let f = range_check();
    for t in 0..2 {
        for h in [0u8, 29, 40, 255] {
            let e = f.tamper("log height", |b| b.log_heights[t] = h);
            assert_err!(
                e,
                VerifyError::LogHeight { table, got } if table == t && got == h,
                "table {t} log height {h}"
            );
        }
    }
    // In range but not what was proved: the verifying key binds the preprocessed
    // table's height; another height of the sender moves every challenge.
    let e = f.tamper("log height", |b| b.log_heights[BYTE_RANGE] = 9);
    assert_err!(e, VerifyError::VkMismatch, "byte table log height 9");
    let e = f.tamper("log height", |b| b.log_heights[SENDER] = 9);
    assert_err!(
        e,
        VerifyError::LogUpSum | VerifyError::OodMismatch { .. },
        "sender log height 9"
    );
    // A table count that differs from the machine's.
    let e = f.tamper("heights", |b| b.log_heights.push(8));
    assert_err!(
        e,
        VerifyError::Length {
            what: "table heights",
            expected: 2,
            got: 3
        },
        "three heights"
    );
}

#[test]
fn other_verifying_key_is_vk_mismatch() {
    let f = range_check();
    for params in StarkParams::PRESETS {
        let vk = setup(&CpuBackend, &RangeCheckMachine, params)
            .expect("setup")
            .vk;
        let e = verify(f.machine, &vk, &f.public, &f.bytes).unwrap_err();
        assert_err!(
            e,
            VerifyError::VkMismatch,
            "pow-0 proof with the {params:?} key"
        );
    }
    // The preset proof with another preset's key.
    let p = range_check_preset();
    let vk = setup(&CpuBackend, &RangeCheckMachine, StarkParams::BLOWUP_4)
        .expect("setup")
        .vk;
    let e = verify(p.machine, &vk, &p.public, &p.bytes).unwrap_err();
    assert_err!(
        e,
        VerifyError::VkMismatch,
        "blowup-8 proof with the blowup-4 key"
    );
    // Another statement's key with the right parameters.
    let e = verify(f.machine, &fibonacci().vk, &f.public, &f.bytes).unwrap_err();
    assert_err!(
        e,
        VerifyError::VkMismatch,
        "range-check proof with the fibonacci key"
    );
}

// ---------------------------------------------------------------------------------------
// Random bit flips.
// ---------------------------------------------------------------------------------------

/// 200 random single-bit flips anywhere in the encoding: always `Err`, never a panic.
#[test]
fn random_bit_flips_are_rejected() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x006b_6573_7472_656c);
    for (name, f) in [("pow-0", range_check()), ("preset", range_check_preset())] {
        for i in 0..200 {
            let pos = rng.gen_range(0..f.bytes.len());
            let bit = rng.gen_range(0..8);
            let mut bytes = f.bytes.clone();
            bytes[pos] ^= 1 << bit;
            let r = catch_unwind(AssertUnwindSafe(|| {
                verify(f.machine, &f.vk, &f.public, &bytes)
            }));
            match r {
                Ok(Err(_)) => {}
                Ok(Ok(())) => panic!("{name} flip {i}: byte {pos} bit {bit} accepted"),
                Err(_) => panic!("{name} flip {i}: byte {pos} bit {bit} panicked the verifier"),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cheating provers: errors no single mutation of an honest proof reaches.
// ---------------------------------------------------------------------------------------

/// What a cheating prover does differently from the CPU backend it wraps. Its proofs are
/// consistent with their own transcript, so the checks after the OOD round are reached.
#[derive(Copy, Clone, Debug)]
enum Cheat {
    /// Nothing: the wrapper must reproduce the CPU backend's proof byte for byte.
    Honest,
    /// Adds one to the first quotient coefficient of the table with this log height.
    QuotientCoefficient { log_height: u32 },
    /// Adds a constant (a low-degree function, so FRI still closes) to the DEEP codeword
    /// of the tables with this LDE size: FRI's first layer no longer matches the DEEP
    /// values the verifier computes from the openings.
    DeepShift { log_lde: u32 },
    /// Replaces the last folded codeword (of this length) with zeros: the final polynomial
    /// is zero, and the last committed layer does not fold to it.
    ZeroFinalCodeword { len: usize },
}

struct Cheating(Cheat);

/// Every operation is the CPU backend's; the cheats change what three of them return.
impl Backend for Cheating {
    type Committed = <CpuBackend as Backend>::Committed;
    type RoundTree = <CpuBackend as Backend>::RoundTree;
    type Codeword = <CpuBackend as Backend>::Codeword;
    type FriLayer = <CpuBackend as Backend>::FriLayer;

    fn name(&self) -> &'static str {
        "cheating"
    }
    fn report(&self) -> serde_json::Value {
        CpuBackend.report()
    }
    fn ceilings(&self) -> Result<Ceilings, ProverError> {
        CpuBackend.ceilings()
    }
    fn plan_memory(&self, tables: &[TablePlan], log_blowup: u32) -> Result<(), ProverError> {
        CpuBackend.plan_memory(tables, log_blowup)
    }
    fn commit_trace(
        &self,
        trace: &RowMajorMatrix,
        log_blowup: u32,
    ) -> Result<Self::Committed, ProverError> {
        CpuBackend.commit_trace(trace, log_blowup)
    }
    fn commit_round(&self, m: &[&Self::Committed]) -> Result<Self::RoundTree, ProverError> {
        CpuBackend.commit_round(m)
    }
    fn round_cap(&self, t: &Self::RoundTree) -> Vec<Digest> {
        CpuBackend.round_cap(t)
    }
    fn commit_logup_aux(
        &self,
        table: &dyn TableAir,
        shape: &TableShape,
        main: (&Self::Committed, Option<&RowMajorMatrix>),
        preprocessed: Option<(&Self::Committed, &RowMajorMatrix)>,
        public: &[Felt],
        challenges: LogUpChallenges,
        log_blowup: u32,
    ) -> Result<AuxCommitted<Self::Committed>, ProverError> {
        CpuBackend.commit_logup_aux(
            table,
            shape,
            main,
            preprocessed,
            public,
            challenges,
            log_blowup,
        )
    }
    fn commit_quotient(
        &self,
        q: &QuotientInputs<'_, Self::Committed>,
    ) -> Result<QuotientCommitted<Self::Committed>, ProverError> {
        let mut coeffs = CpuBackend.quotient(q)?;
        if let Cheat::QuotientCoefficient { log_height } = self.0 {
            if q.log_height == log_height {
                coeffs.values[0] += Felt::ONE;
            }
        }
        Ok(QuotientCommitted {
            committed: CpuBackend.commit_coeffs(&coeffs, q.log_blowup)?,
            host: Some(coeffs),
        })
    }
    fn evaluate_committed(
        &self,
        c: &Self::Committed,
        trace: Option<&RowMajorMatrix>,
        points: &[Ext3],
    ) -> Result<Vec<Vec<Ext3>>, ProverError> {
        CpuBackend.evaluate_committed(c, trace, points)
    }
    fn evaluate_quotient(
        &self,
        q: &QuotientCommitted<Self::Committed>,
        point: Ext3,
    ) -> Result<Vec<Ext3>, ProverError> {
        CpuBackend.evaluate_quotient(q, point)
    }
    fn deep_codeword(
        &self,
        d: &DeepInputs<'_, Self::Committed>,
    ) -> Result<Self::Codeword, ProverError> {
        let mut cw = CpuBackend.deep(d)?;
        if let Cheat::DeepShift { log_lde } = self.0 {
            if d.log_lde == log_lde {
                for v in &mut cw {
                    *v += Ext3::ONE;
                }
            }
        }
        Ok(cw)
    }
    fn add_scaled(
        &self,
        acc: &mut Self::Codeword,
        scale: Ext3,
        other: &Self::Codeword,
    ) -> Result<(), ProverError> {
        CpuBackend.add_scaled(acc, scale, other)
    }
    fn codeword_len(&self, c: &Self::Codeword) -> usize {
        CpuBackend.codeword_len(c)
    }
    fn commit_codeword(
        &self,
        codeword: Self::Codeword,
        log_arity: u32,
    ) -> Result<Self::FriLayer, ProverError> {
        CpuBackend.commit_codeword(codeword, log_arity)
    }
    fn fri_cap(&self, layer: &Self::FriLayer) -> Vec<Digest> {
        CpuBackend.fri_cap(layer)
    }
    fn fold_layer(
        &self,
        layer: &Self::FriLayer,
        beta: Ext3,
        shift: Felt,
    ) -> Result<Self::Codeword, ProverError> {
        let mut folded = CpuBackend.fold_layer(layer, beta, shift)?;
        if let Cheat::ZeroFinalCodeword { len } = self.0 {
            if folded.len() == len {
                folded.fill(Ext3::ZERO);
            }
        }
        Ok(folded)
    }
    fn final_values(&self, codeword: Self::Codeword) -> Result<Vec<Ext3>, ProverError> {
        CpuBackend.final_values(codeword)
    }
    fn grind(&self, challenge: &[u8; 32], bits: u32) -> Result<u64, ProverError> {
        CpuBackend.grind(challenge, bits)
    }
    fn open_round(
        &self,
        t: &Self::RoundTree,
        m: &[&Self::Committed],
        i: &[usize],
    ) -> Result<Vec<RoundOpening>, ProverError> {
        CpuBackend.open_round(t, m, i)
    }
    fn open_fri_batch(
        &self,
        layer: &Self::FriLayer,
        positions: &[usize],
    ) -> Result<Vec<FriOpening>, ProverError> {
        CpuBackend.open_fri_batch(layer, positions)
    }
}

/// Proves the range-check fixture's statement with a cheating backend and verifies it
/// against the honest verifying key.
fn cheat(c: Cheat) -> Result<(), VerifyError> {
    let f = range_check();
    let backend = Cheating(c);
    let pk = setup(&backend, f.machine, f.body.params).expect("setup");
    assert_eq!(pk.vk, f.vk, "preprocessing is honest");
    let traces = range_check_traces(SENDER_LOG_N, 7, PUBLIC_BYTE);
    let (body, _) = prove(&backend, &pk, f.machine, &traces, &f.public)
        .unwrap_or_else(|e| panic!("{c:?}: the cheating prover failed: {e}"));
    if let Cheat::Honest = c {
        assert_eq!(body, f.body, "the honest wrapper reproduces the CPU proof");
    } else {
        assert_ne!(body, f.body, "{c:?} changed nothing");
    }
    verify(f.machine, &f.vk, &f.public, &body.to_bytes())
}

#[test]
fn cheating_prover_honest_wrapper_verifies() {
    cheat(Cheat::Honest).expect("the honest wrapper's proof verifies");
}

/// A committed quotient that is not the constraints' quotient: caught at ζ.
#[test]
fn cheating_prover_quotient_is_ood_mismatch() {
    let e = cheat(Cheat::QuotientCoefficient { log_height: 8 }).unwrap_err();
    assert_err!(
        e,
        VerifyError::OodMismatch { table: BYTE_RANGE },
        "byte table's quotient shifted"
    );
    let e = cheat(Cheat::QuotientCoefficient {
        log_height: SENDER_LOG_N,
    })
    .unwrap_err();
    assert_err!(
        e,
        VerifyError::OodMismatch { table: SENDER },
        "sender's quotient shifted"
    );
}

/// FRI run on a codeword other than the DEEP combination of the openings: the first
/// query's layer-0 leaf (the DEEP value and the sibling) is not in layer 0's tree.
#[test]
fn cheating_prover_deep_codeword_is_fri_merkle_path() {
    let lb = range_check().body.params.log_blowup as u32;
    let e = cheat(Cheat::DeepShift {
        log_lde: SENDER_LOG_N + lb,
    })
    .unwrap_err();
    assert_err!(
        e,
        VerifyError::FriMerklePath { query: 0, layer: 0 },
        "sender's DEEP codeword shifted"
    );
}

/// A final polynomial the last committed layer does not fold to.
#[test]
fn cheating_prover_final_poly_is_fri_final_poly() {
    let f = range_check();
    let fri = f.fri_shape();
    let len = 1usize << fri.log_len(fri.num_layers);
    let e = cheat(Cheat::ZeroFinalCodeword { len }).unwrap_err();
    assert_err!(
        e,
        VerifyError::FriFinalPoly { query: 0 },
        "final codeword replaced by zeros"
    );
}

// ---------------------------------------------------------------------------------------
// A rewinding source that changes its bytes.
// ---------------------------------------------------------------------------------------

/// A rewinding source over `bytes` that, once rewound, flips the lowest bit of the byte
/// `flip` bytes after where it was rewound to, or lands `skew` bytes after it.
struct Fickle<'a> {
    bytes: &'a [u8],
    pos: usize,
    seeks: usize,
    flip: Option<usize>,
    flip_at: Option<usize>,
    skew: usize,
}

impl<'a> Fickle<'a> {
    fn new(bytes: &'a [u8], flip: Option<usize>, skew: usize) -> Fickle<'a> {
        Fickle {
            bytes,
            pos: 0,
            seeks: 0,
            flip,
            flip_at: None,
            skew,
        }
    }
}

impl ProofSource for Fickle<'_> {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), SourceError> {
        let end = self.pos + buf.len();
        if end > self.bytes.len() {
            return Err(SourceError::End);
        }
        buf.copy_from_slice(&self.bytes[self.pos..end]);
        if let Some(at) = self.flip_at.filter(|at| (self.pos..end).contains(at)) {
            buf[at - self.pos] ^= 1;
        }
        self.pos = end;
        Ok(())
    }

    fn remaining(&self) -> Option<usize> {
        Some(self.bytes.len() - self.pos)
    }

    fn position(&self) -> Option<usize> {
        Some(self.pos)
    }

    fn seek(&mut self, pos: usize) -> Result<(), SourceError> {
        self.seeks += 1;
        self.flip_at = self.flip.map(|k| pos + k);
        self.pos = (pos + self.skew).min(self.bytes.len());
        Ok(())
    }
}

/// The out-of-domain record is read twice from a rewinding source (once), and a source
/// whose second read differs in any byte of the record (a count, a value) or that lands
/// elsewhere is rejected as a failed source, never accepted.
#[test]
fn a_source_that_changes_the_ood_record_between_reads_is_rejected() {
    for f in [fibonacci(), range_check()] {
        let mut honest = Fickle::new(&f.bytes, None, 0);
        assert_eq!(
            verify_stream(f.machine, &f.vk, &f.public, &mut honest),
            Ok(())
        );
        assert_eq!(honest.seeks, 1, "the OOD record is read twice");
        let ood_bytes: usize = f
            .body
            .ood
            .iter()
            .map(|o| {
                7 * 4
                    + 24 * (o.pre.len()
                        + o.pre_next.len()
                        + o.main.len()
                        + o.main_next.len()
                        + o.aux.len()
                        + o.aux_next.len()
                        + o.quotient.len())
            })
            .sum();
        for k in (0..ood_bytes).step_by(3).chain([ood_bytes - 1]) {
            let mut src = Fickle::new(&f.bytes, Some(k), 0);
            assert_eq!(
                verify_stream(f.machine, &f.vk, &f.public, &mut src),
                Err(VerifyError::Source),
                "byte {k} of {ood_bytes} of the OOD record changed on the second read"
            );
        }
        for skew in [1, 4, 24] {
            let mut src = Fickle::new(&f.bytes, None, skew);
            assert_eq!(
                verify_stream(f.machine, &f.vk, &f.public, &mut src),
                Err(VerifyError::Source),
                "rewound {skew} bytes too far"
            );
        }
    }
}
