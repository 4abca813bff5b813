/* common/xalloc.c - see xalloc.h.  */
#include "xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
out_of_memory (size_t size)
{
  fprintf (stderr, "sfdo: fatal: out of memory allocating %zu bytes\n", size);
  exit (2);
}

void *
sfdo_xmalloc (size_t size)
{
  void *p = malloc (size ? size : 1);
  if (!p)
    out_of_memory (size);
  return p;
}

void *
sfdo_xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size ? size : 1);
  if (!p)
    out_of_memory (n * size);
  return p;
}

void *
sfdo_xrealloc (void *ptr, size_t size)
{
  void *p = realloc (ptr, size ? size : 1);
  if (!p)
    out_of_memory (size);
  return p;
}

void
sfdo_xgrow (void *ptr_to_ptr, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap)
    return;
  size_t ncap = *cap ? *cap : 4;
  while (ncap < need)
    {
      if (ncap > SIZE_MAX / 2 / elem)
        out_of_memory (SIZE_MAX);
      ncap *= 2;
    }
  void **pp = (void **) ptr_to_ptr;
  *pp = sfdo_xrealloc (*pp, ncap * elem);
  *cap = ncap;
}

char *
sfdo_xstrndup (const char *s, size_t n)
{
  char *d = (char *) sfdo_xmalloc (n + 1);
  memcpy (d, s, n);
  d[n] = 0;
  return d;
}
