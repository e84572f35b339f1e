#include "tasks/task_runtime.hpp"

#include "clock.hpp"
#include "device_selection.hpp"
#include "iteration_count.hpp"
#include "log.hpp"
#include "profile/profile_hook.hpp"
#include "reduction.hpp"
#include "region_exec.hpp"
#include "runtime.hpp"
#include "sim_device.hpp"
#include "tasks/dispatcher.hpp"
#include "tasks/perf_model.hpp"
#include "text_list.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace hce::tasks {
namespace {

bool reads(int kind) {
  int k = kind & 3;
  return k == HCE_MAP_TO || k == HCE_MAP_TOFROM;
}

// A byte range of host memory a task touches.
struct Access {
  uintptr_t lo, hi;
  bool write;
  bool data; // from a map (carries bytes), not a depend item
};

// The task's own copy of everything the region descriptor points to: the
// generated code builds the descriptor on its stack.
struct RegionCopy {
  hce_region r{};
  std::string name, schedule, devices, co, ratios;
  bool has_schedule = false, has_co = false, has_ratios = false;
  std::vector<std::string> map_names, red_names;
  std::vector<hce_map> maps;
  std::vector<hce_reduction> reds;      // var -> cells
  std::vector<hce_reduction> user_reds; // var -> the user's variables
  std::vector<uint64_t> cells;          // one 8-byte slot per reduction
  std::vector<std::max_align_t> args;
  void *site_slot = nullptr;
};

enum class State { Waiting, Ready, Placed, Running, Done };

struct Task {
  int id = 0;
  RegionCopy copy;
  std::string key; // the source region (name), for the cost model
  const void *site = nullptr;
  std::vector<Access> acc;
  int unfinished_preds = 0;
  State state = State::Waiting;
  bool failed = false;
  std::vector<int> lanes; // runtime device indices
  TaskRecord rec;
};

class TaskSystem {
public:
  TaskSystem();
  ~TaskSystem();
  int submit(const hce_region &r, int num_deps, const hce_depend *deps, std::string &why);
  int wait(std::string &why);
  bool pending() {
    std::lock_guard<std::mutex> lock(mu_);
    return !tasks_.empty();
  }
  std::vector<TaskRecord> last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }
  const std::string &mapper_name() const { return mapper_name_; }

private:
  void lane_loop(int lane);
  void run(Task &t);
  void finish(Task &t, bool ok, double now); // under mu_
  void ready(Task &t);                       // under mu_
  void report_left_out();                    // under mu_
  void pump(double now);                     // under mu_
  void fill_costs(Task &t);                  // under mu_
  std::vector<int> candidates(const hce_region &r);

  Runtime &rt_;
  std::unique_ptr<Mapper> mapper_;
  std::string mapper_name_;
  int thr_ = 0;
  bool log_ = false;
  MapGraph graph_;
  std::unique_ptr<Dispatcher> disp_;
  PerfModel model_;
  std::vector<int> lane_device_; // MapGraph device index -> runtime device
  std::vector<int> graph_index_; // runtime device -> MapGraph index (-1)

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int next_id_ = 0;
  std::map<int, std::unique_ptr<Task>> tasks_; // since the last taskwait
  std::vector<std::deque<int>> queues_;        // per runtime device
  std::vector<std::thread> lanes_;
  std::map<std::string, std::unique_ptr<void *>> slots_;
  std::vector<TaskRecord> last_;
  double t0_ = 0;
};

