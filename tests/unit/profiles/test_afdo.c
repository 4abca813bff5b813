/* tests/unit/profiles/test_afdo.c - GCC's AutoFDO format: round trips in
 * every version, and malformed inputs that must fail with an offset.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../profiles/profile.h"

static uint32_t
S (struct sfdo_profile *p, const char *s)
{
  return sfdo_profile_intern_str (p, s);
}

/* A profile with a static function, an inlinee two deep, call targets.  */
static struct sfdo_profile *
sample_profile (void)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "main"), 0);
  f->head = 3;
  struct sfdo_prof_line *l = sfdo_prof_func_add_line (f, 2, 1, 100);
  sfdo_prof_line_add_target (l, S (p, "helper"), 60);
  sfdo_prof_line_add_target (l, S (p, "other"), 40);
  sfdo_prof_func_add_line (f, 5, 0, 7);
  struct sfdo_prof_func *c = sfdo_prof_func_add_callsite (f, 4, 0,
                                                          S (p, "inl"), 0);
  sfdo_prof_func_add_line (c, 1, 0, 50);
  struct sfdo_prof_func *d = sfdo_prof_func_add_callsite (c, 2, 3,
                                                          S (p, "deep"), 0);
  sfdo_prof_func_add_line (d, 0, 0, 9);
  struct sfdo_prof_func *s = sfdo_profile_add_func (p, S (p, "helper"),
                                                    S (p, "a.c"));
  s->head = 60;
  sfdo_prof_func_add_line (s, 1, 0, 60);
  sfdo_prof_func_sum_totals (f);
  sfdo_prof_func_sum_totals (s);
  return p;
}

/* P exported in FORMAT into a temporary file, whose path is returned.  */
static char *
export_to_file (struct sfdo_profile *p, enum sfdo_export_format format,
                struct sfdo_export_report *lost)
{
  char *path = strdup ("/tmp/test_afdo.XXXXXX");
  int fd = mkstemp (path);
  struct sfdo_error err;
  assert_true (fd >= 0);
  close (fd);
  assert_int_equal (sfdo_profile_export (p, path, format, lost, &err), SFDO_OK);
  return path;
}

static char *
text_of (struct sfdo_profile *p)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  struct sfdo_error err;
  assert_int_equal (sfdo_profile_write (p, f, SFDO_PROF_TEXT, "t", &err),
                    SFDO_OK);
  fclose (f);
  /* Everything after the header: AFDO keeps no header.  */
  char *body = strdup (strstr (buf, "\nmain:"));
  free (buf);
  return body;
}

