/* tests/unit/converter/core_fixture.h - what the converter-core tests
 * share: a small program compiled here with gcc -g (known functions: a
 * division, a loop, a straight function), its functions' addresses and
 * instructions, perf.data files written with the project's own writer
 * (perfdata_write.h) that sample it, and a conversion of them through
 * convert.h.  So the converter is tested on any machine, without perf.
 * Everything is static: each test file includes it once.  */
#ifndef SFDO_TESTS_CORE_FIXTURE_H
#define SFDO_TESTS_CORE_FIXTURE_H

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

#include "../../../converter/blocks.h"
#include "../../../converter/convert.h"
#include "../../../converter/symtab.h"
#include "../../../perfdata/perfdata.h"
#include "../../../perfdata/perfdata_write.h"
#include "../../../profiles/profile.h"

static const char core_source[] =
  "#include <string.h>\n"                                         /*  1 */
  "__attribute__ ((noinline)) unsigned\n"                         /*  2 */
  "divide (unsigned a, unsigned b)\n"                             /*  3 */
  "{\n"                                                           /*  4 */
  "  return a / b;\n"                                             /*  5 */
  "}\n"                                                           /*  6 */
  "__attribute__ ((noinline)) unsigned\n"                         /*  7 */
  "loop (unsigned n)\n"                                           /*  8 */
  "{\n"                                                           /*  9 */
  "  unsigned s = 1;\n"                                           /* 10 */
  "  for (unsigned i = 0; i < n; i++)\n"                          /* 11 */
  "    s = s * 3 + i;\n"                                          /* 12 */
  "  return s;\n"                                                 /* 13 */
  "}\n"                                                           /* 14 */
  "__attribute__ ((noinline)) unsigned\n"                         /* 15 */
  "straight (unsigned x)\n"                                       /* 16 */
  "{\n"                                                           /* 17 */
  "  return x * 7 + 3;\n"                                         /* 18 */
  "}\n"                                                           /* 19 */
  "int\n"                                                         /* 20 */
  "main (int argc, char **argv)\n"                                /* 21 */
  "{\n"                                                           /* 22 */
  "  (void) argv;\n"                                              /* 23 */
  "  return (int) (divide (loop ((unsigned) argc), 3)\n"          /* 24 */
  "                + straight ((unsigned) argc));\n"              /* 25 */
  "}\n";                                                          /* 26 */

/* Where the program loads: -no-pie, so its addresses are its own.  */
#define CORE_BASE 0x400000ull
#define CORE_MAP_LEN 0x10000ull
#define CORE_PID 4242u

/* perf register numbers (x86-64) and the mask the tests record.  */
enum { REG_AX, REG_BX, REG_CX, REG_DX, REG_SI, REG_DI, NREGS };
#define REGS_MASK ((1ull << NREGS) - 1)

struct core {
  char dir[64];
  char bin[128], other[128];    /* the program; a build of it with -O0 */
  uint64_t divide, loop, straight;      /* function entries */
  uint64_t loop_jump, loop_head;        /* the loop's back edge */
};

static int
core_run (const char *cmd, char *out, size_t size)
{
  FILE *p = popen (cmd, "r");
  if (!p)
    return -1;
  size_t n = fread (out, 1, size - 1, p);
  out[n] = 0;
  return pclose (p);
}

/* The address of function NAME in BIN, from nm.  */
static uint64_t
core_symbol (const char *bin, const char *name)
{
  char cmd[300], out[128];
  unsigned long long a = 0;
  snprintf (cmd, sizeof cmd, "nm %s | sed -n 's/ T %s$//p'", bin, name);
  if (core_run (cmd, out, sizeof out) != 0 || sscanf (out, "%llx", &a) != 1)
    fprintf (stderr, "no %s in nm %s: %s\n", name, bin, out);
  return a;
}

/* The back edge of the loop function: its conditional jump backwards.  */
static int
core_find_back_edge (struct core *c)
{
  struct sfdo_symtab *st = NULL;
  struct sfdo_decoder *dec = NULL;
  uint64_t lo, hi;
  const uint8_t *code;
  size_t len;
  if (sfdo_symtab_open (c->bin, &st, NULL) != SFDO_OK
      || sfdo_decoder_new (62, &dec, NULL) != SFDO_OK
      || sfdo_symtab_function_range (st, c->loop, &lo, &hi) != 0
      || sfdo_symtab_code (st, lo, &code, &len) != 0)
    return -1;
  struct sfdo_func_blocks fb;
  sfdo_decode_function (dec, code, len, lo, hi, &fb);
  for (size_t i = 0; i < fb.ninsns; i++)
    if (fb.kinds[i] == SFDO_INSN_CJUMP && fb.jump_targets[i]
        && fb.jump_targets[i] < fb.insn_addrs[i])
      {
        c->loop_jump = fb.insn_addrs[i];
        c->loop_head = fb.jump_targets[i];
      }
  sfdo_func_blocks_release (&fb);
  sfdo_decoder_free (dec);
  sfdo_symtab_free (st);
  return c->loop_jump ? 0 : -1;
}

