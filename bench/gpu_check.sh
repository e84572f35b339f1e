#!/usr/bin/env bash
# One call on the GPU machine: checks and times the CUDA backend.  Build here
# first (scripts/build-gpu.sh, scripts/stage-suite.sh), carry .carry, then run
#   bash bench/gpu_check.sh            (writes logs under $OUT when set)
# It runs the CUDA-enabled runtime tests (correctness on the GPU), a generated
# kernel that only a GPU can check (stores_once, on cuda:0 alone), and the
# transfer / pipeline / overhead benchmark, and prints short tables.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
b="$root/.carry/suite"
out="${OUT:-/tmp/hce-gpu}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
echo "cores: $(nproc); date: $(date -u +%F)" | tee -a "$out/device.txt"
echo "== runtime tests on the GPU"
"$b/bin/hce_runtime_tests" --gtest_filter='Cuda*:Region*:DataRegion*:Pipeline*' \
  >"$out/tests.log" 2>&1
rc=$?
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/tests.log"
echo "== generated kernels on the GPU alone"
# tests/lit/cuda_kernel_rows_stores_once.c (stage-suite.sh's bin/stores_once):
# a rows kernel whose stores run between barriers; 70001 rows pass one grid.
for a in "37 23" "300 70001"; do
  if HCE_DEVICES=cuda:0 HCE_PROFILE=off HCE_STATS="$out/stores_once.json" \
    "$b/bin/stores_once" $a >"$out/stores_once.log" 2>&1 &&
    python3 "$root/bench/stats_check.py" cuda:0 "$out/stores_once.json"; then
    echo "stores_once $a: ok, on cuda:0"
  else
    echo "stores_once $a: FAILED"; cat "$out/stores_once.log"; rc=1
  fi
done
echo "== benchmark"
"$b/bin/hce_bench_cuda_pipeline" "${ROWS:-8192}" "${COLS:-8192}" "${REPS:-5}" 2>&1 | tee "$out/bench.md"
exit $rc
