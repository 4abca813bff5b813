/* tests/e2e/perfdata_dump.c - print what perfdata/ reads from a perf.data,
 * one line per item, for tests/e2e/30-perfdata-reads-perf-files.sh to
 * compare with `perf script`.
 *
 * Usage: perfdata_dump FILE|-    ("-": read file descriptor 0)
 *
 *   A <i> type=<t> config=<c> sample_type=<hex> ids=<n> name=<name>
 *   S <tid> <ip hex> <period> <event name> <callchain entries, context
 *     marks excluded>
 *   B <ip hex> <from hex>/<to hex> ...  (samples with a branch stack)
 *   R <tid> <ip hex> <abi> <register hex>...  (samples with user regs)
 *   K <tid> <ip hex> <callchain nr, context marks included>
 *   U <tid> <ip hex> <dyn_size>  (samples with a user stack)
 *   D <tid> <ip hex> <data_src hex>  (samples with DATA_SRC)
 *   X <tid> <ip hex> <cpu> <addr hex> <weight> <phys_addr hex>
 *     <data_page_size> <code_page_size>  (samples with CODE_PAGE_SIZE)
 *   M <pid> <start hex> <len hex> <pgoff hex> <filename>  (MMAP and MMAP2)
 *   C <pid> <tid> <comm>
 *   I <build-id hex> <filename>
 *   N <records> <delivered> <unknown> <compressed> <samples> <unknown ids>
 *
 * Exit status: 0, or 2 with the error on stderr.  */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../perfdata/perfdata.h"

#define PERF_CONTEXT_MAX ((uint64_t) -4095)

struct counts {
  uint64_t samples;
};

static int
print_record (const struct sfdo_perfdata_record *r, void *ctx)
{
  struct counts *n = ctx;
  switch (r->type)
    {
    case SFDO_PERFDATA_SAMPLE:
      {
        const struct sfdo_perfdata_sample *s = &r->u.sample;
        uint64_t frames = 0, period = s->period;
        for (uint64_t i = 0; i < s->callchain_nr; i++)
          frames += s->callchain[i] < PERF_CONTEXT_MAX;
        if (!(s->fields & SFDO_PERFDATA_S_PERIOD) && !r->attr->freq)
          period = r->attr->sample_period;
        n->samples++;
        printf ("S %" PRIu32 " %" PRIx64 " %" PRIu64 " %s %" PRIu64 "\n",
                s->tid, s->ip, period, r->attr->name ? r->attr->name : "?",
                frames);
        if (s->fields & SFDO_PERFDATA_S_REGS_USER)
          {
            printf ("R %" PRIu32 " %" PRIx64 " %" PRIu64, s->tid, s->ip,
                    s->regs_user.abi);
            for (uint32_t i = 0; i < s->regs_user.nregs; i++)
              printf (" %" PRIx64, s->regs_user.regs[i]);
            printf ("\n");
          }
        if (s->fields & SFDO_PERFDATA_S_CALLCHAIN)
          printf ("K %" PRIu32 " %" PRIx64 " %" PRIu64 "\n", s->tid, s->ip,
                  s->callchain_nr);
        if (s->fields & SFDO_PERFDATA_S_STACK_USER)
          printf ("U %" PRIu32 " %" PRIx64 " %" PRIu64 "\n", s->tid, s->ip,
                  s->stack_dyn_size);
        if (s->fields & SFDO_PERFDATA_S_DATA_SRC)
          printf ("D %" PRIu32 " %" PRIx64 " %" PRIx64 "\n", s->tid, s->ip,
                  s->data_src);
        if (s->fields & SFDO_PERFDATA_S_CODE_PAGE_SIZE)
          printf ("X %" PRIu32 " %" PRIx64 " %" PRIu32 " %" PRIx64 " %" PRIu64
                  " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", s->tid, s->ip,
                  s->cpu, s->addr,
                  s->fields & SFDO_PERFDATA_S_WEIGHT_STRUCT
                  ? (s->weight & 0xffffffffu) : s->weight,
                  s->phys_addr, s->data_page_size, s->code_page_size);
        if (s->fields & SFDO_PERFDATA_S_BRANCH_STACK)
          {
            printf ("B %" PRIx64, s->ip);
            for (uint64_t i = 0; i < s->branch_nr; i++)
              printf (" %" PRIx64 "/%" PRIx64, s->branches[i].from,
                      s->branches[i].to);
            printf ("\n");
          }
        break;
      }
    case SFDO_PERFDATA_MMAP:
    case SFDO_PERFDATA_MMAP2:
      printf ("M %" PRId32 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %s\n",
              (int32_t) r->u.mmap.pid, r->u.mmap.addr, r->u.mmap.len,
              r->u.mmap.pgoff, r->u.mmap.filename);
      break;
    case SFDO_PERFDATA_COMM:
      printf ("C %" PRIu32 " %" PRIu32 " %s\n", r->u.comm.pid,
              r->u.comm.tid, r->u.comm.comm);
      break;
    default:
      break;
    }
  return SFDO_PERFDATA_CB_OK;
}

int
main (int argc, char **argv)
{
  struct sfdo_error err;
  struct sfdo_perfdata *pd;
  struct counts n = { 0 };
  char msg[700];
  sfdo_error_clear (&err);
  if (argc != 2)
    {
      fprintf (stderr, "usage: perfdata_dump FILE|-\n");
      return 2;
    }
  enum sfdo_errc rc = strcmp (argv[1], "-") == 0
    ? sfdo_perfdata_open_fd (0, "<stdin>", &pd, &err)
    : sfdo_perfdata_open (argv[1], &pd, &err);
  if (rc == SFDO_OK)
    {
      for (size_t i = 0; i < sfdo_perfdata_nattrs (pd); i++)
        {
          const struct sfdo_perfdata_attr *a = sfdo_perfdata_attr (pd, i);
          printf ("A %zu type=%" PRIu32 " config=%" PRIu64
                  " sample_type=%#" PRIx64 " ids=%zu name=%s\n", i, a->type,
                  a->config, a->sample_type, a->nids,
                  a->name ? a->name : "?");
        }
      rc = sfdo_perfdata_foreach_record (pd, print_record, &n, &err);
    }
  if (rc != SFDO_OK)
    {
      fprintf (stderr, "perfdata_dump: error: %s\n",
               sfdo_error_format (&err, msg, sizeof msg));
      sfdo_perfdata_close (pd);
      return 2;
    }
  for (size_t i = 0; i < sfdo_perfdata_nbuild_ids (pd); i++)
    {
      const struct sfdo_perfdata_build_id *b = sfdo_perfdata_build_id (pd, i);
      printf ("I ");
      for (unsigned k = 0; k < b->size; k++)
        printf ("%02x", b->id[k]);
      printf (" %s\n", b->filename);
    }
  const struct sfdo_perfdata_stats *st = sfdo_perfdata_stats (pd);
  printf ("N %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
          " %" PRIu64 "\n", st->records, st->delivered, st->unknown_records,
          st->compressed_records, n.samples, st->unknown_id_samples);
  sfdo_perfdata_close (pd);
  return 0;
}
