//! Proving on many hosts: the `kestrel dist` steps' files (their codecs refuse bad bytes
//! with errors, never panics) and the Ray driver (`scripts/kestrel_ray.py`) on a local
//! cluster of two worker nodes (`scripts/ray_local_cluster.py`) on the CPU backend: the
//! proof file is byte-identical to `kestrel prove --segment-cycles` of the same run and
//! verifies, also when a commit task's and a prove task's worker processes die mid-run
//! (Ray retries them).
//!
//! The Ray tests need the pinned Ray in its venv (`bash scripts/install-ray.sh`, prefix
//! `$KESTREL_RAY_PREFIX`, default `/opt/kestrel-ray`); without it they fail saying so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use kestrel_prover_gpu::dist::{
    self, FileKind, HeadFile, PartFile, RoundsFile, RunFile, SegmentFile, DIST_VERSION,
};
use kestrel_tests::cli_bin::{kestrel, root};

/// sha256 on `abc`: 20,511 cycles, six segments of 2^12.
const ELF: &str = "tests/guests/bin/sha256.elf";
const INPUT: &str = "tests/guests/input/abc.txt";
const SEGMENT_CYCLES: &str = "4096";

fn path(rel: &str) -> PathBuf {
    root().join(rel)
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kestrel-dist-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch directory");
    d
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the command starts")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `kestrel dist pack` of the test run into `dir` with `packers`.
fn pack(dir: &Path, packers: &str) {
    let o = run(Command::new(kestrel())
        .args(["dist", "pack"])
        .arg(path(ELF))
        .arg("--input")
        .arg(path(INPUT))
        .args([
            "--segment-cycles",
            SEGMENT_CYCLES,
            "--packers",
            packers,
            "--out",
        ])
        .arg(dir));
    assert!(o.status.success(), "{}", text(&o));
    let lines = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        lines.lines().filter(|l| l.starts_with("segment ")).count(),
        6,
        "{lines}"
    );
}

/// The single-process proof file of the test run (`kestrel prove --segment-cycles`).
fn reference() -> &'static [u8] {
    static REF: OnceLock<Vec<u8>> = OnceLock::new();
    REF.get_or_init(|| {
        let dir = scratch("reference");
        let out = dir.join("ref.proof");
        let o = run(Command::new(kestrel())
            .arg("prove")
            .arg(path(ELF))
            .arg("--input")
            .arg(path(INPUT))
            .args(["--segment-cycles", SEGMENT_CYCLES, "--backend", "cpu", "-o"])
            .arg(&out));
        assert!(o.status.success(), "{}", text(&o));
        std::fs::read(&out).expect("the reference proof")
    })
}

fn verify(proof: &Path) {
    let o = run(Command::new(kestrel())
        .arg("verify")
        .arg(proof)
        .arg("--elf")
        .arg(path(ELF)));
    assert!(o.status.success(), "{}", text(&o));
}

// ---- the files' codecs (no Ray) ----

fn packed_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = scratch("packed");
        pack(&d, "1");
        d
    })
}

/// Packers from checkpoints write the files of the in-order pack, byte for byte (the
/// segments in the order their packing ends).
#[test]
fn packers_write_the_in_order_files() {
    let one = packed_dir();
    let three = scratch("packed-3");
    pack(&three, "3");
    let mut names = vec!["run.bin".to_string(), "manifest.json".to_string()];
    names.extend((0..6).map(|k| format!("seg-{k}.bin")));
    for name in &names {
        let (a, b) = (
            std::fs::read(one.join(name)).unwrap(),
            std::fs::read(three.join(name)).unwrap(),
        );
        assert!(a == b, "{name} differs with 3 packers");
    }
    // Out of range: a usage error from the library, not a panic or a thread per request.
    let e = dist::pack(
        &path(ELF),
        b"abc",
        1 << 20,
        12,
        4,
        0,
        &scratch("packed-0"),
        &mut |_, _, _| {},
    )
    .unwrap_err();
    assert_eq!(e.kind(), kestrel_prover_gpu::api::ErrorKind::Usage, "{e}");
    // A segment file that cannot be written stops the packers and the executor with that
    // error (a directory stands where seg-2.bin goes).
    let blocked = scratch("packed-blocked");
    std::fs::create_dir_all(blocked.join("seg-2.bin").join("x")).unwrap();
    let e = dist::pack(
        &path(ELF),
        b"abc",
        1 << 20,
        12,
        4,
        3,
        &blocked,
        &mut |_, _, _| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("seg-2.bin"), "{e}");
    assert!(!blocked.join("run.bin").exists());
}

