// The CPU variant flattens a rectangular nest whose inner iterations are
// independent: the outer loop and the first inner loop become one space of
// (row, column) pairs cut into equal pieces, so that a chunk of fewer rows
// than the team has threads still keeps every thread busy (as collapse(2)).
// Covered: a plain 2-D nest, a reduction, a third level kept as written,
// statements before the inner loop, a `<=` loop with a step, and size_t.
// Run under the mock runtime (its first chunk is one row) with more threads
// than that chunk has rows, and end to end on the CPU and a simulated device.
//
// RUN: %hce-translate -v %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file %t.c
// RUN: FileCheck %s --check-prefix=FLAT --input-file %t.c
// The descriptor says so (cpu_flat): the runtime probes the CPU with one row.
// FLAT: __hce_r.cpu = __hce_cpu_0;
// FLAT-NEXT: __hce_r.cpu_flat = 1;
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env OMP_NUM_THREADS=5 %t.exe | FileCheck %s --check-prefix=EXEC
// Pieces of several rows (2 threads: two pieces a thread) and more threads
// than a one-row chunk has pairs (16).
// RUN: env OMP_NUM_THREADS=2 %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: env OMP_NUM_THREADS=16 %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// Static: both devices work in every region (STATS).  hguided: chunks of
// every size; a device that asked after the others had taken everything
// (sim:0's controller starting late under ASan) must be reported left out.
// RUN: env HCE_DEVICES=cpu,sim:0 HCE_SCHEDULE=static HCE_STATS=%t.json OMP_NUM_THREADS=4 %t.e2e | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=STATS --input-file %t.json
// RUN: env HCE_DEVICES=cpu,sim:0 HCE_SCHEDULE=hguided HCE_STATS=%t-hg.json OMP_NUM_THREADS=4 %t.e2e | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=HGUIDED --input-file %t-hg.json

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned rnd_state = 2024u;
static double rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (double)((rnd_state >> 8) % 2000) / 100.0 - 10.0;
}

void add(int M, int N, const double *A, const double *B, double *C) {
#pragma hce co_exec map(to: A[i*N:N], B[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      C[i * N + j] = A[i * N + j] + B[i * N + j];
}
// NOTE: cpu-variant-collapse.c:[[@LINE-4]]:3: remark: the CPU variant runs the outer loop and 'j' as one parallel space (as collapse(2)): the inner loop provably carries no dependence
// CHECK-LABEL: static void __hce_cpu_0(
// CHECK: const int __hce_j0 = (int)(0);
// CHECK: const int __hce_jb = (int)(N);
// Each thread the same number of pieces, of 256 pairs or more where the
// chunk has enough: a piece repeats the statements before the inner loop.
// CHECK: const int64_t __hce_team = omp_get_max_threads() > 0 ? omp_get_max_threads() : 1;
// CHECK: int64_t __hce_per = __hce_tot / 256 / __hce_team;
// CHECK-NEXT: if (__hce_per > 4096 / __hce_team)
// CHECK-NEXT: __hce_per = 4096 / __hce_team;
// CHECK-NEXT: if (__hce_per < 1)
// CHECK-NEXT: __hce_per = 1;
// CHECK-NEXT: __hce_np = __hce_per * __hce_team < __hce_tot ? __hce_per * __hce_team : __hce_tot;
// CHECK: #pragma omp parallel for
// CHECK-NEXT: for (__hce_p = 0; __hce_p < __hce_np; ++__hce_p) {
// CHECK: int i = (int)(__hce_init + (__hce_lb + __hce_r) * __hce_step);
// CHECK: for (__hce_c = __hce_cb; __hce_c < __hce_ce; ++__hce_c) {
// CHECK-NEXT: int j = (int)((uint64_t)__hce_j0 + (uint64_t)__hce_c * 1u);

double dot_rows(int M, int N, const double *A, const double *B) {
  double s = 0;
#pragma hce co_exec map(to: A[i*N:N], B[i*N:N]) reduction(+: s)
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      s += A[i * N + j] * B[i * N + j];
  return s;
}
// NOTE: cpu-variant-collapse.c:[[@LINE-5]]:3: remark: the CPU variant runs the outer loop and 'j' as one parallel space
// CHECK-LABEL: static void __hce_cpu_1(
// CHECK: #pragma omp parallel for reduction(+: s)
// CHECK-NEXT: for (__hce_p = 0;

