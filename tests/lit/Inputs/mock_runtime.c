/* A stand-in for libhce used by the lit tests to run translated programs
 * without the real runtime. hce_co_exec_or_exit runs the CPU variant over a
 * few uneven chunks of [0, W). Like an accelerator with its own memory, each
 * chunk gets private, poisoned copies of its mapped arrays holding only the
 * footprint the region declares for that chunk (the base pointer is biased
 * so that element e still lives at ptr + e*elem_size): a wrong footprint
 * makes the program's results wrong. Reductions start from the operator's
 * identity in every chunk and are combined into the user's variable. */
#include <hce/hce.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t nblocks(const hce_map *m) { return m->blocks > 1 ? m->blocks : 1; }
static int64_t lo_of(const hce_map *m, int64_t lb, int64_t ub) {
  int64_t a = m->scale * lb + m->offset, b = m->scale * (ub - 1) + m->offset;
  return a < b ? a : b;
}
static int64_t hi_of(const hce_map *m, int64_t lb, int64_t ub) {
  int64_t a = m->scale * lb + m->offset, b = m->scale * (ub - 1) + m->offset;
  return (a > b ? a : b) + (nblocks(m) - 1) * m->stride + m->len;
}

/* Copies, element interval by element interval, exactly the footprint of
 * iterations [lb, ub) of map m (every block) from the buffer holding
 * elements [slo, ...) to the one holding [dlo, ...). */
static void copy_footprint(const hce_map *m, int64_t lb, int64_t ub,
                           char *dst, int64_t dlo, const char *src,
                           int64_t slo) {
  size_t es = m->elem_size;
  for (int64_t k = lb; k < ub; ++k) {
    if (m->scale == 0 && k > lb)
      break;
    for (int64_t b = 0; b < nblocks(m); ++b) {
      int64_t e = m->scale * k + m->offset + b * m->stride;
      memcpy(dst + (e - dlo) * (int64_t)es, src + (e - slo) * (int64_t)es,
             (size_t)m->len * es);
    }
  }
}

/* ---- data regions: a "device" copy per present array ------------------ */
/* Like an OpenMP device: hce_data_begin allocates a poisoned copy of each
 * section (filled for to/tofrom), co_exec loops on a present array read and
 * write that copy (not the host), hce_update moves sections between host
 * and copy, hce_data_end copies from/tofrom sections back and frees. */
typedef struct present {
  void *host;
  size_t es;
  int64_t lo, hi; /* elements held */
  char *dev;      /* element e at dev + (e - lo) * es */
  int refs;
  hce_map map; /* the section that created it */
} present;
static present table[64];
static int ntable;
static int frames[32][64]; /* per data region: table indices it refers to */
static int frame_n[32], depth;

static present *find_present(const void *host) {
  for (int i = 0; i < ntable; ++i)
    if (table[i].refs > 0 && table[i].host == host)
      return &table[i];
  return 0;
}
static void print_map(const char *what, const hce_map *m) {
  printf("%s %s kind=%d elem=%zu scale=%lld offset=%lld len=%lld "
         "blocks=%lld stride=%lld\n",
         what, m->name, m->kind, m->elem_size, (long long)m->scale,
         (long long)m->offset, (long long)m->len, (long long)m->blocks,
         (long long)m->stride);
}

int hce_data_begin(int n, const hce_map *maps) {
  if (n < 0 || n > 64 || depth >= 32 || (n && !maps))
    return 1;
  frame_n[depth] = 0;
  for (int i = 0; i < n; ++i) {
    const hce_map *m = &maps[i];
    if (getenv("MOCK_HCE_VERBOSE"))
      print_map("data_begin", m);
    if (m->scale != 0) {
      fprintf(stderr, "mock hce: data region map %s has scale != 0\n",
              m->name);
      return 1;
    }
    present *p = find_present(m->host);
    if (!p) {
      if (ntable >= 64)
        return 1;
      p = &table[ntable++];
      p->host = m->host;
      p->es = m->elem_size;
      p->lo = lo_of(m, 0, 1);
      p->hi = hi_of(m, 0, 1);
      p->refs = 0;
      p->map = *m;
      size_t bytes = (size_t)(p->hi - p->lo) * p->es;
      p->dev = malloc(bytes ? bytes : 1);
      memset(p->dev, 0xA5, bytes);
      if (m->kind & HCE_MAP_TO)
        copy_footprint(m, 0, 1, p->dev, p->lo, m->host, 0);
    }
    p->refs++;
    frames[depth][frame_n[depth]++] = (int)(p - table);
  }
  depth++;
  return 0;
}

