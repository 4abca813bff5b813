/* converter/event_plan.c - which event counts, which weighs instruction
 * addresses, which classify blocks (event_plan.h).  */
#include "event_plan.h"

#include <stdio.h>
#include <string.h>

/* perf_event_attr.type and config values used to rank events.  */
#define PERF_TYPE_HARDWARE 0
#define PERF_TYPE_SOFTWARE 1
#define PERF_COUNT_HW_CPU_CYCLES 0
#define PERF_COUNT_HW_INSTRUCTIONS 1

enum { RANK_OTHER = 1, RANK_TIMER, RANK_CYCLES, RANK_INSTRUCTIONS,
       RANK_BRANCH_STACK };

/* Whether event name NAME holds the word WORD: at its start or after a
   PMU prefix ("skl::", "cpu/"), not inside a longer word
   (BR_INST_RETIRED is not INST_RETIRED).  */
static int
has_word (const char *name, const char *word)
{
  size_t n = strlen (word);
  for (const char *p = strstr (name, word); p; p = strstr (p + 1, word))
    if ((p == name || p[-1] == ':' || p[-1] == '/')
        && (p[n] == 0 || p[n] == ':' || p[n] == '/' || p[n] == ','))
      return 1;
  return 0;
}

int
sfdo_event_name_is_instructions (const char *name)
{
  return has_word (name, "INST_RETIRED")
         || has_word (name, "RETIRED_INSTRUCTIONS")
         || has_word (name, "instructions");
}

static int
is_instructions (const struct sfdo_perfdata_attr *a)
{
  if (a->name && sfdo_event_name_is_instructions (a->name))
    return 1;
  return a->type == PERF_TYPE_HARDWARE
         && a->config == PERF_COUNT_HW_INSTRUCTIONS;
}

static int
is_cycles (const struct sfdo_perfdata_attr *a)
{
  return (a->type == PERF_TYPE_HARDWARE
          && a->config == PERF_COUNT_HW_CPU_CYCLES)
         || (a->name && (strstr (a->name, "CPU_CLK_UNHALTED")
                         || strstr (a->name, "CYCLES_NOT_IN_HALT")
                         || strncmp (a->name, "cycles", 6) == 0));
}

/* Higher is better: branch stacks give exact straight runs; retired
   instructions count executions directly; cycles and clocks measure
   time.  */
static int
event_rank (const struct sfdo_perfdata_attr *a)
{
  if (a->sample_type & SFDO_PERFDATA_S_BRANCH_STACK)
    return RANK_BRANCH_STACK;
  if (is_instructions (a))
    return RANK_INSTRUCTIONS;
  if (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES)
    return RANK_CYCLES;
  if (a->type == PERF_TYPE_SOFTWARE && a->config <= 1)
    return RANK_TIMER;
  return RANK_OTHER;
}

int
sfdo_event_named (const struct sfdo_perfdata_attr *a, const char *name)
{
  if (!a || !a->name)
    return 0;
  size_t n = strlen (name);
  return strcmp (a->name, name) == 0
         || (!strchr (name, ':') && strncmp (a->name, name, n) == 0
             && a->name[n] == ':');
}

/* Cycles one sample's worth of event A stands for, when A counts long
   stalls, else 0.  Typical x86 latencies (Chen et al. take them from the
   processor manual per micro-architecture): a DTLB miss walks the page
   table, about 30 cycles; a last-level cache miss goes to DRAM, about
   200.  */
static uint32_t
stall_cycles (const struct sfdo_perfdata_attr *a)
{
  if (!a->name)
    return 0;
  if ((strstr (a->name, "DTLB") || strstr (a->name, "dTLB"))
      && (strstr (a->name, "MISS") || strstr (a->name, "miss")))
    return 30;
  if (strstr (a->name, "LLC-load-misses") || strstr (a->name, "LLC_MISS")
      || strstr (a->name, "LONGEST_LAT_CACHE:MISS"))
    return 200;
  return 0;
}

/* The event counted: the one named, else the best ranked (the first of
   equals).  */
