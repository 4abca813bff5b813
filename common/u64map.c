/* common/u64map.c - see u64map.h.  */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static size_t
slot_of (const struct sfdo_u64map *m, uint64_t key)
{
  size_t mask = m->cap - 1;
  size_t i = (size_t) ((key * 0x9e3779b97f4a7c15ull) >> 17) & mask;
  while (m->keys[i] != UINT64_MAX && m->keys[i] != key)
    i = (i + 1) & mask;
  return i;
}

static void
grow (struct sfdo_u64map *m)
{
  struct sfdo_u64map old = *m;
  m->cap = old.cap ? old.cap * 2 : 1024;
  m->keys = (uint64_t *) sfdo_xmalloc (m->cap * sizeof *m->keys);
  memset (m->keys, 0xff, m->cap * sizeof *m->keys);
  m->vals = (uint64_t *) sfdo_xcalloc (m->cap, sizeof *m->vals);
  for (size_t i = 0; i < old.cap; i++)
    if (old.keys[i] != UINT64_MAX)
      {
        size_t s = slot_of (m, old.keys[i]);
        m->keys[s] = old.keys[i];
        m->vals[s] = old.vals[i];
      }
  free (old.keys);
  free (old.vals);
}

uint64_t *
sfdo_u64map_get (struct sfdo_u64map *m, uint64_t key)
{
  if ((m->n + 1) * 2 > m->cap)
    grow (m);
  size_t s = slot_of (m, key);
  if (m->keys[s] == UINT64_MAX)
    {
      m->keys[s] = key;
      m->vals[s] = 0;
      m->n++;
    }
  return &m->vals[s];
}

uint64_t *
sfdo_u64map_find (const struct sfdo_u64map *m, uint64_t key)
{
  if (!m->cap)
    return NULL;
  size_t s = slot_of (m, key);
  return m->keys[s] == key ? &m->vals[s] : NULL;
}

void
sfdo_u64map_release (struct sfdo_u64map *m)
{
  free (m->keys);
  free (m->vals);
  memset (m, 0, sizeof *m);
}

static int
u64_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

uint64_t *
sfdo_u64map_sorted_keys (const struct sfdo_u64map *m)
{
  uint64_t *keys = (uint64_t *) sfdo_xmalloc ((m->n + 1) * sizeof *keys);
  size_t k = 0;
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i] != UINT64_MAX)
      keys[k++] = m->keys[i];
  qsort (keys, k, sizeof *keys, u64_cmp);
  return keys;
}

size_t
sfdo_first_at_or_after (const void *array, size_t n, size_t size,
                        uint64_t key)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      uint64_t v;
      memcpy (&v, (const char *) array + mid * size, sizeof v);
      if (v < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

uint64_t
sfdo_fnv1a (const char *s, size_t len)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char) s[i]) * 0x100000001b3ull;
  return h;
}

void
sfdo_sort_u64 (uint64_t *a, size_t n)
{
  if (n > 1)
    qsort (a, n, sizeof *a, u64_cmp);
}

size_t
sfdo_sort_unique_u64 (uint64_t *a, size_t n)
{
  size_t k = 0;
  sfdo_sort_u64 (a, n);
  for (size_t i = 0; i < n; i++)
    if (k == 0 || a[i] != a[k - 1])
      a[k++] = a[i];
  return k;
}

/* --- Pairs ----------------------------------------------------------------- */

static size_t
pair_slot (const struct sfdo_pairmap *m, uint64_t a, uint64_t b)
{
  size_t mask = m->cap - 1;
  uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full);
  size_t i = (size_t) (h >> 17) & mask;
  while (m->a[i] != UINT64_MAX && (m->a[i] != a || m->b[i] != b))
    i = (i + 1) & mask;
  return i;
}

static void
pair_grow (struct sfdo_pairmap *m)
{
  struct sfdo_pairmap old = *m;
  m->cap = old.cap ? old.cap * 2 : 1024;
  m->a = (uint64_t *) sfdo_xmalloc (m->cap * sizeof *m->a);
  memset (m->a, 0xff, m->cap * sizeof *m->a);
  m->b = (uint64_t *) sfdo_xcalloc (m->cap, sizeof *m->b);
  m->vals = (struct sfdo_pairval *) sfdo_xcalloc (m->cap, sizeof *m->vals);
  for (size_t i = 0; i < old.cap; i++)
    if (old.a[i] != UINT64_MAX)
      {
        size_t s = pair_slot (m, old.a[i], old.b[i]);
        m->a[s] = old.a[i];
        m->b[s] = old.b[i];
        m->vals[s] = old.vals[i];
      }
  free (old.a);
  free (old.b);
  free (old.vals);
}

struct sfdo_pairval *
sfdo_pairmap_get (struct sfdo_pairmap *m, uint64_t a, uint64_t b)
{
  if ((m->n + 1) * 2 > m->cap)
    pair_grow (m);
  size_t s = pair_slot (m, a, b);
  if (m->a[s] == UINT64_MAX)
    {
      m->a[s] = a;
      m->b[s] = b;
      m->vals[s].count = m->vals[s].weight = 0;
      m->n++;
    }
  return &m->vals[s];
}

void
sfdo_pairmap_release (struct sfdo_pairmap *m)
{
  free (m->a);
  free (m->b);
  free (m->vals);
  memset (m, 0, sizeof *m);
}
