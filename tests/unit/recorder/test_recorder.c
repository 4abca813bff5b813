/* tests/unit/recorder/test_recorder.c - the recorder's pure parts: the
 * default event choice on fake PMU descriptions (Intel with LBR, AMD Zen
 * 4 and Zen 3, PMUs without branch sampling, no PMU at all) and its
 * fallbacks, event name encoding (the chosen names too, with libpfm4
 * forced to those CPUs' PMUs; perf's software events with libpfm4 unable
 * to encode anything), the period jitter, attr preparation and ELF
 * build-ids.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/perf_event.h>   /* before libpfm4's copy of it */
#include <perfmon/pfmlib_perf_event.h>

#include "../../../recorder/events.h"
#include "../../../recorder/procsynth.h"
#include "../../../recorder/record.h"
#include "../../../recorder/sampler.h"

static struct sfdo_rec_caps
caps_of (enum sfdo_rec_vendor v, int hw, unsigned lbr, int lbr_v2, int brs,
         int precise)
{
  struct sfdo_rec_caps c;
  memset (&c, 0, sizeof c);
  c.vendor = v;
  c.hw_events = hw;
  c.hw_errno = hw ? 0 : 2;
  c.lbr_depth = lbr;
  c.amd_lbr_v2 = lbr_v2;
  c.amd_brs = brs;
  c.max_precise = precise;
  return c;
}

static void
test_intel_lbr (void **state)
{
  (void) state;
  struct sfdo_rec_caps c = caps_of (SFDO_REC_VENDOR_INTEL, 1, 32, 0, 0, 3);
  struct sfdo_rec_choice ch;
  assert_int_equal (sfdo_rec_choose (&c, 0, &ch, NULL), SFDO_OK);
  assert_int_equal (ch.n, 3);
  assert_string_equal (ch.ev[0].name, "BR_INST_RETIRED:NEAR_TAKEN");
  assert_true (ch.ev[0].branch_stack);
  assert_int_equal (ch.ev[0].precise, 2);
  assert_string_equal (ch.ev[1].name, "INST_RETIRED:ANY_P");
  assert_false (ch.ev[1].branch_stack);
  assert_string_equal (ch.ev[2].name, "CPU_CLK_UNHALTED:THREAD_P");
  assert_non_null (strstr (ch.why, "LBR"));
  /* -b is satisfied.  */
  assert_int_equal (sfdo_rec_choose (&c, 1, &ch, NULL), SFDO_OK);
}

static void
test_amd_branch_sampling (void **state)
{
  (void) state;
  struct sfdo_rec_choice ch;
  struct sfdo_rec_caps zen4 = caps_of (SFDO_REC_VENDOR_AMD, 1, 0, 1, 0, 0);
  assert_int_equal (sfdo_rec_choose (&zen4, 1, &ch, NULL), SFDO_OK);
  assert_string_equal (ch.ev[0].name, "RETIRED_TAKEN_BRANCH_INSTRUCTIONS");
  assert_true (ch.ev[0].branch_stack);
  assert_string_equal (ch.ev[1].name, "RETIRED_INSTRUCTIONS");
  assert_string_equal (ch.ev[2].name, "CYCLES_NOT_IN_HALT");
  assert_non_null (strstr (ch.why, "LbrExtV2"));
  struct sfdo_rec_caps zen3 = caps_of (SFDO_REC_VENDOR_AMD, 1, 0, 0, 1, 0);
  assert_int_equal (sfdo_rec_choose (&zen3, 0, &ch, NULL), SFDO_OK);
  assert_true (ch.ev[0].branch_stack);
  assert_non_null (strstr (ch.why, "BRS"));
}

/* Hardware without branch sampling: IP-only instructions and cycles,
   precise only where the PMU has it; -b is an error saying why.  */
