/* common/path.c - comparing file paths (path.h).  */
#include "path.h"

#include <string.h>

size_t
sfdo_shared_path_tail (const char *a, size_t alen, const char *b, size_t blen)
{
  size_t shared = 0;
  for (;;)
    {
      while (alen && a[alen - 1] == '/')
        alen--;
      while (blen && b[blen - 1] == '/')
        blen--;
      size_t ia = alen, ib = blen;
      while (ia && a[ia - 1] != '/')
        ia--;
      while (ib && b[ib - 1] != '/')
        ib--;
      int a_dot = alen - ia == 1 && a[ia] == '.';
      int b_dot = blen - ib == 1 && b[ib] == '.';
      if (a_dot || b_dot)
        {
          alen = a_dot ? ia : alen, blen = b_dot ? ib : blen;
          continue;
        }
      if (!alen || !blen || alen - ia != blen - ib
          || memcmp (a + ia, b + ib, alen - ia) != 0)
        return shared;
      shared++;
      alen = ia, blen = ib;
    }
}
