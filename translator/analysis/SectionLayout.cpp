//===- SectionLayout.cpp - Array sections flattened into hce_map ----------===//
#include "SectionLayout.h"
#include "AffineCheck.h"

#include <cstdint>
#include <optional>

namespace hce {

namespace {

bool isNumber(const std::string &S) {
  if (S.empty() || S.size() > 18)
    return false;
  for (char C : S)
    if (C < '0' || C > '9')
      return false;
  return true;
}

/// Product of extent expressions, numbers folded.
std::string product(const std::vector<std::string> &Factors) {
  uint64_t Num = 1;
  std::vector<std::string> Sym;
  for (const std::string &F : Factors) {
    if (isNumber(F)) {
      uint64_t V = std::stoull(F);
      if (V != 0 && Num > UINT64_C(0x7fffffffffffffff) / V) {
        Sym.push_back("(int64_t)(" + F + ")");
        continue;
      }
      Num *= V;
    } else {
      Sym.push_back(F.rfind("(int64_t)(", 0) == 0 ? F : "(int64_t)(" + F + ")");
    }
  }
  std::string S;
  if (Num != 1 || Sym.empty())
    S = std::to_string(Num);
  for (const std::string &F : Sym)
    S += (S.empty() ? "" : " * ") + F;
  return S;
}

/// "(int64_t)(A) * B", or just the text when the factor is 1.
std::string times(const std::string &A, const std::string &B) {
  if (B == "1")
    return A;
  if (A == "1")
    return B;
  if (isNumber(A) && isNumber(B) && A.size() + B.size() < 18)
    return std::to_string(std::stoull(A) * std::stoull(B));
  return "(int64_t)(" + A + ") * " + B;
}

struct NormDim {
  std::string Lo = "0"; ///< "0" when omitted
  std::string Len;
  bool Whole = false;
  bool Single = false;
  size_t Offset = 0; ///< of the '[' (or of the name for implicit dims)
};

} // namespace

bool layoutSection(const Section &S, const std::vector<ArrayDim> &Dims,
                   std::string_view LoopVar, SectionLayoutResult &Out, ClauseError &Err) {
  auto Fail = [&](size_t Off, std::string Msg) {
    Err.Offset = Off;
    Err.Message = std::move(Msg);
    return false;
  };
  const size_t K = Dims.size();
  if (K == 0)
    return Fail(S.Offset, "cannot map '" + S.Name + "': it has no dimensions");
  if (S.Dims.size() > K)
    return Fail(S.Dims[K].Offset, "the section has " + std::to_string(S.Dims.size()) +
                                      " dimensions but '" + S.Name + "' has only " +
                                      std::to_string(K));
  bool UsesLoop = !LoopVar.empty();
  auto Mentions = [&](const std::string &T) {
    return UsesLoop && mentionsIdentifier(T, LoopVar);
  };

  Out = SectionLayoutResult();
  std::vector<NormDim> N(K);
  for (size_t D = 0; D < K; ++D) {
    NormDim &ND = N[D];
    const ArrayDim &AD = Dims[D];
    auto IsWholeLen = [&](const std::string &L) {
      if (L == AD.Value)
        return true;
      for (const std::string &Sp : AD.Spellings)
        if (L == Sp)
          return true;
      return false;
    };
    if (D >= S.Dims.size()) {
      // Omitted dimension: all of it.
      ND.Offset = S.Dims.empty() ? S.Offset : S.Dims.back().Offset;
      if (AD.Value.empty()) {
        if (K == 1)
          return Fail(S.Offset, "the length of '" + S.Name +
                                    "' is unknown; write a section such as " + S.Name +
                                    "[0:n]");
        return Fail(S.Offset, "the length of the first dimension of '" + S.Name +
                                  "' is unknown; write a section "
                                  "such as " +
                                  S.Name + "[0:n]");
      }
      ND.Len = AD.Value;
      ND.Whole = true;
      continue;
    }
    const SectionDim &SD = S.Dims[D];
    ND.Offset = SD.Offset;
    if (!SD.Lo.empty())
      ND.Lo = SD.Lo.Text;
    if (!SD.HasColon) {
      ND.Len = "1";
      ND.Single = true;
    } else if (SD.Len.empty()) {
      if (!SD.Lo.empty() && Mentions(SD.Lo.Text))
        return Fail(SD.Offset, "a section that uses the loop variable "
                               "needs an explicit length");
      if (AD.Value.empty())
        return Fail(SD.Offset, "the length of '" + S.Name +
                                   "' is unknown; give the section length explicitly");
      ND.Len = SD.Lo.empty() ? AD.Value : "(" + AD.Value + ") - (" + SD.Lo.Text + ")";
      ND.Whole = SD.Lo.empty() || SD.Lo.Text == "0";
    } else {
      ND.Len = SD.Len.Text;
      if (Mentions(SD.Len.Text))
        return Fail(SD.Len.Offset, "the section length must not depend on the loop "
                                   "variable '" +
                                       std::string(LoopVar) + "'");
      ND.Whole = (SD.Lo.empty() || SD.Lo.Text == "0") && IsWholeLen(ND.Len);
      ND.Single = ND.Len == "1";
    }
    // Constant sections must lie inside a dimension of known extent and
    // must not be empty (a device would get no copy, or read past it).
    if (ND.Len == "0" ||
        (SD.HasColon && isNumber(SD.Len.Text) && std::stoull(SD.Len.Text) == 0))
      return Fail(SD.HasColon && !SD.Len.empty() ? SD.Len.Offset : SD.Offset,
                  "the section of '" + S.Name + "' is empty (length 0)");
    if (isNumber(AD.Value) && isNumber(ND.Lo) && isNumber(ND.Len)) {
      uint64_t Ext = std::stoull(AD.Value), Lo = std::stoull(ND.Lo),
               Len = std::stoull(ND.Len);
      if (Lo + Len > Ext)
        return Fail(SD.Offset,
                    "the section [" + ND.Lo + ":" + ND.Len + "] of '" + S.Name +
                        "' ends at element " + std::to_string(Lo + Len) +
                        ", beyond the " + AD.Value + " elements of " +
                        (K == 1 ? "the array" : "its dimension " + std::to_string(D)));
    }
    if (!SD.Lo.empty() && UsesLoop) {
      std::string Why;
      Affinity A = classifyAffine(SD.Lo.Text, LoopVar, &Why);
      if (A == Affinity::NonAffine)
        return Fail(
            SD.Lo.Offset,
            "the section start '" +
                (SD.Lo.Text.size() > 60 ? SD.Lo.Text.substr(0, 57) + "..." : SD.Lo.Text) +
                "' is not affine in the loop "
                "variable '" +
                std::string(LoopVar) + "'" + (Why.empty() ? "" : " (" + Why + ")"));
      if (A != Affinity::Invariant)
        Out.PerIteration = true;
    }
  }

  if (K == 1) {
    Out.OffsetText = N[0].Lo;
    Out.LenText = N[0].Len;
    return true;
  }

  // Row-major strides: Stride[d] = product of the extents after d.
  std::vector<std::string> Stride(K);
  for (size_t D = 0; D < K; ++D) {
    std::vector<std::string> F;
    for (size_t E = D + 1; E < K; ++E)
      F.push_back(Dims[E].Value);
    Stride[D] = product(F);
  }
  // q: the innermost dimension that is not whole; the contiguous run is
  // len_q * stride_q elements.
  size_t Q = 0;
  for (size_t D = K; D-- > 0;)
    if (!N[D].Whole) {
      Q = D;
      break;
    }
  // The dimensions before q that take more than one index become blocks.
  std::vector<size_t> G;
  for (size_t D = 0; D < Q; ++D)
    if (!N[D].Single)
      G.push_back(D);
  // Several: one level of equally spaced blocks describes them when they
  // are consecutive up to q and all but the first are whole (they then
  // count as one flattened dimension). A dimension in between taken in
  // part (`[0:N]` of one declared `[N + PAD]`, `[1:3]` of `[4]`) is
  // widened to the whole dimension: a superset, the rows in between move
  // too (the runtime merges written supersets without losing anything).
  if (G.size() > 1)
    for (size_t D = G.front() + 1; D < Q; ++D) {
      if (N[D].Whole)
        continue;
      if (Mentions(N[D].Lo))
        return Fail(N[D].Offset, "cannot describe this section of '" + S.Name +
                                     "': it takes part of more than one inner dimension "
                                     "and this one moves with the loop variable (only "
                                     "one level of equally spaced blocks is supported); "
                                     "map whole rows instead, e.g. [0:n] or [:] in this "
                                     "dimension");
      N[D].Lo = "0";
      N[D].Len = Dims[D].Value;
      N[D].Whole = true;
      N[D].Single = false;
      Out.Widened.push_back(D);
    }

  // Offset: sum of start * stride.
  std::string Off;
  for (size_t D = 0; D < K; ++D) {
    if (N[D].Lo == "0")
      continue;
    Off += (Off.empty() ? "" : " + ") + times(N[D].Lo, Stride[D]);
  }
  Out.OffsetText = Off.empty() ? "0" : Off;
  Out.LenText = times(N[Q].Len, Stride[Q]);
  if (G.empty())
    return true;
  size_t R = G.front();
  if (G.size() == 1) {
    Out.BlocksText = N[R].Len;
    Out.StrideText = Stride[R];
    return true;
  }
  std::vector<std::string> F{N[R].Len};
  for (size_t D = R + 1; D < Q; ++D)
    F.push_back(Dims[D].Value);
  Out.BlocksText = product(F);
  Out.StrideText = Stride[Q - 1];
  return true;
}

} // namespace hce
