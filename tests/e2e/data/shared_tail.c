/* shared_tail.c - an interpreter loop whose handlers end alike: GCC 12's
   cross-jumping at -O2 keeps one copy of the common tail (x ^= x >> 7;
   trace[...] = x) under the lines of the rare handler, opcode 3, and the
   others jump into it.  Those lines then hold every iteration's samples
   in the profile (tests/e2e/97-attribution-shared-code.sh).  Prints how
   many of each opcode the program holds, and its result.  */
#include <stdio.h>
#include <stdlib.h>

static unsigned char program[4096];

__attribute__((noinline)) static unsigned long
run (const unsigned char *ops, int n, unsigned long x, unsigned long *trace)
{
  for (int i = 0; i < n; i++)
    switch (ops[i])
      {
      case 0:
	x += 0x9e37;
	if (x & 16)
	  x += i;
	x ^= x >> 7;
	trace[i & 7] = x;
	break;
      case 1:
	x *= 5;
	if (x & 16)
	  x -= i;
	x ^= x >> 7;
	trace[i & 7] = x;
	break;
      case 2:
	x -= 11;
	if (x & 16)
	  x ^= i;
	x ^= x >> 7;
	trace[i & 7] = x;
	break;
      case 3:
	x = x / 3 + 1;
	if (x & 16)
	  x |= i;
	x ^= x >> 7;
	trace[i & 7] = x;
	break;
      default:
	abort ();
      }
  return x;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 3000;
  unsigned long x = 1, trace[8] = { 0 };
  unsigned seed = 12345, count[4] = { 0 };

  for (int i = 0; i < 4096; i++)
    {
      seed = seed * 1103515245u + 12345u;
      program[i] = i % 512 == 0 ? 3 : (seed >> 16) % 3;
      count[program[i]]++;
    }
  printf ("opcodes %u %u %u %u\n", count[0], count[1], count[2], count[3]);
  for (int r = 0; r < rounds; r++)
    x = run (program, 4096, x, trace);
  printf ("%lx %lx\n", x, trace[3]);
  return 0;
}
