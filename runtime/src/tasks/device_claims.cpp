#include "tasks/device_claims.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>

namespace hce::tasks {
namespace {

struct Table {
  std::mutex mutex;
  std::condition_variable cv;
  std::set<int> devices;
  std::set<const void *> sites;
};

Table &table() {
  static Table *t = new Table; // outlives static destructors
  return *t;
}

} // namespace

DeviceClaim::DeviceClaim(std::vector<int> devices, const void *site)
    : devices_(std::move(devices)), site_(site) {
  Table &t = table();
  std::unique_lock<std::mutex> lock(t.mutex);
  t.cv.wait(lock, [&] {
    if (site_ && t.sites.count(site_))
      return false;
    return std::none_of(devices_.begin(), devices_.end(),
                        [&](int d) { return t.devices.count(d) > 0; });
  });
  t.devices.insert(devices_.begin(), devices_.end());
  if (site_)
    t.sites.insert(site_);
}

void DeviceClaim::add(int device) {
  if (std::find(devices_.begin(), devices_.end(), device) != devices_.end())
    return;
  Table &t = table();
  std::unique_lock<std::mutex> lock(t.mutex);
  t.cv.wait(lock, [&] { return !t.devices.count(device); });
  t.devices.insert(device);
  devices_.push_back(device);
}

DeviceClaim::~DeviceClaim() {
  Table &t = table();
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    for (int d : devices_)
      t.devices.erase(d);
    if (site_)
      t.sites.erase(site_);
  }
  t.cv.notify_all();
}

} // namespace hce::tasks
