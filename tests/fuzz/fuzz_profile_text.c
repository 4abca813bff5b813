/* tests/fuzz/fuzz_profile_text.c - libFuzzer target for the text reader.
 *
 * Any input may be rejected, but never crash.  An input that reads is a
 * round-trip oracle: its text output must re-read to the same text, and
 * its binary output must re-read to the same text and binary again.  */
#include <stdint.h>
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

/* Text of P, then of P's text and binary copies, all alike.  */
static void
check_round_trip (struct sfdo_profile *p)
{
  enum sfdo_errc rc;
  struct buf t1 = encode (p, SFDO_PROF_TEXT, &rc);
  if (rc != SFDO_OK)
    die ("writing text", NULL);
  struct sfdo_profile *q = must_decode (t1, "re-reading text");
  struct buf t2 = encode (q, SFDO_PROF_TEXT, &rc);
  must_equal (t1, t2, "text -> text differs");
  struct buf b1 = encode (p, SFDO_PROF_BINARY, &rc);
  if (rc != SFDO_OK)
    die ("writing binary", NULL);
  struct sfdo_profile *r = must_decode (b1, "re-reading binary");
  struct buf t3 = encode (r, SFDO_PROF_TEXT, &rc);
  must_equal (t1, t3, "text -> binary -> text differs");
  struct buf b2 = encode (r, SFDO_PROF_BINARY, &rc);
  must_equal (b1, b2, "binary -> binary differs");
  sfdo_profile_free (q);
  sfdo_profile_free (r);
  free (t1.data);
  free (t2.data);
  free (t3.data);
  free (b1.data);
  free (b2.data);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct sfdo_profile *p = NULL;
  struct sfdo_error err;
  /* Binary inputs are fuzz_profile_binary's job.  */
  if (size >= 8 && memcmp (data, "\x89SFDO\r\n\x1a", 8) == 0)
    return 0;
  sfdo_error_clear (&err);
  if (sfdo_profile_read_mem (data, size, "fuzz", &p, &err) != SFDO_OK)
    {
      if (p || err.code == SFDO_OK || err.line == 0)
        die ("a text error without a line", &err);
      return 0;
    }
  check_round_trip (p);
  sfdo_profile_free (p);
  return 0;
}
