//! Device-resident fills of the system-call tables (kernels/rv/ecall.cu, io.cu): ECALL and
//! IO, each bit for bit against its host fill (`ecall::fill`, `io::fill`) on real programs'
//! records (reads of the private input, public and debug writes, exit, brk up and down with
//! its zeroing chain), on edge records (every call kind and a call no selector covers,
//! zero-length and short transfers, partial words at both ends of a buffer, values at the
//! field modulus and the ends of `u64`, the largest values the packing holds) and on random
//! records of every count around the minimum height (0, 1, 7, 8, 9, 1000).
//!
//! Without a GPU: the split host builders (`build_trace` = `fill` + `lookups`) agree, the
//! packing pass's ECALL and IO traces are the fills of its records, and every program's
//! records fit the device packing. The GPU tests are `#[ignore]`d ("needs a CUDA device")
//! and run with `--ignored` on the GPU machine, where a missing device fails them.

use kestrel_core::field::{Felt, P};
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::params::MIN_ROWS;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::machine::TableId;
use kestrel_core::rv::pack::pack_traces;
use kestrel_core::rv::{ecall, io, EcallOp, IoWord, IO_IN, IO_OUT, IO_ZERO};
use kestrel_core::rv::{SYS_BRK, SYS_EXIT, SYS_READ, SYS_WRITE};
use kestrel_prover_gpu::rv::{machine_for, program_image, steps};
use kestrel_tests::vm_support::{run_recorded, PROVABLE_PROGRAMS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One set of records for the two tables.
#[derive(Clone, Debug, Default)]
struct Records {
    ecalls: Vec<EcallOp>,
    io: Vec<IoWord>,
}

/// A Rust guest that reads a few kB of input in pieces and allocates (brk).
const RUST_SHA: &str = "rust/sha256-rs";

/// Every provable program with its input, and the Rust guest with 3000 bytes of input.
fn programs() -> Vec<(&'static str, Vec<u8>)> {
    let mut v: Vec<(&str, Vec<u8>)> = PROVABLE_PROGRAMS
        .iter()
        .map(|&(n, i)| (n, i.to_vec()))
        .collect();
    v.push((RUST_SHA, (0..3000u32).map(|i| (i * 7 + 3) as u8).collect()));
    v
}

/// The ECALL and IO records of a real run (as the packing pass hands them to the device
/// fills), and its host ECALL and IO traces.
fn program_records(name: &str, input: &[u8]) -> (Records, RowMajorMatrix, RowMajorMatrix) {
    let (program, records, _) = run_recorded(name, input);
    let (image, steps) = (program_image(&program), steps(&records));
    let machine = machine_for(&image);
    let packed = pack_traces(&machine, &image, &steps, input).unwrap();
    let r = Records {
        ecalls: packed.ecalls.clone(),
        io: packed.io.clone(),
    };
    let ecall = packed.fill_host(&image, TableId::Ecall).unwrap();
    let io = packed.fill_host(&image, TableId::Io).unwrap();
    (r, ecall, io)
}

/// Values at the byte, u32 and field boundaries and the ends of `u64`.
const EDGE: [u64; 12] = [
    0,
    1,
    0xff,
    0x100,
    0xffff_ffff,
    1 << 32,
    P - 1,
    P,
    P + 1,
    0x8000_0000_0000_0000,
    0x0123_4567_89ab_cdef,
    u64::MAX,
];

/// Below 2^32 (a heap limit or start).
const EDGE32: [u64; 5] = [0, 1, 0x1000, 0x7fff_ffff, 0xffff_ffff];

/// The largest cycle and output position the ECALL packing holds, and some below.
const EDGE_CLK: [u64; 5] = [0, 1, 1 << 36, (1 << 40) - 2, (1 << 40) - 1];
const EDGE_OUTPOS: [u64; 5] = [0, 1, 6, 1 << 20, (1 << 21) - 1];

/// Words with every byte's sign bit set, clear, mixed.
const EDGE_WORDS: [u64; 6] = [
    0,
    u64::MAX,
    0x8080_8080_8080_8080,
    0x0123_4567_89ab_cdef,
    0xfedc_ba98_7654_3210,
    0x00ff_00ff_80ff_7f01,
];

/// A system call `(a7, a0)` with the other fields from `v` (rotated by `k`).
fn call(a7: u64, a0: u64, k: usize) -> EcallOp {
    let v = |j: usize| EDGE[(k + j) % EDGE.len()];
    EcallOp {
        clk: EDGE_CLK[k % EDGE_CLK.len()],
        a7,
        a0,
        a1: v(1),
        a2: v(2),
        res: v(3),
        outpos: EDGE_OUTPOS[(k / 3) % EDGE_OUTPOS.len()],
        brk: [
            v(4),
            EDGE32[k % EDGE32.len()],
            EDGE32[(k / 5) % EDGE32.len()],
        ],
        remaining: v(5),
    }
}

/// Every call kind with edge arguments (and calls no selector covers), reads and writes of
/// length 0, short and full reads, brk in range, below the start, above the limit, growing
/// and shrinking.
fn edge_ecalls() -> Vec<EcallOp> {
    let (exit, write, read, brk) = (
        SYS_EXIT as u64,
        SYS_WRITE as u64,
        SYS_READ as u64,
        SYS_BRK as u64,
    );
    let mut v = Vec::new();
    for k in 0..EDGE.len() * 5 {
        let a0 = EDGE[k % EDGE.len()];
        v.push(call(exit, a0, k));
        v.push(call(write, 1, k));
        v.push(call(write, 2, k));
        v.push(call(read, 0, k));
        v.push(call(brk, a0, k));
        // No selector: another call number, another fd.
        v.push(call([0, 1, 62, 65, 94, 213, u64::MAX][k % 7], a0, k));
        v.push(call(write, [0, 3, 1 << 32, u64::MAX][k % 4], k));
        v.push(call(read, [1, 2, 1 << 32][k % 3], k));
    }
    // Honest shapes: zero-length and full transfers, short reads, the remaining count's
    // wrap (a read above it), brk's three outcomes with shrink and grow.
    for (len, rem) in [
        (0, 0),
        (0, 5),
        (8, 100),
        (100, 8),
        (8, 8),
        (1 << 31, 0xffff_ffff),
    ] {
        let n = len.min(rem);
        for res in [n, n + 1, 0] {
            v.push(EcallOp {
                clk: 10,
                a7: read,
                a0: 0,
                a1: 0x1000,
                a2: len,
                res,
                outpos: 3,
                brk: [0; 3],
                remaining: rem,
            });
        }
        v.push(EcallOp {
            clk: 11,
            a7: write,
            a0: 1,
            a1: 0x2003,
            a2: len,
            res: len,
            outpos: 5,
            brk: [0; 3],
            remaining: rem,
        });
    }
    let (start, limit) = (0x1_0000u64, 0x10_0000u64);
    for old in [start, start + 100, limit] {
        for a0 in [
            0,
            start - 1,
            start,
            start + 8,
            old,
            limit,
            limit + 1,
            u64::MAX,
        ] {
            let res = if a0 < start || a0 > limit { old } else { a0 };
            v.push(EcallOp {
                clk: 12,
                a7: brk,
                a0,
                a1: 0,
                a2: 0,
                res,
                outpos: 0,
                brk: [old, limit, start],
                remaining: 0,
            });
        }
    }
    v
}

/// Every covered run `(lo, cnt)` of every kind, edge word indices, timestamps (up to the
/// largest the packing holds), positions and words.
fn edge_io() -> Vec<IoWord> {
    let ws = [0u32, 1, 0xab_cdef, (1 << 29) - 1];
    let ts = [0u64, 1, 1 << 36, (1 << 40) + 7, (1 << 55) - 1];
    let pos = [0u64, 1, 1 << 20, 1 << 32, (1 << 35) - 1];
    let mut v = Vec::new();
    let mut k = 0usize;
    for kind in [IO_IN, IO_OUT, IO_ZERO] {
        for lo in 0..8u8 {
            for cnt in 1..=8 - lo {
                let old = EDGE_WORDS[k % EDGE_WORDS.len()];
                v.push(IoWord {
                    kind,
                    ts: ts[k % ts.len()],
                    pos: pos[(k / 2) % pos.len()],
                    w: ws[(k / 3) % ws.len()],
                    lo,
                    cnt,
                    old,
                    new: match kind {
                        IO_OUT => old,
                        _ => EDGE_WORDS[(k + 1) % EDGE_WORDS.len()],
                    },
                });
                k += 1;
            }
        }
    }
    v
}

/// `n` random system calls of every kind (a few no selector covers), the fields within the
/// packing.
fn random_ecalls(n: usize, seed: u64) -> Vec<EcallOp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let any = |rng: &mut ChaCha8Rng| match rng.gen_range(0..4) {
        0 => EDGE[rng.gen_range(0..EDGE.len())],
        1 => rng.gen_range(0..1u64 << 32),
        _ => rng.gen(),
    };
    (0..n)
        .map(|_| {
            let (a7, a0) = match rng.gen_range(0..12) {
                0..=1 => (SYS_EXIT as u64, any(&mut rng)),
                2..=3 => (SYS_WRITE as u64, 1),
                4 => (SYS_WRITE as u64, 2),
                5..=7 => (SYS_READ as u64, 0),
                8..=10 => (SYS_BRK as u64, any(&mut rng)),
                _ => (any(&mut rng), any(&mut rng)),
            };
            EcallOp {
                clk: rng.gen_range(0..1u64 << 40),
                a7,
                a0,
                a1: any(&mut rng),
                a2: any(&mut rng),
                res: any(&mut rng),
                outpos: rng.gen_range(0..1u64 << 21),
                brk: [
                    any(&mut rng),
                    rng.gen_range(0..1u64 << 32),
                    rng.gen_range(0..1u64 << 32),
                ],
                remaining: any(&mut rng),
            }
        })
        .collect()
}

