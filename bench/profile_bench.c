/* bench/profile_bench.c - throughput and latency of the profile library.
 *
 *   profile_bench [-r REPEAT] [-n LOOKUPS] [-s SEED] [-k] TEXT_PROFILE
 *
 * Measures, on the text profile TEXT_PROFILE (see bench/profile_gen.c):
 *
 *  (a) text parse: sfdo_profile_read() of the whole file, wall clock, with
 *      the file in the page cache (it is read once first); REPEAT runs
 *      (default 3), the median is reported, in MB/s (1 MB = 10^6 bytes);
 *  (b) binary write: sfdo_profile_save(..., SFDO_PROF_BINARY) of the parsed
 *      profile to a temporary file next to TEXT_PROFILE (REPEAT runs,
 *      median); for comparison, text write to /dev/null and a full read
 *      of the binary file;
 *  (c) lookup: sfdo_profile_open() of the binary file (the time of the open
 *      itself), then sfdo_profile_find() of LOOKUPS (default 1000) distinct
 *      random functions that exist and of LOOKUPS that do not (half a name
 *      that is nowhere, half an existing name with a file it does not
 *      have), each timed alone: median, 99th percentile and maximum in
 *      microseconds.  Every function found is checked against the parsed
 *      text profile (name, file, total, number of lines).  Also: a second
 *      pass over the same names (functions already decoded), and a cold
 *      open+find with the binary file dropped from the page cache;
 *  (d) peak RSS (getrusage) after the parse and at the end, and the growth
 *      of the resident set caused by open + lookups.
 *
 * Output: key=value lines on stdout (for scripts), a summary on stderr.
 * Exit status 1 if the library reports an error (nothing is printed on
 * stdout then), 3 if it returned a wrong function or count (all figures
 * are printed, with errors=N).  */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profiles/profile.h"

static const char *prog = "profile_bench";

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static void
die_err (const char *what, const struct sfdo_error *err)
{
  char buf[700];
  fprintf (stderr, "%s: %s: %s\n", prog, what,
           sfdo_error_format (err, buf, sizeof buf));
  exit (1);
}

