/* A file-local function that runs long, reached only through a short
   wrapper that other files call a few times.  The wrapper catches no
   sample, so the profile lists it as never run; GCC's ipa-profile marks
   a local function unlikely when all of its callers are, so the function
   that ran went to .text.unlikely with it.  PGO leaves both in .text.  */

static __attribute__ ((noinline)) unsigned
digest (const unsigned *v, long n)
{
  unsigned h = 2166136261u;
  for (long i = 0; i < n; i++)
    h = (h ^ v[i]) * 16777619u;
  return h;
}

__attribute__ ((noinline)) unsigned
digest_checked (const unsigned *v, long n)
{
  if (!v || n <= 0)
    return 0;
  return digest (v, n);
}
