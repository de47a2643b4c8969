//! Device-resident fills of the run tables (kernels/rv/decode.cu, register.cu, page.cu,
//! page0.cu): DECODE's multiplicities counted from the steps' DECODE rows, REGISTER, PAGE
//! and PAGE0 from a whole run's run records, each bit for bit against the host pass's
//! traces on real programs and against `RunRecords::fill_host` (DECODE: `build_trace` of
//! the counts) on edge and random records: empty, one row, heights around the minimum
//! (15, 16, 17 rows), values at the ends of `u64`, zero words at the ends of their ranges
//! and at `u32` gaps, programs on both sides of the shared-memory count (8,192 code
//! slots) and steps all on one row.
//!
//! Without a GPU: every program's run records are what the fills take (one final token per
//! image word, one count per zero range, touched zero words in order, timestamps below
//! 2^53). The GPU tests are `#[ignore]`d ("needs a CUDA device") and run with `--ignored` on
//! the GPU machine, where a missing device fails them.

use kestrel_core::field::P;
use kestrel_core::matrix::RowMajorMatrix;
use kestrel_core::rv::bitwise::ByteCounts;
use kestrel_core::rv::decode::{self, ProgramImage};
use kestrel_core::rv::machine::{PackedTraces, RunRecords, TableId};
use kestrel_core::rv::memw_r::RegFile;
use kestrel_core::rv::pack::{pack_traces_overlapped, Lookups};
use kestrel_core::rv::page::{MemoryImage, ZeroRange};
use kestrel_core::rv::page0::ZeroWord;
use kestrel_core::rv::{padded_height, NUM_REGS};
use kestrel_prover_gpu::par::Rayon;
use kestrel_prover_gpu::rv::{machine_for, program_image, steps};
use kestrel_tests::vm_support::{run_recorded, PROVABLE_PROGRAMS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every provable program with its input, and a Rust guest (reads its input in pieces,
/// allocates, and has the most code).
fn programs() -> Vec<(&'static str, Vec<u8>)> {
    let mut v: Vec<(&str, Vec<u8>)> = PROVABLE_PROGRAMS
        .iter()
        .map(|&(n, i)| (n, i.to_vec()))
        .collect();
    v.push((
        "rust/sha256-rs",
        (0..3000u32).map(|i| (i * 7 + 3) as u8).collect(),
    ));
    v
}

/// A whole run of `name` packed with device lookups (its run records) and on the host
/// (its run tables' traces).
fn packed(name: &str, input: &[u8]) -> (ProgramImage, PackedTraces, PackedTraces) {
    let (program, records, _) = run_recorded(name, input);
    let (image, steps) = (program_image(&program), steps(&records));
    let machine = machine_for(&image);
    let pack = |lookups| {
        pack_traces_overlapped(
            &Rayon::default(),
            &machine,
            &image,
            &steps,
            input,
            lookups,
            |_| (),
        )
        .map(|(p, ())| p)
        .unwrap()
    };
    let dev = pack(Lookups::Device);
    let host = pack(Lookups::Host);
    (image, dev, host)
}

/// Timestamps the fills take as they are (a run's are below 2^53, far below the modulus).
const TS_LIMIT: u64 = 1 << 53;

/// Whether `run` is what the fills take for the memory map `mem`.
fn fits(run: &RunRecords, mem: &MemoryImage) -> Result<(), String> {
    if run.page.len() != mem.words.len() || run.zmult.len() != mem.zero.len() {
        return Err("PAGE's records do not match the memory map".into());
    }
    if run.zero.windows(2).any(|z| z[0].w >= z[1].w) {
        return Err("touched zero words out of order".into());
    }
    let ts = run
        .file
        .ts
        .iter()
        .chain(run.page.iter().map(|p| &p.1))
        .chain(run.zero.iter().map(|z| &z.fin_ts));
    if ts.clone().any(|&t| t >= TS_LIMIT) {
        return Err("a timestamp of 2^53 or more".into());
    }
    Ok(())
}

#[test]
fn program_run_records_fit_the_fills() {
    let (mut zero, mut code) = (0, 0);
    for (name, input) in programs() {
        let (image, dev, host) = packed(name, &input);
        let run = dev.run.as_ref().expect("run records with device lookups");
        let mem = MemoryImage::of(&image);
        fits(run, &mem).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            host.run.is_none(),
            "{name}: host lookups keep no run records"
        );
        zero = zero.max(run.zero.len());
        code = code.max(image.code.len());
    }
    // The programs fill PAGE0 past its minimum height; their code fits DECODE's count in
    // shared memory (the edge sets count past it).
    assert!(zero > 16, "at most {zero} touched zero words");
    assert!(code > 1000 && code <= 8192, "{code} code slots");
}

/// The host fills of a set of run records over `mem` (DECODE apart).
fn host_fills(run: &RunRecords, mem: &MemoryImage) -> Vec<(TableId, RowMajorMatrix)> {
    let program = ProgramImage::default();
    [TableId::Register, TableId::Page, TableId::Page0]
        .into_iter()
        .map(|t| {
            let m = run
                .fill_host(t, &program, mem, &mut ByteCounts::default())
                .unwrap();
            (t, m)
        })
        .collect()
}

/// A memory map of `words` image words and `ranges` zero ranges (each of `span` words,
/// above the image words).
fn edge_image(words: usize, ranges: usize, span: u32) -> MemoryImage {
    MemoryImage {
        words: (0..words as u32).map(|w| (w, 0, w % 3 == 0)).collect(),
        zero: (0..ranges as u32)
            .map(|k| ZeroRange {
                lo: (1 << 20) + k * (span + 7),
                hi: (1 << 20) + k * (span + 7) + span,
                ro: k % 2 == 1,
            })
            .collect(),
    }
}

/// Values at the byte, u32 and field boundaries and the ends of `u64`.
const EDGE: [u64; 10] = [
    0,
    1,
    0xff,
    0x100,
    0xffff_ffff,
    1 << 32,
    P - 1,
    P,
    0x8000_0000_0000_0000,
    u64::MAX,
];

/// Random run records over `mem` with `zero` touched words (first and last words of their
/// ranges included), values drawn from [`EDGE`] and at random.
fn random_run(mem: &MemoryImage, zero: usize, seed: u64) -> RunRecords {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let value = |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.5) {
            EDGE[rng.gen_range(0..EDGE.len())]
        } else {
            rng.gen()
        }
    };
    let mut words: Vec<ZeroWord> = Vec::new();
    if !mem.zero.is_empty() {
        let mut seen = std::collections::BTreeSet::new();
        while seen.len() < zero {
            let r = mem.zero[rng.gen_range(0..mem.zero.len())];
            let w = match rng.gen_range(0..4) {
                0 => r.lo,
                1 => r.hi - 1,
                _ => rng.gen_range(r.lo..r.hi),
            };
            if seen.insert(w) {
                words.push(ZeroWord {
                    w,
                    range: r,
                    fin: value(&mut rng),
                    fin_ts: rng.gen_range(0..TS_LIMIT),
                });
            }
        }
    }
    words.sort_by_key(|z| z.w);
    let mut file = RegFile::new([0; NUM_REGS]);
    for r in 0..NUM_REGS {
        file.values[r] = value(&mut rng);
        file.ts[r] = rng.gen_range(0..TS_LIMIT);
    }
    RunRecords {
        mult: None,
        file,
        input_len: [0, 1, 0xffff_ffff, rng.gen()][rng.gen_range(0..4)],
        page: mem
            .words
            .iter()
            .map(|_| (value(&mut rng), rng.gen_range(0..TS_LIMIT)))
            .collect(),
        zmult: mem
            .zero
            .iter()
            .map(|r| words.iter().filter(|z| z.range == *r).count() as u64)
            .collect(),
        zero: words,
    }
}

