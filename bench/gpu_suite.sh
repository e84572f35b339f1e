#!/usr/bin/env bash
# Runs bench/suite.py on the GPU machine over examples built here with
# hce-cc (CUDA variants included) and carried in .carry/suite/{bin,lib}:
#   scripts/stage-suite.sh; then, on the GPU machine,
#   SUITE_ONLY=matadd,gemm REPS=5 bash bench/gpu_suite.sh
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LD_LIBRARY_PATH="$root/.carry/suite/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
echo "cores: $(nproc); date: $(date -u +%F)"
python3 "$root/bench/suite.py" "$root/.carry/suite/bin" "${REPS:-5}"
