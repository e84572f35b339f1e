#!/usr/bin/env python3
"""What co-execution can gain at most when the GPU's one-time costs are its own.

  usage: bench/efficiency_bound.py TRACES_DIR

TRACES_DIR holds traced single-device runs, <bench>-cpu-static and
<bench>-cuda_0-static .stats.json/.trace.json (bench/results/calls-*: the
calibration calls' "traces" step).  Per benchmark:

  * T_cpu, T_gpu: the sum of the run's region walls (HCE_STATS), as the suite;
  * divisible D: every execution of the GPU alone at its steady cost (the
    median of each region's executions after the first, from the trace's
    "region choice" track); fixed F = T_gpu - D: the first executions'
    preparation (pinning, windows, the data region's first uploads);
    a one-shot loop (one execution per region) counts as all divisible;
  * S_max = (1/T_cpu + 1/T_gpu) / (1/T_best): issue 12's ideal speedup;
  * T*: the best split when the GPU pays F whatever its share (the CPU takes
    x of the work: x T_cpu = F + (1 - x) D), S* = T_best / T* and the bound
    on efficiency S* / S_max.

The bound is optimistic for one-shot loops (their transfers share the host's
memory bandwidth with the CPU's loop, which it ignores) and pessimistic where
a smaller share would pin and upload less (F taken whole).
"""
import collections
import json
import os
import statistics
import sys

BENCHES = ("matadd blackscholes gemm jacobi2d heat3d fdtd2d nbody kmeans mcpi cg bfs "
           "lud").split()


def events(path):
    d = json.load(open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    names = {e["tid"]: e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    return [e for e in ev if e.get("ph") == "X"], names


def executions(path):
    """Region name -> the durations of its executions (s), in order."""
    ev, names = events(path)
    out = collections.defaultdict(list)
    for e in sorted(ev, key=lambda e: e["ts"]):
        if names.get(e["tid"]) == "region choice":
            out[e["name"].split()[1].rstrip(":")].append(e["dur"] / 1e6)
    return out


def wall(path):
    return sum(r["wall_seconds"] for r in json.load(open(path))["regions"])


def bound(t_cpu, t_gpu, fixed, divisible):
    t_best = min(t_cpu, t_gpu)
    s_max = (1 / t_cpu + 1 / t_gpu) * t_best
    x = (fixed + divisible) / (t_cpu + divisible)
    t_star = min(t_best, x * t_cpu)
    return s_max, t_star, t_best / t_star


def main(d):
    print("| benchmark | CPU alone | GPU alone | GPU fixed | GPU divisible | S_max | T* | S* |"
          " efficiency bound |")
    print("|---|---|---|---|---|---|---|---|---|")
    for b in BENCHES:
        cpu, gpu = (os.path.join(d, f"{b}-{t}-static") for t in ("cpu", "cuda_0"))
        if not (os.path.exists(cpu + ".stats.json") and os.path.exists(gpu + ".trace.json")):
            continue
        t_cpu, t_gpu = wall(cpu + ".stats.json"), wall(gpu + ".stats.json")
        ex = executions(gpu + ".trace.json")
        if all(len(v) == 1 for v in ex.values()):
            fixed, divisible = 0.0, t_gpu
        else:
            divisible = sum(len(v) * statistics.median(v[1:] or v) for v in ex.values())
            fixed = max(0.0, t_gpu - divisible)
        s_max, t_star, s_star = bound(t_cpu, t_gpu, fixed, divisible)
        print(f"| {b} | {t_cpu:.4f} | {t_gpu:.4f} | {fixed:.4f} | {divisible:.4f} | "
              f"{s_max:.2f} | {t_star:.4f} | {s_star:.2f} | {s_star / s_max:.2f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
