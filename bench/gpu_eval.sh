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
if [ -f "$root/.carry/offload/env.sh" ]; then
  # shellcheck disable=SC1091
  . "$root/.carry/offload/env.sh" && export HCE_OMP_OK=1
fi
part="${1:-check}"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  echo "cores: $(nproc); date: $(date -u +%F); part: $part; omp: ${HCE_OMP_OK:-0}"
} | tee "$OUT/device.txt"
rc=0
case "$part" in
check)
  nvidia-smi topo -m 2>&1 | head -12 | tee -a "$OUT/device.txt"
  echo "== runtime tests on the GPU(s)"
  "$c/bin/hce_runtime_tests" --gtest_filter='Cuda*:Region*:DataRegion*:Pipeline*' \
    >"$OUT/tests.log" 2>&1 || rc=1
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran' "$OUT/tests.log"
  if [ -x "$c/bin/hce_omp_tests" ] && [ "${HCE_OMP_OK:-0}" = 1 ]; then
    echo "== omp:N tests"
    "$c/bin/hce_omp_tests" >"$OUT/omp-tests.log" 2>&1 || rc=1
    grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran' "$OUT/omp-tests.log"
  fi
  echo "== per-chunk overhead (Google Benchmark)"
  "$c/bin/hce_bench_chunk_overhead" \
    --benchmark_filter='BM_CoExecChunkScaling|BM_CoExecChunk/split|BM_SchedulerChunk' \
    2>&1 | grep -E 'BM_|per_chunk' | tee "$OUT/overhead.txt" | tail -30
  echo "== correctness matrix"
  PYTHONUNBUFFERED=1 python3 "$root/bench/gpu_matrix.py" "$c/bin" || rc=1
  ;;
suite) PYTHONUNBUFFERED=1 python3 "$root/bench/suite.py" "$c/bin" "${REPS:-5}" || rc=1 ;;
sens) PYTHONUNBUFFERED=1 python3 "$root/bench/sensitivity.py" "$c/bin" "${REPS:-5}" || rc=1 ;;
*) echo "unknown part '$part' (check, suite, sens)"; exit 2 ;;
esac
exit $rc
