// hce-sim's host-contention model (docs/simulator.md, session 17) on one
// synthetic execution: the CPU computes [0, 100) while the GPU uploads and
// downloads the pageable rows of [100, 200).  With a `contention` line the
// CPU's chunk that overlaps the GPU's copies takes longer and the copies
// run at the contended bandwidth; without one nothing changes.
//
// Also the residency model without the communication optimisation
// (HCE_CO=off, the suite's "fdets no-CO"; residency.hpp) on an iterative
// loop over data-region arrays: it moves more bytes than with CO and takes
// longer, both execution by execution (Residency, LoopSim) and through a
// whole simulated program (run_program with Config::co, as hce-sim runs
// "fdets-no-CO").
//
// And the page-locking of pageable rows (Link::reg_lat, `link ... reg=`):
// paid once per array and copy with rows not registered yet in the
// execution, not again for rows registered earlier in it (a no-CO
// re-upload), again in the next execution, never for data-region arrays,
// and nothing at all without `reg`.
//
// And the registration of a data region's arrays by a preparation beside
// the CPU's team (Link::pin_reg_bw, `link ... pinned=up,down,reg`): once
// per array and run, never on the GPU alone.
//
// And the CPU team's creation (Machine::cpu_team, `cpu_team S`): the CPU
// alone pays S once per run (in its first chunk, or its prologue), nothing
// without the line; beside a GPU no chunk pays it (the runtime makes the
// team as CUDA starts) and a run whose profile does not name the CPU waits
// at most S for the GPU's first ask (the first ask's grace).
//
// And HCE_MIN_SHARE: a papers' scheduler's region leaves out a device far
// too slow to help, as the runtime does (slow_devices.hpp).
//
// And copy batches (Link::batch_enqueue, `link ... batch=S`): one latency
// per step and direction, S per further copy.
//
// And the copy threads auto lends beside the CPU's team (CopyLending,
// `copy_threads_beside`): the GPU's pageable copies at the lent bandwidth,
// uncontended and unregistered, the CPU's team smaller; only under auto or
// eft, on a one-shot region mapping 64 MiB or more, or in a data region
// while registering its arrays would cost more (lends_in_data_region).
// And a pipelined GPU's staged copies through one pool (both_ways 1, a
// one-shot region's link staged: ExecutionContext::staged_link): an upload
// beside every download still queued moves no faster than one copy alone,
// so the copies take their serial time -- not only beside the last chunk's
// download (a small chunk's after a large one's hid the large one's).
// And a concave GPU kernel (DeviceCost::full, `cost gpu ... full=o,c`): a
// chunk computes min(comp, full); and a CPU's floor (`cost cpu ... lanes=N`):
// a chunk of fewer than N rows costs N rows' compute.
// Exit 0 on success; every failed check is printed.
#include "device.hpp"
#include "loop_sim.hpp"
#include "program_sim.hpp"
#include "residency.hpp"
#include "sim_profile.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace hce::sim;

// Device 0 gets [0, split), device 1 [split, W), one chunk each.
class Fixed final : public hce::Scheduler {
public:
  explicit Fixed(int64_t split) : split_(split) {}
  std::string_view name() const override { return "fixed"; }
  void begin(const hce::SchedParams &p) override {
    W_ = p.iterations;
    given_[0] = given_[1] = false;
  }
  hce::Decision next(int d) override {
    if (given_[d])
      return hce::Decision::done();
    given_[d] = true;
    return d == 0 ? hce::Decision::run(0, split_) : hce::Decision::run(split_, W_);
  }
  void complete(int d, hce::Range, double s) override { seconds_[d] = s; }
  void drop(int) override {}
  double seconds_[2] = {0, 0};

private:
  int64_t split_, W_ = 0;
  bool given_[2] = {false, false};
};

// Chunks of `step` iterations to whichever device asks, in order.
class Pieces final : public hce::Scheduler {
public:
  explicit Pieces(int64_t step) : step_(step) {}
  std::string_view name() const override { return "pieces"; }
  void begin(const hce::SchedParams &p) override {
    W_ = p.iterations;
    next_ = 0;
    chunks_[0] = chunks_[1] = 0;
  }
  hce::Decision next(int d) override {
    if (next_ >= W_)
      return hce::Decision::done();
    const int64_t lb = next_;
    next_ = std::min(W_, next_ + step_);
    ++chunks_[d];
    return hce::Decision::run(lb, next_);
  }
  void complete(int, hce::Range, double) override {}
  void drop(int) override {}
  int chunks_[2] = {0, 0};

private:
  int64_t step_, W_ = 0, next_ = 0;
};

Bench bench(bool resident) {
  Bench b;
  b.name = "synthetic";
  b.link = {5e-6, 10e9, 5e-6, 10e9};
  b.arrays = {{"A", 1e6, 200, resident, false}, {"C", 1e6, 200, resident, false}};
  Region r;
  r.name = "r";
  r.W = 200;
  Use a;
  a.array = "A";
  a.read = true;
  Use c;
  c.array = "C";
  c.write = true;
  r.uses = {a, c};
  DeviceCost cpu;
  cpu.host = true;
  cpu.comp = {0, 1e-4}; // 10 ms for the CPU's 100 rows
  cpu.threads = 1;
  cpu.flat = true;
  DeviceCost gpu;
  gpu.comp = {0, 1e-7};
  r.cost = {{"cpu", cpu}, {"gpu", gpu}};
  b.regions = {r};
  return b;
}

struct Result {
  double wall = 0, cpu_s = 0, gpu_s = 0;
};

