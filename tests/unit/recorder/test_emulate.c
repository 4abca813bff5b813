/* tests/unit/recorder/test_emulate.c - the emulated PMU's raw streams
 * (recorder/emu_raw.h) and their merge into a perf.data
 * (recorder/emu_perf.h), on streams written here: records of every type
 * read back as written; streams of two processes merged in time order
 * with the attr, event name and header of an emulated recording; exec
 * counts superseded and kept out of the file; cut-short, malformed and
 * foreign input reported with the file and offset, never crashing.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "../../../perfdata/perfdata.h"
#include "../../../recorder/emu_perf.h"
#include "../../../recorder/emu_raw.h"

/* --- writing streams ------------------------------------------------------ */

struct stream {
  uint8_t buf[8192];
  size_t len;
};

static void
put (struct stream *s, const void *p, size_t n)
{
  assert_true (s->len + n <= sizeof s->buf);
  memcpy (s->buf + s->len, p, n);
  s->len += n;
}

/* A header; with the LBR, taken branches are sampled too (every 500).  */
static void
header (struct stream *s, uint32_t pid, uint32_t flags)
{
  struct sfdo_emu_header h;
  memset (&h, 0, sizeof h);
  memcpy (h.magic, SFDO_EMU_MAGIC, 8);
  h.version = SFDO_EMU_VERSION;
  h.flags = flags;
  h.period[SFDO_EMU_EV_INSTRUCTIONS] = 1000;
  h.period[SFDO_EMU_EV_TAKEN_BRANCHES] = flags & SFDO_EMU_F_LBR ? 500 : 0;
  h.pid = pid;
  h.lbr_entries = SFDO_EMU_LBR_ENTRIES;
  strcpy (h.valgrind_version, "3.19.0");
  put (s, &h, sizeof h);
}

static void
comm (struct stream *s, uint32_t pid, uint64_t time, const char *name)
{
  struct sfdo_emu_comm c;
  memset (&c, 0, sizeof c);
  c.h = (struct sfdo_emu_rec) { SFDO_EMU_COMM, sizeof c };
  c.pid = c.tid = pid;
  c.time = time;
  strncpy (c.comm, name, sizeof c.comm - 1);
  put (s, &c, sizeof c);
}

static void
mmap_rec (struct stream *s, uint32_t pid, uint64_t time, uint64_t start,
          const char *name)
{
  char name8[64];
  size_t n = (strlen (name) + 8) & ~(size_t) 7;
  memset (name8, 0, sizeof name8);
  strcpy (name8, name);
  struct sfdo_emu_mmap m;
  memset (&m, 0, sizeof m);
  m.h = (struct sfdo_emu_rec) { SFDO_EMU_MMAP, (uint32_t) (sizeof m + n) };
  m.pid = m.tid = pid;
  m.time = time;
  m.start = start;
  m.len = 0x1000;
  m.pgoff = 0x1000;
  m.prot = 5;
  m.flags = 2;
  put (s, &m, sizeof m);
  put (s, name8, n);
}

/* A sample: of taken branches when it has NB branches, else of
   instructions.  */
static void
sample (struct stream *s, uint32_t pid, uint64_t time, uint64_t ip,
        uint32_t nb, uint32_t nr)
{
  struct sfdo_emu_sample e;
  memset (&e, 0, sizeof e);
  e.h = (struct sfdo_emu_rec) { SFDO_EMU_SAMPLE,
                                (uint32_t) (sizeof e + (2 * nb + nr) * 8) };
  e.pid = e.tid = pid;
  e.time = time;
  e.ip = ip;
  e.event = nb ? SFDO_EMU_EV_TAKEN_BRANCHES : SFDO_EMU_EV_INSTRUCTIONS;
  e.period = nb ? 500 : 1000;
  e.nr_branches = (uint16_t) nb;
  e.nr_regs = (uint16_t) nr;
  put (s, &e, sizeof e);
  for (uint32_t i = 0; i < 2 * nb + nr; i++)
    {
      uint64_t v = ip + 16 * i;
      put (s, &v, 8);
    }
}

static void
exit_rec (struct stream *s, uint32_t pid, uint64_t time, uint64_t insns,
          uint64_t taken, uint32_t flags)
{
  struct sfdo_emu_exit e;
  memset (&e, 0, sizeof e);
  e.h = (struct sfdo_emu_rec) { SFDO_EMU_EXIT, sizeof e };
  e.pid = e.ppid = e.tid = e.ptid = pid;
  e.time = time;
  e.instructions = insns;
  e.taken_branches = taken;
  e.flags = flags;
  put (s, &e, sizeof e);
}

static char dir[64];

