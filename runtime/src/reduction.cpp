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
  if (red.count < 0) {
    why = "array reduction '" + std::string(red.name) +
          "': its section is empty or lies outside the array (count " +
          std::to_string(red.count) + ")";
    return false;
  }
  if (red.count > 0 && !red.var) {
    why = "array reduction '" + std::string(red.name) + "' has no storage";
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

size_t reduction_type_size(int type) {
  static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return type >= HCE_TYPE_I8 && type <= HCE_TYPE_F64 ? sizes[type] : 0;
}

namespace {

// Byte offset of reduction i's elements in a block: its slot for a scalar,
// the array after the slots (8-byte aligned) for an array reduction.
size_t elements_at(const hce_region &region, int i, const unsigned char *block) {
  if (region.reductions[i].count <= 0)
    return size_t(i) * HCE_RED_SLOT_BYTES;
  int64_t off;
  std::memcpy(&off, block + size_t(i) * HCE_RED_SLOT_BYTES, sizeof off);
  return size_t(off);
}

size_t elements_of(const hce_reduction &red) {
  return red.count > 0 ? size_t(red.count) : 1;
}

} // namespace

std::vector<unsigned char> reduction_slots(const hce_region &region) {
  size_t bytes = size_t(region.num_reductions) * HCE_RED_SLOT_BYTES;
  std::vector<int64_t> offsets(size_t(region.num_reductions), 0);
  for (int i = 0; i < region.num_reductions; ++i) {
    const hce_reduction &red = region.reductions[i];
    if (red.count <= 0)
      continue;
    offsets[size_t(i)] = int64_t(bytes);
    bytes += (size_t(red.count) * reduction_type_size(red.type) + 7) / 8 * 8;
  }
  std::vector<unsigned char> slots(bytes);
  for (int i = 0; i < region.num_reductions; ++i) {
    const hce_reduction &red = region.reductions[i];
    unsigned char *slot = slots.data() + size_t(i) * HCE_RED_SLOT_BYTES;
    if (red.count <= 0) {
      reduction_identity(red, slot);
      continue;
    }
    std::memcpy(slot, &offsets[size_t(i)], sizeof(int64_t));
    unsigned char ident[HCE_RED_SLOT_BYTES];
    reduction_identity(red, ident);
    const size_t es = reduction_type_size(red.type);
    for (int64_t e = 0; e < red.count; ++e)
      std::memcpy(slots.data() + size_t(offsets[size_t(i)]) + size_t(e) * es, ident, es);
  }
  return slots;
}

void reduction_fold_into_vars(const hce_region &region,
                              const std::vector<const void *> &blocks) {
  for (int i = 0; i < region.num_reductions; ++i) {
    const hce_reduction &red = region.reductions[i];
    const size_t es = reduction_type_size(red.type);
    auto *var = static_cast<unsigned char *>(red.var);
    for (size_t e = 0; e < elements_of(red); ++e) {
      // var OP block 0 OP block 1 ...: in the order given.
      unsigned char acc[HCE_RED_SLOT_BYTES] = {};
      std::memcpy(acc, var + e * es, es);
      for (const void *b : blocks) {
        const auto *block = static_cast<const unsigned char *>(b);
        reduction_combine(red, acc, block + elements_at(region, i, block) + e * es);
      }
      std::memcpy(var + e * es, acc, es);
    }
  }
}

void reduction_fold_into_vars(const hce_region &region, const void *slots) {
  reduction_fold_into_vars(region, std::vector<const void *>{slots});
}

void reduction_combine_all(const hce_region &region, void *into, const void *from) {
  auto *to_block = static_cast<unsigned char *>(into);
  const auto *from_block = static_cast<const unsigned char *>(from);
  for (int i = 0; i < region.num_reductions; ++i) {
    const hce_reduction &red = region.reductions[i];
    const size_t es = reduction_type_size(red.type);
    unsigned char *to = to_block + elements_at(region, i, to_block);
    const unsigned char *src = from_block + elements_at(region, i, from_block);
    for (size_t e = 0; e < elements_of(red); ++e)
      reduction_combine(red, to + e * es, src + e * es);
  }
}

bool has_array_reduction(const hce_region &region) {
  for (int i = 0; i < region.num_reductions; ++i)
    if (region.reductions[i].count > 0)
      return true;
  return false;
}

} // namespace hce
