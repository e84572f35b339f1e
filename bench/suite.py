#!/usr/bin/env python3
"""The benchmark suite on the GPU machine (one call per SUITE_ONLY subset):
every example on each single device (CPU, one GPU, two GPUs, an OpenMP
offload device when staged) and co-executed with several schedulers, with and
without the communication optimisation; median of REPS runs after a warm-up,
the configurations interleaved (each round runs every one once).

Times are the regions' own wall time from HCE_STATS (what co-execution
changes), not process start-up.  Per configuration it also records the bytes
moved (host<->device and peer), the balance (first/last device finish) and
each device's finish time and share in the last execution (HCE paper
Fig. 14).  Writes suite.csv, suite.md and suite-devices.csv to $OUT (or
/tmp/hce-suite) and prints the table.

  usage: bench/suite.py BIN_DIR [REPS]
  env:   SUITE_ONLY=matadd,gemm (run in this order)   SUITE_SKIP=static,"fdets no-CO"   SUITE_GPUS=1|2 (default: nvidia-smi -L)
         HCE_OMP_OK=1 (offload devices staged: adds the omp column, run with
         the examples built with --hce-offload from SUITE_OFFLOAD_BIN,
         default BIN_DIR/../bin-offload)
         SUITE_KEEP_STATS=DIR (keep every run's HCE_STATS as
         DIR/BENCH-CONFIG-ROUND.json: what each region chose and why)
         SUITE_HEALTH=0 (no health check; it is off at SUITE_SMALL sizes)

First a health check, bench/ab_libs.sh's: the CPU alone on blackscholes
twice and fdtd2d once at the suite's sizes.  Some lent machines run the CPU
2-7x slower and erratically (session 99's V26: the CPU alone's cg 99.5 ms
against 18.7, lud 17.7-118 ms between rounds), which moves every ratio to
a best single device; such a machine is reported as SLOW MACHINE (in the
output and as suite.md's first line) and measured anyway.

A configuration is verified only when the program verified its result and
every device it names did work (bench/stats_check.py): an omp column where
libomptarget found no device and the CPU did everything is a failure, not a
CPU time.

Each row also holds its per-round times (times_s, round order) and, for a
co-execution, paired_vs_best: the median over rounds of the best single
device's time in the same round over its own (see paired_ratio()).

Efficiency is EngineCL's S_real / S_max: S_real = T_best_single / T_coexec
and S_max = sum_d(1/T_d) / max_d(1/T_d) over the single devices taking part.
"""
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_check import left_out, problems  # noqa: E402

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
# SUITE_SMALL=1: test sizes, and SUITE_ACCEL=sim runs sim:N for cuda:N, to
# try the script on a machine without a GPU.
SMALL = {"matadd": ["1000", "129"], "blackscholes": ["100003"], "gemm": ["97", "83", "61"],
         "jacobi2d": ["131", "6"], "heat3d": ["23", "4"], "fdtd2d": ["97", "83", "5"],
         "nbody": ["601", "3"], "kmeans": ["20001", "5", "6", "6"], "mcpi": ["1000003"],
         "cg": ["10007", "3", "20"], "bfs": ["20011", "6"], "lud": ["131"]}


def nvidia_gpu_count():
    """GPUs that nvidia-smi lists (0 where there is none or no driver)."""
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
        return sum(1 for line in p.stdout.splitlines() if line.startswith("GPU "))
    except (OSError, subprocess.SubprocessError):
        return 0


def gpu_count():
    if os.environ.get("SUITE_GPUS"):
        return int(os.environ["SUITE_GPUS"])
    return nvidia_gpu_count()


