/* Globals and a function defined in a header the loop file includes
 * (corpus_globals.h): a 5-tap filter reads the header's coefficient array
 * through its map and its gain by value, and calls the header's function.
 * With CUDA variants the program must still link (each global defined
 * once).
 *
 * CORPUS-ARGS: 400000 10
 */
#include <stdio.h>
#include <stdlib.h>

#include "corpus_globals.h"

static void filter(int n, const double *in, double *out) {
  int i;
  g_calls++;
#pragma hce co_exec map(to: in[i-2:TAPS], g_coef[0:TAPS]) map(from: out[i:1])
#pragma omp parallel for
  for (i = 2; i < n - 2; i++) {
    double s = 0;
    for (int k = 0; k < TAPS; k++)
      s += g_coef[k] * in[i - 2 + k];
    out[i] = clamp_value(s * g_gain, -100.0, 100.0);
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000000;
  int passes = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  if (!a || !b)
    return 1;
  srand(17);
  for (int i = 0; i < n; i++)
    a[i] = b[i] = (double)(rand() % 4000) / 40.0 - 50.0;
  for (int p = 0; p < passes; p++) {
    filter(n, a, b);
    double *t = a;
    a = b;
    b = t;
    g_gain = p % 2 ? 1.5 : 0.75;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (i % 11 + 1);
  printf("header_globals checksum %.17g calls %d\n", s, g_calls);
  free(a);
  free(b);
  return 0;
}
