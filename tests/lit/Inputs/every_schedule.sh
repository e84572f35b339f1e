#!/bin/sh
# every_schedule.sh NAMES_DEF STATS EXE [ARGS...]
#
# Runs a program built by hce-cc (which checks itself against a sequential
# reference and prints "ok: 0 wrong") on the CPU alone, then on the CPU and
# two simulated accelerators with every scheduler of NAMES_DEF
# (runtime/include/hce/names.def), and on the two simulated devices alone
# with every scheduler. Every run must verify, and HCE_STATS (written to
# STATS) must show that the named devices did work in every region: the
# CPU alone; all three with `static` (each device gets its fixed share);
# a simulated device when they run alone. (The adaptive schedulers may
# rightly leave a device of a mixed set idle at test sizes.) Prints
# "every schedule ok".
set -u
defs=$1 stats=$2 exe=$3
shift 3

fail() {
  echo "FAILED: $*"
  exit 1
}

# every_region ERE: each region of the stats file (one {"name":... object
# per region) has a device entry that matches.
every_region() {
  sed 's/{"name":/\n{"name":/g' "$stats" | grep '^{"name":' >"$stats.regions"
  [ -s "$stats.regions" ] && ! grep -Ev "$1" "$stats.regions" | grep -q .
}
# ran DEVICE: the device ran iterations in every region.
ran() { every_region "\"device\":\"$1\",\"iterations\":[1-9]"; }
# ran_sim: a simulated device ran iterations in every region.
ran_sim() { every_region '"device":"sim:[01]","iterations":[1-9]'; }

run() { # ARGS... of the program, on $devices with $sched
  rm -f "$stats"
  out=$(env HCE_DEVICES="$devices" HCE_SCHEDULE="$sched" \
    HCE_SIM="sim=bw:1e12,lat:0,iter_time:1e-9" HCE_MIN_SHARE=0 HCE_PROFILE=off \
    HCE_STATS="$stats" OMP_NUM_THREADS=2 "$exe" "$@" 2>&1) ||
    fail "$devices $sched: exit status $?: $out"
  case $out in
  *"ok: 0 wrong"*) ;;
  *) fail "$devices $sched: $out" ;;
  esac
}

devices=cpu sched=static
run "$@"
ran cpu || fail "cpu: the CPU ran nothing"

for s in $(sed -n 's/^HCE_NAME_SCHEDULER(\(.*\))$/\1/p' "$defs"); do
  devices=cpu,sim:0,sim:1 sched=$s
  run "$@"
  if [ "$s" = static ]; then
    for d in cpu sim:0 sim:1; do
      ran "$d" || fail "static: $d ran nothing in some region"
    done
  fi
  devices=sim:0,sim:1
  run "$@"
  ran_sim || fail "sim:0,sim:1 $s: no simulated device ran some region"
done
echo "every schedule ok"
