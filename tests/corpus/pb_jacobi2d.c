/* PolyBench style 2-D Jacobi: VLA parameters `double A[n][n]`, a time loop
 * around two co_exec loops with halo maps (rows i-1..i+1), the first with
 * `omp parallel for private(j)`, the second written with the combined
 * `parallel for` after the co_exec line.
 *
 * CORPUS-ARGS: 520 12
 */
#include <stdio.h>
#include <stdlib.h>

static void init_array(int n, double A[n][n], double B[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = ((double)(rand() % 4096) + 1) / 4096.0;
      B[i][j] = ((double)(rand() % 4096) + 1) / 2048.0;
    }
}

static void kernel_jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n]) {
  int t, i, j;
  for (t = 0; t < tsteps; t++) {
#pragma hce co_exec map(to: A[i-1:3][0:n]) map(from: B[i:1][1:n-2])
#pragma omp parallel for private(j)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
#pragma omp parallel for private(j)
#pragma hce co_exec map(to: B[i-1:3][0:n]) map(from: A[i:1][1:n-2])
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2800;
  int tsteps = argc > 2 ? atoi(argv[2]) : 500;
  double(*A)[n] = malloc(sizeof(double[n][n]));
  double(*B)[n] = malloc(sizeof(double[n][n]));
  if (!A || !B)
    return 1;
  srand(7);
  init_array(n, A, B);
  kernel_jacobi_2d(tsteps, n, A, B);
  double s = 0, edge = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += A[i][j] * (double)((i ^ j) % 5 + 1);
  for (int i = 0; i < n; i++)
    edge += B[i][0] + B[0][i] + B[n - 1][i] + B[i][n - 1];
  printf("jacobi2d checksum %.17g\n", s);
  printf("jacobi2d edge %.17g\n", edge);
  printf("jacobi2d A[1][1] %.17g A[n/2][n/3] %.17g\n", A[1][1], A[n / 2][n / 3]);
  free(A);
  free(B);
  return 0;
}
