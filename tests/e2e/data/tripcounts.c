/* tripcounts.c - a program whose lines run known numbers of times, for
 * tests/e2e/40-convert-ip-counts.sh.
 *
 * Every hot line is one asm statement: a chain of CHAIN_LEN dependent
 * register adds, so each of its instructions costs about one cycle
 * whatever the CPU, and the time a line takes (what a timer event samples)
 * is proportional to how often it runs. The loop trip counts and the
 * branch pattern come from volatile variables, so GCC neither unrolls nor
 * if-converts them. The test finds the lines by their "L:" markers, and
 * the functions by their "F:" markers (the line of the declaration).
 *
 *   nested:  the inner body runs INNER times per run of the outer body;
 *   branchy: the "then" arm runs once every PERIOD iterations, the "else"
 *            arm PERIOD - 1 times;
 *   caller:  calls leaf once per run of its loop body.
 *
 * "tripcounts migrate CPU" first moves itself to CPU, so that its exec
 * and mmaps are recorded on the CPU it started on and its samples on
 * another one.  */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R4(s) s s s s
#define R16(s) R4 (R4 (s))
/* CHAIN_LEN (64) dependent adds of K to X, register to register: CPUs
   that fold adds of immediates at register renaming cannot fold these.
   The few other instructions of a block cost next to nothing beside
   them: a timer sample lands on a chain instruction, so a block's
   estimated count is off by (its instructions) / CHAIN_LEN at most.  */
#define ADD "add %1, %0\n\t"
#define CHAIN(x, k) __asm__ volatile (R16 (ADD) R16 (ADD) R16 (ADD)    \
                                      R16 (ADD) : "+r" (x) : "r" (k##UL))

static volatile unsigned long v_outer = 4500000, v_inner = 3;
static volatile unsigned long v_iters = 12000000, v_period = 4;
static volatile unsigned long v_calls = 9000000;
static volatile unsigned long sink;

__attribute__ ((noinline)) static unsigned long
nested (unsigned long outer, unsigned long inner) /* F:nested */
{
  unsigned long x = outer;
  for (unsigned long i = 0; i < outer; i++)
    {
      CHAIN (x, 1); /* L:outer_body */
      for (unsigned long j = 0; j < inner; j++)
        CHAIN (x, 2); /* L:inner_body */
    }
  return x;
}

__attribute__ ((noinline)) static unsigned long
branchy (unsigned long iters, unsigned long period) /* F:branchy */
{
  unsigned long x = iters, k = 0;
  for (unsigned long i = 0; i < iters; i++)
    {
      if (k == 0)
        CHAIN (x, 3); /* L:then_arm */
      else
        CHAIN (x, 5); /* L:else_arm */
      k = k + 1 == period ? 0 : k + 1;
    }
  return x;
}

__attribute__ ((noinline)) static unsigned long
leaf (unsigned long x) /* F:leaf */
{
  CHAIN (x, 7); /* L:leaf_body */
  return x;
}

__attribute__ ((noinline)) static unsigned long
caller (unsigned long calls) /* F:caller */
{
  unsigned long x = calls;
  for (unsigned long i = 0; i < calls; i++)
    {
      CHAIN (x, 9); /* L:caller_body */
      x = leaf (x); /* L:call */
    }
  return x;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "migrate") == 0)
    {
      cpu_set_t set;
      CPU_ZERO (&set);
      CPU_SET (atoi (argv[2]), &set);
      if (sched_setaffinity (0, sizeof set, &set) != 0)
        {
          perror ("sched_setaffinity");
          return 1;
        }
    }
  sink = nested (v_outer, v_inner);
  sink = branchy (v_iters, v_period);
  sink = caller (v_calls);
  printf ("%lu\n", sink);
  return 0;
}
