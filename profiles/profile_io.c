/* profiles/profile_io.c - getting profile bytes in and out of files:
 * encoding detection, mmap for lazy binary reading, atomic saving.  */
#include "profile_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "../common/xalloc.h"

/* Parse the LEN bytes at DATA, of which P takes ownership (MAPPED says
   how to release them).  A binary profile keeps them; text drops them.  */
static enum sfdo_errc
parse_bytes (struct sfdo_profile *p, const uint8_t *data, size_t len,
             int mapped, int lazy, struct sfdo_error *err)
{
  p->data = data;
  p->data_len = len;
  p->data_mapped = mapped;
  if (sfdo_profile_is_afdo (data, len))
    {
      enum sfdo_errc rc = sfdo_afdo_read (p, data, len, err);
      sfdo_binary_release (p);
      return rc;
    }
  if (!sfdo_profile_is_binary (data, len))
    {
      p->encoding = SFDO_PROF_TEXT;
      enum sfdo_errc rc = sfdo_text_read (p, (const char *) data, len, err);
      sfdo_binary_release (p);
      return rc;
    }
  enum sfdo_errc rc = sfdo_binary_open (p, err);
  if (rc == SFDO_OK && !lazy)
    rc = sfdo_binary_load_all (p, err);
  return rc;
}

/* A profile read from a pipe or device has no size to check lengths
   against: it may not grow past this (save it to a file: files are
   mapped, whatever their size).  */
#define MAX_STREAM_BYTES (1ull << 30)

/* Whether the first N bytes at P can begin a profile: a binary or AFDO
   one, or text, which has no NUL byte.  Checked early, so that reading
   /dev/zero or a binary stream stops at once.  */
static int
could_be_profile (const uint8_t *p, size_t n)
{
  return sfdo_profile_is_binary (p, n) || sfdo_profile_is_afdo (p, n)
         || !memchr (p, 0, n);
}

static enum sfdo_errc
read_stream (FILE *f, const char *path, uint8_t **out, size_t *len,
             struct sfdo_error *err)
{
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = (uint8_t *) sfdo_xmalloc (cap);
  enum sfdo_errc rc = SFDO_OK;
  for (;;)
    {
      size_t got = fread (buf + n, 1, cap - n, f);
      n += got;
      if (n == (size_t) 1 << 16 && !could_be_profile (buf, n))
        rc = sfdo_error_set (err, SFDO_E_BAD_MAGIC, path, SFDO_NO_OFFSET, 0,
                             0, "not a profile: its first 64 KiB hold a NUL "
                             "byte, which no text profile has, and no "
                             "binary or AutoFDO header");
      else if (n > MAX_STREAM_BYTES)
        rc = sfdo_error_set (err, SFDO_E_RANGE, path, SFDO_NO_OFFSET, 0, 0,
                             "more than %llu MiB from a pipe or device: save "
                             "the profile to a file and read that",
                             MAX_STREAM_BYTES >> 20);
      if (rc != SFDO_OK || n < cap)
        break;
      sfdo_xgrow (&buf, &cap, cap + 1, 1);
    }
  if (rc == SFDO_OK && ferror (f))
    rc = sfdo_error_sys (err, path, "cannot read");
  if (rc != SFDO_OK)
    {
      free (buf);
      return rc;
    }
  *out = buf;
  *len = n;
  return SFDO_OK;
}

/* Map PATH (or read it, for pipes and empty files).  */
static enum sfdo_errc
load_file (const char *path, int lazy, const uint8_t **data, size_t *len,
           int *mapped, struct sfdo_error *err)
{
  *mapped = 0;
  if (strcmp (path, "-") == 0)
    return read_stream (stdin, "<stdin>", (uint8_t **) data, len, err);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    return sfdo_error_sys (err, path, "cannot open profile");
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      return sfdo_error_sys (err, path, "cannot stat profile");
    }
  if (S_ISREG (st.st_mode) && st.st_size > 0)
    {
      void *m = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      close (fd);
      if (m == MAP_FAILED)
        return sfdo_error_sys (err, path, "cannot map profile");
      /* A lazy lookup touches a few scattered pages; read-around would
         pull 128 KiB from disk for each.  */
      if (lazy)
        madvise (m, (size_t) st.st_size, MADV_RANDOM);
      *data = (const uint8_t *) m;
      *len = (size_t) st.st_size;
      *mapped = 1;
      return SFDO_OK;
    }
  FILE *f = fdopen (fd, "rb");
  if (!f)
    {
      close (fd);
      return sfdo_error_sys (err, path, "cannot open profile");
    }
  enum sfdo_errc rc = read_stream (f, path, (uint8_t **) data, len, err);
  fclose (f);
  return rc;
}

static enum sfdo_errc
read_path (const char *path, int lazy, struct sfdo_profile **out,
           struct sfdo_error *err)
{
  *out = NULL;
  sfdo_error_clear (err);
  const uint8_t *data;
  size_t len;
  int mapped;
  enum sfdo_errc rc = load_file (path, lazy, &data, &len, &mapped, err);
  if (rc != SFDO_OK)
    return rc;
  struct sfdo_profile *p = sfdo_profile_new ();
  p->path = sfdo_xstrndup (path, strlen (path));
  rc = parse_bytes (p, data, len, mapped, lazy, err);
  if (rc != SFDO_OK)
    {
      sfdo_profile_free (p);
      return rc;
    }
  *out = p;
  return SFDO_OK;
}

enum sfdo_errc
sfdo_profile_read (const char *path, struct sfdo_profile **out,
                   struct sfdo_error *err)
{
  return read_path (path, 0, out, err);
}

