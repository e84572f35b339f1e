// Reduction slots: each reduction of a region owns HCE_RED_SLOT_BYTES bytes
// holding a value of its HCE_TYPE_*.  Variants fill per-chunk slots preset to
// the operator's identity; the runtime folds chunks into a per-device slot
// and devices into the user's variable (OpenMP semantics: the original value
// takes part).
#pragma once

#include "hce/hce.h"

#include <string>
#include <vector>

namespace hce {

// Checks op/type combinations (no bitwise ops on floating point).
bool reduction_valid(const hce_reduction &red, std::string &why);
// Sets the slot to the identity of red.op for red.type.
void reduction_identity(const hce_reduction &red, void *slot);
// acc = acc OP value, both slots of red.type.
void reduction_combine(const hce_reduction &red, void *acc, const void *value);

// Bytes of one value of an HCE_TYPE_* (0 for an unknown type).
size_t reduction_type_size(int type);
// True when some reduction of the region is over an array section.
bool has_array_reduction(const hce_region &region);

// The block a variant receives (slots, then the elements of the array
// reductions; see hce.h), preset to the identities.  A copy is a valid
// block: array slots hold offsets, not pointers.
std::vector<unsigned char> reduction_slots(const hce_region &region);
// The user's variables (arrays element by element): var = var OP block 0
// OP block 1 ..., for every reduction, in the order given.
void reduction_fold_into_vars(const hce_region &region,
                              const std::vector<const void *> &blocks);
void reduction_fold_into_vars(const hce_region &region, const void *slots);
// Folds `from` slots into `into` slots.
void reduction_combine_all(const hce_region &region, void *into,
                           const void *from);

} // namespace hce
