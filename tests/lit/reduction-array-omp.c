// An array reduction written on the OpenMP directive of the loop
// (`#pragma omp parallel for reduction(+: hist[lo:len])`, as an ordinary
// OpenMP histogram is written) becomes the co_exec region's array
// reduction. A body that updates the array other than as `hist[e] += v`
// still runs everywhere on the CPU variant but gets no CUDA variant, with
// the reason at the use.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --input-file %t.cu --check-prefix=CUDA
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -c %t.cu -o %t.cu.o %}

#include <stdio.h>
#include <stdlib.h>

#define K 16

void count(int n, const int *x, int *hist, int lo) {
#pragma hce co_exec map(to: x[i:1]) name("omp-form")
#pragma omp parallel for reduction(+ : hist[lo:K])
  for (int i = 0; i < n; i++)
    hist[lo + x[i] % K]++;
}

void count_plain(int n, const int *x, int *hist) {
#pragma hce co_exec map(to: x[i:1]) name("plain-form")
#pragma omp parallel for reduction(+ : hist[0:K])
  for (int i = 0; i < n; i++)
    hist[x[i] % K] = hist[x[i] % K] + 2;
}
// DIAG: reduction-array-omp.c:[[@LINE-2]]:5: warning: this co_exec loop gets no CUDA variant and runs on the CPU only: the array reduction 'hist' is used here in a form a GPU cannot apply atomically (expected 'hist[e] += v', 'hist[e] -= v' or 'hist[e]++' as a statement of its own)

int main(void) {
  enum { n = 9999 };
  static int x[n];
  int hist[K + 3] = {0}, ref[K + 3] = {0}, two[K] = {0}, rtwo[K] = {0};
  srand(3);
  for (int k = 0; k < n; k++)
    x[k] = rand();
  count(n, x, hist, 3);
  count_plain(n, x, two);
  for (int i = 0; i < n; i++) {
    ref[3 + x[i] % K]++;
    rtwo[x[i] % K] += 2;
  }
  int bad = 0;
  for (int b = 0; b < K + 3; b++)
    bad += hist[b] != ref[b];
  for (int b = 0; b < K; b++)
    bad += two[b] != rtwo[b];
  printf("%s\n", bad ? "FAILED" : "both histograms match");
  return bad != 0;
}
// CHECK: {{^}}#pragma omp parallel for reduction(+: hist[__hce_rlo_0:__hce_rlen_0]){{$}}
// CHECK: {{^}}  __hce_a.__hce_rlo_0 = (int64_t)(lo);
// CHECK-NEXT: {{^}}  __hce_a.__hce_rlen_0 = (int64_t)(K);
// A pointer: no extent to check the section against.
// CHECK: {{^}}  __hce_red[0].count = __hce_a.__hce_rlo_0 >= 0 && __hce_a.__hce_rlen_0 > 0 ? __hce_a.__hce_rlen_0 : -1;
// EXEC: both histograms match
// CUDA: ("omp-form"): CUDA variant
// CUDA: void operator++(int) const
// CUDA-NOT: ("plain-form"): CUDA variant
