// Where each mapped array is valid (host and every device), the device
// windows that hold it, and the transfers that keep it coherent.
//
// Every array is tracked as a set of valid element intervals per holder
// (holder 0 is the host, holder d+1 is device d).  Before a device runs a
// range, acquire() makes the range's footprint valid there by moving only
// what is missing (the HCE paper's Algorithm 1, generalised from one interval
// to any set); release() records the device's writes, which invalidates
// those elements everywhere else, and brings them home now or later
// (Algorithm 2, generalised).  Device memory is a window [lo, hi) of the
// array; the pointer handed to variants is biased so that element e is at
// base + e.
#pragma once

#include "data/interval_set.hpp"
#include "data/transfer_plan.hpp"
#include "device.hpp"
#include "hce/hce.h"
#include "host_pages.hpp"
#include "row_table.hpp"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace hce {

// Bytes one chunk moved, for statistics.
struct TransferCounts {
  uint64_t to_device = 0;
  uint64_t from_device = 0;
  uint64_t peer = 0; // device to device (peer copies), counted at the receiver
  uint64_t avoided = 0;
  // Of to_device: elements of a data region's array that reached the device
  // for the first time (Window::received).  They stay there: a model of the
  // device's steady cost leaves their copies out (chunk_loop.cpp).
  uint64_t first_to_device = 0;
  // Of to_device: every element of a data region's array, first or again
  // (the rows another device wrote meanwhile).  In an execution that puts
  // the data where a new mode wants it (Scheduler::placing_data), that is
  // placement too, not the device's steady cost.
  uint64_t resident_to_device = 0;
  // Bytes DataEnv::prefetch queued to the device in the background (not in
  // to_device: no chunk waited for them).
  uint64_t prefetched = 0;
  // Seconds chunks waited in acquire for such copies to land (settle()),
  // shown by the statistics (background_wait_seconds).
  double background_wait = 0;
};

// The communication optimisation (the papers' "with CO" / "without CO").
enum class CoMode {
  None,        // every chunk uploads its whole footprint, results come home
               // at once and the device keeps nothing
  Incremental, // only what is missing moves; inside a data region results
               // stay on the device until someone needs them
  Pipelined,   // incremental, with upload / compute / download overlapped
};

const char *co_name(CoMode mode);

// Whether some written map of the region is merged by twin and diff (its
// per-iteration footprints overlap: a whole-array `y[0:n]` the translator
// could not narrow, transposed or scattered writes, `omp atomic`).
bool region_merges_by_diff(const hce_region &region);

class DataEnv {
public:
  // `huge_pages`: advise_written() advises huge pages (Settings::huge_pages);
  // `untouched`: it reports untouched output pages to begin_region's caller
  // (Settings::prefault_threads != 0).
  DataEnv(const std::vector<std::unique_ptr<Device>> &devices, bool huge_pages,
          bool untouched = false);
  ~DataEnv();

  // A co_exec region starts / ends.  Arrays mapped only by the region are
  // dropped from the devices at its end after their results are home.
  // `untouched` (when the data layer reports them): the huge-page blocks of
  // the footprints written by arrays first seen here that no page of
  // exists yet (advise_written), for the page prefaulter.
  bool begin_region(const hce_region &region, std::string &why,
                    std::vector<HostRange> *untouched = nullptr);
  bool end_region(const hce_region &region, std::string &why);

  struct Array;
  // The device windows one chunk in flight uses: they cannot move or be
  // freed until the chunk is released or abandoned.
  // A device's own copy of a written section whose footprint does not say
  // which elements a chunk writes (a whole-array `map(tofrom: y[0:n])`):
  // one buffer per chunk, not the device's window, merged home by twin and
  // diff (data/twin_diff.hpp) when the chunk is released.
  struct PrivateCopy {
    Array *a = nullptr;
    std::vector<int> maps; // the region's maps of this array (one pointer)
    int device = 0;
    void *buffer = nullptr; // device memory holding elements [lo, ...)
    int64_t lo = 0;
    IntervalSet elems;      // what the device got
    std::vector<char> twin; // elems as uploaded, packed
  };
  struct ChunkHold {
    std::vector<std::pair<Array *, int>> pins;
    std::vector<PrivateCopy> privates;
    // After a failed release(): the chunk's results stayed on the device,
    // recorded as written there, so that evict() brings them home (or
    // reports them lost); false where nothing of them was recorded (a
    // private copy that never merged) and the chunk must run again.
    bool results_on_device = false;
  };

