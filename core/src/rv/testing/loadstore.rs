//! Shared by LOAD's and STORE's unit tests (`rv/load/tests.rs`, `rv/store/tests.rs`): the
//! reference semantics of loads and stores over a 16-byte buffer, random and edge-case
//! records, the bus traffic an honest trace must make, and exhaustive mutations.

extern crate std;

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use std::println;

use crate::air::debug::{table_ledger, TableLedger};
use crate::air::{TableAir, TableShape};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::{
    LoadOp, StoreOp, BUS_BYTE, BUS_MEMOP, BUS_MEM_A, BUS_MEM_S, BYTE_RANGE, MEMOP_LOAD, MEMOP_STORE,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(crate) type Bus = BTreeMap<(u32, Vec<Felt>), Felt>;

pub(crate) fn f(v: u64) -> Felt {
    Felt::new(v)
}

// ---------------------------------------------------------------------------------------
// Reference semantics over a 16-byte little-endian buffer.

pub(crate) fn ref_width(funct3: u8) -> usize {
    match funct3 {
        0 | 4 => 1,
        1 | 5 => 2,
        2 | 6 => 4,
        3 => 8,
        _ => panic!("bad funct3 {funct3}"),
    }
}

pub(crate) fn ref_split(funct3: u8, addr: u32) -> bool {
    (addr as usize % 8) + ref_width(funct3) > 8
}

pub(crate) fn buffer(w0: u64, w1: u64) -> [u8; 16] {
    let mut buf = [0u8; 16];
    for i in 0..8 {
        buf[i] = (w0 >> (8 * i)) as u8;
        buf[8 + i] = (w1 >> (8 * i)) as u8;
    }
    buf
}

pub(crate) fn ref_load(funct3: u8, addr: u32, w0: u64, w1: u64) -> u64 {
    let buf = buffer(w0, w1);
    let (off, width) = (addr as usize % 8, ref_width(funct3));
    let mut v: u64 = 0;
    for i in 0..width {
        v |= (buf[off + i] as u64) << (8 * i);
    }
    let signed = funct3 < 4;
    if signed && width < 8 && buf[off + width - 1] & 0x80 != 0 {
        v |= u64::MAX << (8 * width);
    }
    v
}

pub(crate) fn ref_store(funct3: u8, addr: u32, value: u64, w0: u64, w1: u64) -> (u64, u64) {
    let mut buf = buffer(w0, w1);
    let (off, width) = (addr as usize % 8, ref_width(funct3));
    for i in 0..width {
        buf[off + i] = (value >> (8 * i)) as u8;
    }
    let word = |s: &[u8]| s.iter().rev().fold(0u64, |a, &b| a << 8 | b as u64);
    let n1 = if ref_split(funct3, addr) {
        word(&buf[8..])
    } else {
        0
    };
    (word(&buf[..8]), n1)
}

// ---------------------------------------------------------------------------------------
// Workloads.

/// Word patterns: random, every sign bit set, every sign bit clear, extremes.
pub(crate) fn word(rng: &mut ChaCha8Rng, kind: usize) -> u64 {
    let r: u64 = rng.gen();
    match kind % 7 {
        0 | 1 => r,
        2 => r | 0x8080_8080_8080_8080,
        3 => r & 0x7f7f_7f7f_7f7f_7f7f,
        4 => 0,
        5 => u64::MAX,
        _ => 0x8000_0000_0000_0080 ^ (r & 0x0101_0101_0101_0101),
    }
}

pub(crate) fn addr_with(rng: &mut ChaCha8Rng, off: u32, kind: usize) -> u32 {
    let base = match kind % 5 {
        0 => 0,
        1 => 0xffff_fff0,
        2 => 0x8000_0000,
        _ => rng.gen::<u32>(),
    };
    (base & !7) | off
}

/// Every funct3 × offset × a few word patterns, then `random` random ops.
pub(crate) fn load_ops(seed: u64, reps: usize, random: usize) -> Vec<LoadOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ops = Vec::new();
    let make = |rng: &mut ChaCha8Rng, funct3: u8, off: u32, kind: usize| {
        let addr = addr_with(rng, off, kind);
        let word0 = word(rng, kind);
        let word1 = if ref_split(funct3, addr) {
            word(rng, kind + 3)
        } else {
            0
        };
        LoadOp {
            ts: rng.gen_range(1..1 << 30),
            funct3,
            addr,
            word0,
            word1,
        }
    };
    for kind in 0..reps {
        for funct3 in 0..7 {
            for off in 0..8 {
                ops.push(make(&mut rng, funct3, off, kind));
            }
        }
    }
    for i in 0..random {
        let (funct3, off) = (rng.gen_range(0..7), rng.gen_range(0..8));
        ops.push(make(&mut rng, funct3, off, i));
    }
    ops
}

