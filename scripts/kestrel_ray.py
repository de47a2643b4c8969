#!/usr/bin/env python3
"""Proves a long run on a Ray cluster: the segments' commitments and proofs are Ray tasks.

    python3 scripts/kestrel_ray.py prove prog.elf --input F --segment-cycles N -o proof.bin \
        [--address auto|HOST:PORT] [--backend cpu|cuda] [--kestrel PATH]

The driver (this process, on the coordinator's host) runs `kestrel dist pack`, the one
executor, and as each segment's file appears puts its bytes in Ray's object store and
submits a commit task for it; the tasks run `kestrel dist commit` on whichever node has a
free CPU (and GPU, with --backend cuda) and return the segment's head. With every head in,
the driver runs `kestrel dist challenges`, submits a prove task per segment (the same
object refs: the segments are not packed again) and runs `kestrel dist assemble` on the
parts, which checks each part against its head, verifies the proof and writes the same
proof file as `kestrel prove --segment-cycles N`.

Ray schedules the tasks by resources (`num_gpus=1` per task with --backend cuda), moves the
segments' bytes to the nodes that run them, and retries a task whose worker process or node
died (`max_retries`). The `kestrel` binary must be at the same path on every node
(--kestrel, default: `kestrel` next to this repository's release build, else on PATH).

Fault injection (tests): KESTREL_DIST_DIE_ONCE=PHASE:K:MARKER[,…] makes the task of
PHASE (`commit` or `prove`) for segment K end its own worker process (`os._exit`) the first
time, when MARKER does not exist yet (it creates it), so Ray must retry it.

Install Ray with scripts/install-ray.sh (the pinned version; the same on every node).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import ray
except ImportError:  # pragma: no cover - said once, clearly
    sys.stderr.write(
        "error: the ray module is missing: run scripts/install-ray.sh and use its python "
        "(/opt/kestrel-ray/bin/python, or $KESTREL_RAY_PREFIX/bin/python)\n"
    )
    sys.exit(2)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class StepFailed(Exception):
    """A `kestrel dist` step in a task failed in a way a retry may fix (exit 1, or a
    signal)."""


class BadInput(Exception):
    """A `kestrel dist` step refused its input or usage (exit 2, 3 or 4): not retried."""


def log(msg):
    sys.stderr.write(f"[kestrel-ray {time.strftime('%H:%M:%S')}] {msg}\n")
    sys.stderr.flush()


def _fault(spec, phase, k):
    """The marker path of the first entry of `spec` for (phase, k) whose marker is new."""
    for item in filter(None, (spec or "").split(",")):
        parts = item.split(":", 2)
        if len(parts) != 3:
            continue
        p, i, marker = parts
        if p == phase and i == str(k) and not os.path.exists(marker):
            return marker
    return None


def _inject(faults, phase, k):
    marker = _fault(faults, phase, k)
    if marker:
        open(marker, "w").close()
        log(f"{phase} {k}: ending this worker process (fault injection)")
        os._exit(17)


def _run_step(kestrel, args, what):
    r = subprocess.run([kestrel, "dist", *args], capture_output=True, text=True)
    if r.returncode == 0:
        return
    msg = f"{what}: kestrel dist {args[0]} exited {r.returncode}: {r.stderr.strip()}"
    if r.returncode in (2, 3, 4):
        raise BadInput(msg)
    raise StepFailed(msg)


def step_task(phase, kestrel, backend, elf, seg, rounds, k, faults):
    """One segment's step on a worker: writes its inputs to a temporary directory on this
    node, runs `kestrel dist commit` (phase `commit`) or `kestrel dist prove` (`prove`) and
    returns the output file's bytes."""
    _inject(faults, phase, k)
    tmp = tempfile.mkdtemp(prefix=f"kestrel-{phase}-{k}-")
    try:
        paths = {n: os.path.join(tmp, n) for n in ("prog.elf", "seg.bin", "rounds.bin", "out.bin")}
        for name, data in (("prog.elf", elf), ("seg.bin", seg), ("rounds.bin", rounds)):
            if data is not None:
                with open(paths[name], "wb") as f:
                    f.write(data)
        common = ["--elf", paths["prog.elf"], "--backend", backend, "--out", paths["out.bin"]]
        if phase == "commit":
            _run_step(kestrel, ["commit", paths["seg.bin"], *common], f"segment {k}")
        else:
            args = ["prove", paths["seg.bin"], "--rounds", paths["rounds.bin"], "--part", str(k)]
            _run_step(kestrel, [*args, *common], f"segment {k}")
        with open(paths["out.bin"], "rb") as f:
            return f.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def default_kestrel():
    built = os.path.join(REPO, "target", "release", "kestrel")
    if os.path.isfile(built):
        return built
    return shutil.which("kestrel") or "kestrel"


