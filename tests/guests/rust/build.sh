#!/usr/bin/env bash
# Builds the Rust guests (tests/guests/rust/examples/*) for Kestrel's bare RV64IM target with
# Debian's Rust 1.85 (packages rustc-web, cargo-web, rust-web-src 1.85.0+dfsg3-1~deb12u3) and
# -Zbuild-std, and copies each ELF to OUTDIR/rust/NAME.elf.
#   bash tests/guests/rust/build.sh [OUTDIR]     (default: tests/guests/bin)
# Output is deterministic: source paths are remapped (guest workspace, cargo registry, Rust
# library source), no debug info, stripped, no build id. Cargo.lock is used as committed.
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
OUT="${1:-../bin}"
mkdir -p "$OUT/rust"
OUT=$(cd "$OUT" && pwd)
CARGO=/usr/bin/cargo
if ! "$CARGO" --version 2>/dev/null | grep -q '^cargo 1\.85\.'; then
    echo "rust/build.sh: Debian's cargo 1.85 not found at $CARGO (apt-get install rustc-web cargo-web rust-web-src, version 1.85.0+dfsg3-1~deb12u3)" >&2
    exit 1
fi
if ! command -v riscv64-unknown-elf-ld >/dev/null; then
    echo "rust/build.sh: riscv64-unknown-elf-ld not found (apt-get install gcc-riscv64-unknown-elf)" >&2
    exit 1
fi
# The rustup shims (if any) come first on PATH: use Debian's rustc and cargo explicitly.
export RUSTC=/usr/bin/rustc
# Cargo's -Z flags (build-std) on a stable toolchain.
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${KESTREL_GUEST_TARGET_DIR:-$HERE/target}"
CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
# The registry sources must exist before their paths can be remapped.
"$CARGO" fetch --locked -q
RUSTSRC=$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust
FLAGS=(--remap-path-prefix="$HERE=/kestrel-guests"
    --remap-path-prefix="$RUSTSRC=/rust-src"
    --remap-path-prefix="$(readlink -f "$RUSTSRC")=/rust-src")
for d in "$CARGO_HOME"/registry/src/*/; do
    FLAGS+=(--remap-path-prefix="${d%/}=/cargo-registry")
done
RUSTFLAGS="${FLAGS[*]}" "$CARGO" build --locked --release -q
TGT="$CARGO_TARGET_DIR/riscv64im-kestrel-elf/release"
n=0
for dir in examples/*/; do
    name=$(basename "$dir")
    cp "$TGT/$name" "$OUT/rust/$name.elf"
    n=$((n + 1))
done
echo "built $n Rust guest ELFs in $OUT/rust"
