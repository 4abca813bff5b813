/* tests/unit/perfdata/test_perfdata_input.c - the perf.data reader on
 * the harder inputs: compressed records (made with libzstd here, split so
 * records span them), pipe mode (from memory and a real pipe), feature
 * sections and unknown records and features, truncation at every prefix,
 * and bad headers and records with their offsets.  */
#include <unistd.h>

#include "perfdata_build.h"

static void
test_compressed (void **state)
{
  (void) state;
  struct bb stream = many_samples (20000);   /* 480 KB decompressed */
  for (int v2 = 0; v2 < 2; v2++)
    {
      struct tfile t = { .nattrs = 1 };
      t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
      sample_ip_tid (&t.data, 0x77);
      compress_into (&t.data, &stream, v2 ? 1000 : 7, v2);
      sample_ip_tid (&t.data, 0x78);
      struct bb f = build_file (&t);
      struct got g = { 0 };
      struct sfdo_error err;
      struct sfdo_perfdata *pd;
      assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_OK);
      assert_int_equal (g.nsamples, 20002);
      assert_int_equal (g.ips[0], 0x77);
      assert_int_equal (g.ips[1], 0);
      assert_int_equal (g.ips[63], 8 * 62);
      assert_int_equal (g.last[SFDO_PERFDATA_SAMPLE].u.sample.ip, 0x78);
      const struct sfdo_perfdata_stats *st = sfdo_perfdata_stats (pd);
      assert_true (st->compressed_records > 1);
      assert_int_equal (st->decompressed_bytes, stream.len);
      sfdo_perfdata_close (pd);
      free (f.p);
      free_tfile (&t);
    }

  /* Several zstd frames one after the other, as perf writes one per
     flush, with a record cut between two frames.  */
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  struct bb part = { 0 };
  for (size_t at = 0; at < stream.len; at += part.len)
    {
      part.len = 0;
      put (&part, stream.p + at, stream.len - at < 1000 ? stream.len - at
                                                         : 1000);
      compress_into (&t.data, &part, 300, 0);
    }
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_OK);
  assert_int_equal (g.nsamples, 20000);
  assert_int_equal (g.last[SFDO_PERFDATA_SAMPLE].u.sample.ip, 8 * 19999);
  free (part.p);
  free (f.p);
  free_tfile (&t);
  free (stream.p);
}

static void
test_compressed_bad (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  struct bb stream = many_samples (10);
  stream.len -= 5;   /* the last record is cut */
  compress_into (&t.data, &stream, 4096, 0);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_E_TRUNCATED);
  assert_int_equal (err.offset, f.len - t.data.len);
  assert_int_equal (g.nsamples, 9);
  /* Garbage instead of zstd.  */
  memset (f.p + f.len - t.data.len + 8, 0xa5, t.data.len - 8);
  memset (&g, 0, sizeof g);
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_E_MALFORMED);
  assert_int_equal (err.offset, f.len - t.data.len);
  free (stream.p);
  free (f.p);
  free_tfile (&t);
}

static void
build_id_event (struct bb *b, uint16_t misc, int size, const char *name)
{
  uint8_t id[24] = { 0 };
  for (int i = 0; i < 20; i++)
    id[i] = (uint8_t) (0xa0 + i);
  if (size >= 0)
    id[20] = (uint8_t) size;
  p32 (b, 0), p16 (b, misc), p16 (b, 8 + 4 + 24 + 16);
  p32 (b, (uint32_t) -1), put (b, id, 24);
  char fn[16] = { 0 };
  snprintf (fn, sizeof fn, "%s", name);
  put (b, fn, 16);
}

/* A pipe-mode file: attr 42 (named by EVENT_DESC), tracing data to skip,
   FINISHED_INIT, samples, then attr 43 (named by EVENT_UPDATE).  */
