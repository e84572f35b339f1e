/* Heat-3D (PolyBench heat-3d): T time steps of a 7-point heat-equation
 * stencil on an N x N x N grid with fixed boundary, two sweeps per step
 * (A -> B, B -> A).  Each sweep is one co-executed loop over the interior
 * planes i; plane i reads planes i-1, i, i+1 (a halo of 3 planes) and writes
 * the whole plane i of the other grid (its boundary copied unchanged).
 *
 *   usage: heat3d [N] [T] [seed]      (default 256^3, 50 steps)
 * Exits 0 when the grid matches a sequential computation, 1 otherwise.
 * Tolerance: `0.125*(..) + 0.125*(..) + ..` may be contracted into fused
 * multiply-adds by a GPU compiler, so the comparison is relative 1e-12. */
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

static size_t mismatches(const double *x, const double *r, size_t n, double tol) {
  size_t bad = 0;
  for (size_t k = 0; k < n; k++) {
    double scale = fabs(r[k]) > 1.0 ? fabs(r[k]) : 1.0;
    if (!(fabs(x[k] - r[k]) <= tol * scale))
      bad++;
  }
  return bad;
}

/* One sweep dst = stencil(src) on the interior, sequentially. */
static void reference_sweep(int N, const double *src, double *dst) {
  size_t P = (size_t)N * N;
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      for (int k = 1; k < N - 1; k++) {
        size_t c = i * P + (size_t)j * N + k;
        dst[c] = 0.125 * (src[c + P] - 2.0 * src[c] + src[c - P]) +
                 0.125 * (src[c + N] - 2.0 * src[c] + src[c - N]) +
                 0.125 * (src[c + 1] - 2.0 * src[c] + src[c - 1]) + src[c];
      }
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 256;
  int T = argc > 2 ? atoi(argv[2]) : 50;
  unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
  if (N < 3 || N > 2048 || T < 0) {
    fprintf(stderr, "heat3d: need 3 <= N <= 2048 and T >= 0\n");
    return 2;
  }
  size_t P = (size_t)N * N, n = P * N;
  double *A = malloc(n * sizeof *A), *B = malloc(n * sizeof *B);
  double *RA = malloc(n * sizeof *RA), *RB = malloc(n * sizeof *RB);
  if (!A || !B || !RA || !RB) {
    fprintf(stderr, "heat3d: out of memory for %d^3\n", N);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (size_t k = 0; k < n; k++)
    A[k] = B[k] = RA[k] = RB[k] = uniform(&state);

  long NN = (long)N * N; /* plane size, for the map sections */
  /* The grids stay on the devices for the whole time loop. */
#pragma hce data map(tofrom: A[0:NN*N], B[0:NN*N])
  for (int t = 0; t < T; t++) {
#pragma hce co_exec schedule(fdets) name("heat3d.sweep_AB") map(to: A[(i-1)*NN:3*NN]) map(from: B[i*NN:NN])
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++) {
          long c = i * NN + (long)j * N + k;
          if (j == 0 || j == N - 1 || k == 0 || k == N - 1)
            B[c] = A[c];
          else
            B[c] = 0.125 * (A[c + NN] - 2.0 * A[c] + A[c - NN]) +
                   0.125 * (A[c + N] - 2.0 * A[c] + A[c - N]) +
                   0.125 * (A[c + 1] - 2.0 * A[c] + A[c - 1]) + A[c];
        }
#pragma hce co_exec schedule(fdets) name("heat3d.sweep_BA") map(to: B[(i-1)*NN:3*NN]) map(from: A[i*NN:NN])
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++) {
          long c = i * NN + (long)j * N + k;
          if (j == 0 || j == N - 1 || k == 0 || k == N - 1)
            A[c] = B[c];
          else
            A[c] = 0.125 * (B[c + NN] - 2.0 * B[c] + B[c - NN]) +
                   0.125 * (B[c + N] - 2.0 * B[c] + B[c - N]) +
                   0.125 * (B[c + 1] - 2.0 * B[c] + B[c - 1]) + B[c];
        }
  }

  /* Sequential reference on separate arrays. */
  for (int t = 0; t < T; t++) {
    reference_sweep(N, RA, RB);
    reference_sweep(N, RB, RA);
  }

  const double tol = 1e-12;
  size_t bad = mismatches(A, RA, n, tol) + mismatches(B, RB, n, tol);
  printf("heat3d %d^3, %d steps: %s (%zu of %zu elements wrong)\n", N, T,
         bad ? "FAILED" : "verified against sequential", bad, 2 * n);
  free(A);
  free(B);
  free(RA);
  free(RB);
  return bad ? 1 : 0;
}
