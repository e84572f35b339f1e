//===- DeviceCode.cpp - What a device companion file needs ----------------===//
#include "DeviceCode.h"
#include "CodeGenUtil.h"
#include "SourceText.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"

#include <algorithm>
#include <cstdio>

using namespace clang;

namespace hce {

namespace {

/// Functions a device can call without a copy: the C/C++ math library (CUDA
/// and clang's OpenMP offload both provide it on the device), a few libc
/// helpers, and std::min/max/abs (nvcc needs --expt-relaxed-constexpr).
bool isKnownDeviceFunction(StringRef Name) {
  static const std::set<std::string> Known = [] {
    const char *Base[] = {
        "acos",   "acosh",     "asin",     "asinh",  "atan",    "atan2",     "atanh",
        "cbrt",   "ceil",      "copysign", "cos",    "cosh",    "erf",       "erfc",
        "exp",    "exp2",      "expm1",    "fabs",   "fdim",    "floor",     "fma",
        "fmax",   "fmin",      "fmod",     "frexp",  "hypot",   "ilogb",     "ldexp",
        "lgamma", "llrint",    "llround",  "log",    "log10",   "log1p",     "log2",
        "logb",   "lrint",     "lround",   "modf",   "nan",     "nearbyint", "nextafter",
        "pow",    "remainder", "remquo",   "rint",   "round",   "scalbln",   "scalbn",
        "sin",    "sinh",      "sqrt",     "tan",    "tanh",    "tgamma",    "trunc",
        "rsqrt",  "sincos",    "exp10",    "erfinv", "erfcinv", "sinpi",     "cospi",
        "rhypot", "norm3d"};
    std::set<std::string> S;
    for (const char *B : Base) {
      S.insert(B);
      S.insert(std::string(B) + "f");
    }
    for (const char *O :
         {"abs", "labs", "llabs", "min", "max", "isnan", "isinf", "isfinite", "signbit",
          "fpclassify", "isnormal", "memcpy", "memset", "__assert_fail", "__assert_rtn",
          "__assert", "printf"})
      S.insert(O);
    return S;
  }();
  return Known.count(Name.str()) != 0;
}

bool inStdOrGlobal(const FunctionDecl *FD) {
  const DeclContext *DC = FD->getDeclContext();
  while (DC && (isa<LinkageSpecDecl>(DC) ||
                (isa<NamespaceDecl>(DC) && cast<NamespaceDecl>(DC)->isInline())))
    DC = DC->getParent();
  return DC && (DC->isTranslationUnit() || DC->isStdNamespace());
}

std::string hex8(uint32_t V) {
  char B[16];
  std::snprintf(B, sizeof B, "%08x", V);
  return B;
}

} // namespace

//===----------------------------------------------------------------------===//
// The visitor over a loop body or a function to copy.
//===----------------------------------------------------------------------===//

class DeviceUseVisitor : public RecursiveASTVisitor<DeviceUseVisitor> {
public:
  DeviceUseVisitor(DeviceContext &DC, DeviceContext::Verdict &V, bool InCopy)
      : DC(DC), V(V), InCopy(InCopy) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  void denyCuda(SourceLocation L, const std::string &Why) {
    if (V.CudaOk) {
      V.CudaOk = false;
      V.CudaWhy = Why;
      V.CudaLoc = L;
    }
  }
  void denyOmp(SourceLocation L, const std::string &Why) {
    if (V.OmpOk) {
      V.OmpOk = false;
      V.OmpWhy = Why;
      V.OmpLoc = L;
    }
  }
  void deny(SourceLocation L, const std::string &Why) {
    denyCuda(L, Why);
    denyOmp(L, Why);
  }

