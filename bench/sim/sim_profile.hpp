// What hce-sim knows about a machine and a benchmark: the cost models of a
// profile file (bench/sim/calibrate.py writes them; docs/simulator.md
// describes the format).
//
// Two generations of profile are read:
//  * v1 (h100-2026-11-23.txt): per region and device, per-iteration upload,
//    compute and download costs and a preparation per execution;
//  * v2 (h100-2026-11-24.txt): the same compute costs, but transfers come
//    from the region's maps (`use` lines) through the residency model
//    (residency.hpp) and a per-benchmark link, the GPU's preparation is paid
//    once per program run, and the runtime's per-execution costs
//    (`overhead`) and the CPU's slowdown under copies (`dma_slowdown`) are
//    global lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hce::sim {

// seconds = o + c * max(n, lanes) (lanes only for compute: a small chunk
// cannot use all of a device's lanes).
struct StageCost {
  double o = 0, c = 0;
  double at(int64_t n, int64_t lanes = 0) const {
    return n <= 0 ? 0 : o + c * double(std::max(n, lanes));
  }
};

struct DeviceCost {
  bool host = false;
  StageCost up, comp, down; // v1: up/down per iteration; v2: only comp
  // The GPU (optional, `full=o,c`): a chunk that fills the device computes
  // at most this -- a concave kernel time, min(comp, full).  A kernel whose
  // threads each run a long loop (mcpi: 256 samples) costs a thread's
  // latency at its end (o) but runs at the device's throughput (c) once
  // it fills it; a small chunk, at comp's lower o and higher c.  c = 0: none.
  StageCost full;
  // A chunk costs at least this many iterations' compute.  The GPU: fitted
  // from co-executed chunks.  The CPU (beyond its team's threads): its
  // chunks' floor beside a GPU in a first run (mcpi's 762-2956 rows all
  // took ~0.35 ms on the H100, call MB: the team's threads waking).
  int64_t lanes = 0;
  // The GPU: the lanes the runtime reports to the scheduler (a 1-D kernel's
  // block times the multiprocessors, CudaDevice::lanes), where `lanes` is
  // what the chunks cost.
  int64_t kernel_lanes = 0;
  // The GPU: its kernel runs a chunk in waves of `wave` iterations (every
  // multiprocessor full), so a chunk costs what the whole waves it needs
  // do; `kernel_wave` is the wave the runtime reports to the scheduler
  // (CudaDevice::wave, SchedParams::waves).  0: none.
  int64_t wave = 0, kernel_wave = 0;
  // The CPU device's OpenMP team alone; beside a working accelerator one
  // core goes to the accelerator's controller thread (docs/design.md).
  int threads = 0;
  // The CPU variant flattens the region's nest (8163d91): a chunk of one
  // row still uses the whole team, so the team is not its lanes.
  bool flat = false;
  double prepare = 0;       // v1: per execution; v2: per execution the device works in
  double prepare_first = 0; // v2, accelerators: the first execution it works in
                            // in a program run (pinning, windows, broadcasts)
  // Accelerators: added to the first chunk of the region in a program run
  // (loading the kernel's module; the first reduction kernel of a process
  // takes ~8 ms on the H100, a plain one ~0.2 ms).
  double first_launch = 0;
  double scale = 1; // every time of this device (calibrate.py: to
                    // the suite's single-device median)
  // `chunk=S` (optional): a chunk's fixed compute seconds measured on the
  // profile's machine (its co-executed traces: the GPU's launch and
  // synchronisation, the CPU's fork and join; bench/sim/chunk_costs.py),
  // unscaled.  read_profile makes comp.o * scale this and refits comp.c so
  // that a chunk of max(W, lanes) iterations (the single device's, which
  // `scale` was fitted on) costs what it did.  < 0: none (comp.o, as
  // calibrated: an assumed fork or launch scaled with the device).
  double chunk = -1;
};

// A mapped array in rows (one row per iteration of the regions that map it
// by rows).
struct Array {
  std::string name;
  double rowbytes = 0;
  int64_t rows = 0;
  bool resident = false; // mapped by an enclosing data region
  // `#pragma hce update from` after every execution (kmeans' labels): the
  // host copy is valid again (outside the regions' time).
  bool home = false;
};

