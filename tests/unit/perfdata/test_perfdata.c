/* tests/unit/perfdata/test_perfdata.c - the perf.data reader on synthetic
 * files built here (perfdata_build.h): every sample field, attrs told
 * apart by sample id (IDENTIFIER and ID positions), record kinds, attr
 * sizes, stop and resume.  test_perfdata_input.c has compressed records,
 * pipe mode, features, truncation and bad input.  */
#include "perfdata_build.h"

/* --- tests --------------------------------------------------------------- */

#define ALL_FIELDS                                                          \
  (S (IDENTIFIER) | S (IP) | S (TID) | S (TIME) | S (ADDR) | S (ID)         \
   | S (STREAM_ID) | S (CPU) | S (PERIOD) | S (READ) | S (CALLCHAIN)        \
   | S (RAW) | S (BRANCH_STACK) | S (REGS_USER) | S (STACK_USER)            \
   | S (WEIGHT_STRUCT) | S (DATA_SRC) | S (TRANSACTION) | S (REGS_INTR)     \
   | S (PHYS_ADDR) | S (CGROUP) | S (DATA_PAGE_SIZE) | S (CODE_PAGE_SIZE)   \
   | S (AUX))

/* A sample with every field; FULL: registers, stack, branches present.  */
static void
all_fields_sample (struct bb *d, int full)
{
  struct bb s = { 0 };
  p64 (&s, 7), p64 (&s, 0x1000), p32 (&s, 1), p32 (&s, 2), p64 (&s, 3);
  p64 (&s, 4), p64 (&s, 7), p64 (&s, 8), p32 (&s, 5), p32 (&s, 0);
  p64 (&s, 9);
  p64 (&s, 100), p64 (&s, 101), p64 (&s, 102), p64 (&s, 7), p64 (&s, 103);
  p64 (&s, 3), p64 (&s, (uint64_t) -512), p64 (&s, 0x1000), p64 (&s, 0x2000);
  p32 (&s, 4), put (&s, "abcd", 4);
  p64 (&s, full ? 2 : 0), p64 (&s, 1);
  if (full)
    {
      p64 (&s, 0x10), p64 (&s, 0x20), p64 (&s, 1);
      p64 (&s, 0x30), p64 (&s, 0x40), p64 (&s, 2);
      p64 (&s, 5), p64 (&s, 6);
    }
  p64 (&s, full ? 2 : 0);
  if (full)
    p64 (&s, 11), p64 (&s, 12), p64 (&s, 13);
  p64 (&s, full ? 16 : 0);
  if (full)
    put (&s, "0123456789abcdef", 16), p64 (&s, 8);
  p64 (&s, 0x0003000200000001ull), p64 (&s, 0x55), p64 (&s, 0x66);
  p64 (&s, 2), p64 (&s, 21), p64 (&s, 22);
  p64 (&s, 0x77), p64 (&s, 0x88), p64 (&s, 4096), p64 (&s, 8192);
  p64 (&s, 3), put (&s, "xyz", 3);
  rec (d, SFDO_PERFDATA_SAMPLE, 2, &s);
  free (s.p);
}

