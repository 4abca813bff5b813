/* tests/fuzz/fuzz_profile_afdo.c - libFuzzer target for the AutoFDO reader.
 *
 * Every input is made to start with the gcda magic, so the fuzzer spends
 * its time in the AFDO reader.  Any input may be rejected, but never
 * crash, and a rejection names a byte offset.  An input that reads must
 * survive sfdo's own encodings (text -> text identical) and export to
 * every AFDO version and read back to the same text.  */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../profiles/profile.h"
#include "profile_oracle.h"

#define MAGIC "adcg"

/* P exported as AFDO VERSION, read back, must give text T.  */
static void
check_afdo_round_trip (struct sfdo_profile *p, unsigned version, struct buf t)
{
  char path[] = "/tmp/fuzz_afdo.XXXXXX";
  int fd = mkstemp (path);
  struct sfdo_export_report lost;
  struct sfdo_error err;
  enum sfdo_errc rc;
  if (fd < 0)
    abort ();
  sfdo_error_clear (&err);
  if (sfdo_profile_export (p, path, (enum sfdo_export_format) version, &lost,
                           &err) != SFDO_OK)
    die ("exporting AFDO", &err);
  struct sfdo_profile *q = NULL;
  if (sfdo_profile_read (path, &q, &err) != SFDO_OK)
    die ("re-reading the AFDO export", &err);
  struct buf t2 = encode (q, SFDO_PROF_TEXT, &rc);
  /* The reader names its tool; compare what follows the header.  Before
     version 3 the files of static functions are lost, as reported.  */
  const char *a = strstr (t.data, "\n# samples:"), *b = strstr (t2.data,
                                                                 "\n# samples:");
  if ((version >= 3 || !lost.files) && (!a || !b || strcmp (a, b) != 0))
    die ("AFDO export does not read back alike", NULL);
  sfdo_profile_free (q);
  free (t2.data);
  unlink (path);
  close (fd);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  size_t len = size < 12 ? 12 : size;
  uint8_t *buf = calloc (1, len);
  struct sfdo_profile *p = NULL;
  struct sfdo_error err;
  if (size)
    memcpy (buf, data, size);
  memcpy (buf, MAGIC, 4);
  sfdo_error_clear (&err);
  if (sfdo_profile_read_mem (buf, len, "fuzz", &p, &err) == SFDO_OK)
    {
      enum sfdo_errc rc;
      struct buf t = encode (p, SFDO_PROF_TEXT, &rc);
      if (rc != SFDO_OK)
        die ("writing text", NULL);
      struct sfdo_profile *q = must_decode (t, "re-reading text");
      struct buf t2 = encode (q, SFDO_PROF_TEXT, &rc);
      must_equal (t, t2, "AFDO -> text -> text differs");
      /* Offsets and discriminators come from 16-bit fields, and files and
         values do not exist in AFDO: each version holds all of it.  */
      for (unsigned v = 1; v <= 3; v++)
        check_afdo_round_trip (p, v, t);
      sfdo_profile_free (q);
      free (t.data);
      free (t2.data);
    }
  else if (p || err.code == SFDO_OK || err.offset == SFDO_NO_OFFSET)
    die ("an AFDO error without an offset", &err);
  sfdo_profile_free (p);
  free (buf);
  return 0;
}
