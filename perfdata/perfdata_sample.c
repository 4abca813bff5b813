/* perfdata/perfdata_sample.c - decoding PERF_RECORD_SAMPLE and the
   sample_id_all trailer of other records.

   Which attr a record belongs to: with one attr, that one.  Otherwise
   the sample id says; it sits first in a sample (PERF_SAMPLE_IDENTIFIER)
   or after IP, TID, TIME and ADDR (PERF_SAMPLE_ID), and last in a trailer
   (IDENTIFIER) or before STREAM_ID and CPU (ID).  As in perf, every attr
   is assumed to put the id in the same place as the first one.

   A sample's fields, in order, each present when its sample_type bit is
   set (include/uapi/linux/perf_event.h): IDENTIFIER, IP, TID (u32 pid,
   tid), TIME, ADDR, ID, STREAM_ID, CPU (u32 cpu, res), PERIOD, READ,
   CALLCHAIN (u64 nr, ips[nr]), RAW (u32 size, data[size]), BRANCH_STACK
   (u64 nr, [u64 hw_idx], {from, to, flags}[nr], [u64 counters[nr]]),
   REGS_USER (u64 abi, regs[popcount(mask)] if abi), STACK_USER (u64 size,
   data[size], u64 dyn_size if size), WEIGHT or WEIGHT_STRUCT, DATA_SRC,
   TRANSACTION, REGS_INTR, PHYS_ADDR, CGROUP, DATA_PAGE_SIZE,
   CODE_PAGE_SIZE, AUX (u64 size, data[size]).  */
#include <string.h>

#include "../common/xalloc.h"
#include "perfdata_int.h"

#define S(x) SFDO_PERFDATA_S_##x
#define F(x) SFDO_PERFDATA_F_##x
#define ID_FIELDS (S (TID) | S (TIME) | S (ID) | S (STREAM_ID) | S (CPU) \
                   | S (IDENTIFIER))

static unsigned
popcount64 (uint64_t v)
{
  return (unsigned) __builtin_popcountll (v);
}

/* The u64 at index I of the body (from the start if I >= 0, from the
   end if I < 0); 0 when C is too short.  */
static int
body_u64 (const struct pd_cur *c, long i, uint64_t *v)
{
  size_t body = c->len - 8, n = body / 8;
  if (i >= 0 ? (size_t) i >= n : (size_t) -i > n)
    return -1;
  size_t at = i >= 0 ? 8 + (size_t) i * 8 : c->len - (size_t) -i * 8;
  *v = sfdo_perfdata_le64 (c->p + at);
  return 0;
}

/* The attr of the record at C (of TYPE); *UNKNOWN set if its id names no
   attr (then NULL for samples, the first attr for other records).  */
const struct pd_attr *
sfdo_perfdata_attr_of (struct sfdo_perfdata *pd, const struct pd_cur *c,
                       uint32_t type, int *unknown)
{
  *unknown = 0;
  if (pd->nattrs <= 1)
    return pd->nattrs ? pd->attrs[0] : NULL;
  uint64_t st = pd->attrs[0]->pub.sample_type, id;
  long at;
  if (type == SFDO_PERFDATA_SAMPLE)
    at = st & S (IDENTIFIER) ? 0
         : st & S (ID) ? (long) popcount64 (st & (S (IP) | S (TID) | S (TIME)
                                                  | S (ADDR)))
         : -1000;
  else if (!pd->attrs[0]->pub.sample_id_all)
    at = -1000;
  else
    at = st & S (IDENTIFIER) ? -1
         : st & S (ID) ? -1 - (long) popcount64 (st & (S (CPU)
                                                      | S (STREAM_ID)))
         : -1000;
  if (at == -1000 || body_u64 (c, at, &id))
    return pd->attrs[0];
  const struct sfdo_perfdata_attr *a = sfdo_perfdata_find_attr (pd, id);
  if (a)
    return (const struct pd_attr *) a;
  *unknown = 1;
  return type == SFDO_PERFDATA_SAMPLE ? NULL : pd->attrs[0];
}

