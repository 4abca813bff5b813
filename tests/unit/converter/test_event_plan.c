/* tests/unit/converter/test_event_plan.c - which recorded event counts,
 * which weighs instruction addresses, which classify blocks
 * (converter/event_plan.h), from attrs alone.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../../converter/event_plan.h"

#define BS SFDO_PERFDATA_S_BRANCH_STACK

static struct sfdo_perfdata_attr
attr (const char *name, uint32_t type, uint64_t config, uint64_t sample_type)
{
  struct sfdo_perfdata_attr a;
  memset (&a, 0, sizeof a);
  a.name = name;
  a.type = type;
  a.config = config;
  a.sample_type = SFDO_PERFDATA_S_IP | sample_type;
  return a;
}

static void
plan_of (struct sfdo_event_plan *plan, const struct sfdo_perfdata_attr *a,
         size_t n, const char *count, const char *clk)
{
  const struct sfdo_perfdata_attr *ptrs[8];
  for (size_t i = 0; i < n; i++)
    ptrs[i] = &a[i];
  sfdo_event_plan_make (plan, ptrs, n, count, clk);
}

static void
test_intel_default_set (void **state)
{
  (void) state;
  /* What sfdo-record picks on Intel with LBR.  */
  struct sfdo_perfdata_attr a[] = {
    attr ("BR_INST_RETIRED:NEAR_TAKEN:u", 4, 0x20c4, BS),
    attr ("INST_RETIRED:ANY_P:u", 4, 0xc0, 0),
    attr ("CPU_CLK_UNHALTED:THREAD_P:u", 4, 0x3c, 0),
  };
  struct sfdo_event_plan p;
  plan_of (&p, a, 3, NULL, NULL);
  assert_ptr_equal (p.count, &a[0]);
  assert_ptr_equal (p.ip, &a[1]);
  assert_int_equal (p.naux, 1);
  assert_ptr_equal (p.aux[0], &a[2]);
  assert_true (p.classify);
  struct sfdo_event_use u = sfdo_event_plan_use (&p, &a[0]);
  assert_true (u.counted && u.branches && u.values && u.calls);
  assert_false (u.ip);
  u = sfdo_event_plan_use (&p, &a[1]);
  assert_true (u.ip && u.values && !u.counted && !u.branches);
  u = sfdo_event_plan_use (&p, &a[2]);
  assert_true (u.clk && !u.ip && !u.counted);
}

static void
test_branch_event_without_stack_is_not_instructions (void **state)
{
  (void) state;
  struct sfdo_perfdata_attr a[] = {
    attr ("BR_INST_RETIRED:NEAR_TAKEN:u", 4, 0x20c4, 0),
    attr ("cycles:u", 0, 0, 0),
  };
  struct sfdo_event_plan p;
  plan_of (&p, a, 2, NULL, NULL);
  assert_ptr_equal (p.count, &a[1]);    /* cycles outrank a raw event */
  assert_ptr_equal (p.ip, &a[1]);
  assert_int_equal (p.naux, 0);
}

static void
test_cycles_with_lbr_alone_has_no_ip_event (void **state)
{
  (void) state;
  struct sfdo_perfdata_attr a[] = { attr ("cycles:u", 0, 0, BS) };
  struct sfdo_event_plan p;
  plan_of (&p, a, 1, NULL, NULL);
  assert_ptr_equal (p.count, &a[0]);
  assert_null (p.ip);
  struct sfdo_event_use u = sfdo_event_plan_use (&p, &a[0]);
  assert_true (u.branches && !u.ip);
}

static void
test_instructions_with_lbr_weigh_addresses_too (void **state)
{
  (void) state;
  struct sfdo_perfdata_attr a[] = {
    attr ("instructions:u", 0, 1, BS | SFDO_PERFDATA_S_REGS_USER)
  };
  struct sfdo_event_plan p;
  plan_of (&p, a, 1, NULL, NULL);
  assert_ptr_equal (p.ip, &a[0]);
  struct sfdo_event_use u = sfdo_event_plan_use (&p, &a[0]);
  assert_true (u.branches && u.ip && u.values);
}

static void
test_classifying_events (void **state)
{
  (void) state;
  struct sfdo_perfdata_attr a[] = {
    attr ("cpu-clock:u", 1, 0, 0),
    attr ("instructions:u", 0, 1, 0),
    attr ("cycles:u", 0, 0, 0),
    attr ("dTLB-load-misses:u", 3, 0x10003, 0),
    attr ("LLC-load-misses:u", 3, 0x10002, 0),
  };
  struct sfdo_event_plan p;
  plan_of (&p, a, 5, NULL, NULL);
  assert_ptr_equal (p.count, &a[1]);
  assert_int_equal (p.naux, 3);
  assert_true (sfdo_event_plan_use (&p, &a[3]).stall);
  assert_int_equal (sfdo_event_plan_use (&p, &a[3]).stall_cycles, 30);
  assert_int_equal (sfdo_event_plan_use (&p, &a[4]).stall_cycles, 200);
  struct sfdo_event_use u = sfdo_event_plan_use (&p, &a[0]);
  assert_false (u.counted || u.ip || u.clk || u.stall);
  /* Timers are not cycles: nothing classifies them.  */
  plan_of (&p, a, 1, NULL, NULL);
  assert_int_equal (p.naux, 0);
  assert_false (p.classify);
}

static void
test_named_events (void **state)
{
  (void) state;
  struct sfdo_perfdata_attr a[] = {
    attr ("task-clock:u", 1, 1, 0),
    attr ("cpu-clock:u", 1, 0, 0),
  };
  struct sfdo_event_plan p;
  plan_of (&p, a, 2, "task-clock", "cpu-clock:u");
  assert_ptr_equal (p.count, &a[0]);
  assert_ptr_equal (p.aux[0], &a[1]);
  assert_true (p.classify);
  /* The same event for both: nothing else to classify with.  */
  plan_of (&p, a, 2, "cpu-clock", "cpu-clock");
  assert_ptr_equal (p.count, &a[1]);
  assert_false (p.classify);
  assert_true (sfdo_event_named (&a[0], "task-clock"));
  assert_true (sfdo_event_named (&a[0], "task-clock:u"));
  assert_false (sfdo_event_named (&a[0], "task"));
  plan_of (&p, a, 2, "no-such-event", NULL);
  assert_null (p.count);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_intel_default_set),
    cmocka_unit_test (test_branch_event_without_stack_is_not_instructions),
    cmocka_unit_test (test_cycles_with_lbr_alone_has_no_ip_event),
    cmocka_unit_test (test_instructions_with_lbr_weigh_addresses_too),
    cmocka_unit_test (test_classifying_events),
    cmocka_unit_test (test_named_events),
  };
  return cmocka_run_group_tests_name ("event plan", tests, NULL, NULL);
}
