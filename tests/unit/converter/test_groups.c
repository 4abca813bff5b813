/* tests/unit/converter/test_groups.c - joining source files into module
 * groups by their call weight (converter/groups.h): heaviest pairs
 * first, up to the cut-off share, no group past its unit cap, disjoint
 * groups, heaviest group first, and the file format.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../converter/groups.h"
#include "tmpname.h"

static const char *const names[] = { "a.c", "b.c", "c.c", "d.c", "e.c" };

/* a-b 100, b-c 50, d-e 30, a-d 5: 185 in all.  */
static size_t
pairs_of (struct sfdo_groups_pair *p)
{
  static const struct sfdo_groups_pair given[] = {
    { 0, 3, 5 }, { 3, 4, 30 }, { 0, 1, 100 }, { 1, 2, 50 }
  };
  memcpy (p, given, sizeof given);
  return sizeof given / sizeof *given;
}

static void
check_group (const struct sfdo_group *g, uint64_t weight, size_t n, ...)
{
  va_list ap;
  assert_int_equal (g->weight, weight);
  assert_int_equal (g->nunits, n);
  va_start (ap, n);
  for (size_t i = 0; i < n; i++)
    assert_string_equal (g->units[i], va_arg (ap, const char *));
  va_end (ap);
}

static void
test_joins_heaviest_pairs_up_to_the_cutoff (void **state)
{
  (void) state;
  struct sfdo_groups_pair p[4];
  struct sfdo_groups g;
  struct sfdo_groups_opts o = { 0.85, 8 };
  sfdo_groups_join (names, 5, p, pairs_of (p), 185, &o, &g);
  /* 100 + 50 = 150 < 157.25, + 30 = 180: a-d (5) is left out.  */
  assert_int_equal (g.grouped_weight, 180);
  assert_int_equal (g.ngroups, 2);
  check_group (&g.groups[0], 150, 3, "a.c", "b.c", "c.c");
  check_group (&g.groups[1], 30, 2, "d.c", "e.c");
  sfdo_groups_release (&g);
}

static void
test_unit_cap_and_low_cutoff (void **state)
{
  (void) state;
  struct sfdo_groups_pair p[4];
  struct sfdo_groups g;
  struct sfdo_groups_opts capped = { 0.99, 2 };
  sfdo_groups_join (names, 5, p, pairs_of (p), 185, &capped, &g);
  /* b-c would make a group of 3, a-d joins two groups of 2.  */
  assert_int_equal (g.grouped_weight, 130);
  assert_int_equal (g.ngroups, 2);
  check_group (&g.groups[0], 100, 2, "a.c", "b.c");
  check_group (&g.groups[1], 30, 2, "d.c", "e.c");
  sfdo_groups_release (&g);
  struct sfdo_groups_opts low = { 0.5, 8 };
  sfdo_groups_join (names, 5, p, pairs_of (p), 185, &low, &g);
  assert_int_equal (g.grouped_weight, 100);   /* 100 >= 92.5: done */
  assert_int_equal (g.ngroups, 1);
  check_group (&g.groups[0], 100, 2, "a.c", "b.c");
  sfdo_groups_release (&g);
}

static void
test_no_cross_calls_no_groups (void **state)
{
  (void) state;
  struct sfdo_groups g;
  struct sfdo_groups_opts o = { 0.85, 8 };
  sfdo_groups_join (names, 5, NULL, 0, 0, &o, &g);
  assert_int_equal (g.ngroups, 0);
  assert_int_equal (g.nunits, 5);
  char buf[512] = { 0 };
  FILE *f = fmemopen (buf, sizeof buf - 1, "w");
  sfdo_groups_write (&g, &o, f);
  fclose (f);
  assert_string_equal (buf, "# sfdo-groups: 1\n# cross-unit call weight 0; "
                       "the groups hold 0.0% of it (cut-off 85%, at most 8 "
                       "units a group)\n");
  sfdo_groups_release (&g);
}

static void
test_file_format (void **state)
{
  (void) state;
  struct sfdo_groups_pair p[4];
  struct sfdo_groups g;
  struct sfdo_groups_opts o = { 0.85, 8 };
  sfdo_groups_join (names, 5, p, pairs_of (p), 185, &o, &g);
  char buf[1024] = { 0 };
  FILE *f = fmemopen (buf, sizeof buf - 1, "w");
  sfdo_groups_write (&g, &o, f);
  fclose (f);
  assert_string_equal (buf, "# sfdo-groups: 1\n# cross-unit call weight 185; "
                       "the groups hold 97.3% of it (cut-off 85%, at most 8 "
                       "units a group)\ngroup 1 weight 150\n  a.c\n  b.c\n"
                       "  c.c\ngroup 2 weight 30\n  d.c\n  e.c\n");
  sfdo_groups_release (&g);
}

/* Write TEXT to a temporary file (under $TMPDIR, else /tmp); its path
   (malloc'd).  */
static char *
temp_with (const char *text)
{
  char *path = malloc (512);
  assert_non_null (path);
  sfdo_test_tmpname (path, 512, "groups");
  int fd = mkstemp (path);
  assert_true (fd >= 0);
  assert_int_equal (write (fd, text, strlen (text)), (ssize_t) strlen (text));
  close (fd);
  return path;
}

