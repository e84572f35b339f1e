// Instrumentation reaches the link: -fsanitize=address programs carry the
// ASan runtime and catch an overflow; --coverage writes gcov files named
// after the user's output, as clang names them. (Needs compiler-rt: the
// check_toolchain test fails when it is missing.)
// REQUIRES: clang-rt
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %hce-cc --hce-no-cuda -g -fsanitize=address -DVALUE=1 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c %S/Inputs/driver/main.c -o asan_prog
// RUN: llvm-nm asan_prog | FileCheck %s --check-prefix=ASAN-SYM
// ASAN-SYM: __asan_init
// RUN: env HCE_DEVICES=cpu ASAN_OPTIONS=detect_leaks=0 ./asan_prog | FileCheck %s --check-prefix=ASAN-OUT
// ASAN-OUT: {{^}}VALUE=1 mismatches=0
//
// RUN: %hce-cc --hce-no-cuda --coverage -c -DVALUE=1 %S/Inputs/driver/scale.c -o cov_scale.o
// RUN: test -f cov_scale.gcno
// RUN: %hce-cc --hce-no-cuda --coverage -DVALUE=1 -I %S/Inputs/driver/inc cov_scale.o %S/Inputs/driver/main.c -o cov_prog
// RUN: test -f cov_prog-main.gcno
// RUN: env HCE_DEVICES=cpu ./cov_prog
// RUN: test -f cov_scale.gcda && test -f cov_prog-main.gcda
