#!/usr/bin/env bash
# A/B of two (or more) libhce builds on the suite's benchmarks, interleaved,
# on the GPU machine: the same example binaries run with each library
# (LD_LIBRARY_PATH), so a runtime change is measured against its base in one
# call (session 14's calls CA and CB were this script by hand).
#
#   bash bench/ab_libs.sh DIR [ROUNDS]
#     DIR: a staged suite (scripts/stage-suite.sh: bin/, lib/) with one
#          lib-NAME/libhce.so.1 per library to compare
#   env: AB_LIBS="base new"   the lib-NAME folders, in this order
#        AB_BENCH="matadd ..."  the benchmarks (default: all 12)
#        AB_CONFIGS="gpu warm cold"  cpu: the CPU alone (static) with each
#          library (not gemm: minutes); gpu: cuda:0 alone (static); warm: auto on
#          cpu,cuda:0 with a profile cache per library, first filled by a cpu, a
#          gpu and an auto run of each benchmark (the suite's order), after one
#          untimed GPU-alone run of each (a fresh machine's first processes
#          run slow, and the fill would record that); cold: auto
#          with HCE_PROFILE=off; s-NAME: schedule NAME (fdets, hguided ...) on
#          AB_DEVICES with HCE_PROFILE=off; g-NAME: schedule NAME on AB_GPU
#          alone; gpuc: cuda:0 alone (static) with the library's profile
#          cache, as a user's default run keeps one (gpu runs with
#          HCE_PROFILE=off; warm auto records into the cache).  The CPU
#          alone runs once per benchmark (not gemm).
#        AB_WARM_BESIDE="fdets ...": before each warm run, a run of each of
#          these schedules with the same profile cache (untimed), as the
#          suite's rounds run the named schedulers beside auto
#        AB_DEVICES (default cpu,cuda:0), AB_GPU (default cuda:0): for sims,
#          AB_DEVICES=cpu,sim:0 AB_GPU=sim:0 and SUITE_SMALL=1 sizes
#        AB_TIME (s, default 400): later rounds are skipped past it
#        AB_ENV_NAME="VAR=value ...": set for every run of library NAME (one
#          library under two settings: lib-k4 a copy of lib-new, AB_ENV_k4)
#        AB_BIN_NAME=DIR: the example binaries library NAME runs (default
#          DIR/bin): a translator change, its examples in DIR/bin-NAME
#        AB_HEALTH (default 1 when AB_GPU is a cuda device): first, the CPU
#          alone on blackscholes twice and fdtd2d once, up to three tries:
#          a fresh H200 machine's first process runs slow, and some machines
#          run slow throughout (session 39: blackscholes' second run above
#          0.11 s or fdtd2d above 0.03 s); such a machine is reported as
#          SLOW MACHINE and measured anyway (the ratios are paired)
# Prints one `R bench config seconds devices | choice` line per run (the
# regions' wall_seconds summed, from HCE_STATS), a table of medians, with gpu
# and cold or warm among the configurations the best single device over auto
# paired by round (issue 12's measure), and an
# OUTLIER line for auto's runs of 3x the best single device or more; a run
# that does not verify prints NOT VERIFIED.
set -u
dir=$1
rounds=${2:-3}
libs=${AB_LIBS:-base new}
configs=${AB_CONFIGS:-gpu warm cold}
devices=${AB_DEVICES:-cpu,cuda:0}
gpu=${AB_GPU:-cuda:0}
limit=${AB_TIME:-400}
declare -A A=([matadd]="8192 8192" [blackscholes]="16777216" [gemm]="2048 2048 2048"
  [jacobi2d]="4096 20" [heat3d]="256 10" [fdtd2d]="2048 2048 10" [nbody]="16384 2"
  [kmeans]="1048576 16 16 5" [mcpi]="200000000" [cg]="1048576 4 10" [bfs]="1048576 8"
  [lud]="512")
if [ "${SUITE_SMALL:-0}" = 1 ]; then
  A=([matadd]="1000 129" [blackscholes]="100003" [gemm]="97 83 61" [jacobi2d]="131 6"
    [heat3d]="23 4" [fdtd2d]="97 83 5" [nbody]="601 3" [kmeans]="20001 5 6 6"
    [mcpi]="1000003" [cg]="10007 3 20" [bfs]="20011 6" [lud]="131")
