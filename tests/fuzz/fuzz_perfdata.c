/* tests/fuzz/fuzz_perfdata.c - libFuzzer target for the perf.data reader.
 *
 * Every input is read from memory and, through a memory file, as a
 * stream that stops the walk every 3 records and resumes it; both must
 * agree (same result, same records).  Read a third time with
 * SFDO_PERFDATA_SKIP_BAD, a file that opens must then be walked to its end
 * without an error, whatever its records, and deliver at least the
 * records the strict walk delivered before its error.  Every array a
 * delivered record points to is read in full, so ASan sees any bound the
 * reader got wrong.  A rejection must name a byte offset inside the
 * input.  Seeds in tests/fuzz/corpus/perfdata: perf 6.1 recordings made
 * here of `demo 1` (examples/demo.c, gcc -O2 -g) with `perf record -q
 * --no-bpf-event -c 2000003 -e cpu-clock:u` plus nothing (plain), -g
 * (callchain), -z (zstd), -o - (pipe), -z -o - (zstd-pipe),
 * --user-regs=AX,SP,IP (regs), --call-graph dwarf,256 (dwarf), -d
 * --sample-cpu -W --phys-data -s -T --data-page-size --code-page-size
 * --sample-identifier (rich) and -e cpu-clock:u,task-clock:u
 * (two-events).  */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../perfdata/perfdata.h"

struct sum {
  uint64_t records, h;
  int stop_every;               /* stop the walk every N records, resume */
};

static void
mix (struct sum *s, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    s->h = (s->h ^ b[i]) * 0x100000001b3ull;
}

static void
mix_sample (struct sum *s, const struct sfdo_perfdata_sample *x)
{
  mix (s, &x->ip, sizeof x->ip);
  mix (s, x->callchain, x->callchain_nr * 8);
  mix (s, x->branches, x->branch_nr * sizeof *x->branches);
  if (x->branch_counters)
    mix (s, x->branch_counters, x->branch_nr * 8);
  mix (s, x->read.values, x->read.nr * sizeof *x->read.values);
  mix (s, x->raw, x->raw_size);
  mix (s, x->regs_user.regs, x->regs_user.nregs * 8);
  mix (s, x->regs_intr.regs, x->regs_intr.nregs * 8);
  mix (s, x->stack, x->stack_size);
  mix (s, x->aux, x->aux_size);
}

static int
visit (const struct sfdo_perfdata_record *r, void *ctx)
{
  struct sum *s = ctx;
  s->records++;
  mix (s, &r->type, sizeof r->type);
  mix (s, &r->offset, sizeof r->offset);
  if (r->type == SFDO_PERFDATA_SAMPLE)
    mix_sample (s, &r->u.sample);
  else if (r->type == SFDO_PERFDATA_MMAP || r->type == SFDO_PERFDATA_MMAP2)
    mix (s, r->u.mmap.filename, strlen (r->u.mmap.filename));
  else if (r->type == SFDO_PERFDATA_COMM)
    mix (s, r->u.comm.comm, strlen (r->u.comm.comm));
  if (s->stop_every && s->records % (uint64_t) s->stop_every == 0)
    return SFDO_PERFDATA_CB_STOP;
  return SFDO_PERFDATA_CB_OK;
}

/* Read PD to the end; the result code, with the digest in *S.  */
static enum sfdo_errc
read_all (enum sfdo_errc rc, struct sfdo_perfdata *pd, struct sum *s,
          struct sfdo_error *err, size_t size)
{
  if (rc == SFDO_OK)
    {
      for (size_t i = 0; i < sfdo_perfdata_nattrs (pd); i++)
        {
          const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, i);
          mix (s, a->ids, a->nids * 8);
          if (a->name)
            mix (s, a->name, strlen (a->name));
        }
      for (size_t i = 0; i < sfdo_perfdata_nbuild_ids (pd); i++)
        mix (s, sfdo_perfdata_build_id (pd, i)->filename,
             strlen (sfdo_perfdata_build_id (pd, i)->filename));
      do
        rc = sfdo_perfdata_foreach_record (pd, visit, s, err);
      while (rc == SFDO_OK && !sfdo_perfdata_at_end (pd));
    }
  if (rc != SFDO_OK && rc != SFDO_E_IO
      && (err->offset == SFDO_NO_OFFSET || err->offset > size))
    {
      fprintf (stderr, "error without an offset in the input: %s\n",
               err->msg);
      abort ();
    }
  sfdo_perfdata_close (pd);
  return rc;
}

/* With SKIP_BAD, an input that opens reads to its end: no error but an
   I/O one, and no fewer records than STRICT, the strict walk, saw.  */
static void
check_skipping (const uint8_t *data, size_t size, const struct sum *strict)
{
  struct sfdo_error e;
  struct sfdo_perfdata *pd;
  struct sum s = { 0, 0, 0 };
  sfdo_error_clear (&e);
  enum sfdo_errc rc = sfdo_perfdata_open_mem_flags (data, size, "fuzz",
                                                    SFDO_PERFDATA_SKIP_BAD,
                                                    &pd, &e);
  if (rc != SFDO_OK)
    return;
  rc = read_all (rc, pd, &s, &e, size);
  if (rc != SFDO_OK || s.records < strict->records)
    {
      fprintf (stderr, "skipping bad records: %d after %llu records (strict:"
               " %llu): %s\n", rc, (unsigned long long) s.records,
               (unsigned long long) strict->records, e.msg);
      abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct sfdo_error e1, e2;
  struct sfdo_perfdata *pd;
  struct sum s1 = { 0, 0, 0 }, s2 = { 0, 0, 3 };
  sfdo_error_clear (&e1);
  sfdo_error_clear (&e2);
  enum sfdo_errc rc = sfdo_perfdata_open_mem (data, size, "fuzz", &pd, &e1);
  enum sfdo_errc r1 = read_all (rc, pd, &s1, &e1, size);

  int fd = memfd_create ("fuzz_perfdata", 0);
  if (fd < 0 || write (fd, data, size) != (ssize_t) size
      || lseek (fd, 0, SEEK_SET) != 0)
    abort ();
  FILE *f = fdopen (fd, "rb");
  if (!f)
    abort ();
  rc = sfdo_perfdata_open_stream (f, "fuzz", &pd, &e2);
  enum sfdo_errc r2 = read_all (rc, pd, &s2, &e2, size);
  fclose (f);
  if (r1 != r2 || s1.records != s2.records || s1.h != s2.h
      || (r1 && e1.offset != e2.offset))
    {
      fprintf (stderr, "memory and stream reads differ: %d/%d %s | %s\n",
               r1, r2, e1.msg, e2.msg);
      abort ();
    }
  check_skipping (data, size, &s1);
  return 0;
}
