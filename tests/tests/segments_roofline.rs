//! The roofline of a segmented proof (`prove --stats` past `--segment-cycles`): every stage
//! of [`STAGES`], its least work the sum of every part's (each segment and the run part,
//! each at its own heights, nonce and records, the main commitment counted once), its time
//! the stage's in the report's phases (summed over both phases of the run).

use kestrel_core::air::{Machine, TableShape};
use kestrel_core::rv::machine::NUM_PUBLIC;
use kestrel_core::rv::table::TableId;
use kestrel_core::stark::FriShape;
use kestrel_prover_gpu::api::{self, BackendChoice, Guest, ProveOptions};
use kestrel_prover_gpu::cli_prove::{prove_command, ProveArgs};
use kestrel_prover_gpu::cpu::CpuBackend;
use kestrel_prover_gpu::roofline::{leaf_perms, part_model, PartShape, TableDims, STAGES};
use kestrel_prover_gpu::rv::{machine_for, program_image};
use kestrel_prover_gpu::segmented::prove_segmented;
use kestrel_prover_gpu::vm::record::Record;
use kestrel_tests::vm_support::asm::{addi, b, exit};
use kestrel_tests::vm_support::elf_writer::elf;
use kestrel_tests::vm_support::TempFile;

const BLOWUP: usize = 2;
/// Segments of 2^8 cycles.
const SEGMENT_LOG: u32 = 8;

/// A loop of 300 iterations (about 600 cycles: three segments and the run part).
fn program() -> Vec<u8> {
    let mut code = vec![addi(5, 0, 300), addi(5, 5, -1), b(1, 5, 0, -4)];
    code.extend(exit(3));
    elf(&code, &[])
}

