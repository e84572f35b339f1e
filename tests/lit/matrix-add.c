// The paper's matrix addition (Fig. 9): shape of the generated code, that it
// compiles warning-free as C, and that it computes the right result when run
// against the mock runtime (which checks the declared row footprints).
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <stdlib.h>

void madd(int M, int N, const double *A, const double *B, double *C) {
#pragma hce co_exec schedule(fdets) map(to: A[i*N:N], B[i*N:N]) map(from: C[i*N:N])
#pragma omp parallel for
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      C[i * N + j] = A[i * N + j] + B[i * N + j];
}

int main(void) {
  int M = 53, N = 17;
  double *A = malloc(sizeof(double) * M * N);
  double *B = malloc(sizeof(double) * M * N);
  double *C = malloc(sizeof(double) * M * N);
  srand(7);
  for (int k = 0; k < M * N; k++) {
    A[k] = rand() % 1000 + 1;
    B[k] = rand() % 1000 + 1;
    C[k] = -1;
  }
  madd(M, N, A, B, C);
  for (int k = 0; k < M * N; k++)
    if (C[k] != A[k] + B[k]) {
      printf("mismatch at %d\n", k);
      return 1;
    }
  printf("matrix-add ok\n");
  return 0;
}

// CHECK: {{^}}#include <hce/hce.h>
// CHECK-NEXT: {{^}}#include <stdint.h>
// The CPU variant is flattened: it counts its pieces from the team's size.
// CHECK-NEXT: {{^}}#ifdef _OPENMP
// CHECK-NEXT: {{^}}#include <omp.h>
// CHECK-NEXT: {{^}}#endif
// C is written in full: the check of writes-all.c, once per file.
// CHECK-NEXT: {{^}}#ifndef HCE_WRITES_COVER_DEFINED
// CHECK: {{^}}#endif
// CHECK-NEXT: {{^}}#line 1 "{{.*}}matrix-add.c"
// CHECK: {{^}}struct __hce_args_0 {
// CHECK-NEXT: {{^}}  int64_t __hce_init;
// CHECK-NEXT: {{^}}  int64_t __hce_step;
// CHECK-NEXT: {{^}}  int N;
// CHECK-NEXT: {{^}}};
// CHECK-NEXT: {{^}}static void __hce_cpu_0(int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,
// CHECK-NEXT: {{^}}    const void *__hce_args, void *__hce_red) {
// CHECK-NEXT: {{^}}  const int64_t __hce_init = ((const struct __hce_args_0 *)__hce_args)->__hce_init;
// CHECK-NEXT: {{^}}  const int64_t __hce_step = ((const struct __hce_args_0 *)__hce_args)->__hce_step;
// CHECK-NEXT: {{^}}  const double *A = (const double *)__hce_ptrs[0];
// CHECK-NEXT: {{^}}  const double *B = (const double *)__hce_ptrs[1];
// CHECK-NEXT: {{^}}  double *C = (double *)__hce_ptrs[2];
// CHECK-NEXT: {{^}}  const int N = ((const struct __hce_args_0 *)__hce_args)->N;
// The nest runs as one space of (row, column) pairs (cpu-variant-collapse.c).
// CHECK: {{^}}  const int __hce_jb = (int)(N);
// CHECK: {{^}}#pragma omp parallel for{{$}}
// CHECK-NEXT: {{^}}  for (__hce_p = 0; __hce_p < __hce_np; ++__hce_p) {
// CHECK: {{^}}      int i = (int)(__hce_init + (__hce_lb + __hce_r) * __hce_step);
// CHECK: {{^}}          int j = (int)((uint64_t)__hce_j0 + (uint64_t)__hce_c * 1u);
// CHECK-NEXT: {{^}}#line 19 "{{.*}}matrix-add.c"
// CHECK-NEXT: {{^}}      C[i * N + j] = A[i * N + j] + B[i * N + j];
// CHECK: {{^}}}{{$}}
// CHECK-NEXT: {{^}}#line 14 "{{.*}}matrix-add.c"
// CHECK-NEXT: {{^}}void madd(int M, int N, const double *A, const double *B, double *C) {
// CHECK-NEXT: {{^}}{ /* hce co_exec region 0 */
// CHECK-NEXT: {{^}}  static void *__hce_site_0;
// CHECK-NEXT: {{^}}  struct __hce_args_0 __hce_a;
// CHECK-NEXT: {{^}}  static hce_region __hce_r0; /* never written */
// CHECK-NEXT: {{^}}  hce_region __hce_r = __hce_r0;
// CHECK-NEXT: {{^}}  hce_map __hce_m[3];
// CHECK-NEXT: {{^}}  const int64_t __hce_init = (int64_t)(int)(0);
// CHECK-NEXT: {{^}}  const int64_t __hce_step = 1;
// CHECK-NEXT: {{^}}  int64_t __hce_W = -1; /* -1: not as C would run it; refused */
// CHECK-NEXT: {{^}}  { /* the trip count as C runs the loop (see docs/translator.md) */
// CHECK-NEXT: {{^}}    const int __hce_bc = (int)(M);
// CHECK: {{^}}  __hce_a.__hce_init = __hce_init;
// CHECK-NEXT: {{^}}  __hce_a.__hce_step = __hce_step;
// CHECK-NEXT: {{^}}  __hce_a.N = N;
// CHECK-NEXT: {{^}}  { /* map A[i*N : N] */
// CHECK-NEXT: {{^}}    int64_t __hce_lo0, __hce_lo1;
// CHECK-NEXT: {{^}}    { int i = (int)(__hce_init); __hce_lo0 = (int64_t)(i*N); }
// CHECK-NEXT: {{^}}    { int i = (int)(__hce_init + __hce_step); __hce_lo1 = (int64_t)(i*N); }
// CHECK-NEXT: {{^}}    __hce_m[0].name = "A";
// CHECK-NEXT: {{^}}    __hce_m[0].host = (void *)A;
// CHECK-NEXT: {{^}}    __hce_m[0].elem_size = sizeof((A)[0]);
// CHECK-NEXT: {{^}}    __hce_m[0].kind = HCE_MAP_TO;
// CHECK-NEXT: {{^}}    __hce_m[0].scale = __hce_lo1 - __hce_lo0;
// CHECK-NEXT: {{^}}    __hce_m[0].offset = __hce_lo0;
// CHECK-NEXT: {{^}}    __hce_m[0].len = (int64_t)(N);
// CHECK-NEXT: {{^}}    __hce_m[0].blocks = 1;
// CHECK-NEXT: {{^}}    __hce_m[0].stride = 0;
// CHECK-NEXT: {{^}}    __hce_m[0].extent = 0;
// CHECK-NEXT: {{^}}  }
// CHECK: {{^}}    __hce_m[2].kind = HCE_MAP_FROM;
// CHECK: {{^}}  __hce_r.name = "matrix-add.c:15";
// CHECK-NEXT: {{^}}  __hce_r.schedule = "fdets";
// CHECK-NEXT: {{^}}  __hce_r.iterations = __hce_W;
// CHECK-NEXT: {{^}}  __hce_r.num_maps = 3;
// CHECK-NEXT: {{^}}  __hce_r.maps = __hce_m;
// CHECK-NEXT: {{^}}  __hce_r.num_reductions = 0;
// CHECK-NEXT: {{^}}  __hce_r.reductions = 0;
// CHECK-NEXT: {{^}}  __hce_r.args = &__hce_a;
// CHECK-NEXT: {{^}}  __hce_r.args_size = sizeof(__hce_a);
// CHECK-NEXT: {{^}}  __hce_r.cpu = __hce_cpu_0;
// CHECK-NEXT: {{^}}  __hce_r.cpu_flat = 1;
// CHECK-NEXT: {{^}}  __hce_r.site = &__hce_site_0;
// CHECK-NEXT: {{^}}  hce_co_exec_or_exit(&__hce_r);
// CHECK-NEXT: {{^}}}
// CHECK-NEXT: {{^}}#line 20 "{{.*}}matrix-add.c"
// CHECK-NEXT: {{^}}}
// The original pragmas are gone.
// CHECK-NOT: {{^}}#pragma hce
// RUN: not grep -n '^ *#pragma hce' %t.c

// EXEC-NOT: mismatch
// EXEC: {{^}}matrix-add ok