static void
save (const struct stream *s, const char *name, char *path, size_t size)
{
  snprintf (path, size, "%s/%s", dir, name);
  FILE *f = fopen (path, "wb");
  assert_non_null (f);
  assert_int_equal (fwrite (s->buf, 1, s->len, f), s->len);
  fclose (f);
}

static int
setup (void **state)
{
  (void) state;
  strcpy (dir, "/tmp/sfdo-test-emu.XXXXXX");
  return mkdtemp (dir) ? 0 : -1;
}

static int
teardown (void **state)
{
  (void) state;
  char cmd[128];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system (cmd) == 0 ? 0 : -1;
}

/* Remove every file of DIR, for the next test.  */
static void
clear_dir (void)
{
  char cmd[128];
  snprintf (cmd, sizeof cmd, "rm -f '%s'/*", dir);
  assert_int_equal (system (cmd), 0);
}

/* --- reading streams ------------------------------------------------------ */

static void
test_read_back (void **state)
{
  (void) state;
  struct stream s = { .len = 0 };
  header (&s, 42, SFDO_EMU_F_LBR | SFDO_EMU_F_REGS);
  comm (&s, 42, 10, "prog");
  mmap_rec (&s, 42, 20, 0x108000, "/bin/prog");
  uint32_t unknown[4] = { 99, 16, 0, 0 };   /* a later type: skipped */
  put (&s, unknown, sizeof unknown);
  sample (&s, 42, 30, 0x108010, 3, SFDO_EMU_NREGS);
  exit_rec (&s, 42, 40, 5000, 700, 0);
  char path[128];
  save (&s, "42.0.raw", path, sizeof path);

  struct sfdo_emu_raw *r;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_emu_raw_open (path, &r, &err), SFDO_OK);
  assert_int_equal (sfdo_emu_raw_header (r)->pid, 42);
  struct sfdo_emu_record rec;
  assert_int_equal (sfdo_emu_raw_next (r, &rec, &err), 1);
  assert_int_equal (rec.type, SFDO_EMU_COMM);
  assert_int_equal (rec.time, 10);
  assert_int_equal (sfdo_emu_raw_next (r, &rec, &err), 1);
  assert_int_equal (rec.type, SFDO_EMU_MMAP);
  assert_string_equal (rec.filename, "/bin/prog");
  assert_int_equal (sfdo_emu_raw_next (r, &rec, &err), 1);
  assert_int_equal (rec.type, SFDO_EMU_SAMPLE);
  assert_int_equal (rec.branches[0], 0x108010);
  assert_int_equal (rec.branches[5], 0x108010 + 16 * 5);
  assert_int_equal (rec.regs[0], 0x108010 + 16 * 6);
  assert_int_equal (sfdo_emu_raw_next (r, &rec, &err), 1);
  assert_int_equal (rec.type, SFDO_EMU_EXIT);
  assert_int_equal (sfdo_emu_raw_next (r, &rec, &err), 0);
  assert_int_equal (sfdo_emu_raw_next (r, &rec, &err), 0);
  assert_int_equal (err.code, SFDO_OK);
  sfdo_emu_raw_close (r);
  clear_dir ();
}

/* Open a stream of BYTES and read it to its end: the code of the error
   (SFDO_OK if none), its offset into *OFFSET.  */
static enum sfdo_errc
read_all (const struct stream *s, uint64_t *offset)
{
  char path[128];
  save (s, "1.0.raw", path, sizeof path);
  struct sfdo_emu_raw *r;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  enum sfdo_errc rc = sfdo_emu_raw_open (path, &r, &err);
  struct sfdo_emu_record rec;
  while (!rc && sfdo_emu_raw_next (r, &rec, &err) > 0)
    ;
  sfdo_emu_raw_close (r);
  *offset = err.offset;
  if (err.code)
    assert_non_null (strstr (err.path, "1.0.raw"));
  clear_dir ();
  return err.code;
}