  bool VisitExpr(Expr *E) {
    DC.addTypeNeeds(E->getType(), V.Items, Seen);
    return true;
  }
  bool VisitTypeLoc(TypeLoc TL) {
    DC.addTypeNeeds(TL.getType(), V.Items, Seen);
    return true;
  }
  bool VisitDeclaratorDecl(DeclaratorDecl *DD) {
    DC.addTypeNeeds(DD->getType(), V.Items, Seen);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *VD = E->getDecl();
    if (const auto *EC = dyn_cast<EnumConstantDecl>(VD)) {
      if (const auto *ED = dyn_cast<EnumDecl>(EC->getDeclContext())) {
        int I = DC.itemForTypeDecl(ED);
        if (I >= 0)
          V.Items.insert(I);
      }
      return true;
    }
    const auto *Var = dyn_cast<VarDecl>(VD);
    if (!Var)
      return true;
    DC.addTypeNeeds(Var->getType(), V.Items, Seen);
    if (!InCopy || !Var->hasGlobalStorage())
      return true; // the body's own globals are captured by value
    std::string N = "'" + Var->getNameAsString() + "'";
    if (Var->isStaticLocal()) {
      deny(E->getLocation(), "it uses the static local variable " + N);
      return true;
    }
    int I = DC.itemForConstVar(Var);
    if (I >= 0)
      V.Items.insert(I);
    else
      deny(E->getLocation(),
           "a function it calls reads the global variable " + N +
               " (only const scalars with an initializer in this file can "
               "be copied to a device)");
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    SourceLocation L = CE->getBeginLoc();
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) {
      if (!isa<CXXPseudoDestructorExpr>(CE->getCallee()->IgnoreParens()))
        deny(L, "it calls a function through a pointer");
      return true;
    }
    callee(FD, L);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    const CXXConstructorDecl *C = E->getConstructor();
    if (C && !C->isTrivial())
      callee(C, E->getBeginLoc());
    return true;
  }
  bool VisitCXXNewExpr(CXXNewExpr *E) {
    deny(E->getBeginLoc(), "it uses 'new'");
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    deny(E->getBeginLoc(), "it uses 'delete'");
    return true;
  }
  bool VisitCXXThrowExpr(CXXThrowExpr *E) {
    deny(E->getBeginLoc(), "it throws an exception");
    return true;
  }
  bool VisitCXXTryStmt(CXXTryStmt *S) {
    deny(S->getBeginLoc(), "it uses 'try'");
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *E) {
    denyCuda(E->getBeginLoc(), "it uses a lambda (device copies of C++ "
                               "lambdas are not supported yet)");
    return true;
  }

private:
  DeviceContext &DC;
  DeviceContext::Verdict &V;
  bool InCopy;
  std::set<const Type *> Seen;

  void callee(const FunctionDecl *FD, SourceLocation L) {
    std::string Name = FD->getNameAsString();
    std::string Q = "'" + Name + "'";
    const FunctionDecl *Def = nullptr;
    bool HasBody = FD->hasBody(Def) && Def;
    // Copied to devices: defined in the main file (or in a user header
    // that companions do not include).
    bool DefInMain = HasBody && DC.copiedFrom(Def->getLocation());
    bool CXXSpecial = isa<CXXMethodDecl>(FD) || FD->isTemplateInstantiation() ||
                      FD->getPrimaryTemplate() || FD->getDescribedFunctionTemplate();
    if (!DefInMain || CXXSpecial) {
      // Library functions a device provides.
      unsigned ID = FD->getBuiltinID();
      if (StringRef(Name).starts_with("__builtin_") ||
          (ID && !DC.Ctx.BuiltinInfo.isLibFunction(ID)))
        return;
      if (inStdOrGlobal(FD) && isKnownDeviceFunction(Name))
        return;
    }
    if (FD->isVariadic()) {
      deny(L, "it calls the variadic function " + Q);
      return;
    }
    if (CXXSpecial) {
      std::string Why = "it calls " + Q +
                        ", a C++ method, constructor or template (device "
                        "copies of those are not supported yet)";
      denyCuda(L, Why);
      if (!HasBody || DefInMain)
        denyOmp(L, Why);
      return;
    }
    if (!HasBody) {
      deny(L, "it calls " + Q +
                  ", which has no definition in this file and is not a "
                  "known device function");
      return;
    }
    if (!DefInMain) {
      // The header is included by the offload companion, where clang makes
      // the function implicitly `declare target`.
      denyCuda(L, "it calls " + Q +
                      ", defined in a header; only functions defined in the "
                      "file being translated are copied to the GPU");
      return;
    }
    const DeviceContext::Verdict &FV = DC.functionVerdict(Def);
    if (!FV.CudaOk)
      denyCuda(FV.CudaLoc, FV.CudaWhy);
    if (!FV.OmpOk)
      denyOmp(FV.OmpLoc, FV.OmpWhy);
    V.Items.insert(FV.Items.begin(), FV.Items.end());
  }
};

