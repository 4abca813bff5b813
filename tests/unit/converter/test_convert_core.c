/* tests/unit/converter/test_convert_core.c - the converter's core on
 * perf.data files written by the project's own writer, for a program
 * compiled here (core_fixture.h): no perf, no PMU needed.
 *
 *   IP samples give block counts at the sampled lines (mode ip), with the
 *   event, its period and the build-id in the header;
 *   branch stacks give straight runs (mode lbr);
 *   branch stacks, registers and an instructions event combine in one
 *   recording (issue 14): values from samples that carry a branch stack,
 *   IP counts of functions no branch stack covers, both events named;
 *   one instructions event carrying branch stacks and registers (what the
 *   emulated PMU records) gives all three;
 *   an event sampled at a frequency gets its samples' mean period;
 *   only binaries that had samples put their build-id in the header;
 *   match.h finds binaries by path, base name and build-id, and resolves
 *   addresses; a recorded build-id that differs is refused unless forced;
 *   samples written before the mmap of their code still count;
 *   the LBR dump lists runs and branches with their counts;
 *   a recording none of whose samples fell in the binaries given is an
 *   error naming them and their build-ids, not an empty profile;
 *   the program's line table and producer rewritten as GCC 16 writes
 *   them (hierarchical discriminators: a vectorized copy of the loop body,
 *   a peeled copy of its head) give base discriminators and counts times
 *   the vectorization factor, and the header names the compiler; as GCC
 *   15's or clang's, the same discriminators stay as they are.  */
#include "core_fixture.h"

#include "../../../converter/match.h"

/* Offsets of the test program's lines from their function's line.  */
enum { DIVIDE_BODY = 5 - 3, LOOP_HEAD = 11 - 8, LOOP_BODY = 12 - 8,
       STRAIGHT_BODY = 18 - 16 };

/* A branch stack of N times the loop's back edge: N - 1 runs through the
   loop body.  */
static size_t
loop_stack (const struct core *c, struct sfdo_perfdata_branch *br, size_t n)
{
  for (size_t i = 0; i < n; i++)
    br[i] = (struct sfdo_perfdata_branch) { c->loop_jump, c->loop_head, 0 };
  return n;
}

static void
test_ip_samples_count_lines (void **state)
{
  struct core *c = *state;
  struct core_data d;
  core_data_start (c, &d, "ip.data", &EV_CLOCK, 1);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 50; i++)
    core_data_sample (&d, 0, c->straight, &(struct core_sample) { .period = 10000 });
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  struct sfdo_prof_func *f = core_func (r.p, "straight");
  assert_non_null (f);
  assert_true (core_line (f, STRAIGHT_BODY) > 0);
  /* Unsampled functions are listed with no counts.  */
  const struct sfdo_prof_func *loop = core_func (r.p, "loop");
  assert_true (!loop || loop->total == 0);
  assert_true (core_has_mode (r.p, "ip"));
  assert_false (core_has_mode (r.p, "lbr"));
  assert_true (core_has_mode (r.p, "time"));    /* a timer's samples */
  const struct sfdo_prof_header *h = sfdo_profile_header (r.p);
  assert_int_equal (h->nevents, 1);
  assert_string_equal (sfdo_profile_str (r.p, h->events[0].name),
                       "cpu-clock:u");
  assert_int_equal (h->events[0].period, 10000);
  assert_int_equal (h->events[0].samples, 50);
  assert_int_equal (h->nbuild_ids, 1);
  assert_int_equal (r.stats.used, 50);
  sfdo_profile_free (r.p);
}

static void
test_branch_stacks_count_straight_runs (void **state)
{
  struct core *c = *state;
  struct core_data d;
  struct sfdo_perfdata_branch br[16];
  core_data_start (c, &d, "lbr.data", &EV_TAKEN_LBR, 1);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 20; i++)
    core_data_sample (&d, 0, c->loop_jump,
                      &(struct core_sample) { 320, br, loop_stack (c, br, 16),
                                              NULL });
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  struct sfdo_prof_func *f = core_func (r.p, "loop");
  assert_non_null (f);
  /* 20 stacks of 15 runs, each weighing 320 / 16.  */
  assert_int_equal (core_line (f, LOOP_BODY), 20 * 15 * (320 / 16));
  /* No stack holds the entry: it ran, fewer times than one record
     weighs; half of that, not 0.  */
  assert_int_equal (f->head, 320 / 16 / 2);
  assert_true (core_has_mode (r.p, "lbr"));
  assert_false (core_has_mode (r.p, "ip"));
  assert_int_equal (r.stats.lbr_samples, 20);
  sfdo_profile_free (r.p);
}