static void
test_ip_only (void **state)
{
  (void) state;
  struct sfdo_rec_choice ch;
  struct sfdo_error err;
  struct sfdo_rec_caps intel = caps_of (SFDO_REC_VENDOR_INTEL, 1, 0, 0, 0, 2);
  assert_int_equal (sfdo_rec_choose (&intel, 0, &ch, NULL), SFDO_OK);
  assert_int_equal (ch.n, 2);
  assert_string_equal (ch.ev[0].name, "INST_RETIRED:ANY_P");
  assert_int_equal (ch.ev[0].precise, 2);
  assert_false (ch.ev[0].branch_stack);
  assert_non_null (strstr (ch.why, "no LBR"));
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_rec_choose (&intel, 1, &ch, &err), SFDO_E_USAGE);
  assert_non_null (strstr (err.msg, "no LBR"));
  struct sfdo_rec_caps amd = caps_of (SFDO_REC_VENDOR_AMD, 1, 0, 0, 0, 0);
  assert_int_equal (sfdo_rec_choose (&amd, 0, &ch, NULL), SFDO_OK);
  assert_string_equal (ch.ev[0].name, "RETIRED_INSTRUCTIONS");
  assert_int_equal (ch.ev[0].precise, 0);
  struct sfdo_rec_caps arm = caps_of (SFDO_REC_VENDOR_OTHER, 1, 0, 0, 0, 0);
  assert_int_equal (sfdo_rec_choose (&arm, 0, &ch, NULL), SFDO_OK);
  assert_string_equal (ch.ev[0].name, "instructions");
  assert_string_equal (ch.ev[1].name, "cycles");
}

/* No hardware PMU (this VM): cpu-clock, saying what it fell back from;
   even a CPU with LBR in cpuinfo falls back when no hardware event
   opens.  */
static void
test_no_pmu (void **state)
{
  (void) state;
  struct sfdo_rec_choice ch;
  struct sfdo_rec_caps none = caps_of (SFDO_REC_VENDOR_INTEL, 0, 32, 0, 0, 3);
  assert_int_equal (sfdo_rec_choose (&none, 0, &ch, NULL), SFDO_OK);
  assert_int_equal (ch.n, 1);
  assert_string_equal (ch.ev[0].name, "cpu-clock");
  assert_int_equal (ch.ev[0].period, SFDO_REC_SW_PERIOD);
  assert_non_null (strstr (ch.why, "fell back from hardware"));
  assert_non_null (strstr (ch.why, "cpu-clock"));
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_rec_choose (&none, 1, &ch, &err), SFDO_E_USAGE);
  assert_non_null (strstr (err.msg, "no hardware PMU"));
}

/* When the PMU refuses the chosen set: without precise, then cpu-clock,
   then nothing; never cpu-clock when -b asked for branch stacks.  */
static void
test_fall_back (void **state)
{
  (void) state;
  struct sfdo_rec_choice ch;
  struct sfdo_rec_caps c = caps_of (SFDO_REC_VENDOR_INTEL, 1, 32, 0, 0, 3);
  assert_int_equal (sfdo_rec_choose (&c, 0, &ch, NULL), SFDO_OK);
  assert_int_equal (sfdo_rec_fall_back (&ch, 0), 1);
  assert_int_equal (ch.n, 3);
  assert_int_equal (ch.ev[0].precise, 0);
  assert_true (ch.ev[0].branch_stack);
  assert_non_null (strstr (ch.why, "without precise"));
  assert_int_equal (sfdo_rec_fall_back (&ch, 0), 1);
  assert_int_equal (ch.n, 1);
  assert_string_equal (ch.ev[0].name, "cpu-clock");
  assert_int_equal (sfdo_rec_fall_back (&ch, 0), 0);
  assert_int_equal (sfdo_rec_choose (&c, 1, &ch, NULL), SFDO_OK);
  assert_int_equal (sfdo_rec_fall_back (&ch, 1), 1);
  assert_int_equal (sfdo_rec_fall_back (&ch, 1), 0);
  assert_string_equal (ch.ev[0].name, "BR_INST_RETIRED:NEAR_TAKEN");
}

static void
test_encode (void **state)
{
  (void) state;
  struct perf_event_attr a;
  char canon[128];
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_rec_encode ("cpu-clock:u", 0, &a, canon,
                                     sizeof canon, &err), SFDO_OK);
  assert_int_equal (a.type, PERF_TYPE_SOFTWARE);
  assert_int_equal (a.config, PERF_COUNT_SW_CPU_CLOCK);
  assert_true (a.exclude_kernel);
  assert_false (a.exclude_user);
  assert_string_equal (canon, "cpu-clock");
  assert_int_equal (sfdo_rec_encode ("cycles:pp", 0, &a, canon, sizeof canon,
                                     &err), SFDO_OK);
  assert_int_equal (a.type, PERF_TYPE_HARDWARE);
  assert_int_equal (a.precise_ip, 2);
  assert_int_equal (sfdo_rec_encode ("instructions", 1, &a, canon,
                                     sizeof canon, &err), SFDO_OK);
  assert_int_equal (a.precise_ip, 1);
  assert_int_equal (sfdo_rec_encode ("NO_SUCH_EVENT:X", 0, &a, canon,
                                     sizeof canon, &err), SFDO_E_USAGE);
  assert_string_equal (err.path, "NO_SUCH_EVENT:X");
  assert_non_null (strstr (err.msg, "unknown event"));
}

