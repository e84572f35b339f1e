// The HCE paper's hand-written API (Table 1, Fig. 9) on top of the runtime:
// its devices are the runtime's devices, its hce_co_schedule is the same
// controller loop and schedulers that generated regions use, but the data
// movement is the programmer's (inside their GPU kernel), as in the paper.
#include "hce/hce_papers.h"

#include "chunk_loop.hpp"
#include "cpu_device.hpp"
#include "data/paper_cases.hpp"
#include "log.hpp"
#include "runtime.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <string>

using namespace hce;

namespace {

struct PaperDevice {
  std::string type; // "CPU" / "GPU"
  int num = 0;
  int runtime_index = -1;
  hce_compute_kernel kernel = nullptr;
};

struct PaperState {
  std::mutex mutex;
  std::map<int, PaperDevice> devices; // by UDI
  std::map<std::pair<std::string, int>, double> ratios;
  int loop_begin = 0, loop_end = -1;
  std::unique_ptr<Scheduler> scheduler; // kept: re-executions learn
  std::string scheduler_name;
};

PaperState &state() {
  static PaperState *s = new PaperState;
  return *s;
}

std::string upper(const char *s) {
  std::string out = s ? s : "";
  for (char &c : out)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Runtime device index of ("CPU", n) or ("GPU", n): cuda:n, else sim:n.
int find_device(const std::string &type, int num) {
  const auto &devs = Runtime::get().devices();
  if (type == "CPU")
    return num == 0 ? 0 : -1;
  if (type != "GPU")
    return -1;
  for (DeviceKind kind : {DeviceKind::Cuda, DeviceKind::Sim})
    for (size_t i = 0; i < devs.size(); ++i)
      if (devs[i]->kind() == kind && devs[i]->ordinal() == num)
        return int(i);
  return -1;
}

Device *gpu(int num, const char *fn) {
  int idx = find_device("GPU", num);
  if (idx < 0) {
    error(std::string(fn) + ": no GPU " + std::to_string(num) +
          " (neither cuda:" + std::to_string(num) + " nor sim:" +
          std::to_string(num) +
          " is selected; HCE_DEVICES=cpu,sim:0 simulates one)");
    return nullptr;
  }
  return Runtime::get().devices()[size_t(idx)].get();
}

// Rows [begin, end] of `stride` doubles, as a byte offset and length.
bool row_bytes(int begin, int end, int stride, size_t &offset, size_t &bytes,
               const char *fn) {
  if (begin < 0 || end < begin || stride < 1) {
    error(std::string(fn) + ": bad range [" + std::to_string(begin) + ", " +
          std::to_string(end) + "] with stride " + std::to_string(stride));
    return false;
  }
  offset = size_t(begin) * size_t(stride) * sizeof(double);
  bytes = (size_t(end) - size_t(begin) + 1) * size_t(stride) * sizeof(double);
  return true;
}

hce_array_section to_section(const paper::Result &r, int loop_begin) {
  auto shift = [&](int64_t v) { return v < 0 ? -1 : int(v + loop_begin); };
  return {shift(r.p1.begin), shift(r.p1.end), shift(r.p2.begin), shift(r.p2.end)};
}

std::vector<double> ratio_vector(int n, const float *r) {
  return std::vector<double>(r, r + n);
}

} // namespace

extern "C" {

int hce_init_compute_device(int udi, const char *type, int num) {
  std::string t = upper(type);
  int idx = find_device(t, num);
  if (idx < 0) {
    error("hce_init_compute_device: no " + t + " device " + std::to_string(num) +
          (t == "GPU" ? " (HCE_DEVICES=cpu,sim:0 simulates one)" : ""));
    return 1;
  }
  PaperState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.devices[udi] = PaperDevice{t, num, idx, nullptr};
  return 0;
}

int hce_set_compute_kernel(int udi, hce_compute_kernel kernel) {
  PaperState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.devices.find(udi);
  if (it == s.devices.end() || !kernel) {
    error("hce_set_compute_kernel: device " + std::to_string(udi) +
          (kernel ? " was not initialised" : " given a null kernel"));
    return 1;
  }
  it->second.kernel = kernel;
  return 0;
}

int hce_get_device_udi(const char *type, int num) {
  PaperState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto &[udi, d] : s.devices)
    if (d.type == upper(type) && d.num == num)
      return udi;
  return -1;
}

int hce_get_num_devices(const char *type) {
  std::string t = upper(type);
  int n = 0;
  for (const auto &d : Runtime::get().devices()) {
    bool is_gpu = d->kind() == DeviceKind::Cuda || d->kind() == DeviceKind::Sim;
    n += (t == "CPU" && d->kind() == DeviceKind::Cpu) || (t == "GPU" && is_gpu);
  }
  return n;
}

int hce_set_ratio(const char *type, int num, float ratio) {
  if (!(ratio >= 0)) {
    error("hce_set_ratio: negative ratio");
    return 1;
  }
  PaperState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.ratios[{upper(type), num}] = ratio;
  return 0;
}

int hce_set_loop_bounds(int begin, int end) {
  PaperState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.loop_begin = begin;
  s.loop_end = end;
  return 0;
}

int hce_co_schedule(const char *sched_type, int initial_chunk) {
  PaperState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Runtime &rt = Runtime::get();
  std::string name = upper(sched_type);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); });
  if (!s.scheduler || s.scheduler_name != name) {
    s.scheduler = make_scheduler(name);
    s.scheduler_name = name;
    if (!s.scheduler) {
      error("hce_co_schedule: unknown scheduler '" + std::string(sched_type ? sched_type : "") + "'");
      return 1;
    }
  }
  std::vector<ChunkWorker> workers;
  SchedParams params;
  params.iterations = std::max(0, s.loop_end - s.loop_begin + 1);
  params.initial_chunk = std::max(0, initial_chunk);
  double total = 0;
  for (const auto &[udi, d] : s.devices) {
    if (!d.kernel) {
      error("hce_co_schedule: device " + std::to_string(udi) + " has no kernel");
      return 1;
    }
    ChunkWorker w;
    w.device = d.runtime_index;
    const int begin = s.loop_begin;
    // The programmer's kernel moves its own data (Fig. 9): one stage.
    auto nothing = [](Range, int, std::string &) { return true; };
    w.upload = w.download = nothing;
    w.compute = [kernel = d.kernel, num = d.num, begin](Range r, int, std::string &) {
      kernel(num, int(r.lb) + begin, int(r.ub) - 1 + begin);
      return true;
    };
    w.abandon = [](int) {};
    if (d.type == "CPU")
      if (const auto *cpu =
              dynamic_cast<const CpuDevice *>(rt.devices()[size_t(w.device)].get()))
        w.prologue = [cpu](const std::function<bool()> &) {
          cpu->use_team(false); // its kernel's team
        };
    workers.push_back(std::move(w));
    auto it = s.ratios.find({d.type, d.num});
    double ratio = it == s.ratios.end() ? 0 : it->second;
    params.ratios.push_back(ratio);
    total += ratio;
    params.is_host.push_back(d.type == "CPU");
  }
  if (workers.empty()) {
    error("hce_co_schedule: no device initialised (hce_init_compute_device)");
    return 1;
  }
  if (total <= 0)
    params.ratios.clear();
  else
    for (double &r : params.ratios)
      r /= total;
  params.num_devices = int(workers.size());
  s.scheduler->begin(params);
  ChunkLoopResult res = run_chunk_loop(rt, *s.scheduler, workers, "hce_co_schedule");
  IntervalSet missing = res.missing(params.iterations);
  if (!res.fatal.empty() || !missing.empty()) {
    error("hce_co_schedule: iterations " + missing.to_string() + " did not run" +
          (res.fatal.empty() ? "" : ": " + res.fatal));
    return 1;
  }
  return 0;
}

