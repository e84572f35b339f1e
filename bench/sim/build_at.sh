#!/usr/bin/env bash
# Builds hce-sim against the schedulers and profile store of an earlier
# commit (the code a GPU measurement ran), so that the simulator can replay
# what that code decided:
#
#   bench/sim/build_at.sh 48673da /tmp/hce-sim-48673da
#   /tmp/hce-sim-48673da/hce-sim bench/sim/profiles/h100-2026-11-24.txt --explain
#
# The simulator's own sources are today's (bench/sim); only runtime/ comes
# from COMMIT (git archive into OUT, nothing in the working tree changes).
set -euo pipefail
commit=${1:?usage: build_at.sh COMMIT OUT}
out=${2:?usage: build_at.sh COMMIT OUT}
repo=$(cd "$(dirname "$0")/../.." && pwd)
cxx=${CXX:-clang++-19}
mkdir -p "$out/src"
git -C "$repo" archive "$commit" runtime | tar -x -C "$out/src"
rt="$out/src/runtime"
srcs=("$repo"/bench/sim/{hce_sim,sim_profile,residency,loop_sim,program_sim}.cpp
      "$rt"/src/sched/*.cpp "$rt"/src/profile/profile_store.cpp
      "$rt"/src/profile/profile_plan.cpp "$rt"/src/data/interval_set.cpp
      "$rt"/src/log.cpp)
# What later commits gave the simulator to share (a commit before them has
# none): settings.hpp's data_region_lending_pays (session 48) is
# the rule of that commit's lends_in_data_region, or never before it.
if ! grep -q data_region_lending_pays "$rt/src/settings.hpp"; then
  if grep -q kLendRegisterBytes "$rt/src/region_exec.cpp"; then
    rule='const double spent = lent_wall * 0.5, k = 192.0 * (1 << 20), s = 80e-3 / double(1 << 30);
  return mapped >= k && unpinned >= k && spent < mapped * s && spent < unpinned * s;'
  else
    rule='(void)mapped, (void)unpinned, (void)lent_wall;
  return false;'
  fi
  sed -i '$d' "$rt/src/settings.hpp" # the namespace's closing line
  printf 'inline bool data_region_lending_pays(double mapped, double unpinned, double lent_wall) {\n  %s\n}\n} // namespace hce\n' \
    "$rule" >> "$rt/src/settings.hpp"
fi
# Files that later commits added (a commit before them has none).
for f in slow_devices.cpp; do
  [ -f "$rt/src/$f" ] && srcs+=("$rt/src/$f")
done
# The profile store traces its loading (session 54): trace.cpp too.
if grep -q '"trace.hpp"' "$rt/src/profile/profile_store.cpp"; then
  srcs+=("$rt/src/trace.cpp")
fi
objs=()
for s in "${srcs[@]}"; do
  o="$out/$(echo "$s" | tr / _).o"
  "$cxx" -std=c++20 -O2 -fopenmp -I"$rt/src" -I"$rt/include" -c "$s" -o "$o" &
  objs+=("$o")
  # two at a time: the machine is shared
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
done
wait
"$cxx" -fopenmp "${objs[@]}" -o "$out/hce-sim" -lpthread
echo "$out/hce-sim (runtime/ of $(git -C "$repo" rev-parse --short "$commit"))"
