#!/usr/bin/env python3
"""Cost models for bench/sim (hce-sim) from a GPU run's traces and suite log.

  usage: bench/sim/calibrate.py TRACES_DIR SUITE_LOG... > PROFILE      (v1)
         bench/sim/calibrate.py --v2 ...                              (v2: see
                                                 bench/sim/calibrate_v2.py)

TRACES_DIR holds, per benchmark, `<bench>-cpu-static.{trace,stats}.json` and
`<bench>-cuda_0-static.{trace,stats}.json` (bench/gpu_traces.sh writes them;
the H100 set of 2026-11-23 is ../shared/perf/h100-2026-11-23/traces.tar.xz).
SUITE_LOG are bench/suite.py's logs of the same machine: their medians are
the "measured" line of each benchmark, and the single-device medians scale
the traces' times (one traced run is noisier than a median of several).

Per region and device the model is: the time of one chunk of all W
iterations (busy seconds per execution in the single-device run, where
`static` runs one chunk per execution), split into upload / compute /
download by that device's stage times in the trace; a per-chunk overhead
per stage (CUDA launch + synchronise ~8 us, copy ~5 us, an OpenMP fork
~5 us); and the seconds per execution outside the chunk loop (windows,
pinning, broadcast uploads: wall - busy).
"""
import collections
import json
import os
import re
import sys

OVERHEAD = {"cpu": {"up": 0.0, "comp": 5e-6, "down": 0.0},
            "gpu": {"up": 5e-6, "comp": 10e-6, "down": 5e-6}}
CPU_THREADS = 16  # the H100 machine's cores: the CPU device's team alone
TAG = {"cpu": "cpu", "gpu": "cuda_0"}
DEVNAME = {"cpu": "cpu", "gpu": "cuda:0"}


def stage_totals(trace_path):
    """Seconds per (device, stage) over the whole trace."""
    t = json.load(open(trace_path))
    ev = t["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name"}
    tot = collections.defaultdict(float)
    for e in ev:
        if e["ph"] == "X":
            dev, stage = names[e["tid"]].rsplit(" ", 1)
            tot[stage] += e["dur"] / 1e6
    return tot


def chunk_points(traces, bench, device):
    """(iterations, compute seconds) of `device`'s chunks in the co-executed
    runs of a benchmark."""
    pts = []
    for f in os.listdir(traces):
        if f.startswith(bench + "-cpu+cuda_0-") and f.endswith(".trace.json"):
            t = json.load(open(os.path.join(traces, f)))
            ev = t["traceEvents"]
            names = {e["tid"]: e["args"]["name"] for e in ev
                     if e["ph"] == "M" and e["name"] == "thread_name"}
            for e in ev:
                if e["ph"] == "X" and names[e["tid"]] == device + " compute":
                    m = re.search(r"\[(\d+), (\d+)\)", e["name"])
                    pts.append((int(m.group(2)) - int(m.group(1)), e["dur"] / 1e6))
    return pts


def fit_lanes(pts, W):
    """The lanes L (a chunk of n < L iterations costs as much as L) and the
    per-chunk overhead o that fit t = o + c * max(n, L) best (relative
    error); (0, None) when there are too few points."""
    if len(pts) < 6:
        return 0, None
    best = None
    L = 0
    while L <= W:
        xs = [max(n, L) for n, _ in pts]
        k = len(pts)
        sx, sy = sum(xs), sum(t for _, t in pts)
        sxx = sum(x * x for x in xs)
        sxy = sum(x * t for x, (_, t) in zip(xs, pts))
        den = k * sxx - sx * sx
        if den > 0:
            c = (k * sxy - sx * sy) / den
            o = max(0.0, (sy - c * sx) / k)
            if c > 0:
                err = sum(((o + c * x) - t) ** 2 / max(t, 1e-6) ** 2
                          for x, (_, t) in zip(xs, pts))
                if best is None or err < best[0]:
                    best = (err, L, o)
        L = 1 if L == 0 else L * 2
    return (best[1], best[2]) if best else (0, None)


