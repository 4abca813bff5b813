/* common/path.h - comparing file paths as different builds write them.  */
#ifndef SFDO_COMMON_PATH_H
#define SFDO_COMMON_PATH_H

#include <stddef.h>

/* How many trailing path components A and B (ALEN and BLEN bytes) share,
   "." components and repeated slashes aside: 0 when their base names
   differ.  "/ci/x/src/a.c" and "src/a.c" share 2.  */
size_t sfdo_shared_path_tail (const char *a, size_t alen, const char *b,
                              size_t blen);

#endif
