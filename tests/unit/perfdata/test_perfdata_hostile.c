/* tests/unit/perfdata/test_perfdata_hostile.c - the perf.data reader on
 * damaged and hostile files.
 *
 *   SFDO_PERFDATA_SKIP_BAD: a torn record header, an undecodable sample,
 *   a torn tail, bad compressed data are skipped, counted, and the first
 *   one's offset kept; without it each is an error at that offset;
 *   a file perf record never finished (data size 0, records after the
 *   header) and a truncated copy say so, and with SKIP_BAD are read to
 *   their end; a finished file without records is not mistaken for one;
 *   an empty file and a cut-short header say what they are;
 *   lengths read from the file (sections, ids, counts) far beyond its size
 *   are errors, never allocations (ASan would abort on the allocation).  */
#include <unistd.h>

#include "perfdata_build.h"

/* Open LEN bytes at P with FLAGS and walk them into G.  */
static enum sfdo_errc
walk_flags (const void *p, size_t len, unsigned flags, struct got *g,
            struct sfdo_error *err, struct sfdo_perfdata_stats *stats)
{
  struct sfdo_perfdata *pd;
  sfdo_error_clear (err);
  enum sfdo_errc rc = sfdo_perfdata_open_mem_flags (p, len, "t.data", flags,
                                                    &pd, err);
  if (rc == SFDO_OK)
    rc = sfdo_perfdata_foreach_record (pd, collect, g, err);
  if (stats && pd)
    *stats = *sfdo_perfdata_stats (pd);
  sfdo_perfdata_close (pd);
  return rc;
}

/* A file of N samples of IP|TID (ip = 8 * i); *DATA_AT is where its
   data section starts.  */
static struct bb
samples_file (size_t n, size_t *data_at)
{
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  t.data = many_samples (n);
  struct bb f = build_file (&t);
  *data_at = f.len - t.data.len;
  free_tfile (&t);
  return f;
}

enum { SAMPLE_BYTES = 24 };     /* header, ip, pid/tid */

/* Walk F without and with SKIP_BAD: the first fails with CODE at OFF;
   the second delivers SAMPLES samples and counts BAD bad records, the
   first at OFF.  */
static void
expect_skip (const struct bb *f, enum sfdo_errc code, uint64_t off,
             size_t samples, uint64_t bad)
{
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata_stats st;
  assert_int_equal (walk_flags (f->p, f->len, 0, &g, &err, NULL), code);
  assert_int_equal (err.offset, off);
  memset (&g, 0, sizeof g);
  assert_int_equal (walk_flags (f->p, f->len, SFDO_PERFDATA_SKIP_BAD, &g,
                                &err, &st), SFDO_OK);
  assert_int_equal (g.nsamples, samples);
  assert_int_equal (st.bad_records, bad);
  assert_int_equal (st.first_bad.code, code);
  assert_int_equal (st.first_bad.offset, off);
  assert_true (st.first_bad.msg[0] != 0);
}

static void
test_skip_torn_record_header (void **state)
{
  (void) state;
  size_t at;
  struct bb f = samples_file (10, &at);
  size_t torn = at + 4 * SAMPLE_BYTES;
  f.p[torn + 6] = 3, f.p[torn + 7] = 0;         /* size 3 */
  expect_skip (&f, SFDO_E_MALFORMED, torn, 9, 1);
  f.p[torn + 6] = 0;                             /* size 0 */
  memset (f.p + torn, 0, SAMPLE_BYTES + 8);     /* and zeros after it */
  expect_skip (&f, SFDO_E_MALFORMED, torn, 8, 1);
  free (f.p);
}

static void
test_skip_undecodable_sample (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (CALLCHAIN) };
  struct bb s = { 0 };
  for (int i = 0; i < 5; i++)
    {
      s.len = 0;
      p64 (&s, 8 * (uint64_t) i), p64 (&s, i == 2 ? 1ull << 60 : 1);
      p64 (&s, 2);
      rec (&t.data, SFDO_PERFDATA_SAMPLE, 2, &s);
    }
  struct bb f = build_file (&t);
  size_t bad = f.len - t.data.len + 2 * 32;
  expect_skip (&f, SFDO_E_MALFORMED, bad, 4, 1);
  free (s.p);
  free (f.p);
  free_tfile (&t);
}

static void
test_skip_torn_tail_and_truncated_copy (void **state)
{
  (void) state;
  size_t at;
  struct bb f = samples_file (10, &at);
  struct got g = { 0 };
  struct sfdo_error err;
  f.len -= 5;                   /* a copy cut short: the last record torn */
  assert_int_equal (walk_flags (f.p, f.len, 0, &g, &err, NULL),
                    SFDO_E_TRUNCATED);
  assert_int_equal (err.offset, 40);
  assert_non_null (strstr (err.msg, "cut short"));
  assert_non_null (strstr (err.msg, "--skip-bad-records"));
  struct sfdo_perfdata_stats st;
  memset (&g, 0, sizeof g);
  assert_int_equal (walk_flags (f.p, f.len, SFDO_PERFDATA_SKIP_BAD, &g, &err,
                                &st), SFDO_OK);
  assert_int_equal (g.nsamples, 9);
  assert_int_equal (st.bad_records, 2);   /* the header, the torn record */
  free (f.p);
}

