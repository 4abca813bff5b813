/* tests/unit/perfdata/perfdata_build.h - building synthetic perf.data
 * files for the perfdata unit tests, and collecting what the reader
 * delivers.  Everything is static inline, so each test uses what it
 * needs.  */
#ifndef SFDO_TESTS_PERFDATA_BUILD_H
#define SFDO_TESTS_PERFDATA_BUILD_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "../../../perfdata/perfdata.h"

#define S(x) SFDO_PERFDATA_S_##x

/* --- building bytes ------------------------------------------------------ */

struct bb {
  uint8_t *p;
  size_t len, cap;
};

/* Not inlined: GCC 12 then warns falsely about the memcpy.  */
static __attribute__ ((unused, noinline)) void
put (struct bb *b, const void *d, size_t n)
{
  if (b->len + n > b->cap)
    {
      b->cap = (b->len + n) * 2 + 64;
      b->p = realloc (b->p, b->cap);
      assert_non_null (b->p);
    }
  if (n)
    memcpy (b->p + b->len, d, n);
  b->len += n;
}

static inline void p64 (struct bb *b, uint64_t v) { put (b, &v, 8); }
static inline void p32 (struct bb *b, uint32_t v) { put (b, &v, 4); }
static inline void p16 (struct bb *b, uint16_t v) { put (b, &v, 2); }

static inline void
set64 (struct bb *b, size_t at, uint64_t v)
{
  memcpy (b->p + at, &v, 8);
}

struct tattr {
  uint32_t type, size;
  uint64_t config, period, sample_type, read_format, flags, bst;
  uint64_t regs_user, regs_intr;
  uint32_t stack_user;
};

#define FLAG_FREQ (1ull << 10)
#define FLAG_ID_ALL (1ull << 18)

/* The attr A as BYTES bytes (its image cut or zero-padded).  */
static inline void
put_attr (struct bb *b, const struct tattr *a, size_t bytes)
{
  uint8_t img[256] = { 0 };
  uint32_t size = a->size ? a->size : (uint32_t) bytes;
  memcpy (img, &a->type, 4);
  memcpy (img + 4, &size, 4);
  memcpy (img + 8, &a->config, 8);
  memcpy (img + 16, &a->period, 8);
  memcpy (img + 24, &a->sample_type, 8);
  memcpy (img + 32, &a->read_format, 8);
  memcpy (img + 40, &a->flags, 8);
  memcpy (img + 72, &a->bst, 8);
  memcpy (img + 80, &a->regs_user, 8);
  memcpy (img + 88, &a->stack_user, 4);
  memcpy (img + 96, &a->regs_intr, 8);
  put (b, img, bytes);
}

/* Append the record TYPE/MISC with BODY to D.  */
static inline void
rec (struct bb *d, uint32_t type, uint16_t misc, const struct bb *body)
{
  p32 (d, type);
  p16 (d, misc);
  p16 (d, (uint16_t) (8 + body->len));
  put (d, body->p, body->len);
}

struct tfeat {
  unsigned bit;
  struct bb body;
};

struct tfile {
  struct tattr attrs[4];
  uint64_t ids[4][4];
  size_t nids[4], nattrs, attr_bytes;
  struct bb data;
  struct tfeat feats[4];
  size_t nfeats;                /* in increasing bit order */
};

/* Lay out T as a file-mode perf.data.  */
static inline struct bb
build_file (struct tfile *t)
{
  struct bb f = { 0 };
  size_t ab = t->attr_bytes ? t->attr_bytes : 136, asz = ab + 16;
  size_t ids_at = 104 + t->nattrs * asz, nids = 0;
  for (size_t i = 0; i < t->nattrs; i++)
    nids += t->nids[i];
  size_t data_at = ids_at + nids * 8, feat_at = data_at + t->data.len;
  p64 (&f, 0x32454c4946524550ull);
  p64 (&f, 104);
  p64 (&f, asz);
  p64 (&f, 104), p64 (&f, t->nattrs * asz);
  p64 (&f, data_at), p64 (&f, t->data.len);
  p64 (&f, 0), p64 (&f, 0);
  uint64_t bits[4] = { 0 };
  for (size_t i = 0; i < t->nfeats; i++)
    bits[t->feats[i].bit / 64] |= 1ull << (t->feats[i].bit % 64);
  put (&f, bits, 32);
  for (size_t i = 0, at = ids_at; i < t->nattrs; i++)
    {
      put_attr (&f, &t->attrs[i], ab);
      p64 (&f, at), p64 (&f, t->nids[i] * 8);
      at += t->nids[i] * 8;
    }
  for (size_t i = 0; i < t->nattrs; i++)
    put (&f, t->ids[i], t->nids[i] * 8);
  put (&f, t->data.p, t->data.len);
  size_t body_at = feat_at + t->nfeats * 16;
  for (size_t i = 0; i < t->nfeats; i++)
    {
      p64 (&f, body_at), p64 (&f, t->feats[i].body.len);
      body_at += t->feats[i].body.len;
    }
  for (size_t i = 0; i < t->nfeats; i++)
    put (&f, t->feats[i].body.p, t->feats[i].body.len);
  return f;
}

static inline void
free_tfile (struct tfile *t)
{
  free (t->data.p);
  for (size_t i = 0; i < t->nfeats; i++)
    free (t->feats[i].body.p);
}

/* --- collecting what the reader delivers --------------------------------- */

struct got {
  size_t n, nsamples, by_type[16];
  struct sfdo_perfdata_record last[16];   /* the last record of each type */
  uint64_t ips[64], cc[16], regs[8], iregs[8], ctr[8];
  struct sfdo_perfdata_branch br[8];
  struct sfdo_perfdata_read_value rv[4];
  char raw[32], stack[32], str[64];
  const struct sfdo_perfdata_attr *attr_of[64];
  int stop_after;
};

