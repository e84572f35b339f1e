/* Matrix addition C = A + B: the HCE paper's Fig. 9 program, written as an
 * ordinary OpenMP loop with one `#pragma hce` line.  Built with hce-cc it
 * runs on the CPU and every accelerator at once; built with any OpenMP
 * compiler it is a plain parallel loop.
 *
 *   usage: matadd [M] [N] [seed]      (default 4096 x 4096)
 * Exits 0 when C matches a sequential computation, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

static double uniform(unsigned long long *state) {
  /* xorshift64*: reproducible random numbers in [-1, 1) without libc rand */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return (double)((*state * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

int main(int argc, char **argv) {
  int M = argc > 1 ? atoi(argv[1]) : 4096;
  int N = argc > 2 ? atoi(argv[2]) : 4096;
  unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
  if (M < 0 || N <= 0) {
    fprintf(stderr, "matadd: sizes must be positive\n");
    return 2;
  }
  size_t n = (size_t)M * (size_t)N;
  double *A = malloc(n * sizeof *A), *B = malloc(n * sizeof *B),
         *C = malloc(n * sizeof *C);
  if (!A || !B || !C) {
    fprintf(stderr, "matadd: out of memory for %d x %d\n", M, N);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (size_t k = 0; k < n; k++) {
    A[k] = uniform(&state);
    B[k] = uniform(&state);
    C[k] = 0.0;
  }

#pragma hce co_exec schedule(fdets) map(to: A[i*N:N], B[i*N:N]) map(from: C[i*N:N])
#pragma omp parallel for
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      C[i * N + j] = A[i * N + j] + B[i * N + j];

  size_t bad = 0;
  for (size_t k = 0; k < n; k++)
    if (C[k] != A[k] + B[k])
      bad++;
  printf("matadd %d x %d: %s (%zu of %zu elements wrong)\n", M, N,
         bad ? "FAILED" : "verified against sequential", bad, n);
  free(A);
  free(B);
  free(C);
  return bad ? 1 : 0;
}
