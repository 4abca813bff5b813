/* tests/unit/profiles/test_llvm.c - LLVM's text sample profile: clang's
 * discriminator encoding, the export's folding by base discriminator and
 * duplication factor, same-named static functions, and reading LLVM's
 * encoding back.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../profiles/profile_int.h"

static uint32_t
S (struct sfdo_profile *p, const char *s)
{
  return sfdo_profile_intern_str (p, s);
}

/* P exported as LLVM's text, malloc'd; *LOST says what was left out.  */
static char *
export_llvm (struct sfdo_profile *p, struct sfdo_export_report *lost)
{
  char *buf = NULL;
  size_t len;
  FILE *f = open_memstream (&buf, &len);
  struct sfdo_error err;
  sfdo_error_clear (&err);
  assert_non_null (f);
  assert_int_equal (sfdo_llvm_write (p, f, "mem", lost, &err), SFDO_OK);
  assert_int_equal (fclose (f), 0);
  return buf;
}

static struct sfdo_profile *
read_text (const char *text, enum sfdo_errc expect, struct sfdo_error *err)
{
  struct sfdo_profile *p = NULL;
  sfdo_error_clear (err);
  assert_int_equal (sfdo_profile_read_mem (text, strlen (text), "mem", &p,
                                           err), expect);
  return p;
}

/* The count of line (OFFSET, DISC) of F, or -1.  */
static long long
count_at (const struct sfdo_prof_func *f, uint32_t offset, uint32_t disc)
{
  const struct sfdo_prof_line *l = sfdo_prof_func_find_line (f, offset, disc);
  return l ? (long long) l->count : -1;
}

/* Discriminators as clang 14 writes them (llvm-dwarfdump of real
   binaries: 2, 4, 514, 1026, 2564 and 9 were all seen).  */
