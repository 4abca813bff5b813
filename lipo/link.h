/* lipo/link.h - the grouped link: module groups (converter/groups.h)
 * turned into incremental LTO links inside an ordinary link.
 *
 * Stage 3 of the pipeline, at link time.  The objects on a link command
 * line are matched to the groups by their DWARF compile unit (the source
 * file the compiler was given, what the groups list; the one unit whose
 * path ends alike when the build names its sources otherwise).  The
 * objects of a group that carry GCC's LTO IR (compiled -flto
 * -ffat-lto-objects -fno-semantic-interposition: the last is recorded
 * with each function, and without it GCC 12 inlines none of them into
 * another file) are joined by one incremental LTO link,
 *
 *     CC FLAGS -fno-semantic-interposition -r -flto=auto
 *        -flinker-output=nolto-rel OBJECTS -o GROUP.o
 *
 * (FLAGS: the command's -O, -f, -m and -g options, the plugin's
 * included), where GCC 12 inlines across the group's files and keeps
 * their statics apart (without -fno-semantic-interposition it takes the
 * group's functions as replaceable at the final link).
 * The program is then linked as the command says, GROUP.o in place of
 * the group's objects, with -fno-lto: the fat objects outside groups
 * link as ordinary code (Debian's GCC would otherwise run whole-program
 * LTO over them).  Compile cost: each group's files are optimised once
 * more, together, at link time.
 *
 * Depends on converter/groups.h (the file), libelf and libdw.  */
#ifndef SFDO_LIPO_LINK_H
#define SFDO_LIPO_LINK_H

#include <stddef.h>

#include "../common/error.h"
#include "../converter/groups.h"

/* What an object on the command line is to the grouped link.  */
struct sfdo_link_object {
  size_t arg;                   /* its index in the command (a member's:
                                   its archive's) */
  char *unit;                   /* its first compile unit's name, or NULL */
  int has_lto;                  /* carries LTO IR (.gnu.lto_ sections) */
  ptrdiff_t group;              /* index into the groups, or -1 */
  char *extracted;              /* an archive member: the copy the group's
                                   link reads (malloc'd), else NULL */
  char *label;                  /* an archive member: "LIB.a(NAME)" */
};

/* The compile unit and LTO IR of the object file at PATH into *O.  A
   file that is not an ELF relocatable object is SFDO_E_MALFORMED.  */
enum sfdo_errc sfdo_link_read_object (const char *path,
                                      struct sfdo_link_object *o,
                                      struct sfdo_error *err);

/* The group of G that lists UNIT (exactly, else the only unit whose path
   ends in the most components alike), or -1.  */
ptrdiff_t sfdo_link_group_of (const struct sfdo_groups *g, const char *unit);

/* The plan for the command ARGV (ARGC words, ARGV[0] the compiler):
   its objects (arguments ending in .o), each with its group, and the
   members of its archives (arguments ending in .a) that carry LTO IR and
   belong to a group, each copied into MEMBER_DIR for the group's link.
   A member so grouped is linked from the group's object, placed before
   its archive, whose definitions then keep the linker from taking the
   member from the archive too.  Only members of units the profile saw
   are grouped, so only members the profiled program linked.  */
struct sfdo_link_skipped {
  size_t arg;                   /* an archive left to the linker */
  const char *why;              /* a static string */
};

struct sfdo_link_plan {
  struct sfdo_link_object *objects;
  size_t nobjects;
  struct sfdo_link_skipped *skipped;  /* archives whose members were not */
  size_t nskipped;                    /* looked at, and why */
};

enum sfdo_errc sfdo_link_plan_make (const struct sfdo_groups *g, int argc,
                                    char *const *argv,
                                    const char *member_dir,
                                    struct sfdo_link_plan *plan,
                                    struct sfdo_error *err);
/* Free PLAN; REMOVE: delete the members it extracted too.  */
void sfdo_link_plan_release (struct sfdo_link_plan *plan, int remove);

/* What the command names the object O by (ARGV: the command).  */
const char *sfdo_link_object_name (const struct sfdo_link_object *o,
                                   char *const *argv);

/* The incremental link of group GROUP into OUT: a NULL-terminated argv
   (malloc'd array, borrowed strings); NULL when fewer than two of its
   objects carry LTO IR.  */
char **sfdo_link_group_command (const struct sfdo_link_plan *plan, int argc,
                                char *const *argv, ptrdiff_t group,
                                const char *out);

/* The final link: ARGV with each linked group's objects replaced by
   OUTS[group] (NULL: the group is not linked apart) at its first
   object's place (before the archive, for a member), and -fno-lto.  */
char **sfdo_link_final_command (const struct sfdo_link_plan *plan, int argc,
                                char *const *argv, char *const *outs);

/* ARGV (ARGC words) with every argument @FILE replaced by the words
   FILE holds, as GCC reads them (separated by white space; quotes and
   backslashes escape), nested files too; an @FILE that cannot be read
   stays as it is, as GCC leaves it.  A NULL-terminated malloc'd array of
   malloc'd strings, its length in *NARGC; free it with
   sfdo_link_free_args.  */
char **sfdo_link_expand_args (int argc, char *const *argv, int *nargc);
void sfdo_link_free_args (char **args);

#endif
