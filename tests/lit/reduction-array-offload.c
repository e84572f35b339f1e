// The OpenMP-offload variant of an array reduction: the chunk's private
// elements (in the runtime's host block) are mapped as an array section and
// reduced on the device by OpenMP's own array-section reduction, with the
// section's constant length (clang offloads no other). A length known only
// at run time gives the region no offload variant, with the reason.
//
// RUN: %hce-translate %s -o %t.c --offload-out %t.off.c 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file %t.off.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.off.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -DHCE_HAVE_OMP_VARIANTS -I%hce-include %t.c
// RUN: %if omp-offload %{ %offload-cc -c %t.off.c -o %t.off.o %}

#define NB 16

void minmax(int n, const float *v, float *lo_of, float *hi_of) {
#pragma hce co_exec map(to: v[i:1]) reduction(min: lo_of[0:NB]) reduction(max: hi_of[1:NB-1])
  for (int i = 0; i < n; i++) {
    int b = 1 + (int)v[i] % (NB - 1);
    if (v[i] < lo_of[b])
      lo_of[b] = v[i];
    if (v[i] > hi_of[b])
      hi_of[b] = v[i];
  }
}
// CHECK: {{^}}  float *lo_of = (float *)((char *)__hce_red + *(const int64_t *)((char *)__hce_red + 0)) - __hce_rlo_0;
// CHECK: {{^}}#pragma omp target teams distribute parallel for device(__hce_dev) is_device_ptr(v) firstprivate(__hce_init, __hce_step, __hce_rlo_0, __hce_rlen_0, __hce_rlo_1, __hce_rlen_1) map(tofrom: lo_of[__hce_rlo_0:16], hi_of[__hce_rlo_1:15]) reduction(min: lo_of[__hce_rlo_0:16]) reduction(max: hi_of[__hce_rlo_1:15]){{$}}
// CHECK-NOT: = lo_of;
// CHECK: {{^}}  return 0;

void sums(int n, const float *v, double *s, int nb) {
// DIAG: reduction-array-offload.c:[[@LINE+1]]:34: warning: this co_exec loop gets no OpenMP-offload variant and runs on the CPU only: the length of the array reduction 's' is not a constant, and OpenMP offload reduces array sections of constant length only
#pragma hce co_exec reduction(+: s[0:nb]) map(to: v[i:1])
  for (int i = 0; i < n; i++)
    s[i % nb] += v[i];
}
// CHECK-NOT: __hce_omp_1
