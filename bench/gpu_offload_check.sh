#!/usr/bin/env bash
# The omp:N check on the GPU machine, in one device call (about 5 minutes;
# CHECK_SECONDS bounds the scheduler matrix).  Build and stage here first:
#   scripts/build-gpu.sh && scripts/stage-suite.sh        (carry .carry)
# then on the GPU machine:
#   bash bench/gpu_offload_check.sh
#
#  1. JIT: the time libomptarget takes to load an nvptx64 IR image onto the
#     GPU (the JIT compile) when omp:0 is created, three processes, read from
#     the runtime's "omp:0 ready in X s" notice; one run with
#     LIBOMPTARGET_INFO=-1 shows that the CUDA plugin ran the kernel.
#  2. Timing: every example on omp:0 and on cuda:0 alone (the same
#     --hce-offload binary), region time from HCE_STATS, best of TIME_REPS.
#  3. Matrix: every example x every scheduler on cpu,omp:0 and
#     cpu,cuda:0,omp:0 (bench/gpu_matrix.py); beside it hce_omp_tests.
# Every run must verify its result AND every device it names must have done
# work (bench/stats_check.py): a run where omp:0 was dropped and the CPU did
# everything is a FAILURE.  Prints a short table; $OUT (default
# /tmp/hce-offload-check) gets six files: summary.txt, omp.log, timing.csv,
# matrix-matrix.csv, matrix-matrix.md, failures.log.  Exit 0 when all passed.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
c="${HCE_SUITE:-$root/.carry/suite}"
export OUT="${OUT:-/tmp/hce-offload-check}"
mkdir -p "$OUT"
start=$(date +%s)
summary="$OUT/summary.txt" omplog="$OUT/omp.log" fails="$OUT/failures.log"
: >"$summary"
: >"$omplog"
: >"$fails"
say() { echo "$*" | tee -a "$summary"; }
failed() { echo "FAILED: $*" | tee -a "$fails" "$summary"; }
elapsed() { echo $(($(date +%s) - start)); }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; } # from, to

# ---- set-up -----------------------------------------------------------------
if [ ! -x "$c/bin-offload/matadd" ]; then
  failed "no $c/bin-offload/matadd: run scripts/build-gpu.sh and scripts/stage-suite.sh here and carry .carry"
  exit 2
fi
export LD_LIBRARY_PATH="$c/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! bash "$c/offload-lib/unpack.sh" /tmp/hce-offload-lib >>"$omplog" 2>&1; then
  failed "unpacking libomptarget/libLLVM (offload-lib/unpack.sh; see omp.log)"
  exit 2
fi
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/tmp/hce-offload-lib"
export PATH="$PATH:/usr/local/cuda/bin" # ptxas, run by libomptarget after the JIT
export OMP_TARGET_OFFLOAD=MANDATORY    # a failed launch is an error, never a host run
if ! ldd "$c/bin-offload/matadd" | grep 'libomptarget.*=> /' >/dev/null; then
  failed "bin-offload/matadd is not linked with libomptarget (was clang-tools-19 installed when it was built?)"
  ldd "$c/bin-offload/matadd" >>"$omplog" 2>&1
fi
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
  echo "cores: $(nproc); date: $(date -u '+%F %T'); ptxas: $(command -v ptxas || echo none)"
} | tee -a "$summary"

