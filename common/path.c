/* common/path.c - comparing file paths (path.h).  */
#include "path.h"

#include <stdint.h>
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

void
sfdo_path_pick_init (struct sfdo_path_pick *p, const char *want)
{
  *p = (struct sfdo_path_pick) { want, strlen (want), 0, -1, NULL, 0, 0 };
}

void
sfdo_path_pick_offer (struct sfdo_path_pick *p, const char *path, size_t len,
                      ptrdiff_t id)
{
  size_t score = len == p->want_len && memcmp (path, p->want, len) == 0
                 ? SIZE_MAX
                 : sfdo_shared_path_tail (p->want, p->want_len, path, len);
  if (!score || score < p->score || (score == p->score && id == p->id))
    return;
  p->tie = score == p->score;
  if (score > p->score)
    *p = (struct sfdo_path_pick) { p->want, p->want_len, score, id, path, len,
                                   0 };
}

ptrdiff_t
sfdo_path_pick_result (const struct sfdo_path_pick *p)
{
  return p->tie ? -1 : p->id;
}
