//===- ClauseParser.cpp - Clauses of #pragma hce co_exec ------------------===//
#include "ClauseParser.h"
#include "ClauseLexer.h"

#include <cstdlib>
#include <initializer_list>

namespace hce {

namespace {

// The names the runtime accepts (runtime/include/hce/names.def): one list
// for both, so that they cannot drift.
constexpr const char *SchedulerNames[] = {
#define HCE_NAME_SCHEDULER(name) #name,
#include "hce/names.def"
};
constexpr const char *DeviceNames[] = {
#define HCE_NAME_DEVICE(name) #name,
#include "hce/names.def"
};
constexpr const char *CoNames[] = {
#define HCE_NAME_CO(name) #name,
#include "hce/names.def"
};

template <size_t N>
bool isOneOf(std::string_view S, const char *const (&Names)[N]) {
  for (const char *Name : Names)
    if (S == Name)
      return true;
  return false;
}

/// "a, b or c".
template <size_t N>
std::string oneOf(const char *const (&Names)[N], const char *Suffix = "") {
  std::string S;
  for (size_t K = 0; K < N; ++K)
    S += std::string(K == 0 ? "" : K + 1 == N ? " or " : ", ") + Names[K] +
         Suffix;
  return S;
}

/// "cpu, cuda[:N], omp[:N] or sim[:N]" (only the CPU is never numbered).
std::string deviceList() {
  std::string S = oneOf(DeviceNames, "[:N]");
  for (size_t P; (P = S.find("cpu[:N]")) != std::string::npos;)
    S.erase(P + 3, 4);
  return S;
}

} // namespace

namespace {

/// Which directive's clauses are parsed.
enum class Directive { CoExec, Data, Update };

class Parser {
public:
  Parser(std::string_view Text, ClauseSet &Out, ClauseError &Err,
         Directive Dir = Directive::CoExec)
      : Text(Text), Toks(lexClauseText(Text)), Out(Out), Err(Err), Dir(Dir) {}

  bool run();

private:
  std::string_view Text;
  std::vector<ClauseToken> Toks;
  ClauseSet &Out;
  ClauseError &Err;
  Directive Dir;
  size_t I = 0;
  bool SeenChunk = false;

  bool atEnd() const { return I >= Toks.size(); }
  size_t here() const { return atEnd() ? Text.size() : Toks[I].Offset; }
  bool isPunct(std::string_view P) const {
    return !atEnd() && Toks[I].Kind == TokKind::Punct && Toks[I].Text == P;
  }
  bool isIdent() const {
    return !atEnd() && Toks[I].Kind == TokKind::Identifier;
  }
  std::string describeHere() const {
    if (atEnd())
      return "end of pragma";
    return "'" + std::string(Toks[I].Text) + "'";
  }
  bool fail(size_t Off, std::string Msg) {
    Err.Offset = Off;
    Err.Message = std::move(Msg);
    return false;
  }
  bool expectPunct(std::string_view P, std::string_view Context) {
    if (isPunct(P)) {
      ++I;
      return true;
    }
    return fail(here(), "expected '" + std::string(P) + "' " +
                            std::string(Context) + ", found " + describeHere());
  }

