/* LD_PRELOAD spy: names each thread that calls OpenMP's entry points from
 * outside libomp (each such thread becomes a libomp root, which libomp's
 * oversubscription test counts).  One line per thread and entry point, on
 * stderr: "ompspy <thread name> <entry>".  A team's workers carry their
 * master's name (a team of 16: 16 lines of omp_get_thread_num).  Build:
 *   cc -O2 -shared -fPIC bench/omp_root_spy.c -o ompspy.so -ldl -lpthread
 * Diagnostic only (session 95's call V13); not part of the build. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static __thread unsigned seen; /* one bit per entry point */

static void note(unsigned bit, const char *entry) {
  if (seen & bit)
    return;
  seen |= bit;
  char name[32] = "?";
  pthread_getname_np(pthread_self(), name, sizeof name);
  fprintf(stderr, "ompspy %s %s\n", name, entry);
}

#define FORWARD0(bit, ret, fn)                                                 \
  ret fn(void) {                                                               \
    static ret (*real)(void);                                                  \
    if (!real)                                                                 \
      real = (ret(*)(void))dlsym(RTLD_NEXT, #fn);                              \
    note(1u << (bit), #fn);                                                    \
    return real();                                                             \
  }
#define FORWARD1(bit, ret, fn, t)                                              \
  ret fn(t a) {                                                                \
    static ret (*real)(t);                                                     \
    if (!real)                                                                 \
      real = (ret(*)(t))dlsym(RTLD_NEXT, #fn);                                 \
    note(1u << (bit), #fn);                                                    \
    return real(a);                                                            \
  }

FORWARD0(0, int, omp_get_max_threads)
FORWARD0(1, int, omp_get_thread_num)
FORWARD0(2, int, omp_get_num_threads)
FORWARD0(3, int, omp_get_active_level)
FORWARD0(4, int, kmp_get_blocktime)
FORWARD1(5, void, omp_set_num_threads, int)
FORWARD1(6, void, kmp_set_blocktime, int)
FORWARD1(7, int, __kmpc_global_thread_num, void *)

/* The fork: its outlined function's arguments are variadic; libomp's own
 * __kmpc_fork_call_va is not exported, so forward through the real one with
 * the argument count the pragma passes (at most 16 here). */
typedef void (*kmpc_micro)(int *, int *, ...);
void __kmpc_fork_call(void *loc, int argc, kmpc_micro fn, ...) {
  static void (*real)(void *, int, kmpc_micro, ...);
  if (!real)
    real = (void (*)(void *, int, kmpc_micro, ...))dlsym(RTLD_NEXT, "__kmpc_fork_call");
  note(1u << 30, "__kmpc_fork_call");
  void *a[16] = {0};
  va_list ap;
  va_start(ap, fn);
  for (int i = 0; i < argc && i < 16; ++i)
    a[i] = va_arg(ap, void *);
  va_end(ap);
  real(loc, argc, fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
       a[10], a[11], a[12], a[13], a[14], a[15]);
}
