#!/usr/bin/env python3
"""Build one corpus program with hce-cc and with plain `clang -fopenmp`, and
check that they agree (docs/testing.md, "The corpus").

  run mode:  the hce-cc build (no CUDA) runs under HCE_DEVICES=cpu and
             cpu,sim:0,sim:1 with every scheduler named in names.def
             (HCE_SCHEDULE); each run prints what the plain build printed
             (numbers within the program's CORPUS-TOLERANCE) and its
             HCE_STATS show that every named device did work (the rule of
             bench/stats_check.py).
  cuda mode: the hce-cc build with CUDA variants (nvcc): builds cleanly under
             -Werror (a loop without a CUDA variant is a warning), the kept
             .cu has a kernel per co_exec loop, and the program runs right on
             the CPU; on a machine with a GPU (nvidia-smi lists one) also
             under cpu,cuda with cuda's work checked.  Exit 77 (ctest SKIP)
             when there is no nvcc.
  omp mode:  the hce-cc build with OpenMP-offload variants for the host
             (--hce-offload-target=<host triple>: libomptarget's host plugin
             gives omp:N devices with memory of their own, no GPU needed)
             runs under cpu,omp:0 and omp:0 with the static scheduler, each
             printing what the plain build printed with omp:0's work
             checked.  Exit 77 when no offload target is given.

A program says how to run it in comment lines:
  CORPUS-ARGS: 600 128 4        its arguments (small sizes)
  CORPUS-CFLAGS: -Wno-...       flags for both builds
  CORPUS-TOLERANCE: 1e-12       relative, for every number it prints
                                (floating reductions); default: exact text
  CORPUS-GPU-TOLERANCE: 1e-9    the same for runs on a GPU (FMA contraction)
"""
import argparse
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys

SKIP = 77
DEVICE_SETS = ["cpu", "cpu,sim:0,sim:1"]
# Two accelerators faster than the CPU (speed divides the measured chunk
# time), so that every scheduler gives them work at test sizes; no transfer
# latency (a sleep of microseconds lasts far longer on a loaded machine).
SIM = "sim:0=speed:4,bw:1e11,lat:0;sim:1=speed:2,bw:2e10,lat:0"
# The did-work check depends on timing (a fast CPU may finish a short
# region before an accelerator's first chunk); the output is checked on
# every attempt, the did-work rule must hold on one of these.
ATTEMPTS = 5
BASE_FLAGS = ["-O2", "-Wall", "-Wextra", "-Werror"]


class Failure(Exception):
    pass


def metadata(source):
    """The CORPUS-* settings of a program."""
    meta = {"ARGS": "", "CFLAGS": "", "TOLERANCE": "0", "GPU-TOLERANCE": "1e-9"}
    with open(source) as f:
        for line in f:
            m = re.search(r"CORPUS-([A-Z-]+):(.*)$", line)
            if m:
                meta[m.group(1)] = m.group(2).strip().rstrip("*/").strip()
    return meta


def scheduler_names(names_def):
    with open(names_def) as f:
        names = re.findall(r"^HCE_NAME_SCHEDULER\((\w+)\)", f.read(), re.M)
    if not names:
        raise Failure(f"no HCE_NAME_SCHEDULER entries in {names_def}")
    return names


