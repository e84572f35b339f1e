/* Histogram with array reductions: n random values are counted into NB
 * bins, and the smallest and largest value of each bin are kept.  The
 * co-executed loop updates three arrays with `reduction(+: count[0:NB])`,
 * `reduction(min: lo[0:NB])` and `reduction(max: hi[0:NB])`: every chunk on
 * every device fills private copies, and the runtime combines them element
 * by element, so the loop needs no atomics.  The counts are added to what
 * the arrays already hold (a second pass over the same data doubles them).
 *
 *   usage: histogram [n] [seed]      (default 2^26 values)
 * Exits 0 when counts, minima and maxima equal a sequential computation
 * exactly (integers), 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#define NB 256
#define PASSES 2

static unsigned long long next(unsigned long long *state) {
  /* xorshift64*: reproducible without libc rand */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 26;
  unsigned long long state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  if (n < 1 || state == 0) {
    fprintf(stderr, "histogram: need n >= 1 and seed > 0\n");
    return 2;
  }
  unsigned *v = malloc((size_t)n * sizeof *v);
  if (!v) {
    fprintf(stderr, "histogram: out of memory\n");
    return 2;
  }
  for (long i = 0; i < n; i++)
    v[i] = (unsigned)(next(&state) >> 33); /* 31 random bits */

  long long count[NB] = {0};
  unsigned lo[NB], hi[NB];
  for (int b = 0; b < NB; b++) {
    lo[b] = 0x7fffffffu;
    hi[b] = 0;
  }
  for (int pass = 0; pass < PASSES; pass++) {
#pragma hce co_exec name("histogram") map(to: v[i:1]) reduction(min: lo[0:NB]) reduction(max: hi[0:NB])
#pragma omp parallel for reduction(+ : count[0:NB])
    for (long i = 0; i < n; i++) {
      /* a little work per value: the bin of a mixed hash of it */
      unsigned x = v[i];
      for (int r = 0; r < 8; r++)
        x = (x ^ (x >> 15)) * 0x2c1b3c6du;
      int b = (int)(x % NB);
      count[b] += 1;
      if (v[i] < lo[b])
        lo[b] = v[i];
      if (v[i] > hi[b])
        hi[b] = v[i];
    }
  }

  /* Sequential reference. */
  long long rcount[NB] = {0};
  unsigned rlo[NB], rhi[NB];
  for (int b = 0; b < NB; b++) {
    rlo[b] = 0x7fffffffu;
    rhi[b] = 0;
  }
  for (int pass = 0; pass < PASSES; pass++)
    for (long i = 0; i < n; i++) {
      unsigned x = v[i];
      for (int r = 0; r < 8; r++)
        x = (x ^ (x >> 15)) * 0x2c1b3c6du;
      int b = (int)(x % NB);
      rcount[b] += 1;
      if (v[i] < rlo[b])
        rlo[b] = v[i];
      if (v[i] > rhi[b])
        rhi[b] = v[i];
    }
  long bad = 0, total = 0;
  for (int b = 0; b < NB; b++) {
    bad += count[b] != rcount[b] || lo[b] != rlo[b] || hi[b] != rhi[b];
    total += count[b];
  }
  printf("histogram: n=%ld, %d bins, %ld values counted, %ld bins differ: %s\n", n, NB,
         total, bad, bad == 0 && total == PASSES * n ? "verified against sequential" : "FAILED");
  free(v);
  return bad == 0 && total == PASSES * n ? 0 : 1;
}