/// `n` random IO rows of every kind and covered run, the fields within the packing.
fn random_io(n: usize, seed: u64) -> Vec<IoWord> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let kind = rng.gen_range(0..3);
            let lo = rng.gen_range(0..8u8);
            let cnt = rng.gen_range(1..=8 - lo);
            let old = rng.gen();
            IoWord {
                kind,
                ts: if rng.gen_bool(0.8) {
                    rng.gen_range(0..1u64 << 36)
                } else {
                    rng.gen_range(0..1u64 << 55)
                },
                pos: rng.gen_range(0..1u64 << 35),
                w: rng.gen_range(0..1u32 << 29),
                lo,
                cnt,
                old,
                new: if kind == IO_OUT && rng.gen_bool(0.9) {
                    old
                } else {
                    rng.gen()
                },
            }
        })
        .collect()
}

/// Named record sets: the edge set, and random sets of 0, 1, 7, 8, 9 and 1000 records.
fn record_sets() -> Vec<(String, Records)> {
    let mut v = vec![(
        "edge".to_string(),
        Records {
            ecalls: edge_ecalls(),
            io: edge_io(),
        },
    )];
    for (i, n) in [0usize, 1, 7, 8, 9, 1000].into_iter().enumerate() {
        v.push((
            format!("random {n}"),
            Records {
                ecalls: random_ecalls(n, 100 + i as u64),
                io: random_io(n, 200 + i as u64),
            },
        ));
    }
    v
}