static void
test_bad_streams (void **state)
{
  (void) state;
  uint64_t off;
  struct stream s = { .len = 0 };
  header (&s, 1, 0);
  size_t good = s.len;
  sample (&s, 1, 5, 0x1000, 0, 0);
  struct stream cut = s;
  cut.len -= 8;                         /* inside the sample */
  assert_int_equal (read_all (&cut, &off), SFDO_E_TRUNCATED);
  assert_int_equal (off, good);
  cut.len = good + 4;                   /* inside its header */
  assert_int_equal (read_all (&cut, &off), SFDO_E_TRUNCATED);

  struct stream bad = s;                /* more branches than an LBR has */
  ((struct sfdo_emu_sample *) (void *) (bad.buf + good))->nr_branches = 33;
  assert_int_equal (read_all (&bad, &off), SFDO_E_MALFORMED);
  assert_int_equal (off, good);
  bad = s;                              /* an event not sampled */
  ((struct sfdo_emu_sample *) (void *) (bad.buf + good))->event = 1;
  assert_int_equal (read_all (&bad, &off), SFDO_E_MALFORMED);
  bad = s;                              /* a size that is not 8-aligned */
  ((struct sfdo_emu_rec *) (void *) (bad.buf + good))->size = 12;
  assert_int_equal (read_all (&bad, &off), SFDO_E_MALFORMED);
  bad = s;                              /* a size its fields contradict */
  ((struct sfdo_emu_sample *) (void *) (bad.buf + good))->nr_regs = 3;
  assert_int_equal (read_all (&bad, &off), SFDO_E_MALFORMED);

  struct stream name = { .len = 0 };    /* a file name without its NUL */
  header (&name, 1, 0);
  mmap_rec (&name, 1, 1, 0x1000, "/abcdefg");
  memset (name.buf + name.len - 8, 'x', 8);
  assert_int_equal (read_all (&name, &off), SFDO_E_MALFORMED);

  bad = s;
  bad.buf[0] = 'X';
  assert_int_equal (read_all (&bad, &off), SFDO_E_BAD_MAGIC);
  bad = s;
  ((struct sfdo_emu_header *) (void *) bad.buf)->version = 9;
  assert_int_equal (read_all (&bad, &off), SFDO_E_VERSION);
  bad.len = 10;
  assert_int_equal (read_all (&bad, &off), SFDO_E_TRUNCATED);
}

/* --- merging into a perf.data --------------------------------------------- */

struct seen {
  uint32_t types[32];
  uint64_t times[32];
  size_t n;
  const struct sfdo_perfdata_attr *branch_attr, *insn_attr;
  uint64_t branch_nr, nregs, regs_abi;
};

static int
note_record (const struct sfdo_perfdata_record *rec, void *ctx)
{
  struct seen *s = ctx;
  assert_true (s->n < 32);
  s->types[s->n] = rec->type;
  s->times[s->n++] = rec->type == SFDO_PERFDATA_SAMPLE ? rec->u.sample.time
                                                       : rec->id.time;
  if (rec->type != SFDO_PERFDATA_SAMPLE)
    return SFDO_PERFDATA_CB_OK;
  if (rec->u.sample.branch_nr)
    {
      s->branch_attr = rec->attr;
      s->branch_nr = rec->u.sample.branch_nr;
      s->nregs = rec->u.sample.regs_user.nregs;
      s->regs_abi = rec->u.sample.regs_user.abi;
      assert_int_equal (rec->u.sample.branches[1].to, 0x2000 + 16 * 3);
    }
  else
    s->insn_attr = rec->attr;
  return SFDO_PERFDATA_CB_OK;
}

/* Two processes: 100 execs (its first counts are superseded), 200 was
   forked from it; their streams interleave in time.  */
static void
two_streams (uint32_t flags)
{
  char path[128];
  struct stream a = { .len = 0 }, b = { .len = 0 };
  header (&a, 100, flags);
  comm (&a, 100, 10, "parent");
  mmap_rec (&a, 100, 20, 0x108000, "/bin/parent");
  sample (&a, 100, 30, 0x108010, 0, 0);
  sample (&a, 100, 50, 0x108020, 0, 0);
  exit_rec (&a, 100, 70, 111, 11, SFDO_EMU_EXIT_EXEC);
  exit_rec (&a, 100, 80, 2000, 300, 0);
  save (&a, "100.0.raw", path, sizeof path);
  header (&b, 200, flags);
  struct sfdo_emu_fork f = { { SFDO_EMU_FORK, sizeof f }, 200, 100, 200, 100,
                             25 };
  put (&b, &f, sizeof f);
  sample (&b, 200, 40, 0x2000, flags & SFDO_EMU_F_LBR ? 4 : 0,
          flags & SFDO_EMU_F_REGS ? SFDO_EMU_NREGS : 0);
  exit_rec (&b, 200, 60, 1000, 100, 0);
  save (&b, "200.0.raw", path, sizeof path);
}

