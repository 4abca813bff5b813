/* emu_tasks.c - threads, a fork and an exec, for the emulated PMU's
   per-task streams (tests/e2e/94-emulate-tasks.sh).
     emu_tasks N        runs thread_work in a second thread and
                        parent_work, then forks a child that runs
                        child_work and execs argv[2] (default: itself)
                        with "exec N"; exits with 5
     emu_tasks exec N   runs exec_work; exits with 3
     emu_tasks spin     loops until killed  */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORK(name, mul)                                                  \
  __attribute__ ((noinline)) static unsigned long                        \
  name (unsigned long n)                                                 \
  {                                                                      \
    unsigned long s = 0;                                                 \
    for (unsigned long i = 0; i < n; i++)                                \
      s = s * mul + i;                                                   \
    return s;                                                            \
  }
WORK (thread_work, 3)
WORK (parent_work, 5)
WORK (child_work, 7)
WORK (exec_work, 11)

static unsigned long n;

static void *
thread_main (void *arg)
{
  (void) arg;
  return (void *) thread_work (n);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "spin") == 0)
    for (volatile unsigned long i = 0;; i++)
      ;
  if (argc > 2 && strcmp (argv[1], "exec") == 0)
    {
      printf ("exec %lu\n", exec_work (strtoul (argv[2], NULL, 10)));
      return 3;
    }
  n = argc > 1 ? strtoul (argv[1], NULL, 10) : 1000000;
  pthread_t t;
  void *from_thread;
  if (pthread_create (&t, NULL, thread_main, NULL) != 0)
    return 1;
  unsigned long p = parent_work (n);
  pthread_join (t, &from_thread);
  fflush (stdout);
  pid_t child = fork ();
  if (child == 0)
    {
      char arg[32];
      printf ("child %lu\n", child_work (n));
      fflush (stdout);
      snprintf (arg, sizeof arg, "%lu", n);
      const char *self = argc > 2 ? argv[2] : "/proc/self/exe";
      execl (self, self, "exec", arg, (char *) NULL);
      _exit (127);
    }
  int status = 0;
  waitpid (child, &status, 0);
  printf ("parent %lu %lu, child status %d\n", p, (unsigned long) from_thread,
          WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  return 5;
}
