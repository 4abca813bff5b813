/* recorder/procsynth.c - records synthesized from /proc, the machine's
   description, and build-ids (procsynth.h).  */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../common/xalloc.h"
#include "procsynth.h"

#ifndef SFDO_VERSION              /* the Makefile defines it */
#define SFDO_VERSION "unknown"
#endif

#define MISC_USER 2             /* PERF_RECORD_MISC_USER */
#define NT_GNU_BUILD_ID_TYPE 3

/* The numeric entries of directory PATH, malloc'd.  */
static pid_t *
numeric_entries (const char *path, size_t *n)
{
  pid_t *ids = NULL;
  size_t cap = 0;
  *n = 0;
  DIR *d = opendir (path);
  if (!d)
    return NULL;
  struct dirent *e;
  while ((e = readdir (d)))
    if (isdigit ((unsigned char) e->d_name[0]))
      {
        sfdo_xgrow (&ids, &cap, *n + 1, sizeof *ids);
        ids[(*n)++] = (pid_t) atoi (e->d_name);
      }
  closedir (d);
  return ids;
}

pid_t *
sfdo_rec_threads (pid_t pid, size_t *n)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  return numeric_entries (path, n);
}

pid_t *
sfdo_rec_all_pids (size_t *n)
{
  return numeric_entries ("/proc", n);
}

/* The first line of file PATH into BUF, without its newline; 0 if it
   cannot be read.  */
static int
read_line (const char *path, char *buf, size_t size)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  int ok = fgets (buf, (int) size, f) != NULL;
  fclose (f);
  if (ok)
    buf[strcspn (buf, "\n")] = 0;
  return ok;
}

static enum sfdo_errc
synth_comms (struct sfdo_perfdata_writer *w, pid_t pid, uint64_t id,
             struct sfdo_error *err)
{
  size_t n;
  pid_t *tids = sfdo_rec_threads (pid, &n);
  enum sfdo_errc rc = SFDO_OK;
  for (size_t i = 0; !rc && i < n; i++)
    {
      char path[96], comm[64];
      snprintf (path, sizeof path, "/proc/%d/task/%d/comm", (int) pid,
                (int) tids[i]);
      if (!read_line (path, comm, sizeof comm))
        continue;
      struct sfdo_perfdata_comm c = { (uint32_t) pid, (uint32_t) tids[i],
                                      comm };
      struct sfdo_perfdata_sample_id sid = { 0, (uint32_t) pid,
                                             (uint32_t) tids[i], 0, id, 0, 0 };
      rc = sfdo_perfdata_write_comm (w, 0, &c, &sid, err);
    }
  free (tids);
  return rc;
}

/* One line of /proc/PID/maps into M; returns whether it is an executable
   mapping.  */
static int
parse_map (char *line, pid_t pid, struct sfdo_perfdata_mmap *m)
{
  unsigned long start, end, pgoff, ino;
  unsigned maj, min;
  char perms[8];
  int name_at = 0;
  if (sscanf (line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms,
              &pgoff, &maj, &min, &ino, &name_at) < 7
      || !strchr (perms, 'x'))
    return 0;
  char *name = line + name_at;
  name[strcspn (name, "\n")] = 0;
  memset (m, 0, sizeof *m);
  m->pid = m->tid = (uint32_t) pid;
  m->addr = start;
  m->len = end - start;
  m->pgoff = pgoff;
  m->maj = maj;
  m->min = min;
  m->ino = ino;
  m->prot = (perms[0] == 'r' ? PROT_READ : 0)
            | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
  m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
  m->filename = *name ? name : "//anon";
  return 1;
}

static enum sfdo_errc
synth_maps (struct sfdo_perfdata_writer *w, pid_t pid, uint64_t id,
            struct sfdo_error *err)
{
  char path[64], line[4096 + 256];
  snprintf (path, sizeof path, "/proc/%d/maps", (int) pid);
  FILE *f = fopen (path, "r");
  enum sfdo_errc rc = SFDO_OK;
  while (!rc && f && fgets (line, sizeof line, f))
    {
      struct sfdo_perfdata_mmap m;
      if (!parse_map (line, pid, &m))
        continue;
      struct sfdo_perfdata_sample_id sid = { 0, (uint32_t) pid,
                                             (uint32_t) pid, 0, id, 0, 0 };
      rc = sfdo_perfdata_write_mmap2 (w, MISC_USER, &m, &sid, err);
    }
  if (f)
    fclose (f);
  return rc;
}

enum sfdo_errc
sfdo_rec_synth_process (struct sfdo_perfdata_writer *w, pid_t pid,
                        uint64_t id, struct sfdo_error *err)
{
  enum sfdo_errc rc = synth_comms (w, pid, id, err);
  return rc ? rc : synth_maps (w, pid, id, err);
}

/* --- the machine ---------------------------------------------------------- */

