// Where each array's rows are valid during one simulated program run (the
// sim's picture of runtime/src/data_env.cpp, with two holders: the host and
// the GPU), and so what a chunk must move.
//
//  * A chunk reads the rows its maps name; the rows not valid on its device
//    move there: uploads for the GPU, downloads (on the CPU's controller,
//    inside the CPU's chunk) for rows only the GPU holds.
//  * A chunk's writes make its rows valid only on its device.  Inside a
//    data region (Array::resident) GPU results stay on the GPU until
//    someone reads them; outside, they come home when the chunk is
//    released and the GPU's copy is dropped at the end of the execution
//    (arrays mapped only by the region).
//  * `from` maps are taken over without an upload (every element written,
//    HCE_MAP_WRITES_ALL); whole-array (broadcast) maps are uploaded by the
//    GPU's preparation.
// So a device that keeps its block does not upload it again, and a moved
// partition moves its rows and its halos.
//
// Pageable host rows (arrays outside a data region) are page-locked before
// the GPU first copies them in an execution and stay so until the
// execution ends (cuda_device.cpp, HCE_CUDA_PIN=region: registered per copy,
// dropped when no CUDA device holds memory, at the end of each region
// outside data regions): a copy whose rows are not all registered yet
// counts one registration and the unregistered bytes (Moves::registers,
// reg_bytes), which cost only where the link has `reg` (Link::reg_lat).
//
// Without the communication optimisation (HCE_CO=off, CoMode::None; the
// suite's "fdets no-CO"), as data_env.cpp's release() does: every GPU
// chunk's writes come home at its release, in or out of a data region, and
// then the GPU keeps nothing of the region's maps (res.release(holder) for
// each), so the next GPU chunk uploads its whole footprint again,
// broadcasts included (acquire; the preparation's upload serves only the
// chunk after it).  The CPU's chunks then never download.
#pragma once

#include "data/interval_set.hpp"
#include "sched/scheduler.hpp"
#include "sim_profile.hpp"

#include <vector>

namespace hce::sim {

// Bytes and copies one step moves.
struct Moves {
  double up_bytes = 0, down_bytes = 0; // host -> GPU, GPU -> host
  int up_copies = 0, down_copies = 0;
  // Of those, the GPU's copies of pageable memory (arrays outside a data
  // region), which host contention slows (Contention).
  double up_paged = 0, down_paged = 0;
  // Copies that first page-locked pageable rows in this execution, and
  // those rows' bytes (Link::reg_lat, reg_bw).
  int registers = 0;
  double reg_bytes = 0;
  // Of up_bytes / down_bytes, the copies of a data region's arrays that a
  // preparation beside the CPU's team has page-locked (Residency::pin), at
  // the link's `pinned` bandwidth where it has one (unscaled: measured on
  // the machine).
  double up_pinned = 0, down_pinned = 0;
  // Of up_bytes, a data region's rows the GPU never held before (the
  // runtime's TransferCounts::first_to_device): eft's models leave their
  // share of the upload out (Scheduler::steady_chunk_costs).
  double first_up = 0;
  // Of up_bytes (a GPU's) or down_bytes (a host's fetches), a data region's
  // rows, first or again: the runtime's TransferCounts::resident_to_device,
  // all placement while the scheduler says so (Scheduler::placing_data).
  double resident = 0;
  double seconds(const Link &l, double scale) const {
    const double upp = l.pin_up_bw > 0 ? up_pinned : 0;
    const double downp = l.pin_down_bw > 0 ? down_pinned : 0;
    double t = 0;
    if (up_copies)
      t += l.latency(up_copies, l.up_lat) + (up_bytes - upp) / l.up_bw;
    if (down_copies)
      t += l.latency(down_copies, l.down_lat) + (down_bytes - downp) / l.down_bw;
    if (registers && l.reg_bw > 0)
      t += registers * l.reg_lat + reg_bytes / l.reg_bw;
    t *= scale;
    if (upp > 0)
      t += upp / l.pin_up_bw;
    if (downp > 0)
      t += downp / l.pin_down_bw;
    return t;
  }
  // The pageable bytes at their own bandwidths (unscaled: the co-executed
  // GPU's copy path as measured on the machine), the rest as seconds().
  double seconds(const Link &l, double scale, double up_paged_bw,
                 double down_paged_bw) const {
    double t = seconds(l, scale);
    if (up_paged > 0)
      t += up_paged / up_paged_bw - up_paged / l.up_bw * scale;
    if (down_paged > 0)
      t += down_paged / down_paged_bw - down_paged / l.down_bw * scale;
    return t;
  }
  double paged() const { return up_paged + down_paged; }
  double bytes() const { return up_bytes + down_bytes; }
};

class Residency {
public:
  // co: false for HCE_CO=off (above).
  explicit Residency(const Bench &b, bool co = true);

