/* C89 as older codes are written and built (-std=gnu89): declarations at
 * the top of each block, comments in slashes and stars only, an implicit
 * int function, an implicit clock() declaration, K&R parameter lists. The
 * user's flags (-Wall -Wextra -Werror with the matching -Wno flags) hold
 * for the generated code too.
 *
 * CORPUS-ARGS: 800000 8
 * CORPUS-CFLAGS: -std=gnu89 -Wno-implicit-int -Wno-implicit-function-declaration -Wno-deprecated-non-prototype
 */
#include <stdio.h>
#include <stdlib.h>

static weight(k) int k;
{
  return k % 5 + 1;
}

int main(argc, argv) int argc;
char **argv;
{
  int n, reps, i, r;
  long t0;
  double *a, *b, s;
  n = argc > 1 ? atoi(argv[1]) : 1000000;
  reps = argc > 2 ? atoi(argv[2]) : 10;
  a = (double *)malloc(sizeof(double) * n);
  b = (double *)malloc(sizeof(double) * n);
  if (!a || !b)
    return 1;
  srand(13);
  for (i = 0; i < n; i++) {
    a[i] = (double)(rand() % 5000) / 9.0;
    b[i] = 1.0;
  }
  t0 = clock();
  for (r = 0; r < reps; r++) {
    double f;
    f = 1.0 / weight(r);
#pragma hce co_exec map(to: a[i:1]) map(tofrom: b[i:1])
#pragma omp parallel for
    for (i = 0; i < n; i++)
      b[i] = b[i] * 0.75 + a[i] * f;
  }
  s = 0;
  for (i = 0; i < n; i++)
    s += b[i] * weight(i);
  printf("c89 checksum %.17g clock %s\n", s, clock() >= t0 ? "ok" : "backwards");
  free(a);
  free(b);
  return 0;
}
