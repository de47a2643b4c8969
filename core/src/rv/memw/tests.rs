//! MEMW_A's and MEMW's unit tests, in the memory argument's test machine
//! (`rv::testing::mem`): shapes; honest and edge-case runs balance; every single-cell
//! mutation of a real row is detected; forged reads (old and new changed together), stale
//! reads, non-increasing timestamps (an access older than its token included, its difference
//! written as the field value's "bytes"), wrong fifth difference bytes and writes to
//! read-only words are caught; gaps beyond 2^32 balance. Their proof:
//! `tests/tests/rv_memw.rs`.

extern crate std;

use alloc::vec;
use alloc::vec::Vec;
use std::println;

use crate::air::debug::{table_ledger, DebugReport};
use crate::air::{Air, TableAir, TableShape};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::ByteCounts;
use crate::rv::memw::{MemwAir, MEMW, MEMW_A};
use crate::rv::page::{MemoryImage, ZeroRange};
use crate::rv::page0::Page0Air;
use crate::rv::testing::mem::*;
use crate::rv::testing::mutation::assert_all_detected;
use crate::rv::{BUS_BYTE, BUS_MEM, BUS_MEM_A};

#[test]
fn memw_shapes_are_valid() {
    for t in [&MEMW_A as &dyn TableAir, &MEMW] {
        let shape = TableShape::of(t, 0);
        assert!(shape.is_ok(), "{}: {shape:?}", t.name());
        println!("{}: {:?}", t.name(), shape.unwrap());
    }
    assert_eq!(Air::width(&MEMW_A), 27);
    assert_eq!(Air::width(&MEMW), 50);
    assert_eq!(Air::name(&MEMW_A), "MEMW_A");
    assert_eq!(Air::name(&MEMW), "MEMW");
}

#[test]
fn honest_runs_balance() {
    let img = image();
    for (seed, random) in [(1, 0), (2, 50), (3, 300)] {
        let run = honest(&img, &requests(seed, random));
        let report = check(&img, &run);
        assert!(report.is_ok(), "seed {seed}:\n{report}");
    }
}

#[test]
fn edge_cases_balance() {
    let img = image();
    // No request at all: PAGE passes every word through, PAGE0 is empty.
    let run = honest(&img, &[]);
    assert!(run.page0.is_empty());
    let r = check(&img, &run);
    assert!(r.is_ok(), "{r}");
    // Image words only: PAGE0 empty.
    let run = honest(&img, &requests(5, 0)[..5]);
    assert!(run.page0.is_empty());
    let r = check(&img, &run);
    assert!(r.is_ok(), "{r}");
    // An empty image (one padded PAGE); heap words only, starting at the range's start,
    // with a range reaching word 2^29 (its last word touched).
    let empty = MemoryImage {
        words: vec![],
        zero: vec![ZeroRange {
            lo: 512,
            hi: 1 << 29,
            ro: false,
        }],
    };
    let mut reqs = vec![
        Req {
            w: 512,
            split: true,
            ts: 1,
            new: Some([1, 2]),
        },
        Req {
            w: 513,
            split: false,
            ts: 5,
            new: None,
        },
    ];
    let run = honest(&empty, &reqs);
    let r = check(&empty, &run);
    assert!(r.is_ok(), "{r}");
    assert_eq!(run.page0[0].0, 512);
    // Large gaps between PAGE0 words (d uses all four bytes), and the last word.
    reqs[1].w = 512 + 0x0300_0000;
    reqs.push(Req {
        w: (1 << 29) - 1,
        split: false,
        ts: 9,
        new: Some([3, 0]),
    });
    let run = honest(&empty, &reqs);
    let r = check(&empty, &run);
    assert!(r.is_ok(), "{r}");
}

#[test]
fn memw_mutations_are_detected() {
    let img = image();
    let run = honest(&img, &requests(9, 60));
    let t = traces(&img, &run, None);
    let n_a = run.rows.iter().filter(|r| matches!(r, Row::A(_))).count();
    let n_s = run.rows.len() - n_a;
    let rows = |n: usize| (0..n).collect::<Vec<_>>();
    assert_all_detected(&MEMW_A, &t[1], None, &[], &rows(n_a), 40);
    assert_all_detected(&MEMW, &t[2], None, &[], &rows(n_s), 40);
}

#[test]
fn read_of_a_value_never_stored() {
    // Request 3 reads image word 105 and claims 0xdead_beef (kept by later accesses).
    let (_, r) = attack(&mut |i, acc, _| {
        if i == 3 {
            acc[0].old = 0xdead_beef;
            acc[0].new = 0xdead_beef;
        }
    });
    assert!(unbalanced(&r, BUS_MEM), "{r}");
    // A split read forging its second word.
    let (_, r) = attack(&mut |i, acc, _| {
        if i == 12 {
            acc[1].old ^= 1;
            acc[1].new ^= 1;
        }
    });
    assert!(unbalanced(&r, BUS_MEM), "{r}");
}

