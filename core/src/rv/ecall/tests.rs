//! ECALL's unit tests (`rv::testing::syscall`'s reference model and chain machine): its
//! shape; honest rows of every call kind satisfy its constraints and make only true ALU and
//! byte lookups; every single-cell mutation of a real row is detected; in the chain machine,
//! false brk shrinks, reads returning too much or not the minimum, out-of-range brk results
//! and unsupported calls are caught.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;
use std::println;

use crate::air::debug::table_ledger;
use crate::air::{Air, TableShape};
use crate::field::Felt;
use crate::rv::bitwise::ByteCounts;
use crate::rv::ecall::{self, EcallAir};
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::testing::syscall::*;
use crate::rv::{AluOp, EcallOp, BUS_ALU, BUS_BYTE, BUS_ECALL};

#[test]
fn ecall_shape() {
    let s = TableShape::of(&EcallAir, 0).unwrap();
    assert!(s.max_degree <= 3);
    println!(
        "{}: {} columns, {} constraints, {} interactions, max degree {}",
        Air::name(&EcallAir),
        s.width,
        s.num_air_constraints,
        s.num_interactions,
        s.max_degree
    );
}

/// Honest ECALL rows of every call kind satisfy its constraints and make only true ALU and
/// byte lookups, exactly those its builder lists.
#[test]
fn ecall_honest_calls() {
    let s = scenario();
    let et = ecall_trace(&s.ops);
    let l = table_ledger(&EcallAir, &et, None, &[]);
    assert!(l.failures.is_empty(), "ECALL: {:?}", l.failures);
    // ALU lookups: all true, and exactly what `alu_lookups` lists.
    let mut sent = true_alu_ops(&EcallAir, &et);
    let mut listed: Vec<AluOp> = s.ops.iter().flat_map(ecall::alu_lookups).collect();
    sent.sort();
    listed.sort();
    assert_eq!(sent, listed);
    valid_byte_tuples(&EcallAir, &et);
    // ECALL's byte lookups (a read's rem') are what the builder counted.
    let mut counted = ByteCounts::default();
    ecall::build_trace(&s.ops, &mut counted);
    let mut from_ledger = ByteCounts::default();
    for (v, m) in on_bus(&EcallAir, &et, BUS_BYTE) {
        for _ in 0..m.as_u64() {
            from_ledger.range(v[1].as_u64() as u8, v[2].as_u64() as u8);
        }
    }
    assert!(counted.trace().values == from_ledger.trace().values);
    // The reads' input register: 30 bytes, then 30, 10, 0, 0 left.
    let reads: Vec<&EcallOp> = s.ops.iter().filter(|op| op.a7 == READ).collect();
    let rems: Vec<(u64, u64)> = reads
        .iter()
        .map(|op| (op.remaining, ecall::remaining_after(op)))
        .collect();
    assert_eq!(rems, vec![(30, 30), (30, 10), (10, 0), (0, 0)]);
    // Helpers.
    assert!(ecall::is_exit(s.ops.last().unwrap()));
    assert!(!ecall::is_exit(&s.ops[0]));
    assert_eq!(ecall::outn(&s.ops[0]), 13);
    assert_eq!(ecall::outn(&s.ops[1]), 0);
    assert_eq!(ecall::transfer(&s.ops[1]), None);
    let shrinks: Vec<_> = s
        .ops
        .iter()
        .filter(|op| ecall::zero_range(op).is_some())
        .collect();
    assert_eq!(shrinks.len(), 4);
    for op in shrinks {
        assert!(ecall::transfer(op).is_none());
        assert!(ecall::alu_lookups(op)
            .iter()
            .any(|a| a.a == op.res && a.b == op.brk[0] && a.c == 1));
    }
}

#[test]
fn ecall_mutations() {
    let s = scenario();
    let et = ecall_trace(&s.ops);
    let rows: Vec<usize> = (0..s.ops.len()).collect();
    assert_all_detected(&EcallAir, &et, None, &[], &rows, 64);
    // The read rows alone (the input register's columns): empty, full, short, at the end.
    let reads: Vec<usize> = (0..s.ops.len()).filter(|&r| s.ops[r].a7 == READ).collect();
    assert_eq!(reads.len(), 4);
    assert_all_detected(&EcallAir, &et, None, &[], &reads, 64);
}

