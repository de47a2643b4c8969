#!/usr/bin/env bash
# Cargo's runner for the embedded tests: boots the test ELF on QEMU's mps2-an505 and decodes
# its defmt output (semihosting stdout) with defmt-print. The exit status is QEMU's, i.e.
# the firmware's semihosting exit code: 0 when every test passed, 1 when one failed.
set -uo pipefail
elf="$1"
timeout 300 qemu-system-arm -M mps2-an505 -nographic -monitor none \
    -semihosting-config enable=on,target=native -kernel "$elf" |
    defmt-print -e "$elf"
status=("${PIPESTATUS[@]}")
if [ "${status[0]}" = 0 ]; then echo "embedded tests: all passed"; else echo "embedded tests: FAILED (qemu exit ${status[0]})"; fi
exit "${status[0]}"