//===----------------------------------------------------------------------===//
// DeviceContext
//===----------------------------------------------------------------------===//

DeviceContext::DeviceContext(ASTContext &Ctx, Preprocessor &PP, Diag &D, bool WantCuda,
                             bool WantOmp)
    : Ctx(Ctx), PP(PP), D(D), WantCuda(WantCuda), WantOmp(WantOmp) {
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  // FNV-1a over the file name and contents.
  uint32_t H = 2166136261u;
  auto Mix = [&](StringRef S) {
    for (unsigned char C : S) {
      H ^= C;
      H *= 16777619u;
    }
  };
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getMainFileID()))
    Mix(FE->getName());
  Mix(Buf);
  LinkSuffix = "_" + hex8(H);
  if (WantCuda || WantOmp) {
    findUserHeaders();
    collectDirectives();
  }
}

bool DeviceContext::inMainFile(SourceLocation L) const {
  const SourceManager &SM = Ctx.getSourceManager();
  return L.isValid() && SM.isInMainFile(SM.getExpansionLoc(L));
}

bool DeviceContext::copiedFrom(SourceLocation L) const {
  if (inMainFile(L))
    return true;
  const SourceManager &SM = Ctx.getSourceManager();
  return ExpandHeaders && L.isValid() &&
         UserHeaders.count(SM.getFileID(SM.getExpansionLoc(L))) != 0;
}

namespace {

/// Whether \p D, a file-scope declaration, defines a symbol with external
/// linkage: a second translation unit including it would define it again.
bool definesExternalSymbol(const Decl *D, const LangOptions &LO) {
  if (const auto *VD = dyn_cast<VarDecl>(D))
    return VD->isFileVarDecl() && !VD->isInline() &&
           VD->isThisDeclarationADefinition() != VarDecl::DeclarationOnly &&
           VD->hasExternalFormalLinkage() && !VD->getDescribedVarTemplate() &&
           !isa<VarTemplateSpecializationDecl>(VD);
  if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
    if (!FD->doesThisDeclarationHaveABody() || !FD->hasExternalFormalLinkage() ||
        FD->getDescribedFunctionTemplate() || FD->isTemplateInstantiation())
      return false;
    if (FD->isInlined())
      return !LO.CPlusPlus && FD->isInlineDefinitionExternallyVisible();
    return true;
  }
  return false;
}

} // namespace

void DeviceContext::findUserHeaders() {
  // The user's headers (not system headers) entered from the main file or,
  // transitively, from one another: the source manager lists files in the
  // order they were entered, so a header's includer comes first.
  SourceManager &SM = Ctx.getSourceManager();
  FileID Main = SM.getMainFileID();
  for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
    if (!E.isFile() || E.getFile().getFileCharacteristic() != SrcMgr::C_User)
      continue;
    SourceLocation Inc = E.getFile().getIncludeLoc();
    if (Inc.isInvalid() || !Inc.isFileID())
      continue;
    FileID From = SM.getFileID(Inc);
    if (From == Main || UserHeaders.count(From))
      UserHeaders.insert(SM.getFileID(SourceLocation::getFromRawEncoding(E.getOffset())));
  }
  if (UserHeaders.empty())
    return;
  // Does one of them define something with external linkage?
  std::vector<const DeclContext *> Work = {Ctx.getTranslationUnitDecl()};
  while (!Work.empty() && !ExpandHeaders) {
    const DeclContext *DC = Work.back();
    Work.pop_back();
    for (const Decl *Dl : DC->decls()) {
      if (isa<LinkageSpecDecl>(Dl) || isa<NamespaceDecl>(Dl)) {
        Work.push_back(cast<DeclContext>(Dl));
        continue;
      }
      SourceLocation L = Dl->getLocation();
      if (L.isInvalid() || !UserHeaders.count(SM.getFileID(SM.getExpansionLoc(L))) ||
          !definesExternalSymbol(Dl, Ctx.getLangOpts()))
        continue;
      ExpandHeaders = true;
      break;
    }
  }
}