pub(crate) fn store_ops(seed: u64, reps: usize, random: usize) -> Vec<StoreOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ops = Vec::new();
    let make = |rng: &mut ChaCha8Rng, funct3: u8, off: u32, kind: usize| {
        let addr = addr_with(rng, off, kind);
        let old0 = word(rng, kind);
        let old1 = if ref_split(funct3, addr) {
            word(rng, kind + 2)
        } else {
            0
        };
        StoreOp {
            ts: rng.gen_range(1..1 << 30),
            funct3,
            addr,
            value: word(rng, kind + 1),
            old0,
            old1,
        }
    };
    for kind in 0..reps {
        for funct3 in 0..4 {
            for off in 0..8 {
                ops.push(make(&mut rng, funct3, off, kind));
            }
        }
    }
    for i in 0..random {
        let (funct3, off) = (rng.gen_range(0..4), rng.gen_range(0..8));
        ops.push(make(&mut rng, funct3, off, i));
    }
    ops
}

// ---------------------------------------------------------------------------------------
// 1. Reference check.

// ---------------------------------------------------------------------------------------
// 2. Honest traces: constraints, shape and exact bus traffic.

pub(crate) fn bytes_of(v: u64) -> impl Iterator<Item = Felt> {
    v.to_le_bytes().into_iter().map(|b| f(b as u64))
}

pub(crate) fn memop(op: u32, addr: u32, value: u64, ts: u64) -> Vec<Felt> {
    let mut t = vec![f(op as u64)];
    t.extend(addr.to_le_bytes().iter().map(|&b| f(b as u64)));
    t.extend(bytes_of(value));
    t.push(f(ts));
    t
}

/// The expected memory interaction of an access: bus and tuple.
pub(crate) fn mem_tuple(
    addr: u32,
    split: bool,
    old: (u64, u64),
    new: (u64, u64),
    ts: u64,
    wr: bool,
) -> (u32, Vec<Felt>) {
    let mut t = vec![f((addr / 8) as u64)];
    t.extend(bytes_of(old.0));
    if split {
        t.extend(bytes_of(old.1));
    }
    t.extend(bytes_of(new.0));
    if split {
        t.extend(bytes_of(new.1));
    }
    t.push(f(ts));
    t.push(f(wr as u64));
    (if split { BUS_MEM_S } else { BUS_MEM_A }, t)
}

pub(crate) fn add(bus: &mut Bus, key: (u32, Vec<Felt>), m: Felt) {
    *bus.entry(key).or_insert(Felt::ZERO) += m;
}

pub(crate) fn add_bytes(bus: &mut Bus, bytes: &ByteCounts) {
    let tr = bytes.trace();
    for (r, row) in tr.rows().enumerate() {
        let c = row[BYTE_RANGE as usize];
        if c != Felt::ZERO {
            let (x, y) = ((r & 0xff) as u64, (r >> 8) as u64);
            add(bus, (BUS_BYTE, vec![f(0), f(x), f(y), f(0)]), c);
        }
        assert!(
            row[1..].iter().all(|&v| v == Felt::ZERO),
            "only range lookups expected"
        );
    }
}

