"""Random C programs whose co_exec loops use random map spellings.

generate(rng, name) returns the text of one C program: two to four
co_exec loops, each of a random kind (LOOP_KINDS) with random sizes and a
random spelling of its maps, some inside a `#pragma hce data` region, each
executed two to four times.  The program fills every array with random
non-zero data, runs the loops, runs the same loops again without pragmas
on copies of the data (the sequential reference), compares every array
and prints "verified" and exits 0, or prints "FAILED: <loop> '<array>'
element <k>: got ..., want ..." and exits 1.

Every loop is a correct OpenMP program (no race but the `omp atomic` one,
which is atomic), so any difference from the reference is HCE's fault.
"""

# A loop kind is a function (rng, k) -> Loop.  A loop's arrays are named
# after its index k, so loops never share data and their references are
# independent.


class Array:
    """One array of a loop: C element type, element count (a C expression
    over the loop's macros), how to fill it, and how it is declared:
    'heap' (a pointer from malloc), 'static' (a file-scope array of known
    size) or 'rows:<C>' (a pointer to rows of <C> elements, `T (*a)[C]`)."""

    def __init__(self, name, ctype, count, fill, decl="heap", checked=True):
        self.name, self.ctype, self.count = name, ctype, count
        self.fill, self.decl, self.checked = fill, decl, checked


class Loop:
    """One co_exec loop: its macros, arrays, the clause text and the body
    (with {name} placeholders for its arrays), the iteration range and
    whether it runs inside a data region (and with which maps)."""

    def __init__(self, kind, macros, arrays, clauses, body, lo, hi,
                 data_maps=None, merged=False):
        self.kind, self.macros, self.arrays = kind, macros, arrays
        self.clauses, self.body, self.lo, self.hi = clauses, body, lo, hi
        # merged: a whole-array written map that the translator cannot turn
        # into a per-iteration footprint, merged by twin and diff; such a
        # region runs on the accelerators only (docs/data-layer.md).
        self.data_maps, self.merged = data_maps, merged


# Steps of hce_prop_mix per iteration: enough work (about a microsecond)
# that every device takes chunks at test sizes, so that the check that
# every named device did work means something.
WORK = 500
# Trip counts from 400 up: with fewer, split's steps (W/128 iterations) are
# single iterations that always go to one device, and the others never run.
MIN_TRIPS = 400