static void
test_decodes_clang_discriminators (void **state)
{
  (void) state;
  static const struct { uint32_t d, base, df; } cases[] = {
    { 0, 0, 1 }, { 1, 0, 1 }, { 2, 1, 1 }, { 4, 2, 1 }, { 6, 3, 1 },
    { 514, 1, 2 }, { 516, 2, 2 }, { 518, 3, 2 }, { 1026, 1, 4 },
    { 2564, 2, 10 }, { 9, 0, 2 }, { 0xd0, 40, 1 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    {
      assert_int_equal (sfdo_llvm_base_discriminator (cases[i].d),
                        cases[i].base);
      assert_int_equal (sfdo_llvm_duplication_factor (cases[i].d),
                        cases[i].df);
    }
}

static void
test_encodes_every_base (void **state)
{
  (void) state;
  for (uint32_t b = 0; b <= SFDO_LLVM_MAX_BASE; b++)
    {
      uint32_t d = 12345;
      assert_int_equal (sfdo_llvm_encode_base (b, &d), 0);
      assert_int_equal (sfdo_llvm_base_discriminator (d), b);
      assert_int_equal (sfdo_llvm_duplication_factor (d), 1);
    }
  uint32_t d;
  assert_int_equal (sfdo_llvm_encode_base (2, &d), 0);
  assert_int_equal (d, 4);
  assert_int_equal (sfdo_llvm_encode_base (SFDO_LLVM_MAX_BASE + 1, &d), -1);
}

/* main: line 3 under three discriminators of base 1 and one of base 0, a
   zero line, call targets, an inlinee at a callsite with a duplication
   factor; two static functions "step" of different files.  */
static struct sfdo_profile *
clang_profile (void)
{
  struct sfdo_profile *p = sfdo_profile_new ();
  sfdo_profile_add_build_id (p, "abcd");
  struct sfdo_prof_func *m = sfdo_profile_add_func (p, S (p, "main"), 0);
  m->head = 1;
  sfdo_prof_func_add_line (m, 3, 0, 7);
  struct sfdo_prof_line *l = sfdo_prof_func_add_line (m, 3, 2, 10);
  sfdo_prof_line_add_target (l, S (p, "step"), 6);
  sfdo_prof_func_add_line (m, 3, 514, 5);     /* base 1, x2 */
  l = sfdo_prof_func_add_line (m, 3, 1026, 1);  /* base 1, x4 */
  sfdo_prof_line_add_target (l, S (p, "step"), 3);
  sfdo_prof_func_add_line (m, 4, 0, 0);
  sfdo_prof_func_add_value (m, 3, 2, SFDO_VALUE_DIVMOD, 8, 4);
  struct sfdo_prof_func *c = sfdo_prof_func_add_callsite (m, 5, 514,
                                                          S (p, "inl"), 0);
  c->head = 2;
  sfdo_prof_func_add_line (c, 1, 2564, 3);    /* base 2, x10 */
  sfdo_prof_func_add_line (c, 1, 4, 1);
  struct sfdo_prof_func *c2 = sfdo_prof_func_add_callsite (m, 5, 2,
                                                           S (p, "inl"), 0);
  sfdo_prof_func_add_line (c2, 1, 4, 2);
  struct sfdo_prof_func *a = sfdo_profile_add_func (p, S (p, "step"),
                                                    S (p, "a.c"));
  a->head = 4;
  sfdo_prof_func_add_line (a, 1, 0, 40);
  struct sfdo_prof_func *b = sfdo_profile_add_func (p, S (p, "step"),
                                                    S (p, "b.c"));
  b->head = 5;
  sfdo_prof_func_add_line (b, 1, 0, 2);
  sfdo_prof_func_add_line (b, 2, 2, 3);
  sfdo_prof_func_sum_totals (m);
  sfdo_prof_func_sum_totals (a);
  sfdo_prof_func_sum_totals (b);
  return p;
}

static void
test_export_folds_by_base_discriminator (void **state)
{
  (void) state;
  struct sfdo_profile *p = clang_profile ();
  struct sfdo_export_report lost;
  char *text = export_llvm (p, &lost);
  /* base 1 of line 3: 10 + 5*2 + 1*4; the targets summed; the zero line
     kept, the value histogram gone; the inlinee's two callsites of base 1
     merged, its lines of base 2 summed with 3 * 10.  */
  assert_non_null (strstr (text, "\n 3: 7\n 3.1: 24 step:9\n 4: 0\n"));
  assert_non_null (strstr (text, "\n 5.1: inl:33\n  1.2: 33\n"));
  /* main's total grows by what the duplication factors added: 5 + 3 + 27. */
  assert_non_null (strstr (text, "\nmain:64:1\n"));
  assert_null (strstr (text, "sfdo-profile:"));
  assert_null (strstr (text, "!"));
  assert_int_equal (lost.value_histograms, 1);
  assert_int_equal (lost.inline_heads, 1);
  assert_int_equal (lost.files, 0);
  assert_int_equal (lost.merged_functions, 1);
  assert_false (lost.no_discriminators);
  assert_false (lost.foreign_discriminators);
  free (text);
  sfdo_profile_free (p);
}

static void
test_export_merges_same_named_statics_with_a_note (void **state)
{
  (void) state;
  struct sfdo_profile *p = clang_profile ();
  struct sfdo_export_report lost;
  char *text = export_llvm (p, &lost);
  assert_non_null (strstr (text, "\n# merged: step: 2 functions of that name, "
                                 "summed (files: a.c, b.c)\n"));
  assert_non_null (strstr (text, "\nstep:45:9\n 1: 42\n 2.1: 3\n"));
  /* LLVM's reader keeps the last of two functions of one name.  */
  const char *first = strstr (text, "\nstep:");
  assert_null (strstr (first + 1, "\nstep:"));
  free (text);
  sfdo_profile_free (p);
}

static void
test_import_reads_base_discriminators_back (void **state)
{
  (void) state;
  struct sfdo_profile *p = clang_profile ();
  struct sfdo_export_report lost;
  char *text = export_llvm (p, &lost);
  struct sfdo_error err;
  struct sfdo_profile *q = read_text (text, SFDO_OK, &err);
  struct sfdo_prof_func *m = sfdo_profile_find (q, "main", NULL, &err);
  assert_non_null (m);
  assert_int_equal (m->total, 64);
  assert_int_equal (count_at (m, 3, 0), 7);
  assert_int_equal (count_at (m, 3, 2), 24);     /* base 1 is DWARF's 2 */
  assert_int_equal (m->ncallsites, 1);
  assert_int_equal (m->callsites[0].discriminator, 2);
  assert_int_equal (count_at (m->callsites[0].callee, 1, 4), 33);
  /* The header came back; exporting again writes the same text, but for
     the note on the merge, done already.  */
  assert_int_equal (sfdo_profile_header (q)->nbuild_ids, 1);
  char *again = export_llvm (q, &lost);
  char *note = strstr (text, "# merged: ");
  assert_non_null (note);
  memmove (note, strchr (note, '\n') + 1, strlen (strchr (note, '\n')));
  assert_string_equal (again, text);
  assert_int_equal (lost.merged_functions, 0);
  free (again);
  free (text);
  sfdo_profile_free (q);
  sfdo_profile_free (p);
}

static void
test_sfdo_text_keeps_its_discriminators (void **state)
{
  (void) state;
  struct sfdo_error err;
  struct sfdo_profile *p
    = read_text ("# sfdo-profile: 1\nf:5:1\n 1.514: 5\n", SFDO_OK, &err);
  assert_int_equal (count_at (sfdo_profile_find (p, "f", NULL, &err), 1, 514),
                    5);
  sfdo_profile_free (p);
  p = read_text ("f:5:1\n 1.40: 5\n", SFDO_OK, &err);
  assert_int_equal (count_at (sfdo_profile_find (p, "f", NULL, &err), 1,
                              0xd0), 5);
  sfdo_profile_free (p);
}

static void
test_import_rejects_what_is_no_base_discriminator (void **state)
{
  (void) state;
  struct sfdo_error err;
  assert_null (read_text ("f:5:1\n 1: 1\n 2.4096: 5\n", SFDO_E_RANGE, &err));
  assert_int_equal (err.line, 3);
  assert_int_equal (err.col, 4);
  assert_null (read_text ("f:5:1\n 2.4096: g:5\n  1: 5\n", SFDO_E_RANGE,
                          &err));
}

static void
test_export_notes_a_profile_without_discriminators (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "f"), 0);
  sfdo_prof_func_add_line (f, 1, 0, 5);
  sfdo_prof_func_add_line (f, 70000, 0, 5);
  sfdo_prof_func_sum_totals (f);
  struct sfdo_export_report lost;
  char *text = export_llvm (p, &lost);
  assert_true (lost.no_discriminators);
  assert_int_equal (lost.positions, 1);
  assert_non_null (strstr (text, "\nf:10:0\n 1: 5\n"));
  free (text);
  sfdo_profile_free (p);
}

