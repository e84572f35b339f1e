// The reference's 3-D halo, `A[i-1:3][0:N][0:N]` (three planes), on arrays
// declared `[N + PAD]` with PAD 0 (issue 13.4), on a pointer to planes and
// on a VLA parameter: each is one contiguous run per iteration. A 3-D heat
// stencil over time steps, alone and inside `#pragma hce data`, end to end
// on the CPU and on CPU + two simulated devices with every scheduler,
// against the sequential loops.
//
// RUN: %hce-translate %s -o %t.c 2>&1 | count 0
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include -c %t.c -o %t.o
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: sh %S/Inputs/every_schedule.sh %hce-include/hce/names.def %t.json %t.e2e | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <string.h>

#define P 24
#define N 10
#define PAD 0
#define STEPS 3

static unsigned st = 5u;
static double rnd(void) {
  st = st * 1103515245u + 12345u;
  return (double)((st >> 8) % 1000) / 100.0 - 5.0;
}

static double A[P][N + PAD][N + PAD], B[P][N + PAD][N + PAD];

static double at(double (*X)[N][N], int i, int j, int k) {
  return j < 0 || j >= N || k < 0 || k >= N ? 0.0 : X[i][j][k];
}

// One step, in: the planes i-1..i+1 of `in`; out: plane i of `out`.
void step(double (*in)[N + PAD][N + PAD], double (*out)[N + PAD][N + PAD]) {
#pragma hce co_exec map(to: in[i-1:3][0:N][0:N]) map(from: out[i][0:N][0:N])
  for (int i = 1; i < P - 1; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        out[i][j][k] = 0.4 * in[i][j][k] + 0.1 * (in[i - 1][j][k] + in[i + 1][j][k]) +
                       0.1 * (at(in, i, j - 1, k) + at(in, i, j + 1, k)) +
                       0.1 * (at(in, i, j, k - 1) + at(in, i, j, k + 1));
}
// CHECK: { /* map in[i-1:3][0:N][0:N] */
// CHECK: __hce_m[0].len = (int64_t)(300);
// CHECK-NEXT: __hce_m[0].blocks = 1;
// CHECK: { /* map out[i][0:N][0:N] */
// CHECK: __hce_m[1].len = (int64_t)(100);
// CHECK-NEXT: __hce_m[1].blocks = 1;

// The same stencil on global arrays, time steps inside a data region.
void steps_resident(void) {
#pragma hce data map(tofrom: A[0:P][0:N][0:N], B[0:P][0:N][0:N])
  for (int t = 0; t < STEPS; t++) {
#pragma hce co_exec map(to: A[i-1:3][0:N][0:N]) map(from: B[i][0:N][0:N])
    for (int i = 1; i < P - 1; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++)
          B[i][j][k] = 0.5 * A[i][j][k] + 0.25 * (A[i - 1][j][k] + A[i + 1][j][k]);
#pragma hce co_exec map(to: B[i-1:3][0:N][0:N]) map(from: A[i][0:N][0:N])
    for (int i = 1; i < P - 1; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++)
          A[i][j][k] = 0.5 * B[i][j][k] + 0.25 * (B[i - 1][j][k] + B[i + 1][j][k]);
  }
}
// CHECK: { /* map A[i-1:3][0:N][0:N] */
// CHECK: .len = (int64_t)(300);
// CHECK-NEXT: .blocks = 1;

// A VLA parameter: dimensions spelled as declared are whole.
void vla(int p, int n, double X[p][n][n], double Y[p][n][n]) {
#pragma hce co_exec map(to: X[i-1:3][0:n][0:n]) map(from: Y[i][0:n][0:n])
  for (int i = 1; i < p - 1; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        Y[i][j][k] = X[i - 1][j][k] - X[i + 1][j][k] + X[i][j][k];
}
// CHECK: { /* map X[i-1:3][0:n][0:n] */
// CHECK: .len = (int64_t)((int64_t)(3) * (int64_t)(sizeof((X)[0]) / sizeof((X)[0][0])) * (int64_t)(sizeof((X)[0][0]) / sizeof((X)[0][0][0])));
// CHECK-NEXT: .blocks = 1;

int main(void) {
  static double U[P][N][N], V[P][N][N], UR[P][N][N], VR[P][N][N], AR[P][N][N], BR[P][N][N];
  int bad = 0;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        U[i][j][k] = UR[i][j][k] = rnd();
        V[i][j][k] = VR[i][j][k] = rnd();
        A[i][j][k] = AR[i][j][k] = rnd();
        B[i][j][k] = BR[i][j][k] = rnd();
      }
  for (int t = 0; t < STEPS; t++) {
    step(U, V);
    step(V, U);
  }
  for (int t = 0; t < STEPS; t++) {
    for (int r = 0; r < 2; r++) {
      double (*in)[N][N] = r ? VR : UR, (*out)[N][N] = r ? UR : VR;
      for (int i = 1; i < P - 1; i++)
        for (int j = 0; j < N; j++)
          for (int k = 0; k < N; k++)
            out[i][j][k] = 0.4 * in[i][j][k] + 0.1 * (in[i - 1][j][k] + in[i + 1][j][k]) +
                           0.1 * (at(in, i, j - 1, k) + at(in, i, j + 1, k)) +
                           0.1 * (at(in, i, j, k - 1) + at(in, i, j, k + 1));
    }
  }
  bad += memcmp(U, UR, sizeof U) != 0;
  bad += memcmp(V, VR, sizeof V) != 0;

  steps_resident();
  for (int t = 0; t < STEPS; t++) {
    for (int i = 1; i < P - 1; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++)
          BR[i][j][k] = 0.5 * AR[i][j][k] + 0.25 * (AR[i - 1][j][k] + AR[i + 1][j][k]);
    for (int i = 1; i < P - 1; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++)
          AR[i][j][k] = 0.5 * BR[i][j][k] + 0.25 * (BR[i - 1][j][k] + BR[i + 1][j][k]);
  }
  bad += memcmp(A, AR, sizeof A) != 0;
  bad += memcmp(B, BR, sizeof B) != 0;

  vla(P, N, U, V);
  for (int i = 1; i < P - 1; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        VR[i][j][k] = UR[i - 1][j][k] - UR[i + 1][j][k] + UR[i][j][k];
  bad += memcmp(V, VR, sizeof V) != 0;
  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  return bad != 0;
}
// EXEC: every schedule ok