static void
test_branch_stack_samples_give_values (void **state)
{
  struct core *c = *state;
  struct core_data d;
  struct sfdo_perfdata_branch br[8];
  uint64_t regs[NREGS] = { 0 };
  regs[REG_SI] = 7;             /* divide's divisor */
  core_data_start (c, &d, "lbr-regs.data", &EV_TAKEN_LBR_REGS, 1);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 10; i++)
    core_data_sample (&d, 0, c->divide,
                      &(struct core_sample) { 320, br, loop_stack (c, br, 8),
                                              regs });
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  assert_true (core_line (core_func (r.p, "loop"), LOOP_BODY) > 0);
  assert_true (core_value (core_func (r.p, "divide"), SFDO_VALUE_DIVMOD, 7)
               > 0);
  assert_int_equal (r.stats.values, 10);
  sfdo_profile_free (r.p);
}

/* The instruction of divide that clears rdx, the high half of its
   dividend, before the division.  */
static uint64_t
divide_clears_high_half (const struct core *c)
{
  struct sfdo_symtab *st = NULL;
  struct sfdo_decoder *dec = NULL;
  const uint8_t *code;
  size_t len;
  uint64_t found = 0;
  if (sfdo_symtab_open (c->bin, &st, NULL) != SFDO_OK
      || sfdo_decoder_new (62, &dec, NULL) != SFDO_OK
      || sfdo_symtab_code (st, c->divide, &code, &len) != 0)
    fail_msg ("cannot decode divide");
  struct sfdo_insn_info info;
  for (uint64_t at = c->divide; !found && at < c->divide + 32; at += info.size)
    {
      sfdo_decode_one (dec, code + (at - c->divide), len - (at - c->divide),
                       at, &info);
      if (!info.size || info.div_reg >= 0)
        break;
      if (info.zeroes == REG_DX)
        found = at;
    }
  sfdo_decoder_free (dec);
  sfdo_symtab_free (st);
  return found;
}

/* A sample at the instruction that clears rdx before an unsigned
   division still sees the dividend: rax holds its low half, and the high
   half is the 0 about to be written, whatever rdx holds at the sample.
   One before rax is loaded sees the divisor only.  */
static void
test_quotient_from_before_the_high_half_is_cleared (void **state)
{
  struct core *c = *state;
  struct core_data d;
  uint64_t clear = divide_clears_high_half (c);
  assert_true (clear > c->divide);
  uint64_t regs[NREGS] = { 0 };
  regs[REG_AX] = 20;
  regs[REG_DX] = 99;            /* what the clearing overwrites */
  regs[REG_SI] = 7;
  uint64_t early[NREGS] = { 0 };
  early[REG_AX] = 3;            /* not the dividend yet */
  early[REG_SI] = 7;
  core_data_start (c, &d, "quotient.data", &EV_INSNS_REGS, 1);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 10; i++)
    {
      core_data_sample (&d, 0, clear,
                        &(struct core_sample) { 1000, NULL, 0, regs });
      core_data_sample (&d, 0, c->divide,
                        &(struct core_sample) { 1000, NULL, 0, early });
    }
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  const struct sfdo_prof_func *f = core_func (r.p, "divide");
  assert_int_equal (core_value (f, SFDO_VALUE_DIVMOD, 7), 20000);
  assert_int_equal (core_value (f, SFDO_VALUE_QUOTIENT, 2), 10000);
  assert_int_equal (core_value (f, SFDO_VALUE_QUOTIENT, 0), 0);
  sfdo_profile_free (r.p);
}

/* "time" says the IP counts are of a timer (or cycles), not retired
   instructions: the events a header lists do not (a profile merged from
   a timer's and an instruction recording's lists both).  */
