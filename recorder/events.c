/* recorder/events.c - detecting the PMU, encoding event names through
   libpfm4 (perf's software events also without it: events_sw.c),
   listing events (events.h).  The choice itself is in events_choose.c.  */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "events.h"

#define PMU_DIR "/sys/bus/event_source/devices"
#define CPU_PMU PMU_DIR "/cpu"
#define PERF_PARANOID "/proc/sys/kernel/perf_event_paranoid"

/* pfm_initialize()'s result: libpfm4 wants it called once.  */
static int
pfm_init_rc (void)
{
  static int tried, rc;
  if (!tried)
    {
      rc = pfm_initialize ();
      tried = 1;
    }
  return rc;
}

static int
pfm_ready (void)
{
  return pfm_init_rc () == PFM_SUCCESS;
}

/* The unsigned number in file PATH, or 0.  */
static unsigned long
read_number (const char *path)
{
  FILE *f = fopen (path, "r");
  unsigned long v = 0;
  if (f)
    {
      if (fscanf (f, "%lu", &v) != 1)
        v = 0;
      fclose (f);
    }
  return v;
}

/* Vendor, family, model and the AMD branch-sampling flags from
   /proc/cpuinfo (its first processor).  */
static void
read_cpuinfo (struct sfdo_rec_caps *caps)
{
  FILE *f = fopen ("/proc/cpuinfo", "r");
  char line[4096];
  while (f && fgets (line, sizeof line, f))
    {
      if (line[0] == '\n')
        break;
      if (!strncmp (line, "vendor_id", 9))
        caps->vendor = strstr (line, "GenuineIntel") ? SFDO_REC_VENDOR_INTEL
                       : strstr (line, "AuthenticAMD") ? SFDO_REC_VENDOR_AMD
                       : SFDO_REC_VENDOR_OTHER;
      else if (!strncmp (line, "cpu family", 10))
        caps->family = atoi (strchr (line, ':') ? strchr (line, ':') + 1 : "0");
      else if (!strncmp (line, "model\t", 6))
        caps->model = atoi (strchr (line, ':') ? strchr (line, ':') + 1 : "0");
      else if (!strncmp (line, "flags", 5))
        {
          caps->amd_lbr_v2 = strstr (line, " amd_lbr_v2") != NULL;
          caps->amd_brs = strstr (line, " brs") != NULL;
        }
    }
  if (f)
    fclose (f);
}

static int
open_event (struct perf_event_attr *a)
{
  return (int) syscall (SYS_perf_event_open, a, 0, -1, -1, 0);
}

/* Whether a user-space hardware instruction counter opens on this task:
   the only proof the PMU is there (a VM may list none, or fail later).  */
