//! The memory-argument tables MEMW_A, MEMW, PAGE and PAGE0: honest traces satisfy every
//! constraint and have valid shapes; every single-cell mutation of a real row is detected;
//! and in a small machine (a driver sending access requests, MEMW_A, MEMW, PAGE, PAGE0,
//! BITWISE) the honest run balances while forged reads, stale reads, non-increasing
//! timestamps, duplicated / unsorted PAGE0 words, words outside the memory map, writes to
//! read-only words and wrong final values are caught.

use std::collections::BTreeMap;

use kestrel_core::air::debug::{check_machine, preprocessed_traces, DebugReport};
use kestrel_core::air::{Air, AirBuilder, Machine, TableAir, TableShape};
use kestrel_core::field::Felt;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::StarkParams;
use kestrel_core::rv::bitwise::{BitwiseAir, ByteCounts};
use kestrel_core::rv::memw::{self, MEMW, MEMW_A};
use kestrel_core::rv::page::{self, MemoryImage, PageAir, ZeroRange};
use kestrel_core::rv::page0::{self, Page0Air, ZeroWord};
use kestrel_core::rv::{WordAccess, BUS_MEM, BUS_MEM_A, BUS_MEM_S, BUS_ZRANGE};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::prover::{prove, setup};
use kestrel_tests::mutation::assert_all_detected;
use kestrel_verifier::verify;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------------------
// The driver: sends the requests LOAD / STORE / IO would send.
// ---------------------------------------------------------------------------------------

/// Columns: `w, old[16], new[16], ts, m_a, m_s, wr` (a single-word request uses the first 8
/// bytes of `old` and `new`).
struct MemDriverAir;

const D_W: usize = 0;
const D_OLD: usize = 1;
const D_NEW: usize = 17;
const D_TS: usize = 33;
const D_MA: usize = 34;
const D_MS: usize = 35;
const D_WR: usize = 36;
const D_WIDTH: usize = 37;

impl Air for MemDriverAir {
    fn name(&self) -> &str {
        "MEM_DRIVER"
    }
    fn width(&self) -> usize {
        D_WIDTH
    }
    fn eval<B: AirBuilder>(&self, b: &mut B) {
        let m = |i: usize| b.main(i);
        let tuple = |k: usize| {
            let mut t = vec![m(D_W)];
            t.extend((0..8 * k).map(|i| m(D_OLD + i)));
            t.extend((0..8 * k).map(|i| m(D_NEW + i)));
            t.push(m(D_TS));
            t.push(m(D_WR));
            t
        };
        let (a, s) = (tuple(1), tuple(2));
        let (ma, ms) = (m(D_MA), m(D_MS));
        b.send(BUS_MEM_A, ma, &a);
        b.send(BUS_MEM_S, ms, &s);
    }
}

struct MemMachine {
    page: PageAir,
}

impl Machine for MemMachine {
    fn name(&self) -> &str {
        "mem-test"
    }
    fn tables(&self) -> Vec<&dyn TableAir> {
        vec![
            &MemDriverAir,
            &MEMW_A,
            &MEMW,
            &self.page,
            &Page0Air,
            &BitwiseAir,
        ]
    }
    fn num_public_values(&self) -> usize {
        0
    }
}

// ---------------------------------------------------------------------------------------
// A run: requests, a reference memory, and the traces.
// ---------------------------------------------------------------------------------------

/// One request: word `w` (and `w + 1` when split) at `ts`; a write stores `new`.
#[derive(Copy, Clone, Debug)]
struct Req {
    w: u32,
    split: bool,
    ts: u64,
    new: Option<[u64; 2]>,
}

/// The accesses of one request, as MEMW_A / MEMW see them.
#[derive(Copy, Clone, Debug)]
enum Row {
    A(WordAccess),
    S(WordAccess, WordAccess),
}

/// The accesses of a run, with PAGE and PAGE0's final tokens.
#[derive(Clone)]
struct Run {
    rows: Vec<Row>,
    page_finals: Vec<(u64, u64)>,
    page0: Vec<(u32, u64, u64)>,
}

/// Hook a cheater uses to change the accesses of request `i` before they are applied; gets
/// every word's token history (initial token first).
type Tamper<'a> = &'a mut dyn FnMut(usize, &mut [WordAccess], &BTreeMap<u32, Vec<(u64, u64)>>);

