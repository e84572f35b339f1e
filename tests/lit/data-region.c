// #pragma hce data around a block, a loop, a co_exec loop and another data
// region; #pragma hce update to/from inside. The mock runtime behaves like
// an OpenMP device: inside a data region, co_exec loops read and write the
// region's copy of a present array, not the host array; the host sees the
// results only after 'update from' or the end of the region, and the copy
// sees host changes only after 'update to'.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env MOCK_HCE_VERBOSE=1 %t.exe | FileCheck %s --check-prefix=EXEC
// Without #line directives the output compiles too.
// RUN: %hce-translate %s -o %t.nl.c --no-line-directives
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.nl.c %mockrt -o %t.nl.exe -lm
// RUN: %t.nl.exe | FileCheck %s --check-prefix=RESULT

#include <stdio.h>

// A time loop inside a data region: the arrays stay resident.
void smooth(int n, int steps, double *a, double *b, double *probe) {
#pragma hce data map(tofrom: a[0:n]) map(alloc: b[0:n])
  {
    for (int t = 0; t < steps; t++) {
#pragma hce co_exec map(to: a[i-1:3]) map(from: b[i])
      for (int i = 1; i < n - 1; i++)
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3;
#pragma hce co_exec map(to: b[i]) map(from: a[i])
      for (int i = 1; i < n - 1; i++)
        a[i] = b[i];
    }
#pragma hce update from(a[n/2:1])
    *probe = a[n / 2];
  }
}
// CHECK-LABEL: void smooth(int n, int steps, double *a, double *b, double *probe) {
// CHECK-NEXT: {{^}}{ /* hce data 0 (line 21) */
// CHECK-NEXT: {{^}}  hce_map __hce_dm0[2];
// CHECK-NEXT: {{^}}  { /* a[0:n] */
// CHECK-NEXT: {{^}}    __hce_dm0[0].name = "a";
// CHECK-NEXT: {{^}}    __hce_dm0[0].host = (void *)a;
// CHECK-NEXT: {{^}}    __hce_dm0[0].elem_size = sizeof((a)[0]);
// CHECK-NEXT: {{^}}    __hce_dm0[0].kind = HCE_MAP_TOFROM;
// CHECK-NEXT: {{^}}    __hce_dm0[0].scale = 0;
// CHECK-NEXT: {{^}}    __hce_dm0[0].offset = (int64_t)(0);
// CHECK-NEXT: {{^}}    __hce_dm0[0].len = (int64_t)(n);
// CHECK: {{^}}    __hce_dm0[1].kind = HCE_MAP_ALLOC;
// CHECK: {{^}}  hce_data_begin_or_exit(2, __hce_dm0);
// CHECK-NEXT: {{^}}#line 22 "{{.*}}data-region.c"
// CHECK-NEXT: {{^}}  {
// CHECK: {{^}}{ /* hce update 0 (line 31) */
// CHECK-NEXT: {{^}}  hce_map __hce_um0[1];
// CHECK: {{^}}    __hce_um0[0].kind = HCE_MAP_FROM;
// CHECK: {{^}}    __hce_um0[0].offset = (int64_t)(n/2);
// CHECK: {{^}}  hce_update_or_exit(1, __hce_um0, 0);
// CHECK-NEXT: {{^}}}
// CHECK-NEXT: {{^}}#line 32 "{{.*}}data-region.c"
// CHECK-NEXT: {{^}}    *probe = a[n / 2];
// CHECK-NEXT: {{^}}  } } hce_data_end_or_exit(); }

// The copy does not see host writes until 'update to'; the host does not
// see the loop's results until the region ends.
void stale(int n, double *x, double *y, double *seen) {
#pragma hce data map(to: x[0:n]) map(from: y[0:n])
  {
    for (int i = 0; i < n; i++)
      x[i] += 100; // host only
#pragma hce co_exec map(to: x[i:1]) map(from: y[i:1])
    for (int i = 0; i < n; i++)
      y[i] = x[i];
    *seen = y[1]; // still the host's old value
#pragma hce update to(x[0:n/2])
#pragma hce co_exec map(to: x[i:1]) map(tofrom: y[i:1])
    for (int i = 0; i < n; i++)
      y[i] += x[i];
  }
}
// CHECK-LABEL: void stale(
// CHECK: {{^}}  hce_update_or_exit(1, __hce_um1, 1);

