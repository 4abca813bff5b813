/* recorder/events.c - detecting the PMU, encoding event names through
   libpfm4, listing events (events.h).  The choice itself is in
   events_choose.c.  */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "events.h"

#define CPU_PMU "/sys/bus/event_source/devices/cpu"

static int
pfm_ready (void)
{
  static int state;             /* 0 not tried, 1 ready, -1 failed */
  if (!state)
    state = pfm_initialize () == PFM_SUCCESS ? 1 : -1;
  return state > 0;
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
  arg.attr = attr;
  arg.size = sizeof arg;
  arg.fstr = fstr;
  return pfm_get_os_event_encoding (name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
                                    &arg);
}

enum sfdo_errc
sfdo_rec_encode (const char *name, int precise, struct perf_event_attr *attr,
                 char *canon, size_t canon_size, struct sfdo_error *err)
{
  if (!pfm_ready ())
    return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                           "libpfm4 does not initialise here, so no event"
                           " name can be looked up");
  char base[256], *fstr = NULL;
  int p = perf_modifiers (name, base, sizeof base);
  int rc = pfm_encode (name, attr, &fstr);
  if (rc != PFM_SUCCESS && p >= 0)
    {
      free (fstr);
      fstr = NULL;
      rc = pfm_encode (base, attr, &fstr);
    }
  if (rc != PFM_SUCCESS)
    {
      free (fstr);
      return sfdo_error_set (err, SFDO_E_USAGE, name, SFDO_NO_OFFSET, 0, 0,
                             "unknown event (libpfm4: %s); sfdo-record"
                             " --list-events lists the events of this PMU",
                             pfm_strerror (rc));
    }
  snprintf (canon, canon_size, "%s", p >= 0 ? base : name);
  free (fstr);
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
  if (!pfm_ready ())
    {
      fprintf (out, "libpfm4 does not initialise here: no event list\n");
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
  fprintf (out, "perf's generic names work too: cycles, instructions,"
                " branches, branch-misses, cpu-clock, task-clock,"
                " page-faults...; :u, :p, :pp suffixes as in perf\n");
  if (!hardware)
    fprintf (out, "note: libpfm4 finds no hardware (core) PMU here: only"
                  " the software events (perf::PERF_COUNT_SW_*) can"
                  " sample\n");
}
