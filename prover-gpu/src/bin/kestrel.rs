//! The `kestrel` command line (see [`kestrel_prover_gpu::cli`]).

fn main() {
    std::process::exit(kestrel_prover_gpu::cli::main());
}
