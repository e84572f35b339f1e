#!/usr/bin/env bash
# The evaluation on the GPU machine, one part per device call (each well
# under the 10-minute limit).  Build and stage here first:
#   scripts/build-gpu.sh && scripts/stage-suite.sh      (then carry .carry)
# and on the GPU machine:
#   bash bench/gpu_eval.sh check            tests on the GPU(s), per-chunk overhead,
#                                           correctness matrix, compute-sanitizer
#   SUITE_ONLY=matadd,gemm bash bench/gpu_eval.sh suite   timed suite (bench/suite.py)
#   bash bench/gpu_eval.sh sens             chunk / alpha sensitivity
# Logs and CSVs go to $OUT (or /tmp/hce-eval).  OpenMP offload (omp:N) is
# included when .carry/offload holds the staged libomptarget
# (scripts/stage-offload.sh).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
c="$root/.carry/suite"
export OUT="${OUT:-/tmp/hce-eval}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$c/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# OpenMP offload: libomptarget and libLLVM staged by scripts/stage-offload.sh.
if [ -f "$c/offload-lib/unpack.sh" ] &&
  bash "$c/offload-lib/unpack.sh" /tmp/hce-offload-lib >/dev/null; then
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/tmp/hce-offload-lib" HCE_OMP_OK=1
  export OMP_TARGET_OFFLOAD=MANDATORY # never a silent host fallback
fi
part="${1:-check}"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  echo "cores: $(nproc); date: $(date -u +%F); part: $part; omp: ${HCE_OMP_OK:-0}"
} | tee "$OUT/device.txt"
rc=0
# Each stage says when it starts (seconds since the start), so that a long
# run shows where it is.
t0=$(date +%s)
stage() { echo "== [$(($(date +%s) - t0)) s] $*"; }
case "$part" in
check)
  # Everything in one call, most important first; EVAL_SECONDS bounds it.
  end=$(($(date +%s) + ${EVAL_SECONDS:-420}))
  nvidia-smi topo -m 2>&1 | head -12 | tee -a "$OUT/device.txt"
  # compute-sanitizer (slow, four runs) beside the tests.
  # (the device tool returns at most 8 files: full logs stay in /tmp there)
  MATRIX_PARTS=sanitizer MATRIX_SANITIZER_TIMEOUT="${SANITIZER_SECONDS:-90}" \
    MATRIX_LOG_DIR=/tmp/hce-sanitizer-logs \
    python3 "$root/bench/gpu_matrix.py" "$c/bin" >"$OUT/sanitizer.txt" 2>&1 &
  san_pid=$!
  stage "runtime tests on the GPU(s)"
  timeout "${TEST_SECONDS:-90}" "$c/bin/hce_runtime_tests" \
    --gtest_filter="${TEST_FILTER:-Cuda*:DataRegion.Halo*}" >"$OUT/tests.log" 2>&1 || rc=1
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran' "$OUT/tests.log"
  if [ "${HCE_OMP_OK:-0}" = 1 ] && [ -x "$c/bin-offload/hce_omp_tests" ]; then
    stage "omp:N tests (nvptx64)"
    timeout "${OMP_TEST_SECONDS:-60}" "$c/bin-offload/hce_omp_tests" >"$OUT/omp-tests.log" 2>&1 || rc=1
    grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran' "$OUT/omp-tests.log"
  fi
  stage "correctness matrix"
  MATRIX_PARTS=matrix MATRIX_DEADLINE=$((end - 20)) MATRIX_OFFLOAD_BIN="$c/bin-offload" \
    MATRIX_JOBS="${MATRIX_JOBS:-12}" PYTHONUNBUFFERED=1 \
    python3 "$root/bench/gpu_matrix.py" "$c/bin" || rc=1
  stage "compute-sanitizer"
  wait "$san_pid" || rc=1
  grep -E "compute-sanitizer|sanitizer" "$OUT/sanitizer.txt" | tail -6
  if [ "$(date +%s)" -lt "$((end - 15))" ]; then
    stage "per-chunk overhead (Google Benchmark)"
    timeout 15 "$c/bin/hce_bench_chunk_overhead" \
      --benchmark_filter='BM_CoExecChunkScaling|BM_SchedulerChunk/(fdets|adets|hguided)/p2' \
      2>&1 | grep -E 'BM_|per_chunk' | tail -12
  fi
  ;;
suite) PYTHONUNBUFFERED=1 python3 "$root/bench/suite.py" "$c/bin" "${REPS:-5}" || rc=1 ;;
sens) PYTHONUNBUFFERED=1 python3 "$root/bench/sensitivity.py" "$c/bin" "${REPS:-5}" || rc=1 ;;
*) echo "unknown part '$part' (check, suite, sens)"; exit 2 ;;
esac
exit $rc
