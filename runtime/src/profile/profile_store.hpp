// The profile store: measured execution and transfer times per region,
// device and problem size, the data of the profile-based static partition
// (static-partitioning-profile-model.txt §2.1, "a function to estimate the
// execution time of each kernel partition ... uses profiling data from
// previous kernel executions on those devices with different input data
// sizes").
//
// One sample is what one device did in one execution of a region: the
// iterations it ran (its share w of W), the bytes it moved, the seconds it
// spent computing and the seconds it spent moving data.  Samples of the same
// (region, device) whose sizes are within 2% are merged (weighted means, the
// weight capped so that new measurements keep counting, a slower measurement
// counted at most kMaxRise times the sample, of the first two measurements
// the faster): "as executions are
// being made more values are obtained and the estimations get better".
//
// Persistence (HCE_PROFILE=path, see docs/runtime-api.md for the format):
// the file is read at first use; at exit the samples recorded since are
// merged into the file as it is then (another process may have written it
// meanwhile), and the result is written to a temporary file that is renamed
// over the old one.  A corrupt file produces one warning naming the file and
// the line, and is then ignored (and replaced at exit).
//
// This file does not depend on the rest of the runtime (only log.hpp), so
// the scheduler tests can use it standalone.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hce::profile {

struct Sample {
  int64_t iterations = 0; // w: iterations the device ran
  double bytes = 0;       // bytes it moved (to + from the device)
  double exec_s = 0;      // seconds computing
  double xfer_s = 0;      // seconds moving data
  double weight = 1;      // measurements merged into this sample
  double total_s() const { return exec_s + xfer_s; }
};

// An estimate for a size not (or not exactly) measured.
struct Estimate {
  double exec_s = 0, xfer_s = 0, bytes = 0;
  // The weight of the sample at w's size (within kMergeTolerance) when the
  // estimate is that sample's; 0 when it is interpolated.
  double measurements = 0;
  double total_s() const { return exec_s + xfer_s; }
};

// Linear interpolation over `samples` (sorted by iterations, distinct
// sizes) at w iterations (§2.1: "a simple linear interpolation function is
// used taking profiling data to provide estimations for data sizes that are
// yet to be measured"):
//  * w between two measured sizes: the straight line between them;
//  * w outside [smallest, largest]: the line of the nearest end segment
//    extended ("the smallest and biggest limits for the interpolation also
//    change as the application is run several times": once w is measured it
//    becomes a new limit); if that segment falls (noise: more work cannot
//    take less time), or the result would be negative, the end point scaled
//    in proportion to w;
//  * one sample only: the line through it and (0, 0) (the seed needs two
//    sizes; an empty partition, rate 0, costs nothing, which is the second);
//  * w <= 0: zero.  Every field is interpolated the same way.
// Samples kImplausibleRise times slower than both neighbours allow are
// skipped.  nullopt when there are no samples.
std::optional<Estimate> interpolate(const std::vector<Sample> &samples, int64_t w);
// The two halves of interpolate, for a caller that estimates many sizes
// from the same samples (plan_from_model: hundreds per execution, each of
// which re-read the samples for stalls, 2.1M instructions per execution of
// lud under schedule(profile)): the samples interpolate reads, and
// interpolate over them.
std::vector<Sample> plausible_samples(const std::vector<Sample> &samples);
std::optional<Estimate> interpolate_plausible(const std::vector<Sample> &plausible,
                                              int64_t w);

class Store {
public:
  // Adds one measurement (merged into a sample within 2% of its size).
  // A measurement of a region's first execution in this process is held
  // back: that execution carries one-time costs (a cold OpenMP team, the
  // first launch, data placement; the H100's lud: one CPU row 10^4 times
  // its steady cost, read back by the next run as the cost at that trip
  // count).  This run plans with them; held back from the file, they are
  // dropped once the region executes again and saved only if it never does
  // (a program that runs its loop once).
  void record(std::string_view region, std::string_view device, const Sample &s,
              bool first_execution = false);
  // The device, whose only sample of `region` in this process is held back
  // (its first execution), was left out of a later execution: that sample
  // is kept (saved) unless the device runs the region again.  An
  // accelerator left out after its first-execution probe otherwise left
  // nothing in the file, and every later run probed it again in its first
  // execution (the H100's lud, call FE: the GPU's 255 rows in every warm
  // run, ~0.8 ms of 11 ms).  No-op when nothing of it is held.
  void keep_held_of_left_out(std::string_view region, std::string_view device);
  // The samples of (region, device), sorted by iterations; empty if none.
  std::vector<Sample> samples(std::string_view region, std::string_view device) const;
  bool has(std::string_view region, std::string_view device) const;
  // Whether a sample of any region names `device` (a device key) in its
  // device field: the device alone, in a co-execution or in a model's key.
  bool mentions(std::string_view device) const;
  // Interpolated under the lock, without copying the samples or building a
  // key: the first execution of a warm site asks ~9 of these (seed()).
  std::optional<Estimate> estimate(std::string_view region, std::string_view device,
                                   int64_t w) const;
  // Samples recorded since the last load/save (what save() merges in),
  // held ones included.
  size_t pending() const;
  size_t size() const; // number of samples
  void clear();

  // The text form (docs/runtime-api.md, "Profile file").
  std::string serialize() const;
  // Parses `text` (named `file` in messages).  On a malformed line returns
  // false with `why` = "FILE:LINE: what is wrong"; nothing is changed then.
  bool parse(const std::string &text, const std::string &file, std::string &why);
  // Merges every sample of `other` into this store.
  void merge(const Store &other);