static void
test_merge (void **state)
{
  (void) state;
  two_streams (SFDO_EMU_F_LBR | SFDO_EMU_F_REGS | SFDO_EMU_F_JITTER);
  char out[128];
  snprintf (out, sizeof out, "%s/perf.data", dir);
  const char *argv[] = { "sfdo-record", "--emulate", "--", "prog" };
  struct sfdo_emu_convert c = { out, 4, argv };
  struct sfdo_emu_totals t;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_emu_convert_dir (dir, &c, &t, &err), SFDO_OK);
  assert_int_equal (t.instructions, 3000);
  assert_int_equal (t.taken_branches, 400);
  assert_int_equal (t.samples, 3);
  assert_int_equal (t.images, 2);
  assert_int_equal (t.processes, 2);
  assert_int_equal (t.threads, 2);
  assert_int_equal (t.incomplete, 0);
  assert_int_equal (t.problem.code, SFDO_OK);

  /* Taken branches with the LBR first, then instructions.  */
  struct sfdo_perfdata *pd;
  assert_int_equal (sfdo_perfdata_open (out, &pd, &err), SFDO_OK);
  assert_int_equal (sfdo_perfdata_nattrs (pd), 2);
  const uint64_t common = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP
                          | PERF_SAMPLE_TID | PERF_SAMPLE_TIME
                          | PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER;
  const struct sfdo_perfdata_attr *br = sfdo_perfdata_attr (pd, 0);
  assert_int_equal (br->type, PERF_TYPE_RAW);
  assert_int_equal (br->config, SFDO_EMU_TAKEN_BRANCHES_RAW);
  assert_int_equal (br->sample_period, 500);
  assert_int_equal (br->sample_type, common | PERF_SAMPLE_BRANCH_STACK);
  assert_string_equal (br->name, SFDO_EMU_BRANCH_EVENT_NAME);
  const struct sfdo_perfdata_attr *in = sfdo_perfdata_attr (pd, 1);
  assert_int_equal (in->type, PERF_TYPE_HARDWARE);
  assert_int_equal (in->config, PERF_COUNT_HW_INSTRUCTIONS);
  assert_int_equal (in->sample_period, 1000);
  assert_int_equal (in->sample_type, common);
  assert_string_equal (in->name, SFDO_EMU_EVENT_NAME);
  struct seen s;
  memset (&s, 0, sizeof s);
  assert_int_equal (sfdo_perfdata_foreach_record (pd, note_record, &s, &err),
                    SFDO_OK);
  assert_ptr_equal (s.branch_attr, br);
  assert_ptr_equal (s.insn_attr, in);
  /* comm 10, mmap 20, fork 25, samples 30 40 50, exits 60 80 (not the
     exec's at 70).  */
  static const uint32_t want[] = { SFDO_PERFDATA_COMM, SFDO_PERFDATA_MMAP2,
    SFDO_PERFDATA_FORK, SFDO_PERFDATA_SAMPLE, SFDO_PERFDATA_SAMPLE,
    SFDO_PERFDATA_SAMPLE, SFDO_PERFDATA_EXIT, SFDO_PERFDATA_EXIT };
  assert_int_equal (s.n, 8);
  for (size_t i = 0; i < 8; i++)
    assert_int_equal (s.types[i], want[i]);
  for (size_t i = 1; i < 8; i++)
    assert_true (s.times[i - 1] <= s.times[i]);
  assert_int_equal (s.branch_nr, 4);
  assert_int_equal (s.nregs, SFDO_EMU_NREGS);
  assert_int_equal (s.regs_abi, PERF_SAMPLE_REGS_ABI_64);
  sfdo_perfdata_close (pd);
  clear_dir ();
}

static void
test_count_only_and_problems (void **state)
{
  (void) state;
  struct sfdo_emu_convert count = { NULL, 0, NULL };
  struct sfdo_emu_totals t;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_emu_convert_dir (dir, &count, &t, &err), SFDO_E_IO);
  assert_non_null (strstr (err.msg, "wrote nothing"));

  two_streams (0);
  char path[128];
  struct stream cut = { .len = 0 };     /* a third process, killed */
  header (&cut, 300, 0);
  sample (&cut, 300, 45, 0x3000, 0, 0);
  cut.len -= 4;
  save (&cut, "300.0.raw", path, sizeof path);
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_emu_convert_dir (dir, &count, &t, &err), SFDO_OK);
  assert_int_equal (t.samples, 3);
  assert_int_equal (t.instructions, 3000);
  assert_int_equal (t.incomplete, 1);
  assert_int_equal (t.problem.code, SFDO_E_TRUNCATED);
  assert_non_null (strstr (t.problem.path, "300.0.raw"));

  struct stream other = { .len = 0 };   /* recorded with other options */
  header (&other, 300, SFDO_EMU_F_LBR);
  save (&other, "300.0.raw", path, sizeof path);
  char out[128];
  snprintf (out, sizeof out, "%s/perf.data", dir);
  struct sfdo_emu_convert c = { out, 0, NULL };
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_emu_convert_dir (dir, &c, &t, &err),
                    SFDO_E_MALFORMED);
  assert_int_equal (access (out, F_OK), -1);   /* no partial file */
  clear_dir ();
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_read_back),
    cmocka_unit_test (test_bad_streams),
    cmocka_unit_test (test_merge),
    cmocka_unit_test (test_count_only_and_problems),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
