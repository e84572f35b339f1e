/* LD_PRELOAD spy: names each thread that calls OpenMP's entry points from
 * outside libomp (each such thread becomes a libomp root, which libomp's
 * oversubscription test counts).  One line per thread and entry point, on
 * stderr: "ompspy <thread name> <entry>".  A team's workers carry their
 * master's name (a team of 16: 16 lines of omp_get_thread_num).  Build:
 *   cc -O2 -shared -fPIC bench/omp_root_spy.c -o ompspy.so -ldl -lpthread
 * With OMPSPY_VALUES set, every kmp_get_blocktime() result and
 * kmp_set_blocktime() argument is logged too ("ompspy <thread> get|set N"):
 * libomp's kmp_get_blocktime() answers 0 while it thinks the machine
 * oversubscribed and the blocktime was not set explicitly.
 * With OMPSPY_TASKS set, the program's first printf() first prints each of
 * the process's threads: its name, time on a CPU and waiting for one (ns,
 * /proc schedstat), and its voluntary and involuntary context switches
 * ("ompspy-task <name> run W wait W vol N invol N"): a team whose workers
 * sleep after each fork switches voluntarily, one that shares its cores
 * with other busy threads is switched out.
 * Diagnostic only (session 95's call V13, 96's V17); not part of the build. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
FORWARD1(5, void, omp_set_num_threads, int)
FORWARD1(7, int, __kmpc_global_thread_num, void *)
FORWARD0(8, int, omp_in_parallel)

static void value(const char *what, int v) {
  static int on = -1;
  if (on < 0)
    on = getenv("OMPSPY_VALUES") != NULL;
  if (!on)
    return;
  char name[32] = "?";
  pthread_getname_np(pthread_self(), name, sizeof name);
  fprintf(stderr, "ompspy %s %s %d\n", name, what, v);
}

int kmp_get_blocktime(void) {
  static int (*real)(void);
  if (!real)
    real = (int (*)(void))dlsym(RTLD_NEXT, "kmp_get_blocktime");
  note(1u << 4, "kmp_get_blocktime");
  const int v = real();
  value("get", v);
  return v;
}

void kmp_set_blocktime(int a) {
  static void (*real)(int);
  if (!real)
    real = (void (*)(int))dlsym(RTLD_NEXT, "kmp_set_blocktime");
  note(1u << 6, "kmp_set_blocktime");
  value("set", a);
  real(a);
}

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

static void dump_tasks(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char path[320], name[64] = "?", line[256];
    unsigned long long run = 0, wait = 0, vol = 0, invol = 0;
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (f) {
      if (fgets(name, sizeof name, f))
        name[strcspn(name, "\n")] = 0;
      fclose(f);
    }
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    if ((f = fopen(path, "r"))) {
      if (fscanf(f, "%llu %llu", &run, &wait) != 2)
        run = wait = 0;
      fclose(f);
    }
    snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
    if ((f = fopen(path, "r"))) {
      while (fgets(line, sizeof line, f)) {
        sscanf(line, "voluntary_ctxt_switches: %llu", &vol);
        sscanf(line, "nonvoluntary_ctxt_switches: %llu", &invol);
      }
      fclose(f);
    }
    fprintf(stderr, "ompspy-task %s run %llu wait %llu vol %llu invol %llu\n", name, run,
            wait, vol, invol);
  }
  closedir(d);
}

int printf(const char *fmt, ...) {
  static int done;
  if (!done) {
    done = 1;
    if (getenv("OMPSPY_TASKS"))
      dump_tasks();
  }
  va_list ap;
  va_start(ap, fmt);
  const int n = vprintf(fmt, ap);
  va_end(ap);
  return n;
}
