// One device's part of one execution of a generated region: the three
// stages of each of its chunks (make the chunk's data valid on the device,
// run the variant, record its writes and bring results home), its
// reduction partials and the bytes it moved.  execute_region makes one per
// device and hands it to the chunk loop (bind()).
#pragma once

#include "chunk_loop.hpp"
#include "data_env.hpp"
#include "hce/hce.h"

#include <array>
#include <mutex>
#include <string>
#include <vector>

namespace hce {

class RegionDeviceWork {
public:
  RegionDeviceWork(Runtime &rt, const hce_region &region, int device, CoMode co);
  RegionDeviceWork(const RegionDeviceWork &) = delete;
  RegionDeviceWork &operator=(const RegionDeviceWork &) = delete;
  // For a later execution of the same site on the same device: as if made
  // anew for `region`, keeping its storage (the slots' pointer tables).
  void reset(const hce_region &region, CoMode co);
  int device() const { return device_; }

  // Points `w`'s stages at this object (which must outlive the loop).
  void bind(ChunkWorker &w);

  bool upload(Range range, int slot, std::string &why);
  bool compute(Range range, int slot, std::string &why);
  bool download(Range range, int slot, std::string &why);
  void abandon(int slot);
  // Of the slot's last upload stage, the share (by bytes) that moved a data
  // region's elements into the device for the first time.
  double first_upload_share(int slot) const { return slots_[size_t(slot)].first_share; }
  // ... and the share that moved a data region's elements, first or again
  // (for a host, all of it: its upload stage fetches what devices hold).
  double placed_upload_share(int slot) const { return slots_[size_t(slot)].placed_share; }
  // Per-execution preparation on the device's controller (accelerators);
  // `others_work`: other devices run chunks of the execution.
  void prepare(const Device::Wanted &wanted, bool others_work);
  // After its last chunk of the execution (accelerators in a data region,
  // beside other devices): the region's arrays it does not hold yet, copied
  // in the background (DataEnv::prefetch).
  void prefetch();
  // After a failure: gives the device's data back to the host; "" or a
  // fatal error.  `finished` gets the iterations of its failed chunks whose
  // results are home all the same and must not run again: the pieces of a
  // chunk run in pieces that its chunk did not complete (before the piece
  // that failed, or all of them when a chunk ahead failed), and a chunk whose
  // download failed once the rescue brought its results home.  Run again
  // from the host's values, an update in place (a[i] = 2 * a[i] + 1) would
  // be applied twice.
  std::string rescue(std::vector<Range> &finished);

  // The reduction partials of the chunks it completed, and its traffic.
  const std::vector<unsigned char> &partials() const { return partials_; }
  const TransferCounts &bytes() const { return bytes_; }

private:
  struct Slot {
    std::vector<void *> ptrs;
    DataEnv::ChunkHold hold;
    std::vector<unsigned char> red;
    // The chunk's data does not fit in the device's memory: it ran as
    // consecutive pieces that do, in the upload stage.
    bool in_pieces = false;
    double first_share = 0;  // first_upload_share()
    double placed_share = 0; // placed_upload_share()
  };
  bool run_in_pieces(Range range, Slot &s, std::string &why);
  // Under partials_mutex_: a finished chunk's (or piece's) reduction
  // partials into the device's.
  void add_partials(const std::vector<unsigned char> &red);

  Runtime &rt_;
  const hce_region *r_;
  const int device_;
  CoMode co_;
  DataEnv &data_;
  std::array<Slot, kPipelineDepth> slots_;
  std::mutex partials_mutex_; // the upload stage's pieces and the download stage
  std::vector<unsigned char> partials_;
  TransferCounts bytes_;
  // For rescue(), under partials_mutex_: pieces released whose chunk has
  // not completed (it failed, or a pipeline abandoned it after a chunk
  // ahead of it failed); chunks (and their slots) whose download failed.
  std::vector<Range> pieces_home_;
  struct FailedDownload {
    Range range;
    std::vector<unsigned char> red; // its reduction partials
  };
  std::vector<FailedDownload> failed_downloads_;
};

} // namespace hce