/// Writable words 100..112, read-only words 114..116 (a hole at 112, 113), then zero
/// ranges: bss 116..120, heap 120..140, "stack" 990..1010.
fn image() -> MemoryImage {
    let mut words = Vec::new();
    for w in (100..112).chain(114..116) {
        let v = (w as u64).wrapping_mul(0x0101_0101_0101_0101) ^ 0x8000_0000_0000_00ff;
        words.push((w, v, w >= 114));
    }
    let z = |lo, hi| ZeroRange { lo, hi, ro: false };
    MemoryImage {
        words,
        zero: vec![z(116, 120), z(120, 140), z(990, 1010)],
    }
}

/// Whether word `w` of `image` is read-only.
fn read_only(image: &MemoryImage, w: u32) -> bool {
    image
        .words
        .iter()
        .find(|e| e.0 == w)
        .map_or_else(|| image.zero_range(w).is_some_and(|z| z.ro), |e| e.2)
}

/// A fixed scenario, then random requests over image, heap and stack words.
fn requests(seed: u64, random: usize) -> Vec<Req> {
    let a = |w, new: Option<u64>| Req {
        w,
        split: false,
        ts: 0,
        new: new.map(|v| [v, 0]),
    };
    let s = |w, new: Option<[u64; 2]>| Req {
        w,
        split: true,
        ts: 0,
        new,
    };
    let mut reqs = vec![
        a(100, None),                     // 0: read an image word
        a(100, Some(0x1111)),             // 1: overwrite it
        a(100, None),                     // 2: read it back
        a(105, None),                     // 3: read an image word
        s(110, Some([0xaaaa, u64::MAX])), // 4: split write inside the image
        s(119, None),                     // 5: split read across image / heap
        a(125, Some(0x2222)),             // 6: heap write
        a(125, None),                     // 7: heap read
        a(130, None),                     // 8: untouched heap word reads 0
        s(1000, Some([7, 8])),            // 9: stack split write
        a(1001, None),                    // 10: stack read
        a(100, Some(0x3333)),             // 11: overwrite again
        s(109, None),                     // 12: split read
        a(114, None),                     // 13: read a read-only word
        s(115, None),                     // 14: split read across read-only / bss
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool: Vec<u32> = (100..112).chain(114..140).chain(990..1009).collect();
    for _ in 0..random {
        let split = rng.gen_bool(0.3);
        let mut w = pool[rng.gen_range(0..pool.len())];
        if split && !pool.contains(&(w + 1)) {
            w -= 1;
        }
        // Read-only words are only read.
        let ro = (114..116).contains(&w) || (split && w + 1 == 114);
        let new = (!ro && rng.gen_bool(0.5)).then(|| [rng.gen(), rng.gen()]);
        reqs.push(if split {
            s(w, new)
        } else {
            a(w, new.map(|v| v[0]))
        });
    }
    // Timestamps with gaps, as the CPU's would have.
    for (i, r) in reqs.iter_mut().enumerate() {
        r.ts = 3 * i as u64 + 1;
    }
    reqs
}

/// Runs `reqs` against `image`, letting `tamper` change each request's accesses.
fn simulate(image: &MemoryImage, reqs: &[Req], tamper: Tamper<'_>) -> Run {
    let in_image: BTreeMap<u32, u64> = image.words.iter().map(|e| (e.0, e.1)).collect();
    let mut hist: BTreeMap<u32, Vec<(u64, u64)>> = BTreeMap::new();
    // Tokens a tampered access left unconsumed: (w, value, ts).
    let mut orphans: Vec<(u32, u64, u64)> = Vec::new();
    let mut rows = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let n = if r.split { 2 } else { 1 };
        let mut acc: Vec<WordAccess> = (0..n)
            .map(|j| {
                let w = r.w + j as u32;
                let h = hist
                    .entry(w)
                    .or_insert_with(|| vec![(in_image.get(&w).copied().unwrap_or(0), 0)]);
                let (old, old_ts) = *h.last().unwrap();
                WordAccess {
                    w,
                    old,
                    new: r.new.map_or(old, |v| v[j]),
                    old_ts,
                    ts: r.ts,
                    ro: read_only(image, w),
                    wr: r.new.is_some(),
                }
            })
            .collect();
        tamper(i, &mut acc, &hist);
        for a in &acc {
            let h = hist.get_mut(&a.w).unwrap();
            let cur = *h.last().unwrap();
            if (a.old, a.old_ts) != cur {
                orphans.push((a.w, cur.0, cur.1));
            }
            h.push((a.new, a.ts));
        }
        rows.push(if r.split {
            Row::S(acc[0], acc[1])
        } else {
            Row::A(acc[0])
        });
    }
    // PAGE consumes each image word's final token, or, when a cheater restarted the word
    // from zero, the abandoned chain rooted at PAGE; every other chain ends in PAGE0.
    let mut page_finals = Vec::new();
    let mut page0: Vec<(u32, u64, u64)> = Vec::new();
    for &(w, init, _) in &image.words {
        let cur = hist.get(&w).map_or((init, 0), |h| *h.last().unwrap());
        match orphans.iter().position(|o| o.0 == w) {
            Some(k) => {
                let o = orphans.remove(k);
                page_finals.push((o.1, o.2));
                page0.push((w, cur.0, cur.1));
            }
            None => page_finals.push(cur),
        }
    }
    for (&w, h) in &hist {
        if !in_image.contains_key(&w) {
            let cur = h.last().unwrap();
            page0.push((w, cur.0, cur.1));
        }
    }
    page0.extend(orphans.iter().filter(|o| !in_image.contains_key(&o.0)));
    page0.sort();
    Run {
        rows,
        page_finals,
        page0,
    }
}

