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

/* Version 3 says which kinds of value histograms and positions it left
   out, a callsite's inline instance with its position.  */
static void
test_afdo_v3_reports_kinds (void **state)
{
  (void) state;
  struct sfdo_profile *p = sample_profile ();
  struct sfdo_prof_func *f = sfdo_profile_find (p, "main", NULL, NULL);
  sfdo_prof_func_add_value (f, 2, 1, SFDO_VALUE_DIVMOD, 8, 5);
  sfdo_prof_func_add_value (f, 5, 0, SFDO_VALUE_DIVMOD, 3, 2);
  sfdo_prof_func_add_value (f->callsites[0].callee, 1, 0,
                            SFDO_VALUE_MEMSIZE, 64, 9);
  sfdo_prof_func_add_line (f, 70000, 0, 1);
  sfdo_prof_func_add_line (f, 70001, 70000, 1);
  sfdo_prof_func_add_line (f, 6, 65536, 1);
  struct sfdo_prof_func *c = sfdo_prof_func_add_callsite (f, 7, 0x10000,
                                                          S (p, "far"), 0);
  sfdo_prof_func_add_line (c, 1, 0, 4);
  sfdo_prof_func_add_value (c, 1, 0, SFDO_VALUE_MEMSIZE, 8, 4);
  struct sfdo_export_report lost;
  char *path = export_to_file (p, SFDO_EXPORT_AFDO3, &lost);
  assert_int_equal (lost.value_histograms, 3);   /* not far's: it went */
  assert_int_equal (lost.value_kinds[SFDO_VALUE_DIVMOD], 2);
  assert_int_equal (lost.value_kinds[SFDO_VALUE_MEMSIZE], 1);
  assert_int_equal (lost.positions, 4);
  assert_int_equal (lost.position_offsets, 2);
  assert_int_equal (lost.position_discriminators, 2);
  assert_int_equal (lost.position_inlines, 1);
  assert_int_equal (lost.files, 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&buf, &len);
  sfdo_export_report_print_kinds (out, "t", &lost);
  fclose (out);
  assert_string_equal (buf, "t: value histograms left out, by kind: "
                       "2 divmod, 1 memsize\n"
                       "t: positions left out: 2 with a line offset over "
                       "65535, 2 with only a discriminator over 65535; 1 of "
                       "them inlined calls, left out with their inline "
                       "instances\n");
  free (buf);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
}

/* Version 3's summary, read from the bytes GCC 16 reads it from.  */
struct summary {
  uint64_t total, max, max_head, ncounts, nfuncs, nentries;
  uint32_t cutoff[16];
  uint64_t min[16], num[16];
};

static uint64_t
le (const uint8_t *b, int n)
{
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | b[i];
  return v;
}

static void
read_summary (const char *path, struct summary *s)
{
  uint8_t buf[16 + 6 * 8 + 16 * 20];
  FILE *f = fopen (path, "rb");
  assert_non_null (f);
  assert_int_equal (fread (buf, 1, sizeof buf, f), sizeof buf);
  fclose (f);
  assert_int_equal (le (buf + 4, 4), 3);
  assert_int_equal (le (buf + 12, 4), 0xa8000000u);
  uint64_t *head = &s->total;
  for (int i = 0; i < 6; i++)
    head[i] = le (buf + 16 + 8 * i, 8);
  assert_int_equal (s->nentries, 16);
  for (int i = 0; i < 16; i++)
    {
      const uint8_t *e = buf + 64 + 20 * i;
      s->cutoff[i] = (uint32_t) le (e, 4);
      s->min[i] = le (e + 4, 8);
      s->num[i] = le (e + 12, 8);
    }
}

/* Known counts give known cutoffs: the hottest counts that make up each
   share of the total, inline instances' counts among them; equal counts
   enter together; a position version 3 cannot hold is not counted.  */
static void
test_afdo_v3_summary_cutoffs (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "main"), 0);
  f->head = 7;
  sfdo_prof_func_add_line (f, 1, 0, 600);
  sfdo_prof_func_add_line (f, 2, 0, 100);
  sfdo_prof_func_add_line (f, 3, 0, 50);
  sfdo_prof_func_add_line (f, 4, 0, 0);
  sfdo_prof_func_add_line (f, 70000, 0, 5000);   /* left out */
  struct sfdo_prof_func *c = sfdo_prof_func_add_callsite (f, 5, 0,
                                                          S (p, "inl"), 0);
  c->head = 99;                                  /* not a function's */
  sfdo_prof_func_add_line (c, 1, 0, 200);
  struct sfdo_prof_func *g = sfdo_profile_add_func (p, S (p, "g"),
                                                    S (p, "g.c"));
  g->head = 12;
  sfdo_prof_func_add_line (g, 1, 0, 50);
  sfdo_prof_func_sum_totals (f);
  sfdo_prof_func_sum_totals (g);
  struct sfdo_export_report lost;
  char *path = export_to_file (p, SFDO_EXPORT_AFDO3, &lost);
  struct summary s;
  read_summary (path, &s);
  assert_int_equal (s.total, 1000);
  assert_int_equal (s.max, 600);
  assert_int_equal (s.max_head, 12);
  assert_int_equal (s.ncounts, 6);
  assert_int_equal (s.nfuncs, 2);
  static const uint32_t cutoffs[16] = {
    10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000,
    900000, 950000, 990000, 999000, 999900, 999990, 999999
  };
  /* 600 makes 60%, 200 more 80%, 100 more 90%, the two 50s 100%.  */
  static const uint64_t mins[16] = {
    600, 600, 600, 600, 600, 600, 600, 200, 200, 100, 50, 50, 50, 50, 50, 50
  };
  static const uint64_t nums[16] = { 1, 1, 1, 1, 1, 1, 1, 2, 2, 3,
                                     5, 5, 5, 5, 5, 5 };
  for (int i = 0; i < 16; i++)
    {
      assert_int_equal (s.cutoff[i], cutoffs[i]);
      assert_int_equal (s.min[i], mins[i]);
      assert_int_equal (s.num[i], nums[i]);
    }
  unlink (path);
  free (path);
  sfdo_profile_free (p);
}

