// The site code is clean under -Wall -Wextra -Werror as C and as C++
// (issue 14.4: no missing field initializer), and every map carries the
// array's extent when its type gives it, 0 for a pointer (issue 11.3/11.7:
// the runtime clamps footprints to it and rejects sections outside it).
//
// RUN: %hce-translate %s -o %t.cpp -- -std=c++17
// RUN: FileCheck %s --input-file %t.cpp
// RUN: %clangxx -std=c++17 -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.cpp
// RUN: cp %s %t.in.c
// RUN: %hce-translate %t.in.c -o %t.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c

#define M 40
#define N 8
static double A[M][N], B[M * N];

void halo(double *out) {
#pragma hce co_exec map(to: A[i-1:3][0:N]) map(from: out[i*N:N])
#pragma omp parallel for
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      out[i * N + j] = (i > 0 ? A[i - 1][j] : 0) + A[i][j] + (i < M - 1 ? A[i + 1][j] : 0);
}

void whole(void) {
#pragma hce data map(tofrom: B[0:M*N])
  {
#pragma hce co_exec map(tofrom: B[0:M*N])
#pragma omp parallel for
    for (int i = 0; i < M; i++)
      B[i] += 1;
  }
}

// CHECK: static hce_region __hce_r0; /* never written */
// CHECK-NEXT: hce_region __hce_r = __hce_r0;
// CHECK: __hce_m[0].name = "A";
// CHECK: __hce_m[0].extent = (int64_t)(40) * (int64_t)(8);
// CHECK: __hce_m[1].name = "out";
// CHECK: __hce_m[1].extent = 0;
// CHECK: __hce_dm0[0].extent = (int64_t)(40 * 8);
// CHECK: hce_data_begin_or_exit(1, __hce_dm0);
// CHECK: __hce_m[0].extent = (int64_t)(40 * 8);
// CHECK: hce_data_end_or_exit();
