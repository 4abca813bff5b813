/* common/error.h - the one list of errors an sfdo library can report.
 *
 * Every library function that can fail returns an enum sfdo_errc (SFDO_OK
 * is 0) and takes a struct sfdo_error * last (NULL allowed).  The caller
 * owns the struct, so reporting works even when memory is exhausted.  The
 * first error recorded wins: later ones are usually consequences of it.
 * Libraries never print, exit or abort on bad input; tools print the error
 * with sfdo_error_format().
 *
 * The code list is append-only: never renumber an existing code.  */
#ifndef SFDO_COMMON_ERROR_H
#define SFDO_COMMON_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SFDO_ERRORS(X)                                          \
  X(SFDO_OK,                 0, "no error")                     \
  X(SFDO_E_IO,               1, "input/output error")           \
  X(SFDO_E_NOMEM,            2, "out of memory")                \
  X(SFDO_E_BAD_MAGIC,        3, "not a recognised file format") \
  X(SFDO_E_VERSION,          4, "unsupported format version")   \
  X(SFDO_E_TRUNCATED,        5, "truncated input")              \
  X(SFDO_E_MALFORMED,        6, "malformed input")              \
  X(SFDO_E_RANGE,            7, "number out of range")          \
  X(SFDO_E_DUPLICATE,        8, "duplicate entry")              \
  X(SFDO_E_TOO_DEEP,         9, "nesting too deep")             \
  X(SFDO_E_USAGE,           10, "invalid argument")

enum sfdo_errc {
#define SFDO_ERRC_ENUM(name, value, text) name = value,
  SFDO_ERRORS (SFDO_ERRC_ENUM)
#undef SFDO_ERRC_ENUM
};

#define SFDO_NO_OFFSET UINT64_MAX

struct sfdo_error {
  enum sfdo_errc code;
  int sys_errno;        /* set when code == SFDO_E_IO */
  char path[256];       /* file being read or written, "" if none */
  uint64_t offset;      /* byte offset in binary input; SFDO_NO_OFFSET if none */
  uint32_t line, col;   /* 1-based position in text input; 0 if none */
  char msg[256];        /* what was wrong, in words */
};

/* Reset ERR to "no error" (ERR may be NULL).  */
void sfdo_error_clear (struct sfdo_error *err);

/* Record an error in ERR unless one is already recorded, and return CODE.
   PATH may be NULL; OFFSET is SFDO_NO_OFFSET and LINE 0 when unknown.  */
enum sfdo_errc sfdo_error_set (struct sfdo_error *err, enum sfdo_errc code,
                               const char *path, uint64_t offset,
                               uint32_t line, uint32_t col,
                               const char *fmt, ...)
  __attribute__ ((format (printf, 7, 8)));

/* Record an I/O error from errno for PATH; returns SFDO_E_IO.  */
enum sfdo_errc sfdo_error_sys (struct sfdo_error *err, const char *path,
                               const char *what);

/* The fixed text of CODE.  */
const char *sfdo_errc_text (enum sfdo_errc code);

/* Format ERR as "PATH:LINE:COL: MSG", "PATH+0xOFF: MSG" or "PATH: MSG"
   into BUF of SIZE bytes.  Returns BUF.  */
char *sfdo_error_format (const struct sfdo_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
