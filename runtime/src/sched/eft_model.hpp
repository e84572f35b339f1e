// eft's model of a device: the time of a chunk as a linear function of its
// iterations (Model), fitted by least squares to the device's last chunks
// (Samples) with the outliers a stall makes left out (fit), and the kernel's
// lanes checked against them (lanes_disproved).  See eft.cpp and
// docs/schedulers.md ("eft").
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace hce::sched::eft {

constexpr int kMaxSamples = 12; // chunks kept per device for the fit

// The overhead of a chunk when the samples cannot tell it: seconds.
double default_overhead(bool host);

// A device's cost of a chunk of n iterations: o + max(n, lanes) c.
struct Model {
  double o = 0;     // seconds per chunk
  double c = 0;     // seconds per iteration; 0 = no model
  double lanes = 0; // a chunk of fewer iterations costs as much as this
  // Every sample had at most `lanes` iterations: the chunks' time does not
  // tell the per-iteration cost from the per-chunk one, and a stall of the
  // chunk reads as a per-iteration cost (the fit guesses o, fit_line).
  bool lanes_only = false;
  bool known() const { return c > 0; }
  double time(double n) const { return o + std::max(n, lanes) * c; }
};

// Storage for fit(), kept by the scheduler: a fit runs after every chunk.
struct FitScratch {
  std::vector<std::pair<int64_t, double>> samples, kept;
  std::vector<double> times;
};

// Least squares of t = o + n c over the samples; one distinct size (or a fit
// with o < 0 or c <= 0) falls back to the default overhead and the median
// time of the largest chunks.
Model fit_line(const std::vector<std::pair<int64_t, double>> &s, bool host, double lanes,
               std::vector<double> &times);

// fit_line, then once more without the samples far above the line: one
// chunk that the OS or a page fault made 100x longer must not set a
// device's model (the device may then never run again to correct it).
Model fit(std::span<const std::pair<int64_t, double>> samples, bool host, int64_t lanes,
          FitScratch &scratch);

// A device's model alone, from its chunks alone (Dev::alone): fit(), or,
// when every chunk had at most its lanes' size, the fastest one alone (the
// slower ones were stalled by something else on the machine: the H100's
// lud, alone probes of 1.3-5.5 ms in its first milliseconds, 10-40 us
// later; the arm this predicts is measured before it is kept).
Model fit_alone(std::span<const std::pair<int64_t, double>> s, bool host, int64_t lanes,
                FitScratch &scratch);

// Whether chunks under `lanes` iterations took longer the more iterations
// they had: an accelerator's lanes come from its kernel's shape (a 1-D
// kernel's block on every multiprocessor), and a kernel whose threads
// wait on one another or on a shared resource need not keep that promise.
// Disproved when the chunks' sizes span 1.5x and, by least squares over
// them, the iterations make at least half the largest one's time.
bool lanes_disproved(std::span<const std::pair<int64_t, double>> s, int64_t lanes);

// A device's last chunks, (iterations, seconds), with the execution of each.
// The oldest leave by moving the view's front: the storage is compacted
// once per kMaxSamples additions, not at each (an erase at the front of
// both vectors at every chunk was ~150 instructions of each of lud's 511
// executions, twice: Dev::samples and Dev::alone; VM callgrind).
class Samples {
public:
  using Sample = std::pair<int64_t, double>;
  // Oldest first.
  std::span<const Sample> v() const { return {v_.data() + front_, v_.size() - front_}; }
  bool empty() const { return front_ == v_.size(); }
  size_t size() const { return v_.size() - front_; }
  int last_exec() const { return exec_.back(); } // (not empty())
  void clear() {
    v_.clear();
    exec_.clear();
    front_ = 0;
  }
  // Keeps the newest kMaxSamples; once `at` is past `first_exec`, the
  // chunks of the device's first execution at the site leave (one-time
  // costs, see complete()).  `at` (the execution) never decreases from one
  // call to the next, and first_exec is at most every `at`.
  //
  // With `lanes` > 0, the newest chunk of more than `lanes` iterations stays
  // while every newer one has at most that many: only it tells the rate
  // from the chunk's cost (Model::lanes_only).  The H100's cold kmeans (call
  // RQ): the CPU's last chunks of its first execution were 40 bites of its
  // lanes' size, its twelve kept samples all of them, and its model
  // predicted the CPU alone 16x slower than it is.
  void add(int64_t n, double t, int at, int first_exec, int64_t lanes = 0);

private:
  std::vector<Sample> v_;
  std::vector<int> exec_;
  size_t front_ = 0; // v_[front_..] and exec_[front_..] are the samples
};

} // namespace hce::sched::eft