// How a region maps an array: rows [i + lo, i + hi) of iteration i (after
// the region's base), or the whole array (a broadcast section).
struct Use {
  std::string array;
  bool read = false, write = false, whole = false;
  int64_t lo = 0, hi = 1;
};

struct Region {
  std::string name;
  int64_t W = 0;
  int executions = 1;
  int64_t base = 0; // iteration 0 is row `base` of the arrays
  // lud's trailing update: execution e has W - e iterations, and each
  // iteration's row (bytes and work) is (W - e) / W of the first's.
  bool shrink = false;
  // bfs: the program swaps two arrays' pointers after every execution, so
  // odd executions map the one where even ones map the other.
  std::string swap_a, swap_b;
  std::vector<Use> uses;
  std::map<std::string, DeviceCost> cost; // by device ("cpu", "gpu")
  int64_t iterations(int e) const { return shrink ? std::max<int64_t>(1, W - e) : W; }
  double row_scale(int e) const { return shrink ? double(iterations(e)) / double(W) : 1; }
};

// Host contention (optional; docs/simulator.md, session 17): while the CPU's
// team computes, the GPU's copies of pageable host memory (arrays outside a
// data region: registered or staged by one host thread, the outputs first
// touched by the copy) run at up_bw / down_bw bytes per second, the
// machine's measured bandwidth and not the link's scaled one, and the
// CPU's compute runs cpu_scale times slower while such a copy is in flight
// (instead of dma_slowdown).  Absent: no contention (the profiles before
// 2026-11-27's session 17).
struct Contention {
  double cpu_scale = 1;
  double up_bw = 0, down_bw = 0; // 0: the link's, as without contention
  bool on() const { return cpu_scale != 1 || up_bw > 0 || down_bw > 0; }
};

// `copy_threads_beside bw=B [cpu=F] [lat=L worker=V [lat_worker=W]]
// [first_up=U first_down=D]` (optional; after `bench`, that benchmark's
// own; W: per worker the copy wakes, added to L): the CPU
// threads auto lends beside the CPU's team to the GPU's copies
// (region_exec.cpp copy_threads_beside: a one-shot region mapping 64 MiB
// or more, the CPU and the GPU both working) stage its pageable rows at B
// bytes/s each way, nothing registered (`contention` and `unreg` do not
// apply); the CPU's team, that many threads smaller, costs F times per row
// what its whole team beside the GPU costs (0: the threads' ratio; a
// memory-bound loop loses less).  With V, each staged copy (an array's
// rows of a chunk, one staging-pool job) costs L plus at least one round
// of its workers, each moving a piece at V bytes/s (a 1 MiB slot, or for a
// copy of fewer slots than workers its share, StagingPool::piece_bytes;
// the lent threads are the workers): the pool's small copies, which B
// alone makes 3-4x too fast when each had one worker.  The region's first chunk on
// the GPU costs U more up and D more down (the pool's first copies; a
// download into output pages nothing touched yet).  bw 0: not modelled.
struct CopyLending {
  double bw = 0;
  double cpu = 0;
  double lat = 0, worker = 0, first_up = 0, first_down = 0;
  double lat_worker = 0; // per worker a copy wakes, added to lat
  // The seconds of `copies` staged copies of `bytes` together by
  // `workers` workers (0 with no copies).
  double staged(double bytes, int copies, int workers) const;
};

