/* common/outfile.c - atomic output files (outfile.h).  */
#include "outfile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

static void
release (struct sfdo_outfile *out)
{
  free (out->path);
  free (out->tmp);
  memset (out, 0, sizeof *out);
}

enum sfdo_errc
sfdo_outfile_open (const char *path, struct sfdo_outfile *out,
                   struct sfdo_error *err)
{
  struct stat st;
  memset (out, 0, sizeof *out);
  if (!*path)
    return sfdo_error_set (err, SFDO_E_USAGE, "", SFDO_NO_OFFSET, 0, 0,
                           "an empty output file name");
  int exists = stat (path, &st) == 0;
  if (exists && S_ISDIR (st.st_mode))
    return sfdo_error_set (err, SFDO_E_USAGE, path, SFDO_NO_OFFSET, 0, 0,
                           "is a directory: name a file in it");
  out->path = sfdo_xstrndup (path, strlen (path));
  if (exists && !S_ISREG (st.st_mode))
    {
      if (!(out->f = fopen (path, "wb")))
        {
          enum sfdo_errc rc = sfdo_error_sys (err, path, "cannot write to");
          release (out);
          return rc;
        }
      return SFDO_OK;
    }
  size_t n = strlen (path) + sizeof ".tmp.XXXXXX";
  out->tmp = sfdo_xmalloc (n);
  snprintf (out->tmp, n, "%s.tmp.XXXXXX", path);
  int fd = mkstemp (out->tmp);
  if (fd < 0)
    {
      enum sfdo_errc rc = sfdo_error_sys (err, path, "cannot create file");
      release (out);
      return rc;
    }
  mode_t mask = umask (0);
  umask (mask);
  if (fchmod (fd, 0666 & ~mask) != 0 || !(out->f = fdopen (fd, "wb")))
    {
      enum sfdo_errc rc = sfdo_error_sys (err, path, "cannot set up file");
      close (fd);
      unlink (out->tmp);
      release (out);
      return rc;
    }
  return SFDO_OK;
}

enum sfdo_errc
sfdo_outfile_commit (struct sfdo_outfile *out, struct sfdo_error *err)
{
  enum sfdo_errc rc = SFDO_OK;
  if (ferror (out->f))
    rc = sfdo_error_set (err, SFDO_E_IO, out->path, SFDO_NO_OFFSET, 0, 0,
                         "write failed");
  if (fclose (out->f) != 0 && rc == SFDO_OK)
    rc = sfdo_error_sys (err, out->path, "write failed");
  out->f = NULL;
  if (rc == SFDO_OK && out->tmp && rename (out->tmp, out->path) != 0)
    rc = sfdo_error_sys (err, out->path,
                         "cannot rename the temporary file into place");
  if (rc != SFDO_OK && out->tmp)
    unlink (out->tmp);
  release (out);
  return rc;
}

void
sfdo_outfile_abort (struct sfdo_outfile *out)
{
  if (out->f)
    {
      fclose (out->f);
      if (out->tmp)
        unlink (out->tmp);
    }
  release (out);
}

int
sfdo_same_file (const char *a, const char *b)
{
  struct stat sa, sb;
  return stat (a, &sa) == 0 && stat (b, &sb) == 0 && sa.st_dev == sb.st_dev
         && sa.st_ino == sb.st_ino;
}
