#!/usr/bin/env bash
# Builds the verifier firmware (Debian's Rust 1.85, thumbv8m.main-none-eabihf), the QEMU
# instruction-counting plugin and RV64IM statement files from the current prover, then runs
# each proof on QEMU's mps2-an505 (Cortex-M33) and prints a table: result, peak heap, stack
# high-water, instructions between the markers around the verifier call, code size.
#
#   bash verifier/firmware/run.sh            # needs qemu-system-arm, ld.lld-19, gcc,
#                                            # arm-none-eabi-size/nm, python3 (.ci/run installs them)
#
# Exit status 0 when every valid proof verified and every tampered one was rejected.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$here/target/run"
mkdir -p "$out"

echo "== QEMU plugin (icount.so)"
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$out/icount.so" "$here/qemu-plugin/icount.c"

echo "== firmware (Debian's cargo 1.85, -Zbuild-std)"
(cd "$here" && env -u CARGO_TARGET_DIR RUSTC_BOOTSTRAP=1 /usr/bin/cargo build --release)
elf="$here/target/thumbv8m.main-none-eabihf/release/kestrel-firmware"

echo "== RV64IM statement files: fibonacci(20), CPU backend, blowup 8 and 4 (the default preset)"
(cd "$root" && cargo build --release --bin kestrel)
kestrel="${CARGO_TARGET_DIR:-$root/target}/release/kestrel"
printf 20 >"$out/fib20.in"
for b in 8 4; do
    "$kestrel" prove "$root/tests/guests/bin/fibonacci.elf" --input "$out/fib20.in" --backend cpu \
        --blowup $b -o "$out/fib20-b$b.stmt" >"$out/prove-b$b.log" 2>&1
    "$kestrel" vk "$root/tests/guests/bin/fibonacci.elf" --blowup $b -o "$out/fib20-b$b.vk" >/dev/null
done

# mkblob KIND PARAM VK DATA OUT [FLIP]: the firmware's blob (src/main.rs); FLIP flips the
# lowest bit of the data's middle byte (a tampered proof).
mkblob() {
    python3 - "$@" <<'PY'
import struct, sys
kind, param, vk, data, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
vk = open(vk, "rb").read(); data = bytearray(open(data, "rb").read())
assert len(vk) == 32
if len(sys.argv) > 6:
    data[len(data) // 2] ^= 1
open(out, "wb").write(b"KFWPROOF" + struct.pack("<III", kind, param, len(data)) + vk + data)
PY
}
fx="$root/tests/fixtures"
mkblob 0 6 "$fx/fib-golden.vk" "$fx/fib-golden.proof" "$out/golden.blob"
mkblob 0 6 "$fx/fib-golden.vk" "$fx/fib-golden.proof" "$out/golden-tampered.blob" flip
for b in 8 4; do
    mkblob 1 0 "$out/fib20-b$b.vk" "$out/fib20-b$b.stmt" "$out/rv64im-b$b.blob"
    mkblob 1 0 "$out/fib20-b$b.vk" "$out/fib20-b$b.stmt" "$out/rv64im-b$b-tampered.blob" flip
done

sizes=$(arm-none-eabi-size -A "$elf")
text=$(awk '$1 == ".text" { print $2 }' <<<"$sizes")
rodata=$(awk '$1 == ".rodata" { print $2 }' <<<"$sizes")
code=$((text + rodata))
sym() { arm-none-eabi-nm "$elf" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
begin=$(sym kestrel_fw_mark_begin)
end=$(sym kestrel_fw_mark_end)

status=0
rows=()
run() { # NAME BLOB EXPECT(ok|rejected)
    local log="$out/$1.log" rc=0
    timeout 600 qemu-system-arm -M mps2-an505 -nographic -monitor none \
        -semihosting-config enable=on,target=native -kernel "$elf" \
        -device loader,file="$2",addr=0x80000000 \
        -plugin "$out/icount.so,begin=$begin,end=$end" -d plugin >"$log" 2>&1 || rc=$?
    local line insns result
    line=$(grep '^kestrel-fw:' "$log" || true)
    insns=$(awk '/^icount: between markers/ { print $4 }' "$log")
    result=$(sed -n 's/.*result=\(ok\|rejected ([^)]*)\|[a-z]*\).*/\1/p' <<<"$line")
    field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$line"; }
    if [[ "$result" != "$3"* ]] || { [ "$3" = ok ] && [ "$rc" != 0 ]; } ||
        { [ "$3" = rejected ] && [ "$rc" != 1 ]; }; then
        echo "FAIL: $1: expected $3, got '${line:-no output}' (qemu exit $rc; log $log)" >&2
        status=1
    fi
    rows+=("| $1 | $(field bytes) | $result | $(field heap_peak) B | $(field stack) B | ${insns:-?} | $code B |")
}
run golden "$out/golden.blob" ok
run golden-tampered "$out/golden-tampered.blob" rejected
run rv64im-fib20-blowup8 "$out/rv64im-b8.blob" ok
run rv64im-fib20-blowup8-tampered "$out/rv64im-b8-tampered.blob" rejected
run rv64im-fib20-blowup4 "$out/rv64im-b4.blob" ok
run rv64im-fib20-blowup4-tampered "$out/rv64im-b4-tampered.blob" rejected
# More statements given as KESTREL_FW_EXTRA="name=STATEMENT,VK …" (for example a 2^22-cycle
# proof made on the GPU machine; BENCHMARKS.md has the commands).
for extra in ${KESTREL_FW_EXTRA:-}; do
    name=${extra%%=*}; files=${extra#*=}
    mkblob 1 0 "${files#*,}" "${files%%,*}" "$out/$name.blob"
    run "$name" "$out/$name.blob" ok
done

echo
echo "Cortex-M33 (QEMU mps2-an505), opt-level s, fat LTO, panic abort; code = .text + .rodata"
echo "(.text $text B, .rodata $rodata B) of the whole firmware: runtime, semihosting, formatting."
echo
echo "| proof | bytes | result | peak heap | stack | instructions | code size |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
exit $status
