#!/usr/bin/env python3
"""hce-sim's prediction beside each cell of a measured suite (issue 12, item 4).

  usage: bench/sim/suite_vs_sim.py SIM SUITE_CSV BENCH=PROFILE ... > table.md

For each BENCH, PROFILE's `bench BENCH` block gets the suite's medians as its
`measured` line (every configuration the suite ran, so hce-sim simulates the
named schedulers too and interleaves them as the suite's rounds did) and the
suite's repetitions as its `rounds`; hce-sim then runs that benchmark alone
(`--bench`, `--csv`).  Prints one row per benchmark, each cell `sim / measured
ms (error)`, bold where |error| > 15% (the issue's goal), and the count.
"""
import csv
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

# bench/suite.py's configuration labels as profile keys (no spaces).
KEY = {"auto cold": "auto-cold", "fdets no-CO": "fdets-no-CO"}
ORDER = ["cpu", "gpu", "fdets", "fdets no-CO", "adets", "hguided", "logfit", "static",
         "auto", "auto cold"]


def read_suite(path):
    medians, reps = defaultdict(dict), {}
    for r in csv.DictReader(open(path)):
        if r["verified"] != "True" or not r["median_s"]:
            continue
        medians[r["benchmark"]][r["config"]] = float(r["median_s"])
        reps[r["benchmark"]] = int(r["reps"])
    return medians, reps


def with_measured(profile, bench, measured, reps):
    """PROFILE's text, BENCH's block measured and rounds replaced."""
    out, inside = [], False
    for line in open(profile):
        word = line.split()[0] if line.split() else ""
        if word == "bench":
            inside = line.split()[1] == bench
        if inside and word == "measured":
            line = "measured " + " ".join(
                f"{KEY.get(c, c)}={s:.9g}" for c, s in measured.items()) + "\n"
        elif inside and word == "rounds":
            line = re.sub(r"^rounds\s+\d+", f"rounds {reps}", line)
        out.append(line)
    return "".join(out)


def simulate(sim, text, bench):
    with tempfile.TemporaryDirectory() as d:
        prof, out = os.path.join(d, "p.txt"), os.path.join(d, "s.csv")
        open(prof, "w").write(text)
        subprocess.run([sim, prof, "--bench", bench, "--csv", out], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return {r["config"]: float(r["simulated_s"]) for r in csv.DictReader(open(out))}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sim, suite = sys.argv[1], sys.argv[2]
    medians, reps = read_suite(suite)
    cols = [c for c in ORDER if any(c in m for m in medians.values())]
    print("| benchmark | profile | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 2) + "|")
    within = total = 0
    for arg in sys.argv[3:]:
        bench, profile = arg.split("=", 1)
        m = medians.get(bench)
        if not m:
            sys.exit(f"suite_vs_sim: {bench} has no verified cell in {suite}")
        got = simulate(sim, with_measured(profile, bench, m, reps[bench]), bench)
        cells = []
        for c in cols:
            s, x = got.get(KEY.get(c, c)), m.get(c)
            if s is None or x is None:
                cells.append("")
                continue
            e = (s - x) / x
            total += 1
            within += abs(e) <= 0.15
            text = f"{1e3 * s:.3g} / {1e3 * x:.3g} ({100 * e:+.0f}%)"
            cells.append(f"**{text}**" if abs(e) > 0.15 else text)
        name = os.path.basename(profile).removesuffix(".txt")
        print(f"| {bench} | {name} | " + " | ".join(cells) + " |")
    print(f"\n{within} of {total} cells within 15% (hce-sim / measured, ms).")


if __name__ == "__main__":
    main()
