// A section [0:N] of a dimension declared [N + PAD] (issue 13.4). With PAD
// 0 (a macro, a const variable or an enumerator that folds to the extent)
// it is the whole dimension: the three planes of A are one run. With PAD >
// 0 the section is strided in two inner dimensions; the dimension in
// between is widened to whole rows (a superset: the padding rows move too,
// and come back unchanged), which -v reports. A VLA whose padding is only
// known at run time is widened too (one run again when the padding is 0).
// End to end on the CPU and on CPU + two simulated devices with every
// scheduler; the padding must keep its values.
//
// RUN: %hce-translate -v %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include -c %t.c -o %t.o
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: sh %S/Inputs/every_schedule.sh %hce-include/hce/names.def %t.json %t.e2e | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <string.h>

#define P 9
#define N 6
#define PAD 0
#define PAD2 2
enum { ZERO = 0, EN = N };
const int CN = N;

static unsigned st = 11u;
static double rnd(void) {
  st = st * 1103515245u + 12345u;
  return (double)((st >> 8) % 1000) / 100.0 - 5.0;
}

double A[P][N + PAD][N + PAD], B[P][N + PAD][N + PAD];
double C[P][N + PAD2][N + PAD2], E[P][N + PAD2][N + PAD2];
double W[2 * P][N + PAD2][N + PAD2];

// PAD 0: [0:N] is the whole dimension, however it is spelled.
void whole(void) {
#pragma hce co_exec map(to: A[i-1:3][0:N][0:N]) map(from: B[i][ZERO:CN][0:EN])
  for (int i = 1; i < P - 1; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        B[i][j][k] = A[i - 1][j][k] + 2 * A[i][j][k] + A[i + 1][j][k];
}
// CHECK: { /* map A[i-1:3][0:N][0:N] */
// CHECK: __hce_m[0].len = (int64_t)(108);
// CHECK-NEXT: __hce_m[0].blocks = 1;
// CHECK: { /* map B[i][ZERO:CN][0:EN] */
// CHECK: __hce_m[1].len = (int64_t)(36);
// CHECK-NEXT: __hce_m[1].blocks = 1;

// PAD2 > 0: strided. E[i] is one level of blocks (N rows of N); C's three
// planes take whole rows of the padded dimension.
void padded(void) {
#pragma hce co_exec map(to: C[i-1:3][0:N][0:N]) map(from: E[i][0:N][0:N])
  for (int i = 1; i < P - 1; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        E[i][j][k] = C[i - 1][j][k] - C[i + 1][j][k];
}
// NOTE: sections-pad.c:[[@LINE-6]]:29: remark: the section C[i-1:3][0:N][0:N] takes part of more than one inner dimension: it moves as whole dimension 1 of 'C' (its elements outside the section are kept as they are)
// NOTE-NOT: E[i][0:N][0:N] takes part
// CHECK: { /* map C[i-1:3][0:N][0:N] */
// CHECK: __hce_m[0].len = (int64_t)(N);
// CHECK-NEXT: __hce_m[0].blocks = (int64_t)(24);
// CHECK-NEXT: __hce_m[0].stride = (int64_t)(8);
// CHECK: { /* map E[i][0:N][0:N] */
// CHECK: __hce_m[1].blocks = (int64_t)(N);
// CHECK-NEXT: __hce_m[1].stride = (int64_t)(8);

// A written widened section: two planes per iteration, their padding rows
// in the footprint but never written.
void written(void) {
#pragma hce co_exec map(from: W[2*i:2][0:N][0:N])
  for (int i = 0; i < P; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        W[2 * i][j][k] = i + j - k;
        W[2 * i + 1][j][k] = i - j + k;
      }
}
// NOTE: sections-pad.c:[[@LINE-8]]:31: remark: the section W[2*i:2][0:N][0:N] takes part of more than one inner dimension: it moves as whole dimension 1 of 'W'

// A VLA: the padding is known at run time only.
void vla(int p, int n, int pad, double V[p][n + pad][n + pad], double R[p][n + pad][n + pad]) {
#pragma hce co_exec map(to: V[i-1:3][0:n][0:n]) map(from: R[i][0:n][0:n])
  for (int i = 1; i < p - 1; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        R[i][j][k] = V[i - 1][j][k] * V[i + 1][j][k];
}
// NOTE: sections-pad.c:[[@LINE-6]]:29: remark: the section V[i-1:3][0:n][0:n] takes part of more than one inner dimension: it moves as whole dimension 1 of 'V'

static int check_vla(int pad) {
  int n = N, p = P, bad = 0;
  double V[P][N + 3][N + 3], R[P][N + 3][N + 3], RR[P][N + 3][N + 3];
  double (*v)[n + pad][n + pad] = (double (*)[n + pad][n + pad])V;
  double (*r)[n + pad][n + pad] = (double (*)[n + pad][n + pad])R;
  double (*rr)[n + pad][n + pad] = (double (*)[n + pad][n + pad])RR;
  for (int i = 0; i < p; i++)
    for (int j = 0; j < n + pad; j++)
      for (int k = 0; k < n + pad; k++) {
        v[i][j][k] = rnd();
        r[i][j][k] = rr[i][j][k] = rnd();
      }
  vla(p, n, pad, v, r);
  for (int i = 1; i < p - 1; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        rr[i][j][k] = v[i - 1][j][k] * v[i + 1][j][k];
  for (int i = 0; i < p; i++)
    for (int j = 0; j < n + pad; j++)
      for (int k = 0; k < n + pad; k++)
        bad += r[i][j][k] != rr[i][j][k];
  return bad;
}

int main(void) {
  static double BR[P][N + PAD][N + PAD], ER[P][N + PAD2][N + PAD2], WR[2 * P][N + PAD2][N + PAD2];
  int bad = 0;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < N + PAD2; j++)
      for (int k = 0; k < N + PAD2; k++) {
        if (j < N + PAD && k < N + PAD) {
          A[i][j][k] = rnd();
          B[i][j][k] = BR[i][j][k] = rnd();
        }
        C[i][j][k] = rnd();
        E[i][j][k] = ER[i][j][k] = rnd();
        W[2 * i][j][k] = WR[2 * i][j][k] = rnd();
        W[2 * i + 1][j][k] = WR[2 * i + 1][j][k] = rnd();
      }
  whole();
  padded();
  written();
  for (int i = 1; i < P - 1; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        BR[i][j][k] = A[i - 1][j][k] + 2 * A[i][j][k] + A[i + 1][j][k];
        ER[i][j][k] = C[i - 1][j][k] - C[i + 1][j][k];
      }
  for (int i = 0; i < P; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        WR[2 * i][j][k] = i + j - k;
        WR[2 * i + 1][j][k] = i - j + k;
      }
  bad += memcmp(B, BR, sizeof B) != 0;
  bad += memcmp(E, ER, sizeof E) != 0; // the padding too
  bad += memcmp(W, WR, sizeof W) != 0;
  bad += check_vla(0);
  bad += check_vla(3);
  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  return bad != 0;
}
// EXEC: every schedule ok
