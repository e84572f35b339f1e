#include "tasks/device_claims.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace hce::tasks {
namespace {

// Flags by device index and a short list of sites, not std::sets: a claim
// is taken and let go at every execution, and lud's 511 executions of ~15
// us each paid a node's allocation and release per device and site.
struct Table {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<char> devices; // held[d], grown on demand
  std::vector<const void *> sites;

  bool holds(int d) const {
    return d >= 0 && size_t(d) < devices.size() && devices[size_t(d)];
  }
  void set(int d, bool held) {
    if (d < 0)
      return;
    if (size_t(d) >= devices.size())
      devices.resize(size_t(d) + 1, 0);
    devices[size_t(d)] = held;
  }
  bool has_site(const void *s) const {
    return std::find(sites.begin(), sites.end(), s) != sites.end();
  }
};

Table &table() {
  static Table *t = new Table; // outlives static destructors
  return *t;
}

} // namespace

void DeviceClaim::push(int device) {
  if (in_place_count_ < kInPlace)
    in_place_[in_place_count_++] = device;
  else
    more_.push_back(device);
}

bool DeviceClaim::holds(int device) const {
  bool found = false;
  each([&](int d) { found = found || d == device; });
  return found;
}

DeviceClaim::DeviceClaim(std::span<const int> devices, const void *site) : site_(site) {
  for (int d : devices)
    push(d);
  Table &t = table();
  std::unique_lock<std::mutex> lock(t.mutex);
  t.cv.wait(lock, [&] {
    if (site_ && t.has_site(site_))
      return false;
    bool busy = false;
    each([&](int d) { busy = busy || t.holds(d); });
    return !busy;
  });
  each([&](int d) { t.set(d, true); });
  if (site_)
    t.sites.push_back(site_);
}

void DeviceClaim::add(int device) {
  if (holds(device))
    return;
  Table &t = table();
  std::unique_lock<std::mutex> lock(t.mutex);
  t.cv.wait(lock, [&] { return !t.holds(device); });
  t.set(device, true);
  push(device);
}

DeviceClaim::~DeviceClaim() {
  Table &t = table();
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    each([&](int d) { t.set(d, false); });
    if (site_)
      t.sites.erase(std::find(t.sites.begin(), t.sites.end(), site_));
  }
  t.cv.notify_all();
}

} // namespace hce::tasks
