//! `kestrel new NAME [--lang c|rust]`: writes a ready guest project — the guest SDK, a
//! `main.c` or `src/main.rs` that reads its private input and commits a greeting as public
//! output, a build script and a README with the commands that build, run, prove and verify
//! it.
//!
//! The SDK files are the ones the example guests are built with (`tests/guests/sdk`, and
//! `tests/guests/rust` for Rust: the `kestrel-guest` crate, the target spec, the cargo
//! configuration), embedded in the binary, so a project made by one `kestrel` builds guests
//! that this `kestrel` proves. Exit codes: 0 written, 2 usage (the directory exists, or a
//! name that is not a crate or file name), 4 the files cannot be written.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

const EXIT_USAGE: i32 = 2;
const EXIT_WRITE: i32 = 4;

/// Guest languages.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// C with Debian's `gcc-riscv64-unknown-elf`.
    C,
    /// Rust (`no_std` + `alloc`, the `kestrel-guest` crate) with Debian's Rust 1.85.
    Rust,
}

#[derive(Args, Debug)]
pub struct NewArgs {
    /// The project directory to create (its last component names the guest).
    pub name: PathBuf,
    /// The guest's language.
    #[arg(long, value_enum, default_value_t = Lang::C)]
    pub lang: Lang,
}

/// A file of a project: its path in the project and its text.
type File = (&'static str, &'static str);

/// The SDK, as the example guests use it.
const SDK: &[File] = &[
    ("sdk/crt0.S", include_str!("../../tests/guests/sdk/crt0.S")),
    (
        "sdk/link.ld",
        include_str!("../../tests/guests/sdk/link.ld"),
    ),
    (
        "sdk/kestrel.h",
        include_str!("../../tests/guests/sdk/kestrel.h"),
    ),
    (
        "sdk/kestrel.c",
        include_str!("../../tests/guests/sdk/kestrel.c"),
    ),
    (
        "sdk/runtime.c",
        include_str!("../../tests/guests/sdk/runtime.c"),
    ),
];

const MAIN_C: &str = r#"/* {name}: reads its private input (fd 0) and commits "hello, <input>" as its public
 * output (fd 1); the exit code is public too. */
#include "kestrel.h"

static char input[4096];

int main(void) {
    size_t n = ks_read_all(input, sizeof input);
    ks_commit("hello, ", 7);
    ks_commit(input, n);
    ks_commit("\n", 1);
    ks_debug("{name}: done\n"); /* fd 2: debug text, not proven */
    return 0;
}
"#;

