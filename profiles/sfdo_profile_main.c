/* sfdo-profile - show, merge, compare and convert sfdo profiles.
 *
 * A thin tool over the profile library: it parses options, calls
 * profiles/profile.h and prints.  Exit status: 0 success, 1 usage error,
 * 2 bad input or I/O error.  */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/error.h"
#include "../common/outfile.h"
#include "../converter/anchors.h"
#include "../converter/blocks.h"
#include "../converter/groups.h"
#include "../converter/symtab.h"
#include "align.h"
#include "profile.h"

#ifndef SFDO_VERSION
#define SFDO_VERSION "0.0.0"
#endif

enum { EXIT_USAGE = 1, EXIT_INPUT = 2 };

static const char usage_text[] =
  "Usage: sfdo-profile COMMAND [OPTIONS] ...\n"
  "\n"
  "Commands:\n"
  "  show [--top N] [--function NAME [--file FILE]] PROFILE\n"
  "        totals and header, the N hottest functions (default 10), or one\n"
  "        function's body counts, call targets, inlinees and values\n"
  "  merge [-o OUT] [--text|--binary] [-w W,]PROFILE ...\n"
  "        sum profiles; -w/--weighted-input=W,PROFILE multiplies its counts\n"
  "        by the integer W; counts saturate instead of overflowing\n"
  "  overlap A B\n"
  "        degree of overlap (Chen et al.) at function and line level\n"
  "  convert --text|--binary [-o OUT] PROFILE\n"
  "        rewrite PROFILE in the other encoding (both are lossless)\n"
  "  export --afdo[=1|2|3]|--llvm [-o OUT] PROFILE\n"
  "        write GCC's AutoFDO profile (version 2, for GCC 12 to 15, by\n"
  "        default; 1 for GCC 11 and older, 3 for GCC 16) or LLVM's text\n"
  "        sample profile as clang's -fprofile-sample-use looks it up (base\n"
  "        discriminators, functions by name); what the format cannot hold\n"
  "        is reported, by kind; PROFILE may be AutoFDO itself, so that\n"
  "        --afdo=3 rewrites create_gcov's output (which GCC 16 refuses)\n"
  "        for GCC 16, its summary computed from the counts\n"
  "  align [--text|--binary] [-o OUT] [--verbose] PROFILE BINARY\n"
  "        carry PROFILE, recorded on an older build, over to the source of\n"
  "        BINARY (built -g from newer source): each function's lines move\n"
  "        with its call sites, as the plugin moves them when it compiles\n"
  "        with a stale profile; says how many functions moved, and with\n"
  "        --verbose which\n"
  "  group [--cutoff PCT] [--max-units N] [-o OUT] PROFILE\n"
  "        module groups for cross-file inlining (LIPO): the source files\n"
  "        the profile's calls cross, joined heaviest calls first until the\n"
  "        groups hold PCT% (default 85) of the cross-file call weight, at\n"
  "        most N files (default 8) a group, from the compile units the\n"
  "        profile records (also after a merge); sfdo-link reads the file\n"
  "  import [--text|--binary] [-o OUT] PROFILE\n"
  "        read an AutoFDO profile (versions 1 to 3, create_gcov's too) or\n"
  "        an LLVM text profile (its base discriminators become the ones\n"
  "        clang writes) and write it as an sfdo profile\n"
  "\n"
  "Every reader detects the encoding (text, binary, AutoFDO, LLVM text) by\n"
  "itself, so show, merge and convert take any of them too; PROFILE\n"
  "may be - for standard input.  Output goes to standard output or, with\n"
  "-o, to OUT, written atomically.  OUT may be one of the inputs (merge -o\n"
  "a.prof a.prof b.prof): every input is read whole before anything is\n"
  "written, and OUT is replaced only once complete.  An option given twice\n"
  "with different values, or two that exclude each other, is a usage\n"
  "error.  Exit status: 0 success, 1 usage error, 2 bad input or I/O\n"
  "error.  The format is described in profiles/FORMAT.md.\n";