ContextItem DeviceContext::itemAt(SourceLocation B, unsigned EndOffset) const {
  const SourceManager &SM = Ctx.getSourceManager();
  ContextItem I;
  I.Loc = B;
  I.File = SM.getFileID(B);
  I.Offset = SM.getFileOffset(B);
  I.End = std::max(EndOffset, I.Offset);
  PresumedLoc P = SM.getPresumedLoc(B);
  I.Line = P.isValid() ? P.getLine() : 0;
  if (I.File != SM.getMainFileID() && P.isValid())
    I.FileName = P.getFilename();
  return I;
}

void DeviceContext::collectDirectives() {
  SourceManager &SM = Ctx.getSourceManager();
  FileID Main = SM.getMainFileID();
  // Directives of the main file and, when user headers are not included,
  // of those headers (their system includes and their macros).
  auto Replayed = [&](FileID F) {
    return F == Main || (ExpandHeaders && UserHeaders.count(F));
  };
  auto LineAt = [&](FileID F, unsigned Off, unsigned &B) {
    StringRef Buf = SM.getBufferData(F);
    B = Off;
    while (B > 0 && Buf[B - 1] != '\n')
      --B;
    size_t E = Buf.find('\n', Off);
    // Keep continued lines together.
    while (E != StringRef::npos && E > 0 && Buf[E - 1] == '\\')
      E = Buf.find('\n', E + 1);
    return Buf.slice(B, E == StringRef::npos ? Buf.size() : E);
  };
  auto Add = [&](FileID F, unsigned Off, std::string Text) {
    ContextItem It = itemAt(SM.getComposedLoc(F, Off), Off);
    It.K = ContextItem::Directive;
    It.Text = std::move(Text);
    DirectiveItems.push_back(Items.size());
    Items.push_back(std::move(It));
  };

  // #include: the files entered from the replayed files.
  std::set<std::pair<FileID, unsigned>> Seen;
  for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
    if (!E.isFile())
      continue;
    SourceLocation Inc = E.getFile().getIncludeLoc();
    if (Inc.isInvalid() || !Inc.isFileID() || !Replayed(SM.getFileID(Inc)))
      continue;
    FileID From = SM.getFileID(Inc);
    if (ExpandHeaders && UserHeaders.count(SM.getFileID(
                             SourceLocation::getFromRawEncoding(E.getOffset()))))
      continue; // its declarations are copied as needed
    OptionalFileEntryRef FE = E.getFile().getContentCache().OrigEntry;
    if (!FE)
      continue;
    unsigned B;
    StringRef Line = LineAt(From, SM.getFileOffset(Inc), B);
    if (!Seen.insert({From, B}).second)
      continue;
    size_t Q = Line.find_first_of("<\"");
    if (Q == StringRef::npos || Line[Q] == '<') {
      Add(From, B, Line.str());
    } else {
      StringRef Real = SM.getFileManager().getCanonicalName(*FE);
      std::string Dir = Line.contains("include_next") ? "#include_next"
                        : Line.contains("import")     ? "#import"
                                                      : "#include";
      Add(From, B, Dir + " " + cString(Real.str()));
    }
  }

  // #define / #undef of the replayed files, as the preprocessor saw them.
  for (const auto &M : PP.macros(false)) {
    const IdentifierInfo *II = M.first;
    for (MacroDirective *MD = PP.getLocalMacroDirectiveHistory(II); MD;
         MD = MD->getPrevious()) {
      SourceLocation L = MD->getLocation();
      if (L.isInvalid() || !L.isFileID() || !Replayed(SM.getFileID(L)))
        continue;
      FileID F = SM.getFileID(L);
      unsigned B;
      if (const auto *DM = dyn_cast<DefMacroDirective>(MD)) {
        const MacroInfo *MI = DM->getInfo();
        CharSourceRange R = CharSourceRange::getTokenRange(L, MI->getDefinitionEndLoc());
        bool Invalid = false;
        StringRef T = Lexer::getSourceText(R, SM, Ctx.getLangOpts(), &Invalid);
        if (Invalid)
          continue;
        LineAt(F, SM.getFileOffset(L), B);
        Add(F, B, "#define " + T.str());
      } else if (isa<UndefMacroDirective>(MD)) {
        LineAt(F, SM.getFileOffset(L), B);
        Add(F, B, "#undef " + II->getName().str());
      }
    }
  }
}