static void
test_time_mode_follows_the_event_counted (void **state)
{
  struct core *c = *state;
  struct core_data d;
  const struct core_event ev[] = { EV_INSNS, EV_CLOCK };
  core_data_start (c, &d, "insns-clock.data", ev, 2);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 10; i++)
    {
      core_data_sample (&d, 0, c->straight,
                        &(struct core_sample) { .period = 1000 });
      core_data_sample (&d, 1, c->straight,
                        &(struct core_sample) { .period = 10000 });
    }
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  assert_true (core_has_mode (r.p, "ip"));
  assert_false (core_has_mode (r.p, "time"));
  sfdo_profile_free (r.p);
  struct sfdo_convert_opts o = { .tool = "test", .count_event = "cpu-clock" };
  const char *bin = c->bin;
  r = core_convert (d.path, &bin, 1, &o);
  assert_int_equal (r.rc, SFDO_OK);
  assert_true (core_has_mode (r.p, "time"));
  sfdo_profile_free (r.p);
}

static void
test_lbr_and_instructions_combine (void **state)
{
  struct core *c = *state;
  struct core_data d;
  struct sfdo_perfdata_branch br[8];
  uint64_t regs[NREGS] = { 0 };
  regs[REG_SI] = 13;
  const struct core_event ev[] = { EV_TAKEN_LBR, EV_INSNS_REGS };
  core_data_start (c, &d, "lbr-insns.data", ev, 2);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 10; i++)
    {
      core_data_sample (&d, 0, c->loop_jump,
                        &(struct core_sample) { 320, br,
                                                loop_stack (c, br, 8), NULL });
      core_data_sample (&d, 1, c->straight,
                        &(struct core_sample) { 1000, NULL, 0, regs });
      core_data_sample (&d, 1, c->divide,
                        &(struct core_sample) { 1000, NULL, 0, regs });
    }
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  assert_true (core_line (core_func (r.p, "loop"), LOOP_BODY) > 0);
  assert_true (core_line (core_func (r.p, "straight"), STRAIGHT_BODY) > 0);
  assert_true (core_value (core_func (r.p, "divide"), SFDO_VALUE_DIVMOD, 13)
               > 0);
  assert_true (core_has_mode (r.p, "lbr"));
  assert_true (core_has_mode (r.p, "ip"));
  assert_false (core_has_mode (r.p, "time"));
  const struct sfdo_prof_header *h = sfdo_profile_header (r.p);
  assert_int_equal (h->nevents, 2);
  assert_int_equal (r.stats.used, 30);
  assert_int_equal (r.stats.other_event, 0);
  sfdo_profile_free (r.p);
}

static void
test_one_instructions_event_with_lbr_and_registers (void **state)
{
  struct core *c = *state;
  struct core_data d;
  struct sfdo_perfdata_branch br[8];
  uint64_t regs[NREGS] = { 0 };
  regs[REG_SI] = 5;
  core_data_start (c, &d, "emulated.data", &EV_INSNS_LBR_REGS, 1);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 10; i++)
    {
      core_data_sample (&d, 0, c->divide,
                        &(struct core_sample) { 1000, br,
                                                loop_stack (c, br, 8), regs });
      core_data_sample (&d, 0, c->straight,
                        &(struct core_sample) { 1000, br,
                                                loop_stack (c, br, 8), regs });
    }
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  assert_true (core_line (core_func (r.p, "loop"), LOOP_BODY) > 0);
  assert_true (core_line (core_func (r.p, "straight"), STRAIGHT_BODY) > 0);
  assert_true (core_value (core_func (r.p, "divide"), SFDO_VALUE_DIVMOD, 5)
               > 0);
  sfdo_profile_free (r.p);
}

static void
test_frequency_mode_gives_the_mean_period (void **state)
{
  struct core *c = *state;
  struct core_data d;
  struct core_event ev = EV_CLOCK;
  ev.freq = 1;
  ev.period = 4000;             /* the frequency */
  core_data_start (c, &d, "freq.data", &ev, 1);
  core_data_mmap (&d, c->bin);
  core_data_sample (&d, 0, c->straight, &(struct core_sample) { .period = 1000 });
  core_data_sample (&d, 0, c->straight, &(struct core_sample) { .period = 3000 });
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  const struct sfdo_prof_header *h = sfdo_profile_header (r.p);
  assert_int_equal (h->nevents, 1);
  assert_int_equal (h->events[0].period, 2000);
  sfdo_profile_free (r.p);
}

