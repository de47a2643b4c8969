//! std must not leak into the verifier: build `tests/nostd-link`, a `#![no_std]`
//! `#![no_main]` binary with its own panic handler and allocator that links
//! kestrel-verifier, then run it. If anything in the verifier's dependency graph links
//! `std`, the build fails with "duplicate lang item `panic_impl`".

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// `$CARGO_TARGET_DIR/nostd-link` (or `target/nostd-link`), apart from the workspace's
/// own artifacts: the crate has its own profiles (`panic = "abort"`).
fn target_dir(root: &Path) -> PathBuf {
    let base = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        }
        None => root.join("target"),
    };
    base.join("nostd-link")
}

#[test]
fn verifier_links_into_a_no_std_binary() {
    let root = workspace_root();
    let manifest = root.join("tests/nostd-link/Cargo.toml");
    let target = target_dir(&root);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());

    let build = Command::new(&cargo)
        .arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .current_dir(&root)
        .output()
        .expect("cargo runs");
    assert!(
        build.status.success(),
        "building the no_std binary failed ({}); \"duplicate lang item `panic_impl`\" means std \
         leaked into the verifier\n--- stderr ---\n{}",
        build.status,
        String::from_utf8_lossy(&build.stderr)
    );

    let exe = target.join("release").join(format!(
        "kestrel-nostd-link{}",
        std::env::consts::EXE_SUFFIX
    ));
    let run = Command::new(&exe).output().expect("the no_std binary runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{} exited with {}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        exe.display(),
        run.status
    );
    assert!(
        stdout.contains("nostd-link: ok"),
        "unexpected output:\n{stdout}"
    );
    // The heap high-water line, for the log.
    print!("{stdout}");
}
