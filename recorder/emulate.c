/* recorder/emulate.c - sfdo-record --emulate (emulate.h): find the tool
 * and Valgrind, run the command under them, merge what it wrote.  */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/xalloc.h"
#include "../emulator/emu_format.h"
#include "emu_perf.h"
#include "emulate.h"
#include "thin.h"

#define TOOL_FILE "sfdoemu-amd64-linux"
#define VERSION_MARK "sfdoemu-valgrind-version="

/* --- what applies ---------------------------------------------------------- */

/* The emulated event named NAME (enum sfdo_emu_event), or -1.  */
static int
event_named (const char *name)
{
  static const struct { const char *name; int ev; } names[] = {
    { "instructions", SFDO_EMU_EV_INSTRUCTIONS },
    { "instructions:u", SFDO_EMU_EV_INSTRUCTIONS },
    { "INST_RETIRED:ANY_P", SFDO_EMU_EV_INSTRUCTIONS },
    { "INST_RETIRED:ANY_P:u", SFDO_EMU_EV_INSTRUCTIONS },
    { SFDO_EMU_EVENT_NAME, SFDO_EMU_EV_INSTRUCTIONS },
    { "taken-branches", SFDO_EMU_EV_TAKEN_BRANCHES },
    { "taken-branches:u", SFDO_EMU_EV_TAKEN_BRANCHES },
    { "BR_INST_RETIRED:NEAR_TAKEN", SFDO_EMU_EV_TAKEN_BRANCHES },
    { "BR_INST_RETIRED:NEAR_TAKEN:u", SFDO_EMU_EV_TAKEN_BRANCHES },
    { SFDO_EMU_BRANCH_EVENT_NAME, SFDO_EMU_EV_TAKEN_BRANCHES },
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp (name, names[i].name) == 0)
      return names[i].ev;
  return -1;
}

/* Which events O samples into WANT[]: those -e names, else instructions
   and, with -b, taken branches (the LBR's event, as the hardware path's
   default on Intel).  0 if -e names one that cannot be emulated.  */
static int
pick_events (const struct sfdo_rec_options *o, int want[SFDO_EMU_NEVENTS])
{
  memset (want, 0, SFDO_EMU_NEVENTS * sizeof *want);
  if (!o->events)
    {
      want[SFDO_EMU_EV_INSTRUCTIONS] = 1;
      want[SFDO_EMU_EV_TAKEN_BRANCHES] = o->branch_stack;
      return 1;
    }
  int ok = 1;
  for (const char *const *e = o->events; *e && ok; e++)
    {
      char *copy = sfdo_xstrndup (*e, strlen (*e)), *save = NULL;
      for (char *tok = strtok_r (copy, ",", &save); tok && ok;
           tok = strtok_r (NULL, ",", &save))
        {
          int ev = event_named (tok);
          ok = ev >= 0;
          if (ok)
            want[ev] = 1;
        }
      free (copy);
    }
  return ok;
}

const char *
sfdo_rec_emulate_refusal (const struct sfdo_rec_options *o, int stat)
{
  if (o->npids)
    return "-p does not apply to --emulate: the emulator runs the command"
           " under Valgrind from its start, it cannot attach to a running"
           " process";
  if (o->all_cpus)
    return "-a does not apply to --emulate: it emulates the PMU of the"
           " command it runs, not of the whole system";
  if (!o->command)
    return "--emulate needs a command: sfdo-record --emulate [-c PERIOD]"
           " [-b] [--regs] -- CMD [ARG...]";
  if (o->freq)
    return "-F does not apply to --emulate: it samples by retired"
           " instructions, give -c PERIOD";
  if (o->callchain)
    return "-g is not emulated (no callchains); -b gives branch stacks";
  if (o->stack_size)
    return "--call-graph dwarf is not emulated (no stack copies); -b gives"
           " branch stacks, with calls and returns";
  if (o->duration)
    return "--duration does not apply to --emulate; stop the command with"
           " SIGINT or SIGTERM (the file is still written)";
  int want[SFDO_EMU_NEVENTS];
  if (!pick_events (o, want))
    return "--emulate emulates retired instructions (-e instructions) and"
           " taken branches (-e taken-branches, or BR_INST_RETIRED:NEAR_TAKEN);"
           " -b adds the LBR, --regs the registers";
  if (o->regs && o->period && o->period < SFDO_EMU_SEGMENT_MAX)
    return "--regs needs -c 64 or more: the emulator takes a straight run of"
           " up to 64 instructions at once, and within one only the first"
           " sample gets registers";
  if (stat && (o->branch_stack || o->regs || o->period || o->events))
    return "--stat counts instructions and taken branches, it takes no"
           " samples: -e, -c, -b and --regs do not apply";
  return NULL;
}