/// Edge and random record sets: `(name, memory map, records)`.
fn record_sets() -> Vec<(String, MemoryImage, RunRecords)> {
    let mut out = Vec::new();
    for (k, &(words, ranges, zero)) in [
        (0, 0, 0),
        (1, 1, 1),
        (15, 2, 15),
        (16, 16, 16),
        (17, 3, 17),
        (2, 17, 1),
        (1000, 5, 1000),
    ]
    .iter()
    .enumerate()
    {
        let mem = edge_image(words, ranges, 400);
        let run = random_run(&mem, zero, k as u64);
        fits(&run, &mem).unwrap();
        out.push((
            format!("{words} words, {ranges} ranges, {zero} zero"),
            mem,
            run,
        ));
    }
    // Zero words a whole u32 gap apart: the first and last words of the lowest and highest
    // ranges the map allows.
    let mem = MemoryImage {
        words: Vec::new(),
        zero: vec![
            ZeroRange {
                lo: 0,
                hi: 2,
                ro: false,
            },
            ZeroRange {
                lo: (1 << 29) - 2,
                hi: 1 << 29,
                ro: true,
            },
        ],
    };
    let mut run = random_run(&mem, 0, 99);
    run.zero = [(0, 0), (1, 0), ((1 << 29) - 2, 1), ((1 << 29) - 1, 1)]
        .iter()
        .map(|&(w, r)| ZeroWord {
            w,
            range: mem.zero[r],
            fin: u64::MAX,
            fin_ts: TS_LIMIT - 1,
        })
        .collect();
    run.zmult = vec![2, 2];
    out.push(("zero words at the map's ends".into(), mem, run));
    out
}

