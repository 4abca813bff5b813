/* sfdo-convert - perf.data samples to a portable source-line profile.
 *
 * A thin tool over converter/convert.h: options, progress, errors.  Exit
 * status: 0 success, 1 usage error, 2 bad input or I/O error.  */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/error.h"
#include "../common/evidence.h"
#include "../common/outfile.h"
#include "../perfdata/perfdata.h"
#include "../profiles/profile.h"
#include "convert.h"
#include "groups.h"

#ifndef SFDO_VERSION
#define SFDO_VERSION "0.0.0"
#endif

enum { EXIT_USAGE = 1, EXIT_INPUT = 2 };

static const char usage_text[] =
  "Usage: sfdo-convert [OPTIONS] PERF.DATA BINARY...\n"
  "\n"
  "Turn the samples of PERF.DATA (perf record's output, or sfdo-record's;\n"
  "- reads pipe-mode data from standard input) that fell in the BINARY\n"
  "files (an executable and the shared libraries you care about, built\n"
  "with -g) into a portable source-line profile for the samplefdo plugin.\n"
  "\n"
  "Options:\n"
  "  -o, --output=FILE     write the profile to FILE (atomically) instead\n"
  "                        of standard output\n"
  "      --text            text encoding (the default)\n"
  "      --binary          indexed binary encoding (faster for the compiler)\n"
  "      --format=FORMAT   sfdo (the default), afdo (GCC's AutoFDO, version\n"
  "                        2 for GCC 12 to 15; afdo1, afdo3 for others) or\n"
  "                        llvm (LLVM's text sample profile)\n"
  "      --line-vote=blocks|max|mean\n"
  "                        a source line's count from its instructions'\n"
  "                        block counts: blocks (default) adds up the\n"
  "                        blocks where one of the line's statements\n"
  "                        begins (unrolled, peeled, versioned copies),\n"
  "                        leaving out code moved there from elsewhere;\n"
  "                        max and mean take the max or the mean\n"
  "      --smooth=auto|on|off\n"
  "                        correct block counts by minimum-cost flow over\n"
  "                        the machine code's CFG before they go to source\n"
  "                        lines; auto (default): when cycles were\n"
  "                        recorded beside retired instructions, which\n"
  "                        classify blocks as over- or under-sampled\n"
  "      --count-event=EVENT\n"
  "                        count samples of EVENT (its name as perf\n"
  "                        recorded it, e.g. instructions:u); default: the\n"
  "                        best recorded (branch stacks, instructions,\n"
  "                        cycles, then timers)\n"
  "      --clk-event=EVENT classify blocks with the cycles of EVENT;\n"
  "                        default: cycles, CPU_CLK_UNHALTED or\n"
  "                        CYCLES_NOT_IN_HALT when the\n"
  "                        counted event is retired instructions\n"
  "      --force           convert even if a build-id recorded in PERF.DATA\n"
  "                        differs from the binary's\n"
  "      --stats           print how many samples were read, used, dropped\n"
  "                        and why, and how many stack copies gave their\n"
  "                        caller, on standard error\n"
  "      --groups=FILE     also write module groups for cross-module\n"
  "                        inlining without whole-program LTO: the\n"
  "                        source files joined by their hottest calls\n"
  "                        (85% of the cross-file call weight, at most 8\n"
  "                        files a group; see converter/groups.h)\n"
  "      --lbr-dump=FILE   also write the raw branch and straight-run\n"
  "                        tallies of the branch stacks to FILE\n"
  "                        (atomically, before the profile)\n"
  "      --skip-bad-records\n"
  "                        skip records that cannot be decoded (a torn\n"
  "                        record, a file perf record did not finish, a\n"
  "                        truncated copy) instead of stopping at the\n"
  "                        first; how many, and where the first was, is\n"
  "                        said on standard error\n"
  "  -q, --quiet           no progress line, even on a terminal\n"
  "  -h, --help            this text\n"
  "      --version         the version\n"
  "\n"
  "Outputs are never written onto an input: -o or --lbr-dump naming\n"
  "PERF.DATA or a BINARY (also through a link) is refused.  A recording\n"
  "none of whose samples fell in the BINARY files is an error (exit 2) that\n"
  "lists the build-ids it has; the output is left as it was.  An option\n"
  "given twice with different values, or two that exclude each other, is\n"
  "a usage error.\n"
  "\n"
  "Exit status: 0 success, 1 usage error, 2 bad input or I/O error.\n";

