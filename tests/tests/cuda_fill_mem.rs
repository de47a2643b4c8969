//! Device-resident fills of the memory tables (kernels/rv/load.cu, store.cu, memw.cu): LOAD, STORE and MEMW_A,
//! each bit for bit against its Rust builder on real programs' records and on edge-case and
//! random records (every funct3, every offset, split and not, sign bits, timestamps at and
//! above the field modulus, wrapping freshness differences, empty lists, heights from the
//! minimum to well past it).
//!
//! Without a GPU: the core's `lookups` functions (what the host packing pass counts for a
//! device-filled table) record exactly the BITWISE lookups the builders record. The GPU
//! tests are `#[ignore]`d ("needs a CUDA device") and run with `--ignored` on the GPU
//! machine, where a missing device fails them.
//!
//! Real programs' records are read back from the traces `pack_traces` builds (the rows
//! determine the records; rebuilding each trace from them is checked), so they are exactly
//! the records the machine feeds the builders.

use kestrel_core::field::{Felt, P};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::MIN_ROWS;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::pack::pack_traces;
use kestrel_core::rv::{load, memw, store, LoadOp, StoreOp, WordAccess};
use kestrel_prover_gpu::rv::{machine_for, program_image, steps};
use kestrel_tests::vm_support::{input_of, run_recorded, PROVABLE_PROGRAMS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One set of records for the three tables.
#[derive(Clone, Debug, Default)]
struct Records {
    loads: Vec<LoadOp>,
    stores: Vec<StoreOp>,
    mem_a: Vec<WordAccess>,
}

/// The records behind the LOAD, STORE and MEMW_A traces of a real run (as the packing pass
/// hands them to the device fills).
fn program_records(name: &str) -> Records {
    let (program, records, _) = run_recorded(name, input_of(name));
    let (image, steps) = (program_image(&program), steps(&records));
    let machine = machine_for(&image);
    let packed = pack_traces(&machine, &image, &steps, input_of(name)).unwrap();
    Records {
        loads: packed.loads,
        stores: packed.stores,
        mem_a: packed.mem_a,
    }
}

/// Timestamps around the field modulus and the ends of `u64`.
const EDGE_TS: [u64; 8] = [0, 1, 2, 1 << 32, P - 1, P, P + 1, u64::MAX];

/// Words with every byte's sign bit set, clear, mixed.
const EDGE_WORDS: [u64; 7] = [
    0,
    u64::MAX,
    0x8080_8080_8080_8080,
    0x7f7f_7f7f_7f7f_7f7f,
    0x0123_4567_89ab_cdef,
    0xfedc_ba98_7654_3210,
    0x00ff_00ff_80ff_7f01,
];

/// Address high parts (bytes 1..4; byte 0 is chosen per offset and `q`).
const EDGE_ADDR_HI: [u32; 4] = [0, 0x100, 0x00ab_cd00, 0xffff_ff00];

/// Every funct3 (and a few bytes beyond; the builders take any `u8`), every offset, both
/// sides of a word boundary, every sign-bit pattern, extreme timestamps and addresses.
fn edge_records() -> Records {
    let mut r = Records::default();
    let mut k = 0usize;
    let funct3s: Vec<u8> = (0..8).chain([8, 0x7f, 0xff]).collect();
    for &f in &funct3s {
        for off in 0..8u32 {
            for (j, &w0) in EDGE_WORDS.iter().enumerate() {
                let w1 = EDGE_WORDS[(j + 3) % EDGE_WORDS.len()];
                let q = [0u32, 1, 31][k % 3];
                let addr = EDGE_ADDR_HI[k % 4] | q << 3 | off;
                let ts = EDGE_TS[k % EDGE_TS.len()];
                r.loads.push(LoadOp {
                    ts,
                    funct3: f,
                    addr,
                    word0: w0,
                    // Not split: any word1 (the builder ignores it).
                    word1: w1,
                });
                r.stores.push(StoreOp {
                    ts,
                    funct3: f,
                    addr,
                    value: EDGE_WORDS[(j + 1) % EDGE_WORDS.len()],
                    old0: w0,
                    old1: w1,
                });
                k += 1;
            }
        }
    }
    let ws = [0u32, 1, (1 << 29) - 1, 1 << 29, u32::MAX];
    for (i, &old_ts) in EDGE_TS.iter().enumerate() {
        for (j, &ts) in EDGE_TS.iter().enumerate() {
            r.mem_a.push(WordAccess {
                w: ws[(i + j) % ws.len()],
                old: EDGE_WORDS[i % EDGE_WORDS.len()],
                new: EDGE_WORDS[j % EDGE_WORDS.len()],
                old_ts,
                ts,
                ro: i % 2 == 1,
                wr: (i + j) % 3 == 0,
            });
        }
    }
    // Freshness differences at the byte and u32 boundaries (and past them: wrapping).
    for d in [
        0u64,
        0xff,
        0x100,
        0xffff,
        0x1_0000,
        0xff_ffff,
        0xffff_fffe,
        0xffff_ffff,
    ] {
        for base in [0u64, 7, P - 2, u64::MAX - d - 1] {
            r.mem_a.push(WordAccess {
                w: 1234,
                old: 1,
                new: 2,
                old_ts: base,
                ts: base.wrapping_add(d).wrapping_add(1),
                ro: false,
                wr: true,
            });
        }
    }
    r
}

/// Realistic records: `n` loads and stores replayed over a few words of memory (timestamps
/// increasing like `clk + 1`, split accesses crossing into the next word, the accesses
/// inside one word going to MEMW_A with their previous timestamps), plus read/write-call
/// style MEMW_A rows.
fn replay_records(n: usize, seed: u64) -> Records {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let words = 6u32;
    let base = rng.gen_range(0..(1u32 << 29) - words);
    let mut mem: Vec<(u64, u64)> = (0..words + 1).map(|_| (rng.gen(), 0)).collect();
    let mut r = Records::default();
    let mut clk = rng.gen_range(0..1000u64);
    let access = |mem: &mut [(u64, u64)], i: usize, new: u64, ts: u64| {
        let (old, old_ts) = mem[i];
        mem[i] = (new, ts);
        WordAccess {
            w: base + i as u32,
            old,
            new,
            old_ts,
            ts,
            ro: i.is_multiple_of(2),
            wr: new != old,
        }
    };
    for _ in 0..n {
        clk += rng.gen_range(1..5);
        let ts = clk + 1;
        let i = rng.gen_range(0..words as usize);
        let off = rng.gen_range(0..8u32);
        let addr = 8 * (base + i as u32) + off;
        match rng.gen_range(0..5) {
            0..=1 => {
                let funct3 = rng.gen_range(0..7u8);
                let split = load::is_split(funct3, addr);
                let op = LoadOp {
                    ts,
                    funct3,
                    addr,
                    word0: mem[i].0,
                    word1: if split { mem[i + 1].0 } else { 0 },
                };
                r.loads.push(op);
                let a0 = access(&mut mem, i, op.word0, ts);
                if split {
                    access(&mut mem, i + 1, op.word1, ts);
                } else {
                    r.mem_a.push(a0);
                }
            }
            2..=3 => {
                let funct3 = rng.gen_range(0..4u8);
                let split = load::is_split(funct3, addr);
                let op = StoreOp {
                    ts,
                    funct3,
                    addr,
                    value: if rng.gen_bool(0.3) {
                        EDGE_WORDS[rng.gen_range(0..EDGE_WORDS.len())]
                    } else {
                        rng.gen()
                    },
                    old0: mem[i].0,
                    old1: if split { mem[i + 1].0 } else { 0 },
                };
                r.stores.push(op);
                let (n0, n1) = store::store_words(&op);
                let a0 = access(&mut mem, i, n0, ts);
                if split {
                    access(&mut mem, i + 1, n1, ts);
                } else {
                    r.mem_a.push(a0);
                }
            }
            _ => {
                // A read call's word: some bytes replaced.
                let new = mem[i].0 ^ rng.gen::<u64>();
                r.mem_a.push(access(&mut mem, i, new, ts));
            }
        }
    }
    r
}

/// `n` records of each table with arbitrary fields (the builders take any record).
fn random_records(n: usize, seed: u64) -> Records {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let word = |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.3) {
            EDGE_WORDS[rng.gen_range(0..EDGE_WORDS.len())]
        } else {
            rng.gen()
        }
    };
    let ts = |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.2) {
            EDGE_TS[rng.gen_range(0..EDGE_TS.len())]
        } else if rng.gen_bool(0.5) {
            rng.gen_range(0..1 << 30)
        } else {
            rng.gen()
        }
    };
    let funct3 = |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.9) {
            rng.gen_range(0..8)
        } else {
            rng.gen()
        }
    };
    let mut r = Records::default();
    for _ in 0..n {
        r.loads.push(LoadOp {
            ts: ts(&mut rng),
            funct3: funct3(&mut rng),
            addr: rng.gen(),
            word0: word(&mut rng),
            word1: word(&mut rng),
        });
        r.stores.push(StoreOp {
            ts: ts(&mut rng),
            funct3: funct3(&mut rng),
            addr: rng.gen(),
            value: word(&mut rng),
            old0: word(&mut rng),
            old1: word(&mut rng),
        });
        let t = ts(&mut rng);
        r.mem_a.push(WordAccess {
            w: rng.gen(),
            old: word(&mut rng),
            new: word(&mut rng),
            old_ts: if rng.gen_bool(0.8) {
                t.wrapping_sub(rng.gen_range(1..1 << 20))
            } else {
                ts(&mut rng)
            },
            ts: t,
            ro: rng.gen(),
            wr: rng.gen(),
        });
    }
    r
}