TaskSystem::TaskSystem() : rt_(Runtime::get()) {
  // HCE_TASK_*: the runtime's settings (a bad value is its init error,
  // which stops every task before it gets here).
  const Settings &set = rt_.settings();
  mapper_name_ = set.task_map;
  mapper_ = make_mapper(mapper_name_);
  if (set.task_partition && *set.task_partition == 0)
    mapper_->partition.enabled = false;
  else if (set.task_partition)
    mapper_->partition.min_seconds = *set.task_partition;
  log_ = set.task_log;

  const auto &devs = rt_.devices();
  graph_index_.assign(devs.size(), -1);
  for (int d = 0; d < int(devs.size()); ++d) {
    if (d == 0 && !rt_.cpu_selected())
      continue;
    MapDevice md;
    md.name = devs[d]->name();
    md.host_memory = devs[d]->uses_host_memory();
    model_.set_profile_key(md.name, profile::device_key(*devs[d]));
    if (auto *sim = dynamic_cast<const SimDevice *>(devs[d].get())) {
      md.bandwidth = sim->params().bandwidth;
      md.latency = sim->params().latency;
      model_.set_speed_hint(md.name, sim->params().speed);
      if (sim->params().iter_time > 0)
        model_.set_iteration_time(md.name, sim->params().iter_time);
    }
    graph_index_[size_t(d)] = int(graph_.devices.size());
    graph_.devices.push_back(md);
    lane_device_.push_back(d);
  }
  // HCE_TASK_SPEED="cpu=1,cuda=8": relative speeds before anything is
  // measured.
  for (const auto &[name, speed] : set.task_speed)
    model_.set_speed_hint(name, speed);
  thr_ = mapper_->threshold(graph_.num_devices());
  if (set.task_threshold) // HCE_TASK_THRESHOLD
    thr_ = int(*set.task_threshold);
  disp_ = std::make_unique<Dispatcher>(graph_, *mapper_, thr_);
  queues_.resize(devs.size());
  t0_ = now_seconds();
  for (int d : lane_device_)
    lanes_.emplace_back([this, d] { lane_loop(d); });
}

TaskSystem::~TaskSystem() {
  std::string ignored;
  wait(ignored);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto &t : lanes_)
    t.join();
}

// The devices allowed for the region: the selected ones, minus what its
// devices(...) clause leaves out and those without a variant for it.
std::vector<int> TaskSystem::candidates(const hce_region &r) {
  std::vector<int> out;
  std::vector<DeviceSpec> specs;
  if (r.devices && *r.devices) {
    std::string why;
    if (auto s = parse_device_list(r.devices, why))
      specs = *s;
  }
  for (int d : lane_device_) {
    const Device &dev = *rt_.devices()[size_t(d)];
    bool allowed = specs.empty();
    for (const DeviceSpec &s : specs)
      allowed = allowed || spec_matches(s, kind_name(dev.kind()), dev.ordinal());
    if (allowed && dev.can_run(r))
      out.push_back(d);
  }
  return out;
}

int64_t extent_lo(const hce_map &m, int64_t w) {
  int64_t a = m.offset, b = m.scale * (w - 1) + m.offset;
  int64_t lo = std::min(a, b);
  if (m.blocks > 1 && m.stride < 0)
    lo += (m.blocks - 1) * m.stride;
  return lo;
}

int64_t extent_hi(const hce_map &m, int64_t w) {
  int64_t a = m.offset, b = m.scale * (w - 1) + m.offset;
  int64_t hi = std::max(a, b) + m.len;
  if (m.blocks > 1 && m.stride > 0)
    hi += (m.blocks - 1) * m.stride;
  return hi;
}

