/* lipo/link.c - the grouped link's plan and commands (link.h).  */
#include "link.h"

#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "../common/path.h"
#include "../common/xalloc.h"

/* --- Objects ----------------------------------------------------------------- */

/* Whether ELF has a section named .gnu.lto_*: GCC's LTO IR.  */
static int
has_lto_sections (Elf *elf)
{
  size_t shstrndx;
  Elf_Scn *scn = NULL;
  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return 0;
  while ((scn = elf_nextscn (elf, scn)))
    {
      GElf_Shdr sh;
      const char *name = gelf_getshdr (scn, &sh)
                         ? elf_strptr (elf, shstrndx, sh.sh_name) : NULL;
      if (name && strncmp (name, ".gnu.lto_", 9) == 0)
        return 1;
    }
  return 0;
}

/* The name of the first DWARF compile unit of the object at PATH
   (malloc'd), or NULL.  Through libdwfl, which applies an object's
   relocations: GCC's DW_AT_name is an offset into .debug_line_str that
   only a relocation gives.  */
static char *
first_unit (const char *path)
{
  static const Dwfl_Callbacks offline = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
  };
  Dwfl *dwfl = dwfl_begin (&offline);
  Dwfl_Module *mod = NULL;
  Dwarf_Addr bias;
  Dwarf *dw = NULL;
  Dwarf_CU *cu = NULL;
  Dwarf_Die cudie;
  const char *name = NULL;
  if (dwfl)
    {
      dwfl_report_begin (dwfl);
      mod = dwfl_report_offline (dwfl, path, path, -1);
      dwfl_report_end (dwfl, NULL, NULL);
    }
  if (mod)
    dw = dwfl_module_getdwarf (mod, &bias);
  if (dw && dwarf_get_units (dw, NULL, &cu, NULL, NULL, &cudie, NULL) == 0)
    name = dwarf_diename (&cudie);
  char *copy = name ? sfdo_xstrndup (name, strlen (name)) : NULL;
  if (dwfl)
    dwfl_end (dwfl);
  return copy;
}

