/* converter/symtab.c - the address-to-source table of one binary.
 *
 * Built once per binary from all of its DWARF: line rows sorted by address,
 * and the nested ranges of functions and inlined subroutines flattened
 * into disjoint intervals naming the innermost scope.  Strings point into
 * libdw's mapped debug sections, so the Dwfl handle lives as long as the
 * table.  */
#include "symtab.h"

#include <dwarf.h>
#include <fcntl.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/u64map.h"
#include "../common/xalloc.h"
#include "producer.h"

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

/* Deeper DIE nesting than this is treated as corrupt input.  */
#define MAX_DIE_DEPTH 256

struct line_row {
  uint64_t addr;
  uint32_t line, disc;
  uint32_t order;             /* position in its table, for stable ties */
  uint8_t end;                /* end of a sequence: no code from here */
  uint8_t is_stmt;            /* the row begins a statement */
  uint8_t factor;             /* GCC 16's multiplicity, at least 1 */
  uint32_t column;
};

struct scope {
  const char *name, *file;
  const char *unit;           /* its compile unit's name */
  uint32_t decl_line, call_line, call_disc;
  int32_t parent;             /* index of the enclosing scope, -1 if none */
};

struct range {
  uint64_t lo, hi;
  uint32_t scope, depth;
};

struct load_segment {
  uint64_t offset, filesz, vaddr;
  int writable;                 /* PF_W */
};

/* A named code address: a PLT stub or an ELF function symbol.  */
struct named_addr {
  uint64_t addr;
  const char *name;
};

struct sized_name {
  uint64_t addr, size;
  const char *name;
  const char *file;             /* a local symbol's compile unit, "" until
                                   found; NULL for a global or weak one */
};

struct sfdo_symtab {
  Dwfl *dwfl;
  const uint8_t *raw;
  size_t raw_size;
  char build_id[130];
  unsigned machine;
  int pic;
  struct load_segment *segs;
  size_t nsegs;
  char **owned_names;           /* names made here (see die_name) */
  size_t nowned_names, cap_owned_names;
  const char **producers;       /* owned names, distinct */
  size_t nproducers, cap_producers;
  uint64_t relro_lo, relro_hi;  /* PT_GNU_RELRO: read-only once relocated */
  struct line_row *rows;
  size_t nrows, cap_rows;
  struct scope *scopes;
  size_t nscopes, cap_scopes;
  struct range *ranges;         /* raw, then the flattened intervals */
  size_t nranges, cap_ranges;
  struct range *intervals;
  size_t nintervals, cap_intervals;
  struct range *functions;      /* outermost ranges, sorted */
  size_t nfunctions;
  struct sfdo_frame *frames;
  size_t cap_frames;
  struct sfdo_stmt_row *stmt_rows;
  size_t cap_stmt_rows;
  struct named_addr *names;     /* sorted by address */
  size_t nnames, cap_names;
  struct sized_name *elf_functions; /* defined functions of .symtab */
  size_t nelf_functions, cap_elf_functions;
  struct named_addr *call_sites; /* return address -> callee named in the
                                    source, sorted by address */
  size_t ncall_sites, cap_call_sites;
  struct sfdo_symtab_stats stats;
  char line_error[128];         /* libdw's word on the first line table
                                   it could not read */
};

/* --- Reading DWARF ------------------------------------------------------ */

/* What the DIEs and rows of one compile unit are read with.  */
struct cu_info {
  const char *name;             /* its DW_AT_name, "" if none */
  int hierarchical;             /* its discriminators are GCC 16's */
};

/* Discriminator D of unit CU as the profile keys it: of GCC 16's, the
   base alone (producer.h).  */
static uint32_t
unit_disc (const struct cu_info *cu, uint32_t d)
{
  return cu->hierarchical ? sfdo_gcc_disc_split (d).base : d;
}

/* S, a string made here, kept by ST until it is freed.  */
static const char *
keep (struct sfdo_symtab *st, char *s)
{
  sfdo_xgrow (&st->owned_names, &st->cap_owned_names, st->nowned_names + 1,
              sizeof *st->owned_names);
  st->owned_names[st->nowned_names++] = s;
  return s;
}

/* NAME without its spaces, kept by ST.  */
static const char *
without_spaces (struct sfdo_symtab *st, const char *name)
{
  size_t n = strlen (name), k = 0;
  char *s = sfdo_xmalloc (n + 1);
  for (size_t i = 0; i < n; i++)
    if (name[i] != ' ')
      s[k++] = name[i];
  s[k] = 0;
  return keep (st, s);
}

/* A function's linkage name, else its DWARF name.  GCC gives some inlined
   template instances no linkage name, and their DWARF names have spaces
   ("f<int, long int>"), which no profile name may have: those lose their
   spaces (the plugin compares its DWARF name likewise).  */
