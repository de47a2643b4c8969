//! The LOAD and STORE tables: `load_value` and `store_words` against a byte-buffer reference;
//! honest traces satisfy every constraint and produce exactly the expected bus traffic;
//! every single-cell mutation of a real row is detected; forged values, stray byte writes
//! and invalid funct3 cannot be proven.

use std::collections::BTreeMap;

use kestrel_core::air::debug::{table_ledger, TableLedger};
use kestrel_core::air::{TableAir, TableShape};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::load::{self, LoadAir};
use kestrel_core::rv::store::{self, StoreAir};
use kestrel_core::rv::{
    LoadOp, StoreOp, BUS_BYTE, BUS_MEMOP, BUS_MEM_A, BUS_MEM_S, BYTE_RANGE, MEMOP_LOAD, MEMOP_STORE,
};
use kestrel_tests::mutation::assert_all_detected;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Bus = BTreeMap<(u32, Vec<Felt>), Felt>;

fn f(v: u64) -> Felt {
    Felt::new(v)
}

// ---------------------------------------------------------------------------------------
// Reference semantics over a 16-byte little-endian buffer.

fn ref_width(funct3: u8) -> usize {
    match funct3 {
        0 | 4 => 1,
        1 | 5 => 2,
        2 | 6 => 4,
        3 => 8,
        _ => panic!("bad funct3 {funct3}"),
    }
}

fn ref_split(funct3: u8, addr: u32) -> bool {
    (addr as usize % 8) + ref_width(funct3) > 8
}

fn buffer(w0: u64, w1: u64) -> [u8; 16] {
    let mut buf = [0u8; 16];
    for i in 0..8 {
        buf[i] = (w0 >> (8 * i)) as u8;
        buf[8 + i] = (w1 >> (8 * i)) as u8;
    }
    buf
}

