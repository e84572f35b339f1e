/* Rodinia style thermal stencil on flat row-major arrays: the OpenMP lines
 * sit in `#ifdef OPEN ... #endif` guards between the co_exec line and the
 * loop, with omp_set_num_threads inside a guard, shared/private/firstprivate
 * clauses, and the two grids swapped between steps through pointers.
 *
 * CORPUS-ARGS: 600 256 8
 * CORPUS-GPU-TOLERANCE: 1e-5
 * CORPUS-CFLAGS: -DOPEN
 */
#include <stdio.h>
#include <stdlib.h>
#ifdef OPEN
#include <omp.h>
#endif

#define CAP 0.5
#define RX 0.1
#define RY 0.1
#define RZ 0.05
#define AMB 80.0

static void single_step(int rows, int cols, const float *temp, const float *power,
                        float *result, int num_threads) {
  int r, c;
  float delta;
#ifdef OPEN
  omp_set_num_threads(num_threads);
#else
  (void)num_threads;
#endif
#pragma hce co_exec map(to: temp[(r-1)*cols:3*cols], power[r*cols:cols]) \
    map(from: result[r*cols:cols])
#ifdef OPEN
#pragma omp parallel for shared(power, temp, result) private(c, delta) \
    firstprivate(rows, cols) schedule(static)
#endif
  for (r = 0; r < rows; r++) {
    for (c = 0; c < cols; c++) {
      float n = r > 0 ? temp[(r - 1) * cols + c] : temp[r * cols + c];
      float s = r < rows - 1 ? temp[(r + 1) * cols + c] : temp[r * cols + c];
      float w = c > 0 ? temp[r * cols + c - 1] : temp[r * cols + c];
      float e = c < cols - 1 ? temp[r * cols + c + 1] : temp[r * cols + c];
      float t = temp[r * cols + c];
      delta = (float)(CAP * (power[r * cols + c] + (n + s - 2.0f * t) * RY +
                             (e + w - 2.0f * t) * RX + (AMB - t) * RZ));
      result[r * cols + c] = t + delta;
    }
  }
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 1024;
  int cols = argc > 2 ? atoi(argv[2]) : 1024;
  int steps = argc > 3 ? atoi(argv[3]) : 60;
  /* The halo map temp[(r-1)*cols:3*cols] reaches one row before the first
   * and one after the last: ghost rows keep it inside the allocations (the
   * grids swap, so both get them).  A section is what an iteration may read,
   * and the runtime copies all of it. */
  float *temp_block = malloc(sizeof(float) * (size_t)(rows + 2) * cols);
  float *result_block = malloc(sizeof(float) * (size_t)(rows + 2) * cols);
  float *power = malloc(sizeof(float) * rows * cols);
  if (!temp_block || !power || !result_block)
    return 1;
  float *temp = temp_block + cols, *result = result_block + cols;
  for (int i = 0; i < cols; i++) {
    temp_block[i] = result_block[i] = 0.0f;
    temp[rows * cols + i] = result[rows * cols + i] = 0.0f;
  }
  srand(2024);
  for (int i = 0; i < rows * cols; i++) {
    temp[i] = 320.0f + (float)(rand() % 2000) / 100.0f;
    power[i] = (float)(rand() % 1000) / 5000.0f;
  }
  for (int s = 0; s < steps; s++) {
    single_step(rows, cols, temp, power, result, 2);
    float *t = temp;
    temp = result;
    result = t;
  }
  double sum = 0;
  for (int i = 0; i < rows * cols; i++)
    sum += (double)temp[i] * (i % 7 + 1);
  printf("hotspot checksum %.17g\n", sum);
  printf("hotspot corner %.9g centre %.9g\n", (double)temp[0],
         (double)temp[(rows / 2) * cols + cols / 2]);
  free(temp_block);
  free(power);
  free(result_block);
  return 0;
}
