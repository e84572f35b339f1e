// The residency model of hce-sim (residency.hpp).
#include "residency.hpp"

#include <algorithm>

namespace hce::sim {

Residency::Residency(const Bench &b, bool co) : co_(co) {
  for (const Array &a : b.arrays) {
    State s;
    s.array = &a;
    s.valid[0] = IntervalSet(0, a.rows); // the program's data starts on the host
    arrays_.push_back(s);
  }
}

Residency::State *Residency::state(const Region &r, int e, const Use &u) {
  std::string array = u.array;
  if (e % 2 == 1 && !r.swap_a.empty())
    array = array == r.swap_a ? r.swap_b : array == r.swap_b ? r.swap_a : array;
  for (State &s : arrays_)
    if (s.array->name == array)
      return &s;
  return nullptr;
}

IntervalSet Residency::rows(const Region &r, int e, const Use &u, Range range,
                            const Array &a) const {
  if (u.whole)
    return IntervalSet(0, a.rows);
  // lud: row k+1 is iteration 0 of execution k.
  const int64_t base = r.base + (r.shrink ? e : 0);
  IntervalSet s(range.lb + base + u.lo, range.ub - 1 + base + u.hi);
  return s.clip(0, a.rows);
}

void Residency::register_rows(State &s, const IntervalSet &rows, double rowbytes,
                              Moves &m) {
  if (s.array->resident)
    return; // a data region's arrays: pinned by the preparation
  const IntervalSet fresh = s.registered.missing(rows);
  if (fresh.empty())
    return;
  m.registers += 1;
  m.reg_bytes += double(fresh.total_length()) * rowbytes;
  registered_bytes_ += double(fresh.total_length()) * rowbytes;
  registrations_ += 1;
  s.registered.unite(fresh);
}

Moves Residency::acquire(const Region &r, int e, Range range, bool gpu) {
  Moves m;
  const int h = gpu ? 1 : 0;
  for (const Use &u : r.uses) {
    State *s = state(r, e, u);
    if (!s || !u.read || (u.whole && gpu && co_))
      continue; // the GPU's broadcasts: prepare() (without CO: every chunk)
    const IntervalSet missing = s->valid[h].missing(rows(r, e, u, range, *s->array));
    const int64_t n = missing.total_length();
    if (n == 0)
      continue;
    const double bytes = double(n) * s->array->rowbytes * r.row_scale(e);
    (gpu ? m.up_bytes : m.down_bytes) += bytes;
    (gpu ? m.up_copies : m.down_copies) += 1;
    if (gpu && !s->array->resident)
      m.up_paged += bytes;
    if (s->pinned) // the CPU's downloads of GPU rows too (the GPU's copy engine)
      (gpu ? m.up_pinned : m.down_pinned) += bytes;
    if (gpu)
      register_rows(*s, missing, s->array->rowbytes * r.row_scale(e), m);
    if (s->array->resident)
      m.resident += bytes;
    if (gpu && s->array->resident) {
      const IntervalSet first = IntervalSet(missing).subtract(s->received);
      m.first_up += double(first.total_length()) * s->array->rowbytes * r.row_scale(e);
      s->received.unite(missing);
    }
    s->valid[h].unite(missing);
  }
  return m;
}

Moves Residency::release(const Region &r, int e, Range range, bool gpu) {
  Moves m;
  const int h = gpu ? 1 : 0;
  for (const Use &u : r.uses) {
    State *s = state(r, e, u);
    if (!s || !u.write)
      continue;
    const IntervalSet w = rows(r, e, u, range, *s->array);
    s->valid[h].unite(w);
    s->valid[1 - h].subtract(w);
    if (gpu && (!s->array->resident || !co_)) { // results come home now
      const double bytes = double(w.total_length()) * s->array->rowbytes * r.row_scale(e);
      m.down_bytes += bytes;
      if (!s->array->resident)
        m.down_paged += bytes;
      if (s->pinned)
        m.down_pinned += bytes;
      m.down_copies += 1;
      register_rows(*s, w, s->array->rowbytes * r.row_scale(e), m);
      s->valid[0].unite(w);
    }
  }
  if (gpu && !co_) // without CO the GPU keeps nothing of the region's maps
    for (const Use &u : r.uses)
      if (State *s = state(r, e, u))
        s->valid[1].clear();
  return m;
}

Moves Residency::prepare(const Region &r, int e) {
  Moves m;
  last_prepared_.clear();
  for (const Use &u : r.uses) {
    State *s = state(r, e, u);
    if (!s || !u.read || !u.whole)
      continue;
    const IntervalSet missing = s->valid[1].missing(rows(r, e, u, {0, 0}, *s->array));
    if (missing.empty())
      continue;
    const double bytes =
        double(missing.total_length()) * s->array->rowbytes * r.row_scale(e);
    m.up_bytes += bytes;
    m.up_copies += 1;
    if (s->pinned)
      m.up_pinned += bytes;
    register_rows(*s, missing, s->array->rowbytes * r.row_scale(e), m);
    s->valid[1].unite(missing);
    last_prepared_.push_back({s, missing});
  }
  return m;
}

void Residency::unprepare_last() {
  for (auto &[s, rows] : last_prepared_)
    s->valid[1].subtract(rows);
  last_prepared_.clear();
}

// DataEnv::spans_to_pin: an array the region only reads, whole on the GPU
// and on the host, is not page-locked -- nothing of it will be copied (a
// GPU alone's first execution uploaded it).
bool Residency::never_copied(const Region &r, int e, const State &s) {
  for (const Use &u : r.uses)
    if (u.write && state(r, e, u) == &s)
      return false;
  const int64_t rows = s.array->rows;
  return s.valid[0].contains(0, rows) && s.valid[1].contains(0, rows);
}

double Residency::pin(const Region &r, int e) {
  double bytes = 0;
  last_pinned_.clear();
  for (const Use &u : r.uses)
    if (State *s = state(r, e, u);
        s && s->array->resident && !s->pinned && !never_copied(r, e, *s)) {
      const double whole = double(s->array->rows) * s->array->rowbytes;
      s->pinned = true;
      last_pinned_.push_back({s, whole - s->pinned_bytes});
      bytes += whole - s->pinned_bytes;
      s->pinned_bytes = whole;
    }
  return bytes;
}

double Residency::unpinned(const Region &r, int e) {
  double bytes = 0;
  for (const Use &u : r.uses)
    if (State *s = state(r, e, u);
        s && s->array->resident && !s->pinned && !never_copied(r, e, *s))
      bytes += double(s->array->rows) * s->array->rowbytes - s->pinned_bytes;
  return bytes;
}

double Residency::unpinned_spans(const Region &r, int e, double min_span) {
  // One span per array (DataEnv::array_uses: the hull of its maps' rows).
  std::vector<std::pair<State *, IntervalSet>> spans;
  for (const Use &u : r.uses) {
    State *s = state(r, e, u);
    if (!s || !s->array->resident || s->pinned || never_copied(r, e, *s))
      continue;
    const IntervalSet rs = rows(r, e, u, Range{0, r.iterations(e)}, *s->array);
    auto it = std::find_if(spans.begin(), spans.end(),
                           [s](const auto &p) { return p.first == s; });
    if (it == spans.end())
      spans.push_back({s, rs});
    else
      it->second.unite(rs);
  }
  double bytes = 0;
  for (const auto &[s, rs] : spans) {
    const Interval hull = rs.hull();
    const double span = double(hull.hi - hull.lo) * s->array->rowbytes;
    if (span >= min_span)
      bytes += std::max(0.0, span - s->pinned_bytes);
  }
  return bytes;
}

double Residency::host_lacks(const Region &r, int e) {
  double bytes = 0;
  for (const Use &u : r.uses)
    if (State *s = state(r, e, u); s && s->array->resident && u.read)
      bytes += double(s->valid[0]
                          .missing(rows(r, e, u, Range{0, r.iterations(e)}, *s->array))
                          .total_length()) *
               s->array->rowbytes;
  return bytes;
}

void Residency::unpin_last(double bytes) {
  for (auto it = last_pinned_.rbegin(); it != last_pinned_.rend() && bytes > 0; ++it) {
    const double take = std::min(bytes, it->second);
    it->first->pinned_bytes -= take;
    it->first->pinned = false;
    bytes -= take;
  }
  last_pinned_.clear();
}

void Residency::end_execution(const Region &r, int e) {
  for (const Use &u : r.uses)
    if (State *s = state(r, e, u); s && !s->array->resident) {
      s->valid[1].clear();
      s->registered.clear(); // unregistered when the GPU frees the windows
    }
  for (State &s : arrays_)
    if (s.array->home)
      s.valid[0] = IntervalSet(0, s.array->rows);
  registered_bytes_ = 0;
  registrations_ = 0;
}

} // namespace hce::sim