/// Whether `op` fits the ECALL packing (`prover-gpu/src/cuda/rv/ecall.rs`): a cycle below
/// 2^40, an output position below 2^21 and, for `brk`, a heap limit and start below 2^32.
fn ecall_packable(op: &EcallOp) -> bool {
    let kind = ecall::call_kind(op);
    kind == 0
        || (op.clk < 1 << 40
            && op.outpos < 1 << 21
            && (kind != ecall::CALL_BRK || (op.brk[1] < 1 << 32 && op.brk[2] < 1 << 32)))
}

/// Whether `r` fits the IO packing (`prover-gpu/src/cuda/rv/io.rs`).
fn io_packable(r: &IoWord) -> bool {
    r.kind <= IO_ZERO
        && r.cnt >= 1
        && r.lo as u32 + r.cnt as u32 <= 8
        && r.w < 1 << 29
        && r.ts < 1 << 55
        && r.pos < 1 << 35
}

/// `build_trace` is `fill` plus `lookups`, for both tables.
fn check_split(name: &str, r: &Records) {
    let mut seed = ByteCounts::default();
    seed.range(1, 2);
    let counts = |f: &dyn Fn(&mut ByteCounts)| {
        let mut b = seed.clone();
        f(&mut b);
        b.trace()
    };
    let mut b = ByteCounts::default();
    assert!(
        ecall::build_trace(&r.ecalls, &mut b) == ecall::fill(&r.ecalls),
        "{name}: ECALL fill"
    );
    assert!(
        io::build_trace(&r.io, &mut b) == io::fill(&r.io),
        "{name}: IO fill"
    );
    assert!(
        counts(&|b| drop(ecall::build_trace(&r.ecalls, b)))
            == counts(&|b| ecall::lookups(&r.ecalls, b)),
        "{name}: ECALL lookups"
    );
    assert!(
        counts(&|b| drop(io::build_trace(&r.io, b))) == counts(&|b| io::lookups(&r.io, b)),
        "{name}: IO lookups"
    );
    for (h, t) in [
        (ecall::fill(&r.ecalls), r.ecalls.len()),
        (io::fill(&r.io), r.io.len()),
    ] {
        assert_eq!(h.height(), t.next_power_of_two().max(MIN_ROWS), "{name}");
        assert!(
            h.values[t * h.width..].iter().all(|&v| v == Felt::ZERO),
            "{name}: zero padding"
        );
    }
}