  // Before a chunk of execution `e` of `r` on the GPU (gpu) or the CPU.
  Moves acquire(const Region &r, int e, Range range, bool gpu);
  // After it: its writes (and, outside data regions, the GPU's results
  // brought home).
  Moves release(const Region &r, int e, Range range, bool gpu);
  // The GPU's preparation: the broadcast maps it lacks.
  Moves prepare(const Region &r, int e);
  // The GPU's preparation in an execution where the CPU's team works: it
  // page-locks the region's data-region arrays whole (cuda_device.cpp
  // prepare_host; no staging threads beside a working team), and they stay
  // so for the rest of the run (Moves::up_pinned).  Returns the bytes of
  // the arrays it pinned now (those not pinned before: Link::pin_reg_bw).
  double pin(const Region &r, int e);
  // The bytes pin() would page-lock now (DataEnv::would_pin): the
  // region's data-region arrays not pinned whole yet.
  double unpinned(const Region &r, int e);
  // The bytes of the spans the GPU's preparation would weigh for its
  // staging pool (CudaDevice::prepare_hosts, unpinned_bytes): of each of
  // those arrays, the rows the region's W iterations touch, when they come
  // to `min_span` bytes or more.
  double unpinned_spans(const Region &r, int e, double min_span);
  // The bytes of the data-region rows `r` reads over all its iterations
  // that the host does not hold (DataEnv::host_lacks).
  double host_lacks(const Region &r, int e);
  // The last pin()'s registration stopped `bytes` short (its execution had
  // every iteration complete first: Device::prepare_host's pieces): those
  // bytes, the last arrays' last, are pinned by a later pin().
  void unpin_last(double bytes);
  // Undoes the last prepare(): the device's preparation stopped at its
  // registration (LoopSim::reg_undone), before its windows and uploads.
  void unprepare_last();
  // The bytes of pageable rows registered in the execution so far (what
  // its end unregisters: Link::unreg_bw).
  double registered_bytes() const { return registered_bytes_; }
  // The registrations made in the execution so far (Link::unreg_lat).
  int registrations() const { return registrations_; }
  // The execution is over: arrays outside data regions leave the GPU, and
  // arrays updated from the devices after it are valid on the host again.
  void end_execution(const Region &r, int e);

private:
  struct State {
    const Array *array = nullptr;
    IntervalSet valid[2];   // host, GPU
    IntervalSet registered; // pageable rows page-locked in this execution
    bool pinned = false;    // a data region's array page-locked whole (pin)
    double pinned_bytes = 0; // registered so far of it (pin, unpin_last)
    IntervalSet received;    // a data region's rows the GPU ever uploaded
  };
  // The GPU copies `rows` of `s`'s array: for a pageable array, the rows
  // not registered yet in this execution are (Moves::registers).
  void register_rows(State &s, const IntervalSet &rows, double rowbytes, Moves &m);
  // The state of the array `u` names in execution e (bfs' swapped pointers).
  State *state(const Region &r, int e, const Use &u);
  // Whether pin() leaves `s` alone: read only by `r`, whole on both sides.
  bool never_copied(const Region &r, int e, const State &s);
  IntervalSet rows(const Region &r, int e, const Use &u, Range range,
                   const Array &a) const;

  std::vector<State> arrays_;
  std::vector<std::pair<State *, double>> last_pinned_; // pin()'s, in order
  std::vector<std::pair<State *, IntervalSet>> last_prepared_; // prepare()'s uploads
  bool co_ = true;
  double registered_bytes_ = 0;
  int registrations_ = 0;
};

} // namespace hce::sim