// A copy between host and GPU: lat + bytes / bw.
struct Link {
  double up_lat = 0, up_bw = 0, down_lat = 0, down_bw = 0;
  // Page-locking pageable host rows before their first copy in an
  // execution (`reg=lat,bw`, optional; cuda_device.cpp's cudaHostRegister
  // under the default HCE_CUDA_PIN=region, dropped at the end of every
  // execution outside a data region): lat per array and copy that has rows
  // not registered yet in this execution, + their bytes / reg_bw.  0: none
  // (the cost is then inside the link's bandwidth, as calibrated).
  double reg_lat = 0, reg_bw = 0;
  // Unregistering them (`unreg=bw`, optional, bytes/s, unscaled): when the
  // CPU worked beside the GPU, the execution's end waits for every row
  // registered in it / unreg_bw (PinnedCache drops the registrations once
  // the GPU frees its windows; no host threads to stage with beside a
  // working team, so the rows were registered, not staged).  QB's matadd
  // fdets (traces-h200-2026-11-29-qb-named.tar.xz): 11.6 ms of
  // cudaHostUnregister after the last chunk, ~45 GB/s.  0: none.
  // `unreg=lat,bw`: also lat seconds per registration made in the execution
  // (one cudaHostUnregister each; lud's rows are too few for the bytes to
  // tell: QB's lud adets/hguided/fdets traces, 39-68 us per call).
  double unreg_lat = 0, unreg_bw = 0;
  // Copies of a data region's arrays once they are page-locked whole
  // (`pinned=up_bw,down_bw`, optional, bytes/s, unscaled): the GPU's
  // preparation in an execution where the CPU's team works pins them (no
  // host threads to stage with: cuda_device.cpp stages_instead_of_pinning),
  // and they stay pinned until the data region ends.  The link's own
  // bandwidth is the GPU alone's, which stages arrays of 4 MiB or more
  // through the pool (64 MiB or more before 2c5cb47).  0: none (the copies
  // at the link's, as calibrated).
  double pin_up_bw = 0, pin_down_bw = 0;
  // Registering them (`pinned=up_bw,down_bw,reg_bw`, the third value
  // optional, bytes/s): that preparation takes each array's bytes / reg_bw
  // the first time it pins it, whether or not the GPU already holds the
  // array (call OF, H200: jacobi2d's sweep_BA registered A and B, 256 MiB,
  // for ~16 ms though both were on the GPU).  0: none (inside the
  // preparation's calibrated prepare_first).
  double pin_reg_bw = 0;
  // Copy batches (`batch=S`, optional, seconds): since 21e6ab0 the runtime
  // waits once for a chunk's copies in one direction (DataEnv::run_copies),
  // so a step's copies cost one latency plus S for each further copy (the
  // enqueue: ~2 us on the H200, call YB).  0: every copy its own latency,
  // as the runtime before 21e6ab0 and the profiles calibrated on it.
  double batch_enqueue = 0;
  // The latency part of `copies` copies in one direction of one step.
  double latency(int copies, double lat) const {
    if (copies <= 0)
      return 0;
    return batch_enqueue > 0 ? lat + (copies - 1) * batch_enqueue : copies * lat;
  }
  bool known() const { return up_bw > 0 && down_bw > 0; }
};

struct Bench {
  std::string name;
  std::vector<Region> regions;
  std::vector<Array> arrays;
  Link link;
  // A `contention` line after `bench`: this benchmark's own, replacing the
  // machine's (Machine::contention).
  bool has_contention = false;
  Contention contention;
  bool has_lending = false; // its own `copy_threads_beside`
  CopyLending lending;
  std::map<std::string, double> measured; // config -> seconds
  std::map<std::string, double> bytes;    // config -> measured bytes moved
  // config -> the fastest and slowest of the measured runs
  std::map<std::string, std::pair<double, double>> spread;
  std::map<std::string, std::string> run; // config -> which measured run
  int rounds = 0;                         // suite rounds after the warm-up
  // The suite ran each configuration's warm-up and rounds in turn
  // (bench/suite.py before 03e76ea: runs G, H) instead of interleaved.
  bool blocked = false;
  bool v2() const { return link.known(); }
  const Array *array(const std::string &n) const {
    for (const Array &a : arrays)
      if (a.name == n)
        return &a;
    return nullptr;
  }
};

// The runtime's fixed cost per execution (bench/region_overhead_bench.cpp):
// waking the controllers, the site, claims, the data layer's bookkeeping.
struct Overheads {
  double cpu = 0;  // the CPU alone
  double gpu = 0;  // the GPU alone (its launch is the chunk's compute o)
  double pair = 0; // two devices named, one of them working
  double both = 0; // two devices working
};

