/* recorder/events_choose.c - the default event set for a PMU description
   (events.h: sfdo_rec_choose).  Pure: no system calls, so every branch is
   unit-tested with fake descriptions.

   Preference, best first:
     Intel with LBR   BR_INST_RETIRED:NEAR_TAKEN with user-space branch
                      stacks (the LBR gives block and edge counts), plus
                      INST_RETIRED:ANY_P and CPU_CLK_UNHALTED:THREAD_P
     AMD Zen 4 / 3    RETIRED_TAKEN_BRANCH_INSTRUCTIONS with branch stacks
                      (LbrExtV2, or BRS which only takes that event), plus
                      RETIRED_INSTRUCTIONS and CYCLES_NOT_IN_HALT
     other hardware   instructions and cycles, IP only, precise where the
                      PMU allows
     no hardware PMU  cpu-clock, a software timer (period in ns)  */
#include <stdio.h>
#include <string.h>

#include "events.h"

static void
add (struct sfdo_rec_choice *c, const char *name, int branch_stack,
     int precise, uint64_t period)
{
  struct sfdo_rec_event *e = &c->ev[c->n++];
  snprintf (e->name, sizeof e->name, "%s", name);
  e->branch_stack = branch_stack;
  e->precise = precise;
  e->period = period;
}

static void
say (struct sfdo_rec_choice *c, const char *text)
{
  size_t len = strlen (c->why);
  snprintf (c->why + len, sizeof c->why - len, "%s%s", len ? "; " : "",
            text);
}

/* Taken branches with branch stacks, where the PMU has them.  Returns
   whether it chose them.  */
static int
choose_branches (const struct sfdo_rec_caps *caps, struct sfdo_rec_choice *c)
{
  int pp = caps->max_precise > 2 ? 2 : caps->max_precise;
  if (caps->vendor == SFDO_REC_VENDOR_INTEL && caps->lbr_depth > 0)
    {
      add (c, "BR_INST_RETIRED:NEAR_TAKEN", 1, pp, SFDO_REC_BRANCH_PERIOD);
      add (c, "INST_RETIRED:ANY_P", 0, pp, SFDO_REC_INSNS_PERIOD);
      add (c, "CPU_CLK_UNHALTED:THREAD_P", 0, 0, SFDO_REC_CYCLES_PERIOD);
      say (c, "Intel CPU with LBR: taken branches with user-space branch"
              " stacks, instructions and cycles");
      return 1;
    }
  if (caps->vendor == SFDO_REC_VENDOR_AMD
      && (caps->amd_lbr_v2 || caps->amd_brs))
    {
      add (c, "RETIRED_TAKEN_BRANCH_INSTRUCTIONS", 1, 0,
           SFDO_REC_BRANCH_PERIOD);
      add (c, "RETIRED_INSTRUCTIONS", 0, 0, SFDO_REC_INSNS_PERIOD);
      add (c, "CYCLES_NOT_IN_HALT", 0, 0, SFDO_REC_CYCLES_PERIOD);
      say (c, caps->amd_lbr_v2
              ? "AMD CPU with LbrExtV2 (Zen 4): taken branches with"
                " user-space branch stacks, instructions and cycles"
              : "AMD CPU with BRS (Zen 3): taken branches with user-space"
                " branch stacks, instructions and cycles");
      return 1;
    }
  return 0;
}

/* Why there are no branch stacks here, for the fallback message.  */
static const char *
why_no_branches (const struct sfdo_rec_caps *caps)
{
  if (!caps->hw_events)
    return "no branch stacks: no hardware PMU";
  switch (caps->vendor)
    {
    case SFDO_REC_VENDOR_INTEL:
      return "no branch stacks: this Intel PMU reports no LBR";
    case SFDO_REC_VENDOR_AMD:
      return "no branch stacks: this AMD CPU has neither LbrExtV2 (Zen 4)"
             " nor BRS (Zen 3)";
    default:
      return "no branch stacks: sfdo-record knows LBR and BRS only on"
             " Intel and AMD";
    }
}

static void
choose_ip_only (const struct sfdo_rec_caps *caps, struct sfdo_rec_choice *c)
{
  int pp = caps->max_precise > 2 ? 2 : caps->max_precise;
  switch (caps->vendor)
    {
    case SFDO_REC_VENDOR_INTEL:
      add (c, "INST_RETIRED:ANY_P", 0, pp, SFDO_REC_INSNS_PERIOD);
      add (c, "CPU_CLK_UNHALTED:THREAD_P", 0, 0, SFDO_REC_CYCLES_PERIOD);
      break;
    case SFDO_REC_VENDOR_AMD:
      add (c, "RETIRED_INSTRUCTIONS", 0, 0, SFDO_REC_INSNS_PERIOD);
      add (c, "CYCLES_NOT_IN_HALT", 0, 0, SFDO_REC_CYCLES_PERIOD);
      break;
    default:
      add (c, "instructions", 0, pp, SFDO_REC_INSNS_PERIOD);
      add (c, "cycles", 0, 0, SFDO_REC_CYCLES_PERIOD);
      break;
    }
  say (c, pp ? "IP-only instructions (precise) and cycles"
             : "IP-only instructions and cycles (this PMU has no precise"
               " sampling)");
}

enum sfdo_errc
sfdo_rec_choose (const struct sfdo_rec_caps *caps, int want_branches,
                 struct sfdo_rec_choice *out, struct sfdo_error *err)
{
  memset (out, 0, sizeof *out);
  if (caps->hw_events && choose_branches (caps, out))
    return SFDO_OK;
  if (want_branches)
    return sfdo_error_set (err, SFDO_E_USAGE, "-b", SFDO_NO_OFFSET, 0, 0,
                           "branch stacks asked for, but %s",
                           why_no_branches (caps));
  say (out, why_no_branches (caps));
  if (caps->hw_events)
    {
      choose_ip_only (caps, out);
      return SFDO_OK;
    }
  char text[256];
  snprintf (text, sizeof text,
            "fell back from hardware instructions and cycles: a hardware"
            " event does not open here (%s; a VM without a virtual PMU?)",
            strerror (caps->hw_errno ? caps->hw_errno : 2));
  say (out, text);
  add (out, "cpu-clock", 0, 0, SFDO_REC_SW_PERIOD);
  say (out, "sampling cpu-clock, a software timer");
  return SFDO_OK;
}

int
sfdo_rec_fall_back (struct sfdo_rec_choice *c, int branches_required)
{
  int precise = 0;
  for (size_t i = 0; i < c->n; i++)
    precise |= c->ev[i].precise;
  if (precise)
    {
      for (size_t i = 0; i < c->n; i++)
        c->ev[i].precise = 0;
      c->why[0] = 0;
      say (c, "trying the same events without precise sampling");
      return 1;
    }
  if (branches_required || (c->n == 1 && !strcmp (c->ev[0].name, "cpu-clock")))
    return 0;
  memset (c, 0, sizeof *c);
  add (c, "cpu-clock", 0, 0, SFDO_REC_SW_PERIOD);
  say (c, "falling back to cpu-clock, a software timer");
  return 1;
}