fi
benches=${AB_BENCH:-matadd blackscholes gemm jacobi2d heat3d fdtd2d nbody kmeans mcpi cg bfs lud}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
stamp() { echo "== [$(($(date +%s) - t0)) s] $*"; }

# one BENCH LABEL LIB [VAR=value ...]: one run, its line.
one() {
  local b=$1 label=$2 lib=$3
  shift 3
  local extra="AB_ENV_$lib" bins="AB_BIN_$lib"
  env LD_LIBRARY_PATH="$dir/lib-$lib:$dir/lib" HCE_STATS="$tmp/s.json" ${!extra:-} "$@" \
    "${!bins:-$dir/bin}/$b" ${A[$b]} >"$tmp/out" 2>&1
  grep -q verified "$tmp/out" || { echo "NOT VERIFIED $b $label"; tail -3 "$tmp/out"; }
  python3 - "$tmp/s.json" "$b" "$label" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["regions"]
except (OSError, ValueError, KeyError):
    print("R %-12s %-12s nan | no stats" % (sys.argv[2], sys.argv[3])); sys.exit()
it = {}
for x in r:
    for d in x["devices"]:
        it[d["device"]] = it.get(d["device"], 0) + d["iterations"]
# Microseconds: mcpi's whole run is ~1.2 ms, and 10 us steps hid its 1% differences.
print("R %-12s %-12s %.7f" % (sys.argv[2], sys.argv[3], sum(x["wall_seconds"] for x in r)),
      " ".join("%s:%d" % kv for kv in it.items()), "|", r[0].get("choice", "")[-60:])
PY
}

{
  nvidia-smi -L 2>/dev/null | head -1
  echo "date $(date -u +%F) libs: $libs configs: $configs rounds: $rounds"
  health=${AB_HEALTH:-$([[ $gpu == cuda* ]] && echo 1 || echo 0)}
  if [ "$health" = 1 ]; then
    for try in 1 2 3; do
      h=$(for b in blackscholes blackscholes fdtd2d; do
        one "$b" health "${libs%% *}" HCE_DEVICES=cpu HCE_SCHEDULE=static HCE_PROFILE=off
      done)
      echo "$h"
      echo "$h" | awk '$2=="blackscholes" && ++n==2 && $4>0.11 {bad=1}
        $2=="fdtd2d" && $4>0.03 {bad=1} END {exit !bad}' || break
      echo "SLOW MACHINE (health try $try)"
    done
  fi
  if [[ " $configs " == *" warm "* ]]; then
    # A fresh machine's first processes run slow (call BC: blackscholes' GPU
    # alone 46 ms, 29-32 after), and a fill records what it measures: one
    # untimed GPU-alone run of each benchmark first.
    stamp "warm-up: one GPU-alone run of each benchmark (untimed, no cache)"
    for b in $benches; do
      one "$b" warm-up "${libs%% *}" HCE_PROFILE=off HCE_DEVICES="$gpu" HCE_SCHEDULE=static >/dev/null
    done
    stamp "profile caches: a cpu, a gpu and an auto run of each benchmark per library"
    for b in $benches; do
      for L in $libs; do
        c="XDG_CACHE_HOME=$tmp/cache-$L"
        [ "$b" = gemm ] || one "$b" fill-cpu "$L" "$c" HCE_DEVICES=cpu HCE_SCHEDULE=static >/dev/null
        one "$b" fill-gpu "$L" "$c" HCE_DEVICES="$gpu" HCE_SCHEDULE=static >/dev/null
        one "$b" fill-auto "$L" "$c" HCE_DEVICES="$devices" HCE_SCHEDULE=auto >/dev/null
      done
    done
  fi
  for k in $(seq 1 "$rounds"); do
    [ $(($(date +%s) - t0)) -gt "$limit" ] && { stamp "round $k skipped (AB_TIME)"; break; }
    stamp "round $k"
    for b in $benches; do
      [ "$k" = 1 ] && [ "$b" != gemm ] &&
        one "$b" cpu "${libs%% *}" HCE_DEVICES=cpu HCE_SCHEDULE=static HCE_PROFILE=off
      for L in $libs; do
        for cf in $configs; do
          case $cf in
          cpu) [ "$b" = gemm ] || one "$b" "cpu-$L" "$L" HCE_DEVICES=cpu HCE_SCHEDULE=static HCE_PROFILE=off ;;
          gpu) one "$b" "gpu-$L" "$L" HCE_DEVICES="$gpu" HCE_SCHEDULE=static HCE_PROFILE=off ;;
          gpuc) one "$b" "gpuc-$L" "$L" XDG_CACHE_HOME="$tmp/cache-$L" HCE_DEVICES="$gpu" \
            HCE_SCHEDULE=static ;;
          warm)
            for s in ${AB_WARM_BESIDE:-}; do
              one "$b" "fill-$s-$L" "$L" XDG_CACHE_HOME="$tmp/cache-$L" HCE_DEVICES="$devices" \
                HCE_SCHEDULE="$s" >/dev/null
            done
            one "$b" "warm-$L" "$L" XDG_CACHE_HOME="$tmp/cache-$L" HCE_DEVICES="$devices" HCE_SCHEDULE=auto ;;
          cold) one "$b" "cold-$L" "$L" HCE_PROFILE=off HCE_DEVICES="$devices" HCE_SCHEDULE=auto ;;
          s-*) one "$b" "$cf-$L" "$L" HCE_PROFILE=off HCE_DEVICES="$devices" HCE_SCHEDULE="${cf#s-}" ;;
          g-*) one "$b" "$cf-$L" "$L" HCE_PROFILE=off HCE_DEVICES="$gpu" HCE_SCHEDULE="${cf#g-}" ;;
          esac
        done
      done
    done
  done
  stamp done
} 2>&1 | tee "$tmp/run.txt"

