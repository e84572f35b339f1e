//===- CudaVariantEmitter.cpp - The CUDA variant --------------------------===//
#include "CudaVariantEmitter.h"
#include "CodeGenUtil.h"
#include "TripCount.h"

namespace hce {

namespace {

// The end of a kernel with reductions: the last block to finish (a count of
// finished blocks after the slots, as in the CUDA samples' threadFenceReduction)
// copies the slots to the host's mapped block __hce_out, when there is one.
// The launcher then reads them after its cudaStreamSynchronize, where an
// 8-byte device-to-host copy would wait behind other streams' large copies
// on the copy engine: 0.16 ms beside an 8 MiB fetch home on the H100, 1.2 ms
// beside 64 MiB, against 0.04 ms (bench/reduction_beside_fetch.cu).
std::string lastBlockHandsOver() {
  return "  if (__hce_out) {\n"
         "    __shared__ int __hce_last;\n"
         "    const unsigned __hce_bt = threadIdx.y * blockDim.x + threadIdx.x;\n"
         "    __threadfence(); /* this thread's folds, seen before the count */\n"
         "    __syncthreads();\n"
         "    if (__hce_bt == 0)\n"
         "      __hce_last = atomicAdd((unsigned *)((unsigned long long *)__hce_dred + "
         "__hce_nw), 1u) ==\n"
         "                   gridDim.x * gridDim.y - 1;\n"
         "    __syncthreads();\n"
         "    if (__hce_last) {\n"
         "      __threadfence();\n"
         "      const volatile unsigned long long *__hce_in =\n"
         "          (const volatile unsigned long long *)__hce_dred;\n"
         "      for (unsigned long long __hce_w = __hce_bt; __hce_w < __hce_nw;\n"
         "           __hce_w += blockDim.x * blockDim.y)\n"
         "        __hce_out[__hce_w] = __hce_in[__hce_w];\n"
         "    }\n"
         "  }\n";
}

constexpr int ThreadsPerBlock = 256; // a power of two: the block reduction
constexpr int MaxBlocks = 65535;     // the grid-stride loop covers the rest

/// "double" from "double *".
std::string valueType(const ReductionVar &V) {
  std::string T = V.PtrType;
  while (!T.empty() && (T.back() == ' ' || T.back() == '*'))
    T.pop_back();
  return T;
}

/// The type a reduction is accumulated in on the device (across threads)
/// and combined atomically: 32 or 64 bits, as CUDA's atomics want.
std::string atomicType(const std::string &E) {
  if (E == "HCE_TYPE_F32")
    return "float";
  if (E == "HCE_TYPE_F64")
    return "double";
  if (E == "HCE_TYPE_I64")
    return "long long";
  if (E == "HCE_TYPE_U64")
    return "unsigned long long";
  if (E == "HCE_TYPE_U8" || E == "HCE_TYPE_U16" || E == "HCE_TYPE_U32")
    return "unsigned int";
  return "int";
}

bool isFloat(const std::string &E) { return E == "HCE_TYPE_F32" || E == "HCE_TYPE_F64"; }

/// The operator's identity, as an expression of type \p T.
std::string identity(const ReductionVar &V, const std::string &T, bool Host = false) {
  const std::string &E = V.TypeEnum;
  std::string Bits = E.substr(9); // "I32", "F64", ... (after "HCE_TYPE_")
  switch (V.Op) {
  case RedOp::Add:
  case RedOp::BOr:
  case RedOp::BXor:
  case RedOp::LOr: return "(" + T + ")0";
  case RedOp::Mul:
  case RedOp::LAnd: return "(" + T + ")1";
  case RedOp::BAnd: return "(" + T + ")~0ULL";
  case RedOp::Min:
    if (E == "HCE_TYPE_F32")
      return "(" + T + ")" +
             (Host ? "__builtin_huge_valf()" : "__int_as_float(0x7f800000)");
    if (E == "HCE_TYPE_F64")
      return "(" + T + ")" +
             (Host ? "__builtin_huge_val()"
                   : "__longlong_as_double(0x7ff0000000000000LL)");
    return "(" + T + ")" + (Bits[0] == 'I' ? "INT" : "UINT") + Bits.substr(1) + "_MAX";
  case RedOp::Max:
    if (E == "HCE_TYPE_F32")
      return "(" + T + ")-" +
             (Host ? "__builtin_huge_valf()" : "__int_as_float(0x7f800000)");
    if (E == "HCE_TYPE_F64")
      return "(" + T + ")-" +
             (Host ? "__builtin_huge_val()"
                   : "__longlong_as_double(0x7ff0000000000000LL)");
    return Bits[0] == 'I' ? "(" + T + ")INT" + Bits.substr(1) + "_MIN" : "(" + T + ")0";
  }
  return "(" + T + ")0";
}

/// `A op B` for the reduction operator.
std::string combine(RedOp Op, const std::string &A, const std::string &B) {
  switch (Op) {
  case RedOp::Add: return A + " + " + B;
  case RedOp::Mul: return A + " * " + B;
  case RedOp::Min: return B + " < " + A + " ? " + B + " : " + A;
  case RedOp::Max: return B + " > " + A + " ? " + B + " : " + A;
  case RedOp::BAnd: return A + " & " + B;
  case RedOp::BOr: return A + " | " + B;
  case RedOp::BXor: return A + " ^ " + B;
  case RedOp::LAnd: return A + " && " + B;
  case RedOp::LOr: return A + " || " + B;
  }
  return A;
}

/// Body of the device function that folds \p V (of atomic type \p A) into
/// the scratch slot \p P: a hardware atomic where CUDA has one, else a
/// compare-and-swap loop.
std::string atomicCombine(const ReductionVar &R, const std::string &A) {
  bool F = A == "float" || A == "double";
  bool LL = A == "long long";
  std::string P = "__hce_p", V = "__hce_v";
  auto Call = [&](const char *Fn) {
    if (LL)
      return std::string("  ") + Fn + "((unsigned long long *)" + P +
             ", (unsigned long long)" + V + ");\n";
    return std::string("  ") + Fn + "(" + P + ", " + V + ");\n";
  };
  switch (R.Op) {
  case RedOp::Add: return Call("atomicAdd");
  case RedOp::Min:
    if (!F)
      return "  atomicMin(" + P + ", " + V + ");\n";
    break;
  case RedOp::Max:
    if (!F)
      return "  atomicMax(" + P + ", " + V + ");\n";
    break;
  case RedOp::BAnd:
    if (!F)
      return Call("atomicAnd");
    break;
  case RedOp::BOr:
    if (!F)
      return Call("atomicOr");
    break;
  case RedOp::BXor:
    if (!F)
      return Call("atomicXor");
    break;
  default: break;
  }
  bool Wide = A == "double" || A == "long long" || A == "unsigned long long";
  std::string U = Wide ? "unsigned long long" : "unsigned int";
  std::string S;
  S += "  union { " + A + " v; " + U + " u; } __hce_old, __hce_new;\n";
  S += "  " + U + " *__hce_a = (" + U + " *)" + P + ";\n";
  S += "  __hce_old.u = *__hce_a;\n";
  S += "  for (;;) {\n";
  S += "    __hce_new.v = (" + A + ")(" + combine(R.Op, "__hce_old.v", V) + ");\n";
  S += "    " + U + " __hce_seen = atomicCAS(__hce_a, __hce_old.u, __hce_new.u);\n";
  S += "    if (__hce_seen == __hce_old.u)\n      break;\n";
  S += "    __hce_old.u = __hce_seen;\n";
  S += "  }\n";
  return S;
}

/// Trip count of an inner level as an int64_t expression.
std::string tripText(const InnerLevel &L) {
  std::string I = "(int64_t)(" + L.InitText + ")", B = "(int64_t)(" + L.BoundText + ")",
              St = std::to_string(L.Step);
  if (L.Cmp == "<=")
    return "(" + B + " >= " + I + " ? (" + B + " - " + I + ") / " + St + " + 1 : 0)";
  return "(" + B + " > " + I + " ? (" + B + " - " + I + " + " + St + " - 1) / " + St +
         " : 0)";
}

/// A rows kernel's block (bx threads share a row, by rows) and the blocks
/// gy one row spreads over, before the launcher bounds gy by the grid:
/// declares __hce_bx, __hce_by and __hce_gy from __hce_threads and, when the
/// inner trip counts come from captured scalars, from __hce_args.  The
/// launcher and the wave function (hce_region::cuda_wave) share it.
std::string rowShape(const Region &R, const InnerLoopPlan &Rows) {
  const std::string ArgsT = "struct " + genName("args", R);
  const std::vector<InnerLevel> &Lv = Rows.Levels;
  std::string S;
  S += "  unsigned __hce_bx = __hce_threads, __hce_by = 1;\n";
  S += "  int64_t __hce_gy = " + std::string(Rows.HostExtents ? "1" : "16") + ";\n";
  if (Rows.HostExtents) {
    S += "  { /* the inner trip counts, from the captured scalars */\n";
    S += "    const " + ArgsT + " __hce_av = *(const " + ArgsT + " *)__hce_args;\n";
    S += "    (void)__hce_av;\n";
    S += enumeratorDecl(R, "    ");
    for (const CapturedVar &C : R.Captures)
      if (C.Value.empty())
        S += "    " + C.ConstDecl + " = __hce_av." + C.Name + ";\n    (void)" + C.Name +
             ";\n";
    S += "    const int64_t __hce_ey = " + tripText(Lv[0]) + ";\n";
    S += "    const int64_t __hce_ex = " +
         (Lv.size() == 2 ? tripText(Lv[1]) : std::string("__hce_ey")) + ";\n";
    S += "    while (__hce_bx > 32 && __hce_bx / 2 >= __hce_ex)\n"
         "      __hce_bx /= 2;\n";
    S += "    __hce_by = __hce_threads / __hce_bx;\n";
    S += std::string("    __hce_gy = ") +
         (Lv.size() == 2 ? "__hce_ey" : "(__hce_ey + __hce_bx - 1) / __hce_bx") + ";\n";
    S += "  }\n";
  }
  // (InnerLoopPlan::oneBlockPerRow: the row's barriers are the block's)
  if (Rows.StoresOnce)
    S += "  __hce_by = 1; /* one block per row: its stores between barriers */\n"
         "  __hce_gy = 1;\n";
  else if (Rows.oneBlockPerRow()) {
    S += "  __hce_by = 1; /* one block per row: it combines the row's work */\n"
         "  __hce_gy = 1;\n";
    // A row of a length the launcher cannot know (CSR's rowptr[i] to
    // rowptr[i+1], often a few elements): one warp, not 256 idle threads.
    if (!Rows.HostExtents)
      S += "  __hce_bx = 32; /* a row of unknown length: one warp */\n";
  }
  return S;
}

/// A one-block row's end (InnerLoopPlan::oneBlockPerRow): once every
/// thread is done with the inner loop, the block combines the threads'
/// shares of each row reduction (a tree in shared memory; the block is a
/// power of two wide), thread 0 folds them into the prefix's values and runs
/// the statements after the inner loop, and the block waits for it before
/// the next row (whose shares reuse the shared memory).
std::string rowEpilogue(const Region &R, const InnerLoopPlan &P, bool LineDirectives) {
  if (P.RowReductions.empty() && P.Suffix.empty())
    return "";
  std::string S = "      {\n";
  for (size_t M = 0; M < P.RowReductions.size(); ++M) {
    const RowReduction &V = P.RowReductions[M];
    const std::string Sh = "__hce_rs" + std::to_string(M);
    S += "        __shared__ " + V.Type + " " + Sh + "[" +
         std::to_string(ThreadsPerBlock) + "];\n";
    S += "        " + Sh + "[threadIdx.x] = " + V.Name + ";\n";
  }
  S += "        __syncthreads();\n";
  if (!P.RowReductions.empty()) {
    S +=
        "        for (unsigned __hce_o = blockDim.x / 2; __hce_o > 0; __hce_o >>= 1) {\n";
    S += "          if (threadIdx.x < __hce_o) {\n";
    for (size_t M = 0; M < P.RowReductions.size(); ++M) {
      const RowReduction &V = P.RowReductions[M];
      const std::string Sh = "__hce_rs" + std::to_string(M);
      S += "            " + Sh + "[threadIdx.x] = (" + V.Type + ")(" +
           combine(V.Op, Sh + "[threadIdx.x]", Sh + "[threadIdx.x + __hce_o]") + ");\n";
    }
    S += "          }\n          __syncthreads();\n        }\n";
  }
  S += "        if (threadIdx.x == 0) {\n";
  for (size_t M = 0; M < P.RowReductions.size(); ++M) {
    const RowReduction &V = P.RowReductions[M];
    const std::string Idx = std::to_string(M);
    S += "          " + V.Name + " = (" + V.Type + ")(" +
         combine(V.Op, "__hce_rv" + Idx, "__hce_rs" + Idx + "[0]") + ");\n";
  }
  for (const PlacedText &T : P.Suffix) {
    std::string L = lineDirective(T.Line, R.FileName, LineDirectives);
    S += L.empty() ? "          " : L + std::string(T.Column - 1, ' ');
    S += T.Text + "\n";
  }
  S += "        }\n        __syncthreads();\n      }\n";
  return S;
}

/// `for (T v = init + first*step; v cmp bound; v += stride*step)`.
std::string spreadHeader(const InnerLevel &L, const std::string &First,
                         const std::string &Stride) {
  std::string St = std::to_string(L.Step);
  return "for (" + L.VarDecl + " = (" + L.VarType + ")((" + L.InitText +
         ") + (int64_t)(" + First + ") * " + St + "); " + L.VarName + " " + L.Cmp + " (" +
         L.BoundText + "); " + L.VarName + " += (" + L.VarType + ")((int64_t)(" + Stride +
         ") * " + St + "))";
}

/// True when a dimension of \p A is a run-time extent (a C99
/// variable-length array, which CUDA C++ cannot spell as a type).
bool isVla(const MappedArray &A) {
  for (const std::string &E : A.InnerExtents)
    if (E.find_first_not_of("0123456789") != std::string::npos)
      return true;
  return false;
}

/// The kernel's binding of VLA map \p A (entry \p M of the pointers): a
/// view with linearised indexing, `A[i][j]` reading p[i * e0 + j].
std::string vlaBinding(const MappedArray &A, size_t M) {
  std::string Elem = A.PtrType.substr(0, A.PtrType.find("(*)"));
  while (!Elem.empty() && Elem.back() == ' ')
    Elem.pop_back();
  std::string Ext;
  for (const std::string &E : A.InnerExtents)
    Ext += (Ext.empty() ? "(int64_t)(" : ", (int64_t)(") + E + ")";
  return "  const __hce_vla<" + Elem + ", " + std::to_string(A.Rank) + "> " + A.Name +
         " = {(" + Elem + " *)__hce_p.p[" + std::to_string(M) + "], {" + Ext + "}};\n";
}

/// The view type behind vlaBinding, once per .cu file.
const char *const VlaViewDecl =
    "/* A variable-length array (`double A[n][m]`) as CUDA C++ can hold it:\n"
    "   the base pointer and the extents of dimensions 1..R-1; A[i] is the\n"
    "   view of row i (a plain pointer in the last dimension). */\n"
    "template <class T, int R> struct __hce_vla {\n"
    "  T *p;\n"
    "  int64_t e[R - 1];\n"
    "  __device__ __forceinline__ __hce_vla<T, R - 1> operator[](int64_t i) "
    "const {\n"
    "    __hce_vla<T, R - 1> v;\n"
    "    int64_t s = 1;\n"
    "    for (int d = 0; d < R - 1; ++d)\n"
    "      s *= e[d];\n"
    "    for (int d = 1; d < R - 1; ++d)\n"
    "      v.e[d - 1] = e[d];\n"
    "    v.p = p + i * s;\n"
    "    return v;\n"
    "  }\n"
    "};\n"
    "template <class T> struct __hce_vla<T, 2> {\n"
    "  T *p;\n"
    "  int64_t e[1];\n"
    "  __device__ __forceinline__ T *operator[](int64_t i) const "
    "{ return p + i * e[0]; }\n"
    "};\n";

/// True when region \p R has an array reduction.
bool hasArrayReduction(const Region &R) {
  for (const ReductionVar &V : R.Reductions)
    if (V.IsArray)
      return true;
  return false;
}

/// The kernel's view of array reduction \p I of \p R: `hist[e]` is a
/// reference whose updates are atomic operations on the one device copy
/// (elements of the atomic type, in the scratch block after the slots).
/// ArrayReduction.cpp's checkAtomicUses admitted only the forms defined here.
std::string arrayReductionView(const Region &R, size_t I) {
  const ReductionVar &V = R.Reductions[I];
  const std::string A = atomicType(V.TypeEnum), Is = std::to_string(I);
  const std::string Ref = genName("rref", R) + "_" + Is,
                    View = genName("rview", R) + "_" + Is;
  const std::string Fold = genName("fold", R) + "_" + Is;
  const std::string Op = "__device__ __forceinline__ void operator";
  std::string S;
  S += "/* '" + V.Name + "' of reduction(" + V.OpSpelling + ": " + V.Name +
       "[...]): an element, updated atomically (not every operator is used). */\n";
  S += "#pragma nv_diag_suppress 177\n";
  S += "struct " + Ref + " {\n  " + A + " *p;\n";
  S += "  __device__ __forceinline__ operator " + A + "() const { return *(volatile " +
       A + " *)p; }\n";
  switch (V.Op) {
  case RedOp::Add:
    S += "  " + Op + "+=(" + A + " v) const { " + Fold + "(p, v); }\n";
    S += "  " + Op + "-=(" + A + " v) const { " + Fold + "(p, (" + A + ")-v); }\n";
    S += "  " + Op + "++() const { " + Fold + "(p, (" + A + ")1); }\n";
    S += "  " + Op + "++(int) const { " + Fold + "(p, (" + A + ")1); }\n";
    S += "  " + Op + "--() const { " + Fold + "(p, (" + A + ")-1); }\n";
    S += "  " + Op + "--(int) const { " + Fold + "(p, (" + A + ")-1); }\n";
    break;
  case RedOp::Mul:
    S += "  " + Op + "*=(" + A + " v) const { " + Fold + "(p, v); }\n";
    break;
  case RedOp::BXor:
    S += "  " + Op + "^=(" + A + " v) const { " + Fold + "(p, v); }\n";
    break;
  case RedOp::BAnd:
    S += "  " + Op + "&=(" + A + " v) const { " + Fold + "(p, v); }\n";
    break;
  case RedOp::BOr:
    S += "  " + Op + "|=(" + A + " v) const { " + Fold + "(p, v); }\n";
    break;
  default: break;
  }
  // min, max, &, |, &&, ||: storing a value already combined with the
  // element is the same as combining it (x op x == x).
  if (V.Op == RedOp::Min || V.Op == RedOp::Max || V.Op == RedOp::BAnd ||
      V.Op == RedOp::BOr || V.Op == RedOp::LAnd || V.Op == RedOp::LOr) {
    S += "  " + Op + "=(" + A + " v) const { " + Fold + "(p, v); }\n";
    S += "  " + Op + "=(const " + Ref + " &o) const { " + Fold + "(p, (" + A + ")o); }\n";
  }
  S += "};\n";
  S += "struct " + View + " {\n  " + A + " *b;\n";
  S += "  __device__ __forceinline__ " + Ref +
       " operator[](int64_t e) const { return {b + e}; }\n";
  S += "};\n";
  S += "#pragma nv_diag_default 177\n";
  return S;
}

} // namespace

void CudaVariantEmitter::planRegion(const RegionInput &In, const Region &R,
                                    clang::ASTContext &Ctx, Diag & /*D*/) {
  if (DC.hasVariant(R, DeviceKind::Cuda))
    Plans[R.Index] = planInnerLoop(In, R, Ctx);
}

std::string CudaVariantEmitter::launcherName(const Region &R) const {
  return genName("cuda", R) + DC.linkSuffix();
}

std::string CudaVariantEmitter::waveName(const Region &R) const {
  return genName("cuda_wave", R) + DC.linkSuffix();
}

static std::string launcherParams() {
  return "(int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,\n"
         "    const void *__hce_args, void *__hce_red, void *__hce_stream)";
}

std::string CudaVariantEmitter::hostDecls(const Region &R) const {
  if (!DC.hasVariant(R, DeviceKind::Cuda))
    return "";
  const std::string Extern = R.IsCXX ? "extern \"C\" " : "";
  return "#ifdef HCE_HAVE_CUDA_VARIANTS\n" + Extern + "int " + launcherName(R) +
         launcherParams() + ";\n" + Extern + "int64_t " + waveName(R) +
         "(const void *__hce_args, int __hce_sms);\n#endif\n";
}

std::string CudaVariantEmitter::siteHook(const Region &R) const {
  if (!DC.hasVariant(R, DeviceKind::Cuda))
    return "";
  // A 1-D kernel tells the runtime its block: eft does not probe the GPU
  // with fewer iterations than fill every multiprocessor (they cost as
  // much; the H100's nbody: 16 bodies took the 4.5 ms of 16384).
  auto PI = Plans.find(R.Index);
  const bool OneD = PI == Plans.end() || !PI->second.Spread;
  // Either tells it its wave (the occupancy calculator's, at the plan):
  // chunks in whole waves (the H200's gemm rows kernel, call QJ: 1.26
  // waves of 132 rows took 1.20 ms, 2.14 took 1.75).
  return "#ifdef HCE_HAVE_CUDA_VARIANTS\n__hce_r.cuda = " + launcherName(R) + ";\n" +
         (OneD ? "__hce_r.cuda_block_iterations = " + std::to_string(ThreadsPerBlock) +
                     ";\n"
               : std::string()) +
         "__hce_r.cuda_wave = " + waveName(R) + ";\n#endif\n";
}

std::string CudaVariantEmitter::companion(const Region &R) const {
  if (!DC.hasVariant(R, DeviceKind::Cuda))
    return "";
  const RegionDeviceNeeds &N = DC.needs(R.Index);
  const std::string Kernel = genName("kernel", R);
  const std::string ArgsT = "struct " + genName("args", R);
  const std::string PtrsT = "struct " + genName("ptrs", R);
  const size_t NM = R.Maps.size(), NR = R.Reductions.size();
  std::string Shown = R.DisplayName.substr(0, 200);
  for (size_t P; (P = Shown.find("*/")) != std::string::npos;)
    Shown.replace(P, 2, "* /");

  std::string S;
  S += "\n/* HCE co_exec region " + std::to_string(R.Index) + " (" + Shown +
       "): CUDA variant. */\n";
  if (!N.NsOpen.empty())
    S += N.NsOpen + "\n";
  // Everything but the launcher has internal linkage: each translated file
  // of a program has its own __hce_kernel_0.
  S += "namespace {\n";
  S += argsStructDecl(R, /*InUnnamedNs=*/true);
  S += PtrsT + " {\n  void *p[" + std::to_string(NM ? NM : 1) + "];\n};\n";

  // Atomic folds into the device scratch slots.
  for (size_t I = 0; I < NR; ++I) {
    const ReductionVar &V = R.Reductions[I];
    std::string A = atomicType(V.TypeEnum);
    S += "static __device__ __forceinline__ void " + genName("fold", R) + "_" +
         std::to_string(I) + "(" + A + " *__hce_p, " + A + " __hce_v) {\n";
    S += atomicCombine(V, A);
    S += "}\n";
    if (V.IsArray)
      S += arrayReductionView(R, I);
  }

  // The kernel.
  auto PI = Plans.find(R.Index);
  const InnerLoopPlan *Rows =
      PI != Plans.end() && PI->second.Spread ? &PI->second : nullptr;
  if (PI != Plans.end()) {
    std::string Why = PI->second.Why;
    for (size_t Q; (Q = Why.find("*/")) != std::string::npos;)
      Why.replace(Q, 2, "* /");
    if (Rows) {
      S += "/* Kernel shape: rows. One outer iteration per block row, the "
           "inner loop";
      for (const InnerLevel &L : Rows->Levels)
        S += std::string(&L == &Rows->Levels[0] ? " '" : ", '") + L.VarName + "' (line " +
             std::to_string(L.Line) + ")";
      S += Rows->Levels.size() == 1 ? " over blockIdx.y * blockDim.x + threadIdx.x"
                                    : " over blockIdx.y and threadIdx.x";
      S += ": " + Why + ". */\n";
    } else {
      S += "/* Kernel shape: 1-D, one thread per outer iteration: " + Why + ". */\n";
    }
  }
  S += "__global__ void __launch_bounds__(" + std::to_string(ThreadsPerBlock) + ")\n" +
       Kernel + "(int64_t __hce_lb, int64_t __hce_ub, const " + ArgsT +
       " __hce_a,\n    const " + PtrsT + " __hce_p, void *__hce_dred" +
       (NR ? ",\n    unsigned long long *__hce_out, unsigned long long __hce_nw" : "") +
       ") {\n";
  S += "  const int64_t __hce_init = __hce_a.__hce_init;\n";
  S += "  const int64_t __hce_step = __hce_a.__hce_step;\n";
  S += enumeratorDecl(R, "  ");
  for (const CapturedVar &C : R.Extents)
    S += "  " + C.ConstDecl + " = __hce_a." + C.Name + ";\n";
  for (size_t M = 0; M < NM; ++M) {
    const MappedArray &A = R.Maps[M];
    if (A.UsedInBody && isVla(A))
      S += vlaBinding(A, M);
    else if (A.UsedInBody)
      S += "  " + A.PtrDecl + " = (" + A.PtrType + ")__hce_p.p[" + std::to_string(M) +
           "];\n";
  }
  for (const CapturedVar &C : R.Captures)
    S += "  " + C.ConstDecl + " = __hce_a." + C.Name + ";\n";
  for (size_t I = 0; I < NR; ++I) {
    const ReductionVar &V = R.Reductions[I];
    if (V.IsArray) // the device copy, indexed as the array
      S += "  const " + genName("rview", R) + "_" + std::to_string(I) + " " + V.Name +
           " = {(" + atomicType(V.TypeEnum) +
           " *)((char *)__hce_dred + *(const long long *)((char *)" + "__hce_dred + " +
           std::to_string(8 * I) + ")) - " + V.LoArg + "};\n  (void)" + V.LenArg + ";\n";
    else
      S += "  " + V.Decl + " = " + identity(V, valueType(V)) + ";\n";
  }
  S += "  (void)__hce_p;\n  (void)__hce_dred;\n";
  std::string Line = lineDirective(R.BodyLine, R.FileName, LineDirectives);
  if (!Rows) {
    S += "  for (int64_t __hce_k = __hce_lb + (int64_t)blockIdx.x * blockDim.x + "
         "threadIdx.x;\n       __hce_k < __hce_ub; __hce_k += (int64_t)gridDim.x "
         "* blockDim.x) {\n";
    for (const PrivateVar &P : R.Privates)
      S += "    " + P.Decl + ";\n";
    S += "    " + R.Loop.VarDecl + " = " + loopVarAt(R.Loop, "__hce_k") + ";\n";
    S += Line.empty() ? "    " : Line + std::string(R.BodyColumn - 1, ' ');
    S += R.BodyText + "\n";
    S += "  }\n";
  } else {
    // One outer iteration per row of the block; its inner loop over the
    // row's threads (and blockIdx.y).
    const InnerLoopPlan &P = *Rows;
    S += "  for (int64_t __hce_k = __hce_lb + (int64_t)blockIdx.x * blockDim.y + "
         "threadIdx.y;\n       __hce_k < __hce_ub; __hce_k += (int64_t)gridDim.x "
         "* blockDim.y) {\n";
    for (const PrivateVar &Pv : R.Privates)
      S += "    " + Pv.Decl + ";\n";
    S += "    " + R.Loop.VarDecl + " = " + loopVarAt(R.Loop, "__hce_k") + ";\n";
    S += "    {\n";
    for (const PlacedText &T : P.Prefix) {
      // A store the row's threads read before (InnerLoopPlan::StoresOnce):
      // once, by thread 0, after every thread's reads and before any after.
      // The row is the block's (the launcher's __hce_by and __hce_gy 1), so
      // every thread of the block reaches both barriers.
      if (T.Once)
        S += "      __syncthreads();\n      if (threadIdx.x == 0) {\n";
      std::string L = lineDirective(T.Line, R.FileName, LineDirectives);
      S += L.empty() ? "      " : L + std::string(T.Column - 1, ' ');
      S += T.Text + "\n";
      if (T.Once)
        S += "      }\n      __syncthreads();\n";
    }
    // Each thread accumulates its share of a row reduction from the
    // operator's identity; the prefix's value waits in __hce_rv<m>.
    for (size_t M = 0; M < P.RowReductions.size(); ++M) {
      const RowReduction &V = P.RowReductions[M];
      S += "      const " + V.Type + " __hce_rv" + std::to_string(M) + " = " + V.Name +
           ";\n";
      S += "      " + V.Name + " = (" + V.Type + ")" + (V.Op == RedOp::Mul ? "1" : "0") +
           ";\n";
    }
    // (after a store's barrier or the shares, the header at its own line)
    if ((!P.Prefix.empty() && P.Prefix.back().Once) || !P.RowReductions.empty()) {
      std::string HL = lineDirective(P.Levels[0].Line, R.FileName, LineDirectives);
      if (!HL.empty())
        S += HL;
    }
    if (P.Levels.size() == 1) {
      S += "      " +
           spreadHeader(P.Levels[0], "blockIdx.y * blockDim.x + threadIdx.x",
                        "gridDim.y * blockDim.x") +
           "\n";
    } else {
      S += "      " + spreadHeader(P.Levels[0], "blockIdx.y", "gridDim.y") + "\n";
      S += "        " + spreadHeader(P.Levels[1], "threadIdx.x", "blockDim.x") + "\n";
    }
    std::string L = lineDirective(P.Body.Line, R.FileName, LineDirectives);
    S += L.empty() ? "          " : L + std::string(P.Body.Column - 1, ' ');
    S += P.Body.Text + "\n";
    S += rowEpilogue(R, P, LineDirectives);
    S += "    }\n";
    S += "  }\n";
  }
  // Block reduction in shared memory, then one atomic per block.
  const std::string Tid = Rows ? "__hce_tid" : "threadIdx.x";
  size_t NScalar = 0;
  for (const ReductionVar &V : R.Reductions)
    NScalar += !V.IsArray;
  if (Rows && NScalar)
    S += "  const unsigned __hce_tid = threadIdx.y * blockDim.x + "
         "threadIdx.x;\n";
  for (size_t I = 0; I < NR; ++I) {
    const ReductionVar &V = R.Reductions[I];
    if (V.IsArray)
      continue; // updated atomically in place
    std::string A = atomicType(V.TypeEnum);
    std::string Sh = "__hce_sh" + std::to_string(I);
    S += "  {\n";
    S +=
        "    __shared__ " + A + " " + Sh + "[" + std::to_string(ThreadsPerBlock) + "];\n";
    S += "    " + Sh + "[" + Tid + "] = (" + A + ")" + V.Name + ";\n";
    S += "    __syncthreads();\n";
    S += std::string("    for (unsigned __hce_o = ") +
         (Rows ? "blockDim.x * blockDim.y" : "blockDim.x") +
         " / 2; __hce_o > 0; __hce_o >>= 1) {\n";
    S += "      if (" + Tid + " < __hce_o) {\n";
    S += "        " + A + " __hce_x = " + Sh + "[" + Tid + "], __hce_y = " + Sh + "[" +
         Tid + " + __hce_o];\n";
    S += "        " + Sh + "[" + Tid + "] = (" + A + ")(" +
         combine(V.Op, "__hce_x", "__hce_y") + ");\n";
    S += "      }\n";
    S += "      __syncthreads();\n";
    S += "    }\n";
    S += "    if (" + Tid + " == 0)\n";
    S += "      " + genName("fold", R) + "_" + std::to_string(I) + "((" + A +
         " *)((char *)__hce_dred + " + std::to_string(8 * I) + "), " + Sh + "[0]);\n";
    S += "  }\n";
  }
  if (NR)
    S += lastBlockHandsOver();
  S += "}\n";

  S += "} // namespace\n";

  // The launcher.
  S += "extern \"C\" int " + launcherName(R) + launcherParams() + " {\n";
  S += "  cudaStream_t __hce_s = (cudaStream_t)__hce_stream;\n";
  S += "  if (__hce_ub <= __hce_lb)\n    return 0;\n";
  S += "  const int64_t __hce_n = __hce_ub - __hce_lb;\n";
  S += "  const unsigned __hce_threads = " + std::to_string(ThreadsPerBlock) + ";\n";
  if (!Rows) {
    S += "  int64_t __hce_blocks = (__hce_n + __hce_threads - 1) / "
         "__hce_threads;\n";
    S += "  if (__hce_blocks > " + std::to_string(MaxBlocks) + ")\n    " +
         "__hce_blocks = " + std::to_string(MaxBlocks) + ";\n";
  } else {
    // Block bx x by (bx threads share a row), grid of row blocks x gy.
    S += rowShape(R, *Rows);
    S += "  int64_t __hce_blocks = (__hce_n + __hce_by - 1) / __hce_by;\n";
    S += "  if (__hce_blocks > " + std::to_string(MaxBlocks) + ")\n    " +
         "__hce_blocks = " + std::to_string(MaxBlocks) + ";\n";
    S += "  /* enough blocks to fill the GPU, no more than the inner loop can "
         "use */\n";
    S += "  const int64_t __hce_gymax = ((int64_t)1 << 21) / (__hce_blocks * "
         "__hce_threads);\n";
    S += "  if (__hce_gy > __hce_gymax)\n    __hce_gy = __hce_gymax;\n";
    S += "  if (__hce_gy > " + std::to_string(MaxBlocks) + ")\n    " +
         "__hce_gy = " + std::to_string(MaxBlocks) + ";\n";
    S += "  if (__hce_gy < 1)\n    __hce_gy = 1;\n";
    S += "  const dim3 __hce_grid((unsigned)__hce_blocks, (unsigned)__hce_gy), "
         "__hce_block(__hce_bx, __hce_by);\n";
  }
  S += "  " + PtrsT + " __hce_p;\n";
  if (NM)
    S += "  for (int __hce_m = 0; __hce_m < " + std::to_string(NM) +
         "; ++__hce_m)\n    __hce_p.p[__hce_m] = __hce_ptrs[__hce_m];\n";
  else
    S += "  __hce_p.p[0] = 0;\n  (void)__hce_ptrs;\n";
  std::string Launch =
      "  " + Kernel +
      (Rows ? "<<<__hce_grid, __hce_block, 0, __hce_s>>>(\n"
              "      __hce_lb, "
            : "<<<(unsigned)__hce_blocks, __hce_threads, 0, "
              "__hce_s>>>(\n      __hce_lb, ") +
      "__hce_ub, *(const " + ArgsT + " *)__hce_args, __hce_p, __hce_dred" +
      (NR ? ",\n      (unsigned long long *)__hce_mdev, __hce_words" : "") + ");\n";
  if (NR == 0) {
    S += "  void *__hce_dred = 0;\n  (void)__hce_red;\n";
    S += Launch;
    S += "  /* no reduction: the runtime synchronises the stream */\n";
    S += "  return cudaPeekAtLastError() == cudaSuccess ? 0 : 1;\n";
  } else {
    // Scratch as the runtime lays out a reduction block: one 8-byte slot per
    // reduction, then each array reduction's elements (of its atomic type)
    // at the byte offset its slot holds.
    const bool Arrays = hasArrayReduction(R);
    const std::string NRs = std::to_string(NR);
    // (and after them the 8-byte count of the blocks that finished, for
    // the kernel's last block: lastBlockHandsOver)
    S += "  unsigned long long __hce_hs[" + std::to_string(NR + 1) +
         "]; /* 8-byte scratch slots, the blocks' count */\n";
    S += "  unsigned char *__hce_h = (unsigned char *)__hce_hs;\n";
    S += "  size_t __hce_hbytes = sizeof __hce_hs - 8;\n";
    if (Arrays) {
      S += "  const " + ArgsT + " *__hce_av = (const " + ArgsT + " *)__hce_args;\n";
      S += "  int64_t __hce_off[" + NRs + "] = {0};\n";
      for (size_t I = 0; I < NR; ++I) {
        const ReductionVar &V = R.Reductions[I];
        if (!V.IsArray)
          continue;
        std::string Is = std::to_string(I);
        S += "  __hce_off[" + Is + "] = (int64_t)__hce_hbytes;\n";
        S += "  __hce_hbytes += ((size_t)__hce_av->" + V.LenArg + " * sizeof(" +
             atomicType(V.TypeEnum) + ") + 7) / 8 * 8;\n";
      }
      S += "  __hce_h = (unsigned char *)malloc(__hce_hbytes + 8);\n";
      S += "  if (!__hce_h)\n    return 2;\n";
    }
    for (size_t I = 0; I < NR; ++I) {
      const ReductionVar &V = R.Reductions[I];
      std::string A = atomicType(V.TypeEnum), Is = std::to_string(I);
      std::string Slot = "__hce_h + " + std::to_string(8 * I);
      S += "  {\n    " + A + " __hce_v = " + identity(V, A, /*Host=*/true) + ";\n";
      if (V.IsArray) {
        S += "    memcpy(" + Slot + ", &__hce_off[" + Is + "], 8);\n";
        S += "    for (int64_t __hce_e = 0; __hce_e < __hce_av->" + V.LenArg +
             "; ++__hce_e)\n      memcpy(__hce_h + __hce_off[" + Is +
             "] + __hce_e * sizeof __hce_v, &__hce_v, sizeof __hce_v);\n";
      } else {
        S += "    memcpy(" + Slot + ", &__hce_v, sizeof __hce_v);\n";
      }
      S += "  }\n";
    }
    S += "  memset(__hce_h + __hce_hbytes, 0, 8); /* no block has finished */\n";
    // The runtime's block for this stream (hce_cuda_scratch): a first
    // cudaMallocAsync in a process creates the memory pool, 8-12 ms on the
    // H100, and later ones cost a launch 0.1 ms.
    S += "  void *__hce_dred = hce_cuda_scratch(__hce_stream, __hce_hbytes + 8);\n";
    S += "  const int __hce_own = __hce_dred == 0;\n";
    S += "  int __hce_async = 1, __hce_rc = 0;\n";
    S += "  if (__hce_own && cudaMallocAsync(&__hce_dred, __hce_hbytes + 8, __hce_s) != "
         "cudaSuccess) {\n";
    S += "    (void)cudaGetLastError(); /* no memory pools: plain malloc */\n";
    S += "    __hce_async = 0;\n";
    S += "    if (cudaMalloc(&__hce_dred, __hce_hbytes + 8) != cudaSuccess)\n";
    S += "      __hce_rc = 2;\n  }\n";
    // Partial results out through the runtime's mapped pinned block, by the
    // kernel's last block, when it gives one.  Identities go in by a copy: a
    // small host-to-device copy travels in the stream's commands and does
    // not wait behind other streams' copies (bench/reduction_beside_fetch.cu).
    S += "  void *__hce_mdev = 0;\n";
    S += "  unsigned char *__hce_mh = __hce_own ? 0 : (unsigned char *)"
         "hce_cuda_host_scratch(\n      __hce_stream, __hce_hbytes, &__hce_mdev);\n";
    S += "  const unsigned long long __hce_words = __hce_hbytes / 8;\n";
    S += "  if (!__hce_rc && cudaMemcpyAsync(__hce_dred, __hce_h, __hce_hbytes + 8,\n"
         "                                   cudaMemcpyHostToDevice, __hce_s) != "
         "cudaSuccess)\n    __hce_rc = 3;\n";
    S += "  if (!__hce_rc) {\n";
    S += "  " + Launch;
    S += "    if (cudaPeekAtLastError() != cudaSuccess)\n      __hce_rc = 1;\n";
    S += "  }\n";
    S += "  if (!__hce_rc && !__hce_mh &&\n"
         "      cudaMemcpyAsync(__hce_h, __hce_dred, __hce_hbytes, "
         "cudaMemcpyDeviceToHost, "
         "__hce_s) !=\n          cudaSuccess)\n    __hce_rc = 3;\n";
    S += "  if (!__hce_rc && cudaStreamSynchronize(__hce_s) != cudaSuccess)\n"
         "    __hce_rc = 4;\n";
    S += "  if (!__hce_rc && __hce_mh) /* the last block's writes, seen after the sync "
         "*/\n"
         "    memcpy(__hce_h, __hce_mh, __hce_hbytes);\n";
    S += "  if (__hce_own && __hce_dred && __hce_async)\n"
         "    cudaFreeAsync(__hce_dred, __hce_s);\n"
         "  else if (__hce_own && __hce_dred)\n    cudaFree(__hce_dred);\n";
    S += Arrays ? "  if (__hce_rc) {\n    free(__hce_h);\n    return __hce_rc;\n  }\n"
                : "  if (__hce_rc)\n    return __hce_rc;\n";
    S += "  /* fold the device's partial results into the host block */\n";
    for (size_t I = 0; I < NR; ++I) {
      const ReductionVar &V = R.Reductions[I];
      std::string A = atomicType(V.TypeEnum), T = valueType(V);
      std::string Is = std::to_string(I);
      std::string HostSlot = "((char *)__hce_red + " + std::to_string(8 * I) + ")";
      S += "  {\n";
      if (V.IsArray) {
        S += "    " + T + " *__hce_dst = (" + T +
             " *)((char *)__hce_red + *(const int64_t *)" + HostSlot + ");\n";
        S += "    for (int64_t __hce_e = 0; __hce_e < __hce_av->" + V.LenArg +
             "; ++__hce_e) {\n";
        S += "      " + A + " __hce_part;\n";
        S += "      memcpy(&__hce_part, __hce_h + __hce_off[" + Is +
             "] + __hce_e * sizeof __hce_part, sizeof __hce_part);\n";
        S += "      " + T + " __hce_x = __hce_dst[__hce_e], __hce_y = (" + T +
             ")__hce_part;\n";
        S += "      __hce_dst[__hce_e] = (" + T + ")(" +
             combine(V.Op, "__hce_x", "__hce_y") + ");\n";
        S += "    }\n";
      } else {
        S += "    " + T + " *__hce_slot = (" + T + " *)" + HostSlot + ";\n";
        S += "    " + A + " __hce_part;\n";
        S += "    memcpy(&__hce_part, __hce_h + " + std::to_string(8 * I) +
             ", sizeof __hce_part);\n";
        S += "    " + T + " __hce_x = *__hce_slot, __hce_y = (" + T + ")__hce_part;\n";
        S += "    *__hce_slot = (" + T + ")(" + combine(V.Op, "__hce_x", "__hce_y") +
             ");\n";
      }
      S += "  }\n";
    }
    if (Arrays)
      S += "  free(__hce_h);\n";
    S += "  return 0;\n";
  }
  S += "}\n";
  // One wave of the kernel for the runtime (hce_region::cuda_wave): its
  // resident blocks per multiprocessor (the occupancy calculator, with the
  // launcher's block) times the outer iterations a block runs -- for a rows
  // kernel while a row spans all its gy blocks, as it does in chunks small
  // enough that the launcher's grid bound leaves gy alone.
  S += "extern \"C\" int64_t " + waveName(R) +
       "(const void *__hce_args, int __hce_sms) {\n";
  S += "  const unsigned __hce_threads = " + std::to_string(ThreadsPerBlock) + ";\n";
  if (Rows)
    S += rowShape(R, *Rows);
  else
    S += "  (void)__hce_args;\n";
  S += "  int __hce_per_sm = 0;\n";
  // (a rows kernel's block is bx x by threads: fewer than 256 when a row is
  // one block of a short or unknown inner loop, and more of them fit an SM)
  S += "  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&__hce_per_sm, " + Kernel +
       (Rows ? ", (int)(__hce_bx * __hce_by), 0)" : ", (int)__hce_threads, 0)") +
       " != cudaSuccess) {\n";
  S += "    (void)cudaGetLastError();\n    return 0;\n  }\n";
  // (a block's threads, bx x by, over a row's, bx x gy)
  S += Rows ? "  return (int64_t)__hce_per_sm * __hce_sms * __hce_bx * __hce_by /\n"
              "         ((int64_t)__hce_bx * __hce_gy);\n"
            : "  return (int64_t)__hce_per_sm * __hce_sms * __hce_threads;\n";
  S += "}\n";
  if (!N.NsClose.empty())
    S += N.NsClose + "\n";
  return S;
}

std::string
CudaVariantEmitter::companionHeader(const std::vector<const Region *> &With) const {
  const Region &First = *With.front();
  std::string S;
  S += "/* CUDA variants of the co_exec loops of " + First.FileName +
       ",\n   generated by hce-translate: compile with nvcc (as CUDA C++, "
       "with\n   --expt-relaxed-constexpr for std::min/max). */\n";
  S += "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n#include "
       "<cuda_runtime.h>\n";
  // libhce's (hce/hce.h): device memory for reduction slots.
  S += "extern \"C\" void *hce_cuda_scratch(void *stream, size_t bytes);\n";
  S += "extern \"C\" void *hce_cuda_host_scratch(void *stream, size_t bytes, "
       "void **device);\n";
  if (!First.IsCXX)
    S += "/* The input is C, compiled here as CUDA C++. */\n"
         "#define restrict __restrict__\n#define _Bool bool\n";
  S += DC.companionPreamble(DeviceKind::Cuda, With, LineDirectives, First.FileName);
  bool AnyVla = false;
  for (const Region *R : With)
    for (const MappedArray &A : R->Maps)
      AnyVla = AnyVla || (A.UsedInBody && isVla(A));
  if (AnyVla)
    S += VlaViewDecl;
  return S;
}

} // namespace hce
