//! `kestrel dist`: the steps of a segmented proof as separate commands, for a distributed
//! engine to run on many hosts (`scripts/kestrel_ray.py`); the logic is [`crate::dist`].
//!
//! Exit codes as `prove`'s ([`crate::cli_common::exit_code`]): 0 success, 1 proving failed,
//! 2 usage or a bad input file (malformed, truncated, of another version, program, run or
//! segment), 3 the ELF cannot be loaded or run, 4 an output cannot be written. Every
//! failure prints one `error: …` line on stderr.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::api;
use crate::cli_common::{exit_code, Cmd};
use crate::cli_prove::{parse_blowup, parse_prove_cycles, parse_segment_cycles};
use crate::dist::{self, DistError};
use crate::limits::{DEFAULT_PROVE_CYCLES, MAX_INPUT};
use crate::select::BackendChoice;

/// Arguments of `kestrel dist`.
#[derive(Debug, Args)]
pub struct DistArgs {
    #[command(subcommand)]
    pub step: DistStep,
}

/// The steps.
#[derive(Debug, Subcommand)]
pub enum DistStep {
    /// Run the guest and write each segment's packed traces (DIR/seg-K.bin, one line
    /// `segment K PATH CYCLES` on stdout as each is written, in any order with
    /// `--packers` above 1), then DIR/run.bin and DIR/manifest.json.
    Pack(PackArgs),
    /// Commit one segment's main traces: its head.
    Commit(CommitArgs),
    /// Commit the run part and write what the shared challenges are drawn from.
    Challenges(ChallengesArgs),
    /// Prove one segment under the shared challenges: its part of the proof.
    Prove(DistProveArgs),
    /// Prove the run part, check every part and write the proof file.
    Assemble(AssembleArgs),
}

/// Arguments of `kestrel dist pack`.
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The RV64IM ELF to prove.
    pub elf: PathBuf,
    /// Private input (the guest's fd 0).
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Stop after this many instructions (as `prove`'s).
    #[arg(long, default_value_t = DEFAULT_PROVE_CYCLES, value_parser = parse_prove_cycles)]
    pub max_cycles: u64,
    /// Cycles per segment: a power of two from 2^8 to 2^24.
    #[arg(long, value_parser = parse_segment_cycles)]
    pub segment_cycles: u32,
    /// LDE blowup preset: 2, 4 or 8.
    #[arg(long, default_value_t = 4, value_parser = parse_blowup)]
    pub blowup: usize,
    /// Threads that pack the segments at once, each from the replay state at its segment's
    /// start while the one executor runs ahead (as `prove --packers`); the segments are then
    /// written as their packing ends, in any order. 1: in order. The files are the same.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=crate::api::MAX_PACKERS as u64))]
    pub packers: u64,
    /// The directory to write into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `kestrel dist commit`.
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// The segment's file (seg-K.bin).
    pub segment: PathBuf,
    /// The ELF the run is of.
    #[arg(long)]
    pub elf: PathBuf,
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Build every main trace on the host (the proof is the same).
    #[arg(long)]
    pub host_fills: bool,
    /// Where to write the head.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `kestrel dist challenges`.
#[derive(Debug, Args)]
pub struct ChallengesArgs {
    /// The directory `pack` wrote (run.bin; the heads by default).
    pub dir: PathBuf,
    /// The segments' heads in order (default: DIR/head-K.bin).
    pub heads: Vec<PathBuf>,
    #[arg(long)]
    pub elf: PathBuf,
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Where to write the rounds file (default: DIR/rounds.bin).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Arguments of `kestrel dist prove`.
#[derive(Debug, Args)]
pub struct DistProveArgs {
    /// The segment's file (seg-K.bin).
    pub segment: PathBuf,
    /// The rounds file `challenges` wrote.
    #[arg(long)]
    pub rounds: PathBuf,
    /// The segment's index: the file must be this segment's.
    #[arg(long)]
    pub part: usize,
    #[arg(long)]
    pub elf: PathBuf,
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Build every main trace on the host (the proof is the same).
    #[arg(long)]
    pub host_fills: bool,
    /// Where to write the part.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `kestrel dist assemble`.
#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// The directory `pack` wrote (run.bin, rounds.bin; the parts by default).
    pub dir: PathBuf,
    /// The segments' parts in order (default: DIR/part-K.bin).
    pub parts: Vec<PathBuf>,
    #[arg(long)]
    pub elf: PathBuf,
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub backend: BackendChoice,
    /// Where to write the proof file.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// `kestrel dist …`: its exit code.
pub fn dist_command(a: &DistArgs) -> i32 {
    match run(&a.step) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            exit_code(Cmd::Prove, e.kind())
        }
    }
}

fn run(step: &DistStep) -> Result<(), DistError> {
    match step {
        DistStep::Pack(a) => {
            let input = match &a.input {
                Some(p) => api::read_file(p, "input", (MAX_INPUT, "private input"))?,
                None => Vec::new(),
            };
            let s = dist::pack(
                &a.elf,
                &input,
                a.max_cycles,
                a.segment_cycles,
                a.blowup,
                a.packers as usize,
                &a.out,
                &mut |k, path, cycles| {
                    // The driver reads these lines as the segments appear.
                    println!("segment {k} {} {cycles}", path.display());
                },
            )?;
            println!(
                "run {} {} segments {} cycles",
                a.out.join("run.bin").display(),
                s.segments,
                s.cycles
            );
            Ok(())
        }
        DistStep::Commit(a) => {
            let k = dist::commit(&a.segment, &a.elf, a.backend, a.host_fills, &a.out)?;
            eprintln!("committed segment {k}: {}", a.out.display());
            Ok(())
        }
        DistStep::Challenges(a) => {
            let out = a.out.clone().unwrap_or_else(|| a.dir.join("rounds.bin"));
            let n = dist::challenges(&a.dir, &a.heads, &a.elf, a.backend, &out)?;
            eprintln!(
                "drew the challenges of {n} segments and the run part: {}",
                out.display()
            );
            Ok(())
        }
        DistStep::Prove(a) => {
            dist::prove(
                &a.segment,
                &a.rounds,
                a.part,
                &a.elf,
                a.backend,
                a.host_fills,
                &a.out,
            )?;
            eprintln!("proved segment {}: {}", a.part, a.out.display());
            Ok(())
        }
        DistStep::Assemble(a) => {
            let done = dist::assemble(&a.dir, &a.parts, &a.elf, a.backend)?;
            dist::write_bytes(&a.output, &done.file)?;
            eprintln!(
                "assembled and verified {} segments and the run part: exit code {}, proof file {} bytes: {}",
                done.segments,
                done.statement.exit_code,
                done.file.len(),
                a.output.display()
            );
            Ok(())
        }
    }
}
