/* PolyBench style: C = alpha*A*B + beta*C with C99 variable-length array
 * parameters (`double C[ni][nj]`), arrays allocated as pointers to rows of
 * run-time length, and `omp parallel for private(j, k)` under co_exec.
 *
 * CORPUS-ARGS: 600 128 96 4
 */
#include <stdio.h>
#include <stdlib.h>

static void init_array(int ni, int nj, int nk, double *alpha, double *beta,
                       double C[ni][nj], double A[ni][nk], double B[nk][nj]) {
  *alpha = 1.25;
  *beta = 0.75;
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      C[i][j] = (double)(rand() % 1000 + 1) / 997.0;
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      A[i][k] = (double)(rand() % 1000 + 1) / 991.0;
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < nj; j++)
      B[k][j] = (double)(rand() % 1000 + 1) / 983.0;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[ni][nj], double A[ni][nk], double B[nk][nj]) {
  int i, j, k;
#pragma hce co_exec map(to: A[i:1][0:nk], B[0:nk][0:nj]) map(tofrom: C[i:1][0:nj])
#pragma omp parallel for private(j, k)
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

static double checksum(int ni, int nj, double C[ni][nj]) {
  double s = 0;
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      s += C[i][j] * (1 + (i + 3 * j) % 7);
  return s;
}

int main(int argc, char **argv) {
  int ni = argc > 1 ? atoi(argv[1]) : 1000;
  int nj = argc > 2 ? atoi(argv[2]) : 1100;
  int nk = argc > 3 ? atoi(argv[3]) : 1200;
  int reps = argc > 4 ? atoi(argv[4]) : 1;
  double alpha, beta;
  double(*A)[nk] = malloc(sizeof(double[ni][nk]));
  double(*B)[nj] = malloc(sizeof(double[nk][nj]));
  double(*C)[nj] = malloc(sizeof(double[ni][nj]));
  if (!A || !B || !C)
    return 1;
  srand(42);
  init_array(ni, nj, nk, &alpha, &beta, C, A, B);
  for (int r = 0; r < reps; r++)
    kernel_gemm(ni, nj, nk, alpha, beta, C, A, B);
  printf("gemm checksum %.17g\n", checksum(ni, nj, C));
  printf("gemm C[%d][%d] %.17g\n", ni / 2, nj - 1, C[ni / 2][nj - 1]);
  free(A);
  free(B);
  free(C);
  return 0;
}
