/* corpus_globals.h - a header that defines (not just declares) globals and
 * a function, as many older codes do: included by one file only. */
#ifndef CORPUS_GLOBALS_H
#define CORPUS_GLOBALS_H

#define TAPS 5
double g_coef[TAPS] = {0.0625, 0.25, 0.375, 0.25, 0.0625};
double g_gain = 1.5;
int g_calls = 0;

double clamp_value(double x, double lo, double hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

#endif
