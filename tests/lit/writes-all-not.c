// map(from:) sections the translator must NOT flag HCE_MAP_WRITES_ALL: a
// write under a guard, in a branch, through a computed index, a partial
// inner range (claimed by the translator, refused by the site's check with
// the actual values), a loop that may break or continue, and an array that
// is read. kind 2 = HCE_MAP_FROM alone: the device starts from the current
// values, so elements the body leaves alone keep them. End to end on
// cpu,sim:0,sim:1 (sim memory starts as 0xFF bytes: a wrong flag would
// bring garbage home) every element is checked, written or not.
//
// RUN: %hce-translate -v %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// The mock runtime starts every from map from poison, so only the kinds are
// checked under it:
// RUN: env MOCK_HCE_VERBOSE=1 %t.exe > %t.kinds || true
// RUN: FileCheck %s --check-prefix=KIND --input-file %t.kinds
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: env HCE_DEVICES=cpu,sim:0,sim:1 HCE_SCHEDULE=static HCE_MIN_SHARE=0 HCE_STATS=%t.json OMP_NUM_THREADS=2 %t.e2e | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=STATS --input-file %t.json

#include <stdio.h>
#include <stdlib.h>

static unsigned rnd_state = 777u;
static double rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (double)((rnd_state >> 8) % 2000) / 100.0 - 10.0;
}

void guarded(int R, int N, const double *A, double *C) {
#pragma hce co_exec name("guarded") map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++)
      if (A[i * N + j] > 0)
        C[i * N + j] = A[i * N + j];
}
// NOTE: writes-all-not.c:[[@LINE-5]]:3: remark: map(from: C[i*N:N]) uploads the current values first (no HCE_MAP_WRITES_ALL): no assignment to 'C' runs in every iteration
// KIND: region guarded:
// KIND: map C kind=2

void branch(int R, int N, const double *A, double *C) {
#pragma hce co_exec name("branch") map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++) {
      if (j % 2)
        C[i * N + j] = A[i * N + j];
      else
        C[i * N + j] = -A[i * N + j];
    }
}
// NOTE: writes-all-not.c:[[@LINE-8]]:3: remark: map(from: C[i*N:N]) uploads the current values first (no HCE_MAP_WRITES_ALL): no assignment to 'C' runs in every iteration
// KIND: region branch:
// KIND: map C kind=2

void computed(int R, int N, const double *A, double *C) {
#pragma hce co_exec name("computed") map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++) {
      long c = (long)i * N + j;
      C[c] = 2 * A[c];
    }
}
// NOTE: writes-all-not.c:[[@LINE-6]]:3: remark: map(from: C[i*N:N]) uploads the current values first (no HCE_MAP_WRITES_ALL): the index of an assignment to 'C' is not affine in the loop variables over values known before the loop
// KIND: region computed:
// KIND: map C kind=2

void partial(int R, int N, double *C) {
#pragma hce co_exec name("partial") map(from: C[i*N:N])
  for (int i = 0; i < R; i++)
    for (int j = 1; j < N; j++)
      C[i * N + j] = i + j;
}
// NOTE: writes-all-not.c:[[@LINE-2]]:7: remark: map(from: C[i*N:N]) gets HCE_MAP_WRITES_ALL (no upload) when C[i * N + j] for 'j' in [1, N) cover its footprint, checked at the loop site
// KIND: region partial:
// KIND-NEXT: map C kind=2

void stops(int R, int N, const double *A, double *C) {
#pragma hce co_exec name("stops") map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++) {
      if (A[i * N + j] < -9)
        break;
      C[i * N + j] = A[i * N + j];
    }
}
// NOTE: writes-all-not.c:[[@LINE-7]]:3: remark: map(from: C[i*N:N]) uploads the current values first (no HCE_MAP_WRITES_ALL): the body has a 'break'
// KIND: region stops:
// KIND: map C kind=2

void skips(int R, int N, const double *A, double *C) {
#pragma hce co_exec name("skips") map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < R; i++) {
    if (i % 3 == 0)
      continue;
    for (int j = 0; j < N; j++)
      C[i * N + j] = A[i * N + j];
  }
}
// NOTE: writes-all-not.c:[[@LINE-7]]:3: remark: map(from: C[i*N:N]) uploads the current values first (no HCE_MAP_WRITES_ALL): the body has a 'continue'
// KIND: region skips:
// KIND: map C kind=2

void reread(int R, int N, const double *A, double *C) {
#pragma hce co_exec name("reread") map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N; j++) {
      C[i * N + j] = A[i * N + j];
      C[i * N + j] += 1;
    }
}
// NOTE: writes-all-not.c:[[@LINE-6]]:3: remark: map(from: C[i*N:N]) uploads the current values first (no HCE_MAP_WRITES_ALL): 'C' is read, or used other than as the target of '='
// KIND: region reread:
// KIND: map C kind=2

static int check(int R, int N, const double *C, const double *Ref) {
  int bad = 0;
  for (int e = 0; e < R * N; e++)
    bad += C[e] != Ref[e];
  return bad;
}

int main(void) {
  enum { R = 43, N = 11 };
  double *A = malloc(sizeof(double) * R * N), *C = malloc(sizeof(double) * R * N);
  double *Ref = malloc(sizeof(double) * R * N);
  int bad = 0;
  for (int e = 0; e < R * N; e++)
    A[e] = rnd();
#define RESET()                                                                            \
  for (int e = 0; e < R * N; e++)                                                          \
  C[e] = Ref[e] = rnd()

  RESET();
  guarded(R, N, A, C);
  for (int e = 0; e < R * N; e++)
    if (A[e] > 0)
      Ref[e] = A[e];
  bad += check(R, N, C, Ref);

  RESET();
  branch(R, N, A, C);
  for (int e = 0; e < R * N; e++)
    Ref[e] = e % N % 2 ? A[e] : -A[e];
  bad += check(R, N, C, Ref);

  RESET();
  computed(R, N, A, C);
  for (int e = 0; e < R * N; e++)
    Ref[e] = 2 * A[e];
  bad += check(R, N, C, Ref);

  RESET();
  partial(R, N, C);
  for (int e = 0; e < R * N; e++)
    if (e % N)
      Ref[e] = e / N + e % N;
  bad += check(R, N, C, Ref);

  RESET();
  stops(R, N, A, C);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < N && A[i * N + j] >= -9; j++)
      Ref[i * N + j] = A[i * N + j];
  bad += check(R, N, C, Ref);

  RESET();
  skips(R, N, A, C);
  for (int e = 0; e < R * N; e++)
    if (e / N % 3)
      Ref[e] = A[e];
  bad += check(R, N, C, Ref);

  RESET();
  reread(R, N, A, C);
  for (int e = 0; e < R * N; e++)
    Ref[e] = A[e] + 1;
  bad += check(R, N, C, Ref);

  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  free(A), free(C), free(Ref);
  return bad != 0;
}
// EXEC: ok: 0 wrong
// The partial region uploaded the host's values to the simulated devices.
// STATS: "name":"partial"
// STATS-SAME: "device":"sim:0","iterations":{{[1-9][0-9]*}},{{[^}]*}}"bytes_to_device":{{[1-9]}}
