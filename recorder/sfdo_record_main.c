/* recorder/sfdo_record_main.c - sfdo-record: the command line over
   recorder/record.h.  */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/outfile.h"

#include "emulate.h"
#include "events.h"
#include "record.h"
#include "sampler.h"
#include "thin.h"

static const char usage_text[] =
  "usage: sfdo-record [OPTION...] -- CMD [ARG...]\n"
  "       sfdo-record [OPTION...] -p PID[,PID...] [--duration SECONDS]\n"
  "       sfdo-record [OPTION...] -a --duration SECONDS\n"
  "       sfdo-record --emulate [-e EVENTS] [-c PERIOD] [-b] [--regs] -- CMD [ARG...]\n"
  "       sfdo-record --emulate --stat [-o FILE] -- CMD [ARG...]\n"
  "       sfdo-record --list-events\n"
  "\n"
  "Samples user-space code with perf_event_open and writes a perf.data\n"
  "that perf report, perf script and sfdo-convert read.\n"
  "\n"
  "  -o FILE          output (default perf.data), written under a temporary\n"
  "                   name and renamed when complete; never the command's\n"
  "                   own executable (refused)\n"
  "  -e EVENT[,...]   libpfm4 event names (INST_RETIRED:ANY_P,\n"
  "                   CPU_CLK_UNHALTED:THREAD_P) or perf's (cycles,\n"
  "                   instructions, cpu-clock, with :u/:p); without -e the\n"
  "                   best set this CPU offers, said on stderr\n"
  "  -c PERIOD        sample every PERIOD events (ns for cpu-clock), a\n"
  "                   whole number\n"
  "  -F FREQ          about FREQ samples per second instead of a period, a\n"
  "                   whole number up to kernel.perf_event_max_sample_rate\n"
  "      --no-jitter  keep the period fixed (by default its low bits are\n"
  "                   randomised after every sample window)\n"
  "  -b               user-space branch stacks (LBR, BRS, LbrExtV2)\n"
  "  -g               frame-pointer callchains (--call-graph fp)\n"
  "      --call-graph MODE  how sfdo-convert learns callers: fp (frame\n"
  "                   pointers, -g), dwarf[,SIZE] (registers and SIZE bytes\n"
  "                   of user stack per sample, unwound with the binaries'\n"
  "                   CFI; default SIZE 1024), or none.  Default: dwarf\n"
  "                   where no event records branch stacks, else none\n"
  "      --regs       register values for value profiles (REGS_INTR with\n"
  "                   precise events, REGS_USER otherwise)\n"
  "  -m PAGES         ring buffer pages per CPU, a power of two (default 128)\n"
  "  -p PID[,PID...]  sample running processes (and their new threads)\n"
  "  -a               sample every process on every CPU\n"
  "      --duration S stop after S seconds (with -p, -a, or a command)\n"
  "  -q               no messages but errors\n"
  "      --emulate    no PMU needed: run CMD under Valgrind with sfdoemu, an\n"
  "                   emulated PMU, exact, per thread: retired instructions\n"
  "                   sampled every -c PERIOD (default 100003), and with -b\n"
  "                   taken branches (default every 20011) carrying the last\n"
  "                   32 taken branches (LBR); --regs adds the registers;\n"
  "                   -e instructions,taken-branches picks the events.\n"
  "                   Periods jittered unless --no-jitter.  Several times\n"
  "                   slower than native; the events are named\n"
  "                   ...:u:emulated.  -p, -a, -g, -F do not apply\n"
  "      --stat       with --emulate: only count the command's retired\n"
  "                   instructions and taken branches (to -o FILE, else\n"
  "                   stderr); no perf.data\n"
  "      --list-events  the events this machine's PMUs offer\n"
  "  -h, --help       this text (--version: the version)\n"
  "\n"
  "With -- CMD, counting starts when CMD execs, its children are followed,\n"
  "and sfdo-record exits with CMD's exit status.  SIGINT or SIGTERM stops\n"
  "recording and still writes a complete file.  Exit status otherwise: 0,\n"
  "1 for a usage error, 2 when recording failed (no file is written), 126\n"
  "when CMD exists but cannot run, 127 when it is not found.  An option\n"
  "given twice with different values, or two that exclude each other, is\n"
  "a usage error.\n";

enum { OPT_NO_JITTER = 256, OPT_REGS, OPT_DURATION, OPT_LIST, OPT_VERSION,
       OPT_EMULATE, OPT_STAT, OPT_CALL_GRAPH };

static int
usage_error (const char *fmt, const char *arg)
{
  fprintf (stderr, "sfdo-record: ");
  fprintf (stderr, fmt, arg);
  fprintf (stderr, "\nTry 'sfdo-record --help'.\n");
  return 1;
}