struct options {
  struct sfdo_convert_opts convert;
  const char *output;
  const char *lbr_dump;
  const char *groups;           /* --groups */
  int binary, stats, quiet, skip_bad;
  int encoding_set;             /* --text or --binary given: which, + 1 */
  int format;                   /* 0 for sfdo's, else enum sfdo_export_format */
};

static int
usage_error (const char *msg, const char *arg)
{
  fprintf (stderr, "sfdo-convert: ");
  fprintf (stderr, msg, arg);
  fprintf (stderr, "\nTry 'sfdo-convert --help' for more information.\n");
  return EXIT_USAGE;
}

static int
report (const struct sfdo_error *err)
{
  char buf[768];
  fprintf (stderr, "sfdo-convert: error: %s\n",
           sfdo_error_format (err, buf, sizeof buf));
  return EXIT_INPUT;
}

/* An option's keyword and the value it stands for; a NULL name ends a
   table.  */
struct keyword {
  const char *name;
  int value;
};

static const struct keyword format_names[] = {
  { "sfdo", 0 }, { "afdo", SFDO_EXPORT_AFDO2 }, { "afdo1", SFDO_EXPORT_AFDO1 },
  { "afdo2", SFDO_EXPORT_AFDO2 }, { "afdo3", SFDO_EXPORT_AFDO3 },
  { "llvm", SFDO_EXPORT_LLVM }, { NULL, 0 }
};
static const struct keyword vote_names[] = {
  { "blocks", SFDO_LINE_BLOCKS }, { "max", SFDO_LINE_MAX },
  { "mean", SFDO_LINE_MEAN }, { NULL, 0 }
};
static const struct keyword smooth_names[] = {
  { "auto", SFDO_SMOOTH_AUTO }, { "on", SFDO_SMOOTH_ON },
  { "off", SFDO_SMOOTH_OFF }, { NULL, 0 }
};

/* The value of keyword S in TABLE into *VALUE; -1 if S is not there.  */
static int
parse_keyword (const char *s, const struct keyword *table, int *value)
{
  for (; table->name; table++)
    if (strcmp (s, table->name) == 0)
      {
        *value = table->value;
        return 0;
      }
  return -1;
}

/* An output named OUT (by OPTION) must not be one of the N INPUTS.  */
static int
check_output (const char *option, const char *out, char **inputs, int n)
{
  if (!out)
    return 0;
  struct stat st;
  if (!*out)
    return usage_error ("%s needs a file name, not an empty one", option);
  if (strcmp (out, "-") != 0 && stat (out, &st) == 0 && S_ISDIR (st.st_mode))
    {
      fprintf (stderr, "sfdo-convert: %s %s is a directory; name a file in "
               "it\n", option, out);
      return EXIT_USAGE;
    }
  for (int i = 0; i < n; i++)
    if (strcmp (out, "-") != 0 && sfdo_same_file (out, inputs[i]))
      {
        fprintf (stderr, "sfdo-convert: %s %s is the input %s: writing there "
                 "would replace the %s; choose another name\n", option, out,
                 inputs[i], i == 0 ? "recording" : "binary");
        return EXIT_USAGE;
      }
  return 0;
}

/* Conflicts the option letters alone do not show.  */
static int
check_options (const struct options *o, char **inputs, int n)
{
  if (o->format && o->encoding_set)
    return usage_error ("--%s is an sfdo encoding; --format=afdo or llvm "
                        "writes its own", o->binary ? "binary" : "text");
  if (o->convert.count_event && o->convert.clk_event
      && strcmp (o->convert.count_event, o->convert.clk_event) == 0)
    return usage_error ("--count-event and --clk-event name the same event "
                        "'%s': the cycles that classify blocks must be "
                        "another event than the one counted",
                        o->convert.count_event);
  if (o->lbr_dump && o->output && strcmp (o->output, "-") != 0
      && (strcmp (o->lbr_dump, o->output) == 0
          || sfdo_same_file (o->lbr_dump, o->output)))
    return usage_error ("--lbr-dump and -o name the same file '%s'",
                        o->output);
  int rc = check_output ("-o", o->output, inputs, n);
  if (!rc)
    rc = check_output ("--groups", o->groups, inputs, n);
  if (!rc && o->groups && o->output
      && (strcmp (o->groups, o->output) == 0
          || sfdo_same_file (o->groups, o->output)))
    return usage_error ("--groups and -o name the same file '%s'", o->output);
  return rc ? rc : check_output ("--lbr-dump", o->lbr_dump, inputs, n);
}

