#!/usr/bin/env bash
# Builds every guest ELF with Debian's riscv64-unknown-elf-gcc (package gcc-riscv64-unknown-elf).
#   bash tests/guests/build.sh [OUTDIR]     (default: tests/guests/bin)
# Output is deterministic: relative paths only, no debug info, stripped, no build id.
set -euo pipefail
cd "$(dirname "$0")"
OUT="${1:-bin}"
CC="${CC:-riscv64-unknown-elf-gcc}"
if ! command -v "$CC" >/dev/null; then
    echo "build.sh: $CC not found (apt-get install gcc-riscv64-unknown-elf)" >&2
    exit 1
fi
FLAGS=(-march=rv64im -mabi=lp64 -O2 -nostdlib -static -ffreestanding
    -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables -fno-ident
    -ffile-prefix-map="$PWD"=. -Wall -Wextra -Werror
    -T sdk/link.ld -s -Wl,--build-id=none)
mkdir -p "$OUT/isa" "$OUT/bench"
for src in src/*.c; do
    name=$(basename "$src" .c)
    "$CC" "${FLAGS[@]}" -I sdk sdk/crt0.S sdk/kestrel.c sdk/runtime.c "$src" -o "$OUT/$name.elf"
done
for src in isa/*.S; do
    name=$(basename "$src" .S)
    "$CC" "${FLAGS[@]}" -I isa "$src" -o "$OUT/isa/$name.elf"
done
for log in 16 17 18 19 20; do
    "$CC" "${FLAGS[@]}" -DLOG_CYCLES=$log bench/fib_reg.S -o "$OUT/bench/fib_reg_$log.elf"
done
echo "built $(ls "$OUT"/*.elf "$OUT"/isa/*.elf "$OUT"/bench/*.elf | wc -l) ELFs in $OUT"