static int
usage_error (const char *fmt, const char *arg)
{
  fprintf (stderr, "sfdo-profile: ");
  fprintf (stderr, fmt, arg);
  fprintf (stderr, "\nTry 'sfdo-profile --help' for more information.\n");
  return EXIT_USAGE;
}

static int
report (const struct sfdo_error *err)
{
  char buf[768];
  fprintf (stderr, "sfdo-profile: error: %s\n",
           sfdo_error_format (err, buf, sizeof buf));
  return EXIT_INPUT;
}

/* An option that takes a value, given twice: the same value is fine,
   another one a usage error (not a silent last-wins).  */
static int
set_once (const char **slot, const char *value, const char *option)
{
  if (*slot && strcmp (*slot, value) != 0)
    {
      fprintf (stderr, "sfdo-profile: %s given twice ('%s', then '%s')\n"
               "Try 'sfdo-profile --help' for more information.\n", option,
               *slot, value);
      return EXIT_USAGE;
    }
  *slot = value;
  return 0;
}

/* -o OUT: a file name, not a directory.  */
static int
check_output (const char *out)
{
  struct stat st;
  if (!out)
    return 0;
  if (!*out)
    return usage_error ("-o needs a file name, not an empty one%s", "");
  if (strcmp (out, "-") != 0 && stat (out, &st) == 0 && S_ISDIR (st.st_mode))
    return usage_error ("-o %s is a directory; name a file in it", out);
  return 0;
}

/* --text or --binary (C is 't' or 'b') into *BINARY (-1: not yet).  */
static int
set_encoding (int c, int *binary)
{
  if (*binary >= 0 && *binary != (c == 'b'))
    return usage_error ("--text and --binary exclude each other%s", "");
  *binary = c == 'b';
  return 0;
}

static int
parse_count (const char *s, uint64_t *out)
{
  char *end;
  if (!*s || *s == '-')
    return -1;
  unsigned long long v = strtoull (s, &end, 10);
  if (*end)
    return -1;
  *out = v;
  return 0;
}

/* --- show -------------------------------------------------------------- */

static double
percent (uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

static void
show_header (struct sfdo_profile *p)
{
  const struct sfdo_prof_header *h = sfdo_profile_header (p);
  printf ("format:     sfdo-profile %u (%s)\n", h->version,
          sfdo_profile_encoding (p) == SFDO_PROF_BINARY ? "binary" : "text");
  for (size_t i = 0; i < h->nbuild_ids; i++)
    printf ("build-id:   %s\n", sfdo_profile_str (p, h->build_ids[i]));
  for (size_t i = 0; i < h->nmodes; i++)
    printf ("mode:       %s\n", sfdo_profile_str (p, h->modes[i]));
  for (size_t i = 0; i < h->nevents; i++)
    printf ("event:      %s period=%llu samples=%llu\n",
            sfdo_profile_str (p, h->events[i].name),
            (unsigned long long) h->events[i].period,
            (unsigned long long) h->events[i].samples);
  for (size_t i = 0; i < h->ntools; i++)
    printf ("tool:       %s\n", sfdo_profile_str (p, h->tools[i]));
  printf ("samples:    %llu used, %llu dropped\n",
          (unsigned long long) h->samples_used,
          (unsigned long long) h->samples_dropped);
}

static void
show_top (struct sfdo_profile *p, uint64_t top)
{
  uint64_t total = sfdo_profile_total (p);
  size_t n = sfdo_profile_nfuncs (p);
  printf ("functions:  %zu\ntotal:      %llu\n\n", n,
          (unsigned long long) total);
  printf ("%8s %20s %16s  %s\n", "share", "total", "head", "function");
  for (size_t i = 0; i < n && i < top; i++)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      const char *file = sfdo_profile_str (p, f->file);
      printf ("%7.2f%% %20llu %16llu  %s%s%s%s\n", percent (f->total, total),
              (unsigned long long) f->total, (unsigned long long) f->head,
              sfdo_profile_str (p, f->name), *file ? " (" : "", file,
              *file ? ")" : "");
    }
}