/// `n` records: every third from `y`, the others cycling through `x` (or all from `y`
/// when `x` is empty).
fn mix<T: Copy>(n: usize, x: &[T], y: &[T]) -> Vec<T> {
    (0..n)
        .map(|i| {
            if i % 3 == 0 || x.is_empty() {
                y[i]
            } else {
                x[i % x.len()]
            }
        })
        .collect()
}

/// Records of `n` ops per table: replayed and arbitrary ones interleaved.
fn mixed_records(n: usize, seed: u64) -> Records {
    let a = replay_records(n, seed);
    let b = random_records(n, seed ^ 0x5eed);
    Records {
        loads: mix(n, &a.loads, &b.loads),
        stores: mix(n, &a.stores, &b.stores),
        mem_a: mix(n, &a.mem_a, &b.mem_a),
    }
}

/// Sizes covering the minimum height (8), exactly full, one past, and larger.
const SIZES: [usize; 7] = [0, 1, 7, 8, 9, 1000, 70_001];

/// Every test record set: edge records, replays and random records of every size.
fn record_sets() -> Vec<(String, Records)> {
    let mut sets = vec![("edge".to_string(), edge_records())];
    for (k, &n) in SIZES.iter().enumerate() {
        sets.push((format!("replay {n}"), replay_records(n, k as u64)));
        sets.push((format!("random {n}"), random_records(n, 100 + k as u64)));
        sets.push((format!("mixed {n}"), mixed_records(n, 200 + k as u64)));
    }
    sets.push(("wide".to_string(), wide_records(500, 9)));
    sets
}