  // Makes the footprint of `range` valid on `device` and fills ptrs (one per
  // map) with the base pointers its variant must use.  Copies run outside
  // the lock, so several devices (and the stages of one pipelined device)
  // move data at the same time.
  bool acquire(int device, const hce_region &region, Range range,
               std::vector<void *> &ptrs, ChunkHold &hold, TransferCounts &counts,
               std::string &why);
  // Records that `device` wrote the footprint of `range`, brings results
  // home as the CO mode says, and lets go of the chunk's windows.
  bool release(int device, const hce_region &region, Range range, CoMode co,
               ChunkHold &hold, TransferCounts &counts, std::string &why);
  // A chunk that was acquired but will not be released (its device failed).
  void abandon(ChunkHold &hold);
  // Before the chunks start: windows for the whole footprint where memory
  // allows, the host memory pinned, and broadcast sections (the same for
  // every iteration, e.g. B in GEMM) uploaded, so that these one-time costs
  // are not charged to the device's first chunk.  Best effort.
  // `others_work`: other devices run chunks of this execution (a pinning
  // that holds up this device's copies is preceded by bring_home_first).
  void prepare(
      int device, const hce_region &region, TransferCounts &counts,
      const Device::Wanted &wanted = [] { return true; }, bool others_work = false);
  // After `device`'s last chunk of an execution, while the others still
  // work: the elements of the data-region arrays the region reads that
  // `device` has never held and the host holds, copied to it in the
  // background (Device::upload_in_background: a GPU's from registered host
  // memory), so that a later execution that gives it more of the loop
  // finds them there.  The H200's cold cg: its first spmv ran on the CPU
  // while the GPU registered the matrix, and the next two uploaded it, 1.5
  // and 1.2 ms on their critical path (call VB).  Each element once per
  // window (Window::received): rows another device keeps writing are not
  // sent again at every execution.  The copies are valid on the device only
  // once landed, and only those not written meanwhile (ArrayResidency::
  // start_arriving); every use of the window waits for them first
  // (settle()).  Returns the bytes queued.
  size_t prefetch(int device, const hce_region &region, TransferCounts &counts);
  // What `device`'s preparation for `region` would pin now (prepare(): its
  // data-region arrays, as Device::unpinned_bytes counts them); after
  // begin_region.
  size_t would_pin(int device, const hce_region &region);
  // A host device's chunks of `region` ran in a data region: the arrays
  // the region writes that a data region holds were written there by a host
  // (Array::host_wrote).  host_wrote_any(): whether any array `region` maps
  // was (eft's host_probe_deferred: deferring a host's probe at one site
  // while another site co-executes moves its rows back and forth).
  void note_host_wrote(const hce_region &region);
  bool host_wrote_any(const hce_region &region) const;
  // The bytes of the data-region rows `region` reads (over all its
  // iterations) that the host does not hold: what a host's first chunks
  // would fetch from the accelerators (eft's host_probe_deferred, at a
  // site's first execution).  After begin_region.
  size_t host_lacks(const hce_region &region);
  // Forgets what `device` holds of the arrays `region` maps (after its
  // failure in that region): its valid data that exists nowhere else is
  // lost, so it must first be fetched; returns false if that fails too.
  // Not other arrays: another thread's data region may hold them while its
  // host code writes the host's copy (every array here once: a download
  // home of rows that thread had just written and was about to
  // hce_update, on a failure of its neighbour's chunk, lost its writes --
  // DataRegionSoak, two threads, one run in ~100).
  bool evict(int device, const hce_region &region, std::string &why);

  // #pragma hce data / update.  A data region is the calling thread's (as
  // OpenMP's target data: a structured block of the thread that meets it),
  // and data_end ends that thread's innermost one; an array's data_refs
  // count the regions of every thread that hold it.
  bool data_begin(int num_maps, const hce_map *maps, std::string &why);
  bool data_end(std::string &why);
  bool update(int num_maps, const hce_map *maps, bool to_devices, std::string &why);
  // A region run inline, on the calling thread over the host's memory (a
  // co_exec reached from inside another region's variant: c_api.cpp
  // run_nested): what a device holds newer of its footprint comes home
  // first (inline_begin), and its writes leave the devices' copies stale
  // (inline_end).  Without them the region read a device-written array's
  // old host copy, silently.  Arrays the data layer does not know are the
  // host's alone: nothing to do.
  bool inline_begin(const hce_region &region, std::string &why);
  void inline_end(const hce_region &region);