static const char *
die_name (struct sfdo_symtab *st, Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  const char *s = NULL;
  if (dwarf_attr_integrate (die, DW_AT_linkage_name, &attr)
      || dwarf_attr_integrate (die, DW_AT_MIPS_linkage_name, &attr))
    s = dwarf_formstring (&attr);
  else if (dwarf_attr_integrate (die, DW_AT_name, &attr)
           && (s = dwarf_formstring (&attr)) && strchr (s, ' '))
    s = without_spaces (st, s);
  return s ? s : "";
}

static uint32_t
die_udata (Dwarf_Die *die, unsigned name)
{
  Dwarf_Attribute attr;
  Dwarf_Word v = 0;
  if (dwarf_attr (die, name, &attr) && dwarf_formudata (&attr, &v) == 0
      && v <= UINT32_MAX)
    return (uint32_t) v;
  return 0;
}

static int
die_is_external (Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  bool flag = false;
  return dwarf_attr_integrate (die, DW_AT_external, &attr)
         && dwarf_formflag (&attr, &flag) == 0 && flag;
}

static int32_t
add_scope (struct sfdo_symtab *st, Dwarf_Die *die, const struct cu_info *cu,
           int32_t parent)
{
  int decl = 0;
  sfdo_xgrow (&st->scopes, &st->cap_scopes, st->nscopes + 1,
              sizeof *st->scopes);
  struct scope *s = &st->scopes[st->nscopes];
  s->name = die_name (st, die);
  s->file = die_is_external (die) ? NULL : cu->name;
  s->unit = cu->name;
  s->decl_line = dwarf_decl_line (die, &decl) == 0 && decl > 0
                 ? (uint32_t) decl : 0;
  s->call_line = die_udata (die, DW_AT_call_line);
  s->call_disc = unit_disc (cu, die_udata (die, DW_AT_GNU_discriminator));
  s->parent = parent;
  return (int32_t) st->nscopes++;
}

static void
add_ranges (struct sfdo_symtab *st, Dwarf_Die *die, uint32_t scope,
            uint32_t depth)
{
  Dwarf_Addr base, lo, hi;
  ptrdiff_t off = 0;
  while ((off = dwarf_ranges (die, off, &base, &lo, &hi)) > 0)
    if (lo < hi)
      {
        sfdo_xgrow (&st->ranges, &st->cap_ranges, st->nranges + 1,
                    sizeof *st->ranges);
        st->ranges[st->nranges++] = (struct range) { lo, hi, scope, depth };
      }
}

#ifndef DW_TAG_call_site
#define DW_TAG_call_site 0x48
#endif
#ifndef DW_TAG_GNU_call_site
#define DW_TAG_GNU_call_site 0x4109
#endif
#ifndef DW_AT_call_return_pc
#define DW_AT_call_return_pc 0x7d
#endif
#ifndef DW_AT_call_origin
#define DW_AT_call_origin 0x7f
#endif

/* Record the call site DIE: where its call returns to and, for a direct
   call, the function the source calls there.  That is the callee even
   where identical-code folding made the call reach another function's
   body (the address would name the twin that kept it).  */
static void
add_call_site (struct sfdo_symtab *st, Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  Dwarf_Addr ret;
  Dwarf_Die origin;
  if (!((dwarf_attr (die, DW_AT_call_return_pc, &attr)
         || dwarf_attr (die, DW_AT_low_pc, &attr))
        && dwarf_formaddr (&attr, &ret) == 0)
      || !((dwarf_attr (die, DW_AT_call_origin, &attr)
            || dwarf_attr (die, DW_AT_abstract_origin, &attr))
           && dwarf_formref_die (&attr, &origin)))
    return;
  const char *name = die_name (st, &origin);
  if (!*name)
    return;
  sfdo_xgrow (&st->call_sites, &st->cap_call_sites, st->ncall_sites + 1,
              sizeof *st->call_sites);
  st->call_sites[st->ncall_sites++] = (struct named_addr) { ret, name };
}

/* Collect the scopes under DIE's children; PARENT is the enclosing scope
   (-1 at the top), DEPTH its inline depth.  */
static void
walk_children (struct sfdo_symtab *st, Dwarf_Die *die,
               const struct cu_info *cu, int32_t parent, uint32_t depth,
               unsigned die_depth)
{
  Dwarf_Die child;
  if (die_depth > MAX_DIE_DEPTH || dwarf_child (die, &child) != 0)
    return;
  do
    {
      int tag = dwarf_tag (&child);
      int32_t scope = parent;
      uint32_t d = depth;
      if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
        {
          Dwarf_Addr base, lo, hi;
          if (dwarf_ranges (&child, 0, &base, &lo, &hi) <= 0)
            continue;           /* no code: a declaration or abstract */
          /* A subprogram, even one nested in another, starts a stack.  */
          int is_function = tag == DW_TAG_subprogram;
          d = is_function ? 0 : depth + 1;
          scope = add_scope (st, &child, cu, is_function ? -1 : parent);
          add_ranges (st, &child, (uint32_t) scope, d);
        }
      else if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site)
        add_call_site (st, &child);
      if (dwarf_haschildren (&child))
        walk_children (st, &child, cu, scope, d, die_depth + 1);
    }
  while (dwarf_siblingof (&child, &child) == 0);
}

