/* The targets of xtu_main.c's indirect call.  */
typedef unsigned (*op_fn) (unsigned, unsigned);

__attribute__ ((noinline)) unsigned
rotate_add (unsigned a, unsigned b)
{
  unsigned x = a * 2654435761u ^ b;
  return (x << 9) | (x >> 23);
}

__attribute__ ((noinline)) unsigned
scale_sub (unsigned a, unsigned b)
{
  return (a - b) * 40503u;
}

op_fn ops[16];

void
setup_ops (void)
{
  for (int i = 0; i < 16; i++)
    ops[i] = i == 7 ? scale_sub : rotate_add;
}
