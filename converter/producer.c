/* converter/producer.c - compilers and their discriminators, from
 * DW_AT_producer (producer.h).  */
#include "producer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GCC 16 began numbering discriminators hierarchically.  */
#define FIRST_HIERARCHICAL_GCC 16

/* The length of a version ("16.2.0") at S: digits and dots, at least one
   dot, starting and ending with a digit; 0 if S holds none.  A language
   that carries a number ("Algol 68") is no version.  */
static size_t
version_len (const char *s)
{
  size_t n = 0, dots = 0;
  while ((s[n] >= '0' && s[n] <= '9') || (n && s[n] == '.'))
    dots += s[n++] == '.';
  return n && dots && s[n - 1] != '.' ? n : 0;
}

/* The version of a GCC producer, "GNU LANGUAGE VERSION OPTIONS...": the
   first word that is one, before the options; *LEN its length.  */
static const char *
gcc_version (const char *s, size_t *len)
{
  for (const char *w = s; *w && *w != '-';)
    {
      size_t n = strcspn (w, " ");
      if (version_len (w) == n && n)
        {
          *len = n;
          return w;
        }
      w += n;
      w += strspn (w, " ");
    }
  return NULL;
}

static int
named (struct sfdo_producer *out, const char *compiler, const char *v,
       size_t len)
{
  if (len > sizeof out->name - 16)
    return -1;
  snprintf (out->name, sizeof out->name, "%s %.*s", compiler, (int) len, v);
  return 0;
}

int
sfdo_producer_parse (const char *s, struct sfdo_producer *out)
{
  memset (out, 0, sizeof *out);
  const char *v;
  size_t len = 0;
  if (!s)
    return -1;
  if (strncmp (s, "GNU ", 4) == 0 && strncmp (s, "GNU AS ", 7) != 0
      && (v = gcc_version (s + 4, &len)))
    {
      if (named (out, "GCC", v, len) != 0)
        return -1;
      out->gcc_major = (unsigned) strtoul (v, NULL, 10);
      out->hierarchical = out->gcc_major >= FIRST_HIERARCHICAL_GCC;
      return 0;
    }
  if ((v = strstr (s, "clang version ")) && (len = version_len (v + 14)))
    return named (out, "clang", v + 14, len);
  return -1;
}

struct sfdo_gcc_disc
sfdo_gcc_disc_split (uint32_t d)
{
  struct sfdo_gcc_disc p = {
    d & 0xffu, (d >> 8) & 0x7fu, (d >> 15) & 0x7ffu
  };
  if (p.multiplicity == 0)
    p.multiplicity = 1;
  return p;
}
