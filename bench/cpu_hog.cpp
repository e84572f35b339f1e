// A machine whose cores are taken for a while, on demand: THREADS threads
// spin for ON milliseconds in every PERIOD, together, until SECONDS have
// passed.  The H100 machine of call GB stalled lud's CPU inside runs (the
// CPU alone took 0.0136-0.325 s); this makes such stalls on a quiet machine,
// to measure what auto does with them beside the CPU alone (GPU scripts;
// the simulator's counterpart is hce-sim --stall).
//
//   usage: hce_cpu_hog THREADS ON_MS PERIOD_MS SECONDS
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: hce_cpu_hog THREADS ON_MS PERIOD_MS SECONDS\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const double on = std::atof(argv[2]) * 1e-3, period = std::atof(argv[3]) * 1e-3,
               seconds = std::atof(argv[4]);
  if (threads < 1 || !(on > 0) || !(period >= on) || !(seconds > 0)) {
    std::fprintf(stderr, "hce_cpu_hog: error: bad arguments\n");
    return 2;
  }
  using clock = std::chrono::steady_clock;
  const clock::time_point start = clock::now();
  auto since = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  std::atomic<unsigned long> sink{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      unsigned long x = 0;
      for (double now = since(); now < seconds; now = since()) {
        const double phase = now - period * double(static_cast<long>(now / period));
        if (phase < on) {
          ++x; // spin
        } else {
          std::this_thread::sleep_for(std::chrono::duration<double>(period - phase));
        }
      }
      sink += x;
    });
  for (std::thread &t : pool)
    t.join();
  return sink.load() == 0 ? 1 : 0;
}