static void
read_lines (struct sfdo_symtab *st, Dwarf_Die *cudie, const struct cu_info *cu)
{
  Dwarf_Lines *lines;
  size_t n;
  if (dwarf_getsrclines (cudie, &lines, &n) != 0)
    {
      if (!st->stats.line_tables_failed++)
        snprintf (st->line_error, sizeof st->line_error, "%s",
                  dwarf_errmsg (-1));
      return;
    }
  for (size_t i = 0; i < n; i++)
    {
      Dwarf_Line *l = dwarf_onesrcline (lines, i);
      Dwarf_Addr addr;
      int line = 0, column = 0;
      bool end = false, is_stmt = false;
      unsigned disc = 0;
      if (!l || dwarf_lineaddr (l, &addr) != 0)
        continue;
      dwarf_lineno (l, &line);
      dwarf_lineendsequence (l, &end);
      dwarf_linediscriminator (l, &disc);
      dwarf_linebeginstatement (l, &is_stmt);
      dwarf_linecol (l, &column);
      sfdo_xgrow (&st->rows, &st->cap_rows, st->nrows + 1, sizeof *st->rows);
      st->rows[st->nrows] = (struct line_row) {
        addr, line > 0 ? (uint32_t) line : 0, unit_disc (cu, disc),
        (uint32_t) st->nrows, end, is_stmt,
        (uint8_t) (cu->hierarchical
                   ? sfdo_gcc_disc_split (disc).multiplicity : 1),
        column > 0 ? (uint32_t) column : 0
      };
      st->nrows++;
    }
}

/* Note the compiler of unit CUDIE among the binary's; returns whether
   its discriminators are GCC 16's.  */
static int
read_producer (struct sfdo_symtab *st, Dwarf_Die *cudie)
{
  Dwarf_Attribute attr;
  struct sfdo_producer pr;
  if (!dwarf_attr_integrate (cudie, DW_AT_producer, &attr)
      || sfdo_producer_parse (dwarf_formstring (&attr), &pr) != 0)
    return 0;
  size_t i = 0;
  while (i < st->nproducers && strcmp (st->producers[i], pr.name) != 0)
    i++;
  if (i == st->nproducers)
    {
      sfdo_xgrow (&st->producers, &st->cap_producers, st->nproducers + 1,
                  sizeof *st->producers);
      st->producers[st->nproducers++]
        = keep (st, sfdo_xstrndup (pr.name, strlen (pr.name)));
    }
  return pr.hierarchical;
}

static void
read_units (struct sfdo_symtab *st, Dwarf *dw)
{
  Dwarf_CU *cu = NULL, *next;
  Dwarf_Half version;
  uint8_t type;
  Dwarf_Die cudie, subdie;
  st->stats.dwarf_min_version = 0;
  while (dwarf_get_units (dw, cu, &next, &version, &type, &cudie, &subdie)
         == 0)
    {
      cu = next;
      if (dwarf_tag (&cudie) != DW_TAG_compile_unit
          && dwarf_tag (&cudie) != DW_TAG_partial_unit)
        continue;
      st->stats.compile_units++;
      if (!st->stats.dwarf_min_version || version < st->stats.dwarf_min_version)
        st->stats.dwarf_min_version = version;
      if (version > st->stats.dwarf_max_version)
        st->stats.dwarf_max_version = version;
      const char *cu_name = dwarf_diename (&cudie);
      struct cu_info cu = { cu_name ? cu_name : "",
                            read_producer (st, &cudie) };
      st->stats.hierarchical_units += cu.hierarchical != 0;
      read_lines (st, &cudie, &cu);
      walk_children (st, &cudie, &cu, -1, 0, 0);
    }
}

/* --- Sorting and flattening --------------------------------------------- */

