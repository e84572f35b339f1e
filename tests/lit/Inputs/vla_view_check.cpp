// Host check of the CUDA variant's view of a variable-length array
// (__hce_vla, extracted from a generated .cu into VLA_VIEW_HEADER): every
// A[i][j][k] and B[i][j] must name the element a row-major C array would.
#include <cstdint>
#include <cstdio>
#define __device__
#define __forceinline__ inline
#include VLA_VIEW_HEADER

int main() {
  const int64_t n = 3, m = 5, l = 7;
  static double store[3 * 5 * 7];
  const __hce_vla<double, 3> A = {store, {m, l}};
  const __hce_vla<double, 2> B = {store, {m * l}};
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      for (int64_t k = 0; k < l; ++k) {
        bad += &A[i][j][k] != &store[(i * m + j) * l + k];
        bad += &B[i][j * l + k] != &store[(i * m + j) * l + k];
      }
  A[2][4][6] = 42;
  std::printf("%s %g\n", bad ? "FAIL" : "ok", store[3 * 5 * 7 - 1]);
  return bad;
}
