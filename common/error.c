/* common/error.c - filling in and formatting struct sfdo_error.  */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
sfdo_error_clear (struct sfdo_error *err)
{
  if (!err)
    return;
  memset (err, 0, sizeof *err);
  err->offset = SFDO_NO_OFFSET;
}

enum sfdo_errc
sfdo_error_set (struct sfdo_error *err, enum sfdo_errc code, const char *path,
                uint64_t offset, uint32_t line, uint32_t col,
                const char *fmt, ...)
{
  if (!err || err->code != SFDO_OK)
    return code;
  err->code = code;
  err->offset = offset;
  err->line = line;
  err->col = col;
  snprintf (err->path, sizeof err->path, "%s", path ? path : "");
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (err->msg, sizeof err->msg, fmt, ap);
  va_end (ap);
  return code;
}

enum sfdo_errc
sfdo_error_sys (struct sfdo_error *err, const char *path, const char *what)
{
  int saved = errno;
  if (err && err->code == SFDO_OK)
    {
      sfdo_error_set (err, SFDO_E_IO, path, SFDO_NO_OFFSET, 0, 0, "%s: %s",
                      what, strerror (saved));
      err->sys_errno = saved;
    }
  return SFDO_E_IO;
}

const char *
sfdo_errc_text (enum sfdo_errc code)
{
  switch (code)
    {
#define SFDO_ERRC_TEXT(name, value, text) case name: return text;
      SFDO_ERRORS (SFDO_ERRC_TEXT)
#undef SFDO_ERRC_TEXT
    }
  return "unknown error";
}

char *
sfdo_error_format (const struct sfdo_error *err, char *buf, size_t size)
{
  const char *msg = err->msg[0] ? err->msg : sfdo_errc_text (err->code);
  const char *path = err->path[0] ? err->path : "<input>";
  if (err->line)
    snprintf (buf, size, "%s:%u:%u: %s", path, err->line, err->col, msg);
  else if (err->offset != SFDO_NO_OFFSET)
    snprintf (buf, size, "%s+0x%llx: %s", path,
              (unsigned long long) err->offset, msg);
  else
    snprintf (buf, size, "%s: %s", path, msg);
  return buf;
}
