// The OpenMP-offload variant: `omp target teams distribute parallel for` on
// device pointers in the offload companion, functions the body calls copied
// into `declare target` (static, so that they do not clash with the host
// program's), reductions through the OpenMP reduction clause, and the
// function installed in the host file under HCE_HAVE_OMP_VARIANTS.
//
// RUN: %hce-translate %s -o %t.c --offload-out %t.off.c
// RUN: FileCheck %s --input-file %t.off.c
// RUN: FileCheck %s --input-file %t.c --check-prefix=HOST
// RUN: %clang -fsyntax-only -fopenmp -Wall -Werror -DHCE_HAVE_OMP_VARIANTS -I%hce-include %t.c
// RUN: %clang -fopenmp -DHCE_HAVE_OMP_VARIANTS -I%hce-include -c %t.c -o %t.host.o
// With clang's offload toolchain the companion compiles, links with the
// host program and runs here even without a GPU (the mock runtime runs the
// CPU variant; libomptarget finds no device):
// RUN: %if omp-offload %{ %offload-cc -c %t.off.c -o %t.off.o %}
// RUN: %if omp-offload %{ %offload-cc -I%hce-include %t.host.o %t.off.o %mockrt -o %t.exe -lm %}
// RUN: %if omp-offload %{ %t.exe | FileCheck %s --check-prefix=EXEC %}

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
typedef float real;
static real scale(real x, int k) { return x * (real)k; }
double total(real x) { return x; } /* external linkage in the host program */

double run(int n, int k, real *a, const real *b) {
  double sum = 0;
  int cnt = 0;
#pragma hce co_exec map(tofrom: a[i:1]) map(to: b[i:1]) reduction(+: sum, cnt)
  for (int i = 0; i < n; i++) {
    a[i] = scale(b[i], k) + sqrtf(fabsf(a[i]));
    sum += total(a[i]);
    cnt += a[i] > 10;
  }
  return sum + cnt;
}

int main(void) {
  static real a[N], b[N];
  double ref = 0;
  int cnt = 0;
  for (int i = 0; i < N; i++) {
    a[i] = (real)(i % 7 + 1);
    b[i] = (real)(i % 5);
    real v = b[i] * 3 + sqrtf(a[i]);
    ref += v;
    cnt += v > 10;
  }
  double got = run(N, 3, a, b);
  printf("%s\n", fabs(got - (ref + cnt)) < 1e-3 ? "offload-variant ok" : "WRONG");
  return 0;
}

// CHECK: {{^}}#include <omp.h>
// CHECK: {{^}}#define N 1000
// CHECK: {{^}}typedef float real;
// CHECK: {{^}}#pragma omp declare target
// CHECK-NEXT: {{^}}#line {{[0-9]+}} "{{.*}}offload-variant.c"
// CHECK-NEXT: {{^}}static real scale(real x, int k) { return x * (real)k; }
// CHECK-NEXT: {{^}}#pragma omp end declare target
// CHECK-NEXT: {{^}}#pragma omp declare target
// CHECK-NEXT: {{^}}#line {{[0-9]+}} "{{.*}}offload-variant.c"
// CHECK-NEXT: {{^}}static double total(real x) { return x; }
// CHECK-NEXT: {{^}}#pragma omp end declare target
// CHECK: {{^}}int __hce_omp_0_{{[0-9a-f]+}}(int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,
// CHECK-NEXT: {{^}}    const void *__hce_args, void *__hce_red, int __hce_dev) {
// CHECK-NEXT: {{^}}  if (__hce_ub <= __hce_lb)
// CHECK-NEXT: {{^}}    return 0;
// CHECK-NEXT: {{^}}  if (__hce_dev < 0 || __hce_dev >= omp_get_num_devices())
// CHECK-NEXT: {{^}}    return 1;
// CHECK: {{^}}  real *a = (real *)__hce_ptrs[0];
// CHECK-NEXT: {{^}}  const real *b = (const real *)__hce_ptrs[1];
// CHECK-NEXT: {{^}}  const int k = ((const struct __hce_args_0 *)__hce_args)->k;
// CHECK-NEXT: {{^}}  double sum = *(double *)((char *)__hce_red + 0);
// CHECK-NEXT: {{^}}  int cnt = *(int *)((char *)__hce_red + 8);
// CHECK: {{^}}#pragma omp target teams distribute parallel for device(__hce_dev) is_device_ptr(a, b) firstprivate(__hce_init, __hce_step, k) map(tofrom: sum, cnt) reduction(+: sum, cnt)
// CHECK-NEXT: {{^}}  for (int64_t __hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {
// CHECK-NEXT: {{^}}    int i = (int)(__hce_init + __hce_k * __hce_step);
// CHECK: {{^}}  *(double *)((char *)__hce_red + 0) = sum;
// CHECK-NEXT: {{^}}  *(int *)((char *)__hce_red + 8) = cnt;
// CHECK-NEXT: {{^}}  return 0;

// HOST: {{^}}#ifdef HCE_HAVE_OMP_VARIANTS
// HOST-NEXT: {{^}}int __hce_omp_0_[[SUF:[0-9a-f]+]](int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,
// HOST-NEXT: {{^}}    const void *__hce_args, void *__hce_red, int __hce_dev);
// HOST-NEXT: {{^}}#endif
// HOST: {{^}}  __hce_r.cpu = __hce_cpu_0;
// HOST-NEXT: {{^}}#ifdef HCE_HAVE_OMP_VARIANTS
// HOST-NEXT: {{^}}  __hce_r.omp = __hce_omp_0_[[SUF]];
// HOST-NEXT: {{^}}#endif

// EXEC: offload-variant ok
