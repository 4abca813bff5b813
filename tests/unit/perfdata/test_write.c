/* tests/unit/perfdata/test_write.c - the perf.data writer, checked by
 * reading its files back with the reader: attrs with ids and names,
 * MMAP2, COMM, FORK, EXIT and raw records with sample_id trailers,
 * samples with callchains, branch stacks and registers, build-ids,
 * FINISHED_ROUND; the temporary file and the rename; errors; which
 * mapped files the samples fell in (count_samples), through forks.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "../../../perfdata/perfdata.h"
#include "../../../perfdata/perfdata_write.h"

#define NREC 16

/* What the reader delivered, copied out of the callback.  */
struct seen {
  size_t n;
  uint32_t type[NREC];
  struct sfdo_perfdata_sample_id id[NREC];
  const struct sfdo_perfdata_attr *attr[NREC];
  uint64_t ip[NREC], period[NREC], callchain_nr[NREC], callchain1[NREC];
  uint64_t branch_nr[NREC], branch_to[NREC], regs_abi[NREC], reg2[NREC];
  uint32_t pid[NREC], tid[NREC], ppid[NREC];
  char text[NREC][64];          /* mmap file name or comm */
  uint64_t mmap_addr[NREC], mmap_ino[NREC];
};

static int
collect (const struct sfdo_perfdata_record *r, void *ctx)
{
  struct seen *s = ctx;
  if (s->n == NREC)
    return SFDO_PERFDATA_CB_STOP;
  size_t i = s->n++;
  s->type[i] = r->type;
  s->id[i] = r->id;
  s->attr[i] = r->attr;
  if (r->type == SFDO_PERFDATA_SAMPLE)
    {
      const struct sfdo_perfdata_sample *x = &r->u.sample;
      s->ip[i] = x->ip, s->period[i] = x->period, s->pid[i] = x->pid;
      s->tid[i] = x->tid, s->callchain_nr[i] = x->callchain_nr;
      s->callchain1[i] = x->callchain_nr > 1 ? x->callchain[1] : 0;
      s->branch_nr[i] = x->branch_nr;
      s->branch_to[i] = x->branch_nr ? x->branches[0].to : 0;
      const struct sfdo_perfdata_regs *rg = x->regs_intr.abi ? &x->regs_intr
                                            : &x->regs_user;
      s->regs_abi[i] = rg->abi;
      s->reg2[i] = rg->nregs > 2 ? rg->regs[2] : 0;
    }
  else if (r->type == SFDO_PERFDATA_MMAP2)
    {
      snprintf (s->text[i], 64, "%s", r->u.mmap.filename);
      s->pid[i] = r->u.mmap.pid;
      s->mmap_addr[i] = r->u.mmap.addr;
      s->mmap_ino[i] = r->u.mmap.ino;
    }
  else if (r->type == SFDO_PERFDATA_COMM)
    {
      snprintf (s->text[i], 64, "%s", r->u.comm.comm);
      s->pid[i] = r->u.comm.pid, s->tid[i] = r->u.comm.tid;
    }
  else if (r->type == SFDO_PERFDATA_FORK || r->type == SFDO_PERFDATA_EXIT)
    s->pid[i] = r->u.task.pid, s->ppid[i] = r->u.task.ppid;
  return SFDO_PERFDATA_CB_OK;
}