static struct bb
pipe_file (void)
{
  struct bb d = { 0 }, b = { 0 };
  struct tattr a = { .sample_type = S (IDENTIFIER) | S (IP) | S (TID),
                     .period = 1000 };
  p64 (&d, 0x32454c4946524550ull), p64 (&d, 16);
  put_attr (&b, &a, 136), p64 (&b, 42);
  rec (&d, 64, 0, &b);
  b.len = 0;
  p64 (&b, 12), p32 (&b, 1), p32 (&b, 136), put_attr (&b, &a, 136);
  p32 (&b, 1), p32 (&b, 8), put (&b, "ev-a\0\0\0\0", 8), p64 (&b, 42);
  rec (&d, 80, 0, &b);
  b.len = 0;
  p32 (&b, 16), p32 (&b, 0);
  rec (&d, 66, 0, &b);
  put (&d, "tracing data....", 16);
  b.len = 0;
  rec (&d, 82, 0, &b);
  id_sample (&d, 42, 0x10);
  build_id_event (&d, 2, -1, "/bin/p");
  uint32_t type = 67;   /* as a HEADER_BUILD_ID record */
  memcpy (d.p + d.len - 52, &type, 4);
  a.size = 120;
  put_attr (&b, &a, 120), p64 (&b, 43);
  rec (&d, 64, 0, &b);
  b.len = 0;
  p64 (&b, 2), p64 (&b, 43), put (&b, "ev-b\0\0\0\0", 8);
  rec (&d, 78, 0, &b);
  id_sample (&d, 43, 0x20);
  free (b.p);
  return d;
}

static void
test_pipe_mode (void **state)
{
  (void) state;
  struct bb d = pipe_file ();
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  assert_int_equal (walk (d.p, d.len, &g, &err, &pd), SFDO_OK);
  assert_true (sfdo_perfdata_is_pipe (pd));
  assert_int_equal (sfdo_perfdata_nattrs (pd), 2);
  assert_string_equal (sfdo_perfdata_attr (pd, 0)->name, "ev-a");
  assert_string_equal (sfdo_perfdata_attr (pd, 1)->name, "ev-b");
  assert_int_equal (sfdo_perfdata_attr (pd, 1)->size, 120);
  assert_int_equal (g.nsamples, 2);
  assert_ptr_equal (g.attr_of[1], sfdo_perfdata_attr (pd, 1));
  assert_true (sfdo_perfdata_has_feature (pd, SFDO_PERFDATA_FEAT_EVENT_DESC));
  sfdo_perfdata_close (pd);

  /* The same through a real pipe.  */
  int fds[2];
  assert_int_equal (pipe (fds), 0);
  assert_int_equal (write (fds[1], d.p, d.len), (ssize_t) d.len);
  close (fds[1]);
  FILE *in = fdopen (fds[0], "rb");
  memset (&g, 0, sizeof g);
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_open_stream (in, "pipe", &pd, &err),
                    SFDO_OK);
  assert_int_equal (sfdo_perfdata_foreach_record (pd, collect, &g, &err),
                    SFDO_OK);
  assert_int_equal (g.nsamples, 2);
  assert_true (sfdo_perfdata_at_end (pd));
  assert_int_equal (sfdo_perfdata_nbuild_ids (pd), 1);
  sfdo_perfdata_close (pd);
  fclose (in);

  /* And from a file descriptor.  */
  assert_int_equal (pipe (fds), 0);
  assert_int_equal (write (fds[1], d.p, d.len), (ssize_t) d.len);
  close (fds[1]);
  memset (&g, 0, sizeof g);
  assert_int_equal (sfdo_perfdata_open_fd (fds[0], "fd", &pd, &err), SFDO_OK);
  close (fds[0]);
  assert_int_equal (sfdo_perfdata_foreach_record (pd, collect, &g, &err),
                    SFDO_OK);
  assert_int_equal (g.nsamples, 2);
  sfdo_perfdata_close (pd);

  /* Every prefix: OK (cut between records) or TRUNCATED, with an
     offset inside the input.  */
  for (size_t n = 0; n < d.len; n++)
    {
      memset (&g, 0, sizeof g);
      enum sfdo_errc rc = walk (d.p, n, &g, &err, NULL);
      if (rc != SFDO_OK)
        {
          assert_int_equal (rc, SFDO_E_TRUNCATED);
          assert_true (err.offset <= n);
        }
    }
  free (d.p);
}