enum sfdo_errc
sfdo_profile_open (const char *path, struct sfdo_profile **out,
                   struct sfdo_error *err)
{
  return read_path (path, 1, out, err);
}

enum sfdo_errc
sfdo_profile_read_mem (const void *buf, size_t len, const char *name,
                       struct sfdo_profile **out, struct sfdo_error *err)
{
  *out = NULL;
  sfdo_error_clear (err);
  struct sfdo_profile *p = sfdo_profile_new ();
  p->path = sfdo_xstrndup (name, strlen (name));
  uint8_t *copy = (uint8_t *) sfdo_xmalloc (len);
  if (len)
    memcpy (copy, buf, len);
  enum sfdo_errc rc = parse_bytes (p, copy, len, 0, 0, err);
  if (rc != SFDO_OK)
    {
      sfdo_profile_free (p);
      return rc;
    }
  *out = p;
  return SFDO_OK;
}

enum sfdo_errc
sfdo_profile_write (struct sfdo_profile *p, FILE *f,
                    enum sfdo_prof_encoding enc, const char *name,
                    struct sfdo_error *err)
{
  enum sfdo_errc rc = sfdo_profile_finalize (p, err);
  if (rc == SFDO_OK)
    rc = sfdo_profile_check_strings (p, name, err);
  if (rc != SFDO_OK)
    return rc;
  if (enc == SFDO_PROF_BINARY)
    return sfdo_binary_write (p, f, name, err);
  return sfdo_text_write (p, f, name, err);
}

/* How to write a profile: the encodings and the export formats.  */
struct write_job {
  enum sfdo_prof_encoding enc;
  int export_format;            /* 0, or an enum sfdo_export_format */
  struct sfdo_export_report *lost;
};

static enum sfdo_errc
run_job (struct sfdo_profile *p, FILE *f, const struct write_job *job,
         const char *name, struct sfdo_error *err)
{
  if (job->export_format == SFDO_EXPORT_LLVM)
    return sfdo_llvm_write (p, f, name, job->lost, err);
  if (job->export_format)
    return sfdo_profile_write_afdo (p, f, (unsigned) job->export_format, name,
                                    job->lost, err);
  return sfdo_profile_write (p, f, job->enc, name, err);
}

/* Write P by JOB to a new temporary file beside PATH and rename it into
   place, so a failure never leaves a partial file; "-" is stdout.  */
static enum sfdo_errc
save_atomically (struct sfdo_profile *p, const char *path,
                 const struct write_job *job, struct sfdo_error *err)
{
  if (strcmp (path, "-") == 0)
    {
      enum sfdo_errc rc = run_job (p, stdout, job, "<stdout>", err);
      if (rc == SFDO_OK && fflush (stdout) != 0)
        rc = sfdo_error_sys (err, "<stdout>", "write failed");
      return rc;
    }
  struct sfdo_outfile out;
  enum sfdo_errc rc = sfdo_outfile_open (path, &out, err);
  if (rc != SFDO_OK)
    return rc;
  rc = run_job (p, out.f, job, path, err);
  if (rc != SFDO_OK)
    {
      sfdo_outfile_abort (&out);
      return rc;
    }
  return sfdo_outfile_commit (&out, err);
}

enum sfdo_errc
sfdo_profile_save (struct sfdo_profile *p, const char *path,
                   enum sfdo_prof_encoding enc, struct sfdo_error *err)
{
  struct write_job job = { enc, 0, NULL };
  return save_atomically (p, path, &job, err);
}

enum sfdo_errc
sfdo_profile_export (struct sfdo_profile *p, const char *path,
                     enum sfdo_export_format format,
                     struct sfdo_export_report *lost, struct sfdo_error *err)
{
  struct write_job job = { SFDO_PROF_TEXT, (int) format, lost };
  return save_atomically (p, path, &job, err);
}

void
sfdo_export_report_print (FILE *f, const char *program,
                          enum sfdo_export_format format,
                          const struct sfdo_export_report *lost)
{
  const struct { uint64_t n; const char *what; } items[] = {
    { lost->value_histograms, "value histograms (only call targets are kept)" },
    { lost->inline_heads, "head counts of inline instances" },
    { lost->checksums, "checksums" },
    { lost->files, "files of static functions" },
    { lost->positions,
      "positions with an offset or discriminator over 16 bits" },
  };
  const char *name = format == SFDO_EXPORT_LLVM ? "LLVM's text format"
                     : format == SFDO_EXPORT_AFDO1 ? "AFDO version 1"
                     : format == SFDO_EXPORT_AFDO2 ? "AFDO version 2"
                     : "AFDO version 3";
  for (size_t i = 0; i < sizeof items / sizeof *items; i++)
    if (items[i].n)
      fprintf (f, "%s: %s cannot hold %llu %s; left out\n", program, name,
               (unsigned long long) items[i].n, items[i].what);
  if (lost->merged_functions)
    fprintf (f, "%s: note: %s keys functions by name alone: %llu static "
             "functions were summed into a same-named function of another "
             "file (see the '# merged:' lines of the output; building with "
             "-funique-internal-linkage-names keeps them apart)\n", program,
             name, (unsigned long long) lost->merged_functions);
  if (lost->foreign_discriminators)
    fprintf (f, "%s: note: some discriminators are not in clang's encoding "
             "(a binary built by GCC?): all are written as they are, not as "
             "LLVM's base discriminators\n", program);
  if (lost->no_discriminators)
    fprintf (f, "%s: note: no record has a discriminator, as when the "
             "profiled binary was built without -fdebug-info-for-profiling: "
             "compile with -mllvm -no-discriminators too, or clang's own "
             "discriminators will not match the records\n", program);
}
