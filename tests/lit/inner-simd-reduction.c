// An OpenMP directive with a reduction clause on a loop inside the co_exec
// loop: clang gives the clause implicit helper variables ('.reduction.lhs'),
// and a private clause its private copies, which are not the user's
// variables and must not read as racy writes or unmapped uses.
//
// RUN: %hce-translate %s -o %t.c 2>&1 | count 0
// RUN: %clang -fopenmp -Wall -Wextra -Werror -Wno-pass-failed -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s

#include <stdio.h>

static void row_sums(int M, int N, const double *A, double *rs) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: rs[i:1])
#pragma omp parallel for
  for (int i = 0; i < M; i++) {
    double s = 0.0;
    long c = 0;
    double t;
#pragma omp simd reduction(+ : s, c) private(t)
    for (int j = 0; j < N; j++) {
      t = A[i * N + j];
      s += t;
      c += t > 0.5;
    }
    rs[i] = s + c;
  }
}

int main(void) {
  enum { M = 37, N = 53 };
  static double A[M * N], rs[M];
  unsigned long long st = 7;
  for (int e = 0; e < M * N; e++) {
    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
    A[e] = (double)(st >> 11) / 9007199254740992.0;
  }
  row_sums(M, N, A, rs);
  int bad = 0;
  for (int i = 0; i < M; i++) {
    double s = 0.0;
    long c = 0;
    for (int j = 0; j < N; j++) {
      s += A[i * N + j];
      c += A[i * N + j] > 0.5;
    }
    bad += rs[i] < s + c - 1e-9 * (1.0 + s) || rs[i] > s + c + 1e-9 * (1.0 + s);
  }
  printf("inner-simd-reduction: %s\n", bad ? "WRONG" : "ok");
  return bad;
}
// CHECK: inner-simd-reduction: ok
