// C++ input: the companions reopen the namespaces of the region and of the
// types and functions they copy; std:: math is fine on a GPU; a call to a
// method keeps the loop off the GPU (warning), though OpenMP offload takes a
// method defined in a header.
//
// RUN: %hce-translate %s -o %t.cpp --cuda-out %t.cu --offload-out %t.off.cpp -- -std=c++17 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s --input-file %t.cu
// RUN: FileCheck %s --input-file %t.cpp --check-prefix=HOST
// RUN: %clangxx -std=c++17 -fsyntax-only -fopenmp -Wall -Werror -DHCE_HAVE_CUDA_VARIANTS -DHCE_HAVE_OMP_VARIANTS -I%hce-include %t.cpp
// RUN: %if nvcc %{ %nvcc -std=c++17 -c %t.cu -o %t.cu.o %}
// RUN: %if omp-offload %{ %offload-cxx -std=c++17 -c %t.off.cpp -o %t.off.o %}

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>

namespace app {
struct Params { double scale; int shift; };
inline double twice(double x) { return 2 * x; }
struct Vec { double x; double len() const { return std::sqrt(x * x); } };

double apply(std::size_t n, double *v, Params p) {
  double s = 0;
#pragma hce co_exec map(tofrom: v[k:1]) reduction(+: s)
  for (std::size_t k = 0; k < n; ++k) {
    v[k] = std::min(twice(v[k]) * p.scale + p.shift, 100.0) +
           std::sqrt(std::fabs(v[k]));
    s += v[k];
  }
  return s;
}

void method(int n, Vec *w) {
#pragma hce co_exec map(tofrom: w[k:1])
  for (int k = 0; k < n; ++k)
    w[k].x = w[k].len();
}
// WARN: {{.*}}device-cxx.cpp:[[@LINE-2]]:14: warning: this co_exec loop gets no CUDA or OpenMP-offload variant and runs on the CPU only: it calls 'len', a C++ method, constructor or template (device copies of those are not supported yet)

void header_method(int n, std::complex<double> *z) {
#pragma hce co_exec map(tofrom: z[k:1])
  for (int k = 0; k < n; ++k)
    z[k] = std::complex<double>(z[k].real() * 2, 0);
}
// WARN: {{.*}}device-cxx.cpp:[[@LINE-2]]:5: warning: this co_exec loop gets no CUDA variant and runs on the CPU only: it calls 'operator=', a C++ method, constructor or template
// WARN: 2 warnings generated.
} // namespace app

// CHECK: {{^}}#include <algorithm>
// CHECK: {{^}}namespace app { {{$}}
// CHECK-NEXT: {{^}}#line 19 "{{.*}}device-cxx.cpp"
// CHECK-NEXT: {{^}}struct Params { double scale; int shift; };
// CHECK-NEXT: {{^}}} {{$}}
// CHECK-NEXT: {{^}}namespace app { {{$}}
// CHECK-NEXT: {{^}}#line 20 "{{.*}}device-cxx.cpp"
// CHECK-NEXT: {{^}}__device__ inline double twice(double x) { return 2 * x; }
// CHECK: {{^}}namespace app { {{$}}
// CHECK-NEXT: {{^}}namespace {{{$}}
// CHECK-NEXT: {{^}}struct __hce_args_0 {
// CHECK: {{^}}    std::size_t k = (std::size_t)((std::size_t)__hce_init + (std::size_t)(__hce_k) * (std::size_t)__hce_step);
// CHECK: {{^}}extern "C" int __hce_cuda_0_{{[0-9a-f]+}}(
// CHECK-NOT: __hce_kernel_1
// CHECK-NOT: __hce_kernel_2

// HOST: {{^}}extern "C" int __hce_cuda_0_{{[0-9a-f]+}}(
// HOST: {{^}}extern "C" int __hce_omp_0_{{[0-9a-f]+}}(
// HOST: {{^}}extern "C" int __hce_omp_2_{{[0-9a-f]+}}(
