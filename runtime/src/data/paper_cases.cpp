// Algorithms 1 and 2 of the HCE paper, transcribed line by line.  Line
// numbers in the comments ("A1 l.6") are the paper's.
#include "data/paper_cases.hpp"

#include <cmath>
#include <stdexcept>

namespace hce::paper {

DeviceRange subarray(int64_t W, const std::vector<double> &R, int i) {
  if (i < 1 || i > static_cast<int>(R.size()))
    throw std::out_of_range("paper::subarray: device index out of range");
  double prefix = 0;
  for (int j = 1; j <= i - 1; ++j)
    prefix += R[static_cast<size_t>(j - 1)];
  // A1 l.1 / A2 l.1: W_{x,i}^{begin} = W * sum_{j=1}^{i-1} R_{x,j}
  int64_t begin = std::llround(static_cast<double>(W) * prefix);
  // A1 l.2 / A2 l.2: W_{x,i}^{end} = W_{x,i}^{begin} + W * R_{x,i} - 1
  // (rounded as begin of device i+1, minus 1, so that devices tile [0, W)).
  int64_t next_begin = std::llround(static_cast<double>(W) *
                                    (prefix + R[static_cast<size_t>(i - 1)]));
  return {begin, next_begin - 1};
}

Result alg1_upload(DeviceRange prev, DeviceRange curr) {
  // A1 l.1: Up_{i.1}^{begin} = Up_{i.1}^{end} = Up_{i.2}^{begin} =
  //         Up_{i.2}^{end} = -1
  Result r;
  const int64_t pb = prev.begin, pe = prev.end;
  const int64_t cb = curr.begin, ce = curr.end;
  // A1 l.5: if W_curr^begin < W_prev^begin
  if (cb < pb) {
    // A1 l.6: if W_curr^end < W_prev^begin            (Case 1)
    if (ce < pb) {
      r.p1 = {cb, ce}; // A1 l.7-8: Up_{i.1} = [W_curr^begin, W_curr^end]
      r.case_no = 1;
    }
    // A1 l.10: if W_prev^begin <= W_curr^end <= W_prev^end   (Case 2)
    if (ce >= pb && ce <= pe) {
      r.p1 = {cb, pb - 1}; // A1 l.11-13: Up_{i.1} = [W_curr^begin,
                           //                        W_prev^begin - 1]
      r.case_no = 2;
    }
    // A1 l.14: if W_curr^end > W_prev^end             (Case 3)
    if (ce > pe) {
      r.p1 = {cb, pb - 1}; // A1 l.15-16: Up_{i.1} = [W_curr^begin,
                           //                        W_prev^begin - 1]
      r.p2 = {pe + 1, ce}; // A1 l.17-18: Up_{i.2} = [W_prev^end + 1,
                           //                        W_curr^end]
      r.case_no = 3;
    }
  } // A1 l.20
  // A1 l.21: if W_prev^begin <= W_curr^begin <= W_prev^end
  if (cb >= pb && cb <= pe) {
    // A1 l.22: if W_curr^end <= W_prev^end            (Case 4)
    if (ce <= pe) {
      // A1 l.23: there is no need to upload data to D_i
      r.case_no = 4;
    }
    // A1 l.25: if W_curr^end > W_prev^end             (Case 5)
    if (ce > pe) {
      r.p1 = {pe + 1, ce}; // A1 l.26: Up_{i.1} = [W_prev^end + 1, W_curr^end]
      r.case_no = 5;
    }
  } // A1 l.29
  // A1 l.30: if W_curr^begin > W_prev^end             (Case 6)
  if (cb > pe) {
    r.p1 = {cb, ce}; // A1 l.31-32: Up_{i.1} = [W_curr^begin, W_curr^end]
    r.case_no = 6;
  }
  // A1 l.35: return Up_{i.1}, Up_{i.2}
  return r;
}

Result alg1_upload(int64_t W, int i, const std::vector<double> &R_prev,
                   const std::vector<double> &R_curr) {
  // A1 l.1-4: the previous and current subarrays of D_i.
  return alg1_upload(subarray(W, R_prev, i), subarray(W, R_curr, i));
}

Result alg2_download(DeviceRange curr, DeviceRange next) {
  // A2 l.1: Down_{i.1}^{begin} = Down_{i.1}^{end} = Down_{i.2}^{begin} =
  //         Down_{i.2}^{end} = -1
  Result r;
  const int64_t cb = curr.begin, ce = curr.end;
  const int64_t nb = next.begin, ne = next.end;
  // A2 l.5: if W_next^begin <= W_curr^begin
  if (nb <= cb) {
    // A2 l.6: if W_next^end < W_curr^begin            (Case 1)
    if (ne < cb) {
      r.p1 = {cb, ce}; // A2 l.7-8: Down_{i.1} = [W_curr^begin, W_curr^end]
      r.case_no = 1;
    }
    // A2 l.10: if W_curr^begin <= W_next^end < W_curr^end   (Case 2)
    if (ne >= cb && ne < ce) {
      r.p1 = {ne + 1, ce}; // A2 l.11-12: Down_{i.1} = [W_next^end + 1,
                           //                          W_curr^end]
      r.case_no = 2;
    }
    // A2 l.14: if W_next^end >= W_curr^end             (Case 3)
    if (ne >= ce) {
      // A2 l.15: there is no need to download data from D_i
      r.case_no = 3;
    }
  } // A2 l.17
  // A2 l.18: if W_curr^begin < W_next^begin <= W_curr^end
  if (nb > cb && nb <= ce) {
    // A2 l.18 (cont.): if W_next^end < W_curr^end     (Case 4)
    if (ne < ce) {
      r.p1 = {cb, nb - 1}; // A2 l.19-21: Down_{i.1} = [W_curr^begin,
                           //                          W_next^begin - 1]
      r.p2 = {ne + 1, ce}; // A2 l.22-24: Down_{i.2} = [W_next^end + 1,
                           //                          W_curr^end]
      r.case_no = 4;
    }
    // A2 l.25: if W_next^end >= W_curr^end             (Case 5)
    if (ne >= ce) {
      r.p1 = {cb, nb - 1}; // A2 l.26-28: Down_{i.1} = [W_curr^begin,
                           //                          W_next^begin - 1]
      r.case_no = 5;
    }
  } // A2 l.29
  // A2 l.30: if W_next^begin > W_curr^end              (Case 6)
  if (nb > ce) {
    r.p1 = {cb, ce}; // A2 l.31-32: Down_{i.1} = [W_curr^begin, W_curr^end]
    r.case_no = 6;
  }
  // A2 l.34: return Down_{i.1}, Down_{i.2}
  return r;
}

Result alg2_download(int64_t W, int i, const std::vector<double> &R_curr,
                     const std::vector<double> &R_next) {
  // A2 l.1-4: the current and next subarrays of D_i.
  return alg2_download(subarray(W, R_curr, i), subarray(W, R_next, i));
}

IntervalSet to_set(const Result &r) {
  IntervalSet s;
  // Algorithm 3 l.7-8 and l.13-14: a piece is transferred when begin >= 0.
  if (r.p1.present())
    s.add(r.p1.begin, r.p1.end + 1);
  if (r.p2.present())
    s.add(r.p2.begin, r.p2.end + 1);
  return s;
}

IntervalSet to_set(DeviceRange r) { return IntervalSet(r.begin, r.end + 1); }

} // namespace hce::paper