/// Replayed records spread over a run of 2^36 cycles: the MEMW_A accesses of the second
/// half 2^35 cycles later (gaps beyond four difference bytes, up to about 2^36 for words
/// untouched since their initial token).
fn wide_records(n: usize, seed: u64) -> Records {
    let mut r = replay_records(n, seed);
    let mid = r.mem_a[r.mem_a.len() / 2].ts;
    let late = |ts: u64| if ts >= mid { ts + (1 << 35) } else { ts };
    for a in &mut r.mem_a {
        a.ts = late(a.ts);
        a.old_ts = late(a.old_ts);
    }
    r
}

/// `lookups` records exactly the builder's lookups, on top of lookups already counted.
fn check_lookups(name: &str, r: &Records) {
    let mut seed = ByteCounts::default();
    seed.range(1, 2);
    seed.add(3, 0xff, 0x80);
    let counts = |f: &dyn Fn(&mut ByteCounts)| {
        let mut b = seed.clone();
        f(&mut b);
        b.trace()
    };
    let built = counts(&|b| drop(load::build_trace(&r.loads, b)));
    assert!(
        built == counts(&|b| load::lookups(&r.loads, b)),
        "{name}: LOAD lookups"
    );
    let built = counts(&|b| drop(store::build_trace(&r.stores, b)));
    assert!(
        built == counts(&|b| store::lookups(&r.stores, b)),
        "{name}: STORE lookups"
    );
    let built = counts(&|b| drop(memw::build_trace_a(&r.mem_a, b)));
    assert!(
        built == counts(&|b| memw::lookups_a(&r.mem_a, b)),
        "{name}: MEMW_A lookups"
    );
    // And the three together, in the machine's order.
    let built = counts(&|b| {
        load::build_trace(&r.loads, b);
        store::build_trace(&r.stores, b);
        memw::build_trace_a(&r.mem_a, b);
    });
    let looked = counts(&|b| {
        load::lookups(&r.loads, b);
        store::lookups(&r.stores, b);
        memw::lookups_a(&r.mem_a, b);
    });
    assert!(built == looked, "{name}: all lookups");
}