static void
test_header_lists_build_ids_of_sampled_binaries_only (void **state)
{
  struct core *c = *state;
  struct core_data d;
  core_data_start (c, &d, "two.data", &EV_CLOCK, 1);
  core_data_mmap (&d, c->bin);
  core_data_sample (&d, 0, c->straight, NULL);
  core_data_finish (&d);
  const char *bins[] = { c->bin, c->other };
  struct core_result r = core_convert (d.path, bins, 2, NULL);
  assert_int_equal (r.rc, SFDO_OK);
  const struct sfdo_prof_header *h = sfdo_profile_header (r.p);
  assert_int_equal (h->nbuild_ids, 1);
  sfdo_profile_free (r.p);
}

static void
test_match_finds_binaries_and_resolves (void **state)
{
  struct core *c = *state;
  struct sfdo_match *m = NULL;
  const char *bins[] = { c->bin };
  assert_int_equal (sfdo_match_new (bins, 1, &m, NULL), SFDO_OK);
  struct sfdo_perfdata_mmap mm = { .pid = 1, .addr = CORE_BASE,
                                   .len = CORE_MAP_LEN, .filename = c->bin };
  sfdo_match_mmap (m, NULL, &mm, 1);
  mm.pid = 2;
  mm.filename = "/elsewhere/core";      /* another machine: by base name */
  sfdo_match_mmap (m, NULL, &mm, 1);
  mm.pid = 3;
  mm.filename = "/usr/lib/libother.so";
  sfdo_match_mmap (m, NULL, &mm, 1);
  struct sfdo_match_at at;
  for (uint32_t pid = 1; pid <= 2; pid++)
    {
      assert_int_equal (sfdo_match_resolve (m, pid, c->loop, 5, &at),
                        SFDO_MATCH_OK);
      assert_int_equal (at.binary, 0);
      assert_int_equal (at.vaddr, c->loop);
    }
  assert_int_equal (sfdo_match_resolve (m, 3, c->loop, 5, &at),
                    SFDO_MATCH_OTHER_FILE);
  sfdo_match_count_sample (m, at.file);
  sfdo_match_count_sample (m, at.file);
  assert_int_equal (sfdo_match_resolve (m, 4, c->loop, 5, &at),
                    SFDO_MATCH_UNMAPPED);
  /* Before the mapping was made.  */
  assert_int_equal (sfdo_match_resolve (m, 1, c->loop, 0, &at),
                    SFDO_MATCH_UNMAPPED);
  const char *names[2];
  uint64_t counts[2];
  assert_int_equal (sfdo_match_sampled_files (m, 2, names, counts), 1);
  assert_string_equal (names[0], "/usr/lib/libother.so");
  assert_int_equal (counts[0], 2);
  sfdo_match_free (m);
}

static void
test_recorded_build_id_that_differs_is_refused (void **state)
{
  struct core *c = *state;
  struct core_data d;
  static const uint8_t wrong[20] = { 0xde, 0xad, 0xbe, 0xef };
  core_data_start (c, &d, "mismatch.data", &EV_CLOCK, 1);
  core_data_mmap (&d, c->bin);
  core_data_sample (&d, 0, c->straight, NULL);
  assert_int_equal (sfdo_perfdata_writer_add_build_id (d.w, -1, 2, wrong, 20,
                                                       c->bin, NULL),
                    SFDO_OK);
  core_data_finish (&d);
  const char *bins[] = { c->bin };
  struct core_result r = core_convert (d.path, bins, 1, NULL);
  assert_int_equal (r.rc, SFDO_E_MALFORMED);
  assert_non_null (strstr (r.err.msg, "deadbeef"));
  assert_non_null (strstr (r.err.msg, "--force"));
  struct sfdo_convert_opts o = { .force = 1 };
  r = core_convert (d.path, bins, 1, &o);
  assert_int_equal (r.rc, SFDO_OK);
  assert_int_equal (r.stats.used, 1);
  sfdo_profile_free (r.p);
}

static void
test_samples_before_their_mmap_count (void **state)
{
  struct core *c = *state;
  struct core_data d;
  struct sfdo_perfdata_branch br[4];
  core_data_start (c, &d, "early.data", &EV_TAKEN_LBR, 1);
  d.time = 100;                 /* another CPU's buffer, written first */
  core_data_sample (&d, 0, c->loop_jump,
                    &(struct core_sample) { 320, br, loop_stack (c, br, 4),
                                            NULL });
  d.time = 1;
  core_data_mmap (&d, c->bin);
  core_data_finish (&d);
  struct core_result r = core_convert_ok (d.path, c->bin);
  assert_int_equal (r.stats.used, 1);
  assert_int_equal (r.stats.unmapped, 0);
  assert_int_equal (core_line (core_func (r.p, "loop"), LOOP_BODY),
                    3 * (320 / 4));
  sfdo_profile_free (r.p);
}

