/* bench/perfdata_replicate.c - grow a real perf.data to a given size by
 * replicating its sample records, for bench/convert-bench.sh.
 *
 *   perfdata_replicate IN.perf.data OUT.perf.data MIN-BYTES
 *
 * IN must be a file-mode ("PERFILE2", little-endian) perf.data with no
 * COMPRESSED records, whose attrs all share one sample_type.  Its data
 * section is split into head (the records before the first sample), body
 * (first sample to last sample) and tail (after the last sample).  OUT
 * holds the head, the body, then as many further copies of the body's
 * SAMPLE and FINISHED_ROUND records as make OUT at least MIN-BYTES long,
 * then the tail.  Copy k has the time of each sample moved on by k times
 * the body's time span, and the tail's sample_id times by the copies'
 * total, so time still only grows in file order.  Everything else - the
 * header (with the data section's size and the feature sections'
 * offsets fixed up), attrs, ids and feature sections (build-ids, ...) -
 * is copied as it is.  So OUT is a valid perf.data of the same process,
 * mappings and binaries with COPIES times the samples.
 *
 * Prints on stdout: "samples=N copies=K bytes=B sample_bytes=S", N the
 * number of SAMPLE records in OUT.  Exit status 0, or 1 with a message.  */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR_SIZE 104
#define REC_SAMPLE 9
#define REC_FINISHED_ROUND 68
#define REC_COMPRESSED 81
#define REC_COMPRESSED2 83

#define S_IP (1ull << 0)
#define S_TID (1ull << 1)
#define S_TIME (1ull << 2)
#define S_ID (1ull << 6)
#define S_CPU (1ull << 7)
#define S_STREAM_ID (1ull << 9)
#define S_IDENTIFIER (1ull << 16)
#define SAMPLE_ID_ALL_BIT 18

static const char *prog = "perfdata_replicate";

static void
die (const char *fmt, const char *arg)
{
  fprintf (stderr, "%s: ", prog);
  fprintf (stderr, fmt, arg);
  fputc ('\n', stderr);
  exit (1);
}

static uint64_t
get64 (const unsigned char *p)
{
  uint64_t v;
  memcpy (&v, p, 8);
  return v;
}

static void
put64 (unsigned char *p, uint64_t v)
{
  memcpy (p, &v, 8);
}

static unsigned char *
slurp (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    die ("%s: cannot open", path);
  size_t cap = 1 << 20, n = 0;
  unsigned char *buf = malloc (cap);
  for (;;)
    {
      if (!buf)
        die ("%s: out of memory", path);
      n += fread (buf + n, 1, cap - n, f);
      if (n < cap)
        break;
      cap *= 2;
      buf = realloc (buf, cap);
    }
  if (ferror (f))
    die ("%s: read error", path);
  fclose (f);
  *len = n;
  return buf;
}

/* Offset of the time field from the start of a SAMPLE record (header
   included), or 0 if samples have no time.  */
static size_t
sample_time_offset (uint64_t st)
{
  if (!(st & S_TIME))
    return 0;
  return 8 + 8 * !!(st & S_IDENTIFIER) + 8 * !!(st & S_IP)
         + 8 * !!(st & S_TID);
}

/* Offset of the time field from the END of a kernel record's sample_id
   trailer, or 0 if there is none.  */
static size_t
trailer_time_from_end (uint64_t st, int sample_id_all)
{
  if (!sample_id_all || !(st & S_TIME))
    return 0;
  return 8 + 8 * (!!(st & S_ID) + !!(st & S_STREAM_ID) + !!(st & S_CPU)
                  + !!(st & S_IDENTIFIER));
}

