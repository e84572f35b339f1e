// GPU measurements for the CUDA backend (issue: CUDA device backend):
//  1. pinned H2D / D2H bandwidth of cudaMemcpy vs the runtime's own
//     transfers (a region whose kernel does nothing);
//  2. a streaming kernel (C = A + B) on host data: upload-only, compute-only
//     and download-only times, and the whole region pipelined / not;
//  3. per-chunk overhead on the GPU (empty kernel, one-iteration chunks);
//  4. one-shot matrix addition on the CPU, the GPU and both.
// Prints a Markdown table; medians of `reps` runs after a warm-up.
//   usage: hce_bench_cuda_pipeline [rows=8192] [cols=8192] [reps=5]
#include "hce/hce.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

extern "C" {
int hce_bench_nothing_cuda(int64_t, int64_t, void *const *, const void *, void *, void *);
int hce_bench_launch_only_cuda(int64_t, int64_t, void *const *, const void *, void *, void *);
int hce_bench_matadd_cuda(int64_t, int64_t, void *const *, const void *, void *, void *);
}

namespace {

int reps = 5;

double median_of(const std::function<void()> &f) {
  f(); // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void nothing_cpu(int64_t, int64_t, void *const *, const void *, void *) {}

void matadd_cpu(int64_t lb, int64_t ub, void *const *p, const void *args, void *) {
  int64_t n = *static_cast<const int64_t *>(args);
  const double *A = static_cast<const double *>(p[0]), *B = static_cast<const double *>(p[1]);
  double *C = static_cast<double *>(p[2]);
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      C[i * n + j] = A[i * n + j] + B[i * n + j];
}

hce_map rows(const char *name, double *p, int kind, int64_t n) {
  return hce_map{name, p, sizeof(double), kind, n, 0, n, 1, 0};
}

void check(int rc) {
  if (rc) {
    std::fprintf(stderr, "bench: hce_co_exec failed\n");
    std::exit(1);
  }
}

void use(const char *devices) {
  hce_finalize();
  setenv("HCE_DEVICES", devices, 1);
}

} // namespace

int main(int argc, char **argv) {
  const int64_t m = argc > 1 ? std::atoll(argv[1]) : 8192;
  const int64_t n = argc > 2 ? std::atoll(argv[2]) : 8192;
  reps = argc > 3 ? std::atoi(argv[3]) : 5;
  const size_t elems = size_t(m * n), bytes = elems * sizeof(double);
  setenv("HCE_CUDA_PIN", "keep", 0); // pin once, as a benchmark should
  std::printf("# CUDA backend: %lld x %lld doubles per array (%.0f MiB), median of %d\n\n",
              (long long)m, (long long)n, bytes / 1048576.0, reps);

  // 1. Baseline: cudaMemcpy between cudaMallocHost memory and the device.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  double *pinned = nullptr, *dev = nullptr;
  if (cudaMallocHost(&pinned, bytes) != cudaSuccess || cudaMalloc(&dev, bytes) != cudaSuccess) {
    std::fprintf(stderr, "bench: no usable GPU (%s)\n", cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  std::fill(pinned, pinned + elems, 1.0);
  double t_h2d = median_of([&] { cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice); });
  double t_d2h = median_of([&] { cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost); });
  cudaFree(dev);
  cudaFreeHost(pinned);

  std::vector<double> A(elems), B(elems), C(elems);
  for (size_t k = 0; k < elems; ++k) {
    A[k] = double(k % 1000) * 0.5;
    B[k] = double(k % 777) - 3.0;
  }
  int64_t args = n;
  void *site[32] = {};
  auto region = [&](const char *name, const char *sched, const char *co,
                    std::vector<hce_map> maps, hce_cpu_variant cpu,
                    hce_cuda_variant cuda, int64_t iters, int64_t chunk, int s) {
    hce_region r{};
    r.name = name;
    r.schedule = sched;
    r.co = co;
    r.iterations = iters;
    r.chunk = chunk;
    r.num_maps = int(maps.size());
    r.maps = maps.data();
    r.args = &args;
    r.cpu = cpu;
    r.cuda = cuda;
    r.site = &site[s];
    return median_of([&] { check(hce_co_exec(&r)); });
  };

  use("cuda:0");
  // 2. The runtime's own transfers: one chunk, a kernel that does nothing.
  double t_up = region("upload A", "static", "incremental", {rows("A", A.data(), HCE_MAP_TO, n)},
                       nothing_cpu, hce_bench_nothing_cuda, m, 0, 0);
  double t_down = region("download C", "static", "incremental",
                         {rows("C", C.data(), HCE_MAP_FROM, n)}, nothing_cpu,
                         hce_bench_nothing_cuda, m, 0, 1);
  std::printf("| transfer | cudaMemcpy pinned | runtime | runtime / cudaMemcpy |\n|---|---|---|---|\n");
  std::printf("| H2D | %.1f GB/s | %.1f GB/s | %.2f |\n", bytes / t_h2d / 1e9, bytes / t_up / 1e9,
              t_h2d / t_up);
  std::printf("| D2H | %.1f GB/s | %.1f GB/s | %.2f |\n\n", bytes / t_d2h / 1e9,
              bytes / t_down / 1e9, t_d2h / t_down);

  // 3. Streaming C = A + B on host data.
  std::vector<hce_map> add = {rows("A", A.data(), HCE_MAP_TO, n), rows("B", B.data(), HCE_MAP_TO, n),
                              rows("C", C.data(), HCE_MAP_FROM, n)};
  double t_in = region("upload A,B", "static", "incremental",
                       {add[0], add[1]}, nothing_cpu, hce_bench_nothing_cuda, m, 0, 2);
  double t_out = t_down;
  // Compute only: everything resident inside a data region.
  std::vector<hce_map> whole = {hce_map{"A", A.data(), 8, HCE_MAP_TO, 0, 0, m * n, 1, 0},
                                hce_map{"B", B.data(), 8, HCE_MAP_TO, 0, 0, m * n, 1, 0},
                                hce_map{"C", C.data(), 8, HCE_MAP_FROM, 0, 0, m * n, 1, 0}};
  hce_data_begin(3, whole.data());
  double t_compute = region("compute only", "static", "incremental", add, matadd_cpu,
                            hce_bench_matadd_cuda, m, 0, 3);
  hce_data_end();
  double stage_max = std::max({t_in, t_compute, t_out});
  std::printf("| C = A + B on cuda:0, host data | seconds | / max(upload, compute, download) |\n|---|---|---|\n");
  std::printf("| upload A,B | %.4f | |\n| compute (resident) | %.4f | |\n| download C | %.4f | |\n",
              t_in, t_compute, t_out);
  const int64_t chunk = m / 32;
  struct Variant { const char *sched, *co; };
  int s = 4;
  for (Variant v : {Variant{"static", "incremental"}, Variant{"hguided", "pipelined"},
                    Variant{"adets", "pipelined"}, Variant{"hguided", "incremental"}}) {
    double t = region("stream", v.sched, v.co, add, matadd_cpu, hce_bench_matadd_cuda, m, chunk, s++);
    std::printf("| %s, %s | %.4f | %.2f |\n", v.sched, v.co, t, t / stage_max);
  }
  std::printf("\n");

  // 4. Per-chunk overhead: empty kernel, 1-iteration chunks.
  const int64_t chunks = 20000;
  auto per_chunk = [&](const char *devs, hce_cuda_variant cuda, int slot) {
    use(devs);
    double t = region("chunks", "split", "incremental", {}, nothing_cpu, cuda, chunks, 1, slot);
    return t / double(chunks) * 1e6;
  };
  std::printf("| per-chunk overhead (split, chunk 1, %lld chunks) | us/chunk |\n|---|---|\n",
              (long long)chunks);
  std::printf("| cuda:0, no kernel launched | %.2f |\n", per_chunk("cuda:0", hce_bench_nothing_cuda, 8));
  std::printf("| cuda:0, empty kernel + sync | %.2f |\n", per_chunk("cuda:0", hce_bench_launch_only_cuda, 9));
  std::printf("| cpu | %.2f |\n\n", per_chunk("cpu", nullptr, 10));

  // 5. One-shot C = A + B: CPU alone, GPU alone, both.
  std::printf("| one-shot C = A + B (host data) | seconds | speed-up over best single |\n|---|---|---|\n");
  double best = 1e30;
  struct Co { const char *devs, *sched, *co; };
  std::vector<std::pair<std::string, double>> results;
  for (Co c : {Co{"cpu", "static", "incremental"}, Co{"cuda:0", "hguided", "pipelined"},
               Co{"cpu,cuda:0", "hguided", "pipelined"}, Co{"cpu,cuda:0", "adets", "pipelined"},
               Co{"cpu,cuda:0", "fdets", "incremental"}}) {
    use(c.devs);
    double t = region("oneshot", c.sched, c.co, add, matadd_cpu, hce_bench_matadd_cuda, m, 0, s++);
    if (std::string(c.devs).find(',') == std::string::npos)
      best = std::min(best, t);
    results.push_back({std::string(c.devs) + " " + c.sched + " " + c.co, t});
  }
  for (auto &[name, t] : results)
    std::printf("| %s | %.4f | %.2f |\n", name.c_str(), t, best / t);
  for (size_t k = 0; k < elems; k += 4099)
    if (C[k] != A[k] + B[k]) {
      std::printf("\nFAILED: C[%zu] wrong\n", k);
      return 1;
    }
  std::printf("\nresults verified\n");
  return 0;
}
