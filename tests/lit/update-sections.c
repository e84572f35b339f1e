// #pragma hce update with several sections of one array in one list: each
// section is its own hce_map of the update's list (both ends of a field sent
// after the host changed them; two pieces of a result brought home). The
// mock runtime keeps a device copy of present arrays (data-region.c), so a
// section left out of the update would show as a stale value.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env MOCK_HCE_VERBOSE=1 %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <stdlib.h>

void ends(int n, double *u, double *w, double *head_tail) {
#pragma hce data map(to: u[0:n]) map(from: w[0:n])
  {
    u[0] = 1000; // host only, until the update
    u[n - 1] = -1000;
#pragma hce update to(u[0:1], u[n-1:1])
#pragma hce co_exec map(to: u[i:1]) map(from: w[i:1])
    for (int i = 0; i < n; i++)
      w[i] = 2 * u[i] + i;
#pragma hce update from(w[0:2], w[n-2:2])
    head_tail[0] = w[0] + w[1];
    head_tail[1] = w[n - 2] + w[n - 1];
  }
}
// CHECK-LABEL: void ends(
// CHECK: {{^}}{ /* hce update 0 (line 20) */
// CHECK-NEXT: {{^}}  hce_map __hce_um0[2];
// CHECK-NEXT: {{^}}  { /* u[0:1] */
// CHECK: {{^}}    __hce_um0[0].kind = HCE_MAP_TO;
// CHECK: {{^}}    __hce_um0[0].offset = (int64_t)(0);
// CHECK-NEXT: {{^}}    __hce_um0[0].len = (int64_t)(1);
// CHECK: {{^}}  { /* u[n-1:1] */
// CHECK: {{^}}    __hce_um0[1].host = (void *)u;
// CHECK: {{^}}    __hce_um0[1].kind = HCE_MAP_TO;
// CHECK: {{^}}    __hce_um0[1].offset = (int64_t)(n-1);
// CHECK-NEXT: {{^}}    __hce_um0[1].len = (int64_t)(1);
// CHECK: {{^}}  hce_update_or_exit(2, __hce_um0, 1);
// CHECK-NEXT: {{^}}}
// CHECK: {{^}}{ /* hce update 1 (line 24) */
// CHECK-NEXT: {{^}}  hce_map __hce_um1[2];
// CHECK: {{^}}    __hce_um1[1].offset = (int64_t)(n-2);
// CHECK: {{^}}  hce_update_or_exit(2, __hce_um1, 0);

int main(void) {
  enum { n = 37 };
  double u[n], w[n], ref[n], head_tail[2] = {0, 0};
  int bad = 0;
  srand(13);
  for (int i = 0; i < n; i++)
    u[i] = rand() % 1000 - 500, w[i] = -1;
  for (int i = 0; i < n; i++)
    ref[i] = 2 * (i == 0 ? 1000 : i == n - 1 ? -1000 : u[i]) + i;
  ends(n, u, w, head_tail);
  for (int i = 0; i < n; i++)
    bad += w[i] != ref[i];
  bad += head_tail[0] != ref[0] + ref[1];
  bad += head_tail[1] != ref[n - 2] + ref[n - 1];
  printf("mismatches: %d\n", bad);
  return bad != 0;
}
// EXEC: {{^}}update_to u kind=1 elem=8 scale=0 offset=0 len=1 blocks=1 stride=0
// EXEC-NEXT: {{^}}update_to u kind=1 elem=8 scale=0 offset=36 len=1 blocks=1 stride=0
// EXEC: {{^}}update_from w kind=2 elem=8 scale=0 offset=0 len=2 blocks=1 stride=0
// EXEC-NEXT: {{^}}update_from w kind=2 elem=8 scale=0 offset=35 len=2 blocks=1 stride=0
// EXEC: {{^}}mismatches: 0
