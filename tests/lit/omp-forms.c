// Loops that already carry OpenMP, annotated as people write them: co_exec
// before or after `omp parallel for` (and its simd form), an `omp for` loop
// inside a `parallel` region (alone in it: the region becomes the site;
// among other statements: the site runs in `omp single`), the region's
// private/reduction clauses and its locals honoured. Each result is checked
// against a sequential computation under the mock runtime, with several
// OpenMP threads.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env OMP_NUM_THREADS=4 %t.exe | FileCheck %s --check-prefix=EXEC
// Unsupported directives and clauses are reported at the user's line:
// RUN: not %hce-translate %s -o %t2.c -- -DBAD_PARALLEL 2>&1 | FileCheck %s --check-prefix=BADPAR
// RUN: not %hce-translate %s -o %t2.c -- -DBAD_CLAUSE 2>&1 | FileCheck %s --check-prefix=BADCL

#include <stdio.h>
#include <stdlib.h>

#define N 300
#define M 40
static double A[N][M], B[N], C[N], R[N];
static int fails;

static void check(const char *what, const double *got, const double *want,
                  int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("FAIL %s at %d: %g != %g\n", what, i, got[i], want[i]);
      ++fails;
      return;
    }
  printf("ok %s\n", what);
}

int main(void) {
  int i, j;
  double sum = 0, ref = 0, t;
  srand(7);
  for (i = 0; i < N; i++) {
    B[i] = rand() % 100;
    for (j = 0; j < M; j++)
      A[i][j] = rand() % 10;
  }

  // co_exec after `omp parallel for`: the OpenMP line goes with the loop.
  // CHECK-NOT: {{^}}#pragma omp parallel for private
  // CHECK: {{^}}{ /* hce co_exec region 0 */
#pragma omp parallel for private(j)
#pragma hce co_exec map(to: A[i:1][0:M]) map(from: C[i:1])
  for (i = 0; i < N; i++) {
    C[i] = 0;
    for (j = 0; j < M; j++)
      C[i] += A[i][j];
  }
  for (i = 0; i < N; i++) {
    R[i] = 0;
    for (j = 0; j < M; j++)
      R[i] += A[i][j];
  }
  check("parallel for, co_exec after", C, R, N);

  // co_exec before `omp parallel for simd` with a reduction.
#pragma hce co_exec map(to: B[i:1])
#pragma omp parallel for simd reduction(+: sum)
  for (i = 0; i < N; i++)
    sum += B[i] * 2;
  for (i = 0; i < N; i++)
    ref += B[i] * 2;
  check("parallel for simd, reduction", &sum, &ref, 1);

  // A parallel region holding only the loop: the region becomes the site.
  // CHECK-NOT: {{^}}#pragma omp parallel private
  // CHECK: {{^}}{ /* hce co_exec region 2 */
  // CHECK-NOT: {{^}}#pragma omp single
  // CHECK: {{^}}#pragma omp parallel reduction
#pragma omp parallel private(j, t)
  {
#pragma omp for
#pragma hce co_exec map(to: A[i:1][0:M], B[i:1]) map(from: C[i:1])
    for (i = 0; i < N; i++) {
      t = B[i];
      for (j = 0; j < M; j++)
        t += A[i][j];
      C[i] = t;
    }
  }
  for (i = 0; i < N; i++) {
    R[i] = B[i];
    for (j = 0; j < M; j++)
      R[i] += A[i][j];
  }
  check("parallel { for }", C, R, N);

  // A region with more in it: the site runs in `omp single`; a local of
  // the region written by the loop is private, the region's reduction
  // applies to the loop.
  // CHECK: {{^}}#pragma omp single{{$}}
  // CHECK-NEXT: { /* hce co_exec region 3 */
  // CHECK: {{^}}#pragma omp single nowait{{$}}
  // CHECK-NEXT: { /* hce co_exec region 4 */
  sum = 0;
  int team = 0;
#pragma omp parallel reduction(+: sum) shared(team)
  {
    double scale = 3;
    int k;
#pragma omp atomic
    team += 1;
#pragma hce co_exec map(to: B[i:1])
#pragma omp for
    for (i = 0; i < N; i++) {
      k = i % 3;
      sum += B[i] * scale + k;
    }
#pragma omp barrier
#pragma omp for nowait
#pragma hce co_exec map(to: B[i:1]) map(from: C[i:1])
    for (i = 0; i < N; i++)
      C[i] = B[i] + 1;
  }
  ref = 0;
  for (i = 0; i < N; i++)
    ref += B[i] * 3 + i % 3;
  check("parallel { ...; for } reduction", &sum, &ref, 1);
  for (i = 0; i < N; i++)
    R[i] = B[i] + 1;
  check("parallel { for nowait }", C, R, N);
  printf("team %s\n", team > 0 ? "ran" : "did not run");

#ifdef BAD_PARALLEL
  // BADPAR: omp-forms.c:[[@LINE+2]]:1: error: only '#pragma omp parallel for', 'for' or 'simd'
#pragma hce co_exec map(from: C[i:1])
#pragma omp parallel
  {
#pragma omp for
    for (i = 0; i < N; i++)
      C[i] = 1;
  }
#endif
#ifdef BAD_CLAUSE
  // BADCL: omp-forms.c:[[@LINE+1]]:26: error: this clause of '#pragma omp parallel for' is not supported
#pragma omp parallel for lastprivate(t)
#pragma hce co_exec map(from: C[i:1])
  for (i = 0; i < N; i++) {
    t = i;
    C[i] = t;
  }
#endif
  // EXEC: ok parallel for, co_exec after
  // EXEC: ok parallel for simd, reduction
  // EXEC: ok parallel { for }
  // EXEC: ok parallel { ...; for } reduction
  // EXEC: ok parallel { for nowait }
  // EXEC: team ran
  return fails;
}
