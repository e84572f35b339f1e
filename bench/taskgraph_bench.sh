#!/bin/sh
# Completion time of the task-graph example (examples/taskgraph.c: the
# task-mapping seed's workloads, vector add + scale applications and a chain
# of matrix products, as nowait regions) under each task mapper
# (docs/task-graph.md).
#
# usage: bench/taskgraph_bench.sh [-b BUILD] [-r REPS] [-x EXE] [-- ARGS...]
#   BUILD  build directory holding bin/hce-cc (default: build); the example
#          is built from examples/taskgraph.c with its hce-cc unless -x
#   REPS   runs per configuration (default 3); the median is reported
#   ARGS   taskgraph arguments: n m chain apps (default 4194304 1024 4 4)
#
# Devices come from the environment as for any HCE program, e.g.
#   HCE_DEVICES=cpu,cuda:0            bench/taskgraph_bench.sh -b build-gpu
#   HCE_DEVICES=cpu,cuda:0,cuda:1     bench/taskgraph_bench.sh -b build-gpu
#   HCE_DEVICES=cpu,sim:0,sim:1 HCE_SIM='sim:0=speed:4;sim:1=speed:2' \
#     bench/taskgraph_bench.sh -- 262144 192 4 4
# MAPPERS (default "heft ratio rank") and PARTITIONS (default "on off":
# the data-partition rule of the seed's §4.3, HCE_TASK_PARTITION) select the
# configurations.  Prints one line per configuration and a table with each
# mapper's median against the heft baseline.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
reps=3
exe=
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -x) exe=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "taskgraph_bench: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ]; then
  set -- 4194304 1024 4 4
fi
case $build in /*) ;; *) build=$(pwd)/$build ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$exe" ]; then
  exe=$tmp/taskgraph
  if ! "$build/bin/hce-cc" -O2 "$root/examples/taskgraph.c" -o "$exe" -lm >"$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log" >&2
    echo "taskgraph_bench: cannot build the example with $build/bin/hce-cc" >&2
    exit 1
  fi
fi

echo "# taskgraph $* on HCE_DEVICES=${HCE_DEVICES:-<all detected>} HCE_SIM=${HCE_SIM:-}"
echo "# reps=$reps; completion time = first submission to taskwait"
: >"$tmp/results"
for part in ${PARTITIONS:-on off}; do
  for mapper in ${MAPPERS:-heft ratio rank}; do
    if [ "$part" = on ]; then pval=${HCE_TASK_PARTITION:-}; else pval=off; fi
    times=
    i=0
    while [ "$i" -lt "$reps" ]; do
      i=$((i + 1))
      # Progress on stderr: the table on stdout stays clean.
      printf 'taskgraph_bench: %s, partition %s: run %d/%d\r' "$mapper" "$part" "$i" "$reps" >&2
      if ! HCE_TASK_MAP=$mapper HCE_TASK_PARTITION=$pval "$exe" "$@" >"$tmp/out" 2>&1; then
        cat "$tmp/out" >&2
        echo "taskgraph_bench: $mapper (partition $part) failed" >&2
        exit 1
      fi
      if ! grep -q "verified against sequential" "$tmp/out"; then
        cat "$tmp/out" >&2
        echo "taskgraph_bench: $mapper (partition $part) did not verify" >&2
        exit 1
      fi
      t=$(sed -n 's/.*completion \([0-9.e+-]*\) s.*/\1/p' "$tmp/out")
      times="$times $t"
    done
    med=$(printf '%s\n' $times | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
    echo "mapper=$mapper partition=$part times:$times median=$med"
    echo "$mapper $part $med" >>"$tmp/results"
  done
done
echo
awk 'BEGIN { printf "%-8s %-9s %12s %10s\n", "mapper", "partition", "median (s)", "vs heft" }
     { m[NR]=$1; p[NR]=$2; t[NR]=$3; if ($1 == "heft") base[$2]=$3 }
     END { for (i = 1; i <= NR; i++) {
             b = base[p[i]]
             printf "%-8s %-9s %12.6f %10s\n", m[i], p[i], t[i],
                    (b > 0 ? sprintf("%.3fx", b / t[i]) : "-") } }' "$tmp/results"
