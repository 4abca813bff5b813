/* recorder/sfdo_record_main.c - sfdo-record: the command line over
   recorder/record.h.  */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulate.h"
#include "events.h"
#include "record.h"

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
  "                   name and renamed when complete\n"
  "  -e EVENT[,...]   libpfm4 event names (INST_RETIRED:ANY_P,\n"
  "                   CPU_CLK_UNHALTED:THREAD_P) or perf's (cycles,\n"
  "                   instructions, cpu-clock, with :u/:p); without -e the\n"
  "                   best set this CPU offers, said on stderr\n"
  "  -c PERIOD        sample every PERIOD events (ns for cpu-clock)\n"
  "  -F FREQ          about FREQ samples per second instead of a period\n"
  "      --no-jitter  keep the period fixed (by default its low bits are\n"
  "                   randomised after every sample window)\n"
  "  -b               user-space branch stacks (LBR, BRS, LbrExtV2)\n"
  "  -g               frame-pointer callchains\n"
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
  "1 for a usage error, 2 when recording failed (no file is written).\n";

enum { OPT_NO_JITTER = 256, OPT_REGS, OPT_DURATION, OPT_LIST, OPT_VERSION,
       OPT_EMULATE, OPT_STAT };

static int
usage_error (const char *fmt, const char *arg)
{
  fprintf (stderr, "sfdo-record: ");
  fprintf (stderr, fmt, arg);
  fprintf (stderr, "\nTry 'sfdo-record --help'.\n");
  return 1;
}

/* A positive number in ARG; 0 when it is not one.  */
static unsigned long long
positive (const char *arg)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull (arg, &end, 0);
  return errno || *end || end == arg || arg[0] == '-' ? 0 : v;
}

static int
parse_pids (char *arg, pid_t **pids, size_t *n)
{
  for (char *save = NULL, *tok = strtok_r (arg, ",", &save); tok;
       tok = strtok_r (NULL, ",", &save))
    {
      unsigned long long v = positive (tok);
      if (!v || v > 0x7fffffff)
        return 0;
      *pids = realloc (*pids, (*n + 1) * sizeof **pids);
      if (!*pids)
        return 0;
      (*pids)[(*n)++] = (pid_t) v;
    }
  return *n > 0;
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
    { NULL, 0, NULL, 0 }
  };
  int c;
  char *end;
  while ((c = getopt_long (argc, argv, "+o:e:c:F:bgm:p:aqh", longs, NULL))
         != -1)
    switch (c)
      {
      case 'o': o->output = optarg; break;
      case 'e': events[(*nevents)++] = optarg; break;
      case 'c':
        if (!(o->period = positive (optarg)))
          return usage_error ("-c needs a positive period, not '%s'", optarg);
        break;
      case 'F':
        if (!(o->freq = positive (optarg)))
          return usage_error ("-F needs a positive frequency, not '%s'",
                              optarg);
        break;
      case 'b': o->branch_stack = 1; break;
      case 'g': o->callchain = 1; break;
      case 'm':
        o->mmap_pages = (unsigned) positive (optarg);
        if (!o->mmap_pages || (o->mmap_pages & (o->mmap_pages - 1)))
          return usage_error ("-m needs a power of two, not '%s'", optarg);
        break;
      case 'p':
        if (!parse_pids (optarg, pids, &o->npids))
          return usage_error ("-p needs process ids, such as 12,345, not"
                              " '%s'", optarg);
        break;
      case 'a': o->all_cpus = 1; break;
      case 'q': o->quiet = 1; break;
      case OPT_NO_JITTER: o->jitter = 0; break;
      case OPT_REGS: o->regs = 1; break;
      case OPT_DURATION:
        o->duration = strtod (optarg, &end);
        if (*end || end == optarg || !(o->duration > 0))
          return usage_error ("--duration needs seconds, not '%s'", optarg);
        break;
      case OPT_EMULATE: emulate = 1; break;
      case OPT_STAT: stat_only = 1; break;
      case OPT_LIST: sfdo_rec_list_events (stdout); return 0;
      case 'h': fputs (usage_text, stdout); return 0;
      case OPT_VERSION: printf ("sfdo-record %s\n", SFDO_VERSION); return 0;
      default: return usage_error ("%s", "unknown option");
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
  if (o->all_cpus && !o->command && !o->duration)
    fprintf (stderr, "sfdo-record: -a without --duration records until"
                     " SIGINT or SIGTERM\n");
  return -1;
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
      status = emulate ? emulate_main (&o, default_output)
                       : stat_only ? usage_error ("%s", "--stat needs --emulate")
                                   : check_target (&o);
    }
  if (status < 0)
    status = sfdo_rec_run (&o);
  free (events);
  free (pids);
  return status;
}
