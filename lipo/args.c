/* lipo/args.c - a link command's response files (@FILE) read in, as GCC
   and the linker read them (link.h).  */
#include "link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

/* Response files may name response files; deeper than this is a loop.  */
#define MAX_DEPTH 16

struct words {
  char **v;
  size_t n, cap;
};

/* Append a copy of S, keeping the array NULL-terminated.  */
static void
push (struct words *w, const char *s)
{
  sfdo_xgrow (&w->v, &w->cap, w->n + 2, sizeof *w->v);
  w->v[w->n++] = sfdo_xstrndup (s, strlen (s));
  w->v[w->n] = NULL;
}

static void add_arg (struct words *w, const char *arg, int depth);

/* Split TEXT into words: white space separates them, a backslash takes
   the next character as it is, and quotes ('...' or "...") hold white
   space; each word goes through add_arg (nested @FILEs).  */
static void
add_words (struct words *w, const char *text, int depth)
{
  size_t len = strlen (text);
  char *word = sfdo_xmalloc (len + 1);
  const char *p = text;
  while (*p)
    {
      while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'
             || *p == '\f' || *p == '\v')
        p++;
      if (!*p)
        break;
      size_t n = 0;
      char quote = 0;
      for (; *p; p++)
        {
          if (*p == '\\' && p[1])
            word[n++] = *++p;
          else if (quote && *p == quote)
            quote = 0;
          else if (!quote && (*p == '\'' || *p == '"'))
            quote = *p;
          else if (!quote && strchr (" \t\n\r\f\v", *p))
            break;
          else
            word[n++] = *p;
        }
      word[n] = '\0';
      add_arg (w, word, depth);
    }
  free (word);
}

/* The contents of the file PATH (malloc'd, NUL-terminated), or NULL.  */
static char *
slurp (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  size_t n = 0, cap = 4096;
  char *buf = sfdo_xmalloc (cap);
  for (size_t got; (got = fread (buf + n, 1, cap - n - 1, f)) > 0;)
    {
      n += got;
      if (n + 1 == cap)
        buf = sfdo_xrealloc (buf, cap *= 2);
    }
  int bad = ferror (f);
  fclose (f);
  if (bad)
    {
      free (buf);
      return NULL;
    }
  buf[n] = '\0';
  return buf;
}

/* Append ARG, or the words of the file it names if it is an @FILE that
   can be read (at DEPTH of nested files).  */
static void
add_arg (struct words *w, const char *arg, int depth)
{
  char *text = arg[0] == '@' && depth < MAX_DEPTH ? slurp (arg + 1) : NULL;
  if (!text)
    {
      push (w, arg);
      return;
    }
  add_words (w, text, depth + 1);
  free (text);
}

char **
sfdo_link_expand_args (int argc, char *const *argv, int *nargc)
{
  struct words w = { NULL, 0, 0 };
  push (&w, argv[0]);
  for (int i = 1; i < argc; i++)
    add_arg (&w, argv[i], 0);
  *nargc = (int) w.n;
  return w.v;
}

void
sfdo_link_free_args (char **args)
{
  for (size_t i = 0; args && args[i]; i++)
    free (args[i]);
  free (args);
}
