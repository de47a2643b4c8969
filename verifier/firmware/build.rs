//! Puts the board's memory map where cortex-m-rt's `link.x` looks for `memory.x`.
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::copy("an505.x", out.join("memory.x")).expect("copy the memory map");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=an505.x");
    println!("cargo:rerun-if-changed=build.rs");
}