fn honest(image: &MemoryImage, reqs: &[Req]) -> Run {
    simulate(image, reqs, &mut |_, _, _| {})
}

fn driver_trace(rows: &[Row]) -> RowMajorMatrix {
    let h = rows.len().next_power_of_two().max(8);
    let mut m = RowMajorMatrix::zeros(h, D_WIDTH);
    for (r, row) in rows.iter().enumerate() {
        let out = m.row_mut(r);
        let acc: Vec<WordAccess> = match *row {
            Row::A(a) => {
                out[D_MA] = Felt::ONE;
                vec![a]
            }
            Row::S(a, b) => {
                out[D_MS] = Felt::ONE;
                vec![a, b]
            }
        };
        out[D_W] = Felt::from(acc[0].w);
        out[D_TS] = Felt::new(acc[0].ts);
        out[D_WR] = Felt::from(acc[0].wr);
        for (j, a) in acc.iter().enumerate() {
            for i in 0..8 {
                out[D_OLD + 8 * j + i] = Felt::from(a.old.to_le_bytes()[i] as u32);
                out[D_NEW + 8 * j + i] = Felt::from(a.new.to_le_bytes()[i] as u32);
            }
        }
    }
    m
}

/// Driver, MEMW_A, MEMW, PAGE, PAGE0, BITWISE traces; `page0` replaces PAGE0's (its range
/// checks are then counted from its real rows).
fn traces(image: &MemoryImage, run: &Run, page0: Option<RowMajorMatrix>) -> Vec<RowMajorMatrix> {
    let mut bytes = ByteCounts::default();
    let a: Vec<WordAccess> = run
        .rows
        .iter()
        .filter_map(|r| match *r {
            Row::A(a) => Some(a),
            Row::S(..) => None,
        })
        .collect();
    let s: Vec<(WordAccess, WordAccess)> = run
        .rows
        .iter()
        .filter_map(|r| match *r {
            Row::S(a, b) => Some((a, b)),
            Row::A(_) => None,
        })
        .collect();
    let ta = memw::build_trace_a(&a, &mut bytes);
    let ts = memw::build_trace_s(&s, &mut bytes);
    let zero = zero_words(image, &run.page0);
    let tp = page::build_trace(image, &run.page_finals, &page::zero_counts(image, &zero));
    let t0 = match page0 {
        Some(t) => {
            for r in t.rows() {
                if r[page0::P0_REAL] == Felt::ONE {
                    for base in [page0::P0_D, page0::P0_E, page0::P0_F] {
                        let d = |i: usize| r[base + i].as_u64() as u8;
                        bytes.range(d(0), d(1));
                        bytes.range(d(2), d(3));
                    }
                }
            }
            t
        }
        None => page0::build_trace(&zero, &mut bytes),
    };
    vec![driver_trace(&run.rows), ta, ts, tp, t0, bytes.trace()]
}

/// PAGE0's rows for `(w, final value, final ts)`: each word with its zero range (a word
/// outside every range gets an empty range at 0, which no PAGE row lists).
fn zero_words(image: &MemoryImage, words: &[(u32, u64, u64)]) -> Vec<ZeroWord> {
    words
        .iter()
        .map(|&(w, fin, fin_ts)| ZeroWord {
            w,
            range: image.zero_range(w).unwrap_or_default(),
            fin,
            fin_ts,
        })
        .collect()
}

