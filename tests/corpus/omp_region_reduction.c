/* A `#pragma omp parallel` region whose clauses the annotated `omp for` loop
 * must honour: shared arrays, a private scratch variable and a
 * reduction(+: err) of the enclosing region, with other statements in the
 * region around the loop (a per-thread count kept in a reduction too).
 * The error sum is a floating reduction: its order depends on the split.
 *
 * CORPUS-ARGS: 40000 6
 * CORPUS-TOLERANCE: 1e-11
 */
#include <stdio.h>
#include <stdlib.h>

static double residual(int n, const double *u, const double *f, double *r) {
  double err = 0.0, d;
  int i, threads = 0;
#pragma omp parallel shared(u, f, r) private(d) reduction(+: err, threads)
  {
    threads += 1;
#pragma hce co_exec map(to: u[i-1:3], f[i:1]) map(from: r[i:1])
#pragma omp for
    for (i = 1; i < n - 1; i++) {
      d = f[i] - (2.0 * u[i] - u[i - 1] - u[i + 1]);
      r[i] = d;
      err += d * d;
    }
  }
  if (threads < 1)
    printf("no thread ran the region\n");
  return err;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000000;
  int sweeps = argc > 2 ? atoi(argv[2]) : 20;
  double *u = malloc(sizeof(double) * n), *f = malloc(sizeof(double) * n);
  double *r = malloc(sizeof(double) * n);
  if (!u || !f || !r)
    return 1;
  srand(99);
  for (int i = 0; i < n; i++) {
    u[i] = (double)(rand() % 1000) / 250.0 - 2.0;
    f[i] = (double)(rand() % 1000) / 500.0;
    r[i] = 0;
  }
  double total = 0;
  for (int s = 0; s < sweeps; s++) {
    double err = residual(n, u, f, r);
    total += err;
    for (int i = 1; i < n - 1; i++)
      u[i] += 0.25 * r[i];
    printf("sweep %d err %.15g\n", s, err);
  }
  double rs = 0;
  for (int i = 0; i < n; i++)
    rs += r[i];
  printf("residual checksum %.17g total %.15g\n", rs, total);
  free(u);
  free(f);
  free(r);
  return 0;
}