int TaskSystem::submit(const hce_region &src, int num_deps, const hce_depend *deps,
                       std::string &why) {
  auto task = std::make_unique<Task>();
  Task &t = *task;
  RegionCopy &c = t.copy;
  c.r = src;
  c.name = src.name && *src.name ? src.name : "<unnamed region>";
  t.key = c.name;
  t.site = src.site ? static_cast<const void *>(src.site)
                    : static_cast<const void *>(src.name);
  if ((c.has_schedule = src.schedule != nullptr))
    c.schedule = src.schedule;
  if ((c.has_co = src.co != nullptr))
    c.co = src.co;
  if ((c.has_ratios = src.ratios != nullptr))
    c.ratios = src.ratios;
  c.maps.assign(src.maps, src.maps + src.num_maps);
  for (const hce_map &m : c.maps)
    c.map_names.push_back(m.name ? m.name : "?");
  for (size_t m = 0; m < c.maps.size(); ++m)
    c.maps[m].name = c.map_names[m].c_str();
  c.user_reds.assign(src.reductions, src.reductions + src.num_reductions);
  c.reds = c.user_reds;
  c.cells.assign(c.reds.size(), 0);
  for (size_t k = 0; k < c.reds.size(); ++k) {
    if (!reduction_valid(c.reds[k], why))
      return 1;
    c.red_names.push_back(c.reds[k].name ? c.reds[k].name : "?");
  }
  for (size_t k = 0; k < c.reds.size(); ++k) {
    c.reds[k].name = c.red_names[k].c_str();
    c.reds[k].var = &c.cells[k]; // the identity now, partials at the end
    reduction_identity(c.reds[k], &c.cells[k]);
  }
  if (src.args_size > 0 && src.args) {
    c.args.resize((src.args_size + sizeof(std::max_align_t) - 1) /
                  sizeof(std::max_align_t));
    std::memcpy(c.args.data(), src.args, src.args_size);
  }
  c.r.maps = c.maps.data();
  c.r.reductions = c.reds.data();
  c.r.args = c.args.empty() ? nullptr : c.args.data();

  // What the task touches.
  const int64_t w = src.iterations;
  double data_bytes = 0;
  for (const hce_map &m : c.maps) {
    if (!m.host || w <= 0 || m.len <= 0)
      continue;
    uintptr_t base = reinterpret_cast<uintptr_t>(m.host);
    uintptr_t lo = base + uintptr_t(extent_lo(m, w)) * m.elem_size;
    uintptr_t hi = base + uintptr_t(extent_hi(m, w)) * m.elem_size;
    const int k = m.kind & 3;
    if (reads(m.kind))
      t.acc.push_back({lo, hi, false, true});
    if (k != HCE_MAP_TO) // from, tofrom, alloc: written
      t.acc.push_back({lo, hi, true, true});
    data_bytes += double(hi - lo);
  }
  for (int i = 0; i < num_deps; ++i) {
    if (deps[i].kind < HCE_DEP_IN || deps[i].kind > HCE_DEP_INOUT) {
      why = "region " + c.name + ": depend item " + std::to_string(i) +
            " has an unknown kind " + std::to_string(deps[i].kind);
      return 1;
    }
    uintptr_t a = reinterpret_cast<uintptr_t>(deps[i].addr);
    t.acc.push_back({a, a + 1, deps[i].kind != HCE_DEP_IN, false});
  }

  std::unique_lock<std::mutex> lock(mu_);
  t.id = next_id_++;
  t.rec.id = t.id;
  t.rec.name = c.name;
  t.rec.submitted = now_seconds() - t0_;
  std::vector<double> cost(graph_.devices.size(), kCannotRun);
  MapTask &mt = graph_.add_task(t.id, c.name, cost);
  mt.data_bytes = data_bytes;
  // Dependences on the unfinished tasks before it.
  for (auto &[id, u] : tasks_) {
    if (u->state == State::Done)
      continue;
    bool conflict = false;
    double bytes = 0;
    for (const Access &a : t.acc)
      for (const Access &b : u->acc) {
        if (a.lo >= b.hi || b.lo >= a.hi || (!a.write && !b.write))
          continue;
        conflict = true;
        if (b.write && !a.write && a.data && b.data) // u produces what t reads
          bytes += double(std::min(a.hi, b.hi) - std::max(a.lo, b.lo));
      }
    if (!conflict)
      continue;
    graph_.add_edge(id, t.id, bytes);
    t.rec.preds.push_back(id);
    ++t.unfinished_preds;
  }
  Task &ref = t;
  tasks_.emplace(t.id, std::move(task));
  if (ref.unfinished_preds == 0)
    ready(ref);
  pump(now_seconds() - t0_);
  return 0;
}

// Costs as known now (the model learns as tasks finish).
void TaskSystem::fill_costs(Task &t) {
  MapTask &mt = graph_.tasks.at(t.id);
  std::vector<int> ok = candidates(t.copy.r);
  for (size_t q = 0; q < graph_.devices.size(); ++q) {
    bool allowed = std::find(ok.begin(), ok.end(), lane_device_[q]) != ok.end();
    mt.cost[q] = allowed ? model_.predict(t.key, graph_.devices[q].name,
                                          double(t.copy.r.iterations))
                         : kCannotRun;
  }
}

// The devices the mapper placed no task of this graph on, though some task
// could have run there (a finite cost): the seed's EFT placement found them
// slower -- a scheduling decision, like a device eft leaves out of a loop.
// HCE_STATS records it in the pseudo-region "task graph" (left_out), so the
// did-work check (bench/stats_check.py) tells it from a device that failed
// or was never found (issue 15: on the H100, examples/taskgraph.c on
// cpu,cuda:0,omp:0 had every task placed on the GPUs).
void TaskSystem::report_left_out() {
  std::vector<std::string> left;
  for (size_t q = 0; q < lane_device_.size(); ++q) {
    const int dev = lane_device_[q];
    bool used = false, could = false;
    for (const auto &[id, t] : tasks_) {
      used = used || std::find(t->lanes.begin(), t->lanes.end(), dev) != t->lanes.end();
      const MapTask &mt = graph_.tasks.at(id);
      could = could || (q < mt.cost.size() && mt.cost[q] < kCannotRun);
    }
    if (could && !used)
      left.push_back(rt_.devices()[size_t(dev)]->name());
  }
  if (left.empty())
    return;
  std::lock_guard<std::mutex> exec_lock(rt_.exec_mutex());
  hce_region pseudo{};
  pseudo.name = "task graph";
  RegionStats &st = rt_.site(pseudo).stats;
  st.schedule = "task map " + mapper_name_;
  st.choice = "no task placed on";
  for (const std::string &name : left) {
    st.choice += " " + name;
    st.device(name).left_out += 1;
  }
  st.executions += 1;
}

