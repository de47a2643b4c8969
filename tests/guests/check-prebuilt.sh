#!/usr/bin/env bash
# Rebuilds every guest (C guests with build.sh, Rust guests with rust/build.sh into rust/) into a
# temporary directory and fails if any committed ELF in tests/guests/bin differs (or is missing,
# or is stale). The Rust build needs Debian's Rust 1.85 (see rust/README.md) and fetches crates
# from crates.io as rust/Cargo.lock pins them.
set -euo pipefail
cd "$(dirname "$0")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$TMP.target"' EXIT
bash build.sh "$TMP" >/dev/null
KESTREL_GUEST_TARGET_DIR="${KESTREL_GUEST_TARGET_DIR:-$TMP.target}" bash rust/build.sh "$TMP" >/dev/null
if ! diff -r "$TMP" bin >/dev/null; then
    echo "check-prebuilt: committed ELFs in tests/guests/bin differ from a fresh build:" >&2
    diff -rq "$TMP" bin >&2 || true
    echo "run 'bash tests/guests/build.sh && bash tests/guests/rust/build.sh' and commit tests/guests/bin" >&2
    exit 1
fi
echo "check-prebuilt: all $(find bin -name '*.elf' | wc -l) prebuilt ELFs match a fresh build"