std::string DeviceContext::nsOpen(const DeclContext *DC, std::string &Close) const {
  std::string Open;
  Close.clear();
  for (; DC && !DC->isTranslationUnit(); DC = DC->getParent()) {
    const auto *NS = dyn_cast<NamespaceDecl>(DC);
    if (!NS)
      continue;
    std::string O = std::string(NS->isInline() ? "inline " : "") + "namespace " +
                    (NS->isAnonymousNamespace() ? "" : NS->getNameAsString() + " ") +
                    "{ ";
    Open = O + Open;
    Close += "} ";
  }
  return Open;
}

/// Text of declaration \p D with the ';' that ends it.
static std::optional<std::pair<CharSourceRange, std::string>>
declText(const Decl *D, ASTContext &Ctx, bool WantSemi) {
  CharSourceRange R = fileRange(D->getSourceRange(), Ctx);
  if (R.isInvalid())
    return std::nullopt;
  std::optional<std::string> T = rangeText(R, Ctx);
  if (!T)
    return std::nullopt;
  if (WantSemi) {
    const SourceManager &SM = Ctx.getSourceManager();
    StringRef Buf = SM.getBufferData(SM.getFileID(R.getEnd()));
    unsigned P = SM.getFileOffset(R.getEnd());
    while (P < Buf.size() && isspace(static_cast<unsigned char>(Buf[P])))
      ++P;
    if (P < Buf.size() && Buf[P] == ';') {
      R.setEnd(R.getEnd().getLocWithOffset(P + 1 - SM.getFileOffset(R.getEnd())));
      T = rangeText(R, Ctx);
      if (!T)
        return std::nullopt;
    } else {
      *T += ";";
    }
  }
  return std::make_pair(R, *T);
}

