/* undescribed.c - functions with code and no DWARF function of their
   own.  GCC's identical-code folding keeps a copy of an address-taken
   static function it merged (the table holds both addresses) but
   describes only the twin it kept: copy_b and copy_d have symbols and
   code, no concrete DW_TAG_subprogram.  asm_never is assembly.  The run
   calls twin_a and copy_d only.  */
#include <stdio.h>
#include <stdlib.h>

__asm__ (".text\n"
	 ".globl asm_never\n"
	 ".type asm_never, @function\n"
	 "asm_never:\n"
	 "\tret\n"
	 ".size asm_never, .-asm_never\n");

static int twin_a (int x) { return x * 3 + 1; }
/* The same body as twin_a: GCC folds it.  */
static int copy_b (int x) { return x * 3 + 1; }
static int twin_c (int x) { return (x ^ 5) + 7; }
/* The same body as twin_c.  */
static int copy_d (int x) { return (x ^ 5) + 7; }

int (*volatile table[4]) (int) = { twin_a, copy_b, twin_c, copy_d };

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 300000;
  unsigned sum = 0;
  for (long i = 0; i < n; i++)
    sum += table[0] ((int) i) + table[3] ((int) i);
  printf ("%u\n", sum);
  return 0;
}