static void
round_trip (enum sfdo_export_format format, int keeps_files)
{
  struct sfdo_profile *p = sample_profile ();
  struct sfdo_export_report lost;
  char *path = export_to_file (p, format, &lost);
  struct sfdo_profile *q = NULL;
  struct sfdo_error err;
  assert_int_equal (sfdo_profile_read (path, &q, &err), SFDO_OK);
  assert_int_equal (lost.files, keeps_files ? 0 : 1);
  if (keeps_files)
    {
      char *a = text_of (p), *b = text_of (q);
      assert_string_equal (a, b);
      free (a);
      free (b);
    }
  struct sfdo_prof_func *m = sfdo_profile_find (q, "main", NULL, &err);
  assert_non_null (m);
  assert_int_equal (m->head, 3);
  assert_int_equal (m->total, 166);    /* recomputed as the sum */
  assert_int_equal (sfdo_prof_func_find_line (m, 2, 1)->targets[0].count, 60);
  assert_int_equal (m->ncallsites, 1);
  assert_int_equal (m->callsites[0].callee->callsites[0].discriminator, 3);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

static void
test_afdo_v1_round_trip (void **state)
{
  (void) state;
  round_trip (SFDO_EXPORT_AFDO1, 0);
}

static void
test_afdo_v2_round_trip (void **state)
{
  (void) state;
  round_trip (SFDO_EXPORT_AFDO2, 0);
}

static void
test_afdo_v3_round_trip_keeps_files (void **state)
{
  (void) state;
  round_trip (SFDO_EXPORT_AFDO3, 1);
}

/* What AFDO cannot hold is counted, not dropped silently.  */
static void
test_afdo_reports_losses (void **state)
{
  (void) state;
  struct sfdo_profile *p = sample_profile ();
  struct sfdo_prof_func *f = sfdo_profile_find (p, "main", NULL, NULL);
  sfdo_prof_func_add_value (f, 2, 1, SFDO_VALUE_DIVMOD, 8, 5);
  f->has_checksum = 1;
  f->callsites[0].callee->head = 4;
  sfdo_prof_func_add_line (f, 70000, 0, 1);
  struct sfdo_export_report lost;
  char *path = export_to_file (p, SFDO_EXPORT_AFDO2, &lost);
  assert_int_equal (lost.value_histograms, 1);
  assert_int_equal (lost.checksums, 1);
  assert_int_equal (lost.inline_heads, 1);
  assert_int_equal (lost.positions, 1);
  assert_int_equal (lost.files, 1);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
}

/* The bytes of P exported in FORMAT, in *LEN.  */
static uint8_t *
exported_bytes (enum sfdo_export_format format, size_t *len)
{
  struct sfdo_profile *p = sample_profile ();
  struct sfdo_export_report lost;
  char *path = export_to_file (p, format, &lost);
  FILE *f = fopen (path, "rb");
  uint8_t *buf = malloc (1 << 16);
  *len = fread (buf, 1, 1 << 16, f);
  fclose (f);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
  return buf;
}

static void
expect_failure (const uint8_t *buf, size_t len, enum sfdo_errc code)
{
  struct sfdo_profile *p = NULL;
  struct sfdo_error err;
  enum sfdo_errc rc = sfdo_profile_read_mem (buf, len, "bad.afdo", &p, &err);
  assert_int_not_equal (rc, SFDO_OK);
  if (code != SFDO_OK)
    assert_int_equal (err.code, code);
  assert_int_not_equal (err.offset, SFDO_NO_OFFSET);
  assert_null (p);
}

static void
test_afdo_every_truncation_fails_with_an_offset (void **state)
{
  (void) state;
  size_t len;
  uint8_t *buf = exported_bytes (SFDO_EXPORT_AFDO3, &len);
  /* The module and working-set sections at the end are not needed.  */
  size_t needed = len - (3 * 4 + 2 * 4 + 128 * 12);
  for (size_t n = 12; n < needed; n++)
    expect_failure (buf, n, SFDO_OK);
  free (buf);
}

static void
test_afdo_bad_version_and_tags (void **state)
{
  (void) state;
  size_t len;
  uint8_t *buf = exported_bytes (SFDO_EXPORT_AFDO2, &len);
  buf[4] = 9;                           /* version 9 */
  expect_failure (buf, len, SFDO_E_VERSION);
  buf[4] = 2;
  buf[15] = 0xab;                       /* not the name-table tag */
  expect_failure (buf, len, SFDO_E_MALFORMED);
  free (buf);
}

static void
test_afdo_name_index_out_of_range (void **state)
{
  (void) state;
  size_t len;
  uint8_t *buf = exported_bytes (SFDO_EXPORT_AFDO2, &len);
  /* The function section: tag 0xac000000, a length, a count, then the
     first function's head (8 bytes) and its name index.  */
  size_t at = 0;
  for (size_t i = 12; i + 4 <= len; i += 1)
    if (buf[i] == 0 && buf[i + 1] == 0 && buf[i + 2] == 0 && buf[i + 3] == 0xac)
      {
        at = i;
        break;
      }
  assert_true (at > 0);
  size_t index = at + 12 + 8;
  memset (buf + index, 0xff, 4);
  expect_failure (buf, len, SFDO_E_MALFORMED);
  memset (buf + index, 0, 4);          /* index 0: the empty string */
  expect_failure (buf, len, SFDO_E_MALFORMED);
  free (buf);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_afdo_v1_round_trip),
    cmocka_unit_test (test_afdo_v2_round_trip),
    cmocka_unit_test (test_afdo_v3_round_trip_keeps_files),
    cmocka_unit_test (test_afdo_reports_losses),
    cmocka_unit_test (test_afdo_every_truncation_fails_with_an_offset),
    cmocka_unit_test (test_afdo_bad_version_and_tags),
    cmocka_unit_test (test_afdo_name_index_out_of_range),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
