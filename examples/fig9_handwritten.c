/* The HCE paper's Fig. 9 matrix addition, written by hand against the
 * paper's runtime API (<hce/hce_papers.h>) instead of `#pragma hce`.
 *
 * The "GPU" is GPU 0 of the runtime: on a machine without CUDA support in
 * libhce that is the simulated accelerator sim:0 (HCE_DEVICES=cpu,sim:0),
 * whose memory the host can address, so GPU_kernel below runs its loop on
 * the device copies directly where Fig. 9 launches a CUDA kernel.
 *
 *   usage: fig9_handwritten [M] [N]      exits 0 when verified */
#include <hce/hce_papers.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int M = 1024, N = 1024, initial_run = 1;
static double *A, *B, *C, *devA, *devB, *devC;

static void CPU_kernel(int deviceNum, int subLoopBegin, int subLoopEnd) {
  (void)deviceNum;
#pragma omp parallel for
  for (int i = subLoopBegin; i <= subLoopEnd; i++)
    for (int j = 0; j < N; j++)
      C[i * N + j] = A[i * N + j] + B[i * N + j];
}

static void GPU_kernel(int deviceNum, int subLoopBegin, int subLoopEnd) {
  /* Fig. 9 lines 15-20: upload the rows, compute, download the result. */
  if (initial_run)
    hce_memcpy_to_gpu(deviceNum, devB, B, 0, M - 1, N);
  initial_run = 0;
  hce_memcpy_to_gpu(deviceNum, devA, A, subLoopBegin, subLoopEnd, N);
  for (int i = subLoopBegin; i <= subLoopEnd; i++)
    for (int j = 0; j < N; j++)
      devC[i * N + j] = devA[i * N + j] + devB[i * N + j];
  hce_memcpy_from_gpu(deviceNum, C, devC, subLoopBegin, subLoopEnd, N);
}

int main(int argc, char **argv) {
  if (argc > 1)
    M = atoi(argv[1]);
  if (argc > 2)
    N = atoi(argv[2]);
  if (M <= 0 || N <= 0)
    return 2;
  size_t n = (size_t)M * N;
  A = malloc(n * sizeof *A);
  B = malloc(n * sizeof *B);
  C = malloc(n * sizeof *C);
  if (!A || !B || !C)
    return 2;
  srand(7);
  for (size_t k = 0; k < n; k++) {
    A[k] = rand() / (double)RAND_MAX - 0.5;
    B[k] = rand() / (double)RAND_MAX - 0.5;
    C[k] = 0;
  }
  if (hce_malloc_gpu(0, (void **)&devA, n * sizeof(double)) ||
      hce_malloc_gpu(0, (void **)&devB, n * sizeof(double)) ||
      hce_malloc_gpu(0, (void **)&devC, n * sizeof(double)))
    return 1;
  hce_init_compute_device(0, "CPU", 0);
  hce_init_compute_device(1, "GPU", 0);
  hce_set_compute_kernel(0, CPU_kernel);
  hce_set_compute_kernel(1, GPU_kernel);
  hce_set_ratio("CPU", 0, 0.35f);
  hce_set_ratio("GPU", 0, 0.65f);
  hce_set_loop_bounds(0, M - 1);
  if (hce_co_schedule("FDETS", M / 128))
    return 1;
  hce_free_gpu(0, devA);
  hce_free_gpu(0, devB);
  hce_free_gpu(0, devC);

  size_t bad = 0;
  for (size_t k = 0; k < n; k++)
    bad += C[k] != A[k] + B[k];
  printf("fig9 %d x %d: %s (%zu wrong)\n", M, N,
         bad ? "FAILED" : "verified against sequential", bad);
  free(A);
  free(B);
  free(C);
  return bad ? 1 : 0;
}
