//! Device-memory budget (issue 7): the same program proved with the default budget and with
//! deliberately small ones gives the same proof bytes, with peak device memory under each
//! budget (cached LDEs are evicted and recomputed); a budget below the planned working set
//! is refused before anything is committed, and no proof file is written.
//!
//! GPU tests are `#[ignore]`d ("needs a CUDA device") and run with `--ignored` on the GPU
//! machine, where a missing device fails them.
#![cfg(feature = "cuda")]

mod gpu {
    use kestrel_core::params::StarkParams;
    use kestrel_prover_gpu::cli_prove::{prove_with, ProveArgs};
    use kestrel_prover_gpu::cuda::{CudaBackend, CudaStats};
    use kestrel_prover_gpu::prover::{prove_main, setup};
    use kestrel_prover_gpu::rv::{machine_for, main_traces, program_image, verifier_machine};
    use kestrel_prover_gpu::select::BackendChoice;
    use kestrel_tests::vm_support::{guest_bin_dir, input_of, run_recorded};

    fn gpu() -> CudaBackend {
        CudaBackend::new().unwrap_or_else(|e| panic!("no CUDA device ({e}): this test needs one"))
    }

    /// One proof of `name` (blowup 2, device fills) under `budget` bytes (`None`: the
    /// default). Returns the proof or the error's text, the stats of this proof alone, and
    /// the device memory held when it started.
    fn prove_under(
        g: &CudaBackend,
        name: &str,
        budget: Option<u64>,
    ) -> (Result<Vec<u8>, String>, CudaStats, u64) {
        let (program, records, _) = run_recorded(name, input_of(name));
        let image = program_image(&program);
        let machine = machine_for(&image);
        g.set_vram_budget(None);
        let pk = setup(g, &machine, StarkParams::BLOWUP_2).unwrap();
        g.set_vram_budget(budget);
        g.reset_stats();
        let held = g.stats().device_bytes_now;
        let proof = main_traces(g, &machine, &image, &records, input_of(name), true)
            .map_err(|e| e.to_string())
            .and_then(|(main, public)| {
                let p = prove_main(g, &pk, &machine, main, &public)
                    .map_err(|e| e.to_string())?
                    .0
                    .to_bytes();
                kestrel_verifier::verify(&verifier_machine(), &pk.vk, &public, &p)
                    .map_err(|e| format!("verify: {e:?}"))?;
                Ok(p)
            });
        let stats = g.stats();
        g.set_vram_budget(None);
        (proof, stats, held)
    }

    /// Budgets from the default down to the plan: every budget at or above the plan proves,
    /// byte-identical to the default proof, with its peak under the budget (evicting and
    /// recomputing LDEs where it must); every budget below it is refused before anything is
    /// committed.
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn budgets_down_to_the_plan_give_the_same_proof_under_their_peak() {
        let g = gpu();
        for name in ["bench/fib_reg_18", "sha256"] {
            let (large, s, held) = prove_under(&g, name, None);
            let large = large.unwrap_or_else(|e| panic!("{name}: default budget: {e}"));
            let peak = s.device_bytes_peak;
            let planned = s.vram_planned;
            assert!(peak <= s.vram_budget);
            // The smallest budget the plan accepts.
            let floor = s.vram_floor;
            assert!(floor > held + planned);
            eprintln!(
                "{name}: default budget {} B: peak {peak} B (held at start {held} B), plan {planned} B, \
                 {} LDE recomputes",
                s.vram_budget,
                s.op("lde recompute")
            );
            let mut budgets = vec![
                ("80% of the peak", held + (peak - held) * 4 / 5),
                ("the plan", floor),
                ("just under the plan", floor - 1),
                ("half the plan", held + planned / 2),
            ];
            if floor < peak {
                budgets.push(("between", (floor + peak) / 2));
            }
            for (what, budget) in budgets {
                let (small, s, _) = prove_under(&g, name, Some(budget));
                eprintln!(
                    "{name}: budget {what} = {budget} B: {}, peak {} B, {} LDEs evicted, {} recomputed, \
                     {} spilled ({} B), {} reloaded ({} B)",
                    match &small {
                        Ok(_) => "proved".to_string(),
                        Err(e) => format!("refused ({e})"),
                    },
                    s.device_bytes_peak,
                    s.op("lde evicted"),
                    s.op("lde recompute"),
                    s.op("spill"),
                    s.d2h_bytes.get("spill").copied().unwrap_or(0),
                    s.op("spill reload"),
                    s.h2d_bytes.get("spill reload").copied().unwrap_or(0)
                );
                assert!(
                    s.device_bytes_peak <= budget,
                    "{name}: peak {} over the budget {budget}",
                    s.device_bytes_peak
                );
                match small {
                    Ok(p) => assert!(p == large, "{name}: budget {what}: the proof differs"),
                    Err(e) => {
                        assert!(
                            budget < floor,
                            "{name}: budget {what} ({budget} B, plan floor {floor} B) did not prove: {e}"
                        );
                        assert!(e.contains("planned working set"), "{name}: {e}");
                        assert_eq!(s.op("commit_device_trace"), 0, "{name}: committed");
                    }
                }
                if budget >= floor && budget < peak {
                    assert!(s.op("lde evicted") > 0 && s.op("lde recompute") > 0);
                }
            }
        }
    }

    /// A budget below the planned working set: refused before anything is committed, by
    /// the library and by the CLI, which writes no proof file. (The fills of the tables
    /// whose records are ready first may run before the other tables' sizes are known —
    /// under the budget, like every allocation — and are given back.)
    #[test]
    #[ignore = "needs a CUDA device: run with --ignored on the GPU machine"]
    fn a_budget_below_the_plan_is_refused_before_anything_is_committed() {
        let g = gpu();
        let name = "bench/fib_reg_16";
        let (ok, s, held) = prove_under(&g, name, None);
        ok.unwrap();
        let planned = s.vram_planned;
        assert!(planned > 0, "the planner ran");
        let (refused, s, held_then) = prove_under(&g, name, Some(held + planned / 2));
        let e = refused.expect_err("a budget under the plan proved");
        assert!(e.contains("planned working set"), "{e}");
        assert_eq!(s.op("commit_device_trace"), 0);
        assert!(s.device_bytes_peak <= held + planned / 2);
        assert_eq!(
            s.device_bytes_now, held_then,
            "device memory not given back"
        );

        let out = std::env::temp_dir().join(format!("kestrel-budget-{}.proof", std::process::id()));
        let _ = std::fs::remove_file(&out);
        g.set_vram_budget(Some(held + planned / 2));
        let args = ProveArgs {
            json: false,
            elf: guest_bin_dir().join(format!("{name}.elf")),
            output: out.clone(),
            input: None,
            max_cycles: 1 << 24,
            blowup: 2,
            stats: None,
            backend: BackendChoice::Cuda,
            host_fills: false,
            vram_budget: None,
            devices: None,
            segment_cycles: None,
            packers: None,
        };
        assert!(prove_with(&g, &args).is_err());
        assert!(
            !out.exists(),
            "a proof file was written under a refused budget"
        );
        g.set_vram_budget(None);
    }
}
