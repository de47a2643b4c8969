//! The `kestrel` binary for tests that run it as a process.
//!
//! The binary belongs to kestrel-prover-gpu, another package, so `CARGO_BIN_EXE_kestrel`
//! is not set in this one. [`kestrel`] is `$KESTREL_BIN` if set, else `kestrel` next to the
//! test's profile directory (`cargo test --workspace` builds it there), else it builds it
//! into `<target>/cli-hostile` with the test's profile (a separate directory: the running
//! `cargo test` holds the lock on its own).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The `kestrel` binary.
///
/// # Panics
/// If it is not found and cannot be built.
pub fn kestrel() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let name = format!("kestrel{}", std::env::consts::EXE_SUFFIX);
        if let Some(p) = std::env::var_os("KESTREL_BIN") {
            return PathBuf::from(p);
        }
        // <target>/<profile>/deps/cli_hostile-<hash>
        let exe = std::env::current_exe().expect("the test executable's path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test runs from <target>/<profile>/deps");
        let sibling = profile_dir.join(&name);
        if sibling.is_file() {
            return sibling;
        }
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev".to_string(),
            Some(p) => p.to_string(),
            None => "dev".to_string(),
        };
        let target = profile_dir
            .parent()
            .expect("<target>/<profile>")
            .join("cli-hostile");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args([
                "build",
                "-p",
                "kestrel-prover-gpu",
                "--bin",
                "kestrel",
                "--profile",
            ])
            .arg(&profile)
            .arg("--target-dir")
            .arg(&target)
            .current_dir(root())
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "the kestrel binary is not at {} and building it failed; build it with \
             `cargo build --release -p kestrel-prover-gpu --bin kestrel` or set KESTREL_BIN\n{}",
            sibling.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = if profile == "dev" { "debug" } else { &profile };
        target.join(dir).join(name)
    })
}
