//! The memory argument's test machine, shared by the MEMW (MEMW_A, MEMW), PAGE and PAGE0
//! rooms' unit tests and their proving test (`tests/tests/rv_memw.rs`): a driver sending
//! the access requests LOAD / STORE / IO would send, MEMW_A, MEMW, PAGE, PAGE0 and BITWISE;
//! a fixed image, random requests against a reference memory (with a hook for cheaters),
//! and the traces and checks of a run.

extern crate std;

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::air::debug::{check_machine, preprocessed_traces, DebugReport};
use crate::air::{Air, AirBuilder, Machine, TableAir};
use crate::field::Felt;
use crate::matrix::RowMajorMatrix;
use crate::rv::bitwise::{BitwiseAir, ByteCounts};
use crate::rv::memw::{self, MEMW, MEMW_A};
use crate::rv::page::{self, MemoryImage, PageAir, ZeroRange};
use crate::rv::page0::{self, Page0Air, ZeroWord};
use crate::rv::{WordAccess, BUS_MEM_A, BUS_MEM_S};

// ---------------------------------------------------------------------------------------
// The driver: sends the requests LOAD / STORE / IO would send.
// ---------------------------------------------------------------------------------------

/// Columns: `w, old[16], new[16], ts, m_a, m_s, wr` (a single-word request uses the first 8
/// bytes of `old` and `new`).
pub struct MemDriverAir;

pub const D_W: usize = 0;
pub const D_OLD: usize = 1;
pub const D_NEW: usize = 17;
pub const D_TS: usize = 33;
pub const D_MA: usize = 34;
pub const D_MS: usize = 35;
pub const D_WR: usize = 36;
pub const D_WIDTH: usize = 37;

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

pub struct MemMachine {
    pub page: PageAir,
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
pub struct Req {
    pub w: u32,
    pub split: bool,
    pub ts: u64,
    pub new: Option<[u64; 2]>,
}

/// The accesses of one request, as MEMW_A / MEMW see them.
#[derive(Copy, Clone, Debug)]
pub enum Row {
    A(WordAccess),
    S(WordAccess, WordAccess),
}

/// The accesses of a run, with PAGE and PAGE0's final tokens.
#[derive(Clone)]
pub struct Run {
    pub rows: Vec<Row>,
    pub page_finals: Vec<(u64, u64)>,
    pub page0: Vec<(u32, u64, u64)>,
}

/// Hook a cheater uses to change the accesses of request `i` before they are applied; gets
/// every word's token history (initial token first).
pub type Tamper<'a> = &'a mut dyn FnMut(usize, &mut [WordAccess], &BTreeMap<u32, Vec<(u64, u64)>>);

/// Writable words 100..112, read-only words 114..116 (a hole at 112, 113), then zero
/// ranges: bss 116..120, heap 120..140, "stack" 990..1010.
pub fn image() -> MemoryImage {
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
pub fn read_only(image: &MemoryImage, w: u32) -> bool {
    image
        .words
        .iter()
        .find(|e| e.0 == w)
        .map_or_else(|| image.zero_range(w).is_some_and(|z| z.ro), |e| e.2)
}

/// A fixed scenario, then random requests over image, heap and stack words.
pub fn requests(seed: u64, random: usize) -> Vec<Req> {
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

/// [`requests`] spread over a run of 2^36 cycles: from request 7 on, 2^33 later (request 7
/// reads heap word 125 written by request 6 at timestamp 19, a gap of `2^33 + 3`), and from
/// request 30 on, at the end of the run (words untouched since their initial token, at 0,
/// are read there: gaps of about 2^36). Gaps beyond four difference bytes.
pub fn wide_requests(seed: u64, random: usize) -> Vec<Req> {
    let mut reqs = requests(seed, random);
    let n = reqs.len() as u64;
    for (i, r) in reqs.iter_mut().enumerate() {
        if i >= 7 {
            r.ts += 1 << 33;
        }
        if i >= 30 {
            r.ts = (1 << 36) + 1 - 3 * (n - i as u64);
        }
    }
    reqs
}

/// Runs `reqs` against `image`, letting `tamper` change each request's accesses.
pub fn simulate(image: &MemoryImage, reqs: &[Req], tamper: Tamper<'_>) -> Run {
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

pub fn honest(image: &MemoryImage, reqs: &[Req]) -> Run {
    simulate(image, reqs, &mut |_, _, _| {})
}

pub fn driver_trace(rows: &[Row]) -> RowMajorMatrix {
    let h = rows.len().next_power_of_two().max(crate::params::MIN_ROWS);
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
pub fn traces(
    image: &MemoryImage,
    run: &Run,
    page0: Option<RowMajorMatrix>,
) -> Vec<RowMajorMatrix> {
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
pub fn zero_words(image: &MemoryImage, words: &[(u32, u64, u64)]) -> Vec<ZeroWord> {
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

pub fn check_traces(image: &MemoryImage, t: &[RowMajorMatrix]) -> DebugReport {
    let machine = MemMachine {
        page: PageAir::new(image),
    };
    let pre = preprocessed_traces(&machine);
    let refs: Vec<&RowMajorMatrix> = t.iter().collect();
    check_machine(&machine, &refs, &pre, &[])
}

pub fn check(image: &MemoryImage, run: &Run) -> DebugReport {
    check_traces(image, &traces(image, run, None))
}

pub fn fails(report: &DebugReport, table: &str, constraint: &str) -> bool {
    report
        .failures
        .iter()
        .any(|f| f.table == table && f.constraint == constraint)
}

pub fn unbalanced(report: &DebugReport, bus: u32) -> bool {
    report.imbalances.iter().any(|b| b.bus == bus)
}

/// Index of request `i`'s row in the table it went to.
pub fn table_row(run: &Run, i: usize) -> usize {
    let split = matches!(run.rows[i], Row::S(..));
    run.rows[..i]
        .iter()
        .filter(|r| matches!(r, Row::S(..)) == split)
        .count()
}

// Attacks in the machine.

/// Requests of seed 11 run with `tamper`, and the checker's report: an attack in the machine.
pub fn attack(tamper: Tamper<'_>) -> (Run, DebugReport) {
    let img = image();
    let run = simulate(&img, &requests(11, 40), tamper);
    let report = check(&img, &run);
    (run, report)
}

// ---------------------------------------------------------------------------------------
// The memory map: read-only words and words outside it.
// ---------------------------------------------------------------------------------------