/* GCC numbers discriminators 1, 2, 3: they stay as they are, and the file
   says so by sfdo's version line, so reading it back keeps them too.  */
static void
test_export_keeps_gcc_discriminators (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f = sfdo_profile_add_func (p, S (p, "f"), 0);
  sfdo_prof_func_add_line (f, 1, 1, 5);
  sfdo_prof_func_add_line (f, 1, 9, 5);
  sfdo_prof_func_add_line (f, 2, 2, 3);
  sfdo_prof_func_sum_totals (f);
  struct sfdo_export_report lost;
  char *text = export_llvm (p, &lost);
  assert_true (lost.foreign_discriminators);
  assert_false (lost.no_discriminators);
  assert_non_null (strstr (text, "# sfdo-profile: 1\n"));
  assert_non_null (strstr (text, "\nf:13:0\n 1.1: 5\n 1.9: 5\n 2.2: 3\n"));
  struct sfdo_error err;
  struct sfdo_profile *q = read_text (text, SFDO_OK, &err);
  assert_int_equal (count_at (sfdo_profile_find (q, "f", NULL, &err), 1, 9),
                    5);
  sfdo_profile_free (q);
  free (text);
  sfdo_profile_free (p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_decodes_clang_discriminators),
    cmocka_unit_test (test_encodes_every_base),
    cmocka_unit_test (test_export_folds_by_base_discriminator),
    cmocka_unit_test (test_export_merges_same_named_statics_with_a_note),
    cmocka_unit_test (test_import_reads_base_discriminators_back),
    cmocka_unit_test (test_sfdo_text_keeps_its_discriminators),
    cmocka_unit_test (test_import_rejects_what_is_no_base_discriminator),
    cmocka_unit_test (test_export_notes_a_profile_without_discriminators),
    cmocka_unit_test (test_export_keeps_gcc_discriminators),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