int hce_data_end(void) {
  if (depth == 0)
    return 1;
  depth--;
  if (getenv("MOCK_HCE_VERBOSE"))
    printf("data_end\n");
  for (int i = frame_n[depth]; i-- > 0;) {
    present *p = &table[frames[depth][i]];
    if (--p->refs == 0) {
      if (p->map.kind & HCE_MAP_FROM)
        copy_footprint(&p->map, 0, 1, p->host, 0, p->dev, p->lo);
      free(p->dev);
      p->dev = 0;
    }
  }
  while (ntable > 0 && table[ntable - 1].refs == 0)
    ntable--;
  return 0;
}

int hce_update(int n, const hce_map *maps, int to_devices) {
  if (n < 0 || (n && !maps))
    return 1;
  for (int i = 0; i < n; ++i) {
    const hce_map *m = &maps[i];
    if (getenv("MOCK_HCE_VERBOSE"))
      print_map(to_devices ? "update_to" : "update_from", m);
    present *p = find_present(m->host);
    if (!p)
      continue; /* not present: nothing to do (OpenMP) */
    if (lo_of(m, 0, 1) < p->lo || hi_of(m, 0, 1) > p->hi) {
      fprintf(stderr, "mock hce: update of %s outside its data region\n",
              m->name);
      return 1;
    }
    if (to_devices)
      copy_footprint(m, 0, 1, p->dev, p->lo, m->host, 0);
    else
      copy_footprint(m, 0, 1, m->host, 0, p->dev, p->lo);
  }
  return 0;
}

static size_t type_size(int type) {
  static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return type >= HCE_TYPE_I8 && type <= HCE_TYPE_F64 ? sizes[type] : 8;
}

static void preset(const hce_reduction *r, void *slot) {
  memset(slot, 0, 8);
  switch (r->type) {
#define SET(T, V) *(T *)slot = (T)(V)
#define IDENT(T, MINV, MAXV)                                                  \
  switch (r->op) {                                                            \
  case HCE_RED_MUL: case HCE_RED_LAND: SET(T, 1); break;                      \
  case HCE_RED_BAND: SET(T, ~(T)0); break;                                    \
  case HCE_RED_MIN: SET(T, MAXV); break;                                      \
  case HCE_RED_MAX: SET(T, MINV); break;                                      \
  default: SET(T, 0);                                                         \
  }
  case HCE_TYPE_I32: IDENT(int32_t, INT32_MIN, INT32_MAX); break;
  case HCE_TYPE_U32: IDENT(uint32_t, 0, UINT32_MAX); break;
  case HCE_TYPE_I64: IDENT(int64_t, INT64_MIN, INT64_MAX); break;
  case HCE_TYPE_U64: IDENT(uint64_t, 0, UINT64_MAX); break;
  case HCE_TYPE_I8: IDENT(int8_t, INT8_MIN, INT8_MAX); break;
  case HCE_TYPE_U8: IDENT(uint8_t, 0, UINT8_MAX); break;
  case HCE_TYPE_I16: IDENT(int16_t, INT16_MIN, INT16_MAX); break;
  case HCE_TYPE_U16: IDENT(uint16_t, 0, UINT16_MAX); break;
#undef IDENT
#define FIDENT(T)                                                             \
  switch (r->op) {                                                            \
  case HCE_RED_MUL: SET(T, 1); break;                                         \
  case HCE_RED_MIN: SET(T, INFINITY); break;                                  \
  case HCE_RED_MAX: SET(T, -INFINITY); break;                                 \
  default: SET(T, 0);                                                         \
  }
  case HCE_TYPE_F32: FIDENT(float); break;
  case HCE_TYPE_F64: FIDENT(double); break;
  }
}

#define COMBINE_INT(T)                                                        \
  {                                                                           \
    T *d = (T *)dst, s = *(const T *)slot;                                    \
    switch (r->op) {                                                          \
    case HCE_RED_ADD: *d += s; break;                                         \
    case HCE_RED_MUL: *d *= s; break;                                         \
    case HCE_RED_MIN: if (s < *d) *d = s; break;                              \
    case HCE_RED_MAX: if (s > *d) *d = s; break;                              \
    case HCE_RED_BAND: *d &= s; break;                                        \
    case HCE_RED_BOR: *d |= s; break;                                         \
    case HCE_RED_BXOR: *d ^= s; break;                                        \
    case HCE_RED_LAND: *d = *d && s; break;                                   \
    case HCE_RED_LOR: *d = *d || s; break;                                    \
    }                                                                         \
  }
