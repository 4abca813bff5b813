/* inlined.c - helper is inlined into work at -O2; a build with -fno-inline
   calls it, so its counts must move from the inline instance to its own
   body (tests/e2e/50-plugin-annotates.sh).  */
#include <stdio.h>
#include <stdlib.h>
static inline int helper (int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }
__attribute__((noinline)) int work (int n) { int t = 0; for (int i = 0; i < n; i++) t += helper (i & 63); return t; }
int main (int argc, char **argv) { (void) argv; printf ("%d\n", work (argc * 3000000)); return 0; }