int DeviceContext::itemForTypeDecl(const Decl *TD) {
  if (!TD)
    return -1;
  const Decl *Dc = TD;
  // The outermost class holding a nested type.
  while (const auto *P = dyn_cast<RecordDecl>(Dc->getDeclContext()))
    Dc = P;
  if (const auto *CTSD = dyn_cast<ClassTemplateSpecializationDecl>(Dc)) {
    if (CTSD->getSpecializationKind() == TSK_ImplicitInstantiation ||
        CTSD->getSpecializationKind() == TSK_Undeclared)
      Dc = CTSD->getSpecializedTemplate();
  } else if (const auto *RD = dyn_cast<CXXRecordDecl>(Dc)) {
    if (const ClassTemplateDecl *CT = RD->getDescribedClassTemplate())
      Dc = CT;
  }
  if (!Dc->getDeclContext()->getRedeclContext()->isFileContext())
    return -1;
  if (!copiedFrom(Dc->getLocation()))
    return -1;
  auto It = ItemOf.find(Dc);
  if (It != ItemOf.end())
    return It->second;
  auto T = declText(Dc, Ctx, /*WantSemi=*/true);
  if (!T) {
    ItemOf[Dc] = -1;
    return -1;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  ContextItem I = itemAt(T->first.getBegin(), SM.getFileOffset(T->first.getEnd()));
  I.K = ContextItem::Type;
  I.Text = T->second;
  if (Ctx.getLangOpts().CPlusPlus)
    I.NsOpen = nsOpen(Dc->getDeclContext(), I.NsClose);
  ItemOf[Dc] = Items.size();
  Items.push_back(std::move(I));
  return ItemOf[Dc];
}

int DeviceContext::itemForConstVar(const VarDecl *VD) {
  if (!VD->isFileVarDecl() || !copiedFrom(VD->getLocation()))
    return -1;
  auto It = ItemOf.find(VD);
  if (It != ItemOf.end())
    return It->second;
  ItemOf[VD] = -1;
  QualType T = VD->getType();
  const Expr *Init = VD->getInit();
  if (!T.isConstQualified() || !Init || !(T->isArithmeticType() || T->isEnumeralType()))
    return -1;
  std::optional<std::string> IT = sourceText(Init->getSourceRange(), Ctx);
  if (!IT)
    return -1;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = SM.getExpansionLoc(VD->getBeginLoc());
  ContextItem I = itemAt(B, SM.getFileOffset(B));
  I.K = ContextItem::ConstVar;
  I.Text = declString(T, VD->getNameAsString(), Ctx) + " = " + *IT + ";";
  if (Ctx.getLangOpts().CPlusPlus)
    I.NsOpen = nsOpen(VD->getDeclContext(), I.NsClose);
  std::set<const Type *> Seen;
  std::set<unsigned> Extra;
  addTypeNeeds(T, Extra, Seen);
  ItemOf[VD] = Items.size();
  Items.push_back(std::move(I));
  return ItemOf[VD];
}

std::pair<int, int> DeviceContext::itemsForFunction(const FunctionDecl *Def) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Make = [&](const FunctionDecl *F, ContextItem::Kind K) -> int {
    auto It = ItemOf.find(F);
    if (It != ItemOf.end())
      return It->second;
    auto T = declText(F, Ctx, K == ContextItem::FuncProto);
    if (!T) {
      ItemOf[F] = -1;
      return -1;
    }
    ContextItem I = itemAt(T->first.getBegin(), SM.getFileOffset(T->first.getEnd()));
    I.K = K;
    I.Text = T->second;
    I.IsStatic = Def->getCanonicalDecl()->getStorageClass() == SC_Static;
    if (Ctx.getLangOpts().CPlusPlus)
      I.NsOpen = nsOpen(F->getDeclContext(), I.NsClose);
    ItemOf[F] = Items.size();
    Items.push_back(std::move(I));
    return ItemOf[F];
  };
  int Proto = -1;
  const FunctionDecl *First = Def->getFirstDecl();
  if (First != Def && copiedFrom(First->getLocation()) &&
      SM.isBeforeInTranslationUnit(First->getLocation(), Def->getLocation()))
    Proto = Make(First, ContextItem::FuncProto);
  return {Proto, Make(Def, ContextItem::FuncDef)};
}

const DeviceContext::Verdict &DeviceContext::functionVerdict(const FunctionDecl *Def) {
  auto It = FuncVerdicts.find(Def);
  if (It != FuncVerdicts.end())
    return It->second;
  FuncVerdicts[Def] = Verdict(); // recursion sees "fine so far"
  Verdict V;
  DeviceUseVisitor Vis(*this, V, /*InCopy=*/true);
  Vis.TraverseDecl(const_cast<FunctionDecl *>(Def));
  auto [Proto, DefItem] = itemsForFunction(Def);
  if (DefItem < 0)
    Vis.deny(Def->getLocation(),
             "the source text of '" + Def->getNameAsString() +
                 "' cannot be copied (a macro expands to part of it?)");
  if (Proto >= 0)
    V.Items.insert(Proto);
  if (DefItem >= 0)
    V.Items.insert(DefItem);
  return FuncVerdicts[Def] = V;
}

