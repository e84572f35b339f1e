/* Missing maps: co_exec with no map clause at all on loops whose subscripts
 * are affine in the loop variable (a halo read, a row of a 2-D global, an
 * accumulator updated in place, an output assigned whole): the translator
 * infers each footprint. Global fixed-size arrays and pointer parameters.
 *
 * CORPUS-ARGS: 250000 8
 */
#include <stdio.h>
#include <stdlib.h>

#define COLS 16
#define ROWS 4096
static double grid[ROWS][COLS];
static double rowsum[ROWS];

static void smooth(int n, const double *in, double *out, double *acc) {
#pragma hce co_exec
  for (int i = 1; i < n - 1; i++) {
    out[i] = (in[i - 1] + 2.0 * in[i] + in[i + 1]) * 0.25;
    acc[i] += out[i];
  }
}

static void reduce_rows(void) {
#pragma hce co_exec
#pragma omp parallel for
  for (int r = 0; r < ROWS; r++) {
    double s = 0;
    for (int c = 0; c < COLS; c++)
      s += grid[r][c] * (c + 1);
    rowsum[r] = s;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000000;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  double *acc = malloc(sizeof(double) * n);
  if (!a || !b || !acc)
    return 1;
  srand(31);
  for (int i = 0; i < n; i++) {
    a[i] = b[i] = (double)(rand() % 10000) / 100.0;
    acc[i] = (double)(rand() % 100);
  }
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      grid[r][c] = (double)(rand() % 1000) / 10.0;
  for (int s = 0; s < steps; s++) {
    smooth(n, a, b, acc);
    double *t = a;
    a = b;
    b = t;
    reduce_rows();
    for (int r = 0; r < ROWS; r++)
      grid[r][s % COLS] += rowsum[r] / 1000.0;
  }
  double cs = 0, ca = 0, cr = 0;
  for (int i = 0; i < n; i++) {
    cs += a[i] * (i % 5 + 1);
    ca += acc[i];
  }
  for (int r = 0; r < ROWS; r++)
    cr += rowsum[r];
  printf("inferred smooth %.17g acc %.17g rows %.17g\n", cs, ca, cr);
  free(a);
  free(b);
  free(acc);
  return 0;
}
