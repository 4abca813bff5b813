/* See main.c.  */
static unsigned calls;

unsigned
mix (unsigned x)
{
  calls++;
  return (x * 2654435761u) ^ (x >> 13);
}

static unsigned
rotate (unsigned x)
{
  return (x << 7 | x >> 25) + calls;
}

static unsigned
fold (unsigned x)
{
  return x ^ (x >> 16);
}

unsigned (*const ops_table[4]) (unsigned) = { rotate, fold, rotate, fold };