pub(crate) fn expected_load_bus(ops: &[LoadOp], bytes: &ByteCounts) -> Bus {
    let mut bus = Bus::new();
    for op in ops {
        let v = ref_load(op.funct3, op.addr, op.word0, op.word1);
        let code = MEMOP_LOAD + op.funct3 as u32;
        add(
            &mut bus,
            (BUS_MEMOP, memop(code, op.addr, v, op.ts)),
            -Felt::ONE,
        );
        let split = ref_split(op.funct3, op.addr);
        let w = (op.word0, if split { op.word1 } else { 0 });
        add(
            &mut bus,
            mem_tuple(op.addr, split, w, w, op.ts, false),
            Felt::ONE,
        );
    }
    add_bytes(&mut bus, bytes);
    bus.retain(|_, v| *v != Felt::ZERO);
    bus
}

pub(crate) fn expected_store_bus(ops: &[StoreOp], bytes: &ByteCounts) -> Bus {
    let mut bus = Bus::new();
    for op in ops {
        let code = MEMOP_STORE + op.funct3 as u32;
        add(
            &mut bus,
            (BUS_MEMOP, memop(code, op.addr, op.value, op.ts)),
            -Felt::ONE,
        );
        let split = ref_split(op.funct3, op.addr);
        let old = (op.old0, if split { op.old1 } else { 0 });
        let new = ref_store(op.funct3, op.addr, op.value, op.old0, op.old1);
        add(
            &mut bus,
            mem_tuple(op.addr, split, old, new, op.ts, true),
            Felt::ONE,
        );
    }
    add_bytes(&mut bus, bytes);
    bus.retain(|_, v| *v != Felt::ZERO);
    bus
}

pub(crate) fn ledger(air: &dyn TableAir, tr: &RowMajorMatrix) -> TableLedger {
    table_ledger(air, tr, None, &[])
}

pub(crate) fn shape(air: &dyn TableAir) {
    let s = TableShape::of(air, 0).unwrap();
    assert!(s.max_degree <= 3);
    println!(
        "{}: {} columns, {} constraints, {} interactions, {} aux columns, max degree {}",
        air.name(),
        s.width,
        s.num_air_constraints,
        s.num_interactions,
        s.aux_width,
        s.max_degree
    );
}

// ---------------------------------------------------------------------------------------
// 3. Mutations.

/// Every cell of every real row, each changed four ways (+1, −1, a random byte, a random
/// field element); returns (detected, total) and asserts none survived.
pub(crate) fn exhaustive_mutations(
    air: &dyn TableAir,
    tr: &RowMajorMatrix,
    real: usize,
) -> (usize, usize) {
    let honest = ledger(air, tr);
    assert!(honest.failures.is_empty());
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut tr = tr.clone();
    let (mut total, mut missed) = (0, Vec::new());
    for row in 0..real {
        for col in 0..tr.width {
            let old = tr.row(row)[col];
            for k in 0..4 {
                let new = match k {
                    0 => old + Felt::ONE,
                    1 => old - Felt::ONE,
                    2 => f(rng.gen_range(0..256)),
                    _ => f(rng.gen()),
                };
                if new == old {
                    continue;
                }
                tr.row_mut(row)[col] = new;
                let l = ledger(air, &tr);
                tr.row_mut(row)[col] = old;
                total += 1;
                if l.failures.is_empty() && l.buses == honest.buses {
                    missed.push((row, col, old, new));
                }
            }
        }
    }
    assert!(
        missed.is_empty(),
        "{}: undetected (row, col, old, new): {:?}",
        air.name(),
        &missed[..missed.len().min(16)]
    );
    (total - missed.len(), total)
}

// ---------------------------------------------------------------------------------------
// 4. Forgeries.