python3 - "$tmp/run.txt" "$libs" "$configs" "$benches" <<'PY'
import math, re, statistics, sys
runs, by_round, rnd = {}, {}, 0
for line in open(sys.argv[1]):
    m = re.match(r"== \[\d+ s\] round (\d+)$", line.strip())
    if m:
        rnd = int(m.group(1))
    if line.startswith("R "):
        w = line.split()
        try:
            runs.setdefault((w[1], w[2]), []).append(float(w[3]))
            by_round[(w[1], w[2], rnd)] = float(w[3])
        except ValueError:
            pass
med = {k: statistics.median(v) for k, v in runs.items()}
cols = ["cpu"] + ["%s-%s" % (c, l) for c in sys.argv[3].split() for l in sys.argv[2].split()]
print("medians (s)")
# Columns as wide as their names (s-hguided-spare ran into its neighbours).
width = [max(10, len(c) + 1) for c in cols]
print("%-13s" % "bench" + "".join("%*s" % (w, c) for w, c in zip(width, cols)))
for b in sys.argv[4].split():
    print("%-13s" % b + "".join("%*.4f" % (w, med.get((b, c), float("nan")))
                                for w, c in zip(width, cols)))
libs = sys.argv[2].split()
# Issue 12's measure, paired by round: the best single device's time (the
# library's gpu run of the round, or the CPU alone's where it ran faster:
# its run of the round, else its one run) over auto's, median over rounds.
configs = sys.argv[3].split()
autos = [c for c in ("cold", "warm") if c in configs]
if "gpu" in configs and autos:
    print("best single / auto, paired by round: median (rounds)")
    names = ["%s-%s" % (c, l) for l in libs for c in autos]
    width = [max(12, len(n) + 1) for n in names]
    print("%-13s" % "bench" + "".join("%*s" % (w, n) for w, n in zip(width, names)))
    for b in sys.argv[4].split():
        row = ""
        for n, w in zip(names, width):
            c, l = n.split("-", 1)
            r = []
            for k in range(1, rnd + 1):
                singles = [by_round.get((b, "gpu-%s" % l, k)), by_round.get((b, "cpu-%s" % l, k)),
                           med.get((b, "cpu"))]
                singles = [t for t in singles if t]
                if singles and by_round.get((b, n, k)):
                    r.append(min(singles) / by_round[(b, n, k)])
            row += "%*s" % (w, "%.2f (%d)" % (statistics.median(r), len(r)) if r else "nan")
        print("%-13s" % b + row)