def configs(ngpu):
    """(label, HCE_DEVICES, HCE_SCHEDULE, HCE_CO, single-device members)."""
    c = [("cpu", "cpu", "static", "", None), ("gpu", "cuda:0", "static", "", None)]
    if os.environ.get("HCE_OMP_OK") == "1":
        c.append(("omp", "omp:0", "static", "", None))
    both = ["cpu", "gpu"]
    c += [("fdets", "cpu,cuda:0", "fdets", "", both),
          ("fdets no-CO", "cpu,cuda:0", "fdets", "off", both),
          ("adets", "cpu,cuda:0", "adets", "", both),
          ("hguided", "cpu,cuda:0", "hguided", "", both),
          ("logfit", "cpu,cuda:0", "logfit", "", both),
          ("static", "cpu,cuda:0", "static", "", both),
          # The default: auto (eft), seeded by the per-user profile cache
          # that the warm-up run (and the runs before it) filled, and cold,
          # with no profile: the first execution of a first run.
          ("auto", "cpu,cuda:0", "auto", "", both),
          ("auto cold", "cpu,cuda:0", "auto", "HCE_PROFILE=off", both)]
    if ngpu >= 2:
        # Two GPUs: the same GPU twice is the single-device reference.
        c += [("2gpu static", "cuda:0,cuda:1", "static", "", ["gpu", "gpu"]),
              ("2gpu fdets", "cuda:0,cuda:1", "fdets", "", ["gpu", "gpu"]),
              ("cpu+2gpu fdets", "cpu,cuda:0,cuda:1", "fdets", "", ["cpu", "gpu", "gpu"])]
    if ngpu >= 4:
        gpus = ",".join(f"cuda:{g}" for g in range(4))
        c += [("4gpu static", gpus, "static", "", ["gpu"] * 4),
              ("cpu+4gpu fdets", "cpu," + gpus, "fdets", "", ["cpu"] + ["gpu"] * 4)]
    return c


def run_once(exe, args, devices, schedule, co, keep=None):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        stats = f.name
    devices = devices.replace("cuda", os.environ.get("SUITE_ACCEL", "cuda"))
    env = dict(os.environ, HCE_DEVICES=devices, HCE_SCHEDULE=schedule, HCE_STATS=stats)
    env.pop("HCE_CO", None)
    if "=" in co:  # extra environment, "NAME=value,NAME=value"
        env.update(kv.split("=", 1) for kv in co.split(","))
    elif co:
        env["HCE_CO"] = co
    try:
        p = subprocess.run([exe] + args, env=env, capture_output=True, text=True,
                           errors="replace", timeout=300)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        out, err, rc = "", "timed out", 124
    except OSError as e:  # e.g. no offload build of the example
        out, err, rc = "", str(e), 127
    ok = rc == 0 and "verified against sequential" in out
    res = dict(wall=0.0, moved=0, peer=0, balance=1.0, devices={}, left_out=[])
    try:
        with open(stats) as f:
            data = json.load(f)
        longest = None
        for r in data["regions"]:
            res["wall"] += r["wall_seconds"]
            if longest is None or r["wall_seconds"] > longest["wall_seconds"]:
                longest = r
            for d in r["devices"]:
                res["moved"] += d["bytes_to_device"] + d["bytes_from_device"] + d.get("bytes_peer", 0)
                res["peer"] += d.get("bytes_peer", 0)
                agg = res["devices"].setdefault(d["device"], dict(iterations=0))
                agg["iterations"] += d["iterations"]
        if longest:  # Fig. 14: finish times of the region that dominates
            res["balance"] = longest["balance"]
            for d in longest["devices"]:
                res["devices"][d["device"]]["finish"] = d.get("last_finish", 0.0)
        idle = problems(data, devices)  # every named device must have worked
        res["left_out"] = left_out(data)  # by the scheduler's choice (eft)
        if idle:
            ok = False
            err = err + "\n" + "\n".join(idle)
    except (OSError, ValueError, KeyError):
        ok = False
    finally:
        if os.path.exists(stats):
            if keep:  # SUITE_KEEP_STATS: each run's HCE_STATS, for the choices
                shutil.copy(stats, keep)
            os.remove(stats)
    res["tail"] = out.strip().splitlines()[-1:] + err.strip().splitlines()[-2:]
    return ok, res