def suite_medians(logs):
    med = collections.defaultdict(dict)
    for path in logs:
        for line in open(path):
            m = re.match(r"^(\w+)\s+(.+?)\s+([0-9.]+) s\s", line)
            if m and m.group(1) not in ("cores",):
                med[m.group(1)][m.group(2).replace(" ", "-")] = float(m.group(3))
    return med


def main_v1(argv):
    traces, logs = argv[0], argv[1:]
    med = suite_medians(logs)
    benches = sorted({f.split("-")[0] for f in os.listdir(traces) if f.endswith(".stats.json")})
    print("# hce-sim profile: bench/sim/calibrate.py " + " ".join(
        os.path.basename(a) for a in argv))
    for b in benches:
        per_dev = {}
        for dev, tag in TAG.items():
            stats = os.path.join(traces, f"{b}-{tag}-static.stats.json")
            if not os.path.exists(stats):
                continue
            regions = json.load(open(stats))["regions"]
            wall = sum(r["wall_seconds"] for r in regions)
            scale = med[b].get(dev, wall) / wall if wall > 0 else 1
            per_dev[dev] = (regions, scale,
                            stage_totals(stats.replace(".stats.", ".trace.")))
        if "cpu" not in per_dev:
            continue
        print(f"\nbench {b}")
        print("measured " + " ".join(f"{k}={v}" for k, v in sorted(med[b].items())))
        for k, reg in enumerate(per_dev["cpu"][0]):
            execs = reg["executions"]
            W = max(1, reg["iterations"] // execs)
            print(f"region {reg['name']} W={W} execs={execs}")
            for dev, (regions, scale, stages) in per_dev.items():
                r = next((x for x in regions if x["name"] == reg["name"]), None)
                if r is None:
                    continue
                d = next(x for x in r["devices"] if x["device"] == DEVNAME[dev])
                busy = d["busy_seconds"] * scale / execs
                prepare = max(0.0, (r["wall_seconds"] * scale / execs) - busy)
                tot = sum(stages.values()) or 1
                o = dict(OVERHEAD[dev])
                extra = ""
                if dev == "cpu":
                    extra = f" threads={CPU_THREADS}"
                elif len(per_dev["cpu"][0]) == 1:
                    # One region: the co-executed runs' chunks say how the
                    # GPU's compute time grows with the chunk's size.
                    lanes, oh = fit_lanes(chunk_points(traces, b, "cuda:0"), W)
                    if oh is not None and lanes > 1:
                        extra = f" lanes={lanes}"
                        o["comp"] = oh
                parts = []
                for st in ("up", "comp", "down"):
                    key = {"up": "upload", "comp": "compute", "down": "download"}[st]
                    share = stages.get(key, 0) / tot
                    sec = busy * share
                    oh = o[st] if sec > 0 else 0.0
                    n = W
                    if st == "comp" and "lanes=" in extra:
                        n = max(W, int(extra.split("lanes=")[1]))
                    c = max(0.0, sec - oh) / n
                    parts.append(f"{st}={oh:.3g},{c:.6g}")
                print(f"cost {dev} " + " ".join(parts) +
                      f" prepare={prepare:.6g}" + extra)
            if "gpu" not in per_dev and "gpu" in med[b]:
                # No GPU trace (lud's took minutes): the suite's median spread
                # evenly over the iterations, all of it compute.
                total = sum(x["iterations"] for x in per_dev["cpu"][0])
                c = med[b]["gpu"] / max(1, total)
                print(f"cost gpu up=0,0 comp={OVERHEAD['gpu']['comp']},{c:.6g} "
                      "down=0,0 prepare=0")


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip() + "\n\n--v2:\n")
        import calibrate_v2
        print(calibrate_v2.__doc__.strip())
        return
    if len(sys.argv) > 2 and "--help" in sys.argv[2:] and sys.argv[1] == "--v2":
        import calibrate_v2
        print(calibrate_v2.__doc__.strip())
        return
    if sys.argv[1] == "--v2":
        import calibrate_v2
        calibrate_v2.main(sys.argv[2:])
    else:
        main_v1(sys.argv[1:])


if __name__ == "__main__":
    main()