/* A positive whole number in ARG; 0 when it is not one.  */
static unsigned long long
positive (const char *arg)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull (arg, &end, 10);
  return errno || *end || end == arg || arg[0] == '-' ? 0 : v;
}

/* The comma-separated process ids of ARG (left intact) into *PIDS.  */
static int
parse_pids (const char *arg, pid_t **pids, size_t *n)
{
  const char *tok = arg;
  for (;;)
    {
      size_t len = strcspn (tok, ",");
      char buf[32];
      snprintf (buf, sizeof buf, "%.*s", (int) (len < 31 ? len : 31), tok);
      unsigned long long v = len < 31 ? positive (buf) : 0;
      if (!len)
        return usage_error ("-p: an empty process id in '%s'; give ids "
                            "separated by single commas, such as 12,345",
                            arg);
      if (!v || v > 0x7fffffff)
        {
          fprintf (stderr, "sfdo-record: -p: '%.*s' is not a process id (in "
                   "'%s')\nTry 'sfdo-record --help'.\n", (int) len, tok,
                   arg);
          return 1;
        }
      *pids = realloc (*pids, (*n + 1) * sizeof **pids);
      if (!*pids)
        return 2;
      (*pids)[(*n)++] = (pid_t) v;
      if (!tok[len])
        return 0;
      tok += len + 1;
    }
}

/* -e: names separated by single commas, none empty.  */
static int
check_events (const char *arg)
{
  size_t len = strlen (arg);
  if (!len || arg[0] == ',' || arg[len - 1] == ',' || strstr (arg, ",,"))
    return usage_error ("-e needs event names separated by single commas, "
                        "such as cycles,instructions, not '%s'", arg);
  return 0;
}

/* An option that takes a value, given twice: the same value is fine,
   another one a usage error (not a silent last-wins).  */
static int
set_once (const char **slot, const char *value, const char *option)
{
  if (*slot && strcmp (*slot, value) != 0)
    {
      fprintf (stderr, "sfdo-record: %s given twice ('%s', then '%s')\n"
               "Try 'sfdo-record --help'.\n", option, *slot, value);
      return 1;
    }
  *slot = value;
  return 0;
}

/* The kernel's ceiling on samples per second, or 0 if unknown.  */
static unsigned long long
max_sample_rate (void)
{
  unsigned long long v = 0;
  FILE *f = fopen ("/proc/sys/kernel/perf_event_max_sample_rate", "r");
  if (f && fscanf (f, "%llu", &v) != 1)
    v = 0;
  if (f)
    fclose (f);
  return v;
}

static int
parse_frequency (const char *arg, uint64_t *freq)
{
  unsigned long long max = max_sample_rate ();
  if (!(*freq = positive (arg)))
    return usage_error ("-F takes a whole number of samples per second, "
                        "such as 4000, not '%s'", arg);
  if (max && *freq > max)
    {
      fprintf (stderr, "sfdo-record: -F %s is above this machine's limit "
               "of %llu samples per second (sysctl "
               "kernel.perf_event_max_sample_rate)\nTry 'sfdo-record "
               "--help'.\n", arg, max);
      return 1;
    }
  return 0;
}

/* --call-graph MODE (or -g: "fp") into O.  */
static int
parse_call_graph (const char *mode, struct sfdo_rec_options *o)
{
  static const char *given;
  int rc = set_once (&given, mode, "--call-graph (or -g)");
  if (rc)
    return rc;
  o->call_graph_given = 1;
  if (strcmp (mode, "fp") == 0)
    o->callchain = 1;
  else if (strcmp (mode, "none") == 0 || strcmp (mode, "no") == 0)
    o->stack_size = 0;
  else if (strcmp (mode, "dwarf") == 0)
    o->stack_size = SFDO_REC_STACK_DEFAULT;
  else if (strncmp (mode, "dwarf,", 6) == 0)
    {
      unsigned long long size = positive (mode + 6);
      if (!size || size % 8 || size > SFDO_REC_STACK_MAX)
        return usage_error ("--call-graph dwarf,SIZE: SIZE is the bytes of "
                            "stack per sample, a multiple of 8 up to 65528, "
                            "not '%s'", mode + 6);
      o->stack_size = (uint32_t) size;
    }
  else
    return usage_error ("--call-graph takes fp, dwarf[,SIZE] or none, not "
                        "'%s'", mode);
  return 0;
}

/* Options into O; returns -1 to go on, else the exit status.  */
static int emulate, stat_only;   /* --emulate, --stat */