/// DECODE's host trace for `rows` code slots from the steps' DECODE rows.
fn decode_host(dec_row: &[u32], rows: usize) -> RowMajorMatrix {
    let mut mult = vec![0u64; rows];
    for &r in dec_row {
        mult[r as usize] += 1;
    }
    let program = ProgramImage {
        code: vec![(0, 0); rows],
        ..ProgramImage::default()
    };
    decode::build_trace(&program, [&mult[..]])
}

/// `(rows, DECODE rows)` around the minimum height and the shared-memory count's limit
/// (8,192 slots), every step on one row, and none.
fn decode_sets() -> Vec<(usize, Vec<u32>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut out = Vec::new();
    for rows in [1usize, 15, 16, 17, 8191, 8192, 8193, 40_000] {
        for n in [0usize, 1, 1000, 300_000] {
            out.push((
                rows,
                (0..n).map(|_| rng.gen_range(0..rows as u32)).collect(),
            ));
        }
        out.push((rows, vec![rows as u32 - 1; 100_000]));
    }
    out
}

/// The edge and random sets are records a run could hand on (they fit the fills), their
/// host fills have the tables' heights, and DECODE's counts every step once.
#[test]
fn edge_sets_fit_the_fills() {
    for (name, mem, run) in record_sets() {
        fits(&run, &mem).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (t, m) in host_fills(&run, &mem) {
            let rows = match t {
                TableId::Register => 64,
                TableId::Page => padded_height(mem.words.len().max(mem.zero.len())),
                _ => padded_height(run.zero.len()),
            };
            assert_eq!(m.height(), rows, "{name}: {t}");
        }
    }
    for (rows, dec_row) in decode_sets() {
        let m = decode_host(&dec_row, rows);
        assert_eq!(m.height(), padded_height(rows));
        let total: u64 = m.values.iter().map(|v| v.as_u64()).sum();
        assert_eq!(total, dec_row.len() as u64, "{rows} rows");
    }
}

#[cfg(feature = "cuda")]
mod gpu {
    use super::*;
    use kestrel_prover_gpu::backend::DeviceTraces;
    use kestrel_prover_gpu::cuda::rv::RUN_RECORDS;
    use kestrel_prover_gpu::cuda::CudaBackend;
    use kestrel_prover_gpu::rv::RvFills;
    use kestrel_tests::first_diff;

    fn gpu() -> CudaBackend {
        CudaBackend::new().unwrap_or_else(|e| panic!("no CUDA device ({e}): this test needs one"))
    }

    fn same(name: &str, t: TableId, device: &RowMajorMatrix, host: &RowMajorMatrix) {
        assert!(
            device.width == host.width && device == host,
            "{name}: {t} fill differs at {}",
            first_diff(device, host)
        );
    }