/* Counts whose total saturates still give every cutoff a count.  */
static void
test_afdo_v3_summary_huge_counts (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "main"), 0);
  sfdo_prof_func_add_line (f, 1, 0, 3ull << 62);
  sfdo_prof_func_add_line (f, 2, 0, 1ull << 62);
  sfdo_prof_func_add_line (f, 3, 0, 1);
  sfdo_prof_func_sum_totals (f);
  struct sfdo_export_report lost;
  char *path = export_to_file (p, SFDO_EXPORT_AFDO3, &lost);
  struct summary s;
  read_summary (path, &s);
  assert_true (s.total == UINT64_MAX);
  assert_true (s.min[0] == 3ull << 62 && s.num[0] == 1);
  assert_true (s.min[11] == 1ull << 62 && s.num[11] == 2);   /* 99% */
  assert_true (s.min[15] == 1ull << 62 && s.num[15] == 2);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
}

/* A profile without counts has a summary of zeros, and reads back.  */
static void
test_afdo_v3_summary_empty (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new (), *q = NULL;
  struct sfdo_export_report lost;
  struct sfdo_error err;
  char *path = export_to_file (p, SFDO_EXPORT_AFDO3, &lost);
  struct summary s;
  read_summary (path, &s);
  assert_true (s.total == 0 && s.max == 0 && s.ncounts == 0);
  for (int i = 0; i < 16; i++)
    assert_true (s.min[i] == 0 && s.num[i] == 0);
  assert_int_equal (sfdo_profile_read (path, &q, &err), SFDO_OK);
  unlink (path);
  free (path);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
}

/* Bytes of FILE, in *LEN.  */
static uint8_t *
file_bytes (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  assert_non_null (f);
  uint8_t *buf = malloc (1 << 16);
  *len = fread (buf, 1, 1 << 16, f);
  fclose (f);
  return buf;
}

/* Debian's create_gcov stamps its files 0x3430372a with version 1's
   layout, which GCC 16 refuses; read and exported as version 3, they
   keep every count.  */
static void
test_afdo_create_gcov_to_v3 (void **state)
{
  (void) state;
  struct sfdo_profile *p = sample_profile ();
  struct sfdo_export_report lost;
  char *path = export_to_file (p, SFDO_EXPORT_AFDO1, &lost);
  size_t len;
  uint8_t *buf = file_bytes (path, &len);
  memcpy (buf + 4, "*704", 4);                  /* create_gcov's stamp */
  struct sfdo_profile *q = NULL, *r = NULL;
  struct sfdo_error err;
  assert_int_equal (sfdo_profile_read_mem (buf, len, "cg.afdo", &q, &err),
                    SFDO_OK);
  char *v3 = export_to_file (q, SFDO_EXPORT_AFDO3, &lost);
  assert_int_equal (lost.positions + lost.value_histograms, 0);
  assert_int_equal (sfdo_profile_read (v3, &r, &err), SFDO_OK);
  char *a = text_of (q), *b = text_of (r);
  assert_string_equal (a, b);
  struct summary s;
  read_summary (v3, &s);
  assert_int_equal (s.total, 226);
  assert_int_equal (s.max, 100);
  free (a);
  free (b);
  free (buf);
  unlink (path);
  unlink (v3);
  free (path);
  free (v3);
  sfdo_profile_free (p);
  sfdo_profile_free (q);
  sfdo_profile_free (r);
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
    cmocka_unit_test (test_afdo_v3_reports_kinds),
    cmocka_unit_test (test_afdo_v3_summary_cutoffs),
    cmocka_unit_test (test_afdo_v3_summary_huge_counts),
    cmocka_unit_test (test_afdo_v3_summary_empty),
    cmocka_unit_test (test_afdo_create_gcov_to_v3),
    cmocka_unit_test (test_afdo_every_truncation_fails_with_an_offset),
    cmocka_unit_test (test_afdo_bad_version_and_tags),
    cmocka_unit_test (test_afdo_name_index_out_of_range),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
