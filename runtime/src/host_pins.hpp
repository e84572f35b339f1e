#pragma once
// The host ranges page-locked (cudaHostRegister) by this process, for every
// copy engine that reads host memory.
//
// CUDA refuses a copy whose host span covers both registered and
// unregistered pages, or two registrations ("Memory regions spanning over
// allocations that are both registered and not registered with CUDA are not
// supported and will return CUDA_ERROR_INVALID_VALUE", cuMemcpy docs).  The
// cuda:N devices register the pages of the windows they copy; libomptarget's
// CUDA plugin, behind the omp:N devices, copies the same arrays and knows
// nothing of it (issue 15: cuMemcpyDtoHAsync "invalid argument" with
// HCE_DEVICES=cpu,cuda:0,omp:0).  So registrations go through this table,
// and a copy by another engine is split at registration boundaries while it
// holds the table shared, so no registration changes under it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <shared_mutex>

namespace hce {

class HostPins {
public:
  static HostPins &get();

  // Runs `pin` (which registers [lo, hi)) with the table held exclusively;
  // records the range if it returns true.
  bool add(uintptr_t lo, uintptr_t hi, const std::function<bool()> &pin);
  // Runs `unpin` for the range starting at `lo` with the table held
  // exclusively, and forgets the range.
  void remove(uintptr_t lo, const std::function<void()> &unpin);

  // Calls copy(offset, bytes) for consecutive pieces of [p, p + bytes), each
  // inside one registration or outside all, with the table held shared;
  // stops at the first piece for which copy returns false.
  bool for_each_piece(const void *p, size_t bytes,
                      const std::function<bool(size_t, size_t)> &copy) const;

  size_t ranges() const;

private:
  mutable std::shared_mutex mutex_;
  std::map<uintptr_t, uintptr_t> ranges_; // start -> end
};

} // namespace hce
