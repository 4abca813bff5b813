/* chain.c - a chained hash lookup shaped like Lua's luaH_getshortstr, for
   e2e 110: the key test of the first node nearly always hits.  A GCC 12
   build with a profile copies the loop's tests for the first iteration;
   the copy starts at discriminator 0 (plugin/discriminators.h), and the
   key test, the second operand of &&, begins no statement.  A table a
   quarter full chains often enough (one lookup in sixteen walks on) for
   GCC to keep the walk in the hot part, beside the copy.  */
#include <stdio.h>
#include <stdlib.h>

struct node { unsigned tag; unsigned key; int next; unsigned val; };

#define SLOTS 1024
static struct node nodes[SLOTS];
static unsigned absent = 0;

__attribute__((noinline)) static const unsigned *
lookup (unsigned key)
{
  struct node *n = &nodes[(key * 2654435761u) >> 22];
  for (;;)
    {
      if (n->tag == 4 && n->key == key)
        return &n->val;
      else
        {
          int nx = n->next;
          if (nx == 0)
            return &absent;
          n += nx;
        }
    }
}

int
main (int argc, char **argv)
{
  long rounds = argc > 1 ? atol (argv[1]) : 2000;
  unsigned keys[512], sum = 0;
  for (unsigned i = 0; i < 512; i++)
    {
      unsigned k = i * 7919 + 13, h = (k * 2654435761u) >> 22;
      keys[i] = k;
      if (nodes[h].tag == 4)
        {
          /* a collision: chain it behind, a few slots on */
          unsigned f = h;
          while (nodes[f].tag == 4)
            f = (f + 1) % SLOTS;
          nodes[f] = (struct node) { 4, k, 0, i };
          nodes[h].next = (int) f - (int) h;
        }
      else
        nodes[h] = (struct node) { 4, k, 0, i };
    }
  for (long r = 0; r < rounds; r++)
    for (unsigned i = 0; i < 512; i++)
      sum += *lookup (keys[i] + (i % 64 == 0));
  printf ("%u\n", sum);
  return 0;
}
