#!/usr/bin/env bash
# Writes include/kestrel_verifier.h from src/lib.rs with cbindgen (Debian's `cbindgen`, 0.24);
# `--check` fails when the checked-in header is stale instead.
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = --check ]; then
    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    cbindgen --quiet --config cbindgen.toml --output "$tmp" .
    diff -u include/kestrel_verifier.h "$tmp" || {
        echo "include/kestrel_verifier.h is stale: run verifier/capi/gen-header.sh" >&2
        exit 1
    }
else
    cbindgen --quiet --config cbindgen.toml --output include/kestrel_verifier.h .
fi