#[test]
fn stale_read_after_overwrite() {
    // Request 2 reads word 100 after request 1 overwrote it, and returns the old value,
    // consuming the token the write already consumed.
    let (_, r) = attack(&mut |i, acc, hist| {
        if i == 2 {
            let h = &hist[&100];
            let (old, old_ts) = h[h.len() - 2];
            acc[0].old = old;
            acc[0].new = old;
            acc[0].old_ts = old_ts;
        }
    });
    assert!(unbalanced(&r, BUS_MEM), "{r}");
}

#[test]
fn timestamps_must_increase() {
    // Request 7 (heap read) at a timestamp before / equal to the token's.
    for back in [1u64, 0] {
        let (run, r) = attack(&mut |i, acc, _| {
            if i == 7 {
                acc[0].ts = acc[0].old_ts - back;
            }
        });
        assert!(
            fails(&r, "MEMW_A", "memw timestamps increase"),
            "back {back}: {r}"
        );
        let row = table_row(&run, 7);
        assert!(
            r.failures
                .iter()
                .any(|f| f.table == "MEMW_A" && f.row == row),
            "{r}"
        );
    }
    // A split access whose timestamp equals its second word's previous one.
    let (_, r) = attack(&mut |i, acc, _| {
        if i == 12 {
            let ts = acc[1].old_ts.max(acc[0].old_ts);
            acc[0].ts = ts;
            acc[1].ts = ts;
        }
    });
    assert!(fails(&r, "MEMW", "memw timestamps increase"), "{r}");
}

#[test]
fn write_to_read_only_word() {
    let img = image();
    let v114 = img.words.iter().find(|e| e.0 == 114).unwrap().1;
    // A store into read-only word 114: of a new value, and of the value it already holds
    // (the executor faults on both).
    for new in [0x5555, v114] {
        let mut reqs = requests(11, 0);
        reqs[13].new = Some([new, 0]);
        let run = honest(&img, &reqs);
        let r = check(&img, &run);
        assert!(
            fails(&r, "MEMW_A", "memw no write to a read-only word"),
            "{r}"
        );
        // Claiming the word writable (the access's flag and so every token it passes on)
        // leaves PAGE's read-only tokens unmatched.
        let run = simulate(&img, &reqs, &mut |i, acc, _| {
            if i == 13 {
                acc[0].ro = false;
            }
        });
        let r = check(&img, &run);
        assert!(
            !fails(&r, "MEMW_A", "memw no write to a read-only word"),
            "{r}"
        );
        assert!(unbalanced(&r, BUS_MEM), "{r}");
        // Claiming the access a read (wr = 0) that still changes the word: the requester's
        // tuple says it is a write, so the request finds no receiver.
        let run = simulate(&img, &reqs, &mut |i, acc, _| {
            if i == 13 {
                acc[0].wr = false;
            }
        });
        let mut t = traces(&img, &run, None);
        t[0] = driver_trace(&honest(&img, &reqs).rows);
        let r = check_traces(&img, &t);
        assert!(unbalanced(&r, BUS_MEM_A), "{r}");
    }
    // A split store over read-only word 115 and bss word 116.
    let mut reqs = requests(11, 0);
    reqs[14].new = Some([1, 2]);
    let r = check(&img, &honest(&img, &reqs));
    assert!(
        fails(&r, "MEMW", "memw no write to a read-only word"),
        "{r}"
    );
    // Reads of read-only words are fine (requests 13 and 14 of every honest run).
    assert!(check(&img, &honest(&img, &requests(11, 0))).is_ok());
}

/// Rebuilds BITWISE (`t[5]`) to answer exactly the valid byte pairs MEMW_A, MEMW and PAGE0
/// look up, so that a cell that is no byte finds no row.
fn honest_bitwise(t: &mut [RowMajorMatrix]) {
    let mut bytes = ByteCounts::default();
    let tables: [(&dyn TableAir, usize); 3] = [(&MEMW_A, 1), (&MEMW, 2), (&Page0Air, 4)];
    for (table, i) in tables {
        for ((bus, v), m) in table_ledger(table, &t[i], None, &[]).buses {
            let byte = |x: Felt| (x.as_u64() < 256).then_some(x.as_u64() as u8);
            if let (BUS_BYTE, Some(x), Some(y)) = (bus, byte(v[1]), byte(v[2])) {
                for _ in 0..m.as_u64().min(1 << 20) {
                    bytes.range(x, y);
                }
            }
        }
    }
    t[5] = bytes.trace();
}

