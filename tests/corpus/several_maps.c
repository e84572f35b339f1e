/* Several maps of one array: a row and a column footprint of the same
 * matrix (B = A + A^T), and an LU-style elimination step whose rows below
 * the pivot read the broadcast pivot row while updating their own
 * (map(tofrom: A[i:1][0:N]) with map(to: A[k:1][0:N])).
 *
 * CORPUS-ARGS: 2
 */
#include <stdio.h>
#include <stdlib.h>

#define N 400
static double A[N][N], B[N][N];

static void symmetrise(void) {
  int i;
#pragma hce co_exec map(to: A[i:1][0:N], A[0:N][i:1]) map(from: B[i:1][0:N])
#pragma omp parallel for
  for (i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      B[i][j] = A[i][j] + A[j][i];
}

static void eliminate(int k) {
  int i;
#pragma hce co_exec map(tofrom: A[i:1][0:N]) map(to: A[k:1][0:N])
#pragma omp parallel for
  for (i = k + 1; i < N; i++) {
    double f = A[i][k] / A[k][k];
    for (int j = k; j < N; j++)
      A[i][j] -= f * A[k][j];
  }
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 4;
  srand(271);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)(rand() % 1000) / 100.0 + (i == j ? 4.0 * N : 0.0);
  double s = 0;
  for (int r = 0; r < reps; r++) {
    symmetrise();
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        s += B[i][j] * ((i * 3 + j) % 5 + 1);
  }
  for (int k = 0; k < 40; k++)
    eliminate(k);
  double u = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      u += A[i][j] * ((i + 2 * j) % 3 + 1);
  printf("several_maps symmetric %.17g eliminated %.17g\n", s, u);
  return 0;
}
