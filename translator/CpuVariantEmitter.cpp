//===- CpuVariantEmitter.cpp - The OpenMP CPU variant ---------------------===//
#include "CpuVariantEmitter.h"
#include "CodeGenUtil.h"
#include "TripCount.h"

namespace hce {

std::string CpuVariantEmitter::hostDecls(const Region &R) const {
  std::string S;
  S += "static void " + genName("cpu", R) +
       "(int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,\n"
       "    const void *__hce_args, void *__hce_red) {\n";
  S += variantPrologue(R, "  ");
  S += "#pragma omp parallel for";
  S += reductionClauses(R);
  S += "\n";
  S += "  for (int64_t __hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {\n";
  for (const PrivateVar &P : R.Privates)
    S += "    " + P.Decl + ";\n";
  S += "    " + R.Loop.VarDecl + " = " + loopVarAt(R.Loop, "__hce_k") + ";\n";
  std::string Line = lineDirective(R.BodyLine, R.FileName, LineDirectives);
  S += Line.empty() ? "    " : Line + std::string(R.BodyColumn - 1, ' ');
  S += R.BodyText + "\n";
  S += "  }\n";
  S += reductionWriteBack(R, "  ");
  S += "}\n";
  return S;
}

std::string CpuVariantEmitter::siteHook(const Region &R) const {
  return "__hce_r.cpu = " + genName("cpu", R) + ";\n";
}

} // namespace hce
