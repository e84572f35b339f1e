#!/usr/bin/env python3
"""The fault-injection matrix on examples built with hce-cc.

Every HCE_SIM fault kind that runtime/src/sim_device.cpp parses (fail_compute,
fail_upload, fail_download), at the first and at the third such operation
and sticky from the third on (`sticky:1`: every later one fails too),
x every scheduler of runtime/include/hce/names.def x the examples below
(rows with per-iteration maps; data regions with halos; a data region with
`update to` / `update from`; scattered writes in a data region) x three
configurations (CONFIGS: the fault in sim:0 beside the CPU and sim:1, in
sim:0 beside sim:1 alone, in both sims).  A run
passes when the example prints "verified against sequential" with exit 0,
or stops with a clear `hce: error` and a non-zero exit; a wrong answer
with any exit status, a crash, a silent non-zero exit or a hang fails.
Every (example, fault) pair must see its fault fire ("injected" in the
runtime's message) in at least one run, or the matrix would test nothing.

tests/runtime/fault_matrix_test.cpp does the same for hand-written regions.

  usage: fault_matrix_examples.py EXAMPLES_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hce_matrix  # noqa: E402

# name, arguments (test sizes, as in examples/CMakeLists.txt), what it covers
EXAMPLES = [
    ("matadd", ["1000", "129"], "rows, per-iteration maps"),
    ("jacobi2d", ["131", "6"], "data region, halos"),
    ("kmeans", ["20001", "5", "6", "6"], "data region, update to/from, reductions"),
    ("bfs", ["20011", "6"], "data region, scattered writes"),
    ("lud", ["131"], "one-shot regions, rows updated in place"),
]
# (HCE_DEVICES, HCE_SIM with {fault}): the fault in sim:0 beside the CPU
# and sim:1; in sim:0 beside sim:1 alone; in both sims (each fails once).
CONFIGS = [
    ("cpu,sim:0,sim:1", "sim=bw:1e11,lat:0;sim:0={fault}"),
    ("sim:0,sim:1", "sim=bw:1e11,lat:0;sim:0={fault}"),
    ("sim:0,sim:1", "sim=bw:1e11,lat:0,{fault}"),
]
AT = [1, 3]  # the first, and a later, operation of the kind fails
# ... and a sticky fault: the 3rd operation of the kind and every later one
# fail, as after a GPU's sticky error (the device fails in every execution
# from then on; data only it held may be lost: a clear error then).
STICKY_AT = [3]
# ... and a download that fails in its batch and in the copy again (twice
# each), then works: the chunk fails, the rescue brings its results home,
# and they must not be computed again (an update in place applied twice).
REPEATED = ["fail_download:3,repeat:4"]
VERIFIED = "verified against sequential"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    examples_dir = argv[1]
    schedulers = hce_matrix.scheduler_names()
    faults = [f"{kind}:{k}" for kind in hce_matrix.fault_kinds() for k in AT]
    faults += [f"{kind}:{k},sticky:1" for kind in hce_matrix.fault_kinds() for k in STICKY_AT]
    faults += REPEATED
    print(f"fault matrix: {len(EXAMPLES)} examples x {len(faults)} faults "
          f"({', '.join(faults)}) x {len(schedulers)} schedulers x {len(CONFIGS)} configurations")
    failures, counts, fired = [], {}, {}
    for name, args, covers in EXAMPLES:
        exe = os.path.join(examples_dir, name)
        if not os.access(exe, os.X_OK):
            failures.append(f"{exe} is not built (target example-{name})")
            continue
        argv_run = [exe] + args
        for fault in faults:
            for devices, sim_text in CONFIGS:
                for schedule in schedulers:
                    sim = sim_text.format(fault=fault)
                    v, err = run_recording(argv_run, devices, schedule, sim)
                    counts[v.kind] = counts.get(v.kind, 0) + 1
                    if "injected" in err:
                        fired[(name, fault)] = fired.get((name, fault), 0) + 1
                    if v.kind == "verified":
                        continue
                    line = (f"{name} ({covers}) {fault} HCE_DEVICES={devices} "
                            f"HCE_SCHEDULE={schedule}: {v.kind}: {v.reason}\n    repeat: "
                            + hce_matrix.reproduce(argv_run, devices, schedule, sim))
                    print(("  allowed (clear error) " if v.ok else "  FAIL ") + line)
                    if not v.ok:
                        failures.append(line)
        print(f"{name}: done; fault fired in "
              + ", ".join(f"{f} {fired.get((name, f), 0)}" for f in faults)
              + f" of {len(schedulers) * len(CONFIGS)} runs each")
        for fault in faults:
            if not fired.get((name, fault)):
                failures.append(f"{name}: {fault} never fired (no 'injected' message in "
                                f"{len(schedulers) * len(CONFIGS)} runs)")
    print("fault matrix: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    if failures:
        print(f"fault matrix: {len(failures)} failure(s):")
        for line in failures:
            print("  " + line)
        return 1
    print("fault matrix: every run verified or stopped with a clear error")
    return 0


def run_recording(argv, devices, schedule, sim):
    """hce_matrix.run_one, and the run's stderr (to see the fault fire).
    No did-work check: a faulted device may rightly be dropped."""
    captured = {}
    v = hce_matrix.run_one(argv, devices, schedule, sim, verified=VERIFIED,
                           check_work=False, captured=captured)
    return v, captured.get("stderr", "")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
