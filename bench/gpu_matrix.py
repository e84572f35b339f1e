#!/usr/bin/env python3
"""Correctness matrix on the GPU machine (one call, nothing built there):
every example x every scheduler x every device set, each run checked by the
example's own sequential verification and by its HCE_STATS: a run passes
only when every device it names did work (bench/stats_check.py; a run where
omp:0 was dropped and the CPU did everything is a failure); then two examples under
compute-sanitizer (memcheck and racecheck).  Prints a short table and writes
matrix.csv / matrix.md to $OUT (or /tmp/hce-matrix).

  usage: bench/gpu_matrix.py BIN_DIR

Device sets are chosen from what the machine has: cpu, cuda:0, cpu+cuda:0,
with two GPUs cuda:0+cuda:1 and cpu+cuda:0+cuda:1, with four or more
the CPU and every GPU; with OpenMP offload
devices (HCE_OMP_OK=1, see docs/offload-backend.md) omp:0, cpu+omp:0 and
the three device kinds at once, cpu+cuda:0+omp:0 (cpu+cuda:0+omp:1 with two
GPUs).  MATRIX_DEVSETS="cpu;cpu,sim:0"
overrides the list (used to try the script without a GPU), MATRIX_ONLY
restricts the examples, MATRIX_JOBS runs that many programs at once,
MATRIX_OFFLOAD_BIN is where the examples built with --hce-offload are (used
for the sets with omp devices), and MATRIX_DEADLINE (a Unix time) stops
starting new runs then: what did not run is reported as not run.
"""
import concurrent.futures as futures
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_check import check_file  # noqa: E402
from suite import nvidia_gpu_count  # noqa: E402

# Sizes: a few times the ctest sizes, so every device gets work, each run
# well under a second.
EXAMPLES = [
    ("matadd", ["2049", "1031"]),
    ("jacobi2d", ["515", "6"]),
    ("fdtd2d", ["389", "331", "5"]),
    ("heat3d", ["67", "4"]),
    ("gemm", ["389", "331", "245"]),
    ("kmeans", ["200001", "5", "6", "6"]),
    ("blackscholes", ["1000003"]),
    ("nbody", ["2401", "3"]),
    ("mcpi", ["10000003"]),
    ("bfs", ["200011", "6"]),
    ("cg", ["100007", "3", "20"]),
    ("lud", ["515"]),
    ("taskgraph", ["200001", "65", "3", "2"]),
    ("histogram", ["2000003", "7"]),
]
SCHEDULES = ["static", "quick", "split", "hguided", "logfit", "fdets", "adets", "auto"]
# (example, args, tools) run under compute-sanitizer, small: lud's rows
# kernel stores between barriers, nbody.forces' combines its row reductions
# in the block (synccheck: every thread reaches the barriers).
SANITIZED = [("matadd", ["513", "257"], ("memcheck", "racecheck")),
             ("jacobi2d", ["131", "6"], ("memcheck", "racecheck")),
             ("lud", ["131"], ("memcheck", "racecheck", "synccheck")),
             ("nbody", ["601", "3"], ("memcheck", "racecheck", "synccheck"))]


def device_sets():
    if os.environ.get("MATRIX_DEVSETS"):
        return os.environ["MATRIX_DEVSETS"].split(";")
    n = nvidia_gpu_count()
    sets = ["cpu"]
    if n >= 1:
        sets += ["cuda:0", "cpu,cuda:0"]
    if n >= 2:
        sets += ["cuda:0,cuda:1", "cpu,cuda:0,cuda:1"]
    if n >= 4:
        sets += ["cpu," + ",".join(f"cuda:{g}" for g in range(n))]
    if os.environ.get("HCE_OMP_OK") == "1":
        # The third device kind: alone, with the CPU, and beside CUDA on the
        # same GPU (two programming models) or on another one.
        sets += ["omp:0", "cpu,omp:0"]
        if n >= 1:
            sets += ["cpu,cuda:0,omp:0"]
        if n >= 2:
            sets += ["cpu,cuda:0,omp:1"]
    return sets


DEADLINE = float(os.environ.get("MATRIX_DEADLINE", "0"))


def run(exe, args, devices, schedule, extra_env=None, wrapper=None,
        timeout=int(os.environ.get("MATRIX_RUN_TIMEOUT", "300"))):
    if DEADLINE and time.time() > DEADLINE:
        return None, -1, 0.0, "not run (deadline)", ""
    if DEADLINE:  # a run started before the deadline ends soon after it
        timeout = min(timeout, max(5, int(DEADLINE + 15 - time.time())))
    fd, stats = tempfile.mkstemp(prefix="hce-matrix-", suffix=".json")
    os.close(fd)
    os.remove(stats)  # the runtime writes it at exit
    env = dict(os.environ, HCE_DEVICES=devices, HCE_STATS=stats)
    if schedule:
        env["HCE_SCHEDULE"] = schedule
    env.update(extra_env or {})
    cmd = (wrapper or []) + [exe] + args
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        out, err, rc = "", "timed out after %d s" % timeout, 124
    secs = time.time() - t0
    ok = rc == 0 and "verified against sequential" in out
    # Verified is not enough: every named device must have done work.
    idle = check_file(stats, devices) if ok else []
    if os.path.exists(stats):
        os.remove(stats)
    notices = [l for l in err.splitlines() if l.startswith("hce: ")]
    tail = (out.strip().splitlines()[-1:] + err.strip().splitlines()[-3:])
    if idle:
        ok = False
        tail = idle + notices[:2]
    return ok, rc, secs, " | ".join(tail), out + err