fn ref_load(funct3: u8, addr: u32, w0: u64, w1: u64) -> u64 {
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

fn ref_store(funct3: u8, addr: u32, value: u64, w0: u64, w1: u64) -> (u64, u64) {
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
fn word(rng: &mut ChaCha8Rng, kind: usize) -> u64 {
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

fn addr_with(rng: &mut ChaCha8Rng, off: u32, kind: usize) -> u32 {
    let base = match kind % 5 {
        0 => 0,
        1 => 0xffff_fff0,
        2 => 0x8000_0000,
        _ => rng.gen::<u32>(),
    };
    (base & !7) | off
}

/// Every funct3 × offset × a few word patterns, then `random` random ops.
fn load_ops(seed: u64, reps: usize, random: usize) -> Vec<LoadOp> {
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

fn store_ops(seed: u64, reps: usize, random: usize) -> Vec<StoreOp> {
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

#[test]
fn load_value_and_store_words_match_reference() {
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
    for op in store_ops(3, 14, 20_000) {
        let want = ref_store(op.funct3, op.addr, op.value, op.old0, op.old1);
        assert_eq!(store::store_words(&op), want, "{op:?}");
        n += 1;
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
    let sw = store::store_words(&StoreOp {
        ts: 1,
        funct3: 2,
        addr: 6,
        value: 0xdead_beef_0403_0201,
        old0: u64::MAX,
        old1: u64::MAX,
    });
    assert_eq!(sw, (0x0201_ffff_ffff_ffff, 0xffff_ffff_ffff_0403));
    println!("reference: {n} ops agree");
}

// ---------------------------------------------------------------------------------------
// 2. Honest traces: constraints, shape and exact bus traffic.

fn bytes_of(v: u64) -> impl Iterator<Item = Felt> {
    v.to_le_bytes().into_iter().map(|b| f(b as u64))
}

fn memop(op: u32, addr: u32, value: u64, ts: u64) -> Vec<Felt> {
    let mut t = vec![f(op as u64)];
    t.extend(addr.to_le_bytes().iter().map(|&b| f(b as u64)));
    t.extend(bytes_of(value));
    t.push(f(ts));
    t
}

/// The expected memory interaction of an access: bus and tuple.
fn mem_tuple(
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

fn add(bus: &mut Bus, key: (u32, Vec<Felt>), m: Felt) {
    *bus.entry(key).or_insert(Felt::ZERO) += m;
}

fn add_bytes(bus: &mut Bus, bytes: &ByteCounts) {
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

fn expected_load_bus(ops: &[LoadOp], bytes: &ByteCounts) -> Bus {
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

fn expected_store_bus(ops: &[StoreOp], bytes: &ByteCounts) -> Bus {
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

fn ledger(air: &dyn TableAir, tr: &RowMajorMatrix) -> TableLedger {
    table_ledger(air, tr, None, &[])
}

fn shape(air: &dyn TableAir) {
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

#[test]
fn load_honest_traces() {
    shape(&LoadAir);
    for ops in [load_ops(4, 0, 5), load_ops(5, 6, 700), Vec::new()] {
        let mut bytes = ByteCounts::default();
        let tr = load::build_trace(&ops, &mut bytes);
        assert_eq!(tr.height(), ops.len().next_power_of_two().max(8));
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
fn store_honest_traces() {
    shape(&StoreAir);
    for ops in [store_ops(6, 0, 5), store_ops(7, 6, 700), Vec::new()] {
        let mut bytes = ByteCounts::default();
        let tr = store::build_trace(&ops, &mut bytes);
        assert_eq!(tr.height(), ops.len().next_power_of_two().max(8));
        assert_eq!(tr.width, store::WIDTH);
        let l = ledger(&StoreAir, &tr);
        assert!(
            l.failures.is_empty(),
            "{:?}",
            &l.failures[..l.failures.len().min(8)]
        );
        assert_eq!(l.buses, expected_store_bus(&ops, &bytes));
        for r in ops.len()..tr.height() {
            assert!(tr.row(r).iter().all(|&v| v == Felt::ZERO));
        }
    }
}

// ---------------------------------------------------------------------------------------
// 3. Mutations.

/// Every cell of every real row, each changed four ways (+1, −1, a random byte, a random
/// field element); returns (detected, total) and asserts none survived.
fn exhaustive_mutations(air: &dyn TableAir, tr: &RowMajorMatrix, real: usize) -> (usize, usize) {
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

#[test]
fn store_mutations_are_detected() {
    let ops = store_ops(10, 3, 200);
    let mut bytes = ByteCounts::default();
    let tr = store::build_trace(&ops, &mut bytes);
    let rows: Vec<usize> = (0..ops.len()).collect();
    assert_all_detected(&StoreAir, &tr, None, &[], &rows, 24);

    let ops = store_ops(12, 2, 0);
    let tr = store::build_trace(&ops, &mut ByteCounts::default());
    let (d, t) = exhaustive_mutations(&StoreAir, &tr, ops.len());
    println!(
        "STORE: exhaustive mutation detection {d}/{t} ({} rows)",
        ops.len()
    );
}

// ---------------------------------------------------------------------------------------
// 4. Forgeries.

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

/// A store row whose new words change one byte outside the written range, or write a
/// wrong byte inside it: a constraint fails.
#[test]
fn stray_store_writes_are_rejected() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let (mut outside, mut inside) = (0, 0);
    for op in store_ops(16, 3, 300) {
        let off = (op.addr % 8) as usize;
        let w = load::width_of(op.funct3) as usize;
        let honest = store::build_trace(&[op], &mut ByteCounts::default());
        for i in 0..16 {
            let mut tr = honest.clone();
            let cell = store::NEW + i;
            let old = tr.row(0)[cell];
            let new = loop {
                let v = f(rng.gen_range(0..256));
                if v != old {
                    break v;
                }
            };
            tr.row_mut(0)[cell] = new;
            let l = ledger(&StoreAir, &tr);
            assert!(
                !l.failures.is_empty(),
                "{op:?}: byte {i} changed to {new:?} accepted"
            );
            if (off..off + w).contains(&i) {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    println!("STORE: {outside} stray writes outside and {inside} wrong bytes inside rejected");
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

#[test]
fn invalid_store_funct3_is_unprovable() {
    let selector_only = ["store width selector boolean", "store is_real boolean"];
    let op = StoreOp {
        ts: 9,
        funct3: 3,
        addr: 0x1000 + 3,
        value: 0x0102_0304_0506_0708,
        old0: u64::MAX,
        old1: 0x55,
    };
    let honest = store::build_trace(&[op], &mut ByteCounts::default());
    for mask in 0u32..16 {
        let mut tr = honest.clone();
        for i in 0..4 {
            tr.row_mut(0)[store::SZ + i] = Felt::from(mask >> i & 1);
        }
        let l = ledger(&StoreAir, &tr);
        let selector_fails = l.failures.iter().any(|(_, c)| selector_only.contains(c));
        // Only one-hot selectors pass, and their funct3 is 0..=3.
        assert_eq!(selector_fails, mask.count_ones() > 1, "mask {mask:04b}");
    }
    // funct3 4..=7: the builder writes no width selector; a named failure, no panic.
    for funct3 in 4..8 {
        let tr = store::build_trace(&[StoreOp { funct3, ..op }], &mut ByteCounts::default());
        let l = ledger(&StoreAir, &tr);
        assert!(
            l.failures.contains(&(0, "store offset one-hot")),
            "{funct3}"
        );
    }
}
