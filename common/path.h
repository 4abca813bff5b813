/* common/path.h - comparing file paths as different builds write them.  */
#ifndef SFDO_COMMON_PATH_H
#define SFDO_COMMON_PATH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How many trailing path components A and B (ALEN and BLEN bytes) share,
   "." components and repeated slashes aside: 0 when their base names
   differ.  "/ci/x/src/a.c" and "src/a.c" share 2.  */
size_t sfdo_shared_path_tail (const char *a, size_t alen, const char *b,
                              size_t blen);

/* The choice, among candidate paths offered one by one, of the one that
   ends most like WANT (another build may name a source from elsewhere):
   an equal path wins; else the most trailing components shared, at least
   the base name; two candidates of different IDs that share as many are
   no choice.  */
struct sfdo_path_pick {
  const char *want;
  size_t want_len;
  size_t score;                 /* SIZE_MAX: equal */
  ptrdiff_t id;                 /* the candidate chosen, -1: none */
  const char *best;             /* its path (borrowed) and length */
  size_t best_len;
  int tie;
};

void sfdo_path_pick_init (struct sfdo_path_pick *p, const char *want);
void sfdo_path_pick_offer (struct sfdo_path_pick *p, const char *path,
                           size_t len, ptrdiff_t id);
/* The ID chosen, or -1 (none, or a tie).  */
ptrdiff_t sfdo_path_pick_result (const struct sfdo_path_pick *p);

#ifdef __cplusplus
}
#endif

#endif
