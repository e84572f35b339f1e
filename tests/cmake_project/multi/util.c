/* Built by gcc, linked with the hce-cc objects: data and references. */
#include "multi.h"
#include "b_only.h"

#include <math.h>
#include <stdlib.h>

void multi_fill(double *p, int count, unsigned seed) {
  srand(seed);
  for (int k = 0; k < count; k++)
    p[k] = (rand() % 1000) / 64.0 - 7.0;
}

int multi_check(const double (*x)[MULTI_M], const double (*y0)[MULTI_M],
                const double (*y)[MULTI_M], const double *v0, const double *v,
                double vsum, const double *w) {
  int bad = 0;
  double rsum = 0;
  for (int i = 0; i < MULTI_N; i++) {
    for (int j = 0; j < MULTI_M; j++)
      bad += y[i][j] != 1.5 * x[i][j] + y0[i][j];
    double r = v0[i] * v0[i] + B_OFFSET;
    bad += v[i] != r;
    rsum += r;
    bad += w[i] != x[i][0] + x[i][MULTI_M - 1];
  }
  bad += fabs(vsum - rsum) > 1e-9 * fabs(rsum);
  return bad;
}
