/* Translates fine; fails to compile with -Werror (unused variable). */
int f(int n) {
  int unused;
  return n;
}
