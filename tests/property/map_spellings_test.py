#!/usr/bin/env python3
"""The random property test of map spellings, end to end through hce-cc.

Generates programs (map_program.py) from a fixed seed, builds each with
hce-cc and runs it under every device set of DEVICE_SETS x every scheduler
of runtime/include/hce/names.def.  Each run must be verified against the
program's own sequential reference with every named device having done
work, or stop with a clear `hce: error` (hce_matrix.py says how runs are
judged).  Failing runs are listed with the program's path and the command
that repeats them.

  usage: map_spellings_test.py --hce-cc build/bin/hce-cc --work DIR
           [--cases N] [--seed S] [--cc-flags "..."]
  HCE_MAP_CASES=N, HCE_MAP_SEED=S override --cases and --seed (more cases,
  another seed, without editing the ctest entry).
"""
import argparse
import os
import random
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hce_matrix  # noqa: E402
import map_program  # noqa: E402

DEVICE_SETS = ["cpu", "cpu,sim:0", "cpu,sim:0,sim:1", "sim:0,sim:1"]
# Simulated accelerators with transfers cheap enough that the test stays
# quick, of two bandwidths.  No latency: on a loaded machine a sleep of a
# few microseconds per transfer lasts far longer, the device takes its
# first chunk after the others have taken every iteration, and the check
# that every named device did work fails for a reason that says nothing
# about the maps.
SIM = "sim=bw:1e11,lat:0;sim:1=bw:5e10,lat:0"


def build(hce_cc, cc_flags, source, exe):
    cmd = [hce_cc] + cc_flags + ["-O1", source, "-o", exe, "-lm"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, " ".join(shlex.quote(c) for c in cmd), (p.stdout + p.stderr).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hce-cc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cases", type=int, default=4)
    ap.add_argument("--seed", default="11")
    ap.add_argument("--cc-flags", default="--hce-no-cuda")
    ap.add_argument("--timeout", type=int, default=60)
    args = ap.parse_args()
    cases = int(os.environ.get("HCE_MAP_CASES", args.cases))
    seed = os.environ.get("HCE_MAP_SEED", args.seed)
    os.makedirs(args.work, exist_ok=True)
    schedulers = hce_matrix.scheduler_names()
    print(f"map spellings: seed {seed}, {cases} programs x {len(DEVICE_SETS)} device sets "
          f"x {len(schedulers)} schedulers ({', '.join(schedulers)})")
    failures, counts, start = [], {}, time.time()
    for case in range(cases):
        rng = random.Random(f"{seed}:{case}")
        # Two kinds per program in turn, so that four programs have every
        # kind; the others at random.
        kinds = map_program.LOOP_KINDS
        first = [kinds[(2 * case) % len(kinds)], kinds[(2 * case + 1) % len(kinds)]]
        text, description = map_program.generate(rng, f"{seed}:{case}", first)
        source = os.path.join(args.work, f"case{case}.c")
        exe = os.path.join(args.work, f"case{case}")
        with open(source, "w") as f:
            f.write(text)
        rc, cmd, log = build(args.hce_cc, shlex.split(args.cc_flags), source, exe)
        print(f"case {case}: {description}")
        if rc != 0:
            failures.append(f"case {case} ({source}) does not build: {cmd}\n{log}")
            print(f"  build FAILED: {cmd}\n{log}")
            continue
        for devices in DEVICE_SETS:
            for schedule in schedulers:
                v = hce_matrix.run_judged([exe], devices, schedule, SIM, args.timeout)
                counts[v.kind] = counts.get(v.kind, 0) + 1
                if v.ok and v.kind == "verified":
                    continue
                line = (f"case {case} HCE_DEVICES={devices} HCE_SCHEDULE={schedule}: "
                        f"{v.kind}: {v.reason}\n    program: {source}\n    repeat: cd "
                        f"{args.work} && " + hce_matrix.reproduce([exe], devices, schedule, SIM))
                print(("  allowed (clear error) " if v.ok else "  FAIL ") + line)
                if not v.ok:
                    failures.append(line)
    took = time.time() - start
    print(f"map spellings: {sum(counts.values())} runs in {took:.0f} s: "
          + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    if failures:
        print(f"map spellings: {len(failures)} failing run(s):")
        for line in failures:
            print("  " + line)
        return 1
    print("map spellings: all runs verified or stopped with a clear error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