  // True when some map of the region is resident in an enclosing data region.
  bool in_data_region(const hce_region &region) const;
  // Elements of the array at `host` valid on holder h (tests, stats).
  IntervalSet valid_on(const void *host, int holder) const;
  // Chunks and copies using `device`'s window of the array at `host` (tests).
  int window_pins(const void *host, int device) const;

private:
  struct Window {
    void *buffer = nullptr;
    int64_t lo = 0, hi = 0; // elements held
    int pins = 0;           // chunks in flight / copies using the buffer
    DeviceRowTable table;   // row-pointer arrays: the device's row table
    // Elements uploaded into it while a data region held the array: a
    // later upload of them is a refresh (another device wrote them, the
    // program updated them), not the one-time move into the device.
    IntervalSet received;
    // Copies into it in the background (prefetch()): the device's ticket,
    // 0 when none is on its way, and the elements they write (whatever was
    // written elsewhere since: ArrayResidency::arriving is what will count);
    // settling: a thread waits for them now.
    uint64_t background = 0;
    IntervalSet background_elems;
    bool settling = false;
    // As a new one: nothing to free (free_window() leaves it alone).
    bool unused() const {
      return !buffer && lo == 0 && hi == 0 && pins == 0 && table.empty() &&
             received.empty() && !background && background_elems.empty() && !settling;
    }
  };
  // One copy between the host and a device window (or, with src_device
  // set, from another device's window straight into `device`'s), planned
  // under the lock.
  struct Copy {
    Array *a;
    int device;
    IntervalSet elems;
    bool to_device;
    int src_device = -1;
  };

public:
  // One mapped array: where it is valid and the device windows holding it.
  struct Array {
    explicit Array(int num_devices) : res(num_devices) {}
    std::string name;
    char *host = nullptr;
    size_t elem_size = 0;
    std::optional<RowLayout> rows; // an array of row pointers (HCE_MAP_ROWS)
    ArrayResidency res;          // valid elements per holder
    std::vector<Window> windows; // per device
    IntervalSet to_host;         // elements being copied to the host now
    // Elements whose only copy a failed device could not send home (evict):
    // a data region that ends without them says so.
    IntervalSet lost;
    int region_refs = 0;         // co_exec regions mapping it now
    int data_refs = 0;           // enclosing data regions
    bool data_from = false;      // some data region maps it from/tofrom
    bool host_wrote = false;     // note_host_wrote(), while a data region holds it
    // The memory its data regions' sections cover (bytes; empty when none).
    const char *data_lo = nullptr, *data_hi = nullptr;

    // The record as constructed (every member above), its storage kept;
    // only for a record no device holds anything of (flush_and_drop'd).
    void reset();
  };

private:
  // What one chunk needs of one array.  An array may be named by several
  // maps of a region (a row and a column footprint, a `to` halo and a
  // `from` row): they share its window and its pointer, so the device
  // needs the union of their footprints.
  struct ArrayUse {
    Array *a = nullptr;
    std::vector<int> maps; // indices in the region, ascending
    IntervalSet all;       // union of the footprints
    IntervalSet current;   // ... of the maps whose current values are needed
    IntervalSet takeover;  // written without being read (not in current)
    IntervalSet written;   // ... of the written maps
    Interval limit{0, 0};  // hull of everything the region can touch
    bool diff = false;     // a written map merged by twin and diff
  };
  // The region's maps grouped by array (first appearance order), with the
  // footprints of `range`, into `uses`; under the lock, after begin_region.
  // `written_only`: only the maps that write (what release() records).
  // `uses` is the caller's, kept from call to call (thread_local): its
  // elements' storage is reused, as this runs two or three times a chunk.
  void array_uses(const hce_region &region, Range range, std::vector<ArrayUse> &uses,
                  bool written_only = false);

