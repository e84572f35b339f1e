/* Sections of padded dimensions: arrays declared [N + PAD] (PAD = 0, as
 * codes keep a padding knob) mapped with [0:N], which is the whole
 * dimension; a 3-D smoothing sweep over planes with the reference's own
 * spelling A[i-1:3][0:N][0:N]; and a 2-D array with real padding (PAD2)
 * whose padding columns must keep their values.
 *
 * CORPUS-ARGS: 6
 * CORPUS-GPU-TOLERANCE: 1e-5
 */
#include <stdio.h>
#include <stdlib.h>

#define P 160
#define N 48
#define PAD 0
#define PAD2 3
static double A[P][N][N + PAD], B[P][N][N + PAD];
static float M[2000][N + PAD2];

static void sweep(void) {
  int i;
#pragma hce co_exec map(to: A[i-1:3][0:N][0:N]) map(from: B[i:1][0:N][0:N])
#pragma omp parallel for
  for (i = 1; i < P - 1; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        B[i][j][k] = (A[i - 1][j][k] + 2.0 * A[i][j][k] + A[i + 1][j][k]) * 0.25;
#pragma hce co_exec map(to: B[i:1][0:N][0:N]) map(from: A[i:1][0:N][0:N])
#pragma omp parallel for
  for (i = 1; i < P - 1; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        A[i][j][k] = B[i][j][k];
}

static void scale_rows(int rows, float f) {
  int r;
#pragma hce co_exec map(tofrom: M[r:1][0:N])
#pragma omp parallel for
  for (r = 0; r < rows; r++)
    for (int c = 0; c < N; c++)
      M[r][c] = M[r][c] * f + (float)c;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  srand(61);
  for (int i = 0; i < P; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N + PAD; k++)
        A[i][j][k] = B[i][j][k] = (double)(rand() % 10000) / 1000.0;
  for (int r = 0; r < 2000; r++)
    for (int c = 0; c < N + PAD2; c++)
      M[r][c] = (float)(rand() % 1000) / 10.0f;
  for (int s = 0; s < steps; s++) {
    sweep();
    scale_rows(2000, 0.5f);
  }
  double sa = 0, sm = 0, pad = 0;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        sa += A[i][j][k] * ((i + j + k) % 4 + 1);
  for (int r = 0; r < 2000; r++) {
    for (int c = 0; c < N; c++)
      sm += M[r][c];
    for (int c = N; c < N + PAD2; c++)
      pad += M[r][c];
  }
  printf("pad A %.17g M %.17g padding %.17g\n", sa, sm, pad);
  return 0;
}
