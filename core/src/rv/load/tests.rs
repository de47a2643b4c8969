//! LOAD's unit tests: `load_value` against a byte-buffer reference; honest traces satisfy
//! every constraint and make exactly the expected bus traffic; every single-cell mutation
//! of a real row is detected; forged values (value, sign and low bits re-derived together)
//! and invalid funct3 cannot be proven.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;
use std::println;

use super::*;
use crate::field::Felt;
use crate::rv::bitwise::ByteCounts;
use crate::rv::testing::loadstore::*;
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::{load, LoadOp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn load_value_matches_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut n = 0;
    for op in load_ops(2, 14, 20_000) {
        // Junk in word1 of an unsplit access is ignored.
        let junk = LoadOp {
            word1: rng.gen(),
            ..op
        };
        for o in [op, junk] {
            let want = ref_load(o.funct3, o.addr, o.word0, o.word1);
            assert_eq!(load::load_value(&o), want, "{o:?}");
            assert_eq!(
                load::is_split(o.funct3, o.addr),
                ref_split(o.funct3, o.addr)
            );
            assert_eq!(load::width_of(o.funct3) as usize, ref_width(o.funct3));
            n += 1;
        }
    }
    // Hand-picked cases.
    let lb = |funct3, addr, word0, word1| {
        load::load_value(&LoadOp {
            ts: 1,
            funct3,
            addr,
            word0,
            word1,
        })
    };
    assert_eq!(lb(0, 3, 0x0000_0000_8000_0000, 0), 0xffff_ffff_ffff_ff80);
    assert_eq!(lb(4, 3, 0x0000_0000_8000_0000, 0), 0x80);
    assert_eq!(lb(1, 7, 0xff00_0000_0000_0000, 0x80), 0xffff_ffff_ffff_80ff);
    assert_eq!(lb(5, 7, 0xff00_0000_0000_0000, 0x80), 0x80ff);
    assert_eq!(lb(2, 6, 0x1234_0000_0000_0000, 0x7856), 0x7856_1234);
    assert_eq!(lb(6, 5, 0xaabb_cc00_0000_0000, 0xdd), 0xddaa_bbcc);
    assert_eq!(lb(2, 5, 0xaabb_cc00_0000_0000, 0xdd), 0xffff_ffff_ddaa_bbcc);
    assert_eq!(lb(3, 1, 0x1122_3344_5566_7788, 0x99), 0x9911_2233_4455_6677);
    // The replay's check of what the executor recorded: the same bytes, zero-extended.
    for op in load_ops(3, 2, 2_000) {
        let unsigned = ref_load(
            (op.funct3 % 4) | if op.funct3 % 4 == 3 { 0 } else { 4 },
            op.addr,
            op.word0,
            op.word1,
        );
        assert_eq!(
            load::accessed_bytes(op.funct3, op.addr, op.word0, op.word1),
            unsigned,
            "{op:?}"
        );
        n += 1;
    }
    println!("reference: {n} loads agree");
}

#[test]
fn load_honest_traces() {
    shape(&LoadAir);
    for ops in [load_ops(4, 0, 5), load_ops(5, 6, 700), Vec::new()] {
        let mut bytes = ByteCounts::default();
        let tr = load::build_trace(&ops, &mut bytes);
        assert_eq!(
            tr.height(),
            ops.len().next_power_of_two().max(crate::params::MIN_ROWS)
        );
        assert_eq!(tr.width, load::WIDTH);
        let l = ledger(&LoadAir, &tr);
        assert!(
            l.failures.is_empty(),
            "{:?}",
            &l.failures[..l.failures.len().min(8)]
        );
        assert_eq!(l.buses, expected_load_bus(&ops, &bytes));
        for r in ops.len()..tr.height() {
            assert!(tr.row(r).iter().all(|&v| v == Felt::ZERO));
        }
    }
}

#[test]
fn load_mutations_are_detected() {
    let ops = load_ops(8, 2, 190);
    let mut bytes = ByteCounts::default();
    let tr = load::build_trace(&ops, &mut bytes);
    let rows: Vec<usize> = (0..ops.len()).collect();
    assert_all_detected(&LoadAir, &tr, None, &[], &rows, 24);

    // Every cell of one row per funct3 × offset.
    let ops = load_ops(9, 1, 0);
    let tr = load::build_trace(&ops, &mut ByteCounts::default());
    let (d, t) = exhaustive_mutations(&LoadAir, &tr, ops.len());
    println!(
        "LOAD: exhaustive mutation detection {d}/{t} ({} rows)",
        ops.len()
    );
}

