#!/usr/bin/env bash
# The tools and libraries the test suite uses, each with the Debian package
# that has it (scripts/setup.sh installs them all).  A test that needs one
# that is missing would otherwise be skipped on a fresh machine and pass on
# a developer's only: this test fails instead and says what to install.
#   usage: check_toolchain.sh LLVM_PREFIX NVCC_OR_EMPTY
set -u
llvm="${1:-/usr/lib/llvm-19}"
nvcc="${2:-}"
missing=()
need() { # what, package, test...
  local what="$1" pkg="$2"
  shift 2
  if ! "$@" >/dev/null 2>&1; then
    missing+=("$what (Debian package $pkg)")
  fi
}
# compiler-rt: per-target folder (x86_64-pc-linux-gnu/) or the older linux/.
rt="$llvm/lib/clang/19/lib"
need "compiler-rt (sanitizer, profile and fuzzer runtimes)" libclang-rt-19-dev \
  compgen -G "$rt/*/libclang_rt.profile*.a"
need "compiler-rt's AddressSanitizer runtime" libclang-rt-19-dev \
  compgen -G "$rt/*/libclang_rt.asan*.a"
need FileCheck llvm-19-tools test -x "$llvm/bin/FileCheck"
need lit llvm-19-tools test -e "$llvm/build/utils/lit/lit.py"
need make make command -v make
need pkg-config pkg-config command -v pkg-config
need gcc gcc command -v gcc
need "matplotlib (bench/plots.py)" python3-matplotlib /usr/bin/python3 -c "import matplotlib"
# With nvcc, the OpenMP-offload tests compile for nvptx64 and link with
# clang's offload tools.
if [ -n "$nvcc" ]; then
  need clang-offload-packager clang-tools-19 test -x "$llvm/bin/clang-offload-packager"
  need clang-linker-wrapper clang-tools-19 test -x "$llvm/bin/clang-linker-wrapper"
fi
if ((${#missing[@]})); then
  echo "check_toolchain: error: the tests need what this machine lacks:"
  printf '  - %s\n' "${missing[@]}"
  echo "check_toolchain: run scripts/setup.sh (it installs every package above)"
  exit 1
fi
echo "check_toolchain: every tool the tests use is here"