  /// Scans an expression up to (not including) a top-level token in \p Stops.
  bool scanExpr(std::initializer_list<std::string_view> Stops,
                std::string_view What, ClauseExpr &E);
  bool parseClause();
  bool parseSchedule(size_t ClauseOff);
  bool parseMap(size_t ClauseOff);
  bool parseSectionList(MapClause &M, std::string_view Clause);
  bool parseMotion(size_t ClauseOff, MapKind Kind);
  bool parseSection(Section &S, std::string_view Clause = "map");
  bool parseReduction(size_t ClauseOff);
  bool parseReductionItems(std::vector<ReductionItem> &Items);
  bool parseVarList(std::vector<NamedVar> &Vars, std::string_view Clause);
  bool parseDevice(std::string &Dev);
  bool parseDevices(size_t ClauseOff);
  bool parseRatio(size_t ClauseOff);
  bool parseWordArg(std::string &Word, std::string_view Clause);
  bool parseDepend(size_t ClauseOff);
};

bool Parser::parseDepend(size_t ClauseOff) {
  DependClause DC;
  DC.Offset = ClauseOff;
  if (!isIdent())
    return fail(here(), "expected a dependence type (in, out, inout) in "
                        "'depend', found " +
                            describeHere());
  std::string K(Toks[I].Text);
  size_t KOff = Toks[I].Offset;
  ++I;
  if (K == "in")
    DC.Kind = DependKind::In;
  else if (K == "out")
    DC.Kind = DependKind::Out;
  else if (K == "inout")
    DC.Kind = DependKind::InOut;
  else
    return fail(KOff, "unknown dependence type '" + K + "'; expected in, out or inout");
  if (!expectPunct(":", "after the dependence type"))
    return false;
  while (true) {
    if (!isIdent())
      return fail(here(),
                  "expected a variable name in 'depend', found " + describeHere());
    DC.Vars.push_back({std::string(Toks[I].Text), Toks[I].Offset});
    ++I;
    if (isPunct("[") || isPunct(".") || isPunct("->"))
      return fail(here(), "'depend' takes variable names: a dependence is on "
                          "the whole of '" +
                              DC.Vars.back().Name +
                              "' (its base address), not on a section or "
                              "member");
    if (isPunct(",")) {
      ++I;
      continue;
    }
    break;
  }
  if (!expectPunct(")", "to close 'depend'"))
    return false;
  Out.Depends.push_back(std::move(DC));
  return true;
}

bool Parser::scanExpr(std::initializer_list<std::string_view> Stops,
                      std::string_view What, ClauseExpr &E) {
  size_t Begin = I;
  std::vector<char> Nest;
  int PendingQuestion = 0;
  for (; !atEnd(); ++I) {
    const ClauseToken &T = Toks[I];
    if (T.Kind == TokKind::Invalid)
      return fail(T.Offset, "unterminated literal or comment");
    if (T.Kind != TokKind::Punct)
      continue;
    if (Nest.empty()) {
      bool Stop = false;
      for (std::string_view S : Stops)
        if (T.Text == S && !(S == ":" && PendingQuestion > 0))
          Stop = true;
      if (Stop)
        break;
    }
    if (T.Text == "(" || T.Text == "[" || T.Text == "{") {
      Nest.push_back(T.Text[0]);
    } else if (T.Text == ")" || T.Text == "]" || T.Text == "}") {
      char Open = T.Text == ")" ? '(' : T.Text == "]" ? '[' : '{';
      if (Nest.empty() || Nest.back() != Open)
        return fail(T.Offset, "unbalanced '" + std::string(T.Text) + "' in " +
                                  std::string(What));
      Nest.pop_back();
    } else if (Nest.empty() && T.Text == "?") {
      ++PendingQuestion;
    } else if (Nest.empty() && T.Text == ":" && PendingQuestion > 0) {
      --PendingQuestion;
    }
  }
  if (atEnd())
    return fail(Text.size(),
                "unexpected end of pragma in " + std::string(What));
  if (I == Begin)
    return fail(here(), "expected " + std::string(What));
  E.Text = joinTokens(Toks, Begin, I);
  E.Offset = Toks[Begin].Offset;
  return true;
}

bool Parser::run() {
  while (!atEnd()) {
    if (isPunct(",")) { // OpenMP allows commas between clauses
      ++I;
      continue;
    }
    if (!parseClause())
      return false;
  }
  return true;
}

bool Parser::parseClause() {
  if (!isIdent()) {
    if (!atEnd() && Toks[I].Kind == TokKind::Invalid)
      return fail(Toks[I].Offset, "unterminated literal or comment");
    return fail(here(), "expected a clause name, found " + describeHere());
  }
  std::string Name(Toks[I].Text);
  size_t Off = Toks[I].Offset;
  ++I;
  if (Dir != Directive::CoExec) {
    // #pragma hce data: map(...) only; #pragma hce update: to(...), from(...).
    bool IsData = Dir == Directive::Data;
    if (IsData ? Name != "map" : Name != "to" && Name != "from")
      return fail(Off, "unknown clause '" + Name + "' in '#pragma hce " +
                           (IsData ? "data'; expected map(...)"
                                   : "update'; expected to(...) or from(...)"));
    if (!expectPunct("(", "after '" + Name + "'"))
      return false;
    if (IsData)
      return parseMap(Off);
    return parseMotion(Off, Name == "to" ? MapKind::To : MapKind::From);
  }
  static const char *const Known[] = {"schedule", "map",     "reduction", "chunk",
                                      "alpha",    "ratio",   "devices",   "co",
                                      "name",     "private", "nowait",    "depend"};
  bool IsKnown = false;
  for (const char *K : Known)
    if (Name == K)
      IsKnown = true;
  if (!IsKnown)
    return fail(Off, "unknown clause '" + Name + "' in '#pragma hce co_exec'");
  if (Name == "nowait") { // the one clause without arguments
    if (Out.Nowait)
      return fail(Off, "duplicate 'nowait' clause");
    if (isPunct("("))
      return fail(here(), "'nowait' takes no arguments");
    Out.Nowait = true;
    Out.NowaitOffset = Off;
    return true;
  }
  if (!expectPunct("(", "after '" + Name + "'"))
    return false;
  if (Name == "depend")
    return parseDepend(Off);

  auto Duplicate = [&]() {
    return fail(Off, "duplicate '" + Name + "' clause");
  };
  if (Name == "schedule")
    return parseSchedule(Off);
  if (Name == "map")
    return parseMap(Off);
  if (Name == "reduction")
    return parseReduction(Off);
  if (Name == "private") {
    if (!parseVarList(Out.Privates, "private"))
      return false;
    return expectPunct(")", "to close 'private'");
  }
  if (Name == "chunk" || Name == "alpha") {
    std::optional<ClauseExpr> &Slot = Name == "chunk" ? Out.Chunk : Out.Alpha;
    if (Slot)
      return Duplicate();
    ClauseExpr E;
    if (!scanExpr({")", ","}, "an expression in '" + Name + "'", E))
      return false;
    if (!isPunct(")"))
      return fail(here(), "expected ')' to close '" + Name + "', found " +
                              describeHere());
    ++I;
    Slot = E;
    return true;
  }
  if (Name == "devices") {
    if (!Out.Devices.empty())
      return Duplicate();
    return parseDevices(Off);
  }
  if (Name == "ratio") {
    if (!Out.Ratios.empty())
      return Duplicate();
    return parseRatio(Off);
  }
  if (Name == "co") {
    if (!Out.Co.empty())
      return Duplicate();
    size_t WOff = here();
    if (!parseWordArg(Out.Co, "co"))
      return false;
    if (!isOneOf(Out.Co, CoNames))
      return fail(WOff, "unknown communication optimisation '" + Out.Co +
                            "'; expected " + oneOf(CoNames));
    return true;
  }
  // name("...")
  if (Out.Name)
    return Duplicate();
  if (!atEnd() && Toks[I].Kind == TokKind::Invalid)
    return fail(Toks[I].Offset, "unterminated literal or comment");
  if (atEnd() || Toks[I].Kind != TokKind::String)
    return fail(here(),
                "expected a string literal in 'name', found " + describeHere());
  std::string S(Toks[I].Text);
  ++I;
  // Adjacent string literals concatenate, as in C.
  while (!atEnd() && Toks[I].Kind == TokKind::String) {
    S.pop_back();
    S += Toks[I].Text.substr(1);
    ++I;
  }
  if (S.size() < 2 || S[0] != '"')
    return fail(Off, "expected a plain string literal in 'name'");
  Out.Name = S;
  return expectPunct(")", "to close 'name'");
}

bool Parser::parseWordArg(std::string &Word, std::string_view Clause) {
  if (!isIdent())
    return fail(here(), "expected a name in '" + std::string(Clause) +
                            "', found " + describeHere());
  Word = std::string(Toks[I].Text);
  ++I;
  return expectPunct(")", "to close '" + std::string(Clause) + "'");
}

bool Parser::parseSchedule(size_t ClauseOff) {
  if (!Out.Schedule.empty())
    return fail(ClauseOff, "duplicate 'schedule' clause");
  size_t WOff = here();
  std::string Kind;
  if (!isIdent())
    return fail(here(), "expected a scheduler name in 'schedule', found " +
                            describeHere());
  Kind = std::string(Toks[I].Text);
  ++I;
  if (!isKnownSchedule(Kind))
    return fail(WOff, "unknown schedule '" + Kind + "'; expected " +
                          oneOf(SchedulerNames));
  if (isPunct(","))
    return fail(here(), "'schedule' takes only the scheduler name; give the "
                        "chunk with 'chunk(...)'");
  if (!expectPunct(")", "to close 'schedule'"))
    return false;
  Out.Schedule = Kind;
  Out.ScheduleOffset = WOff;
  return true;
}

bool Parser::parseMap(size_t ClauseOff) {
  MapClause M;
  M.Offset = ClauseOff;
  // Is there a top-level ':' before the closing ')'? Then modifiers come
  // first.
  bool HasModifiers = false;
  {
    int Depth = 0;
    for (size_t J = I; J < Toks.size(); ++J) {
      std::string_view T = Toks[J].Text;
      if (Toks[J].Kind != TokKind::Punct)
        continue;
      if (T == "(" || T == "[" || T == "{")
        ++Depth;
      else if (T == ")" || T == "]" || T == "}") {
        if (Depth == 0)
          break;
        --Depth;
      } else if (T == ":" && Depth == 0) {
        HasModifiers = true;
        break;
      }
    }
  }
  if (HasModifiers) {
    bool HaveType = false;
    while (true) {
      if (!isIdent())
        return fail(here(), "expected a map type (to, from, tofrom, alloc) "
                            "or 'always', found " +
                                describeHere());
      std::string W(Toks[I].Text);
      size_t WOff = Toks[I].Offset;
      ++I;
      if (W == "always") {
        if (M.Always)
          return fail(WOff, "duplicate 'always' modifier");
        M.Always = true;
      } else if (W == "to" || W == "from" || W == "tofrom" || W == "alloc") {
        if (HaveType)
          return fail(WOff, "more than one map type in 'map'");
        HaveType = true;
        M.Kind = W == "to"      ? MapKind::To
                 : W == "from"  ? MapKind::From
                 : W == "alloc" ? MapKind::Alloc
                                : MapKind::ToFrom;
      } else {
        return fail(WOff, "unknown map type or modifier '" + W +
                              "'; expected to, from, tofrom, alloc or always");
      }
      if (isPunct(",")) {
        ++I;
        continue;
      }
      if (isPunct(":")) {
        ++I;
        break;
      }
      return fail(here(),
                  "expected ',' or ':' in 'map', found " + describeHere());
    }
    if (!HaveType && M.Always)
      return fail(ClauseOff, "'always' needs a map type (to, from, tofrom)");
  }
  if (!parseSectionList(M, "map"))
    return false;
  Out.Maps.push_back(std::move(M));
  return true;
}

bool Parser::parseSectionList(MapClause &M, std::string_view Clause) {
  while (true) {
    Section S;
    if (!parseSection(S))
      return false;
    M.Sections.push_back(std::move(S));
    if (isPunct(",")) {
      ++I;
      continue;
    }
    if (isPunct(")")) {
      ++I;
      return true;
    }
    return fail(here(), "expected ',' or ')' in '" + std::string(Clause) +
                            "', found " + describeHere());
  }
}

bool Parser::parseMotion(size_t ClauseOff, MapKind Kind) {
  MapClause M;
  M.Offset = ClauseOff;
  M.Kind = Kind;
  if (!parseSectionList(M, Kind == MapKind::To ? "to" : "from"))
    return false;
  Out.Maps.push_back(std::move(M));
  return true;
}

bool Parser::parseSection(Section &S, std::string_view Clause) {
  if (!isIdent())
    return fail(here(), "expected an array name in '" + std::string(Clause) +
                            "', found " + describeHere());
  S.Name = std::string(Toks[I].Text);
  S.Offset = Toks[I].Offset;
  ++I;
  while (isPunct("[")) {
    SectionDim D;
    D.Offset = Toks[I].Offset;
    ++I;
    if (!isPunct(":")) {
      if (isPunct("]"))
        return fail(here(), "empty array section '[]'");
      if (!scanExpr({":", "]"}, "a section start", D.Lo))
        return false;
    }
    if (isPunct(":")) {
      D.HasColon = true;
      ++I;
      if (!isPunct("]")) {
        if (!scanExpr({"]", ":"}, "a section length", D.Len))
          return false;
        if (isPunct(":"))
          return fail(here(), "array sections with a stride are not "
                              "supported");
      }
    }
    if (!expectPunct("]", "to close the array section"))
      return false;
    S.Dims.push_back(std::move(D));
  }
  return true;
}

bool Parser::parseVarList(std::vector<NamedVar> &Vars,
                          std::string_view Clause) {
  while (true) {
    if (!isIdent())
      return fail(here(), "expected a variable name in '" +
                              std::string(Clause) + "', found " +
                              describeHere());
    Vars.push_back({std::string(Toks[I].Text), Toks[I].Offset});
    ++I;
    if (!isPunct(","))
      return true;
    ++I;
  }
}

/// `x, hist[lo:len], ...`: variables, or one-dimensional array sections
/// (array reductions).
bool Parser::parseReductionItems(std::vector<ReductionItem> &Items) {
  while (true) {
    if (!isIdent())
      return fail(here(), "expected a variable name in 'reduction', found " +
                              describeHere());
    Section S;
    if (!parseSection(S, "reduction"))
      return false;
    ReductionItem It;
    It.Name = S.Name;
    It.Offset = S.Offset;
    if (S.Dims.size() > 1)
      return fail(S.Dims[1].Offset,
                  "an array reduction takes one dimension, as in '" + S.Name +
                      "[lo:len]'");
    if (!S.Dims.empty()) {
      if (!S.Dims[0].HasColon)
        return fail(S.Dims[0].Offset,
                    "an array reduction takes a section, as in '" + S.Name +
                        "[lo:len]', not one element");
      It.Section = S.Dims[0];
    }
    Items.push_back(std::move(It));
    if (!isPunct(","))
      return true;
    ++I;
  }
}

bool Parser::parseReduction(size_t ClauseOff) {
  ReductionClause R;
  R.Offset = ClauseOff;
  if (atEnd())
    return fail(here(), "expected a reduction operator");
  const ClauseToken &T = Toks[I];
  std::string_view Op = T.Text;
  if (T.Kind == TokKind::Punct && Op == "+")
    R.Op = RedOp::Add;
  else if (T.Kind == TokKind::Punct && Op == "*")
    R.Op = RedOp::Mul;
  else if (T.Kind == TokKind::Identifier && Op == "min")
    R.Op = RedOp::Min;
  else if (T.Kind == TokKind::Identifier && Op == "max")
    R.Op = RedOp::Max;
  else if (T.Kind == TokKind::Punct && Op == "&")
    R.Op = RedOp::BAnd;
  else if (T.Kind == TokKind::Punct && Op == "|")
    R.Op = RedOp::BOr;
  else if (T.Kind == TokKind::Punct && Op == "^")
    R.Op = RedOp::BXor;
  else if (T.Kind == TokKind::Punct && Op == "&&")
    R.Op = RedOp::LAnd;
  else if (T.Kind == TokKind::Punct && Op == "||")
    R.Op = RedOp::LOr;
  else if (T.Kind == TokKind::Punct && Op == "-")
    return fail(T.Offset, "reduction operator '-' is not supported; use '+'");
  else
    return fail(T.Offset, "unknown reduction operator " + describeHere() +
                              "; expected +, *, min, max, &, |, ^, && or ||");
  R.OpSpelling = std::string(Op);
  ++I;
  if (!expectPunct(":", "after the reduction operator"))
    return false;
  if (!parseReductionItems(R.Vars))
    return false;
  if (!expectPunct(")", "to close 'reduction'"))
    return false;
  Out.Reductions.push_back(std::move(R));
  return true;
}

bool Parser::parseDevice(std::string &Dev) {
  if (!isIdent())
    return fail(here(), "expected a device (cpu, cuda[:N], omp[:N], "
                        "sim[:N]), found " +
                            describeHere());
  std::string K(Toks[I].Text);
  size_t Off = Toks[I].Offset;
  ++I;
  if (!isOneOf(K, DeviceNames))
    return fail(Off, "unknown device '" + K + "'; expected " + deviceList());
  Dev = K;
  if (isPunct(":")) {
    if (K == "cpu")
      return fail(Toks[I].Offset, "'cpu' takes no device number");
    ++I;
    if (atEnd() || Toks[I].Kind != TokKind::Number ||
        Toks[I].Text.find_first_not_of("0123456789") != std::string_view::npos)
      return fail(here(), "expected a device number after '" + K + ":'");
    Dev += ":" + std::string(Toks[I].Text);
    ++I;
  }
  return true;
}

bool Parser::parseDevices(size_t) {
  while (true) {
    std::string D;
    size_t Off = here();
    if (!parseDevice(D))
      return false;
    for (const std::string &E : Out.Devices)
      if (E == D)
        return fail(Off, "device '" + D + "' listed twice");
    Out.Devices.push_back(D);
    if (isPunct(",")) {
      ++I;
      continue;
    }
    return expectPunct(")", "to close 'devices'");
  }
}

bool Parser::parseRatio(size_t) {
  while (true) {
    RatioEntry R;
    R.Offset = here();
    if (!parseDevice(R.Device))
      return false;
    for (const RatioEntry &E : Out.Ratios)
      if (E.Device == R.Device)
        return fail(R.Offset,
                    "device '" + R.Device + "' given twice in 'ratio'");
    if (!expectPunct("=", "after the device in 'ratio'"))
      return false;
    if (atEnd() || Toks[I].Kind != TokKind::Number)
      return fail(here(),
                  "expected a number in 'ratio', found " + describeHere());
    R.Value = std::string(Toks[I].Text);
    char *End = nullptr;
    std::string V = R.Value;
    double D = std::strtod(V.c_str(), &End);
    if (End != V.c_str() + V.size() || !(D >= 0))
      return fail(Toks[I].Offset,
                  "invalid ratio '" + V + "'; expected a non-negative number");
    ++I;
    Out.Ratios.push_back(std::move(R));
    if (isPunct(",")) {
      ++I;
      continue;
    }
    return expectPunct(")", "to close 'ratio'");
  }
}

} // namespace

namespace {

/// Recursive descent over the tokens of a constant clause expression.
class ConstEval {
public:
  explicit ConstEval(std::string_view Text) : Toks(lexClauseText(Text)) {}
  std::optional<int64_t> run() {
    std::optional<int64_t> V = sum();
    return V && I == Toks.size() ? V : std::nullopt;
  }

private:
  std::vector<ClauseToken> Toks;
  size_t I = 0;
  unsigned Depth = 0;
  static constexpr unsigned MaxDepth = 200;

