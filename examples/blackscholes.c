/* BlackScholes (PARSEC / CUDA SDK blackscholes): prices n European call and
 * put options in closed form.  One co-executed loop over the options, each
 * independent: option i reads its spot price, strike and expiry and writes
 * its call and put prices.  A one-shot loop over host-resident data, where
 * the transfers dominate on a GPU.
 *
 *   usage: blackscholes [n] [seed]      (default 2^24 options)
 * Exits 0 when the prices match a sequential computation, 1 otherwise.
 * Tolerance 1e-12 * (S + X + 1) per price (the scale of the terms that
 * cancel in it): exp, log and sqrt of another math library (a GPU's) may
 * differ in the last bit, and a GPU compiler may fuse multiply-adds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double uniform(unsigned long long *state) {
  /* xorshift64*: reproducible random numbers in [-1, 1) without libc rand */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return (double)((*state * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* Cumulative normal distribution (the polynomial approximation of the
 * benchmark), for the reference. */
static double cnd(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978,
               a5 = 1.330274429, rsqrt2pi = 0.39894228040143267794;
  double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double c = rsqrt2pi * exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0 - c : c;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 24;
  unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
  if (n < 1) {
    fprintf(stderr, "blackscholes: need n >= 1\n");
    return 2;
  }
  double *S = malloc(n * sizeof *S), *X = malloc(n * sizeof *X), *T = malloc(n * sizeof *T),
         *call = malloc(n * sizeof *call), *put = malloc(n * sizeof *put);
  if (!S || !X || !T || !call || !put) {
    fprintf(stderr, "blackscholes: out of memory for %ld options\n", n);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (long i = 0; i < n; i++) {
    S[i] = 5.0 + 25.0 * (uniform(&state) + 1.0) * 0.5;   /* spot   5 .. 30 */
    X[i] = 1.0 + 99.0 * (uniform(&state) + 1.0) * 0.5;   /* strike 1 .. 100 */
    T[i] = 0.25 + 9.75 * (uniform(&state) + 1.0) * 0.5;  /* years  0.25 .. 10 */
  }
  const double R = 0.02, V = 0.30; /* riskless rate, volatility */

#pragma hce co_exec schedule(fdets) name("blackscholes") map(to: S[i:1], X[i:1], T[i:1]) map(from: call[i:1], put[i:1])
#pragma omp parallel for
  for (long i = 0; i < n; i++) {
    double sqrtT = sqrt(T[i]);
    double d1 = (log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT);
    double d2 = d1 - V * sqrtT;
    double cnd12[2];
    for (int q = 0; q < 2; q++) { /* cumulative normal of d1 and d2, inline */
      double d = q ? d2 : d1;
      double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
      double c = 0.39894228040143267794 * exp(-0.5 * d * d) *
                 (k * (0.31938153 +
                       k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
      cnd12[q] = d > 0 ? 1.0 - c : c;
    }
    double expRT = exp(-R * T[i]);
    call[i] = S[i] * cnd12[0] - X[i] * expRT * cnd12[1];
    put[i] = X[i] * expRT * (1.0 - cnd12[1]) - S[i] * (1.0 - cnd12[0]);
  }

  /* Sequential reference. */
  size_t bad = 0;
  for (long i = 0; i < n; i++) {
    double sqrtT = sqrt(T[i]);
    double d1 = (log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT);
    double d2 = d1 - V * sqrtT;
    double c1 = cnd(d1), c2 = cnd(d2), expRT = exp(-R * T[i]);
    double rc = S[i] * c1 - X[i] * expRT * c2;
    double rp = X[i] * expRT * (1.0 - c2) - S[i] * (1.0 - c1);
    /* Errors scale with the terms that cancel, not with the price. */
    double sc = 1e-12 * (S[i] + X[i] + 1.0);
    if (!(fabs(call[i] - rc) <= sc) || !(fabs(put[i] - rp) <= sc))
      bad++;
  }
  printf("blackscholes %ld options: %s (%zu of %ld options wrong)\n", n,
         bad ? "FAILED" : "verified against sequential", bad, n);
  free(S);
  free(X);
  free(T);
  free(call);
  free(put);
  return bad ? 1 : 0;
}