/* Print F's body at indentation DEPTH.  */
static void
show_body (struct sfdo_profile *p, const struct sfdo_prof_func *f, int depth)
{
  for (size_t i = 0; i < f->nlines; i++)
    {
      const struct sfdo_prof_line *l = &f->lines[i];
      printf ("%*s+%u.%u  %llu", depth * 2, "", l->offset, l->discriminator,
              (unsigned long long) l->count);
      for (size_t k = 0; k < l->ntargets; k++)
        printf ("  -> %s (%llu)", sfdo_profile_str (p, l->targets[k].name),
                (unsigned long long) l->targets[k].count);
      printf ("\n");
    }
  for (size_t i = 0; i < f->nvalues; i++)
    {
      const struct sfdo_prof_values *v = &f->values[i];
      printf ("%*s+%u.%u  values (%s):", depth * 2, "", v->offset,
              v->discriminator, sfdo_prof_value_kind_name (v->kind));
      for (size_t k = 0; k < v->nentries; k++)
        if (sfdo_value_kind_is_name (v->kind))
          printf (" %s=%llu", sfdo_profile_str (p, (uint32_t) v->entries[k].value),
                  (unsigned long long) v->entries[k].count);
        else
          printf (" %lld=%llu", (long long) v->entries[k].value,
                  (unsigned long long) v->entries[k].count);
      printf ("\n");
    }
  for (size_t i = 0; i < f->ncallsites; i++)
    {
      const struct sfdo_prof_func *c = f->callsites[i].callee;
      printf ("%*s+%u.%u  inlined %s: total %llu, head %llu\n", depth * 2, "",
              f->callsites[i].offset, f->callsites[i].discriminator,
              sfdo_profile_str (p, c->name), (unsigned long long) c->total,
              (unsigned long long) c->head);
      show_body (p, c, depth + 1);
    }
}

/* NAME is not in P as asked (of FILE, or external when FILE is NULL):
   say which files have a static function of that name, if any.  */
static int
not_found (struct sfdo_profile *p, const char *name, const char *file)
{
  struct sfdo_error err;
  size_t n = 0;
  sfdo_error_clear (&err);
  if (sfdo_profile_load_all (p, &err) != SFDO_OK)
    return report (&err);
  for (size_t i = 0; i < sfdo_profile_nfuncs (p); i++)
    {
      const struct sfdo_prof_func *f = sfdo_profile_func (p, i, NULL);
      const char *ffile = sfdo_profile_str (p, f->file);
      if (*ffile && strcmp (sfdo_profile_str (p, f->name), name) == 0)
        fprintf (stderr, "%s%s", n++ ? ", " : "sfdo-profile: ", ffile);
    }
  if (n)
    fprintf (stderr, " %s a static function '%s'%s; name its file with "
             "--file FILE\n", n == 1 ? "has" : "have", name,
             file ? "" : " (without --file, show looks for one with "
                         "external linkage)");
  fprintf (stderr, "sfdo-profile: function '%s'%s%s not in the profile\n",
           name, file ? " of file " : "", file ? file : "");
  return EXIT_INPUT;
}

static int
show_function (struct sfdo_profile *p, const char *name, const char *file)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  struct sfdo_prof_func *f = sfdo_profile_find (p, name, file, &err);
  if (!f && err.code)
    return report (&err);
  if (!f)
    return not_found (p, name, file);
  printf ("%s: total %llu, head %llu", name, (unsigned long long) f->total,
          (unsigned long long) f->head);
  if (f->has_checksum)
    printf (", checksum %llu", (unsigned long long) f->checksum);
  printf ("\n  (line offset.discriminator  count)\n");
  show_body (p, f, 1);
  return 0;
}

