/* Rodinia style nearest neighbour: distances of many records to a target
 * in a guarded `omp parallel for`, then the nearest distance and the count
 * within a radius by reduction(min:) and reduction(+:) on the combined
 * `parallel for` (min of floats and a count of ints are exact whatever the
 * split), with the records as a struct array read by field.
 *
 * CORPUS-ARGS: 300000 5
 * CORPUS-GPU-TOLERANCE: 1e-5
 * CORPUS-CFLAGS: -DOPEN
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct record {
  float lat, lng;
  int id;
};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5000000;
  int queries = argc > 2 ? atoi(argv[2]) : 10;
  struct record *rec = malloc(sizeof(struct record) * n);
  float *dist = malloc(sizeof(float) * n);
  if (!rec || !dist)
    return 1;
  srand(5);
  for (int i = 0; i < n; i++) {
    rec[i].lat = (float)(rand() % 18000) / 100.0f - 90.0f;
    rec[i].lng = (float)(rand() % 36000) / 100.0f - 180.0f;
    rec[i].id = i;
  }
  for (int q = 0; q < queries; q++) {
    float tlat = (float)(rand() % 18000) / 100.0f - 90.0f;
    float tlng = (float)(rand() % 36000) / 100.0f - 180.0f;
    int i;
#pragma hce co_exec map(to: rec[i:1]) map(from: dist[i:1])
#ifdef OPEN
#pragma omp parallel for shared(rec, dist)
#endif
    for (i = 0; i < n; i++)
      dist[i] = sqrtf((rec[i].lat - tlat) * (rec[i].lat - tlat) +
                      (rec[i].lng - tlng) * (rec[i].lng - tlng));
    float best = 1e30f;
    int close = 0;
#pragma omp parallel for reduction(min: best) reduction(+: close)
#pragma hce co_exec map(to: dist[i:1]) reduction(min: best) reduction(+: close)
    for (i = 0; i < n; i++) {
      best = dist[i] < best ? dist[i] : best;
      close += dist[i] < 20.0f;
    }
    int at = -1;
    for (i = 0; i < n && at < 0; i++)
      if (dist[i] == best)
        at = rec[i].id;
    printf("query %d nearest %.9g record %d within20 %d\n", q, (double)best, at, close);
  }
  free(rec);
  free(dist);
  return 0;
}