def local(kestrel, args, what):
    """Runs a `kestrel dist` step here (the coordinator); exits with its status on failure."""
    t = time.time()
    r = subprocess.run([kestrel, "dist", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        log(f"{what} failed (exit {r.returncode})")
        sys.exit(r.returncode)
    log(f"{what} done in {time.time() - t:.2f} s")


def gather(futures, what, on_done):
    """Waits for every future, calling on_done(k, value) as each finishes."""
    pending = dict(futures)
    index = {ref: k for k, ref in pending.items()}
    left = list(pending.values())
    done_n = 0
    while left:
        ready, left = ray.wait(left, num_returns=1)
        for ref in ready:
            k = index[ref]
            try:
                value = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                log(f"{what} of segment {k} failed: {e.cause if hasattr(e, 'cause') else e}")
                raise SystemExit(1)
            except ray.exceptions.RayError as e:
                log(f"{what} of segment {k} failed after its retries: {e}")
                raise SystemExit(1)
            done_n += 1
            on_done(k, value)
            log(f"{what}: {done_n}/{len(futures)} segments")


def prove(a):
    t0 = time.time()
    kestrel = os.path.abspath(a.kestrel) if os.path.sep in a.kestrel else a.kestrel
    elf_path = os.path.abspath(a.elf)
    work = a.workdir or tempfile.mkdtemp(prefix="kestrel-ray-")
    os.makedirs(work, exist_ok=True)
    faults = os.environ.get("KESTREL_DIST_DIE_ONCE", "")
    gpus = 1 if a.backend == "cuda" else 0
    ray.init(address=a.address, logging_level="WARNING", log_to_driver=True)
    res = ray.cluster_resources()
    log(f"cluster: {len(ray.nodes())} nodes, {res.get('CPU', 0):g} CPUs, {res.get('GPU', 0):g} GPUs")
    task = ray.remote(step_task).options(
        num_cpus=1, num_gpus=gpus, max_retries=a.max_retries, retry_exceptions=[StepFailed]
    )
    with open(elf_path, "rb") as f:
        elf_ref = ray.put(f.read())

    # Phase 1: the executor packs; each segment is committed as soon as it is written.
    # Packers: one per GPU in the cluster (at most this host's cores), each packing from a
    # checkpoint and writing its segment's file here; writing the files is what bounds one
    # packer (BENCHMARKS.md, "Session 24": 2^20-cycle segments at about 4 MHz on one).
    gpus = int(res.get("GPU", 0))
    packers = a.packers or (min(gpus, os.cpu_count() or 1) if gpus >= 2 else 1)
    packers = max(1, min(packers, 256))
    cmd = [kestrel, "dist", "pack", elf_path, "--segment-cycles", str(a.segment_cycles),
           "--blowup", str(a.blowup), "--max-cycles", str(a.max_cycles), "--packers", str(packers),
           "--out", work]
    if a.input:
        cmd += ["--input", os.path.abspath(a.input)]
    pack = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    seg_refs, heads = {}, {}
    for line in pack.stdout:
        f = line.split()
        if len(f) == 4 and f[0] == "segment":
            k, path = int(f[1]), f[2]
            with open(path, "rb") as s:
                seg_refs[k] = ray.put(s.read())
            heads[k] = task.remote("commit", kestrel, a.backend, elf_ref, seg_refs[k], None, k, faults)
            log(f"packed segment {k} ({f[3]} cycles), commit submitted")
    if pack.wait() != 0:
        log(f"kestrel dist pack failed (exit {pack.returncode})")
        sys.exit(pack.returncode)
    log(f"packed {len(seg_refs)} segments ({packers} packers) in {time.time() - t0:.2f} s")

    def write(name):
        def on_done(k, data):
            with open(os.path.join(work, f"{name}-{k}.bin"), "wb") as f:
                f.write(data)
        return on_done

    gather(heads, "commit", write("head"))
    t1 = time.time()
    log(f"phase 1 done in {t1 - t0:.2f} s")
    local(kestrel, ["challenges", work, "--elf", elf_path, "--backend", a.backend], "challenges")

    # Phase 2: every segment proven under the shared challenges, from phase 1's refs.
    with open(os.path.join(work, "rounds.bin"), "rb") as f:
        rounds_ref = ray.put(f.read())
    parts = {k: task.remote("prove", kestrel, a.backend, elf_ref, ref, rounds_ref, k, faults)
             for k, ref in seg_refs.items()}
    gather(parts, "prove", write("part"))
    seg_refs.clear()
    log(f"phase 2 done in {time.time() - t1:.2f} s")
    local(kestrel, ["assemble", work, "--elf", elf_path, "--backend", a.backend, "-o", os.path.abspath(a.output)],
          "assemble")
    log(f"proof file {a.output}: {len(parts)} segments in {time.time() - t0:.2f} s")
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    q = sub.add_parser("prove", help="prove a run on a Ray cluster")
    q.add_argument("elf")
    q.add_argument("--input")
    q.add_argument("--segment-cycles", type=int, required=True)
    q.add_argument("--blowup", type=int, default=4)
    q.add_argument("--max-cycles", type=int, default=1 << 26)
    q.add_argument("-o", "--output", required=True)
    q.add_argument("--address", default=None,
                   help="the cluster: auto (a running one), HOST:PORT, or none to start a local one")
    q.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    q.add_argument("--kestrel", default=default_kestrel(), help="the kestrel binary (same path on every node)")
    q.add_argument("--workdir", help="keep the coordinator's files here (default: a temporary directory)")
    q.add_argument("--max-retries", type=int, default=3, help="retries of a task whose worker or node died")
    q.add_argument("--packers", type=int, default=0,
                   help="threads packing segments from checkpoints on this host (default: one per "
                        "GPU in the cluster, at most this host's cores; 1 without GPUs)")
    a = p.parse_args()
    prove(a)


if __name__ == "__main__":
    main()