enum sfdo_errc
sfdo_perfdata_decode_trailer (struct sfdo_perfdata *pd, struct pd_cur *c,
                              struct sfdo_perfdata_record *r,
                              struct sfdo_error *err)
{
  int unknown;
  const struct pd_attr *pa = sfdo_perfdata_attr_of (pd, c, r->type, &unknown);
  r->attr = pa ? &pa->pub : NULL;
  if (!pa || !pa->pub.sample_id_all)
    return SFDO_OK;
  uint64_t st = pa->pub.sample_type, f = st & ID_FIELDS;
  size_t size = 8 * popcount64 (f);
  if (size > c->len - c->pos)
    return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                  "sample_id_all trailer");
  struct pd_cur t = { c->p, c->len, c->len - size, c->base, 1, c->zdata };
  struct sfdo_perfdata_sample_id *id = &r->id;
  uint64_t v;
  id->fields = f;
  if (f & S (TID) && !sfdo_perfdata_cur_u64 (&t, &v))
    id->pid = (uint32_t) v, id->tid = (uint32_t) (v >> 32);
  if (f & S (TIME))
    sfdo_perfdata_cur_u64 (&t, &id->time);
  if (f & S (ID))
    sfdo_perfdata_cur_u64 (&t, &id->id);
  if (f & S (STREAM_ID))
    sfdo_perfdata_cur_u64 (&t, &id->stream_id);
  if (f & S (CPU) && !sfdo_perfdata_cur_u64 (&t, &v))
    id->cpu = (uint32_t) v;
  if (f & S (IDENTIFIER))
    sfdo_perfdata_cur_u64 (&t, &id->id);
  c->len -= size;
  return SFDO_OK;
}

/* N u64s from C into the scratch array at *USED; NULL if short.  */
static const uint64_t *
take_u64s (struct sfdo_perfdata *pd, struct pd_cur *c, uint64_t n,
           size_t *used)
{
  if (n > (c->len - c->pos) / 8)
    return NULL;
  uint64_t *out = pd->u64s + *used;
  for (uint64_t i = 0; i < n; i++)
    sfdo_perfdata_cur_u64 (c, &out[i]);
  *used += (size_t) n;
  return out;
}

static int
read_values (struct sfdo_perfdata *pd, struct pd_cur *c, uint64_t fmt,
             struct sfdo_perfdata_sample *s)
{
  uint64_t nr = 1;
  struct sfdo_perfdata_read_value *v = &pd->rv[0];
  memset (v, 0, sizeof *v);
  if (fmt & F (GROUP) ? sfdo_perfdata_cur_u64 (c, &nr)
      : sfdo_perfdata_cur_u64 (c, &v->value))
    return -1;
  if ((fmt & F (TOTAL_TIME_ENABLED)
       && sfdo_perfdata_cur_u64 (c, &s->read.time_enabled))
      || (fmt & F (TOTAL_TIME_RUNNING)
          && sfdo_perfdata_cur_u64 (c, &s->read.time_running)))
    return -1;
  unsigned per = !!(fmt & F (GROUP)) + !!(fmt & F (ID)) + !!(fmt & F (LOST));
  if (per && nr > (c->len - c->pos) / (8 * per))
    return -1;
  /* Group: {value, id, lost} each; otherwise id and lost follow.  */
  for (uint64_t i = 0; i < nr; i++)
    {
      v = &pd->rv[i];
      if (fmt & F (GROUP))
        {
          memset (v, 0, sizeof *v);
          sfdo_perfdata_cur_u64 (c, &v->value);
        }
      if (fmt & F (ID))
        sfdo_perfdata_cur_u64 (c, &v->id);
      if (fmt & F (LOST))
        sfdo_perfdata_cur_u64 (c, &v->lost);
    }
  s->read.nr = nr;
  s->read.values = pd->rv;
  return 0;
}