/// The machine's traces of `run` with `forge` applied to MEMW_A's (`t[1]`) and MEMW's
/// (`t[2]`) traces, and BITWISE rebuilt after it.
fn forged(
    img: &crate::rv::page::MemoryImage,
    run: &Run,
    forge: &mut dyn FnMut(&mut [RowMajorMatrix]),
) -> DebugReport {
    let mut t = traces(img, run, None);
    forge(&mut t);
    honest_bitwise(&mut t);
    check_traces(img, &t)
}

#[test]
fn gaps_beyond_four_bytes_balance() {
    let img = image();
    let run = honest(&img, &wide_requests(11, 40));
    let report = check(&img, &run);
    assert!(report.is_ok(), "{report}");
    // Request 7's gap and a late first read use the fifth byte.
    let t = traces(&img, &run, None);
    assert_eq!(
        t[1].row(table_row(&run, 7))[MEMW_A.diff(0) + 4],
        Felt::from(2u32)
    );
    let late = (30..run.rows.len())
        .find(|&i| matches!(run.rows[i], Row::A(a) if a.old_ts == 0))
        .expect("a late first access");
    assert_eq!(
        t[1].row(table_row(&run, late))[MEMW_A.diff(0) + 4],
        Felt::from(15u32)
    );
    // Mutations of the wide rows are all detected.
    let n_a = run.rows.iter().filter(|r| matches!(r, Row::A(_))).count();
    let rows: Vec<usize> = (0..n_a).collect();
    assert_all_detected(&MEMW_A, &t[1], None, &[], &rows, 16);
}

/// `(table index, table, row, word)` of request 7 (MEMW_A) and request 12 (MEMW, both
/// words) in the wide run.
fn wide_targets(run: &Run) -> [(usize, MemwAir, usize, usize); 3] {
    [
        (1, MEMW_A, table_row(run, 7), 0),
        (2, MEMW, table_row(run, 12), 0),
        (2, MEMW, table_row(run, 12), 1),
    ]
}

#[test]
fn wrong_fifth_byte_is_caught() {
    let img = image();
    let run = honest(&img, &wide_requests(11, 40));
    for (ti, air, row, j) in wide_targets(&run) {
        let name = Air::name(&air);
        let d4 = air.diff(j) + 4;
        // Another fifth byte alone breaks the sum.
        let honest_d4 = traces(&img, &run, None)[ti].row(row)[d4];
        for v in [0u64, 1, 2, 3, 255, 256].map(Felt::new) {
            if v == honest_d4 {
                continue;
            }
            let r = forged(&img, &run, &mut |t| t[ti].row_mut(row)[d4] = v);
            assert!(
                fails(&r, name, "memw timestamps increase"),
                "{name} {j}: {r}"
            );
        }
        // One more in the fifth byte with `old_ts` 2^32 lower keeps the sum, and consumes
        // a token no table emitted.
        let r = forged(&img, &run, &mut |t| {
            let c = t[ti].row_mut(row);
            c[d4] += Felt::ONE;
            c[air.old_ts(j)] -= Felt::new(1 << 32);
        });
        assert!(
            !fails(&r, name, "memw timestamps increase"),
            "{name} {j}: {r}"
        );
        assert!(unbalanced(&r, BUS_MEM), "{name} {j}: {r}");
    }
}

#[test]
fn access_older_than_its_token_is_caught() {
    let img = image();
    let run = honest(&img, &wide_requests(11, 40));
    for (ti, air, row, j) in wide_targets(&run) {
        let name = Air::name(&air);
        // `old_ts = ts + 1`: the wrapping fill's five bytes (of 2^64 − 2) are not −2.
        let r = forged(&img, &run, &mut |t| {
            let c = t[ti].row_mut(row);
            c[air.old_ts(j)] = c[air.ts()] + Felt::ONE;
            let d = u64::MAX - 1;
            for i in 0..5 {
                c[air.diff(j) + i] = Felt::new((d >> (8 * i)) & 0xff);
            }
        });
        assert!(
            fails(&r, name, "memw timestamps increase"),
            "{name} {j}: {r}"
        );
        // The difference as the field value's "bytes": −2 = p − 2 = 0xffff_fffe_ffff_ffff,
        // four bytes 0xff and 0xffff_fffe in the fifth cell. The sum holds; the fifth
        // cell's lookup (MEMW: shared with the other word's fifth byte) finds no BITWISE row.
        let r = forged(&img, &run, &mut |t| {
            let c = t[ti].row_mut(row);
            c[air.old_ts(j)] = c[air.ts()] + Felt::ONE;
            for i in 0..4 {
                c[air.diff(j) + i] = Felt::new(0xff);
            }
            c[air.diff(j) + 4] = Felt::new(0xffff_fffe);
        });
        assert!(
            !fails(&r, name, "memw timestamps increase"),
            "{name} {j}: {r}"
        );
        assert!(unbalanced(&r, BUS_BYTE), "{name} {j}: {r}");
    }
}