static inline int
collect (const struct sfdo_perfdata_record *r, void *ctx)
{
  struct got *g = ctx;
  g->n++;
  assert_true (r->type < 16);
  g->by_type[r->type]++;
  g->last[r->type] = *r;
  if (r->type == SFDO_PERFDATA_SAMPLE)
    {
      const struct sfdo_perfdata_sample *s = &r->u.sample;
      if (g->nsamples < 64)
        {
          g->ips[g->nsamples] = s->ip;
          g->attr_of[g->nsamples] = r->attr;
        }
      g->nsamples++;
      if (s->callchain_nr <= 16 && s->callchain)
        memcpy (g->cc, s->callchain, s->callchain_nr * 8);
      if (s->branch_nr <= 8 && s->branches)
        memcpy (g->br, s->branches, s->branch_nr * sizeof *g->br);
      if (s->branch_counters && s->branch_nr <= 8)
        memcpy (g->ctr, s->branch_counters, s->branch_nr * 8);
      if (s->regs_user.nregs <= 8 && s->regs_user.regs)
        memcpy (g->regs, s->regs_user.regs, s->regs_user.nregs * 8);
      if (s->regs_intr.nregs <= 8 && s->regs_intr.regs)
        memcpy (g->iregs, s->regs_intr.regs, s->regs_intr.nregs * 8);
      if (s->read.nr <= 4 && s->read.values)
        memcpy (g->rv, s->read.values, s->read.nr * sizeof *g->rv);
      if (s->raw && s->raw_size <= 32)
        memcpy (g->raw, s->raw, s->raw_size);
      if (s->stack && s->stack_size <= 32)
        memcpy (g->stack, s->stack, s->stack_size);
    }
  if (r->type == SFDO_PERFDATA_MMAP2 || r->type == SFDO_PERFDATA_MMAP)
    snprintf (g->str, sizeof g->str, "%s", r->u.mmap.filename);
  if (r->type == SFDO_PERFDATA_COMM)
    snprintf (g->str, sizeof g->str, "%s", r->u.comm.comm);
  if (g->stop_after && g->n % (size_t) g->stop_after == 0)
    return SFDO_PERFDATA_CB_STOP;
  return SFDO_PERFDATA_CB_OK;
}

/* Open LEN bytes at P and walk them into G; returns the code.  */
static inline enum sfdo_errc
walk (const void *p, size_t len, struct got *g, struct sfdo_error *err,
      struct sfdo_perfdata **keep)
{
  struct sfdo_perfdata *pd;
  sfdo_error_clear (err);
  enum sfdo_errc rc = sfdo_perfdata_open_mem (p, len, "t.data", &pd, err);
  if (rc == SFDO_OK)
    rc = sfdo_perfdata_foreach_record (pd, collect, g, err);
  if (keep)
    *keep = pd;
  else
    sfdo_perfdata_close (pd);
  return rc;
}

static inline void
sample_ip_tid (struct bb *d, uint64_t ip)
{
  struct bb s = { 0 };
  p64 (&s, ip);
  p32 (&s, 10), p32 (&s, 11);
  rec (d, SFDO_PERFDATA_SAMPLE, 2, &s);
  free (s.p);
}

/* A non-sample record with a sample_id_all trailer of TID, TIME, ID.  */
static inline void
mmap2_with_id (struct bb *d, uint64_t id)
{
  struct bb s = { 0 };
  p32 (&s, 1), p32 (&s, 2), p64 (&s, 0x400000), p64 (&s, 0x1000);
  p64 (&s, 0), p32 (&s, 8), p32 (&s, 1), p64 (&s, 77), p64 (&s, 0);
  p32 (&s, 5), p32 (&s, 2), put (&s, "/bin/x\0\0", 8);
  p32 (&s, 1), p32 (&s, 2), p64 (&s, 1234), p64 (&s, id);
  rec (d, SFDO_PERFDATA_MMAP2, 2, &s);
  free (s.p);
}

static inline void
id_sample (struct bb *d, uint64_t id, uint64_t ip)
{
  struct bb s = { 0 };
  p64 (&s, id), p64 (&s, ip), p32 (&s, 1), p32 (&s, 2), p64 (&s, 5);
  rec (d, SFDO_PERFDATA_SAMPLE, 2, &s);
  free (s.p);
}

/* STREAM compressed and cut into COMPRESSED (or COMPRESSED2) records of
   at most CHUNK compressed bytes, appended to D.  */
static inline void
compress_into (struct bb *d, const struct bb *stream, size_t chunk, int v2)
{
  size_t cap = ZSTD_compressBound (stream->len);
  uint8_t *z = malloc (cap);
  size_t zn = ZSTD_compress (z, cap, stream->p, stream->len, 1);
  assert_false (ZSTD_isError (zn));
  for (size_t at = 0; at < zn; at += chunk)
    {
      struct bb body = { 0 };
      size_t k = zn - at < chunk ? zn - at : chunk;
      if (v2)
        p64 (&body, k);
      put (&body, z + at, k);
      while (v2 && body.len % 8)
        put (&body, "", 1);
      rec (d, v2 ? 83 : 81, 0, &body);
      free (body.p);
    }
  free (z);
}

/* N samples of IP|TID, ip = 8 * i.  */
static inline struct bb
many_samples (size_t n)
{
  struct bb d = { 0 };
  for (size_t i = 0; i < n; i++)
    sample_ip_tid (&d, 8 * i);
  return d;
}

#endif
