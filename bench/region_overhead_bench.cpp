// Per-execution overhead of a region whose data is resident (Google
// Benchmark; issue 12: target <= 20 us on cuda:0).
//
//  BM_ResidentRegion/<devices>/<schedule>
//      inside `hce_data_begin` (two arrays of W doubles, tofrom), one
//      hce_co_exec of a W = 4096 region with two per-iteration maps
//      (in[i:1] to, out[i:1] tofrom) whose variants do nothing: an empty CPU
//      variant, and on cuda:N one launch of an empty kernel.  Nothing moves
//      after the first execution; what is timed is the runtime's own work
//      per execution (the site and its cached plan, device claims, the
//      scheduler, handing the job to the controllers and back, the data
//      layer's bookkeeping, statistics), wall time.
//  BM_ShrinkingRegion/<devices>[/team]/auto (and cpu[/team]/static)
//      lud's shape outside a data region: 511 executions of one site whose
//      trip count and map offsets shrink every step; one elimination is
//      timed, per_execution_us is that over 511.  /team: a CPU variant that
//      forks its team as the translator's does.  The sets above (not the
//      slow-CPU ones) and cpu,slow-sim:0(devices(cpu)) /
//      cpu,cuda:0(devices(cpu)): the same runtime, the region limited to
//      the CPU, which separates the runtime's cost of a second device from
//      the scheduler's choice (call UD).
//
// Device sets: cpu, sim:0, cpu,sim:0 (sim: bw 1e15, lat 0), cpu,slow-sim:0
// (the same with lat 1 ms: auto runs the CPU alone beside a second device),
// slow-cpu,sim:0 (a CPU variant of 200 us a chunk: auto runs sim:0 alone beside
// the CPU), and where the runtime has cuda:N and a GPU is present, cuda:0,
// cpu,cuda:0 and slow-cpu,cuda:0.  Run:
//   build/bin/hce_bench_region_overhead --benchmark_filter=ResidentRegion
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// (one command line).
#include "hce/hce.h"
#include "runtime.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#if HCE_BENCH_CUDA
extern "C" int hce_bench_launch_only_cuda(int64_t, int64_t, void *const *, const void *,
                                          void *, void *);
#endif

namespace {

void empty_cpu(int64_t, int64_t, void *const *, const void *, void *) {}

// A CPU variant that takes 200 us a chunk: auto runs the other device
// alone with the CPU present (cg, fdtd2d, jacobi2d on the H100), which
// should cost what that device alone does.
void slow_cpu(int64_t, int64_t, void *const *, const void *, void *) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  while (std::chrono::steady_clock::now() < end) {
  }
}

bool use_devices(const std::string &devices, const std::string &sim) {
  hce_finalize();
  setenv("HCE_DEVICES", devices.c_str(), 1);
  setenv("HCE_SIM", sim.c_str(), 1);
  // HCE_BENCH_CACHE=DIR: with the per-user profile cache recording (what a
  // program does by default) in DIR/hce, as XDG_CACHE_HOME; off otherwise.
  if (const char *cache = std::getenv("HCE_BENCH_CACHE"); cache && *cache) {
    setenv("XDG_CACHE_HOME", cache, 1);
    unsetenv("HCE_PROFILE");
  } else {
    setenv("HCE_PROFILE", "off", 1);
  }
  for (const char *v : {"HCE_SCHEDULE", "HCE_CO", "HCE_STATS", "HCE_TRACE"})
    unsetenv(v);
  // Every named device must exist: a benchmark of cuda:0 that the CPU ran
  // would report the CPU's overhead under the GPU's name.
  for (size_t at = 0; at <= devices.size();) {
    size_t comma = devices.find(',', at);
    std::string want =
        devices.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    bool found = false;
    for (const auto &d : hce::Runtime::get().devices())
      found = found || d->name() == want;
    if (!found)
      return false;
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return true;
}

// Which devices did the work in the site's last execution: a counter
// iters_<device> each (a device left out by auto's choice shows 0).
void report_devices(benchmark::State &state, void **site) {
  for (const auto &d : hce::Runtime::get().devices())
    if (const int64_t it = hce_last_iterations(site, d->name().c_str()); it >= 0)
      state.counters["iters_" + d->name()] = double(it);
}

void BM_ResidentRegion(benchmark::State &state, std::string devices, std::string sim,
                       std::string schedule, bool cpu_slow) {
  if (!use_devices(devices, sim)) {
    state.SkipWithError(("not every device of '" + devices + "' is present").c_str());
    return;
  }
  const int64_t W = 4096;
  std::vector<double> in(size_t(W), 1.0), out(size_t(W), 0.0);
  hce_map whole[2] = {{"in", in.data(), sizeof(double), HCE_MAP_TOFROM, 0, 0, W, 1, 0},
                      {"out", out.data(), sizeof(double), HCE_MAP_TOFROM, 0, 0, W, 1, 0}};
  hce_map maps[2] = {{"in", in.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0},
                     {"out", out.data(), sizeof(double), HCE_MAP_TOFROM, 1, 0, 1, 1, 0}};
  void *site = nullptr;
  hce_region r{};
  r.name = "resident";
  r.schedule = schedule.c_str();
  r.iterations = W;
  r.num_maps = 2;
  r.maps = maps;
  r.cpu = cpu_slow ? slow_cpu : empty_cpu;
#if HCE_BENCH_CUDA
  r.cuda = hce_bench_launch_only_cuda;
#endif
  r.site = &site;
  if (hce_data_begin(2, whole) != 0) {
    state.SkipWithError("hce_data_begin failed");
    return;
  }
  for (int warm = 0; warm < 8; ++warm) // threads, site, models, placement
    if (hce_co_exec(&r) != 0) {
      state.SkipWithError("hce_co_exec failed");
      hce_data_end();
      return;
    }
  for (auto _ : state)
    if (hce_co_exec(&r) != 0) {
      state.SkipWithError("hce_co_exec failed");
      break;
    }
  hce_data_end();
  report_devices(state, &site);
  hce_finalize();
}

// The CPU variant the translator emits for lud's update, its loop body
// one store: the team forks and joins as in a real loop.
struct Step {
  int64_t n, k; // A is n x n; this execution updates rows k+1 .. n-1
};
void team_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  double *a = static_cast<double *>(ptrs[0]);
  const Step s = *static_cast<const Step *>(args);
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    a[(s.k + 1 + i) * s.n + s.k] += 1.0;
}