struct Machine {
  Overheads overhead;
  // CPU compute time per second of concurrent GPU copies (host DRAM shared
  // with the copy engines; host-dram-under-dma.cu).
  double dma_slowdown = 1;
  // `cpu_team S` (optional): the CPU's first chunk in a program run costs S
  // seconds more, unscaled: the calling thread's first fork creates the
  // OpenMP team (runtime before c28996e, ~1 ms on the H100 host), in every
  // configuration the CPU works in.  0: none (the profiles before the
  // 11-27 one's session 18 change; the cost is then inside `comp`).
  double cpu_team = 0;
  // `cpu_team S prologue`: the team is made in the CPU's prologue
  // (region_exec.cpp: CpuDevice::use_team before its first ask, the trace's
  // "cpu prepare" span), not inside its first chunk: the scheduler is not
  // told it as chunk seconds, HCE_STATS' busy leaves it out, and it is paid
  // wherever the CPU is woken, even if it then gets nothing.
  bool cpu_team_prologue = false;
  // `prepare_registering S` (optional, seconds, unscaled): a GPU's first
  // preparation of a region in an execution in which it registers the data
  // region's arrays beside a working CPU team (`pinned=...,reg`) costs at
  // most S besides the registration, in place of `prepare_first`: that was
  // calibrated on the GPU alone, whose first preparation makes the staging
  // pool, which the registering GPU does not (call WC's traces).  < 0: none.
  double prepare_registering = -1;
  // Copy threads lent beside the CPU's team (CopyLending); a benchmark's
  // own line replaces it.
  CopyLending lending;
  // `copy_threads_under S1,S2...` (optional): the schedulers under which
  // the measured runtime lent those threads, where it is not the simulated
  // runtime's rule (auto, eft, fdets, hguided since 127d285; auto and eft
  // before, as in calls SA-SB and TC).  Empty: the current rule.
  std::vector<std::string> lend_under;
  // `staging_pool S` (optional, seconds, unscaled): the GPU's preparation
  // in the first execution of a program run in which the CPU lends it copy
  // threads makes the staging pool (cuda_device.cpp prepare_copies ->
  // ensure_pool: pinned staging buffers and their threads) before its first
  // chunk.  The GPU alone makes it inside its first upload, where the
  // calibrated link and scale hold it.  0: none.
  double staging_pool = 0;
  // `pipeline_first S` (optional, seconds, unscaled; session 33): the first
  // kernel of every execution of ADETS' pipelined GPU computes S more than
  // its later ones of the same size, so the scheduler's Alg. 4 sees its
  // second chunk faster than its first and grows the chunks (docs/simulator.md,
  // "ADETS in the simulator").  0: none.
  double pipeline_first = 0;
  // `both_ways G` (optional, >= 1; session 63): a pipelined GPU's copies
  // staged by threads (lent beside the CPU's team) share the staging pool:
  // an upload and a download at once move G times the bytes one copy alone
  // moves in the same time (call BA, H200, eight workers: 37.0 GB/s both
  // ways against 32.8 one after the other, G ~1.12).  Modelled on the
  // upload: over its overlap o with the last chunk's download it takes
  // (2 - G) o longer.  0: the two directions independent (the copy
  // engines' registered copies).
  double both_ways = 0;
  // `chunk_host S [copy=C]` (optional, seconds, unscaled; session 36): in
  // an execution where two or more devices work, each device's controller
  // spends S per chunk outside the chunk's timed stages (the hand-off:
  // complete_and_next under the shared lock, the next stage's setup, the
  // untimed ends of its upload and download spans) before it asks again,
  // and C more inside a stage that copies, per direction (the batch's
  // bookkeeping around the `cuda:0 copies` span: finding the missing rows,
  // the window, marking them valid).  0: none.
  double chunk_host = 0, chunk_copy = 0;
  const CopyLending &lending_of(const Bench &b) const {
    return b.has_lending ? b.lending : lending;
  }
  // The CPU and the GPU's pageable copies slowing each other (Contention);
  // a benchmark's own line replaces it.
  Contention contention;
  const Contention &contention_of(const Bench &b) const {
    return b.has_contention ? b.contention : contention;
  }
  int rounds = 5; // default suite rounds after the warm-up
  std::vector<Bench> benches;
};

// Reads a profile; throws std::runtime_error naming the file and line.
Machine read_profile(const std::string &path);

} // namespace hce::sim
