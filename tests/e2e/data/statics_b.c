/* statics_b.c - the other static step (see statics_a.c).  */
static __attribute__ ((noinline)) unsigned
step (unsigned x)
{
  for (int i = 0; i < 30; i++)
    x = x ^ (x >> 3) ^ (unsigned) i;
  return x;
}

unsigned
run_b (unsigned x)
{
  return step (x);
}