/// Without a GPU: on every provable program's records, `lookups` equals the builders.
#[test]
fn lookups_match_the_builders_on_programs() {
    let mut total = Records::default();
    for &(name, _) in PROVABLE_PROGRAMS {
        let r = program_records(name);
        check_lookups(name, &r);
        total.loads.extend(&r.loads);
        total.stores.extend(&r.stores);
        total.mem_a.extend(&r.mem_a);
    }
    // The programs exercise every table.
    assert!(!total.loads.is_empty() && !total.stores.is_empty() && !total.mem_a.is_empty());
}

/// Without a GPU: on edge, replayed and random records of every size, `lookups` equals the
/// builders; split pairs for MEMW too.
#[test]
fn lookups_match_the_builders_on_edge_and_random_records() {
    for (name, r) in record_sets() {
        check_lookups(&name, &r);
        // The edge set covers what it claims.
        if name == "edge" {
            for f in 0..8u8 {
                for off in 0..8u32 {
                    assert!(r.loads.iter().any(|o| o.funct3 == f && o.addr % 8 == off));
                    assert!(r.stores.iter().any(|o| o.funct3 == f && o.addr % 8 == off));
                }
            }
        }
    }
    // MEMW's pairs (lookups_s) as well.
    let r = random_records(1000, 7);
    let pairs: Vec<(WordAccess, WordAccess)> = r
        .mem_a
        .chunks_exact(2)
        .map(|p| {
            let mut b = p[1];
            b.w = p[0].w.wrapping_add(1);
            b.ts = p[0].ts;
            (p[0], b)
        })
        .collect();
    let (mut x, mut y) = (ByteCounts::default(), ByteCounts::default());
    memw::build_trace_s(&pairs, &mut x);
    memw::lookups_s(&pairs, &mut y);
    assert!(x.trace() == y.trace(), "MEMW lookups");
}

