#include "exit_signals.hpp"

#include "runtime.hpp"
#include "stats.hpp"
#include "trace.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace hce {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

int wake_pipe[2] = {-1, -1};
std::atomic<bool> caught{false};
std::atomic<bool> installed[3];

void die_of(int sig) {
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Async-signal-safe: only hands the signal to the writer thread.  A second
// signal (or no writer) ends the process at once.
void on_signal(int sig) {
  const int saved = errno;
  unsigned char b = static_cast<unsigned char>(sig);
  if (caught.exchange(true) || write(wake_pipe[1], &b, 1) != 1)
    die_of(sig);
  errno = saved;
}

void write_files() {
  Runtime::with_existing([](Runtime &rt) {
    // Not named_stats(): a region may be running, its scheduler changing;
    // the choices are fold_stats' sample.  (sites() holds the table.)
    std::vector<NamedStats> named;
    for (const SiteState *s : rt.sites())
      named.push_back({s->name, s->stats}); // (read as they are: see above)
    report_stats_from_env(named);
  });
  trace_flush();
}

void writer() {
  unsigned char b = 0;
  while (read(wake_pipe[0], &b, 1) != 1)
    if (errno != EINTR)
      return;
  write_files();
  die_of(b);
}

// A forked child has no writer thread: it gets the default actions back.
void after_fork_in_child() {
  for (size_t i = 0; i < std::size(kSignals); ++i)
    if (installed[i])
      std::signal(kSignals[i], SIG_DFL);
}

bool wanted() {
  for (const char *name : {"HCE_STATS", "HCE_TRACE"}) {
    const char *v = std::getenv(name);
    if (v && *v && std::string(v) != "0")
      return true;
  }
  return false;
}

// At load: a program's own handlers, set later, replace these.
const bool watching = [] {
  if (wanted())
    watch_exit_signals();
  return true;
}();

} // namespace

void watch_exit_signals() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe(wake_pipe) != 0)
      return;
    std::thread(writer).detach();
    pthread_atfork(nullptr, nullptr, after_fork_in_child);
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      struct sigaction old {};
      if (sigaction(kSignals[i], nullptr, &old) != 0 || old.sa_handler != SIG_DFL)
        continue; // ignored (a background job) or the program's own
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESTART;
      installed[i] = sigaction(kSignals[i], &sa, nullptr) == 0;
    }
  });
}

} // namespace hce
