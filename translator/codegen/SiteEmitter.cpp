//===- SiteEmitter.cpp - The code that replaces a co_exec loop ------------===//
#include "SiteEmitter.h"
#include "CodeGenUtil.h"
#include "MapInit.h"
#include "TripCount.h"

namespace hce {

namespace {

/// `var` of a reduction: the scalar, or element lo of an array reduction.
std::string reductionVarAddress(const ReductionVar &Red) {
  return Red.IsArray ? "(void *)(" + Red.Name + " + __hce_a." + Red.LoArg + ")"
                     : "(void *)&" + Red.Name;
}

/// `count` of a reduction: 0 for a scalar; an array reduction's length, or
/// -1 when its section is empty or outside the array (the runtime refuses
/// it with a message).
std::string reductionCount(const ReductionVar &Red) {
  if (!Red.IsArray)
    return "0";
  const std::string Lo = "__hce_a." + Red.LoArg, Len = "__hce_a." + Red.LenArg;
  std::string Ok = Lo + " >= 0 && " + Len + " > 0";
  if (!Red.ExtentText.empty())
    Ok += " && " + Len + " <= " + Red.ExtentText + " - " + Lo;
  return Ok + " ? " + Len + " : -1";
}

} // namespace

std::string emitSite(const Region &R, const std::string &Indent,
                     const std::vector<const VariantEmitter *> &Emitters,
                     bool LineDirectives) {
  const std::string I1 = Indent + "  ";
  const std::string I2 = I1 + "  ";
  const LoopInfo &L = R.Loop;
  std::string S;
  S += "{ /* hce co_exec region " + std::to_string(R.Index) + " */\n";
  S += I1 + "static void *" + genName("site", R) + ";\n";
  S += I1 + "struct " + genName("args", R) + " __hce_a;\n";
  // Zeroed through a static (zero-initialised in C and C++ alike): `= {0}`
  // draws -Wmissing-field-initializers in C++, `= {}` is not C before C23.
  S += I1 + "static hce_region __hce_r0; /* never written */\n";
  S += I1 + "hce_region __hce_r = __hce_r0;\n";
  if (!R.Maps.empty())
    S += I1 + "hce_map __hce_m[" + std::to_string(R.Maps.size()) + "];\n";
  if (!R.Reductions.empty())
    S += I1 + "hce_reduction __hce_red[" + std::to_string(R.Reductions.size()) +
         "];\n";
  S += tripCountCode(L, I1); // __hce_init, __hce_step, __hce_W
  S += I1 + "__hce_a.__hce_init = __hce_init;\n";
  S += I1 + "__hce_a.__hce_step = __hce_step;\n";
  for (const CapturedVar &C : R.Extents)
    S += I1 + "__hce_a." + C.Name + " = " + C.Value + ";\n";
  for (const CapturedVar &C : R.Captures)
    S += I1 + "__hce_a." + C.Name + " = " +
         (C.Value.empty() ? C.Name : C.Value) + ";\n";
  for (const PrivateVar &P : R.Privates) // now only used by the variants
    S += I1 + "(void)" + P.Name + ";\n";

  for (size_t M = 0; M < R.Maps.size(); ++M) {
    const MappedArray &A = R.Maps[M];
    S += I1 + "{ /* map " +
         (A.SectionText.empty()
              ? A.Name + "[" + A.LoText + " : " + A.LenText + "]"
              : A.SectionText) +
         " */\n";
    if (A.PerIteration) {
      S += I2 + "int64_t __hce_lo0, __hce_lo1;\n";
      S += I2 + "{ " + L.VarDecl + " = (" + L.VarType +
           ")(__hce_init); __hce_lo0 = (int64_t)(" + A.LoText + "); }\n";
      S += I2 + "{ " + L.VarDecl + " = " + loopVarAt(L, "1") + "; __hce_lo1 = (int64_t)(" + A.LoText +
           "); }\n";
    }
    S += mapFieldInits(A, "__hce_m[" + std::to_string(M) + "]", I2);
    // WriteCoverage: HCE_MAP_WRITES_ALL when the writes cover the footprint.
    for (size_t P = 0, NL; P < A.WritesAllCheck.size(); P = NL + 1) {
      NL = A.WritesAllCheck.find('\n', P);
      S += I2 + A.WritesAllCheck.substr(P, NL - P) + "\n";
    }
    S += I1 + "}\n";
  }

  for (size_t V = 0; V < R.Reductions.size(); ++V) {
    const ReductionVar &Red = R.Reductions[V];
    std::string E = "__hce_red[" + std::to_string(V) + "].";
    S += I1 + E + "name = " + cString(Red.Name) + ";\n";
    S += I1 + E + "var = " + reductionVarAddress(Red) + ";\n";
    S += I1 + E + "op = " + redOpEnum(Red.Op) + ";\n";
    S += I1 + E + "type = " + Red.TypeEnum + ";\n";
    S += I1 + E + "count = " + reductionCount(Red) + ";\n";
  }

  const ClauseSet &C = R.Clauses;
  S += I1 + "__hce_r.name = " + R.DisplayName + ";\n";
  if (!C.Schedule.empty())
    S += I1 + "__hce_r.schedule = " + cString(C.Schedule) + ";\n";
  if (!C.Devices.empty())
    S += I1 + "__hce_r.devices = " + cString(C.devicesString()) + ";\n";
  if (!C.Co.empty())
    S += I1 + "__hce_r.co = " + cString(C.Co) + ";\n";
  if (!C.Ratios.empty())
    S += I1 + "__hce_r.ratios = " + cString(C.ratiosString()) + ";\n";
  S += I1 + "__hce_r.iterations = __hce_W;\n";
  if (C.Chunk)
    S += I1 + "__hce_r.chunk = (int64_t)(" + C.Chunk->Text + ");\n";
  if (C.Alpha)
    S += I1 + "__hce_r.alpha = (double)(" + C.Alpha->Text + ");\n";
  S += I1 + "__hce_r.num_maps = " + std::to_string(R.Maps.size()) + ";\n";
  S += I1 + "__hce_r.maps = " + (R.Maps.empty() ? "0" : "__hce_m") + ";\n";
  S += I1 + "__hce_r.num_reductions = " + std::to_string(R.Reductions.size()) +
       ";\n";
  S += I1 +
       "__hce_r.reductions = " + (R.Reductions.empty() ? "0" : "__hce_red") +
       ";\n";
  S += I1 + "__hce_r.args = &__hce_a;\n";
  S += I1 + "__hce_r.args_size = sizeof(__hce_a);\n";
  for (const VariantEmitter *VE : Emitters) {
    std::string H = VE->siteHook(R);
    // Indent every line that is not a preprocessor directive.
    size_t Pos = 0;
    while (Pos < H.size()) {
      size_t NL = H.find('\n', Pos);
      std::string Line = H.substr(Pos, NL == std::string::npos ? NL : NL - Pos);
      S += (Line.empty() || Line[0] == '#' ? "" : I1) + Line + "\n";
      Pos = NL == std::string::npos ? H.size() : NL + 1;
    }
  }
  S += I1 + "__hce_r.site = &" + genName("site", R) + ";\n";
  if (R.Nowait) {
    // The runtime copies the descriptor, maps, args and reduction slots
    // when the task is submitted: this block may end at once.
    if (!R.Depends.empty()) {
      S += I1 + "hce_depend __hce_d[" + std::to_string(R.Depends.size()) + "];\n";
      for (size_t K = 0; K < R.Depends.size(); ++K) {
        const DependItem &Dep = R.Depends[K];
        std::string E = "__hce_d[" + std::to_string(K) + "].";
        S += I1 + E + "addr = " + Dep.AddrExpr + ";\n";
        S += I1 + E + "kind = " +
             (Dep.Kind == DependKind::In    ? "HCE_DEP_IN"
              : Dep.Kind == DependKind::Out ? "HCE_DEP_OUT"
                                            : "HCE_DEP_INOUT") +
             ";\n";
      }
    }
    S += I1 + "hce_co_exec_nowait_or_exit(&__hce_r, " + std::to_string(R.Depends.size()) +
         ", " + (R.Depends.empty() ? "0" : "__hce_d") + ");\n";
  } else {
    S += I1 + "hce_co_exec_or_exit(&__hce_r);\n";
  }
  if (!L.DeclaredInInit) // its value after the loop; maybe never read
    S += I1 + L.VarName + " = " + loopVarAt(L, "__hce_W") + ";\n" + I1 + "(void)" + L.VarName +
         ";\n";
  S += Indent + "}";
  if (R.LineAfterSite) {
    S += "\n";
    S += lineDirective(R.LineAfterSite, R.FileName, LineDirectives);
  }
  return S;
}

} // namespace hce