static void
test_lbr_dump_lists_runs_and_branches (void **state)
{
  struct core *c = *state;
  struct core_data d;
  struct sfdo_perfdata_branch br[3];
  core_data_start (c, &d, "dump.data", &EV_TAKEN_LBR, 1);
  core_data_mmap (&d, c->bin);
  core_data_sample (&d, 0, c->loop_jump,
                    &(struct core_sample) { 300, br, loop_stack (c, br, 3),
                                            NULL });
  core_data_finish (&d);
  struct sfdo_convert_opts o = { 0 };
  struct sfdo_converter *cv = NULL;
  struct sfdo_perfdata *pd = NULL;
  const char *bins[] = { c->bin };
  assert_int_equal (sfdo_converter_new (&o, bins, 1, &cv, NULL), SFDO_OK);
  assert_int_equal (sfdo_perfdata_open (d.path, &pd, NULL), SFDO_OK);
  assert_int_equal (sfdo_converter_read (cv, pd, NULL, NULL, NULL), SFDO_OK);
  char *text = NULL, want[200];
  size_t len = 0;
  FILE *f = open_memstream (&text, &len);
  sfdo_converter_dump_lbr (cv, f);
  fclose (f);
  snprintf (want, sizeof want, "core range %llx %llx 2\n"
            "core branch %llx %llx 3\n",
            (unsigned long long) c->loop_head,
            (unsigned long long) c->loop_jump,
            (unsigned long long) c->loop_jump,
            (unsigned long long) c->loop_head);
  assert_string_equal (text, want);
  free (text);
  sfdo_perfdata_close (pd);
  sfdo_converter_free (cv);
}

static void
test_no_sample_in_the_binaries_is_an_error (void **state)
{
  struct core *c = *state;
  struct core_data d;
  core_data_start (c, &d, "unrelated.data", &EV_CLOCK, 1);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 3; i++)
    core_data_sample (&d, 0, c->straight, NULL);
  core_data_finish (&d);
  /* The -O0 build of the same source, under another name: not what ran.  */
  const char *bins[] = { c->other };
  struct core_result r = core_convert (d.path, bins, 1, NULL);
  assert_int_equal (r.rc, SFDO_E_MALFORMED);
  assert_null (r.p);
  assert_non_null (strstr (r.err.msg, "none of its 3 samples"));
  assert_non_null (strstr (r.err.msg, "other (build-id "));
  assert_int_equal (r.stats.other_file, 3);

  core_data_start (c, &d, "no-samples.data", &EV_CLOCK, 1);
  core_data_mmap (&d, c->bin);
  core_data_finish (&d);
  bins[0] = c->bin;
  r = core_convert (d.path, bins, 1, NULL);
  assert_int_equal (r.rc, SFDO_E_MALFORMED);
  assert_non_null (strstr (r.err.msg, "no samples"));
}

/* --- GCC 16's hierarchical discriminators ------------------------------- */

/* What the forged builds' line tables say: the loop body (line 12) is a
   vectorized copy (multiplicity 4, copy id 1), the loop head (line 11) a
   peeled one (copy id 2); each keeps its base discriminator.  */
#define FORGED_FACTOR 4u

static uint32_t
forged_disc (unsigned line, uint32_t base)
{
  if (line == 12)
    return base | FORGED_FACTOR << 8 | 1u << 15;
  return line == 11 ? base | 2u << 15 : base;
}

/* LINE of the fixture's assembly into OUT, with PRODUCER for the
   compiler's DW_AT_producer and the discriminators of forged_disc.  */
static void
forge_line (char *line, FILE *out, const char *producer)
{
  unsigned file, ln;
  if (strstr (line, "\t.string\t\"GNU C"))
    {
      fprintf (out, "\t.string\t\"%s\"\n", producer);
      return;
    }
  if (sscanf (line, "\t.loc %u %u", &file, &ln) != 2 || (ln != 11 && ln != 12))
    {
      fputs (line, out);
      return;
    }
  uint32_t base = 0;
  char *d = strstr (line, " discriminator "), *end;
  line[strcspn (line, "\n")] = 0;
  if (d)
    {
      base = (uint32_t) strtoul (d + 15, &end, 10);
      memmove (d, end, strlen (end) + 1);
    }
  fprintf (out, "%s discriminator %u\n", line, forged_disc (ln, base));
}

