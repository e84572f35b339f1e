// A literal transcription of the HCE paper's Algorithm 1 (which parts of an
// array to upload to accelerator D_i, Fig. 6) and Algorithm 2 (which parts to
// download from it, Fig. 7), from
// ../shared/seeds/hce-runtime-cooperative-execution.txt.
//
// The co-execution runtime does not plan with this (only the papers' API
// hce_get_array_section_upload/download exposes it): it plans with interval sets
// (transfer_plan.hpp), which handle halos, several arrays and any number of
// pieces.  This exists so that tests can show the generalised algebra gives
// the paper's answers in the paper's setting (one contiguous subarray per
// device, element index == iteration index).
//
// Conventions are the paper's: indices are inclusive ([begin, end]), -1 means
// "no piece", and devices are numbered from 1.
#pragma once

#include "data/interval_set.hpp"

#include <cstdint>
#include <vector>

namespace hce::paper {

// An inclusive subarray [begin, end]; begin == end == -1 when unset.
struct Piece {
  int64_t begin = -1;
  int64_t end = -1;
  // Algorithm 3 lines 7-8 / 13-14 transfer a piece "when begin >= 0".
  bool present() const { return begin >= 0 && end >= begin; }
  friend bool operator==(const Piece &, const Piece &) = default;
};

// W_{x,i}^{begin}, W_{x,i}^{end} for one device.
struct DeviceRange {
  int64_t begin = 0;
  int64_t end = -1;
};

// Up_{i.1}, Up_{i.2} (or Down_{i.1}, Down_{i.2}) and which case of Fig. 6
// (Fig. 7) decided them (1..6; 0 when no case applied, which happens only
// for empty ranges).
struct Result {
  Piece p1, p2;
  int case_no = 0;
};

// Lines 1-4 of both algorithms: device i's subarray from the ratios,
//   begin = W * sum_{j<i} R_j,  end = begin + W * R_i - 1.
// The paper leaves the rounding of W*R open; we round the products of W and
// the prefix sums to the nearest integer, so consecutive devices tile [0, W)
// exactly.  i is 1-based.
DeviceRange subarray(int64_t W, const std::vector<double> &R, int i);

// Algorithm 1, lines 5-35: what to upload to D_i, given what it processed in
// the previous execution (prev) and must process now (curr).
Result alg1_upload(DeviceRange prev, DeviceRange curr);
// Algorithm 1 in full (lines 1-35).
Result alg1_upload(int64_t W, int i, const std::vector<double> &R_prev,
                   const std::vector<double> &R_curr);

// Algorithm 2, lines 5-34: what to download from D_i after it processed curr,
// given what it will process in the next execution (next).
Result alg2_download(DeviceRange curr, DeviceRange next);
// Algorithm 2 in full (lines 1-34).
Result alg2_download(int64_t W, int i, const std::vector<double> &R_curr,
                     const std::vector<double> &R_next);

// The pieces as a half-open interval set (absent pieces skipped).
IntervalSet to_set(const Result &r);
// An inclusive subarray as a half-open interval set.
IntervalSet to_set(DeviceRange r);

} // namespace hce::paper