static int
cmd_show (int argc, char **argv)
{
  static const struct option opts[] = {
    { "top", required_argument, 0, 'n' },
    { "function", required_argument, 0, 'f' },
    { "file", required_argument, 0, 'F' },
    { 0, 0, 0, 0 }
  };
  uint64_t top = 10;
  const char *function = NULL, *file = NULL, *top_arg = NULL;
  for (int c; (c = getopt_long (argc, argv, "n:f:", opts, NULL)) != -1;)
    {
      int rc = EXIT_USAGE;
      if (c == 'n' && !(rc = set_once (&top_arg, optarg, "--top"))
          && parse_count (optarg, &top) != 0)
        rc = usage_error ("--top needs a number, not '%s'", optarg);
      else if (c == 'f')
        rc = set_once (&function, optarg, "--function");
      else if (c == 'F')
        rc = set_once (&file, optarg, "--file");
      if (rc)
        return rc;
    }
  if (file && !function)
    return usage_error ("--file names the file of --function NAME%s", "");
  if (optind + 1 != argc)
    return usage_error ("show needs exactly one PROFILE%s", "");
  struct sfdo_error err;
  struct sfdo_profile *p;
  if (sfdo_profile_open (argv[optind], &p, &err) != SFDO_OK)
    return report (&err);
  int rc = 0;
  if (function)
    rc = show_function (p, function, file);
  else if (sfdo_profile_load_all (p, &err) != SFDO_OK)
    rc = report (&err);
  else
    {
      show_header (p);
      show_top (p, top);
    }
  sfdo_profile_free (p);
  return rc;
}

/* --- merge, convert, overlap ------------------------------------------- */

static int
save (struct sfdo_profile *p, const char *out, int binary)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  if (sfdo_profile_save (p, out ? out : "-",
                         binary ? SFDO_PROF_BINARY : SFDO_PROF_TEXT, &err)
      != SFDO_OK)
    return report (&err);
  return 0;
}

/* Parse "W,FILE" of --weighted-input (ARG is left intact).  */
static int
split_weighted (const char *arg, uint64_t *weight, const char **file)
{
  const char *comma = strchr (arg, ',');
  char w[32];
  if (!comma || comma == arg || (size_t) (comma - arg) >= sizeof w)
    return -1;
  snprintf (w, sizeof w, "%.*s", (int) (comma - arg), arg);
  *file = comma + 1;
  return parse_count (w, weight) == 0 && *weight > 0 && **file
         && **file != ',' ? 0 : -1;
}

static int
merge_one (struct sfdo_profile *acc, const char *path, uint64_t weight)
{
  struct sfdo_error err;
  struct sfdo_profile *p;
  if (sfdo_profile_read (path, &p, &err) != SFDO_OK)
    return report (&err);
  int rc = sfdo_profile_merge (acc, p, weight, &err) == SFDO_OK ? 0
           : report (&err);
  sfdo_profile_free (p);
  return rc;
}

static int
cmd_merge (int argc, char **argv)
{
  static const struct option opts[] = {
    { "output", required_argument, 0, 'o' },
    { "weighted-input", required_argument, 0, 'w' },
    { "text", no_argument, 0, 't' },
    { "binary", no_argument, 0, 'b' },
    { 0, 0, 0, 0 }
  };
  const char *out = NULL;
  int binary = -1, ninputs = 0, rc = 0;
  struct sfdo_profile *acc = sfdo_profile_new ();
  /* "-" first keeps inputs in order among the options.  */
  for (int c; rc == 0 && (c = getopt_long (argc, argv, "-o:w:", opts, NULL))
              != -1;)
    {
      uint64_t weight = 1;
      const char *file = optarg;
      if (c == 'o')
        rc = set_once (&out, optarg, "-o");
      else if (c == 't' || c == 'b')
        rc = set_encoding (c, &binary);
      else if (c == 'w' && split_weighted (optarg, &weight, &file) != 0)
        rc = usage_error ("--weighted-input needs W,PROFILE: a whole number "
                          "W > 0, one comma, a file name (such as 3,a.prof),"
                          " not '%s'", optarg);
      else if (c == 1 || c == 'w')
        {
          rc = merge_one (acc, file, weight);
          ninputs++;
        }
      else
        rc = EXIT_USAGE;
    }
  if (rc == 0 && ninputs == 0)
    rc = usage_error ("merge needs at least one PROFILE%s", "");
  if (rc == 0)
    rc = check_output (out);
  if (rc == 0)
    rc = save (acc, out, binary > 0);
  sfdo_profile_free (acc);
  return rc;
}