/* perf's software events by each of their names, without libpfm4: the
   table sfdo-record falls back on.  */
static void
test_software_names (void **state)
{
  (void) state;
  static const struct { const char *name; uint64_t config; } known[] = {
    { "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
    { "task-clock", PERF_COUNT_SW_TASK_CLOCK },
    { "TASK-CLOCK", PERF_COUNT_SW_TASK_CLOCK },
    { "perf::cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
    { "perf::PERF_COUNT_SW_CPU_CLOCK", PERF_COUNT_SW_CPU_CLOCK },
    { "PERF_COUNT_SW_TASK_CLOCK", PERF_COUNT_SW_TASK_CLOCK },
    { "faults", PERF_COUNT_SW_PAGE_FAULTS },
    { "PERF::CS", PERF_COUNT_SW_CONTEXT_SWITCHES },
    { "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN", PERF_COUNT_SW_PAGE_FAULTS_MIN },
    { "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
    { "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    {
      uint64_t config = 99;
      assert_true (sfdo_rec_software_event (known[i].name, &config));
      assert_int_equal (config, known[i].config);
    }
  /* Modifiers are sfdo_rec_encode's to strip; hardware names are
     libpfm4's.  */
  static const char *const not_sw[] = {
    "cpu-clock:u", "cycles", "instructions", "", "perf::", "PERF_COUNT_SW_",
    "cpu-clocks", "perf::perf::cpu-clock", "PERF_COUNT_HW_CPU_CYCLES",
    "PERF_COUNT_SW_cpu-clock", "dummy",
  };
  for (size_t i = 0; i < sizeof not_sw / sizeof not_sw[0]; i++)
    {
      uint64_t config = 99;
      assert_false (sfdo_rec_software_event (not_sw[i], &config));
      assert_int_equal (config, 99);
    }
}

/* argv[1] that makes this program run software_checks () instead.  */
#define SOFTWARE_CHECKS "--software-checks"

/* The fields of a software event's attr a recording depends on.  */
struct sw_attr {
  uint32_t type, size;
  uint64_t config;
  unsigned excl_user, excl_kernel, excl_hv, excl_guest, precise;
  char canon[32];
};

/* NAME through sfdo_rec_encode, into OUT.  Returns its result.  */
static enum sfdo_errc
encode_sw (const char *name, struct sw_attr *out, struct sfdo_error *err)
{
  struct perf_event_attr a;
  memset (out, 0, sizeof *out);
  enum sfdo_errc rc = sfdo_rec_encode (name, 0, &a, out->canon,
                                       sizeof out->canon, err);
  out->type = a.type;
  out->size = a.size;
  out->config = a.config;
  out->excl_user = a.exclude_user;
  out->excl_kernel = a.exclude_kernel;
  out->excl_hv = a.exclude_hv;
  out->excl_guest = a.exclude_guest;
  out->precise = a.precise_ip;
  return rc;
}

/* The checks of test_software_without_libpfm4, in the fresh process it
   runs: libpfm4 cannot encode cpu-clock, yet sfdo_rec_encode can, and
   says clearly what it cannot.  Returns 0, or which check failed.  */
static int
software_checks (int to_parent)
{
  pfm_perf_encode_arg_t arg;
  struct perf_event_attr a;
  memset (&arg, 0, sizeof arg);
  memset (&a, 0, sizeof a);
  arg.attr = &a;
  arg.size = sizeof arg;
  if (pfm_get_os_event_encoding ("cpu-clock", PFM_PLM3,
                                 PFM_OS_PERF_EVENT_EXT, &arg) == PFM_SUCCESS)
    return 1;                   /* the test would show nothing */
  struct sw_attr sw;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  if (encode_sw ("cpu-clock", &sw, &err) != SFDO_OK
      || sw.type != PERF_TYPE_SOFTWARE || sw.config != PERF_COUNT_SW_CPU_CLOCK
      || strcmp (sw.canon, "cpu-clock"))
    return 2;
  if (encode_sw ("perf::TASK-CLOCK:k", &sw, &err) != SFDO_OK
      || sw.config != PERF_COUNT_SW_TASK_CLOCK || !sw.excl_kernel
      || sw.excl_user || strcmp (sw.canon, "perf::TASK-CLOCK"))
    return 3;                   /* user space only, as with libpfm4 */
  if (encode_sw ("cycles", &sw, &err) != SFDO_E_USAGE
      || strcmp (err.path, "cycles") || !strstr (err.msg, "libpfm4"))
    return 4;                   /* a hardware name stays libpfm4's */
  if (encode_sw ("task-clock:u", &sw, &err) != SFDO_OK
      || write (to_parent, &sw, sizeof sw) != (ssize_t) sizeof sw)
    return 5;
  return 0;
}

/* perf's software events encode whatever libpfm4 knows: in a process
   with libpfm4 forced to a PMU no version of it has (so its tables hold
   no perf:: events and it encodes nothing), cpu-clock and task-clock
   still encode, and to the attr they get here, where libpfm4 may encode
   them itself.  The process is this program run afresh: libpfm4, once
   initialised, keeps its PMUs active through pfm_terminate().  */
static void
test_software_without_libpfm4 (void **state)
{
  (void) state;
  int fds[2];
  assert_int_equal (pipe (fds), 0);
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      char fd[16];
      close (fds[0]);
      snprintf (fd, sizeof fd, "%d", fds[1]);
      setenv ("LIBPFM_FORCE_PMU", "sfdo_no_such_pmu", 1);
      execl ("/proc/self/exe", "test_recorder", SOFTWARE_CHECKS, fd,
             (char *) NULL);
      _exit (127);
    }
  close (fds[1]);
  struct sw_attr without, here;
  ssize_t got = read (fds[0], &without, sizeof without);
  close (fds[0]);
  int status = -1;
  waitpid (pid, &status, 0);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  assert_int_equal (got, (ssize_t) sizeof without);
  assert_int_equal (encode_sw ("task-clock:u", &here, NULL), SFDO_OK);
  assert_memory_equal (&without, &here, sizeof here);
}

/* Encode every event CAPS's choice names, with libpfm4 made to believe
   the CPU's PMU is FORCE (LIBPFM_FORCE_PMU), in a child process, since
   libpfm4 initialises once.  Returns the child's exit status: 0 when
   every event encoded into a raw hardware event.  */
static int
encode_choice_as (const char *force, const struct sfdo_rec_caps *caps)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      struct sfdo_rec_choice ch;
      setenv ("LIBPFM_FORCE_PMU", force, 1);
      pfm_terminate ();
      if (pfm_initialize () != PFM_SUCCESS
          || sfdo_rec_choose (caps, 0, &ch, NULL) != SFDO_OK)
        _exit (10);
      for (size_t i = 0; i < ch.n; i++)
        {
          struct perf_event_attr a;
          char canon[128];
          if (sfdo_rec_encode (ch.ev[i].name, ch.ev[i].precise, &a, canon,
                               sizeof canon, NULL) != SFDO_OK
              || a.type != PERF_TYPE_RAW || !a.exclude_kernel)
            _exit (20 + (int) i);
        }
      _exit (0);
    }
  int status = -1;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 99;
}

/* The names the choice gives for machines we do not have are the ones
   libpfm4 knows for them.  */
static void
test_choices_encode (void **state)
{
  (void) state;
  struct sfdo_rec_caps skl = caps_of (SFDO_REC_VENDOR_INTEL, 1, 32, 0, 0, 3);
  struct sfdo_rec_caps icl = caps_of (SFDO_REC_VENDOR_INTEL, 1, 0, 0, 0, 3);
  struct sfdo_rec_caps zen4 = caps_of (SFDO_REC_VENDOR_AMD, 1, 0, 1, 0, 0);
  struct sfdo_rec_caps zen3 = caps_of (SFDO_REC_VENDOR_AMD, 1, 0, 0, 1, 0);
  struct sfdo_rec_caps zen2 = caps_of (SFDO_REC_VENDOR_AMD, 1, 0, 0, 0, 0);
  assert_int_equal (encode_choice_as ("skl", &skl), 0);
  assert_int_equal (encode_choice_as ("spr", &skl), 0);
  assert_int_equal (encode_choice_as ("icl", &icl), 0);
  assert_int_equal (encode_choice_as ("amd64_fam19h_zen4", &zen4), 0);
  assert_int_equal (encode_choice_as ("amd64_fam19h_zen3", &zen3), 0);
  assert_int_equal (encode_choice_as ("amd64_fam17h_zen2", &zen2), 0);
  /* And a wrong vendor's names do not encode: the check can fail.  */
  assert_int_not_equal (encode_choice_as ("amd64_fam19h_zen4", &skl), 0);
}

static void
test_jitter (void **state)
{
  (void) state;
  uint64_t rng = 12345, base = 250007, lo = UINT64_MAX, hi = 0, sum = 0;
  for (int i = 0; i < 10000; i++)
    {
      uint64_t p = sfdo_rec_jitter (base, &rng);
      assert_true (p >= base - base / 16 && p <= base + base / 16);
      lo = p < lo ? p : lo;
      hi = p > hi ? p : hi;
      sum += p;
    }
  assert_true (hi - lo > base / 10);             /* it does vary */
  double mean = (double) sum / 10000;
  assert_true (mean > base * 0.99 && mean < base * 1.01);
  assert_int_equal (sfdo_rec_jitter (10, &rng), 10);   /* too small */
}

static void
test_prepare_attr (void **state)
{
  (void) state;
  struct perf_event_attr a;
  memset (&a, 0, sizeof a);
  struct sfdo_rec_sampling how = { 0, 0, 1, 1, 1, 1, 1 };
  sfdo_rec_prepare_attr (&a, &how, 1000003);
  assert_int_equal (a.sample_period, 1000003);
  assert_true (a.sample_type & PERF_SAMPLE_IDENTIFIER);
  assert_true (a.sample_type & PERF_SAMPLE_CALLCHAIN);
  assert_true (a.sample_type & PERF_SAMPLE_BRANCH_STACK);
  assert_true (a.sample_type & PERF_SAMPLE_REGS_USER);     /* not precise */
  assert_int_equal (a.sample_regs_user, SFDO_REC_REGS_MASK);
  assert_true (a.branch_sample_type & PERF_SAMPLE_BRANCH_USER);
  assert_true (a.inherit && a.enable_on_exec && a.disabled);
  assert_true (a.mmap && a.mmap2 && a.comm && a.task && a.sample_id_all);
  assert_true (a.exclude_kernel);
  memset (&a, 0, sizeof a);
  a.precise_ip = 2;
  struct sfdo_rec_sampling freq = { 0, 999, 0, 0, 1, 0, 0 };
  sfdo_rec_prepare_attr (&a, &freq, 1000003);
  assert_true (a.freq);
  assert_int_equal (a.sample_freq, 999);
  assert_true (a.sample_type & PERF_SAMPLE_REGS_INTR);     /* precise */
  assert_false (a.sample_type & PERF_SAMPLE_REGS_USER);
  assert_false (a.inherit);
}

/* This test binary has a GNU build-id (Debian's GCC links one in).  */
static void
test_build_id (void **state)
{
  (void) state;
  uint8_t id[20];
  assert_int_equal (sfdo_rec_elf_build_id ("/proc/self/exe", id), 20);
  assert_int_equal (sfdo_rec_elf_build_id ("/nonexistent", id), 0);
  assert_int_equal (sfdo_rec_elf_build_id ("/proc/self/status", id), 0);
}

/* A user-space sample of process PID at IP, of the one event of W.  */
static void
sample_at (struct sfdo_perfdata_writer *w, uint32_t pid, uint64_t ip)
{
  struct sfdo_perfdata_sample s;
  memset (&s, 0, sizeof s);
  s.pid = s.tid = pid;
  s.ip = ip;
  assert_int_equal (sfdo_perfdata_write_sample (w, 0, 2, &s, NULL), SFDO_OK);
}

/* Build-ids of mapped files that were sampled: taken from the file when
   its inode is the mapped one, skipped when the name now holds another
   file, and for a file no sample fell in (as perf record does).  */
static void
test_add_build_ids (void **state)
{
  (void) state;
  char exe[4096], path[64];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  assert_true (n > 0);
  exe[n] = 0;
  struct stat st, other;
  assert_int_equal (stat (exe, &st), 0);
  assert_int_equal (stat ("/bin/true", &other), 0);
  snprintf (path, sizeof path, "/tmp/sfdo-test-bids.%d.data", (int) getpid ());
  struct sfdo_perfdata_writer *w;
  assert_int_equal (sfdo_perfdata_writer_open (path, &w, NULL), SFDO_OK);
  struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof a,
                               .sample_period = 1000,
                               .sample_type = PERF_SAMPLE_IP
                                              | PERF_SAMPLE_TID };
  assert_int_equal (sfdo_perfdata_writer_add_attr (w, &a, sizeof a, "c",
                                                   NULL, 0, NULL), SFDO_OK);
  struct sfdo_perfdata_mmap m = { .pid = 1, .tid = 1, .addr = 0x1000,
                                  .len = 0x1000, .ino = st.st_ino,
                                  .filename = exe };
  assert_int_equal (sfdo_perfdata_write_mmap2 (w, 2, &m, NULL, NULL), SFDO_OK);
  m.pid = m.tid = 2;
  m.filename = "/bin/sh";       /* not the inode that was mapped */
  m.ino = 1;
  assert_int_equal (sfdo_perfdata_write_mmap2 (w, 2, &m, NULL, NULL), SFDO_OK);
  m.pid = m.tid = 3;
  m.filename = "[vdso]";
  assert_int_equal (sfdo_perfdata_write_mmap2 (w, 2, &m, NULL, NULL), SFDO_OK);
  m.pid = m.tid = 4;
  m.filename = "/bin/true";     /* the very file, but never sampled */
  m.ino = other.st_ino;
  assert_int_equal (sfdo_perfdata_write_mmap2 (w, 2, &m, NULL, NULL), SFDO_OK);
  for (uint32_t pid = 1; pid <= 3; pid++)
    sample_at (w, pid, 0x1800);
  assert_int_equal (sfdo_perfdata_writer_nmapped (w), 4);
  assert_int_equal (sfdo_rec_add_build_ids (w, 0), 1);
  sfdo_perfdata_writer_abort (w);
}