// One execution; `scale`: the GPU's link scale (the staging pool's);
// `lent_bw`: copy threads lent beside the CPU's team (0: none); the CPU
// gets [0, split), the GPU the rest.
Result run(const Bench &b, const Contention &con, double scale = 1, double lent_bw = 0,
           int64_t split = 100) {
  Residency res(b);
  Fixed s(split);
  const Region &r = b.regions[0];
  ExecutionContext ctx;
  ctx.region = &r;
  ctx.residency = &res;
  ctx.link = &b.link;
  ctx.link_scale = scale;
  ctx.dma_slowdown = 1.3;
  ctx.contention = con;
  std::vector<SimDevice> devs(2);
  devs[0].cost = r.cost.at("cpu");
  devs[1].cost = r.cost.at("gpu");
  devs[1].gpu = true;
  LoopSim loop(s, devs, ctx);
  hce::SchedParams p;
  p.iterations = r.W;
  p.num_devices = 2;
  p.is_host = {true, false};
  p.lanes = {1, 1};
  loop.begin(p);
  if (lent_bw > 0)
    loop.lend_copy_threads(lent_bw);
  Result out;
  out.wall = loop.run();
  out.cpu_s = s.seconds_[0];
  out.gpu_s = s.seconds_[1];
  return out;
}

int failures = 0;
void check(bool ok, const std::string &what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what.c_str());
    ++failures;
  }
}
bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, b); }

// An iterative loop on data-region arrays: A read, B broadcast (whole), C
// read and written, 4 executions.
Bench iterative() {
  Bench b = bench(true);
  b.arrays.push_back({"B", 1e6, 200, true, false});
  Region &r = b.regions[0];
  r.executions = 4;
  Use bb;
  bb.array = "B";
  bb.read = true;
  bb.whole = true;
  r.uses.push_back(bb);
  r.uses[1].read = true; // C tofrom
  r.cost.at("cpu").threads = 2;
  return b;
}

struct Moved {
  double bytes = 0, wall = 0;
};

// Every execution of the loop with the fixed split, the GPU's preparation
// (its broadcasts) before each, on one residency model.
Moved run_executions(const Bench &b, bool co) {
  Residency res(b, co);
  const Region &r = b.regions[0];
  Moved out;
  for (int e = 0; e < r.executions; ++e) {
    Fixed s(100);
    ExecutionContext ctx;
    ctx.region = &r;
    ctx.execution = e;
    ctx.residency = &res;
    ctx.link = &b.link;
    std::vector<SimDevice> devs(2);
    devs[0].cost = r.cost.at("cpu");
    devs[1].cost = r.cost.at("gpu");
    devs[1].gpu = true;
    const Moves prep = res.prepare(r, e);
    devs[1].prepare = prep.seconds(b.link, 1);
    LoopSim loop(s, devs, ctx);
    hce::SchedParams p;
    p.iterations = r.W;
    p.num_devices = 2;
    p.is_host = {true, false};
    p.lanes = {1, 1};
    loop.begin(p);
    out.wall += loop.run();
    out.bytes += prep.bytes();
    for (const DeviceRun &d : loop.devices)
      out.bytes += d.bytes;
    res.end_execution(r, e);
  }
  return out;
}

} // namespace

