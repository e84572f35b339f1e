/* Breadth-first search (level-synchronous, as in Rodinia bfs) on a random
 * undirected graph in CSR form.  Each level is one co-executed loop in the
 * "pull" (bottom-up) direction: an unvisited vertex v looks at its
 * neighbours and joins the next level when one of them is on the current
 * level.  Vertex v writes only next[v], so the devices never write the same
 * element; it reads its row pointers (rowptr[v:2]) and, through the
 * adjacency list, any vertex's level (broadcast sections).  A `+` reduction
 * counts the vertices found, which ends the search.
 *
 *   usage: bfs [vertices] [average degree] [seed]   (default 2^22, 8)
 * Exits 0 when every vertex's level equals that of a sequential queue-based
 * BFS, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long next_random(unsigned long long *state) {
  /* xorshift64*: reproducible random numbers without libc rand */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
  int deg = argc > 2 ? atoi(argv[2]) : 8;
  unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
  if (n < 2 || deg < 1) {
    fprintf(stderr, "bfs: need at least 2 vertices and degree >= 1\n");
    return 2;
  }
  /* n*deg/2 random undirected edges (self loops dropped), stored both ways. */
  long edges = (long)n * deg / 2;
  int *eu = malloc(edges * sizeof *eu), *ev = malloc(edges * sizeof *ev);
  long *rowptr = calloc((size_t)n + 1, sizeof *rowptr);
  int *level = malloc((size_t)n * sizeof *level), *next = malloc((size_t)n * sizeof *next),
      *ref = malloc((size_t)n * sizeof *ref), *queue = malloc((size_t)n * sizeof *queue);
  if (!eu || !ev || !rowptr || !level || !next || !ref || !queue) {
    fprintf(stderr, "bfs: out of memory for %d vertices\n", n);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (long e = 0; e < edges; e++) {
    eu[e] = (int)((next_random(&state) >> 11) % (unsigned long long)n);
    ev[e] = (int)((next_random(&state) >> 11) % (unsigned long long)n);
    if (eu[e] != ev[e]) {
      rowptr[eu[e] + 1]++;
      rowptr[ev[e] + 1]++;
    }
  }
  for (int v = 0; v < n; v++)
    rowptr[v + 1] += rowptr[v];
  long m = rowptr[n];
  int *adj = malloc((m > 0 ? m : 1) * sizeof *adj);
  long *fill = malloc((size_t)n * sizeof *fill);
  if (!adj || !fill) {
    fprintf(stderr, "bfs: out of memory for %ld edges\n", m);
    return 2;
  }
  for (int v = 0; v < n; v++)
    fill[v] = rowptr[v];
  for (long e = 0; e < edges; e++)
    if (eu[e] != ev[e]) {
      adj[fill[eu[e]]++] = ev[e];
      adj[fill[ev[e]]++] = eu[e];
    }
  free(eu);
  free(ev);
  free(fill);

  int source = (int)((next_random(&state) >> 11) % (unsigned long long)n);
  for (int v = 0; v < n; v++)
    level[v] = -1;
  level[source] = 0;

  /* The graph is uploaded once; the two level arrays (swapped every level)
   * stay on the devices, and the host reads only the reduced count. */
  int cur = 0;
#pragma hce data map(to: rowptr[0:n+1], adj[0:m]) map(tofrom: level[0:n], next[0:n])
  for (;;) {
    long long found = 0;
#pragma hce co_exec schedule(fdets) name("bfs.level") map(to: rowptr[v:2], adj[0:m], level[0:n]) map(from: next[v:1]) reduction(+: found)
#pragma omp parallel for reduction(+ : found)
    for (int v = 0; v < n; v++) {
      int l = level[v];
      if (l < 0)
        for (long e = rowptr[v]; e < rowptr[v + 1]; e++)
          if (level[adj[e]] == cur) {
            l = cur + 1;
            found++;
            break;
          }
      next[v] = l;
    }
    if (found == 0)
      break;
    int *swap = level;
    level = next;
    next = swap;
    cur++;
  }

  /* Reference: sequential top-down BFS with a queue. */
  for (int v = 0; v < n; v++)
    ref[v] = -1;
  ref[source] = 0;
  long head = 0, tail = 0;
  queue[tail++] = source;
  while (head < tail) {
    int u = queue[head++];
    for (long e = rowptr[u]; e < rowptr[u + 1]; e++)
      if (ref[adj[e]] < 0) {
        ref[adj[e]] = ref[u] + 1;
        queue[tail++] = adj[e];
      }
  }
  size_t bad = 0;
  for (int v = 0; v < n; v++)
    bad += level[v] != ref[v];
  printf("bfs %d vertices, %ld directed edges, %d levels, %ld reached: %s (%zu vertices wrong)\n",
         n, m, cur + 1, tail, bad ? "FAILED" : "verified against sequential", bad);
  free(rowptr);
  free(adj);
  free(level);
  free(next);
  free(ref);
  free(queue);
  return bad ? 1 : 0;
}
