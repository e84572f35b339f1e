//===- ArrayShape.h - Dimensions of a mapped variable -----------*- C++ -*-===//
//
// What the translator knows about the shape of a variable named in a map,
// to(...) or from(...) clause: its dimensions (constant, variable-length or
// unknown), their spellings, and its element type; and the translation of a
// section of it into a MappedArray (offset/len/blocks/stride flattened
// row-major, the variant's pointer type).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_ARRAYSHAPE_H
#define HCE_TRANSLATOR_ARRAYSHAPE_H

#include "Diagnostics.h"
#include "PragmaHandler.h"
#include "Region.h"
#include "SectionLayout.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Lex/Preprocessor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hce {

struct ArrayShape {
  std::vector<ArrayDim> Dims;   ///< outermost first, values at the site
  std::vector<bool> IsVariable; ///< the dimension is a VLA extent
  clang::QualType Elem;         ///< innermost element type
  /// A table of row pointers (`T **rows`, `T *rows[M]`, each row allocated
  /// apart): Dims holds the one dimension of the table, Elem is T.
  bool RowTable = false;
};

/// The shape of \p VD. Returns false with \p Why (a complete message) when
/// it cannot be mapped (not an array or pointer, pointers to pointers, ...).
/// With \p AllowRowTable a table of row pointers to data is a shape
/// (ArrayShape::RowTable); without, it is refused with a message that says
/// how to map it.
bool shapeOf(const clang::VarDecl *VD, clang::ASTContext &Ctx, ArrayShape &Shape,
             std::string &Why, bool AllowRowTable = false);

/// The variable \p Name visible at \p Loc inside \p Func (a local declared
/// before it in an enclosing block, a parameter, or a file-scope variable);
/// null if none is found.
const clang::VarDecl *lookupVisibleVar(llvm::StringRef Name, clang::SourceLocation Loc,
                                       const clang::FunctionDecl *Func,
                                       clang::ASTContext &Ctx);

/// Fills the layout fields of \p M (LoText, LenText, BlocksText, StrideText,
/// PerIteration, Rank, SectionText and, when \p Extents is given, PtrDecl,
/// PtrType and InnerExtents, appending VLA extents to \p Extents) for
/// section \p S of \p VD (null: unknown, treated as a pointer). \p MapIndex
/// names the extents. A length that folds to the dimension's constant extent
/// (`[0:N]` of `[N + PAD]` with PAD 0; macros expanded with \p PP, when
/// given) takes the whole dimension. A dimension in between taken in part is
/// widened (SectionLayout); with \p Verbose a remark says so. A table of
/// row pointers takes two subscripts, `rows[i][c0:n]`: the first lays out
/// rows, the second (the same for every iteration) sets RowOffsetText and
/// RowLenText (MappedArray::Rows). Reports errors at their column of pragma
/// \p P and returns false.
bool describeSection(const Section &S, const clang::VarDecl *VD,
                     const std::string &LoopVar, unsigned MapIndex, const PragmaRecord &P,
                     clang::ASTContext &Ctx, Diag &D, MappedArray &M,
                     std::vector<CapturedVar> *Extents,
                     const clang::Preprocessor *PP = nullptr, bool Verbose = false);

/// The value of the clause expression \p Text when it is an integer
/// constant: literals, macros (expanded with \p PP when given), `const`
/// integer variables with constant initialisers and enumerators visible in
/// \p Func or the file, combined with + - * / % << >> ~ and parentheses.
std::optional<int64_t> constantValue(const std::string &Text, clang::SourceLocation Loc,
                                     const clang::FunctionDecl *Func,
                                     clang::ASTContext &Ctx,
                                     const clang::Preprocessor *PP);

/// "A[i-1:3][0:N]": the section as written (clause tokens re-joined).
std::string sectionText(const Section &S);

} // namespace hce

#endif