static int
row_cmp (const void *a, const void *b)
{
  const struct line_row *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  /* At one address an end of sequence goes first, so that the row that
     starts the next sequence there wins the lookup.  */
  if (x->end != y->end)
    return x->end ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static int
range_cmp (const void *a, const void *b)
{
  const struct range *x = a, *y = b;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->hi > y->hi ? -1 : x->hi < y->hi;
}

static void
emit (struct sfdo_symtab *st, uint64_t lo, uint64_t hi, uint32_t scope)
{
  if (lo >= hi)
    return;
  if (st->nintervals)
    {
      struct range *last = &st->intervals[st->nintervals - 1];
      if (last->hi == lo && last->scope == scope)
        {
          last->hi = hi;
          return;
        }
    }
  sfdo_xgrow (&st->intervals, &st->cap_intervals, st->nintervals + 1,
              sizeof *st->intervals);
  st->intervals[st->nintervals++] = (struct range) { lo, hi, scope, 0 };
}

/* Turn the nested ranges into disjoint intervals of the innermost scope,
   with a stack of the ranges open at the sweep position.  */
static void
flatten (struct sfdo_symtab *st)
{
  struct range *stack = NULL;
  size_t depth = 0, cap = 0;
  uint64_t cur = 0;
  for (size_t i = 0; i <= st->nranges; i++)
    {
      const struct range *r = i < st->nranges ? &st->ranges[i] : NULL;
      while (depth && (!r || stack[depth - 1].hi <= r->lo))
        {
          const struct range *top = &stack[--depth];
          if (cur < top->lo)
            cur = top->lo;
          emit (st, cur, top->hi, top->scope);
          if (cur < top->hi)
            cur = top->hi;
        }
      if (!r)
        break;
      if (depth && cur < r->lo)
        emit (st, cur > stack[depth - 1].lo ? cur : stack[depth - 1].lo,
              r->lo, stack[depth - 1].scope);
      cur = r->lo;
      sfdo_xgrow (&stack, &cap, depth + 1, sizeof *stack);
      stack[depth++] = *r;
    }
  free (stack);
}

static void
collect_functions (struct sfdo_symtab *st)
{
  st->functions = (struct range *) sfdo_xcalloc (st->nranges + 1,
                                                 sizeof *st->functions);
  for (size_t i = 0; i < st->nranges; i++)
    if (st->ranges[i].depth == 0)
      st->functions[st->nfunctions++] = st->ranges[i];
}

/* --- ELF facts ------------------------------------------------------------ */

static void
read_elf_facts (struct sfdo_symtab *st, Dwfl_Module *mod, Elf *elf)
{
  GElf_Ehdr ehdr;
  if (gelf_getehdr (elf, &ehdr))
    {
      st->machine = ehdr.e_machine;
      st->pic = ehdr.e_type == ET_DYN;
    }
  size_t nph = 0;
  elf_getphdrnum (elf, &nph);
  st->segs = (struct load_segment *) sfdo_xcalloc (nph + 1, sizeof *st->segs);
  for (size_t i = 0; i < nph; i++)
    {
      GElf_Phdr ph;
      if (gelf_getphdr (elf, (int) i, &ph) && ph.p_type == PT_LOAD)
        st->segs[st->nsegs++]
          = (struct load_segment) { ph.p_offset, ph.p_filesz, ph.p_vaddr,
                                    (ph.p_flags & PF_W) != 0 };
      else if (gelf_getphdr (elf, (int) i, &ph)
               && ph.p_type == PT_GNU_RELRO)
        st->relro_lo = ph.p_vaddr, st->relro_hi = ph.p_vaddr + ph.p_memsz;
    }
  st->raw = (const uint8_t *) elf_rawfile (elf, &st->raw_size);
  const unsigned char *bits;
  GElf_Addr vaddr;
  int n = dwfl_module_build_id (mod, &bits, &vaddr);
  for (int i = 0; i < n && i < 64; i++)
    snprintf (st->build_id + 2 * i, 3, "%02x", bits[i]);
}

/* --- Names of call targets: ELF symbols and PLT stubs ------------------------ */

static void
add_name (struct sfdo_symtab *st, uint64_t addr, const char *name)
{
  if (!name || !*name)
    return;
  sfdo_xgrow (&st->names, &st->cap_names, st->nnames + 1, sizeof *st->names);
  st->names[st->nnames++] = (struct named_addr) { addr, name };
}

static Elf_Scn *
section_named (Elf *elf, const char *want, GElf_Shdr *shdr)
{
  size_t shstrndx;
  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return NULL;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (elf, scn));)
    {
      const char *name;
      if (gelf_getshdr (scn, shdr)
          && (name = elf_strptr (elf, shstrndx, shdr->sh_name))
          && strcmp (name, want) == 0)
        return scn;
    }
  return NULL;
}

/* Name the PLT stubs after the symbols of .rela.plt, in order: stub I is
   at .plt.sec + 16 I when there is a .plt.sec (IBT), else at .plt +
   16 (I + 1), as the linker lays them out.  */
static void
read_plt (struct sfdo_symtab *st, Elf *elf)
{
  GElf_Shdr rela_sh, plt_sh, dyn_sh;
  Elf_Scn *rela = section_named (elf, ".rela.plt", &rela_sh);
  Elf_Scn *plt = section_named (elf, ".plt.sec", &plt_sh);
  uint64_t first = plt ? plt_sh.sh_addr : 0;
  if (!plt && (plt = section_named (elf, ".plt", &plt_sh)))
    first = plt_sh.sh_addr + 16;
  Elf_Scn *dynsym = rela ? elf_getscn (elf, rela_sh.sh_link) : NULL;
  Elf_Data *rd = rela ? elf_getdata (rela, NULL) : NULL;
  Elf_Data *sd = dynsym ? elf_getdata (dynsym, NULL) : NULL;
  if (!plt || !rd || !sd || !gelf_getshdr (dynsym, &dyn_sh)
      || rela_sh.sh_entsize == 0)
    return;
  size_t n = rela_sh.sh_size / rela_sh.sh_entsize;
  for (size_t i = 0; i < n; i++)
    {
      GElf_Rela r;
      GElf_Sym sym;
      if (gelf_getrela (rd, (int) i, &r)
          && gelf_getsym (sd, (int) GELF_R_SYM (r.r_info), &sym))
        add_name (st, first + 16 * i,
                  elf_strptr (elf, dyn_sh.sh_link, sym.st_name));
    }
}