enum sfdo_errc
sfdo_link_read_object (const char *path, struct sfdo_link_object *o,
                       struct sfdo_error *err)
{
  struct stat st;
  GElf_Ehdr eh;
  o->unit = NULL;
  o->has_lto = 0;
  o->group = -1;
  if (stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return sfdo_error_sys (err, path, "cannot read the object file");
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return sfdo_error_sys (err, path, "cannot open the object file");
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  enum sfdo_errc rc = SFDO_OK;
  if (!elf || !gelf_getehdr (elf, &eh) || eh.e_type != ET_REL)
    rc = sfdo_error_set (err, SFDO_E_MALFORMED, path, SFDO_NO_OFFSET, 0, 0,
                         "not an ELF relocatable object (.o)");
  else
    {
      o->has_lto = has_lto_sections (elf);
      o->unit = first_unit (path);
    }
  if (elf)
    elf_end (elf);
  close (fd);
  return rc;
}

ptrdiff_t
sfdo_link_group_of (const struct sfdo_groups *g, const char *unit)
{
  struct sfdo_path_pick pick;
  sfdo_path_pick_init (&pick, unit);
  for (size_t i = 0; i < g->ngroups; i++)
    for (size_t k = 0; k < g->groups[i].nunits; k++)
      sfdo_path_pick_offer (&pick, g->groups[i].units[k],
                            strlen (g->groups[i].units[k]), (ptrdiff_t) i);
  return sfdo_path_pick_result (&pick);
}

/* --- The plan --------------------------------------------------------------- */

/* Whether the argument A names a file (it is no option) ending in
   SUFFIX.  */
static int
file_ending_in (const char *a, const char *suffix)
{
  size_t n = strlen (a), k = strlen (suffix);
  return a[0] != '-' && n > k && strcmp (a + n - k, suffix) == 0;
}

static struct sfdo_link_object *
plan_add (struct sfdo_link_plan *plan, size_t *cap)
{
  sfdo_xgrow (&plan->objects, cap, plan->nobjects + 1, sizeof *plan->objects);
  struct sfdo_link_object *o = &plan->objects[plan->nobjects];
  memset (o, 0, sizeof *o);
  return o;
}

/* What planning a command keeps between its arguments.  */
struct planner {
  const struct sfdo_groups *g;
  const char *dir;              /* where archive members are copied */
  size_t cap;                   /* of the plan's objects */
  size_t copies;                /* members copied so far: their names */
  int whole_archive;            /* inside -Wl,--whole-archive */
};

/* Copy the archive member M (its header H) of ARCHIVE into PL's
   directory; *COPY is the copy's path (malloc'd), NULL if M has no
   bytes.  */
static enum sfdo_errc
extract_member (Elf *m, const Elf_Arhdr *h, const char *archive,
                struct planner *pl, char **copy, struct sfdo_error *err)
{
  size_t size;
  char *raw = elf_rawfile (m, &size);
  *copy = NULL;
  if (!raw)
    return SFDO_OK;
  const char *base = strrchr (h->ar_name, '/');
  base = base ? base + 1 : h->ar_name;
  size_t len = strlen (pl->dir) + strlen (base) + 32;
  char *path = sfdo_xmalloc (len);
  snprintf (path, len, "%s/m%zu-%s", pl->dir, pl->copies++, base);
  FILE *f = fopen (path, "wb");
  int ok = f && fwrite (raw, 1, size, f) == size;
  int saved = errno;
  if (f && fclose (f) != 0 && ok)
    ok = 0, saved = errno;
  if (ok)
    {
      *copy = path;
      return SFDO_OK;
    }
  char what[512];
  snprintf (what, sizeof what, "cannot copy member %s of %s", h->ar_name,
            archive);
  errno = saved;
  sfdo_error_sys (err, path, what);
  unlink (path);
  free (path);
  return SFDO_E_IO;
}

/* Plan member M (header H) of ARGV[ARG], an archive, if it carries LTO
   IR and its unit is in a group.  */
static enum sfdo_errc
plan_member (Elf *m, const Elf_Arhdr *h, char *const *argv, size_t arg,
             struct planner *pl, struct sfdo_link_plan *plan,
             struct sfdo_error *err)
{
  GElf_Ehdr eh;
  char *copy;
  if (!h || h->ar_name[0] == '/' || !gelf_getehdr (m, &eh)
      || eh.e_type != ET_REL || !has_lto_sections (m))
    return SFDO_OK;
  enum sfdo_errc rc = extract_member (m, h, argv[arg], pl, &copy, err);
  char *unit = copy ? first_unit (copy) : NULL;
  ptrdiff_t group = unit ? sfdo_link_group_of (pl->g, unit) : -1;
  if (group < 0)
    {
      if (copy)
        unlink (copy);
      free (copy);
      free (unit);
      return rc;
    }
  struct sfdo_link_object *o = plan_add (plan, &pl->cap);
  *o = (struct sfdo_link_object) { arg, unit, 1, group, copy, NULL };
  size_t len = strlen (argv[arg]) + strlen (h->ar_name) + 3;
  o->label = sfdo_xmalloc (len);
  snprintf (o->label, len, "%s(%s)", argv[arg], h->ar_name);
  plan->nobjects++;
  return SFDO_OK;
}

/* Whether ARGV[ARG] names an archive an earlier argument named: its
   members are planned once.  */
static int
named_before (char *const *argv, size_t arg)
{
  for (size_t i = 1; i < arg; i++)
    if (file_ending_in (argv[i], ".a") && (strcmp (argv[i], argv[arg]) == 0
                                      || sfdo_same_file (argv[i], argv[arg])))
      return 1;
  return 0;
}

/* Note that the archive ARGV[ARG] is left to the linker, and WHY.  */
static void
skip_archive (struct sfdo_link_plan *plan, size_t arg, const char *why)
{
  plan->skipped = sfdo_xrealloc (plan->skipped, (plan->nskipped + 1)
                                                * sizeof *plan->skipped);
  plan->skipped[plan->nskipped++] = (struct sfdo_link_skipped) { arg, why };
}

/* Add to PLAN the members of the archive ARGV[ARG] that carry LTO IR and
   whose unit is in a group.  A file that is not an archive (a linker
   script, a thin archive) is left to the linker, and so is an archive
   linked whole (-Wl,--whole-archive), which the linker would take the
   members of again; both are noted in PLAN's skipped.  */
static enum sfdo_errc
plan_archive (char *const *argv, size_t arg, struct planner *pl,
              struct sfdo_link_plan *plan, struct sfdo_error *err)
{
  if (named_before (argv, arg))
    return SFDO_OK;
  if (pl->whole_archive)
    {
      skip_archive (plan, arg, "linked whole (--whole-archive): its members "
                    "would be linked twice");
      return SFDO_OK;
    }
  int fd = open (argv[arg], O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return sfdo_error_sys (err, argv[arg], "cannot open the archive");
  elf_version (EV_CURRENT);
  /* Mapped: libelf keeps no copy of each member's bytes that elf_end
     would not free.  */
  Elf *ar = elf_begin (fd, ELF_C_READ_MMAP, NULL), *m;
  Elf_Cmd cmd = ELF_C_READ_MMAP;
  enum sfdo_errc rc = SFDO_OK;
  if (!ar || elf_kind (ar) != ELF_K_AR)
    skip_archive (plan, arg, "not an archive sfdo-link can read (a thin "
                  "archive, or a linker script)");
  while (rc == SFDO_OK && ar && elf_kind (ar) == ELF_K_AR
         && (m = elf_begin (fd, cmd, ar)))
    {
      rc = plan_member (m, elf_getarhdr (m), argv, arg, pl, plan, err);
      cmd = elf_next (m);
      elf_end (m);
    }
  if (ar)
    elf_end (ar);
  close (fd);
  return rc;
}

enum sfdo_errc
sfdo_link_plan_make (const struct sfdo_groups *g, int argc, char *const *argv,
                     const char *member_dir, struct sfdo_link_plan *plan,
                     struct sfdo_error *err)
{
  struct planner pl = { g, member_dir, 0, 0, 0 };
  memset (plan, 0, sizeof *plan);
  for (int i = 1; i < argc; i++)
    {
      enum sfdo_errc rc = SFDO_OK;
      if (strstr (argv[i], "--no-whole-archive"))
        pl.whole_archive = 0;
      else if (strstr (argv[i], "--whole-archive"))
        pl.whole_archive = 1;
      if (strcmp (argv[i], "-o") == 0)
        i++;
      else if (file_ending_in (argv[i], ".a") && member_dir)
        rc = plan_archive (argv, (size_t) i, &pl, plan, err);
      else if (file_ending_in (argv[i], ".o"))
        {
          struct sfdo_link_object *o = plan_add (plan, &pl.cap);
          rc = sfdo_link_read_object (argv[i], o, err);
          o->arg = (size_t) i;
          o->group = o->unit ? sfdo_link_group_of (g, o->unit) : -1;
          plan->nobjects += rc == SFDO_OK;
        }
      if (rc != SFDO_OK)
        return rc;
    }
  return SFDO_OK;
}

void
sfdo_link_plan_release (struct sfdo_link_plan *plan, int remove)
{
  for (size_t i = 0; i < plan->nobjects; i++)
    {
      struct sfdo_link_object *o = &plan->objects[i];
      if (o->extracted && remove)
        unlink (o->extracted);
      free (o->extracted);
      free (o->label);
      free (o->unit);
    }
  free (plan->objects);
  free (plan->skipped);
  memset (plan, 0, sizeof *plan);
}

const char *
sfdo_link_object_name (const struct sfdo_link_object *o, char *const *argv)
{
  return o->label ? o->label : argv[o->arg];
}

/* --- Commands --------------------------------------------------------------- */

/* Whether option A of the link command matters to the group's code:
   optimisation, code generation, debug information, the plugin.  */
static int
is_code_flag (const char *a)
{
  if (strncmp (a, "-flto", 5) == 0 || strcmp (a, "-fno-lto") == 0
      || strcmp (a, "-ffat-lto-objects") == 0)
    return 0;
  return strncmp (a, "-O", 2) == 0 || strncmp (a, "-f", 2) == 0
         || strncmp (a, "-m", 2) == 0 || strncmp (a, "-g", 2) == 0;
}

/* Whether object O goes into its group's incremental link.  */
static int
joins (const struct sfdo_link_object *o, ptrdiff_t group)
{
  return o->group == group && o->has_lto;
}

char **
sfdo_link_group_command (const struct sfdo_link_plan *plan, int argc,
                         char *const *argv, ptrdiff_t group, const char *out)
{
  size_t members = 0, n = 0;
  for (size_t i = 0; i < plan->nobjects; i++)
    members += joins (&plan->objects[i], group);
  if (members < 2)
    return NULL;
  char **cmd = sfdo_xcalloc ((size_t) argc + members + 8, sizeof *cmd);
  cmd[n++] = argv[0];
  for (int i = 1; i < argc; i++)
    if (is_code_flag (argv[i]))
      cmd[n++] = argv[i];
  static char *const lto[] = { "-fno-semantic-interposition", "-r", "-flto=auto",
                               "-flinker-output=nolto-rel" };
  for (size_t i = 0; i < sizeof lto / sizeof *lto; i++)
    cmd[n++] = lto[i];
  for (size_t i = 0; i < plan->nobjects; i++)
    if (joins (&plan->objects[i], group))
      cmd[n++] = plan->objects[i].extracted ? plan->objects[i].extracted
                                            : argv[plan->objects[i].arg];
  cmd[n++] = "-o";
  cmd[n++] = (char *) out;
  return cmd;
}

char **
sfdo_link_final_command (const struct sfdo_link_plan *plan, int argc,
                         char *const *argv, char *const *outs)
{
  char **cmd = sfdo_xcalloc ((size_t) argc + plan->nobjects + 2, sizeof *cmd);
  size_t n = 0;
  cmd[n++] = argv[0];
  for (int i = 1; i < argc; i++)
    {
      int replaced = 0;
      for (size_t k = 0; k < plan->nobjects; k++)
        {
          const struct sfdo_link_object *o = &plan->objects[k];
          if (o->arg != (size_t) i || o->group < 0 || !outs[o->group]
              || !o->has_lto)
            continue;
          /* The group's object takes its first member's place.  */
          int first = 1;
          for (size_t j = 0; j < k; j++)
            first &= !joins (&plan->objects[j], o->group);
          if (first)
            cmd[n++] = outs[o->group];
          replaced |= !o->extracted;
        }
      if (!replaced)
        cmd[n++] = argv[i];
    }
  cmd[n++] = "-fno-lto";
  return cmd;
}
