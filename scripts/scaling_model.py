#!/usr/bin/env python3
"""A modelled scaling curve (issue 20) for a segmented proof over N GPUs of one host or of
many, from one run's measured figures (`kestrel prove ... --stats s.json`, a segmented run
on one backend): python3 scripts/scaling_model.py s.json

Measured, from the stats:
  S   segments;
  Tp  each phase's wall seconds over S (phase 1: fill and commit; phase 2: fill and
      prove; the run part's share included), on one backend the executor kept fed
      (`backends_fed` > 1);
  P   the producer's milliseconds per segment and phase: in order (`packers` 1), its
      execute+pack time over 2S; from checkpoints (`packers` > 1), E = the executor's time
      per segment (segment cycles over `executor_mhz`: the slower of recording and
      running ahead) and Q = one packer's (segment cycles over `packing_mhz`);
  B   host->device bytes per segment and phase (backend_report.h2d_bytes / 2S).

Assumed (stated, not measured here):
  - a GPU's time per segment does not change with the number of GPUs (each GPU has its
    own link and memory; segments are independent between the two synchronisations);
  - with K packers the producer's time per segment is max(E, Q/K) (from a run with
    checkpoints; each packer as fast as in the measured run: packers beyond the host's
    cores run on further hosts); from an in-order run only K = 1 (P) is modelled;
  - each phase costs max(S·p, ceil(S/N)·Tp) + p, p the producer's time per segment: the
    slower of feeding and proving, plus one segment's production before the first GPU
    starts;
  - with --segments M, a longer run of M segments of the same size and per-segment times
    (e.g. 128 for 2^28 cycles in segments of 2^21);
  - transfers: B bytes per segment-phase at LINK GB/s per GPU (default 25, a PCIe 5 x16
    link's order; --link to change), on the GPU's own link, added to Tp.
"""
import json
import math
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    link = 25.0
    if "--link" in sys.argv:
        link = float(sys.argv[sys.argv.index("--link") + 1])
    segments = None
    if "--segments" in sys.argv:
        segments = int(sys.argv[sys.argv.index("--segments") + 1])
    j = json.load(open(sys.argv[1]))
    seg = j.get("segmented") or sys.exit("not a segmented run")
    s = seg["segments"]
    t1, t2 = (x / s for x in seg["phase_seconds"])
    packers = seg.get("packers", 1)
    cycles_seg = 2 ** seg["segment_log"]
    if packers > 1:
        e = cycles_seg / (seg["executor_mhz"] * 1e6)
        q = cycles_seg / (seg["packing_mhz"] * 1e6)
        p = max(e, q / packers)
    else:
        e = q = None
        p = j["phases_ms"]["execute+pack"] / 1e3 / (2 * s)
    rep = j["backend_report"]
    rep = rep[0] if isinstance(rep, list) else rep
    b = sum(rep["h2d_bytes"].values()) / (2 * s)
    xfer = b / (link * 1e9)
    measured = sum(seg["phase_seconds"])
    if segments:
        print(f"(modelled for {segments} segments of the measured run's per-segment times)")
    print(f"{j['cycles']} cycles in {s} segments of 2^{seg['segment_log']}: "
          f"per segment, phase 1 {t1 * 1e3:.0f} ms, phase 2 {t2 * 1e3:.0f} ms on one GPU; "
          + (f"executor {e * 1e3:.1f} ms, one of {packers} packers {q * 1e3:.1f} ms per segment; "
             if packers > 1 else
             f"producer {p * 1e3:.1f} ms per segment and phase ({j['cycles'] * 2 / (p * 2 * s) / 1e6:.1f} MHz); ")
          + f"{b / 1e6:.1f} MB per segment and phase ({xfer * 1e3:.2f} ms at {link:g} GB/s)")

    m = segments or s

    def producer(k):
        if e is None:
            return p if k == 1 else None
        return max(e, q / k)

    def phase(t, n, k):
        pk = producer(k)
        return max(m * pk, math.ceil(m / n) * (t + xfer)) + pk

    def total(n, k):
        return phase(t1, n, k) + phase(t2, n, k)

    base = total(1, 1)
    print(f"model, 1 GPU: {base:.2f} s (measured phases, {s} segments: {measured:.2f} s)")
    ks = [k for k in [1, 2, 4, 8, 16, math.inf] if producer(k) is not None]
    print("GPUs | " + " | ".join(f"K={k} packers: s (speed-up)" for k in ks))
    for n in [1, 2, 4, 8, 16, 32, 64]:
        cells = []
        for k in ks:
            t = total(n, k)
            cells.append(f"{t:.2f} ({base / t:.2f}x)")
        print(f"{n} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
