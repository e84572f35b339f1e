#!/usr/bin/env bash
# Installs what HCE needs (Debian 12 packages), configures and builds into
# build/.  Idempotent: packages already there are not reinstalled and an
# existing build is updated incrementally.
#   HCE_BUILD_DIR   build folder (default: build/ at the repository root)
#   HCE_CMAKE_ARGS  extra CMake arguments
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HCE_BUILD_DIR:-$root/build}"

# Every package a test uses is here (tests/driver/check_toolchain.sh fails,
# naming the package, when one is missing): clang-tools-19 for the offload
# link (clang-offload-packager, clang-linker-wrapper), libclang-rt-19-dev for
# the sanitizer/fuzzer builds and hce-cc's -fsanitize/--coverage tests,
# pkg-config and make for the installed-package tests, python3-matplotlib
# for bench/plots.py, gdb for the stacks of a run the matrices found hung
# (tests/property/hce_matrix.py).
packages=(cmake ninja-build make pkg-config python3 g++ clang-19 clang-tools-19
          libclang-19-dev libclang-cpp19-dev libclang-rt-19-dev
          llvm-19-dev llvm-19-tools libomp-19-dev libzstd-dev zlib1g-dev libedit-dev
          libxml2-dev libffi-dev libcurl4-openssl-dev libgtest-dev libgmock-dev
          libbenchmark-dev python3-matplotlib gdb)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# CUDA is optional: nvcc from the usual place when it exists.
cuda_args=()
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc not found; building without CUDA"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_HOST_COMPILER=g++ \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py \
    "${cuda_args[@]}" ${HCE_CMAKE_ARGS:-}
fi
cmake --build "$build" -j "$(nproc)"