static int
read_branches (struct sfdo_perfdata *pd, struct pd_cur *c, uint64_t bst,
               struct sfdo_perfdata_sample *s, size_t *used)
{
  uint64_t nr;
  if (sfdo_perfdata_cur_u64 (c, &nr))
    return -1;
  s->branch_has_hw_idx = (bst & SFDO_PERFDATA_BR_HW_INDEX) != 0;
  if (s->branch_has_hw_idx && sfdo_perfdata_cur_u64 (c, &s->branch_hw_idx))
    return -1;
  if (nr > (c->len - c->pos) / 24)
    return -1;
  for (uint64_t i = 0; i < nr; i++)
    {
      sfdo_perfdata_cur_u64 (c, &pd->br[i].from);
      sfdo_perfdata_cur_u64 (c, &pd->br[i].to);
      sfdo_perfdata_cur_u64 (c, &pd->br[i].flags);
    }
  s->branch_nr = nr;
  s->branches = pd->br;
  if (bst & SFDO_PERFDATA_BR_COUNTERS
      && !(s->branch_counters = take_u64s (pd, c, nr, used)))
    return -1;
  return 0;
}

static int
read_regs (struct sfdo_perfdata *pd, struct pd_cur *c, uint64_t mask,
           struct sfdo_perfdata_regs *r, size_t *used)
{
  if (sfdo_perfdata_cur_u64 (c, &r->abi))
    return -1;
  if (!r->abi)
    return 0;
  r->nregs = popcount64 (mask);
  r->regs = take_u64s (pd, c, r->nregs, used);
  return r->regs ? 0 : -1;
}

/* A u64 size then that many bytes.  */
static int
read_sized (struct pd_cur *c, uint64_t *size, const void **data)
{
  const uint8_t *p;
  if (sfdo_perfdata_cur_u64 (c, size) || *size > c->len - c->pos)
    return -1;
  sfdo_perfdata_cur_bytes (c, (size_t) *size, &p);
  *data = p;
  return 0;
}

/* The fields from IP to PERIOD; what fails is named in *WHAT.  */
static int
read_fixed (struct pd_cur *c, uint64_t st, struct sfdo_perfdata_sample *s,
            const char **what)
{
  uint64_t v = 0;
  *what = "sample_id";
  if (st & S (IDENTIFIER) && sfdo_perfdata_cur_u64 (c, &s->id))
    return -1;
  if (st & S (IP) && sfdo_perfdata_cur_u64 (c, &s->ip))
    return -1;
  if (st & S (TID) && sfdo_perfdata_cur_u64 (c, &v))
    return -1;
  s->pid = (uint32_t) v, s->tid = (uint32_t) (v >> 32);
  v = 0;
  if ((st & S (TIME) && sfdo_perfdata_cur_u64 (c, &s->time))
      || (st & S (ADDR) && sfdo_perfdata_cur_u64 (c, &s->addr))
      || (st & S (ID) && sfdo_perfdata_cur_u64 (c, &s->id))
      || (st & S (STREAM_ID) && sfdo_perfdata_cur_u64 (c, &s->stream_id)))
    return -1;
  if (st & S (CPU) && sfdo_perfdata_cur_u64 (c, &v))
    return -1;
  s->cpu = (uint32_t) v;
  *what = "period";
  return st & S (PERIOD) && sfdo_perfdata_cur_u64 (c, &s->period) ? -1 : 0;
}

/* The fields from READ to STACK_USER.  */
static int
read_middle (struct sfdo_perfdata *pd, struct pd_cur *c,
             const struct sfdo_perfdata_attr *a,
             struct sfdo_perfdata_sample *s, size_t *used, const char **what)
{
  uint64_t st = a->sample_type;
  const uint8_t *p = NULL;
  *what = "read values";
  if (st & S (READ) && read_values (pd, c, a->read_format, s))
    return -1;
  *what = "callchain";
  if (st & S (CALLCHAIN)
      && (sfdo_perfdata_cur_u64 (c, &s->callchain_nr)
          || !(s->callchain = take_u64s (pd, c, s->callchain_nr, used))))
    return -1;
  *what = "raw data";
  if (st & S (RAW) && (sfdo_perfdata_cur_u32 (c, &s->raw_size)
                       || sfdo_perfdata_cur_bytes (c, s->raw_size, &p)))
    return -1;
  s->raw = st & S (RAW) ? p : NULL;
  *what = "branch stack";
  if (st & S (BRANCH_STACK)
      && read_branches (pd, c, a->branch_sample_type, s, used))
    return -1;
  *what = "user registers";
  if (st & S (REGS_USER)
      && read_regs (pd, c, a->sample_regs_user, &s->regs_user, used))
    return -1;
  *what = "user stack";
  if (st & S (STACK_USER)
      && (read_sized (c, &s->stack_size, &s->stack)
          || (s->stack_size
              && sfdo_perfdata_cur_u64 (c, &s->stack_dyn_size))))
    return -1;
  return 0;
}

