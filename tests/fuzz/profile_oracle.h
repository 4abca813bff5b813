/* tests/fuzz/profile_oracle.h - what both profile fuzz targets check
 * with: encode a profile, decode it, compare buffers, abort on any
 * difference.  Included once per target.  */
#ifndef SFDO_TESTS_FUZZ_PROFILE_ORACLE_H
#define SFDO_TESTS_FUZZ_PROFILE_ORACLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../profiles/profile.h"

struct buf {
  char *data;
  size_t len;
};

static void
die (const char *what, const struct sfdo_error *err)
{
  char msg[700];
  fprintf (stderr, "round trip broken: %s: %s\n", what,
           err ? sfdo_error_format (err, msg, sizeof msg) : "");
  abort ();
}

/* P in ENC, or an empty buffer with *RC set if the writer refused.  */
static struct buf
encode (struct sfdo_profile *p, enum sfdo_prof_encoding enc,
        enum sfdo_errc *rc)
{
  struct buf b = { NULL, 0 };
  struct sfdo_error err;
  FILE *f = open_memstream (&b.data, &b.len);
  if (!f)
    abort ();
  sfdo_error_clear (&err);
  *rc = sfdo_profile_write (p, f, enc, "mem", &err);
  if (fclose (f) != 0)
    abort ();
  return b;
}

static struct sfdo_profile *
must_decode (struct buf b, const char *what)
{
  struct sfdo_profile *p = NULL;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  if (sfdo_profile_read_mem (b.data, b.len, what, &p, &err) != SFDO_OK)
    die (what, &err);
  return p;
}

static void
must_equal (struct buf a, struct buf b, const char *what)
{
  if (a.len != b.len || memcmp (a.data, b.data, a.len) != 0)
    die (what, NULL);
}

#endif