static void
xwrite (const void *p, size_t n, FILE *f, const char *path)
{
  if (n && fwrite (p, 1, n, f) != n)
    die ("%s: write error", path);
}

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "Usage: %s IN.perf.data OUT.perf.data MIN-BYTES\n",
               prog);
      return 1;
    }
  const char *in_path = argv[1], *out_path = argv[2];
  char *end;
  errno = 0;
  unsigned long long min_bytes = strtoull (argv[3], &end, 10);
  if (errno || *end || end == argv[3])
    die ("bad MIN-BYTES '%s'", argv[3]);

  size_t len;
  unsigned char *in = slurp (in_path, &len);
  if (len < HDR_SIZE || memcmp (in, "PERFILE2", 8) != 0
      || get64 (in + 8) != HDR_SIZE)
    die ("%s: not a little-endian file-mode perf.data", in_path);
  uint64_t attr_size = get64 (in + 16);
  uint64_t attrs_off = get64 (in + 24), attrs_size = get64 (in + 32);
  uint64_t data_off = get64 (in + 40), data_size = get64 (in + 48);
  if (data_off > len || data_size > len - data_off
      || attrs_off + attrs_size > data_off || attr_size < 48
      || attrs_size % attr_size != 0 || attrs_size == 0)
    die ("%s: unexpected section layout", in_path);
  uint64_t data_end = data_off + data_size;

  /* One sample_type for all attrs.  */
  uint64_t st = get64 (in + attrs_off + 24);
  int sid_all = (int) ((get64 (in + attrs_off + 40) >> SAMPLE_ID_ALL_BIT) & 1);
  for (uint64_t a = attrs_off; a < attrs_off + attrs_size; a += attr_size)
    if (get64 (in + a + 24) != st
        || (int) ((get64 (in + a + 40) >> SAMPLE_ID_ALL_BIT) & 1) != sid_all)
      die ("%s: attrs with different sample_type", in_path);
  size_t s_time = sample_time_offset (st);
  size_t t_time = trailer_time_from_end (st, sid_all);

  /* Walk the records: the first and last sample, the time span, the
     bytes of one further copy.  */
  uint64_t first = 0, last_end = 0, nsamples = 0, copy_bytes = 0;
  uint64_t tmin = UINT64_MAX, tmax = 0;
  int seen = 0;
  for (uint64_t p = data_off; p < data_end;)
    {
      if (data_end - p < 8)
        die ("%s: truncated record header", in_path);
      uint32_t type;
      uint16_t size;
      memcpy (&type, in + p, 4);
      memcpy (&size, in + p + 6, 2);
      if (size < 8 || size > data_end - p)
        die ("%s: bad record size", in_path);
      if (type == REC_COMPRESSED || type == REC_COMPRESSED2)
        die ("%s: compressed records are not supported", in_path);
      if (type == REC_SAMPLE)
        {
          if (!seen)
            first = p;
          seen = 1;
          last_end = p + size;
          nsamples++;
          if (s_time)
            {
              if (s_time + 8 > size)
                die ("%s: sample too short for its time", in_path);
              uint64_t t = get64 (in + p + s_time);
              if (t < tmin)
                tmin = t;
              if (t > tmax)
                tmax = t;
            }
        }
      p += size;
    }
  if (!nsamples)
    die ("%s: no samples", in_path);
  for (uint64_t p = first; p < last_end;)
    {
      uint32_t type;
      uint16_t size;
      memcpy (&type, in + p, 4);
      memcpy (&size, in + p + 6, 2);
      if (type == REC_SAMPLE || type == REC_FINISHED_ROUND)
        copy_bytes += size;
      p += size;
    }
  uint64_t span = s_time ? tmax - tmin + 1 : 0;

  /* The copy template: samples and rounds of the body, and where their
     times are.  */
  unsigned char *tmpl = malloc (copy_bytes);
  size_t *tpos = malloc (nsamples * sizeof *tpos);
  uint64_t *tval = malloc (nsamples * sizeof *tval);
  if (!tmpl || !tpos || !tval)
    die ("%s: out of memory", in_path);
  size_t q = 0, nt = 0;
  for (uint64_t p = first; p < last_end;)
    {
      uint32_t type;
      uint16_t size;
      memcpy (&type, in + p, 4);
      memcpy (&size, in + p + 6, 2);
      if (type == REC_SAMPLE || type == REC_FINISHED_ROUND)
        {
          memcpy (tmpl + q, in + p, size);
          if (type == REC_SAMPLE && s_time)
            {
              tpos[nt] = q + s_time;
              tval[nt++] = get64 (in + p + s_time);
            }
          q += size;
        }
      p += size;
    }

  uint64_t base = data_size;
  uint64_t copies = 0;
  if (min_bytes > len)
    copies = (min_bytes - len + copy_bytes - 1) / copy_bytes;
  uint64_t new_data_size = base + copies * copy_bytes;
  uint64_t delta = new_data_size - data_size;

  FILE *out = fopen (out_path, "wb");
  if (!out)
    die ("%s: cannot create", out_path);
  static char obuf[1 << 20];
  setvbuf (out, obuf, _IOFBF, sizeof obuf);

  /* Header and everything before the data: data size fixed.  */
  unsigned char hdr[HDR_SIZE];
  memcpy (hdr, in, HDR_SIZE);
  put64 (hdr + 48, new_data_size);
  xwrite (hdr, HDR_SIZE, out, out_path);
  xwrite (in + HDR_SIZE, data_off - HDR_SIZE, out, out_path);

  /* Head and the original body.  */
  xwrite (in + data_off, last_end - data_off, out, out_path);
  /* The copies.  */
  for (uint64_t k = 1; k <= copies; k++)
    {
      for (size_t i = 0; i < nt; i++)
        put64 (tmpl + tpos[i], tval[i] + k * span);
      xwrite (tmpl, copy_bytes, out, out_path);
    }
  /* The tail, with times moved past the copies.  */
  for (uint64_t p = last_end; p < data_end;)
    {
      uint32_t type;
      uint16_t size;
      memcpy (&type, in + p, 4);
      memcpy (&size, in + p + 6, 2);
      unsigned char rec[65536];
      memcpy (rec, in + p, size);
      if (t_time && type >= 1 && type <= 21 && type != REC_SAMPLE
          && size >= 8 + t_time)
        {
          uint64_t t = get64 (rec + size - t_time);
          if (t >= tmin)        /* not a synthesized record's 0 or -1 */
            put64 (rec + size - t_time, t + copies * span);
        }
      xwrite (rec, size, out, out_path);
      p += size;
    }

  /* The feature sections: the table right after the data, offsets
     moved by DELTA, the rest as it is.  */
  unsigned nfeat = 0;
  for (unsigned b = 1; b < 256; b++)
    if (in[72 + b / 8] >> (b % 8) & 1)
      nfeat++;
  if (data_end + 16ull * nfeat > len)
    die ("%s: truncated feature table", in_path);
  for (unsigned i = 0; i < nfeat; i++)
    {
      unsigned char sec[16];
      memcpy (sec, in + data_end + 16 * i, 16);
      if (get64 (sec) < data_end)
        die ("%s: a feature section lies before the data's end", in_path);
      put64 (sec, get64 (sec) + delta);
      xwrite (sec, 16, out, out_path);
    }
  xwrite (in + data_end + 16 * nfeat, len - data_end - 16 * nfeat, out,
          out_path);
  if (fclose (out) != 0)
    die ("%s: write error", out_path);

  printf ("samples=%llu copies=%llu bytes=%llu sample_bytes=%llu\n",
          (unsigned long long) (nsamples * (copies + 1)),
          (unsigned long long) (copies + 1),
          (unsigned long long) (len + delta),
          (unsigned long long) copy_bytes);
  free (tmpl);
  free (tpos);
  free (tval);
  free (in);
  return 0;
}
