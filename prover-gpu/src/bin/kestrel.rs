//! The `kestrel` command line.

use clap::{Parser, Subcommand};
use kestrel_prover_gpu::cli_fib::{fib_command, FibArgs};
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
    /// Prove and verify the Fibonacci example AIR (the main job until the VM tables exist).
    Fib(FibArgs),
}

fn main() {
    let cli = Cli::parse();
    let code = match &cli.command {
        Command::Run(a) => run_command(a),
        Command::Fib(a) => fib_command(a),
    };
    std::process::exit(code);
}