static const struct sfdo_perfdata_attr *
choose_count (const struct sfdo_perfdata_attr *const *attrs, size_t n,
              const char *named)
{
  const struct sfdo_perfdata_attr *best = NULL;
  for (size_t i = 0; i < n; i++)
    if (named ? sfdo_event_named (attrs[i], named)
              : !best || event_rank (attrs[i]) > event_rank (best))
      {
        best = attrs[i];
        if (named)
          break;
      }
  return best;
}

/* The event whose sample addresses weigh instructions.  */
static const struct sfdo_perfdata_attr *
choose_ip (const struct sfdo_perfdata_attr *count,
           const struct sfdo_perfdata_attr *const *attrs, size_t n)
{
  if (!(count->sample_type & SFDO_PERFDATA_S_BRANCH_STACK)
      || is_instructions (count))
    return count;
  for (size_t i = 0; i < n; i++)
    if (attrs[i] != count && is_instructions (attrs[i]))
      return attrs[i];
  return NULL;
}

/* Beside the IP event, the events that classify its blocks: cycles
   (needed; retired instructions are what they classify, unless the user
   named the pair) and long-stall events.  */
static void
choose_aux (struct sfdo_event_plan *plan,
            const struct sfdo_perfdata_attr *const *attrs, size_t n,
            const char *clk_event)
{
  const struct sfdo_perfdata_attr *ip = plan->ip, *clk = NULL;
  if (!ip || (!clk_event && !is_instructions (ip)))
    return;
  for (size_t i = 0; i < n && !clk; i++)
    if (attrs[i] != ip && attrs[i] != plan->count
        && (clk_event ? sfdo_event_named (attrs[i], clk_event)
                      : is_cycles (attrs[i])))
      clk = attrs[i];
  if (!clk)
    return;
  plan->aux[plan->naux] = clk;
  plan->aux_use[plan->naux++] = (struct sfdo_event_use) { .clk = 1 };
  for (size_t i = 0; i < n && plan->naux < SFDO_PLAN_MAX_AUX; i++)
    {
      uint32_t cycles = stall_cycles (attrs[i]);
      if (cycles && attrs[i] != ip && attrs[i] != plan->count
          && attrs[i] != clk)
        {
          plan->aux[plan->naux] = attrs[i];
          plan->aux_use[plan->naux++]
            = (struct sfdo_event_use) { .stall = 1, .stall_cycles = cycles };
        }
    }
  plan->classify = 1;
}

void
sfdo_event_plan_make (struct sfdo_event_plan *plan,
                      const struct sfdo_perfdata_attr *const *attrs, size_t n,
                      const char *count_event, const char *clk_event)
{
  memset (plan, 0, sizeof *plan);
  plan->count = choose_count (attrs, n, count_event);
  if (!plan->count)
    return;
  plan->ip = choose_ip (plan->count, attrs, n);
  plan->ip_counts_instructions = plan->ip && is_instructions (plan->ip);
  choose_aux (plan, attrs, n, clk_event);
}

struct sfdo_event_use
sfdo_event_plan_use (const struct sfdo_event_plan *plan,
                     const struct sfdo_perfdata_attr *a)
{
  struct sfdo_event_use use = { 0 };
  if (!a || a == plan->count)
    {
      use.counted = 1;
      use.branches = use.values = use.calls = 1;
      use.ip = !a || a == plan->ip;
      return use;
    }
  if (a == plan->ip)
    {
      use.ip = use.values = use.calls = 1;
      return use;
    }
  for (size_t i = 0; i < plan->naux; i++)
    if (plan->aux[i] == a)
      return plan->aux_use[i];
  return use;
}

const char *
sfdo_event_name (const struct sfdo_perfdata_attr *a, char *buf, size_t size)
{
  if (a->name)
    snprintf (buf, size, "%s", a->name);
  else
    snprintf (buf, size, "%s:%llu",
              a->type == PERF_TYPE_HARDWARE ? "hardware"
              : a->type == PERF_TYPE_SOFTWARE ? "software" : "raw",
              (unsigned long long) a->config);
  return buf;
}