/// A load row forced to a wrong value, with the sign witness re-derived from the forged top
/// byte (everything else, memory included, honest): a constraint fails.
#[test]
fn wrong_load_values_are_rejected() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut n = 0;
    for op in load_ops(14, 3, 300) {
        let v = load::load_value(&op);
        let width = load::width_of(op.funct3) as usize;
        let mut wrongs = vec![
            v ^ 1,
            v ^ (1 << rng.gen_range(0..64)),
            v ^ (0x80 << (8 * (width - 1))),
            rng.gen(),
            // Neighbouring bytes.
            ref_load(op.funct3, op.addr ^ 1, op.word0, op.word1),
        ];
        if width < 8 {
            // The other extension (sign vs zero), a flipped extension bit.
            wrongs.push(ref_load(op.funct3 ^ 4, op.addr, op.word0, op.word1));
            wrongs.push(v ^ (1 << rng.gen_range(8 * width..64)));
        }
        for wrong in wrongs {
            if wrong == v {
                continue;
            }
            let mut tr = load::build_trace(&[op], &mut ByteCounts::default());
            let row = tr.row_mut(0);
            for (i, b) in wrong.to_le_bytes().into_iter().enumerate() {
                row[load::VALUE + i] = f(b as u64);
            }
            let top = wrong.to_le_bytes()[width - 1];
            row[load::SIGN] = f((top >> 7) as u64);
            row[load::LOW7] = f((top & 0x7f) as u64);
            let l = ledger(&LoadAir, &tr);
            assert!(!l.failures.is_empty(), "{op:?} accepted value {wrong:#x}");
            n += 1;
        }
    }
    println!("LOAD: {n} wrong values rejected by a constraint");
}

/// The funct3 on the bus is `sz₂ + 2·sz₄ + 3·sz₈ + 4·u`; with the selector-only constraints
/// (booleans, one-hot, `u` only below 8 bytes) no assignment reaches 7. Non-boolean values
/// fail the boolean constraints, so enumerating {0,1}^5 covers every case.
#[test]
fn invalid_load_funct3_is_unprovable() {
    let selector_only = [
        "load width selector boolean",
        "load is_real boolean",
        "load unsigned boolean",
        "load unsigned only for widths 1, 2, 4",
    ];
    for base in [3u8, 0, 6] {
        let op = LoadOp {
            ts: 9,
            funct3: base,
            addr: 0x1000 + 1,
            word0: 0x8081_8283_8485_8687,
            word1: 0x1122_3344_5566_7788,
        };
        let honest = load::build_trace(&[op], &mut ByteCounts::default());
        for mask in 0u32..32 {
            let mut tr = honest.clone();
            for i in 0..4 {
                tr.row_mut(0)[load::SZ + i] = Felt::from(mask >> i & 1);
            }
            tr.row_mut(0)[load::U] = Felt::from(mask >> 4 & 1);
            let funct3 = [0, 1, 2, 3]
                .iter()
                .map(|&i| (mask >> i & 1) * [0, 1, 2, 3][i])
                .sum::<u32>()
                + 4 * (mask >> 4 & 1);
            let real = (mask & 15).count_ones();
            let l = ledger(&LoadAir, &tr);
            let selector_fails = l.failures.iter().any(|(_, c)| selector_only.contains(c));
            // Only a single width (funct3 0..=6) or the padding selectors (multiplicity 0)
            // pass; funct3 7 (LDU: sz₈ with u), several widths, or u without a width fail.
            let ok = (real == 1 && funct3 <= 6) || mask == 0;
            assert_eq!(selector_fails, !ok, "mask {mask:05b} funct3 {funct3}");
        }
    }
    // The builder writes funct3 7 as u = sz₈ = 1: a named failure, no panic.
    let op = LoadOp {
        ts: 3,
        funct3: 7,
        addr: 0x2000,
        word0: 5,
        word1: 0,
    };
    let tr = load::build_trace(&[op], &mut ByteCounts::default());
    let l = ledger(&LoadAir, &tr);
    assert!(l
        .failures
        .contains(&(0, "load unsigned only for widths 1, 2, 4")));
}
