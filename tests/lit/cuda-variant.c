// The CUDA variant: a grid-stride kernel and a launcher in the .cu
// companion, device copies of the functions the body calls (with the types
// and macros they need), reductions reduced on the GPU, and the launcher
// installed in the host file under HCE_HAVE_CUDA_VARIANTS.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu
// RUN: FileCheck %s --input-file %t.cu
// RUN: FileCheck %s --input-file %t.c --check-prefix=HOST
// The host file compiles with and without the CUDA variants, and still
// computes the right result (the mock runtime runs the CPU variant):
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Werror -DHCE_HAVE_CUDA_VARIANTS -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// With nvcc, the companion compiles as it is:
// RUN: %if nvcc %{ %nvcc -c %t.cu -o %t.cu.o %}

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SQR(x) ((x) * (x))
typedef double real;
struct point { real x, y; };
static const double SCALE = 0.5;

static real norm2(struct point p);
static real dist(struct point a, struct point b) {
  struct point d = {a.x - b.x, a.y - b.y};
  return sqrt(norm2(d)) * SCALE;
}
static real norm2(struct point p) { return SQR(p.x) + SQR(p.y); }
int unused_helper(int x) { return x + 1; }

double work(int n, const struct point *P, real *out, int *lo) {
  double sum = 0, mx = -1e300;
  int mn = 1 << 30;
  struct point o = {0, 0};
#pragma hce co_exec map(to: P[0:n]) map(from: out[i:1]) reduction(+: sum) reduction(max: mx) reduction(min: mn)
  for (int i = 0; i < n; i++) {
    out[i] = dist(P[i], o);
    sum += out[i];
    mx = fmax(mx, out[i]);
    if ((int)out[i] < mn) mn = (int)out[i];
  }
  *lo = mn;
  return sum + mx;
}

int main(void) {
  int n = 1000, lo = 0;
  struct point *P = malloc(n * sizeof *P);
  real *out = malloc(n * sizeof *out);
  double ref = 0, mx = -1e300;
  int mn = 1 << 30;
  srand(3);
  for (int i = 0; i < n; i++) {
    P[i].x = rand() % 100 + 1;
    P[i].y = rand() % 100 + 1;
    double d = sqrt(P[i].x * P[i].x + P[i].y * P[i].y) * 0.5;
    ref += d;
    mx = d > mx ? d : mx;
    mn = (int)d < mn ? (int)d : mn;
  }
  double got = work(n, P, out, &lo);
  printf("%s\n", fabs(got - (ref + mx)) < 1e-6 * ref && lo == mn ? "cuda-variant ok"
                                                                 : "WRONG");
  return 0;
}