    /// REGISTER's, PAGE's and PAGE0's device fills of `run` against the host fills.
    fn check(g: &CudaBackend, name: &str, mem: &MemoryImage, run: &RunRecords) {
        let dev = g.fill_run_records(run, mem).unwrap();
        let host = host_fills(run, mem);
        assert_eq!(dev.len(), host.len(), "{name}");
        for ((t, d), (u, h)) in dev.iter().zip(&host) {
            assert_eq!(t, u, "{name}");
            same(name, *t, &g.download_trace(d).unwrap(), h);
        }
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn run_fills_match_the_host_on_programs() {
        let g = gpu();
        let progs = programs();
        for (name, input) in &progs {
            let (image, dev, host) = packed(name, input);
            let run = dev.run.as_ref().unwrap();
            let mem = MemoryImage::of(&image);
            for (t, d) in g.fill_run_records(run, &mem).unwrap() {
                let want = host.traces[t.index()].as_ref().unwrap();
                same(name, t, &g.download_trace(&d).unwrap(), want);
            }
            // DECODE through the proof's path: counted from the register walk's rows.
            let filled = g
                .fill_records(&image, &dev.records(), &[TableId::Decode])
                .unwrap();
            assert_eq!(filled.len(), 1);
            let want = host.traces[TableId::Decode.index()].as_ref().unwrap();
            same(
                name,
                TableId::Decode,
                &g.download_trace(&filled[0].1).unwrap(),
                want,
            );
            // And from the same rows uploaded.
            let t = g
                .fill_decode_counts(&dev.cpu.dec_row, image.code.len())
                .unwrap();
            same(name, TableId::Decode, &g.download_trace(&t).unwrap(), want);
        }
        let s = g.stats();
        for t in ["REGISTER", "PAGE", "PAGE0"] {
            assert_eq!(s.fill(t), progs.len() as u64, "{t}");
        }
        assert_eq!(s.fill("DECODE"), 2 * progs.len() as u64);
    }

    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn run_fills_match_the_host_on_edge_and_random_records() {
        let g = gpu();
        for (name, mem, run) in record_sets() {
            check(&g, &name, &mem, &run);
        }
        for (rows, dec_row) in decode_sets() {
            let t = g.fill_decode_counts(&dec_row, rows).unwrap();
            let name = format!("{rows} rows, {} steps", dec_row.len());
            same(
                &name,
                TableId::Decode,
                &g.download_trace(&t).unwrap(),
                &decode_host(&dec_row, rows),
            );
        }
    }

    /// Each fill is counted once per call and uploads only its records: 24 bytes per
    /// REGISTER row (64) and PAGE row, 32 per touched zero word; nothing else.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn run_fills_are_counted_and_upload_only_records() {
        let g = gpu();
        let mem = edge_image(300, 7, 50);
        let run = random_run(&mem, 120, 3);
        let before = g.stats();
        let _ = g.fill_run_records(&run, &mem).unwrap();
        let s = g.stats();
        for t in ["REGISTER", "PAGE", "PAGE0"] {
            assert_eq!(s.fill(t), 1, "{t}");
        }
        let up = |s: &kestrel_prover_gpu::cuda::CudaStats, k: &str| {
            s.h2d_bytes.get(k).copied().unwrap_or(0)
        };
        assert_eq!(
            up(&s, RUN_RECORDS) - up(&before, RUN_RECORDS),
            (24 * 64 + 24 * 300 + 32 * 120) as u64
        );
        let total = |s: &kestrel_prover_gpu::cuda::CudaStats| s.h2d_bytes.values().sum::<u64>();
        assert_eq!(
            total(&s) - total(&before),
            up(&s, RUN_RECORDS) - up(&before, RUN_RECORDS),
            "uploads other than the records"
        );
    }

    /// Records that do not fit the memory map or are out of order, and DECODE rows past
    /// the code, are errors before anything is counted; a failed launch of each kernel is
    /// an error; the backend fills correctly afterwards.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn bad_run_records_and_faults_are_errors() {
        let g = gpu();
        let mem = edge_image(20, 3, 30);
        let good = random_run(&mem, 12, 4);
        let mut bad: Vec<(&str, RunRecords, &str)> = Vec::new();
        let mut r = good.clone();
        r.page.pop();
        bad.push(("a final word short", r, "fill PAGE"));
        let mut r = good.clone();
        r.zmult.push(0);
        bad.push(("a zero-range count too many", r, "fill PAGE"));
        let mut r = good.clone();
        r.zero.swap(3, 4);
        bad.push(("zero words out of order", r, "fill PAGE0"));
        let mut r = good.clone();
        r.zero[5] = r.zero[4];
        bad.push(("a zero word twice", r, "fill PAGE0"));
        for (what, run, op) in &bad {
            let e = g.fill_run_records(run, &mem).err();
            let e = e.unwrap_or_else(|| panic!("{what}: no error"));
            assert!(e.to_string().contains(op), "{what}: {e}");
        }
        let e = g.fill_decode_counts(&[0, 1, 16], 16).err();
        assert!(e.is_some_and(|e| e.to_string().contains("fill DECODE")));
        assert_eq!(g.stats().fill("PAGE0") + g.stats().fill("DECODE"), 0);
        for kernel in [
            "ks_fill_register",
            "ks_fill_page",
            "ks_fill_page0",
            "ks_fill_decode_mult",
        ] {
            g.device().inject_fill_launch_failure_of(kernel);
            let e = if kernel == "ks_fill_decode_mult" {
                g.fill_decode_counts(&[0, 1], 4).err()
            } else {
                g.fill_run_records(&good, &mem).err()
            };
            assert!(e.is_some(), "{kernel}: an injected failure went unnoticed");
        }
        check(&g, "after the faults", &mem, &good);
        let t = g.fill_decode_counts(&[0, 3, 3], 4).unwrap();
        same(
            "after the faults",
            TableId::Decode,
            &g.download_trace(&t).unwrap(),
            &decode_host(&[0, 3, 3], 4),
        );
    }
}