static void
make_attr (struct perf_event_attr *a, uint64_t extra)
{
  memset (a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_SOFTWARE;
  a->config = PERF_COUNT_SW_CPU_CLOCK;
  a->sample_period = 250007;
  a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID
                   | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD
                   | extra;
  a->read_format = PERF_FORMAT_ID;
  a->sample_id_all = 1;
  a->mmap2 = 1;
  a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
  a->sample_regs_user = 0xff;
  a->sample_regs_intr = 0xff01ff;
}

static char *
temp_path (void)
{
  static char path[64];
  snprintf (path, sizeof path, "/tmp/sfdo-test-write.%d.data", (int) getpid ());
  return path;
}

/* The side-band records: MMAP2, COMM, FORK, EXIT, one raw COMM.  */
static void
write_sideband (struct sfdo_perfdata_writer *w)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  struct sfdo_perfdata_sample_id id = { 0, 10, 11, 5, 111, 0, 1 };
  struct sfdo_perfdata_mmap m = { .pid = 10, .tid = 10, .addr = 0x400000,
                                  .len = 0x1000, .pgoff = 0, .maj = 8,
                                  .min = 1, .ino = 4242, .prot = 5,
                                  .flags = 2, .filename = "/bin/true" };
  assert_int_equal (sfdo_perfdata_write_mmap2 (w, 2, &m, &id, &err), SFDO_OK);
  struct sfdo_perfdata_comm c = { 10, 11, "worker" };
  assert_int_equal (sfdo_perfdata_write_comm (w, 0, &c, &id, &err), SFDO_OK);
  struct sfdo_perfdata_task t = { 12, 10, 12, 10, 6 };
  assert_int_equal (sfdo_perfdata_write_task (w, SFDO_PERFDATA_FORK, &t, &id,
                                              &err), SFDO_OK);
  assert_int_equal (sfdo_perfdata_write_task (w, SFDO_PERFDATA_EXIT, &t, &id,
                                              &err), SFDO_OK);
  /* A raw COMM with its trailer (TID, TIME, CPU, IDENTIFIER), as the
     kernel writes it.  */
  uint64_t raw[8] = { 0 };
  uint32_t head[2] = { SFDO_PERFDATA_COMM, 56u << 16 };
  memcpy (raw, head, 8);
  uint32_t pt[2] = { 13, 13 };
  memcpy (&raw[1], pt, 8);
  memcpy (&raw[2], "rawcomm", 8);
  memcpy (&raw[3], pt, 8);
  raw[4] = 7, raw[5] = 1, raw[6] = 222;
  assert_int_equal (sfdo_perfdata_write_raw (w, raw, 64, NULL), SFDO_E_USAGE);
  assert_int_equal (sfdo_perfdata_write_raw (w, raw, 56, &err), SFDO_OK);
  assert_int_equal (sfdo_perfdata_write_finished_round (w, &err), SFDO_OK);
}

static void
write_samples (struct sfdo_perfdata_writer *w)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  uint64_t chain[3] = { 0x400010, 0x400020, 0x400030 };
  uint64_t regs[17];
  for (int i = 0; i < 17; i++)
    regs[i] = 1000 + (uint64_t) i;
  struct sfdo_perfdata_branch br[2] = { { 0x400100, 0x400200, 1 },
                                        { 0x400300, 0x400400, 2 } };
  struct sfdo_perfdata_sample s;
  memset (&s, 0, sizeof s);
  s.ip = 0x400010, s.pid = 10, s.tid = 11, s.time = 8, s.period = 250007;
  s.id = 111, s.cpu = 1, s.callchain_nr = 3, s.callchain = chain;
  s.regs_user = (struct sfdo_perfdata_regs) { 2, 8, regs };
  assert_int_equal (sfdo_perfdata_write_sample (w, 0, 2, &s, &err), SFDO_OK);
  s.ip = 0x400020, s.id = 222, s.time = 9, s.branch_nr = 2, s.branches = br;
  s.regs_intr = (struct sfdo_perfdata_regs) { 2, 17, regs };
  assert_int_equal (sfdo_perfdata_write_sample (w, 1, 2, &s, &err), SFDO_OK);
  assert_int_equal (sfdo_perfdata_write_sample (w, 2, 2, &s, NULL),
                    SFDO_E_USAGE);
}

static void
write_file (const char *path)
{
  struct sfdo_perfdata_writer *w;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_writer_open (path, &w, &err), SFDO_OK);
  struct perf_event_attr a0, a1;
  make_attr (&a0, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER);
  make_attr (&a1, PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_INTR);
  uint64_t ids0[2] = { 111, 112 }, ids1[1] = { 222 };
  assert_int_equal (sfdo_perfdata_writer_add_attr (w, &a0, sizeof a0,
                                                   "cpu-clock:u", ids0, 2,
                                                   &err), SFDO_OK);
  assert_int_equal (sfdo_perfdata_writer_add_attr (w, &a1, sizeof a1,
                                                   "task-clock:u", ids1, 1,
                                                   &err), SFDO_OK);
  write_sideband (w);
  write_samples (w);
  assert_int_equal (sfdo_perfdata_writer_nmapped (w), 1);
  assert_string_equal (sfdo_perfdata_writer_mapped (w, 0)->filename,
                       "/bin/true");
  assert_int_equal (sfdo_perfdata_writer_mapped (w, 0)->ino, 4242);
  assert_null (sfdo_perfdata_writer_mapped (w, 1));
  uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };
  assert_int_equal (sfdo_perfdata_writer_add_build_id (w, -1, 2, bid, 20,
                                                       "/bin/true", &err),
                    SFDO_OK);
  const char *argv[] = { "sfdo-record", "--", "true" };
  struct sfdo_perfdata_host host = { "h", "6.1", "sfdo", "x86_64", "cpu",
                                     "GenuineIntel,6,85,4", 2, 2, 1024, 3,
                                     argv };
  sfdo_perfdata_writer_set_host (w, &host);
  assert_int_equal (sfdo_perfdata_writer_finish (w, &err), SFDO_OK);
}

