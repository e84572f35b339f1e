// An array reduction on the co_exec pragma: reduction(+: hist[0:K]), a
// histogram without atomics. Each chunk gets K private elements (the
// runtime's block, bound as `hist` shifted by lo) and OpenMP reduces over
// them as an array section; the site passes &hist[lo] and K.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -c %t.cu -o %t.cu.o %}

#include <stdio.h>
#include <stdlib.h>

#define K 37

int main(void) {
  enum { n = 20000 };
  static int x[n];
  srand(7);
  for (int k = 0; k < n; k++)
    x[k] = rand();
  long hist[K], ref[K];
  for (int b = 0; b < K; b++)
    hist[b] = ref[b] = b; // the result is added to what is there
#pragma hce co_exec map(to: x[i:1]) reduction(+: hist[0:K])
  for (int i = 0; i < n; i++)
    hist[x[i] % K] += 1 + x[i] % 3;
  for (int i = 0; i < n; i++)
    ref[x[i] % K] += 1 + x[i] % 3;
  int bad = 0;
  for (int b = 0; b < K; b++)
    bad += hist[b] != ref[b];
  printf("%s\n", bad ? "FAILED" : "histogram matches");
  return bad != 0;
}
// CHECK: {{^}}  long *hist = (long *)((char *)__hce_red + *(const int64_t *)((char *)__hce_red + 0)) - __hce_rlo_0;
// CHECK: {{^}}#pragma omp parallel for reduction(+: hist[__hce_rlo_0:__hce_rlen_0]){{$}}
// CHECK-NOT: = hist;
// CHECK: {{^}}  __hce_a.__hce_rlo_0 = (int64_t)(0);
// CHECK-NEXT: {{^}}  __hce_a.__hce_rlen_0 = (int64_t)(K);
// CHECK: {{^}}  __hce_red[0].name = "hist";
// CHECK-NEXT: {{^}}  __hce_red[0].var = (void *)(hist + __hce_a.__hce_rlo_0);
// CHECK-NEXT: {{^}}  __hce_red[0].op = HCE_RED_ADD;
// CHECK-NEXT: {{^}}  __hce_red[0].type = HCE_TYPE_I64;
// CHECK-NEXT: {{^}}  __hce_red[0].count = __hce_a.__hce_rlo_0 >= 0 && __hce_a.__hce_rlen_0 > 0 && __hce_a.__hce_rlen_0 <= (int64_t)(sizeof(hist) / sizeof((hist)[0])) - __hce_a.__hce_rlo_0 ? __hce_a.__hce_rlen_0 : -1;
// EXEC: histogram matches
