/* A translation error: the translator rejects it, nothing is compiled. */
void f(int n, double *v) {
#pragma hce co_exec map(tofrom: v[i*i:1])
  for (int i = 0; i < n; i++)
    v[i * i] = 0;
}