static int
core_setup (void **state)
{
  struct core *c = calloc (1, sizeof *c);
  char cmd[600], out[256];
  if (!c)
    return -1;
  snprintf (c->dir, sizeof c->dir, "/tmp/sfdo-test-core.XXXXXX");
  if (!mkdtemp (c->dir))
    return -1;
  snprintf (c->bin, sizeof c->bin, "%s/core", c->dir);
  snprintf (c->other, sizeof c->other, "%s/other", c->dir);
  snprintf (cmd, sizeof cmd, "%s/core.c", c->dir);
  FILE *f = fopen (cmd, "w");
  if (!f)
    return -1;
  fputs (core_source, f);
  fclose (f);
  snprintf (cmd, sizeof cmd,
            "cd %s && gcc -std=c11 -O1 -g -no-pie -fno-inline "
            "-fcf-protection=none core.c -o core 2>&1 && "
            "gcc -std=c11 -O0 -g -no-pie core.c -o other 2>&1", c->dir);
  if (core_run (cmd, out, sizeof out) != 0)
    {
      fprintf (stderr, "cannot compile the test program: %s\n", out);
      return -1;
    }
  c->divide = core_symbol (c->bin, "divide");
  c->loop = core_symbol (c->bin, "loop");
  c->straight = core_symbol (c->bin, "straight");
  if (!c->divide || !c->loop || !c->straight || core_find_back_edge (c))
    return -1;
  *state = c;
  return 0;
}

static int
core_teardown (void **state)
{
  struct core *c = *state;
  char cmd[128];
  snprintf (cmd, sizeof cmd, getenv ("SFDO_KEEP_TMP") ? "true %s" : "rm -rf %s", c->dir);
  int rc = system (cmd);
  free (c);
  return rc == 0 ? 0 : -1;
}

/* --- writing perf.data ------------------------------------------------- */

/* An event to record: its name, what its samples carry, its period (or
   frequency with FREQ).  */
struct core_event {
  const char *name;
  uint32_t type;
  uint64_t config, period, sample_type;
  int freq;
};

#define CORE_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP        \
                          | PERF_SAMPLE_TID | PERF_SAMPLE_TIME           \
                          | PERF_SAMPLE_PERIOD)

static const struct core_event EV_CLOCK = {
  "cpu-clock:u", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 10000,
  CORE_SAMPLE_TYPE, 0 };
static const struct core_event EV_INSNS = {
  "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000,
  CORE_SAMPLE_TYPE, 0 };
static const struct core_event EV_INSNS_REGS = {
  "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000,
  CORE_SAMPLE_TYPE | PERF_SAMPLE_REGS_USER, 0 };
static const struct core_event EV_TAKEN_LBR = {
  "BR_INST_RETIRED:NEAR_TAKEN:u", PERF_TYPE_RAW, 0x20c4, 320,
  CORE_SAMPLE_TYPE | PERF_SAMPLE_BRANCH_STACK, 0 };
static const struct core_event EV_TAKEN_LBR_REGS = {
  "BR_INST_RETIRED:NEAR_TAKEN:u", PERF_TYPE_RAW, 0x20c4, 320,
  CORE_SAMPLE_TYPE | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER, 0 };
static const struct core_event EV_INSNS_LBR_REGS = {
  "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000,
  CORE_SAMPLE_TYPE | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER, 0 };

struct core_data {
  char path[160];
  struct sfdo_perfdata_writer *w;
  uint64_t time;
};

/* Start DATA (in C's directory, named NAME) with the N events EV; event
   I has sample id I + 1.  */
static void
core_data_start (const struct core *c, struct core_data *d, const char *name,
                 const struct core_event *ev, size_t n)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  snprintf (d->path, sizeof d->path, "%s/%s", c->dir, name);
  d->time = 1;
  assert_int_equal (sfdo_perfdata_writer_open (d->path, &d->w, &err), SFDO_OK);
  for (size_t i = 0; i < n; i++)
    {
      struct perf_event_attr a;
      memset (&a, 0, sizeof a);
      a.type = ev[i].type;
      a.size = sizeof a;
      a.config = ev[i].config;
      a.sample_period = ev[i].period;
      a.freq = ev[i].freq != 0;
      a.sample_type = ev[i].sample_type;
      a.sample_id_all = 1;
      a.exclude_kernel = 1;
      if (ev[i].sample_type & PERF_SAMPLE_BRANCH_STACK)
        a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY
                               | PERF_SAMPLE_BRANCH_USER;
      if (ev[i].sample_type & PERF_SAMPLE_REGS_USER)
        a.sample_regs_user = REGS_MASK;
      uint64_t id = i + 1;
      assert_int_equal (sfdo_perfdata_writer_add_attr (d->w, &a, sizeof a,
                                                       ev[i].name, &id, 1,
                                                       &err), SFDO_OK);
    }
}

