/* Monte Carlo estimate of pi: the fraction of random points of the unit
 * square that fall inside the quarter circle.  One co-executed loop over
 * blocks of samples with a `+` reduction of the hit count and no arrays at
 * all: pure compute, no transfers.  Every sample's coordinates come from a
 * counter-based generator (splitmix64 of seed + sample index), so the result
 * does not depend on which device draws which sample; the circle test is in
 * 64-bit integers, so it is exact everywhere.
 *
 *   usage: mcpi [samples] [seed]      (default 2^32 samples)
 * Exits 0 when the hit count equals a sequential count exactly, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#define SAMPLES_PER_ITERATION 256

/* Reference generator: the same splitmix64 as in the loop body. */
static unsigned long long splitmix64(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  long long samples = argc > 1 ? atoll(argv[1]) : 1LL << 32;
  unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
  if (samples < 1) {
    fprintf(stderr, "mcpi: need samples >= 1\n");
    return 2;
  }
  const long long P = SAMPLES_PER_ITERATION;
  long long blocks = (samples + P - 1) / P;
  const unsigned long long R = 1ULL << 31; /* coordinates in [0, R) */

  long long hits = 0;
#pragma hce co_exec schedule(fdets) name("mcpi") reduction(+: hits)
#pragma omp parallel for reduction(+ : hits)
  for (long long b = 0; b < blocks; b++) {
    long long end = (b + 1) * P < samples ? (b + 1) * P : samples;
    for (long long s = b * P; s < end; s++) {
      unsigned long long z = seed * 0x100000000ULL + (unsigned long long)s;
      z += 0x9E3779B97F4A7C15ULL;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      unsigned long long x = z >> 33, y = z & (R - 1); /* two 31-bit numbers */
      if (x * x + y * y < R * R)
        hits++;
    }
  }

  /* Reference: a plain OpenMP loop (an integer sum: exact in any order). */
  long long ref = 0;
#pragma omp parallel for reduction(+ : ref)
  for (long long s = 0; s < samples; s++) {
    unsigned long long z = splitmix64(seed * 0x100000000ULL + (unsigned long long)s);
    unsigned long long x = z >> 33, y = z & (R - 1);
    ref += x * x + y * y < R * R;
  }
  double pi = 4.0 * (double)hits / (double)samples;
  int ok = hits == ref && hits > 0;
  printf("mcpi %lld samples: pi ~ %.8f, %lld hits (reference %lld): %s\n", samples, pi,
         hits, ref, ok ? "verified against sequential" : "FAILED");
  return ok ? 0 : 1;
}
