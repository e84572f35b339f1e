// Multi-dimensional array sections, flattened row-major into hce_map:
// 2-D and 3-D arrays (globals and locals), PolyBench-style VLA parameters,
// pointers to arrays; whole rows, halos, partial rows (blocks/stride),
// broadcasts. The program runs under the mock runtime, which gives each
// chunk a poisoned copy of exactly the declared footprint (every block), so
// a wrong offset, length, block count or stride gives a wrong result.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env MOCK_HCE_VERBOSE=1 %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>

#define M 12
#define N 10
#define P 6

static double G[M][N], H[M][N];

// A whole row per iteration, on a global 2-D array: A[i][0:N] and A[i].
void rows(void) {
#pragma hce co_exec map(to: G[i][0:N]) map(from: H[i])
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      H[i][j] = 2 * G[i][j];
}
// The variant keeps the array type of a constant-size array.
// CHECK: {{^}}  double (*G)[10] = (double (*)[10])__hce_ptrs[0];
// CHECK-NEXT: {{^}}  double (*H)[10] = (double (*)[10])__hce_ptrs[1];
// CHECK-LABEL: void rows(void) {
// CHECK: {{^}}  { /* map G[i][0:N] */
// CHECK-NEXT: {{^}}    int64_t __hce_lo0, __hce_lo1;
// CHECK-NEXT: {{^}}    { int i = (int)(__hce_init); __hce_lo0 = (int64_t)((int64_t)(i) * 10); }
// CHECK: {{^}}    __hce_m[0].elem_size = sizeof((G)[0][0]);
// CHECK: {{^}}    __hce_m[0].len = (int64_t)(10);
// CHECK-NEXT: {{^}}    __hce_m[0].blocks = 1;
// CHECK: {{^}}  { /* map H[i] */
// CHECK: {{^}}    __hce_m[1].len = (int64_t)(10);

// PolyBench style: VLA parameters whose extents are macros or parameters.
// The extents are captured; the variant rebinds the pointer with them.
void jacobi_row(int n, int m, double A[n][m], double B[n][m]) {
#pragma hce co_exec map(to: A[i-1:3][0:m]) map(from: B[i][1:m-2])
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      B[i][j] = (A[i-1][j] + A[i][j-1] + A[i][j] + A[i][j+1] + A[i+1][j]) / 5;
}
// CHECK-LABEL: struct __hce_args_1 {
// CHECK-NEXT: {{^}}  int64_t __hce_init;
// CHECK-NEXT: {{^}}  int64_t __hce_step;
// CHECK-NEXT: {{^}}  int64_t __hce_ext_0_1;
// CHECK-NEXT: {{^}}  int64_t __hce_ext_1_1;
// CHECK: {{^}}  const int64_t __hce_ext_0_1 = ((const struct __hce_args_1 *)__hce_args)->__hce_ext_0_1;
// CHECK-NEXT: {{^}}  const int64_t __hce_ext_1_1 = ((const struct __hce_args_1 *)__hce_args)->__hce_ext_1_1;
// CHECK-NEXT: {{^}}  double (*A)[__hce_ext_0_1] = (double (*)[__hce_ext_0_1])__hce_ptrs[0];
// CHECK-NEXT: {{^}}  double (*B)[__hce_ext_1_1] = (double (*)[__hce_ext_1_1])__hce_ptrs[1];
// CHECK-LABEL: void jacobi_row(int n, int m, double A[n][m], double B[n][m]) {
// CHECK: {{^}}  __hce_a.__hce_ext_0_1 = (int64_t)(sizeof((A)[0]) / sizeof((A)[0][0]));
// CHECK: {{^}}  { /* map A[i-1:3][0:m] */
// CHECK: {{^}}    __hce_m[0].len = (int64_t)((int64_t)(3) * (int64_t)(sizeof((A)[0]) / sizeof((A)[0][0])));
// CHECK-NEXT: {{^}}    __hce_m[0].blocks = 1;
// CHECK: {{^}}  { /* map B[i][1:m-2] */
// CHECK: {{^}}    { int i = (int)(__hce_init); __hce_lo0 = (int64_t)((int64_t)(i) * (int64_t)(sizeof((B)[0]) / sizeof((B)[0][0])) + 1); }
// CHECK: {{^}}    __hce_m[1].len = (int64_t)(m-2);