int main() {
  const Bench paged = bench(false);
  const Result off = run(paged, {});
  // The GPU's 100 MB up (A) and 100 MB down (C) at 10 GB/s: 20 ms of
  // copies beside the CPU's 10 ms chunk.  Without contention the CPU's chunk
  // sees only the copies issued before it (dma_slowdown): none, as it asks
  // first.
  check(near(off.cpu_s, 0.010), "no contention: CPU chunk " + std::to_string(off.cpu_s));

  // cpu_scale 1.6, copies of pageable memory at 2 GB/s up, 4 GB/s down
  // beside the computing CPU.
  const Contention con{1.6, 2e9, 4e9};
  const Result on = run(paged, con);
  check(on.cpu_s > off.cpu_s + 1e-3,
        "contention: the CPU's chunk beside the GPU's copies takes longer (" +
            std::to_string(on.cpu_s) + " s against " + std::to_string(off.cpu_s) + ")");
  check(near(on.cpu_s, 0.016), "contention: 10 ms x 1.6 " + std::to_string(on.cpu_s));
  // Up 100 MB at 2 GB/s (50 ms) + down at 4 GB/s (25 ms), decided at issue
  // while the CPU computes; + latencies and the kernel.
  check(on.gpu_s > 0.074 && on.gpu_s < 0.076,
        "contention: GPU chunk at the contended bandwidth " + std::to_string(on.gpu_s));
  check(on.wall > off.wall, "contention: the execution takes longer");

  // The co-executed GPU's copies are not scaled to the GPU alone's staged
  // ones (link scale 0.3 -> the link's own bandwidth), with contention only.
  const Result off_scaled = run(paged, {}, 0.3);
  const Result cpu_only = run(paged, {1.6, 0, 0}, 0.3);
  check(off_scaled.gpu_s < 0.007,
        "no contention: the scaled link " + std::to_string(off_scaled.gpu_s));
  check(cpu_only.gpu_s > 0.019, "contention without bandwidths: the link's own " +
                                    std::to_string(cpu_only.gpu_s));

  // Arrays in a data region (pinned windows) are not contended: the same
  // as without the line but for cpu_scale replacing nothing (no pageable
  // copies), so identical.
  const Bench pinned = bench(true);
  const Result pin_off = run(pinned, {});
  const Result pin_on = run(pinned, con);
  check(near(pin_off.cpu_s, pin_on.cpu_s) && near(pin_off.gpu_s, pin_on.gpu_s) &&
            near(pin_off.wall, pin_on.wall),
        "resident arrays: contention changes nothing");

  // No contention line: exactly the model before it.
  const Result again = run(paged, Contention{});
  check(again.wall == off.wall && again.cpu_s == off.cpu_s && again.gpu_s == off.gpu_s,
        "no contention: deterministic and unchanged");

  // Without CO: every execution uploads A's and C's GPU rows and B again
  // and downloads C's (4 x 500 MB); with CO only the first uploads
  // (A 100 + C 100 + B 200 MB) and C's results stay on the GPU.
  const Bench it = iterative();
  const Moved co = run_executions(it, true);
  const Moved noco = run_executions(it, false);
  check(near(co.bytes, 400e6), "CO: bytes " + std::to_string(co.bytes));
  check(near(noco.bytes, 2000e6), "no CO: bytes " + std::to_string(noco.bytes));
  check(noco.bytes > co.bytes, "no CO moves more than CO (" + std::to_string(noco.bytes) +
                                   " against " + std::to_string(co.bytes) + ")");
  check(noco.wall > co.wall, "no CO takes longer on resident data (" +
                                 std::to_string(noco.wall) + " s against " +
                                 std::to_string(co.wall) + " s)");

  // The same through a simulated program under FDETS, as hce-sim's "fdets"
  // and "fdets-no-CO" configurations (Config::co).
  Machine m;
  const std::vector<std::string> both = {"cpu", "gpu"};
  const RunResult p_co = run_program(m, it, {"fdets", "fdets", both, false, true}, "");
  const RunResult p_noco =
      run_program(m, it, {"fdets-no-CO", "fdets", both, false, false}, "");
  check(p_noco.bytes > p_co.bytes, "program: no CO moves more than CO (" +
                                       std::to_string(p_noco.bytes) + " against " +
                                       std::to_string(p_co.bytes) + ")");
  check(p_noco.seconds >= p_co.seconds,
        "program: no CO is not faster (" + std::to_string(p_noco.seconds) +
            " s against " + std::to_string(p_co.seconds) + " s)");
  std::printf("no-CO: executions %.0f / %.0f MB, %.4f / %.4f s; program %.0f / %.0f MB, "
              "%.4f / %.4f s (no CO / CO)\n",
              noco.bytes / 1e6, co.bytes / 1e6, noco.wall, co.wall, p_noco.bytes / 1e6,
              p_co.bytes / 1e6, p_noco.seconds, p_co.seconds);

  // Registration: two chunks of pageable A (read) and C (written) on the
  // GPU, 100 rows each, then a re-upload of the first chunk's rows.
  {
    Bench rb = bench(false);
    rb.link.reg_lat = 100e-6;
    rb.link.reg_bw = 1e9;
    const Region &r = rb.regions[0];
    Residency res(rb);
    const Moves a1 = res.acquire(r, 0, {0, 100}, true);
    const Moves r1 = res.release(r, 0, {0, 100}, true);
    // A's 100 rows registered at the upload, C's at the download.
    check(a1.registers == 1 && near(a1.reg_bytes, 100e6),
          "reg: first upload registers A's rows (" + std::to_string(a1.registers) + ")");
    check(r1.registers == 1 && near(r1.reg_bytes, 100e6),
          "reg: first download registers C's rows (" + std::to_string(r1.registers) +
              ")");
    // 5 us + 100 MB / 10 GB/s + 100 us + 100 MB / 1 GB/s.
    check(near(a1.seconds(rb.link, 1), 5e-6 + 0.01 + 100e-6 + 0.1),
          "reg: upload seconds " + std::to_string(a1.seconds(rb.link, 1)));
    const Moves a2 = res.acquire(r, 0, {100, 200}, true);
    check(a2.registers == 1, "reg: other rows register again");
    // What the execution's end unregisters (Link::unreg_bw): A's 200 rows
    // and C's 100, then nothing in the next execution.
    check(near(res.registered_bytes(), 300e6),
          "unreg: the execution registered " + std::to_string(res.registered_bytes()));
    // One cudaHostUnregister per registration (Link::unreg_lat): three.
    check(res.registrations() == 3, "unreg: the execution made " +
                                        std::to_string(res.registrations()) +
                                        " registrations");
    res.end_execution(r, 0);
    check(res.registered_bytes() == 0 && res.registrations() == 0,
          "unreg: nothing registered after the execution");
    Residency noco(rb, false);
    noco.acquire(r, 0, {0, 100}, true);
    noco.release(r, 0, {0, 100}, true);
    const Moves again = noco.acquire(r, 0, {0, 100}, true);
    check(again.up_copies == 1 && again.registers == 0,
          "reg: a no-CO re-upload of registered rows does not register them again");
    noco.end_execution(r, 0);
    const Moves next = noco.acquire(r, 1, {0, 100}, true);
    check(next.registers == 1, "reg: the next execution registers again");
    Bench resident = bench(true);
    resident.link = rb.link;
    Residency rres(resident);
    check(rres.acquire(resident.regions[0], 0, {0, 100}, true).registers == 0,
          "reg: data-region arrays are never registered per copy");
    // First uploads of a data region's rows (Moves::first_up, left out of
    // eft's models): once per row; not a refresh after the CPU wrote it,
    // and never outside a data region.
    {
      Bench fb = bench(true);
      Region w = fb.regions[0]; // the CPU writes A
      w.name = "w";
      Use wa;
      wa.array = "A";
      wa.write = true;
      w.uses = {wa};
      fb.regions.push_back(w);
      Residency fres(fb);
      const Region &fr = fb.regions[0];
      const Moves f1 = fres.acquire(fr, 0, {0, 100}, true);
      check(near(f1.first_up, 100e6) && near(f1.up_bytes, 100e6),
            "first: A's rows' first upload (" + std::to_string(f1.first_up) + ")");
      const Moves f2 = fres.acquire(fr, 0, {50, 150}, true);
      check(near(f2.first_up, 50e6) && near(f2.up_bytes, 50e6),
            "first: only the new rows (" + std::to_string(f2.first_up) + ")");
      fres.release(fb.regions[1], 0, {0, 100}, false);
      const Moves f3 = fres.acquire(fr, 1, {0, 100}, true);
      check(near(f3.up_bytes, 100e6) && f3.first_up == 0,
            "first: a refresh of rows the CPU wrote (" + std::to_string(f3.first_up) +
                ")");
      Bench pb = bench(false);
      Residency pfres(pb);
      check(pfres.acquire(pb.regions[0], 0, {0, 100}, true).first_up == 0,
            "first: none outside a data region");
    }
    Bench plain = bench(false);
    Residency pres(plain);
    const Moves p1 = pres.acquire(plain.regions[0], 0, {0, 100}, true);
    check(near(p1.seconds(plain.link, 1), 5e-6 + 0.01),
          "reg: without `reg` a registration costs nothing");
  }

  // Copy batches (Link::batch_enqueue, `link ... batch=S`): a step's copies
  // in one direction pay one latency and S for each further copy; without
  // `batch`, a latency each.
  {
    Link l;
    l.up_lat = l.down_lat = 1e-5;
    l.up_bw = l.down_bw = 1e10;
    Moves m;
    m.up_copies = 3;
    m.up_bytes = 1e6;
    m.down_copies = 2;
    m.down_bytes = 1e6;
    check(near(m.seconds(l, 1), 5 * 1e-5 + 2e-4),
          "batch: without `batch` every copy its latency " +
              std::to_string(m.seconds(l, 1)));
    l.batch_enqueue = 2e-6;
    check(near(m.seconds(l, 1), (1e-5 + 2 * 2e-6) + (1e-5 + 2e-6) + 2e-4),
          "batch: one latency per direction, 2 us per further copy " +
              std::to_string(m.seconds(l, 1)));
    Moves none;
    check(none.seconds(l, 1) == 0, "batch: no copies, no latency");
  }

  // A controller's hand-off after each chunk (ExecutionContext::chunk_host,
  // `chunk_host S`): while two devices work, a device asks for its next
  // chunk S after one completes; a device alone pays nothing.
  {
    const Bench b = bench(true);
    const Region &r = b.regions[0];
    struct Out {
      double wall = 0;
      int cpu_chunks = 0;
    };
    auto run_pieces = [&](double host, int devices) {
      Residency res(b);
      Pieces s(10);
      ExecutionContext ctx;
      ctx.region = &r;
      ctx.residency = &res;
      ctx.link = &b.link;
      ctx.chunk_host = host;
      std::vector<SimDevice> devs(static_cast<size_t>(devices));
      devs[0].cost = r.cost.at("cpu");
      if (devices == 2) {
        devs[1].cost = r.cost.at("cpu"); // as slow: both take chunks
        devs[1].gpu = true;
      }
      LoopSim loop(s, devs, ctx);
      hce::SchedParams p;
      p.iterations = r.W;
      p.num_devices = devices;
      p.is_host = devices == 2 ? std::vector<bool>{true, false} : std::vector<bool>{true};
      p.lanes = std::vector<int64_t>(static_cast<size_t>(devices), 1);
      loop.begin(p);
      Out o;
      o.wall = loop.run();
      o.cpu_chunks = s.chunks_[0];
      return o;
    };
    const Out off = run_pieces(0, 2), on = run_pieces(1e-3, 2);
    // 20 chunks of 1 ms of compute (and the GPU's copies) shared by two
    // devices: ~10 hand-offs each on the critical path.
    check(on.wall > off.wall + 5e-3 && on.wall < off.wall + 12e-3,
          "chunk_host: two devices pay a hand-off a chunk (" + std::to_string(off.wall) +
              " -> " + std::to_string(on.wall) + " s)");
    check(on.cpu_chunks >= 5 && on.cpu_chunks <= 15,
          "chunk_host: both devices took chunks (" + std::to_string(on.cpu_chunks) + ")");
    check(run_pieces(1e-3, 1).wall == run_pieces(0, 1).wall,
          "chunk_host: a device alone pays nothing");
  }

  // Pinned data-region arrays (Link::pin_up_bw): at the pinned bandwidth,
  // unscaled, once a preparation beside the CPU's team has pinned them.
  {
    Bench pb = bench(true);
    pb.link.pin_up_bw = 40e9;
    pb.link.pin_down_bw = 40e9;
    const Region &r = pb.regions[0];
    Residency res(pb);
    const Moves before = res.acquire(r, 0, {0, 100}, true);
    check(near(before.seconds(pb.link, 2), 2 * (5e-6 + 0.01)),
          "pinned: not pinned yet, the scaled link " +
              std::to_string(before.seconds(pb.link, 2)));
    check(near(res.pin(r, 0), 400e6), "pinned: the first pin pins A and C (2 x 200 MB)");
    check(res.pin(r, 1) == 0, "pinned: arrays pinned before are not pinned again");
    const Moves after = res.acquire(r, 0, {100, 200}, true);
    check(near(after.up_pinned, 100e6) &&
              near(after.seconds(pb.link, 2), 2 * 5e-6 + 0.0025),
          "pinned: 100 MB at 40 GB/s " + std::to_string(after.seconds(pb.link, 2)));
    Bench paged = bench(false);
    paged.link = pb.link;
    Residency pres(paged);
    check(pres.pin(paged.regions[0], 0) == 0, "pinned: pageable arrays pin nothing");
    check(pres.acquire(paged.regions[0], 0, {0, 100}, true).up_pinned == 0,
          "pinned: pageable arrays are never pinned whole");
  }

  // DataEnv::spans_to_pin: after the GPU alone ran the whole loop, the
  // array it only reads is whole on both sides and is not pinned (nothing
  // of it will be copied); the one it writes is.
  {
    Bench pb = bench(true);
    const Region &r = pb.regions[0];
    Residency res(pb);
    res.acquire(r, 0, {0, 200}, true);
    res.release(r, 0, {0, 200}, true);
    res.end_execution(r, 0);
    check(near(res.unpinned(r, 1), 200e6),
          "never copied: only the written C is left to pin (" +
              std::to_string(res.unpinned(r, 1)) + " bytes)");
    check(near(res.pin(r, 1), 200e6), "never copied: the pin pins C alone");
  }

  // Registering them (Link::pin_reg_bw): the co-executed GPU's preparation
  // that pins them first takes their bytes / reg_bw, once per run.
  {
    Bench plain = iterative(); // A, B, C resident; 4 executions
    plain.link.pin_up_bw = plain.link.pin_down_bw = 40e9;
    Bench reg = plain;
    reg.link.pin_reg_bw = 20e9;
    Machine m;
    const Config both_static{"static", "static", {"cpu", "gpu"}, false, true};
    const RunResult p0 = run_program(m, plain, both_static, "");
    const RunResult p1 = run_program(m, reg, both_static, "");
    // A 200, B 200, C 200 MB at 20 GB/s: 30 ms before the GPU's first chunk.
    check(p1.log[0].wall > p0.log[0].wall + 0.02,
          "pin_reg: the first execution waits for the registration (" +
              std::to_string(p1.log[0].wall - p0.log[0].wall) + " s)");
    check(p1.log[1].wall == p0.log[1].wall && p1.log[3].wall == p0.log[3].wall,
          "pin_reg: paid once per run");
    const Config gpu_alone{"gpu", "static", {"gpu"}, false, true};
    check(run_program(m, reg, gpu_alone, "").seconds ==
              run_program(m, plain, gpu_alone, "").seconds,
          "pin_reg: the GPU alone does not pin (the free cores stage)");
  }

  // A registration no chunk of the GPU uses (Device::prepare_host's
  // pieces): once every iteration is complete it stops at its next 32 MiB
  // piece, the rest of the preparation is skipped, and the next executions
  // go on with it (Residency::unpin_last, unprepare_last).
  {
    Bench pb = iterative();
    Residency res(pb);
    const Region &r = pb.regions[0];
    check(near(res.pin(r, 0), 600e6), "pin pieces: A, C and B (3 x 200 MB)");
    res.unpin_last(250e6);
    check(near(res.pin(r, 1), 250e6), "pin pieces: the next pin does what was left");
    check(res.pin(r, 2) == 0, "pin pieces: then nothing");
    Bench slow = iterative(); // 600 MB at 1 GB/s: 0.6 s; the CPU's sweep 40 ms
    slow.link.pin_up_bw = slow.link.pin_down_bw = 40e9;
    slow.link.pin_reg_bw = 1e9;
    Machine m;
    const Config dynamic{"hguided", "hguided", {"cpu", "gpu"}, false, true};
    const RunResult run = run_program(m, slow, dynamic, "");
    // The CPU's sweep (40 ms) to the end of the piece under way (34 ms
    // each): not the rest of the preparation (B's broadcast, 20 ms, and the
    // windows, DataEnv::prepare), nor the 0.6 s of all three arrays.
    const double piece = double(hce::Device::kPinPieceBytes) / 1e9;
    check(run.log[0].wall < 2 * piece + 1e-3,
          "pin pieces: the first execution ends after a piece (" +
              std::to_string(run.log[0].wall) + " s)");
    check(run.log[0].devices[0].iterations == 200,
          "pin pieces: the CPU did the first execution alone");
  }

  // The CPU team: paid once per program run by the CPU alone; beside a GPU
  // made as CUDA starts, S the grace of a first run's first CPU ask.
  {
    const Bench tb = iterative(); // 4 executions
    Machine plain, team;
    team.cpu_team = 1e-3;
    const Config cpu_alone{"cpu", "static", {"cpu"}, false, true};
    const RunResult c0 = run_program(plain, tb, cpu_alone, "");
    const RunResult c1 = run_program(team, tb, cpu_alone, "");
    check(std::fabs(c1.seconds - c0.seconds - 1e-3) < 1e-12,
          "cpu_team: the CPU alone pays it once per run (" +
              std::to_string(c1.seconds - c0.seconds) + " s)");
    const Config gpu_alone{"gpu", "static", {"gpu"}, false, true};
    check(run_program(team, tb, gpu_alone, "").seconds ==
              run_program(plain, tb, gpu_alone, "").seconds,
          "cpu_team: nothing without a CPU");
    const Config both_static{"static", "static", {"cpu", "gpu"}, false, true};
    const RunResult s0 = run_program(plain, tb, both_static, "");
    const RunResult s1 = run_program(team, tb, both_static, "");
    // (Its first execution's wall may not grow: the GPU's upload outlasts
    // the CPU's chunk.)
    check(s1.seconds >= s0.seconds && s1.log[1].wall == s0.log[1].wall &&
              s1.log[3].wall == s0.log[3].wall,
          "cpu_team: co-executed, the later executions do not pay it (" +
              std::to_string(s1.log[1].wall - s0.log[1].wall) + " s)");
    check(std::fabs(s1.log[0].devices[0].compute_busy -
                    s0.log[0].devices[0].compute_busy) < 1e-12,
          "cpu_team: beside a GPU made as CUDA starts, in no chunk");
    check(s1.log[0].wall <= s0.log[0].wall + 1e-3 + 1e-12,
          "cpu_team: a first run's first CPU ask waits at most its grace (" +
              std::to_string(s1.log[0].wall - s0.log[0].wall) + " s)");
    // `cpu_team S prologue` (the runtime's use_team before the first ask):
    // the same wall alone, but no chunk carries it.
    Machine pro = team;
    pro.cpu_team_prologue = true;
    const RunResult c2 = run_program(pro, tb, cpu_alone, "");
    check(std::fabs(c2.seconds - c1.seconds) < 1e-12,
          "cpu_team prologue: the CPU alone pays it once per run");
    const RunResult s2 = run_program(pro, tb, both_static, "");
    check(std::fabs(s2.log[0].devices[0].compute_busy -
                    s0.log[0].devices[0].compute_busy) < 1e-12,
          "cpu_team prologue: not inside a chunk");
    // A profile that names the CPU (an earlier run's): beside a GPU the
    // runtime makes the team as CUDA starts, and no execution pays it; the
    // CPU alone still does.
    const std::string cache =
        (std::filesystem::temp_directory_path() / "hce-sim-contention-team.profile")
            .string();
    {
      std::ofstream out(cache);
      out << "hce-profile 1\nanother.region\t=alone:cpu\t100\t0\t1e-3\t0\t1\n";
    }
    const Config both_warm{"static", "static", {"cpu", "gpu"}, true, true};
    check(run_program(pro, tb, both_warm, cache).seconds ==
              run_program(plain, tb, both_warm, cache).seconds,
          "cpu_team: made as CUDA starts where the profile names the CPU");
    const Config cpu_warm{"cpu", "static", {"cpu"}, true, true};
    check(std::fabs(run_program(pro, tb, cpu_warm, cache).seconds -
                    run_program(plain, tb, cpu_warm, cache).seconds - 1e-3) < 1e-12,
          "cpu_team: the CPU alone pays it with a profile too");
    std::remove(cache.c_str());
  }

  // prepare_registering: beside the CPU the registering GPU's first
  // preparation costs at most S besides the registration, not prepare_first.
  {
    // A registration of 6 ms, over before the CPU's sweep (40 ms) is:
    // the GPU's preparation goes on to prepare_first (50 ms).
    Bench rb = iterative();
    rb.link.pin_up_bw = rb.link.pin_down_bw = 40e9;
    rb.link.pin_reg_bw = 100e9;
    for (auto &r : rb.regions)
      r.cost["gpu"].prepare_first = 0.05 / r.cost["gpu"].scale;
    const Config dynamic{"hguided", "hguided", {"cpu", "gpu"}, false, true};
    Machine plain, reg;
    reg.prepare_registering = 1e-3;
    const RunResult p0 = run_program(plain, rb, dynamic, "");
    const RunResult p1 = run_program(reg, rb, dynamic, "");
    check(p1.log[0].wall < p0.log[0].wall - 0.04,
          "prepare_registering: the first execution drops prepare_first (" +
              std::to_string(p0.log[0].wall) + " -> " + std::to_string(p1.log[0].wall) +
              " s)");
    const Config gpu_alone{"gpu", "static", {"gpu"}, false, true};
    check(run_program(reg, rb, gpu_alone, "").seconds ==
              run_program(plain, rb, gpu_alone, "").seconds,
          "prepare_registering: nothing on the GPU alone");
  }

  // HCE_MIN_SHARE (SlowDevices, as region_exec.cpp applies it): a papers'
  // scheduler's region leaves out a device measured below 3% of the
  // throughput in two executions after the first, and tries it again 16
  // executions later; eft keeps every device in its model.
  {
    Bench mb = iterative();
    mb.regions[0].executions = 24;
    mb.regions[0].cost.at("gpu").comp = {0, 1e-2}; // 1000x slower than the CPU
    Machine m;
    const Config hg{"hguided", "hguided", {"cpu", "gpu"}, false, true};
    const RunResult run = run_program(m, mb, hg, "");
    auto names = [&](int e) {
      std::string n;
      for (const std::string &d : run.log[size_t(e)].names)
        n += d + " ";
      return n;
    };
    check(names(2) == "cpu gpu " && names(3) == "cpu " && names(18) == "cpu ",
          "min share: the GPU left out after executions 1 and 2 (" + names(2) + "| " +
              names(3) + "| " + names(18) + ")");
    check(names(19) == "cpu gpu ",
          "min share: tried again 16 executions later (" + names(19) + ")");
    check(run.log[3].devices.size() == 1 && run.log[3].devices[0].iterations == 200,
          "min share: the CPU alone does the execution");
    const Config eft{"auto", "eft", {"cpu", "gpu"}, false, true};
    const RunResult auto_run = run_program(m, mb, eft, "");
    bool both = true;
    for (const ExecutionLog &x : auto_run.log)
      both = both && x.names.size() == 2;
    check(both, "min share: eft keeps both devices in its model");
  }

  // Copy threads lent beside the CPU's team (CopyLending).
  {
    const Bench lb = bench(false); // A and C pageable, 200 MB each
    const Contention con{1.6, 2e9, 4e9};
    // The GPU's 100 MB up and 100 MB down at 20 GB/s whatever the CPU does,
    // the CPU's chunk not stretched by them.
    const Result lent = run(lb, con, 1, 20e9);
    check(near(lent.gpu_s, 2 * (5e-6 + 100e6 / 20e9) + 100 * 1e-7),
          "lent: the GPU's copies at the lent bandwidth (" + std::to_string(lent.gpu_s) +
              ")");
    check(near(lent.cpu_s, 0.010),
          "lent: the CPU's chunk not contended (" + std::to_string(lent.cpu_s) + ")");
    // Through programs: a one-shot region (400 MB mapped) under auto lends,
    // with a team 8 threads smaller and nothing to unregister; so under
    // hguided; under static nothing changes; nor on data-region arrays.
    Bench one = bench(false);
    one.link.unreg_bw = 1e9; // 0.2 s per 200 MB registered: unmissable
    one.regions[0].cost.at("cpu").threads = 16;
    Machine off, on;
    on.lending = {20e9, 0};
    const Config eft{"auto", "eft", {"cpu", "gpu"}, false, true};
    const RunResult e0 = run_program(off, one, eft, "");
    const RunResult e1 = run_program(on, one, eft, "");
    const auto &d0 = e0.log[0].devices, &d1 = e1.log[0].devices;
    const bool both = d1.size() == 2 && d1[0].iterations > 0 && d1[1].iterations > 0;
    check(both, "lent: eft's first execution runs both devices");
    if (both)
      check(e1.log[0].wall < e0.log[0].wall - 0.1,
            "lent: no unregistration at the end (" + std::to_string(e0.log[0].wall) +
                " -> " + std::to_string(e1.log[0].wall) + " s)");
    check(d0.size() == 2 && d0[0].iterations > 0,
          "lent: without lending the CPU works too");
    if (both && d0.size() == 2 && d0[0].iterations > 0)
      check(d1[0].compute_busy / double(d1[0].iterations) >
                1.5 * d0[0].compute_busy / double(d0[0].iterations),
            "lent: the CPU's 8 threads take longer per row than its 15");
    const Config st{"static", "static", {"cpu", "gpu"}, false, true};
    check(run_program(on, one, st, "").seconds == run_program(off, one, st, "").seconds,
          "lent: not under static (its fixed CPU half)");
    const Config hg{"hguided", "hguided", {"cpu", "gpu"}, false, true};
    check(run_program(on, one, hg, "").seconds != run_program(off, one, hg, "").seconds,
          "lent: under hguided too");
    const Bench dr = iterative();
    check(run_program(on, dr, eft, "").seconds == run_program(off, dr, eft, "").seconds,
          "lent: not on a data region's arrays");
  }

  // Copy threads lent in a data region (lends_in_data_region): while the
  // GPU would register 192 MiB or more of the region's arrays and the
  // lending executions' walls, half of them, stay under what registering
  // them would cost (settings.hpp data_region_lending_pays), the CPU's team
  // is 8 threads smaller and the arrays are staged, not pinned; then they
  // are pinned beside the whole team, and lending does not come back.
  // Never for a region mapping less.
  {
    Bench dr = iterative(); // A, B and C: 600 MB, in a data region
    dr.regions[0].cost.at("cpu").threads = 16;
    dr.regions[0].cost.at("gpu").comp = {0, 1e-4}; // as fast: both keep working
    dr.regions[0].executions = 40;
    dr.link.pin_reg_bw = 20e9;
    Machine off, on;
    on.lending = {20e9, 0};
    const Config hg{"hguided", "hguided", {"cpu", "gpu"}, false, true};
    const RunResult h0 = run_program(off, dr, hg, ""), h1 = run_program(on, dr, hg, "");
    // The CPU's cost per row: 1e-4 s times 16/15 beside the GPU, 15/8 more
    // with 7 threads lent (half of 15).
    auto per_row = [](const ExecutionLog &x) {
      return x.devices.size() == 2 && x.devices[0].iterations > 0
                 ? x.devices[0].compute_busy / double(x.devices[0].iterations)
                 : 0.0;
    };
    const double whole = 1e-4 * 16 / 15, lent = whole * 15 / 8;
    check(h0.log.size() == 40 && h1.log.size() == 40, "data region: 40 executions");
    int lent_execs = 0, stopped_at = -1;
    bool came_back = false;
    for (size_t e = 0; e < h1.log.size() && e < h0.log.size(); ++e) {
      const bool l = std::fabs(per_row(h1.log[e]) - lent) < 1e-9 * lent;
      check(l || std::fabs(per_row(h1.log[e]) - whole) < 1e-9 * whole,
            "data region: execution " + std::to_string(e) + "'s CPU row " +
                std::to_string(per_row(h1.log[e])));
      check(std::fabs(per_row(h0.log[e]) - whole) < 1e-9 * whole,
            "data region: without lending the whole team, execution " +
                std::to_string(e));
      lent_execs += l;
      if (!l && stopped_at < 0)
        stopped_at = int(e);
      came_back = came_back || (l && stopped_at >= 0);
    }
    check(lent_execs > 0 && per_row(h1.log[0]) > whole * 1.5,
          "data region: the first lends");
    check(stopped_at > 0,
          "data region: lending stops once it cost what registering would");
    check(!came_back, "data region: lending does not come back");
    // The lent executions' walls, half of them, under 400 MB at 80 ms/GiB
    // (A and C: B, the broadcast the first preparation uploads whole and
    // the loop only reads, is never copied again and not registered,
    // DataEnv::spans_to_pin); one more would not have been.
    double walls = 0;
    for (int e = 0; e < stopped_at; ++e)
      walls += h1.log[size_t(e)].wall;
    const double budget = 400e6 * 80e-3 / double(1 << 30);
    check(walls * 0.5 >= budget &&
              (walls - h1.log[size_t(stopped_at - 1)].wall) * 0.5 < budget,
          "data region: lent " + std::to_string(walls) + " s against a budget of " +
              std::to_string(2 * budget));
    // Staged, the GPU works in the first execution; registering (30 ms) it
    // does not, the CPU's sweep ending it first.
    check(
        h1.log[0].devices.size() == 2 && h1.log[0].devices[1].iterations > 0 &&
            h0.log[0].devices.size() == 2 && h0.log[0].devices[1].iterations == 0,
        "data region: the first execution's GPU works on staged arrays, not registering "
        "600 MB");
    Bench small = dr; // 3 x 60 MB: under 192 MiB
    for (Array &a : small.arrays)
      a.rowbytes = 3e5;
    check(run_program(on, small, hg, "").seconds ==
              run_program(off, small, hg, "").seconds,
          "data region: no lending under 192 MiB");
  }

  // The staging pool's creation (Machine::staging_pool): in the GPU's
  // preparation of a one-shot region mapping 64 MiB or more when it has
  // copy threads (lent, or the GPU alone), not beside a team lending none,
  // nor on a data region's arrays.
  {
    Bench one = bench(false);
    one.regions[0].cost.at("cpu").threads = 16;
    Machine on, pool;
    on.lending = pool.lending = {20e9, 0};
    pool.staging_pool = 0.004;
    const Config gpu{"gpu", "static", {"gpu"}, false, true};
    const double g0 = run_program(on, one, gpu, "").seconds;
    const double g1 = run_program(pool, one, gpu, "").seconds;
    check(near(g1 - g0, 0.004), "pool: in the GPU alone's preparation (" +
                                    std::to_string(g1 - g0) + " s more)");
    const Config st{"static", "static", {"cpu", "gpu"}, false, true};
    check(run_program(pool, one, st, "").seconds == run_program(on, one, st, "").seconds,
          "pool: not beside a team that lends none (static)");
    const Config hg{"hguided", "hguided", {"cpu", "gpu"}, false, true};
    const RunResult h0 = run_program(on, one, hg, ""),
                    h1 = run_program(pool, one, hg, "");
    check(h1.seconds > h0.seconds, "pool: the lent GPU starts later (" +
                                       std::to_string(h0.seconds) + " -> " +
                                       std::to_string(h1.seconds) + " s)");
    const Bench dr = iterative();
    const Config eft{"auto", "eft", {"cpu", "gpu"}, false, true};
    check(run_program(pool, dr, eft, "").seconds ==
                  run_program(on, dr, eft, "").seconds &&
              run_program(pool, dr, gpu, "").seconds ==
                  run_program(on, dr, gpu, "").seconds,
          "pool: not on a data region's arrays");
  }

  {
    // Staged copies beside the CPU's team (CopyLending::staged): a worker
    // moves a piece at `worker` bytes/s (a 1 MiB slot; a copy of fewer
    // slots than workers is shared in pieces of at least 64 KiB), a large
    // copy is bounded by `bw`; each pays `lat`.
    CopyLending l;
    l.bw = 2e10;
    l.lat = 2e-5;
    l.worker = 4e9;
    const double mib = 1 << 20;
    check(near(l.staged(3 * mib, 3, 8), 3 * (2e-5 + std::max(mib / 2e10, mib / 8 / 4e9))),
          "staged: three 1 MiB copies, eight pieces each " +
              std::to_string(l.staged(3 * mib, 3, 8)));
    check(near(l.staged(3 * mib, 3, 1), 3 * (2e-5 + mib / 4e9)),
          "staged: one worker moves whole slots " +
              std::to_string(l.staged(3 * mib, 3, 1)));
    check(near(l.staged(64 * mib, 1, 8), 2e-5 + 64 * mib / 2e10),
          "staged: a 64 MiB copy at the lent bandwidth " +
              std::to_string(l.staged(64 * mib, 1, 8)));
    check(near(l.staged(0.5 * mib, 2, 8), 2 * (2e-5 + 0.0625 * mib / 4e9)),
          "staged: copies under a slot, in 64 KiB pieces");
    check(l.staged(1e6, 0, 8) == 0, "staged: no copy, no time");
    l.lat_worker = 1e-5; // each worker a copy wakes
    check(near(l.staged(0.5 * mib, 2, 8), 2 * (2e-5 + 4e-5 + 0.0625 * mib / 4e9)),
          "staged: four pieces wake four workers per copy");
    check(near(l.staged(32 * 1024, 1, 8), 2e-5 + 1e-5 + 32 * 1024 / 4e9),
          "staged: one piece wakes one worker");
    l.lat_worker = 0;
    l.worker = 0; // the lent bandwidth only, no latency model
    l.lat = 0;
    check(near(l.staged(3 * mib, 3, 8), 3 * mib / 2e10), "staged: bw only");
  }

  { // both_ways 1 on a pipelined GPU alone: chunks of 100, 10 and 90 rows.
    class Sizes final : public hce::Scheduler {
    public:
      std::string_view name() const override { return "sizes"; }
      void begin(const hce::SchedParams &) override { next_ = 0, k_ = 0; }
      hce::Decision next(int) override {
        static constexpr int64_t kSizes[] = {100, 10, 90};
        if (k_ >= 3)
          return hce::Decision::done();
        const int64_t lb = next_;
        next_ += kSizes[k_++];
        return hce::Decision::run(lb, next_);
      }
      void complete(int, hce::Range, double) override {}
      void drop(int) override {}

    private:
      int64_t next_ = 0;
      int k_ = 0;
    };
    const Bench b = bench(false); // 1 MB rows up (A) and down (C) at 10 GB/s
    const Region &r = b.regions[0];
    const auto wall = [&](double both_ways) {
      Residency res(b);
      Sizes s;
      ExecutionContext ctx;
      ctx.region = &r;
      ctx.residency = &res;
      ctx.link = &b.link;
      ctx.both_ways = both_ways;
      ctx.staged_link = true;
      std::vector<SimDevice> devs(1);
      devs[0].cost = r.cost.at("gpu");
      devs[0].gpu = true;
      devs[0].pipelined = true;
      LoopSim loop(s, devs, ctx);
      hce::SchedParams p;
      p.iterations = r.W;
      p.num_devices = 1;
      p.is_host = {false};
      p.lanes = {1};
      loop.begin(p);
      return loop.run();
    };
    // 200 rows x 0.1 ms each way: 40 ms of copies one at a time, 30 with
    // both at once; beside only the last download, 31.
    const double shared = wall(1), free = wall(0);
    check(free < 0.031,
          "both_ways: without, up and down overlap " + std::to_string(free));
    check(shared > 0.038, "both_ways 1: the copies' serial time, every queued download "
                          "counted " +
                              std::to_string(shared));
  }

  { // full= and a CPU's lanes=: one chunk each (Fixed), no copies.
    Bench b = bench(false);
    Region &r = b.regions[0];
    r.uses.clear();
    r.cost["gpu"].comp = {3e-5, 2e-6};
    r.cost["gpu"].full = {1e-4, 1e-6};
    r.cost["cpu"].flat = false;
    r.cost["cpu"].lanes = 150;
    const auto one = [&](int64_t split) {
      const Result r = run(b, Contention{}, 1, 0, split);
      return std::pair{r.cpu_s, r.gpu_s};
    };
    // The GPU's 150 rows: the full line (1e-4 + 1.5e-4) under comp's (3e-5 + 3e-4).
    const auto [cpu50, gpu150] = one(50);
    check(near(gpu150, 2.5e-4),
          "full: a large chunk at the full line " + std::to_string(gpu150));
    // Its 10 rows: comp's line (3e-5 + 2e-5) under full's (1e-4 + 1e-5).
    const auto [cpu190, gpu10] = one(190);
    check(near(gpu10, 5e-5),
          "full: a small chunk at comp's line " + std::to_string(gpu10));
    // The CPU: 50 rows cost its floor of 150 (1.5e-2), 190 rows their own.
    check(near(cpu50, 1.5e-2), "cpu lanes: 50 rows cost 150 " + std::to_string(cpu50));
    check(near(cpu190, 1.9e-2),
          "cpu lanes: 190 rows their own " + std::to_string(cpu190));
  }

  if (failures == 0)
    std::printf("contention_test: all checks passed\n");
  return failures ? 1 : 0;
}