def load_stats_check(path):
    spec = importlib.util.spec_from_file_location("stats_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(cmd, env=None, what=""):
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise Failure(f"{what or cmd[0]}: no answer in 120 s\n  $ {shlex.join(cmd)}")
    except OSError as e:
        raise Failure(f"{what or cmd[0]}: cannot run: {e}")
    if p.returncode != 0:
        raise Failure(f"{what or cmd[0]} exited {p.returncode}\n  $ {shlex.join(cmd)}\n"
                      f"{p.stdout}{p.stderr}")
    return p


def same_output(got, want, tolerance):
    """None when got matches want, else the first difference.  Numbers are
    compared within the relative tolerance, the rest as text."""
    got_lines, want_lines = got.splitlines(), want.splitlines()
    if len(got_lines) != len(want_lines):
        return f"{len(got_lines)} lines, plain build printed {len(want_lines)}"
    for g, w in zip(got_lines, want_lines):
        if g == w:
            continue
        gt, wt = g.split(), w.split()
        if tolerance == 0 or len(gt) != len(wt):
            return f"'{g}' != plain '{w}'"
        for a, b in zip(gt, wt):
            if a == b:
                continue
            try:
                x, y = float(a), float(b)
            except ValueError:
                return f"'{g}' != plain '{w}'"
            if abs(x - y) > tolerance * max(abs(x), abs(y), 1e-300):
                return f"'{g}' != plain '{w}' (relative tolerance {tolerance:g})"
    return None


class Program:
    def __init__(self, opts):
        self.o = opts
        self.source = os.path.abspath(opts.source)
        self.name = os.path.splitext(os.path.basename(self.source))[0]
        self.meta = metadata(self.source)
        self.args = shlex.split(self.meta["ARGS"])
        self.cflags = shlex.split(self.meta["CFLAGS"])
        self.work = os.path.abspath(opts.work)
        self.stats = load_stats_check(opts.stats_check)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)

    def env(self, **extra):
        env = dict(os.environ, OMP_NUM_THREADS="2", HCE_PROFILE="off", HCE_MIN_SHARE="0")
        for k in ("HCE_DEVICES", "HCE_SCHEDULE", "HCE_SIM", "HCE_STATS", "HCE_CO",
                  "HCE_CHUNK", "HCE_TRACE"):
            env.pop(k, None)
        env.update(extra)
        return env

    def build_plain(self):
        exe = os.path.join(self.work, self.name + "-plain")
        run([self.o.cc, "-fopenmp", *BASE_FLAGS, "-Wno-unknown-pragmas", *self.cflags,
             self.source, "-o", exe, "-lm"], what="plain clang -fopenmp build")
        out = run([exe, *self.args], env=self.env(), what="plain build").stdout
        if not out.strip():
            raise Failure("the plain build printed nothing to compare")
        print(f"plain clang -fopenmp: {out.strip().splitlines()[0]} ...")
        return out

    def build_hce(self, cuda):
        exe = os.path.join(self.work, self.name + ("-cuda" if cuda else "-hce"))
        cmd = [self.o.hce_cc, *BASE_FLAGS, *self.cflags, self.source, "-o", exe, "-lm"]
        if cuda:
            cmd[1:1] = ["-v", "-save-temps"]
        else:
            cmd.insert(1, "--hce-no-cuda")
        p = run(cmd, what="hce-cc build")
        return exe, p.stderr

    def check_run(self, exe, devices, tolerance, want, schedule=None):
        """Runs exe on devices (with schedule); raises Failure on a wrong
        answer, an error, or (on every attempt) a named device that did no
        work."""
        label = f"HCE_DEVICES={devices}" + (f" HCE_SCHEDULE={schedule}" if schedule else "")
        stats_file = os.path.join(self.work, "stats.json")
        problems = []
        for attempt in range(1, ATTEMPTS + 1):
            if os.path.exists(stats_file):
                os.remove(stats_file)
            extra = dict(HCE_DEVICES=devices, HCE_STATS=stats_file, HCE_SIM=SIM)
            if schedule:
                extra["HCE_SCHEDULE"] = schedule
            env = self.env(**extra)
            cmd = [exe, *self.args]
            p = run(cmd, env=env, what=label)
            if "hce: error" in p.stderr:
                raise Failure(f"{label}: {p.stderr.strip()}")
            diff = same_output(p.stdout, want, tolerance)
            if diff:
                raise Failure(f"{label}: wrong output: {diff}\n  reproduce: "
                              f"{env_prefix(extra)} {shlex.join(cmd)}")
            problems = self.stats.check_file(stats_file, devices)
            if not problems:
                note = f" (attempt {attempt})" if attempt > 1 else ""
                print(f"ok   {label}{note}")
                return
        raise Failure(f"{label}: right output, but in {ATTEMPTS} runs: "
                      + "; ".join(problems) + f"\n  reproduce: {env_prefix(extra)} "
                      + shlex.join(cmd))

    def run_mode(self):
        schedulers = scheduler_names(self.o.names)
        want = self.build_plain()
        exe, _ = self.build_hce(cuda=False)
        tolerance = float(self.meta["TOLERANCE"])
        for devices in DEVICE_SETS:
            for s in schedulers:
                self.check_run(exe, devices, tolerance, want, schedule=s)
        print(f"{self.name}: hce-cc and clang -fopenmp agree on "
              f"{len(DEVICE_SETS) * len(schedulers)} runs")

    def cuda_mode(self):
        if not self.o.nvcc or not os.path.exists(self.o.nvcc):
            print(f"SKIP: no nvcc ('{self.o.nvcc}'): the CUDA variant of {self.name} "
                  "is compiled where nvcc exists")
            return SKIP
        want = self.build_plain()
        exe, log = self.build_hce(cuda=True)
        if "nvcc" not in log:
            raise Failure("hce-cc -v ran no nvcc:\n" + log)
        if "gets no CUDA" in log:
            raise Failure("a loop got no CUDA variant:\n" + log)
        kernels = 0
        for f in os.listdir(self.work):
            if f.endswith(".cu"):
                with open(os.path.join(self.work, f)) as cu:
                    kernels += len(set(re.findall(
                        r"__global__\s+void(?:\s+__launch_bounds__\(\d+\))?\s+(__hce_kernel_\d+)\(",
                        cu.read())))
        with open(self.source) as f:
            loops = len(re.findall(r"^\s*#\s*pragma\s+hce\s+co_exec\b", f.read(), re.M))
        if kernels < loops:
            raise Failure(f"{kernels} CUDA kernels for {loops} co_exec loops")
        print(f"ok   nvcc: {kernels} kernels for {loops} co_exec loops")
        self.check_run(exe, "cpu", float(self.meta["TOLERANCE"]), want)
        if self.o.gpu:
            tolerance = max(float(self.meta["TOLERANCE"]), float(self.meta["GPU-TOLERANCE"]))
            self.check_run(exe, "cpu,cuda", tolerance, want)
            self.check_run(exe, "cuda", tolerance, want)
        else:
            print("(no GPU here: the CUDA build ran on the CPU only)")
        return 0

    def omp_mode(self):
        if not self.o.offload_target:
            print(f"SKIP: no host offload target: the OpenMP-offload variant of "
                  f"{self.name} runs where clang can offload to the host")
            return SKIP
        want = self.build_plain()
        exe = os.path.join(self.work, self.name + "-omp")
        run([self.o.hce_cc, "--hce-no-cuda", f"--hce-offload-target={self.o.offload_target}",
             *BASE_FLAGS, *self.cflags, self.source, "-o", exe, "-lm"],
            what="hce-cc offload build")
        tolerance = float(self.meta["TOLERANCE"])
        for devices in ("cpu,omp:0", "omp:0"):
            self.check_run(exe, devices, tolerance, want, schedule="static")
        return 0


