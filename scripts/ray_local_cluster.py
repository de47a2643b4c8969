#!/usr/bin/env python3
"""A local Ray cluster of several nodes on this host, for the tests and for trying the
driver: starts a head node (no CPUs, so no task runs on it) and N worker nodes, runs a
command with RAY_ADDRESS set to the cluster, and shuts every node down when the command
ends, also when it fails or this process is interrupted.

    python3 scripts/ray_local_cluster.py --nodes 2 -- \
        python3 scripts/kestrel_ray.py prove prog.elf --segment-cycles 4096 -o proof.bin
"""

import argparse
import os
import subprocess
import sys
import time

try:
    import ray
    from ray.cluster_utils import Cluster
except ImportError:
    sys.stderr.write("error: the ray module is missing: run scripts/install-ray.sh and use its python\n")
    sys.exit(2)


def log(msg):
    sys.stderr.write(f"[ray-local-cluster {time.strftime('%H:%M:%S')}] {msg}\n")
    sys.stderr.flush()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nodes", type=int, default=2)
    p.add_argument("--cpus-per-node", type=int, default=1)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        p.error("no command")
    t = time.time()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    code = 1
    try:
        for _ in range(a.nodes):
            cluster.add_node(num_cpus=a.cpus_per_node)
        cluster.wait_for_nodes()
        log(f"head at {cluster.address} and {a.nodes} worker nodes up in {time.time() - t:.1f} s")
        env = dict(os.environ, RAY_ADDRESS=cluster.address)
        try:
            code = subprocess.run(cmd, env=env, timeout=a.timeout).returncode
        except subprocess.TimeoutExpired:
            log(f"the command ran past {a.timeout} s")
            code = 124
    finally:
        t = time.time()
        try:
            ray.shutdown()
        finally:
            cluster.shutdown()
        log(f"cluster shut down in {time.time() - t:.1f} s")
    sys.exit(code)


if __name__ == "__main__":
    main()
