/* converter/symtab.h - address to source, for one binary.
 *
 * Stage 2 of the pipeline (perf.data -> samples -> *symbolized addresses*
 * -> profile).  Opening a binary reads its ELF headers and all of its DWARF
 * once (through libdwfl, which also finds separate debug files by
 * .gnu_debuglink and by build-id under /usr/lib/debug) into two sorted
 * tables: line-table rows, and disjoint address intervals each naming its
 * innermost function or inlined-subroutine scope.  A lookup is then two
 * binary searches; DWARF is never queried per sample.
 *
 * Addresses are the binary's own virtual addresses (as in its ELF program
 * headers and DWARF); sfdo_symtab_offset_to_vaddr maps a file offset (what
 * an MMAP record gives) to one.
 *
 * Depends on common/, libelf and libdw.  One thread at a time.  */
#ifndef SFDO_CONVERTER_SYMTAB_H
#define SFDO_CONVERTER_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_symtab;

/* One level of an inline stack.  Strings are owned by the symtab.  */
struct sfdo_frame {
  const char *function;     /* linkage name (plain name for C) */
  const char *file;         /* compile unit's file for file-local functions;
                               NULL for functions with external linkage */
  uint32_t decl_line;       /* DW_AT_decl_line of the function */
  uint32_t line;            /* the sampled line, or for an outer level the
                               line of the call that was inlined */
  uint32_t discriminator;
  uint8_t stmt_start;       /* innermost frame: the address begins a
                               statement (a line-table row marked is_stmt),
                               which code moved from elsewhere does not */
  uint32_t column;          /* innermost frame: the statement's column */
  uint8_t row_start;        /* innermost frame: a line-table row of the
                               line begins at the address, is_stmt or not */
  uint32_t factor;          /* innermost frame: how many executions of the
                               source one execution of the instruction
                               stands for (GCC 16's multiplicity, the
                               vectorization factor); 1 otherwise */
};

/* Discriminators, in frames and statement rows, are the line table's and
   DW_AT_GNU_discriminator's, but for compile units of GCC 16 or newer
   (by DW_AT_producer) only their base discriminators: GCC 16's copy ids
   tell apart copies of a line whose counts add up, and its multiplicity
   becomes the frame's factor (producer.h).  */

/* --- Lifecycle ------------------------------------------------------- */

/* Read the binary at PATH and its debug information.  A binary without
   DWARF line tables is an error (SFDO_E_MALFORMED) that says how to get
   them.  */
enum sfdo_errc sfdo_symtab_open (const char *path, struct sfdo_symtab **out,
                                 struct sfdo_error *err);
void sfdo_symtab_free (struct sfdo_symtab *st);

/* --- Facts about the binary ------------------------------------------ */

/* Lowercase hex build-id, "" if the binary has none.  */
const char *sfdo_symtab_build_id (const struct sfdo_symtab *st);
/* ELF e_machine (EM_X86_64 is 62).  */
unsigned sfdo_symtab_machine (const struct sfdo_symtab *st);
/* Whether the binary is position-independent (ET_DYN).  */
int sfdo_symtab_is_pic (const struct sfdo_symtab *st);
/* Map file offset OFFSET to a virtual address through the PT_LOAD
   segments; returns 0 on success, -1 if no segment holds it.  */
int sfdo_symtab_offset_to_vaddr (const struct sfdo_symtab *st,
                                 uint64_t offset, uint64_t *vaddr);
/* The PT_LOAD segment holding file offset OFFSET: its file range
   [*SEG_OFFSET, *SEG_OFFSET + *SEG_SIZE) loads at *SEG_VADDR.  Returns 0,
   or -1 if no segment holds it.  */
int sfdo_symtab_segment (const struct sfdo_symtab *st, uint64_t offset,
                         uint64_t *seg_offset, uint64_t *seg_size,
                         uint64_t *seg_vaddr);
/* The loaded bytes at VADDR: *BYTES points into the file, *LEN is how many
   follow in the same segment.  Returns 0, or -1 if VADDR is not loaded
   from the file.  */
int sfdo_symtab_code (const struct sfdo_symtab *st, uint64_t vaddr,
                      const uint8_t **bytes, size_t *len);

/* Whether VADDR is data the program cannot change: in a read-only
   loadable segment, or in PT_GNU_RELRO (vtables of position-independent
   code, read-only once relocated).  */
