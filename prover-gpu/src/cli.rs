//! The `kestrel` command line: its commands and their dispatch (`src/bin/kestrel.rs` calls
//! [`main`]).

use clap::{Parser, Subcommand};

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
}

/// Parses the process's arguments and runs the command: its exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    match &cli.command {
        Command::Run(a) => run_command(a),
        Command::Fib(a) => fib_command(a),
        Command::New(a) => new_command(a),
        Command::Prove(a) => prove_command(a),
        Command::Vk(a) => vk_command(a),
        Command::Verify(a) => verify_command(a),
    }
}
