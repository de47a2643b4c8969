#!/usr/bin/env bash
# Seed corpora for the fuzz targets, generated from real artifacts (never committed:
# fuzz/corpus is ignored). Run from anywhere; needs cargo (builds `kestrel` in release).
#
#   proof_parse     the golden proof, Fibonacci proofs of 2^4 and 2^5 rows, every blowup, and
#                   the RV64IM statement file of the seed statement (fibonacci.elf on "10",
#                   blowup 8: `kestrel prove`'s output, statement header then proof)
#   verify_mutated  short mutation scripts: each statement (Fibonacci, range check,
#                   RV64IM) x each field selector
#   elf_load        the prebuilt guests (tests/guests/bin, tests/guests/bin/isa)
#   execute         the same guests, plus word-format programs (exit, write, a loop)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$root/fuzz/corpus"
mkdir -p "$corpus"/{proof_parse,verify_mutated,elf_load,execute}

cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p kestrel-prover-gpu --bin kestrel
kestrel="${CARGO_TARGET_DIR:-$root/target}/release/kestrel"
case "$kestrel" in /*) ;; *) kestrel="$root/$kestrel" ;; esac

# proof_parse: real proofs.
cp "$root/tests/fixtures/fib-golden.proof" "$corpus/proof_parse/fib-golden"
for rows in 4 5; do
    for blowup in 2 4 8; do
        "$kestrel" fib --log-rows "$rows" --blowup "$blowup" \
            -o "$corpus/proof_parse/fib-$rows-$blowup" 2>/dev/null
    done
done

input="$(mktemp)"
printf 10 >"$input"
"$kestrel" prove "$root/tests/guests/bin/fibonacci.elf" --input "$input" --backend cpu \
    --blowup 8 -o "$corpus/proof_parse/rv64-fibonacci-10-8" >/dev/null 2>&1
rm -f "$input"

# verify_mutated: byte 0 picks the statement, byte 1 the number of mutations, byte 2 the
# field (see fuzz/src/mutate.rs); the rest steer the mutation.
for s in 0 1 2; do
    for field in $(seq 0 19); do
        for tail in '\x00\x00\x00\x00' '\x03\x01\x02\x07\x05\x11\x00\x01' '\xff\x10\x80\x40\x20\x01\x02\x03'; do
            # shellcheck disable=SC2059
            printf "\\x$(printf %02x "$s")\\x00\\x$(printf %02x "$field")$tail" \
                >"$corpus/verify_mutated/s$s-f$field-$(printf %s "$tail" | cksum | cut -d' ' -f1)"
        done
    done
done

# elf_load and execute: the prebuilt guests.
for elf in "$root"/tests/guests/bin/*.elf "$root"/tests/guests/bin/isa/*.elf; do
    [ -e "$elf" ] || continue
    name="$(basename "$(dirname "$elf")")-$(basename "$elf" .elf)"
    cp "$elf" "$corpus/elf_load/$name"
    cp "$elf" "$corpus/execute/$name"
done

# execute, word format: n, n little-endian words, data length, data, bss (u16), input.
#   li a7, 93; ecall                                   (exit 0)
printf '\x02\x93\x08\xd0\x05\x73\x00\x00\x00\x00\x00\x00' >"$corpus/execute/w-exit"
#   lui a1, 0x100; li a2, 4; li a0, 1; li a7, 64; ecall; li a7, 93; ecall   (write "kstl")
printf '\x07\xb7\x05\x10\x00\x13\x06\x40\x00\x13\x05\x10\x00\x93\x08\x00\x04\x73\x00\x00\x00\x93\x08\xd0\x05\x73\x00\x00\x00\x04kstl\x00\x00' \
    >"$corpus/execute/w-write"
#   addi a0, a0, 1; j -4                                (runs into the cycle limit)
printf '\x02\x13\x05\x15\x00\x6f\xf0\xdf\xff\x00\x00\x00' >"$corpus/execute/w-loop"
#   li a7, 63; lui a1, 0x100; li a2, 8; ecall; ld a0, 0(a1); li a7, 93; ecall (read input)
printf '\x07\x93\x08\xf0\x03\xb7\x05\x10\x00\x13\x06\x80\x00\x73\x00\x00\x00\x03\xb5\x05\x00\x93\x08\xd0\x05\x73\x00\x00\x00\x00\x00\x01input!!!' \
    >"$corpus/execute/w-read"

for t in proof_parse verify_mutated elf_load execute; do
    echo "fuzz/corpus/$t: $(find "$corpus/$t" -type f | wc -l) files"
done