/* Value of the first "KEY\t: value" line of /proc/cpuinfo into BUF.  */
static int
cpuinfo_value (const char *key, char *buf, size_t size)
{
  FILE *f = fopen ("/proc/cpuinfo", "r");
  char line[1024];
  int found = 0;
  size_t klen = strlen (key);
  while (!found && f && fgets (line, sizeof line, f))
    {
      char *colon = strchr (line, ':');
      if (!colon || strncmp (line, key, klen)
          || (line[klen] != '\t' && line[klen] != ' ' && line[klen] != ':'))
        continue;
      colon += 1 + (colon[1] == ' ');
      colon[strcspn (colon, "\n")] = 0;
      snprintf (buf, size, "%s", colon);
      found = 1;
    }
  if (f)
    fclose (f);
  return found;
}

static uint64_t
total_mem_kb (void)
{
  FILE *f = fopen ("/proc/meminfo", "r");
  char line[256];
  unsigned long long kb = 0;
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "MemTotal: %llu kB", &kb) == 1)
      break;
  if (f)
    fclose (f);
  return kb;
}

void
sfdo_rec_host_info (struct sfdo_perfdata_host *host, int argc,
                    const char *const *argv)
{
  static struct utsname u;
  static char cpudesc[256], cpuid[128], version[64];
  char vendor[64] = "", family[16] = "0", model[16] = "0", stepping[16] = "0";
  memset (host, 0, sizeof *host);
  if (uname (&u) == 0)
    {
      host->hostname = u.nodename;
      host->osrelease = u.release;
      host->arch = u.machine;
    }
  snprintf (version, sizeof version, "sfdo-record %s", SFDO_VERSION);
  host->version = version;
  if (cpuinfo_value ("model name", cpudesc, sizeof cpudesc))
    host->cpudesc = cpudesc;
  if (cpuinfo_value ("vendor_id", vendor, sizeof vendor))
    {
      cpuinfo_value ("cpu family", family, sizeof family);
      cpuinfo_value ("model", model, sizeof model);
      cpuinfo_value ("stepping", stepping, sizeof stepping);
      snprintf (cpuid, sizeof cpuid, "%s,%s,%s,%s", vendor, family, model,
                stepping);
      host->cpuid = cpuid;
    }
  long conf = sysconf (_SC_NPROCESSORS_CONF);
  long onln = sysconf (_SC_NPROCESSORS_ONLN);
  host->nr_cpus_avail = (uint32_t) (conf > 0 ? conf : 1);
  host->nr_cpus_online = (uint32_t) (onln > 0 ? onln : 1);
  host->total_mem_kb = total_mem_kb ();
  host->argc = argc;
  host->argv = argv;
}

/* --- build-ids ------------------------------------------------------------ */

static size_t
note_build_id (Elf_Data *data, uint8_t id[20])
{
  GElf_Nhdr nh;
  size_t off = 0, name_off, desc_off, next;
  while ((next = gelf_getnote (data, off, &nh, &name_off, &desc_off)) > 0)
    {
      if (nh.n_type == NT_GNU_BUILD_ID_TYPE && nh.n_namesz == 4
          && !memcmp ((char *) data->d_buf + name_off, "GNU", 4)
          && nh.n_descsz > 0 && nh.n_descsz <= 20)
        {
          memcpy (id, (char *) data->d_buf + desc_off, nh.n_descsz);
          return nh.n_descsz;
        }
      off = next;
    }
  return 0;
}

size_t
sfdo_rec_elf_build_id (const char *path, uint8_t id[20])
{
  if (elf_version (EV_CURRENT) == EV_NONE)
    return 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  Elf *e = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  size_t size = 0;
  Elf_Scn *scn = NULL;
  while (e && !size && (scn = elf_nextscn (e, scn)))
    {
      GElf_Shdr sh;
      Elf_Data *data;
      if (gelf_getshdr (scn, &sh) && sh.sh_type == SHT_NOTE
          && (data = elf_getdata (scn, NULL)))
        size = note_build_id (data, id);
    }
  if (e)
    elf_end (e);
  close (fd);
  return size;
}

size_t
sfdo_rec_add_build_ids (struct sfdo_perfdata_writer *w, int all_mapped)
{
  size_t added = 0, n = sfdo_perfdata_writer_nmapped (w);
  sfdo_perfdata_writer_count_samples (w);
  for (size_t i = 0; i < n; i++)
    {
      const struct sfdo_perfdata_mapped *m = sfdo_perfdata_writer_mapped (w, i);
      const char *name = m->filename;
      uint8_t id[20];
      size_t size;
      struct stat st;
      /* As perf record: only files that were sampled.  */
      if ((!m->samples && !all_mapped) || name[0] != '/'
          || strstr (name, " (deleted)"))
        continue;
      /* Another file under that name (replaced since, or in another
         mount namespace) would give a wrong build-id: none is better.  */
      if (m->ino && (stat (name, &st) != 0 || (uint64_t) st.st_ino != m->ino))
        continue;
      if ((size = sfdo_rec_elf_build_id (name, id)) == 0)
        continue;
      if (!sfdo_perfdata_writer_add_build_id (w, -1, MISC_USER, id,
                                              (uint8_t) size, name, NULL))
        added++;
    }
  return added;
}