/* The long name of option C, for messages ("-o" for -o).  */
static const char *
option_name (const struct option *opts, int c)
{
  static char buf[40];
  if (c == 'o')
    return "-o";
  for (; opts->name; opts++)
    if (opts->val == c)
      {
        snprintf (buf, sizeof buf, "--%s", opts->name);
        return buf;
      }
  return "an option";
}

/* Option C with optarg, given before (GIVEN[C]) with another value: say
   so (not a silent last-wins) and return 1; else remember it.  */
static int
given_twice (const struct option *opts, const char **given, int c)
{
  if (!optarg || c <= 0 || c >= 128)
    return 0;
  if (given[c] && strcmp (given[c], optarg) != 0)
    {
      fprintf (stderr, "sfdo-convert: %s given twice ('%s', then '%s')\n"
               "Try 'sfdo-convert --help' for more information.\n",
               option_name (opts, c), given[c], optarg);
      return 1;
    }
  given[c] = optarg;
  return 0;
}

static int
parse_options (int argc, char **argv, struct options *o)
{
  static const struct option opts[] = {
    { "output", required_argument, 0, 'o' },
    { "text", no_argument, 0, 't' },
    { "binary", no_argument, 0, 'b' },
    { "line-vote", required_argument, 0, 'v' },
    { "force", no_argument, 0, 'f' },
    { "stats", no_argument, 0, 's' },
    { "quiet", no_argument, 0, 'q' },
    { "lbr-dump", required_argument, 0, 'L' },
    { "groups", required_argument, 0, 'G' },
    { "format", required_argument, 0, 'F' },
    { "smooth", required_argument, 0, 'S' },
    { "count-event", required_argument, 0, 'E' },
    { "clk-event", required_argument, 0, 'C' },
    { "skip-bad-records", no_argument, 0, 'K' },
    { "help", no_argument, 0, 'h' },
    { "version", no_argument, 0, 'V' },
    { 0, 0, 0, 0 }
  };
  int value;
  const char *given[128] = { 0 };
  for (int c; (c = getopt_long (argc, argv, "o:qh", opts, NULL)) != -1;)
    {
      if (given_twice (opts, given, c))
        return EXIT_USAGE;
      switch (c)
        {
        case 'o': o->output = optarg; break;
        case 't':
        case 'b':
          if (o->encoding_set && o->encoding_set != (c == 'b') + 1)
            return usage_error ("--text and --binary exclude each other%s",
                                "");
          o->binary = c == 'b';
          o->encoding_set = o->binary + 1;
          break;
        case 'K': o->skip_bad = 1; break;
        case 'f': o->convert.force = 1; break;
        case 's': o->stats = 1; break;
        case 'q': o->quiet = 1; break;
        case 'L': o->lbr_dump = optarg; break;
        case 'G': o->groups = optarg; break;
        case 'E': o->convert.count_event = optarg; break;
        case 'C': o->convert.clk_event = optarg; break;
        case 'S':
          if (parse_keyword (optarg, smooth_names, &value) != 0)
            return usage_error ("--smooth takes auto, on or off, not '%s'",
                                optarg);
          o->convert.smooth = (enum sfdo_smooth) value;
          break;
        case 'F':
          if (parse_keyword (optarg, format_names, &o->format) != 0)
            return usage_error ("--format takes sfdo, afdo, afdo1, afdo2, "
                                "afdo3 or llvm, not '%s'", optarg);
          break;
        case 'h': fputs (usage_text, stdout); exit (0);
        case 'V': puts ("sfdo-convert " SFDO_VERSION); exit (0);
        case 'v':
          if (parse_keyword (optarg, vote_names, &value) != 0)
            return usage_error ("--line-vote takes blocks, max or mean, "
                                "not '%s'", optarg);
          o->convert.vote = (enum sfdo_line_vote) value;
          break;
        default:
          return EXIT_USAGE;
        }
    }
  if (argc - optind < 2)
    return usage_error ("needs PERF.DATA and at least one BINARY%s", "");
  return check_options (o, argv + optind, argc - optind);
}

static void
show_progress (uint64_t records, void *ctx)
{
  (void) ctx;
  fprintf (stderr, "\rsfdo-convert: %llu million records read",
           (unsigned long long) (records >> 20));
}