// Three levels: 'j' joins the outer loop, 'k' runs as written.
void scale3(int M, int N, int K, const double *A, double *B) {
#pragma hce co_exec map(to: A[i*N*K:N*K]) map(from: B[i*N*K:N*K])
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++)
        B[(i * N + j) * K + k] = 2.0 * A[(i * N + j) * K + k] + k;
}
// NOTE: cpu-variant-collapse.c:[[@LINE-5]]:3: remark: the CPU variant runs the outer loop and 'j' as one parallel space
// CHECK-LABEL: static void __hce_cpu_2(
// CHECK: int j = (int)((uint64_t)__hce_j0 + (uint64_t)__hce_c * 1u);
// CHECK: for (int k = (int)(0); k < (K); k += (int)1)

// Statements before the inner loop run for each piece of a row.
void border(int M, int N, const double *A, double *B) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: B[i*N:N])
  for (int i = 0; i < M; i++) {
    B[i * N] = -A[i * N];
    for (int j = 1; j < N; j++)
      B[i * N + j] = A[i * N + j] - A[i * N + j - 1];
  }
}
// NOTE: cpu-variant-collapse.c:[[@LINE-6]]:3: remark: the CPU variant runs the outer loop and 'j' as one parallel space
// CHECK-LABEL: static void __hce_cpu_3(
// CHECK: const int __hce_j0 = (int)(1);
// CHECK: B[i * N] = -A[i * N];
// CHECK-NEXT: for (__hce_c = __hce_cb; __hce_c < __hce_ce; ++__hce_c) {

// `<=` with a step of 3, and an unsigned 64-bit counter.
void strided(int M, size_t N, const double *A, double *C) {
#pragma hce co_exec map(to: A[i*N:N]) map(tofrom: C[i*N:N])
  for (int i = 0; i < M; i++)
    for (size_t j = 1; j <= N - 1; j += 3)
      C[i * N + j] = A[i * N + j] * 3.0;
}
// NOTE: cpu-variant-collapse.c:[[@LINE-4]]:3: remark: the CPU variant runs the outer loop and 'j' as one parallel space
// CHECK-LABEL: static void __hce_cpu_4(
// CHECK: const uint64_t __hce_q = ((uint64_t)__hce_jb - (uint64_t)__hce_j0) / 3;

int main(void) {
  enum { M = 37, N = 29, K = 5 };
  double *A = malloc(sizeof(double) * M * N * K), *B = malloc(sizeof(double) * M * N * K);
  double *C = malloc(sizeof(double) * M * N * K), *R = malloc(sizeof(double) * M * N * K);
  int bad = 0;
  for (int e = 0; e < M * N * K; e++)
    A[e] = rnd(), B[e] = rnd(), C[e] = rnd();

  add(M, N, A, B, C);
  for (int e = 0; e < M * N; e++)
    bad += C[e] != A[e] + B[e];

  double s = dot_rows(M, N, A, B), ref = 0, mag = 0;
  for (int e = 0; e < M * N; e++)
    ref += A[e] * B[e], mag += A[e] * B[e] > 0 ? A[e] * B[e] : -A[e] * B[e];
  bad += (s - ref > 1e-9 * mag) || (ref - s > 1e-9 * mag);

  scale3(M, N, K, A, B);
  for (int e = 0; e < M * N * K; e++)
    bad += B[e] != 2.0 * A[e] + e % K;

  border(M, N, A, B);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      bad += B[i * N + j] != (j ? A[i * N + j] - A[i * N + j - 1] : -A[i * N]);

  for (int e = 0; e < M * N; e++)
    R[e] = C[e] = rnd();
  strided(M, N, A, C);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      bad += C[i * N + j] != ((j - 1) % 3 == 0 && j >= 1 ? A[i * N + j] * 3.0 : R[i * N + j]);

  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  free(A), free(B), free(C), free(R);
  return bad != 0;
}
// EXEC: ok: 0 wrong
// Every region ran in part on the simulated device.
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// HGUIDED: "device":"sim:0","iterations":{{([1-9][0-9]*,[^}]*"left_out":0|0,[^}]*"left_out":1)}}
// HGUIDED: "device":"sim:0","iterations":{{([1-9][0-9]*,[^}]*"left_out":0|0,[^}]*"left_out":1)}}
// HGUIDED: "device":"sim:0","iterations":{{([1-9][0-9]*,[^}]*"left_out":0|0,[^}]*"left_out":1)}}
// HGUIDED: "device":"sim:0","iterations":{{([1-9][0-9]*,[^}]*"left_out":0|0,[^}]*"left_out":1)}}
// HGUIDED: "device":"sim:0","iterations":{{([1-9][0-9]*,[^}]*"left_out":0|0,[^}]*"left_out":1)}}