static int
cmd_convert (int argc, char **argv)
{
  static const struct option opts[] = {
    { "output", required_argument, 0, 'o' },
    { "text", no_argument, 0, 't' },
    { "binary", no_argument, 0, 'b' },
    { 0, 0, 0, 0 }
  };
  const char *out = NULL;
  int binary = -1;
  for (int c; (c = getopt_long (argc, argv, "o:", opts, NULL)) != -1;)
    {
      int rc = c == 'o' ? set_once (&out, optarg, "-o")
               : c == 't' || c == 'b' ? set_encoding (c, &binary)
               : EXIT_USAGE;
      if (rc)
        return rc;
    }
  if (binary < 0 && strcmp (argv[0], "import") != 0)
    return usage_error ("convert needs --text or --binary%s", "");
  binary = binary > 0;
  if (optind + 1 != argc)
    return usage_error ("convert needs exactly one PROFILE%s", "");
  if (check_output (out))
    return EXIT_USAGE;
  struct sfdo_error err;
  struct sfdo_profile *p;
  if (sfdo_profile_read (argv[optind], &p, &err) != SFDO_OK)
    return report (&err);
  int rc = save (p, out, binary);
  sfdo_profile_free (p);
  return rc;
}

static int
cmd_export (int argc, char **argv)
{
  static const struct option opts[] = {
    { "output", required_argument, 0, 'o' },
    { "afdo", optional_argument, 0, 'a' },
    { "llvm", no_argument, 0, 'l' },
    { 0, 0, 0, 0 }
  };
  const char *out = NULL;
  int format = 0;
  for (int c; (c = getopt_long (argc, argv, "o:", opts, NULL)) != -1;)
    {
      int f = c == 'l' ? SFDO_EXPORT_LLVM
              : c == 'a' && !optarg ? SFDO_EXPORT_AFDO2
              : c == 'a' && optarg[0] >= '1' && optarg[0] <= '3' && !optarg[1]
              ? optarg[0] - '0' : 0;
      if (c == 'o' && set_once (&out, optarg, "-o"))
        return EXIT_USAGE;
      else if (c == 'a' && !f)
        return usage_error ("--afdo takes version 1, 2 or 3, not '%s'",
                            optarg);
      else if (f && format && f != format)
        return usage_error ("export writes one format: --afdo%s and --llvm "
                            "(or two --afdo versions) exclude each other",
                            "");
      else if (c != 'o' && !f)
        return EXIT_USAGE;
      if (f)
        format = f;
    }
  if (!format)
    return usage_error ("export needs --afdo[=VERSION] or --llvm%s", "");
  if (optind + 1 != argc)
    return usage_error ("export needs exactly one PROFILE%s", "");
  if (check_output (out))
    return EXIT_USAGE;
  struct sfdo_error err;
  struct sfdo_profile *p;
  struct sfdo_export_report lost;
  if (sfdo_profile_read (argv[optind], &p, &err) != SFDO_OK)
    return report (&err);
  int rc = 0;
  if (sfdo_profile_export (p, out ? out : "-",
                           (enum sfdo_export_format) format, &lost, &err)
      != SFDO_OK)
    rc = report (&err);
  else
    {
      sfdo_export_report_print (stderr, "sfdo-profile",
                                (enum sfdo_export_format) format, &lost);
      sfdo_export_report_print_kinds (stderr, "sfdo-profile", &lost);
    }
  sfdo_profile_free (p);
  return rc;
}

/* The shape (call sites, lines) of the binary at PATH into *SHAPE.  */
static int
binary_shape (const char *path, struct sfdo_profile **shape)
{
  struct sfdo_error err;
  struct sfdo_symtab *st;
  struct sfdo_decoder *dec;
  sfdo_error_clear (&err);
  if (sfdo_symtab_open (path, &st, &err) != SFDO_OK)
    return report (&err);
  enum sfdo_errc rc = sfdo_decoder_new (sfdo_symtab_machine (st), &dec, &err);
  if (rc == SFDO_OK)
    {
      rc = sfdo_binary_shape (st, dec, shape, &err);
      sfdo_decoder_free (dec);
    }
  sfdo_symtab_free (st);
  if (rc != SFDO_OK)
    {
      if (!err.path[0])
        snprintf (err.path, sizeof err.path, "%s", path);
      return report (&err);
    }
  return 0;
}