void TaskSystem::ready(Task &t) {
  fill_costs(t);
  t.state = State::Ready;
  disp_->push_ready(t.id);
}

void TaskSystem::pump(double now) {
  bool any = false;
  for (Placement &p : disp_->dispatch(now)) {
    Task &t = *tasks_.at(p.task);
    t.state = State::Placed;
    t.rec.partitioned = p.partitioned;
    t.rec.est_finish = p.est_finish;
    t.lanes.clear();
    for (int q : p.devices)
      t.lanes.push_back(lane_device_[size_t(q)]);
    for (int d : t.lanes)
      queues_[size_t(d)].push_back(t.id);
    any = true;
  }
  if (any)
    cv_.notify_all();
}

void TaskSystem::lane_loop(int d) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queues_[size_t(d)].empty(); });
    if (queues_[size_t(d)].empty()) {
      if (stop_)
        return;
      continue;
    }
    Task &t = *tasks_.at(queues_[size_t(d)].front());
    const bool leader = t.lanes.front() == d; // lanes are sorted
    if (!leader) {
      // Another lane runs it; this one is held until it is done.
      cv_.wait(lock, [&] { return t.state == State::Done; });
      queues_[size_t(d)].pop_front();
      cv_.notify_all();
      continue;
    }
    // A co-executed task starts when every lane of it has reached it.
    cv_.wait(lock, [&] {
      for (int o : t.lanes)
        if (queues_[size_t(o)].empty() || queues_[size_t(o)].front() != t.id)
          return false;
      return true;
    });
    t.state = State::Running;
    t.rec.start = now_seconds() - t0_;
    disp_->on_start(t.id, t.rec.start);
    lock.unlock();
    run(t);
    lock.lock();
    queues_[size_t(d)].pop_front();
    cv_.notify_all();
  }
}

void TaskSystem::run(Task &t) {
  RegionCopy &c = t.copy;
  // Restricted to the task's devices, with a site slot per device set so
  // that each keeps its own scheduler history and statistics.
  std::string set;
  for (int d : t.lanes)
    set += (set.empty() ? "" : ",") + rt_.devices()[size_t(d)]->name();
  c.devices = set;
  c.r.devices = c.devices.c_str();
  c.r.schedule = c.has_schedule ? c.schedule.c_str() : nullptr;
  c.r.co = c.has_co ? c.co.c_str() : nullptr;
  c.r.ratios = c.has_ratios ? c.ratios.c_str() : nullptr;
  std::string shown = c.name + " @" + set;
  c.r.name = shown.c_str();
  {
    std::lock_guard<std::mutex> lock(mu_);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", t.site);
    auto &slot = slots_[std::string(buf) + "@" + set];
    if (!slot)
      slot = std::make_unique<void *>(nullptr);
    c.r.site = slot.get();
  }
  std::string why;
  const double t_start = now_seconds();
  const bool ok = execute_region(c.r, why) == 0;
  const double t_end = now_seconds();
  c.r.name = c.name.c_str();
  if (!ok)
    error(why);
  std::lock_guard<std::mutex> lock(mu_);
  if (ok && t.lanes.size() == 1)
    model_.record(t.key, rt_.devices()[size_t(t.lanes[0])]->name(),
                  double(c.r.iterations), t_end - t_start);
  t.rec.ran = true;
  finish(t, ok, t_end - t0_);
}

