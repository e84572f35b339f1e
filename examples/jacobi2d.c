/* Jacobi-2D (PolyBench jacobi-2d): T time steps of a 5-point stencil on an
 * N x N grid with fixed (Dirichlet) boundary, two sweeps per step (A -> B,
 * B -> A).  Each sweep is one co-executed loop over the interior rows; a row
 * reads its neighbours above and below (a halo of 3 rows) and writes itself.
 *
 *   usage: jacobi2d [N] [T] [seed]      (default 4096 x 4096, 50 steps)
 * Exits 0 when the grid matches a sequential computation, 1 otherwise.
 * The arithmetic is identical in both (no multiply-add to contract), so the
 * comparison is exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double uniform(unsigned long long *state) {
  /* xorshift64*: reproducible random numbers in [-1, 1) without libc rand */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return (double)((*state * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 4096;
  int T = argc > 2 ? atoi(argv[2]) : 50;
  unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
  if (N < 3 || T < 0) {
    fprintf(stderr, "jacobi2d: need N >= 3 and T >= 0\n");
    return 2;
  }
  size_t n = (size_t)N * (size_t)N;
  double *A = malloc(n * sizeof *A), *B = malloc(n * sizeof *B);
  double *RA = malloc(n * sizeof *RA), *RB = malloc(n * sizeof *RB);
  if (!A || !B || !RA || !RB) {
    fprintf(stderr, "jacobi2d: out of memory for %d x %d\n", N, N);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (size_t k = 0; k < n; k++)
    A[k] = B[k] = RA[k] = RB[k] = uniform(&state);

  /* The grids stay on the devices for the whole time loop: only the halo
   * rows move between sweeps (and the rows whose owner changes). */
#pragma hce data map(tofrom: A[0:N*N], B[0:N*N])
  for (int t = 0; t < T; t++) {
#pragma hce co_exec schedule(fdets) name("jacobi2d.sweep_AB") map(to: A[(i-1)*N:3*N]) map(from: B[i*N:N])
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++) {
      B[i * N] = A[i * N];                     /* boundary columns stay fixed */
      B[i * N + N - 1] = A[i * N + N - 1];
      for (int j = 1; j < N - 1; j++)
        B[i * N + j] = 0.2 * (A[i * N + j] + A[i * N + j - 1] + A[i * N + j + 1] +
                              A[(i + 1) * N + j] + A[(i - 1) * N + j]);
    }
#pragma hce co_exec schedule(fdets) name("jacobi2d.sweep_BA") map(to: B[(i-1)*N:3*N]) map(from: A[i*N:N])
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++) {
      A[i * N] = B[i * N];
      A[i * N + N - 1] = B[i * N + N - 1];
      for (int j = 1; j < N - 1; j++)
        A[i * N + j] = 0.2 * (B[i * N + j] + B[i * N + j - 1] + B[i * N + j + 1] +
                              B[(i + 1) * N + j] + B[(i - 1) * N + j]);
    }
  }

  /* Sequential reference: the same sweeps, one thread, on separate arrays. */
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        RB[i * N + j] = 0.2 * (RA[i * N + j] + RA[i * N + j - 1] + RA[i * N + j + 1] +
                               RA[(i + 1) * N + j] + RA[(i - 1) * N + j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        RA[i * N + j] = 0.2 * (RB[i * N + j] + RB[i * N + j - 1] + RB[i * N + j + 1] +
                               RB[(i + 1) * N + j] + RB[(i - 1) * N + j]);
  }

  size_t bad = 0;
  for (size_t k = 0; k < n; k++)
    bad += (A[k] != RA[k]) + (B[k] != RB[k]);
  printf("jacobi2d %d x %d, %d steps: %s (%zu of %zu elements wrong)\n", N, N, T,
         bad ? "FAILED" : "verified against sequential", bad, 2 * n);
  free(A);
  free(B);
  free(RA);
  free(RB);
  return bad ? 1 : 0;
}