def health_check(bin_dir):
    """bench/ab_libs.sh's check: "ok" or "SLOW MACHINE", with the times."""
    args = dict(BENCHMARKS)
    times = []
    for name in ("blackscholes", "blackscholes", "fdtd2d"):
        ok, res = run_once(os.path.join(bin_dir, name), args[name], "cpu", "static",
                           "HCE_PROFILE=off")
        times.append((name, res["wall"] if ok else float("nan")))
    slow = not times[1][1] <= 0.11 or not times[2][1] <= 0.03
    return ("SLOW MACHINE" if slow else "ok") + " (the CPU alone: " + ", ".join(
        f"{n} {t:.4f} s" for n, t in times) + ")"


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def main():
    bin_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    out = os.environ.get("OUT", "/tmp/hce-suite")
    os.makedirs(out, exist_ok=True)
    only = os.environ.get("SUITE_ONLY", "").split(",") if os.environ.get("SUITE_ONLY") else None
    offload_bin = os.environ.get("SUITE_OFFLOAD_BIN",
                                 os.path.join(os.path.dirname(os.path.abspath(bin_dir)),
                                              "bin-offload"))
    ngpu = gpu_count()
    cfgs = configs(ngpu)
    # SUITE_SKIP="static,fdets no-CO": leave configurations out (device time).
    skip = {x.strip() for x in os.environ.get("SUITE_SKIP", "").split(",") if x.strip()}
    cfgs = [c for c in cfgs if c[0] not in skip]
    health = None
    if os.environ.get("SUITE_SMALL") != "1" and os.environ.get("SUITE_HEALTH") != "0":
        health = health_check(bin_dir)
        print("health: " + health, flush=True)
    rows, dev_rows = [], []
    # In SUITE_ONLY's order when given (what matters most first, in case the
    # device call runs out of time).
    todo = [(n, a) for n, a in BENCHMARKS if not only or n in only]
    if only:
        todo.sort(key=lambda b: only.index(b[0]))
    for name, args in todo:
        if os.environ.get("SUITE_SMALL") == "1":
            args = SMALL[name]
        # Interleaved: each round runs every configuration once, so that a
        # drift of the machine (clocks, other tenants) moves all of them
        # alike and the ratios stay side by side; round 0 is the warm-up.
        runs = {label: dict(times=[], ok=True, last=None, fail_tail=[])
                for label, *_ in cfgs}
        for r in range(reps + 1):
            for label, devices, schedule, co, _ in cfgs:
                # omp:N needs the program built with --hce-offload.
                exe = os.path.join(offload_bin if "omp" in devices else bin_dir, name)
                keep = None
                if os.environ.get("SUITE_KEEP_STATS"):
                    os.makedirs(os.environ["SUITE_KEEP_STATS"], exist_ok=True)
                    keep = os.path.join(os.environ["SUITE_KEEP_STATS"], "%s-%s-%d.json" % (
                        name, label.replace(" ", "_"), r))
                ok, res = run_once(exe, args, devices, schedule, co, keep)
                st = runs[label]
                if st["ok"] and not ok:
                    st["fail_tail"] = res["tail"]  # the first failure is reported
                st["ok"] = st["ok"] and ok
                st["last"] = res
                if r > 0:
                    st["times"].append(res["wall"])
        for label, devices, schedule, co, members in cfgs:
            st = runs[label]
            times, ok_all, last, fail_tail = st["times"], st["ok"], st["last"], st["fail_tail"]
            med = statistics.median(times) if times else float("nan")
            paired = paired_ratio(runs, members, times)
            total = sum(d["iterations"] for d in last["devices"].values()) or 1
            gpu_share = sum(d["iterations"] for k, d in last["devices"].items()
                            if not k.startswith("cpu")) / total
            rows.append(dict(benchmark=name, config=label, devices=devices, schedule=schedule,
                             co=co or "on", median_s=med,
                             min_s=min(times) if times else float("nan"),
                             max_s=max(times) if times else float("nan"), reps=len(times),
                             bytes_moved=last["moved"], bytes_peer=last["peer"],
                             balance=last["balance"], accel_share=gpu_share, verified=ok_all,
                             left_out=" ".join(last.get("left_out", [])),
                             paired_vs_best=paired,
                             times_s=" ".join(f"{t:.6f}" for t in times)))
            for dev, d in last["devices"].items():
                dev_rows.append(dict(benchmark=name, config=label, device=dev,
                                     iterations=d["iterations"], finish_s=d.get("finish", 0.0)))
            print(f"{name:13s} {label:15s} {med:9.4f} s  moved {last['moved']/1e9:8.3f} GB  "
                  f"accel {gpu_share*100:5.1f}%  bal {last['balance']:.2f}  "
                  f"{'ok' if ok_all else 'FAILED ' + ' | '.join(fail_tail)}"
                  + (f"  left out: {' '.join(last['left_out'])}" if last.get("left_out") else ""),
                  flush=True)
        # Written after every benchmark: a call cut at its time limit keeps
        # what it measured.
        write_csv(rows, os.path.join(out, "suite.csv"))
    if not rows:
        print("no benchmark ran")
        return 1
    write_csv(dev_rows, os.path.join(out, "suite-devices.csv"))
    write_markdown(rows, cfgs, os.path.join(out, "suite.md"), health)
    print(open(os.path.join(out, "suite.md")).read())
    return 0 if all(x["verified"] for x in rows) else 1


