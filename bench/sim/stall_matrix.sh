#!/usr/bin/env bash
# Warm auto against the CPU alone under a grid of CPU stalls (hce-sim
# --stall cpu:FROM:LEN:FACTOR), one benchmark from one profile cache: how
# far a stall of the machine's cores makes eft stray from the CPU alone
# (lud's lock-ins onto the GPU, docs/schedulers.md "stale winner").
#   usage: bench/sim/stall_matrix.sh PROFILE BENCH CACHE [HCE_SIM]
# Prints "factor from length cpu_alone_s auto_s auto/cpu" per stall and the
# geometric mean of auto/cpu.
set -euo pipefail
profile=$1 bench=$2 cache=$3
sim=${4:-build/bin/hce-sim}
for f in 5 20 50; do
  for s in 0 0.0005 0.001 0.002 0.005; do
    for l in 0.002 0.005 0.01 0.02 0.05; do
      read -r cpu auto < <("$sim" "$profile" --bench "$bench" --runs 1 --cache "$cache" \
        --stall "cpu:$s:$l:$f" 2>&1 | tail -1 |
        sed -n 's/.* cpu \([0-9.]*\)\/.* auto \([0-9.]*\)\/.*/\1 \2/p')
      echo "$f $s $l $cpu $auto $(awk -v a="$auto" -v c="$cpu" 'BEGIN{printf "%.3f", a/c}')"
    done
  done
done | awk '{print; g += log($6); n++} END {printf "geomean auto/cpu %.3f over %d stalls\n", exp(g/n), n}'
