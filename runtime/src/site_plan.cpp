#include "site_plan.hpp"

#include <bit>
#include <cstring>

namespace hce {
namespace {

bool same_text(const std::string &kept, const char *given) {
  return std::strcmp(kept.c_str(), given ? given : "") == 0;
}

// Everything of a map but its offset and length (the shape).
bool same_map_but_shape(const hce_map &a, const hce_map &b) {
  return a.name == b.name && a.host == b.host && a.elem_size == b.elem_size &&
         a.kind == b.kind && a.scale == b.scale && a.blocks == b.blocks &&
         a.stride == b.stride && a.extent == b.extent && a.row_offset == b.row_offset &&
         a.row_len == b.row_len;
}

} // namespace

bool PlanKey::matches(const hce_region &r, uint64_t generation) const {
  if (iterations_ != r.iterations || !matches_but_shape(r, generation))
    return false;
  for (size_t m = 0; m < maps_.size(); ++m)
    if (maps_[m].offset != r.maps[m].offset || maps_[m].len != r.maps[m].len)
      return false;
  return true;
}

bool PlanKey::matches_but_shape(const hce_region &r, uint64_t generation) const {
  if (generation_ == 0 || generation_ != generation || chunk_ != r.chunk ||
      std::bit_cast<uint64_t>(alpha_) != std::bit_cast<uint64_t>(r.alpha) ||
      cpu_ != (r.cpu != nullptr) || cuda_ != (r.cuda != nullptr) ||
      omp_ != (r.omp != nullptr) || maps_.size() != size_t(r.num_maps))
    return false;
  for (size_t m = 0; m < maps_.size(); ++m)
    if (!same_map_but_shape(maps_[m], r.maps[m]))
      return false;
  return same_text(name_, r.name) && same_text(devices_, r.devices) &&
         same_text(schedule_, r.schedule) && same_text(co_, r.co) &&
         same_text(ratios_, r.ratios);
}

void PlanKey::reshape(const hce_region &r) {
  iterations_ = r.iterations;
  for (size_t m = 0; m < maps_.size(); ++m) {
    maps_[m].offset = r.maps[m].offset;
    maps_[m].len = r.maps[m].len;
  }
}

void PlanKey::assign(const hce_region &r, uint64_t generation) {
  generation_ = generation;
  name_ = r.name ? r.name : "";
  devices_ = r.devices ? r.devices : "";
  schedule_ = r.schedule ? r.schedule : "";
  co_ = r.co ? r.co : "";
  ratios_ = r.ratios ? r.ratios : "";
  iterations_ = r.iterations;
  chunk_ = r.chunk;
  alpha_ = r.alpha;
  cpu_ = r.cpu != nullptr;
  cuda_ = r.cuda != nullptr;
  omp_ = r.omp != nullptr;
  maps_.assign(r.maps, r.maps + (r.num_maps > 0 ? r.num_maps : 0));
}

bool SitePlan::take_shape(const hce_region &r) {
  const size_t n = size_t(r.num_maps > 0 ? r.num_maps : 0);
  bool same = shape_iterations_ == r.iterations && shape_maps_.size() == 2 * n;
  for (size_t m = 0; same && m < n; ++m)
    same =
        shape_maps_[2 * m] == r.maps[m].offset && shape_maps_[2 * m + 1] == r.maps[m].len;
  if (same)
    return false;
  shape_iterations_ = r.iterations;
  shape_maps_.resize(2 * n);
  for (size_t m = 0; m < n; ++m) {
    shape_maps_[2 * m] = r.maps[m].offset;
    shape_maps_[2 * m + 1] = r.maps[m].len;
  }
  return true;
}

} // namespace hce
