//! The firmware's memory map (`../firmware/an505.x`) as `memory.x` for cortex-m-rt's `link.x`.
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::copy("../firmware/an505.x", out.join("memory.x")).expect("copy the memory map");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=../firmware/an505.x");
    println!("cargo:rerun-if-changed=build.rs");
}