/* The fields from WEIGHT to AUX.  */
static int
read_tail (struct sfdo_perfdata *pd, struct pd_cur *c,
           const struct sfdo_perfdata_attr *a,
           struct sfdo_perfdata_sample *s, size_t *used, const char **what)
{
  uint64_t st = a->sample_type;
  *what = "weight .. transaction";
  if ((st & (S (WEIGHT) | S (WEIGHT_STRUCT))
       && sfdo_perfdata_cur_u64 (c, &s->weight))
      || (st & S (DATA_SRC) && sfdo_perfdata_cur_u64 (c, &s->data_src))
      || (st & S (TRANSACTION) && sfdo_perfdata_cur_u64 (c, &s->transaction)))
    return -1;
  *what = "interrupt registers";
  if (st & S (REGS_INTR)
      && read_regs (pd, c, a->sample_regs_intr, &s->regs_intr, used))
    return -1;
  *what = "phys_addr .. code_page_size";
  if ((st & S (PHYS_ADDR) && sfdo_perfdata_cur_u64 (c, &s->phys_addr))
      || (st & S (CGROUP) && sfdo_perfdata_cur_u64 (c, &s->cgroup))
      || (st & S (DATA_PAGE_SIZE)
          && sfdo_perfdata_cur_u64 (c, &s->data_page_size))
      || (st & S (CODE_PAGE_SIZE)
          && sfdo_perfdata_cur_u64 (c, &s->code_page_size)))
    return -1;
  *what = "aux data";
  return st & S (AUX) && read_sized (c, &s->aux_size, &s->aux) ? -1 : 0;
}

enum sfdo_errc
sfdo_perfdata_decode_sample (struct sfdo_perfdata *pd, struct pd_cur *c,
                             struct sfdo_perfdata_record *r,
                             struct sfdo_error *err)
{
  int unknown;
  if (!pd->nattrs)
    return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED,
                                  "SAMPLE before any attr");
  const struct pd_attr *pa = sfdo_perfdata_attr_of (pd, c, r->type, &unknown);
  if (!pa)
    {
      pd->stats.unknown_id_samples++;
      return SFDO_OK;
    }
  if (!pd->u64s)
    {
      pd->u64s = sfdo_xmalloc (PD_RECORD_MAX);
      pd->rv = sfdo_xmalloc (PD_RECORD_MAX / 8 * sizeof *pd->rv);
      pd->br = sfdo_xmalloc (PD_RECORD_MAX / 24 * sizeof *pd->br);
    }
  const struct sfdo_perfdata_attr *a = &pa->pub;
  struct sfdo_perfdata_sample *s = &r->u.sample;
  const char *what;
  size_t used = 0;
  r->attr = a;
  s->fields = a->sample_type;
  if (read_fixed (c, a->sample_type, s, &what)
      || read_middle (pd, c, a, s, &used, &what)
      || read_tail (pd, c, a, s, &used, &what))
    {
      char msg[80];
      snprintf (msg, sizeof msg, "SAMPLE (%s)", what);
      return sfdo_perfdata_cur_err (pd, err, c, SFDO_E_MALFORMED, msg);
    }
  struct sfdo_perfdata_sample_id *id = &r->id;
  id->fields = a->sample_type & ID_FIELDS;
  id->pid = s->pid, id->tid = s->tid, id->time = s->time, id->id = s->id;
  id->stream_id = s->stream_id, id->cpu = s->cpu;
  return SFDO_OK;
}
