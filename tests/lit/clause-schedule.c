// schedule(kind) for every scheduler the runtime knows; no clause leaves
// the field NULL (auto).
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fsyntax-only -fopenmp -Wall -Werror -I%hce-include %t.c

void f(int n, double *A) {
#pragma hce co_exec schedule(static) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec schedule(quick) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec schedule(split) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec schedule(hguided) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec schedule(logfit) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec schedule(fdets) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec schedule( adets ) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec schedule(auto), map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
}

// CHECK: {{^}}{ /* hce co_exec region 0 */
// CHECK: {{^}}  __hce_r.schedule = "static";
// CHECK: {{^}}{ /* hce co_exec region 1 */
// CHECK: {{^}}  __hce_r.schedule = "quick";
// CHECK: {{^}}{ /* hce co_exec region 2 */
// CHECK: {{^}}  __hce_r.schedule = "split";
// CHECK: {{^}}{ /* hce co_exec region 3 */
// CHECK: {{^}}  __hce_r.schedule = "hguided";
// CHECK: {{^}}{ /* hce co_exec region 4 */
// CHECK: {{^}}  __hce_r.schedule = "logfit";
// CHECK: {{^}}{ /* hce co_exec region 5 */
// CHECK: {{^}}  __hce_r.schedule = "fdets";
// CHECK: {{^}}{ /* hce co_exec region 6 */
// CHECK: {{^}}  __hce_r.schedule = "adets";
// CHECK: {{^}}{ /* hce co_exec region 7 */
// CHECK: {{^}}  __hce_r.schedule = "auto";
// CHECK: {{^}}{ /* hce co_exec region 8 */
// CHECK-NOT: {{^}}  __hce_r.schedule
// CHECK: {{^}}  hce_co_exec_or_exit(&__hce_r);