# Each library against the first, per configuration: the median over rounds
# of the two runs' ratio in the same round (a drift of the machine between
# rounds cancels; medians of different rounds do not pair).
pairs = [(c, l) for c in sys.argv[3].split() for l in libs[1:]]
if pairs:
    print("paired %s / %s: median over rounds (rounds)" % ("|".join(libs[1:]), libs[0]))
    names = ["%s-%s" % p for p in pairs]
    width = [max(12, len(n) + 1) for n in names]
    print("%-13s" % "bench" + "".join("%*s" % (w, n) for w, n in zip(width, names)))
    logs = {n: [] for n in names}
    for b in sys.argv[4].split():
        row = ""
        for (c, l), n, w in zip(pairs, names, width):
            r = [by_round[(b, "%s-%s" % (c, l), k)] / by_round[(b, "%s-%s" % (c, libs[0]), k)]
                 for k in range(1, rnd + 1)
                 if (b, "%s-%s" % (c, l), k) in by_round and
                 by_round.get((b, "%s-%s" % (c, libs[0]), k), 0) > 0]
            if r:
                logs[n].append(math.log(statistics.median(r)))
            row += "%*s" % (w, "%.2f (%d)" % (statistics.median(r), len(r)) if r else "nan")
        print("%-13s" % b + row)
    print("%-13s" % "geomean" + "".join(
        "%*s" % (w, "%.3f" % math.exp(sum(logs[n]) / len(logs[n])) if logs[n] else "nan")
        for n, w in zip(names, width)))
    # How far to trust the medians above: the paired ratios' quartiles, and
    # each configuration's runs' max / min.  Call RC's machine passed the
    # health check and then ran cold cg in 17.7-67.8 ms: its medians moved
    # 15-37% where a quiet machine's ten rounds move +-5%.
    print("paired quartiles [q1 q3]; runs max/min of the first library")
    spreads = []
    for b in sys.argv[4].split():
        row = ""
        for (c, l), n, w in zip(pairs, names, width):
            r = sorted(by_round[(b, "%s-%s" % (c, l), k)] /
                       by_round[(b, "%s-%s" % (c, libs[0]), k)]
                       for k in range(1, rnd + 1)
                       if (b, "%s-%s" % (c, l), k) in by_round and
                       by_round.get((b, "%s-%s" % (c, libs[0]), k), 0) > 0)
            q = statistics.quantiles(r, n=4) if len(r) >= 4 else []
            row += "%*s" % (w, "[%.2f %.2f]" % (q[0], q[2]) if q else "-")
        base = runs.get((b, "%s-%s" % (sys.argv[3].split()[0], libs[0])), [])
        if len(base) >= 2 and min(base) > 0:
            spreads.append(max(base) / min(base))
            row += "  %.2f" % spreads[-1]
        print("%-13s" % b + row)
    if spreads and statistics.median(spreads) > 1.5:
        print("NOISY MACHINE: the first library's runs spread %.2fx (median over benchmarks)"
              % statistics.median(spreads))
# Runs of auto (warm, cold) that took 3x the best single device's median or
# more: a mode locked onto a slow device (calls SC, SD: lud's warm auto on
# the GPU alone at 0.19-0.27 s against the CPU alone's 0.015), or a round
# the machine disturbed (SC's fourth: cold cg 66 ms, the CPU alone 95) --
# which a median of rounds hides.  The best single device: the cpu and gpu columns'
# medians (the CPU alone's run once per benchmark when cpu is not a
# configuration).
for b in sys.argv[4].split():
    singles = [v for (bb, c), v in med.items()
               if bb == b and (c == "cpu" or c.startswith("cpu-") or c.startswith("gpu-")) and v > 0]
    if not singles:
        continue
    best = min(singles)
    for (bb, c), v in sorted(runs.items()):
        if bb != b or not (c.startswith("warm-") or c.startswith("cold-")):
            continue
        slow = [t for t in v if t >= 3 * best]
        if slow:
            print("OUTLIER %s %s: %d of %d runs at 3x the best single device (%.6f s) or more: %s"
                  % (b, c, len(slow), len(v), best, " ".join("%.6f" % t for t in slow)))
PY