static void
read_symbols (struct sfdo_symtab *st, Elf *elf)
{
  GElf_Shdr sh;
  Elf_Scn *scn = section_named (elf, ".symtab", &sh);
  if (!scn)
    scn = section_named (elf, ".dynsym", &sh);
  Elf_Data *d = scn ? elf_getdata (scn, NULL) : NULL;
  for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize;
       i++)
    {
      GElf_Sym sym;
      if (!gelf_getsym (d, (int) i, &sym)
          || GELF_ST_TYPE (sym.st_info) != STT_FUNC || !sym.st_value)
        continue;
      const char *name = elf_strptr (elf, sh.sh_link, sym.st_name);
      add_name (st, sym.st_value, name);
      int bind = GELF_ST_BIND (sym.st_info);
      if (name && *name && sym.st_shndx != SHN_UNDEF
          && (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_LOCAL))
        {
          sfdo_xgrow (&st->elf_functions, &st->cap_elf_functions,
                      st->nelf_functions + 1, sizeof *st->elf_functions);
          st->elf_functions[st->nelf_functions++] = (struct sized_name) {
            sym.st_value, sym.st_size, name, bind == STB_LOCAL ? "" : NULL
          };
        }
    }
}

/* The compile unit of each local function symbol, by the unit's address
   ranges: a local function may have code and no DWARF function of its
   own (GCC's identical-code folding keeps a copy of an address-taken
   static function whose twin it merged, and describes only the twin),
   and the profile names a static function with its unit.  One outside
   every unit (crt files) keeps "".  */
static void
find_symbol_units (struct sfdo_symtab *st, Dwarf *dw)
{
  for (size_t i = 0; i < st->nelf_functions; i++)
    {
      struct sized_name *f = &st->elf_functions[i];
      Dwarf_Die cudie;
      const char *unit;
      if (f->file && dwarf_addrdie (dw, f->addr, &cudie)
          && (unit = dwarf_diename (&cudie)))
        f->file = unit;
    }
}

static int
name_cmp (const void *a, const void *b)
{
  const struct named_addr *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

const char *
sfdo_symtab_call_name (const struct sfdo_symtab *st, uint64_t vaddr)
{
  size_t lo = 0, hi = st->nnames;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (st->names[mid].addr < vaddr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < st->nnames && st->names[lo].addr == vaddr ? st->names[lo].name
                                                         : NULL;
}

/* --- Checking the file first ----------------------------------------------- */

/* Whether [OFF, +SIZE) lies within a file of FILE_SIZE bytes.  */
static int
within (uint64_t off, uint64_t size, uint64_t file_size)
{
  return off <= file_size && size <= file_size - off;
}

/* The first header table or section of ELF that the file's FILE_SIZE
   bytes do not hold, for the message; NULL if all are there.  */
static const char *
cut_short (Elf *elf, uint64_t file_size, uint64_t *end)
{
  GElf_Ehdr eh;
  size_t shstrndx = 0;
  if (!gelf_getehdr (elf, &eh))
    return "ELF header";
  *end = eh.e_phoff + (uint64_t) eh.e_phnum * eh.e_phentsize;
  if (!within (eh.e_phoff, (uint64_t) eh.e_phnum * eh.e_phentsize, file_size))
    return "program headers";
  *end = eh.e_shoff + (uint64_t) eh.e_shnum * eh.e_shentsize;
  if (!within (eh.e_shoff, (uint64_t) eh.e_shnum * eh.e_shentsize, file_size))
    return "section headers";
  elf_getshdrstrndx (elf, &shstrndx);
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn (elf, scn));)
    {
      GElf_Shdr sh;
      if (!gelf_getshdr (scn, &sh) || sh.sh_type == SHT_NOBITS
          || within (sh.sh_offset, sh.sh_size, file_size))
        continue;
      const char *name = elf_strptr (elf, shstrndx, sh.sh_name);
      *end = sh.sh_offset + sh.sh_size;
      return name ? name : "a section";
    }
  return NULL;
}

/* PATH must be a whole ELF file: a directory, a non-ELF file or one cut
   short say so, rather than what libdwfl would make of them.  */