#define COMBINE_FLT(T)                                                        \
  {                                                                           \
    T *d = (T *)dst, s = *(const T *)slot;                                    \
    switch (r->op) {                                                          \
    case HCE_RED_ADD: *d += s; break;                                         \
    case HCE_RED_MUL: *d *= s; break;                                         \
    case HCE_RED_MIN: if (s < *d) *d = s; break;                              \
    case HCE_RED_MAX: if (s > *d) *d = s; break;                              \
    case HCE_RED_LAND: *d = *d && s; break;                                   \
    case HCE_RED_LOR: *d = *d || s; break;                                    \
    default: abort();                                                         \
    }                                                                         \
  }

static void combine(const hce_reduction *r, void *dst, const void *slot) {
  switch (r->type) {
  case HCE_TYPE_I8: COMBINE_INT(int8_t); break;
  case HCE_TYPE_U8: COMBINE_INT(uint8_t); break;
  case HCE_TYPE_I16: COMBINE_INT(int16_t); break;
  case HCE_TYPE_U16: COMBINE_INT(uint16_t); break;
  case HCE_TYPE_I32: COMBINE_INT(int32_t); break;
  case HCE_TYPE_U32: COMBINE_INT(uint32_t); break;
  case HCE_TYPE_I64: COMBINE_INT(int64_t); break;
  case HCE_TYPE_U64: COMBINE_INT(uint64_t); break;
  case HCE_TYPE_F32: COMBINE_FLT(float); break;
  case HCE_TYPE_F64: COMBINE_FLT(double); break;
  }
}

/* No runtime block here: generated CUDA variants allocate their own
 * reduction slots (the fallback path). */
void *hce_cuda_scratch(void *stream, size_t bytes) {
  (void)stream;
  (void)bytes;
  return 0;
}
void *hce_cuda_host_scratch(void *stream, size_t bytes, void **device) {
  (void)stream;
  (void)bytes;
  *device = 0;
  return 0;
}

