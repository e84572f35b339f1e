#!/usr/bin/env python3
"""Where issue 12 stands, from one or more bench/suite.py CSVs (merged by
benchmark: a suite split over device calls).

  usage: bench/suite_standing.py SUITE_CSV [SUITE_CSV ...] > tables.md

Prints two markdown tables: the medians (ms) of every configuration, and per
benchmark the best single device over warm and cold `auto` (by the medians,
the suite's paired ratio in brackets, bold where it reaches the issue's
0.98), the best of the papers' schedulers over the best single device,
S_max (EngineCL: the sum of the single devices' speeds over the fastest's)
and the efficiency of the better `auto` (S_real / S_max, bold where S_max >=
1.2 and it reaches 0.90).  Then the counts the issue asks about.
"""
import csv
import sys

CONFIGS = ["cpu", "gpu", "fdets", "fdets no-CO", "adets", "hguided", "logfit", "static",
           "auto", "auto cold"]
NAMED = ["fdets", "fdets no-CO", "adets", "hguided", "logfit", "static"]
ORDER = ["matadd", "blackscholes", "jacobi2d", "heat3d", "fdtd2d", "nbody", "gemm",
         "kmeans", "mcpi", "cg", "bfs", "lud"]
GOAL, EFFICIENCY, S_MAX_FROM = 0.98, 0.90, 1.2


def read(paths):
    rows = {}
    for path in paths:
        for r in csv.DictReader(open(path)):
            rows.setdefault(r["benchmark"], {})[r["config"]] = r
    return rows


def ms(r):
    return float(r["median_s"]) * 1e3


def fmt(x):
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def bold(text, ok):
    return f"**{text}**" if ok else text


def main():
    rows = read(sys.argv[1:])
    names = [n for n in ORDER if n in rows] + sorted(n for n in rows if n not in ORDER)
    print("| benchmark | " + " | ".join(CONFIGS) + " |")
    print("|---" * (len(CONFIGS) + 1) + "|")
    for n in names:
        r = rows[n]
        cells = [fmt(ms(r[c])) + ("" if r[c]["verified"] == "True" else " (not verified)")
                 if c in r else "" for c in CONFIGS]
        print(f"| {n} | " + " | ".join(cells) + " |")
    print()
    print("| benchmark | best / warm | best / cold | best named | S_max | efficiency |")
    print("|---|---|---|---|---|---|")
    warm_ok = cold_ok = warm_paired_ok = cold_paired_ok = 0
    eff_rows = eff_ok = 0
    for n in names:
        r = rows[n]
        if not all(c in r for c in ("cpu", "gpu", "auto", "auto cold")):
            continue
        cpu, gpu = ms(r["cpu"]), ms(r["gpu"])
        best = min(cpu, gpu)
        s_max = best * (1 / cpu + 1 / gpu)
        cells = []
        for c in ("auto", "auto cold"):
            ratio, paired = best / ms(r[c]), float(r[c]["paired_vs_best"])
            cells.append(f"{bold(f'{ratio:.2f}', ratio >= GOAL)} "
                         f"({bold(f'{paired:.2f}', paired >= GOAL)})")
            if c == "auto":
                warm_ok += ratio >= GOAL
                warm_paired_ok += paired >= GOAL
            else:
                cold_ok += ratio >= GOAL
                cold_paired_ok += paired >= GOAL
        named = [c for c in NAMED if c in r]
        top = min(named, key=lambda c: ms(r[c])) if named else None
        named_cell = f"{top} {best / ms(r[top]):.2f}" if top else ""
        eff = best / min(ms(r["auto"]), ms(r["auto cold"])) / s_max
        counted = s_max >= S_MAX_FROM
        eff_rows += counted
        eff_ok += counted and eff >= EFFICIENCY
        print(f"| {n} | {cells[0]} | {cells[1]} | {named_cell} | {s_max:.2f} | "
              f"{bold(f'{eff:.2f}', counted and eff >= EFFICIENCY)} |")
    print()
    print(f"- warm `auto` reaches {GOAL} on {warm_ok} of {len(names)} by the medians, "
          f"{warm_paired_ok} by the paired ratio; cold `auto` on {cold_ok} and "
          f"{cold_paired_ok}.")
    print(f"- efficiency >= {EFFICIENCY} on {eff_ok} of the {eff_rows} benchmarks whose "
          f"S_max >= {S_MAX_FROM}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
