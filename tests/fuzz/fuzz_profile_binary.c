/* tests/fuzz/fuzz_profile_binary.c - libFuzzer target for the binary reader.
 *
 * Every input is made to start with the binary magic, so the fuzzer spends
 * its time in the binary decoder.  Any input may be rejected, but never
 * crash, and a rejection names a byte offset.  An input that reads is a
 * round-trip oracle: its binary output re-reads to the same binary; its
 * text output (unless the writer refuses it) re-reads to the same text, as
 * does the text of the binary copy.  The same bytes are also opened lazily
 * from a file, looked up by name before everything is decoded, and must
 * then decode to the same profile.  */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../profiles/profile.h"
#include "profile_oracle.h"

#define MAGIC "\x89SFDO\r\n\x1a"

/* Binary of P re-reads to the same binary; text, if written, likewise.  */
static struct buf
check_round_trip (struct sfdo_profile *p)
{
  enum sfdo_errc rc;
  struct buf b1 = encode (p, SFDO_PROF_BINARY, &rc);
  if (rc != SFDO_OK)
    die ("writing binary", NULL);
  struct sfdo_profile *r = must_decode (b1, "re-reading binary");
  struct buf b2 = encode (r, SFDO_PROF_BINARY, &rc);
  must_equal (b1, b2, "binary -> binary differs");
  struct buf t1 = encode (p, SFDO_PROF_TEXT, &rc);
  if (rc == SFDO_OK)
    {
      struct sfdo_profile *q = must_decode (t1, "re-reading text");
      struct buf t2 = encode (q, SFDO_PROF_TEXT, &rc);
      must_equal (t1, t2, "binary -> text -> text differs");
      struct buf t3 = encode (r, SFDO_PROF_TEXT, &rc);
      must_equal (t1, t3, "binary -> binary -> text differs");
      sfdo_profile_free (q);
      free (t2.data);
      free (t3.data);
    }
  sfdo_profile_free (r);
  free (t1.data);
  free (b2.data);
  return b1;
}

/* Open the LEN bytes at BUF lazily through a memory file: find every
   function of FULL (NULL if the full read failed) before decoding the
   rest; then the whole profile must encode as BIN.  */
static void
check_lazy (const uint8_t *buf, size_t len, struct sfdo_profile *full,
            struct buf bin)
{
  char path[64];
  int fd = memfd_create ("fuzz_profile", 0);
  if (fd < 0 || write (fd, buf, len) != (ssize_t) len)
    abort ();
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  struct sfdo_profile *p = NULL;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  if (sfdo_profile_open (path, &p, &err) != SFDO_OK)
    {
      if (full)
        die ("lazy open of a readable profile", &err);
      close (fd);
      return;
    }
  size_t n = full ? sfdo_profile_nfuncs (full) : 0;
  for (size_t i = 0; i < n; i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (full, i, NULL);
      sfdo_profile_find (p, sfdo_profile_str (full, f->name),
                         sfdo_profile_str (full, f->file), NULL);
    }
  sfdo_profile_find (p, "main", NULL, NULL);
  enum sfdo_errc rc = sfdo_profile_load_all (p, &err);
  if (full && rc != SFDO_OK)
    die ("lazy load of a readable profile", &err);
  if (full)
    {
      struct buf b = encode (p, SFDO_PROF_BINARY, &rc);
      must_equal (bin, b, "lazy binary differs");
      free (b.data);
    }
  sfdo_profile_free (p);
  close (fd);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  size_t len = size < 8 ? 8 : size;
  uint8_t *buf = malloc (len);
  struct sfdo_profile *p = NULL;
  struct sfdo_error err;
  struct buf bin = { NULL, 0 };
  if (size)
    memcpy (buf, data, size);
  memcpy (buf, MAGIC, 8);
  sfdo_error_clear (&err);
  if (sfdo_profile_read_mem (buf, len, "fuzz", &p, &err) == SFDO_OK)
    bin = check_round_trip (p);
  else if (p || err.code == SFDO_OK || err.offset == SFDO_NO_OFFSET)
    die ("a binary error without an offset", &err);
  check_lazy (buf, len, p, bin);
  sfdo_profile_free (p);
  free (bin.data);
  free (buf);
  return 0;
}