static void
test_sample_all_fields (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1, .nids = { 1 }, .ids = { { 7 } } };
  t.attrs[0] = (struct tattr) { .sample_type = ALL_FIELDS, .period = 4000,
    .flags = FLAG_FREQ, .read_format = 1 | 2 | 4 | 16,
    .bst = SFDO_PERFDATA_BR_HW_INDEX | SFDO_PERFDATA_BR_COUNTERS,
    .regs_user = 0xb, .regs_intr = 0x3, .stack_user = 16 };
  all_fields_sample (&t.data, 1);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_OK);
  assert_int_equal (g.nsamples, 1);
  const struct sfdo_perfdata_sample *s = &g.last[SFDO_PERFDATA_SAMPLE].u.sample;
  assert_int_equal (s->fields, ALL_FIELDS);
  assert_int_equal (s->id, 7);
  assert_int_equal (s->ip, 0x1000);
  assert_int_equal (s->pid, 1);
  assert_int_equal (s->tid, 2);
  assert_int_equal (s->time, 3);
  assert_int_equal (s->addr, 4);
  assert_int_equal (s->stream_id, 8);
  assert_int_equal (s->cpu, 5);
  assert_int_equal (s->period, 9);
  assert_int_equal (s->read.nr, 1);
  assert_int_equal (s->read.time_enabled, 101);
  assert_int_equal (s->read.time_running, 102);
  assert_int_equal (g.rv[0].value, 100);
  assert_int_equal (g.rv[0].id, 7);
  assert_int_equal (g.rv[0].lost, 103);
  assert_int_equal (s->callchain_nr, 3);
  assert_int_equal (g.cc[2], 0x2000);
  assert_int_equal (s->raw_size, 4);
  assert_memory_equal (g.raw, "abcd", 4);
  assert_int_equal (s->branch_nr, 2);
  assert_true (s->branch_has_hw_idx);
  assert_int_equal (s->branch_hw_idx, 1);
  assert_int_equal (g.br[1].from, 0x30);
  assert_int_equal (g.br[1].to, 0x40);
  assert_int_equal (g.br[1].flags, 2);
  assert_int_equal (g.ctr[1], 6);
  assert_int_equal (s->regs_user.abi, 2);
  assert_int_equal (s->regs_user.nregs, 3);
  assert_int_equal (g.regs[2], 13);
  assert_int_equal (s->stack_size, 16);
  assert_memory_equal (g.stack, "0123456789abcdef", 16);
  assert_int_equal (s->stack_dyn_size, 8);
  assert_int_equal (s->weight, 0x0003000200000001ull);
  assert_int_equal (s->data_src, 0x55);
  assert_int_equal (s->transaction, 0x66);
  assert_int_equal (s->regs_intr.nregs, 2);
  assert_int_equal (g.iregs[1], 22);
  assert_int_equal (s->phys_addr, 0x77);
  assert_int_equal (s->cgroup, 0x88);
  assert_int_equal (s->data_page_size, 4096);
  assert_int_equal (s->code_page_size, 8192);
  assert_int_equal (s->aux_size, 3);
  const struct sfdo_perfdata_attr *a = g.last[SFDO_PERFDATA_SAMPLE].attr;
  assert_true (a->freq);
  assert_int_equal (a->sample_period, 4000);
  assert_int_equal (a->sample_stack_user, 16);
  assert_int_equal (a->branch_sample_type,
                    SFDO_PERFDATA_BR_HW_INDEX | SFDO_PERFDATA_BR_COUNTERS);
  sfdo_perfdata_close (pd);

  /* No registers (abi 0), no stack (size 0), no branches.  */
  free (t.data.p);
  t.data = (struct bb) { 0 };
  all_fields_sample (&t.data, 0);
  free (f.p);
  f = build_file (&t);
  memset (&g, 0, sizeof g);
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_OK);
  s = &g.last[SFDO_PERFDATA_SAMPLE].u.sample;
  assert_int_equal (s->regs_user.abi, 0);
  assert_int_equal (s->regs_user.nregs, 0);
  assert_int_equal (s->stack_size, 0);
  assert_int_equal (s->branch_nr, 0);
  assert_int_equal (s->regs_intr.nregs, 2);
  assert_int_equal (s->code_page_size, 8192);
  free (f.p);
  free_tfile (&t);
}

static void
test_read_group_and_plain_branches (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (READ)
    | S (BRANCH_STACK) | S (WEIGHT), .read_format = 8 | 1 | 4 | 16 };
  struct bb s = { 0 };
  p64 (&s, 0x42);
  p64 (&s, 2), p64 (&s, 500);
  p64 (&s, 1), p64 (&s, 11), p64 (&s, 0);
  p64 (&s, 2), p64 (&s, 12), p64 (&s, 3);
  p64 (&s, 1), p64 (&s, 0xa), p64 (&s, 0xb), p64 (&s, 0);
  p64 (&s, 99);
  rec (&t.data, SFDO_PERFDATA_SAMPLE, 2, &s);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_OK);
  const struct sfdo_perfdata_sample *x = &g.last[SFDO_PERFDATA_SAMPLE].u.sample;
  assert_int_equal (x->read.nr, 2);
  assert_int_equal (x->read.time_enabled, 500);
  assert_int_equal (g.rv[1].value, 2);
  assert_int_equal (g.rv[1].id, 12);
  assert_int_equal (g.rv[1].lost, 3);
  assert_int_equal (x->branch_nr, 1);
  assert_false (x->branch_has_hw_idx);
  assert_int_equal (g.br[0].to, 0xb);
  assert_int_equal (x->weight, 99);
  free (s.p);
  free (f.p);
  free_tfile (&t);
}

