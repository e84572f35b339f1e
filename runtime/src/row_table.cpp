#include "row_table.hpp"

#include <cstring>
#include <vector>

namespace hce {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// One run of flattened elements [lo, lo + n) that is contiguous on the host.
struct HostRun {
  char *host;
  int64_t lo, n;
};

// The host runs of `iv`, consecutive rows merged where they are adjacent
// in memory (rows carved out of one allocation).
bool host_runs(const RowLayout &l, Interval iv, const std::string &array,
               std::vector<HostRun> &runs, std::string &why) {
  const int64_t w = l.row_len;
  for (int64_t r = floor_div(iv.lo, w); r * w < iv.hi; ++r) {
    int64_t lo = std::max(iv.lo, r * w), hi = std::min(iv.hi, (r + 1) * w);
    if (!l.rows[r]) {
      why = "row " + std::to_string(r) + " of '" + array + "' is a null pointer";
      return false;
    }
    char *host = static_cast<char *>(l.rows[r]) +
                 size_t(l.row_offset + (lo - r * w)) * l.elem_size;
    if (!runs.empty() && runs.back().lo + runs.back().n == lo &&
        runs.back().host + size_t(runs.back().n) * l.elem_size == host)
      runs.back().n += hi - lo;
    else
      runs.push_back({host, lo, hi - lo});
  }
  return true;
}

} // namespace

std::optional<RowLayout> row_layout(const hce_map &map) {
  if (!(map.kind & HCE_MAP_ROWS))
    return std::nullopt;
  return RowLayout{static_cast<void *const *>(map.host), map.row_offset, map.row_len,
                   map.elem_size};
}

bool copy_rows(Device &dev, const RowLayout &l, char *dev_ptr, Interval iv,
               bool to_device, const std::string &array, std::string &why) {
  if (iv.hi <= iv.lo)
    return true;
  std::vector<HostRun> runs;
  if (!host_runs(l, iv, array, runs, why))
    return false;
  const size_t es = l.elem_size, bytes = size_t(iv.length()) * es;
  if (runs.size() == 1)
    return to_device ? dev.upload(dev_ptr, runs[0].host, bytes, why)
                     : dev.download(runs[0].host, dev_ptr, bytes, why);
  // Many short rows: one transfer of a packed copy costs one latency, not
  // one per row.
  std::vector<char> packed(bytes);
  if (to_device) {
    for (const HostRun &run : runs)
      std::memcpy(packed.data() + size_t(run.lo - iv.lo) * es, run.host,
                  size_t(run.n) * es);
    return dev.upload(dev_ptr, packed.data(), bytes, why);
  }
  if (!dev.download(packed.data(), dev_ptr, bytes, why))
    return false;
  for (const HostRun &run : runs)
    std::memcpy(run.host, packed.data() + size_t(run.lo - iv.lo) * es,
                size_t(run.n) * es);
  return true;
}

bool DeviceRowTable::update(Device &dev, const RowLayout &l, void *window, int64_t lo,
                            int64_t hi, std::string &why) {
  if (buffer_ && window == window_ && lo == lo_ && hi == hi_)
    return true;
  release(dev);
  const int64_t w = l.row_len;
  const int64_t first = floor_div(lo, w), last = floor_div(hi - 1, w) + 1;
  std::vector<uintptr_t> table(size_t(last - first));
  // Row r's element c is flattened element r*w + (c - row_offset), at
  // window + (that - lo) * elem_size.  Computed on integers: for a row only
  // partly in the window the pointer lies outside the buffer, but the
  // variant only touches the part it mapped.
  const uintptr_t base = reinterpret_cast<uintptr_t>(window);
  for (int64_t r = first; r < last; ++r)
    table[size_t(r - first)] =
        base + uintptr_t((r * w - l.row_offset - lo) * int64_t(l.elem_size));
  const size_t bytes = table.size() * sizeof(uintptr_t);
  void *buf = dev.allocate(bytes);
  if (!buf) {
    why = "out of memory on " + dev.name() + " for the " + std::to_string(bytes) +
          "-byte table of row pointers";
    return false;
  }
  if (!dev.upload(buf, table.data(), bytes, why)) {
    dev.release(buf);
    return false;
  }
  buffer_ = buf;
  first_row_ = first;
  rows_ = last - first;
  window_ = window;
  lo_ = lo;
  hi_ = hi;
  return true;
}

void *DeviceRowTable::biased() const {
  if (!buffer_)
    return nullptr;
  return reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(buffer_) -
                                  uintptr_t(first_row_) * sizeof(void *));
}

void DeviceRowTable::release(Device &dev) {
  if (buffer_)
    dev.release(buffer_);
  *this = DeviceRowTable();
}

} // namespace hce
