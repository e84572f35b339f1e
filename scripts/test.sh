#!/usr/bin/env bash
# The whole test suite: set up, build, and run every test through ctest
# (lit translator tests, GoogleTest runtime tests, end-to-end examples), then
# again under AddressSanitizer+UBSan (the translator, the runtime, the
# examples and the translated-program tests) and ThreadSanitizer (the
# runtime tests).
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
    # address (ASan+UBSan): the translator, hce-cc (which then builds every
    # program with the sanitizers too: driver/CMakeLists.txt), the examples
    # and the translated-program tests as well as the runtime; thread: the
    # runtime and its tests.
    translator=OFF
    [ "$san" = address ] && translator=ON
    echo "test: under the $san sanitizer ($dir)"
    # Configured every time: an older folder may have the translator off.
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_C_COMPILER=clang-19 \
      -DCMAKE_CXX_COMPILER=clang++-19 -DHCE_BUILD_TRANSLATOR="$translator" \
      -DHCE_SANITIZE="$san" -DHCE_ENABLE_CUDA=OFF -DHCE_OMP_OFFLOAD_TESTS=OFF >/dev/null
    # Only what the tests below run is built (hce_omp_tests, linked with
    # libomptarget and libLLVM, is off: ctest would list it as not built).
    targets=(hce_runtime_tests hce-sim hce-sim-contention-test hce_cpu_hog)
    # Listed once into a variable: `ninja ... | grep -q` under pipefail fails
    # whenever grep exits before ninja has written everything (SIGPIPE), which
    # dropped the benchmark from one CI run's build.
    all_targets="$(ninja -C "$dir" -t targets all)"
    # The Google Benchmark smoke test, where libbenchmark-dev is installed.
    if grep -q '^hce_bench_region_overhead:' <<<"$all_targets"; then
      targets+=(hce_bench_region_overhead)
    fi
    skip=()
    if [ "$san" = address ]; then
      # The examples as hce-cc builds them (example-NAME, not the -offload
      # builds of the omp:N tests) and fig9 by hand.
      mapfile -t examples < <(sed -n 's/^\(example-[a-z0-9]*\):.*/\1/p' \
        <<<"$all_targets" | sort -u)
      targets+=(hce-translate hce-cc fig9_handwritten "${examples[@]}")
      # Not run here: the omp:N example tests (offload builds, not built
      # above), the corpus' offload builds (clang cannot link the host
      # plugin's offload image with ASan's runtime: .preinit_array in a DSO),
      # the plain-OpenMP builds of the examples (no libhce in them), and the
      # driver's project and install tests (CMake/make projects, pkg-config
      # links with gcc: they test the driver, not memory).
      skip=(-E '^example\..*(omp|openmp)|^corpus\..*\.omp$|^(driver_|install_package$|check_toolchain$|stats_on_signal$)')
    else
      # ThreadSanitizer does not support fork() in a multi-threaded process,
      # which the CudaFallback tests use to check fresh-process notices; they
      # run in the two other builds.
      skip=(-E '^CudaFallback\.')
    fi
    cmake --build "$dir" --target "${targets[@]}" -j "$jobs"
    # Every report also goes to a file under $logs: a report in a tool whose
    # failure a test expects (`not hce-translate ...`, a program expected to
    # stop with an error) must fail the stage all the same.  abort_on_error
    # makes a report a crash, which lit's `not` does not accept either.
    logs="$dir/sanitizer-logs"
    rm -rf "$logs" && mkdir -p "$logs"
    # libomp is not instrumented: without ignore_noninstrumented_modules
    # TSan reports its internal locking now and then (seen: 1 run in ~40).
    status=0
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$logs/asan" \
      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$logs/ubsan" \
      TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1" \
      ctest --test-dir "$dir" --output-on-failure -j "$jobs" "${skip[@]}" || status=$?
    if [ -n "$(ls -A "$logs")" ]; then
      echo "test: $san sanitizer reports (tests that passed count too), in $logs:" >&2
      head -n 60 "$logs"/* >&2
      status=1
    fi
    [ "$status" = 0 ] || exit "$status"
  done
fi