def env_prefix(extra):
    return " ".join(f"{k}={shlex.quote(v)}" for k, v in extra.items()
                    if k != "HCE_STATS") + " OMP_NUM_THREADS=2 HCE_MIN_SHARE=0 HCE_PROFILE=off"


def have_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    p = subprocess.run([smi, "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    return p.returncode == 0 and "GPU" in p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["run", "cuda", "omp"], default="run")
    ap.add_argument("--hce-cc", required=True)
    ap.add_argument("--cc", required=True, help="the plain compiler (clang-19)")
    ap.add_argument("--names", required=True, help="runtime/include/hce/names.def")
    ap.add_argument("--stats-check", required=True, help="bench/stats_check.py")
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--offload-target", default="",
                    help="host triple for --mode omp (empty: skip)")
    ap.add_argument("--work", required=True)
    ap.add_argument("source")
    opts = ap.parse_args()
    opts.gpu = opts.mode == "cuda" and have_gpu()
    try:
        prog = Program(opts)
        if opts.mode == "cuda":
            return prog.cuda_mode()
        if opts.mode == "omp":
            return prog.omp_mode()
        prog.run_mode()
        return 0
    except Failure as e:
        message = f"FAILED {os.path.basename(opts.source)}: {e}"
        print(message)
        # Kept with the build: ctest's LastTest.log is rewritten by the next run.
        with open(os.path.join(os.path.abspath(opts.work), "FAILED.txt"), "w") as f:
            f.write(message + "\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
