/* common/u64map.h - a hash map from uint64_t keys to uint64_t values.
 *
 * Open addressing with linear probing; the key UINT64_MAX is reserved.
 * Used on hot paths (one update per sample), so it is a plain struct the
 * caller embeds.  */
#ifndef SFDO_COMMON_U64MAP_H
#define SFDO_COMMON_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_u64map {
  uint64_t *keys;             /* UINT64_MAX marks an empty slot */
  uint64_t *vals;
  size_t cap, n;
};

/* The value slot of KEY, inserted with value 0 if absent.  */
uint64_t *sfdo_u64map_get (struct sfdo_u64map *m, uint64_t key);
/* The value slot of KEY, or NULL.  */
uint64_t *sfdo_u64map_find (const struct sfdo_u64map *m, uint64_t key);
void sfdo_u64map_release (struct sfdo_u64map *m);
/* The keys, sorted ascending, in a new array of m->n (caller frees).  */
uint64_t *sfdo_u64map_sorted_keys (const struct sfdo_u64map *m);

/* The 64-bit FNV-1a hash of the LEN bytes at S (the profile's binary
   index is sorted by it: its value is part of the file format).  */
uint64_t sfdo_fnv1a (const char *s, size_t len);

/* The index of the first of the N elements of ARRAY (each SIZE bytes,
   sorted by a uint64_t first field) whose first field is KEY or more; N
   if none.  */
size_t sfdo_first_at_or_after (const void *array, size_t n, size_t size,
                               uint64_t key);

/* Sort the N values A ascending.  */
void sfdo_sort_u64 (uint64_t *a, size_t n);

/* Sort the N values A and drop repeats; returns how many are left.  */
size_t sfdo_sort_unique_u64 (uint64_t *a, size_t n);

/* A map from pairs (A, B) of uint64_t (A != UINT64_MAX) to a count and a
   weight: branch (from, to) and range (begin, end) tallies.  */
struct sfdo_pairval {
  uint64_t count, weight;
};

struct sfdo_pairmap {
  uint64_t *a, *b;              /* a == UINT64_MAX marks an empty slot */
  struct sfdo_pairval *vals;
  size_t cap, n;
};

/* The value of (A, B), inserted as zeros if absent.  */
struct sfdo_pairval *sfdo_pairmap_get (struct sfdo_pairmap *m, uint64_t a,
                                       uint64_t b);
void sfdo_pairmap_release (struct sfdo_pairmap *m);

#ifdef __cplusplus
}
#endif

#endif
