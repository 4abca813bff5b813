/* revived_callers.c - load_batch runs three times, too few to catch a
   sample, and calls checksum and scale, which caught many.  recover,
   reachable only through a pointer that is never called, calls scale
   too.  -fprofile-use finds recover never ran (.text.unlikely) and splits
   load_batch's error path and its replay message off (load_batch.cold):
   GCC's static estimate makes the first rare, not the second.  A sample profile
   lists load_batch, its caller load_all and recover as never run; the
   callees say one of their callers ran, and only load_batch can have
   entered checksum.  */
#include <stdio.h>
#include <stdlib.h>

static long *batch;
static volatile int replay_id = -1;

__attribute__ ((noinline)) static long
checksum (long n)
{
  long sum = 0;
  for (long i = 0; i < n; i++)
    sum = sum * 31 + batch[i % 1024];
  return sum;
}

__attribute__ ((noinline)) static long
scale (long n, long by)
{
  long sum = 0;
  for (long i = 0; i < n; i++)
    sum += batch[(i * 7) % 1024] * by;
  return sum;
}

__attribute__ ((noinline)) static long
recover (long n)
{
  return scale (n, 2);
}

long (*volatile recovery_hook) (long) = recover;

__attribute__ ((noinline)) static long
load_batch (int id, long n)
{
  batch = calloc (1024, sizeof *batch);
  if (!batch)
    {
      fprintf (stderr, "batch %d: no memory for %ld rounds\n", id, n);
      exit (2);
    }
  for (int i = 0; i < 1024; i++)
    batch[i] = i * (id + 1);
  if (id == replay_id)
    puts ("batch replayed");
  long sum = checksum (n) + scale (n, id);
  free (batch);
  return sum;
}

/* load_batch's only caller, run once: no caller with a count calls
   load_batch, so GCC's own revival (handle_missing_profiles) leaves it
   never run.  */
__attribute__ ((noinline)) static long
load_all (void)
{
  long total = 0;
  for (int id = 0; id < 3; id++)
    total += load_batch (id, 3000000);
  return total;
}

int
main (void)
{
  printf ("%ld\n", load_all ());
  return 0;
}
