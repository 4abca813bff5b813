/* lipo/sfdo_link_main.c - sfdo-link: a link command run with the module
   groups of sfdo-convert --groups (lipo/link.h).  */
#include <errno.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/error.h"
#include "../common/xalloc.h"
#include "../converter/groups.h"
#include "link.h"

#ifndef SFDO_VERSION
#define SFDO_VERSION "0.0.0"
#endif

extern char **environ;

static const char usage_text[] =
  "usage: sfdo-link --groups FILE [--keep-temps] [-q] -- CC [ARG...]\n"
  "\n"
  "Runs the link command CC ARG... with the module groups FILE (written by\n"
  "sfdo-convert --groups): the objects of each group, compiled with -flto\n"
  "-ffat-lto-objects -fno-semantic-interposition (and the plugin's\n"
  "profile; without -fno-semantic-interposition GCC 12 inlines nothing\n"
  "across them), are first joined by one\n"
  "incremental LTO link (CC -r -flto=auto -flinker-output=nolto-rel\n"
  "-fno-semantic-interposition, with the command's -O, -f, -m and -g\n"
  "options), so that GCC inlines the hot calls across the group's files;\n"
  "the program is then linked as CC ARG... says, with -fno-lto, every\n"
  "other object as ordinary code.  Objects are matched to the groups by\n"
  "their DWARF compile unit; an object compiled without -flto is linked as\n"
  "it is, and said so.  The members of archives named on the command line\n"
  "(LIB.a, not -lLIB) join their groups too: the group's object is linked\n"
  "before the archive.  Response files (@FILE) are read as GCC reads them.\n"
  "\n"
  "  --groups FILE   the groups file\n"
  "  --keep-temps    keep the groups' objects (in $TMPDIR, default /tmp;\n"
  "                  the directory is said)\n"
  "  -q              say nothing but errors\n"
  "  -h, --help      this text (--version: the version)\n"
  "\n"
  "Exit status: the link's, or 1 for a usage error, 2 when the groups file\n"
  "or an object cannot be read or a group's link fails.\n";

static int
usage_error (const char *msg)
{
  fprintf (stderr, "sfdo-link: %s\nTry 'sfdo-link --help'.\n", msg);
  return 1;
}

/* Run CMD; its exit status (128 + signal), or -1 if it cannot start.  */
static int
run (char *const *cmd)
{
  pid_t pid;
  int status;
  if (posix_spawnp (&pid, cmd[0], NULL, NULL, cmd, environ) != 0)
    return -1;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status)
                            : 128 + WTERMSIG (status);
}

struct options {
  const char *groups;
  int keep, quiet;
};

static int
parse (int argc, char **argv, struct options *o)
{
  static const struct option longs[] = {
    { "groups", required_argument, NULL, 'G' },
    { "keep-temps", no_argument, NULL, 'k' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 }
  };
  for (int c; (c = getopt_long (argc, argv, "+qh", longs, NULL)) != -1;)
    switch (c)
      {
      case 'G': o->groups = optarg; break;
      case 'k': o->keep = 1; break;
      case 'q': o->quiet = 1; break;
      case 'h': fputs (usage_text, stdout); exit (0);
      case 'V': puts ("sfdo-link " SFDO_VERSION); exit (0);
      default: return usage_error ("unknown option");
      }
  if (!o->groups)
    return usage_error ("--groups FILE is needed");
  if (optind >= argc)
    return usage_error ("no link command: sfdo-link --groups FILE -- CC ...");
  return -1;
}

/* Say what went into group G's link, and which of its objects could not. */
static void
describe (const struct sfdo_link_plan *plan, char *const *argv, size_t g,
          int linked)
{
  fprintf (stderr, "sfdo-link: group %zu:", g + 1);
  for (size_t i = 0; i < plan->nobjects; i++)
    if (plan->objects[i].group == (ptrdiff_t) g && plan->objects[i].has_lto)
      fprintf (stderr, " %s", sfdo_link_object_name (&plan->objects[i], argv));
  fprintf (stderr, linked ? " joined by an incremental LTO link\n"
                          : ": fewer than two objects with LTO IR, linked as "
                            "they are\n");
  for (size_t i = 0; i < plan->nobjects; i++)
    if (plan->objects[i].group == (ptrdiff_t) g && !plan->objects[i].has_lto)
      fprintf (stderr, "sfdo-link: %s has no LTO IR (compile it with -flto "
               "-ffat-lto-objects): linked as it is\n",
               sfdo_link_object_name (&plan->objects[i], argv));
}