// A data region over a single loop statement, around a co_exec loop, and
// nested data regions (the inner one maps an array already present).
void rows(int n, int reps, double (*m)[8], double *c, double *d) {
#pragma hce data map(tofrom: m[0:n][0:8])
  for (int r = 0; r < reps; r++) {
#pragma hce co_exec map(tofrom: m[i][0:8])
    for (int i = 0; i < n; i++)
      for (int j = 0; j < 8; j++)
        m[i][j] = 2 * m[i][j] + r;
  }
#pragma hce data map(to: c[0:n])
#pragma hce data map(from: d[0:n]) map(to: c[0:n])
#pragma hce co_exec map(to: c[i:1]) map(from: d[i:1])
  for (int i = 0; i < n; i++)
    d[i] = 3 * c[i];
}
// CHECK-LABEL: void rows(int n, int reps, double (*m)[8], double *c, double *d) {
// CHECK: {{^}}    __hce_dm2[0].elem_size = sizeof((m)[0][0]);
// CHECK: {{^}}    __hce_dm2[0].len = (int64_t)((int64_t)(n) * 8);
// CHECK: {{^}}  hce_data_begin_or_exit(1, __hce_dm2);
// CHECK: {{^}}  } } hce_data_end_or_exit(); }
// CHECK: {{^}}  hce_data_begin_or_exit(1, __hce_dm3);
// CHECK: {{^}}  hce_data_begin_or_exit(2, __hce_dm4);
// CHECK: {{^}}  hce_co_exec_or_exit(&__hce_r);
// CHECK-NEXT: {{^}}}
// CHECK-NEXT: {{^}}#line 95 "{{.*}}data-region.c"
// CHECK-NEXT: {{^}}  } hce_data_end_or_exit();
// CHECK-NEXT: {{^}}} /* hce data 4 */
// CHECK-NEXT: {{^}}#line 95 "{{.*}}data-region.c"
// CHECK-NEXT: {{^}}  } hce_data_end_or_exit();
// CHECK-NEXT: {{^}}} /* hce data 3 */
// CHECK-NEXT: {{^}}#line 95 "{{.*}}data-region.c"
// CHECK-NEXT: {{^}}}

// A data region over a plain OpenMP loop, and over the body of an 'if'.
void omp_loop(int n, double *a, int flag) {
  // 'to': the host's own writes are kept (tofrom would copy the region's
  // unchanged copy back over them at its end, as OpenMP does).
#pragma hce data map(to: a[0:n])
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] += 1;
  if (flag)
#pragma hce data map(to: a[0:n])
    a[0] = 2;
}
// CHECK-LABEL: void omp_loop(int n, double *a, int flag) {
// CHECK: {{^}}#pragma omp parallel for
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++)
// CHECK-NEXT: {{^}}    a[i] += 1; } hce_data_end_or_exit(); }
// CHECK-NEXT: {{^}}  if (flag)
// CHECK-NEXT: {{^}}{ /* hce data 6 (line {{[0-9]+}}) */
// CHECK: {{^}}    a[0] = 2; } hce_data_end_or_exit(); }

int main(void) {
  enum { n = 40 };
  double a[n], b[n], ra[n], rb[n], probe = 0, x[n], y[n], x0[n], seen = 0;
  double m[n][8], rm[n][8], c[n], d[n];
  int bad = 0;
  for (int i = 0; i < n; i++)
    a[i] = ra[i] = (i * 7) % 11 + 1, b[i] = rb[i] = 0;
  smooth(n, 3, a, b, &probe);
  for (int t = 0; t < 3; t++) {
    for (int i = 1; i < n - 1; i++)
      rb[i] = (ra[i - 1] + ra[i] + ra[i + 1]) / 3;
    for (int i = 1; i < n - 1; i++)
      ra[i] = rb[i];
  }
  for (int i = 0; i < n; i++)
    bad += a[i] != ra[i];
  bad += probe != ra[n / 2];

  for (int i = 0; i < n; i++)
    x[i] = x0[i] = i % 5 + 1, y[i] = -1;
  stale(n, x, y, &seen);
  for (int i = 0; i < n; i++)
    bad += y[i] != x0[i] + (i < n / 2 ? x0[i] + 100 : x0[i]);
  bad += seen != -1;

  for (int i = 0; i < n; i++) {
    c[i] = i + 0.5, d[i] = -1;
    for (int j = 0; j < 8; j++)
      m[i][j] = rm[i][j] = i - j;
  }
  rows(n, 2, m, c, d);
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < 8; j++)
        rm[i][j] = 2 * rm[i][j] + r;
  for (int i = 0; i < n; i++) {
    bad += d[i] != 3 * c[i];
    for (int j = 0; j < 8; j++)
      bad += m[i][j] != rm[i][j];
  }
  omp_loop(n, c, 1);
  bad += c[0] != 2 || c[1] != 2.5;
  printf("mismatches: %d\n", bad);
  return bad != 0;
}
// EXEC: {{^}}data_begin a kind=3 elem=8 scale=0 offset=0 len=40 blocks=1 stride=0
// EXEC-NEXT: {{^}}data_begin b kind=0 elem=8 scale=0 offset=0 len=40 blocks=1 stride=0
// EXEC: {{^}}update_from a kind=2 elem=8 scale=0 offset=20 len=1 blocks=1 stride=0
// EXEC-NEXT: {{^}}data_end
// EXEC: {{^}}update_to x kind=1 elem=8 scale=0 offset=0 len=20 blocks=1 stride=0
// EXEC: {{^}}data_begin m kind=3 elem=8 scale=0 offset=0 len=320 blocks=1 stride=0
// EXEC: {{^}}data_begin c kind=1
// EXEC-NEXT: {{^}}data_begin d kind=2
// EXEC-NEXT: {{^}}data_begin c kind=1
// EXEC: {{^}}data_end
// EXEC-NEXT: {{^}}data_end
// EXEC-NEXT: {{^}}data_begin a kind=1
// EXEC-NEXT: {{^}}data_end
// EXEC-NEXT: {{^}}data_begin a kind=1
// EXEC-NEXT: {{^}}data_end
// EXEC-NEXT: {{^}}mismatches: 0
// RESULT: {{^}}mismatches: 0
