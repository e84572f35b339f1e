#!/usr/bin/env bash
# auto against the best single device under a grid of stalls of one device
# (hce-sim --stall DEV:FROM:LEN:FACTOR), one benchmark: how far a stall of
# the machine makes eft stray from the best device (lud's lock-ins onto the
# GPU, docs/schedulers.md "stale winner").  Warm from one profile cache, or
# cold (CACHE "-": the run's first execution learns everything).  Virtual
# time: deterministic, two builds compare line by line.
#   usage: bench/sim/stall_matrix.sh PROFILE BENCH CACHE|- [HCE_SIM]
#   STALL_DEV  the stalled device, cpu (default) or gpu
# Prints "factor from length cpu_s gpu_s auto_s auto/best" per stall and the
# geometric mean of auto/best.
set -euo pipefail
profile=$1 bench=$2 cache=$3
sim=${4:-build/bin/hce-sim}
if [ "$cache" = - ]; then config=auto-cold cache_args=(); else config=auto cache_args=(--cache "$cache"); fi
for f in 5 20 50; do
  for s in 0 0.0005 0.001 0.002 0.005; do
    for l in 0.002 0.005 0.01 0.02 0.05; do
      read -r cpu gpu auto < <("$sim" "$profile" --bench "$bench" --runs 1 "${cache_args[@]}" \
        --stall "${STALL_DEV:-cpu}:$s:$l:$f" 2>&1 | tail -1 |
        sed -n "s/.* cpu \([0-9.]*\)\/.* gpu \([0-9.]*\)\/.* $config \([0-9.]*\)\/.*/\1 \2 \3/p")
      awk -v f="$f" -v s="$s" -v l="$l" -v c="$cpu" -v g="$gpu" -v a="$auto" \
        'BEGIN{b = c < g ? c : g; printf "%s %s %s %s %s %s %.3f\n", f, s, l, c, g, a, a / b}'
    done
  done
done | awk '{print; g += log($7); n++} END {printf "geomean auto/best %.3f over %d stalls\n", exp(g/n), n}'
