/* common/xalloc.h - allocation that never returns NULL.
 *
 * sfdo's tools and libraries treat exhaustion of memory as fatal (as GCC's
 * xmalloc does): the size of every allocation driven by outside input is
 * bounded by the bytes of that input first, so a hostile file cannot reach
 * here with an absurd size.  On failure these print one line and exit(2).  */
#ifndef SFDO_COMMON_XALLOC_H
#define SFDO_COMMON_XALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *sfdo_xmalloc (size_t size);
void *sfdo_xcalloc (size_t n, size_t size);
void *sfdo_xrealloc (void *ptr, size_t size);
/* Grow *PTR (of *CAP elements of ELEM bytes) to hold at least NEED.  */
void sfdo_xgrow (void *ptr_to_ptr, size_t *cap, size_t need, size_t elem);
char *sfdo_xstrndup (const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