static int
probe_hardware (int *why)
{
  struct perf_event_attr a;
  memset (&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_INSTRUCTIONS;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  int fd = open_event (&a);
  *why = fd < 0 ? errno : 0;
  if (fd >= 0)
    close (fd);
  return fd >= 0;
}

void
sfdo_rec_detect (struct sfdo_rec_caps *caps)
{
  memset (caps, 0, sizeof *caps);
  read_cpuinfo (caps);
  caps->hw_events = probe_hardware (&caps->hw_errno);
  caps->lbr_depth = (unsigned) read_number (CPU_PMU "/caps/branches");
  caps->max_precise = (int) read_number (CPU_PMU "/caps/max_precise");
  if (caps->vendor != SFDO_REC_VENDOR_AMD)
    caps->amd_lbr_v2 = caps->amd_brs = 0;
  else
    caps->lbr_depth = 0;      /* AMD's branch sampling: the cpuinfo flags */
}

/* Split perf's modifiers off NAME ("cycles:u", "cpu-clock:ppp"): the
   part before the last colon when what follows is only [ukhpPG]
   letters.  Returns the number of p's, or -1 when there is no such
   suffix.  */
static int
perf_modifiers (const char *name, char *base, size_t size)
{
  const char *colon = strrchr (name, ':');
  if (!colon || !colon[1] || (size_t) (colon - name) >= size)
    return -1;
  int p = 0;
  for (const char *s = colon + 1; *s; s++)
    if (*s == 'p')
      p++;
    else if (!strchr ("ukhPG", *s))
      return -1;
  memcpy (base, name, (size_t) (colon - name));
  base[colon - name] = 0;
  return p;
}

static int
pfm_encode (const char *name, struct perf_event_attr *attr, char **fstr)
{
  pfm_perf_encode_arg_t arg;
  memset (&arg, 0, sizeof arg);
  memset (attr, 0, sizeof *attr);
  /* Our size, so that libpfm4 fills the whole struct (with 0 it takes
     perf_event's first 64-byte layout).  */
  attr->size = sizeof *attr;
  arg.attr = attr;
  arg.size = sizeof arg;
  arg.fstr = fstr;
  return pfm_get_os_event_encoding (name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
                                    &arg);
}

/* libpfm4's encoding of NAME, or of BARE (NAME without perf's modifiers)
   when it has some (P >= 0) and libpfm4 does not take them.  */
static int
pfm_lookup (const char *name, const char *bare, int p,
            struct perf_event_attr *attr)
{
  if (!pfm_ready ())
    return pfm_init_rc ();
  char *fstr = NULL;
  int rc = pfm_encode (name, attr, &fstr);
  free (fstr);
  if (rc != PFM_SUCCESS && p >= 0)
    {
      fstr = NULL;
      rc = pfm_encode (bare, attr, &fstr);
      free (fstr);
    }
  return rc;
}

/* Whether libpfm4 encodes for perf_event at all.  It turns that layer on
   only when it detects the kernel's perf_event (4.13.0: by
   /proc/sys/kernel/perf_event_paranoid; later snapshots also need a PMU
   listed under /sys/bus/event_source/devices).  When it is off, every
   name fails with PFM_ERR_NOTSUPP before it is looked at, so a name no
   PMU has tells the two apart: PFM_ERR_NOTFOUND when the layer is on.  */
static int
pfm_perf_layer_on (void)
{
  struct perf_event_attr a;
  char *fstr = NULL;
  int rc = pfm_encode ("SFDO_RECORD_NO_SUCH_EVENT", &a, &fstr);
  free (fstr);
  return rc != PFM_ERR_NOTSUPP;
}

/* Whether DIR has an entry besides . and ..  */
static int
dir_has_entries (const char *dir)
{
  DIR *d = opendir (dir);
  struct dirent *e;
  int found = 0;
  while (d && !found && (e = readdir (d)))
    found = strcmp (e->d_name, ".") && strcmp (e->d_name, "..");
  if (d)
    closedir (d);
  return found;
}

/* Why libpfm4's perf_event layer is off, as far as we can tell from
   what it looks at.  */
static const char *
why_perf_layer_off (void)
{
  if (access (PERF_PARANOID, F_OK))
    return "no " PERF_PARANOID " (is /proc mounted?)";
  if (!dir_has_entries (PMU_DIR))
    return "no PMU under " PMU_DIR " (is /sys mounted?), which libpfm4"
           " after 4.13.0 requires";
  return "it does not detect the kernel's perf_event";
}

/* ATTR for perf's software event BARE, without libpfm4.  Returns 0 when
   BARE is not one.  */
static int
software_attr (const char *bare, struct perf_event_attr *attr)
{
  uint64_t config;
  if (!sfdo_rec_software_event (bare, &config))
    return 0;
  memset (attr, 0, sizeof *attr);
  attr->type = PERF_TYPE_SOFTWARE;
  attr->config = config;
  /* As libpfm4 and perf set it: the same attr whoever encoded it.  */
  attr->exclude_guest = 1;
  return 1;
}

/* The error for NAME, which neither libpfm4 (RC) nor the software table
   knows.  Kept under sfdo_error's 256 bytes.  */
static enum sfdo_errc
unknown_event (const char *name, int rc, struct sfdo_error *err)
{
  if (!pfm_ready ())
    return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                           "libpfm4 does not initialise here (%s), so only"
                           " perf's software events (cpu-clock, task-clock..."
                           ") can be named", pfm_strerror (rc));
  if (rc == PFM_ERR_NOTSUPP && !pfm_perf_layer_on ())
    return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                           "libpfm4 cannot look up event names here: %s;"
                           " only perf's software events (cpu-clock,"
                           " task-clock...) work without it",
                           why_perf_layer_off ());
  return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                         "unknown event (libpfm4: %s); sfdo-record"
                         " --list-events lists the events of this PMU",
                         pfm_strerror (rc));
}