static void
die_sys (const char *what, const char *path)
{
  fprintf (stderr, "%s: %s %s: %s\n", prog, what, path, strerror (errno));
  exit (1);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Sort V (N > 0) and return its quantile Q in [0, 1] (nearest rank).  */
static double
quantile (double *v, size_t n, double q)
{
  qsort (v, n, sizeof *v, cmp_double);
  size_t k = (size_t) (q * (double) (n - 1) + 0.5);
  return v[k < n ? k : n - 1];
}

static double
median (const double *v, size_t n)
{
  double *c = malloc (n * sizeof *c);
  if (!c)
    exit (2);
  memcpy (c, v, n * sizeof *c);
  double m = quantile (c, n, 0.5);
  free (c);
  return m;
}

static long
peak_rss_kb (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* The current resident set in kB from /proc/self/status: anonymous
   memory (the heap) and file pages (the mmap'd profile, counted when
   mapped, including the kernel's fault-around of neighbouring pages).  */
static void
cur_rss_kb (long *anon, long *file)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  *anon = *file = 0;
  if (!f)
    return;
  while (fgets (line, sizeof line, f))
    {
      sscanf (line, "RssAnon: %ld", anon);
      sscanf (line, "RssFile: %ld", file);
    }
  fclose (f);
}

static uint64_t
file_size (const char *path)
{
  struct stat st;
  if (stat (path, &st) != 0)
    die_sys ("cannot stat", path);
  return (uint64_t) st.st_size;
}

/* Read PATH once so that it is in the page cache; returns seconds.  */
static double
warm_file (const char *path)
{
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    die_sys ("cannot open", path);
  static char buf[1 << 20];
  double t0 = now ();
  ssize_t n;
  while ((n = read (fd, buf, sizeof buf)) > 0)
    ;
  double t = now () - t0;
  if (n < 0)
    die_sys ("cannot read", path);
  close (fd);
  return t;
}

/* Drop PATH from the page cache; returns the percentage of its pages still
   resident afterwards (-1 if unknown).  */
static double
drop_from_cache (const char *path)
{
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    die_sys ("cannot open", path);
  fdatasync (fd);
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  double pct = -1;
  struct stat st;
  if (fstat (fd, &st) == 0 && st.st_size > 0)
    {
      void *m = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
      if (m != MAP_FAILED)
        {
          size_t pg = (size_t) sysconf (_SC_PAGESIZE);
          size_t npages = ((size_t) st.st_size + pg - 1) / pg;
          unsigned char *vec = malloc (npages);
          if (vec && mincore (m, (size_t) st.st_size, vec) == 0)
            {
              size_t res = 0;
              for (size_t i = 0; i < npages; i++)
                res += vec[i] & 1;
              pct = 100.0 * (double) res / (double) npages;
            }
          free (vec);
          munmap (m, (size_t) st.st_size);
        }
    }
  close (fd);
  return pct;
}

/* A function sampled from the parsed text profile.  */
struct sample {
  char *name, *file;        /* file "" for a global function */
  uint64_t total;
  size_t nlines, ncallsites;
  uint32_t same_name;       /* top-level functions with this name */
};

static uint64_t rng_state;

static uint64_t
rnd (void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static char *
xstrdup (const char *s)
{
  char *d = strdup (s);
  if (!d)
    exit (2);
  return d;
}

struct stats { double median, p99, max, mean; };

static struct stats
stats_of (double *v, size_t n)
{
  struct stats s = { 0, 0, 0, 0 };
  if (!n)
    return s;
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += v[i];
  s.mean = sum / (double) n;
  s.median = quantile (v, n, 0.5);
  s.p99 = quantile (v, n, 0.99);
  s.max = v[n - 1];
  return s;
}

/* Look up every sample of S in P, timing each call into US (microseconds).
   Returns the number of wrong answers.  */
static size_t
lookup_hits (struct sfdo_profile *p, const struct sample *s, size_t n,
             double *us)
{
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++)
    {
      struct sfdo_error err;
      sfdo_error_clear (&err);
      double t0 = now ();
      struct sfdo_prof_func *f
        = sfdo_profile_find (p, s[i].name, s[i].file[0] ? s[i].file : NULL,
                             &err);
      us[i] = (now () - t0) * 1e6;
      if (!f)
        {
          if (err.code != SFDO_OK)
            die_err ("sfdo_profile_find", &err);
          if (wrong++ < 5)
            fprintf (stderr, "%s: BUG: function %s (file '%s') not found "
                     "in the binary profile\n", prog, s[i].name, s[i].file);
          continue;
        }
      const char *fn = sfdo_profile_str (p, f->name);
      const char *ff = sfdo_profile_str (p, f->file);
      if (strcmp (fn, s[i].name) != 0 || strcmp (ff, s[i].file) != 0
          || f->total != s[i].total || f->nlines != s[i].nlines
          || f->ncallsites != s[i].ncallsites)
        {
          if (wrong++ < 5)
            fprintf (stderr, "%s: BUG: lookup of %s (file '%s') returned %s "
                     "(file '%s') total %" PRIu64 " lines %zu callsites %zu;"
                     " text had total %" PRIu64 " lines %zu callsites %zu\n",
                     prog, s[i].name, s[i].file, fn, ff, f->total, f->nlines,
                     f->ncallsites, s[i].total, s[i].nlines,
                     s[i].ncallsites);
        }
    }
  return wrong;
}

static void
usage (void)
{
  fprintf (stderr, "usage: %s [-r REPEAT] [-n LOOKUPS] [-s SEED] [-k] "
           "TEXT_PROFILE\n", prog);
  exit (2);
}

int
main (int argc, char **argv)
{
  int repeat = 3, keep = 0;
  long nlookups = 1000;
  uint64_t seed = 12345;
  int opt;
  while ((opt = getopt (argc, argv, "r:n:s:k")) != -1)
    switch (opt)
      {
      case 'r': repeat = atoi (optarg); break;
      case 'n': nlookups = atol (optarg); break;
      case 's': seed = strtoull (optarg, NULL, 10); break;
      case 'k': keep = 1; break;
      default: usage ();
      }
  if (optind + 1 != argc || repeat < 1 || nlookups < 1)
    usage ();
  const char *text_path = argv[optind];
  rng_state = seed;
  struct sfdo_error err;

  /* --- (a) text parse ------------------------------------------------------ */
  uint64_t text_bytes = file_size (text_path);
  double warm_s = warm_file (text_path);
  warm_s = warm_file (text_path);   /* the second read is from the cache */
  double *parse_s = calloc ((size_t) repeat, sizeof *parse_s);
  double *free_s = calloc ((size_t) repeat, sizeof *free_s);
  struct sfdo_profile *p = NULL;
  for (int k = 0; k < repeat; k++)
    {
      if (p)
        {
          double t0 = now ();
          sfdo_profile_free (p);
          free_s[k - 1] = now () - t0;
          malloc_trim (0);
        }
      sfdo_error_clear (&err);
      double t0 = now ();
      if (sfdo_profile_read (text_path, &p, &err) != SFDO_OK)
        die_err ("sfdo_profile_read", &err);
      parse_s[k] = now () - t0;
    }
  long parse_rss = peak_rss_kb ();
  size_t nfuncs = sfdo_profile_nfuncs (p);
  uint64_t total = sfdo_profile_total (p);
  double parse_med = median (parse_s, (size_t) repeat);

  /* How many top-level functions share each name (static functions of
     different files may): find() must tell them apart by file.  */
  uint32_t max_id = 0;
  for (size_t i = 0; i < nfuncs; i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (p, i, &err);
      if (f && f->name > max_id)
        max_id = f->name;
    }
  uint32_t *same = calloc ((size_t) max_id + 1, sizeof *same);
  if (!same)
    exit (2);
  for (size_t i = 0; i < nfuncs; i++)
    {
      struct sfdo_prof_func *f = sfdo_profile_func (p, i, &err);
      if (f)
        same[f->name]++;
    }
  size_t shared_funcs = 0;
  uint32_t max_same = 0;
  for (size_t id = 0; id <= max_id; id++)
    {
      if (same[id] > 1)
        shared_funcs += same[id];
      if (same[id] > max_same)
        max_same = same[id];
    }

  /* Sample distinct functions uniformly (partial Fisher-Yates).  */
  size_t nsamp = (size_t) nlookups < nfuncs ? (size_t) nlookups : nfuncs;
  size_t *idx = malloc (nfuncs * sizeof *idx + 1);
  struct sample *samp = calloc (nsamp + 1, sizeof *samp);
  if (!idx || !samp)
    exit (2);
  for (size_t i = 0; i < nfuncs; i++)
    idx[i] = i;
  for (size_t i = 0; i < nsamp; i++)
    {
      size_t j = i + (size_t) (rnd () % (nfuncs - i));
      size_t t = idx[i];
      idx[i] = idx[j];
      idx[j] = t;
      sfdo_error_clear (&err);
      struct sfdo_prof_func *f = sfdo_profile_func (p, idx[i], &err);
      if (!f)
        die_err ("sfdo_profile_func", &err);
      samp[i].name = xstrdup (sfdo_profile_str (p, f->name));
      samp[i].file = xstrdup (sfdo_profile_str (p, f->file));
      samp[i].total = f->total;
      samp[i].nlines = f->nlines;
      samp[i].ncallsites = f->ncallsites;
      samp[i].same_name = same[f->name];
    }
  free (idx);
  free (same);

  /* --- (b) binary write ---------------------------------------------------- */
  char bin_path[4096];
  snprintf (bin_path, sizeof bin_path, "%s.bench-%ld.sfdob", text_path,
            (long) getpid ());
  double *write_s = calloc ((size_t) repeat, sizeof *write_s);
  for (int k = 0; k < repeat; k++)
    {
      sfdo_error_clear (&err);
      double t0 = now ();
      if (sfdo_profile_save (p, bin_path, SFDO_PROF_BINARY, &err) != SFDO_OK)
        die_err ("sfdo_profile_save (binary)", &err);
      write_s[k] = now () - t0;
    }
  double write_med = median (write_s, (size_t) repeat);
  uint64_t bin_bytes = file_size (bin_path);

  FILE *devnull = fopen ("/dev/null", "w");
  if (!devnull)
    die_sys ("cannot open", "/dev/null");
  sfdo_error_clear (&err);
  double t0 = now ();
  if (sfdo_profile_write (p, devnull, SFDO_PROF_TEXT, "/dev/null", &err)
      != SFDO_OK)
    die_err ("sfdo_profile_write (text)", &err);
  fflush (devnull);
  double write_text_s = now () - t0;
  fclose (devnull);

  t0 = now ();
  sfdo_profile_free (p);
  double last_free_s = now () - t0;
  if (repeat > 1)
    free_s[repeat - 1] = last_free_s;
  else
    free_s[0] = last_free_s;
  p = NULL;
  malloc_trim (0);

  /* Full (eager) read of the binary file, for comparison with text.  */
  double *readbin_s = calloc ((size_t) repeat, sizeof *readbin_s);
  size_t bin_nfuncs = 0;
  for (int k = 0; k < repeat; k++)
    {
      sfdo_error_clear (&err);
      t0 = now ();
      if (sfdo_profile_read (bin_path, &p, &err) != SFDO_OK)
        die_err ("sfdo_profile_read (binary)", &err);
      readbin_s[k] = now () - t0;
      bin_nfuncs = sfdo_profile_nfuncs (p);
      sfdo_profile_free (p);
      p = NULL;
      malloc_trim (0);
    }
  double readbin_med = median (readbin_s, (size_t) repeat);
  size_t wrong = 0;
  if (bin_nfuncs != nfuncs)
    {
      fprintf (stderr, "%s: BUG: binary profile has %zu functions, text "
               "has %zu\n", prog, bin_nfuncs, nfuncs);
      wrong++;
    }

  /* --- (c) open and lookups ------------------------------------------------ */
  long anon_before, file_before, anon_after, file_after;
  cur_rss_kb (&anon_before, &file_before);
  enum { NOPEN = 5 };
  double open_us[NOPEN];
  for (int k = 0; k < NOPEN; k++)
    {
      if (p)
        sfdo_profile_free (p);
      sfdo_error_clear (&err);
      t0 = now ();
      if (sfdo_profile_open (bin_path, &p, &err) != SFDO_OK)
        die_err ("sfdo_profile_open", &err);
      open_us[k] = (now () - t0) * 1e6;
    }
  double open_first_us = open_us[0];
  double open_med_us = median (open_us, NOPEN);
  if (sfdo_profile_nfuncs (p) != nfuncs)
    {
      fprintf (stderr, "%s: BUG: opened binary profile has %zu functions, "
               "text has %zu\n", prog, sfdo_profile_nfuncs (p), nfuncs);
      wrong++;
    }

  double *hit_us = calloc (nsamp + 1, sizeof *hit_us);
  double *again_us = calloc (nsamp + 1, sizeof *again_us);
  double *miss_us = calloc (nsamp + 1, sizeof *miss_us);
  wrong += lookup_hits (p, samp, nsamp, hit_us);

  /* Absent keys: half a name that is nowhere, half an existing name with
     a file that it does not have (same hash, different key).  */
  size_t miss_found = 0;
  for (size_t i = 0; i < nsamp; i++)
    {
      char name[8192];
      const char *file = NULL;
      if (i % 2 == 0)
        snprintf (name, sizeof name, "%s.sfdo_bench_absent", samp[i].name);
      else
        {
          snprintf (name, sizeof name, "%s", samp[i].name);
          file = "/nonexistent/sfdo_bench_absent.c";
        }
      sfdo_error_clear (&err);
      t0 = now ();
      struct sfdo_prof_func *f = sfdo_profile_find (p, name, file, &err);
      miss_us[i] = (now () - t0) * 1e6;
      if (err.code != SFDO_OK)
        die_err ("sfdo_profile_find (absent)", &err);
      if (f && miss_found++ < 5)
        fprintf (stderr, "%s: BUG: absent function %s (file '%s') found\n",
                 prog, name, file ? file : "");
    }
  wrong += miss_found;
  wrong += lookup_hits (p, samp, nsamp, again_us);
  cur_rss_kb (&anon_after, &file_after);
  sfdo_profile_free (p);
  p = NULL;

  /* Cold: the binary file evicted from the page cache before each open.  */
  enum { NCOLD = 10 };
  double cold_us[NCOLD], cold_resident = 0;
  for (int k = 0; k < NCOLD; k++)
    {
      double pct = drop_from_cache (bin_path);
      if (pct > cold_resident)
        cold_resident = pct;
      const struct sample *s = &samp[(size_t) (rnd () % nsamp)];
      sfdo_error_clear (&err);
      t0 = now ();
      if (sfdo_profile_open (bin_path, &p, &err) != SFDO_OK)
        die_err ("sfdo_profile_open (cold)", &err);
      struct sfdo_prof_func *f
        = sfdo_profile_find (p, s->name, s->file[0] ? s->file : NULL, &err);
      cold_us[k] = (now () - t0) * 1e6;
      if (!f)
        {
          if (err.code != SFDO_OK)
            die_err ("sfdo_profile_find (cold)", &err);
          wrong++;
        }
      sfdo_profile_free (p);
      p = NULL;
    }

  /* Present lookups split by whether the name is unique.  */
  double *uniq_us = calloc (nsamp + 1, sizeof *uniq_us);
  double *shared_us = calloc (nsamp + 1, sizeof *shared_us);
  size_t nuniq = 0, nshared = 0;
  uint32_t samp_max_same = 0;
  for (size_t i = 0; i < nsamp; i++)
    {
      if (samp[i].same_name > 1)
        shared_us[nshared++] = hit_us[i];
      else
        uniq_us[nuniq++] = hit_us[i];
      if (samp[i].same_name > samp_max_same)
        samp_max_same = samp[i].same_name;
    }
  struct stats uniq = stats_of (uniq_us, nuniq);
  struct stats shared = stats_of (shared_us, nshared);
  struct stats hit = stats_of (hit_us, nsamp);
  struct stats again = stats_of (again_us, nsamp);
  struct stats miss = stats_of (miss_us, nsamp);
  struct stats cold = stats_of (cold_us, NCOLD);
  long peak_rss = peak_rss_kb ();

  /* --- report ---------------------------------------------------------------- */
  double mb = (double) text_bytes / 1e6;
  printf ("profile=%s\n", text_path);
  printf ("text_bytes=%" PRIu64 "\n", text_bytes);
  printf ("funcs=%zu\n", nfuncs);
  printf ("funcs_sharing_a_name=%zu\n", shared_funcs);
  printf ("max_funcs_per_name=%u\n", max_same);
  printf ("profile_total=%" PRIu64 "\n", total);
  printf ("page_cache_read_mb_s=%.1f\n", mb / warm_s);
  printf ("parse_repeat=%d\n", repeat);
  printf ("parse_s_all=");
  for (int k = 0; k < repeat; k++)
    printf ("%s%.3f", k ? "," : "", parse_s[k]);
  printf ("\nparse_s=%.3f\n", parse_med);
  printf ("parse_mb_s=%.1f\n", mb / parse_med);
  printf ("parse_peak_rss_kb=%ld\n", parse_rss);
  printf ("free_s=%.3f\n", median (free_s, (size_t) repeat));
  printf ("write_binary_s_all=");
  for (int k = 0; k < repeat; k++)
    printf ("%s%.3f", k ? "," : "", write_s[k]);
  printf ("\nwrite_binary_s=%.3f\n", write_med);
  printf ("binary_bytes=%" PRIu64 "\n", bin_bytes);
  printf ("write_text_s=%.3f\n", write_text_s);
  printf ("read_binary_s=%.3f\n", readbin_med);
  printf ("open_first_us=%.1f\n", open_first_us);
  printf ("open_us=%.1f\n", open_med_us);
  printf ("lookup_n=%zu\n", nsamp);
  printf ("lookup_hit_median_us=%.3f\n", hit.median);
  printf ("lookup_hit_mean_us=%.3f\n", hit.mean);
  printf ("lookup_hit_p99_us=%.3f\n", hit.p99);
  printf ("lookup_hit_max_us=%.3f\n", hit.max);
  printf ("lookup_unique_n=%zu\n", nuniq);
  printf ("lookup_unique_median_us=%.3f\n", uniq.median);
  printf ("lookup_unique_p99_us=%.3f\n", uniq.p99);
  printf ("lookup_unique_max_us=%.3f\n", uniq.max);
  printf ("lookup_shared_n=%zu\n", nshared);
  printf ("lookup_shared_median_us=%.3f\n", shared.median);
  printf ("lookup_shared_p99_us=%.3f\n", shared.p99);
  printf ("lookup_shared_max_us=%.3f\n", shared.max);
  printf ("lookup_shared_max_same_name=%u\n", samp_max_same);
  printf ("lookup_miss_median_us=%.3f\n", miss.median);
  printf ("lookup_miss_p99_us=%.3f\n", miss.p99);
  printf ("lookup_miss_max_us=%.3f\n", miss.max);
  printf ("lookup_again_median_us=%.3f\n", again.median);
  printf ("lookup_again_max_us=%.3f\n", again.max);
  printf ("lookup_rss_anon_growth_kb=%ld\n", anon_after - anon_before);
  printf ("lookup_rss_file_growth_kb=%ld\n", file_after - file_before);
  printf ("cold_open_find_median_us=%.1f\n", cold.median);
  printf ("cold_open_find_max_us=%.1f\n", cold.max);
  printf ("cold_resident_pct=%.1f\n", cold_resident);
  printf ("peak_rss_kb=%ld\n", peak_rss);
  printf ("errors=%zu\n", wrong);
  fflush (stdout);

  fprintf (stderr,
           "%s: %s: %.1f MB of text, %zu functions\n"
           "  text parse    %8.3f s  (median of %d)  %7.1f MB/s"
           "   [page-cache read %.0f MB/s]\n"
           "  binary write  %8.3f s  (median of %d)  -> %.1f MB"
           " (%.0f%% of text)\n"
           "  text write    %8.3f s  (to /dev/null)\n"
           "  binary read   %8.3f s  (all functions decoded)\n"
           "  open          %8.1f us (first %.1f us)\n"
           "  find, present %8.3f us median, %.3f us p99, %.3f us max"
           " (%zu lookups)\n"
           "    unique name %8.3f us median, %.3f us p99, %.3f us max"
           " (%zu)\n"
           "    shared name %8.3f us median, %.3f us p99, %.3f us max"
           " (%zu; up to %u functions of that name)\n"
           "  find, absent  %8.3f us median, %.3f us p99, %.3f us max\n"
           "  find, again   %8.3f us median (already decoded)\n"
           "  cold open+find%8.1f us median of %d, %.1f us max"
           " (page cache dropped; %.0f%% stayed resident)\n"
           "  peak RSS      %8.1f MB after parse (%.1fx the text),"
           " %.1f MB at end\n"
           "  open+lookups grew RSS by %ld kB of heap, %ld kB of mapped"
           " file\n"
           "  %zu functions share their name with another; at most %u"
           " share one name\n"
           "  %s\n",
           prog, text_path, mb, nfuncs, parse_med, repeat, mb / parse_med,
           mb / warm_s, write_med, repeat, (double) bin_bytes / 1e6,
           100.0 * (double) bin_bytes / (double) text_bytes, write_text_s,
           readbin_med, open_med_us, open_first_us, hit.median, hit.p99,
           hit.max, nsamp, uniq.median, uniq.p99, uniq.max, nuniq,
           shared.median, shared.p99, shared.max, nshared, samp_max_same,
           miss.median, miss.p99, miss.max, again.median,
           cold.median, NCOLD, cold.max, cold_resident,
           (double) parse_rss / 1024.0,
           (double) parse_rss * 1024.0 / (double) text_bytes,
           (double) peak_rss / 1024.0, anon_after - anon_before,
           file_after - file_before, shared_funcs, max_same,
           wrong ? "ERRORS: the library returned wrong results (see above)"
                 : "all lookups returned the right function");

  if (!keep)
    unlink (bin_path);
  for (size_t i = 0; i < nsamp; i++)
    {
      free (samp[i].name);
      free (samp[i].file);
    }
  free (samp);
  free (hit_us);
  free (uniq_us);
  free (shared_us);
  free (again_us);
  free (miss_us);
  free (parse_s);
  free (free_s);
  free (write_s);
  free (readbin_s);
  return wrong ? 3 : 0;
}
