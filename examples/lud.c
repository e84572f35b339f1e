/* LU decomposition (as in Rodinia lud, unblocked, no pivoting) of a random
 * diagonally dominant N x N matrix, in place: A = L U with L unit lower
 * triangular.  Step k scales column k below the diagonal and updates the
 * trailing submatrix; that update is the co-executed loop, over the rows
 * i > k: row i reads and writes its own part A[i*N+k : N-k] and reads the
 * pivot row (copied to `pivot` on the host, a broadcast section).
 *
 *   usage: lud [N] [seed]      (default 2048)
 * Exits 0 when the factors match a sequential factorisation (relative 1e-9
 * of the largest entry: a GPU compiler may fuse the multiply-subtract), 1
 * otherwise; also prints max |LU - A| relative to max |A| for small N. */
#include <math.h>
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
  int N = argc > 1 ? atoi(argv[1]) : 2048;
  unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
  if (N < 1) {
    fprintf(stderr, "lud: need N >= 1\n");
    return 2;
  }
  size_t n = (size_t)N * N;
  double *A = malloc(n * sizeof *A), *R = malloc(n * sizeof *R), *A0 = malloc(n * sizeof *A0),
         *pivot = malloc((size_t)N * sizeof *pivot);
  if (!A || !R || !A0 || !pivot) {
    fprintf(stderr, "lud: out of memory for %d x %d\n", N, N);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (int i = 0; i < N; i++) {
    double rowsum = 0.0;
    for (int j = 0; j < N; j++) {
      A[(size_t)i * N + j] = uniform(&state);
      rowsum += fabs(A[(size_t)i * N + j]);
    }
    A[(size_t)i * N + i] = rowsum + 1.0; /* diagonally dominant: no pivoting needed */
  }
  memcpy(R, A, n * sizeof *A);
  memcpy(A0, A, n * sizeof *A);

  /* No `#pragma hce data` around the steps: tried (with `hce update from` of
   * the pivot row), it moved 80x more bytes than this on cpu + a fast sim
   * device (300 x 300): the loop's first row moves down every step, so the
   * devices' shares of the rows shift and trailing rows go back and forth
   * between them. */
  for (int k = 0; k < N - 1; k++) {
    memcpy(pivot + k, A + (size_t)k * N + k, (size_t)(N - k) * sizeof *A);
#pragma hce co_exec schedule(fdets) name("lud.update") map(tofrom: A[i*N+k:N-k]) map(to: pivot[k:N-k])
#pragma omp parallel for
    for (int i = k + 1; i < N; i++) {
      double l = A[(long)i * N + k] / pivot[k];
      A[(long)i * N + k] = l;
      for (int j = k + 1; j < N; j++)
        A[(long)i * N + j] -= l * pivot[j];
    }
  }

  /* Sequential reference: the same elimination on a separate copy. */
  for (int k = 0; k < N - 1; k++)
    for (int i = k + 1; i < N; i++) {
      double l = R[(size_t)i * N + k] / R[(size_t)k * N + k];
      R[(size_t)i * N + k] = l;
      for (int j = k + 1; j < N; j++)
        R[(size_t)i * N + j] -= l * R[(size_t)k * N + j];
    }
  double big = 0.0;
  for (size_t e = 0; e < n; e++)
    big = fabs(R[e]) > big ? fabs(R[e]) : big;
  size_t bad = 0;
  for (size_t e = 0; e < n; e++)
    bad += !(fabs(A[e] - R[e]) <= 1e-9 * big);

  if (N <= 512) { /* backward error of the factors, as a sanity check */
    double err = 0.0, amax = 0.0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double s = 0.0;
        for (int t = 0; t <= (i < j ? i : j); t++)
          s += (t == i ? 1.0 : A[(size_t)i * N + t]) * A[(size_t)t * N + j];
        err = fmax(err, fabs(s - A0[(size_t)i * N + j]));
        amax = fmax(amax, fabs(A0[(size_t)i * N + j]));
      }
    printf("lud: max |LU - A| / max |A| = %.3e\n", err / amax);
    if (!(err <= 1e-10 * amax))
      bad++;
  }
  printf("lud %d x %d: %s (%zu mismatches)\n", N, N,
         bad ? "FAILED" : "verified against sequential", bad);
  free(A);
  free(R);
  free(A0);
  free(pivot);
  return bad ? 1 : 0;
}