void DeviceContext::addTypeNeeds(QualType QT, std::set<unsigned> &Out,
                                 std::set<const Type *> &Seen) {
  const Type *T = QT.getTypePtrOrNull();
  if (!T || !Seen.insert(T).second)
    return;
  if (const auto *TT = dyn_cast<TypedefType>(T)) {
    int I = itemForTypeDecl(TT->getDecl());
    if (I >= 0)
      Out.insert(I);
    addTypeNeeds(TT->getDecl()->getUnderlyingType(), Out, Seen);
    return;
  }
  if (const auto *PT = dyn_cast<PointerType>(T))
    return addTypeNeeds(PT->getPointeeType(), Out, Seen);
  if (const auto *RT = dyn_cast<ReferenceType>(T))
    return addTypeNeeds(RT->getPointeeType(), Out, Seen);
  if (const auto *AT = dyn_cast<ArrayType>(T))
    return addTypeNeeds(AT->getElementType(), Out, Seen);
  if (const auto *FT = dyn_cast<FunctionType>(T)) {
    addTypeNeeds(FT->getReturnType(), Out, Seen);
    if (const auto *FPT = dyn_cast<FunctionProtoType>(FT))
      for (QualType P : FPT->param_types())
        addTypeNeeds(P, Out, Seen);
    return;
  }
  if (const auto *TST = dyn_cast<TemplateSpecializationType>(T)) {
    for (const TemplateArgument &A : TST->template_arguments())
      if (A.getKind() == TemplateArgument::Type)
        addTypeNeeds(A.getAsType(), Out, Seen);
  }
  if (const auto *TagT = dyn_cast<TagType>(T)) {
    const TagDecl *TD = TagT->getDecl();
    if (const TagDecl *Def = TD->getDefinition())
      TD = Def;
    int I = itemForTypeDecl(TD);
    if (I >= 0)
      Out.insert(I);
    if (const auto *RD = dyn_cast<RecordDecl>(TD)) {
      for (const FieldDecl *F : RD->fields())
        addTypeNeeds(F->getType(), Out, Seen);
      if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD); CRD && CRD->hasDefinition())
        for (const CXXBaseSpecifier &B : CRD->bases())
          addTypeNeeds(B.getType(), Out, Seen);
    }
    return;
  }
  QualType Next = T->getLocallyUnqualifiedSingleStepDesugaredType();
  if (Next.getTypePtrOrNull() != T)
    addTypeNeeds(Next, Out, Seen);
}

DeviceContext::Verdict DeviceContext::analyzeStmt(const Stmt *S, bool InFunctionCopy) {
  Verdict V;
  DeviceUseVisitor Vis(*this, V, InFunctionCopy);
  Vis.TraverseStmt(const_cast<Stmt *>(S));
  return V;
}

void DeviceContext::analyzeRegion(const RegionInput &In, const Region &R) {
  RegionDeviceNeeds N;
  N.CudaOk = WantCuda;
  N.OmpOk = WantOmp;
  if (!WantCuda && !WantOmp) {
    Needs[R.Index] = N;
    return;
  }
  const ForStmt *F = regionLoop(In.Next);
  Verdict V;
  if (F && F->getBody())
    V = analyzeStmt(F->getBody(), false);
  std::set<const Type *> Seen;
  if (F && F->getInit()) {
    if (const auto *DS = dyn_cast<DeclStmt>(F->getInit())) {
      for (const Decl *Dl : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(Dl))
          addTypeNeeds(VD->getType(), V.Items, Seen);
    } else if (const auto *E = dyn_cast<Expr>(F->getInit())) {
      addTypeNeeds(E->getType(), V.Items, Seen);
    }
  }
  N.Items = V.Items;
  if (Ctx.getLangOpts().CPlusPlus && In.TopLevel)
    N.NsOpen = nsOpen(In.TopLevel->getDeclContext(), N.NsClose);

  // An array reduction runs on a GPU as atomic updates of one copy: only
  // where its uses in the body are such updates.
  for (const ReductionVar &RV : R.Reductions)
    if (V.CudaOk && !RV.AtomicWhy.empty()) {
      V.CudaOk = false;
      V.CudaWhy = RV.AtomicWhy;
      V.CudaLoc = RV.AtomicLoc;
    }
  for (const ReductionVar &RV : R.Reductions)
    if (V.OmpOk && RV.IsArray && !RV.LenConst) {
      V.OmpOk = false;
      V.OmpWhy = "the length of the array reduction '" + RV.Name +
                 "' is not a constant, and OpenMP offload reduces array sections of "
                 "constant length only";
      V.OmpLoc = RV.Loc;
    }
  bool CudaNo = WantCuda && !V.CudaOk, OmpNo = WantOmp && !V.OmpOk;
  auto Warn = [&](SourceLocation L, const std::string &Kinds, const std::string &Why) {
    D.warning(L, "this co_exec loop gets no " + Kinds +
                     " variant and runs on the CPU only: " + Why);
    const SourceManager &SM = Ctx.getSourceManager();
    CharSourceRange BR = F ? fileRange(F->getSourceRange(), Ctx) : CharSourceRange();
    if (BR.isValid() &&
        !SM.isPointWithin(SM.getExpansionLoc(L), BR.getBegin(), BR.getEnd()))
      D.note(In.Pragma->DirectiveLoc, "in the co_exec loop here");
  };
  if (CudaNo && OmpNo && V.CudaWhy == V.OmpWhy && V.CudaLoc == V.OmpLoc) {
    Warn(V.CudaLoc, "CUDA or OpenMP-offload", V.CudaWhy);
  } else {
    if (CudaNo)
      Warn(V.CudaLoc, "CUDA", V.CudaWhy);
    if (OmpNo)
      Warn(V.OmpLoc, "OpenMP-offload", V.OmpWhy);
  }
  N.CudaOk = WantCuda && V.CudaOk;
  N.OmpOk = WantOmp && V.OmpOk;
  Needs[R.Index] = N;
}

