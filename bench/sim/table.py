#!/usr/bin/env python3
"""The simulated-against-measured table of docs/simulator.md.

  usage: bench/sim/table.py PROFILE SIM_AS_MEASURED SIM_NOW [BENCH=SIM ...] > table.md

SIM_AS_MEASURED is hce-sim built against the runtime the measurements ran
(bench/sim/build_at.sh 48673da ...): the model's check.  SIM_NOW is hce-sim
of the working tree: what the current schedulers would do on that machine.  BENCH=SIM: a benchmark whose
measurement ran other code (lud in run I-A, bfs in run G2a) is checked with
that code's hce-sim.
A cell is within the goal when |error| <= 15%; a cell outside the measured
runs' [fastest, slowest] is marked.
"""
import csv
import os
import subprocess
import sys
import tempfile

LABEL = {"auto-cold": "auto cold", "fdets-no-CO": "fdets no-CO"}


def simulate(sim, profile):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.csv")
        subprocess.run([sim, profile, "--csv", out], check=True, stdout=subprocess.DEVNULL)
        return {(r["bench"], r["config"]): r for r in csv.DictReader(open(out))}


def err(sim, meas):
    return (sim - meas) / meas if meas > 0 else 0.0


def cell(sim, meas, lo, hi):
    """'sim (error)', bold over 15%, ⊄ outside the measured runs' range."""
    e = err(sim, meas)
    out = f"{sim:.4f} ({100 * e:+.0f}%)"
    if abs(e) > 0.15:
        out = f"**{out}**"
    if lo and hi and not lo <= sim <= hi:
        out += " ⊄"
    return out


def gb(x):
    return f"{x / 1e9:.3f}"


def main():
    profile, sim_then, sim_now = sys.argv[1:4]
    then, now = simulate(sim_then, profile), simulate(sim_now, profile)
    for spec in sys.argv[4:]:
        bench, sim = spec.split("=", 1)
        other = simulate(sim, profile)
        then.update({k: v for k, v in other.items() if k[0] == bench})
    print("| bench | config | run | measured s [min–max] | sim, code of the run | "
          "sim, code now | GB moved: measured / sim (run's code) |")
    print("|---|---|---|---|---|---|---|")
    within = total = 0
    for key, r in then.items():
        b, c = key
        meas = float(r["measured_s"])
        if meas <= 0:
            continue
        lo = float(r["measured_min_s"] or 0)
        hi = float(r["measured_max_s"] or 0)
        s_then = float(r["simulated_s"])
        s_now = float(now[key]["simulated_s"])
        total += 1
        within += abs(err(s_then, meas)) <= 0.15
        print(f"| {b} | {LABEL.get(c, c)} | {r['run']} | {meas:.4f} [{lo:.4f}–{hi:.4f}] | "
              f"{cell(s_then, meas, lo, hi)} | {cell(s_now, meas, lo, hi)} | "
              f"{gb(float(r['measured_bytes']))} / {gb(float(r['simulated_bytes']))} |")
    print(f"\n{within} of {total} cells within 15% (code of the run).")


if __name__ == "__main__":
    main()
