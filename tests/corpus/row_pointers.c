/* Arrays of row pointers, each row allocated apart (k-means and
 * back-propagation codes): `float **feature` normalised in place through
 * its rows (map(tofrom: feature[i][0:nf])), then each point assigned to its
 * nearest centre (map(to: feature[i][0:nf])) with a count of changed
 * memberships as reduction(+: delta); the centres are recomputed on the
 * host between iterations.
 *
 * CORPUS-ARGS: 60000 12 6 6
 * CORPUS-GPU-TOLERANCE: 1e-5
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int npoints = argc > 1 ? atoi(argv[1]) : 1000000;
  int nf = argc > 2 ? atoi(argv[2]) : 34;
  int nclusters = argc > 3 ? atoi(argv[3]) : 5;
  int iters = argc > 4 ? atoi(argv[4]) : 10;
  float **feature = malloc(sizeof(float *) * npoints);
  float *centres = malloc(sizeof(float) * nclusters * nf);
  float *scale = malloc(sizeof(float) * nf);
  int *membership = malloc(sizeof(int) * npoints);
  double *sums = malloc(sizeof(double) * nclusters * nf);
  int *counts = malloc(sizeof(int) * nclusters);
  if (!feature || !centres || !scale || !membership || !sums || !counts)
    return 1;
  srand(101);
  for (int i = 0; i < npoints; i++) {
    feature[i] = malloc(sizeof(float) * nf);
    if (!feature[i])
      return 1;
    for (int j = 0; j < nf; j++)
      feature[i][j] = (float)(rand() % 10000) / 100.0f;
    membership[i] = -1;
  }
  for (int j = 0; j < nf; j++)
    scale[j] = 1.0f / (float)(j + 1);

  int i;
#pragma hce co_exec map(tofrom: feature[i][0:nf]) map(to: scale[0:nf])
#pragma omp parallel for
  for (i = 0; i < npoints; i++)
    for (int j = 0; j < nf; j++)
      feature[i][j] = feature[i][j] * scale[j] - 1.0f;

  for (int c = 0; c < nclusters; c++)
    for (int j = 0; j < nf; j++)
      centres[c * nf + j] = feature[(c * 7919) % npoints][j];
  for (int it = 0; it < iters; it++) {
    int delta = 0;
#pragma hce co_exec map(to: feature[i][0:nf], centres[0:nclusters*nf]) \
    map(tofrom: membership[i:1]) reduction(+: delta)
#pragma omp parallel for reduction(+: delta)
    for (i = 0; i < npoints; i++) {
      int best = 0;
      float best_d = 3.0e38f;
      for (int c = 0; c < nclusters; c++) {
        float d = 0;
        for (int j = 0; j < nf; j++) {
          float x = feature[i][j] - centres[c * nf + j];
          d += x * x;
        }
        if (d < best_d) {
          best_d = d;
          best = c;
        }
      }
      delta += membership[i] != best;
      membership[i] = best;
    }
    for (int k = 0; k < nclusters * nf; k++)
      sums[k] = 0;
    for (int c = 0; c < nclusters; c++)
      counts[c] = 0;
    for (int p = 0; p < npoints; p++) {
      counts[membership[p]]++;
      for (int j = 0; j < nf; j++)
        sums[membership[p] * nf + j] += feature[p][j];
    }
    for (int c = 0; c < nclusters; c++)
      for (int j = 0; j < nf; j++)
        if (counts[c])
          centres[c * nf + j] = (float)(sums[c * nf + j] / counts[c]);
    printf("iteration %d delta %d\n", it, delta);
  }
  double cs = 0;
  for (int c = 0; c < nclusters * nf; c++)
    cs += centres[c];
  double fs = 0;
  for (int p = 0; p < npoints; p += 13)
    fs += feature[p][p % nf];
  printf("kmeans centres %.9g features %.9g counts", cs, fs);
  for (int c = 0; c < nclusters; c++)
    printf(" %d", counts[c]);
  printf("\n");
  for (int p = 0; p < npoints; p++)
    free(feature[p]);
  free(feature);
  free(centres);
  free(scale);
  free(membership);
  free(sums);
  free(counts);
  return 0;
}