/// A stage's least work: (stage, bytes, Keccak permutations).
type Work = Vec<(&'static str, u64, u64)>;

/// The least work of the program's segmented proof, from its parts as a separate segmented
/// proof of the same run gives them (the proof is deterministic: the same bytes as
/// `proof`, a proof or a proof file, ends with): each part's tables at the heights its body declares, their widths from the
/// machine's AIRs, its nonce, its segment's records; each part modelled alone and the
/// stages summed. Grinding, trace and the main commitment are also counted here from
/// their formulas.
fn expected_work(proof: &[u8]) -> Work {
    let g = Guest::from_elf(&program()).unwrap();
    let cycles = g.execute(&[], 1 << 20).cycles;
    let params = api::params(BLOWUP).unwrap();
    let run = prove_segmented(
        &[CpuBackend],
        g.program(),
        &[],
        params,
        cycles,
        SEGMENT_LOG,
        false,
        1,
        &mut |_| {},
    )
    .unwrap();
    assert!(proof.ends_with(&run.proof.to_bytes()), "the same proof");
    let n_seg = cycles.div_ceil(1 << SEGMENT_LOG) as usize;
    assert!(n_seg >= 3, "{cycles} cycles");
    assert_eq!(run.proof.parts.len(), n_seg + 1);

    let machine = machine_for(&program_image(g.program()));
    let layout = machine.segment_layout().unwrap();
    let shape = |t: usize| TableShape::of(machine.air(TableId::ALL[t]), NUM_PUBLIC).unwrap();
    let record = std::mem::size_of::<Record>() as u64;
    let lb = u32::from(params.log_blowup);
    let mut parts = Vec::new();
    let (mut grind, mut trace, mut commit_bytes, mut commit_perms) = (0u64, 0u64, 0u64, 0u64);
    for (k, body) in run.proof.parts.iter().enumerate() {
        let (ids, records) = if k < n_seg {
            let c = (cycles - (k as u64) * (1 << SEGMENT_LOG)).min(1 << SEGMENT_LOG);
            (&layout.segment, c * record)
        } else {
            (&layout.run, 0)
        };
        assert_eq!(body.log_heights.len(), ids.len());
        let tables: Vec<TableDims> = ids
            .iter()
            .zip(&body.log_heights)
            .map(|(&t, &lh)| {
                let s = shape(t);
                TableDims {
                    log_n: u32::from(lh),
                    main: s.width as u64,
                    pre: s.preprocessed_width as u64,
                    aux: s.aux_width as u64,
                    quotient_chunks: s.quotient_chunks as u64,
                    interactions: s.num_interactions > 0,
                }
            })
            .collect();
        grind += body.pow_nonce + 1;
        trace += records;
        for t in &tables {
            let (n, w) = (1u64 << t.log_n, t.main);
            let lde = n << lb;
            trace += 8 * n * w;
            commit_bytes += 8 * n * w + 8 * lde * w + 32 * (2 * lde - 1);
            commit_perms += lde * leaf_perms(w) + lde - 1;
        }
        let fri = FriShape::new(&params, &body.log_heights);
        parts.push(PartShape {
            tables,
            log_blowup: lb,
            num_queries: u64::from(params.num_queries),
            log_max_lde: fri.log_max_lde,
            fri_log_arities: (0..fri.num_layers).map(|l| fri.log_arity(l)).collect(),
            pow_nonce: body.pow_nonce,
            record_bytes: records,
        });
    }
    let mut work: Work = STAGES.iter().map(|&s| (s, 0, 0)).collect();
    for p in &parts {
        for (w, m) in work.iter_mut().zip(part_model(p)) {
            assert_eq!(w.0, m.stage);
            w.1 += m.bytes_min();
            w.2 += m.keccak_perms;
        }
    }
    let get = |s: &str| *work.iter().find(|w| w.0 == s).unwrap();
    assert_eq!(get("grinding"), ("grinding", 0, grind));
    assert_eq!(get("trace"), ("trace", trace, 0));
    assert_eq!(
        get("commit main"),
        ("commit main", commit_bytes, commit_perms)
    );
    work
}

#[test]
fn a_segmented_proof_reports_the_roofline_of_all_its_parts() {
    let g = Guest::from_elf(&program()).unwrap();
    let proved = g
        .prove(
            &[],
            &ProveOptions {
                backend: BackendChoice::Cpu,
                blowup: BLOWUP,
                segment_log: Some(SEGMENT_LOG),
                roofline: true,
                ..ProveOptions::default()
            },
        )
        .unwrap();
    let r = &proved.report;
    let seg = r.segmented.as_ref().expect("a segmented proof");
    assert_eq!(seg.shape.parts.len(), seg.segments + 1);
    let (_, roof) = r
        .roofline
        .as_ref()
        .expect("a roofline")
        .as_ref()
        .expect("ceilings measured");
    let stages: Vec<&str> = roof.iter().map(|s| s.stage).collect();
    assert_eq!(stages, STAGES);
    let expected = expected_work(&proved.proof);
    for (s, (stage, bytes, perms)) in roof.iter().zip(expected) {
        assert_eq!(
            (s.stage, s.bytes_min, s.keccak_perms),
            (stage, bytes, perms)
        );
        // The stage's time is its entry in the phases (both phases of the run summed).
        let ms = r.phases.iter().find(|(n, _)| n == stage).map(|p| p.1);
        assert_eq!(Some(s.ms), ms, "{stage}");
        for v in [s.bandwidth_fraction, s.keccak_fraction] {
            assert!(v.is_finite() && v >= 0.0, "{stage}: {v}");
        }
    }
    // The trace stage's records are the run's, once.
    assert_eq!(
        r.record_bytes,
        r.cycles * std::mem::size_of::<Record>() as u64
    );
}

/// `prove --stats` of a segmented run: the same `roofline` and `ceilings` as a whole
/// proof's (every stage, the same fields), `segmented` without the parts' shapes.
#[test]
fn prove_stats_of_a_segmented_run_have_the_roofline() {
    let prog = TempFile::new("seg-roofline", &program());
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let proof = dir.join(format!("kestrel-seg-roofline-{pid}.proof"));
    let stats = dir.join(format!("kestrel-seg-roofline-{pid}.json"));
    let args = ProveArgs {
        json: false,
        elf: prog.path().into(),
        output: proof.clone(),
        input: None,
        max_cycles: 1 << 20,
        blowup: BLOWUP,
        stats: Some(stats.clone()),
        backend: BackendChoice::Cpu,
        host_fills: false,
        vram_budget: None,
        devices: None,
        segment_cycles: Some(SEGMENT_LOG),
        packers: Some(2),
    };
    assert_eq!(prove_command(&args), 0);
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    let file = std::fs::read(&proof).unwrap();
    let seg = s["segmented"].as_object().expect("a segmented run");
    let mut keys: Vec<&str> = seg.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "backends",
            "backends_fed",
            "executor_mhz",
            "packers",
            "packing_mhz",
            "phase_seconds",
            "segment_log",
            "segments"
        ]
    );
    // Two packers, as asked.
    assert_eq!(seg["packers"], 2);
    // One backend: it committed and proved every segment.
    let backends = seg["backends"].as_array().expect("one entry per backend");
    assert_eq!(backends.len(), 1);
    assert_eq!(backends[0]["committed"], seg["segments"]);
    assert_eq!(backends[0]["proved"], seg["segments"]);
    for v in [
        &backends[0]["busy_seconds"],
        &seg["executor_mhz"],
        &seg["backends_fed"],
        &seg["packing_mhz"],
    ] {
        assert!(v.as_f64().is_some_and(|x| x.is_finite() && x > 0.0), "{v}");
    }
    for k in ["copy_gb_s", "keccak_gperm_s"] {
        let v = s["ceilings"][k].as_f64().unwrap_or_else(|| panic!("{k}"));
        assert!(v.is_finite() && v > 0.0, "ceilings.{k} = {v}");
    }
    // The packing pass's stages, timed within the trace phase.
    let phases = s["phases_ms"].as_object().expect("phases");
    let mut packing = 0.0;
    for stage in [
        "decode",
        "replay",
        "replay + steps",
        "tables",
        "byte lookups",
    ] {
        let v = phases[&format!("trace: pack: {stage}")]
            .as_f64()
            .unwrap_or_else(|| panic!("no trace: pack: {stage}"));
        assert!(v.is_finite() && v >= 0.0, "{stage}: {v}");
        packing += v;
    }
    let trace = phases["trace"].as_f64().expect("a trace phase");
    assert!(
        packing <= trace + 1e-6,
        "packing {packing} ms > trace {trace} ms"
    );
    // Each segment table's rows are summed over the segments (the last one padded), and
    // its cells per cycle are per cycle of the whole run.
    let cycles = s["cycles"].as_u64().expect("cycles");
    let n_seg = seg["segments"].as_u64().expect("segments");
    let last = cycles - (n_seg - 1) * (1 << SEGMENT_LOG);
    let tables = s["tables"].as_array().expect("tables");
    let cpu = tables.iter().find(|t| t["table"] == "CPU").expect("CPU");
    let rows = (n_seg - 1) * (1 << SEGMENT_LOG) + last.next_power_of_two().max(16);
    assert_eq!(cpu["rows"].as_u64(), Some(rows), "{cpu}");
    let width = cpu["columns"].as_u64().unwrap() + cpu["aux_columns"].as_u64().unwrap();
    let per = cpu["cells_per_cycle"].as_f64().unwrap();
    assert!(
        (per - (rows * width) as f64 / cycles as f64).abs() < 1e-9,
        "{cpu}"
    );
    let roofline = s["roofline"].as_array().expect("a roofline array");
    let expected = expected_work(&file);
    assert_eq!(roofline.len(), STAGES.len());
    for (r, (stage, bytes, perms)) in roofline.iter().zip(expected) {
        assert_eq!(r["stage"], stage);
        assert_eq!(r["bytes_min"].as_u64(), Some(bytes), "{stage}");
        assert_eq!(r["keccak_perms"].as_u64(), Some(perms), "{stage}");
        assert_eq!(r["ms"], s["phases_ms"][stage], "{stage}");
        for k in [
            "ms",
            "bytes_per_s",
            "perms_per_s",
            "bandwidth_fraction",
            "keccak_fraction",
        ] {
            let v = r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"));
            assert!(v.is_finite() && v >= 0.0, "{k} = {v} in {r}");
        }
        assert!(["bandwidth", "keccak", "none"].contains(&r["bound"].as_str().unwrap()));
    }
    for p in [proof, stats] {
        let _ = std::fs::remove_file(p);
    }
}