/* A small file: 2 attrs, samples, unknown records, 4 features.  */
static void
small_file (struct tfile *t)
{
  memset (t, 0, sizeof *t);
  t->nattrs = 2;
  t->nids[0] = t->nids[1] = 1;
  t->ids[0][0] = 100, t->ids[1][0] = 200;
  uint64_t st = S (IDENTIFIER) | S (IP) | S (TID) | S (TIME);
  t->attrs[0] = (struct tattr) { .sample_type = st, .flags = FLAG_ID_ALL };
  t->attrs[1] = (struct tattr) { .sample_type = st, .flags = FLAG_ID_ALL };
  id_sample (&t->data, 100, 1);
  struct bb u = { 0 };
  p64 (&u, 1);
  rec (&t->data, 50, 0, &u);          /* unknown */
  rec (&t->data, 200, 0, &u);         /* unknown */
  rec (&t->data, 68, 0, &u);          /* FINISHED_ROUND: known */
  mmap2_with_id (&t->data, 200);
  id_sample (&t->data, 200, 2);
  free (u.p);
  t->nfeats = 4;
  t->feats[0].bit = 2;
  build_id_event (&t->feats[0].body, 2, -1, "/bin/a");
  build_id_event (&t->feats[0].body, 2 | (1u << 15), 8, "/bin/b");
  t->feats[1].bit = 7;
  p32 (&t->feats[1].body, 4), p32 (&t->feats[1].body, 4);
  t->feats[2].bit = 12;
  struct bb *e = &t->feats[2].body;
  p32 (e, 1), p32 (e, 136), put_attr (e, &t->attrs[1], 136);
  p32 (e, 1), p32 (e, 8), put (e, "second\0\0", 8), p64 (e, 200);
  t->feats[3].bit = 200;
  p64 (&t->feats[3].body, 0);
}

static void
test_features_and_unknown_records (void **state)
{
  (void) state;
  struct tfile t;
  small_file (&t);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_OK);
  const struct sfdo_perfdata_stats *st = sfdo_perfdata_stats (pd);
  assert_int_equal (st->unknown_records, 2);
  assert_int_equal (st->records, 6);
  assert_int_equal (st->delivered, 3);
  assert_int_equal (st->by_type[68], 1);
  assert_int_equal (st->features, 4);
  assert_int_equal (st->unknown_features, 2);
  assert_true (sfdo_perfdata_has_feature (pd, 200));
  assert_false (sfdo_perfdata_has_feature (pd, 3));
  assert_null (sfdo_perfdata_attr (pd, 0)->name);
  assert_string_equal (sfdo_perfdata_attr (pd, 1)->name, "second");
  assert_int_equal (sfdo_perfdata_nbuild_ids (pd), 2);
  const struct sfdo_perfdata_build_id *b = sfdo_perfdata_build_id (pd, 0);
  assert_int_equal (b->size, 20);
  assert_int_equal (b->id[19], 0xa0 + 19);
  assert_string_equal (b->filename, "/bin/a");
  b = sfdo_perfdata_build_id (pd, 1);
  assert_int_equal (b->size, 8);
  assert_int_equal (b->id[7], 0xa7);
  assert_int_equal (b->id[8], 0);
  assert_string_equal (b->filename, "/bin/b");
  sfdo_perfdata_close (pd);
  free (f.p);
  free_tfile (&t);
}

static void
test_truncation_every_prefix (void **state)
{
  (void) state;
  struct tfile t;
  small_file (&t);
  struct bb f = build_file (&t);
  for (size_t n = 0; n < f.len; n++)
    {
      struct got g = { 0 };
      struct sfdo_error err;
      enum sfdo_errc rc = walk (f.p, n, &g, &err, NULL);
      if (rc != SFDO_E_TRUNCATED)
        fail_msg ("prefix of %zu bytes: %d (%s)", n, rc, err.msg);
      assert_true (err.offset < f.len);
    }
  free (f.p);
  free_tfile (&t);
}

/* AUXTRACE payloads are skipped in the data section and inside
   decompressed data; a COMPRESSED record inside decompressed data is
   malformed.  */
static void
test_payloads_and_nesting (void **state)
{
  (void) state;
  struct bb aux = { 0 }, b = { 0 };
  p64 (&b, 24), p64 (&b, 0), p64 (&b, 0), p32 (&b, 0), p32 (&b, 0);
  p32 (&b, 0), p32 (&b, 0);
  rec (&aux, 71, 0, &b);
  put (&aux, "payload payload payload.", 24);
  sample_ip_tid (&aux, 0x99);
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  put (&t.data, aux.p, aux.len);
  compress_into (&t.data, &aux, 9, 0);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_OK);
  assert_int_equal (g.nsamples, 2);
  assert_int_equal (g.ips[1], 0x99);
  free (f.p);

  /* A payload longer than the data section.  */
  free (t.data.p);
  t.data = (struct bb) { 0 };
  rec (&t.data, 71, 0, &b);
  f = build_file (&t);
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_E_MALFORMED);
  assert_int_equal (err.offset, f.len - t.data.len);
  free (f.p);

  /* COMPRESSED in COMPRESSED.  */
  struct bb inner = { 0 };
  compress_into (&inner, &aux, 4096, 0);
  free (t.data.p);
  t.data = (struct bb) { 0 };
  compress_into (&t.data, &inner, 4096, 0);
  f = build_file (&t);
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_E_MALFORMED);
  assert_int_equal (err.offset, f.len - t.data.len);
  free (f.p);
  free (inner.p);
  free (aux.p);
  free (b.p);
  free_tfile (&t);
}

