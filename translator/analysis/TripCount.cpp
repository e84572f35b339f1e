//===- TripCount.cpp - Iteration counts exactly as C runs the loop --------===//
//
// Values are compared through order-preserving 64-bit keys: an unsigned
// value is its own key, a signed one has its sign bit flipped, so that key
// order is value order and key differences (mod 2^64) are exact value
// differences. The same algorithm runs here on constants and, as generated
// C, at the loop site.
//
//===----------------------------------------------------------------------===//
#include "TripCount.h"

namespace hce {

namespace {

constexpr uint64_t SignBit = UINT64_C(1) << 63;

/// Keys of the values the variable may take (its type's range; from 0 when
/// a signed variable is compared as unsigned).
struct KeyRange {
  uint64_t Flip = 0;
  uint64_t Lo = 0, Hi = 0;
  uint64_t Mask = ~UINT64_C(0); ///< 2^bits - 1
  bool Modular = true;          ///< `!=` may wrap around (defined in C)
};

KeyRange keyRange(const LoopInfo &L) {
  KeyRange R;
  unsigned B = L.VarBits;
  R.Mask = B >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << B) - 1;
  if (L.VarSigned) {
    R.Flip = SignBit;
    uint64_t Half = UINT64_C(1) << (B - 1); // 2^(b-1)
    R.Lo = SignBit - Half;
    R.Hi = SignBit + (Half - 1);
    if (L.CmpUnsigned)
      R.Lo = SignBit; // the key of 0
  } else {
    R.Lo = 0;
    R.Hi = R.Mask;
  }
  R.Modular = !L.VarSigned || B < L.IntBits;
  return R;
}

std::string u64(uint64_t V) { return "UINT64_C(" + std::to_string(V) + ")"; }

/// The key of the bound (a 64-bit pattern of the comparison's type) when it
/// lies in the variable's range (\p Where 0), else \p Where is 1 (above)
/// or -1 (below).
uint64_t placeBound(const LoopInfo &L, const KeyRange &R, uint64_t Bound, int &Where) {
  Where = 0;
  if (L.CmpIsVarType)
    return Bound ^ R.Flip;
  if (L.VarSigned && L.CmpUnsigned) {
    if (Bound <= (R.Hi ^ R.Flip))
      return Bound ^ R.Flip;
    Where = 1;
    return 0;
  }
  // The comparison's type is wider: the bound may lie outside the type.
  int64_t V = static_cast<int64_t>(Bound);
  bool Above =
      L.CmpUnsigned ? Bound > (R.Hi ^ R.Flip) : V > static_cast<int64_t>(R.Hi ^ R.Flip);
  bool Below = !L.CmpUnsigned && V < static_cast<int64_t>(R.Lo ^ R.Flip);
  Where = Above ? 1 : Below ? -1 : 0;
  return Where ? 0 : Bound ^ R.Flip;
}

} // namespace

