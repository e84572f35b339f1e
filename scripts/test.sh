#!/usr/bin/env bash
# The whole test suite: set up, build, and run every test through ctest
# (lit translator tests, GoogleTest runtime tests, end-to-end examples), then
# the runtime tests again under AddressSanitizer+UBSan and ThreadSanitizer.
#   HCE_SKIP_SANITIZERS=1   skip the two sanitizer builds
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HCE_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
jobs="$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"

if [ "${HCE_SKIP_SANITIZERS:-0}" != 1 ]; then
  for san in address thread; do
    dir="$build-$san"
    echo "test: runtime tests under the $san sanitizer ($dir)"
    [ -f "$dir/CMakeCache.txt" ] ||
      cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_C_COMPILER=clang-19 \
        -DCMAKE_CXX_COMPILER=clang++-19 -DHCE_BUILD_TRANSLATOR=OFF \
        -DHCE_SANITIZE="$san" -DHCE_ENABLE_CUDA=OFF -DHCE_OMP_OFFLOAD_TESTS=OFF >/dev/null
    # Only hce_runtime_tests and hce-sim are built here (hce_omp_tests, linked with
    # libomptarget and libLLVM, is off): ctest would list it as not built.
    cmake --build "$dir" --target hce_runtime_tests hce-sim -j "$jobs"
    # ThreadSanitizer does not support fork() in a multi-threaded process,
    # which the CudaFallback tests use to check fresh-process notices; they
    # run in the two other builds.
    skip=()
    [ "$san" = thread ] && skip=(-E '^CudaFallback\.')
    # libomp is not instrumented: without ignore_noninstrumented_modules
    # TSan reports its internal locking now and then (seen: 1 run in ~40).
    ASAN_OPTIONS=detect_leaks=1 TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
      ctest --test-dir "$dir" --output-on-failure -j "$jobs" "${skip[@]}"
  done
fi
