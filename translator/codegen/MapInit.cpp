//===- MapInit.cpp - The statements that fill one hce_map -----------------===//
#include "MapInit.h"
#include "CodeGenUtil.h"

namespace hce {

std::string mapFieldInits(const MappedArray &A, const std::string &Entry,
                          const std::string &Indent) {
  const std::string E = Indent + Entry + ".";
  std::string S;
  S += E + "name = " + cString(A.Name) + ";\n";
  S += E + "host = (void *)" + A.Name + ";\n";
  std::string Elem = "(" + A.Name + ")";
  for (unsigned D = 0; D < A.Rank; ++D)
    Elem += "[0]";
  S += E + "elem_size = sizeof(" + Elem + ");\n";
  S += E + "kind = " + mapKindEnum(A.Kind) + (A.Always ? " | HCE_MAP_ALWAYS" : "") +
       (A.Rows ? " | HCE_MAP_ROWS" : "") + ";\n";
  if (A.PerIteration) {
    S += E + "scale = __hce_lo1 - __hce_lo0;\n";
    S += E + "offset = __hce_lo0;\n";
  } else {
    S += E + "scale = 0;\n";
    S += E + "offset = (int64_t)(" + A.LoText + ");\n";
  }
  S += E + "len = (int64_t)(" + A.LenText + ");\n";
  if (A.BlocksText == "1") {
    S += E + "blocks = 1;\n";
    S += E + "stride = 0;\n";
  } else {
    const std::string F = Entry + ".";
    S += E + "blocks = (int64_t)(" + A.BlocksText + ");\n";
    S += E + "stride = (int64_t)(" + A.StrideText + ");\n";
    // Adjacent blocks (the inner section was whole after all): one run.
    S += Indent + "if (" + F + "blocks > 1 && " + F + "len == " + F + "stride) { " + F +
         "len *= " + F + "blocks; " + F + "blocks = 1; " + F + "stride = 0; }\n";
  }
  S += E + "extent = " + (A.ExtentText.empty() ? "0" : A.ExtentText) + ";\n";
  if (A.Rows) { // the elements of each row; the fields above count rows
    S += E + "row_offset = (int64_t)(" + A.RowOffsetText + ");\n";
    S += E + "row_len = (int64_t)(" + A.RowLenText + ");\n";
  }
  return S;
}

} // namespace hce
