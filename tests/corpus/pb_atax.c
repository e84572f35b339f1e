/* PolyBench style ATAX (y = A^T (A x)) written as many OpenMP codes are: one
 * `#pragma omp parallel` region with its own private(j) clause and two
 * `#pragma omp for` loops inside, each annotated; the second walks A by
 * columns (a column footprint A[0:m][j:1]).
 *
 * CORPUS-ARGS: 700 640 3
 */
#include <stdio.h>
#include <stdlib.h>

static void kernel_atax(int m, int n, double A[m][n], double x[n], double y[n],
                        double tmp[m]) {
  int i, j;
#pragma omp parallel private(j)
  {
#pragma hce co_exec map(to: A[i:1][0:n], x[0:n]) map(from: tmp[i:1])
#pragma omp for
    for (i = 0; i < m; i++) {
      tmp[i] = 0.0;
      for (j = 0; j < n; j++)
        tmp[i] = tmp[i] + A[i][j] * x[j];
    }
  }
#pragma omp parallel private(i)
  {
#pragma omp for
#pragma hce co_exec map(to: A[0:m][j:1], tmp[0:m]) map(from: y[j:1])
    for (j = 0; j < n; j++) {
      y[j] = 0.0;
      for (i = 0; i < m; i++)
        y[j] = y[j] + A[i][j] * tmp[i];
    }
  }
}

int main(int argc, char **argv) {
  int m = argc > 1 ? atoi(argv[1]) : 1900;
  int n = argc > 2 ? atoi(argv[2]) : 2100;
  int reps = argc > 3 ? atoi(argv[3]) : 1;
  double(*A)[n] = malloc(sizeof(double[m][n]));
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  double *tmp = malloc(sizeof(double) * m);
  if (!A || !x || !y || !tmp)
    return 1;
  srand(1234);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = (double)(rand() % 2001 - 1000) / 1000.0;
  for (int j = 0; j < n; j++)
    x[j] = 1.0 + (double)(rand() % 100) / 100.0;
  double s = 0;
  for (int r = 0; r < reps; r++) {
    kernel_atax(m, n, A, x, y, tmp);
    for (int j = 0; j < n; j++) {
      s += y[j] * (j % 3 + 1);
      x[j] = y[j] / 1024.0 + 0.5; /* the next repetition starts from y */
    }
  }
  printf("atax checksum %.17g\n", s);
  printf("atax y[0] %.17g y[n-1] %.17g tmp[m/2] %.17g\n", y[0], y[n - 1], tmp[m / 2]);
  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