const BUILD_SH: &str = r#"#!/usr/bin/env bash
# Builds {name}.elf for bare RV64IM with Debian's riscv64-unknown-elf-gcc
# (apt-get install gcc-riscv64-unknown-elf). The flags are the example guests'.
set -euo pipefail
cd "$(dirname "$0")"
CC="${CC:-riscv64-unknown-elf-gcc}"
"$CC" -march=rv64im -mabi=lp64 -O2 -nostdlib -static -ffreestanding \
    -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables -fno-ident \
    -ffile-prefix-map="$PWD"=. -Wall -Wextra -Werror -T sdk/link.ld -s -Wl,--build-id=none \
    -I sdk sdk/crt0.S sdk/kestrel.c sdk/runtime.c src/*.c -o {name}.elf
echo "built {name}.elf"
"#;

/// The commands both READMEs give (`{commands}` in them), tested by `tests/tests/cli_new.rs`.
const COMMANDS: &str = r#"```sh
bash build.sh                                          # -> {name}.elf (RV64IM)
echo -n world > input.txt
kestrel run {name}.elf --input input.txt               # prints "hello, world"
kestrel prove {name}.elf --input input.txt -o {name}.proof
kestrel verify {name}.proof --elf {name}.elf --public-output out.txt && cat out.txt
```
"#;

const README_MD: &str = r#"# {name}

A Kestrel guest in C: `src/main.c` reads its private input and commits a greeting.

{commands}
The input stays private; the proof binds the exit code and the public output (fd 1).
`sdk/kestrel.h` lists the system calls and helpers (`ks_read_all`, `ks_commit`,
`ks_debug`, `ks_alloc`, …). The limits a guest may use (stack, heap, input, output,
cycles) and what they cost are in Kestrel's README ("Limits") and guest guide
(`tests/guests/README.md`). The same ELF runs under `qemu-riscv64`.
"#;

/// The Rust SDK: the runtime crate, the target spec and the cargo configuration.
const RUST_SDK: &[File] = &[
    (
        "kestrel-guest/Cargo.toml",
        include_str!("../../tests/guests/rust/kestrel-guest/Cargo.toml"),
    ),
    (
        "kestrel-guest/build.rs",
        include_str!("../../tests/guests/rust/kestrel-guest/build.rs"),
    ),
    (
        "kestrel-guest/kestrel.ld",
        include_str!("../../tests/guests/rust/kestrel-guest/kestrel.ld"),
    ),
    (
        "kestrel-guest/src/lib.rs",
        include_str!("../../tests/guests/rust/kestrel-guest/src/lib.rs"),
    ),
    (
        "riscv64im-kestrel-elf.json",
        include_str!("../../tests/guests/rust/riscv64im-kestrel-elf.json"),
    ),
    (
        ".cargo/config.toml",
        include_str!("../../tests/guests/rust/.cargo/config.toml"),
    ),
];

const CARGO_TOML: &str = r#"[package]
name = "{name}"
version.workspace = true
edition.workspace = true
publish.workspace = true

[dependencies]
kestrel-guest = { path = "kestrel-guest" }

[workspace]
resolver = "2"
members = [".", "kestrel-guest"]

[workspace.package]
version = "0.1.0"
edition = "2021"
license = "MIT OR Apache-2.0"
publish = false

[profile.release]
opt-level = 3
lto = true
codegen-units = 1
panic = "abort"
debug = false
strip = true

[profile.dev]
panic = "abort"
"#;

const MAIN_RS: &str = r#"//! {name}: reads its private input (fd 0) and commits "hello, <input>" as its public
//! output (fd 1); the exit code (main's return value) is public too.
#![no_std]
#![no_main]

extern crate alloc;

use alloc::vec::Vec;

kestrel_guest::entry!(main);

fn main() -> i32 {
    let input = kestrel_guest::read_input();
    let mut out = Vec::from(&b"hello, "[..]);
    out.extend_from_slice(&input);
    out.push(b'\n');
    kestrel_guest::commit(&out);
    kestrel_guest::debug("{name}: done\n"); // fd 2: debug text, not proven
    0
}
"#;

const BUILD_RS_SH: &str = r#"#!/usr/bin/env bash
# Builds {name}.elf for bare RV64IM with Debian's Rust 1.85 and its library source
# (apt-get install rustc-web cargo-web rust-web-src libstd-rust-web-dev, version
# 1.85.0+dfsg3-1~deb12u3) and GNU ld (apt-get install gcc-riscv64-unknown-elf).
set -euo pipefail
cd "$(dirname "$0")"
CARGO=/usr/bin/cargo
if ! "$CARGO" --version 2>/dev/null | grep -q '^cargo 1\.85\.'; then
    echo "build.sh: Debian's cargo 1.85 not found at $CARGO" >&2
    exit 1
fi
# Debian's rustc (rustup's shims may come first on PATH), and -Z flags on a stable toolchain.
export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1
"$CARGO" build --release -q
cp target/riscv64im-kestrel-elf/release/{name} {name}.elf
echo "built {name}.elf"
"#;

const README_RS: &str = r#"# {name}

A Kestrel guest in Rust (`no_std` + `alloc`): `src/main.rs` reads its private input and
commits a greeting. `kestrel-guest/` is the runtime (entry point, system calls, heap,
panics: its rustdoc lists the limits); add `no_std` crates to `Cargo.toml` as usual
(`default-features = false` where they need it).

{commands}
The input stays private; the proof binds the exit code and the public output (fd 1). The
build needs Debian's Rust 1.85 with its library source (see `build.sh`). The limits a guest
may use and what they cost are in Kestrel's README ("Limits") and guest guide
(`tests/guests/README.md`). The same ELF runs under `qemu-riscv64`.
"#;

/// `kestrel new`; returns the exit code.
pub fn new_command(a: &NewArgs) -> i32 {
    match new_project(&a.name, a.lang) {
        Ok(files) => {
            eprintln!(
                "created {} ({} files); next: cd {} && bash build.sh (see README.md)",
                a.name.display(),
                files,
                a.name.display()
            );
            0
        }
        Err((code, msg)) => {
            eprintln!("error: {msg}");
            code
        }
    }
}

/// Writes the project; the number of files, or an exit code and a message.
fn new_project(dir: &Path, lang: Lang) -> Result<usize, (i32, String)> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| {
            n.starts_with(|c: char| c.is_ascii_alphabetic())
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
        .ok_or_else(|| {
            (
                EXIT_USAGE,
                format!(
                    "{}: the project name must be a letter, then letters, digits, '-' or '_'",
                    dir.display()
                ),
            )
        })?
        .to_string();
    if dir.exists() {
        return Err((EXIT_USAGE, format!("{} already exists", dir.display())));
    }
    std::fs::create_dir(dir)
        .map_err(|e| (EXIT_WRITE, format!("cannot create {}: {e}", dir.display())))?;
    // A failure part way removes what was written: no half project is left behind.
    write_files(dir, &name, lang).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(dir);
    })
}

fn write_files(dir: &Path, name: &str, lang: Lang) -> Result<usize, (i32, String)> {
    let fill = |t: &str| t.replace("{commands}", COMMANDS).replace("{name}", name);
    let (sdk, own): (&[File], [File; 3]) = match lang {
        Lang::C => (
            SDK,
            [
                ("src/main.c", MAIN_C),
                ("build.sh", BUILD_SH),
                ("README.md", README_MD),
            ],
        ),
        Lang::Rust => (
            RUST_SDK,
            [
                ("src/main.rs", MAIN_RS),
                ("build.sh", BUILD_RS_SH),
                ("README.md", README_RS),
            ],
        ),
    };
    let mut files: Vec<(String, String)> = sdk
        .iter()
        .map(|&(p, t)| (p.to_string(), t.to_string()))
        .collect();
    files.extend(own.iter().map(|&(p, t)| (p.to_string(), fill(t))));
    if lang == Lang::Rust {
        files.push(("Cargo.toml".into(), fill(CARGO_TOML)));
    }
    files.push((
        ".gitignore".into(),
        "*.elf\n*.proof\nout.txt\ntarget/\n".into(),
    ));
    let write_err =
        |p: &Path, e: std::io::Error| (EXIT_WRITE, format!("cannot write {}: {e}", p.display()));
    for (rel, text) in &files {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| write_err(parent, e))?;
        }
        std::fs::write(&p, text).map_err(|e| write_err(&p, e))?;
    }
    Ok(files.len())
}