static void
check_attrs (struct sfdo_perfdata *pd)
{
  assert_int_equal (sfdo_perfdata_nattrs (pd), 2);
  const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, 0);
  assert_int_equal (a->nids, 2);
  assert_int_equal (a->ids[1], 112);
  assert_int_equal (a->sample_period, 250007);
  assert_int_equal (a->sample_regs_intr, 0xff01ff);
  assert_string_equal (a->name, "cpu-clock:u");
  assert_string_equal (sfdo_perfdata_attr (pd, 1)->name, "task-clock:u");
  assert_ptr_equal (sfdo_perfdata_find_attr (pd, 222),
                    sfdo_perfdata_attr (pd, 1));
  assert_int_equal (sfdo_perfdata_nbuild_ids (pd), 1);
  const struct sfdo_perfdata_build_id *b = sfdo_perfdata_build_id (pd, 0);
  assert_string_equal (b->filename, "/bin/true");
  assert_int_equal (b->pid, -1);
  assert_int_equal (b->size, 20);
  assert_int_equal (b->id[3], 0xef);
  for (unsigned f = 2; f <= 12; f++)
    assert_true (sfdo_perfdata_has_feature (pd, f));
}

static void
check_records (const struct seen *s)
{
  assert_int_equal (s->n, 7);
  assert_int_equal (s->type[0], SFDO_PERFDATA_MMAP2);
  assert_string_equal (s->text[0], "/bin/true");
  assert_int_equal (s->mmap_addr[0], 0x400000);
  assert_int_equal (s->mmap_ino[0], 4242);
  assert_int_equal (s->id[0].time, 5);
  assert_int_equal (s->id[0].tid, 11);
  assert_int_equal (s->id[0].cpu, 1);
  assert_int_equal (s->id[0].id, 111);
  assert_int_equal (s->type[1], SFDO_PERFDATA_COMM);
  assert_string_equal (s->text[1], "worker");
  assert_int_equal (s->type[2], SFDO_PERFDATA_FORK);
  assert_int_equal (s->ppid[2], 10);
  assert_int_equal (s->type[3], SFDO_PERFDATA_EXIT);
  assert_int_equal (s->type[4], SFDO_PERFDATA_COMM);
  assert_string_equal (s->text[4], "rawcomm");
  assert_int_equal (s->id[4].id, 222);
  assert_int_equal (s->type[5], SFDO_PERFDATA_SAMPLE);
  assert_int_equal (s->ip[5], 0x400010);
  assert_int_equal (s->callchain_nr[5], 3);
  assert_int_equal (s->callchain1[5], 0x400020);
  assert_int_equal (s->regs_abi[5], 2);
  assert_int_equal (s->reg2[5], 1002);
  assert_int_equal (s->type[6], SFDO_PERFDATA_SAMPLE);
  assert_string_equal (s->attr[6]->name, "task-clock:u");
  assert_int_equal (s->branch_nr[6], 2);
  assert_int_equal (s->branch_to[6], 0x400200);
  assert_int_equal (s->reg2[6], 1002);
  assert_int_equal (s->period[6], 250007);
}

static void
test_round_trip (void **state)
{
  (void) state;
  const char *path = temp_path ();
  write_file (path);
  struct sfdo_perfdata *pd;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_open (path, &pd, &err), SFDO_OK);
  check_attrs (pd);
  struct seen *s = calloc (1, sizeof *s);
  assert_int_equal (sfdo_perfdata_foreach_record (pd, collect, s, &err),
                    SFDO_OK);
  check_records (s);
  assert_int_equal (sfdo_perfdata_stats (pd)->unknown_records, 0);
  free (s);
  sfdo_perfdata_close (pd);
  unlink (path);
}

/* Nothing appears under PATH before finish, nor after abort.  */
static void
test_temporary_then_rename (void **state)
{
  (void) state;
  const char *path = temp_path ();
  unlink (path);
  struct sfdo_perfdata_writer *w;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_writer_open (path, &w, &err), SFDO_OK);
  struct stat st;
  assert_int_not_equal (stat (path, &st), 0);
  sfdo_perfdata_writer_abort (w);
  assert_int_not_equal (stat (path, &st), 0);
  /* No event: finishing fails and leaves nothing.  */
  assert_int_equal (sfdo_perfdata_writer_open (path, &w, &err), SFDO_OK);
  assert_int_equal (sfdo_perfdata_writer_finish (w, &err), SFDO_E_USAGE);
  assert_int_not_equal (stat (path, &st), 0);
}

