/* tail_icall.c - an indirect call in tail position: dispatch's call
   through F compiles at -O2 to "jmp *%rax", so no frame of dispatch is
   left for a callchain or an unwinder, and the branch record is a jump.
   Of every 16 calls, 12 go to op_rot, 3 to op_mul and 1 to op_xor.
   Prints the checksum and the calls per target.  */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long (*op_fn) (unsigned long);

#define NOINLINE __attribute__ ((noinline, noclone))

static unsigned long calls[3];

NOINLINE static unsigned long
op_rot (unsigned long x)
{
  calls[0]++;
  return (x << 7 | x >> 57) + 3;
}

NOINLINE static unsigned long
op_mul (unsigned long x)
{
  calls[1]++;
  return x * 0x9E3779B97F4A7C15ul;
}

NOINLINE static unsigned long
op_xor (unsigned long x)
{
  calls[2]++;
  return x ^ (x >> 31);
}

static op_fn const table[16] = {
  op_rot, op_rot, op_mul, op_rot, op_rot, op_rot, op_mul, op_rot,
  op_rot, op_xor, op_rot, op_rot, op_mul, op_rot, op_rot, op_rot
};

NOINLINE static op_fn
pick (unsigned long i)
{
  return table[i & 15];
}

NOINLINE unsigned long
dispatch (unsigned long i, unsigned long x)
{
  op_fn f = pick (i);
  return f (x);
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  unsigned long s = 0;
  for (long i = 0; i < n; i++)
    s = dispatch ((unsigned long) i, s + (unsigned long) i);
  printf ("%lu %lu %lu %lu\n", s, calls[0], calls[1], calls[2]);
  return 0;
}