static void
test_attrs_by_identifier (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 2, .nids = { 2, 1 },
                     .ids = { { 100, 101 }, { 200 } } };
  uint64_t st = S (IDENTIFIER) | S (IP) | S (TID) | S (TIME);
  t.attrs[0] = (struct tattr) { .sample_type = st, .flags = FLAG_ID_ALL };
  t.attrs[1] = (struct tattr) { .sample_type = st, .flags = FLAG_ID_ALL,
                                .config = 1 };
  id_sample (&t.data, 100, 1);
  id_sample (&t.data, 200, 2);
  id_sample (&t.data, 999, 3);
  id_sample (&t.data, 101, 4);
  mmap2_with_id (&t.data, 200);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_OK);
  assert_int_equal (g.nsamples, 3);
  assert_ptr_equal (g.attr_of[0], sfdo_perfdata_attr (pd, 0));
  assert_ptr_equal (g.attr_of[1], sfdo_perfdata_attr (pd, 1));
  assert_ptr_equal (g.attr_of[2], sfdo_perfdata_attr (pd, 0));
  assert_int_equal (g.ips[2], 4);
  assert_int_equal (sfdo_perfdata_stats (pd)->unknown_id_samples, 1);
  const struct sfdo_perfdata_record *m = &g.last[SFDO_PERFDATA_MMAP2];
  assert_ptr_equal (m->attr, sfdo_perfdata_attr (pd, 1));
  assert_int_equal (m->id.time, 1234);
  assert_int_equal (m->id.id, 200);
  assert_int_equal (m->u.mmap.ino, 77);
  assert_int_equal (m->u.mmap.prot, 5);
  assert_string_equal (g.str, "/bin/x");
  assert_ptr_equal (sfdo_perfdata_find_attr (pd, 101),
                    sfdo_perfdata_attr (pd, 0));
  assert_null (sfdo_perfdata_find_attr (pd, 5));
  sfdo_perfdata_close (pd);
  free (f.p);
  free_tfile (&t);
}

static void
test_attrs_by_id_position (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 2, .nids = { 1, 1 }, .ids = { { 1 }, { 2 } } };
  uint64_t st = S (IP) | S (TID) | S (ID) | S (CPU);
  t.attrs[0] = (struct tattr) { .sample_type = st, .flags = FLAG_ID_ALL };
  t.attrs[1] = (struct tattr) { .sample_type = st, .flags = FLAG_ID_ALL };
  struct bb s = { 0 };
  p64 (&s, 0x99), p32 (&s, 3), p32 (&s, 4), p64 (&s, 2), p32 (&s, 6);
  p32 (&s, 0);
  rec (&t.data, SFDO_PERFDATA_SAMPLE, 2, &s);
  s.len = 0;
  p32 (&s, 3), p32 (&s, 4), put (&s, "demo\0\0\0\0", 8);
  p32 (&s, 3), p32 (&s, 4), p64 (&s, 2), p32 (&s, 6), p32 (&s, 0);
  rec (&t.data, SFDO_PERFDATA_COMM, 0, &s);
  struct bb f = build_file (&t);
  struct got g = { 0 };
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_OK);
  assert_ptr_equal (g.attr_of[0], sfdo_perfdata_attr (pd, 1));
  assert_int_equal (g.last[SFDO_PERFDATA_SAMPLE].u.sample.cpu, 6);
  const struct sfdo_perfdata_record *c = &g.last[SFDO_PERFDATA_COMM];
  assert_ptr_equal (c->attr, sfdo_perfdata_attr (pd, 1));
  assert_int_equal (c->id.cpu, 6);
  assert_string_equal (g.str, "demo");
  sfdo_perfdata_close (pd);
  free (s.p);
  free (f.p);
  free_tfile (&t);
}

