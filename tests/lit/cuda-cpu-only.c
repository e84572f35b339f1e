// A loop that calls something a GPU cannot run gets a warning, no CUDA or
// offload variant, and runs on the CPU; the other loops of the file keep
// theirs. A file where no loop can run on a device gets empty companions.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu --offload-out %t.off.c 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file %t.c --check-prefix=HOST
// RUN: FileCheck %s --input-file %t.cu --check-prefix=CU
// RUN: %clang -fsyntax-only -fopenmp -Wall -Werror -DHCE_HAVE_CUDA_VARIANTS -DHCE_HAVE_OMP_VARIANTS -I%hce-include %t.c
// RUN: %if nvcc %{ %nvcc -c %t.cu -o %t.cu.o %}
// Only the CPU-only loops: both companions are empty.
// RUN: %hce-translate %s -o %t2.c --cuda-out %t2.cu --offload-out %t2.off.c -- -DONLY_CPU 2>&1 | FileCheck %s --check-prefix=WARN2
// RUN: test -e %t2.cu && test ! -s %t2.cu && test -e %t2.off.c && test ! -s %t2.off.c
// Without --cuda-out / --offload-out nothing is analysed, nothing is said:
// RUN: %hce-translate %s -o %t3.c 2>&1 | count 0

#include <math.h>
#include <stdio.h>

extern double mystery(double);
static double logged(const char *fmt, ...) { (void)fmt; return 1; }
static double helper(double x) { return mystery(x) + 1; }

void ext(int n, double *v) {
#pragma hce co_exec map(tofrom: v[i:1])
  for (int i = 0; i < n; i++)
    v[i] = mystery(v[i]);
}
// WARN: {{.*}}cuda-cpu-only.c:[[@LINE-2]]:12: warning: this co_exec loop gets no CUDA or OpenMP-offload variant and runs on the CPU only: it calls 'mystery', which has no definition in this file and is not a known device function
// WARN-NEXT: {{^}}  [[@LINE-3]] |     v[i] = mystery(v[i]);
// WARN-NEXT: {{^}}      |            ^

void indirect(int n, double *v, double (*f)(double)) {
#pragma hce co_exec map(tofrom: v[i:1])
  for (int i = 0; i < n; i++)
    v[i] = f(v[i]);
}
// WARN: {{.*}}cuda-cpu-only.c:[[@LINE-2]]:12: warning: this co_exec loop gets no CUDA or OpenMP-offload variant and runs on the CPU only: it calls a function through a pointer

void variadic(int n, double *v) {
#pragma hce co_exec map(tofrom: v[i:1])
  for (int i = 0; i < n; i++)
    v[i] = logged("%d", i);
}
// WARN: {{.*}}cuda-cpu-only.c:[[@LINE-2]]:12: warning: {{.*}}: it calls the variadic function 'logged'

// The culprit is inside a function the body calls: a note shows the loop.
void nested(int n, double *v) {
#pragma hce co_exec map(tofrom: v[i:1])
  for (int i = 0; i < n; i++)
    v[i] = helper(v[i]);
}
// WARN: {{.*}}cuda-cpu-only.c:[[@LINE-31]]:41: warning: {{.*}}: it calls 'mystery'
// WARN: {{.*}}cuda-cpu-only.c:[[@LINE-5]]:13: note: in the co_exec loop here

#ifndef ONLY_CPU
// printf is fine on both kinds of device.
void fine(int n, double *v) {
#pragma hce co_exec map(tofrom: v[i:1])
  for (int i = 0; i < n; i++) {
    if (v[i] < 0)
      printf("negative at %d\n", i);
    v[i] = fabs(v[i]);
  }
}
#endif
// WARN-NOT: warning
// WARN: 4 warnings generated.
// WARN2: 4 warnings generated.

// HOST: {{^}}  __hce_r.cpu = __hce_cpu_0;
// HOST-NEXT: {{^}}  __hce_r.site = &__hce_site_0;
// HOST: {{^}}  __hce_r.cpu = __hce_cpu_3;
// HOST-NEXT: {{^}}  __hce_r.site = &__hce_site_3;
// HOST: {{^}}  __hce_r.cpu = __hce_cpu_4;
// HOST-NEXT: {{^}}#ifdef HCE_HAVE_CUDA_VARIANTS
// HOST-NEXT: {{^}}  __hce_r.cuda = __hce_cuda_4_{{[0-9a-f]+}};
// HOST-NEXT: {{^}}  __hce_r.cuda_block_iterations = 256;
// HOST-NEXT: {{^}}  __hce_r.cuda_wave = __hce_cuda_wave_4_{{[0-9a-f]+}};
// HOST-NEXT: {{^}}#endif
// HOST-NEXT: {{^}}#ifdef HCE_HAVE_OMP_VARIANTS
// HOST-NEXT: {{^}}  __hce_r.omp = __hce_omp_4_{{[0-9a-f]+}};
// HOST-NEXT: {{^}}#endif

// CU-NOT: __hce_kernel_0
// CU-NOT: __device__ static double helper
// CU: {{^}}__hce_kernel_4(
// CU: printf("negative at %d\n", i);
