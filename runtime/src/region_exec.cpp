#include "region_exec.hpp"

#include "chunk_loop.hpp"
#include "clock.hpp"
#include "cpu_device.hpp"
#include "data/footprint.hpp"
#include "data_env.hpp"
#include "device_selection.hpp"
#include "iteration_count.hpp"
#include "log.hpp"
#include "profile/profile_hook.hpp"
#include "profile/profile_store.hpp"
#include "reduction.hpp"
#include "region_device_work.hpp"
#include "runtime.hpp"
#include "settings.hpp"
#include "tasks/device_claims.hpp"
#include "text_list.hpp"
#include "trace.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

namespace hce {
namespace {

// The host bytes an execution of `r` maps: each map's hull over every
// iteration (team_to_create_beside: whether its copies keep host threads
// busy).  An upper bound for strided maps.
double mapped_bytes(const hce_region &r) {
  double bytes = 0;
  for (int m = 0; m < r.num_maps; ++m) {
    const Interval h = clamped_hull(r.maps[m], 0, r.iterations);
    if (h.hi > h.lo)
      bytes += double(h.hi - h.lo) * double(r.maps[m].elem_size);
  }
  return bytes;
}

// What an execution asks of its region more than once (the copy threads,
// the rate ceilings, the pipeline, the team beside): found once per
// execution -- each asked anew cost lud's short executions ~1 us beside an
// idle GPU (H200, BM_ShrinkingRegion).
struct RegionFacts {
  double mapped_bytes = 0;     // mapped_bytes()
  bool in_data_region = false; // DataEnv::in_data_region
};

RegionFacts region_facts(Runtime &rt, const hce_region &r) {
  return {mapped_bytes(r), rt.data().in_data_region(r)};
}

std::string region_name(const hce_region &r) {
  return r.name && *r.name ? r.name : "<unnamed region>";
}

// Host threads for the accelerators' copies in this execution
// (Device::set_copy_threads): every core when the CPU's team does no work
// in it (left out by the scheduler, or not among the region's devices),
// shared among the accelerators that work; one beside a working CPU team,
// whose cores they are -- or what copy_threads_beside() lends each,
// taken from the CPU's team.
struct CopyLending {
  int each = 0;          // threads per working accelerator
  bool half_cpu = false; // at most half the CPU's threads in all
  bool data_region = false; // lends_in_data_region() said so
};

// The threads each of `accelerators` working accelerators takes from the
// CPU's working team (0: none lent, each copies on one thread).
int lent_each(const CpuDevice &cpu, int accelerators, CopyLending lending) {
  if (accelerators <= 0)
    return 0;
  int beside = lending.each;
  if (lending.half_cpu)
    beside = std::min(beside, cpu.threads() / 2 / accelerators);
  return beside >= 2 && beside * accelerators < cpu.threads() ? beside : 0;
}

// SchedParams::co_speed: the CPU's team when every device works, against
// its team beside the accelerators otherwise (threads lent to copies).
// Every device's one-time work so far (Device::one_time_seconds()).
double one_time_seconds(const Runtime &rt) {
  double s = 0;
  for (const auto &d : rt.devices())
    s += d->one_time_seconds();
  return s;
}

void set_co_speed(Runtime &rt, const std::vector<int> &devs,
                  const std::vector<bool> &is_cpu, CopyLending lending,
                  SchedParams &params) {
  int accelerators = 0;
  for (size_t i = 0; i < devs.size(); ++i)
    accelerators += !is_cpu[i] && !rt.devices()[size_t(devs[i])]->uses_host_memory();
  const auto *cpu = static_cast<const CpuDevice *>(rt.devices()[0].get());
  const int lent = lent_each(*cpu, accelerators, lending) * accelerators;
  params.co_speed.assign(devs.size(), 1.0);
  for (size_t i = 0; i < devs.size(); ++i)
    if (is_cpu[i] && lent > 0)
      params.co_speed[i] = double(cpu->threads() - lent) / double(cpu->threads());
}

// SchedParams::rate_ceiling: where threads are lent, what each working
// accelerator's staged copies allow at most -- the region's mapped bytes
// per iteration at kStagedCopyCeiling (mapped_bytes is an upper bound:
// the ceiling errs low, and eft pauses the host less).
void set_rate_ceiling(Runtime &rt, const hce_region &r, const RegionFacts &facts,
                      const std::vector<int> &devs, const std::vector<bool> &is_cpu,
                      SchedParams &params) {
  params.rate_ceiling.assign(devs.size(), 0.0);
  const bool lent = std::any_of(params.co_speed.begin(), params.co_speed.end(),
                                [](double s) { return s < 1; });
  const double bytes = facts.mapped_bytes;
  if (!lent || !(bytes > 0) || r.iterations <= 0)
    return;
  for (size_t i = 0; i < devs.size(); ++i)
    if (!is_cpu[i] && !rt.devices()[size_t(devs[i])]->uses_host_memory())
      params.rate_ceiling[i] = kStagedCopyCeiling / (bytes / double(r.iterations));
}

// Returns the threads lent beside the CPU's working team (0: none).
int share_copy_threads(Runtime &rt, const std::vector<int> &devs,
                       const std::vector<bool> &is_cpu,
                       const std::vector<ChunkWorker> &workers, CopyLending lending) {
  bool cpu_works = false, has_cpu = false;
  int accelerators = 0;
  for (size_t i = 0; i < devs.size(); ++i) {
    has_cpu = has_cpu || is_cpu[i];
    if (workers[i].idle)
      continue;
    if (is_cpu[i])
      cpu_works = true;
    else if (!rt.devices()[size_t(devs[i])]->uses_host_memory())
      ++accelerators;
  }
  // Device 0 is the CPU, selected or not (Runtime::devices).
  const auto *cpu = static_cast<const CpuDevice *>(rt.devices()[0].get());
  const int beside = cpu_works ? lent_each(*cpu, accelerators, lending) : 0;
  // Only a region with the CPU sets its team: a task graph may run another
  // region on the CPU meanwhile (tasks::DeviceClaim).
  if (has_cpu)
    cpu->reserve_for_copies(beside * accelerators);
  if (accelerators == 0)
    return 0;
  const int threads =
      cpu_works ? std::max(1, beside) : std::max(1, cpu->all_threads() / accelerators);
  for (size_t i = 0; i < devs.size(); ++i)
    if (!workers[i].idle && !is_cpu[i])
      rt.devices()[size_t(devs[i])]->set_copy_threads(threads);
  return beside * accelerators;
}

// A data region's arrays beside a working CPU team: ski rental once more
// (CudaDevice::stages_instead_of_pinning rents an array while its copies
// have threads to stage with).  Copy threads are lent while the bytes the
// accelerators' preparations would register, U, are kLendRegisterBytes or
// more and the lending so far cost less than registering them would: the
// walls of this site's lending executions, of which the team lost
// kLentTeamShare, under U at kRegisterSecondsPerByte.  Beyond that the
// arrays are registered beside the team, as before.
// Cold jacobi2d on the H200 (call HB): the GPU registered A and B, 256 MiB
// in 32 MiB pieces of 2.1-2.8 ms, over three executions that the CPU ran
// alone meanwhile, where the GPU alone staged A in its first (8.6 ms).
// Lending, the GPU stages its rows and eft retires the CPU in the second
// execution: cold auto 0.72-0.78x as long as without (calls IA-IC, 9-16
// paired rounds), heat3d 0.93-0.97x.  Not below kLendRegisterBytes: cg's
// spmv (U ~132 MiB) took 1.36-1.57x as long lending, its staged copies
// beside the working team at ~10 GB/s against ~50 registered, and eft then
// ran spmv on the CPU; kmeans (~132 MiB) 1.03-1.07x.  Gated at 192 MiB
// (call IC): jacobi2d 0.73x, heat3d 0.93x, cg 1.05x, kmeans 0.98x, fdtd2d
// 1.01x, bfs 0.96x.  Stopping the lending once a lent execution after the
// first kept the CPU working to its end did worse (jacobi2d 1.30x, cg 1.56x:
// the rented arrays were then registered beside the team after all).
// (settings.hpp data_region_lending_pays: the rule and its constants.)
double accelerators_would_pin(Runtime &rt, const hce_region &r,
                              const std::vector<int> &devs,
                              const std::vector<bool> &is_cpu) {
  double unpinned = 0;
  for (size_t i = 0; i < devs.size(); ++i)
    if (!is_cpu[i] && !rt.devices()[size_t(devs[i])]->uses_host_memory())
      unpinned += double(rt.data().would_pin(devs[i], r));
  return unpinned;
}

bool lends_in_data_region(Runtime &rt, const hce_region &r, const RegionFacts &facts,
                          const std::vector<int> &devs, const std::vector<bool> &is_cpu,
                          const SiteState &site) {
  const double mapped = facts.mapped_bytes;
  if (!data_region_lending_pays(mapped, mapped, site.lent_wall))
    return false; // not even every mapped byte would be enough, or worth more
  return data_region_lending_pays(mapped, accelerators_would_pin(rt, r, devs, is_cpu),
                                  site.lent_wall);
}

// Copy threads lent beside the CPU's team (share_copy_threads), only where
// they would stage much: a one-shot region mapping kQuietHostBytes or more
// (mcpi's reduction copies nothing), a data region's arrays while
// lends_in_data_region().  By default under the schedulers that measure the CPU's
// smaller team as it runs: on the H200 (calls RC, RD) 8 threads made warm
// auto 0.89x (blackscholes) and 0.83x (matadd) as long, cold blackscholes
// 0.72x, cold matadd 1.09x, cold gemm 1.04x.  Under fdets and hguided
// (call TD, this default, 7 rounds): blackscholes 0.90x and 0.87x, gemm
// 0.78x and 0.72x, matadd 1.08x and 1.05x (its memory-bound CPU does 85%
// of the rows; RC's 0.50x was before the pool was made at a one-shot
// preparation).  Not static, whose fixed CPU half lost 8 of its 15
// threads (blackscholes 1.65x), adets (1.13x, 1.26x: its pipeline's
// chunks), logfit (1.01x, 1.09x).  The default is shared: at most half
// the CPU's threads in all, whatever the number of GPUs.
CopyLending copy_threads_beside(Runtime &rt, const hce_region &r,
                                const RegionFacts &facts, const Settings &set,
                                std::string_view schedule, const std::vector<int> &devs,
                                const SiteState &site) {
  if (facts.mapped_bytes < kQuietHostBytes)
    return {};
  const bool auto_lends = schedule == "auto" || schedule == "eft" ||
                          schedule == "fdets" || schedule == "hguided";
  if (facts.in_data_region) {
    if (!lends_in_data_region(rt, r, facts, devs, site.plan.is_cpu, site))
      return {};
    if (set.copy_threads_beside)
      return {*set.copy_threads_beside, false, true};
    return auto_lends ? CopyLending{kAutoCopyThreadsBeside, true, true} : CopyLending{};
  }
  if (set.copy_threads_beside)
    return {*set.copy_threads_beside, false};
  if (!auto_lends)
    return {};
  return {kAutoCopyThreadsBeside, true};
}

// Whether an accelerator's sequential chunks switch to the three-stage
// pipeline once one of them is compute-bound
// (ChunkWorker::pipeline_when_compute_bound): in a one-shot region mapping
// kQuietHostBytes or more under eft, whose learning chunks run upload,
// kernel and download one after another.  The H200's cold gemm (call DA):
// seven GPU chunks, 17.3 ms of stages in turn after its preparation
// (kernels 10.3 ms) against 11.4 for the GPU alone's one chunk; with every
// chunk pipelined (HCE_CO=pipelined, call UB) cold gemm took 20.5 ms
// against 25.2, but blackscholes 47.3 against 43.4 and matadd 29.1 against
// 27.5: their uploads and downloads share the staging threads, and a
// copy-bound chunk does not switch.
bool pipelines_when_compute_bound(const RegionFacts &facts, CoMode co,
                                  std::string_view schedule) {
  return co == CoMode::Incremental && (schedule == "auto" || schedule == "eft") &&
         !facts.in_data_region && facts.mapped_bytes >= kQuietHostBytes;
}

// The page prefaulter's threads for this execution (page_prefaulter.hpp):
// only while accelerators work without the CPU's team, whose cores are then
// idle but for the staging pool's (at most kAutoCopyThreadsBeside) and the
// devices' controllers -- from the start, or from the team's retirement
// (PrefaultScope::cpu_retired) -- and only for an accelerator that copies
// (not a device working in host memory, which writes the pages itself).
// Unset (HCE_PREFAULT): half the cores less two, 6 on the H200 machine's 16.
int prefault_threads(Runtime &rt, const std::vector<int> &devs,
                     const std::vector<bool> &is_cpu,
                     const std::vector<ChunkWorker> &workers, const Settings &set) {
  bool copies = false;
  for (size_t i = 0; i < devs.size(); ++i)
    if (!workers[i].idle && !is_cpu[i])
      copies = copies || !rt.devices()[size_t(devs[i])]->uses_host_memory();
  if (!copies)
    return 0;
  if (set.prefault_threads)
    return *set.prefault_threads;
  const auto *cpu = static_cast<const CpuDevice *>(rt.devices()[0].get());
  return std::max(1, cpu->all_threads() / 2 - 2);
}

// Of an execution's untouched output pages, those the maps writing `range`
// cover (pages whole: a page another device writes too is only faulted in,
// its bytes kept), into `out`.
void untouched_written(const hce_region &r, Range range,
                       const std::vector<HostRange> &untouched, IntervalSet &scratch,
                       std::vector<HostRange> &out) {
  out.clear();
  const uintptr_t page = uintptr_t(host_page_size());
  for (int m = 0; m < r.num_maps; ++m) {
    const hce_map &map = r.maps[m];
    if (!map.host || !(map.kind & HCE_MAP_FROM) || (map.kind & HCE_MAP_ROWS))
      continue;
    footprint(map, range.lb, range.ub, scratch);
    for (const Interval &iv : scratch.intervals()) {
      const uintptr_t base = uintptr_t(map.host);
      const uintptr_t lo = (base + uintptr_t(iv.lo) * map.elem_size) & ~(page - 1),
                      hi = (base + uintptr_t(iv.hi) * map.elem_size + page - 1) &
                           ~(page - 1);
      for (const HostRange &u : untouched) {
        const uintptr_t a = std::max(lo, uintptr_t(u.p)),
                        b = std::min(hi, uintptr_t(u.p) + u.bytes);
        if (b > a)
          out.push_back({reinterpret_cast<char *>(a), size_t(b - a)});
      }
    }
  }
}

// Starts the prefaulter on an execution's untouched output pages once an
// accelerator has made its preparation (prepared(), on its controller) and
// no CPU chunk runs any more: from the start when the CPU's team does not
// work, else once the scheduler retires it (cpu_retired(); beside a working
// team the prefaulter slowed the team's chunks more than it sped the GPU's
// downloads, call CD).  The staging pool and the registrations made in the
// preparation take the process's mmap_lock for writing, which waits behind
// every page being populated (call CA: blackscholes' first preparation
// took 25.5 ms instead of 3.2 beside the prefaulter).  Before that, a
// copying accelerator's chunk beside other devices has the pages its
// download will write faulted in while its upload and kernel run
// (chunk_ahead()): the H100's cold blackscholes (call MB) downloaded its
// GPU's learning chunks beside the working CPU into fresh pages at 0.4-8
// GB/s, where faulted pages took 28 GB/s.
// finish() (or the destructor, on every path out of the execution) stops
// it: what no thread took is left to the copies.
class PrefaultScope {
public:
  PrefaultScope(PagePrefaulter &p, const std::vector<HostRange> &untouched, int threads,
                bool cpu_works)
      : p_(p), untouched_(untouched), threads_(untouched.empty() ? 0 : threads),
        cpu_gone_(!cpu_works) {}
  ~PrefaultScope() { finish(); }
  PrefaultScope(const PrefaultScope &) = delete;
  PrefaultScope &operator=(const PrefaultScope &) = delete;
  bool wanted() const { return threads_ > 0; }
  void prepared() {
    prepared_ = true;
    try_start();
  }
  void cpu_retired() {
    cpu_gone_ = true;
    try_start();
  }
  // A copying accelerator's chunk `range` of `r`, before its upload: its
  // untouched output pages, on kAheadThreads -- beside the CPU's working
  // team, whose own chunks fault their pages in, two threads more than the
  // cores.  Not once the whole job runs: faulting first the pages the GPU
  // downloads next, beside those downloads, made the H200's cold
  // blackscholes 1.16x as long (call GF); in address order the job stays
  // away from them.
  void chunk_ahead(const hce_region &r, Range range) {
    static constexpr int kAheadThreads = 2;
    if (threads_ <= 0 || whole_)
      return;
    thread_local IntervalSet scratch;
    thread_local std::vector<HostRange> mine;
    untouched_written(r, range, untouched_, scratch, mine);
    if (!mine.empty() && p_.ahead(mine, std::min(threads_, kAheadThreads)))
      started_ = true;
  }
  // After the chunk loop: no prepared(), cpu_retired() or chunk_ahead()
  // runs any more.
  void finish() {
    if (started_.exchange(false))
      p_.finish();
  }

private:
  // Each condition's setter tries: with both atomics sequentially
  // consistent, the second of the two to be set sees the first.
  void try_start() {
    if (threads_ > 0 && prepared_ && cpu_gone_ && !asked_.exchange(true) &&
        p_.start(untouched_, threads_))
      started_ = whole_ = true;
  }

