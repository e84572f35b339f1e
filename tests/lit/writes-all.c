// A map(from:) whose every element each iteration provably writes gets
// HCE_MAP_WRITES_ALL (8), so that no device uploads the host's values
// first: kind 10 = HCE_MAP_FROM | HCE_MAP_WRITES_ALL. The translator proves
// the writes run unconditionally (WriteCoverage, -v names them); the site
// checks with the actual values that they are exactly the footprint. Shapes:
// a row, a row written as border + interior, two elements per iteration,
// a 2-D array, interleaved halves (one box at two offsets).
// End to end on cpu,sim:0,sim:1 (sim memory starts as 0xFF bytes): the
// results are right and the from-only region uploads nothing.
//
// RUN: %hce-translate -v %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clangxx -x c++ -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env MOCK_HCE_VERBOSE=1 %t.exe | FileCheck %s --check-prefix=KIND
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: env HCE_DEVICES=cpu,sim:0,sim:1 HCE_SCHEDULE=static HCE_MIN_SHARE=0 HCE_STATS=%t.json OMP_NUM_THREADS=2 %t.e2e | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=STATS --input-file %t.json

#include <stdio.h>
#include <stdlib.h>

#define M 9

static unsigned rnd_state = 4242u;
static double rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (double)((rnd_state >> 8) % 2000) / 100.0 - 10.0;
}

// CHECK: static inline int __hce_writes_cover(

void fill(int R, int N, double *C) {
#pragma hce co_exec name("fill") map(from: C[i*N:N])
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++)
      C[i * N + j] = i - 0.5 * j;
}
// NOTE: writes-all.c:[[@LINE-2]]:7: remark: map(from: C[i*N:N]) gets HCE_MAP_WRITES_ALL (no upload) when C[i * N + j] for 'j' in [0, N) cover its footprint, checked at the loop site
// CHECK: __hce_wb0[0] = (int64_t)(i * N + j);
// CHECK: if (__hce_writes_cover(&__hce_m[0], 1, 1, __hce_wb0, __hce_wb1, __hce_wc, __hce_we))
// CHECK-NEXT: __hce_m[0].kind |= HCE_MAP_WRITES_ALL;
// KIND: region fill:
// KIND-NEXT: map C kind=10

void border(int R, int N, const double *A, double *B) {
#pragma hce co_exec name("border") map(to: A[i*N:N]) map(from: B[i*N:N])
  for (int i = 0; i < R; i++) {
    B[i * N] = A[i * N];
    B[i * N + N - 1] = A[i * N + N - 1];
    for (int j = 1; j < N - 1; j++)
      B[i * N + j] = 0.5 * (A[i * N + j - 1] + A[i * N + j + 1]);
  }
}
// NOTE: writes-all.c:[[@LINE-6]]:5: remark: map(from: B[i*N:N]) gets HCE_MAP_WRITES_ALL (no upload) when B[i * N], B[i * N + N - 1], B[i * N + j] for 'j' in [1, N - 1) cover its footprint
// KIND: region border:
// KIND: map B kind=10

void pairs(int n, double *y) {
#pragma hce co_exec name("pairs") map(from: y[2*i:2])
  for (int i = n - 1; i >= 0; i--) {
    y[2 * i + 1] = -i;
    y[2 * i] = i;
  }
}
// NOTE: writes-all.c:[[@LINE-4]]:5: remark: map(from: y[2*i:2]) gets HCE_MAP_WRITES_ALL
// KIND: region pairs:
// KIND-NEXT: map y kind=10

void rows2d(int n, double (*c)[M]) {
#pragma hce co_exec name("rows2d") map(from: c[i:1][0:M])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < M; j++)
      c[i][j] = i * j;
}
// NOTE: writes-all.c:[[@LINE-2]]:7: remark: map(from: c[i:1][0:M]) gets HCE_MAP_WRITES_ALL (no upload) when c[i][j] for 'j' in [0, M)
// CHECK: __hce_wb0[0] = ((int64_t)(i)) * (int64_t)(sizeof((c)[0]) / sizeof((c)[0][0])) + (int64_t)(j);
// KIND: region rows2d:
// KIND-NEXT: map c kind=10

void halves(int R, int N, const double *A, double *D) {
#pragma hce co_exec name("halves") map(to: A[i*N:N]) map(from: D[2*i*N:2*N])
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++) {
      D[2 * i * N + 2 * j] = A[i * N + j];
      D[2 * i * N + 2 * j + 1] = -A[i * N + j];
    }
}
// NOTE: writes-all.c:[[@LINE-4]]:7: remark: map(from: D[2*i*N:2*N]) gets HCE_MAP_WRITES_ALL
// KIND: region halves:
// KIND: map D kind=10

int main(void) {
  enum { R = 41, N = 13 };
  double *A = (double *)malloc(sizeof(double) * R * N), *B = (double *)malloc(sizeof(double) * R * N);
  double *C = (double *)malloc(sizeof(double) * R * N), *D = (double *)malloc(sizeof(double) * 2 * R * N);
  double *y = (double *)malloc(sizeof(double) * 2 * R);
  double (*c)[M] = (double (*)[M])malloc(sizeof(double) * R * M);
  int bad = 0;
  for (int e = 0; e < R * N; e++)
    A[e] = rnd(), B[e] = C[e] = rnd();

  fill(R, N, C);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++)
      bad += C[i * N + j] != i - 0.5 * j;

  border(R, N, A, B);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++)
      bad += B[i * N + j] != (j == 0 || j == N - 1
                                  ? A[i * N + j]
                                  : 0.5 * (A[i * N + j - 1] + A[i * N + j + 1]));

  pairs(R, y);
  for (int i = 0; i < R; i++)
    bad += y[2 * i] != i || y[2 * i + 1] != -i;

  rows2d(R, c);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < M; j++)
      bad += c[i][j] != i * j;

  halves(R, N, A, D);
  for (int e = 0; e < R * N; e++)
    bad += D[2 * e] != A[e] || D[2 * e + 1] != -A[e];

  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  free(A), free(B), free(C), free(D), free(y), free(c);
  return bad != 0;
}
// EXEC: ok: 0 wrong
// The from-only region moved nothing to the devices, and they worked.
// STATS: "name":"fill"
// STATS-SAME: "device":"sim:0","iterations":{{[1-9][0-9]*}},{{[^}]*}}"bytes_to_device":0,
// STATS-SAME: "device":"sim:1","iterations":{{[1-9][0-9]*}},{{[^}]*}}"bytes_to_device":0,
