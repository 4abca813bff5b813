/* converter/groups.h - module groups for cross-module inlining without
 * whole-program LTO (LIPO), from a profile's call edges.
 *
 * Stage 2 of the pipeline, beside the profile, or later from a merged
 * profile (sfdo-profile group).  Every function is attributed to the
 * compile unit the profile records for it (the source file the compiler
 * was given, from DWARF: units.h); every call the profile counts from a
 * function of one unit to a function of another (direct calls, indirect
 * calls by their targets, and inline instances the profiled binary had,
 * as LTO builds make them) adds its count to the pair of units.  Units
 * are then joined into disjoint groups, the heaviest pairs first, until
 * the groups hold a cut-off share of all the cross-unit call weight
 * (AutoFDO's LIPO grouper used 85%), no group growing past a number of
 * units.  Disjoint, unlike LIPO's auxiliary modules (one module could
 * serve several primaries there): a group is built as one incremental
 * LTO link (gcc -r -flto -flinker-output=nolto-rel
 * -fno-semantic-interposition: GCC 12 inlines across the group's files,
 * keeps their statics apart and leaves the rest of the program an
 * ordinary link), and an object can be in only one such link.  What it
 * costs (bench/RESULTS.md, module groups): the whole build takes 1.2 to
 * 1.9 times as long as file by file, since every file is compiled
 * -ffat-lto-objects (IR and code) and each group's files are optimised
 * again, together, at the link; what it gives on Lua, where the hot
 * calls cross files: instructions 0.900 of -O2's against 0.957 file by
 * file, the wall-time gain of PGO (0.898 against PGO's 0.911).
 *
 * The file (FORMAT below) is text, for people and for the link step:
 *
 *     # sfdo-groups: 1
 *     # cross-unit call weight W; the groups hold P% of it (cut-off C%,
 *     # at most N units a group)
 *     group 1 weight W1
 *       src/a.c
 *       src/b.c
 *     group 2 ...
 *
 * Depends on the profile library only.  */
#ifndef SFDO_CONVERTER_GROUPS_H
#define SFDO_CONVERTER_GROUPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"
#include "../profiles/profile.h"

struct sfdo_groups_opts {
  double cutoff;                /* share of the cross-unit weight, 0..1 */
  size_t max_units;             /* per group, at least 2 */
};

/* The defaults: 85%, 8 units.  */
#define SFDO_GROUPS_CUTOFF 0.85
#define SFDO_GROUPS_MAX_UNITS 8

struct sfdo_group {
  uint64_t weight;              /* the cross-unit calls inside it */
  const char **units;           /* borrowed from the profile's strings */
  size_t nunits;
};

struct sfdo_groups {
  char *text;                   /* what a read file's units point into */
  struct sfdo_group *groups;    /* heaviest first, each of 2+ units */
  size_t ngroups;
  uint64_t cross_weight;        /* all cross-unit call weight */
  uint64_t grouped_weight;      /* of it, inside a group */
  size_t nunits;                /* units with a function in the profile */
};

/* Call weight between two units (indices into a list of names).  */
struct sfdo_groups_pair {
  uint64_t a, b, weight;
};

/* Join the NUNITS units NAMES by the N pairs P (reordered), of CROSS
   cross-unit weight in all, into OUT: the heaviest pairs first, while
   the weight inside groups is under O->cutoff of CROSS, no group past
   O->max_units units.  NAMES are borrowed.  */
void sfdo_groups_join (const char *const *names, size_t nunits,
                       struct sfdo_groups_pair *p, size_t n, uint64_t cross,
                       const struct sfdo_groups_opts *o,
                       struct sfdo_groups *out);

/* The groups of the functions of P, by the units it records for them
   (units.h); none for a profile that records none.  */
void sfdo_groups_make (struct sfdo_profile *p,
                       const struct sfdo_groups_opts *o,
                       struct sfdo_groups *out);

/* Write G (made with O) to F in the format above.  */
void sfdo_groups_write (const struct sfdo_groups *g,
                        const struct sfdo_groups_opts *o, FILE *f);

/* Say on F how many groups G holds, of how many units, and the share of
   the cross-unit call weight they hold; DEST names where they went.  */
void sfdo_groups_summary (const struct sfdo_groups *g, const char *tool,
                          const char *dest, FILE *f);

/* Read the groups file at PATH into *G (its counts of units and weight
   are left 0).  A line that is not of the format is SFDO_E_MALFORMED
   naming the file and line.  */
enum sfdo_errc sfdo_groups_read (const char *path, struct sfdo_groups *g,
                                 struct sfdo_error *err);

void sfdo_groups_release (struct sfdo_groups *g);

#endif
