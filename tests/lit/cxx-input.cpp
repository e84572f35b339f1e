// C++ input: namespaces, references to file-scope types, a function pointer
// and a struct captured by value; the output must compile as C++.
//
// RUN: %hce-translate %s -o %t.cpp -- -std=c++17
// RUN: FileCheck %s --input-file %t.cpp
// RUN: %clangxx -std=c++17 -fsyntax-only -fopenmp -Wall -Werror -I%hce-include %t.cpp

#include <cstddef>
#include <vector>

namespace app {
struct Params { double scale; int shift; };
typedef double (*op_t)(double);
inline double twice(double x) { return 2 * x; }

void apply(std::size_t n, double *v, Params p, op_t op) {
#pragma hce co_exec schedule(hguided) map(tofrom: v[k:1])
  for (std::size_t k = 0; k < n; ++k)
    v[k] = op(v[k]) * p.scale + p.shift;
}
} // namespace app

int main() {
  std::vector<double> v(100, 1.0);
  app::apply(v.size(), v.data(), app::Params{3.0, 1}, app::twice);
  return v[0] == 7.0 ? 0 : 1;
}

// CHECK: {{^}}namespace app {
// CHECK: {{^}}struct __hce_args_0 {
// CHECK-NEXT: {{^}}  int64_t __hce_init;
// CHECK-NEXT: {{^}}  int64_t __hce_step;
// CHECK-NEXT: {{^}}  op_t op;
// CHECK-NEXT: {{^}}  Params p;
// CHECK: {{^}}    std::size_t k = (std::size_t)((std::size_t)__hce_init + (std::size_t)(__hce_k) * (std::size_t)__hce_step);
// CHECK: {{^}}void apply(std::size_t n, double *v, Params p, op_t op) {
