//! The `kestrel` command line.

use clap::{Parser, Subcommand};
use kestrel_prover_gpu::cli_fib::{fib_command, FibArgs};
use kestrel_prover_gpu::cli_new::{new_command, NewArgs};
use kestrel_prover_gpu::cli_prove::{
    prove_command, verify_command, vk_command, ProveArgs, VerifyArgs, VkArgs,
};
use kestrel_prover_gpu::cli_run::{run_command, RunArgs};

#[derive(Parser)]
#[command(name = "kestrel", version, about = "Prove and verify RV64IM programs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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

fn main() {
    let cli = Cli::parse();
    let code = match &cli.command {
        Command::Run(a) => run_command(a),
        Command::Fib(a) => fib_command(a),
        Command::New(a) => new_command(a),
        Command::Prove(a) => prove_command(a),
        Command::Vk(a) => vk_command(a),
        Command::Verify(a) => verify_command(a),
    };
    std::process::exit(code);
}
