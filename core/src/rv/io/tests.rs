//! IO's unit tests (`rv::testing::syscall`'s reference model and chain machine): its shape;
//! honest rows satisfy its constraints, make only the byte lookups its builder counts and
//! publish exactly the output written; every single-cell mutation of a real row is detected;
//! in the chain machine honest chains balance (in any row order) while forged output, broken
//! chains and skipped or forged brk-shrink zeroing do not.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;
use std::println;

use crate::air::debug::table_ledger;
use crate::air::{Air, TableShape};
use crate::field::Felt;
use crate::rv::bitwise::ByteCounts;
use crate::rv::ecall;
use crate::rv::io::{self, IoAir};
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::testing::syscall::*;
use crate::rv::{IoWord, BUS_ALU, BUS_BYTE, BUS_IO, BUS_OUTPUT, IO_IN, IO_OUT, IO_ZERO};

#[test]
fn io_shape() {
    let s = TableShape::of(&IoAir, 0).unwrap();
    assert!(s.max_degree <= 3);
    println!(
        "{}: {} columns, {} constraints, {} interactions, max degree {}",
        Air::name(&IoAir),
        s.width,
        s.num_air_constraints,
        s.num_interactions,
        s.max_degree
    );
}

/// Honest IO rows of every chain kind satisfy its constraints, make only byte lookups (those
/// its builder counted) and publish exactly the output written.
#[test]
fn io_honest_calls() {
    let s = scenario();
    let it = io_trace(&s.words);
    let l = table_ledger(&IoAir, &it, None, &[]);
    assert!(l.failures.is_empty(), "IO: {:?}", l.failures);
    assert!(true_alu_ops(&IoAir, &it).is_empty());
    valid_byte_tuples(&IoAir, &it);
    // IO's byte lookups are what the builder counted.
    let mut counted = ByteCounts::default();
    io::build_trace(&s.words, &mut counted);
    let mut from_ledger = ByteCounts::default();
    for (v, m) in on_bus(&IoAir, &it, BUS_BYTE) {
        for _ in 0..m.as_u64() {
            from_ledger.range(v[1].as_u64() as u8, v[2].as_u64() as u8);
        }
    }
    assert!(counted.trace().values == from_ledger.trace().values);
    // The output published is the output written.
    let mut out: Vec<(u64, u64)> = on_bus(&IoAir, &it, BUS_OUTPUT)
        .into_iter()
        .map(|(v, m)| {
            assert_eq!(m, Felt::ONE);
            (v[0].as_u64(), v[1].as_u64())
        })
        .collect();
    out.sort();
    let expect: Vec<(u64, u64)> = s
        .out
        .iter()
        .enumerate()
        .map(|(i, &b)| (i as u64, b as u64))
        .collect();
    assert_eq!(out, expect);
    // words_of covers the buffer word by word.
    assert_eq!(io::words_of(5, 0), vec![]);
    assert_eq!(io::words_of(5, 3), vec![(0, 5, 3)]);
    assert_eq!(io::words_of(5, 4), vec![(0, 5, 3), (1, 0, 1)]);
    assert_eq!(
        io::words_of(0x1003, 21),
        vec![(0x200, 3, 5), (0x201, 0, 8), (0x202, 0, 8)]
    );
    assert_eq!(io::words_of(u32::MAX, 1), vec![((u32::MAX / 8), 7, 1)]);
    // Zeroing rows publish nothing and write zeros.
    let zero_rows = s.words.iter().filter(|w| w.kind == IO_ZERO).count();
    assert_eq!(zero_rows, 28 + 1 + 4 + 2);
    for r in 0..s.words.len() {
        if s.words[r].kind == IO_ZERO {
            assert_eq!(it.row(r)[io::ZERO], Felt::ONE);
            assert_eq!(it.row(r)[io::KIND], Felt::ZERO);
        }
    }
}

#[test]
fn io_mutations() {
    let s = scenario();
    let it = io_trace(&s.words);
    let rows: Vec<usize> = (0..s.words.len()).collect();
    assert_all_detected(&IoAir, &it, None, &[], &rows, 64);
}

#[test]
fn chain_honest() {
    let s = scenario();
    assert_ok(&check_sim(&s));
    // IO rows may come in any order.
    let mut words = s.words.clone();
    words.reverse();
    words.rotate_left(5);
    assert_ok(&check(
        &s.ops,
        &ecall_trace(&s.ops),
        &io_trace(&words),
        &s.out,
    ));
}

#[test]
fn chain_forged_output() {
    let s = scenario();
    let mut out = s.out.clone();
    out[7] ^= 1;
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
    let mut out = s.out.clone();
    out.push(0);
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
    let mut out = s.out.clone();
    out.pop();
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
    // Bytes reordered in the public output.
    let mut out = s.out.clone();
    assert_ne!(out[0], out[1]);
    out.swap(0, 1);
    assert_unbalanced(&check_sim(&Sim { out, ..scenario() }), BUS_OUTPUT);
}

