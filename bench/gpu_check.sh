#!/usr/bin/env bash
# One call on the GPU machine: checks and times the CUDA backend.  Build here
# first (scripts/build-gpu.sh, scripts/stage-suite.sh), carry .carry, then run
#   bash bench/gpu_check.sh            (writes logs under $OUT when set)
# It runs the CUDA-enabled runtime tests (correctness on the GPU), a generated
# kernels that only a GPU can check (stores_once, rows_reduce, on cuda:0 alone), and the
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
# a rows kernel whose stores run between barriers; and
# tests/lit/cuda_kernel_rows_reduce.c (bin/rows_reduce): row reductions
# combined in the block, statements after the inner loop by thread 0, a
# warp per CSR row.  70001 rows pass one grid.
for p in "stores_once:37 23" "stores_once:300 70001" "rows_reduce:300 23 37" \
  "rows_reduce:700 70001 45"; do
  prog=${p%%:*} a=${p#*:}
  if HCE_DEVICES=cuda:0 HCE_PROFILE=off HCE_STATS="$out/$prog.json" \
    "$b/bin/$prog" $a >"$out/$prog.log" 2>&1 &&
    python3 "$root/bench/stats_check.py" cuda:0 "$out/$prog.json"; then
    echo "$prog $a: ok, on cuda:0"
  else
    echo "$prog $a: FAILED"; cat "$out/$prog.log"; rc=1
  fi
done
echo "== benchmark"
"$b/bin/hce_bench_cuda_pipeline" "${ROWS:-8192}" "${COLS:-8192}" "${REPS:-5}" 2>&1 | tee "$out/bench.md"
exit $rc