static enum sfdo_errc
check_file (const char *path, struct sfdo_error *err)
{
  struct stat sb;
  if (stat (path, &sb) != 0)
    return sfdo_error_sys (err, path, "cannot open the binary");
  if (S_ISDIR (sb.st_mode))
    return sfdo_error_set (err, SFDO_E_USAGE, path, SFDO_NO_OFFSET, 0, 0,
                           "is a directory: give the binary in it");
  if (!S_ISREG (sb.st_mode))
    return sfdo_error_set (err, SFDO_E_USAGE, path, SFDO_NO_OFFSET, 0, 0,
                           "is not a regular file");
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return sfdo_error_sys (err, path, "cannot open the binary");
  elf_version (EV_CURRENT);
  Elf *elf = elf_begin (fd, ELF_C_READ, NULL);
  enum sfdo_errc rc = SFDO_OK;
  uint64_t end = 0;
  const char *what;
  if (!elf || elf_kind (elf) != ELF_K_ELF)
    rc = sfdo_error_set (err, SFDO_E_BAD_MAGIC, path, SFDO_NO_OFFSET, 0, 0,
                         "not an ELF file (%s)",
                         sb.st_size ? "no ELF header" : "it is empty");
  else if ((what = cut_short (elf, (uint64_t) sb.st_size, &end)))
    rc = sfdo_error_set (err, SFDO_E_TRUNCATED, path, SFDO_NO_OFFSET, 0, 0,
                         "the file is cut short: its %s end%s at %#llx, past "
                         "its end at %#llx (an incomplete copy?)", what,
                         strchr (what, ' ') ? "" : "s",
                         (unsigned long long) end,
                         (unsigned long long) sb.st_size);
  if (elf)
    elf_end (elf);
  close (fd);
  return rc;
}

/* The first entry of the sorted N entries of A at or after VADDR.  */
static size_t
first_at_or_after (const struct named_addr *a, size_t n, uint64_t vaddr)
{
  return sfdo_first_at_or_after (a, n, sizeof *a, vaddr);
}

const char *
sfdo_symtab_call_origin (const struct sfdo_symtab *st, uint64_t call)
{
  size_t i = first_at_or_after (st->call_sites, st->ncall_sites, call + 1);
  /* x86-64 instructions are at most 15 bytes long.  */
  return i < st->ncall_sites && st->call_sites[i].addr - call <= 15
         ? st->call_sites[i].name : NULL;
}

size_t
sfdo_symtab_symbols_at (const struct sfdo_symtab *st, uint64_t vaddr,
                        const char **out, size_t max)
{
  size_t n = 0;
  for (size_t i = first_at_or_after (st->names, st->nnames, vaddr);
       i < st->nnames && st->names[i].addr == vaddr; i++)
    {
      int dup = 0;
      for (size_t k = 0; k < n; k++)
        dup |= strcmp (out[k], st->names[i].name) == 0;
      if (!dup && n < max)
        out[n++] = st->names[i].name;
    }
  return n;
}

/* --- Public --------------------------------------------------------------- */

static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

enum sfdo_errc
sfdo_symtab_open (const char *path, struct sfdo_symtab **out,
                  struct sfdo_error *err)
{
  *out = NULL;
  enum sfdo_errc rc = check_file (path, err);
  if (rc != SFDO_OK)
    return rc;
  struct sfdo_symtab *st = (struct sfdo_symtab *) sfdo_xcalloc (1, sizeof *st);
  st->dwfl = dwfl_begin (&offline_callbacks);
  Dwfl_Module *mod = NULL;
  if (st->dwfl)
    {
      dwfl_report_begin (st->dwfl);
      mod = dwfl_report_offline (st->dwfl, path, path, -1);
      dwfl_report_end (st->dwfl, NULL, NULL);
    }
  Dwarf_Addr bias;
  Elf *elf = mod ? dwfl_module_getelf (mod, &bias) : NULL;
  if (!elf)
    {
      sfdo_error_set (err, SFDO_E_BAD_MAGIC, path, SFDO_NO_OFFSET, 0, 0,
                      "cannot read as an ELF binary: %s", dwfl_errmsg (-1));
      sfdo_symtab_free (st);
      return SFDO_E_BAD_MAGIC;
    }
  read_elf_facts (st, mod, elf);
  read_plt (st, elf);
  read_symbols (st, elf);
  if (st->nnames > 1)
    qsort (st->names, st->nnames, sizeof *st->names, name_cmp);
  Dwarf *dw = dwfl_module_getdwarf (mod, &bias);
  if (dw)
    {
      read_units (st, dw);
      find_symbol_units (st, dw);
    }
  if (dw && st->nrows == 0 && st->stats.line_tables_failed)
    {
      sfdo_error_set (err, SFDO_E_MALFORMED, path, SFDO_NO_OFFSET, 0, 0,
                      "its DWARF line tables cannot be read: %s (in %zu of "
                      "%zu compile units); the debug information is damaged",
                      st->line_error, st->stats.line_tables_failed,
                      st->stats.compile_units);
      sfdo_symtab_free (st);
      return SFDO_E_MALFORMED;
    }
  if (!dw || st->nrows == 0)
    {
      sfdo_error_set (err, SFDO_E_MALFORMED, path, SFDO_NO_OFFSET, 0, 0,
                      "no DWARF line information in the binary, nor in a "
                      "debug file found by .gnu_debuglink or build-id; "
                      "build with -g, or install its debug symbols");
      sfdo_symtab_free (st);
      return SFDO_E_MALFORMED;
    }
  qsort (st->rows, st->nrows, sizeof *st->rows, row_cmp);
  qsort (st->ranges, st->nranges, sizeof *st->ranges, range_cmp);
  if (st->ncall_sites > 1)
    qsort (st->call_sites, st->ncall_sites, sizeof *st->call_sites,
           name_cmp);
  flatten (st);
  collect_functions (st);
  st->stats.line_rows = st->nrows;
  st->stats.scopes = st->nscopes;
  st->stats.intervals = st->nintervals;
  *out = st;
  return SFDO_OK;
}

