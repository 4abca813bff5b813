/* common/outfile.h - output files that never exist half-written, and
 * never replace their own inputs by accident.
 *
 * An output is written to a temporary file beside its path (same
 * directory, so the rename is atomic) and renamed over the path only once
 * complete; a failure removes the temporary file and leaves whatever was
 * at the path untouched.  The file gets the mode a new file would get
 * (0666 less the umask), not mkstemp's 0600.  A path that is a device, a
 * FIFO or a socket (/dev/null, /dev/stdout, a pipe) is written directly:
 * a rename would replace it with a file.  A directory is an error.
 *
 * Tools ask sfdo_same_file() before writing whether an output names one
 * of their inputs (also through a symbolic or hard link).  */
#ifndef SFDO_COMMON_OUTFILE_H
#define SFDO_COMMON_OUTFILE_H

#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_outfile {
  FILE *f;                      /* write here */
  char *path, *tmp;             /* tmp NULL: writing to PATH directly */
};

/* Start the output that will be PATH.  */
enum sfdo_errc sfdo_outfile_open (const char *path, struct sfdo_outfile *out,
                                  struct sfdo_error *err);

/* Flush, close and rename the file into place; on failure the temporary
   file is removed.  OUT is released either way.  */
enum sfdo_errc sfdo_outfile_commit (struct sfdo_outfile *out,
                                    struct sfdo_error *err);

/* Remove the temporary file and release OUT (never opened: no-op).  */
void sfdo_outfile_abort (struct sfdo_outfile *out);

/* Whether A and B are the same existing file (device and inode).  */
int sfdo_same_file (const char *a, const char *b);

#ifdef __cplusplus
}
#endif

#endif