/* Link each group apart into DIR; OUTS[g] is its object, or NULL.  */
static int
link_groups (const struct sfdo_groups *g, const struct sfdo_link_plan *plan,
             int argc, char **argv, const char *dir, int quiet, char **outs)
{
  for (size_t i = 0; i < g->ngroups; i++)
    {
      char path[4096 + 32];
      snprintf (path, sizeof path, "%s/group-%zu.o", dir, i + 1);
      char **cmd = sfdo_link_group_command (plan, argc, argv,
                                            (ptrdiff_t) i, path);
      int status = cmd ? run (cmd) : 0;
      free (cmd);
      if (status != 0)
        {
          fprintf (stderr, "sfdo-link: group %zu's incremental link (%s -r "
                   "-flto ...) failed with status %d\n", i + 1, argv[0],
                   status);
          return 2;
        }
      if (cmd)
        outs[i] = sfdo_xstrndup (path, strlen (path));
      if (!quiet)
        describe (plan, argv, i, cmd != NULL);
    }
  return 0;
}

/* The grouped link of the command ARGV (ARGC words), the groups' objects
   and archive members in DIR.  */
static int
grouped_link (const struct options *o, int argc, char **argv, const char *dir)
{
  struct sfdo_error err;
  sfdo_error_clear (&err);
  struct sfdo_groups g;
  struct sfdo_link_plan plan = { 0 };
  char buf[1024];
  if (sfdo_groups_read (o->groups, &g, &err) != SFDO_OK
      || sfdo_link_plan_make (&g, argc, argv, dir, &plan, &err) != SFDO_OK)
    {
      fprintf (stderr, "sfdo-link: %s\n", sfdo_error_format (&err, buf,
                                                             sizeof buf));
      sfdo_groups_release (&g);
      sfdo_link_plan_release (&plan, !o->keep);
      return 2;
    }
  for (size_t i = 0; i < plan.nskipped && !o->quiet; i++)
    fprintf (stderr, "sfdo-link: %s: %s; its members join no group\n",
             argv[plan.skipped[i].arg], plan.skipped[i].why);
  char **outs = sfdo_xcalloc (g.ngroups + 1, sizeof *outs);
  int rc = link_groups (&g, &plan, argc, argv, dir, o->quiet, outs);
  if (rc == 0)
    {
      char **cmd = sfdo_link_final_command (&plan, argc, argv, outs);
      rc = run (cmd);
      if (rc < 0)
        fprintf (stderr, "sfdo-link: cannot run %s\n", argv[0]), rc = 127;
      free (cmd);
    }
  for (size_t i = 0; i < g.ngroups; i++)
    {
      if (outs[i] && !o->keep)
        unlink (outs[i]);
      free (outs[i]);
    }
  free (outs);
  sfdo_groups_release (&g);
  sfdo_link_plan_release (&plan, !o->keep);
  return rc;
}

int
main (int argc, char **argv)
{
  struct options o = { 0 };
  int rc = parse (argc, argv, &o);
  if (rc >= 0)
    return rc;
  char dir[4096];
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof dir, "%s/sfdo-link.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    {
      fprintf (stderr, "sfdo-link: cannot make the directory %s for the "
               "groups' objects: %s (set TMPDIR)\n", dir, strerror (errno));
      return 2;
    }
  int nargc;
  char **args = sfdo_link_expand_args (argc - optind, argv + optind, &nargc);
  rc = grouped_link (&o, nargc, args, dir);
  sfdo_link_free_args (args);
  if (o.keep && !o.quiet)
    fprintf (stderr, "sfdo-link: the groups' objects are in %s\n", dir);
  else if (!o.keep)
    rmdir (dir);
  return rc;
}