static void
test_errors (void **state)
{
  (void) state;
  struct sfdo_perfdata_writer *w;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_writer_open ("/nonexistent/dir/x.data", &w,
                                               &err), SFDO_E_IO);
  assert_null (w);
  assert_non_null (strstr (err.path, "/nonexistent/dir/x.data"));
  /* A FIFO (as /dev/null) is refused, not replaced by the file.  */
  char fifo[64];
  struct stat st;
  snprintf (fifo, sizeof fifo, "/tmp/sfdo-test-write.%d.fifo", (int) getpid ());
  unlink (fifo);
  assert_int_equal (mkfifo (fifo, 0600), 0);
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_perfdata_writer_open (fifo, &w, &err), SFDO_E_USAGE);
  assert_null (w);
  assert_int_equal (stat (fifo, &st), 0);
  assert_true (S_ISFIFO (st.st_mode));
  unlink (fifo);
  sfdo_error_clear (&err);
  const char *path = temp_path ();
  assert_int_equal (sfdo_perfdata_writer_open (path, &w, NULL), SFDO_OK);
  struct perf_event_attr a;
  make_attr (&a, PERF_SAMPLE_READ);
  assert_int_equal (sfdo_perfdata_writer_add_attr (w, &a, sizeof a, NULL,
                                                   NULL, 0, NULL), SFDO_OK);
  assert_int_equal (sfdo_perfdata_writer_add_attr (w, &a, 72, NULL, NULL, 0,
                                                   NULL), SFDO_E_USAGE);
  struct sfdo_perfdata_sample s;
  memset (&s, 0, sizeof s);
  assert_int_equal (sfdo_perfdata_write_sample (w, 0, 0, &s, NULL),
                    SFDO_E_USAGE);
  uint8_t id[21] = { 0 };
  assert_int_equal (sfdo_perfdata_writer_add_build_id (w, -1, 2, id, 21, "x",
                                                       NULL), SFDO_E_USAGE);
  sfdo_perfdata_writer_abort (w);
}

/* Three files mapped by process 10; samples only in the second, some by
   process 12, forked from 10 and mapping nothing itself, some kernel
   samples elsewhere.  */
static void
test_count_samples (void **state)
{
  (void) state;
  const char *path = temp_path ();
  struct sfdo_perfdata_writer *w;
  struct perf_event_attr a;
  assert_int_equal (sfdo_perfdata_writer_open (path, &w, NULL), SFDO_OK);
  make_attr (&a, 0);
  uint64_t ids[1] = { 111 };
  assert_int_equal (sfdo_perfdata_writer_add_attr (w, &a, sizeof a, "c:u",
                                                   ids, 1, NULL), SFDO_OK);
  static const char *const files[] = { "/bin/a", "/lib/b.so", "/lib/c.so" };
  struct sfdo_perfdata_sample_id id = { 0, 10, 10, 1, 111, 0, 0 };
  for (int i = 0; i < 3; i++)
    {
      struct sfdo_perfdata_mmap m = { .pid = 10, .tid = 10,
                                      .addr = 0x400000 + 0x100000 * (uint64_t) i,
                                      .len = 0x10000, .filename = files[i] };
      assert_int_equal (sfdo_perfdata_write_mmap2 (w, 2, &m, &id, NULL),
                        SFDO_OK);
    }
  struct sfdo_perfdata_task t = { 12, 10, 12, 10, 2 };
  assert_int_equal (sfdo_perfdata_write_task (w, SFDO_PERFDATA_FORK, &t, &id,
                                              NULL), SFDO_OK);
  struct sfdo_perfdata_sample s;
  memset (&s, 0, sizeof s);
  s.id = 111, s.pid = s.tid = 10, s.ip = 0x500123;
  for (int i = 0; i < 3; i++)
    assert_int_equal (sfdo_perfdata_write_sample (w, 0, 2, &s, NULL), SFDO_OK);
  s.pid = s.tid = 12, s.ip = 0x50f000;
  assert_int_equal (sfdo_perfdata_write_sample (w, 0, 2, &s, NULL), SFDO_OK);
  s.ip = 0x400000;              /* kernel mode: not counted */
  assert_int_equal (sfdo_perfdata_write_sample (w, 0, 1, &s, NULL), SFDO_OK);
  s.pid = s.tid = 99, s.ip = 0x600000;      /* nobody's mapping */
  assert_int_equal (sfdo_perfdata_write_sample (w, 0, 2, &s, NULL), SFDO_OK);
  assert_int_equal (sfdo_perfdata_writer_count_samples (w), 4);
  assert_int_equal (sfdo_perfdata_writer_mapped (w, 0)->samples, 0);
  assert_int_equal (sfdo_perfdata_writer_mapped (w, 1)->samples, 4);
  assert_int_equal (sfdo_perfdata_writer_mapped (w, 2)->samples, 0);
  sfdo_perfdata_writer_abort (w);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_round_trip),
    cmocka_unit_test (test_temporary_then_rename),
    cmocka_unit_test (test_errors),
    cmocka_unit_test (test_count_samples),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