// A halo of rows that are only partly needed: blocks of K elements, one row
// apart; the collapse test merges blocks that turn out to be whole rows.
void partial(int j0, double (*A)[N], double (*B)[N]) {
#pragma hce co_exec map(to: A[i-1:3][j0:4]) map(tofrom: B[i][j0:4])
  for (int i = 1; i < M - 1; i++)
    for (int j = j0; j < j0 + 4; j++)
      B[i][j] += A[i-1][j] + A[i+1][j];
}
// CHECK-LABEL: void partial(int j0, double (*A)[N], double (*B)[N]) {
// CHECK: {{^}}  { /* map A[i-1:3][j0:4] */
// CHECK: {{^}}    { int i = (int)(__hce_init); __hce_lo0 = (int64_t)((int64_t)(i-1) * 10 + j0); }
// CHECK: {{^}}    __hce_m[0].len = (int64_t)(4);
// CHECK-NEXT: {{^}}    __hce_m[0].blocks = (int64_t)(3);
// CHECK-NEXT: {{^}}    __hce_m[0].stride = (int64_t)(10);
// CHECK-NEXT: {{^}}    if (__hce_m[0].blocks > 1 && __hce_m[0].len == __hce_m[0].stride) { __hce_m[0].len *= __hce_m[0].blocks; __hce_m[0].blocks = 1; __hce_m[0].stride = 0; }

// 3-D: planes with a halo, a broadcast 2-D table, and a column.
void heat(int n, double A[n][P][P], double B[n][P][P], const double W[P][P],
          double col[M][N], double *out) {
#pragma hce co_exec map(to: A[i-1:3][0:P][0:P], W[0:P][0:P], col[0:M][i]) map(from: B[i][0:P][0:P], out[i:1])
  for (int i = 1; i < n - 1; i++) {
    for (int j = 0; j < P; j++)
      for (int k = 0; k < P; k++)
        B[i][j][k] = W[j][k] * (A[i-1][j][k] + A[i+1][j][k]) + A[i][j][k];
    double s = 0;
    for (int r = 0; r < M; r++)
      s += col[r][i];
    out[i] = s;
  }
}
// CHECK-LABEL: void heat(
// CHECK: {{^}}  { /* map A[i-1:3][0:P][0:P] */
// CHECK: {{^}}    __hce_m[0].len = (int64_t)(108);
// CHECK: {{^}}  { /* map W[0:P][0:P] */
// CHECK: {{^}}    __hce_m[1].scale = 0;
// CHECK: {{^}}    __hce_m[1].len = (int64_t)((int64_t)(P) * 6);
// CHECK: {{^}}  { /* map col[0:M][i] */
// CHECK: {{^}}    __hce_m[2].len = (int64_t)(1);
// CHECK-NEXT: {{^}}    __hce_m[2].blocks = (int64_t)(M);
// CHECK-NEXT: {{^}}    __hce_m[2].stride = (int64_t)(10);

// A local 2-D array and a whole-array map (A, no section).
double local_sum(void) {
  double L[4][5];
  double t = 0;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 5; b++)
      L[a][b] = a * 5 + b;
#pragma hce co_exec map(to: L) reduction(+: t)
  for (int i = 0; i < 4; i++)
    t += L[i][i] + L[3 - i][4];
  return t;
}
// CHECK-LABEL: double local_sum(void) {
// CHECK: {{^}}  { /* map L */
// CHECK: {{^}}    __hce_m[0].len = (int64_t)(20);