/* How many samples' stack copies gave their caller, and where the walks
   stopped: at the outermost frame, or why not.  */
static void
print_unwind_stats (const struct sfdo_convert_stats *s)
{
  fprintf (stderr, "sfdo-convert: %llu samples unwound from stack copies: "
           "caller recovered in %llu (%.1f%%); walks stopped at:",
           (unsigned long long) s->stacks, (unsigned long long) s->unwound,
           100.0 * (double) s->unwound / (double) s->stacks);
  const char *sep = " ";
  for (int i = 0; i < SFDO_UNWIND_NSTOPS; i++)
    if (s->unwind_stops[i])
      {
        fprintf (stderr, "%s%s %llu", sep, sfdo_unwind_stop_name (i),
                 (unsigned long long) s->unwind_stops[i]);
        sep = ", ";
      }
  fputc ('\n', stderr);
}

static void
print_stats (const struct sfdo_convert_stats *s)
{
  fprintf (stderr,
           "sfdo-convert: %llu samples: %llu used; dropped: %llu of another "
           "event, %llu kernel, %llu in other files, %llu unmapped, %llu "
           "without line info; %llu lost by the kernel; %llu with "
           "callchains, %llu gave a value (divisor, size or call target)\n",
           (unsigned long long) s->samples, (unsigned long long) s->used,
           (unsigned long long) s->other_event,
           (unsigned long long) s->kernel,
           (unsigned long long) s->other_file,
           (unsigned long long) s->unmapped,
           (unsigned long long) s->no_line, (unsigned long long) s->lost,
           (unsigned long long) s->callchains,
           (unsigned long long) s->values);
  if (s->stacks)
    print_unwind_stats (s);
  if (s->lbr_samples)
    fprintf (stderr,
             "sfdo-convert: %llu branch stacks: %llu of %llu branches and "
             "%llu of %llu straight runs dropped (other files, kernel, or "
             "impossible); %llu samples of the branch event had none\n",
             (unsigned long long) s->lbr_samples,
             (unsigned long long) s->lbr_branches_dropped,
             (unsigned long long) s->lbr_branches,
             (unsigned long long) s->lbr_ranges_dropped,
             (unsigned long long) s->lbr_ranges,
             (unsigned long long) s->empty_stacks);
  if (s->aux_used || s->blocks_classified)
    fprintf (stderr,
             "sfdo-convert: %llu samples of cycles and stall events "
             "classified %llu blocks: %llu over-sampled, %llu "
             "under-sampled\n",
             (unsigned long long) s->aux_used,
             (unsigned long long) s->blocks_classified,
             (unsigned long long) s->blocks_over,
             (unsigned long long) s->blocks_under);
  if (s->functions_smoothed)
    fprintf (stderr, "sfdo-convert: %llu functions' block counts smoothed "
             "by minimum-cost flow\n",
             (unsigned long long) s->functions_smoothed);
  if (s->folded_functions)
    fprintf (stderr, "sfdo-convert: %llu function bodies folded from "
             "identical functions: their samples shared out by the calls "
             "into each\n", (unsigned long long) s->folded_functions);
  if (s->unsampled_functions)
    fprintf (stderr, "sfdo-convert: %llu functions of the binaries caught "
             "no sample: listed with no counts (never ran)\n",
             (unsigned long long) s->unsampled_functions);
  if (s->anchored_functions)
    fprintf (stderr, "sfdo-convert: %llu sampled functions' call sites "
             "recorded (callsites: a later source is aligned by them)\n",
             (unsigned long long) s->anchored_functions);
  if (s->unsampled_pieces)
    fprintf (stderr, "sfdo-convert: %llu pieces of sampled functions "
             "(foo.part.0's header, foo.cold, clones) caught no sample: "
             "their lines listed at 0\n",
             (unsigned long long) s->unsampled_pieces);
}

/* The raw LBR tallies into PATH, atomically.  */
static enum sfdo_errc
dump_lbr (const struct sfdo_converter *cv, const char *path,
          struct sfdo_error *err)
{
  struct sfdo_outfile out;
  enum sfdo_errc rc = sfdo_outfile_open (path, &out, err);
  if (rc != SFDO_OK)
    return rc;
  sfdo_converter_dump_lbr (cv, out.f);
  return sfdo_outfile_commit (&out, err);
}

