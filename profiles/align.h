/* profiles/align.h - a function's profile from an older source, aligned
 * to a newer source by its call sites (issue #18).
 *
 * Line offsets count from a function's declaration, so edits above it
 * leave its profile fitting, but an edit inside it moves every later
 * line.  The profile records the calls the profiled binary made at each
 * position (SFDO_VALUE_CALL_SITES, and its inline instances); the newer
 * source calls mostly the same functions in the same order.  The two
 * sequences of anchors are aligned by callee name (the longest common
 * subsequence: BMAT's call-site anchors, at source level), and each line
 * moves with the anchors around it.  Used by the plugin (today's GIMPLE
 * is the newer source, plugin/stale.cc) and by `sfdo-profile align`
 * (a newer binary's DWARF is).  */
#ifndef SFDO_PROFILES_ALIGN_H
#define SFDO_PROFILES_ALIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_profile;
struct sfdo_prof_func;

/* A call to NAME at line offset OFFSET.  */
struct sfdo_anchor {
  uint32_t offset;
  const char *name;
};

/* A matched pair: the older source's offset and the newer one's, and
   whether the anchors are branches.  */
struct sfdo_anchor_pair {
  int64_t from, to;
  int branch;
};

/* Whether callee names A and B name one function: GCC's clone suffixes
   (.isra.0, .constprop.0, .part.0, .cold) and an assembler '*' aside.  */
int sfdo_same_callee (const char *a, const char *b);

/* Sort the N anchors A by offset and name and drop repeats; returns how
   many are left.  */
size_t sfdo_anchors_sort (struct sfdo_anchor *a, size_t n);

/* The name of a branch anchor: a line GCC gave discriminators (several
   blocks on one line: a loop's header, a condition), the same in every
   build of the same source, so that a function with no call still has
   anchors.  */
extern const char sfdo_branch_anchor[];

/* The anchors of F, a function of P: the callees its call sites name, its
   inline instances, and its lines with discriminators (branch anchors),
   sorted and distinct; *N of them (malloc'd, NULL if none).  */
struct sfdo_anchor *sfdo_prof_func_anchors (const struct sfdo_profile *p,
                                            const struct sfdo_prof_func *f,
                                            size_t *n);

/* Align the sorted anchors OLD (NOLD) with CUR (NCUR), by their calls
   alone where OLD has calls, by their branches where it has none: a
   common
   subsequence by callee name of the highest score, a call counting twice
   a branch and an anchor left at its offset twice one moved (the
   profiled binary may have merged two identical calls and kept one
   copy's line: the copy it kept must match).  A pair of branches that
   moved by another distance than the pairs on either side of it, which
   agree, is dropped: optimisation merges and drops blocks, and a lone
   branch out of step is such noise, where an edit moves a run of anchors
   together.  The
   pairs, in order, into *PAIRS (malloc'd, with room for one more: a
   caller's closing-line anchor) and *NPAIRS.  Returns 0, or -1 (nothing
   aligned) when NOLD * NCUR is over SFDO_MAX_ALIGN_CELLS.  */
#define SFDO_MAX_ALIGN_CELLS (4u << 20)
int sfdo_align_anchors (const struct sfdo_anchor *old, size_t nold,
                        const struct sfdo_anchor *cur, size_t ncur,
                        struct sfdo_anchor_pair **pairs, size_t *npairs);

/* Whether each of the N PAIRS kept its offset.  */
int sfdo_anchor_pairs_unmoved (const struct sfdo_anchor_pair *pairs,
                               size_t n);

/* Where line OFFSET of the older source is in the newer one, by the N
   sorted PAIRS (the declaration, offset 0, is an anchor that never
   moves): between two anchors whose stretch kept its length, at the same
   distance from the one before (*STRONG set); where it grew or shrank, at
   the same distance from the nearer one (*STRONG cleared: a guess);
   after the last, with it.  May be negative (the caller drops it).  */
int64_t sfdo_anchor_move (const struct sfdo_anchor_pair *pairs, size_t n,
                          uint32_t offset, int *strong);

/* Whether function names A and B are alike but not the same: at most
   two fifths of the longer one's characters edited (clone suffixes and
   an assembler '*' aside).  */
int sfdo_similar_names (const char *a, const char *b);

/* How many of the call anchors of OLD (NOLD) a renamed function's body
   CUR (NCUR) shares, aligned as sfdo_align_anchors aligns them.  A
   function found by a similar name must share at least half of OLD's
   calls, and one: SFDO_SHARES_ENOUGH.  */
size_t sfdo_anchors_shared (const struct sfdo_anchor *old, size_t nold,
                            const struct sfdo_anchor *cur, size_t ncur);
#define SFDO_SHARES_ENOUGH(shared, calls) \
  ((shared) >= 1 && 2 * (shared) >= (calls))

/* The number of call anchors among the N anchors A.  */
size_t sfdo_anchors_calls (const struct sfdo_anchor *a, size_t n);

/* What aligning a profile to a newer binary's shape found: functions
   whose call sites were where they had been, whose lines moved, that had
   no call site to align by, that the newer binary does not have (by
   name); the weight of moved functions' lines placed strongly, weakly,
   and left out (no code there now).  */
struct sfdo_align_report {
  size_t exact, moved, unanchored, missing, renamed;
  size_t moved_instances;       /* inline instances whose lines moved */
  uint64_t strong, weak, dropped;
};

/* The shape signature of F (of P): a hash of the callee names of its
   anchors in order (clone suffixes aside; branch anchors left out), the
   same whatever their offsets; 0 when it has fewer than two calls (too
   little to tell two functions apart).  */
uint64_t sfdo_prof_func_signature (const struct sfdo_profile *p,
                                   const struct sfdo_prof_func *f);
uint64_t sfdo_anchors_signature (const struct sfdo_anchor *a, size_t n);

/* Align every function of P to SHAPE (a newer binary's shape, as
   converter/anchors.h's sfdo_binary_shape makes it: call sites and lines
   of count 0): where its call sites moved, its lines move with them, in
   place.  A function SHAPE lacks by name takes the name of the one
   function of SHAPE that P lacks and that has its shape signature, of the
   same linkage (a renamed function; BMAT's cascade), failing that of the
   one with a similar name that shares enough of its calls.  With NOTES, a line
   per moved or renamed function.  P is finalized again on return.  */
void sfdo_align_to_shape (struct sfdo_profile *p, struct sfdo_profile *shape,
                          struct sfdo_align_report *r, FILE *notes);

#ifdef __cplusplus
}
#endif

#endif