/// The helper traces' shapes: what the device must produce for empty lists.
#[test]
fn empty_lists_give_minimum_height_zero_traces() {
    let mut b = ByteCounts::default();
    let zero =
        |t: RowMajorMatrix| t.height() == MIN_ROWS && t.values.iter().all(|&v| v == Felt::ZERO);
    assert!(zero(load::build_trace(&[], &mut b)));
    assert!(zero(store::build_trace(&[], &mut b)));
    assert!(zero(memw::build_trace_a(&[], &mut b)));
    assert!(b.trace() == ByteCounts::default().trace());
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use kestrel_prover_gpu::backend::DeviceTraces;
    use kestrel_prover_gpu::cuda::CudaBackend;

    fn gpu() -> CudaBackend {
        CudaBackend::new().unwrap_or_else(|e| panic!("no CUDA device ({e}): this test needs one"))
    }

    use kestrel_tests::first_diff;

    fn same(name: &str, table: &str, device: &RowMajorMatrix, host: &RowMajorMatrix) {
        assert!(
            device == host,
            "{name}: {table} fill differs at {}",
            first_diff(device, host)
        );
    }

    /// Fills the three tables on the device and compares each with the host builder.
    fn check(g: &CudaBackend, name: &str, r: &Records) {
        let mut b = ByteCounts::default();
        let t = g.fill_load(&r.loads).unwrap();
        assert_eq!(t.width(), load::WIDTH);
        let host = load::build_trace(&r.loads, &mut b);
        assert_eq!(t.height(), host.height(), "{name}: LOAD height");
        same(name, "LOAD", &g.download_trace(&t).unwrap(), &host);

        let t = g.fill_store(&r.stores).unwrap();
        assert_eq!(t.width(), store::WIDTH);
        let host = store::build_trace(&r.stores, &mut b);
        assert_eq!(t.height(), host.height(), "{name}: STORE height");
        same(name, "STORE", &g.download_trace(&t).unwrap(), &host);

        let t = g.fill_memw_a(&r.mem_a).unwrap();
        assert_eq!(t.width(), memw::MEMW_A.num_columns());
        let host = memw::build_trace_a(&r.mem_a, &mut b);
        assert_eq!(t.height(), host.height(), "{name}: MEMW_A height");
        same(name, "MEMW_A", &g.download_trace(&t).unwrap(), &host);

        let pairs = split_pairs(&r.mem_a);
        let t = g.fill_memw_s(&pairs).unwrap();
        assert_eq!(t.width(), memw::MEMW.num_columns());
        let host = memw::build_trace_s(&pairs, &mut b);
        assert_eq!(t.height(), host.height(), "{name}: MEMW height");
        same(name, "MEMW", &g.download_trace(&t).unwrap(), &host);
    }

    /// MEMW's split accesses from word accesses: each with a second word `w + 1` at its
    /// timestamp and write flag, its other fields shuffled from the first's (so every edge
    /// value of `accesses` lands in both words' cells).
    fn split_pairs(accesses: &[WordAccess]) -> Vec<(WordAccess, WordAccess)> {
        accesses
            .iter()
            .map(|&a| {
                let b = WordAccess {
                    w: a.w.wrapping_add(1),
                    old: a.new.rotate_left(8),
                    new: a.old ^ 0x5a5a_5a5a_5a5a_5a5a,
                    old_ts: a.old_ts.wrapping_add(7),
                    ro: !a.ro,
                    ..a
                };
                (a, b)
            })
            .collect()
    }

    /// A MEMW pair that is not words `w`, `w + 1` at one timestamp and write flag is an
    /// error, not a trace.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn memw_pairs_must_be_adjacent_words() {
        let g = gpu();
        let good = split_pairs(&edge_records().mem_a);
        g.fill_memw_s(&good).unwrap();
        for k in 0..3 {
            let mut bad = good.clone();
            match k {
                0 => bad[3].1.w += 1,
                1 => bad[3].1.ts += 1,
                _ => bad[3].1.wr = !bad[3].0.wr,
            }
            let e = g.fill_memw_s(&bad).err().expect("a bad pair is refused");
            assert!(e.to_string().contains("fill MEMW"), "{e}");
        }
        assert_eq!(g.stats().fill("MEMW"), 1);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_the_host_builders_on_programs() {
        let g = gpu();
        for &(name, _) in PROVABLE_PROGRAMS {
            check(&g, name, &program_records(name));
        }
        let s = g.stats();
        for table in ["LOAD", "STORE", "MEMW_A"] {
            assert_eq!(s.fill(table), PROVABLE_PROGRAMS.len() as u64, "{table}");
        }
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_the_host_builders_on_edge_records() {
        let g = gpu();
        for (name, r) in record_sets() {
            check(&g, &name, &r);
        }
        // Every edge record alone (a single-row trace each), so a row's neighbours cannot
        // mask an error.
        let e = edge_records();
        for (k, op) in e.loads.iter().enumerate().step_by(7) {
            let one = Records {
                loads: vec![*op],
                stores: vec![e.stores[k]],
                mem_a: vec![e.mem_a[k % e.mem_a.len()]],
            };
            check(&g, &format!("edge record {k}"), &one);
        }
    }

    /// Each fill is counted once per call (empty lists too), uploads only the packed
    /// records, and an empty list gives an all-zero trace of `MIN_ROWS` rows.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_are_counted_and_empty_lists_work() {
        let g = gpu();
        let zero = |t: &RowMajorMatrix| {
            t.height() == MIN_ROWS && t.values.iter().all(|&v| v == Felt::ZERO)
        };
        let t = g.fill_load(&[]).unwrap();
        assert_eq!((t.width(), t.height()), (load::WIDTH, MIN_ROWS));
        assert!(zero(&g.download_trace(&t).unwrap()));
        let t = g.fill_store(&[]).unwrap();
        assert_eq!((t.width(), t.height()), (store::WIDTH, MIN_ROWS));
        assert!(zero(&g.download_trace(&t).unwrap()));
        let t = g.fill_memw_a(&[]).unwrap();
        assert_eq!(
            (t.width(), t.height()),
            (memw::MEMW_A.num_columns(), MIN_ROWS)
        );
        assert!(zero(&g.download_trace(&t).unwrap()));
        let s = g.stats();
        for table in ["LOAD", "STORE", "MEMW_A"] {
            assert_eq!(s.fill(table), 1, "{table}");
        }

        let before = g
            .stats()
            .h2d_bytes
            .get("packed op records")
            .copied()
            .unwrap_or(0);
        let r = replay_records(1000, 42);
        let _ = g.fill_load(&r.loads).unwrap();
        let _ = g.fill_store(&r.stores).unwrap();
        let _ = g.fill_memw_a(&r.mem_a).unwrap();
        let s = g.stats();
        for table in ["LOAD", "STORE", "MEMW_A"] {
            assert_eq!(s.fill(table), 2, "{table}");
        }
        let uploaded = s.h2d_bytes.get("packed op records").copied().unwrap_or(0) - before;
        let expect = 32 * r.loads.len() + 40 * r.stores.len() + 40 * r.mem_a.len();
        assert_eq!(
            uploaded, expect as u64,
            "packed records: 32 / 40 / 40 bytes each"
        );
        assert_eq!(s.h2d_bytes.get("trace upload").copied().unwrap_or(0), 0);
    }

    /// A failed fill launch is an error, not a placeholder trace.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fill_faults_are_errors() {
        let g = gpu();
        let r = replay_records(100, 9);
        g.device().inject_fill_launch_failure();
        let e = g.fill_load(&r.loads).err().expect("LOAD launch failure");
        assert!(e.to_string().contains("injected launch failure"), "{e}");
        g.device().inject_fill_launch_failure();
        let e = g.fill_store(&r.stores).err().expect("STORE launch failure");
        assert!(e.to_string().contains("injected launch failure"), "{e}");
        g.device().inject_fill_launch_failure();
        let e = g
            .fill_memw_a(&r.mem_a)
            .err()
            .expect("MEMW_A launch failure");
        assert!(e.to_string().contains("injected launch failure"), "{e}");
        // Each allocation (records, trace) failing in turn.
        for nth in 1..=2 {
            g.device().inject_alloc_failure(nth);
            let e = g.fill_memw_a(&r.mem_a).err();
            g.device().inject_alloc_failure(0);
            let e = e.unwrap_or_else(|| panic!("allocation {nth} failed silently"));
            assert!(e.to_string().contains("injected"), "{e}");
        }
        // And the backend still fills afterwards.
        let t = g.fill_load(&r.loads).unwrap();
        let mut b = ByteCounts::default();
        same(
            "after faults",
            "LOAD",
            &g.download_trace(&t).unwrap(),
            &load::build_trace(&r.loads, &mut b),
        );
    }
}
