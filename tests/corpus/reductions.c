/* Reductions in the combined forms people write: `omp parallel for` with
 * several reduction clauses (+, *, max on doubles; the integer and logical
 * operators), `omp parallel for simd` with co_exec after it, and co_exec
 * restating nothing but the maps. Integer results are exact; the floating sum is compared
 * within a tolerance (its order follows the split).
 *
 * CORPUS-ARGS: 200003 6
 * CORPUS-TOLERANCE: 1e-12
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000000;
  int reps = argc > 2 ? atoi(argv[2]) : 4;
  double *x = malloc(sizeof(double) * n);
  unsigned *bits = malloc(sizeof(unsigned) * n);
  int *v = malloc(sizeof(int) * n);
  if (!x || !bits || !v)
    return 1;
  srand(77);
  for (int i = 0; i < n; i++) {
    x[i] = (double)(rand() % 100000) / 1000.0 - 50.0;
    bits[i] = (unsigned)rand() * 2654435761u;
    v[i] = rand() % 2001 - 1000;
  }
  for (int r = 0; r < reps; r++) {
    double sum = 0, hi = -1e300, prod = 1;
    long isum = 0;
    int lo = 1 << 30, i;
    unsigned band = ~0u, bor = 0, bxor = 0;
    int all_small = 1, any_zero = 0;
#pragma hce co_exec map(to: x[i:1], v[i:1])
#pragma omp parallel for reduction(+: sum, isum) reduction(max: hi) reduction(min: lo) \
    reduction(*: prod)
    for (i = 0; i < n; i++) {
      sum += x[i] * x[i];
      prod *= 1.0 + x[i] * 1e-7;
      hi = x[i] > hi ? x[i] : hi;
      isum += v[i];
      lo = v[i] < lo ? v[i] : lo;
    }
#pragma hce co_exec map(to: bits[i:1], v[i:1])
#pragma omp parallel for reduction(&: band) reduction(|: bor) reduction(^: bxor) \
    reduction(&&: all_small) reduction(||: any_zero)
    for (i = 0; i < n; i++) {
      band &= bits[i] | 0x0F0F0F0Fu;
      bor |= bits[i] & 0x00FF00FFu;
      bxor ^= bits[i];
      all_small = all_small && (v[i] > -1001);
      any_zero = any_zero || (v[i] == 0);
    }
    double dot = 0;
#pragma omp parallel for simd reduction(+: dot)
#pragma hce co_exec map(to: x[i:1], v[i:1])
    for (i = 0; i < n; i++)
      dot += x[i] * (double)v[i];
    printf("rep %d dot %.15g\n", r, dot);
    printf("rep %d sum %.15g prod %.15g max %.17g isum %ld min %d\n", r, sum, prod, hi,
           isum, lo);
    printf("rep %d and %08x or %08x xor %08x all %d any %d\n", r, band, bor, bxor,
           all_small, any_zero);
    for (i = 0; i < n; i++) {
      x[i] = x[i] * 0.5 + (double)(i % 13);
      bits[i] = bits[i] * 1664525u + 1013904223u;
      v[i] = (v[i] * 7 + r) % 1001;
    }
  }
  free(x);
  free(bits);
  free(v);
  return 0;
}
