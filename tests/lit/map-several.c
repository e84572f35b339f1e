// Several maps of one array (issue 13.8): a row and a column footprint, a
// `to` row and a `from` column, a `tofrom` row and the broadcast pivot row.
// Each is an hce_map of its own, the variants bind the name once (from its
// first map), and the runtime gives each device the union of the
// footprints behind that one pointer. No warning ('A' is written and one
// of its maps is `to`: another one is written). End to end on the CPU and
// on CPU + two simulated devices with every scheduler, against the
// sequential loops. A reduction or private variable cannot also be mapped.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu 2>&1 | count 0
// RUN: FileCheck %s --input-file %t.c
// RUN: FileCheck %s --check-prefix=CUDA --input-file %t.cu
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include -c %t.c -o %t.o
// RUN: %if nvcc %{ %nvcc -I%hce-include -c %t.cu -o %t.cu.o %}
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: sh %S/Inputs/every_schedule.sh %hce-include/hce/names.def %t.json %t.e2e | FileCheck %s --check-prefix=EXEC
// RUN: not %hce-translate %s -o %t.bad.c -- -DCONFLICT 2>&1 | FileCheck %s --check-prefix=CONFLICT

#include <stdio.h>
#include <stdlib.h>

#define N 160
#define H 120

static unsigned st = 7u;
static double rnd(void) {
  st = st * 1103515245u + 12345u;
  return (double)((st >> 8) % 1000) / 100.0 - 5.0;
}

// Row and column of one array.
void transpose_sum(double A[N][N], double B[N][N]) {
#pragma hce co_exec map(to: A[i][0:N], A[0:N][i]) map(from: B[i][0:N])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      B[i][j] = A[i][j] + 2 * A[j][i];
}
// CHECK-LABEL: static void __hce_cpu_0(
// CHECK: double (*A)[160] = (double (*)[160])__hce_ptrs[0];
// CHECK-NOT: __hce_ptrs[1]
// CHECK: double (*B)[160] = (double (*)[160])__hce_ptrs[2];
// CHECK: { /* map A[i][0:N] */
// CHECK: __hce_m[0].name = "A";
// CHECK: __hce_m[0].kind = HCE_MAP_TO;
// CHECK: { /* map A[0:N][i] */
// CHECK: __hce_m[1].name = "A";
// CHECK: __hce_m[1].kind = HCE_MAP_TO;
// CHECK: __hce_m[1].blocks = (int64_t)(160);
// CHECK: __hce_m[1].stride = (int64_t)(160);
// CHECK: __hce_r.num_maps = 3;
// CUDA: double (*A)[160] = (double (*)[160])__hce_p.p[0];
// CUDA-NOT: __hce_p.p[1];
// CUDA: double (*B)[160] = (double (*)[160])__hce_p.p[2];

// A `to` row and a `from` column of one array (2H x H).
void row_to_column(double (*A)[H]) {
#pragma hce co_exec map(to: A[i][0:H]) map(from: A[H:H][i])
  for (int i = 0; i < H; i++)
    for (int j = 0; j < H; j++)
      A[H + j][i] = 3 * A[i][j] + j;
}
// CHECK: { /* map A[H:H][i] */
// CHECK: __hce_m[1].kind = HCE_MAP_FROM;

// Gaussian elimination: a `tofrom` row and the pivot row (a VLA).
void eliminate(int n, double A[n][n]) {
  for (int k = 0; k < n - 1; k++) {
#pragma hce co_exec map(tofrom: A[i][0:n]) map(to: A[k][0:n])
    for (int i = k + 1; i < n; i++) {
      double f = A[i][k] / A[k][k];
      for (int j = 0; j < n; j++)
        A[i][j] -= f * A[k][j];
    }
  }
}
// One captured extent: the second map does not bind 'A'.
// CHECK: double (*A)[__hce_ext_0_1] = (double (*)[__hce_ext_0_1])__hce_ptrs[0];
// CHECK-NOT: __hce_ext_1_1
// CHECK: { /* map A[k][0:n] */
// CHECK: __hce_m[1].scale = 0;
// CUDA: const __hce_vla<double, 2> A = {(double *)__hce_p.p[0], {(int64_t)(__hce_ext_0_1)}};

#ifdef CONFLICT
double total(int n, double *x) {
  double s = 0;
// CONFLICT: {{^}}{{.*}}map-several.c:[[@LINE+1]]:65: error: 's' is a reduction or private variable: it cannot also be mapped
#pragma hce co_exec reduction(+: s) map(to: x[i:1]) map(tofrom: s)
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}
#endif

int main(void) {
  static double A[N][N], B[N][N], T[2 * H][H], TR[2 * H][H], G[N][N], GR[N][N];
  int bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = rnd();
      B[i][j] = rnd();
      G[i][j] = GR[i][j] = rnd() + (i == j ? 40 : 0);
    }
  for (int i = 0; i < 2 * H; i++)
    for (int j = 0; j < H; j++)
      T[i][j] = TR[i][j] = rnd();

  transpose_sum(A, B);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      bad += B[i][j] != A[i][j] + 2 * A[j][i];

  row_to_column(T);
  for (int i = 0; i < H; i++)
    for (int j = 0; j < H; j++)
      TR[H + j][i] = 3 * TR[i][j] + j;
  for (int i = 0; i < 2 * H; i++)
    for (int j = 0; j < H; j++)
      bad += T[i][j] != TR[i][j];

  eliminate(N, G);
  for (int k = 0; k < N - 1; k++)
    for (int i = k + 1; i < N; i++) {
      double f = GR[i][k] / GR[k][k];
      for (int j = 0; j < N; j++)
        GR[i][j] -= f * GR[k][j];
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      bad += G[i][j] != GR[i][j];

  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  return bad != 0;
}
// EXEC: every schedule ok