  PagePrefaulter &p_;
  const std::vector<HostRange> &untouched_;
  const int threads_;
  std::atomic<bool> prepared_{false}, cpu_gone_{false};
  std::atomic<bool> asked_{false}, started_{false};
  std::atomic<bool> whole_{false}; // the untouched pages' whole job began
};

// The devices (indices into Runtime::devices) the region runs on.
bool select_region_devices(Runtime &rt, const hce_region &r, std::vector<int> &out,
                           std::string &why) {
  const auto &devs = rt.devices();
  std::vector<int> selected;
  for (int d = 0; d < int(devs.size()); ++d)
    if (d != 0 || rt.cpu_selected())
      selected.push_back(d);
  if (r.devices && *r.devices) {
    auto specs = parse_device_list(r.devices, why);
    if (!specs) {
      why = "devices(" + std::string(r.devices) + "): " + why;
      return false;
    }
    std::vector<int> keep;
    for (const DeviceSpec &spec : *specs) {
      bool found = false;
      for (int d : selected) {
        if (spec_matches(spec, kind_name(devs[d]->kind()), devs[d]->ordinal())) {
          found = true;
          if (std::find(keep.begin(), keep.end(), d) == keep.end())
            keep.push_back(d);
        }
      }
      if (!found)
        notice_once(region_name(r) + "/" + spec.name(),
                    "region " + region_name(r) + ": device '" + spec.name() +
                        "' of devices(...) is not available; not used");
    }
    std::sort(keep.begin(), keep.end());
    selected = keep;
  }
  for (int d : selected) {
    // Every device takes part in array reductions: the reduction block a
    // variant receives is host memory on every device, and the translator's
    // CUDA and offload variants fold their device-side partial arrays into
    // it before they return (CudaVariantEmitter, OffloadVariantEmitter).
    if (devs[d]->can_run(r))
      out.push_back(d);
    else
      notice_once(region_name(r) + "/novariant/" + devs[d]->name(),
                  "region " + region_name(r) + " has no variant for " + devs[d]->name() +
                      "; it runs without it");
  }
  if (out.empty())
    out.push_back(0); // the CPU is always there
  return true;
}

// ratio(cpu=0.3, sim:0=0.7): named devices get their share, the rest split
// what is left equally; the result sums to 1.
bool parse_ratios(const hce_region &r, const Runtime &rt, const std::vector<int> &devs,
                  std::vector<double> &out, std::string &why) {
  out.clear();
  if (!r.ratios || !*r.ratios)
    return true;
  std::vector<double> given(devs.size(), -1);
  std::string text = r.ratios;
  for (std::string item : split_list(text, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    size_t eq = item.find('=');
    char *end = nullptr;
    double v = eq == std::string::npos ? -1 : std::strtod(item.c_str() + eq + 1, &end);
    if (eq == std::string::npos || !end || *end || v < 0) {
      why = "ratio(" + text + "): expected device=number, got '" + item + "'";
      return false;
    }
    std::string dev = item.substr(0, eq);
    for (size_t i = 0; i < devs.size(); ++i)
      if (rt.devices()[devs[i]]->name() == dev ||
          (dev == "cuda" && rt.devices()[devs[i]]->name() == "cuda:0"))
        given[i] = v;
  }
  double sum = 0;
  int unset = 0;
  for (double g : given) {
    if (g >= 0)
      sum += g;
    else
      ++unset;
  }
  double rest = unset ? std::max(0.0, 1.0 - sum) / unset : 0;
  out.resize(devs.size());
  double total = 0;
  for (size_t i = 0; i < devs.size(); ++i)
    total += out[i] = given[i] >= 0 ? given[i] : rest;
  if (total <= 0) {
    out.clear(); // nothing usable: equal shares
    return true;
  }
  for (double &x : out)
    x /= total;
  return true;
}

// A device whose measured share of the throughput is below HCE_MIN_SHARE
// (default 3%) in two executions in a row costs more in chunk overheads and in the
// imbalance of its last chunk than it adds: it is left out of the region, so co-execution
// is never slower than the devices that matter (SlowDevices; tried again every 16
// executions).
void drop_too_slow(SiteState &site, const Runtime &rt, std::vector<int> &devs,
                   double min_share) {
  // (Scratch kept per thread: every execution of a papers' scheduler.)
  thread_local std::vector<std::string_view> names;
  thread_local std::vector<size_t> kept;
  names.clear();
  for (int d : devs)
    names.push_back(rt.devices()[d]->name());
  std::vector<std::pair<std::string, double>> left_out;
  site.slow.keep(std::span<const std::string_view>(names), site.stats.executions,
                 min_share, &left_out, kept);
  for (const auto &[dev, share] : left_out)
    notice_once("slow/" + site.name + "/" + dev,
                "region " + site.name + ": " + dev + " does " +
                    std::to_string(int(share * 1000) / 10.0).substr(0, 4) +
                    "% of the work, too little to pay for its overheads; "
                    "it is left out of this region");
  if (kept.size() == devs.size())
    return;
  std::vector<int> keep;
  for (size_t i : kept)
    keep.push_back(devs[i]);
  devs = keep;
}

CoMode co_mode(const hce_region &r, const Settings &set, const std::string &schedule) {
  if (set.co)
    return *set.co;
  if (auto co = parse_co_mode(r.co ? r.co : ""))
    return *co;
  // Default: ADETS runs with its three-way pipeline (HCE paper, Alg. 4),
  // every other scheduler with incremental transfers (Alg. 3).
  return schedule == "adets" ? CoMode::Pipelined : CoMode::Incremental;
}

std::string schedule_name(const hce_region &r, const Settings &set) {
  if (set.schedule)
    return *set.schedule;
  return r.schedule && *r.schedule ? r.schedule : "auto";
}

bool validate(const hce_region &r, std::string &why) {
  if (why = iteration_count_error(r.iterations); !why.empty())
    return false;
  if (!r.cpu) {
    why = "no CPU variant";
    return false;
  }
  if (r.num_maps < 0 || (r.num_maps > 0 && !r.maps) || r.num_reductions < 0 ||
      (r.num_reductions > 0 && !r.reductions)) {
    why = "malformed map or reduction list";
    return false;
  }
  for (int i = 0; i < r.num_reductions; ++i)
    if (!reduction_valid(r.reductions[i], why))
      return false;
  if (r.alpha < 0 || r.alpha >= 1) {
    why = "alpha(" + std::to_string(r.alpha) + ") must be in [0, 1)";
    return false;
  }
  if (r.chunk < 0) {
    why = "chunk(" + std::to_string(r.chunk) + ") must not be negative";
    return false;
  }
  return true;
}

// What one execution runs on: the devices, the scheduler, its parameters.
// The parts that do not change between executions live in the site's plan
// (site_plan.hpp); this holds the execution's own choices and points there.
struct ExecutionPlan {
  std::vector<int> devs; // indices into Runtime::devices
  SiteState *site = nullptr;
  uint64_t version = 0; // the site plan's version the devices were chosen under
  std::string_view sched_name;
  CoMode co = CoMode::Incremental;
  const SchedParams *params = nullptr;
  RegionFacts facts; // (region_facts: once per execution)
};

// The devices of a region: those selected for the process that the region's
// devices(...) clause names and that have a variant for it.
bool choose_devices(Runtime &rt, const hce_region &r, std::vector<int> &devs,
                    std::string &why) {
  if (!select_region_devices(rt, r, devs, why))
    return false;
  // The CPU writes host memory without the data layer's lock, so a merge by
  // twin and diff on another device cannot see a CPU write that lands
  // between its conflict check and its write-back (an `omp atomic` update
  // would be lost).  Such regions run on the accelerators; the CPU re-runs
  // any chunk whose merge found a conflict, afterwards.
  if (devs.size() > 1 && region_merges_by_diff(r)) {
    std::vector<int> accel;
    for (int d : devs)
      if (!rt.devices()[d]->uses_host_memory())
        accel.push_back(d);
    if (!accel.empty() && accel.size() < devs.size()) {
      notice_once(region_name(r) + "/merge-without-cpu",
                  "region " + region_name(r) +
                      ": a written map is merged by twin and diff (its iterations "
                      "share elements); it runs on the accelerators, the CPU only "
                      "re-runs chunks whose merge conflicts");
      devs = accel;
    }
  }
  return true;
}

// The devices of this execution (the exec lock held only for the site
// table and the device choice: the execution itself holds just its devices
// and its site, tasks/device_claims.hpp, so that the regions of a nowait
// task graph run at once on disjoint devices).  The choice is the site's
// while the descriptor stays the same.
bool select_devices_and_site(Runtime &rt, const hce_region &r, ExecutionPlan &plan,
                             std::string &why) {
  std::lock_guard<std::mutex> exec_lock(rt.exec_mutex());
  SiteState &site = rt.site(r);
  SitePlan &sp = site.plan;
  const uint64_t generation = rt.settings_generation();
  if (sp.key.matches(r, generation)) {
    // the plan as it is
  } else if (sp.key.matches_but_shape(r, generation) &&
             region_merges_by_diff(r) == sp.merges_by_diff) {
    // Only the shape: the devices and the schedule stay, plan_schedule()
    // takes the new trip count (lud's 511 shrinking steps each made a new
    // plan, ~1.5 us more per execution beside the GPU than the CPU alone:
    // its occupancy calculator and the profile's device keys).
    sp.key.reshape(r);
  } else {
    std::vector<int> devs;
    if (!choose_devices(rt, r, devs, why))
      return false;
    sp.key.assign(r, generation);
    sp.selected = std::move(devs);
    sp.merges_by_diff = region_merges_by_diff(r);
    ++sp.version;
  }
  plan.site = &site;
  plan.devs = sp.selected;
  plan.version = sp.version;
  return true;
}

// The schedule part of the site's plan for the execution's devices: the
// scheduler's name, the communication mode, the scheduler's parameters.
bool make_schedule_plan(Runtime &rt, const hce_region &r, const Settings &set,
                        const ExecutionPlan &plan, SitePlan &sp, std::string &why) {
  sp.schedule_version = 0; // until complete
  sp.label = "region " + region_name(r);
  sp.schedule = schedule_name(r, set);
  sp.co = co_mode(r, set, sp.schedule);
  SchedParams &params = sp.params;
  params = SchedParams{};
  params.iterations = r.iterations;
  params.num_devices = int(plan.devs.size());
  params.initial_chunk = r.chunk;
  params.alpha = r.alpha > 0 ? r.alpha : 0.1;
  // HCE_CHUNK / HCE_ALPHA override every region's clauses, like
  // HCE_SCHEDULE: for the papers' sensitivity studies without rebuilding.
  if (set.chunk)
    params.initial_chunk = *set.chunk;
  if (set.alpha)
    params.alpha = *set.alpha;
  if (!parse_ratios(r, rt, plan.devs, params.ratios, why))
    return false;
  sp.is_cpu.clear();
  sp.bounded = false;
  for (int d : plan.devs) {
    const Device &dev = *rt.devices()[d];
    params.is_host.push_back(dev.uses_host_memory());
    const auto *cpu = dynamic_cast<const CpuDevice *>(&dev);
    params.lanes.push_back(dev.lanes(r));
    // An accelerator's asked when a scheduler first sizes its chunk
    // (WaveAsk): warm auto that runs the CPU alone never asks.
    params.waves.push_back(dev.uses_host_memory() ? dev.wave(r)
                                                  : SchedParams::kWaveUnasked);
    params.lookahead =
        params.lookahead || (sp.co == CoMode::Pipelined && !dev.uses_host_memory());
    sp.is_cpu.push_back(cpu != nullptr);
    sp.bounded =
        sp.bounded || (!dev.uses_host_memory() && profile::device_capacity(dev, set) > 0);
  }
  sp.devs = plan.devs;
  sp.schedule_version = plan.version;
  return true;
}

// The scheduler (kept in the site while its name and devices stay the same)
// and its parameters (kept in the site's plan while the descriptor and the
// devices stay the same).  Runs with the site and devices claimed.
bool plan_schedule(Runtime &rt, const hce_region &r, const Settings &set,
                   ExecutionPlan &plan, std::string &why) {
  SiteState &site = *plan.site;
  SitePlan &sp = site.plan;
  // eft (auto's default) leaves out a device too slow to help by itself,
  // keeping its cost model; dropping it here would start a new scheduler.
  const size_t selected = plan.devs.size();
  if (!site.scheduler || !site.scheduler->seedable())
    drop_too_slow(site, rt, plan.devs, set.min_share);
  const bool left_alone = selected > 1 && plan.devs.size() == 1;
  bool fresh = sp.schedule_version != plan.version || sp.devs != plan.devs;
  if (fresh && !make_schedule_plan(rt, r, set, plan, sp, why))
    return false;
  // A new shape of the same plan (PlanKey::reshape): its trip count, and
  // the memory bounds in iterations where a device has one.  (Checked
  // here, with the site claimed: another execution of the site may have
  // reshaped the key to this execution's shape since.)
  const bool reshaped = sp.take_shape(r);
  sp.params.iterations = r.iterations;
  plan.co = sp.co;
  plan.params = &sp.params;
  // FDETS on a kernel repeated inside a data region with incremental
  // transfers is the HCE paper's Algorithm 3: one partition per execution,
  // decided an execution ahead, so that data stays where it is.
  plan.sched_name = sp.schedule;
  if (sp.schedule == "fdets" && plan.co == CoMode::Incremental &&
      plan.facts.in_data_region)
    plan.sched_name = "fdets_inc";
  // One device left by HCE_MIN_SHARE: nothing to balance, and the papers'
  // packets only add forks and launches -- hguided halved lud's CPU alone
  // into ~10 chunks per execution, jacobi2d's GPU alone into 11 (0.30 ms a
  // sweep against one chunk's 0.13; traces-h200-2026-11-29-qb-named).  It
  // runs the loop in one chunk until the device left out is tried again.
  // Not a pipeline's (adets) on an accelerator: its chunks overlap the
  // copies with compute; the CPU has no copies to overlap.
  if (left_alone && (plan.co != CoMode::Pipelined ||
                     rt.devices()[plan.devs[0]]->kind() == DeviceKind::Cpu))
    plan.sched_name = "static";
  if (!site.scheduler || site.schedule != plan.sched_name || site.devices != plan.devs) {
    site.scheduler = make_scheduler(std::string(plan.sched_name));
    if (!site.scheduler) {
      std::string known;
      for (const auto &n : scheduler_names())
        known += (known.empty() ? "" : ", ") + n;
      why = "unknown schedule '" + std::string(plan.sched_name) + "' (known: " + known +
            ")";
      return false;
    }
    site.schedule = plan.sched_name;
    site.devices = plan.devs;
    // A new scheduler starts from what earlier runs measured (the profile
    // store, a per-user cache by default).
    profile::seed(*site.scheduler, r, rt, plan.devs);
    fresh = true;
  }
  // The scheduler's profile context (region, devices, memory bounds):
  // what the plan is made of, so set again only when either is new.
  if (fresh || (reshaped && sp.bounded))
    profile::attach(*site.scheduler, r, rt, plan.devs);
  return true;
}

// Iterations no device completed (failed chunks, and work left when every
// device had failed) run on the CPU, on host memory, on its controller.
// Returns the iterations it ran; `red` gets their reduction partials.
int64_t rerun_missing_on_cpu(Runtime &rt, const hce_region &r, CoMode co,
                             const ChunkLoopResult &loop, tasks::DeviceClaim &claim,
                             std::vector<unsigned char> &red, std::string &why) {
  if (loop.completed.contains(0, r.iterations))
    return 0;   // the usual case, without building the set of what is missing
  claim.add(0); // the CPU, which this region may not hold
  DataEnv &data = rt.data();
  int64_t retried = 0;
  rt.controller(0).post([&] {
    for (const Interval &iv : loop.missing(r.iterations)) {
      Range range{iv.lo, iv.hi};
      std::vector<void *> ptrs;
      DataEnv::ChunkHold hold;
      TransferCounts counts;
      std::vector<unsigned char> part = reduction_slots(r);
      if (!data.acquire(0, r, range, ptrs, hold, counts, why))
        return;
      ChunkContext ctx{&r, range, ptrs.data(), part.data()};
      if (!rt.devices()[0]->compute(ctx, why) ||
          !data.release(0, r, range, co, hold, counts, why))
        return;
      reduction_combine_all(r, red.data(), part.data());
      retried += range.size();
    }
  });
  rt.controller(0).wait();
  return retried;
}

// The statistics of one execution (HCE_STATS) and the throughputs the
// papers' schedulers' HCE_MIN_SHARE rule reads.
void fold_stats(Runtime &rt, SiteState &site, const hce_region &r,
                const ExecutionPlan &plan, const std::vector<ChunkWorker> &workers,
                const std::vector<std::unique_ptr<RegionDeviceWork>> &work,
                int64_t retried, double wall) {
  RegionStats &st = site.stats;
  st.schedule = plan.sched_name;
  st.executions += 1;
  // The choice the statistics written on a signal show (exit_signals.cpp):
  // the 1st, 2nd, 4th, 8th ... execution's.  Formatting it costs ~12k
  // instructions; at the profile's sample (1 in 16) that was a third of
  // what auto paid per lud execution beside an idle GPU.
  if (std::has_single_bit(uint64_t(st.executions)))
    site.refresh_choice();
  st.iterations += r.iterations;
  st.wall_seconds += wall;
  for (auto &[dev, ds] : st.devices)
    ds.last_iterations = 0; // devices left out this time ran nothing
  double first = -1, last = 0;
  for (size_t i = 0; i < workers.size(); ++i) {
    const ChunkWorker &w = workers[i];
    static const TransferCounts kNone;
    const TransferCounts &bytes = work[i] ? work[i]->bytes() : kNone;
    DeviceStats &ds = st.device(w.device, rt.devices()[w.device]->name());
    ds.iterations += w.iterations;
    ds.last_iterations = w.iterations;
    ds.chunks += w.chunks;
    ds.busy_seconds += w.busy;
    ds.last_finish = w.finish;
    ds.bytes_to_device += bytes.to_device;
    ds.bytes_from_device += bytes.from_device;
    ds.bytes_peer += bytes.peer;
    ds.bytes_avoided += bytes.avoided;
    ds.background_wait_seconds += bytes.background_wait;
    // Left out by the scheduler: planned so (idle) or, having asked, given
    // nothing because others took its work (eft's gave_nothing).
    ds.left_out +=
        w.idle || (w.iterations == 0 && site.scheduler->gave_nothing(int(i))) ? 1 : 0;
    if (w.iterations > 0) {
      first = first < 0 ? w.finish : std::min(first, w.finish);
      last = std::max(last, w.finish);
      // The first execution also places the data (windows, first uploads):
      // its times say little about what the devices can do.
      if (double rate = w.capability(); rate > 0 && st.executions > 1)
        site.slow.measured(rt.devices()[w.device]->name(), rate);
    } else if (!w.idle && st.executions > 1 && r.iterations >= int64_t(workers.size())) {
      site.slow.got_nothing(rt.devices()[w.device]->name());
    }
  }
  if (retried) {
    DeviceStats &ds = st.device(0, rt.devices()[0]->name());
    ds.iterations += retried;
    ds.last_iterations += retried;
  }
  st.balance = last > 0 && first >= 0 ? first / last : 1.0;
}

} // namespace

// ---- run

// SchedParams::wave_of for one execution: device i's wave (Device::wave),
// kept in the site's plan, so asked once per plan.  Asked by the device's
// prologue (attach_device_hooks), else by the scheduler sizing its chunk;
// both on the device's own thread, the only one that touches its entry.
struct WaveAsk {
  Runtime *rt = nullptr;
  const hce_region *r = nullptr;
  SitePlan *sp = nullptr;
  int64_t operator()(int i) const {
    if (i < 0 || size_t(i) >= sp->devs.size() || size_t(i) >= sp->params.waves.size())
      return 0;
    int64_t &w = sp->params.waves[size_t(i)];
    if (w == SchedParams::kWaveUnasked)
      w = std::max<int64_t>(0, rt->devices()[sp->devs[size_t(i)]]->wave(*r));
    return w;
  }
};

// SchedParams::register_bytes_of for one execution.
struct RegisterAsk {
  Runtime *rt = nullptr;
  const hce_region *r = nullptr;
  const std::vector<int> *devs = nullptr;
  const std::vector<bool> *is_cpu = nullptr;
  // 0 once a host wrote an array the region maps in the data region: the
  // host works beside the accelerators at another site already.
  double operator()() const {
    return rt->data().host_wrote_any(*r)
               ? 0
               : accelerators_would_pin(*rt, *r, *devs, *is_cpu);
  }
};

// One execution's devices at work: each device's RegionDeviceWork (its
// chunks' data, compute and reduction partials) bound to its ChunkWorker,
// and what the chunk loop did.  Kept in the site (SiteState::run_storage)
// and reset at each execution.
struct ExecutionRun {
  std::vector<std::unique_ptr<RegionDeviceWork>> work; // null: idle
  std::vector<ChunkWorker> workers;
  ChunkLoopResult loop;
  bool lent_in_data_region = false; // (lends_in_data_region)
  WaveAsk wave_ask;
  RegisterAsk register_ask;
  // The work of devices idle in this execution, kept for a later one.
  std::vector<std::unique_ptr<RegionDeviceWork>> spare;
  std::vector<TransferCounts> bytes;  // finish_run's
  std::vector<const void *> partials; // fold_results'