static int
parse (int argc, char **argv, struct sfdo_rec_options *o,
       const char **events, size_t *nevents, pid_t **pids)
{
  static const struct option longs[] = {
    { "no-jitter", no_argument, NULL, OPT_NO_JITTER },
    { "regs", no_argument, NULL, OPT_REGS },
    { "duration", required_argument, NULL, OPT_DURATION },
    { "list-events", no_argument, NULL, OPT_LIST },
    { "output", required_argument, NULL, 'o' },
    { "event", required_argument, NULL, 'e' },
    { "pid", required_argument, NULL, 'p' },
    { "all-cpus", no_argument, NULL, 'a' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { "emulate", no_argument, NULL, OPT_EMULATE },
    { "stat", no_argument, NULL, OPT_STAT },
    { "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
    { NULL, 0, NULL, 0 }
  };
  int c, rc;
  char *end;
  const char *output = NULL, *period = NULL, *freq = NULL, *pages = NULL;
  const char *duration = NULL;
  while ((c = getopt_long (argc, argv, "+o:e:c:F:bgm:p:aqh", longs, NULL))
         != -1)
    {
      rc = 0;
      switch (c)
        {
        case 'o':
          if (!(rc = set_once (&output, optarg, "-o")) && !*optarg)
            rc = usage_error ("-o needs a file name, not an empty one%s", "");
          o->output = optarg;
          break;
        case 'e':
          if (!(rc = check_events (optarg)))
            events[(*nevents)++] = optarg;
          break;
        case 'c':
          if (!(rc = set_once (&period, optarg, "-c"))
              && !(o->period = positive (optarg)))
            rc = usage_error ("-c takes a whole number of events (of ns for "
                              "cpu-clock) between samples, not '%s'", optarg);
          break;
        case 'F':
          if (!(rc = set_once (&freq, optarg, "-F")))
            rc = parse_frequency (optarg, &o->freq);
          break;
        case 'b': o->branch_stack = 1; break;
        case 'g': rc = parse_call_graph ("fp", o); break;
        case OPT_CALL_GRAPH: rc = parse_call_graph (optarg, o); break;
        case 'm':
          o->mmap_pages = (unsigned) positive (optarg);
          if (!(rc = set_once (&pages, optarg, "-m"))
              && (!o->mmap_pages || (o->mmap_pages & (o->mmap_pages - 1))))
            rc = usage_error ("-m needs a power of two, not '%s'", optarg);
          break;
        case 'p': rc = parse_pids (optarg, pids, &o->npids); break;
        case 'a': o->all_cpus = 1; break;
        case 'q': o->quiet = 1; break;
        case OPT_NO_JITTER: o->jitter = 0; break;
        case OPT_REGS: o->regs = 1; break;
        case OPT_DURATION:
          o->duration = strtod (optarg, &end);
          if (!(rc = set_once (&duration, optarg, "--duration"))
              && (*end || end == optarg || !(o->duration > 0)))
            rc = usage_error ("--duration needs seconds, not '%s'", optarg);
          break;
        case OPT_EMULATE: emulate = 1; break;
        case OPT_STAT: stat_only = 1; break;
        case OPT_LIST: sfdo_rec_list_events (stdout); return 0;
        case 'h': fputs (usage_text, stdout); return 0;
        case OPT_VERSION: printf ("sfdo-record %s\n", SFDO_VERSION); return 0;
        default: return usage_error ("%s", "unknown option");
        }
      if (rc)
        return rc;
    }
  return -1;
}

/* The file execvp would run for NAME, into BUF; NULL if none is found.  */
static const char *
command_path (const char *name, char *buf, size_t size)
{
  if (strchr (name, '/'))
    return name;
  const char *path = getenv ("PATH");
  for (const char *dir = path ? path : "/bin:/usr/bin"; *dir;)
    {
      size_t len = strcspn (dir, ":");
      snprintf (buf, size, "%.*s%s%s", (int) len, dir, len ? "/" : "", name);
      if (access (buf, X_OK) == 0)
        return buf;
      dir += len + (dir[len] == ':');
    }
  return NULL;
}

/* The output must not replace the command's executable (it would be gone
   once the recording is renamed over it), nor be a directory, a device
   or a FIFO (the finished file is renamed over it).  */
static int
check_output (const struct sfdo_rec_options *o)
{
  struct stat st;
  char buf[4096];
  if (stat (o->output, &st) == 0 && S_ISDIR (st.st_mode))
    return usage_error ("-o %s is a directory; name a file in it", o->output);
  if (stat (o->output, &st) == 0 && !S_ISREG (st.st_mode))
    return usage_error ("-o %s is not a regular file: a perf.data is written "
                        "to a file, with seeks", o->output);
  const char *exe = o->command ? command_path (o->command[0], buf,
                                               sizeof buf) : NULL;
  if (exe && sfdo_same_file (exe, o->output))
    {
      fprintf (stderr, "sfdo-record: -o %s is the program to run (%s): the "
               "recording would replace it; choose another name\n"
               "Try 'sfdo-record --help'.\n", o->output, exe);
      return 1;
    }
  return -1;
}

/* Which target: exactly one of a command, -p, -a (-a may run a command
   too, as perf record does).  */
static int
check_target (const struct sfdo_rec_options *o)
{
  if (o->freq && o->period)
    return usage_error ("%s", "-c and -F exclude each other");
  if (o->npids && (o->command || o->all_cpus))
    return usage_error ("%s", "-p excludes -a and a command");
  if (!o->command && !o->npids && !o->all_cpus)
    return usage_error ("%s", "nothing to record: give -- CMD, -p PID or -a");
  if (o->freq && !o->jitter)
    return usage_error ("%s", "--no-jitter is for a fixed period (-c); -F "
                              "lets the kernel vary it");
  if (o->all_cpus && !o->command && !o->duration)
    fprintf (stderr, "sfdo-record: -a without --duration records until"
                     " SIGINT or SIGTERM\n");
  return check_output (o);
}

static void
print_note (const char *msg, void *ctx)
{
  (void) ctx;
  fprintf (stderr, "sfdo-record: %s\n", msg);
}

/* The warning of a recording with too few samples (thin.h).  A timer
   cannot fire faster than the kernel's sample rate allows; a recording
   stopped by a signal or of running processes is as long as its user
   made it.  */
static void
warn_if_thin (const struct sfdo_rec_options *o,
              const struct sfdo_rec_result *r)
{
  unsigned long long rate = r->timer ? max_sample_rate () : 0;
  sfdo_rec_warn_thin (r->samples, r->branch_stack ? r->samples : 0,
                      r->period, rate ? 1000000000ull / rate : 1,
                      o->command && !o->all_cpus && !r->stop_signal);
}

/* What the recording did, or why it failed.  */
static void
report (const struct sfdo_rec_options *o, const struct sfdo_rec_result *r)
{
  char buf[768];
  if (r->err.code)
    fprintf (stderr, "sfdo-record: %s\n",
             sfdo_error_format (&r->err, buf, sizeof buf));
  if (!r->written || o->quiet)
    return;
  fprintf (stderr, "sfdo-record: %llu samples, %llu lost, %.1f MB, %zu"
           " build-ids written to %s%s\n", (unsigned long long) r->samples,
           (unsigned long long) r->lost, (double) r->bytes / 1e6,
           r->build_ids, o->output,
           r->stop_signal ? " (stopped by a signal)" : "");
  warn_if_thin (o, r);
  if (r->lost)
    fprintf (stderr, "sfdo-record: %llu samples were lost: the ring buffers"
             " filled faster than they were read; a larger -m or period"
             " helps\n", (unsigned long long) r->lost);
}

/* --emulate: the command under the emulated PMU (emulate.h).  */
static int
emulate_main (struct sfdo_rec_options *o, const char *default_output)
{
  const char *refusal = sfdo_rec_emulate_refusal (o, stat_only);
  if (refusal)
    return usage_error ("%s", refusal);
  if (stat_only && o->output == default_output)
    o->output = NULL;           /* the counts go to stderr */
  return sfdo_rec_emulate (o, stat_only);
}

int
main (int argc, char **argv)
{
  static const char default_output[] = "perf.data";
  struct sfdo_rec_options o;
  memset (&o, 0, sizeof o);
  o.output = default_output;
  o.jitter = 1;
  o.mmap_pages = 128;
  o.argc = argc;
  o.argv = (const char *const *) argv;
  const char **events = calloc ((size_t) argc + 1, sizeof *events);
  pid_t *pids = NULL;
  size_t nevents = 0;
  int status = events ? parse (argc, argv, &o, events, &nevents, &pids) : 2;
  if (status < 0)
    {
      o.events = nevents ? events : NULL;
      o.pids = pids;
      o.command = optind < argc ? argv + optind : NULL;
      o.note = o.quiet ? NULL : print_note;
      status = emulate ? emulate_main (&o, default_output)
                       : stat_only ? usage_error ("%s", "--stat needs --emulate")
                                   : check_target (&o);
    }
  if (status < 0)
    {
      struct sfdo_rec_result res;
      status = sfdo_rec_run (&o, &res);
      report (&o, &res);
    }
  free (events);
  free (pids);
  return status;
}