void TaskSystem::finish(Task &t, bool ok, double now) {
  t.state = State::Done;
  t.failed = !ok;
  t.rec.ok = ok;
  t.rec.finish = now;
  for (int d : t.lanes)
    t.rec.devices.push_back(rt_.devices()[size_t(d)]->name());
  if (t.rec.ran)
    disp_->on_finish(t.id, now);
  if (log_)
    notice("task " + std::to_string(t.id) + " " + t.rec.name + " on " +
           (t.lanes.empty() ? std::string("-") : t.copy.devices) +
           (t.rec.partitioned ? " (partitioned)" : "") + ": " +
           std::to_string(t.rec.start) + " .. " + std::to_string(t.rec.finish) + " s" +
           (ok          ? ""
            : t.rec.ran ? " FAILED"
                        : " not run"));
  for (int s : graph_.tasks.at(t.id).succs) {
    Task &u = *tasks_.at(s);
    if (!ok) {
      // A failed producer: its consumers do not run.
      if (u.state == State::Waiting) {
        u.unfinished_preds = 0;
        finish(u, false, now);
      }
      continue;
    }
    if (u.state == State::Waiting && --u.unfinished_preds == 0)
      ready(u);
  }
  pump(now);
  cv_.notify_all();
}

int TaskSystem::wait(std::string &why) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] {
    for (auto &[id, t] : tasks_)
      if (t->state != State::Done)
        return false;
    return true;
  });
  // Every lane has let go of the tasks (a non-leader lane pops after Done).
  cv_.wait(lock, [&] {
    for (auto &q : queues_)
      if (!q.empty())
        return false;
    return true;
  });
  report_left_out();
  int failed = 0;
  last_.clear();
  for (auto &[id, t] : tasks_) {
    last_.push_back(t->rec);
    if (t->failed) {
      ++failed;
      continue;
    }
    // Reductions: the user's value OP the task's result, in submission order.
    static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    for (size_t k = 0; k < t->copy.user_reds.size(); ++k) {
      const hce_reduction &red = t->copy.user_reds[k];
      unsigned char acc[HCE_RED_SLOT_BYTES] = {};
      std::memcpy(acc, red.var, sizes[red.type]);
      reduction_combine(red, acc, &t->copy.cells[k]);
      std::memcpy(red.var, acc, sizes[red.type]);
    }
  }
  tasks_.clear();
  graph_.tasks.clear();
  disp_ = std::make_unique<Dispatcher>(graph_, *mapper_, thr_);
  if (failed) {
    why = std::to_string(failed) + " task" + (failed == 1 ? "" : "s") +
          " of the task graph failed or did not run";
    return 1;
  }
  return 0;
}

std::mutex system_mutex;
TaskSystem *the_system = nullptr;

TaskSystem &system() {
  std::lock_guard<std::mutex> lock(system_mutex);
  if (!the_system) {
    Runtime::get(); // first, so that its exit handler runs after ours
    the_system = new TaskSystem();
    static bool registered = false;
    if (!registered) {
      registered = true;
      std::atexit([] { shutdown(); });
    }
  }
  return *the_system;
}

} // namespace

int submit(const hce_region &region, int num_deps, const hce_depend *deps,
           std::string &why) {
  if (num_deps < 0 || (num_deps > 0 && !deps)) {
    why = "malformed dependence list";
    return 1;
  }
  if (std::string err = iteration_count_error(region.iterations); !err.empty()) {
    why = "region " + std::string(region.name ? region.name : "?") + ": " + err;
    return 1;
  }
  if (!region.cpu || region.num_maps < 0 || (region.num_maps > 0 && !region.maps) ||
      region.num_reductions < 0 || (region.num_reductions > 0 && !region.reductions)) {
    why = "region " + std::string(region.name ? region.name : "?") +
          ": malformed region descriptor";
    return 1;
  }
  if (!Runtime::get().init_error().empty()) {
    why = Runtime::get().init_error();
    return 1;
  }
  return system().submit(region, num_deps, deps, why);
}

int taskwait(std::string &why) {
  {
    std::lock_guard<std::mutex> lock(system_mutex);
    if (!the_system)
      return 0;
  }
  return system().wait(why);
}

bool pending() {
  std::lock_guard<std::mutex> lock(system_mutex);
  return the_system && the_system->pending();
}

void shutdown() {
  TaskSystem *s = nullptr;
  {
    std::lock_guard<std::mutex> lock(system_mutex);
    std::swap(s, the_system);
  }
  delete s; // waits for the tasks, joins the lanes
}

std::vector<TaskRecord> last_graph() {
  std::lock_guard<std::mutex> lock(system_mutex);
  return the_system ? the_system->last() : std::vector<TaskRecord>{};
}

std::string mapper_name() { return system().mapper_name(); }

} // namespace hce::tasks
