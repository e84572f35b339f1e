#!/usr/bin/env python3
"""The benchmark suite on the GPU machine (one call): every example on the
CPU alone, the GPU alone and co-executed with several schedulers, with and
without the communication optimisation; median of REPS runs after a warm-up.

Times are the regions' own wall time from HCE_STATS (what co-execution
changes), not process start-up.  Writes suite.csv and suite.md to $OUT (or
/tmp/hce-suite) and prints the table.

  usage: bench/suite.py BIN_DIR [REPS]      (BIN_DIR holds the examples)
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

# name, arguments (sized for about 0.05-1 s per run on an H100/H200 box)
BENCHMARKS = [
    ("matadd", ["8192", "8192"]),
    ("blackscholes", ["16777216"]),
    ("gemm", ["2048", "2048", "2048"]),
    ("jacobi2d", ["4096", "20"]),
    ("heat3d", ["256", "10"]),
    ("fdtd2d", ["2048", "2048", "10"]),
    ("nbody", ["16384", "2"]),
    ("kmeans", ["1048576", "16", "16", "5"]),
    ("mcpi", ["200000000"]),
    ("cg", ["1048576", "4", "10"]),
    ("bfs", ["1048576", "8"]),
    ("lud", ["512"]),
]
# label, HCE_DEVICES, HCE_SCHEDULE, HCE_CO
CONFIGS = [
    ("cpu", "cpu", "static", ""),
    ("gpu", "cuda:0", "static", ""),
    ("fdets", "cpu,cuda:0", "fdets", ""),
    ("fdets no-CO", "cpu,cuda:0", "fdets", "off"),
    ("adets", "cpu,cuda:0", "adets", ""),
    ("adets no-CO", "cpu,cuda:0", "adets", "off"),
    ("hguided", "cpu,cuda:0", "hguided", ""),
    ("static", "cpu,cuda:0", "static", ""),
]


def run_once(exe, args, devices, schedule, co):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        stats = f.name
    env = dict(os.environ, HCE_DEVICES=devices, HCE_SCHEDULE=schedule, HCE_STATS=stats)
    if co:
        env["HCE_CO"] = co
    else:
        env.pop("HCE_CO", None)
    p = subprocess.run([exe] + args, env=env, capture_output=True, text=True, timeout=300)
    ok = p.returncode == 0 and "verified against sequential" in p.stdout
    wall, moved, shares = 0.0, 0, {}
    try:
        with open(stats) as f:
            data = json.load(f)
        for r in data["regions"]:
            wall += r["wall_seconds"]
            for d in r["devices"]:
                moved += d["bytes_to_device"] + d["bytes_from_device"]
                shares[d["device"]] = shares.get(d["device"], 0) + d["iterations"]
    except (OSError, ValueError, KeyError):
        ok = False
    finally:
        if os.path.exists(stats):
            os.remove(stats)
    total = sum(shares.values()) or 1
    gpu_share = sum(v for k, v in shares.items() if k.startswith("cuda")) / total
    return ok, wall, moved, gpu_share, p.stdout.strip().splitlines()[-1:] + p.stderr.strip().splitlines()[-2:]


def main():
    bin_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    out = os.environ.get("OUT", "/tmp/hce-suite")
    os.makedirs(out, exist_ok=True)
    only = os.environ.get("SUITE_ONLY", "").split(",") if os.environ.get("SUITE_ONLY") else None
    rows = []
    for name, args in BENCHMARKS:
        if only and name not in only:
            continue
        exe = os.path.join(bin_dir, name)
        for label, devices, schedule, co in CONFIGS:
            times, moved, share, ok_all, last = [], 0, 0.0, True, []
            for r in range(reps + 1):
                ok, wall, mv, gs, tail = run_once(exe, args, devices, schedule, co)
                ok_all = ok_all and ok
                last = tail
                if r > 0:  # first run is the warm-up
                    times.append(wall)
                    moved, share = mv, gs
            med = statistics.median(times) if times else float("nan")
            rows.append(dict(benchmark=name, config=label, devices=devices, schedule=schedule,
                             co="off" if co else "on", median_s=med, bytes_moved=moved,
                             gpu_share=share, verified=ok_all))
            print(f"{name:13s} {label:12s} {med:9.4f} s  moved {moved/1e9:8.3f} GB  "
                  f"gpu {share*100:5.1f}%  {'ok' if ok_all else 'FAILED ' + ' | '.join(last)}",
                  flush=True)
    with open(os.path.join(out, "suite.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    # Markdown: one row per benchmark, speed-up over the best single device.
    labels = [c[0] for c in CONFIGS]
    with open(os.path.join(out, "suite.md"), "w") as f:
        f.write("| benchmark | " + " | ".join(labels) + " | best co-exec / best single |\n")
        f.write("|---" * (len(labels) + 2) + "|\n")
        for name, _ in BENCHMARKS:
            r = {x["config"]: x for x in rows if x["benchmark"] == name}
            if not r:
                continue
            best_single = min(r["cpu"]["median_s"], r["gpu"]["median_s"])
            best_co = min(v["median_s"] for k, v in r.items() if k not in ("cpu", "gpu"))
            cells = [f"{r[l]['median_s']:.4f}" + ("" if r[l]["verified"] else " ✗") for l in labels]
            f.write(f"| {name} | " + " | ".join(cells) + f" | {best_single / best_co:.2f}× |\n")
    print(open(os.path.join(out, "suite.md")).read())
    return 0 if all(x["verified"] for x in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
