/* K-means clustering (Lloyd's algorithm, as in Rodinia kmeans): n points of
 * dimension D, K clusters, a fixed number of iterations.  The assignment
 * step (nearest centroid of every point) is the co-executed loop: point i
 * needs its own coordinates and all centroids (a broadcast section); it
 * writes its label and adds to two reductions (points that changed cluster,
 * total squared distance).  The centroid update is a short host loop.
 *
 *   usage: kmeans [n] [D] [K] [iterations] [seed]
 *          (default 2^21 points, D = 16, K = 16, 10 iterations)
 * Exits 0 when labels, centroids and the per-iteration counts match a
 * sequential run, 1 otherwise.  Labels and counts must match exactly;
 * centroids relative 1e-9 and the distance sum relative 1e-9 (the
 * reduction is combined in a different order). */
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

/* New centroids = mean of their points (an empty cluster keeps its centroid). */
static void update_centroids(int n, int D, int K, const double *X, const int *label,
                             double *C, double *sum, long *count) {
  memset(sum, 0, (size_t)K * D * sizeof *sum);
  memset(count, 0, (size_t)K * sizeof *count);
  for (int i = 0; i < n; i++) {
    count[label[i]]++;
    for (int d = 0; d < D; d++)
      sum[(size_t)label[i] * D + d] += X[(size_t)i * D + d];
  }
  for (int k = 0; k < K; k++)
    if (count[k])
      for (int d = 0; d < D; d++)
        C[(size_t)k * D + d] = sum[(size_t)k * D + d] / count[k];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 21;
  int D = argc > 2 ? atoi(argv[2]) : 16;
  int K = argc > 3 ? atoi(argv[3]) : 16;
  int iters = argc > 4 ? atoi(argv[4]) : 10;
  unsigned long long seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 42;
  if (n < 1 || D < 1 || K < 1 || K > n || iters < 0) {
    fprintf(stderr, "kmeans: need n >= K >= 1, D >= 1, iterations >= 0\n");
    return 2;
  }
  size_t nx = (size_t)n * D, nk = (size_t)K * D;
  double *X = malloc(nx * sizeof *X), *C = malloc(nk * sizeof *C),
         *RC = malloc(nk * sizeof *RC), *centre = malloc(nk * sizeof *centre),
         *sum = malloc(nk * sizeof *sum),
         *inertia_log = malloc(((size_t)iters + 1) * sizeof(double));
  int *label = malloc((size_t)n * sizeof *label), *rlabel = malloc((size_t)n * sizeof *rlabel);
  long *count = malloc((size_t)K * sizeof *count), *changed_log = malloc(((size_t)iters + 1) * sizeof(long));
  if (!X || !C || !RC || !centre || !sum || !inertia_log || !label || !rlabel ||
      !count || !changed_log) {
    fprintf(stderr, "kmeans: out of memory for %d points of dimension %d\n", n, D);
    return 2;
  }
  /* Points scattered around K random centres; the first K points start as
   * the centroids. */
  unsigned long long state = seed | 1;
  for (size_t k = 0; k < nk; k++)
    centre[k] = 10.0 * uniform(&state);
  for (int i = 0; i < n; i++) {
    int c = (int)((uniform(&state) + 1.0) * 0.5 * K) % K;
    for (int d = 0; d < D; d++)
      X[(size_t)i * D + d] = centre[(size_t)c * D + d] + 2.0 * uniform(&state);
    label[i] = rlabel[i] = -1;
  }
  for (size_t k = 0; k < nk; k++)
    C[k] = RC[k] = X[k];

  /* The points are uploaded once; the centroids, recomputed on the host
   * each iteration, are pushed to the devices with an update, and the labels
   * brought back for the host's centroid step. */
#pragma hce data map(to: X[0:n*D]) map(tofrom: label[0:n])
  for (int it = 0; it < iters; it++) {
    long changed = 0;
    double inertia = 0.0;
#pragma hce update to(C[0:K*D])
#pragma hce co_exec schedule(fdets) name("kmeans.assign") map(to: X[i*D:D], C[0:K*D]) map(tofrom: label[i:1]) reduction(+: changed, inertia)
#pragma omp parallel for reduction(+ : changed, inertia)
    for (int i = 0; i < n; i++) {
      int best = 0;
      double bestd = 0.0;
      for (int k = 0; k < K; k++) {
        double dist = 0.0;
        for (int d = 0; d < D; d++) {
          double diff = X[(long)i * D + d] - C[(long)k * D + d];
          dist += diff * diff;
        }
        if (k == 0 || dist < bestd) {
          bestd = dist;
          best = k;
        }
      }
      if (label[i] != best)
        changed++;
      label[i] = best;
      inertia += bestd;
    }
    changed_log[it] = changed;
    inertia_log[it] = inertia;
#pragma hce update from(label[0:n])
    update_centroids(n, D, K, X, label, C, sum, count);
  }

  /* Sequential reference: the same iterations, one thread, own arrays. */
  size_t bad = 0;
  for (int it = 0; it < iters; it++) {
    long changed = 0;
    double inertia = 0.0;
    for (int i = 0; i < n; i++) {
      int best = 0;
      double bestd = 0.0;
      for (int k = 0; k < K; k++) {
        double dist = 0.0;
        for (int d = 0; d < D; d++) {
          double diff = X[(size_t)i * D + d] - RC[(size_t)k * D + d];
          dist += diff * diff;
        }
        if (k == 0 || dist < bestd) {
          bestd = dist;
          best = k;
        }
      }
      changed += rlabel[i] != best;
      rlabel[i] = best;
      inertia += bestd;
    }
    if (changed != changed_log[it] ||
        !(fabs(inertia - inertia_log[it]) <= 1e-9 * fabs(inertia))) {
      fprintf(stderr, "kmeans: iteration %d: %ld changed, inertia %.17g; reference %ld, %.17g\n",
              it, changed_log[it], inertia_log[it], changed, inertia);
      bad++;
    }
    update_centroids(n, D, K, X, rlabel, RC, sum, count);
  }
  for (int i = 0; i < n; i++)
    bad += label[i] != rlabel[i];
  for (size_t k = 0; k < nk; k++)
    bad += !(fabs(C[k] - RC[k]) <= 1e-9 * (fabs(RC[k]) + 1.0));
  printf("kmeans %d points, D = %d, K = %d, %d iterations: %s (%zu mismatches)\n", n, D,
         K, iters, bad ? "FAILED" : "verified against sequential", bad);
  free(X);
  free(C);
  free(RC);
  free(centre);
  free(sum);
  free(inertia_log);
  free(label);
  free(rlabel);
  free(count);
  free(changed_log);
  return bad ? 1 : 0;
}