#[test]
fn every_file_round_trips() {
    let dir = packed_dir();
    let bytes = std::fs::read(dir.join("seg-2.bin")).unwrap();
    let seg: SegmentFile = dist::decode(FileKind::Segment, &bytes).unwrap();
    assert_eq!(seg.index, 2);
    assert_eq!(seg.id.segments, 6);
    assert_eq!(dist::encode(FileKind::Segment, &seg).unwrap(), bytes);
    let bytes = std::fs::read(dir.join("run.bin")).unwrap();
    let run: RunFile = dist::decode(FileKind::Run, &bytes).unwrap();
    assert_eq!(run.id, seg.id);
    assert_eq!(dist::encode(FileKind::Run, &run).unwrap(), bytes);
    let head = HeadFile {
        id: seg.id,
        index: 2,
        log_heights: vec![3, 4],
        main_cap: vec![kestrel_core::merkle::Digest([7; 32])],
    };
    let enc = dist::encode(FileKind::Head, &head).unwrap();
    assert_eq!(
        dist::decode::<HeadFile>(FileKind::Head, &enc).unwrap(),
        head
    );
    let rounds = RoundsFile {
        id: seg.id,
        preprocessed_cap: vec![],
        public: run.traces.public.clone(),
        heads: vec![(vec![1], vec![])],
    };
    let enc = dist::encode(FileKind::Rounds, &rounds).unwrap();
    assert_eq!(
        dist::decode::<RoundsFile>(FileKind::Rounds, &enc).unwrap(),
        rounds
    );
}

#[test]
fn bad_bytes_are_errors_not_panics() {
    let dir = packed_dir();
    let good = std::fs::read(dir.join("seg-5.bin")).unwrap();
    assert!(dist::decode::<SegmentFile>(FileKind::Segment, &good).is_ok());
    let err = |b: &[u8]| dist::decode::<SegmentFile>(FileKind::Segment, b).expect_err("refused");
    // Every truncation, and a flipped bit at every byte (a sample of bits).
    for n in (0..good.len()).step_by(good.len() / 97 + 1) {
        let _ = err(&good[..n]);
    }
    for i in (0..good.len()).step_by(good.len() / 211 + 1) {
        let mut b = good.clone();
        b[i] ^= 1 << (i % 8);
        let _ = err(&b);
    }
    assert!(
        err(&good[..good.len() - 1]).contains("digest"),
        "{}",
        err(&good[..20])
    );
    assert!(err(&good[..20]).contains("truncated"));
    let mut b = good.clone();
    b[4..6].copy_from_slice(&(DIST_VERSION + 1).to_le_bytes());
    assert!(err(&b).contains("version"), "{}", err(&b));
    let mut b = good.clone();
    b[0] = b'X';
    assert!(err(&b).contains("magic"));
    // The right envelope around the wrong kind, and a payload with bytes after it.
    let run: RunFile =
        dist::decode(FileKind::Run, &std::fs::read(dir.join("run.bin")).unwrap()).unwrap();
    let as_run = dist::encode(FileKind::Run, &run).unwrap();
    assert!(err(&as_run).contains("a run file where a segment file"));
    let part = dist::encode(FileKind::Part, &run.id).unwrap();
    assert!(dist::decode::<PartFile>(FileKind::Part, &part).is_err());
    // A well-formed file whose payload does not decode as its kind's.
    let wrong = dist::encode(FileKind::Segment, &(1u8, 2u8)).unwrap();
    assert!(err(&wrong).contains("malformed"));
}

