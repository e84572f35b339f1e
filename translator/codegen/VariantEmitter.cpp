//===- VariantEmitter.cpp - The list of variant emitters ------------------===//
#include "VariantEmitter.h"
#include "CpuVariantEmitter.h"
#include "CudaVariantEmitter.h"
#include "OffloadVariantEmitter.h"

namespace hce {

std::string companionFile(const VariantEmitter &E, const std::vector<Region> &Regions) {
  if (E.companionKind() == CompanionKind::None)
    return "";
  std::vector<const Region *> With;
  std::string Parts;
  for (const Region &R : Regions)
    if (std::string Part = E.companion(R); !Part.empty()) {
      With.push_back(&R);
      Parts += Part;
    }
  return With.empty() ? "" : E.companionHeader(With) + Parts;
}

std::vector<std::unique_ptr<VariantEmitter>> makeVariantEmitters(const DeviceContext &Dev,
                                                                 bool Cuda, bool Offload,
                                                                 bool LineDirectives) {
  std::vector<std::unique_ptr<VariantEmitter>> List;
  List.push_back(std::make_unique<CpuVariantEmitter>(LineDirectives));
  if (Cuda)
    List.push_back(std::make_unique<CudaVariantEmitter>(Dev, LineDirectives));
  if (Offload)
    List.push_back(std::make_unique<OffloadVariantEmitter>(Dev, LineDirectives));
  return List;
}

} // namespace hce