def main():
    bin_dir = sys.argv[1]
    out_dir = os.environ.get("OUT", "/tmp/hce-matrix")
    os.makedirs(out_dir, exist_ok=True)
    only = set(os.environ["MATRIX_ONLY"].split(",")) if os.environ.get("MATRIX_ONLY") else None
    jobs = int(os.environ.get("MATRIX_JOBS", "4"))
    sets = device_sets()
    # Each program's CPU device takes its share of the cores, not all of them.
    threads = max(1, (os.cpu_count() or 2) // jobs)
    env = {"OMP_NUM_THREADS": str(threads)}
    # compute-sanitizer on two examples, CPU + first GPU (or what is given).
    san = []
    cs = shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer",
                     "/usr/local/cuda/compute-sanitizer/compute-sanitizer")
         if os.path.exists(p)), None)
    san_dev = os.environ.get("MATRIX_SANITIZER_DEVICES", "cpu,cuda:0")
    todo = [(name, args, tool) for name, args, tools in SANITIZED for tool in tools]
    san_timeout = int(os.environ.get("MATRIX_SANITIZER_TIMEOUT", "120"))

    def sanitize(item):
        name, args, tool = item
        exe = os.path.join(bin_dir, name)
        if not cs or not os.path.exists(exe):
            return dict(example=name, tool=tool, ok=False, detail="compute-sanitizer not found")
        ok, rc, secs, tail, text = run(exe, args, san_dev, "static", env,
                                       [cs, "--tool", tool, "--error-exitcode", "99"],
                                       timeout=san_timeout)
        summary = [l for l in text.splitlines() if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l]
        log_dir = os.environ.get("MATRIX_LOG_DIR", out_dir)
        os.makedirs(log_dir, exist_ok=True)
        with open(os.path.join(log_dir, f"sanitizer-{name}-{tool}.log"), "w") as f:
            f.write(text)
        return dict(example=name, tool=tool, ok=bool(ok),
                    detail=f"{' '.join(summary[-1:]) or tail} ({secs:.0f} s)")

    # All at once: they are independent and each is slow.
    # MATRIX_PARTS=sanitizer|matrix runs one half (two processes side by side).
    parts = os.environ.get("MATRIX_PARTS", "sanitizer,matrix").split(",")
    if "sanitizer" not in parts:
        todo = []
    with futures.ThreadPoolExecutor(max_workers=max(1, len(todo))) as pool:
        san = list(pool.map(sanitize, todo))
    for s_ in san:
        print(f"compute-sanitizer {s_['tool']} {s_['example']}: "
              f"{'ok' if s_['ok'] else 'FAILED'} {s_['detail']}", flush=True)

    work = []
    offload_bin = os.environ.get("MATRIX_OFFLOAD_BIN", bin_dir)
    # Most informative first, in case the deadline cuts the list short: the
    # CPU alone is what CI already checks.
    order = sorted(sets, key=lambda d: (d == "cpu", "omp" in d))
    for devices in order:
        for name, args in EXAMPLES:
            exe = os.path.join(offload_bin if "omp" in devices else bin_dir, name)
            if (only and name not in only) or not os.path.exists(exe):
                continue
            for schedule in SCHEDULES:
                work.append((name, exe, args, devices, schedule, {}))
            if devices != "cpu":
                work.append((name, exe, args, devices, "fdets", {"HCE_CO": "off"}))
    if "matrix" not in parts:
        work = []
    rows, skipped = [], 0
    with futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = {pool.submit(run, exe, args, devices, schedule, dict(env, **extra)):
                (name, devices, schedule + (" co-off" if extra else ""))
                for name, exe, args, devices, schedule, extra in work}
        for f in futures.as_completed(futs):
            name, devices, schedule = futs[f]
            ok, rc, secs, tail, _ = f.result()
            if ok is None:
                skipped += 1
                continue
            rows.append(dict(example=name, devices=devices, schedule=schedule, ok=ok,
                             rc=rc, seconds=round(secs, 3), detail="" if ok else tail))
            if not ok:
                print(f"FAILED {name} HCE_DEVICES={devices} {schedule}: {tail}", flush=True)
    rows.sort(key=lambda r: (r["example"], sets.index(r["devices"]), r["schedule"]))

    tag = "" if len(parts) == 2 else "-" + parts[0]
    if rows:
        with open(os.path.join(out_dir, f"matrix{tag}.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    lines = ["| example | " + " | ".join(sets) + " |", "|---" * (len(sets) + 1) + "|"]
    names = [n for n, _ in EXAMPLES if any(r["example"] == n for r in rows)]
    for name in names:
        cells = []
        for devices in sets:
            rs = [r for r in rows if r["example"] == name and r["devices"] == devices]
            bad = [r["schedule"] for r in rs if not r["ok"]]
            cells.append(f"{len(rs) - len(bad)}/{len(rs)}" + (" ✗ " + ",".join(bad) if bad else ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "| compute-sanitizer | tool | result |", "|---|---|---|"]
    for s in san:
        lines.append(f"| {s['example']} ({san_dev}) | {s['tool']} | "
                     f"{'ok' if s['ok'] else 'FAILED'}: {s['detail']} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, f"matrix{tag}.md"), "w") as f:
        f.write(text)
    print(text)
    good = sum(r["ok"] for r in rows)
    print(f"{good}/{len(rows)} runs verified with every named device working "
          f"({skipped} not run: deadline); "
          f"sanitizer {sum(s['ok'] for s in san)}/{len(san)} clean")
    return 0 if good == len(rows) and all(s["ok"] for s in san) else 1


if __name__ == "__main__":
    sys.exit(main())