/// The commands refuse a file of another segment, program or kind with exit 2 and one
/// `error:` line naming the file.
#[test]
fn workers_refuse_the_wrong_files() {
    let dir = packed_dir();
    let work = scratch("wrong");
    let seg1 = dir.join("seg-1.bin");
    let commit = |seg: &Path, elf: &str| {
        run(Command::new(kestrel())
            .args(["dist", "commit"])
            .arg(seg)
            .arg("--elf")
            .arg(path(elf))
            .args(["--backend", "cpu", "--out"])
            .arg(work.join("head.bin")))
    };
    let o = commit(&seg1, "tests/guests/bin/fibonacci.elf");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("another program"), "{}", text(&o));
    let o = commit(&dir.join("run.bin"), ELF);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("a run file where a segment file"),
        "{}",
        text(&o)
    );
    let trunc = work.join("trunc.bin");
    let b = std::fs::read(&seg1).unwrap();
    std::fs::write(&trunc, &b[..b.len() / 2]).unwrap();
    let o = commit(&trunc, ELF);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("error: ") && text(&o).contains("trunc.bin"));
    // A rounds file is needed to reach the part check: make one from real heads.
    for k in 0..6 {
        let o = run(Command::new(kestrel())
            .args(["dist", "commit"])
            .arg(dir.join(format!("seg-{k}.bin")))
            .arg("--elf")
            .arg(path(ELF))
            .args(["--backend", "cpu", "--out"])
            .arg(work.join(format!("head-{k}.bin"))));
        assert!(o.status.success(), "{}", text(&o));
    }
    let rounds = work.join("rounds.bin");
    let o = run(Command::new(kestrel())
        .args(["dist", "challenges"])
        .arg(dir)
        .args((0..6).map(|k| work.join(format!("head-{k}.bin"))))
        .arg("--elf")
        .arg(path(ELF))
        .args(["--backend", "cpu", "--out"])
        .arg(&rounds));
    assert!(o.status.success(), "{}", text(&o));
    let o = run(Command::new(kestrel())
        .args(["dist", "prove"])
        .arg(&seg1)
        .arg("--rounds")
        .arg(&rounds)
        .args(["--part", "2", "--elf"])
        .arg(path(ELF))
        .args(["--backend", "cpu", "--out"])
        .arg(work.join("part.bin")));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("is segment 1's, not segment 2's"),
        "{}",
        text(&o)
    );
    // Heads in the wrong order are refused by their indices.
    let o = run(Command::new(kestrel())
        .args(["dist", "challenges"])
        .arg(dir)
        .args([1, 0, 2, 3, 4, 5].map(|k| work.join(format!("head-{k}.bin"))))
        .arg("--elf")
        .arg(path(ELF))
        .args(["--backend", "cpu", "--out"])
        .arg(work.join("r2.bin")));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

// ---- Ray ----

/// The venv's python, or a failure saying how to install it.
fn ray_python() -> PathBuf {
    let prefix = std::env::var_os("KESTREL_RAY_PREFIX")
        .map_or_else(|| PathBuf::from("/opt/kestrel-ray"), PathBuf::from);
    let py = prefix.join("bin").join("python");
    let ok = Command::new(&py)
        .args(["-c", "import ray"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "Ray is not installed at {} (no python that imports ray): run \
         `bash scripts/install-ray.sh` (or set KESTREL_RAY_PREFIX to its prefix)",
        prefix.display()
    );
    py
}

/// One local cluster at a time (two would share the host's two cores and Ray's ports).
static CLUSTER: Mutex<()> = Mutex::new(());

/// Proves the test run through the Ray driver on a local cluster of two worker nodes (the
/// helper stops the cluster when the driver ends, also on failure); the proof file.
fn prove_on_ray(name: &str, die_once: Option<String>, packers: &str) -> PathBuf {
    let py = ray_python();
    let _one = CLUSTER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = scratch(name);
    let out = dir.join("ray.proof");
    let mut cmd = Command::new(&py);
    cmd.arg(path("scripts/ray_local_cluster.py"))
        .args([
            "--nodes",
            "2",
            "--cpus-per-node",
            "1",
            "--timeout",
            "240",
            "--",
        ])
        .arg(&py)
        .arg(path("scripts/kestrel_ray.py"))
        .arg("prove")
        .arg(path(ELF))
        .arg("--input")
        .arg(path(INPUT))
        .args([
            "--segment-cycles",
            SEGMENT_CYCLES,
            "--backend",
            "cpu",
            "--address",
            "auto",
            "--packers",
            packers,
        ])
        .arg("--kestrel")
        .arg(kestrel())
        .arg("--workdir")
        .arg(dir.join("work"))
        .arg("-o")
        .arg(&out)
        .env("RAY_DEDUP_LOGS", "0");
    match die_once {
        Some(spec) => cmd.env("KESTREL_DIST_DIE_ONCE", spec),
        None => cmd.env_remove("KESTREL_DIST_DIE_ONCE"),
    };
    let o = run(&mut cmd);
    assert!(o.status.success(), "{}", text(&o));
    out
}

#[test]
fn ray_proves_a_segmented_run_byte_identically() {
    // The driver's pack runs two packers from checkpoints here.
    let proof = prove_on_ray("ray", None, "2");
    let got = std::fs::read(&proof).unwrap();
    assert!(
        got == reference(),
        "the Ray proof differs from kestrel prove's"
    );
    verify(&proof);
}

#[test]
fn ray_retries_workers_that_die_mid_run() {
    let dir = scratch("markers");
    let (m1, m2) = (dir.join("commit-1"), dir.join("prove-3"));
    let spec = format!("commit:1:{},prove:3:{}", m1.display(), m2.display());
    let proof = prove_on_ray("ray-faults", Some(spec), "1");
    // Each task's first attempt ended its worker (it made its marker); the retries finished.
    assert!(m1.exists() && m2.exists(), "the faults were not injected");
    let got = std::fs::read(&proof).unwrap();
    assert!(
        got == reference(),
        "the Ray proof differs from kestrel prove's"
    );
    verify(&proof);
}