def paired_ratio(runs, members, times):
    """The median over rounds of (best single device's time in that round /
    this configuration's time in that round); the best single device is the
    member with the lowest median.  Each round runs every configuration once,
    back to back, so a drift of the machine between rounds (the H100's gpu
    column moved 0.20-0.32 s on lud within one call) cancels in the ratio,
    which a ratio of medians taken over different rounds does not.  NaN for
    a single device, or when a member has no times."""
    if not members or not times:
        return float("nan")
    singles = {m: runs[m]["times"] for m in set(members) if m in runs}
    if len(singles) != len(set(members)) or not all(
            len(t) == len(times) for t in singles.values()):
        return float("nan")
    best = min(singles, key=lambda m: statistics.median(singles[m]))
    return statistics.median(b / t for b, t in zip(singles[best], times) if t > 0)


def efficiency(r, label, members):
    """EngineCL's S_real / S_max for configuration `label` of one benchmark."""
    singles = [r[m]["median_s"] for m in members if m in r]
    if len(singles) != len(members) or label not in r:
        return float("nan")
    best = min(singles)
    s_max = sum(1.0 / t for t in singles) * best
    s_real = best / r[label]["median_s"]
    return s_real / s_max


def write_markdown(rows, cfgs, path, health=None):
    labels = [c[0] for c in cfgs]
    members = {c[0]: c[4] for c in cfgs}
    with open(path, "w") as f:
        if health:
            f.write(f"Health check: {health}.\n\n")
        f.write("Median region time [s] per configuration; last columns: best co-execution "
                "on CPU+1 GPU over the best single device, its efficiency (S_real/S_max)")
        two = "2gpu fdets" in labels
        f.write(", and 2 GPUs over 1 GPU.\n\n" if two else ".\n\n")
        f.write("| benchmark | " + " | ".join(labels) + " | co/best single | paired |"
                " efficiency |" + (" 2 GPUs / 1 GPU |" if two else "") + "\n")
        f.write("|---" * (len(labels) + 4 + two) + "|\n")
        for name, _ in BENCHMARKS:
            r = {x["config"]: x for x in rows if x["benchmark"] == name}
            if "cpu" not in r or "gpu" not in r:
                continue
            best_single = min(r["cpu"]["median_s"], r["gpu"]["median_s"])
            co1 = [k for k in r if members.get(k) == ["cpu", "gpu"]]
            best_co = min(co1, key=lambda k: r[k]["median_s"])
            cells = [f"{r[l]['median_s']:.4f}" + ("" if r[l]["verified"] else " ✗")
                     if l in r else "" for l in labels]
            line = (f"| {name} | " + " | ".join(cells) +
                    f" | {best_single / r[best_co]['median_s']:.2f}× ({best_co}) |"
                    f" {r[best_co]['paired_vs_best']:.2f}× |"
                    f" {efficiency(r, best_co, ['cpu', 'gpu']):.2f} |")
            if two and any(k in r for k in ("2gpu static", "2gpu fdets")):
                two_best = min((k for k in ("2gpu static", "2gpu fdets") if k in r),
                               key=lambda k: r[k]["median_s"])
                line += f" {r['gpu']['median_s'] / r[two_best]['median_s']:.2f}× |"
            f.write(line + "\n")


if __name__ == "__main__":
    sys.exit(main())