#[test]
fn chain_brk_false_shrink() {
    // A shrink claimed when res = old (a query) or res > old (a grow), with a zero chain
    // that wipes memory the break still covers: LT refuses (SLTU, res, old, 1).
    let mut s = Sim::new((1..=40).collect());
    s.call(BRK, HEAP_START + 0x40, 0, 0);
    s.call(READ, 0, HEAP_START, 0x28);
    let query = s.call(BRK, HEAP_START + 0x40, 0, 0);
    let grow = s.call(BRK, HEAP_START + 0x50, 0, 0);
    s.call(EXIT, 0, 0, 0);
    assert_ok(&check_sim(&s));
    assert_eq!(ecall::zero_range(&query), None);
    assert_eq!(ecall::zero_range(&grow), None);

    // The query: its two zero tokens cancel, so the bus balances without IO rows; only LT
    // objects.
    let mut et = ecall_trace(&s.ops);
    et.row_mut(2)[ecall::SHRINK] = Felt::ONE;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);

    // The grow, pretending it zeroes the data [old .. res) backwards: not even a chain
    // exists, and LT objects.
    let mut et = ecall_trace(&s.ops);
    et.row_mut(3)[ecall::SHRINK] = Felt::ONE;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);

    // A shrink flag on a call that is no brk.
    let mut et = ecall_trace(&s.ops);
    et.row_mut(1)[ecall::SHRINK] = Felt::ONE;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall shrink unused",
    );

    // A "shrink" to a result with high bytes set (which the LT comparison with the old
    // break would also reject).
    let mut s = Sim::new(vec![]);
    s.call(BRK, HEAP_START + 0x40, 0, 0);
    s.call_with(
        BRK,
        HEAP_START + (1 << 32),
        0,
        0,
        Some(HEAP_START + (1 << 32)),
    );
    let mut et = ecall_trace(&s.ops);
    et.row_mut(1)[ecall::SHRINK] = Felt::ONE;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall shrink res below 2^32",
    );
}

#[test]
fn chain_read_too_long() {
    let mut s = Sim::new((0..40).collect());
    s.call(READ, 0, 0x3000, 8);
    // n = 6 > len = 4: the row asks LT for (len <u n) = 0, which is false.
    let op = s.call_with(READ, 0, 0x3100, 4, Some(6));
    assert_eq!(ecall::alu_lookups(&op)[0].c, 0);
    s.call(EXIT, 0, 0, 0);
    assert_unbalanced(&check_sim(&s), BUS_ALU);
    // n ≥ 2^32.
    let mut s = Sim::new(vec![]);
    let op = s.call_with(READ, 0, 0x3100, u64::MAX, Some(1 << 32));
    assert_eq!(ecall::transfer(&op), Some((0, 0x3100, 0)));
    assert_fails(&check_sim(&s), "ecall len, n below 2^32");
    // An honest short read balances.
    let mut s = Sim::new((0..40).collect());
    s.call(READ, 0, 0x3100, 4);
    s.call(READ, 0, 0x3200, 100);
    assert_ok(&check_sim(&s));
}

#[test]
fn chain_read_not_min() {
    // A short read that leaves input unread: 4 of 8 asked, 36 left.
    let mut s = Sim::new((0..40).collect());
    let op = s.call_with(READ, 0, 0x3100, 8, Some(4));
    assert_eq!(ecall::remaining_after(&op), 36);
    s.call(EXIT, 0, 0, 0);
    assert_fails(&check_sim(&s), "ecall short read exhausts the input");
    // ... with the short flag denied: LT disagrees (SLTU(4, 8) = 1).
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::SHORT] = Felt::ZERO;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);
    // A read of more than remains: 5 of 8 with 3 left (rem' = 3 − 5 is no four bytes).
    let mut s = Sim::new((0..40).collect());
    s.call_with(READ, 0, 0x3100, 8, Some(5));
    s.ops[0].remaining = 3;
    s.call(EXIT, 0, 0, 0);
    assert_fails(&check_sim(&s), "ecall read consumes n input bytes");
    // A read that leaves the input register unchanged (rem' = rem): the subtraction fails.
    let mut s = Sim::new((0..40).collect());
    s.call(READ, 0, 0x3100, 8);
    s.call(EXIT, 0, 0, 0);
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::REM_NEW] = Felt::new(40);
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall read consumes n input bytes",
    );
    // Input register columns on a call that is no read.
    let mut s = Sim::new((0..40).collect());
    s.call(WRITE, 1, 0x1000, 8);
    s.call(EXIT, 0, 0, 0);
    for col in [ecall::REM, ecall::REM_NEW + 3] {
        let mut et = ecall_trace(&s.ops);
        et.row_mut(0)[col] = Felt::ONE;
        assert_fails(
            &check(&s.ops, &et, &io_trace(&s.words), &s.out),
            "ecall input registers unused",
        );
    }
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::SHORT] = Felt::ONE;
    assert_fails(
        &check(&s.ops, &et, &io_trace(&s.words), &s.out),
        "ecall short unused",
    );
    // Honest reads of every shape balance: full, short, at the end, of len 0, of a len
    // ≥ 2^32 (as a 64-bit value, even ≥ p).
    let mut s = Sim::new((0..40).collect());
    assert_eq!(s.call(READ, 0, 0x3000, 0).res, 0);
    assert_eq!(s.call(READ, 0, 0x3000, 8).res, 8);
    assert_eq!(s.call(READ, 0, 0x3100, u64::MAX).res, 32);
    assert_eq!(s.call(READ, 0, 0x3200, 1 << 32).res, 0);
    assert_eq!(s.call(READ, 0, 0x3200, 3).res, 0);
    s.call(EXIT, 0, 0, 0);
    assert_ok(&check_sim(&s));
    let mut s = Sim::new((0..40).collect());
    assert_eq!(s.call(READ, 0, 0x3000, (1 << 32) + 5).res, 40);
    s.call(EXIT, 0, 0, 0);
    assert_ok(&check_sim(&s));
}

