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
#include "profile_oracle.h"

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
  /* Binary and AutoFDO inputs are fuzz_profile_binary's and
     fuzz_profile_afdo's job: the reader takes 12 bytes starting with the
     gcda magic as AFDO, whose errors give an offset, not a line.  */
  if (size >= 8 && memcmp (data, "\x89SFDO\r\n\x1a", 8) == 0)
    return 0;
  if (size >= 12 && memcmp (data, "adcg", 4) == 0)
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
