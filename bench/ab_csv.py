#!/usr/bin/env python3
"""bench/ab_libs.sh's runs as CSV: one row per run.

  bench/ab_csv.py LOG > runs.csv
  bench/ab_csv.py --self-test

LOG: ab_libs.sh's output (its `R bench config seconds devices | choice`
lines and `== [t s] round K` stamps), as kept in bench/results/run-*.log.
Columns: round (0: the machine's health runs, config `health`; the
profile fills are not printed by ab_libs.sh; the CPU alone runs in round
1), bench,
config (gpu-LIB, warm-LIB, cold-LIB, cpu, ...), seconds (the regions'
wall_seconds summed), iterations (device:count ...), choice (the runtime's
last words on the first region's mode, as printed).
"""
import csv
import re
import sys


def rows(lines):
    rnd = 0
    for line in lines:
        m = re.match(r"== \[\d+ s\] round (\d+)$", line.strip())
        if m:
            rnd = int(m.group(1))
        if not line.startswith("R "):
            continue
        head, _, choice = line.rstrip("\n").partition(" | ")
        w = head.split()
        if len(w) < 4:
            continue
        yield [rnd, w[1], w[2], w[3], " ".join(w[4:]), choice.strip()]


def self_test():
    log = ["== [0 s] profile caches: ...\n",
           "R kmeans       fill-cpu     0.10000 cpu:5 | \n",
           "== [46 s] round 1\n",
           "R kmeans       cpu          0.10863 cpu:5242880 | \n",
           "R kmeans       warm-s37     0.01796 cpu:481221 cuda:0:4761659 | arms: co 2.61m1\n",
           "NOT VERIFIED kmeans warm-s37\n",
           "== [102 s] round 2\n",
           "R kmeans       gpu-s37      nan | no stats\n"]
    got = list(rows(log))
    want = [[0, "kmeans", "fill-cpu", "0.10000", "cpu:5", ""],
            [1, "kmeans", "cpu", "0.10863", "cpu:5242880", ""],
            [1, "kmeans", "warm-s37", "0.01796", "cpu:481221 cuda:0:4761659", "arms: co 2.61m1"],
            [2, "kmeans", "gpu-s37", "nan", "", "no stats"]]
    if got != want:
        sys.exit("ab_csv self-test failed:\n%r\n!=\n%r" % (got, want))
    print("ab_csv self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    out = csv.writer(sys.stdout)
    out.writerow(["round", "bench", "config", "seconds", "iterations", "choice"])
    with open(sys.argv[1]) as f:
        for r in rows(f):
            out.writerow(r)


if __name__ == "__main__":
    main()