int sfdo_symtab_read_only (const struct sfdo_symtab *st, uint64_t vaddr);
/* The name of the function a call to VADDR reaches: the imported symbol
   of a PLT stub ("memcpy"), or the ELF symbol starting at VADDR; NULL if
   neither.  */
const char *sfdo_symtab_call_name (const struct sfdo_symtab *st,
                                   uint64_t vaddr);

/* --- Lookup ---------------------------------------------------------- */

/* The inline stack at VADDR, outermost function first, in *FRAMES (valid
   until the next lookup or free).  Returns the number of frames, 0 if no
   function with line information covers VADDR.  */
size_t sfdo_symtab_lookup (struct sfdo_symtab *st, uint64_t vaddr,
                           const struct sfdo_frame **frames);

/* The function the source calls at the call instruction at CALL (a direct
   call, from DWARF's call-site entries), or NULL if DWARF does not say.
   Where identical-code folding made two functions share a body, a call's
   target address names only the twin that kept it; this names the one
   the source called.  */
const char *sfdo_symtab_call_origin (const struct sfdo_symtab *st,
                                     uint64_t call);

/* The distinct names of the ELF function symbols at VADDR, at most MAX,
   into OUT; returns how many.  Several are aliases of one body (folded
   functions).  */
size_t sfdo_symtab_symbols_at (const struct sfdo_symtab *st, uint64_t vaddr,
                               const char **out, size_t max);

/* Whether the binary has code for a function named NAME.  */
int sfdo_symtab_has_function (const struct sfdo_symtab *st, const char *name);

/* A statement that begins at an address, in the innermost function's
   lines there: one line-table row marked is_stmt.  */
struct sfdo_stmt_row {
  uint32_t line, discriminator, column, factor;
};

/* The statements that begin at VADDR, in *ROWS (valid until the next
   call or free): rows marked is_stmt at exactly that address, which
   location views can make several, of several lines.  Returns how many. */
size_t sfdo_symtab_statements_at (struct sfdo_symtab *st, uint64_t vaddr,
                                  const struct sfdo_stmt_row **rows);

/* The [*LO, *HI) address range of the outermost function containing
   VADDR (its first range that does); returns 0, or -1 if none.  */
int sfdo_symtab_function_range (const struct sfdo_symtab *st, uint64_t vaddr,
                                uint64_t *lo, uint64_t *hi);

/* The code ranges of functions (outermost scopes, sorted by address): how
   many, and the I-th one's start, linkage name and file (NULL for a
   function with external linkage).  A function split into parts
   (foo.cold) has a range for each.  */
size_t sfdo_symtab_nfunctions (const struct sfdo_symtab *st);
void sfdo_symtab_function (const struct sfdo_symtab *st, size_t i,
                           uint64_t *lo, const char **name,
                           const char **file);

/* The compile unit (its DW_AT_name, as the compiler was given the source)
   of the I-th function of sfdo_symtab_function.  */
const char *sfdo_symtab_function_unit (const struct sfdo_symtab *st,
                                       size_t i);
/* The defined functions of the ELF symbol table: how many, and the I-th
   one's address, size, name and file (NULL for a global or weak symbol;
   for a local one its compile unit's DW_AT_name, "" where no unit holds
   its address).  Some have no DWARF function (C++ this-adjusting thunks,
   assembly, the copy identical-code folding keeps of an address-taken
   static function).  */
size_t sfdo_symtab_nelf_functions (const struct sfdo_symtab *st);
void sfdo_symtab_elf_function (const struct sfdo_symtab *st, size_t i,
                               uint64_t *addr, uint64_t *size,
                               const char **name, const char **file);

/* The compilers of the binary's compile units, as the profile header
   names them ("GCC 16.2.0", "clang 14.0.6"; producer.h), each once, in
   the order first met: how many, and the I-th.  Units of an assembler,
   or without DW_AT_producer, add none.  */
size_t sfdo_symtab_nproducers (const struct sfdo_symtab *st);
const char *sfdo_symtab_producer (const struct sfdo_symtab *st, size_t i);

/* Counts of what was read, for --stats and tests.  */
struct sfdo_symtab_stats {
  size_t compile_units, line_rows, scopes, intervals;
  size_t hierarchical_units;    /* compile units whose discriminators are
                                   GCC 16's, read for their base */
  size_t line_tables_failed;    /* compile units whose line table libdw
                                   could not read */
  unsigned dwarf_min_version, dwarf_max_version;
};
void sfdo_symtab_stats (const struct sfdo_symtab *st,
                        struct sfdo_symtab_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