/* FILE is mapped where the program loads.  */
static void
core_data_mmap (struct core_data *d, const char *file)
{
  struct sfdo_perfdata_mmap m;
  struct sfdo_perfdata_sample_id id = { 0 };
  memset (&m, 0, sizeof m);
  m.pid = m.tid = CORE_PID;
  m.addr = CORE_BASE;
  m.len = CORE_MAP_LEN;
  m.prot = 5;
  m.filename = file;
  id.pid = id.tid = CORE_PID;
  id.time = d->time++;
  id.id = 1;
  assert_int_equal (sfdo_perfdata_write_mmap2 (d->w, 2, &m, &id, NULL),
                    SFDO_OK);
}

/* What one sample carries beyond its event and address.  */
struct core_sample {
  uint64_t period;
  const struct sfdo_perfdata_branch *branches;
  size_t nbranches;
  const uint64_t *regs;         /* NREGS of them, or NULL */
};

/* A user-space sample of event EVENT (index) at IP.  */
static void
core_data_sample (struct core_data *d, size_t event, uint64_t ip,
                  const struct core_sample *cs)
{
  struct sfdo_perfdata_sample s;
  memset (&s, 0, sizeof s);
  s.id = event + 1;
  s.ip = ip;
  s.pid = s.tid = CORE_PID;
  s.time = d->time++;
  s.period = cs && cs->period ? cs->period : 1000;
  if (cs)
    {
      s.branches = cs->branches;
      s.branch_nr = cs->nbranches;
      s.regs_user.abi = cs->regs ? PERF_SAMPLE_REGS_ABI_64 : 0;
      s.regs_user.nregs = cs->regs ? NREGS : 0;
      s.regs_user.regs = cs->regs;
    }
  assert_int_equal (sfdo_perfdata_write_sample (d->w, event, 2, &s, NULL),
                    SFDO_OK);
}

static void
core_data_finish (struct core_data *d)
{
  assert_int_equal (sfdo_perfdata_writer_finish (d->w, NULL), SFDO_OK);
  d->w = NULL;
}

/* --- converting ---------------------------------------------------------- */

struct core_result {
  enum sfdo_errc rc;
  struct sfdo_error err;
  struct sfdo_profile *p;
  struct sfdo_convert_stats stats;
};

/* Convert the perf.data at PATH for the N binaries BINS with OPTS (NULL:
   defaults).  */
static struct core_result
core_convert (const char *path, const char *const *bins, size_t n,
              const struct sfdo_convert_opts *opts)
{
  struct core_result r;
  struct sfdo_convert_opts o = { .tool = "test" };
  struct sfdo_converter *cv = NULL;
  struct sfdo_perfdata *pd = NULL;
  memset (&r, 0, sizeof r);
  sfdo_error_clear (&r.err);
  if (opts)
    o = *opts;
  r.rc = sfdo_converter_new (&o, bins, n, &cv, &r.err);
  if (r.rc == SFDO_OK)
    r.rc = sfdo_perfdata_open (path, &pd, &r.err);
  if (r.rc == SFDO_OK)
    r.rc = sfdo_converter_read (cv, pd, NULL, NULL, &r.err);
  if (r.rc == SFDO_OK)
    r.rc = sfdo_converter_build (cv, &r.p, &r.err);
  if (cv)
    r.stats = *sfdo_converter_stats (cv);
  sfdo_perfdata_close (pd);
  sfdo_converter_free (cv);
  return r;
}

static struct core_result
core_convert_ok (const char *path, const char *bin)
{
  struct core_result r = core_convert (path, &bin, 1, NULL);
  if (r.rc != SFDO_OK)
    fail_msg ("converting %s: %s", path, r.err.msg);
  return r;
}

/* --- reading the profile ----------------------------------------------- */

static struct sfdo_prof_func *
core_func (struct sfdo_profile *p, const char *name)
{
  for (size_t i = 0; i < sfdo_profile_nfuncs (p); i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      if (strcmp (sfdo_profile_str (p, f->name), name) == 0)
        return f;
    }
  return NULL;
}

/* The count of line OFFSET (any discriminator, the max) of F.  */
static uint64_t
core_line (const struct sfdo_prof_func *f, uint32_t offset)
{
  uint64_t c = 0;
  for (size_t i = 0; f && i < f->nlines; i++)
    if (f->lines[i].offset == offset && f->lines[i].count > c)
      c = f->lines[i].count;
  return c;
}

/* The count of value VALUE of kind KIND anywhere in F.  */
static uint64_t
core_value (const struct sfdo_prof_func *f, uint32_t kind, uint64_t value)
{
  uint64_t c = 0;
  for (size_t i = 0; f && i < f->nvalues; i++)
    for (size_t k = 0; f->values[i].kind == kind
                       && k < f->values[i].nentries; k++)
      if (f->values[i].entries[k].value == value)
        c += f->values[i].entries[k].count;
  return c;
}

static int
core_has_mode (struct sfdo_profile *p, const char *mode)
{
  return sfdo_profile_has_mode (p, mode);
}

#endif
