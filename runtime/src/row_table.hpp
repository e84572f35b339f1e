// Arrays of row pointers (HCE_MAP_ROWS: `float **rows`, each row allocated
// apart, mapped as `rows[i][c0:n]`).
//
// The data layer tracks such an array as the flattened array of its rows'
// sections (element c of row r is r*row_len + (c - row_offset), see
// shape_of in data/footprint.cpp), so residency, windows and incremental
// transfers work unchanged.  What differs is where the host elements are
// (in the rows the host table points to, not at host + e) and what a
// variant gets: the CPU works on the host rows through the host table; an
// accelerator holds the rows it needs in its window, one after the other,
// and gets a table of row pointers in its own memory that points into that
// window (DeviceRowTable), exactly as a real GPU kernel indexes
// `rows[i][j]`.
#pragma once

#include "data/interval_set.hpp"
#include "device.hpp"
#include "hce/hce.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace hce {

// Where the elements of a row-pointer map live on the host.
struct RowLayout {
  void *const *rows = nullptr; // the host table: row r starts at rows[r]
  int64_t row_offset = 0;      // first element of each row in the section
  int64_t row_len = 0;         // elements of each row in the section
  size_t elem_size = 0;
  friend bool operator==(const RowLayout &, const RowLayout &) = default;
};

// The layout of `map`, or nullopt for a flat array.
std::optional<RowLayout> row_layout(const hce_map &map);

// Copies the flattened elements `iv` between device memory (`dev_ptr`, the
// device address of element iv.lo) and the host rows: one copy when the
// rows involved are contiguous in host memory, else one copy through a
// packed host buffer.  A null row pointer in the host table is an error.
bool copy_rows(Device &dev, const RowLayout &layout, char *dev_ptr, Interval iv,
               bool to_device, const std::string &array, std::string &why);

// A device's table of row pointers into its window of one array.
class DeviceRowTable {
public:
  // Makes the table point into `window`, which holds the flattened
  // elements [lo, hi): rebuilt (allocated on the device and uploaded) only
  // when the window moved.  False when out of device memory or the upload
  // failed.
  bool update(Device &dev, const RowLayout &layout, void *window, int64_t lo, int64_t hi,
              std::string &why);
  // The table biased by its first row, so that t[r] is the user's row r.
  void *biased() const;
  void release(Device &dev);
  // Whether nothing was made (or all was released).
  bool empty() const {
    return !buffer_ && !window_ && first_row_ == 0 && rows_ == 0 && lo_ == 0 && hi_ == 0;
  }

private:
  void *buffer_ = nullptr;
  int64_t first_row_ = 0, rows_ = 0;
  void *window_ = nullptr;
  int64_t lo_ = 0, hi_ = 0;
};

} // namespace hce
