#!/usr/bin/env python3
"""Initial-chunk and alpha sensitivity of FDETS and ADETS on CPU + 1 GPU (the
FDETS/ADETS paper's Figs. 7-10), on the GPU machine in one call.  HCE_CHUNK
and HCE_ALPHA override the examples' clauses; each point is the median
region time of REPS runs after a warm-up.  Writes sensitivity.csv to $OUT
(or /tmp/hce-sens) and prints a table.

  usage: bench/sensitivity.py BIN_DIR [REPS]
  env:   SENS_DEVICES (default cpu,cuda:0), SENS_SMALL=1 (test sizes)
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite import run_once  # noqa: E402  (same measurement as the suite)

# benchmark, arguments, W (iterations of its main loop), small arguments
BENCHMARKS = [
    ("gemm", ["2048", "2048", "2048"], 2048, ["97", "83", "61"]),
    ("nbody", ["16384", "2"], 16384, ["601", "3"]),
    ("blackscholes", ["16777216"], 16777216, ["100003"]),
]
CHUNK_FRACTIONS = [1 / 1024, 1 / 256, 1 / 64, 1 / 16]  # of W
ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.5]


def median_time(exe, args, devices, schedule, env, reps):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        times, ok_all = [], True
        for r in range(reps + 1):
            ok, res = run_once(exe, args, devices, schedule, "")
            ok_all = ok_all and ok
            if r > 0:
                times.append(res["wall"])
        return statistics.median(times), ok_all
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def main():
    bin_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    out = os.environ.get("OUT", "/tmp/hce-sens")
    os.makedirs(out, exist_ok=True)
    devices = os.environ.get("SENS_DEVICES", "cpu,cuda:0")
    rows = []
    for name, args, w, small in BENCHMARKS:
        if os.environ.get("SENS_SMALL") == "1":
            args, w = small, int(small[0])
        exe = os.path.join(bin_dir, name)
        for schedule in ("fdets", "adets"):
            for frac in CHUNK_FRACTIONS:
                chunk = max(1, int(w * frac))
                t, ok = median_time(exe, args, devices, schedule, {"HCE_CHUNK": str(chunk)}, reps)
                rows.append(dict(benchmark=name, schedule=schedule, knob="chunk",
                                 value=chunk, fraction_of_w=frac, median_s=t, verified=ok))
                print(f"{name:12s} {schedule:5s} chunk={chunk:9d} {t:9.4f} s {'ok' if ok else 'FAILED'}",
                      flush=True)
            for alpha in ALPHAS:
                t, ok = median_time(exe, args, devices, schedule, {"HCE_ALPHA": str(alpha)}, reps)
                rows.append(dict(benchmark=name, schedule=schedule, knob="alpha",
                                 value=alpha, fraction_of_w="", median_s=t, verified=ok))
                print(f"{name:12s} {schedule:5s} alpha={alpha:<9} {t:9.4f} s {'ok' if ok else 'FAILED'}",
                      flush=True)
    with open(os.path.join(out, "sensitivity.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        wr.writeheader()
        wr.writerows(rows)
    return 0 if all(r["verified"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