void
sfdo_symtab_free (struct sfdo_symtab *st)
{
  if (!st)
    return;
  if (st->dwfl)
    dwfl_end (st->dwfl);
  free (st->segs);
  free (st->rows);
  free (st->scopes);
  free (st->ranges);
  free (st->intervals);
  free (st->functions);
  free (st->stmt_rows);
  free (st->frames);
  free (st->names);
  free (st->elf_functions);
  free (st->call_sites);
  free (st->producers);
  for (size_t i = 0; i < st->nowned_names; i++)
    free (st->owned_names[i]);
  free (st->owned_names);
  free (st);
}

const char *
sfdo_symtab_build_id (const struct sfdo_symtab *st)
{
  return st->build_id;
}

unsigned
sfdo_symtab_machine (const struct sfdo_symtab *st)
{
  return st->machine;
}

int
sfdo_symtab_is_pic (const struct sfdo_symtab *st)
{
  return st->pic;
}

int
sfdo_symtab_segment (const struct sfdo_symtab *st, uint64_t offset,
                     uint64_t *seg_offset, uint64_t *seg_size,
                     uint64_t *seg_vaddr)
{
  for (size_t i = 0; i < st->nsegs; i++)
    {
      const struct load_segment *s = &st->segs[i];
      if (offset >= s->offset && offset - s->offset < s->filesz)
        {
          *seg_offset = s->offset;
          *seg_size = s->filesz;
          *seg_vaddr = s->vaddr;
          return 0;
        }
    }
  return -1;
}

int
sfdo_symtab_offset_to_vaddr (const struct sfdo_symtab *st, uint64_t offset,
                             uint64_t *vaddr)
{
  uint64_t so, size, sv;
  if (sfdo_symtab_segment (st, offset, &so, &size, &sv) != 0)
    return -1;
  *vaddr = sv + (offset - so);
  return 0;
}

int
sfdo_symtab_code (const struct sfdo_symtab *st, uint64_t vaddr,
                  const uint8_t **bytes, size_t *len)
{
  for (size_t i = 0; i < st->nsegs; i++)
    {
      const struct load_segment *s = &st->segs[i];
      if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz
          && s->offset + s->filesz <= st->raw_size && st->raw)
        {
          uint64_t off = s->offset + (vaddr - s->vaddr);
          *bytes = st->raw + off;
          *len = (size_t) (s->offset + s->filesz - off);
          return 0;
        }
    }
  return -1;
}

int
sfdo_symtab_read_only (const struct sfdo_symtab *st, uint64_t vaddr)
{
  if (vaddr >= st->relro_lo && vaddr < st->relro_hi)
    return 1;
  for (size_t i = 0; i < st->nsegs; i++)
    {
      const struct load_segment *s = &st->segs[i];
      if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz)
        return !s->writable;
    }
  return 0;
}

/* Index of the last element of the ARRAY of N (of SIZE bytes, first field
   a uint64_t) whose first field is <= KEY, or -1.  */
static ptrdiff_t
last_at_or_below (const void *array, size_t n, size_t size, uint64_t key)
{
  if (key == UINT64_MAX)
    return (ptrdiff_t) n - 1;
  return (ptrdiff_t) sfdo_first_at_or_after (array, n, size, key + 1) - 1;
}

int
sfdo_symtab_function_range (const struct sfdo_symtab *st, uint64_t vaddr,
                            uint64_t *lo, uint64_t *hi)
{
  ptrdiff_t i = last_at_or_below (st->functions, st->nfunctions,
                                  sizeof *st->functions, vaddr);
  /* The nearest start holds VADDR unless ranges overlap (nested or
     folded functions), where an earlier one may; those are looked for
     within 1 MiB only.  A function of any size is found through its own
     start.  */
  for (ptrdiff_t first = i;
       i >= 0 && (i == first || st->functions[i].lo + (1u << 20) > vaddr);
       i--)
    if (vaddr < st->functions[i].hi)
      {
        *lo = st->functions[i].lo;
        *hi = st->functions[i].hi;
        return 0;
      }
  return -1;
}

size_t
sfdo_symtab_nelf_functions (const struct sfdo_symtab *st)
{
  return st->nelf_functions;
}