def _work(inner):
    """hce_prop_mix steps per element of an inner loop of `inner` elements."""
    return max(1, WORK // inner)


def _names(k, *short):
    # "y_0", not "y0": math.h declares y0, y1, j0, j1.
    return {s: f"{s}_{k}" for s in short}


def footprint(rng, k):
    """y[i:1] / x[i-1:3]: the per-iteration footprint, as the papers write
    it; sometimes a halo read (the loop then runs over 1 .. n-2)."""
    n = rng.randint(MIN_TRIPS, 3000)
    nm = _names(k, "x", "y")
    halo = rng.random() < 0.5
    arrays = [Array(nm["x"], "double", f"N{k}", "random", checked=False),
              Array(nm["y"], "double", f"N{k}", "random")]
    if halo:
        clauses = f"map(to: {{x}}[i-1:3]) map(tofrom: {{y}}[i:1])"
        body = "{y}[i] = {y}[i] * 0.75 + hce_prop_mix({x}[i-1] - 0.5 * {x}[i] + {x}[i+1], WORK);"
        lo, hi = "1", f"N{k} - 1"
    else:
        clauses = "map(to: {x}[i:1]) map(tofrom: {y}[i])"
        body = "{y}[i] = {y}[i] * 0.75 + hce_prop_mix({x}[i] * {x}[i], WORK);"
        lo, hi = "0", f"N{k}"
    return Loop("footprint" + ("-halo" if halo else ""), {f"N{k}": n}, arrays,
                clauses, body, lo, hi)


def rows(rng, k):
    """A[i*M:M]: a row per iteration of a flat array; `from` when every
    element of the row is written."""
    n, m = rng.randint(MIN_TRIPS, 1200), rng.randint(4, 32)
    nm = _names(k, "a", "b")
    arrays = [Array(nm["a"], "double", f"N{k} * M{k}", "random", checked=False),
              Array(nm["b"], "double", f"N{k} * M{k}", "random")]
    if rng.random() < 0.5:
        clauses = f"map(to: {{a}}[i*M{k}:M{k}]) map(from: {{b}}[i*M{k}:M{k}])"
        body = (f"for (int j = 0; j < M{k}; j++) "
                f"{{b}}[i*M{k} + j] = hce_prop_mix({{a}}[i*M{k} + j] * 1.5 + j, {_work(m)});")
        kind = "rows-from"
    else:
        clauses = f"map(to: {{a}}[i*M{k}:M{k}]) map(tofrom: {{b}}[i*M{k}:M{k}])"
        body = (f"for (int j = 0; j < M{k}; j++) "
                f"{{b}}[i*M{k} + j] = {{b}}[i*M{k} + j] * 0.5 + hce_prop_mix({{a}}[i*M{k} + j], {_work(m)});")
        kind = "rows-tofrom"
    return Loop(kind, {f"N{k}": n, f"M{k}": m}, arrays, clauses, body, "0", f"N{k}")


def whole(rng, k):
    """y[0:n] (or y, y[:], y[0:n][0:m]) with the body writing y[i]: the
    usual OpenMP spelling of the array a loop fills."""
    n = rng.randint(MIN_TRIPS, 3000)
    nm = _names(k, "x", "y")
    if rng.random() < 0.3:  # 2-D: rows of M through a pointer to arrays
        m = rng.randint(3, 24)
        arrays = [Array(nm["x"], "double", f"N{k} * M{k}", "random", f"rows:M{k}", False),
                  Array(nm["y"], "double", f"N{k} * M{k}", "random", f"rows:M{k}")]
        clauses = f"map(to: {{x}}[0:N{k}][0:M{k}]) map(tofrom: {{y}}[0:N{k}][0:M{k}])"
        body = (f"for (int j = 0; j < M{k}; j++) "
                f"{{y}}[i][j] = {{y}}[i][j] * 0.5 + hce_prop_mix({{x}}[i][j] * (j + 1), {_work(m)});")
        return Loop("whole-2d", {f"N{k}": n, f"M{k}": m}, arrays, clauses, body,
                    "0", f"N{k}")
    decl = rng.choice(["heap", "static"])
    arrays = [Array(nm["x"], "double", f"N{k}", "random", decl, False),
              Array(nm["y"], "double", f"N{k}", "random", decl)]
    spell = rng.choice(["{y}[0:N%d]" % k] + (["{y}", "{y}[:]"] if decl == "static" else []))
    clauses = f"map(to: {{x}}[0:N{k}]) map(tofrom: {spell})"
    body = "{y}[i] = {y}[i] * 0.5 + hce_prop_mix({x}[i] + (i > 0 ? {x}[i-1] : 1.0), WORK);"
    return Loop("whole-" + decl, {f"N{k}": n}, arrays, clauses, body, "0", f"N{k}")


def transposed(rng, k):
    """cov[j][i]: iteration i writes column i of a row-major array."""
    n, m = rng.randint(MIN_TRIPS, 1000), rng.randint(3, 24)
    nm = _names(k, "x", "t")
    arrays = [Array(nm["x"], "double", f"N{k} * M{k}", "random", checked=False),
              Array(nm["t"], "double", f"M{k} * N{k}", "random", f"rows:N{k}")]
    if rng.random() < 0.5:
        clauses = f"map(to: {{x}}[0:N{k}*M{k}]) map(from: {{t}}[0:M{k}][0:N{k}])"
        body = (f"for (int j = 0; j < M{k}; j++) "
                f"{{t}}[j][i] = hce_prop_mix({{x}}[i*M{k} + j] * 2.0 + 1.0, {_work(m)});")
        kind = "transposed-from"
    else:
        clauses = f"map(to: {{x}}[0:N{k}*M{k}]) map(tofrom: {{t}}[0:M{k}][0:N{k}])"
        body = (f"for (int j = 0; j <= i % M{k}; j++) "
                f"{{t}}[j][i] = {{t}}[j][i] * 0.5 + hce_prop_mix({{x}}[i*M{k} + j], {_work(m)});")
        kind = "transposed-triangle"
    return Loop(kind, {f"N{k}": n, f"M{k}": m}, arrays, clauses, body, "0", f"N{k}")


def blocks(rng, k):
    """Iteration b writes block b of B elements (the last one maybe short):
    spelled as the whole array, or as the block footprint y[b*B:B]."""
    nb, bs = rng.randint(MIN_TRIPS, 800), rng.randint(2, 17)
    nm = _names(k, "x", "y")
    if rng.random() < 0.5:
        ny = nb * bs - rng.randint(0, bs - 1)
        clauses = f"map(to: {{x}}[0:NY{k}]) map(tofrom: {{y}}[0:NY{k}])"
        kind = "blocks-whole"
    else:
        ny = nb * bs
        clauses = f"map(to: {{x}}[i*B{k}:B{k}]) map(tofrom: {{y}}[i*B{k}:B{k}])"
        kind = "blocks-footprint"
    arrays = [Array(nm["x"], "double", f"NY{k}", "random", checked=False),
              Array(nm["y"], "double", f"NY{k}", "random")]
    body = (f"for (int q = 0; q < B{k}; q++) {{{{ long e = i * B{k} + q; "
            f"if (e < NY{k}) {{y}}[e] = {{y}}[e] * 0.5 + hce_prop_mix({{x}}[e] * q, {_work(bs)}); }}}}")
    return Loop(kind, {f"NB{k}": nb, f"B{k}": bs, f"NY{k}": ny}, arrays, clauses,
                body, "0", f"NB{k}", merged=kind == "blocks-whole")


def scattered(rng, k):
    """y[p[i]] with p one-to-one into 0 .. NY-1 (NY >= N: some elements are
    never written and must keep the host's values)."""
    n = rng.randint(MIN_TRIPS, 3000)
    ny = n * rng.choice([1, 2, 3])
    nm = _names(k, "x", "y", "p")
    arrays = [Array(nm["x"], "double", f"N{k}", "random", checked=False),
              Array(nm["p"], "long", f"N{k}", f"injection:NY{k}", checked=False),
              Array(nm["y"], "double", f"NY{k}", "random")]
    if rng.random() < 0.5:
        clauses = f"map(to: {{x}}[i:1], {{p}}[i:1]) map(tofrom: {{y}}[0:NY{k}])"
        body = "{y}[{p}[i]] = {y}[{p}[i]] * 0.5 + hce_prop_mix({x}[i], WORK);"
        kind = "scattered-tofrom"
    else:
        clauses = f"map(to: {{x}}[i:1], {{p}}[i:1]) map(from: {{y}}[0:NY{k}])"
        body = "{y}[{p}[i]] = hce_prop_mix({x}[i] * 3.0 - 1.0, WORK);"
        kind = "scattered-from"
    return Loop(kind, {f"N{k}": n, f"NY{k}": ny}, arrays, clauses, body, "0", f"N{k}",
                merged=True)


def atomic(rng, k):
    """`omp atomic` updates of a shared histogram (integer-valued, so the
    sum is exact in any order)."""
    n, bins = rng.randint(MIN_TRIPS, 3000), rng.randint(1, 64)
    nm = _names(k, "w", "key", "h")
    ctype = rng.choice(["long", "double"])
    arrays = [Array(nm["w"], ctype, f"N{k}", "small-int", checked=False),
              Array(nm["key"], "long", f"N{k}", f"below:K{k}", checked=False),
              Array(nm["h"], ctype, f"K{k}", "small-int")]
    clauses = f"map(to: {{w}}[i:1], {{key}}[i:1]) map(tofrom: {{h}}[0:K{k}])"
    body = "\n#pragma omp atomic\n      {h}[{key}[i]] += {w}[i];"
    return Loop("atomic-" + ctype, {f"N{k}": n, f"K{k}": bins}, arrays, clauses,
                body, "0", f"N{k}", merged=True)


def wide_from(rng, k):
    """map(from:) wider than what the body writes: the unwritten elements
    keep the host's values (a 1-D range, or the interior of a 2-D plane)."""
    n = rng.randint(MIN_TRIPS, 1500)
    nm = _names(k, "x", "z")
    if rng.random() < 0.5:
        lo, hi = rng.randint(0, 7), rng.randint(1, 7)
        arrays = [Array(nm["x"], "double", f"N{k}", "random", checked=False),
                  Array(nm["z"], "double", f"N{k}", "random")]
        clauses = f"map(to: {{x}}[0:N{k}]) map(from: {{z}}[0:N{k}])"
        body = "{z}[i] = hce_prop_mix({x}[i] * 2.0 + 1.0, WORK);"
        return Loop("wide-from-1d", {f"N{k}": n}, arrays, clauses, body, str(lo),
                    f"N{k} - {hi}")
    m = rng.randint(3, 24)
    arrays = [Array(nm["x"], "double", f"N{k} * M{k}", "random", f"rows:M{k}", False),
              Array(nm["z"], "double", f"N{k} * M{k}", "random", f"rows:M{k}")]
    clauses = f"map(to: {{x}}[0:N{k}][0:M{k}]) map(from: {{z}}[0:N{k}][0:M{k}])"
    body = (f"for (int j = 1; j < M{k} - 1; j++) "
            f"{{z}}[i][j] = hce_prop_mix({{x}}[i][j] * 2.0 + {{x}}[i-1][j], {_work(m)});")
    return Loop("wide-from-plane", {f"N{k}": n, f"M{k}": m}, arrays, clauses, body,
                "1", f"N{k} - 1")


LOOP_KINDS = [footprint, rows, whole, transposed, blocks, scattered, atomic,
              wide_from]


def _decl(a, ref=False):
    name = a.name + ("_ref" if ref else "")
    if a.decl == "static":
        return f"static {a.ctype} {name}[{a.count}];"
    if a.decl.startswith("rows:"):
        cols = a.decl[5:]
        return (f"{a.ctype} (*{name})[{cols}] = ({a.ctype} (*)[{cols}])"
                f"hce_prop_alloc(sizeof({a.ctype}) * ({a.count}));")
    return f"{a.ctype} *{name} = hce_prop_alloc(sizeof({a.ctype}) * ({a.count}));"


def _flat(a, ref=False):
    """The array as a pointer to its first element."""
    name = a.name + ("_ref" if ref else "")
    return f"(({a.ctype} *){name})"


def _fill(a):
    """C statements filling the array (and its reference copy)."""
    p, r, cnt = _flat(a), _flat(a, True), a.count
    if a.fill == "random":
        gen = "hce_prop_random()"
    elif a.fill == "small-int":
        gen = "(1 + (long)(hce_prop_next() % 97))"
    elif a.fill.startswith("below:"):
        gen = f"(long)(hce_prop_next() % (unsigned long long)({a.fill[6:]}))"
    elif a.fill.startswith("injection:"):
        return (f"hce_prop_injection({p}, {cnt}, {a.fill[10:]});\n"
                f"  for (long e = 0; e < {cnt}; e++) {r}[e] = {p}[e];")
    else:
        raise ValueError(a.fill)
    return f"for (long e = 0; e < {cnt}; e++) {r}[e] = {p}[e] = {gen};"


def _subst(text, loop, ref):
    return text.format(**{a.name.split("_")[0]: a.name + ("_ref" if ref else "")
                          for a in loop.arrays})


PRELUDE = r"""#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long hce_prop_state = SEED;
static unsigned long long hce_prop_next(void) {
  /* xorshift64*: the same data on every run and every machine */
  hce_prop_state ^= hce_prop_state >> 12;
  hce_prop_state ^= hce_prop_state << 25;
  hce_prop_state ^= hce_prop_state >> 27;
  return hce_prop_state * 2685821657736338717ULL;
}
/* Non-zero doubles in [0.5, 1.5). */
static double hce_prop_random(void) {
  return 0.5 + (double)(hce_prop_next() >> 11) / 9007199254740992.0;
}
static void *hce_prop_alloc(size_t bytes) {
  void *p = malloc(bytes);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}
/* p[0..n) distinct values in [0, range), range >= n. */
static void hce_prop_injection(long *p, long n, long range) {
  long *all = hce_prop_alloc(sizeof(long) * (size_t)range);
  for (long e = 0; e < range; e++)
    all[e] = e;
  for (long e = range - 1; e > 0; e--) {
    long f = (long)(hce_prop_next() % (unsigned long long)(e + 1)), t = all[e];
    all[e] = all[f];
    all[f] = t;
  }
  for (long e = 0; e < n; e++)
    p[e] = all[e];
  free(all);
}
/* A few hundred flops that the result depends on: each iteration costs
   enough that every device takes chunks at test sizes. */
static double hce_prop_mix(double v, int steps) {
  double s = v;
  for (int r = 0; r < steps; r++)
    s = s * 0.999 + v * 0.001 + 1e-6;
  return s;
}
#define WORK WORK_STEPS
static long hce_prop_bad = 0;
static void hce_prop_check(const char *loop, const char *name, const double *got,
                           const double *want, long n) {
  for (long e = 0; e < n; e++) {
    double tol = 1e-12 * fabs(want[e]);
    if (!(fabs(got[e] - want[e]) <= tol)) {
      if (hce_prop_bad++ < 5)
        printf("FAILED: %s '%s' element %ld: got %.17g, want %.17g\n", loop, name, e,
               got[e], want[e]);
    }
  }
}
static void hce_prop_check_long(const char *loop, const char *name, const long *got,
                                const long *want, long n) {
  for (long e = 0; e < n; e++)
    if (got[e] != want[e] && hce_prop_bad++ < 5)
      printf("FAILED: %s '%s' element %ld: got %ld, want %ld\n", loop, name, e, got[e],
             want[e]);
}
"""


def _run_loop(loop, k, ref):
    """The loop's executions: with pragmas (the co_exec, maybe inside a
    data region) or without (the reference)."""
    body = _subst(loop.body, loop, ref)
    lines = [f"  for (int rep = 0; rep < REPS{k}; rep++) {{"]
    if not ref:
        lines.append(f"#pragma hce co_exec name(\"loop{k}.{loop.kind}\") "
                     f"{_subst(loop.clauses, loop, False)}")
        lines.append("#pragma omp parallel for")
    lines.append(f"    for (long i = {loop.lo}; i < {loop.hi}; i++) {{")
    lines.append(f"      {body}")
    lines.append("    }")
    lines.append("  }")
    text = "\n".join(lines)
    if loop.data_maps and not ref:
        text = (f"#pragma hce data {_subst(loop.data_maps, loop, False)}\n"
                f"  {{\n{text}\n  }}")
    return text


def generate(rng, seed_text, first_kinds=()):
    """One program (its C text) and a one-line description of its loops;
    its first loops are of `first_kinds`, the others of random kinds."""
    count = max(len(first_kinds), rng.randint(2, 4))
    kinds = list(first_kinds) + [rng.choice(LOOP_KINDS)
                                 for _ in range(count - len(first_kinds))]
    loops = [kind(rng, k) for k, kind in enumerate(kinds)]
    if all(loop.merged for loop in loops):
        # Merged regions leave the CPU out, and accelerators' atomic chunks
        # conflict and re-run on the CPU: one per-iteration loop keeps the
        # check that every named device did work meaningful.
        loops[0] = footprint(rng, 0)
    for k, loop in enumerate(loops):
        loop.reps = rng.randint(2, 4)
        if rng.random() < 0.3:  # keep the written array resident
            written = loop.arrays[-1]
            loop.data_maps = f"map(tofrom: {{{written.name.split('_')[0]}}}" \
                             f"[0:{written.count}])"
            if written.decl.startswith("rows:"):  # count is "ROWS * COLS"
                row_count, cols = written.count.split(" * ")
                loop.data_maps = (f"map(tofrom: {{{written.name.split('_')[0]}}}"
                                  f"[0:{row_count}][0:{cols}])")
    out = [f"/* generated by tests/property/map_program.py, seed {seed_text}: "
           + ", ".join(f"loop{k} {l.kind}{' in a data region' if l.data_maps else ''}"
                       f" x{l.reps}" for k, l in enumerate(loops)) + " */"]
    out.append(PRELUDE.replace("SEED", f"{rng.getrandbits(63) | 1}ULL").replace(
        "WORK_STEPS", str(WORK)))
    for k, loop in enumerate(loops):
        for name, value in loop.macros.items():
            out.append(f"#define {name} {value}")
        out.append(f"#define REPS{k} {loop.reps}")
    for loop in loops:
        for a in loop.arrays:
            if a.decl == "static":
                out.append(_decl(a))
                out.append(_decl(a, True))
    out.append("\nint main(void) {")
    for loop in loops:
        for a in loop.arrays:
            if a.decl != "static":
                out.append("  " + _decl(a))
                out.append("  " + _decl(a, True))
            out.append("  " + _fill(a))
    for k, loop in enumerate(loops):
        out.append(f"  /* loop {k}: {loop.kind} */")
        out.append(_run_loop(loop, k, False))
        out.append(_run_loop(loop, k, True))
    for k, loop in enumerate(loops):
        for a in loop.arrays:
            if not a.checked:
                continue
            fn = "hce_prop_check_long" if a.ctype == "long" else "hce_prop_check"
            out.append(f"  {fn}(\"loop{k}.{loop.kind}\", \"{a.name}\", {_flat(a)}, "
                       f"{_flat(a, True)}, {a.count});")
    # Heap arrays are freed: the sanitizer stage's LeakSanitizer checks
    # these programs too, and a leak there would hide a leak in libhce.
    for loop in loops:
        for a in loop.arrays:
            if a.decl != "static":
                out.append(f"  free({a.name}); free({a.name}_ref);")
    out.append('  printf("%s\\n", hce_prop_bad ? "FAILED" : "verified");')
    out.append("  return hce_prop_bad ? 1 : 0;")
    out.append("}")
    description = ", ".join(l.kind for l in loops)
    return "\n".join(out) + "\n", description
