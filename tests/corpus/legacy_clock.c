/* Legacy C as gcc takes it: clock() called without its header (an
 * implicit declaration, accepted with the matching -Wno flag, for both
 * builds alike), old-style (K&R) function definitions, and the loop
 * variable declared at the top of the function.
 *
 * CORPUS-ARGS: 1000000 10
 * CORPUS-CFLAGS: -std=gnu99 -Wno-implicit-function-declaration -Wno-deprecated-non-prototype
 */
#include <stdio.h>
#include <stdlib.h>

static double scale_of(k, base) int k;
double base;
{
  return base * (k % 4 + 1);
}

int main(argc, argv) int argc;
char **argv;
{
  int n, reps, i, r;
  long t0, t1;
  double *a, *b, s;
  n = argc > 1 ? atoi(argv[1]) : 1000000;
  reps = argc > 2 ? atoi(argv[2]) : 10;
  a = (double *)malloc(sizeof(double) * n);
  b = (double *)malloc(sizeof(double) * n);
  if (!a || !b)
    return 1;
  srand(3);
  for (i = 0; i < n; i++) {
    a[i] = (double)(rand() % 1000) / 7.0;
    b[i] = 0;
  }
  t0 = clock();
  for (r = 0; r < reps; r++) {
    double f = scale_of(r, 0.125);
#pragma hce co_exec map(to: a[i:1]) map(tofrom: b[i:1])
#pragma omp parallel for
    for (i = 0; i < n; i++)
      b[i] = b[i] * 0.5 + a[i] * f;
  }
  t1 = clock();
  s = 0;
  for (i = 0; i < n; i++)
    s += b[i] * (i % 9 + 1);
  printf("legacy checksum %.17g clock %s\n", s, t1 >= t0 ? "ok" : "backwards");
  free(a);
  free(b);
  return 0;
}