static void
collect_note (const char *msg, void *ctx)
{
  (*(int *) ctx)++;
  assert_true (msg[0] != 0);
}

/* The library prints nothing: a recording that cannot start returns its
   error (and notes go to the callback), stderr stays empty.  */
static void
test_run_returns_errors (void **state)
{
  (void) state;
  char *const command[] = { (char *) "true", NULL };
  struct sfdo_rec_options o;
  memset (&o, 0, sizeof o);
  o.output = "/nonexistent-dir/out.data";
  o.jitter = 1;
  o.mmap_pages = 8;
  o.command = command;
  int notes = 0;
  o.note = collect_note;
  o.note_ctx = &notes;
  char path[64];
  snprintf (path, sizeof path, "/tmp/sfdo-test-stderr.%d", (int) getpid ());
  fflush (stderr);
  int saved = dup (2);
  FILE *f = fopen (path, "w+");
  assert_non_null (f);
  dup2 (fileno (f), 2);
  struct sfdo_rec_result res;
  int status = sfdo_rec_run (&o, &res);
  fflush (stderr);
  dup2 (saved, 2);
  close (saved);
  struct stat st;
  assert_int_equal (fstat (fileno (f), &st), 0);
  long printed = (long) st.st_size;
  fclose (f);
  unlink (path);
  assert_int_equal (status, SFDO_REC_EXIT_FAILED);
  assert_int_equal (res.status, SFDO_REC_EXIT_FAILED);
  assert_int_not_equal (res.err.code, SFDO_OK);
  assert_non_null (strstr (res.err.path, "/nonexistent-dir/out.data"));
  assert_false (res.written);
  assert_int_equal (printed, 0);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && !strcmp (argv[1], SOFTWARE_CHECKS))
    return software_checks (atoi (argv[2]));
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_intel_lbr),
    cmocka_unit_test (test_amd_branch_sampling),
    cmocka_unit_test (test_ip_only),
    cmocka_unit_test (test_no_pmu),
    cmocka_unit_test (test_fall_back),
    cmocka_unit_test (test_encode),
    cmocka_unit_test (test_software_names),
    cmocka_unit_test (test_software_without_libpfm4),
    cmocka_unit_test (test_choices_encode),
    cmocka_unit_test (test_jitter),
    cmocka_unit_test (test_prepare_attr),
    cmocka_unit_test (test_build_id),
    cmocka_unit_test (test_add_build_ids),
    cmocka_unit_test (test_run_returns_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
