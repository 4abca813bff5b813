/* tests/unit/lipo/test_link.c - the grouped link (lipo/link.h): objects
 * matched to groups by compile unit, the incremental link of a group and
 * the final link's command line, from plans built by hand; and an object
 * file the test compiles.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../lipo/link.h"

static const char *g1[] = { "src/a.c", "src/b.c" };
static const char *g2[] = { "lib/x/c.c", "lib/a.c" };

static struct sfdo_groups
two_groups (void)
{
  static struct sfdo_group groups[2];
  groups[0] = (struct sfdo_group) { 10, g1, 2 };
  groups[1] = (struct sfdo_group) { 5, g2, 2 };
  return (struct sfdo_groups) { NULL, groups, 2, 15, 15, 4 };
}

static void
test_units_to_groups (void **state)
{
  (void) state;
  struct sfdo_groups g = two_groups ();
  assert_int_equal (sfdo_link_group_of (&g, "src/a.c"), 0);
  assert_int_equal (sfdo_link_group_of (&g, "/ci/build/src/b.c"), 0);
  assert_int_equal (sfdo_link_group_of (&g, "/ci/lib/x/c.c"), 1);
  assert_int_equal (sfdo_link_group_of (&g, "c.c"), 1);
  /* a.c alone ends like a unit of each group: no guess.  */
  assert_int_equal (sfdo_link_group_of (&g, "a.c"), -1);
  assert_int_equal (sfdo_link_group_of (&g, "src/d.c"), -1);
}

static size_t
count (char **cmd)
{
  size_t n = 0;
  while (cmd[n])
    n++;
  return n;
}

static void
test_commands (void **state)
{
  (void) state;
  char *argv[] = { "gcc", "-O2", "-fplugin=x.so", "a.o", "-o", "prog",
                   "c.o", "b.o", "-lm", "-flto", NULL };
  int argc = 10;
  struct sfdo_link_object objs[] = {
    { 3, "src/a.c", 1, 0 }, { 6, "lib/x/c.c", 0, 1 }, { 7, "src/b.c", 1, 0 }
  };
  struct sfdo_link_plan plan = { objs, 3 };
  char **cmd = sfdo_link_group_command (&plan, argc, argv, 0, "/t/g1.o");
  const char *want[] = { "gcc", "-O2", "-fplugin=x.so",
                         "-fno-semantic-interposition", "-r", "-flto=auto",
                         "-flinker-output=nolto-rel", "a.o", "b.o", "-o",
                         "/t/g1.o" };
  assert_int_equal (count (cmd), 11);
  for (size_t i = 0; i < 11; i++)
    assert_string_equal (cmd[i], want[i]);
  free (cmd);
  /* Group 2 has one object, without LTO IR: nothing to join.  */
  assert_null (sfdo_link_group_command (&plan, argc, argv, 1, "/t/g2.o"));
  char *outs[] = { "/t/g1.o", NULL };
  cmd = sfdo_link_final_command (&plan, argc, argv, outs);
  const char *final[] = { "gcc", "-O2", "-fplugin=x.so", "/t/g1.o", "-o",
                          "prog", "c.o", "-lm", "-flto", "-fno-lto" };
  assert_int_equal (count (cmd), 10);
  for (size_t i = 0; i < 10; i++)
    assert_string_equal (cmd[i], final[i]);
  free (cmd);
}

static void
test_reads_an_object (void **state)
{
  (void) state;
  char dir[] = "/tmp/sfdo-test-link.XXXXXX";
  assert_non_null (mkdtemp (dir));
  char cmd[512], obj[256], lto[256];
  snprintf (obj, sizeof obj, "%s/plain.o", dir);
  snprintf (lto, sizeof lto, "%s/lto.o", dir);
  snprintf (cmd, sizeof cmd, "cd %s && printf 'int f (int x) { return x + 1; }\\n' > u.c"
            " && gcc -O2 -g -c u.c -o plain.o && gcc -O2 -g -flto "
            "-ffat-lto-objects -c u.c -o lto.o", dir);
  assert_int_equal (system (cmd), 0);
  struct sfdo_link_object o;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_link_read_object (obj, &o, &err), SFDO_OK);
  assert_string_equal (o.unit, "u.c");
  assert_false (o.has_lto);
  free (o.unit);
  assert_int_equal (sfdo_link_read_object (lto, &o, &err), SFDO_OK);
  assert_true (o.has_lto);
  assert_string_equal (o.unit, "u.c");
  free (o.unit);
  snprintf (obj, sizeof obj, "%s/u.c", dir);
  assert_int_equal (sfdo_link_read_object (obj, &o, &err), SFDO_E_MALFORMED);
  assert_null (o.unit);
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal (system (cmd), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_units_to_groups),
    cmocka_unit_test (test_commands),
    cmocka_unit_test (test_reads_an_object),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
