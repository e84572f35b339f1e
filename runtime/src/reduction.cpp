#include "reduction.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace hce {
namespace {

template <typename T> T identity_of(int op) {
  switch (op) {
  case HCE_RED_MUL:
  case HCE_RED_LAND:
    return T(1);
  case HCE_RED_MIN:
    return std::numeric_limits<T>::has_infinity
               ? std::numeric_limits<T>::infinity()
               : std::numeric_limits<T>::max();
  case HCE_RED_MAX:
    return std::numeric_limits<T>::has_infinity
               ? -std::numeric_limits<T>::infinity()
               : std::numeric_limits<T>::lowest();
  case HCE_RED_BAND:
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(~T(0));
    return T(0);
  default: // add, bor, bxor, lor
    return T(0);
  }
}

template <typename T> T combine(int op, T a, T b) {
  switch (op) {
  case HCE_RED_ADD:
    return a + b;
  case HCE_RED_MUL:
    return a * b;
  case HCE_RED_MIN:
    return std::min(a, b);
  case HCE_RED_MAX:
    return std::max(a, b);
  case HCE_RED_LAND:
    return static_cast<T>(a != T(0) && b != T(0));
  case HCE_RED_LOR:
    return static_cast<T>(a != T(0) || b != T(0));
  default:
    break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
    case HCE_RED_BAND:
      return a & b;
    case HCE_RED_BOR:
      return a | b;
    case HCE_RED_BXOR:
      return a ^ b;
    }
  }
  return a;
}

// Calls f(T{}) with T the C type of an HCE_TYPE_* value.
template <typename F> void with_type(int type, F &&f) {
  switch (type) {
  case HCE_TYPE_I8: f(int8_t{}); break;
  case HCE_TYPE_U8: f(uint8_t{}); break;
  case HCE_TYPE_I16: f(int16_t{}); break;
  case HCE_TYPE_U16: f(uint16_t{}); break;
  case HCE_TYPE_I32: f(int32_t{}); break;
  case HCE_TYPE_U32: f(uint32_t{}); break;
  case HCE_TYPE_I64: f(int64_t{}); break;
  case HCE_TYPE_U64: f(uint64_t{}); break;
  case HCE_TYPE_F32: f(float{}); break;
  case HCE_TYPE_F64: f(double{}); break;
  }
}

} // namespace

bool reduction_valid(const hce_reduction &red, std::string &why) {
  if (red.op < HCE_RED_ADD || red.op > HCE_RED_LOR) {
    why = "unknown reduction operator for '" + std::string(red.name) + "'";
    return false;
  }
  if (red.type < HCE_TYPE_I8 || red.type > HCE_TYPE_F64) {
    why = "unsupported reduction type for '" + std::string(red.name) + "'";
    return false;
  }
  bool floating = red.type == HCE_TYPE_F32 || red.type == HCE_TYPE_F64;
  if (floating && (red.op == HCE_RED_BAND || red.op == HCE_RED_BOR ||
                   red.op == HCE_RED_BXOR)) {
    why = "bitwise reduction on floating-point variable '" +
          std::string(red.name) + "'";
    return false;
  }
  return true;
}

void reduction_identity(const hce_reduction &red, void *slot) {
  std::memset(slot, 0, HCE_RED_SLOT_BYTES);
  with_type(red.type, [&](auto t) {
    using T = decltype(t);
    T v = identity_of<T>(red.op);
    std::memcpy(slot, &v, sizeof v);
  });
}

void reduction_combine(const hce_reduction &red, void *acc, const void *value) {
  with_type(red.type, [&](auto t) {
    using T = decltype(t);
    T a, b;
    std::memcpy(&a, acc, sizeof a);
    std::memcpy(&b, value, sizeof b);
    a = combine<T>(red.op, a, b);
    std::memcpy(acc, &a, sizeof a);
  });
}

std::vector<unsigned char> reduction_slots(const hce_region &region) {
  std::vector<unsigned char> slots(
      static_cast<size_t>(region.num_reductions) * HCE_RED_SLOT_BYTES);
  for (int i = 0; i < region.num_reductions; ++i)
    reduction_identity(region.reductions[i],
                       slots.data() + size_t(i) * HCE_RED_SLOT_BYTES);
  return slots;
}

void reduction_fold_into_vars(const hce_region &region, const void *slots) {
  for (int i = 0; i < region.num_reductions; ++i) {
    const hce_reduction &red = region.reductions[i];
    with_type(red.type, [&](auto t) {
      using T = decltype(t);
      unsigned char acc[HCE_RED_SLOT_BYTES] = {};
      std::memcpy(acc, red.var, sizeof(T));
      reduction_combine(red, acc,
                        static_cast<const unsigned char *>(slots) +
                            size_t(i) * HCE_RED_SLOT_BYTES);
      std::memcpy(red.var, acc, sizeof(T));
    });
  }
}

void reduction_combine_all(const hce_region &region, void *into,
                           const void *from) {
  for (int i = 0; i < region.num_reductions; ++i)
    reduction_combine(region.reductions[i],
                      static_cast<unsigned char *>(into) +
                          size_t(i) * HCE_RED_SLOT_BYTES,
                      static_cast<const unsigned char *>(from) +
                          size_t(i) * HCE_RED_SLOT_BYTES);
}

} // namespace hce