const RegionDeviceNeeds &DeviceContext::needs(unsigned Index) const {
  static const RegionDeviceNeeds None = [] {
    RegionDeviceNeeds N;
    N.CudaOk = N.OmpOk = false;
    return N;
  }();
  auto It = Needs.find(Index);
  return It == Needs.end() ? None : It->second;
}

bool DeviceContext::hasVariant(const Region &R, DeviceKind K) const {
  const RegionDeviceNeeds &N = needs(R.Index);
  return K == DeviceKind::Cuda ? N.CudaOk : N.OmpOk;
}

std::string DeviceContext::companionPreamble(DeviceKind K,
                                             const std::vector<const Region *> &Regions,
                                             bool LineDirectives,
                                             const std::string &FileName) const {
  std::set<unsigned> Want(DirectiveItems.begin(), DirectiveItems.end());
  for (const Region *R : Regions)
    if (hasVariant(*R, K)) {
      const RegionDeviceNeeds &N = needs(R->Index);
      Want.insert(N.Items.begin(), N.Items.end());
    }
  std::vector<unsigned> Order(Want.begin(), Want.end());
  const SourceManager &SM = Ctx.getSourceManager();
  std::sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
    if (Items[A].Loc == Items[B].Loc)
      return A < B;
    return SM.isBeforeInTranslationUnit(Items[A].Loc, Items[B].Loc);
  });
  std::string S;
  unsigned TypeBegin = 0, TypeEnd = 0;
  FileID TypeFile;
  bool HaveType = false;
  for (unsigned Idx : Order) {
    const ContextItem &I = Items[Idx];
    if (I.K == ContextItem::Directive) {
      S += I.Text + "\n";
      continue;
    }
    if (HaveType && I.File == TypeFile && I.Offset >= TypeBegin && I.End <= TypeEnd &&
        I.K == ContextItem::Type)
      continue; // inside a declaration already emitted
    if (I.K == ContextItem::Type) {
      HaveType = true;
      TypeFile = I.File;
      TypeBegin = I.Offset;
      TypeEnd = I.End;
    }
    std::string Text = I.Text;
    bool Omp = K == DeviceKind::Omp;
    bool Func = I.K == ContextItem::FuncProto || I.K == ContextItem::FuncDef;
    if (Func || I.K == ContextItem::ConstVar) {
      if (Omp) {
        if (StringRef(Text).starts_with("extern "))
          Text = Text.substr(7);
        if (!I.IsStatic)
          Text = "static " + Text;
      } else {
        Text =
            (I.K == ContextItem::ConstVar ? "static __device__ " : "__device__ ") + Text;
      }
    }
    if (Omp && I.K != ContextItem::Type)
      S += "#pragma omp declare target\n";
    if (!I.NsOpen.empty())
      S += I.NsOpen + "\n";
    S +=
        lineDirective(I.Line, I.FileName.empty() ? FileName : I.FileName, LineDirectives);
    S += Text + "\n";
    if (!I.NsClose.empty())
      S += I.NsClose + "\n";
    if (Omp && I.K != ContextItem::Type)
      S += "#pragma omp end declare target\n";
  }
  return S;
}

} // namespace hce