fn check_traces(image: &MemoryImage, t: &[RowMajorMatrix]) -> DebugReport {
    let machine = MemMachine {
        page: PageAir::new(image),
    };
    let pre = preprocessed_traces(&machine);
    let refs: Vec<&RowMajorMatrix> = t.iter().collect();
    check_machine(&machine, &refs, &pre, &[])
}

fn check(image: &MemoryImage, run: &Run) -> DebugReport {
    check_traces(image, &traces(image, run, None))
}

fn fails(report: &DebugReport, table: &str, constraint: &str) -> bool {
    report
        .failures
        .iter()
        .any(|f| f.table == table && f.constraint == constraint)
}

fn unbalanced(report: &DebugReport, bus: u32) -> bool {
    report.imbalances.iter().any(|b| b.bus == bus)
}

/// Index of request `i`'s row in the table it went to.
fn table_row(run: &Run, i: usize) -> usize {
    let split = matches!(run.rows[i], Row::S(..));
    run.rows[..i]
        .iter()
        .filter(|r| matches!(r, Row::S(..)) == split)
        .count()
}

// ---------------------------------------------------------------------------------------
// Honest runs.
// ---------------------------------------------------------------------------------------

#[test]
fn shapes_are_valid() {
    let img = image();
    let tables: [&dyn TableAir; 5] = [
        &MEMW_A,
        &MEMW,
        &PageAir::new(&img),
        &PageAir::shape_only(),
        &Page0Air,
    ];
    for t in tables {
        let shape = TableShape::of(t, 0);
        assert!(shape.is_ok(), "{}: {shape:?}", t.name());
        println!("{}: {:?}", t.name(), shape.unwrap());
    }
    assert_eq!(Air::width(&MEMW_A), 26);
    assert_eq!(Air::width(&MEMW), 48);
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
fn honest_run_proves_and_verifies() {
    let img = image();
    let run = honest(&img, &requests(4, 30));
    let t = traces(&img, &run, None);
    let machine = MemMachine {
        page: PageAir::new(&img),
    };
    let pk = setup(&CpuBackend, &machine, StarkParams::BLOWUP_8).unwrap();
    let (proof, _) = prove(&CpuBackend, &pk, &machine, &t, &[]).unwrap();
    // The verifier's PAGE carries no trace: its commitment comes from the verifying key.
    let verifier = MemMachine {
        page: PageAir::shape_only(),
    };
    verify(&verifier, &pk.vk, &[], &proof.to_bytes()).unwrap();
    // Another image's key rejects the proof.
    let mut other = image();
    other.words[3].1 ^= 1;
    let mut other_ro = image();
    other_ro.words[3].2 = true;
    let mut other_map = image();
    other_map.zero[1].hi += 1;
    for other in [other_ro, other_map] {
        let pk2 = setup(
            &CpuBackend,
            &MemMachine {
                page: PageAir::new(&other),
            },
            StarkParams::BLOWUP_8,
        )
        .unwrap();
        assert!(verify(&verifier, &pk2.vk, &[], &proof.to_bytes()).is_err());
    }
    let pk2 = setup(
        &CpuBackend,
        &MemMachine {
            page: PageAir::new(&other),
        },
        StarkParams::BLOWUP_8,
    )
    .unwrap();
    assert!(verify(&verifier, &pk2.vk, &[], &proof.to_bytes()).is_err());
}

#[test]
#[should_panic(expected = "an image word lies in a zero range")]
fn page_rejects_image_word_in_zero_range() {
    let mut img = image();
    img.zero[0].lo = 115;
    let _ = PageAir::new(&img);
}

#[test]
#[should_panic(expected = "zero ranges are not sorted and disjoint")]
fn page_rejects_overlapping_zero_ranges() {
    let mut img = image();
    img.zero[1].lo = 119;
    let _ = PageAir::new(&img);
}

// ---------------------------------------------------------------------------------------
// Mutations.
// ---------------------------------------------------------------------------------------

#[test]
fn mutations_are_detected() {
    let img = image();
    let run = honest(&img, &requests(9, 60));
    let t = traces(&img, &run, None);
    let machine = MemMachine {
        page: PageAir::new(&img),
    };
    let pre = preprocessed_traces(&machine);
    let n_a = run.rows.iter().filter(|r| matches!(r, Row::A(_))).count();
    let n_s = run.rows.len() - n_a;
    let rows = |n: usize| (0..n).collect::<Vec<_>>();
    assert_all_detected(&MEMW_A, &t[1], None, &[], &rows(n_a), 40);
    assert_all_detected(&MEMW, &t[2], None, &[], &rows(n_s), 40);
    assert_all_detected(
        &machine.page,
        &t[3],
        pre[3].as_ref(),
        &[],
        &rows(img.words.len().max(img.zero.len())),
        40,
    );
    assert_all_detected(&Page0Air, &t[4], None, &[], &rows(run.page0.len()), 40);
}

// ---------------------------------------------------------------------------------------
// Attacks in the machine.
// ---------------------------------------------------------------------------------------

fn attack(tamper: Tamper<'_>) -> (Run, DebugReport) {
    let img = image();
    let run = simulate(&img, &requests(11, 40), tamper);
    let report = check(&img, &run);
    (run, report)
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
fn page0_word_twice() {
    // Request 7 reads heap word 125 as 0 by restarting it from a second initial token.
    let (run, r) = attack(&mut |i, acc, _| {
        if i == 7 {
            acc[0].old = 0;
            acc[0].new = 0;
            acc[0].old_ts = 0;
        }
    });
    assert_eq!(run.page0.iter().filter(|e| e.0 == 125).count(), 2);
    // The buses balance; only the ordering constraint catches it.
    assert!(r.imbalances.is_empty(), "{r}");
    assert!(fails(&r, "PAGE0", "page0 words strictly increase"), "{r}");

    // The same, hiding the second copy after a padding row (w chosen so the gap is 0).
    let img = image();
    let mut dup: Vec<(u32, u64, u64)> = run.page0.clone();
    let k = dup.iter().position(|e| e.0 == 125).unwrap();
    let second = dup.remove(k + 1);
    let mut sink = ByteCounts::default();
    let base = page0::build_trace(&zero_words(&img, &dup), &mut sink);
    let n = dup.len();
    let mut t = RowMajorMatrix::zeros((n + 2).next_power_of_two().max(8), page0::P0_WIDTH);
    for r in 0..n {
        t.row_mut(r).copy_from_slice(base.row(r));
    }
    // Row n: padding with w = 124; row n + 1: the second 125, gap 125 − 124 − 1 = 0.
    t.row_mut(n)[page0::P0_W] = Felt::from(124u32);
    let row = t.row_mut(n + 1);
    row[page0::P0_REAL] = Felt::ONE;
    row[page0::P0_W] = Felt::from(second.0);
    for (i, byte) in second.1.to_le_bytes().into_iter().enumerate() {
        row[page0::P0_FIN + i] = Felt::from(byte as u32);
    }
    row[page0::P0_FIN_TS] = Felt::new(second.2);
    // Its range, and bounds, as an honest row would have them.
    let heap = img.zero_range(125).unwrap();
    row[page0::P0_LO] = Felt::from(heap.lo);
    row[page0::P0_HI] = Felt::from(heap.hi);
    for (base, v) in [
        (page0::P0_E, 125 - heap.lo),
        (page0::P0_F, heap.hi - 1 - 125),
    ] {
        for (i, byte) in v.to_le_bytes().into_iter().enumerate() {
            row[base + i] = Felt::from(byte as u32);
        }
    }
    let r = check_traces(&img, &traces(&img, &run, Some(t)));
    assert!(r.imbalances.is_empty(), "{r}");
    assert!(fails(&r, "PAGE0", "page0 real rows first"), "{r}");
}

#[test]
fn page0_image_word() {
    // Request 3 reads image word 105 as 0 by taking a zero token from PAGE0.
    let (run, r) = attack(&mut |i, acc, _| {
        if i == 3 {
            acc[0].old = 0;
            acc[0].new = 0;
            acc[0].old_ts = 0;
        }
    });
    assert_eq!(run.page0[0].0, 105);
    assert!(unbalanced(&r, BUS_ZRANGE), "{r}");
    // A word that is not in the image and in no zero range either (112: the image's hole).
    let img = image();
    let mut reqs = requests(11, 0);
    reqs[8].w = 112;
    let r = check(&img, &honest(&img, &reqs));
    assert!(unbalanced(&r, BUS_ZRANGE), "{r}");
}

#[test]
fn page0_unsorted() {
    let img = image();
    let mut run = honest(&img, &requests(11, 40));
    assert!(check(&img, &run).is_ok());
    let n = run.page0.len();
    assert!(n >= 4);
    // Swap two later words and then the first two.
    run.page0.swap(2, 3);
    let r = check(&img, &run);
    assert!(r.imbalances.is_empty(), "{r}");
    assert!(fails(&r, "PAGE0", "page0 words strictly increase"), "{r}");
    run.page0.swap(2, 3);
    run.page0.swap(0, 1);
    let r = check(&img, &run);
    assert!(fails(&r, "PAGE0", "page0 words strictly increase"), "{r}");
}

#[test]
fn final_value_differs_from_last_write() {
    let img = image();
    let run = honest(&img, &requests(11, 40));
    // PAGE: word 100's final claimed as its initial value (as if never written).
    let mut bad = run.clone();
    let k = img.words.iter().position(|e| e.0 == 100).unwrap();
    assert_ne!(bad.page_finals[k].0, img.words[k].1);
    bad.page_finals[k].0 = img.words[k].1;
    let r = check(&img, &bad);
    assert!(unbalanced(&r, BUS_MEM), "{r}");
    // PAGE: right value, wrong timestamp (an earlier token).
    let mut bad = run.clone();
    bad.page_finals[k].1 -= 1;
    assert!(unbalanced(&check(&img, &bad), BUS_MEM));
    // PAGE0: heap word 125's final value changed.
    let mut bad = run.clone();
    let k = bad.page0.iter().position(|e| e.0 == 125).unwrap();
    bad.page0[k].1 ^= 0x100;
    let r = check(&img, &bad);
    assert!(unbalanced(&r, BUS_MEM), "{r}");
}

// ---------------------------------------------------------------------------------------
// The memory map: read-only words and words outside it.
// ---------------------------------------------------------------------------------------

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

#[test]
fn words_outside_the_map() {
    let img = image();
    // The image's hole, just past the heap's end, just below and at the stack's end, and
    // word 2^29 (a split access at 0xFFFF_FFFC reaches it).
    for w in [112u32, 113, 140, 989, 1010, 1 << 29] {
        let mut reqs = requests(11, 0);
        reqs[8].w = w;
        let run = honest(&img, &reqs);
        assert!(run.page0.iter().any(|e| e.0 == w));
        // Honestly: no zero range holds the word.
        let r = check(&img, &run);
        assert!(unbalanced(&r, BUS_ZRANGE), "w {w}: {r}");
        // Forged: the row claims the nearest range (with PAGE's counts to match); its
        // bounds fail.
        let mut zero = zero_words(&img, &run.page0);
        let k = zero.iter().position(|z| z.w == w).unwrap();
        zero[k].range = if w < 990 { img.zero[1] } else { img.zero[2] };
        let mut sink = ByteCounts::default();
        let t0 = page0::build_trace(&zero, &mut sink);
        let mut t = traces(&img, &run, Some(t0));
        t[3] = page::build_trace(&img, &run.page_finals, &page::zero_counts(&img, &zero));
        let r = check_traces(&img, &t);
        assert!(r.imbalances.is_empty(), "w {w}: {r}");
        assert!(
            fails(&r, "PAGE0", "page0 word at or above its range")
                || fails(&r, "PAGE0", "page0 word below its range's end"),
            "w {w}: {r}"
        );
    }
    // A range the key does not list (the heap's, one word longer).
    let mut reqs = requests(11, 0);
    reqs[8].w = 140;
    let run = honest(&img, &reqs);
    let mut zero = zero_words(&img, &run.page0);
    let k = zero.iter().position(|z| z.w == 140).unwrap();
    zero[k].range = ZeroRange {
        lo: 120,
        hi: 141,
        ro: false,
    };
    let mut sink = ByteCounts::default();
    let t = traces(&img, &run, Some(page0::build_trace(&zero, &mut sink)));
    let r = check_traces(&img, &t);
    assert!(unbalanced(&r, BUS_ZRANGE), "{r}");
    // PAGE offering a range on a row that holds none.
    let run = honest(&img, &requests(11, 0));
    let mut t = traces(&img, &run, None);
    let last = t[3].height() - 1;
    t[3].row_mut(last)[page::ZMULT] = Felt::ONE;
    let r = check_traces(&img, &t);
    assert!(
        fails(&r, "PAGE", "page zmult only on zero-range rows"),
        "{r}"
    );
}