std::optional<int64_t> constantTripCount(const LoopInfo &L, uint64_t Init, uint64_t Bound,
                                         int64_t Step, std::string &Why) {
  KeyRange R = keyRange(L);
  const std::string C = "'" + L.VarName + " " + (L.NotEqual ? "!=" : L.Cmp) + " ...'";
  uint64_t Ka = Init ^ R.Flip;
  if (Ka < R.Lo) {
    Why = "'" + L.VarName + "' starts negative but is compared as unsigned";
    return std::nullopt;
  }
  int Where = 0;
  uint64_t Kb = placeBound(L, R, Bound, Where);
  auto Never = [&](const std::string &What) -> std::optional<int64_t> {
    Why = What;
    return std::nullopt;
  };
  const std::string Forever =
      "the condition " + C + " never becomes false: the loop never ends";
  const std::string Wraps = "'" + L.VarName + "' would " +
                            (L.VarSigned ? "overflow" : "wrap around") +
                            " before the condition " + C + " becomes false";
  uint64_t M =
      Step < 0 ? UINT64_C(0) - static_cast<uint64_t>(Step) : static_cast<uint64_t>(Step);
  if (L.NotEqual) {
    if (Where)
      return Never(Forever);
    if (Ka == Kb)
      return 0;
    bool Up = Step > 0;
    uint64_t D = Up ? Kb - Ka : Ka - Kb;
    if ((Up ? Kb < Ka : Kb > Ka) && !R.Modular)
      return Never(Wraps);
    D &= R.Mask;
    if (D > static_cast<uint64_t>(INT64_MAX))
      return Never("the loop runs more than 2^63-1 iterations");
    return static_cast<int64_t>(D);
  }
  bool Up = L.Cmp == "<" || L.Cmp == "<=";
  bool Incl = L.Cmp == "<=" || L.Cmp == ">=";
  bool FalseAtOnce = Up ? (Where < 0 || (!Where && (Incl ? Ka > Kb : Ka >= Kb)))
                        : (Where > 0 || (!Where && (Incl ? Ka < Kb : Ka <= Kb)));
  if (FalseAtOnce)
    return 0;
  if (Where)
    return Never(Forever);
  if (Step == 0 || (Step > 0) != Up)
    return Never(Step == 0 ? Forever : Wraps);
  uint64_t D = Up ? Kb - Ka : Ka - Kb;
  uint64_t Rm = D % M, Q = D / M;
  uint64_t Over, W;
  if (Incl) {
    if (Q >= static_cast<uint64_t>(INT64_MAX))
      return Never("the loop runs more than 2^63-1 iterations");
    Over = M - Rm;
    W = Q + 1;
  } else {
    Over = Rm ? M - Rm : 0;
    W = Q + (Rm != 0);
  }
  if (W > static_cast<uint64_t>(INT64_MAX))
    return Never("the loop runs more than 2^63-1 iterations");
  if (Over > (Up ? R.Hi - Kb : Kb - R.Lo))
    return Never(Over == 1 && Incl ? Forever : Wraps);
  return static_cast<int64_t>(W);
}

std::optional<std::string> conditionAlwaysTrue(const LoopInfo &L, uint64_t Bound) {
  KeyRange R = keyRange(L);
  int Where = 0;
  uint64_t Kb = placeBound(L, R, Bound, Where);
  bool Always = L.NotEqual      ? Where != 0
                : L.Cmp == "<"  ? Where > 0
                : L.Cmp == "<=" ? Where > 0 || Kb == R.Hi
                : L.Cmp == ">"  ? Where < 0
                                : Where < 0 || Kb == R.Lo;
  if (!Always)
    return std::nullopt;
  std::string T = L.VarType;
  return "the condition is always true for '" + L.VarName + "' of type '" + T +
         "': the loop never ends";
}

