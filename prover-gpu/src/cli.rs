//! The `kestrel` command line: its commands and their dispatch (`src/bin/kestrel.rs` calls
//! [`main`]). The commands are a thin layer on [`crate::api`]: they parse flags, open files,
//! call the API and print ([`crate::cli_common`]: exit codes, `--json`).

use clap::{Parser, Subcommand};
use serde_json::Map;

use crate::api::ErrorKind;
use crate::cli_common::{envelope, null_fields, print_json, Cmd, Failure};
use crate::cli_dist::{dist_command, DistArgs};
use crate::cli_fib::{fib_command, FibArgs};
use crate::cli_new::{new_command, NewArgs};
use crate::cli_prove::{prove_command, verify_command, vk_command, ProveArgs, VerifyArgs, VkArgs};
use crate::cli_run::{run_command, RunArgs};

/// The command line.
#[derive(Parser)]
#[command(name = "kestrel", version, about = "Prove and verify RV64IM programs")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand)]
pub enum Command {
    /// Run an RV64IM ELF; the guest's exit code is passed through.
    Run(RunArgs),
    /// Prove that an RV64IM ELF runs to its exit call.
    Prove(ProveArgs),
    /// Write the 32-byte verifying key of an ELF.
    Vk(VkArgs),
    /// Verify a proof file against a verifying key (or the ELF it came from).
    Verify(VerifyArgs),
    /// Write a ready guest project (SDK, source, build script, README).
    New(NewArgs),
    /// Prove and verify the Fibonacci example AIR (the main job until the VM tables exist).
    Fib(FibArgs),
    /// A segmented proof's steps as separate commands, for a distributed engine
    /// (`scripts/kestrel_ray.py`).
    #[command(subcommand_required = true)]
    Dist(DistArgs),
}

/// Parses the process's arguments and runs the command: its exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let args: Vec<String> = std::env::args().collect();
            let usage = !matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp
                    | clap::error::ErrorKind::DisplayVersion
                    | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            if usage && args.iter().any(|a| a == "--json") {
                let rendered = e.to_string();
                let message = rendered
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("error: ")
                    .to_string();
                let command = args.get(1).map_or("", String::as_str);
                let fields = [Cmd::Run, Cmd::Prove, Cmd::Vk, Cmd::Verify]
                    .into_iter()
                    .find(|c| c.name() == command)
                    .map_or_else(Map::new, null_fields);
                // clap's own error line follows on stderr; a failed write here changes
                // nothing about the usage error's exit status.
                let _ = print_json(&envelope(
                    command,
                    Err(&Failure::new(ErrorKind::Usage, message)),
                    fields,
                ));
            }
            e.exit();
        }
    };
    match &cli.command {
        Command::Run(a) => run_command(a),
        Command::Fib(a) => fib_command(a),
        Command::New(a) => new_command(a),
        Command::Prove(a) => prove_command(a),
        Command::Vk(a) => vk_command(a),
        Command::Verify(a) => verify_command(a),
        Command::Dist(a) => dist_command(a),
    }
}
