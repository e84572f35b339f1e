#include "tasks/dispatcher.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hce::tasks {

std::unique_ptr<Mapper> make_ratio_mapper();
std::unique_ptr<Mapper> make_rank_mapper();
std::unique_ptr<Mapper> make_heft_mapper();

std::unique_ptr<Mapper> make_mapper(const std::string &name) {
  if (name == "ratio")
    return make_ratio_mapper();
  if (name == "rank")
    return make_rank_mapper();
  if (name == "heft")
    return make_heft_mapper();
  return nullptr;
}

std::vector<std::string> mapper_names() { return {"ratio", "rank", "heft"}; }

Dispatcher::Dispatcher(const MapGraph &graph, const Mapper &mapper, int threshold)
    : g_(graph), mapper_(mapper), thr_(std::max(1, threshold)) {}

// Alg. 1 lines 3-8: "for t_i in ReadyQueue decreased by H_i do
//   if H(task) < H(t_i) then continue; InsertBefore(task, t_i)":
// the new task goes before the first queued task of lower or equal
// priority.
void Dispatcher::push_ready(int task) {
  const double p = mapper_.priority(g_, task);
  size_t at = 0;
  while (at < ready_.size() && p < ready_prio_[at])
    ++at;
  ready_.insert(ready_.begin() + long(at), task);
  ready_prio_.insert(ready_prio_.begin() + long(at), p);
}

MapState Dispatcher::state(double now) const {
  MapState s;
  s.now = now;
  s.avail.assign(size_t(g_.num_devices()), now);
  // T_Avail(M_q): "we can know the number and type of the remaining
  // fine-grained tasks in the device queue ... we can infer T_Avail(M_q)".
  for (const Placed &p : placed_) {
    double begin = 0;
    for (int q : p.devices)
      begin = std::max(begin, s.avail[size_t(q)]);
    double end =
        p.started >= 0 ? std::max(now, p.started + p.duration) : begin + p.duration;
    for (int q : p.devices)
      s.avail[size_t(q)] = std::max(s.avail[size_t(q)], end);
  }
  s.placed_on = placed_on_;
  s.finish = finish_;
  return s;
}

std::vector<Placement> Dispatcher::dispatch(double now) {
  std::vector<Placement> out;
  // Lines 9-11: only while the device queues are short.
  while (!ready_.empty() && in_device_queues() < thr_) {
    const int task = ready_.front(); // line 16: PopFront(ReadyQueue)
    ready_.erase(ready_.begin());
    ready_prio_.erase(ready_prio_.begin());
    Placement p = mapper_.place(g_, task, state(now));
    const MapTask &t = g_.tasks.at(task);
    double duration = p.devices.size() > 1 ? partitioned_cost(t, p.devices)
                                           : t.cost[size_t(p.devices[0])];
    if (!std::isfinite(duration))
      duration = 0;
    placed_.push_back({task, p.devices, duration, -1});
    placed_on_[task] = p.devices;
    finish_[task] = p.est_finish;
    out.push_back(std::move(p));
  }
  return out;
}

void Dispatcher::on_start(int task, double now) {
  for (Placed &p : placed_)
    if (p.task == task)
      p.started = now;
}

void Dispatcher::on_finish(int task, double now) {
  placed_.erase(std::remove_if(placed_.begin(), placed_.end(),
                               [&](const Placed &p) { return p.task == task; }),
                placed_.end());
  finish_[task] = now;
}

const SimTask *SimResult::find(int id) const {
  for (const SimTask &t : order)
    if (t.id == id)
      return &t;
  return nullptr;
}

SimResult simulate(const MapGraph &graph, const Mapper &mapper, int threshold) {
  Dispatcher d(graph, mapper, threshold);
  const int m = graph.num_devices();
  std::vector<std::deque<Placement>> queues;
  queues.resize(size_t(m));
  std::vector<double> free_at(size_t(m), 0);
  std::map<int, int> waiting; // unfinished predecessors
  for (const auto &[id, t] : graph.tasks) {
    waiting[id] = int(t.preds.size());
    if (t.preds.empty())
      d.push_ready(id);
  }
  struct Running {
    int id;
    double finish;
    std::vector<int> devices;
  };
  std::vector<Running> running;
  SimResult r;
  double now = 0;
  for (;;) {
    for (Placement &p : d.dispatch(now))
      for (int q : p.devices)
        queues[size_t(q)].push_back(p);
    // Start every task at the head of all its devices' queues whose devices
    // are free.
    bool started = true;
    while (started) {
      started = false;
      for (int q = 0; q < m; ++q) {
        if (queues[size_t(q)].empty() || free_at[size_t(q)] > now)
          continue;
        const Placement p = queues[size_t(q)].front();
        bool all = true;
        for (int o : p.devices)
          all = all && !queues[size_t(o)].empty() &&
                queues[size_t(o)].front().task == p.task && free_at[size_t(o)] <= now;
        if (!all)
          continue;
        const MapTask &t = graph.tasks.at(p.task);
        double dur = p.devices.size() > 1 ? partitioned_cost(t, p.devices)
                                          : t.cost[size_t(p.devices[0])];
        if (!std::isfinite(dur))
          dur = 0;
        for (int o : p.devices) {
          queues[size_t(o)].pop_front();
          free_at[size_t(o)] = std::numeric_limits<double>::infinity();
        }
        d.on_start(p.task, now);
        running.push_back({p.task, now + dur, p.devices});
        r.order.push_back({p.task, p.devices, now, now + dur, p.partitioned});
        started = true;
      }
    }
    if (running.empty())
      break;
    // Next completion.
    auto next = std::min_element(
        running.begin(), running.end(), [](const Running &a, const Running &b) {
          return a.finish < b.finish || (a.finish == b.finish && a.id < b.id);
        });
    Running done = *next;
    running.erase(next);
    now = done.finish;
    for (int q : done.devices)
      free_at[size_t(q)] = now;
    d.on_finish(done.id, now);
    for (SimTask &st : r.order)
      if (st.id == done.id)
        st.finish = now;
    r.makespan = std::max(r.makespan, now);
    for (int s : graph.tasks.at(done.id).succs)
      if (--waiting[s] == 0)
        d.push_ready(s);
  }
  return r;
}

} // namespace hce::tasks