static void
test_record_kinds (void **state)
{
  (void) state;
  struct tfile t = { .nattrs = 1 };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  struct bb s = { 0 };
  p32 (&s, 1), p32 (&s, 1), p64 (&s, 0x1000), p64 (&s, 0x2000);
  p64 (&s, 0x10), put (&s, "/lib/a.so\0\0\0\0\0\0\0", 16);
  rec (&t.data, SFDO_PERFDATA_MMAP, 2, &s);
  s.len = 0;
  p32 (&s, 1), p32 (&s, 1), p64 (&s, 0x1000), p64 (&s, 0x2000), p64 (&s, 0);
  p16 (&s, 8), p16 (&s, 0);
  put (&s, "\x01\x02\x03\x04\x05\x06\x07\x08\0\0\0\0\0\0\0\0\0\0\0\0", 20);
  p32 (&s, 5), p32 (&s, 2), put (&s, "/lib/b.so\0\0\0\0\0\0\0", 16);
  rec (&t.data, SFDO_PERFDATA_MMAP2, 2 | SFDO_PERFDATA_MISC_MMAP_BUILD_ID, &s);
  struct got g = { 0 };
  struct sfdo_error err;
  struct bb f = build_file (&t);
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_OK);
  const struct sfdo_perfdata_mmap *m = &g.last[SFDO_PERFDATA_MMAP2].u.mmap;
  assert_true (m->has_build_id);
  assert_int_equal (m->build_id_size, 8);
  assert_int_equal (m->build_id[7], 8);
  assert_string_equal (g.str, "/lib/b.so");
  assert_int_equal (g.last[SFDO_PERFDATA_MMAP].u.mmap.pgoff, 0x10);
  free (f.p);
  free (t.data.p);
  t.data = (struct bb) { 0 };
  s.len = 0;
  p32 (&s, 5), p32 (&s, 4), p32 (&s, 6), p32 (&s, 7), p64 (&s, 99);
  rec (&t.data, SFDO_PERFDATA_FORK, 0, &s);
  rec (&t.data, SFDO_PERFDATA_EXIT, 0, &s);
  s.len = 0;
  p64 (&s, 3), p64 (&s, 42);
  rec (&t.data, SFDO_PERFDATA_LOST, 0, &s);
  f = build_file (&t);
  memset (&g, 0, sizeof g);
  assert_int_equal (walk (f.p, f.len, &g, &err, NULL), SFDO_OK);
  assert_int_equal (g.last[SFDO_PERFDATA_FORK].u.task.ptid, 7);
  assert_int_equal (g.last[SFDO_PERFDATA_EXIT].u.task.time, 99);
  assert_int_equal (g.last[SFDO_PERFDATA_LOST].u.lost.lost, 42);
  assert_int_equal (g.n, 3);
  free (s.p);
  free (f.p);
  free_tfile (&t);
}

static void
test_attr_sizes (void **state)
{
  (void) state;
  size_t sizes[] = { 64, 72, 200 };
  for (size_t i = 0; i < 3; i++)
    {
      struct tfile t = { .nattrs = 1, .attr_bytes = sizes[i] };
      t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID),
        .bst = 7, .regs_user = 3, .config = 9 };
      sample_ip_tid (&t.data, 0x55);
      struct bb f = build_file (&t);
      struct got g = { 0 };
      struct sfdo_error err;
      struct sfdo_perfdata *pd;
      assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_OK);
      const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, 0);
      assert_int_equal (a->size, sizes[i]);
      assert_int_equal (a->config, 9);
      assert_int_equal (a->branch_sample_type, sizes[i] > 72 ? 7 : 0);
      assert_int_equal (a->sample_regs_user, sizes[i] > 72 ? 3 : 0);
      assert_int_equal (g.ips[0], 0x55);
      sfdo_perfdata_close (pd);
      free (f.p);
      free_tfile (&t);
    }
}

static void
test_stop_and_resume (void **state)
{
  (void) state;
  struct bb d = many_samples (10);
  struct tfile t = { .nattrs = 1, .data = d };
  t.attrs[0] = (struct tattr) { .sample_type = S (IP) | S (TID) };
  struct bb f = build_file (&t);
  struct got g = { .stop_after = 3 };
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  assert_int_equal (walk (f.p, f.len, &g, &err, &pd), SFDO_OK);
  assert_int_equal (g.n, 3);
  int calls = 1;
  while (!sfdo_perfdata_at_end (pd) && calls++ < 20)
    assert_int_equal (sfdo_perfdata_foreach_record (pd, collect, &g, &err),
                      SFDO_OK);
  assert_int_equal (g.n, 10);
  assert_int_equal (g.ips[9], 72);
  sfdo_perfdata_close (pd);
  free (f.p);
  free_tfile (&t);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sample_all_fields),
    cmocka_unit_test (test_read_group_and_plain_branches),
    cmocka_unit_test (test_attrs_by_identifier),
    cmocka_unit_test (test_attrs_by_id_position),
    cmocka_unit_test (test_record_kinds),
    cmocka_unit_test (test_attr_sizes),
    cmocka_unit_test (test_stop_and_resume),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