void
sfdo_symtab_elf_function (const struct sfdo_symtab *st, size_t i,
                          uint64_t *addr, uint64_t *size, const char **name,
                          const char **file)
{
  *addr = st->elf_functions[i].addr;
  *size = st->elf_functions[i].size;
  *name = st->elf_functions[i].name;
  *file = st->elf_functions[i].file;
}

size_t
sfdo_symtab_nfunctions (const struct sfdo_symtab *st)
{
  return st->nfunctions;
}

void
sfdo_symtab_function (const struct sfdo_symtab *st, size_t i, uint64_t *lo,
                      const char **name, const char **file)
{
  const struct scope *s = &st->scopes[st->functions[i].scope];
  *lo = st->functions[i].lo;
  *name = s->name;
  *file = s->file;
}

const char *
sfdo_symtab_function_unit (const struct sfdo_symtab *st, size_t i)
{
  return st->scopes[st->functions[i].scope].unit;
}

/* Whether VADDR begins a statement of the line of ROW, the last row at or
   below it: several rows may share an address (location views), and an
   earlier one of the same line may carry is_stmt where the last does
   not.  The statement's column goes to *COLUMN.  */
static uint8_t
statement_start (const struct sfdo_symtab *st, ptrdiff_t row, uint64_t vaddr,
                 uint32_t *column)
{
  const struct line_row *last = &st->rows[row];
  for (ptrdiff_t r = row; r >= 0 && st->rows[r].addr == vaddr; r--)
    if (st->rows[r].is_stmt && st->rows[r].line == last->line
        && st->rows[r].disc == last->disc)
      {
        *column = st->rows[r].column;
        return 1;
      }
  return 0;
}

size_t
sfdo_symtab_lookup (struct sfdo_symtab *st, uint64_t vaddr,
                    const struct sfdo_frame **frames)
{
  ptrdiff_t iv = last_at_or_below (st->intervals, st->nintervals,
                                   sizeof *st->intervals, vaddr);
  ptrdiff_t row = last_at_or_below (st->rows, st->nrows, sizeof *st->rows,
                                    vaddr);
  if (iv < 0 || vaddr >= st->intervals[iv].hi || row < 0
      || st->rows[row].end || st->rows[row].line == 0)
    return 0;
  size_t n = 0;
  for (int32_t s = (int32_t) st->intervals[iv].scope; s >= 0;
       s = st->scopes[s].parent)
    n++;
  sfdo_xgrow (&st->frames, &st->cap_frames, n, sizeof *st->frames);
  size_t k = n;
  uint32_t line = st->rows[row].line, disc = st->rows[row].disc;
  uint32_t column = st->rows[row].column, factor = st->rows[row].factor;
  uint8_t stmt_start = statement_start (st, row, vaddr, &column);
  uint8_t row_start = st->rows[row].addr == vaddr;
  for (int32_t s = (int32_t) st->intervals[iv].scope; s >= 0;
       s = st->scopes[s].parent)
    {
      const struct scope *sc = &st->scopes[s];
      st->frames[--k] = (struct sfdo_frame) {
        sc->name, sc->file, sc->decl_line, line, disc, stmt_start, column,
        row_start, factor
      };
      line = sc->call_line;
      disc = sc->call_disc;
      stmt_start = 0;
      row_start = 0;
      column = 0;
      factor = 1;
    }
  *frames = st->frames;
  return n;
}

int
sfdo_symtab_has_function (const struct sfdo_symtab *st, const char *name)
{
  for (size_t i = 0; i < st->nfunctions; i++)
    if (strcmp (st->scopes[st->functions[i].scope].name, name) == 0)
      return 1;
  return 0;
}

size_t
sfdo_symtab_statements_at (struct sfdo_symtab *st, uint64_t vaddr,
                           const struct sfdo_stmt_row **rows)
{
  ptrdiff_t row = last_at_or_below (st->rows, st->nrows, sizeof *st->rows,
                                    vaddr);
  size_t n = 0;
  for (; row >= 0 && st->rows[row].addr == vaddr; row--)
    if (st->rows[row].is_stmt && !st->rows[row].end && st->rows[row].line)
      {
        sfdo_xgrow (&st->stmt_rows, &st->cap_stmt_rows, n + 1,
                    sizeof *st->stmt_rows);
        st->stmt_rows[n++] = (struct sfdo_stmt_row) {
          st->rows[row].line, st->rows[row].disc, st->rows[row].column,
          st->rows[row].factor
        };
      }
  *rows = st->stmt_rows;
  return n;
}

size_t
sfdo_symtab_nproducers (const struct sfdo_symtab *st)
{
  return st->nproducers;
}

const char *
sfdo_symtab_producer (const struct sfdo_symtab *st, size_t i)
{
  return st->producers[i];
}

void
sfdo_symtab_stats (const struct sfdo_symtab *st,
                   struct sfdo_symtab_stats *stats)
{
  *stats = st->stats;
}