// CHECK: {{^}}#include <cuda_runtime.h>
// CHECK: {{^}}#define restrict __restrict__
// The input's own includes, macros and the types the loop needs, in order:
// CHECK: {{^}}#include <math.h>
// CHECK: {{^}}#define SQR(x) ((x) * (x))
// CHECK: {{^}}typedef double real;
// CHECK: {{^}}struct point { real x, y; };
// CHECK: {{^}}static __device__ const double SCALE = 0.5;
// Device copies, the prototype included, and nothing the loop does not call:
// CHECK: {{^}}__device__ static real norm2(struct point p);
// CHECK: {{^}}__device__ static real dist(struct point a, struct point b) {
// CHECK: {{^}}__device__ static real norm2(struct point p) { return SQR(p.x) + SQR(p.y); }
// CHECK-NOT: unused_helper
// CHECK: {{^}}struct __hce_args_0 {
// CHECK-NEXT: {{^}}  int64_t __hce_init;
// CHECK-NEXT: {{^}}  int64_t __hce_step;
// CHECK-NEXT: {{^}}  struct point o;
// CHECK-NEXT: {{^}}};
// CHECK: {{^}}static __device__ __forceinline__ void __hce_fold_0_0(double *__hce_p, double __hce_v) {
// CHECK-NEXT: {{^}}  atomicAdd(__hce_p, __hce_v);
// max of a double: compare-and-swap loop
// CHECK: {{^}}static __device__ __forceinline__ void __hce_fold_0_1(double *__hce_p, double __hce_v) {
// CHECK: atomicCAS(
// CHECK: {{^}}static __device__ __forceinline__ void __hce_fold_0_2(int *__hce_p, int __hce_v) {
// CHECK-NEXT: {{^}}  atomicMin(__hce_p, __hce_v);
// CHECK: {{^}}__global__ void __launch_bounds__(256)
// CHECK-NEXT: {{^}}__hce_kernel_0(int64_t __hce_lb, int64_t __hce_ub, const struct __hce_args_0 __hce_a,
// CHECK-NEXT: {{^}}    const struct __hce_ptrs_0 __hce_p, void *__hce_dred,
// CHECK-NEXT: {{^}}    unsigned long long *__hce_out, unsigned long long __hce_nw) {
// CHECK: {{^}}  const struct point *P = (const struct point *)__hce_p.p[0];
// CHECK-NEXT: {{^}}  real *out = (real *)__hce_p.p[1];
// CHECK-NEXT: {{^}}  const struct point o = __hce_a.o;
// Per-thread accumulators start at the identity:
// CHECK-NEXT: {{^}}  double sum = (double)0;
// CHECK-NEXT: {{^}}  double mx = (double)-__longlong_as_double(0x7ff0000000000000LL);
// CHECK-NEXT: {{^}}  int mn = (int)INT32_MAX;
// CHECK: {{^}}  for (int64_t __hce_k = __hce_lb + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}       __hce_k < __hce_ub; __hce_k += (int64_t)gridDim.x * blockDim.x) {
// CHECK-NEXT: {{^}}    int i = (int)(__hce_init + __hce_k * __hce_step);
// CHECK-NEXT: {{^}}#line {{[0-9]+}} "{{.*}}cuda-variant.c"
// CHECK-NEXT: {{^}}                              {
// CHECK-NEXT: {{^}}    out[i] = dist(P[i], o);
// Block reduction in shared memory, one atomic per block:
// CHECK: {{^}}    __shared__ double __hce_sh0[256];
// CHECK: {{^}}      __hce_fold_0_0((double *)((char *)__hce_dred + 0), __hce_sh0[0]);
// CHECK: {{^}}      __hce_fold_0_2((int *)((char *)__hce_dred + 16), __hce_sh2[0]);
// The launcher:
// CHECK: {{^}}extern "C" int __hce_cuda_0_{{[0-9a-f]+}}(int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,
// CHECK-NEXT: {{^}}    const void *__hce_args, void *__hce_red, void *__hce_stream) {
// CHECK-NEXT: {{^}}  cudaStream_t __hce_s = (cudaStream_t)__hce_stream;
// CHECK: {{^}}  if (__hce_blocks > 65535)
// CHECK: void *__hce_dred = hce_cuda_scratch(__hce_stream, __hce_hbytes + 8);
// CHECK: cudaMallocAsync(&__hce_dred
// CHECK: {{^}}    __hce_kernel_0<<<(unsigned)__hce_blocks, __hce_threads, 0, __hce_s>>>(
// CHECK-NEXT: {{^}}      __hce_lb, __hce_ub, *(const struct __hce_args_0 *)__hce_args, __hce_p, __hce_dred,
// CHECK-NEXT: {{^}}      (unsigned long long *)__hce_mdev, __hce_words);
// CHECK: cudaMemcpyDeviceToHost
// CHECK: {{^}}  if (!__hce_rc && cudaStreamSynchronize(__hce_s) != cudaSuccess)
// The device's partial results are folded into the host slots:
// CHECK: {{^}}    double *__hce_slot = (double *)((char *)__hce_red + 0);
// CHECK: {{^}}    *__hce_slot = (double)(__hce_x + __hce_y);
// CHECK: {{^}}    *__hce_slot = (int)(__hce_y < __hce_x ? __hce_y : __hce_x);
// CHECK: {{^}}  return 0;

// HOST: {{^}}#ifdef HCE_HAVE_CUDA_VARIANTS
// HOST-NEXT: {{^}}int __hce_cuda_0_[[SUF:[0-9a-f]+]](int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,
// HOST-NEXT: {{^}}    const void *__hce_args, void *__hce_red, void *__hce_stream);
// HOST-NEXT: {{^}}int64_t __hce_cuda_wave_0_[[SUF]](const void *__hce_args, int __hce_sms);
// HOST-NEXT: {{^}}#endif
// HOST: {{^}}  __hce_r.cpu = __hce_cpu_0;
// HOST-NEXT: {{^}}#ifdef HCE_HAVE_CUDA_VARIANTS
// A 1-D kernel (one iteration per thread) tells the runtime its block.
// HOST-NEXT: {{^}}  __hce_r.cuda = __hce_cuda_0_[[SUF]];
// HOST-NEXT: {{^}}  __hce_r.cuda_block_iterations = 256;
// And its wave, from the occupancy calculator.
// HOST-NEXT: {{^}}  __hce_r.cuda_wave = __hce_cuda_wave_0_[[SUF]];
// HOST-NEXT: {{^}}#endif

// EXEC: cuda-variant ok
