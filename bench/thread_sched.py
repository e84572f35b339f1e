#!/usr/bin/env python3
"""Who waited for a core: per-thread run and run-queue wait times of a command.

    python3 bench/thread_sched.py [--every S] -- CMD [ARGS...]
    python3 bench/thread_sched.py --self-test

Runs CMD and samples /proc/PID/task/*/schedstat (nanoseconds run, nanoseconds
waited on a run queue, time slices), the thread's name and its involuntary
context switches every S seconds (default 0.02; the values are cumulative, so
a thread's last sample stands for its life up to then).  Prints one line per
thread, the threads that waited longest first, then the machine's other
processes that took the most CPU time over the run (/proc/*/stat) -- the
evidence for or against "a team thread waited for a core another thread
held" (the CPU chunks stalled 3-6 ms beside a working GPU, docs/benchmarks.md).
CMD's exit status is this script's.
"""
import argparse
import os
import subprocess
import sys
import time


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def thread_sample(pid, tid):
    base = "/proc/%d/task/%s/" % (pid, tid)
    sched, comm, status = read(base + "schedstat"), read(base + "comm"), read(base + "status")
    if sched is None or comm is None or status is None:
        return None
    run, wait, slices = (int(x) for x in sched.split()[:3])
    invol = 0
    for line in status.splitlines():
        if line.startswith("nonvoluntary_ctxt_switches"):
            invol = int(line.split()[1])
    return {"comm": comm.strip(), "run": run, "wait": wait, "slices": slices, "invol": invol}


def process_times():
    """pid -> (comm, utime + stime in clock ticks) of every process now."""
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        s = read("/proc/%s/stat" % p)
        if not s:
            continue
        r = s.rfind(")")
        fields = s[r + 2:].split()
        out[int(p)] = (s[s.find("(") + 1:r], int(fields[11]) + int(fields[12]))
    return out


def machine_wait():
    """Sum over CPUs of (ns running, ns waited on a run queue) (/proc/schedstat)."""
    text = read("/proc/schedstat")
    if text is None:
        return None
    run = wait = 0
    for line in text.splitlines():
        if line.startswith("cpu"):
            f = line.split()
            run += int(f[7])
            wait += int(f[8])
    return run, wait


def self_test():
    """A child with two threads that each spin until they have run 0.2 s of
    CPU time (whatever the machine's load) and exits 3: both are listed with
    their run time, and the exit status comes through."""
    code = ("import sys, threading, time\n"
            "def spin():\n"
            "    while time.thread_time() < 0.2: pass\n"
            "ts = [threading.Thread(target=spin) for _ in range(2)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\n"
            "sys.exit(3)\n")
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--every", "0.01", "--",
                        sys.executable, "-c", code], capture_output=True, text=True)
    rows = [l for l in p.stdout.splitlines()[2:] if l.startswith("  ") and "other" not in l]
    busy = [l for l in rows if float(l.split()[-4]) >= 100]
    ok = p.returncode == 3 and p.stdout.startswith("thread_sched: python") and len(busy) >= 2
    print("thread_sched self-test: " + ("ok" if ok else "FAILED\n" + p.stdout + p.stderr))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=float, default=0.02)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    before = process_times()
    m0 = machine_wait()
    t0 = time.monotonic()
    child = subprocess.Popen(cmd)
    last = {}
    while child.poll() is None:
        try:
            tids = os.listdir("/proc/%d/task" % child.pid)
        except OSError:
            break
        for tid in tids:
            s = thread_sample(child.pid, tid)
            if s:
                last[tid] = s
        time.sleep(a.every)
    rc = child.wait()
    wall = time.monotonic() - t0
    m1 = machine_wait()
    after = process_times()
    hz = os.sysconf("SC_CLK_TCK")
    rows = sorted(last.items(), key=lambda kv: -kv[1]["wait"])
    total_wait = sum(s["wait"] for s in last.values())
    machine = ("machine: %.1f ms waited over %.1f ms run" % ((m1[1] - m0[1]) / 1e6, (m1[0] - m0[0]) / 1e6)
               if m0 and m1 else "no /proc/schedstat")
    print("thread_sched: %s: %.2f s, %d threads, run-queue wait %.1f ms in all (%s)"
          % (os.path.basename(cmd[0]), wall, len(last), total_wait / 1e6, machine))
    print("  %-8s %-16s %9s %9s %7s %6s" % ("tid", "name", "run ms", "wait ms", "slices", "invol"))
    for tid, s in rows:
        if s["wait"] < 0.05e6 and s["run"] < 1e6:
            continue
        print("  %-8s %-16s %9.1f %9.2f %7d %6d"
              % (tid, s["comm"][:16], s["run"] / 1e6, s["wait"] / 1e6, s["slices"], s["invol"]))
    others = []
    for pid, (comm, t) in after.items():
        if pid in (child.pid, os.getpid()):
            continue
        d = t - before.get(pid, (comm, 0))[1]
        if d > 0:
            others.append((d, pid, comm))
    others.sort(reverse=True)
    print("  other processes' CPU time over the run: " + (", ".join(
        "%s[%d] %.0f ms" % (c, p, 1e3 * d / hz) for d, p, c in others[:6]) or "none"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
