/* A wrapper with a loop of its own, listed as never run, around a
   file-local function that ran: the plugin annotates the wrapper again
   once it finds that only the wrapper can have entered its callee
   (revive_callers).  Its loop has no preheader until that second
   annotation makes one, a block GCC's estimate, taken at the first, does
   not cover.  */

static __attribute__ ((noinline)) unsigned
digest (const unsigned *v, long n)
{
  unsigned h = 2166136261u;
  for (long i = 0; i < n; i++)
    h = (h ^ v[i]) * 16777619u;
  return h;
}

__attribute__ ((noinline)) unsigned
digest_rounds (const unsigned *v, long n, int rounds)
{
  unsigned h = 0;
  if (!v || n <= 0)
    return 0;
  for (int r = 0; r < rounds; r++)
    {
      if (v[r] == 7)
	continue;
      h += digest (v, n);
    }
  return h;
}
