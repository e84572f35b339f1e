//===- CodeGenUtil.cpp - Helpers shared by the emitters -------------------===//
#include "CodeGenUtil.h"

namespace hce {

std::string genName(const char *What, const Region &R) {
  return std::string("__hce_") + What + "_" + std::to_string(R.Index);
}

std::string argsStructDecl(const Region &R, bool InUnnamedNs) {
  bool Wrap = R.IsCXX && !InUnnamedNs;
  std::string S = Wrap ? "namespace {\n" : "";
  S += "struct " + genName("args", R) + " {\n";
  S += "  int64_t __hce_init;\n  int64_t __hce_step;\n";
  for (const CapturedVar &C : R.Extents)
    S += "  " + C.Decl + ";\n";
  for (const CapturedVar &C : R.Captures)
    S += "  " + C.Decl + ";\n";
  S += "};\n";
  if (Wrap)
    S += "} // namespace\n";
  return S;
}

std::string enumeratorDecl(const Region &R, const std::string &In) {
  if (R.Enumerators.empty())
    return "";
  std::string S = In + "enum {";
  for (size_t I = 0; I < R.Enumerators.size(); ++I)
    S += std::string(I ? ", " : " ") + R.Enumerators[I].Name + " = " +
         R.Enumerators[I].Value;
  return S + " };\n";
}

std::string variantPrologue(const Region &R, const std::string &In) {
  std::string S;
  std::string Args = "((const struct " + genName("args", R) + " *)__hce_args)";
  S += In + "const int64_t __hce_init = " + Args + "->__hce_init;\n";
  S += In + "const int64_t __hce_step = " + Args + "->__hce_step;\n";
  S += enumeratorDecl(R, In);
  // VLA extents first: the mapped pointers' types use them.
  for (const CapturedVar &C : R.Extents)
    S += In + C.ConstDecl + " = " + Args + "->" + C.Name + ";\n";
  for (size_t M = 0; M < R.Maps.size(); ++M) {
    const MappedArray &A = R.Maps[M];
    if (!A.UsedInBody)
      continue;
    S +=
        In + A.PtrDecl + " = (" + A.PtrType + ")__hce_ptrs[" + std::to_string(M) + "];\n";
  }
  for (const CapturedVar &C : R.Captures)
    S += In + C.ConstDecl + " = " + Args + "->" + C.Name + ";\n";
  for (size_t I = 0; I < R.Reductions.size(); ++I) {
    const ReductionVar &V = R.Reductions[I];
    const std::string Slot = "((char *)__hce_red + " + std::to_string(8 * I) + ")";
    if (V.IsArray) // the chunk's private elements, indexed as the array
      S += In + V.Decl + " = (" + V.PtrType + ")((char *)__hce_red + *(const int64_t *)" +
           Slot + ") - " + V.LoArg + ";\n";
    else
      S += In + V.Decl + " = *(" + V.PtrType + ")" + Slot + ";\n";
  }
  S += In + "(void)__hce_ptrs;\n" + In + "(void)__hce_red;\n";
  return S;
}

std::string cString(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (C == '\n') {
      Out += "\\n";
      continue;
    }
    Out += C;
  }
  return Out + "\"";
}

std::string lineDirective(unsigned Line, const std::string &File, bool Enabled) {
  if (!Enabled || Line == 0)
    return "";
  return "#line " + std::to_string(Line) + " " + cString(File) + "\n";
}

const char *mapKindEnum(MapKind K) {
  switch (K) {
  case MapKind::Alloc: return "HCE_MAP_ALLOC";
  case MapKind::To: return "HCE_MAP_TO";
  case MapKind::From: return "HCE_MAP_FROM";
  case MapKind::ToFrom: return "HCE_MAP_TOFROM";
  }
  return "HCE_MAP_TOFROM";
}

std::string reductionClauses(const Region &R, bool ConstLen) {
  std::string S;
  std::vector<bool> Done(R.Reductions.size());
  for (size_t I = 0; I < R.Reductions.size(); ++I) {
    if (Done[I])
      continue;
    S += " reduction(" + R.Reductions[I].OpSpelling + ": ";
    for (size_t J = I; J < R.Reductions.size(); ++J) {
      const ReductionVar &V = R.Reductions[J];
      if (Done[J] || V.Op != R.Reductions[I].Op)
        continue;
      S += (J != I ? ", " : "") + reductionItem(V, ConstLen);
      Done[J] = true;
    }
    S += ")";
  }
  return S;
}

std::string reductionItem(const ReductionVar &V, bool ConstLen) {
  if (!V.IsArray)
    return V.Name;
  return V.Name + "[" + V.LoArg + ":" +
         (ConstLen && V.LenConst ? std::to_string(*V.LenConst) : V.LenArg) + "]";
}

std::string reductionWriteBack(const Region &R, const std::string &In) {
  std::string S;
  for (size_t I = 0; I < R.Reductions.size(); ++I) {
    const ReductionVar &V = R.Reductions[I];
    if (!V.IsArray) // an array's partial results are already in place
      S += In + "*(" + V.PtrType + ")((char *)__hce_red + " + std::to_string(8 * I) +
           ") = " + V.Name + ";\n";
  }
  return S;
}

const char *redOpEnum(RedOp Op) {
  switch (Op) {
  case RedOp::Add: return "HCE_RED_ADD";
  case RedOp::Mul: return "HCE_RED_MUL";
  case RedOp::Min: return "HCE_RED_MIN";
  case RedOp::Max: return "HCE_RED_MAX";
  case RedOp::BAnd: return "HCE_RED_BAND";
  case RedOp::BOr: return "HCE_RED_BOR";
  case RedOp::BXor: return "HCE_RED_BXOR";
  case RedOp::LAnd: return "HCE_RED_LAND";
  case RedOp::LOr: return "HCE_RED_LOR";
  }
  return "HCE_RED_ADD";
}

} // namespace hce