/* After an error, every walk returns it again.  */
static void
test_sticky_error (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  sample_ip_tid (&t.data, 1);
  struct bb bad = { 0 };
  p64 (&bad, 5);
  rec (&t.data, SFDO_PERFDATA_SAMPLE, 2, &bad);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_E_MALFORMED);
  uint64_t off = err.offset;
  assert_int_equal (off, f.len - 16);
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_foreach_record (pd, collect, &g, &err),
                    SFDO_E_MALFORMED);
  assert_int_equal (err.offset, off);
  assert_int_equal (g.nsamples, 1);
  sfdo_perfdata_close (pd);
  free (bad.p);
  free (f.p);
  free_tfile (&t);
}

static void
expect_open (const void *p, size_t n, enum sfdo_errc code, uint64_t off)
{
  struct got g = { 0 };
  struct sfdo_error err;
  assert_int_equal (walk (p, n, &g, &err, NULL), code);
  assert_int_equal (err.offset, off);
  assert_string_equal (err.path, "t.data");
  assert_true (err.msg[0] != 0);
}

static void
test_bad_input (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (CALLCHAIN) };
  struct bb s = { 0 };
  p64 (&s, 1), p64 (&s, 1ull << 60), p64 (&s, 2);
  rec (&t.data, SFDO_PERFDATA_SAMPLE, 2, &s);
  struct bb f = build_file (&t);
  size_t data_at = f.len - t.data.len;
  expect_open (f.p, f.len, SFDO_E_MALFORMED, data_at);
  uint8_t save[8];
  memcpy (save, f.p, 8);
  memcpy (f.p, "XERFILE2", 8);
  expect_open (f.p, f.len, SFDO_E_BAD_MAGIC, 0);
  memcpy (f.p, "PERFFILE", 8);
  expect_open (f.p, f.len, SFDO_E_VERSION, 0);
  memcpy (f.p, "2ELIFREP", 8);
  expect_open (f.p, f.len, SFDO_E_VERSION, 0);
  memcpy (f.p, save, 8);
  set64 (&f, 8, 50);
  expect_open (f.p, f.len, SFDO_E_MALFORMED, 8);
  set64 (&f, 8, 104);
  f.p[data_at + 6] = 4, f.p[data_at + 7] = 0;   /* record size 4 */
  expect_open (f.p, f.len, SFDO_E_MALFORMED, data_at);
  f.p[data_at + 6] = 200;                        /* past the data end */
  expect_open (f.p, f.len, SFDO_E_MALFORMED, data_at);
  set64 (&f, 40, f.len);                         /* data past the end */
  expect_open (f.p, f.len, SFDO_E_TRUNCATED, 40);
  expect_open ("", 0, SFDO_E_TRUNCATED, 0);

  /* File mode needs to seek: through a pipe it is a usage error.  */
  set64 (&f, 40, f.len - t.data.len);
  int fds[2];
  struct sfdo_perfdata *pd;
  struct sfdo_error err;
  assert_int_equal (pipe (fds), 0);
  assert_int_equal (write (fds[1], f.p, f.len), (ssize_t) f.len);
  close (fds[1]);
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_open_fd (fds[0], "p", &pd, &err),
                    SFDO_E_USAGE);
  assert_null (pd);
  assert_int_equal (err.offset, 0);
  close (fds[0]);
  free (s.p);
  free (f.p);
  free_tfile (&t);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_compressed),
    cmocka_unit_test (test_compressed_bad),
    cmocka_unit_test (test_pipe_mode),
    cmocka_unit_test (test_features_and_unknown_records),
    cmocka_unit_test (test_truncation_every_prefix),
    cmocka_unit_test (test_bad_input),
    cmocka_unit_test (test_payloads_and_nesting),
    cmocka_unit_test (test_sticky_error),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