/* The module groups of P into O->groups, said on stderr unless quiet.  */
static enum sfdo_errc
write_groups (struct sfdo_profile *p, const struct options *o,
              struct sfdo_error *err)
{
  struct sfdo_groups_opts go = { SFDO_GROUPS_CUTOFF, SFDO_GROUPS_MAX_UNITS };
  struct sfdo_groups g;
  struct sfdo_outfile out;
  sfdo_groups_make (p, &go, &g);
  enum sfdo_errc rc = sfdo_outfile_open (o->groups, &out, err);
  if (rc == SFDO_OK)
    {
      sfdo_groups_write (&g, &go, out.f);
      rc = sfdo_outfile_commit (&out, err);
    }
  if (rc == SFDO_OK && !o->quiet)
    sfdo_groups_summary (&g, "sfdo-convert", o->groups, stderr);
  sfdo_groups_release (&g);
  return rc;
}

/* Write P as the options say: sfdo's encodings, or another format whose
   losses are reported.  */
static enum sfdo_errc
save (struct sfdo_profile *p, const struct options *o, struct sfdo_error *err)
{
  const char *out = o->output ? o->output : "-";
  struct sfdo_export_report lost;
  if (!o->format)
    return sfdo_profile_save (p, out, o->binary ? SFDO_PROF_BINARY
                                                : SFDO_PROF_TEXT, err);
  enum sfdo_errc rc = sfdo_profile_export (p, out,
                                           (enum sfdo_export_format) o->format,
                                           &lost, err);
  if (rc == SFDO_OK)
    sfdo_export_report_print (stderr, "sfdo-convert",
                              (enum sfdo_export_format) o->format, &lost);
  return rc;
}

static enum sfdo_errc
open_input (const char *path, int skip_bad, struct sfdo_perfdata **pd,
            struct sfdo_error *err)
{
  return sfdo_perfdata_open_flags (path, skip_bad ? SFDO_PERFDATA_SKIP_BAD : 0,
                                   pd, err);
}

/* Records skipped as bad: how many, and the first.  */
static void
report_skipped (const struct sfdo_perfdata *pd)
{
  const struct sfdo_perfdata_stats *st = sfdo_perfdata_stats (pd);
  char buf[768];
  if (!st->bad_records)
    return;
  fprintf (stderr, "sfdo-convert: warning: skipped %llu bad record%s "
           "(%llu bytes searched for the next record); the first: %s\n",
           (unsigned long long) st->bad_records,
           st->bad_records == 1 ? "" : "s",
           (unsigned long long) st->skipped_bytes,
           sfdo_error_format (&st->first_bad, buf, sizeof buf));
}

/* No sample fell in the binaries: say what the recording has instead.  */
static void
report_misses (const struct sfdo_converter *cv, const struct sfdo_perfdata *pd)
{
  enum { MAX_FILES = 5 };
  const char *names[MAX_FILES];
  uint64_t counts[MAX_FILES];
  size_t n = sfdo_perfdata_nbuild_ids (pd);
  if (n)
    fprintf (stderr, "sfdo-convert: the recording's build-ids:\n");
  for (size_t i = 0; i < n; i++)
    {
      const struct sfdo_perfdata_build_id *b = sfdo_perfdata_build_id (pd, i);
      fprintf (stderr, "sfdo-convert:   ");
      for (size_t k = 0; k < b->size && k < 20; k++)
        fprintf (stderr, "%02x", b->id[k]);
      fprintf (stderr, " %s\n", b->filename ? b->filename : "");
    }
  size_t m = sfdo_converter_sampled_files (cv, MAX_FILES, names, counts);
  for (size_t i = 0; i < m; i++)
    fprintf (stderr, "sfdo-convert: %s %s (%llu samples)\n",
             i ? "  " : "its samples fell in:", names[i],
             (unsigned long long) counts[i]);
  fprintf (stderr, "sfdo-convert: give the binary the recording ran (the "
           "same build), or record this one; nothing was written\n");
}

/* Read PD, named PATH: errors without a file of their own are about it.  */
static enum sfdo_errc
read_input (struct sfdo_converter *cv, struct sfdo_perfdata *pd,
            const char *path, int progress, struct sfdo_error *err)
{
  enum sfdo_errc rc = sfdo_converter_read (cv, pd,
                                           progress ? show_progress : NULL,
                                           NULL, err);
  if (rc != SFDO_OK && !err->path[0])
    snprintf (err->path, sizeof err->path, "%s", path);
  return rc;
}

