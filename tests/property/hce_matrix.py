"""What the translated-program matrices share: the names they iterate over
(read from the sources, so that a new scheduler or fault kind is tested
without editing a list here), one run of a program with its verdict, and
the did-work check of bench/stats_check.py.

A run passes when the program printed "verified" and exited 0 and every
named device did work (or eft left it out, reported in HCE_STATS), or when
it stopped with a clear `hce: error` and a non-zero status.  Anything else
fails: a wrong answer (whatever the status), a crash or a silent non-zero
status, a hang, a device named but unused.
"""
import importlib.util
import os
import re
import subprocess
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def _stats_check():
    path = os.path.join(ROOT, "bench", "stats_check.py")
    spec = importlib.util.spec_from_file_location("stats_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


stats_check = _stats_check()


def scheduler_names():
    """Every HCE_NAME_SCHEDULER(name) of runtime/include/hce/names.def."""
    with open(os.path.join(ROOT, "runtime", "include", "hce", "names.def")) as f:
        return re.findall(r"^HCE_NAME_SCHEDULER\((\w+)\)", f.read(), re.M)


def fault_kinds():
    """Every fault key HCE_SIM accepts (fail_compute, ...), as parsed by
    runtime/src/sim_device.cpp."""
    with open(os.path.join(ROOT, "runtime", "src", "sim_device.cpp")) as f:
        return sorted(set(re.findall(r'key == "(fail_\w+)"', f.read())))


class Verdict:
    """The outcome of one run: ok, and a one-line reason when not ok (or
    when it was a clear error)."""

    def __init__(self, ok, kind, reason=""):
        self.ok, self.kind, self.reason = ok, kind, reason


def base_env(devices, schedule, sim, stats):
    env = dict(os.environ)
    for var in list(env):  # nothing from the caller's HCE_* settings
        if var.startswith("HCE_"):
            del env[var]
    env.update(HCE_DEVICES=devices, HCE_SCHEDULE=schedule, HCE_SIM=sim, HCE_STATS=stats,
               HCE_MIN_SHARE="0", HCE_PROFILE="off", OMP_NUM_THREADS="2")
    return env


def hung_stacks(pid, per_thread=4):
    """The runtime's frames of every thread of a hung process (gdb, where
    installed): a hang in CI is then diagnosed from its log, not by
    reproducing a rare interleaving."""
    try:
        bt = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex",
                             "thread apply all bt"], capture_output=True, text=True,
                            timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    keep, in_thread = [], 0
    for line in bt.splitlines():
        if line.startswith("Thread "):
            keep.append(line.strip())
            in_thread = 0
        elif (line.startswith("#") and "hce::" in line and in_thread < per_thread
              and not any(w in line for w in ("std::__invoke", "std::thread::",
                                              "Controller::Controller"))):
            keep.append("  " + line.strip())
            in_thread += 1
    if not keep:
        return ""
    return "\n    where each thread waited (gdb):\n      " + "\n      ".join(
        line[:240] for line in keep)


def run_one(argv, devices, schedule, sim, timeout=60, extra_env=None, verified="verified",
            check_work=True, captured=None):
    """Runs argv with those settings and judges it (check_work: also the
    did-work rule).  `captured`, a dict, receives the run's stdout and
    stderr."""
    fd, stats = tempfile.mkstemp(prefix="hce-stats-", suffix=".json")
    os.close(fd)
    os.unlink(stats)
    env = base_env(devices, schedule, sim, stats)
    env.update(extra_env or {})
    try:
        p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stacks = hung_stacks(p.pid)
            p.kill()
            p.communicate()
            return Verdict(False, "hang", f"no exit within {timeout} s" + stacks)
        if captured is not None:
            captured.update(stdout=out, stderr=err)
        tail = (out + err).strip().splitlines()[-6:]
        if "FAILED" in out:
            return Verdict(False, "wrong", f"wrong answer, exit {p.returncode}: "
                           + " | ".join(line for line in out.splitlines() if "FAILED" in line))
        if p.returncode == 0 and verified in out:
            problems = stats_check.check_file(stats, devices) if check_work else []
            if problems:
                return Verdict(False, "unused", "; ".join(problems))
            return Verdict(True, "verified")
        if p.returncode > 0 and "hce: error" in err:
            line = next(l for l in err.splitlines() if "hce: error" in l)
            return Verdict(True, "error", line)
        return Verdict(False, "crash", f"exit {p.returncode} without 'verified' or "
                       "'hce: error': " + " | ".join(tail))
    finally:
        if os.path.exists(stats):
            os.unlink(stats)


def run_judged(argv, devices, schedule, sim, timeout=60, extra_env=None,
               verified="verified", tries=5):
    """run_one, repeated up to `tries` times while the only problem is a
    named device that did no work.  Whether a dynamic scheduler hands a
    device a chunk before the others have taken every iteration depends on
    thread start-up on a loaded machine (test sizes run for milliseconds);
    a device that never works in five runs is a failure.  A wrong answer,
    a crash or a hang fails at once."""
    for _ in range(tries):
        v = run_one(argv, devices, schedule, sim, timeout, extra_env, verified)
        if v.kind != "unused":
            return v
    return v


def reproduce(argv, devices, schedule, sim, extra_env=None):
    """The shell command that repeats a run."""
    env = {"HCE_DEVICES": devices, "HCE_SCHEDULE": schedule, "HCE_SIM": sim,
           "HCE_MIN_SHARE": "0", "HCE_PROFILE": "off", "OMP_NUM_THREADS": "2",
           "HCE_STATS": "stats.json"}
    env.update(extra_env or {})
    return " ".join(f"{k}='{v}'" for k, v in env.items()) + " " + " ".join(argv)
