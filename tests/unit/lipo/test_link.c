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
#include "tmpname.h"

/* Make a new temporary directory into DIR of SIZE bytes, named after
   TAG.  */
static void
temp_dir (char *dir, size_t size, const char *tag)
{
  sfdo_test_tmpname (dir, size, tag);
  assert_non_null (mkdtemp (dir));
}

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
    { 3, "src/a.c", 1, 0, NULL, NULL }, { 6, "lib/x/c.c", 0, 1, NULL, NULL },
    { 7, "src/b.c", 1, 0, NULL, NULL }
  };
  struct sfdo_link_plan plan = { objs, 3, NULL, 0 };
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

/* Archive members join their group's link from their extracted copies;
   the group's object goes before the first member's archive, which stays
   on the command line for its other members.  */
static void
test_commands_with_archive_members (void **state)
{
  (void) state;
  char *argv[] = { "gcc", "a.o", "libz.a", "-o", "prog", "libq.a", NULL };
  int argc = 6;
  struct sfdo_link_object objs[] = {
    { 2, "lib/x/c.c", 1, 1, "/t/m0-c.o", "libz.a(c.o)" },
    { 5, "lib/a.c", 1, 1, "/t/m1-a.o", "libq.a(a.o)" },
  };
  struct sfdo_link_plan plan = { objs, 2, NULL, 0 };
  assert_string_equal (sfdo_link_object_name (&objs[0], argv), "libz.a(c.o)");
  char **cmd = sfdo_link_group_command (&plan, argc, argv, 1, "/t/g2.o");
  assert_non_null (cmd);
  size_t n = count (cmd);
  assert_string_equal (cmd[n - 4], "/t/m0-c.o");
  assert_string_equal (cmd[n - 3], "/t/m1-a.o");
  free (cmd);
  char *outs[] = { NULL, "/t/g2.o" };
  cmd = sfdo_link_final_command (&plan, argc, argv, outs);
  const char *final[] = { "gcc", "a.o", "/t/g2.o", "libz.a", "-o", "prog",
                          "libq.a", "-fno-lto" };
  assert_int_equal (count (cmd), 8);
  for (size_t i = 0; i < 8; i++)
    assert_string_equal (cmd[i], final[i]);
  free (cmd);
}

/* Response files: words split as GCC splits them, nested files read,
   an unreadable @FILE kept.  */
static void
test_response_files (void **state)
{
  (void) state;
  char dir[256];
  temp_dir (dir, sizeof dir, "args");
  char inner[512], outer[512], arg[520];
  snprintf (inner, sizeof inner, "%s/inner.rsp", dir);
  snprintf (outer, sizeof outer, "%s/outer.rsp", dir);
  FILE *f = fopen (inner, "w");
  assert_non_null (f);
  fputs ("c.o\n'with space.o' \"d\\\"q.o\"\n", f);
  fclose (f);
  f = fopen (outer, "w");
  assert_non_null (f);
  fprintf (f, "  a.o\tb\\ c.o @%s\n-lm", inner);
  fclose (f);
  snprintf (arg, sizeof arg, "@%s", outer);
  char *argv[] = { "gcc", arg, "@/no/such/file", "-o", "prog", NULL };
  int n;
  char **args = sfdo_link_expand_args (5, argv, &n);
  const char *want[] = { "gcc", "a.o", "b c.o", "c.o", "with space.o",
                         "d\"q.o", "-lm", "@/no/such/file", "-o", "prog" };
  assert_int_equal (n, 10);
  for (int i = 0; i < n; i++)
    assert_string_equal (args[i], want[i]);
  assert_null (args[n]);
  sfdo_link_free_args (args);
  unlink (inner);
  unlink (outer);
  rmdir (dir);
}

/* Members of real archives: two archives' util.o (of a/util.c and
   b/util.c, one group) are copied apart; an archive named twice is read
   once; one linked whole is left to the linker.  */
static void
test_plans_archive_members (void **state)
{
  (void) state;
  char dir[256];
  temp_dir (dir, sizeof dir, "archive");
  char cmd[1024];
  snprintf (cmd, sizeof cmd, "cd %s && mkdir a b m"
            " && printf 'int fa (int x) { return x + 1; }\n' > a/util.c"
            " && printf 'int fb (int x) { return x + 2; }\n' > b/util.c"
            " && gcc -O2 -g -flto -ffat-lto-objects -c a/util.c -o a/util.o"
            " && gcc -O2 -g -flto -ffat-lto-objects -c b/util.c -o b/util.o"
            " && ar rcs a/liba.a a/util.o && ar rcs b/libb.a b/util.o"
            " && cp b/libb.a b/libw.a", dir);
  assert_int_equal (system (cmd), 0);
  static const char *units[] = { "a/util.c", "b/util.c" };
  struct sfdo_group group = { 10, units, 2 };
  struct sfdo_groups g = { NULL, &group, 1, 10, 10, 2 };
  char la[512], lb[512], lw[512], members[512];
  snprintf (la, sizeof la, "%s/a/liba.a", dir);
  snprintf (lb, sizeof lb, "%s/b/libb.a", dir);
  snprintf (lw, sizeof lw, "%s/b/libw.a", dir);
  snprintf (members, sizeof members, "%s/m", dir);
  char *argv[] = { "gcc", la, lb, la, "-Wl,--whole-archive", lw,
                   "-Wl,--no-whole-archive", "-o", "prog", NULL };
  struct sfdo_link_plan plan;
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_int_equal (sfdo_link_plan_make (&g, 9, argv, members, &plan, &err),
                    SFDO_OK);
  assert_int_equal (plan.nobjects, 2);
  assert_int_equal (plan.nskipped, 1);
  assert_int_equal (plan.skipped[0].arg, 5);
  assert_non_null (strstr (plan.skipped[0].why, "whole"));
  assert_int_equal (plan.objects[0].arg, 1);
  assert_int_equal (plan.objects[1].arg, 2);
  assert_string_not_equal (plan.objects[0].extracted,
                           plan.objects[1].extracted);
  for (size_t i = 0; i < 2; i++)
    {
      assert_true (plan.objects[i].has_lto);
      assert_int_equal (plan.objects[i].group, 0);
      assert_int_equal (access (plan.objects[i].extracted, R_OK), 0);
      assert_non_null (strstr (sfdo_link_object_name (&plan.objects[i], argv),
                               "(util.o)"));
    }
  char *copy = strdup (plan.objects[0].extracted);
  sfdo_link_plan_release (&plan, 1);
  assert_int_equal (access (copy, F_OK), -1);
  free (copy);
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal (system (cmd), 0);
}

static void
test_reads_an_object (void **state)
{
  (void) state;
  char dir[256];
  temp_dir (dir, sizeof dir, "link");
  char cmd[1024], obj[512], lto[512];
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
    cmocka_unit_test (test_commands_with_archive_members),
    cmocka_unit_test (test_response_files),
    cmocka_unit_test (test_plans_archive_members),
    cmocka_unit_test (test_reads_an_object),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