  // The host spans of the data-region arrays in `uses` (array_uses over
  // the whole region) that `device`'s preparation pins: not those it only
  // reads and holds, with the host, over all the region can touch.  Whether
  // any array of `uses` belongs to a data region.  Under the lock.
  bool spans_to_pin(int device, const hce_region &region,
                    const std::vector<ArrayUse> &uses,
                    std::vector<Device::HostSpan> &spans) const;
  // The array `map` names, made on first use (then advise_written() for a
  // map that writes, over `iterations`).
  Array &array_for(const hce_map &map, int64_t iterations,
                   std::vector<HostRange> *untouched = nullptr);
  void advise_written(const Array &a, const hce_map &map, int64_t iterations,
                      std::vector<HostRange> *untouched);
  // Makes device's window of `a` cover `need`, growing within `limit` (what
  // the region can touch at most); waits until no chunk pins the window.
  bool ensure_window(std::unique_lock<std::mutex> &lock, Array &a, int device,
                     Interval need, Interval limit, std::string &why);
  void pin(Array &a, int device, ChunkHold *hold);
  void unpin_all(std::vector<std::pair<Array *, int>> &pins);
  // Waits until no other thread's copy into the host elements `want` of `a`
  // is in flight; the copies in `planned` (not started yet, by the caller)
  // are not waited for.  Returns the elements those planned copies cover.
  IntervalSet wait_for_copies_home(std::unique_lock<std::mutex> &lock, Array &a,
                                   const IntervalSet &want,
                                   const std::vector<Copy> &planned);
  // Whether only the host holds the elements a chunk [range) of `region`
  // can touch (the hull of each map's footprint): valid there, no device
  // holding any of them, nothing on its way home.  A host device's chunk
  // then needs no footprint: nothing to fetch or take over before it, and
  // its writes make no other copy stale (lud's trailing update outside a
  // data region built three footprints of up to 511 intervals a chunk).
  bool host_holds_alone(const hce_region &region, Range range) const;
  bool plan_fetch_to_host(std::unique_lock<std::mutex> &lock, Array &a,
                          const IntervalSet &want, int except_device,
                          std::vector<Copy> &copies,
                          std::vector<std::pair<Array *, int>> &pins, std::string &why);
  // Plans peer copies into `device` for the part of `missing` the host
  // lacks and a peer-connected device holds; removes it from `missing`.
  // Before a preparation's pinning that holds up `device`'s copies: the
  // rows of the arrays the region reads and does not write that only
  // `device` holds, downloaded (up to kHomeFirstBytes in all).
  static constexpr size_t kHomeFirstBytes = Device::kPinPieceBytes / 4;
  void bring_home_first(std::unique_lock<std::mutex> &lock, int device,
                        const hce_region &region, const std::vector<ArrayUse> &uses,
                        TransferCounts &counts);
  void plan_peer_copies(Array &a, int device, IntervalSet &missing,
                        std::vector<Copy> &copies,
                        std::vector<std::pair<Array *, int>> &pins);
  bool run_copies(const std::vector<Copy> &copies, TransferCounts &counts,
                  std::string &why);
  // run_copies' host copies of plain arrays: one batch per device
  // (Device::begin_copies / finish_copies), each waited for once.
  bool run_host_batches(const std::vector<Copy> &copies, TransferCounts &counts,
                        std::string &why);
  // Runs the copies with the lock released (held again on return) and marks
  // the destination of each valid once all have landed.
  bool copy_unlocked(std::unique_lock<std::mutex> &lock, const std::vector<Copy> &copies,
                     TransferCounts &counts, std::string &why);
  // The private copy's buffer on `device`, filled from the host (which
  // must be valid on p.elems); the twin keeps what was uploaded.
  bool make_private(int device, PrivateCopy &p, TransferCounts &counts, std::string &why);
  // Brings the private copy back, packed like its twin, into `now`.
  bool bring_back(int device, const PrivateCopy &p, TransferCounts &counts,
                  std::vector<char> &now, std::string &why);
  void drop_privates(std::vector<PrivateCopy> &privates);
  bool fetch_to_host(Array &a, const IntervalSet &want, int except_device,
                     TransferCounts &counts, std::string &why);
  bool upload(Array &a, int device, const IntervalSet &what, TransferCounts &counts,
              std::string &why);
  // One copy between the host and device memory at `dev_ptr` (the device
  // address of element iv.lo): direct, or through the rows of a row-pointer
  // array.
  bool host_copy(const Array &a, Device &dev, char *dev_ptr, Interval iv,
                 bool to_device, std::string &why);
  // The host <-> device copies of `what` on the device's window: one
  // device call per strided run of intervals (the rows of a 2-D section),
  // each retried as a whole on a transient failure.
  bool host_copies(Array &a, int device, const IntervalSet &what, bool to_device,
                   TransferCounts &counts, std::string &why);
  // Frees device's window of `a` and its row table (after its copies in
  // the background have landed).
  void free_window(Array &a, int device);
  // Waits, without the lock, for device's copies in the background into
  // its window of `a` (if any) and marks valid what they brought that was
  // not written meanwhile; false + why when they failed (nothing marked).
  // Before anything moves the window, or writes elements of it they write
  // (`touching`, when given: a chunk's footprint): a copy that lands after
  // a newer upload of the same elements would overwrite it.  A chunk
  // that touches none of them does not wait (a warm execution's GPU, its
  // block resident, beside the CPU's rows on their way).
  bool settle(std::unique_lock<std::mutex> &lock, Array &a, int device, std::string &why,
              const IntervalSet *touching = nullptr);
  // Before device's window of `a` moves or is freed: waits until no chunk
  // or copy uses it (pins) and its copies in the background have landed
  // (settle()), and returns with both true under the one hold of `lock`
  // the caller keeps until it is done.  settle() lets go of the lock while
  // it waits: another device's chunk could meanwhile pin the window as the
  // source of a fetch, and freeing it then left that copy reading freed
  // memory and the pin count below zero (a later ensure_window waited for
  // ever: the fault matrix's jacobi2d, sim:0 failing at its 3rd kernel).
  // false + why when the copies in the background failed (the window is
  // quiet all the same).
  bool quiesce_window(std::unique_lock<std::mutex> &lock, Array &a, int device,
                      std::string &why);
  bool download(Array &a, int device, const IntervalSet &what, TransferCounts &counts,
                std::string &why);
  void drop_device_copies(Array &a);
  bool flush_and_drop(Array &a, bool bring_home, std::string &why);