std::string tripCountCode(const LoopInfo &L, const std::string &In) {
  KeyRange R = keyRange(L);
  const std::string I2 = In + "  ";
  std::string S;
  S += In + "const int64_t __hce_init = (int64_t)(" + L.VarType + ")(" + L.InitText +
       ");\n";
  S += In + "const int64_t __hce_step = " +
       (L.StepConst ? L.StepText : "(int64_t)(" + L.StepText + ")") + ";\n";
  S += In + "int64_t __hce_W = -1; /* -1: not as C would run it; refused */\n";
  S += In + "{ /* the trip count as C runs the loop (see docs/translator.md) */\n";
  S += I2 + "const " + L.CmpType + " __hce_bc = (" + L.CmpType + ")(" + L.BoundText +
       ");\n";
  std::string Flip = R.Flip ? " ^ " + u64(R.Flip) : "";
  S += I2 + "const uint64_t __hce_ka = (uint64_t)__hce_init" + Flip + ";\n";
  S += I2 + "uint64_t __hce_kb = 0;\n";
  S += I2 + "int __hce_where = 0; /* the bound lies in the variable's range, above or "
            "below */\n";
  std::string KbOf = "(uint64_t)(int64_t)(" + L.VarType + ")__hce_bc" + Flip;
  if (L.CmpIsVarType) {
    S += I2 + "__hce_kb = " + KbOf + ";\n";
  } else if (L.VarSigned && L.CmpUnsigned) {
    S += I2 + "if (__hce_bc <= (" + L.CmpType + ")" + u64(R.Hi ^ R.Flip) +
         ") __hce_kb = " + KbOf + "; else __hce_where = 1;\n";
  } else {
    S += I2 + "if ((" + L.CmpType + ")(" + L.VarType +
         ")__hce_bc == __hce_bc) __hce_kb = " + KbOf +
         "; else __hce_where = __hce_bc > 0 ? 1 : -1;\n";
  }
  S += I2 + "(void)__hce_kb; (void)__hce_where;\n";
  // A signed variable compared as unsigned must start non-negative.
  std::string NonNeg = L.VarSigned && L.CmpUnsigned ? "__hce_ka < " + u64(R.Lo) : "";
  std::string Guard = NonNeg.empty() ? "" : NonNeg + " ? -1 : ";
  if (L.NotEqual) {
    bool Up = L.StepConst && *L.StepConst > 0;
    std::string D = Up ? "__hce_kb - __hce_ka" : "__hce_ka - __hce_kb";
    std::string WrapCond = Up ? "__hce_kb < __hce_ka" : "__hce_kb > __hce_ka";
    std::string Masked =
        R.Mask == ~UINT64_C(0) ? "(" + D + ")" : "((" + D + ") & " + u64(R.Mask) + ")";
    S += I2 + "__hce_W = " + Guard + "__hce_where ? -1 : __hce_ka == __hce_kb ? 0\n";
    S += I2 + "  : " + (R.Modular ? "" : WrapCond + " ? -1 : ") + Masked +
         " > (uint64_t)INT64_MAX ? -1 : (int64_t)" + Masked + ";\n";
    S += In + "}\n";
    return S;
  }
  bool Up = L.Cmp == "<" || L.Cmp == "<=";
  bool Incl = L.Cmp == "<=" || L.Cmp == ">=";
  std::string FalseAtOnce = Up ? "__hce_where < 0 || (!__hce_where && __hce_ka " +
                                     std::string(Incl ? ">" : ">=") + " __hce_kb)"
                               : "__hce_where > 0 || (!__hce_where && __hce_ka " +
                                     std::string(Incl ? "<" : "<=") + " __hce_kb)";
  S += I2 + (NonNeg.empty() ? "" : "if (" + NonNeg + ") __hce_W = -1;\n" + I2 + "else ") +
       "if (" + FalseAtOnce + ") __hce_W = 0;\n";
  S += I2 + "else if (!__hce_where && __hce_step " + (Up ? ">" : "<") + " 0) {\n";
  std::string I3 = I2 + "  ";
  S += I3 + "const uint64_t __hce_m = " +
       (Up ? "(uint64_t)__hce_step" : "UINT64_C(0) - (uint64_t)__hce_step") + ";\n";
  S += I3 + "const uint64_t __hce_d = " +
       (Up ? "__hce_kb - __hce_ka" : "__hce_ka - __hce_kb") + ";\n";
  S += I3 + "const uint64_t __hce_r = __hce_d % __hce_m, __hce_q = __hce_d / __hce_m;\n";
  if (Incl) {
    S += I3 + "if (__hce_q < (uint64_t)INT64_MAX && __hce_m - __hce_r <= " +
         (Up ? u64(R.Hi) + " - __hce_kb" : "__hce_kb - " + u64(R.Lo)) + ")\n";
    S += I3 + "  __hce_W = (int64_t)__hce_q + 1;\n";
  } else {
    S += I3 +
         "if (__hce_q + (__hce_r != 0) <= (uint64_t)INT64_MAX && (__hce_r ? __hce_m - "
         "__hce_r : 0) <= " +
         (Up ? u64(R.Hi) + " - __hce_kb" : "__hce_kb - " + u64(R.Lo)) + ")\n";
    S += I3 + "  __hce_W = (int64_t)(__hce_q + (__hce_r != 0));\n";
  }
  S += I2 + "}\n";
  S += In + "}\n";
  return S;
}

std::string loopVarAt(const LoopInfo &L, const std::string &K) {
  const std::string &T = L.VarType;
  if (!L.VarSigned && L.VarBits >= L.IntBits)
    return "(" + T + ")((" + T + ")__hce_init + (" + T + ")(" + K + ") * (" + T +
           ")__hce_step)";
  return "(" + T + ")(__hce_init + " + (K == "1" ? "" : K + " * ") + "__hce_step)";
}

} // namespace hce
