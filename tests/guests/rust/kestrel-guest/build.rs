//! Puts the linker script `kestrel.ld` where the final link finds it: the target spec passes
//! `-Tkestrel.ld` after the `-L` directories that build scripts add, and GNU ld searches them.
fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("kestrel.ld"), include_bytes!("kestrel.ld")).expect("write kestrel.ld");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=kestrel.ld");
    println!("cargo:rerun-if-changed=build.rs");
}
