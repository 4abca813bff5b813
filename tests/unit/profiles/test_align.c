/* tests/unit/profiles/test_align.c - a profile aligned to a newer source
 * by its call sites (profiles/align.h).  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../profiles/align.h"
#include "../../../profiles/profile.h"

#define LEN(a) (sizeof (a) / sizeof (a)[0])

/* The pairs aligning OLD (NOLD) with CUR (NCUR), which must succeed;
   their number into *N.  */
static struct sfdo_anchor_pair *
aligned (const struct sfdo_anchor *old, size_t nold,
         const struct sfdo_anchor *cur, size_t ncur, size_t *n)
{
  struct sfdo_anchor_pair *p;
  assert_int_equal (sfdo_align_anchors (old, nold, cur, ncur, &p, n), 0);
  return p;
}

static void
test_callees_compare_without_clone_suffixes (void **state)
{
  (void) state;
  assert_true (sfdo_same_callee ("foo.isra.0", "foo"));
  assert_true (sfdo_same_callee ("*foo", "foo.constprop.1"));
  assert_false (sfdo_same_callee ("foo", "foobar"));
  assert_false (sfdo_same_callee ("foo", "fo"));
}

/* Lines 6-7 inserted before b: everything from b on moves by 3.  */
static void
test_alignment_follows_an_insertion (void **state)
{
  (void) state;
  const struct sfdo_anchor old[] = { { 5, "a" }, { 8, "b" }, { 10, "c" },
                                     { 14, "d" } };
  const struct sfdo_anchor cur[] = { { 5, "a" }, { 7, "new" }, { 11, "b" },
                                     { 13, "c" }, { 17, "d" }, { 20, "e" } };
  size_t n;
  struct sfdo_anchor_pair *p = aligned (old, LEN (old), cur, LEN (cur), &n);
  assert_int_equal (n, 4);
  const int64_t want[][2] = { { 5, 5 }, { 8, 11 }, { 10, 13 }, { 14, 17 } };
  for (size_t i = 0; i < n; i++)
    {
      assert_int_equal (p[i].from, want[i][0]);
      assert_int_equal (p[i].to, want[i][1]);
    }
  assert_false (sfdo_anchor_pairs_unmoved (p, n));
  int strong;
  /* Before the first anchor: between the declaration and a, unmoved.  */
  assert_int_equal (sfdo_anchor_move (p, n, 3, &strong), 3);
  assert_true (strong);
  /* Between a and b, whose stretch grew: with the nearer anchor, b.  */
  assert_int_equal (sfdo_anchor_move (p, n, 7, &strong), 10);
  assert_false (strong);
  assert_int_equal (sfdo_anchor_move (p, n, 6, &strong), 6);
  assert_false (strong);
  /* Between b and c, which kept their distance, and after d.  */
  assert_int_equal (sfdo_anchor_move (p, n, 9, &strong), 12);
  assert_true (strong);
  assert_int_equal (sfdo_anchor_move (p, n, 16, &strong), 19);
  assert_true (strong);
  free (p);
}

/* The profiled binary merged two identical calls and kept the second's
   lines: they match the second copy, and nothing moved.  */
static void
test_ties_keep_anchors_in_place (void **state)
{
  (void) state;
  const struct sfdo_anchor old[] = { { 5, "index" }, { 24, "barrier" },
                                     { 25, "check" } };
  const struct sfdo_anchor cur[] = { { 5, "index" }, { 16, "barrier" },
                                     { 17, "check" }, { 24, "barrier" },
                                     { 25, "check" } };
  size_t n;
  struct sfdo_anchor_pair *p = aligned (old, LEN (old), cur, LEN (cur), &n);
  assert_int_equal (n, 3);
  assert_true (sfdo_anchor_pairs_unmoved (p, n));
  free (p);
}

/* Branch lines only (a function without calls): {18, 21} in the profile,
   {14, 18} today.  Pairing 18-14 and 21-18 pairs more anchors, but
   leaving 18 in place is as likely and moves nothing: nothing moved.  */
static void
test_branch_ties_keep_anchors_in_place (void **state)
{
  (void) state;
  const struct sfdo_anchor old[] = { { 18, sfdo_branch_anchor },
                                     { 21, sfdo_branch_anchor } };
  const struct sfdo_anchor cur[] = { { 14, sfdo_branch_anchor },
                                     { 18, sfdo_branch_anchor } };
  size_t n;
  struct sfdo_anchor_pair *p = aligned (old, LEN (old), cur, LEN (cur), &n);
  assert_int_equal (n, 1);
  assert_int_equal (p[0].from, 18);
  assert_int_equal (p[0].to, 18);
  free (p);
}

/* The last branch out of step with the two before it, which agree, is
   noise; a function's only two branches, or one, are not.  */
