/* recorder/events_sw.c - perf's software events by name, without libpfm4
   (events.h: sfdo_rec_software_event, sfdo_rec_list_software).

   libpfm4 has these in its perf:: table, but it encodes nothing for
   perf_event while its perf_event layer is off, and since 4.13.0 (Debian
   sid's 4.13.0+git106) it turns that layer on only when it finds a PMU
   under /sys/bus/event_source/devices.  cpu-clock is what sfdo-record
   falls back to where there is no hardware PMU, so it must not hang on
   how some libpfm4 version detects the kernel.  The numbers are the
   kernel's ABI (linux/perf_event.h), the names perf's and libpfm4's.
   Pure: no system calls.  */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events.h"

struct sw_event {
  const char *name;             /* perf's name */
  const char *alias;            /* perf's short name, or NULL */
  const char *id;               /* after PERF_COUNT_SW_: libpfm4's name */
  uint64_t config;
};

/* perf's software events that count something a sample can land on;
   dummy and bpf-output are left out: they never overflow by themselves.  */
static const struct sw_event sw_events[] = {
  { "cpu-clock", NULL, "CPU_CLOCK", PERF_COUNT_SW_CPU_CLOCK },
  { "task-clock", NULL, "TASK_CLOCK", PERF_COUNT_SW_TASK_CLOCK },
  { "page-faults", "faults", "PAGE_FAULTS", PERF_COUNT_SW_PAGE_FAULTS },
  { "context-switches", "cs", "CONTEXT_SWITCHES",
    PERF_COUNT_SW_CONTEXT_SWITCHES },
  { "cpu-migrations", "migrations", "CPU_MIGRATIONS",
    PERF_COUNT_SW_CPU_MIGRATIONS },
  { "minor-faults", NULL, "PAGE_FAULTS_MIN", PERF_COUNT_SW_PAGE_FAULTS_MIN },
  { "major-faults", NULL, "PAGE_FAULTS_MAJ", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
  { "alignment-faults", NULL, "ALIGNMENT_FAULTS",
    PERF_COUNT_SW_ALIGNMENT_FAULTS },
  { "emulation-faults", NULL, "EMULATION_FAULTS",
    PERF_COUNT_SW_EMULATION_FAULTS },
  { "cgroup-switches", NULL, "CGROUP_SWITCHES",
    PERF_COUNT_SW_CGROUP_SWITCHES },
};

#define N_SW_EVENTS (sizeof sw_events / sizeof sw_events[0])
#define SW_PREFIX "PERF_COUNT_SW_"

/* Whether NAME is E under one of its names.  Case does not matter, as in
   libpfm4, which also writes perf's names in capitals (CPU-CLOCK).  */
static int
is_named (const struct sw_event *e, const char *name)
{
  size_t plen = strlen (SW_PREFIX);
  if (!strcasecmp (name, e->name) || (e->alias && !strcasecmp (name, e->alias)))
    return 1;
  return !strncasecmp (name, SW_PREFIX, plen)
         && !strcasecmp (name + plen, e->id);
}

int
sfdo_rec_software_event (const char *name, uint64_t *config)
{
  if (!strncasecmp (name, "perf::", 6))
    name += 6;
  for (size_t i = 0; i < N_SW_EVENTS; i++)
    if (is_named (&sw_events[i], name))
      {
        *config = sw_events[i].config;
        return 1;
      }
  return 0;
}

void
sfdo_rec_list_software (FILE *out)
{
  fprintf (out, "perf's software events (sfdo-record encodes these itself,"
                " whatever libpfm4 knows):\n");
  for (size_t i = 0; i < N_SW_EVENTS; i++)
    {
      const struct sw_event *e = &sw_events[i];
      char both[64];
      snprintf (both, sizeof both, "%s%s%s", e->name,
                e->alias ? ", " : "", e->alias ? e->alias : "");
      fprintf (out, "  %-28s perf::" SW_PREFIX "%s\n", both, e->id);
    }
}