// lud's shape outside a data region: N-1 executions of one site whose
// iteration count and map offsets shrink every step (A[i*N+k : N-k] tofrom,
// pivot[k : N-k] to), the CPU variant empty.  What is timed is one whole
// elimination (N = 512: 511 executions); per execution is that over 511.
void BM_ShrinkingRegion(benchmark::State &state, std::string devices, std::string sim,
                        std::string schedule, bool team, std::string clause) {
  if (!use_devices(devices, sim)) {
    state.SkipWithError(("not every device of '" + devices + "' is present").c_str());
    return;
  }
  const int64_t N = 512;
  std::vector<double> A(size_t(N * N), 1.0), pivot(size_t(N), 1.0);
  void *site = nullptr;
  auto eliminate = [&]() {
    for (int64_t k = 0; k < N - 1; ++k) {
      hce_map maps[2] = {{"A", A.data(), sizeof(double), HCE_MAP_TOFROM, N,
                          (k + 1) * N + k, N - k, 1, 0, 0, 0, 0},
                         {"pivot", pivot.data(), sizeof(double), HCE_MAP_TO, 0, k, N - k,
                          1, 0, 0, 0, 0}};
      const Step step{N, k};
      hce_region r{};
      r.name = "shrinking";
      r.devices = clause.empty() ? nullptr : clause.c_str();
      r.args = &step;
      r.args_size = sizeof step;
      r.schedule = schedule.c_str();
      r.iterations = N - 1 - k;
      r.num_maps = 2;
      r.maps = maps;
      r.cpu = team ? team_cpu : empty_cpu;
#if HCE_BENCH_CUDA
      r.cuda = hce_bench_launch_only_cuda;
#endif
      r.site = &site;
      if (hce_co_exec(&r) != 0)
        return false;
    }
    return true;
  };
  for (int warm = 0; warm < 2; ++warm)
    if (!eliminate()) {
      state.SkipWithError("hce_co_exec failed");
      return;
    }
  for (auto _ : state)
    if (!eliminate()) {
      state.SkipWithError("hce_co_exec failed");
      break;
    }
  state.counters["per_execution_us"] =
      benchmark::Counter(double(N - 1) * double(state.iterations()) * 1e-6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  report_devices(state, &site); // (the last execution: one iteration)
  hce_finalize();
}

void register_all() {
  struct Set {
    std::string name, devices, sim;
    bool cpu_slow = false;
  };
  const std::string fast = "sim=bw:1e15,lat:0";
  // A simulated device 1 ms a chunk: auto runs the CPU alone with a second
  // device present (lud's case), which should cost what the CPU alone does.
  const std::string slow = "sim=bw:1e15,lat:1e-3";
  std::vector<Set> sets = {{"cpu", "cpu", fast},
                           {"sim:0", "sim:0", fast},
                           {"cpu,sim:0", "cpu,sim:0", fast},
                           {"cpu,slow-sim:0", "cpu,sim:0", slow},
                           {"slow-cpu,sim:0", "cpu,sim:0", fast, true}};
#if HCE_BENCH_CUDA
  sets.push_back({"cuda:0", "cuda:0", fast});
  sets.push_back({"cpu,cuda:0", "cpu,cuda:0", fast});
  sets.push_back({"slow-cpu,cuda:0", "cpu,cuda:0", fast, true});
#endif
  for (const Set &set : sets)
    for (const char *schedule : {"auto", "static", "fdets"})
      benchmark::RegisterBenchmark(
          ("BM_ResidentRegion/" + set.name + "/" + schedule).c_str(), BM_ResidentRegion,
          set.devices, set.sim, std::string(schedule), set.cpu_slow)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime() // the calling thread mostly waits for controllers
          ->MinTime(0.2);
  // devices(cpu) on the region beside a second device: what the runtime
  // pays for a device the region cannot use, apart from the scheduler's
  // choice (against cpu,slow-sim:0 and cpu,cuda:0 without the clause).
  sets.push_back({"cpu,slow-sim:0(devices(cpu))", "cpu,sim:0", slow});
#if HCE_BENCH_CUDA
  sets.push_back({"cpu,cuda:0(devices(cpu))", "cpu,cuda:0", fast});
#endif
  for (bool team : {false, true})
    for (const Set &set : sets) {
      if (set.cpu_slow)
        continue;
      const size_t clause = set.name.find("(devices(");
      // static on the CPU alone: the suite's `cpu` column, what auto beside
      // an idle device is measured against (lud's warm ratio).
      for (const char *schedule : {"auto", "static"}) {
        if (std::string(schedule) == "static" && set.name != "cpu")
          continue;
        benchmark::RegisterBenchmark(
            ("BM_ShrinkingRegion/" + set.name + (team ? "/team/" : "/") + schedule)
                .c_str(),
            BM_ShrinkingRegion, set.devices, set.sim, std::string(schedule), team,
            clause == std::string::npos
                ? std::string()
                : set.name.substr(clause + 9, set.name.size() - clause - 11))
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(0.2);
      }
    }
}

} // namespace

int main(int argc, char **argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