  const std::vector<std::unique_ptr<Device>> &devices_;
  mutable std::mutex mutex_;
  std::condition_variable cv_; // a window's pins dropped
  std::map<const void *, Array> arrays_;
  // The records of arrays dropped at a region's end, reused by the next
  // array_for: a loop outside a data region maps its arrays anew at every
  // execution (lud's 511), and making and freeing a record with its
  // residency sets and windows cost ~1.3k instructions an array.
  static constexpr size_t kSpareArrays = 8;
  std::vector<std::map<const void *, Array>::node_type> spare_arrays_;
  // A map whose array is new to the data layer but whose memory lies in
  // another record's (an interior pointer: `double *t = a + 100` mapped
  // as t[0:n] while `a` is in a data region): the data layer keys arrays by
  // their base address, so the two records would go out of step -- the
  // region read the host's old copy of what a device had written of `a`.
  // The other record's part that devices hold newer comes home first, and
  // when the region writes the map, that part becomes the host's at once
  // (the devices' copies of it stale; nobody else uses `a` meanwhile).  A
  // data region cannot keep two such records in step: an error.
  bool reconcile_alias(const hce_region &region, const hce_map &map, bool in_data_begin,
                       std::string &why);
  // Calls fn(key, record, elements) for each other record whose part that
  // devices hold overlaps the memory of `map`'s elements `hull`, until fn
  // returns false.
  template <class F> void for_each_overlap(const hce_map &map, Interval hull, F &&fn);
  // The record (other than map's own) that a data region holds whose data
  // sections' memory overlaps that of `map`'s section, or nullptr: two
  // records of one memory that both stay cannot be kept in step.
  const Array *data_overlap(const hce_map &map) const;
  // At the end of a data region that maps `a` to only: a warning when devices
  // wrote some of it (their writes are dropped, the CPU's are not).
  void warn_dropped_writes(const Array &a) const;
  // Erases arrays_'s `it` (flush_and_drop'd), its record kept as a spare.
  void recycle(std::map<const void *, Array>::iterator it);
  // advise_written(): huge pages for written arrays (HCE_HUGE_PAGES), and
  // its footprint scratch (under the lock).
  const bool huge_pages_, report_untouched_;
  IntervalSet advise_scratch_;
  std::vector<HostRange> untouched_scratch_;
  std::map<const char *, size_t> advised_;            // ranges advise_written() looked at
  // Each thread's open data regions, innermost last: the arrays each one
  // entered.  One stack for the process ended thread A's region at thread
  // B's data_end: A's arrays were never brought home (and were written after
  // the program had freed them).
  std::map<std::thread::id, std::vector<std::vector<const void *>>> data_stacks_;
};

} // namespace hce