# ---- 1. first-launch JIT cost ---------------------------------------------------
say "== 1. omp:0 first launch (libomptarget loads the IR image: JIT + ptxas)"
jit_run() { # label, extra env...
  local label="$1" t0 t1 rc err
  shift
  t0=$(date +%s.%N)
  err="$(env "$@" HCE_DEVICES=omp:0 HCE_STATS=1 timeout 120 "$c/bin-offload/matadd" 513 257 2>&1 >/dev/null)"
  rc=$?
  t1=$(date +%s.%N)
  printf '%s\n%s\n' "--- $label (rc $rc)" "$err" >>"$omplog"
  local ready
  ready="$(grep -ao 'omp:0 ready in [0-9.]* s' <<<"$err" | grep -o '[0-9.]* s' || true)"
  if [ "$rc" -ne 0 ] || [ -z "$ready" ]; then
    failed "JIT run '$label': rc $rc, no 'omp:0 ready' notice ($(grep -a -m2 -iE 'error|fatal|fail|note' <<<"$err" | tr '\n' ' '))"
  fi
  say "$(printf '  %-28s image load %-10s process %s s' "$label" "${ready:-?}" \
    "$(seconds "$t0" "$t1")")"
}
jit_run "first process"
jit_run "second process"
jit_run "third process"
jit_run "LIBOMPTARGET_JIT_OPT_LEVEL=1" LIBOMPTARGET_JIT_OPT_LEVEL=1
t0=$(date +%s.%N)
HCE_DEVICES=cuda:0 timeout 60 "$c/bin-offload/matadd" 513 257 >/dev/null 2>&1
say "$(printf '  %-28s %-21s process %s s' "cuda:0, same program" "" "$(seconds "$t0" "$(date +%s.%N)")")"
{
  echo "--- LIBOMPTARGET_INFO=-1 HCE_DEVICES=omp:0 matadd 65 33 (plugin, device, launches)"
  LIBOMPTARGET_INFO=-1 HCE_DEVICES=omp:0 timeout 120 "$c/bin-offload/matadd" 65 33 2>&1 |
    grep -aiE 'cuda|device|launch|kernel|jit|verified|error' | head -40
} >>"$omplog"

# ---- 2. omp:0 against cuda:0, each alone ------------------------------------------
say "== 2. each example alone on cuda:0 and on omp:0 (region time, best of ${TIME_REPS:-2})"
HCE_ROOT="$root" python3 - "$c/bin-offload" "$OUT/timing.csv" "${TIME_REPS:-2}" <<'PY' 2>&1 | tee -a "$summary"
import csv, json, os, subprocess, sys, tempfile
sys.path.insert(0, os.path.join(os.environ.get("HCE_ROOT", "."), "bench"))
from stats_check import problems  # noqa: E402
bin_dir, csv_path, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
# Mid-size inputs: long enough to time the GPU, short enough for 2 x reps
# processes per example (each also verifies on the CPU).
SIZES = [("matadd", "4096 4096"), ("blackscholes", "4194304"), ("gemm", "1024 1024 1024"),
         ("jacobi2d", "2048 20"), ("heat3d", "128 10"), ("fdtd2d", "1024 1024 10"),
         ("nbody", "8192 2"), ("kmeans", "1048576 16 16 5"), ("mcpi", "100000000"),
         ("cg", "1048576 4 10"), ("bfs", "1048576 8"), ("lud", "256"),
         ("taskgraph", "200001 65 3 2")]
rows = []
for name, args in SIZES:
    exe = os.path.join(bin_dir, name)
    if not os.path.exists(exe):
        continue
    for dev in ("cuda:0", "omp:0"):
        best, why = None, ""
        for _ in range(reps):
            fd, stats = tempfile.mkstemp(suffix=".json"); os.close(fd); os.remove(stats)
            env = dict(os.environ, HCE_DEVICES=dev, HCE_STATS=stats, HCE_SCHEDULE="static")
            try:
                p = subprocess.run([exe] + args.split(), env=env, capture_output=True,
                                   text=True, errors="replace", timeout=90)
                out, err, rc = p.stdout, p.stderr, p.returncode
            except subprocess.TimeoutExpired:
                out, err, rc = "", "timed out after 90 s", 124
            try:
                data = json.load(open(stats))
            except (OSError, ValueError):
                data = {"regions": []}
            if os.path.exists(stats):
                os.remove(stats)
            bad = [] if rc == 0 and "verified against sequential" in out else \
                [f"rc {rc}: " + " | ".join(out.strip().splitlines()[-1:] + err.strip().splitlines()[-2:])]
            bad = bad or [p + " | " + " ".join(l for l in err.splitlines()
                                               if l.startswith("hce: "))[:200]
                          for p in problems(data, dev)]
            if bad:
                why = bad[0]
                break
            t = sum(r["wall_seconds"] for r in data["regions"])
            moved = sum(d["bytes_to_device"] + d["bytes_from_device"]
                        for r in data["regions"] for d in r["devices"])
            best = t if best is None or t < best else best
        rows.append(dict(example=name, args=args, device=dev, ok=not why,
                         region_s=round(best, 6) if best is not None and not why else "",
                         bytes_moved=moved if not why else "", detail=why))
        if why:
            print(f"FAILED {name} HCE_DEVICES={dev}: {why}", flush=True)