static void
test_unfinished_recording (void **state)
{
  (void) state;
  size_t at;
  struct bb f = samples_file (10, &at);
  set64 (&f, 48, 0);            /* perf record killed: data size 0 */
  struct got g = { 0 };
  struct sfdo_error err;
  assert_int_equal (walk_flags (f.p, f.len, 0, &g, &err, NULL),
                    SFDO_E_TRUNCATED);
  assert_int_equal (err.offset, 48);
  assert_non_null (strstr (err.msg, "perf record was stopped"));
  struct sfdo_perfdata_stats st;
  assert_int_equal (walk_flags (f.p, f.len, SFDO_PERFDATA_SKIP_BAD, &g, &err,
                                &st), SFDO_OK);
  assert_int_equal (g.nsamples, 10);
  assert_int_equal (st.bad_records, 1);
  free (f.p);

  /* A finished file without records has its feature table there.  */
  struct tfile t = { .nattrs = 1, .nfeats = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  t.feats[0].bit = 7;
  p32 (&t.feats[0].body, 2), p32 (&t.feats[0].body, 2);
  f = build_file (&t);
  memset (&g, 0, sizeof g);
  assert_int_equal (walk_flags (f.p, f.len, 0, &g, &err, NULL), SFDO_OK);
  assert_int_equal (g.n, 0);
  free (f.p);
  free_tfile (&t);
}

static void
test_skip_bad_compressed_data (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  struct bb part = many_samples (10);
  compress_into (&t.data, &part, 4096, 0);
  size_t bad = t.data.len;
  compress_into (&t.data, &part, 4096, 0);
  compress_into (&t.data, &part, 4096, 0);
  memset (t.data.p + bad + 8 + 4, 0xa5, 16);   /* inside the 2nd frame */
  struct bb f = build_file (&t);
  size_t at = f.len - t.data.len;
  expect_skip (&f, SFDO_E_MALFORMED, at + bad, 20, 1);
  free (part.p);
  free (f.p);
  free_tfile (&t);
}

static void
test_empty_and_short_files (void **state)
{
  (void) state;
  struct got g = { 0 };
  struct sfdo_error err;
  assert_int_equal (walk_flags ("", 0, 0, &g, &err, NULL), SFDO_E_TRUNCATED);
  assert_non_null (strstr (err.msg, "empty"));
  assert_int_equal (walk_flags ("PERFILE2\x68\0\0\0\0\0\0\0\0\0", 18, 0, &g,
                                &err, NULL), SFDO_E_TRUNCATED);
  assert_non_null (strstr (err.msg, "cut short"));
  assert_int_equal (walk_flags ("PERFI", 5, 0, &g, &err, NULL),
                    SFDO_E_TRUNCATED);
}

/* Lengths far beyond the file: errors, not allocations.  */
static void
test_huge_lengths_are_bounded_by_the_file (void **state)
{
  (void) state;
  size_t at;
  struct bb f = samples_file (3, &at);
  struct got g = { 0 };
  struct sfdo_error err;
  const uint64_t huge = 1ull << 40;
  struct { size_t field; const char *what; } cases[] = {
    { 32, "attrs section size" },
    { 104 + 136 + 8, "attr ids size" },
    { 48, "data size" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    {
      struct bb copy = { 0 };
      put (&copy, f.p, f.len);
      set64 (&copy, cases[i].field, huge);
      enum sfdo_errc rc = walk_flags (copy.p, copy.len, 0, &g, &err, NULL);
      if (rc == SFDO_OK)
        fail_msg ("a huge %s was read", cases[i].what);
      rc = walk_flags (copy.p, copy.len, SFDO_PERFDATA_SKIP_BAD, &g, &err,
                       NULL);
      free (copy.p);
    }
  free (f.p);

  /* A feature section, EVENT_DESC's count, COMPRESSED2's data size.  */
  struct tfile t = { .nattrs = 1, .nfeats = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  t.feats[0].bit = 12;
  p32 (&t.feats[0].body, 0xffffffffu), p32 (&t.feats[0].body, 136);
  struct bb z = { 0 };
  p64 (&z, huge), p64 (&z, 0);
  rec (&t.data, 83, 0, &z);
  f = build_file (&t);
  assert_int_not_equal (walk_flags (f.p, f.len, 0, &g, &err, NULL), SFDO_OK);
  set64 (&f, f.len - 8 - 8, huge);   /* the feature's size */
  assert_int_not_equal (walk_flags (f.p, f.len, 0, &g, &err, NULL), SFDO_OK);
  free (z.p);
  free (f.p);
  free_tfile (&t);
}

static void
test_skip_in_pipe_mode (void **state)
{
  (void) state;
  struct bb f = { 0 };
  struct bb a = { 0 };
  p64 (&f, 0x32454c4946524550ull), p64 (&f, 16);
  put_attr (&a, &(struct tattr) { .sample_type = S (IP) | S (TID) }, 136);
  rec (&f, 64, 0, &a);
  struct bb d = many_samples (6);
  put (&f, d.p, d.len);
  f.len -= 3;                   /* the writer died mid-record */
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata_stats st;
  assert_int_equal (walk_flags (f.p, f.len, 0, &g, &err, NULL),
                    SFDO_E_TRUNCATED);
  memset (&g, 0, sizeof g);
  assert_int_equal (walk_flags (f.p, f.len, SFDO_PERFDATA_SKIP_BAD, &g, &err,
                                &st), SFDO_OK);
  assert_int_equal (g.nsamples, 5);
  assert_int_equal (st.bad_records, 1);
  free (a.p);
  free (d.p);
  free (f.p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_skip_torn_record_header),
    cmocka_unit_test (test_skip_undecodable_sample),
    cmocka_unit_test (test_skip_torn_tail_and_truncated_copy),
    cmocka_unit_test (test_unfinished_recording),
    cmocka_unit_test (test_skip_bad_compressed_data),
    cmocka_unit_test (test_empty_and_short_files),
    cmocka_unit_test (test_huge_lengths_are_bounded_by_the_file),
    cmocka_unit_test (test_skip_in_pipe_mode),
  };
  return cmocka_run_group_tests_name ("perfdata hostile", tests, NULL, NULL);
}