enum sfdo_errc
sfdo_rec_encode (const char *name, int precise, struct perf_event_attr *attr,
                 char *canon, size_t canon_size, struct sfdo_error *err)
{
  char base[256];
  int p = perf_modifiers (name, base, sizeof base);
  const char *bare = p >= 0 ? base : name;
  /* libpfm4 first: it knows every name, where it can encode at all.  */
  int rc = pfm_lookup (name, bare, p, attr);
  if (rc != PFM_SUCCESS && !software_attr (bare, attr))
    return unknown_event (name, rc, err);
  snprintf (canon, canon_size, "%s", bare);
  attr->size = sizeof *attr;
  attr->exclude_kernel = 1;
  attr->exclude_hv = 1;
  attr->exclude_user = 0;
  if (p > (int) attr->precise_ip)
    attr->precise_ip = (unsigned) (p > 3 ? 3 : p);
  if (precise > (int) attr->precise_ip)
    attr->precise_ip = (unsigned) precise;
  return SFDO_OK;
}

static void
list_pmu_events (FILE *out, pfm_pmu_t pmu, const pfm_pmu_info_t *pinfo)
{
  for (int i = pinfo->first_event; i != -1; i = pfm_get_event_next (i))
    {
      pfm_event_info_t e;
      memset (&e, 0, sizeof e);
      e.size = sizeof e;
      if (pfm_get_event_info (i, PFM_OS_PERF_EVENT_EXT, &e) != PFM_SUCCESS)
        continue;
      if ((pfm_pmu_t) e.pmu != pmu)
        continue;
      fprintf (out, "  %s::%s\n", pinfo->name, e.name);
    }
}

void
sfdo_rec_list_events (FILE *out)
{
  sfdo_rec_list_software (out);
  if (!pfm_ready ())
    {
      fprintf (out, "libpfm4 does not initialise here (%s): only the"
                    " software events above can be named\n",
               pfm_strerror (pfm_init_rc ()));
      return;
    }
  if (!pfm_perf_layer_on ())
    {
      fprintf (out, "libpfm4 cannot look up event names here: %s; only"
                    " the software events above can be named\n",
               why_perf_layer_off ());
      return;
    }
  pfm_pmu_t pmu;
  int hardware = 0;
  pfm_for_all_pmus (pmu)
  {
    pfm_pmu_info_t pinfo;
    memset (&pinfo, 0, sizeof pinfo);
    pinfo.size = sizeof pinfo;
    if (pfm_get_pmu_info (pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
      continue;
    hardware |= pinfo.type == PFM_PMU_TYPE_CORE;
    fprintf (out, "%s (%s), %d events:\n", pinfo.name, pinfo.desc,
             pinfo.nevents);
    list_pmu_events (out, pmu, &pinfo);
  }
  fprintf (out, "perf's generic hardware names work too: cycles,"
                " instructions, branches, branch-misses...; :u, :p, :pp"
                " suffixes as in perf\n");
  if (!hardware)
    fprintf (out, "note: libpfm4 finds no hardware (core) PMU here: only"
                  " the software events can sample\n");
}