#[test]
fn chain_broken() {
    let s = scenario();
    let et = ecall_trace(&s.ops);
    // The first write's rows: (0x200, 3, 5), (0x201, 0, 8).
    let first: Vec<usize> = (0..s.words.len())
        .filter(|&i| s.words[i].ts == s.ops[0].clk + 1)
        .collect();
    assert_eq!(first.len(), 2);
    // A read's rows.
    let read: Vec<usize> = (0..s.words.len())
        .filter(|&i| s.words[i].ts == s.ops[3].clk + 1)
        .collect();
    assert_eq!(read.len(), 4);

    for drop in [first[0], first[1], read[1], read[3]] {
        let mut words = s.words.clone();
        words.remove(drop);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }
    for dup in [first[0], read[2]] {
        let mut words = s.words.clone();
        words.push(s.words[dup]);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }
    // Reordered: the two rows of the first write swap their positions, so its bytes would
    // come out in another order.
    let mut words = s.words.clone();
    let (p0, p1) = (words[first[0]].pos, words[first[1]].pos);
    words[first[0]].pos = p1;
    words[first[1]].pos = p0;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    // Reordered words: the rows swap words (and bytes with them).
    let mut words = s.words.clone();
    let (a, b) = (words[first[0]], words[first[1]]);
    words[first[0]] = IoWord {
        w: b.w,
        old: b.old,
        new: b.new,
        ..a
    };
    words[first[1]] = IoWord {
        w: a.w,
        old: a.old,
        new: a.new,
        ..b
    };
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    // A row split in two (one word accessed twice at one ts: only memory would notice; the
    // chain itself balances, as the soundness argument expects).
    let mut words = s.words.clone();
    let r = words[first[1]];
    words[first[1]].cnt = 3;
    words.push(IoWord {
        lo: 3,
        cnt: 5,
        pos: r.pos + 3,
        ..r
    });
    let report = check(&s.ops, &et, &io_trace(&words), &s.out);
    assert_ok(&report);
    // A transfer claiming another kind.
    let mut words = s.words.clone();
    for &i in &read {
        words[i].kind = IO_OUT;
    }
    let r = check(&s.ops, &et, &io_trace(&words), &s.out);
    assert!(r.imbalances.iter().any(|i| i.bus == BUS_IO), "{r}");
    let mut words = s.words.clone();
    for &i in &read {
        words[i].kind = IO_ZERO;
    }
    let r = check(&s.ops, &et, &io_trace(&words), &s.out);
    assert!(r.imbalances.iter().any(|i| i.bus == BUS_IO), "{r}");
}

#[test]
fn chain_brk_shrink() {
    let (s, op) = shrink_run();
    assert_ok(&check_sim(&s));
    let zero = rows_of(&s, &op);
    // (w0, 5, 3), w1 .. w7 whole: the first five hold input bytes.
    assert_eq!(zero.len(), 8);
    assert_eq!(s.words[zero[0]].lo, 5);
    assert!(zero[..5].iter().all(|&i| s.words[i].old != 0));
    let et = ecall_trace(&s.ops);
    let brk_row = 2;
    assert_eq!(et.row(brk_row)[ecall::SHRINK], Felt::ONE);

    // The zero chain missing entirely, or stopping early (last row, a middle row, the first
    // row dropped).
    let words: Vec<IoWord> = s
        .words
        .iter()
        .copied()
        .filter(|w| w.kind != IO_ZERO)
        .collect();
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    for drop in [zero[7], zero[3], zero[0]] {
        let mut words = s.words.clone();
        words.remove(drop);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }
    // A row covering fewer bytes: the last (the chain stops short of the old break) or a
    // middle one (a byte skipped, left non-zero).
    for r in [7, 4] {
        let mut words = s.words.clone();
        words[zero[r]].cnt = 7;
        words[zero[r]].new = s.words[zero[r]].old & (0xff << 56);
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&words), &s.out), BUS_IO);
    }

    // The shrink denied (shrink = 0, so no chain is due): LT disagrees.
    let words: Vec<IoWord> = s
        .words
        .iter()
        .copied()
        .filter(|w| w.kind != IO_ZERO)
        .collect();
    let mut et2 = et.clone();
    et2.row_mut(brk_row)[ecall::SHRINK] = Felt::ZERO;
    assert_unbalanced(&check(&s.ops, &et2, &io_trace(&words), &s.out), BUS_ALU);

    // A zeroing row leaving a non-zero byte (covered, or keeping the old byte).
    for (r, byte) in [(0, 5), (0, 7), (3, 0), (3, 6)] {
        let mut words = s.words.clone();
        let wd = &mut words[zero[r]];
        wd.new |= 0x2a << (8 * byte);
        assert_fails(
            &check(&s.ops, &et, &io_trace(&words), &s.out),
            "io zeroing clears covered bytes",
        );
        let mut words = s.words.clone();
        words[zero[r]].new = s.words[zero[r]].old;
        assert_fails(
            &check(&s.ops, &et, &io_trace(&words), &s.out),
            "io zeroing clears covered bytes",
        );
    }
    // A zeroing row changing an uncovered byte.
    let mut words = s.words.clone();
    words[zero[0]].new ^= 1;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&words), &s.out),
        "io input keeps uncovered bytes",
    );

    // The zero chain relabelled as input (which could keep any bytes) or as output.
    for kind in [IO_IN, IO_OUT] {
        let mut words = s.words.clone();
        for &i in &zero {
            words[i].kind = kind;
            words[i].new = s.words[i].old;
        }
        let r = check(&s.ops, &et, &io_trace(&words), &s.out);
        assert!(r.imbalances.iter().any(|i| i.bus == BUS_IO), "{r}");
    }
    // Only one flag may be set.
    let mut it = io_trace(&s.words);
    it.row_mut(zero[1])[io::KIND] = Felt::ONE;
    assert_fails(&check(&s.ops, &et, &it, &s.out), "io one kind");
}
