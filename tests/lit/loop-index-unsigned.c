// A loop whose index is unsigned long long (or size_t) gets its value in
// the variants in the variable's own type: modular arithmetic is exact
// even above INT64_MAX, where int64_t arithmetic would overflow. Here the
// bound lies above INT64_MAX and the step keeps the trip count at 16.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %if clang-rt %{ %clang -fopenmp -fsanitize=undefined -fno-sanitize-recover=all -I%hce-include %t.c %mockrt -o %t.ubsan.exe -lm %}
// RUN: %if clang-rt %{ %t.ubsan.exe | FileCheck %s --check-prefix=EXEC %}

#include <stdio.h>

int main(void) {
  const unsigned long long lo = 0x7ffffffffffffff0ULL, hi = 0xfffffffffffffff0ULL;
  const unsigned long long step = 0x0800000000000000ULL; // 2^59: 16 iterations
  static unsigned long long out[16];
#pragma hce co_exec map(tofrom: out[0:16])
  for (unsigned long long i = lo; i < hi; i += step)
    out[(i - lo) / step] = i;
  int bad = 0;
  unsigned long long r = lo;
  for (int k = 0; k < 16; k++, r += step)
    bad += out[k] != r;
  printf("%s\n", bad ? "FAILED" : "16 indices above INT64_MAX/2 verified");
  return bad != 0;
}
// CHECK: {{^}}    unsigned long long i = (unsigned long long)((unsigned long long)__hce_init + (unsigned long long)(__hce_k) * (unsigned long long)__hce_step);
// EXEC: 16 indices above INT64_MAX/2 verified