with open(csv_path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["example"])
    w.writeheader(); w.writerows(rows)
print(f"| example | cuda:0 s | omp:0 s | omp/cuda |\n|---|---|---|---|")
for name, _ in SIZES:
    r = {x["device"]: x for x in rows if x["example"] == name}
    if not r:
        continue
    cell = lambda d: (f"{r[d]['region_s']:.4f}" if r.get(d, {}).get("ok") else "FAILED")
    ratio = (f"{r['omp:0']['region_s'] / r['cuda:0']['region_s']:.2f}"
             if all(r.get(d, {}).get("ok") for d in ("cuda:0", "omp:0"))
             and r["cuda:0"]["region_s"] > 0 else "-")
    print(f"| {name} | {cell('cuda:0')} | {cell('omp:0')} | {ratio} |")
good = sum(x["ok"] for x in rows)
print(f"timing: {good}/{len(rows)} runs verified with the named device working")
sys.exit(0 if rows and good == len(rows) else 1)
PY
[ "${PIPESTATUS[0]}" -eq 0 ] || failed "timing (see the FAILED lines above)"
grep '^FAILED ' "$summary" | grep -v '^FAILED: ' >>"$fails" || true

# ---- 3. every scheduler on cpu,omp:0 and cpu,cuda:0,omp:0 ---------------------------
say "== 3. every example x scheduler on cpu,omp:0 and cpu,cuda:0,omp:0 ($(elapsed) s so far)"
if [ -x "$c/bin-offload/hce_omp_tests" ]; then # beside the matrix, not beside the timing
  (OMP_NUM_THREADS=4 timeout "${OMP_TEST_SECONDS:-120}" "$c/bin-offload/hce_omp_tests" \
    >/tmp/hce-omp-tests.log 2>&1; echo "exit $?" >>/tmp/hce-omp-tests.log) &
  tests_pid=$!
fi
MATRIX_DEVSETS="cpu,omp:0;cpu,cuda:0,omp:0" MATRIX_PARTS=matrix \
  MATRIX_OFFLOAD_BIN="$c/bin-offload" MATRIX_JOBS="${MATRIX_JOBS:-6}" MATRIX_RUN_TIMEOUT=60 \
  MATRIX_DEADLINE=$((start + ${CHECK_SECONDS:-400})) PYTHONUNBUFFERED=1 \
  python3 "$root/bench/gpu_matrix.py" "$c/bin" >/tmp/hce-matrix.out 2>&1
matrix_rc=$?
grep -a '^FAILED ' /tmp/hce-matrix.out >>"$fails"
grep -avE '^FAILED |^compute-sanitizer' /tmp/hce-matrix.out | grep -av '^$' | tee -a "$summary"
[ "$matrix_rc" -eq 0 ] || failed "matrix: $(grep -c '^FAILED ' /tmp/hce-matrix.out) runs failed (failures.log)"
if [ -n "${tests_pid:-}" ]; then
  wait "$tests_pid"
  {
    echo "--- hce_omp_tests (nvptx64)"
    grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran|^exit ' /tmp/hce-omp-tests.log
  } >>"$omplog"
  say "hce_omp_tests: $(grep -E 'tests ran|^exit ' /tmp/hce-omp-tests.log | tr '\n' ' ')"
  grep -q '^exit 0$' /tmp/hce-omp-tests.log ||
    failed "hce_omp_tests ($(grep -c '^\[  FAILED  \] [A-Z]' /tmp/hce-omp-tests.log) failed; omp.log)"
fi

# ---- summary -------------------------------------------------------------------
n=$(grep -c . "$fails")
say "== done in $(elapsed) s: $([ "$n" -eq 0 ] && echo 'all passed' || echo "$n failure lines (failures.log)")"
[ "$n" -eq 0 ] || head -20 "$fails"
exit $((n > 0))