/* How far a conversion got.  */
enum stage { FAILED_READING, FAILED_BUILDING, FAILED_WRITING, DONE };

/* Read, build and write as O says, into *CV, *PD and *P (the caller frees
   them).  */
static enum stage
convert (const struct options *o, char **inputs, size_t ninputs,
         struct sfdo_converter **cv, struct sfdo_perfdata **pd,
         struct sfdo_profile **p, struct sfdo_error *err)
{
  int progress = !o->quiet && isatty (2);
  enum sfdo_errc rc = sfdo_converter_new (&o->convert,
                                          (const char *const *) inputs + 1,
                                          ninputs - 1, cv, err);
  if (rc == SFDO_OK)
    rc = open_input (inputs[0], o->skip_bad, pd, err);
  if (rc == SFDO_OK)
    rc = read_input (*cv, *pd, inputs[0], progress, err);
  if (progress)
    fputs ("\r\033[K", stderr);
  if (rc != SFDO_OK)
    return FAILED_READING;
  if (sfdo_converter_build (*cv, p, err) != SFDO_OK)
    {
      if (!err->path[0])
        snprintf (err->path, sizeof err->path, "%s", inputs[0]);
      return FAILED_BUILDING;
    }
  if ((o->lbr_dump && dump_lbr (*cv, o->lbr_dump, err) != SFDO_OK)
      || (o->groups && write_groups (*p, o, err) != SFDO_OK)
      || save (*p, o, err) != SFDO_OK)
    return FAILED_WRITING;
  return DONE;
}

/* A warning where S's samples are too few for GCC's decisions to rest on
   (common/evidence.h); DATA names the recording.  */
static void
warn_if_thin (const struct sfdo_convert_stats *s, const char *data)
{
  uint64_t stacks = s->lbr_samples < s->used ? s->lbr_samples : s->used;
  uint64_t evidence = sfdo_sample_evidence (s->used, stacks);
  if (evidence >= SFDO_THIN_PROFILE_SAMPLES)
    return;
  fprintf (stderr, "sfdo-convert: warning: %s: only %llu samples fell in "
           "the binaries (%llu with a branch stack): a profile GCC's "
           "decisions can rest on needs about %d instruction samples, or "
           "%d with branch stacks; record a longer run or sample more "
           "often", data, (unsigned long long) s->used,
           (unsigned long long) stacks, SFDO_THIN_PROFILE_SAMPLES,
           SFDO_THIN_PROFILE_SAMPLES / SFDO_BRANCH_STACK_EVIDENCE);
  if (evidence)
    fprintf (stderr, " (sfdo-record -c with a period about %llu times "
             "shorter)", (unsigned long long) ((SFDO_THIN_PROFILE_SAMPLES
                                               + evidence - 1) / evidence));
  fputs ("\n", stderr);
}

int
main (int argc, char **argv)
{
  struct options o = { .convert = { .tool = "sfdo-convert " SFDO_VERSION } };
  int rc = parse_options (argc, argv, &o);
  if (rc)
    return rc;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  struct sfdo_converter *cv = NULL;
  struct sfdo_perfdata *pd = NULL;
  struct sfdo_profile *p = NULL;
  enum stage stage = convert (&o, argv + optind, (size_t) (argc - optind),
                              &cv, &pd, &p, &err);
  if (stage != DONE)
    rc = report (&err);
  if (pd)
    report_skipped (pd);
  if (stage == FAILED_READING && !o.skip_bad
      && (err.code == SFDO_E_MALFORMED || err.code == SFDO_E_TRUNCATED)
      && err.offset != SFDO_NO_OFFSET)
    fprintf (stderr, "sfdo-convert: hint: --skip-bad-records skips what "
             "cannot be decoded and converts the rest\n");
  if (stage == FAILED_BUILDING && sfdo_converter_stats (cv)->samples
      && !sfdo_converter_stats (cv)->used)
    report_misses (cv, pd);
  if (cv && o.stats)
    print_stats (sfdo_converter_stats (cv));
  if (stage == DONE && !o.quiet)
    warn_if_thin (sfdo_converter_stats (cv), argv[optind]);
  sfdo_profile_free (p);
  sfdo_perfdata_close (pd);
  sfdo_converter_free (cv);
  return rc;
}