static void
test_last_lone_branch_is_dropped (void **state)
{
  (void) state;
  struct sfdo_anchor old[] = { { 7, sfdo_branch_anchor },
                               { 13, sfdo_branch_anchor },
                               { 16, sfdo_branch_anchor },
                               { 18, sfdo_branch_anchor } };
  struct sfdo_anchor cur[] = { { 7, sfdo_branch_anchor },
                               { 13, sfdo_branch_anchor },
                               { 16, sfdo_branch_anchor },
                               { 21, sfdo_branch_anchor } };
  size_t n;
  struct sfdo_anchor_pair *p = aligned (old, LEN (old), cur, LEN (cur), &n);
  assert_int_equal (n, 3);
  assert_true (sfdo_anchor_pairs_unmoved (p, n));
  free (p);
  /* Two branches, the second moved: an edit between them, kept.  */
  p = aligned (old + 2, 2, cur + 2, 2, &n);
  assert_int_equal (n, 2);
  assert_int_equal (p[1].to, 21);
  free (p);
  /* The only branch, moved: kept.  */
  p = aligned (old + 3, 1, cur + 3, 1, &n);
  assert_int_equal (n, 1);
  assert_false (sfdo_anchor_pairs_unmoved (p, n));
  free (p);
}

static void
test_similar_names_and_shared_calls (void **state)
{
  (void) state;
  assert_true (sfdo_similar_names ("mix_all", "mix_all2"));
  assert_true (sfdo_similar_names ("luaH_getstr", "luaH_getstring.part.0"));
  assert_false (sfdo_similar_names ("mix_all", "mix_all"));
  assert_false (sfdo_similar_names ("mix_all", "report"));
  const struct sfdo_anchor old[] = { { 5, "next" }, { 8, "odd" },
                                     { 9, sfdo_branch_anchor },
                                     { 10, "even" }, { 14, "report" } };
  const struct sfdo_anchor cur[] = { { 5, "next" }, { 8, "even" },
                                     { 10, "even" }, { 14, "report" } };
  assert_int_equal (sfdo_anchors_calls (old, LEN (old)), 4);
  size_t shared = sfdo_anchors_shared (old, LEN (old), cur, LEN (cur));
  assert_int_equal (shared, 3);
  assert_true (SFDO_SHARES_ENOUGH (shared, 4));
  assert_false (SFDO_SHARES_ENOUGH (1, 4));
}

static void
test_too_large_alignment_is_refused (void **state)
{
  (void) state;
  size_t n = 4096;
  struct sfdo_anchor *a = calloc (n, sizeof *a);
  for (size_t i = 0; i < n; i++)
    a[i] = (struct sfdo_anchor) { (uint32_t) i, "f" };
  struct sfdo_anchor_pair *p;
  size_t np;
  assert_int_equal (sfdo_align_anchors (a, n, a, n, &p, &np), -1);
  assert_null (p);
  assert_int_equal (np, 0);
  free (a);
}

/* A profile's anchors: its callsites values and its inline instances,
   sorted and distinct.  */
static void
test_profile_anchors (void **state)
{
  (void) state;
  struct sfdo_profile *p = sfdo_profile_new ();
  struct sfdo_prof_func *f
    = sfdo_profile_add_func (p, sfdo_profile_intern_str (p, "main"), 0);
  uint32_t b = sfdo_profile_intern_str (p, "b");
  uint32_t a = sfdo_profile_intern_str (p, "a");
  sfdo_prof_func_add_value (f, 9, 0, SFDO_VALUE_CALL_SITES, b, 1);
  sfdo_prof_func_add_value (f, 3, 2, SFDO_VALUE_CALL_SITES, a, 1);
  sfdo_prof_func_add_value (f, 3, 0, SFDO_VALUE_CALL_SITES, a, 1);
  sfdo_prof_func_add_value (f, 4, 0, SFDO_VALUE_MEMSIZE, 8, 100);
  sfdo_prof_func_add_callsite (f, 6, 0, sfdo_profile_intern_str (p, "c"), 0);
  size_t n;
  struct sfdo_anchor *x = sfdo_prof_func_anchors (p, f, &n);
  assert_int_equal (n, 3);
  assert_int_equal (x[0].offset, 3);
  assert_string_equal (x[0].name, "a");
  assert_int_equal (x[1].offset, 6);
  assert_string_equal (x[1].name, "c");
  assert_int_equal (x[2].offset, 9);
  assert_string_equal (x[2].name, "b");
  free (x);
  sfdo_profile_free (p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_callees_compare_without_clone_suffixes),
    cmocka_unit_test (test_alignment_follows_an_insertion),
    cmocka_unit_test (test_ties_keep_anchors_in_place),
    cmocka_unit_test (test_branch_ties_keep_anchors_in_place),
    cmocka_unit_test (test_last_lone_branch_is_dropped),
    cmocka_unit_test (test_similar_names_and_shared_calls),
    cmocka_unit_test (test_too_large_alignment_is_refused),
    cmocka_unit_test (test_profile_anchors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
