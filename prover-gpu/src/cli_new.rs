//! `kestrel new NAME [--lang c]`: writes a ready guest project — the guest SDK, a `main.c`
//! that reads its private input and commits a greeting as public output, a build script
//! and a README with the commands that build, run, prove and verify it.
//!
//! The SDK files are the ones the example guests are built with (`tests/guests/sdk`),
//! embedded in the binary, so a project made by one `kestrel` builds guests that this
//! `kestrel` proves. Exit codes: 0 written, 2 usage (the directory exists, or a language
//! this version cannot write yet), 4 the files cannot be written.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

const EXIT_USAGE: i32 = 2;
const EXIT_WRITE: i32 = 4;

/// Guest languages.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// C with Debian's `gcc-riscv64-unknown-elf`.
    C,
    /// Rust (not in this version: see the message).
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

/// The SDK, as the example guests use it.
const SDK: &[(&str, &str)] = &[
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

const README_MD: &str = r#"# {name}

A Kestrel guest in C: `src/main.c` reads its private input and commits a greeting.

```sh
bash build.sh                                          # -> {name}.elf (RV64IM)
echo -n world > input.txt
kestrel run {name}.elf --input input.txt               # prints "hello, world"
kestrel prove {name}.elf --input input.txt -o {name}.proof
kestrel verify {name}.proof --elf {name}.elf --public-output out.txt && cat out.txt
```

The input stays private; the proof binds the exit code and the public output (fd 1).
`sdk/kestrel.h` lists the system calls and helpers (`ks_read_all`, `ks_commit`,
`ks_debug`, `ks_alloc`, …). The limits a guest may use (stack, heap, input, output,
cycles) and what they cost are in Kestrel's README ("Limits") and guest guide
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
    if lang == Lang::Rust {
        return Err((
            EXIT_USAGE,
            "--lang rust is not available in this version (the Rust guest SDK is not \
             part of it yet); use --lang c"
                .into(),
        ));
    }
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
        .ok_or_else(|| {
            (
                EXIT_USAGE,
                format!(
                    "{}: the project name must be letters, digits, '-' or '_'",
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
    write_files(dir, &name).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(dir);
    })
}

fn write_files(dir: &Path, name: &str) -> Result<usize, (i32, String)> {
    let fill = |t: &str| t.replace("{name}", name);
    let mut files: Vec<(String, String)> = SDK
        .iter()
        .map(|&(p, t)| (p.to_string(), t.to_string()))
        .collect();
    files.push(("src/main.c".into(), fill(MAIN_C)));
    files.push(("build.sh".into(), fill(BUILD_SH)));
    files.push(("README.md".into(), fill(README_MD)));
    files.push((".gitignore".into(), "*.elf\n*.proof\nout.txt\n".into()));
    let write_err =
        |p: &Path, e: std::io::Error| (EXIT_WRITE, format!("cannot write {}: {e}", p.display()));
    for sub in ["sdk", "src"] {
        let p = dir.join(sub);
        std::fs::create_dir_all(&p).map_err(|e| write_err(&p, e))?;
    }
    for (rel, text) in &files {
        let p = dir.join(rel);
        std::fs::write(&p, text).map_err(|e| write_err(&p, e))?;
    }
    Ok(files.len())
}
