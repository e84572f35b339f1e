#!/usr/bin/env bash
# The main job: set up, translate and build examples/matadd.c with hce-cc,
# and run it on every device present (HCE_DEVICES to choose), printing which
# device ran how many iterations and the verification line.
#   usage: scripts/demo.sh [M] [N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HCE_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
out="$build/demo"
mkdir -p "$out"
"$build/bin/hce-cc" -O2 -v "$root/examples/matadd.c" -o "$out/matadd"
echo "demo: running on ${HCE_DEVICES:-every device found} (set HCE_DEVICES to choose)"
HCE_STATS=1 "$out/matadd" "${1:-4096}" "${2:-4096}"