/* --- finding the tool, Valgrind's launcher and its files ------------------ */

static char *
join (const char *dir, const char *name)
{
  size_t size = strlen (dir) + strlen (name) + 2;
  char *p = sfdo_xmalloc (size);
  snprintf (p, size, "%s/%s", dir, name);
  return p;
}

/* The directory sfdo-record's executable is in (malloc'd), or NULL.  */
static char *
own_dir (void)
{
  char buf[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return NULL;
  buf[n] = 0;
  char *slash = strrchr (buf, '/');
  if (!slash)
    return NULL;
  *slash = 0;
  return sfdo_xstrndup (buf, strlen (buf));
}

/* The tool: $SFDO_EMU_TOOL, beside sfdo-record (the build directory), or
   in ../lib/sfdo (where make install puts it).  NULL: said why.  */
static char *
find_tool (void)
{
  const char *env = getenv ("SFDO_EMU_TOOL");
  if (env && *env)
    {
      if (access (env, R_OK) == 0)
        return sfdo_xstrndup (env, strlen (env));
      fprintf (stderr, "sfdo-record: SFDO_EMU_TOOL=%s: %s\n", env,
               strerror (errno));
      return NULL;
    }
  char *dir = own_dir ();
  const char *places[] = { TOOL_FILE, "../lib/sfdo/" TOOL_FILE };
  for (size_t i = 0; dir && i < 2; i++)
    {
      char *p = join (dir, places[i]);
      if (access (p, R_OK) == 0)
        {
          free (dir);
          return p;
        }
      free (p);
    }
  char why[512] = "";
  char *note = dir ? join (dir, "sfdoemu.not-built") : NULL;
  FILE *f = note ? fopen (note, "r") : NULL;
  if (f && fgets (why, sizeof why, f))
    why[strcspn (why, "\n")] = 0;
  if (f)
    fclose (f);
  fprintf (stderr, "sfdo-record: --emulate needs the Valgrind tool %s, which"
                   " is neither in %s nor in %s/../lib/sfdo; it is built"
                   " where Valgrind's tool headers and static libraries are"
                   " installed (Debian: valgrind)%s%s\n", TOOL_FILE,
           dir ? dir : "?", dir ? dir : "?", *why ? ". make said: " : "",
           why);
  free (note);
  free (dir);
  return NULL;
}

/* NAME found in $PATH (malloc'd), or NULL.  */
static char *
on_path (const char *name)
{
  const char *path = getenv ("PATH");
  char *copy = sfdo_xstrndup (path ? path : "/usr/bin:/bin",
                              strlen (path ? path : "/usr/bin:/bin"));
  char *found = NULL, *save = NULL;
  for (char *d = strtok_r (copy, ":", &save); d && !found;
       d = strtok_r (NULL, ":", &save))
    {
      char *p = join (*d ? d : ".", name);
      if (access (p, X_OK) == 0)
        found = p;
      else
        free (p);
    }
  free (copy);
  return found;
}

/* The Valgrind version TOOL was built against, from the mark it carries
   (malloc'd), or NULL.  */
static char *
tool_version (const char *tool)
{
  FILE *f = fopen (tool, "rb");
  if (!f)
    return NULL;
  struct stat st;
  char *data = NULL, *version = NULL;
  if (fstat (fileno (f), &st) == 0 && st.st_size > 0)
    {
      data = sfdo_xmalloc ((size_t) st.st_size + 1);
      size_t n = fread (data, 1, (size_t) st.st_size, f);
      data[n] = 0;
      char *mark = memmem (data, n, VERSION_MARK, strlen (VERSION_MARK));
      if (mark)
        {
          mark += strlen (VERSION_MARK);
          version = sfdo_xstrndup (mark, strnlen (mark, 32));
        }
    }
  fclose (f);
  free (data);
  return version;
}

/* The version LAUNCHER says it is ("3.19.0", malloc'd), or NULL.  */
static char *
launcher_version (const char *launcher)
{
  char cmd[PATH_MAX + 32], line[128] = "";
  snprintf (cmd, sizeof cmd, "'%s' --version 2>/dev/null", launcher);
  FILE *p = popen (cmd, "r");
  if (!p)
    return NULL;
  if (!fgets (line, sizeof line, p))
    line[0] = 0;
  pclose (p);
  line[strcspn (line, "\n")] = 0;
  const char *v = strncmp (line, "valgrind-", 9) == 0 ? line + 9 : NULL;
  return v ? sfdo_xstrndup (v, strlen (v)) : NULL;
}

/* The directory of the installed Valgrind's run-time files (the stock
   tools, vgpreload_core, default.supp), or NULL.  */
static char *
valgrind_libexec (const char *launcher)
{
  const char *env = getenv ("SFDO_VALGRIND_LIBEXEC");
  char *bin = sfdo_xstrndup (launcher, strlen (launcher));
  char *slash = strrchr (bin, '/');
  if (slash)
    *slash = 0;
  char *from_bin[2] = { join (bin, "../libexec/valgrind"),
                        join (bin, "../lib/valgrind") };
  const char *places[] = { env, from_bin[0], from_bin[1],
                           "/usr/libexec/valgrind", "/usr/lib/valgrind" };
  char *found = NULL;
  for (size_t i = 0; i < sizeof places / sizeof *places && !found; i++)
    {
      if (!places[i] || !*places[i])
        continue;
      char *p = join (places[i], "vgpreload_core-amd64-linux.so");
      if (access (p, R_OK) == 0)
        found = sfdo_xstrndup (places[i], strlen (places[i]));
      free (p);
    }
  free (from_bin[0]);
  free (from_bin[1]);
  free (bin);
  return found;
}

/* --- the working directory: VALGRIND_LIB and the streams ----------------- */

struct session {
  const struct sfdo_rec_options *o;
  int stat;
  char *tool, *launcher, *libexec, *version;
  char *work, *lib, *raw;       /* WORK/lib (VALGRIND_LIB), WORK/raw */
  pid_t child;
};

/* A directory for this run: beside the output (its streams are about as
   big as it), or in $TMPDIR when only counting.  Absolute, as the client
   may change directory before it execs another program under Valgrind.  */
static int
make_work_dir (struct session *ss)
{
  const char *out = ss->stat ? NULL : ss->o->output;
  const char *slash = out ? strrchr (out, '/') : NULL;
  const char *tmp = getenv ("TMPDIR");
  char *dir;
  if (slash)
    dir = sfdo_xstrndup (out, slash == out ? 1 : (size_t) (slash - out));
  else if (out || !tmp || !*tmp)
    dir = sfdo_xstrndup (out ? "." : "/tmp", out ? 1 : 4);
  else
    dir = sfdo_xstrndup (tmp, strlen (tmp));
  char *work = join (dir, ".sfdo-emulate.XXXXXX");
  free (dir);
  if (!mkdtemp (work))
    {
      fprintf (stderr, "sfdo-record: cannot make a directory %s for the"
                       " emulator: %s\n", work, strerror (errno));
      free (work);
      return 0;
    }
  ss->work = realpath (work, NULL);
  if (!ss->work)
    {
      rmdir (work);
      free (work);
      return 0;
    }
  free (work);
  ss->lib = join (ss->work, "lib");
  ss->raw = join (ss->work, "raw");
  return mkdir (ss->lib, 0700) == 0 && mkdir (ss->raw, 0700) == 0;
}

/* VALGRIND_LIB for the launcher: the installed run-time files and the
   tool, side by side (a Valgrind tool is found by name in one directory).  */
static int
link_lib (struct session *ss)
{
  char *entries[] = { "vgpreload_core-amd64-linux.so", "default.supp" };
  for (size_t i = 0; i < 2; i++)
    {
      char *from = join (ss->libexec, entries[i]), *to = join (ss->lib,
                                                                entries[i]);
      int ok = symlink (from, to) == 0;
      free (from);
      free (to);
      if (!ok)
        return 0;
    }
  char tool[PATH_MAX], *to = join (ss->lib, TOOL_FILE);
  int ok = realpath (ss->tool, tool) && symlink (tool, to) == 0;
  free (to);
  return ok;
}

static int
remove_entry (const char *path, const struct stat *st, int flag,
              struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  remove (path);
  return 0;
}

static void
remove_work_dir (struct session *ss)
{
  if (ss->work)
    nftw (ss->work, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* --- running the command ------------------------------------------------ */

static volatile sig_atomic_t stop_signal;

static void
on_stop (int sig)
{
  stop_signal = sig;
}

/* Whether CMD can be run as execvp would find it.  */
static int
runnable (const char *cmd)
{
  if (strchr (cmd, '/'))
    return access (cmd, X_OK) == 0;
  char *p = on_path (cmd);
  int found = p != NULL;
  free (p);
  return found;
}

/* The launcher's command line (NULL-terminated, strings malloc'd).  */
static char **
launcher_argv (const struct session *ss)
{
  const struct sfdo_rec_options *o = ss->o;
  size_t n = 0;
  while (o->command[n])
    n++;
  char **argv = sfdo_xcalloc (n + 16, sizeof *argv);
  size_t k = 0;
  char buf[PATH_MAX + 32];
  uint64_t seed = (uint64_t) time (NULL) * 0x9e3779b97f4a7c15ull
                  ^ (uint64_t) getpid ();
  int want[SFDO_EMU_NEVENTS];
  pick_events (o, want);
  uint64_t period[SFDO_EMU_NEVENTS] = {
    o->period ? o->period : SFDO_EMU_DEFAULT_PERIOD,
    o->period ? o->period : SFDO_EMU_DEFAULT_BRANCH_PERIOD
  };
  for (int ev = 0; ev < SFDO_EMU_NEVENTS; ev++)
    if (!want[ev] || ss->stat)
      period[ev] = 0;
#define ARG(...) (snprintf (buf, sizeof buf, __VA_ARGS__), \
                  argv[k++] = sfdo_xstrndup (buf, strlen (buf)))
  ARG ("%s", ss->launcher);
  ARG ("--tool=sfdoemu");
  ARG ("-q");
  ARG ("--command-line-only=yes");     /* no VALGRIND_OPTS, no .valgrindrc */
  ARG ("--trace-children=yes");        /* follow exec, as perf does */
  ARG ("--vgdb=no");
  ARG ("--out-dir=%s", ss->raw);
  ARG ("--insn-period=%llu",
       (unsigned long long) period[SFDO_EMU_EV_INSTRUCTIONS]);
  ARG ("--branch-period=%llu",
       (unsigned long long) period[SFDO_EMU_EV_TAKEN_BRANCHES]);
  ARG ("--jitter=%s", o->jitter && !ss->stat ? "yes" : "no");
  ARG ("--seed=%llu", (unsigned long long) (seed >> 1));
  ARG ("--lbr=%s", o->branch_stack ? "yes" : "no");
  ARG ("--regs=%s", o->regs ? "yes" : "no");
#undef ARG
  for (size_t i = 0; i < n; i++)
    argv[k++] = sfdo_xstrndup (o->command[i], strlen (o->command[i]));
  return argv;
}

/* Wait for the processes the command left behind (they were reparented
   to sfdo-record, their subreaper) until none is left or a signal says
   stop: a stream is complete only once its process has exited.  */
static void
wait_for_orphans (void)
{
  while (!stop_signal)
    {
      pid_t r = waitpid (-1, NULL, 0);
      if (r < 0 && errno != EINTR)
        break;
    }
}

/* Run the command under the launcher; its exit status (128 + signal when
   a signal ended it), or -1 when it could not be started.  */
static int
run (struct session *ss)
{
  char **argv = launcher_argv (ss);
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;      /* no SA_RESTART: waitpid returns */
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  /* Processes the command forks and leaves running write their own
     streams until they exit: as their subreaper, sfdo-record can wait
     for them before it reads the streams.  */
  prctl (PR_SET_CHILD_SUBREAPER, 1);
  ss->child = fork ();
  if (ss->child == 0)
    {
      /* Default, not what sfdo-record inherited: a shell starts
         background commands with SIGINT ignored, and the command must
         stop when sfdo-record passes a signal on.  */
      signal (SIGINT, SIG_DFL);
      signal (SIGTERM, SIG_DFL);
      setenv ("VALGRIND_LIB", ss->lib, 1);
      execv (ss->launcher, argv);
      fprintf (stderr, "sfdo-record: cannot run %s: %s\n", ss->launcher,
               strerror (errno));
      _exit (SFDO_REC_EXIT_NO_EXEC);
    }
  int status = -1, passed_on = 0;
  while (ss->child > 0)
    {
      pid_t r = waitpid (ss->child, &status, 0);
      if (r == ss->child)
        break;
      if (r < 0 && errno != EINTR)
        {
          status = -1;
          break;
        }
      if (stop_signal && !passed_on)
        passed_on = kill (ss->child, stop_signal) == 0;
    }
  wait_for_orphans ();
  for (size_t i = 0; argv[i]; i++)
    free (argv[i]);
  free (argv);
  if (ss->child < 0 || status == -1)
    return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* --- start, end ------------------------------------------------------------ */

/* Find everything the run needs; 0: said why.  */
static int
prepare (struct session *ss)
{
  if (!runnable (ss->o->command[0]))
    {
      fprintf (stderr, "sfdo-record: cannot run %s: %s\n", ss->o->command[0],
               strchr (ss->o->command[0], '/') ? strerror (errno)
                                               : "not found in PATH");
      return -1;
    }
  if (!(ss->tool = find_tool ()))
    return 0;
  ss->launcher = on_path ("valgrind.bin");   /* Debian's, under its wrapper */
  if (!ss->launcher && !(ss->launcher = on_path ("valgrind")))
    {
      fprintf (stderr, "sfdo-record: --emulate needs Valgrind, which is not"
                       " on PATH (Debian: apt-get install valgrind)\n");
      return 0;
    }
  ss->version = tool_version (ss->tool);
  char *installed = launcher_version (ss->launcher);
  int same = ss->version && installed && strcmp (ss->version, installed) == 0;
  if (!same)
    fprintf (stderr, "sfdo-record: %s was built for Valgrind %s, but %s is"
                     " Valgrind %s: rebuild it (make) against the installed"
                     " Valgrind\n", ss->tool, ss->version ? ss->version : "?",
             ss->launcher, installed ? installed : "?");
  free (installed);
  if (!same)
    return 0;
  if (!(ss->libexec = valgrind_libexec (ss->launcher)))
    {
      fprintf (stderr, "sfdo-record: cannot find Valgrind's run-time files"
                       " (vgpreload_core-amd64-linux.so); set"
                       " SFDO_VALGRIND_LIBEXEC to their directory\n");
      return 0;
    }
  if (!make_work_dir (ss) || !link_lib (ss))
    {
      fprintf (stderr, "sfdo-record: cannot prepare %s: %s\n",
               ss->work ? ss->work : "a directory", strerror (errno));
      return 0;
    }
  return 1;
}

static void
announce (const struct session *ss)
{
  const struct sfdo_rec_options *o = ss->o;
  if (o->quiet)
    return;
  if (ss->stat)
    fprintf (stderr, "sfdo-record: counting retired instructions and taken"
                     " branches under Valgrind %s (sfdoemu)\n", ss->version);
  else
    {
      int want[SFDO_EMU_NEVENTS];
      pick_events (o, want);
      char what[256] = "";
      if (want[SFDO_EMU_EV_TAKEN_BRANCHES])
        snprintf (what, sizeof what, "taken branches every %llu%s, ",
                  (unsigned long long) (o->period ? o->period
                                        : SFDO_EMU_DEFAULT_BRANCH_PERIOD),
                  o->branch_stack ? " with the last 32 (LBR)" : "");
      if (want[SFDO_EMU_EV_INSTRUCTIONS])
        snprintf (what + strlen (what), sizeof what - strlen (what),
                  "retired instructions every %llu%s, ",
                  (unsigned long long) (o->period ? o->period
                                        : SFDO_EMU_DEFAULT_PERIOD),
                  o->branch_stack && !want[SFDO_EMU_EV_TAKEN_BRANCHES]
                  ? " with the last 32 taken branches (LBR)" : "");
      what[strlen (what) - 2] = 0;
      fprintf (stderr, "sfdo-record: emulating the PMU under Valgrind %s"
                       " (sfdoemu): %s%s%s; the command runs several times"
                       " slower\n", ss->version, what,
               o->regs ? ", registers at each sample" : "",
               o->jitter ? " (periods jittered)" : "");
    }
}

static void
print_counts (const struct session *ss, const struct sfdo_emu_totals *t)
{
  FILE *f = ss->o->output ? fopen (ss->o->output, "w") : stderr;
  if (!f)
    {
      fprintf (stderr, "sfdo-record: cannot write %s: %s\n", ss->o->output,
               strerror (errno));
      f = stderr;
    }
  fprintf (f, "# emulated by sfdoemu (Valgrind %s): %zu process%s, %zu"
              " thread%s%s\n", ss->version, t->processes,
           t->processes == 1 ? "" : "es", t->threads,
           t->threads == 1 ? "" : "s",
           t->incomplete ? " (incomplete: a process was killed)" : "");
  fprintf (f, "%llu instructions:u\n%llu taken-branches:u\n",
           (unsigned long long) t->instructions,
           (unsigned long long) t->taken_branches);
  if (f != stderr)
    fclose (f);
}

/* The warning of a recording with too few samples (thin.h).  With -b
   the taken-branch event's samples carry the stacks, one per period of
   taken branches (with -e instructions alone, its samples would; the
   estimate then gives them too little weight, never too much).  */
static void
warn_if_thin (const struct sfdo_rec_options *o,
              const struct sfdo_emu_totals *t)
{
  uint64_t branch_period = o->period ? o->period
                                     : SFDO_EMU_DEFAULT_BRANCH_PERIOD;
  uint64_t stacks = o->branch_stack ? t->taken_branches / branch_period : 0;
  sfdo_rec_warn_thin (t->samples, stacks < t->samples ? stacks : t->samples,
                      o->period ? o->period
                      : o->branch_stack ? branch_period
                                        : SFDO_EMU_DEFAULT_PERIOD, 1,
                      !stop_signal);
}

static void
summary (const struct session *ss, const struct sfdo_emu_totals *t)
{
  char buf[768];
  if (t->problem.code)
    fprintf (stderr, "sfdo-record: warning: %s\n",
             sfdo_error_format (&t->problem, buf, sizeof buf));
  if (ss->stat)
    {
      print_counts (ss, t);
      return;
    }
  if (ss->o->quiet)
    return;
  fprintf (stderr, "sfdo-record: emulated %llu instructions and %llu taken"
                   " branches in %zu process%s (%zu thread%s)%s; %llu"
                   " samples, %.1f MB, %zu build-ids written to %s%s\n",
           (unsigned long long) t->instructions,
           (unsigned long long) t->taken_branches, t->processes,
           t->processes == 1 ? "" : "es", t->threads,
           t->threads == 1 ? "" : "s",
           t->incomplete ? " (counts incomplete: a process was killed)" : "",
           (unsigned long long) t->samples, t->bytes / 1e6, t->build_ids,
           ss->o->output, stop_signal ? " (stopped by a signal)" : "");
  warn_if_thin (ss->o, t);
}

static void
end_session (struct session *ss)
{
  remove_work_dir (ss);
  free (ss->tool);
  free (ss->launcher);
  free (ss->libexec);
  free (ss->version);
  free (ss->work);
  free (ss->lib);
  free (ss->raw);
}

int
sfdo_rec_emulate (const struct sfdo_rec_options *o, int stat)
{
  struct session ss;
  memset (&ss, 0, sizeof ss);
  ss.o = o;
  ss.stat = stat;
  stop_signal = 0;
  int ready = prepare (&ss);
  if (ready <= 0)
    {
      end_session (&ss);
      return ready < 0 ? SFDO_REC_EXIT_NO_EXEC : SFDO_REC_EXIT_FAILED;
    }
  announce (&ss);
  int status = run (&ss);
  struct sfdo_emu_convert conv = { stat ? NULL : o->output, o->argc, o->argv };
  struct sfdo_emu_totals totals;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  enum sfdo_errc rc = status < 0 ? SFDO_E_IO
                      : sfdo_emu_convert_dir (ss.raw, &conv, &totals, &err);
  if (status < 0)
    fprintf (stderr, "sfdo-record: could not run %s\n", ss.launcher);
  else if (rc)
    {
      char buf[768];
      fprintf (stderr, "sfdo-record: %s\n", sfdo_error_format (&err, buf,
                                                             sizeof buf));
    }
  else
    summary (&ss, &totals);
  end_session (&ss);
  return rc ? SFDO_REC_EXIT_FAILED : status;
}