  // Replaces the contents with `path` (a missing file is an empty
  // profile).  A corrupt file warns ("hce: warning: profile FILE:LINE:
  // ...; the file is ignored") and leaves the store as it was; returns
  // false then.
  bool load(const std::string &path);
  // Merges what was recorded since the last load/save into the file as it
  // is now (re-read; a corrupt file is replaced), writes PATH.tmp.PID and
  // renames it over PATH.  The store then holds the merged contents.
  // False (with a warning) when the file cannot be written.
  bool save(const std::string &path);

private:
  using Key = std::pair<std::string, std::string>; // region, device
  // Orders keys, and finds one from two string_views without building it.
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B> bool operator()(const A &a, const B &b) const {
      const int c = std::string_view(a.first).compare(std::string_view(b.first));
      return c < 0 || (c == 0 && std::string_view(a.second) < std::string_view(b.second));
    }
  };
  using SampleMap = std::map<Key, std::vector<Sample>, KeyLess>;
  using KeyView = std::pair<std::string_view, std::string_view>;
  // The samples of (region, device) in `map`, made empty when new: a key
  // is built only the first time (record() runs on recorded executions).
  static std::vector<Sample> &slot(SampleMap &map, std::string_view region,
                                   std::string_view device);
  static void add(std::vector<Sample> &v, const Sample &s);
  mutable std::mutex mutex_;
  SampleMap data_;                   // everything known
  SampleMap pending_;                // recorded since load/save
  SampleMap held_;                   // first executions (record)
  std::set<Key, KeyLess> kept_held_; // keep_held_of_left_out()
};

// Merging: samples whose sizes differ by at most this fraction are one.
constexpr double kMergeTolerance = 0.02;
// A sample's weight never exceeds this, so new runs keep moving it.
constexpr double kMaxWeight = 8;
// A measurement merged into a sample counts at most this many times the
// sample's time.  A stall is far slower, never far faster, and a cache that
// holds a device too slow is never corrected: the scheduler leaves the
// device out and does not measure it again.  The H100's lud (call GA): one
// run's CPU stalled at 11.5 ms per execution (against 10-40 us), the mean
// over weight 8 seeded the CPU alone at 1.35 ms, and the next 80 runs ran
// the GPU (25x slower).  A true slowdown still moves the sample, 1.11x per
// run; a true speedup moves it at once.
constexpr double kMaxRise = 2;
// A sample of one measurement that a faster one joins takes the faster's
// times (weight 2): a slow moment makes an execution slower, never faster,
// so of two measurements the faster is the likelier.  The mean kept one slow
// first wall for good where nothing measured that arm again (the H200's
// matadd, call MC: the CPU alone stored at 36 ms, 23 ms elsewhere; eft's
// second opinion, runtime/src/sched/eft.cpp, measures it once more).
// A sample whose time is this many times what its neighbours allow (a larger
// size's time, the smaller sizes' best time per iteration) is a stall kept
// on its own (no sample to merge into) and is not read back (interpolate()).
constexpr double kImplausibleRise = 4;
// At most this many samples per (region, device): the two closest sizes
// are merged beyond it.
constexpr size_t kMaxSamples = 32;

// Which executions of a region the profile hooks record: the first 16, then
// every 16th up to the 256th, every 64th after.  Recording costs 15-20 us
// per execution on the H100 (keys built, two maps, a sort), as much as the
// execution itself for a resident region; lud's 511 executions paid it
// every time, then 47 times (~12k instructions each on the VM: 1.4k of
// each execution's ~23k beside an idle GPU), now 35.  A region that runs
// longer has said what it costs: its samples only confirm it.
inline bool recorded_execution(int64_t nth) {
  return nth < 16 || (nth < 256 ? nth % 16 == 0 : nth % 64 == 0);
}

// The process-wide store: loaded from its file (global_path()) on first use,
// or by start_loading()'s thread.
Store &global();
// Loads the process-wide store on a thread of its own, so that a runtime
// being made (CUDA's context: ~0.2 s) hides the file's reading and parsing:
// on the H200 a warm region's first execution paid ~0.15 ms for it (call
// TA: mcpi's GPU alone 1.52 ms with the cache, 1.37 without).  A use before
// it is done waits for it (the store's mutex).
void start_loading();
// The file of the global store: HCE_PROFILE when set; "" when it is "off";
// otherwise the per-user cache, as ccache keeps one:
// $XDG_CACHE_HOME/hce/cache_file_name(the executable) (~/.cache/hce/...
// without XDG_CACHE_HOME), so that the second run of a program starts where
// the first ended.  "" too when there is no home to keep it in.
std::string global_path();
// The per-user cache's file of the executable at `exe` (an absolute path):
// "<its name>-<16 hex digits of a hash of the path>.profile", so that two
// programs of one name (every a.out, every test's `prog`) keep apart what
// they measured; "program.profile" when the path is unknown.
std::string cache_file_name(std::string_view exe);
// Whether the global store has a file (global_path() as read when the store
// was created): what the per-execution hooks ask, so that an execution does
// not read the environment and /proc/self/exe (measured: 12 us of a 23 us
// execution on the development VM).
bool recording();
// Whether the user named the profile file (HCE_PROFILE=path): only then does
// `auto` hand regions over to the `profile` scheduler (static partitions);
// the default cache only seeds `auto`'s cost models.
bool profile_requested();
// At runtime shutdown: saves the global store to HCE_PROFILE (when set and
// something was recorded) and forgets it, so the next use reloads (tests
// change HCE_PROFILE between runtimes).
void shutdown_global();

} // namespace hce::profile