/* C's program built from its assembly with the DWARF PRODUCER would
   write (forge_line), as NAME in C's directory; *OUT is C for it.  */
static void
core_forge (const struct core *c, const char *name, const char *producer,
            struct core *out)
{
  char cmd[600], buf[256], path[200];
  snprintf (cmd, sizeof cmd, "cd %s && gcc -std=c11 -O1 -g -no-pie "
            "-fno-inline -fcf-protection=none -S core.c -o core.s 2>&1",
            c->dir);
  assert_int_equal (core_run (cmd, buf, sizeof buf), 0);
  snprintf (path, sizeof path, "%s/core.s", c->dir);
  FILE *in = fopen (path, "r");
  snprintf (path, sizeof path, "%s/%s.s", c->dir, name);
  FILE *o = fopen (path, "w");
  assert_non_null (in);
  assert_non_null (o);
  char *line = NULL;
  size_t cap = 0;
  while (getline (&line, &cap, in) > 0)
    forge_line (line, o, producer);
  free (line);
  fclose (in);
  assert_int_equal (fclose (o), 0);
  snprintf (cmd, sizeof cmd, "cd %s && gcc -no-pie %s.s -o %s 2>&1", c->dir,
            name, name);
  if (core_run (cmd, buf, sizeof buf) != 0)
    fail_msg ("assembling %s: %s", path, buf);
  *out = *c;
  snprintf (out->bin, sizeof out->bin, "%s/%s", c->dir, name);
  out->loop = core_symbol (out->bin, "loop");
  assert_int_equal (core_find_back_edge (out), 0);
}

static struct sfdo_symtab *
core_symtab (const struct core *c)
{
  struct sfdo_symtab *st = NULL;
  assert_int_equal (sfdo_symtab_open (c->bin, &st, NULL), SFDO_OK);
  return st;
}

/* At every address of the loop, GCC 16's discriminator is the base of
   what the line table says, and the loop body's frame carries its
   multiplicity; GCC 15's and clang's stay whole.  */
static void
check_forged_lookups (struct sfdo_symtab *raw, struct sfdo_symtab *g16,
                      uint64_t lo, uint64_t hi)
{
  int raw_large = 0;
  for (uint64_t a = lo; a < hi; a++)
    {
      const struct sfdo_frame *fr;
      size_t n = sfdo_symtab_lookup (raw, a, &fr);
      if (n == 0)
        continue;
      struct sfdo_frame r = fr[n - 1];
      assert_int_equal (sfdo_symtab_lookup (g16, a, &fr), n);
      assert_int_equal (fr[n - 1].line, r.line);
      assert_int_equal (fr[n - 1].discriminator, r.discriminator & 0xff);
      assert_int_equal (fr[n - 1].factor, r.line == 12 ? FORGED_FACTOR : 1);
      assert_int_equal (r.factor, 1);
      raw_large |= r.discriminator > 0xff;
    }
  assert_true (raw_large);
}

static void
check_producer (struct sfdo_symtab *st, const char *want, size_t hierarchical)
{
  struct sfdo_symtab_stats stats;
  sfdo_symtab_stats (st, &stats);
  assert_int_equal (sfdo_symtab_nproducers (st), 1);
  assert_string_equal (sfdo_symtab_producer (st, 0), want);
  assert_int_equal (stats.hierarchical_units, hierarchical);
}

static void
test_gcc16_discriminators_read_as_their_base (void **state)
{
  struct core *c = *state;
  struct core g15, g16, clang;
  core_forge (c, "g15", "GNU C11 15.1.0 -mtune=generic -O1 -g", &g15);
  core_forge (c, "g16", "GNU C11 16.2.0 -mtune=generic -O1 -g", &g16);
  core_forge (c, "clang", "Debian clang version 14.0.6", &clang);
  struct sfdo_symtab *s15 = core_symtab (&g15), *s16 = core_symtab (&g16);
  struct sfdo_symtab *sc = core_symtab (&clang);
  uint64_t lo, hi;
  assert_int_equal (sfdo_symtab_function_range (s16, g16.loop, &lo, &hi), 0);
  check_forged_lookups (s15, s16, lo, hi);
  check_forged_lookups (sc, s16, lo, hi);
  check_producer (s15, "GCC 15.1.0", 0);
  check_producer (s16, "GCC 16.2.0", 1);
  check_producer (sc, "clang 14.0.6", 0);
  sfdo_symtab_free (s15);
  sfdo_symtab_free (s16);
  sfdo_symtab_free (sc);
}