static int
cmd_align (int argc, char **argv)
{
  static const struct option opts[] = {
    { "output", required_argument, 0, 'o' },
    { "text", no_argument, 0, 't' },
    { "binary", no_argument, 0, 'b' },
    { "verbose", no_argument, 0, 'v' },
    { 0, 0, 0, 0 }
  };
  const char *out = NULL;
  int binary = -1, verbose = 0;
  for (int c; (c = getopt_long (argc, argv, "o:v", opts, NULL)) != -1;)
    {
      int rc = c == 'o' ? set_once (&out, optarg, "-o")
               : c == 't' || c == 'b' ? set_encoding (c, &binary)
               : c == 'v' ? (verbose = 1, 0)
               : EXIT_USAGE;
      if (rc)
        return rc;
    }
  if (optind + 2 != argc)
    return usage_error ("align needs a PROFILE and a BINARY%s", "");
  if (check_output (out))
    return EXIT_USAGE;
  struct sfdo_error err;
  struct sfdo_profile *p, *shape;
  if (sfdo_profile_read (argv[optind], &p, &err) != SFDO_OK)
    return report (&err);
  int rc = sfdo_profile_load_all (p, &err) != SFDO_OK ? report (&err) : 0;
  if (!rc && !sfdo_profile_has_mode (p, "shape"))
    {
      fprintf (stderr, "sfdo-profile: %s records no call sites to align by "
               "(sfdo-convert writes them since issue #18); convert its "
               "perf.data again\n", argv[optind]);
      rc = EXIT_INPUT;
    }
  if (!rc && !(rc = binary_shape (argv[optind + 1], &shape)))
    {
      struct sfdo_align_report r;
      sfdo_align_to_shape (p, shape, &r, verbose ? stderr : NULL);
      uint64_t all = r.strong + r.weak + r.dropped;
      fprintf (stderr, "sfdo-profile: %zu functions' lines moved with their "
               "call sites (of their weight %.1f%% strong, %.1f%% weak, "
               "%.1f%% left out); %zu renamed (found by their call sites); "
               "%zu as they were; %zu with no call site to align by; %zu "
               "not in %s; %zu inline instances' lines moved with their "
               "callee's\n", r.moved,
               all ? 100.0 * r.strong / all : 0.0,
               all ? 100.0 * r.weak / all : 0.0,
               all ? 100.0 * r.dropped / all : 0.0, r.renamed, r.exact,
               r.unanchored, r.missing, argv[optind + 1],
               r.moved_instances);
      sfdo_profile_free (shape);
      rc = save (p, out, binary > 0
                         || (binary < 0
                             && sfdo_profile_encoding (p) == SFDO_PROF_BINARY));
    }
  sfdo_profile_free (p);
  return rc;
}

static int
cmd_overlap (int argc, char **argv)
{
  if (argc != 3)
    return usage_error ("overlap needs exactly two profiles, A and B%s", "");
  struct sfdo_error err;
  struct sfdo_profile *a = NULL, *b = NULL;
  double fn = 0, ln = 0;
  int rc = 0;
  if (sfdo_profile_read (argv[1], &a, &err) != SFDO_OK
      || sfdo_profile_read (argv[2], &b, &err) != SFDO_OK
      || sfdo_profile_overlap (a, b, &fn, &ln, &err) != SFDO_OK)
    rc = report (&err);
  else
    printf ("function-level overlap: %.2f%%\nline-level overlap:     %.2f%%\n",
            100.0 * fn, 100.0 * ln);
  sfdo_profile_free (a);
  sfdo_profile_free (b);
  return rc;
}

/* A share in percent (0 to 100) into *OUT as a fraction.  */
static int
parse_percent (const char *s, double *out)
{
  char *end;
  double v = strtod (s, &end);
  if (!*s || *end || !(v > 0 && v <= 100))
    return -1;
  *out = v / 100;
  return 0;
}