  // As a new one for `devices` devices, the storage kept.
  void reset(size_t devices) {
    workers.resize(devices);
    for (ChunkWorker &w : workers)
      w.reset();
    work.resize(devices);
    spare.resize(devices);
    loop.reset();
    lent_in_data_region = false;
    wave_ask = {};
    register_ask = {};
  }
  // Device i's work for this execution: the last one's, reset, when it
  // was the same device's.
  RegionDeviceWork &work_for(size_t i, Runtime &rt, const hce_region &r, int device,
                             CoMode co) {
    if (!work[i])
      work[i] = std::move(spare[i]);
    if (work[i] && work[i]->device() == device)
      work[i]->reset(r, co);
    else
      work[i] = std::make_unique<RegionDeviceWork>(rt, r, device, co);
    return *work[i];
  }
  void idle(size_t i) {
    if (work[i])
      spare[i] = std::move(work[i]);
  }
};

void ExecutionRunDeleter::operator()(ExecutionRun *run) const { delete run; }

namespace {

// The scheduler begins, with the execution's co-execution speeds and rate
// ceilings; then one RegionDeviceWork per device it gives work, bound to its
// worker.  A device the scheduler leaves out (idle) has none: its worker
// only names it (lud's 511 executions on the CPU alone beside an idle GPU
// made and folded the GPU's every time).
void begin_run(Runtime &rt, const hce_region &r, const Settings &set,
               const ExecutionPlan &plan, ExecutionRun &run, CopyLending &lending) {
  SiteState &site = *plan.site;
  const std::vector<int> &devs = plan.devs;
  lending = copy_threads_beside(rt, r, plan.facts, set, plan.sched_name, devs, site);
  set_co_speed(rt, devs, site.plan.is_cpu, lending, site.plan.params);
  set_rate_ceiling(rt, r, plan.facts, devs, site.plan.is_cpu, site.plan.params);
  site.plan.params.data_region = plan.facts.in_data_region;
  site.plan.params.maps_rows = plan.facts.mapped_bytes > 0;
  // What a co-execution's preparations would register (RegisterAsk).
  const bool has_cpu = std::find(site.plan.is_cpu.begin(), site.plan.is_cpu.end(),
                                 true) != site.plan.is_cpu.end();
  run.register_ask = {&rt, &r, &devs, &site.plan.is_cpu};
  site.plan.params.register_bytes_of = nullptr;
  site.plan.params.host_fetch_bytes_of = nullptr;
  if (has_cpu && plan.facts.in_data_region) {
    site.plan.params.register_bytes_of = [ask = &run.register_ask] { return (*ask)(); };
    site.plan.params.host_fetch_bytes_of = [&rt, &r] {
      return double(rt.data().host_lacks(r));
    };
  }
  run.wave_ask = {&rt, &r, &site.plan};
  site.plan.params.wave_of = [ask = &run.wave_ask](int i) { return (*ask)(i); };
  site.scheduler->begin(*plan.params);
  for (size_t i = 0; i < devs.size(); ++i) {
    ChunkWorker &w = run.workers[i];
    w.device = devs[i];
    w.idle = site.scheduler->idle(int(i));
    if (w.idle) {
      run.idle(i);
      continue;
    }
    run.work_for(i, rt, r, devs[i], plan.co).bind(w);
    const bool accelerator = !rt.devices()[devs[i]]->uses_host_memory();
    w.pipelined = plan.co == CoMode::Pipelined && accelerator;
    w.pipeline_when_compute_bound =
        !w.pipelined && accelerator &&
        pipelines_when_compute_bound(plan.facts, plan.co, plan.sched_name);
    w.pipeline_after_first =
        w.pipeline_when_compute_bound && rt.devices()[devs[i]]->copies_overlap();
  }
}

// Before each device's first chunk, on its controller: an accelerator's
// per-execution preparation (windows, pinning, broadcast uploads) while the
// others already compute; the CPU's team (every core when the scheduler
// leaves all accelerators out).  Nothing on a device the scheduler gives
// nothing (it is not woken).  And the CPU's hooks for the scheduler's
// decisions during the execution (retired, paused, lending ended).
void attach_device_hooks(Runtime &rt, const hce_region &r, const ExecutionPlan &plan,
                         ExecutionRun &run, PrefaultScope *prefaulting) {
  const std::vector<int> &devs = plan.devs;
  const std::vector<bool> &is_cpu = plan.site->plan.is_cpu;
  std::vector<ChunkWorker> &workers = run.workers;
  for (size_t i = 0; i < devs.size(); ++i) {
    const Device &dev = *rt.devices()[devs[i]];
    if (workers[i].idle)
      continue; // never runs in this execution
    if (is_cpu[i]) {
      bool alone = true;
      for (size_t j = 0; j < devs.size(); ++j)
        alone = alone && (j == i || workers[j].idle);
      const auto *cpu = static_cast<const CpuDevice *>(&dev);
      workers[i].prologue = [cpu, alone](const std::function<bool()> &) {
        cpu->use_team(alone);
      };
      // The process's first CPU prologue in a program's first run, its team
      // made as CUDA started: its first ask no earlier than the team's making
      // let it before, unless the accelerators have asked (runtime.cpp
      // start_gpus).  Taken alone too: the first use is gone either way.
      const double grace = take_first_ask_grace();
      if (!alone)
        workers[i].first_ask_wait = grace;
      // Retired while the accelerators still work (eft: its rows worth less
      // than what its team costs their copies): its cores are theirs.
      workers[i].retired = [cpu, prefaulting] {
        cpu->put_team_to_sleep();
        if (prefaulting)
          prefaulting->cpu_retired();
      };
      // Paused while a cold accelerator measures itself alone (eft): the
      // team asleep; not the prefaulter, whose faults of fresh output pages
      // beside the GPU's first download made that take 7-10 ms instead of
      // 1.1 (call GB).  The team's next fork, if any, wakes it.
      workers[i].paused = [cpu] { cpu->put_team_to_sleep(); };
      // The accelerators retired (eft: their rows worth less than the
      // threads lent their copies): the team whole again from its next chunk.
      workers[i].lending_ended = [cpu] {
        cpu->reserve_for_copies(0);
        cpu->use_team(/*alone=*/false);
      };
    } else if (!dev.uses_host_memory()) {
      bool others_work = false;
      for (size_t j = 0; j < devs.size(); ++j)
        others_work = others_work || (j != i && !workers[j].idle);
      // Its wave first (WaveAsk), before the preparation's copies, as when
      // the plan asked it: the occupancy calculator's first call loads the
      // kernel's module (warm mcpi, call JD: asked at the first chunk,
      // after the preparation, the GPU alone took ~4% longer).
      workers[i].prologue = [w = run.work[i].get(), prefaulting, others_work,
                             ask = &run.wave_ask,
                             slot = int(i)](const std::function<bool()> &wanted) {
        (*ask)(slot);
        w->prepare(wanted, others_work);
        if (prefaulting)
          prefaulting->prepared();
      };
      // Beside others that computed part of a data region's loop, the rest
      // of its arrays goes to the accelerator in the background: a later
      // execution may give it more.  (Alone, its chunks brought everything
      // it reads; without CO nothing stays.)
      if (others_work && plan.co != CoMode::None && plan.facts.in_data_region)
        workers[i].epilogue = [w = run.work[i].get()] { w->prefetch(); };
      // Beside others, each chunk's untouched output first (PrefaultScope);
      // alone, the whole job runs from its preparation on.
      if (prefaulting && others_work)
        workers[i].upload = [w = run.work[i].get(), prefaulting,
                             &r](Range range, int slot, std::string &why) {
          prefaulting->chunk_ahead(r, range);
          return w->upload(range, slot, why);
        };
    }
  }
}

// The CPU's team, created while an accelerator runs alone, its threads
// asleep after: the first CPU chunk of a later region only wakes them.
// Empty when there is none to create (team_to_create_beside).
std::function<void()> team_beside(Runtime &rt, const ExecutionPlan &plan,
                                  const std::vector<ChunkWorker> &workers) {
  const double expected = plan.site->scheduler->expected_wall();
  CpuDevice *cpu = team_to_create_beside(rt, workers, expected,
                                         expected > 0 ? plan.facts.mapped_bytes : 0);
  if (!cpu)
    return {};
  return [cpu] {
    if (!cpu->enter_caller())
      return; // inside the user's parallel region: not this thread's team
    const double start = now_seconds();
    cpu->create_team_asleep();
    cpu->leave_caller();
    if (trace_enabled())
      trace_event(cpu->name(), "team", "the CPU's team, created beside", start,
                  now_seconds());
  };
}

// The devices' chunk loop over the execution's iterations, inside the data
// layer's begin_region (end_region is the fold's).  False, with `why`, when
// the region cannot begin.
bool run_devices(Runtime &rt, const hce_region &r, const Settings &set,
                 const ExecutionPlan &plan, ExecutionRun &run, std::string &why) {
  SiteState &site = *plan.site;
  const std::vector<int> &devs = plan.devs;
  std::vector<HostRange> untouched;
  if (!rt.data().begin_region(r, why, &untouched))
    return false;
  CopyLending lending;
  begin_run(rt, r, set, plan, run, lending);
  std::vector<ChunkWorker> &workers = run.workers;
  run.lent_in_data_region =
      share_copy_threads(rt, devs, site.plan.is_cpu, workers, lending) > 0 &&
      lending.data_region;
  bool cpu_works = false;
  for (size_t i = 0; i < devs.size(); ++i)
    cpu_works = cpu_works || (site.plan.is_cpu[i] && !workers[i].idle);
  PrefaultScope prefault(
      rt.prefaulter(), untouched,
      untouched.empty() ? 0 : prefault_threads(rt, devs, site.plan.is_cpu, workers, set),
      cpu_works);
  attach_device_hooks(rt, r, plan, run, prefault.wanted() ? &prefault : nullptr);
  run_chunk_loop(rt, *site.scheduler, workers, site.plan.label,
                 team_beside(rt, plan, workers), r.iterations, run.loop);
  site.plan.params.wave_of = nullptr; // (its WaveAsk is this execution's)
  site.plan.params.register_bytes_of = nullptr; // (and its RegisterAsk)
  site.plan.params.host_fetch_bytes_of = nullptr;
  prefault.finish();
  return true;
}

// ---- fold

// After the chunk loop: the profile's record of the devices, the CPU's
// re-run of what no device completed, the data layer's end_region, the
// scheduler's wall and the profile's record of the mode.  Returns the
// iterations re-run (their reduction partials in `retry_red`), or -1 with
// `why`.
int64_t finish_run(Runtime &rt, const hce_region &r, const ExecutionPlan &plan,
                   ExecutionRun &run, tasks::DeviceClaim &claim, double t0, double once0,
                   std::vector<unsigned char> &retry_red, std::string &why) {
  SiteState &site = *plan.site;
  DataEnv &data = rt.data();
  if (!run.loop.fatal.empty()) {
    std::string ignored;
    data.end_region(r, ignored);
    why = run.loop.fatal;
    return -1;
  }
  std::vector<TransferCounts> &bytes = run.bytes;
  bytes.clear();
  for (const auto &w : run.work)
    bytes.push_back(w ? w->bytes() : TransferCounts{});
  // Profile store (HCE_PROFILE): what each device did in this execution.
  // (Which execution at this site: the first carries one-time costs.)
  const int64_t nth = site.stats.executions;
  profile::record_execution(r, rt, run.workers, bytes, run.loop.failures, nth);
  retry_red = reduction_slots(r);
  std::string retry_error;
  const int64_t retried =
      rerun_missing_on_cpu(rt, r, plan.co, run.loop, claim, retry_red, retry_error);
  if (!retry_error.empty()) {
    why = retry_error;
    return -1;
  }
  if (plan.facts.in_data_region) {
    bool host_worked = retried > 0;
    for (size_t i = 0; i < run.workers.size() && !host_worked; ++i)
      host_worked = site.plan.is_cpu[i] && run.workers[i].iterations > 0;
    if (host_worked)
      data.note_host_wrote(r); // (eft's host_probe_deferred, RegisterAsk)
  }
  if (!data.end_region(r, why))
    return -1;
  const double wall = now_seconds() - t0;
  if (run.lent_in_data_region)
    site.lent_wall += wall; // (lends_in_data_region)
  // The mode's cost is the whole execution's: the data placed before the
  // loop and put back after it are part of what a mode costs.
  site.scheduler->ended(wall, one_time_seconds(rt) - once0);
  profile::record_mode(*site.scheduler, r, rt, plan.devs, run.loop.failures, nth, wall);
  return retried;
}

// Reductions: the user's value OP every device's partial result (and the
// CPU's re-run's); array reductions (reduction(+: hist[0:K])) element by
// element.  Then the statistics and the trace's record of the choice.
void fold_results(Runtime &rt, const hce_region &r, const ExecutionPlan &plan,
                  ExecutionRun &run, const std::vector<unsigned char> &retry_red,
                  int64_t retried, double called, double t0) {
  SiteState &site = *plan.site;
  std::vector<const void *> &blocks = run.partials;
  blocks.clear();
  for (const auto &w : run.work)
    if (w) // (an idle device's partials would be the identity)
      blocks.push_back(w->partials().data());
  blocks.push_back(retry_red.data());
  reduction_fold_into_vars(r, blocks);
  const double now = now_seconds();
  fold_stats(rt, site, r, plan, run.workers, run.work, retried, now - called);
  // One event per execution on the "region" track: the scheduler's choice,
  // so that a trace shows why each execution ran where it did.
  if (trace_enabled()) {
    trace_event("region", "plan", site.plan.label + ": plan", called, t0);
    trace_event_later(
        "region", "choice",
        [label = site.plan.label,
         why = site.scheduler ? site.scheduler->explain_later() : nullptr] {
          return label + ": " + (why ? why() : std::string());
        },
        t0, now);
  }
}

} // namespace

// Plan (devices, scheduler, parameters), run (one RegionDeviceWork per
// device under the chunk loop, then the CPU re-runs what failed), fold
// (reductions into the user's variables, statistics, the profile).
int execute_region(const hce_region &r, std::string &why) {
  auto fail = [&](const std::string &what) {
    why = "region " + region_name(r) + ": " + what;
    return 1;
  };
  if (!validate(r, why))
    return fail(why);
  Runtime &rt = Runtime::get();
  if (!rt.init_error().empty()) {
    // The process's error, not the region's: it comes first.
    why = rt.init_error() + "; region " + region_name(r) + " does not run";
    return 1;
  }
  // The statistics' wall (HCE_STATS, what bench/suite.py sums) is the
  // call's from here, planning included: a new call site's plan asks the
  // GPU's occupancy calculator, which waits for any cudaHostRegister under
  // way.  Not the process's start (the first call makes the runtime: CUDA's
  // context, ~0.2 s, call RC), which no configuration's region pays.
  const double called = now_seconds();
  const Settings &set = rt.settings();

  ExecutionPlan plan;
  if (!select_devices_and_site(rt, r, plan, why))
    return fail(why);
  tasks::DeviceClaim claim(plan.devs, plan.site);
  plan.facts = region_facts(rt, r);
  if (!plan_schedule(rt, r, set, plan, why))
    return fail(why);

  const double t0 = now_seconds(), once0 = one_time_seconds(rt);
  if (!plan.site->run_storage)
    plan.site->run_storage.reset(new ExecutionRun);
  ExecutionRun &run = *plan.site->run_storage;
  run.reset(plan.devs.size());
  if (!run_devices(rt, r, set, plan, run, why))
    return fail(why);
  std::vector<unsigned char> retry_red;
  const int64_t retried = finish_run(rt, r, plan, run, claim, t0, once0, retry_red, why);
  if (retried < 0)
    return fail(why);
  fold_results(rt, r, plan, run, retry_red, retried, called, t0);
  return 0;
}

} // namespace hce
