/* A time loop inside `#pragma hce data`: the arrays stay on the devices
 * between the two co_exec loops of each step; every few steps
 * `#pragma hce update from` brings the field home for a host-side probe,
 * and the host changes the boundary values and sends both with one
 * `#pragma hce update to` of two sections. The plain build ignores all of it.
 *
 * CORPUS-ARGS: 400000 24 6
 */
#include <stdio.h>
#include <stdlib.h>

static void relax(int n, int steps, int every, double *u, double *w) {
#pragma hce data map(tofrom: u[0:n]) map(alloc: w[0:n])
  {
    for (int t = 0; t < steps; t++) {
#pragma hce co_exec map(to: u[i-1:3]) map(from: w[i:1])
#pragma omp parallel for
      for (int i = 1; i < n - 1; i++)
        w[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
#pragma hce co_exec map(to: w[i:1]) map(tofrom: u[i:1])
#pragma omp parallel for
      for (int i = 1; i < n - 1; i++)
        u[i] = 0.5 * (u[i] + w[i]);
      if ((t + 1) % every == 0) {
#pragma hce update from(u[0:n])
        double probe = 0;
        for (int i = 0; i < n; i += 97)
          probe += u[i];
        printf("step %d probe %.17g\n", t + 1, probe);
        u[0] = probe / (double)n;
        u[n - 1] = -u[0];
#pragma hce update to(u[0:1], u[n-1:1])
      }
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000000;
  int steps = argc > 2 ? atoi(argv[2]) : 100;
  int every = argc > 3 ? atoi(argv[3]) : 10;
  double *u = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
  if (!u || !w)
    return 1;
  srand(8);
  for (int i = 0; i < n; i++)
    u[i] = (double)(rand() % 20000) / 100.0 - 100.0;
  relax(n, steps, every, u, w);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * (i % 3 + 1);
  printf("data checksum %.17g u[1] %.17g\n", s, u[1]);
  free(u);
  free(w);
  return 0;
}