static int
cmd_group (int argc, char **argv)
{
  static const struct option opts[] = {
    { "output", required_argument, 0, 'o' },
    { "cutoff", required_argument, 0, 'c' },
    { "max-units", required_argument, 0, 'm' },
    { 0, 0, 0, 0 }
  };
  const char *out = NULL;
  struct sfdo_groups_opts go = { SFDO_GROUPS_CUTOFF, SFDO_GROUPS_MAX_UNITS };
  uint64_t max_units;
  for (int c; (c = getopt_long (argc, argv, "o:", opts, NULL)) != -1;)
    {
      int rc = c == 'o' ? set_once (&out, optarg, "-o")
               : c == 'c' ? (parse_percent (optarg, &go.cutoff)
                             ? usage_error ("--cutoff takes a share in percent, "
                                            "above 0 and at most 100, not "
                                            "'%s'", optarg) : 0)
               : c == 'm' ? (parse_count (optarg, &max_units) || max_units < 2
                             ? usage_error ("--max-units takes a whole number "
                                            "of 2 or more, not '%s'", optarg)
                             : (go.max_units = (size_t) max_units, 0))
               : EXIT_USAGE;
      if (rc)
        return rc;
    }
  if (optind + 1 != argc)
    return usage_error ("group needs exactly one PROFILE%s", "");
  if (check_output (out))
    return EXIT_USAGE;
  struct sfdo_error err;
  struct sfdo_profile *p;
  if (sfdo_profile_read (argv[optind], &p, &err) != SFDO_OK)
    return report (&err);
  int rc = sfdo_profile_load_all (p, &err) != SFDO_OK ? report (&err) : 0;
  struct sfdo_groups g = { 0 };
  if (!rc)
    sfdo_groups_make (p, &go, &g);
  if (!rc && !g.nunits)
    {
      fprintf (stderr, "sfdo-profile: %s records no compile units "
               "(sfdo-convert writes them since issue #17); convert its "
               "perf.data again\n", argv[optind]);
      rc = EXIT_INPUT;
    }
  struct sfdo_outfile of;
  if (!rc && !out)
    {
      sfdo_groups_write (&g, &go, stdout);
      rc = fflush (stdout) != 0 ? (perror ("sfdo-profile: standard output"),
                                   EXIT_INPUT) : 0;
    }
  else if (!rc && sfdo_outfile_open (out, &of, &err) != SFDO_OK)
    rc = report (&err);
  else if (!rc)
    {
      sfdo_groups_write (&g, &go, of.f);
      rc = sfdo_outfile_commit (&of, &err) != SFDO_OK ? report (&err) : 0;
    }
  if (!rc)
    sfdo_groups_summary (&g, "sfdo-profile", out ? out : "standard output",
                         stderr);
  sfdo_groups_release (&g);
  sfdo_profile_free (p);
  return rc;
}

/* The commands, by name.  Reading detects AFDO and LLVM text, so
   importing is converting.  */
static const struct command {
  const char *name;
  int (*run) (int argc, char **argv);
} commands[] = {
  { "show", cmd_show }, { "merge", cmd_merge }, { "convert", cmd_convert },
  { "import", cmd_convert }, { "export", cmd_export },
  { "overlap", cmd_overlap }, { "align", cmd_align }, { "group", cmd_group },
};

static const struct command *
find_command (const char *name)
{
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp (name, commands[i].name))
      return &commands[i];
  return NULL;
}

/* Whether a command's options include --help or -h ("sfdo-profile show
   --help"), which every command answers with the usage, as git does.  */
static int
asks_for_help (int argc, char **argv)
{
  for (int i = 2; i < argc && strcmp (argv[i], "--"); i++)
    if (!strcmp (argv[i], "--help") || !strcmp (argv[i], "-h"))
      return 1;
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    return usage_error ("missing COMMAND%s", "");
  const char *cmd = argv[1];
  const struct command *c = find_command (cmd);
  if (!strcmp (cmd, "--help") || !strcmp (cmd, "-h") || !strcmp (cmd, "help")
      || (c && asks_for_help (argc, argv)))
    {
      fputs (usage_text, stdout);
      return 0;
    }
  if (!strcmp (cmd, "--version"))
    {
      printf ("sfdo-profile " SFDO_VERSION "\n");
      return 0;
    }
  if (c)
    return c->run (argc - 1, argv + 1);
  return usage_error ("unknown command '%s'", cmd);
}