/// Without a GPU: on every program's records the split builders agree, the packed traces
/// are the fills, the records fit the device packing, and together the programs exercise
/// every call kind, short and full reads, zero-length transfers, brk shrinking (a zeroing
/// chain) and growing, and partial words.
#[test]
fn split_builders_match_on_programs() {
    let mut all = Records::default();
    for (name, input) in programs() {
        let (r, ecall_trace, io_trace) = program_records(name, &input);
        check_split(name, &r);
        assert!(
            ecall_trace == ecall::fill(&r.ecalls),
            "{name}: packed ECALL"
        );
        assert!(io_trace == io::fill(&r.io), "{name}: packed IO");
        assert!(r.ecalls.iter().all(ecall_packable), "{name}: ECALL packing");
        assert!(r.io.iter().all(io_packable), "{name}: IO packing");
        all.ecalls.extend(&r.ecalls);
        all.io.extend(&r.io);
    }
    for kind in 1..=5 {
        assert!(
            all.ecalls.iter().any(|o| ecall::call_kind(o) == kind),
            "call kind {kind}"
        );
    }
    let reads = || {
        all.ecalls
            .iter()
            .filter(|o| ecall::call_kind(o) == ecall::CALL_READ)
    };
    assert!(reads().any(|o| o.res > 0 && o.res == o.a2), "a full read");
    assert!(reads().any(|o| o.res < o.a2), "a short read");
    assert!(
        all.ecalls
            .iter()
            .any(|o| ecall::transfer(o).is_some_and(|t| t.2 == 0)),
        "a zero-length transfer"
    );
    assert!(
        all.ecalls.iter().any(|o| ecall::zero_range(o).is_some()),
        "a brk shrink"
    );
    assert!(
        all.ecalls
            .iter()
            .any(|o| ecall::call_kind(o) == ecall::CALL_BRK && o.res > o.brk[0]),
        "a brk grow"
    );
    for kind in [IO_IN, IO_OUT, IO_ZERO] {
        assert!(all.io.iter().any(|r| r.kind == kind), "IO kind {kind}");
    }
    assert!(
        all.io.iter().any(|r| r.lo > 0),
        "a buffer starting inside a word"
    );
    assert!(
        all.io.iter().any(|r| r.lo == 0 && r.cnt < 8),
        "a buffer ending inside a word"
    );
}

/// Without a GPU: on edge and random records of every count the split builders agree, and
/// the sets fit the packing and cover what they claim.
#[test]
fn split_builders_match_on_edge_and_random_records() {
    for (name, r) in record_sets() {
        check_split(&name, &r);
        assert!(r.ecalls.iter().all(ecall_packable), "{name}");
        assert!(r.io.iter().all(io_packable), "{name}");
    }
    let e = edge_ecalls();
    for kind in 0..=5 {
        assert!(e.iter().any(|o| ecall::call_kind(o) == kind), "kind {kind}");
    }
    let rows = edge_io();
    for lo in 0..8u8 {
        for cnt in 1..=8 - lo {
            for kind in [IO_IN, IO_OUT, IO_ZERO] {
                assert!(rows
                    .iter()
                    .any(|r| (r.kind, r.lo, r.cnt) == (kind, lo, cnt)));
            }
        }
    }
}

