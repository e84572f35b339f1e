/* GEMM (PolyBench gemm): C = alpha*A*B + beta*C with A M x K, B K x N,
 * C M x N.  One co-executed loop over the rows of C: row i needs row i of A
 * and of C, and the whole of B (a broadcast section every device needs).
 *
 *   usage: gemm [M] [N] [K] [seed]      (default 4096 x 4096 x 4096)
 * Exits 0 when C matches a sequential computation, 1 otherwise.
 * The reference is a separate plain loop (OpenMP-parallel over rows, each
 * element summed by one thread in the same order); it checks every row when
 * M*N*K <= 2^33 and 256 evenly spread rows otherwise.  Tolerance relative
 * 1e-12 of the sum of |terms| (a GPU compiler may fuse multiply-adds). */
#include <math.h>
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
  int K = argc > 3 ? atoi(argv[3]) : 4096;
  unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 42;
  if (M < 0 || N <= 0 || K <= 0) {
    fprintf(stderr, "gemm: sizes must be positive\n");
    return 2;
  }
  size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
  double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B),
         *C = malloc(nc * sizeof *C), *C0 = malloc(nc * sizeof *C0);
  if (!A || !B || !C || !C0) {
    fprintf(stderr, "gemm: out of memory for %d x %d x %d\n", M, N, K);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (size_t k = 0; k < na; k++)
    A[k] = uniform(&state);
  for (size_t k = 0; k < nb; k++)
    B[k] = uniform(&state);
  for (size_t k = 0; k < nc; k++)
    C[k] = C0[k] = uniform(&state);
  const double alpha = 1.5, beta = 1.2;

#pragma hce co_exec schedule(fdets) name("gemm") map(to: A[i*K:K], B[0:K*N]) map(tofrom: C[i*N:N])
#pragma omp parallel for
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0.0;
      for (int k = 0; k < K; k++)
        s += A[i * K + k] * B[k * N + j];
      C[i * N + j] = alpha * s + beta * C[i * N + j];
    }

  /* Reference rows: all of them, or a sample for very large products. */
  int all = (double)M * N * K <= 8589934592.0;
  int rows = all ? M : (M < 256 ? M : 256);
  size_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
  for (int r = 0; r < rows; r++) {
    int i = all ? r : (int)((long long)r * (M - 1) / (rows > 1 ? rows - 1 : 1));
    for (int j = 0; j < N; j++) {
      double s = 0.0, mag = 0.0;
      for (int k = 0; k < K; k++) {
        s += A[(size_t)i * K + k] * B[(size_t)k * N + j];
        mag += fabs(A[(size_t)i * K + k] * B[(size_t)k * N + j]);
      }
      double ref = alpha * s + beta * C0[(size_t)i * N + j];
      mag = alpha * mag + fabs(beta * C0[(size_t)i * N + j]);
      if (!(fabs(C[(size_t)i * N + j] - ref) <= 1e-12 * (mag + 1.0)))
        bad++;
    }
  }
  printf("gemm %d x %d x %d: %s (%zu of %zu checked elements wrong, %s)\n", M, N, K,
         bad ? "FAILED" : "verified against sequential", bad, (size_t)rows * N,
         all ? "all rows" : "sampled rows");
  free(A);
  free(B);
  free(C);
  free(C0);
  return bad ? 1 : 0;
}