static void
test_read_back (void **state)
{
  (void) state;
  struct sfdo_groups_pair p[4];
  struct sfdo_groups g, r;
  struct sfdo_groups_opts o = { 0.85, 8 };
  char buf[1024] = { 0 };
  sfdo_groups_join (names, 5, p, pairs_of (p), 185, &o, &g);
  FILE *f = fmemopen (buf, sizeof buf - 1, "w");
  sfdo_groups_write (&g, &o, f);
  fclose (f);
  char *path = temp_with (buf);
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_groups_read (path, &r, &err), SFDO_OK);
  assert_int_equal (r.ngroups, 2);
  check_group (&r.groups[0], 150, 3, "a.c", "b.c", "c.c");
  check_group (&r.groups[1], 30, 2, "d.c", "e.c");
  sfdo_groups_release (&r);
  sfdo_groups_release (&g);
  unlink (path);
  free (path);
}

static void
test_read_refuses_what_is_not_a_groups_file (void **state)
{
  (void) state;
  static const struct {
    const char *text;
    unsigned line;
  } bad[] = {
    { "", 0 },
    { "group 1 weight 3\n", 1 },
    { "# sfdo-groups: 1\n  a.c\n", 2 },            /* a unit before a group */
    { "# sfdo-groups: 1\ngroup x weight 3\n", 2 },
    { "# sfdo-groups: 1\ngroup 1 weight 3\n a.c\n", 3 },
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    {
      char *path = temp_with (bad[i].text);
      struct sfdo_groups r;
      struct sfdo_error err;
      sfdo_error_clear (&err);
      assert_int_equal (sfdo_groups_read (path, &r, &err), SFDO_E_MALFORMED);
      assert_int_equal (err.line, bad[i].line);
      assert_int_equal (r.ngroups, 0);
      unlink (path);
      free (path);
    }
  struct sfdo_groups r;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_groups_read ("/nonexistent/g.txt", &r, &err),
                    SFDO_E_IO);
}

/* Record UNIT as F's compile unit, as converter/units.c does.  */
static void
set_unit (struct sfdo_profile *p, struct sfdo_prof_func *f, const char *unit)
{
  sfdo_prof_func_add_value (f, 0, 0, SFDO_VALUE_UNIT,
                            sfdo_profile_intern_str (p, unit), 1);
}

/* Groups from the units a profile records: main (a.c) calls helper
   (b.c) 900 times and b.c's static step through a pointer 80 times,
   and had c.c's tick inlined (entered 40 times); d.c's static step only
   shares the name.  A profile that records no units makes no groups.  */
static void
test_groups_from_recorded_units (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *main_f
    = sfdo_profile_add_func (p, sfdo_profile_intern_str (p, "main"), 0);
  set_unit (p, main_f, "src/a.c");
  struct sfdo_prof_line *l = sfdo_prof_func_add_line (main_f, 3, 0, 980);
  sfdo_prof_line_add_target (l, sfdo_profile_intern_str (p, "helper"), 900);
  l = sfdo_prof_func_add_line (main_f, 4, 0, 80);
  sfdo_prof_line_add_target (l, sfdo_profile_intern_str (p, "step"), 80);
  struct sfdo_prof_func *tick = sfdo_prof_func_add_callsite
    (main_f, 5, 0, sfdo_profile_intern_str (p, "tick"), 0);
  tick->head = 40;
  set_unit (p, tick, "src/c.c");
  struct sfdo_prof_func *f
    = sfdo_profile_add_func (p, sfdo_profile_intern_str (p, "helper"), 0);
  set_unit (p, f, "src/b.c");
  f = sfdo_profile_add_func (p, sfdo_profile_intern_str (p, "step"),
                             sfdo_profile_intern_str (p, "src/b.c"));
  set_unit (p, f, "src/b.c");
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  struct sfdo_groups g;
  struct sfdo_groups_opts o = { 0.85, 8 };
  sfdo_groups_make (p, &o, &g);
  assert_int_equal (g.nunits, 3);
  assert_int_equal (g.cross_weight, 1020);
  assert_int_equal (g.ngroups, 1);
  check_group (&g.groups[0], 980, 2, "src/a.c", "src/b.c");
  sfdo_groups_release (&g);
  /* A second file's static step: the pointer's target is no longer
     known by name, so only helper's calls join a.c and b.c.  */
  f = sfdo_profile_add_func (p, sfdo_profile_intern_str (p, "step"),
                             sfdo_profile_intern_str (p, "src/d.c"));
  set_unit (p, f, "src/d.c");
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  sfdo_groups_make (p, &o, &g);
  assert_int_equal (g.cross_weight, 940);
  check_group (&g.groups[0], 900, 2, "src/a.c", "src/b.c");
  sfdo_groups_release (&g);
  sfdo_profile_free (p);
  p = sfdo_profile_new ();
  sfdo_profile_add_func (p, sfdo_profile_intern_str (p, "main"), 0);
  assert_int_equal (sfdo_profile_finalize (p, &err), SFDO_OK);
  sfdo_groups_make (p, &o, &g);
  assert_int_equal (g.nunits, 0);
  assert_int_equal (g.ngroups, 0);
  sfdo_groups_release (&g);
  sfdo_profile_free (p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_joins_heaviest_pairs_up_to_the_cutoff),
    cmocka_unit_test (test_unit_cap_and_low_cutoff),
    cmocka_unit_test (test_no_cross_calls_no_groups),
    cmocka_unit_test (test_file_format),
    cmocka_unit_test (test_read_back),
    cmocka_unit_test (test_read_refuses_what_is_not_a_groups_file),
    cmocka_unit_test (test_groups_from_recorded_units),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