/// Named bad records of one table.
type Bad<T> = Vec<(&'static str, T)>;

/// The records the device fills refuse (with an error, never a panic).
fn bad_records() -> (Bad<EcallOp>, Bad<IoWord>) {
    let ok = edge_ecalls()
        .into_iter()
        .find(|o| ecall::call_kind(o) == ecall::CALL_BRK)
        .unwrap();
    let bad_ecalls = vec![
        ("cycle 2^40", EcallOp { clk: 1 << 40, ..ok }),
        (
            "cycle u64::MAX",
            EcallOp {
                clk: u64::MAX,
                ..ok
            },
        ),
        (
            "output position 2^21",
            EcallOp {
                outpos: 1 << 21,
                ..ok
            },
        ),
        (
            "heap limit 2^32",
            EcallOp {
                brk: [0, 1 << 32, 0],
                ..ok
            },
        ),
        (
            "heap start 2^32",
            EcallOp {
                brk: [0, 0, 1 << 32],
                ..ok
            },
        ),
    ];
    let ok = edge_io()[5];
    let bad_io = vec![
        ("kind 3", IoWord { kind: 3, ..ok }),
        ("no covered byte", IoWord { cnt: 0, ..ok }),
        (
            "past the word",
            IoWord {
                lo: 7,
                cnt: 2,
                ..ok
            },
        ),
        (
            "lo 8",
            IoWord {
                lo: 8,
                cnt: 1,
                ..ok
            },
        ),
        ("word 2^29", IoWord { w: 1 << 29, ..ok }),
        ("timestamp 2^55", IoWord { ts: 1 << 55, ..ok }),
        ("position 2^35", IoWord { pos: 1 << 35, ..ok }),
    ];
    (bad_ecalls, bad_io)
}

/// Without a GPU: the bad records are outside the packing (so the fills refuse them).
#[test]
fn bad_records_are_outside_the_packing() {
    let (e, i) = bad_records();
    for (what, op) in e {
        assert!(!ecall_packable(&op), "{what}");
    }
    for (what, r) in i {
        assert!(!io_packable(&r), "{what}");
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use kestrel_prover_gpu::backend::DeviceTraces;
    use kestrel_prover_gpu::cuda::CudaBackend;
    use kestrel_tests::first_diff;

    fn gpu() -> CudaBackend {
        CudaBackend::new().unwrap_or_else(|e| panic!("no CUDA device ({e}): this test needs one"))
    }

    fn same(name: &str, table: &str, device: &RowMajorMatrix, host: &RowMajorMatrix) {
        assert!(
            device == host,
            "{name}: {table} fill differs at {}",
            first_diff(device, host)
        );
    }

    /// Fills both tables on the device and compares each with the host fill.
    fn check(g: &CudaBackend, name: &str, r: &Records) {
        let t = g.fill_ecall(&r.ecalls).unwrap();
        let host = ecall::fill(&r.ecalls);
        assert_eq!(t.width(), ecall::WIDTH);
        assert_eq!(t.height(), host.height(), "{name}: ECALL height");
        same(name, "ECALL", &g.download_trace(&t).unwrap(), &host);

        let t = g.fill_io(&r.io).unwrap();
        let host = io::fill(&r.io);
        assert_eq!(t.width(), io::WIDTH);
        assert_eq!(t.height(), host.height(), "{name}: IO height");
        same(name, "IO", &g.download_trace(&t).unwrap(), &host);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_the_host_on_programs() {
        let g = gpu();
        let progs = programs();
        for (name, input) in &progs {
            let (r, ecall_trace, io_trace) = program_records(name, input);
            check(&g, name, &r);
            // And the packing pass's own host traces.
            let t = g.fill_ecall(&r.ecalls).unwrap();
            same(name, "ECALL", &g.download_trace(&t).unwrap(), &ecall_trace);
            let t = g.fill_io(&r.io).unwrap();
            same(name, "IO", &g.download_trace(&t).unwrap(), &io_trace);
        }
        let s = g.stats();
        for table in ["ECALL", "IO"] {
            assert_eq!(s.fill(table), 2 * progs.len() as u64, "{table}");
        }
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_match_the_host_on_edge_and_random_records() {
        let g = gpu();
        for (name, r) in record_sets() {
            check(&g, &name, &r);
        }
        // Every edge record alone (a single-row trace each), so that a row's neighbours
        // cannot mask an error.
        let (e, rows) = (edge_ecalls(), edge_io());
        for k in 0..e.len().max(rows.len()) {
            let one = Records {
                ecalls: vec![e[k % e.len()]],
                io: vec![rows[k % rows.len()]],
            };
            check(&g, &format!("edge record {k}"), &one);
        }
    }

    /// Each fill is counted once per call (empty lists too), uploads only the packed
    /// records (40 B per system call, 32 B per IO row), and an empty list gives an all-zero
    /// trace of `MIN_ROWS` rows.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn fills_are_counted_and_upload_only_records() {
        let g = gpu();
        let zero = |t: &RowMajorMatrix| {
            t.height() == MIN_ROWS && t.values.iter().all(|&v| v == Felt::ZERO)
        };
        let t = g.fill_ecall(&[]).unwrap();
        assert_eq!((t.width(), t.height()), (ecall::WIDTH, MIN_ROWS));
        assert!(zero(&g.download_trace(&t).unwrap()));
        let t = g.fill_io(&[]).unwrap();
        assert_eq!((t.width(), t.height()), (io::WIDTH, MIN_ROWS));
        assert!(zero(&g.download_trace(&t).unwrap()));
        let packed = |g: &CudaBackend| {
            g.stats()
                .h2d_bytes
                .get("packed op records")
                .copied()
                .unwrap_or(0)
        };
        let before = packed(&g);
        let (e, i) = (random_ecalls(1000, 5), random_io(777, 6));
        let _ = g.fill_ecall(&e).unwrap();
        let _ = g.fill_io(&i).unwrap();
        let s = g.stats();
        for table in ["ECALL", "IO"] {
            assert_eq!(s.fill(table), 2, "{table}");
        }
        assert_eq!(
            packed(&g) - before,
            (40 * e.len() + 32 * i.len()) as u64,
            "packed records: 40 / 32 bytes each"
        );
        assert_eq!(s.h2d_bytes.get("trace upload").copied().unwrap_or(0), 0);
    }

    /// Records outside the packing are errors (before anything is uploaded or counted), a
    /// failed launch or allocation is an error, and the backend still fills afterwards.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn bad_records_and_faults_are_errors() {
        let g = gpu();
        let (bad_e, bad_i) = bad_records();
        let good = Records {
            ecalls: random_ecalls(100, 1),
            io: random_io(100, 2),
        };
        for (what, op) in bad_e {
            // Alone and among good records.
            let mut many = good.ecalls.clone();
            many.insert(37, op);
            for ops in [vec![op], many] {
                let e = g.fill_ecall(&ops).err();
                let e = e.unwrap_or_else(|| panic!("ECALL {what}: no error"));
                assert!(e.to_string().contains("fill ECALL"), "{what}: {e}");
            }
        }
        for (what, r) in bad_i {
            let mut many = good.io.clone();
            many.insert(37, r);
            for rows in [vec![r], many] {
                let e = g.fill_io(&rows).err();
                let e = e.unwrap_or_else(|| panic!("IO {what}: no error"));
                assert!(e.to_string().contains("fill IO"), "{what}: {e}");
            }
        }
        let s = g.stats();
        assert_eq!(
            (s.fill("ECALL"), s.fill("IO")),
            (0, 0),
            "refused fills counted"
        );

        g.device().inject_fill_launch_failure();
        let e = g
            .fill_ecall(&good.ecalls)
            .err()
            .expect("ECALL launch failure");
        assert!(e.to_string().contains("injected launch failure"), "{e}");
        g.device().inject_fill_launch_failure();
        let e = g.fill_io(&good.io).err().expect("IO launch failure");
        assert!(e.to_string().contains("injected launch failure"), "{e}");
        // Each allocation (records, trace) failing in turn.
        for nth in 1..=2 {
            g.device().inject_alloc_failure(nth);
            let e = g.fill_ecall(&good.ecalls).err();
            g.device().inject_alloc_failure(0);
            let e = e.unwrap_or_else(|| panic!("ECALL allocation {nth} failed silently"));
            assert!(e.to_string().contains("injected"), "{e}");
            g.device().inject_alloc_failure(nth);
            let e = g.fill_io(&good.io).err();
            g.device().inject_alloc_failure(0);
            let e = e.unwrap_or_else(|| panic!("IO allocation {nth} failed silently"));
            assert!(e.to_string().contains("injected"), "{e}");
        }
        check(&g, "after faults", &good);
    }
}