int hce_malloc_gpu(int num, void **dev_ptr, size_t bytes) {
  Device *d = gpu(num, "hce_malloc_gpu");
  if (!d || !dev_ptr)
    return 1;
  *dev_ptr = d->allocate(bytes);
  if (!*dev_ptr) {
    error("hce_malloc_gpu: out of memory on " + d->name() + " for " +
          std::to_string(bytes) + " bytes");
    return 1;
  }
  return 0;
}

int hce_free_gpu(int num, void *dev_ptr) {
  Device *d = gpu(num, "hce_free_gpu");
  if (!d)
    return 1;
  d->release(dev_ptr);
  return 0;
}

int hce_memcpy_to_gpu(int num, void *dev_ptr, const void *host_ptr, int begin,
                      int end, int stride) {
  Device *d = gpu(num, "hce_memcpy_to_gpu");
  size_t off = 0, bytes = 0;
  std::string why;
  if (!d || !row_bytes(begin, end, stride, off, bytes, "hce_memcpy_to_gpu"))
    return 1;
  if (!d->upload(static_cast<char *>(dev_ptr) + off,
                 static_cast<const char *>(host_ptr) + off, bytes, why)) {
    error("hce_memcpy_to_gpu on " + d->name() + ": " + why);
    return 1;
  }
  return 0;
}

int hce_memcpy_from_gpu(int num, void *host_ptr, const void *dev_ptr, int begin,
                        int end, int stride) {
  Device *d = gpu(num, "hce_memcpy_from_gpu");
  size_t off = 0, bytes = 0;
  std::string why;
  if (!d || !row_bytes(begin, end, stride, off, bytes, "hce_memcpy_from_gpu"))
    return 1;
  if (!d->download(static_cast<char *>(host_ptr) + off,
                   static_cast<const char *>(dev_ptr) + off, bytes, why)) {
    error("hce_memcpy_from_gpu on " + d->name() + ": " + why);
    return 1;
  }
  return 0;
}

int hce_memcpy_to_gpu_async(int num, void *dev_ptr, const void *host_ptr,
                            int begin, int end, int stride, void *) {
  return hce_memcpy_to_gpu(num, dev_ptr, host_ptr, begin, end, stride);
}

int hce_memcpy_from_gpu_async(int num, void *host_ptr, const void *dev_ptr,
                              int begin, int end, int stride, void *) {
  return hce_memcpy_from_gpu(num, host_ptr, dev_ptr, begin, end, stride);
}

struct hce_array_section hce_get_array_section_upload(
    int n, int udi, int loop_begin, int loop_end, const float *prev,
    const float *curr) {
  if (n < 1 || udi < 1 || udi > n || !prev || !curr || loop_end < loop_begin)
    return {-1, -1, -1, -1};
  paper::Result r = paper::alg1_upload(loop_end - loop_begin + 1, udi,
                                       ratio_vector(n, prev), ratio_vector(n, curr));
  return to_section(r, loop_begin);
}

struct hce_array_section hce_get_array_section_download(
    int n, int udi, int loop_begin, int loop_end, const float *curr,
    const float *next) {
  if (n < 1 || udi < 1 || udi > n || !curr || !next || loop_end < loop_begin)
    return {-1, -1, -1, -1};
  paper::Result r = paper::alg2_download(loop_end - loop_begin + 1, udi,
                                         ratio_vector(n, curr), ratio_vector(n, next));
  return to_section(r, loop_begin);
}

} // extern "C"
