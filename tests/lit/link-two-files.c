// Two translated files link into one program: each has a region 0, and
// every generated name with external linkage is unique to its file (the
// CUDA launcher and the offload function carry a hash of the file), the
// rest is internal (static CPU variants, the kernels, args and pointer
// structs in an unnamed namespace). Where nvcc exists, both .cu files are
// compiled and linked with the host objects and run (the mock runtime runs
// the CPU variants).
//
// RUN: %hce-translate %s -o %t.a.c --cuda-out %t.a.cu --offload-out %t.a.off.c -- -I%S/Inputs/link
// RUN: %hce-translate %S/Inputs/link/other.c -o %t.b.c --cuda-out %t.b.cu --offload-out %t.b.off.c -- -I%S/Inputs/link
// RUN: FileCheck %s --input-file %t.a.cu
// RUN: FileCheck %s --input-file %t.a.c --check-prefix=HOST
// RUN: FileCheck %s --input-file %t.a.off.c --check-prefix=OFF
// The launchers differ between the two files:
// RUN: grep -o '__hce_cuda_0_[0-9a-f]*' %t.a.c | sort -u > %t.a.names
// RUN: grep -o '__hce_cuda_0_[0-9a-f]*' %t.b.c | sort -u > %t.b.names
// RUN: not cmp -s %t.a.names %t.b.names
// Host objects link together (and with the CUDA objects where nvcc is):
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include -I%S/Inputs/link -c %t.a.c -o %t.a.o
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include -I%S/Inputs/link -c %t.b.c -o %t.b.o
// RUN: %clang -fopenmp -I%hce-include -c %mockrt -o %t.mock.o
// RUN: %clang -fopenmp %t.a.o %t.b.o %t.mock.o -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %if nvcc %{ %nvcc -I%hce-include -c %t.a.cu -o %t.a.cu.o %}
// RUN: %if nvcc %{ %nvcc -I%hce-include -c %t.b.cu -o %t.b.cu.o %}
// RUN: %if nvcc %{ %clang -fopenmp -DHCE_HAVE_CUDA_VARIANTS -I%hce-include -I%S/Inputs/link -c %t.a.c -o %t.a.o %}
// RUN: %if nvcc %{ %clang -fopenmp -DHCE_HAVE_CUDA_VARIANTS -I%hce-include -I%S/Inputs/link -c %t.b.c -o %t.b.o %}
// RUN: %if nvcc %{ %nvcc %t.a.o %t.b.o %t.a.cu.o %t.b.cu.o %t.mock.o -o %t.cuda.exe -L%llvm-lib -Xlinker -rpath,%llvm-lib -lomp -lm %}
// RUN: %if nvcc %{ %t.cuda.exe | FileCheck %s --check-prefix=EXEC %}

#include <stdio.h>

#include "shared.h"

// CHECK: namespace {
// CHECK-NEXT: struct __hce_args_0 {
// CHECK: __global__ void __launch_bounds__(256)
// CHECK-NEXT: __hce_kernel_0(
// CHECK: } // namespace
// CHECK-NEXT: extern "C" int __hce_cuda_0_{{[0-9a-f]+}}(
// HOST: static void __hce_cpu_0(
// OFF: int __hce_omp_0_{{[0-9a-f]+}}(
static void twice(int n, float *x) {
#pragma hce co_exec map(tofrom: x[i:1])
  for (int i = 0; i < n; i++)
    x[i] *= 2;
}

int main(void) {
  float x[100];
  int bad = 0;
  for (int i = 0; i < 100; i++)
    x[i] = (float)(i % 13);
  twice(100, x);
  add_one(100, x);
  for (int i = 0; i < 100; i++)
    bad += x[i] != (float)(i % 13) * 2 + 1;
  printf("%s\n", bad ? "FAIL" : "ok");
  return bad;
}
// EXEC: ok