int main(void) {
  static double A[M][N], B[M][N], RB[M][N], V[M][P][P], VB[M][P][P],
      RVB[M][P][P], W[P][P], col[M][N], out[M], rout[M];
  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      G[i][j] = (i * 7 + j * 3) % 11 + 1;
      A[i][j] = (i * 5 + j * 13) % 17 - 3;
      B[i][j] = RB[i][j] = (i + 2 * j) % 5;
      col[i][j] = (i * j) % 7 + 0.5;
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < P; j++)
      for (int k = 0; k < P; k++)
        V[i][j][k] = (i * 31 + j * 7 + k) % 13 - 6, VB[i][j][k] = -1,
        RVB[i][j][k] = -1;
  for (int j = 0; j < P; j++)
    for (int k = 0; k < P; k++)
      W[j][k] = (j + k) % 3 + 1;
  for (int i = 0; i < M; i++)
    out[i] = rout[i] = -1;

  rows();
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      bad += H[i][j] != 2 * G[i][j];

  static double JA[M][N], JB[M][N];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      JA[i][j] = (i * 3 + j * j) % 19, JB[i][j] = -7;
  jacobi_row(M, N, JA, JB);
  for (int i = 1; i < M - 1; i++)
    for (int j = 1; j < N - 1; j++)
      bad += JB[i][j] != (JA[i-1][j] + JA[i][j-1] + JA[i][j] + JA[i][j+1] +
                          JA[i+1][j]) / 5;

  partial(3, A, B);
  for (int i = 1; i < M - 1; i++)
    for (int j = 3; j < 7; j++)
      RB[i][j] += A[i-1][j] + A[i+1][j];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      bad += B[i][j] != RB[i][j];

  heat(M, V, VB, W, col, out);
  for (int i = 1; i < M - 1; i++) {
    for (int j = 0; j < P; j++)
      for (int k = 0; k < P; k++)
        RVB[i][j][k] = W[j][k] * (V[i-1][j][k] + V[i+1][j][k]) + V[i][j][k];
    double s = 0;
    for (int r = 0; r < M; r++)
      s += col[r][i];
    rout[i] = s;
  }
  for (int i = 0; i < M; i++) {
    bad += out[i] != rout[i];
    for (int j = 0; j < P; j++)
      for (int k = 0; k < P; k++)
        bad += VB[i][j][k] != RVB[i][j][k];
  }

  double t = local_sum(), rt = 0;
  for (int i = 0; i < 4; i++)
    rt += (i * 5 + i) + ((3 - i) * 5 + 4);
  bad += t != rt;

  printf("mismatches: %d\n", bad);
  return bad != 0;
}
// EXEC: {{^}}region sections-multidim.c:23:
// EXEC-NEXT: {{^}}  map G kind=1 elem=8 scale=10 offset=0 len=10 blocks=1 stride=0
// EXEC-NEXT: {{^}}  map H kind=10 elem=8 scale=10 offset=0 len=10 blocks=1 stride=0
// EXEC: {{^}}  map A kind=1 elem=8 scale=10 offset=0 len=30 blocks=1 stride=0
// EXEC-NEXT: {{^}}  map B kind=10 elem=8 scale=10 offset=11 len=8 blocks=1 stride=0
// EXEC: {{^}}  map A kind=1 elem=8 scale=10 offset=3 len=4 blocks=3 stride=10
// EXEC-NEXT: {{^}}  map B kind=3 elem=8 scale=10 offset=13 len=4 blocks=1 stride=0
// EXEC: {{^}}  map A kind=1 elem=8 scale=36 offset=0 len=108 blocks=1 stride=0
// EXEC-NEXT: {{^}}  map W kind=1 elem=8 scale=0 offset=0 len=36 blocks=1 stride=0
// EXEC-NEXT: {{^}}  map col kind=1 elem=8 scale=1 offset=1 len=1 blocks=12 stride=10
// EXEC-NEXT: {{^}}  map B kind=10 elem=8 scale=36 offset=36 len=36 blocks=1 stride=0
// EXEC: {{^}}  map L kind=1 elem=8 scale=0 offset=0 len=20 blocks=1 stride=0
// EXEC: {{^}}mismatches: 0
