// A CUDA kernel with reductions hands its slots to the host through the
// runtime's mapped pinned block (hce_cuda_host_scratch): the last block to
// finish -- a count of finished blocks after the slots -- copies them there,
// and the launcher reads them after its cudaStreamSynchronize, so that no
// 8-byte device-to-host copy waits behind another stream's large copy on
// the copy engine.  Without that block (outside the runtime, slots of the
// variant's own, or over 64 KiB) the launcher copies them back instead.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu
// RUN: FileCheck %s --input-file %t.cu
// The mock runtime gives no block: the copy's path, the right result.
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %if nvcc %{ %nvcc -c %t.cu -o %t.cu.o %}

#include <stdio.h>
#include <stdlib.h>

// CHECK: extern "C" void *hce_cuda_host_scratch(void *stream, size_t bytes, void **device);

double dot(int n, const double *x, const double *y) {
  double s = 0;
#pragma hce co_exec map(to: x[i:1], y[i:1]) reduction(+: s)
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}
// The kernel: the slots' address in the host's block and their count.
// CHECK: {{^}}    const struct __hce_ptrs_0 __hce_p, void *__hce_dred,
// CHECK-NEXT: {{^}}    unsigned long long *__hce_out, unsigned long long __hce_nw) {
// After the block's fold, the last block copies every slot out:
// CHECK: {{^}}      __hce_fold_0_0((double *)((char *)__hce_dred + 0), __hce_sh0[0]);
// CHECK: {{^}}  if (__hce_out) {
// CHECK: {{^}}    __threadfence(); /* this thread's folds, seen before the count */
// CHECK-NEXT: {{^}}    __syncthreads();
// CHECK-NEXT: {{^}}    if (__hce_bt == 0)
// CHECK-NEXT: {{^}}      __hce_last = atomicAdd((unsigned *)((unsigned long long *)__hce_dred + __hce_nw), 1u) ==
// CHECK-NEXT: {{^}}                   gridDim.x * gridDim.y - 1;
// CHECK: {{^}}    if (__hce_last) {
// CHECK: {{^}}        __hce_out[__hce_w] = __hce_in[__hce_w];
// The launcher: the count starts at zero, after the slots.
// CHECK: {{^}}  unsigned long long __hce_hs[2]; /* 8-byte scratch slots, the blocks' count */
// CHECK: {{^}}  size_t __hce_hbytes = sizeof __hce_hs - 8;
// CHECK: {{^}}  memset(__hce_h + __hce_hbytes, 0, 8); /* no block has finished */
// CHECK: {{^}}  void *__hce_dred = hce_cuda_scratch(__hce_stream, __hce_hbytes + 8);
// Only the runtime's own slots have a mapped block:
// CHECK: {{^}}  unsigned char *__hce_mh = __hce_own ? 0 : (unsigned char *)hce_cuda_host_scratch(
// CHECK-NEXT: {{^}}      __hce_stream, __hce_hbytes, &__hce_mdev);
// CHECK: {{^}}  if (!__hce_rc && cudaMemcpyAsync(__hce_dred, __hce_h, __hce_hbytes + 8,
// CHECK: {{^}}      (unsigned long long *)__hce_mdev, __hce_words);
// The copy back only without the block; the block read after the sync:
// CHECK: {{^}}  if (!__hce_rc && !__hce_mh &&
// CHECK-NEXT: {{^}}      cudaMemcpyAsync(__hce_h, __hce_dred, __hce_hbytes, cudaMemcpyDeviceToHost, __hce_s) !=
// CHECK: {{^}}  if (!__hce_rc && cudaStreamSynchronize(__hce_s) != cudaSuccess)
// CHECK: {{^}}  if (!__hce_rc && __hce_mh)
// CHECK-NEXT: {{^}}    memcpy(__hce_h, __hce_mh, __hce_hbytes);

// An array reduction: its elements after the slots, then the count.
void histogram(int n, const int *v, int bins, long long *h) {
#pragma hce co_exec map(to: v[i:1]) reduction(+: h[0:bins])
  for (int i = 0; i < n; i++)
    h[v[i] % bins] += 1;
}
// CHECK: {{^}}  __hce_h = (unsigned char *)malloc(__hce_hbytes + 8);
// CHECK: {{^}}  memset(__hce_h + __hce_hbytes, 0, 8); /* no block has finished */

int main(void) {
  enum { N = 1000, B = 7 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), ref = 0;
  int *v = malloc(N * sizeof *v);
  long long h[B] = {0}, href[B] = {0};
  srand(7);
  for (int i = 0; i < N; i++) {
    x[i] = rand() / (double)RAND_MAX - 0.5;
    y[i] = rand() / (double)RAND_MAX - 0.5;
    ref += x[i] * y[i];
    v[i] = rand() % 1000;
    href[v[i] % B] += 1;
  }
  double s = dot(N, x, y);
  histogram(N, v, B, h);
  int ok = s - ref < 1e-9 && ref - s < 1e-9;
  for (int b = 0; b < B; b++)
    ok = ok && h[b] == href[b];
  printf("cuda-reduction-mapped-slots: %s\n", ok ? "ok" : "WRONG");
  free(x);
  free(y);
  free(v);
  return 0;
}
// EXEC: cuda-reduction-mapped-slots: ok