  bool punct(std::string_view P) const {
    return I < Toks.size() && Toks[I].Kind == TokKind::Punct && Toks[I].Text == P;
  }
  std::optional<int64_t> sum() {
    std::optional<int64_t> L = product();
    while (L && (punct("+") || punct("-"))) {
      bool Add = Toks[I++].Text == "+";
      std::optional<int64_t> R = product();
      int64_t V;
      if (!R || (Add ? __builtin_add_overflow(*L, *R, &V)
                     : __builtin_sub_overflow(*L, *R, &V)))
        return std::nullopt;
      L = V;
    }
    return L;
  }
  std::optional<int64_t> product() {
    std::optional<int64_t> L = unary();
    while (L && (punct("*") || punct("/") || punct("%") || punct("<<") || punct(">>"))) {
      std::string_view Op = Toks[I++].Text;
      std::optional<int64_t> R = unary();
      if (!R)
        return std::nullopt;
      int64_t V;
      if (Op == "*") {
        if (__builtin_mul_overflow(*L, *R, &V))
          return std::nullopt;
      } else if (Op == "/" || Op == "%") {
        if (*R == 0 || (*L == INT64_MIN && *R == -1))
          return std::nullopt;
        V = Op == "/" ? *L / *R : *L % *R;
      } else {
        if (*R < 0 || *R > 62 || *L < 0)
          return std::nullopt;
        if (Op == ">>")
          V = *L >> *R;
        else if (*L > (INT64_MAX >> *R))
          return std::nullopt;
        else
          V = *L << *R;
      }
      L = V;
    }
    return L;
  }
  std::optional<int64_t> unary() {
    if (++Depth > MaxDepth)
      return std::nullopt;
    std::optional<int64_t> V = unaryBody();
    --Depth;
    return V;
  }
  std::optional<int64_t> unaryBody() {
    if (punct("+") || punct("-")) {
      bool Neg = Toks[I++].Text == "-";
      std::optional<int64_t> V = unary();
      if (!V || (Neg && *V == INT64_MIN))
        return std::nullopt;
      return Neg ? -*V : *V;
    }
    if (punct("(")) {
      ++I;
      // A cast: `(` type words `)` followed by an operand.
      size_t J = I;
      while (J < Toks.size() && Toks[J].Kind == TokKind::Identifier)
        ++J;
      if (J > I && J < Toks.size() && Toks[J].Text == ")") {
        I = J + 1;
        return unary();
      }
      std::optional<int64_t> V = sum();
      if (!V || !punct(")"))
        return std::nullopt;
      ++I;
      return V;
    }
    if (I < Toks.size() && Toks[I].Kind == TokKind::Number)
      return number(Toks[I++].Text);
    return std::nullopt;
  }
  static std::optional<int64_t> number(std::string_view T) {
    while (!T.empty() && (T.back() == 'u' || T.back() == 'U' || T.back() == 'l' ||
                          T.back() == 'L'))
      T.remove_suffix(1);
    int Base = 10;
    if (T.size() > 2 && T[0] == '0' && (T[1] == 'x' || T[1] == 'X')) {
      Base = 16;
      T.remove_prefix(2);
    } else if (T.size() > 1 && T[0] == '0') {
      Base = 8;
      T.remove_prefix(1);
    }
    if (T.empty())
      return std::nullopt;
    uint64_t V = 0;
    for (char C : T) {
      int Dg = C >= '0' && C <= '9'   ? C - '0'
               : C >= 'a' && C <= 'f' ? C - 'a' + 10
               : C >= 'A' && C <= 'F' ? C - 'A' + 10
                                      : 99;
      if (Dg >= Base || V > (uint64_t(INT64_MAX) - uint64_t(Dg)) / uint64_t(Base))
        return std::nullopt;
      V = V * uint64_t(Base) + uint64_t(Dg);
    }
    return int64_t(V);
  }
};

} // namespace

std::optional<int64_t> evalConstantClauseExpr(std::string_view Text) {
  return ConstEval(Text).run();
}

bool isKnownSchedule(std::string_view N) {
  return isOneOf(N, SchedulerNames);
}

std::string ClauseSet::devicesString() const {
  std::string S;
  for (const std::string &D : Devices) {
    if (!S.empty())
      S += ',';
    S += D;
  }
  return S;
}

std::string ClauseSet::ratiosString() const {
  std::string S;
  for (const RatioEntry &R : Ratios) {
    if (!S.empty())
      S += ',';
    S += R.Device + "=" + R.Value;
  }
  return S;
}

bool parseCoExecClauses(std::string_view Text, ClauseSet &Out,
                        ClauseError &Err) {
  Out = ClauseSet();
  Parser P(Text, Out, Err);
  if (!P.run())
    return false;
  if (!Out.Depends.empty() && !Out.Nowait) {
    Err.Offset = Out.Depends.front().Offset;
    Err.Message = "'depend' needs 'nowait': a region without it is complete "
                  "before the program goes on";
    return false;
  }
  return true;
}

bool parseDataClauses(std::string_view Text, ClauseSet &Out,
                      ClauseError &Err) {
  Out = ClauseSet();
  Parser P(Text, Out, Err, Directive::Data);
  if (!P.run())
    return false;
  if (Out.Maps.empty()) {
    Err.Offset = 0;
    Err.Message = "'#pragma hce data' needs at least one map(...) clause";
    return false;
  }
  return true;
}

bool parseUpdateClauses(std::string_view Text, ClauseSet &Out,
                        ClauseError &Err) {
  Out = ClauseSet();
  Parser P(Text, Out, Err, Directive::Update);
  if (!P.run())
    return false;
  if (Out.Maps.empty()) {
    Err.Offset = 0;
    Err.Message =
        "'#pragma hce update' needs at least one to(...) or from(...) clause";
    return false;
  }
  return true;
}

} // namespace hce