#[test]
fn chain_brk_out_of_range() {
    for (addr, flag) in [
        (HEAP_LIMIT + 8, ecall::LT_HI),
        (u64::MAX, ecall::LT_HI),
        (HEAP_START - 8, ecall::LT_LO),
        (0, ecall::LT_LO),
    ] {
        let mut s = Sim::new(vec![]);
        s.call(BRK, HEAP_START + 64, 0, 0);
        s.call_with(BRK, addr, 0, 0, Some(addr));
        s.call(EXIT, 0, 0, 0);
        // Honest flags: the result must be the old break.
        assert_fails(&check_sim(&s), "ecall brk result");
        // Flags forged to "in range": LT disagrees.
        let mut et = ecall_trace(&s.ops);
        et.row_mut(1)[flag] = Felt::ZERO;
        et.row_mut(1)[ecall::OUT] = Felt::ZERO;
        assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);
    }
    // A brk that refuses an in-range address (flags forged to "out of range").
    let mut s = Sim::new(vec![]);
    s.call_with(BRK, HEAP_START + 64, 0, 0, Some(HEAP_START));
    let mut et = ecall_trace(&s.ops);
    et.row_mut(0)[ecall::LT_HI] = Felt::ONE;
    et.row_mut(0)[ecall::OUT] = Felt::ONE;
    assert_unbalanced(&check(&s.ops, &et, &io_trace(&s.words), &s.out), BUS_ALU);
}

#[test]
fn chain_unsupported_calls() {
    for (a7, a0) in [
        (57, 0),
        (EXIT + 256, 0),
        (EXIT + (1 << 40), 0),
        (WRITE, 0),
        (WRITE, 3),
        (WRITE, 1 + (1 << 32)),
        (READ, 1),
        (READ, 256),
        (0, 0),
    ] {
        let mut s = Sim::new(vec![1, 2, 3]);
        s.call(a7, a0, 0x1000, 2);
        assert!(ecall::transfer(&s.ops[0]).is_none());
        let et = ecall_trace(&s.ops);
        assert!(et.row(0).iter().all(|&v| v == Felt::ZERO));
        assert_unbalanced(&check_sim(&s), BUS_ECALL);
    }
    // A row claiming a selector for the wrong call number or fd.
    let mut s = Sim::new(vec![]);
    s.call(57, 0, 0, 0);
    let mut et = ecall_trace(&s.ops);
    let row = et.row_mut(0);
    row[ecall::SEL_EXIT] = Felt::ONE;
    row[ecall::A7] = Felt::new(57);
    assert_fails(
        &check(&s.ops, &et, &io_trace(&[]), &[]),
        "ecall a7 is the selected call",
    );
    let mut s = Sim::new(vec![]);
    s.call(WRITE, 3, 0x1000, 2);
    let mut et = ecall_trace(&s.ops);
    let row = et.row_mut(0);
    row[ecall::SEL_WDBG] = Felt::ONE;
    row[ecall::A7] = Felt::new(WRITE);
    row[ecall::A0] = Felt::new(3);
    row[ecall::A1] = Felt::new(0);
    row[ecall::A1 + 1] = Felt::new(0x10);
    row[ecall::A2] = Felt::new(2);
    row[ecall::RES] = Felt::new(2);
    assert_fails(&check(&s.ops, &et, &io_trace(&[]), &[]), "ecall fd");
}
