/* sfdo-convert - perf.data samples to a portable source-line profile.
 *
 * A thin tool over converter/convert.h: options, progress, errors.  Exit
 * status: 0 success, 1 usage error, 2 bad input or I/O error.  */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/error.h"
#include "../perfdata/perfdata.h"
#include "../profiles/profile.h"
#include "convert.h"

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
  "                        and why, on standard error\n"
  "      --lbr-dump=FILE   also write the raw branch and straight-run\n"
  "                        tallies of the branch stacks to FILE\n"
  "  -q, --quiet           no progress line, even on a terminal\n"
  "  -h, --help            this text\n"
  "      --version         the version\n"
  "\n"
  "Exit status: 0 success, 1 usage error, 2 bad input or I/O error.\n";

struct options {
  struct sfdo_convert_opts convert;
  const char *output;
  const char *lbr_dump;
  int binary, stats, quiet;
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
    { "format", required_argument, 0, 'F' },
    { "smooth", required_argument, 0, 'S' },
    { "count-event", required_argument, 0, 'E' },
    { "clk-event", required_argument, 0, 'C' },
    { "help", no_argument, 0, 'h' },
    { "version", no_argument, 0, 'V' },
    { 0, 0, 0, 0 }
  };
  int value;
  for (int c; (c = getopt_long (argc, argv, "o:qh", opts, NULL)) != -1;)
    switch (c)
      {
      case 'o': o->output = optarg; break;
      case 't': o->binary = 0; break;
      case 'b': o->binary = 1; break;
      case 'f': o->convert.force = 1; break;
      case 's': o->stats = 1; break;
      case 'q': o->quiet = 1; break;
      case 'L': o->lbr_dump = optarg; break;
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
          return usage_error ("--line-vote takes blocks, max or mean, not '%s'",
                              optarg);
        o->convert.vote = (enum sfdo_line_vote) value;
        break;
      default:
        return EXIT_USAGE;
      }
  if (argc - optind < 2)
    return usage_error ("needs PERF.DATA and at least one BINARY%s", "");
  return 0;
}

static void
show_progress (uint64_t records, void *ctx)
{
  (void) ctx;
  fprintf (stderr, "\rsfdo-convert: %llu million records read",
           (unsigned long long) (records >> 20));
}

static void
print_stats (const struct sfdo_convert_stats *s)
{
  fprintf (stderr,
           "sfdo-convert: %llu samples: %llu used; dropped: %llu of another "
           "event, %llu kernel, %llu in other files, %llu unmapped, %llu "
           "without line info; %llu lost by the kernel; %llu with "
           "callchains, %llu gave a value (divisor or size)\n",
           (unsigned long long) s->samples, (unsigned long long) s->used,
           (unsigned long long) s->other_event,
           (unsigned long long) s->kernel,
           (unsigned long long) s->other_file,
           (unsigned long long) s->unmapped,
           (unsigned long long) s->no_line, (unsigned long long) s->lost,
           (unsigned long long) s->callchains,
           (unsigned long long) s->values);
  if (s->lbr_samples)
    fprintf (stderr,
             "sfdo-convert: %llu branch stacks: %llu of %llu branches and "
             "%llu of %llu straight runs dropped (other files, kernel, or "
             "impossible)\n",
             (unsigned long long) s->lbr_samples,
             (unsigned long long) s->lbr_branches_dropped,
             (unsigned long long) s->lbr_branches,
             (unsigned long long) s->lbr_ranges_dropped,
             (unsigned long long) s->lbr_ranges);
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
}

static int
dump_lbr (const struct sfdo_converter *cv, const char *path)
{
  FILE *f = fopen (path, "w");
  if (!f)
    {
      perror (path);
      return EXIT_INPUT;
    }
  sfdo_converter_dump_lbr (cv, f);
  if (fclose (f) != 0)
    {
      perror (path);
      return EXIT_INPUT;
    }
  return 0;
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
open_input (const char *path, struct sfdo_perfdata **pd,
            struct sfdo_error *err)
{
  if (strcmp (path, "-") == 0)
    return sfdo_perfdata_open_fd (0, "<stdin>", pd, err);
  return sfdo_perfdata_open (path, pd, err);
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
  int progress = !o.quiet && isatty (2);
  if (sfdo_converter_new (&o.convert, (const char *const *) argv + optind + 1,
                          (size_t) (argc - optind - 1), &cv, &err) != SFDO_OK
      || open_input (argv[optind], &pd, &err) != SFDO_OK
      || read_input (cv, pd, argv[optind], progress, &err) != SFDO_OK
      || sfdo_converter_build (cv, &p, &err) != SFDO_OK
      || save (p, &o, &err) != SFDO_OK)
    rc = report (&err);
  if (progress)
    fputs ("\r\033[K", stderr);
  if (!rc && o.lbr_dump)
    rc = dump_lbr (cv, o.lbr_dump);
  if (cv && o.stats)
    print_stats (sfdo_converter_stats (cv));
  if (cv && !rc && sfdo_converter_stats (cv)->used == 0)
    fprintf (stderr, "sfdo-convert: warning: no sample fell in the binaries "
             "given; is PERF.DATA a recording of them? (--stats says "
             "where the samples went)\n");
  sfdo_profile_free (p);
  sfdo_perfdata_close (pd);
  sfdo_converter_free (cv);
  return rc;
}