/* The LBR profile of the loop of C's build: 20 stacks of 15 runs.  */
static struct core_result
forged_loop_profile (const struct core *c, const char *data)
{
  struct core_data d;
  struct sfdo_perfdata_branch br[16];
  core_data_start (c, &d, data, &EV_TAKEN_LBR, 1);
  core_data_mmap (&d, c->bin);
  for (int i = 0; i < 20; i++)
    core_data_sample (&d, 0, c->loop_jump,
                      &(struct core_sample) { 320, br, loop_stack (c, br, 16),
                                              NULL });
  core_data_finish (&d);
  return core_convert_ok (d.path, c->bin);
}

/* The largest discriminator of F's lines.  */
static uint32_t
largest_disc (const struct sfdo_prof_func *f)
{
  uint32_t m = 0;
  for (size_t i = 0; i < f->nlines; i++)
    m = f->lines[i].discriminator > m ? f->lines[i].discriminator : m;
  return m;
}

static void
test_gcc16_vectorized_copies_count_their_factor (void **state)
{
  struct core *c = *state;
  struct core g15, g16;
  core_forge (c, "v15", "GNU C11 15.1.0 -mtune=generic -O1 -g", &g15);
  core_forge (c, "v16", "GNU C11 16.2.0 -mtune=generic -O1 -g", &g16);
  struct core_result r15 = forged_loop_profile (&g15, "v15.data");
  struct core_result r16 = forged_loop_profile (&g16, "v16.data");
  const struct sfdo_prof_func *f15 = core_func (r15.p, "loop");
  const struct sfdo_prof_func *f16 = core_func (r16.p, "loop");
  assert_non_null (f15);
  assert_non_null (f16);
  /* One vectorized iteration ran four of the source's.  */
  assert_int_equal (core_line (f15, LOOP_BODY), 20 * 15 * (320 / 16));
  assert_int_equal (core_line (f16, LOOP_BODY),
                    FORGED_FACTOR * 20 * 15 * (320 / 16));
  assert_true (largest_disc (f15) > 0xff);
  assert_true (largest_disc (f16) <= 0xff);
  assert_int_equal (sfdo_profile_gcc_major (r15.p), 15);
  assert_int_equal (sfdo_profile_gcc_major (r16.p), 16);
  const struct sfdo_prof_header *h = sfdo_profile_header (r16.p);
  assert_int_equal (h->nproducers, 1);
  assert_string_equal (sfdo_profile_str (r16.p, h->producers[0]),
                       "GCC 16.2.0");
  sfdo_profile_free (r15.p);
  sfdo_profile_free (r16.p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ip_samples_count_lines),
    cmocka_unit_test (test_branch_stacks_count_straight_runs),
    cmocka_unit_test (test_branch_stack_samples_give_values),
    cmocka_unit_test (test_quotient_from_before_the_high_half_is_cleared),
    cmocka_unit_test (test_time_mode_follows_the_event_counted),
    cmocka_unit_test (test_lbr_and_instructions_combine),
    cmocka_unit_test (test_one_instructions_event_with_lbr_and_registers),
    cmocka_unit_test (test_frequency_mode_gives_the_mean_period),
    cmocka_unit_test (test_header_lists_build_ids_of_sampled_binaries_only),
    cmocka_unit_test (test_match_finds_binaries_and_resolves),
    cmocka_unit_test (test_recorded_build_id_that_differs_is_refused),
    cmocka_unit_test (test_samples_before_their_mmap_count),
    cmocka_unit_test (test_lbr_dump_lists_runs_and_branches),
    cmocka_unit_test (test_no_sample_in_the_binaries_is_an_error),
    cmocka_unit_test (test_gcc16_discriminators_read_as_their_base),
    cmocka_unit_test (test_gcc16_vectorized_copies_count_their_factor),
  };
  return cmocka_run_group_tests_name ("convert core", tests, core_setup,
                                      core_teardown);
}