int hce_co_exec(const hce_region *r) {
  int64_t W = r->iterations;
  if (!r->cpu || W < 0 || (r->num_maps && !r->maps))
    return 1;
  if (getenv("MOCK_HCE_VERBOSE")) {
    printf("region %s: W=%lld schedule=%s devices=%s co=%s ratios=%s "
           "chunk=%lld alpha=%g\n",
           r->name, (long long)W, r->schedule ? r->schedule : "(null)",
           r->devices ? r->devices : "(null)", r->co ? r->co : "(null)",
           r->ratios ? r->ratios : "(null)", (long long)r->chunk, r->alpha);
    for (int m = 0; m < r->num_maps; ++m)
      printf("  map %s kind=%d elem=%zu scale=%lld offset=%lld len=%lld "
             "blocks=%lld stride=%lld\n",
             r->maps[m].name, r->maps[m].kind, r->maps[m].elem_size,
             (long long)r->maps[m].scale, (long long)r->maps[m].offset,
             (long long)r->maps[m].len, (long long)r->maps[m].blocks,
             (long long)r->maps[m].stride);
    for (int i = 0; i < r->num_reductions; ++i)
      printf("  reduction %s op=%d type=%d count=%lld\n", r->reductions[i].name,
             r->reductions[i].op, r->reductions[i].type,
             (long long)r->reductions[i].count);
  }
  /* Uneven chunks: 1, then 1/3 of the rest, then the rest. */
  int64_t cuts[4] = {0, W > 0 ? 1 : 0, 0, W};
  cuts[2] = cuts[1] + (W - cuts[1]) / 3;
  void *ptrs[64];
  char *bufs[64];
  if (r->num_maps > 64 || r->num_reductions > 64)
    return 1;
  for (int c = 0; c < 3; ++c) {
    int64_t lb = cuts[c], ub = cuts[c + 1];
    if (lb >= ub)
      continue;
    for (int m = 0; m < r->num_maps; ++m) {
      const hce_map *mp = &r->maps[m];
      int64_t lo = lo_of(mp, lb, ub), hi = hi_of(mp, lb, ub);
      size_t es = mp->elem_size, n = (size_t)(hi - lo) * es;
      present *p = find_present(mp->host);
      bufs[m] = malloc(n ? n : 1);
      memset(bufs[m], 0xA5, n); /* poison */
      if (p && (lo < p->lo || hi > p->hi)) {
        fprintf(stderr, "mock hce: footprint of %s outside its data region\n",
                mp->name);
        return 1;
      }
      if (p && (mp->kind & HCE_MAP_ALWAYS) && (mp->kind & HCE_MAP_TO))
        copy_footprint(mp, lb, ub, p->dev, p->lo, mp->host, 0);
      if (p) /* present: the data region's copy, whatever the map type */
        copy_footprint(mp, lb, ub, bufs[m], lo, p->dev, p->lo);
      else if (mp->kind & HCE_MAP_TO)
        copy_footprint(mp, lb, ub, bufs[m], lo, mp->host, 0);
      ptrs[m] = bufs[m] - lo * (int64_t)es;
    }
    /* One 8-byte slot per reduction; an array reduction's elements after
     * the slots, at the byte offset its slot holds (as hce.h says). */
    size_t bytes = 8 * (size_t)r->num_reductions;
    for (int i = 0; i < r->num_reductions; ++i)
      if (r->reductions[i].count > 0)
        bytes += ((size_t)r->reductions[i].count * type_size(r->reductions[i].type) + 7) / 8 * 8;
    unsigned char *slots = calloc(bytes ? bytes : 1, 1);
    size_t off = 8 * (size_t)r->num_reductions;
    for (int i = 0; i < r->num_reductions; ++i) {
      const hce_reduction *red = &r->reductions[i];
      if (red->count < 0) {
        fprintf(stderr, "mock hce: array reduction %s: bad section\n", red->name);
        return 1;
      }
      if (red->count == 0) {
        preset(red, slots + 8 * i);
        continue;
      }
      int64_t o = (int64_t)off;
      memcpy(slots + 8 * i, &o, 8);
      unsigned char ident[8];
      preset(red, ident);
      for (int64_t e = 0; e < red->count; ++e)
        memcpy(slots + off + (size_t)e * type_size(red->type), ident, type_size(red->type));
      off += ((size_t)red->count * type_size(red->type) + 7) / 8 * 8;
    }
    r->cpu(lb, ub, ptrs, r->args, slots);
    for (int i = 0; i < r->num_reductions; ++i) {
      const hce_reduction *red = &r->reductions[i];
      if (red->count == 0) {
        combine(red, red->var, slots + 8 * i);
        continue;
      }
      int64_t o;
      memcpy(&o, slots + 8 * i, 8);
      size_t es = type_size(red->type);
      for (int64_t e = 0; e < red->count; ++e)
        combine(red, (char *)red->var + (size_t)e * es, slots + o + (size_t)e * es);
    }
    free(slots);
    for (int m = 0; m < r->num_maps; ++m) {
      const hce_map *mp = &r->maps[m];
      int64_t lo = lo_of(mp, lb, ub);
      present *p = find_present(mp->host);
      if (p) {
        /* Written back to the device copy only (the host is stale until
         * an update from / the end of the data region). */
        if (mp->kind & HCE_MAP_FROM)
          copy_footprint(mp, lb, ub, p->dev, p->lo, bufs[m], lo);
        if ((mp->kind & HCE_MAP_ALWAYS) && (mp->kind & HCE_MAP_FROM))
          copy_footprint(mp, lb, ub, mp->host, 0, p->dev, p->lo);
      } else if (mp->kind & HCE_MAP_FROM) {
        copy_footprint(mp, lb, ub, mp->host, 0, bufs[m], lo);
      }
      free(bufs[m]);
    }
  }
  return 0;
}

void hce_co_exec_or_exit(const hce_region *r) {
  if (hce_co_exec(r)) {
    fprintf(stderr, "mock hce: region %s failed\n", r->name);
    exit(1);
  }
}

/* The generated code's entry points: a failure stops the program. */
void hce_data_begin_or_exit(int n, const hce_map *maps) {
  if (hce_data_begin(n, maps) != 0)
    exit(1);
}
void hce_data_end_or_exit(void) {
  if (hce_data_end() != 0)
    exit(1);
}
void hce_update_or_exit(int n, const hce_map *maps, int to_devices) {
  if (hce_update(n, maps, to_devices) != 0)
    exit(1);
}
