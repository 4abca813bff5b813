/* profiles/profile.h - the portable source-line profile: model, encodings,
 * merge and overlap.
 *
 * This is the contract between sfdo-convert (which builds profiles) and the
 * samplefdo plugin (which reads them); FORMAT.md specifies both encodings
 * byte by byte.  Depends only on common/.
 *
 * Model.  A profile owns an interned string table (ids are uint32_t, id 0
 * is the empty string) and a set of top-level functions keyed by (linkage
 * name, source file); the file is 0 for functions with external linkage.
 * Every record holds string ids, never pointers to strings.  Counts are
 * estimated executions (samples scaled by period and normalised), so
 * profiles of different events and periods merge meaningfully.  Arithmetic
 * on counts saturates at UINT64_MAX.
 *
 * Building.  The add functions append without searching; call
 * sfdo_profile_finalize() afterwards to sort everything into canonical order
 * and coalesce duplicates by summing.  Readers and merge finalize for you.
 *
 * Ownership.  Every pointer returned is borrowed from the profile and stays
 * valid until sfdo_profile_free(), except that finalize and merge may move
 * lines, targets, values and callsites.  Functions never move, but when
 * finalize finds a key twice (a function added twice, or a file holding
 * it twice) it merges the later one into the earlier and frees it.
 * A binary profile opened with sfdo_profile_open() is mmap'd and its
 * functions are decoded on demand by sfdo_profile_find().
 *
 * Threads: a profile may be used by one thread at a time.  */
#ifndef SFDO_PROFILES_PROFILE_H
#define SFDO_PROFILES_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of value histogram.  Append-only: these numbers are in files.  */
enum sfdo_prof_value_kind {
  SFDO_VALUE_ICALL = 0,    /* indirect-call target; values are string ids */
  SFDO_VALUE_DIVMOD = 1,   /* divisor of a division or modulo (signed) */
  SFDO_VALUE_MEMSIZE = 2,  /* size operand of memcpy/memset and friends */
  SFDO_VALUE_QUOTIENT = 3, /* dividend / divisor of an unsigned division or
                              modulo: 0, 1, or 2 for 2 and more */
  SFDO_VALUE_ALIGN = 4,    /* alignment of a memcpy/memset destination: its
                              lowest set bit, at most 4096 */
  SFDO_VALUE_CALL_SAMPLES = 5,  /* the samples that showed each callee of a
                              call site (the support of its call edges);
                              values are string ids */
  SFDO_VALUE_CALL_SITES = 6,    /* the profiled binary calls each callee
                              here (a call or an inlined call): the
                              source's shape, which a later build aligns a
                              stale profile by; values are string ids,
                              counts the binaries that had it */
  SFDO_VALUE_UNIT = 7,     /* at (0, 0): the compile unit of the function
                              (its source file as the compiler was given
                              it), which module groups join; values are
                              string ids, counts the binaries that had it */
  SFDO_VALUE_NKINDS = 8
};

/* Whether the counts of histograms of KIND are not estimated executions
   (samples, binaries), so that a weighted merge adds them unweighted.  */
static inline int
sfdo_value_kind_is_unscaled (uint32_t kind)
{
  return kind == SFDO_VALUE_CALL_SAMPLES || kind == SFDO_VALUE_CALL_SITES
         || kind == SFDO_VALUE_UNIT;
}

/* Whether the values of histograms of KIND are string ids (names).  */
static inline int
sfdo_value_kind_is_name (uint32_t kind)
{
  return kind == SFDO_VALUE_ICALL || kind == SFDO_VALUE_CALL_SAMPLES
         || kind == SFDO_VALUE_CALL_SITES || kind == SFDO_VALUE_UNIT;
}

enum sfdo_prof_encoding {
  SFDO_PROF_TEXT = 0,
  SFDO_PROF_BINARY = 1
};

/* The current format version, written in both encodings.  */
#define SFDO_PROFILE_VERSION 1

/* Nesting of inlined callees deeper than this is rejected as malformed;
   real inline stacks are a few dozen deep at most.  */
#define SFDO_PROFILE_MAX_DEPTH 200

struct sfdo_profile;

struct sfdo_prof_target {
  uint32_t name;            /* string id of the callee's linkage name */
  uint64_t count;
};

struct sfdo_prof_line {
  uint32_t offset;          /* source line minus the function's decl line */
  uint32_t discriminator;
  uint64_t count;
  struct sfdo_prof_target *targets;   /* calls made from this line */
  size_t ntargets, cap_targets;
};

struct sfdo_prof_vcount {
  uint64_t value;           /* a string id for the kinds of names */
  uint64_t count;
};

struct sfdo_prof_values {
  uint32_t offset, discriminator;
  uint32_t kind;            /* enum sfdo_prof_value_kind */
  struct sfdo_prof_vcount *entries;
  size_t nentries, cap_entries;
};

struct sfdo_prof_func;

struct sfdo_prof_callsite {
  uint32_t offset, discriminator;
  struct sfdo_prof_func *callee;      /* inlined callee's profile; owned */
};

struct sfdo_prof_func {
  uint32_t name;            /* string id of the linkage name */
  uint32_t file;            /* string id of the source file; 0 if global */
  uint64_t total;           /* all counts of the body and its inlinees */
  uint64_t head;            /* entry count */
  uint64_t checksum;        /* shape of the source, if has_checksum */
  int has_checksum;
  struct sfdo_prof_line *lines;
  size_t nlines, cap_lines;
  struct sfdo_prof_values *values;
  size_t nvalues, cap_values;
  struct sfdo_prof_callsite *callsites;
  size_t ncallsites, cap_callsites;
};

struct sfdo_prof_event {
  uint32_t name;            /* string id: "cycles:u", "INST_RETIRED:ANY_P" */
  uint64_t period;
  uint64_t samples;
};

/* Header fields are sets (sorted, unique), so merging is a union.  */
struct sfdo_prof_header {
  uint32_t version;
  uint32_t *build_ids;      /* string ids of lowercase hex build-ids */
  size_t nbuild_ids;
  uint32_t *modes;          /* string ids: "ip", "lbr" */
  size_t nmodes;
  uint32_t *tools;          /* string ids: "sfdo-convert 0.1.0" */
  size_t ntools;
  struct sfdo_prof_event *events;
  size_t nevents;
  uint64_t samples_used, samples_dropped;
  uint32_t *producers;      /* string ids: the compilers of the profiled
                               binaries' code, "GCC 16.2.0", "clang 14.0.6"
                               (none in a profile written before they were
                               recorded) */
  size_t nproducers;
};

/* --- Lifecycle --------------------------------------------------------- */

/* A new empty profile.  Never NULL (allocation failure is fatal).  */
struct sfdo_profile *sfdo_profile_new (void);
/* Free P and everything it owns; P may be NULL.  */
void sfdo_profile_free (struct sfdo_profile *p);

/* --- Reading: the encoding is detected from the content ---------------- */

/* Read the whole profile in PATH ("-" for stdin).  On failure *OUT is NULL
   and ERR names the file and the line or byte offset.  */
enum sfdo_errc sfdo_profile_read (const char *path, struct sfdo_profile **out,
                                  struct sfdo_error *err);
/* Like sfdo_profile_read, but a binary profile is mmap'd and only its
   header and index are checked; functions decode on sfdo_profile_find().  */
enum sfdo_errc sfdo_profile_open (const char *path, struct sfdo_profile **out,
                                  struct sfdo_error *err);
/* Read a profile from the LEN bytes at BUF (copied as needed); NAME is used
   in error messages.  */
enum sfdo_errc sfdo_profile_read_mem (const void *buf, size_t len,
                                      const char *name,
                                      struct sfdo_profile **out,
                                      struct sfdo_error *err);
/* Decode every function not yet decoded (a no-op for text profiles).  */
enum sfdo_errc sfdo_profile_load_all (struct sfdo_profile *p,
                                      struct sfdo_error *err);
/* The encoding P was read from (text for a profile built in memory).  */
enum sfdo_prof_encoding sfdo_profile_encoding (const struct sfdo_profile *p);

/* --- Writing ------------------------------------------------------------ */

/* Write P (finalized first) to F in ENC.  NAME is used in errors.  */
enum sfdo_errc sfdo_profile_write (struct sfdo_profile *p, FILE *f,
                                   enum sfdo_prof_encoding enc,
                                   const char *name, struct sfdo_error *err);
/* Write P to PATH atomically (a temporary file renamed into place, so a
   failure leaves no partial file); "-" writes to stdout.  */
enum sfdo_errc sfdo_profile_save (struct sfdo_profile *p, const char *path,
                                  enum sfdo_prof_encoding enc,
                                  struct sfdo_error *err);

/* --- Other tools' formats (profile_afdo.c, profile_text.c) ------------- */

/* What an export could not hold, in numbers of items.  */
struct sfdo_export_report {
  uint64_t value_histograms;  /* only call targets survive */
  uint64_t inline_heads;      /* head counts of inline instances */
  uint64_t checksums;
  uint64_t files;             /* files of static functions */
  uint64_t positions;         /* offsets or discriminators too large */
  /* LLVM: static functions merged into another function of their name
     (LLVM's text keys functions by name alone); not a loss of counts.  */
  uint64_t merged_functions;
  /* LLVM: no record has a discriminator, as when the profiled binary was
     built without -fdebug-info-for-profiling.  */
  int no_discriminators;
  /* LLVM: some discriminator is not in clang's encoding (the binary was
     built by GCC): all are written as they are.  */
  int foreign_discriminators;
  /* AFDO: value_histograms by kind, and positions by what did not fit
     (a callsite's inline instance goes with its position).  */
  uint64_t value_kinds[SFDO_VALUE_NKINDS];
  uint64_t position_offsets;          /* the line offset over 16 bits */
  uint64_t position_discriminators;   /* only the discriminator */
  uint64_t position_inlines;          /* of both: callsites */
};

enum sfdo_export_format {
  SFDO_EXPORT_AFDO1 = 1,      /* GCC's AutoFDO, version 1 (GCC <= 11) */
  SFDO_EXPORT_AFDO2 = 2,      /* version 2 (GCC 12 to 15) */
  SFDO_EXPORT_AFDO3 = 3,      /* version 3 (GCC 16) */
  SFDO_EXPORT_LLVM = 16       /* LLVM's text sample profile */
};

/* Write P to PATH ("-" for stdout) in FORMAT, atomically; *LOST says what
   the format could not hold.  Reading needs nothing special: every reader
   recognises AFDO files (versions 1 to 3, and create_gcov's) and LLVM text
   by themselves.  */
enum sfdo_errc sfdo_profile_export (struct sfdo_profile *p, const char *path,
                                    enum sfdo_export_format format,
                                    struct sfdo_export_report *lost,
                                    struct sfdo_error *err);

/* Write to F one line per kind of item LOST counts, "PROGRAM: FORMAT
   cannot hold N ITEMS; left out", for the tool to show its user.  */
void sfdo_export_report_print (FILE *f, const char *program,
                               enum sfdo_export_format format,
                               const struct sfdo_export_report *lost);
/* Write to F what the counts of sfdo_export_report_print are made of:
   the value histograms by kind, the positions by what did not fit
   (nothing when LOST does not break them down, as for LLVM).  */
void sfdo_export_report_print_kinds (FILE *f, const char *program,
                                     const struct sfdo_export_report *lost);

/* --- Strings -------------------------------------------------------------- */

/* The id of the LEN bytes at S, adding them if new.  */
uint32_t sfdo_profile_intern (struct sfdo_profile *p, const char *s,
                              size_t len);
/* The id of NUL-terminated S, adding it if new.  */
uint32_t sfdo_profile_intern_str (struct sfdo_profile *p, const char *s);
/* The NUL-terminated string of ID ("" for an unknown id).  */
const char *sfdo_profile_str (const struct sfdo_profile *p, uint32_t id);

/* --- Header ------------------------------------------------------------- */

/* The header, writable: use the add functions to keep its sets sorted.  */
struct sfdo_prof_header *sfdo_profile_header (struct sfdo_profile *p);
void sfdo_profile_add_build_id (struct sfdo_profile *p, const char *hex);
void sfdo_profile_add_mode (struct sfdo_profile *p, const char *mode);
void sfdo_profile_add_tool (struct sfdo_profile *p, const char *tool);
/* Add SAMPLES to the event (NAME, PERIOD), creating it if new.  */
void sfdo_profile_add_event (struct sfdo_profile *p, const char *name,
                             uint64_t period, uint64_t samples);
/* Add a compiler of the profiled code, "GCC 16.2.0" or "clang 14.0.6".  */
void sfdo_profile_add_producer (struct sfdo_profile *p, const char *producer);

/* The major versions of the GCCs the header lists as producers
   ("GCC 16.2.0": 16), ascending and distinct, at most MAX of them into
   OUT; returns how many there are.  0: the profile does not say which
   GCC made its code (it is older than the producer field, came from
   another tool, or from clang's code).  A GCC reading the profile whose
   major is on the other side of 16 from these numbers its discriminators
   differently: GCC 16's base discriminators are not GCC 15's.  */
size_t sfdo_profile_gcc_majors (const struct sfdo_profile *p, unsigned *out,
                                size_t max);
/* The largest of sfdo_profile_gcc_majors, 0 if none.  */
unsigned sfdo_profile_gcc_major (const struct sfdo_profile *p);

/* --- Functions ---------------------------------------------------------- */

/* The number of top-level functions, decoded or not.  */
size_t sfdo_profile_nfuncs (const struct sfdo_profile *p);
/* The I-th top-level function in canonical order (by total, descending,
   then name, then file), decoding it if needed; NULL on a decoding error
   (then ERR says why) or if I is out of range.  */
struct sfdo_prof_func *sfdo_profile_func (struct sfdo_profile *p, size_t i,
                                          struct sfdo_error *err);
/* The top-level function NAME of FILE (NULL or "" for a global function),
   or NULL if absent or undecodable (then ERR says why).  Costs
   O(log nfuncs) and decodes only that function.  */
struct sfdo_prof_func *sfdo_profile_find (struct sfdo_profile *p,
                                          const char *name, const char *file,
                                          struct sfdo_error *err);
/* The file-local function NAME whose file is FILE's, or else the one
   whose file's path ends in the most path components FILE's ends in (at
   least its base name), if only one does; NULL if none (then ERR says
   why when a function could not be decoded).  A build in another
   directory, or one that names its sources by absolute paths where the
   profiled build named them relative to its own, finds its statics so.
   FILE is as the compiler was given it.  Beyond the exact lookup it costs
   O(nfuncs) in a profile read whole, and the name's index entries in a
   lazily opened binary one.  */
struct sfdo_prof_func *sfdo_profile_find_static (struct sfdo_profile *p,
                                                 const char *name,
                                                 const char *file,
                                                 struct sfdo_error *err);
/* Call VISIT (FILE, LEN, CTX) with the file of each top-level function
   named NAME ("" for a global one), until it returns non-zero; reads the
   index only, decoding no function.  Fails only on a corrupt index.  */
enum sfdo_errc sfdo_profile_files_of (struct sfdo_profile *p, const char *name,
                                      int (*visit) (const char *file,
                                                    size_t len, void *ctx),
                                      void *ctx, struct sfdo_error *err);
/* Add a new top-level function (NAME, FILE are string ids).  Adding a
   function that exists already creates a duplicate that finalize merges.  */
struct sfdo_prof_func *sfdo_profile_add_func (struct sfdo_profile *p,
                                              uint32_t name, uint32_t file);

/* Append a body count; duplicates are summed by finalize.  */
struct sfdo_prof_line *sfdo_prof_func_add_line (struct sfdo_prof_func *f,
                                                uint32_t offset,
                                                uint32_t discriminator,
                                                uint64_t count);
/* Append a call target with COUNT to LINE.  */
void sfdo_prof_line_add_target (struct sfdo_prof_line *line, uint32_t name,
                                uint64_t count);
/* Append VALUE seen COUNT times at (OFFSET, DISCRIMINATOR) for KIND.  */
void sfdo_prof_func_add_value (struct sfdo_prof_func *f, uint32_t offset,
                               uint32_t discriminator, uint32_t kind,
                               uint64_t value, uint64_t count);
/* Append an inlined callee NAME (of FILE, 0 if global) at the callsite
   (OFFSET, DISCRIMINATOR) and return its new, empty profile.  */
struct sfdo_prof_func *sfdo_prof_func_add_callsite (struct sfdo_prof_func *f,
                                                    uint32_t offset,
                                                    uint32_t discriminator,
                                                    uint32_t name,
                                                    uint32_t file);
/* How a function's line offsets move from an older source to a newer:
   TO (OFFSET, CTX) gives the new offset, or -1 for a line the newer
   source does not have.  */
struct sfdo_offset_move {
  int64_t (*to) (uint32_t offset, void *ctx);
  void *ctx;
};

/* A copy of SRC, a function of profile P, whose own records (body lines,
   value histograms, inlined callsites; not its inlinees' records, whose
   offsets count from their own declarations) sit where MOVE takes them,
   those it leaves out dropped; records moved onto one position are
   merged as a profile's duplicates are (counts add).  Its total and head
   stay SRC's: the function ran as much, wherever its lines went.  Not
   added to P: free it with sfdo_prof_func_free.  */
struct sfdo_prof_func *
sfdo_prof_func_copy_moved (struct sfdo_profile *p,
                           const struct sfdo_prof_func *src,
                           const struct sfdo_offset_move *move);
/* Give F, a function of a profile, the records (lines, values,
   callsites) of SRC, freeing SRC and F's own records; F keeps its name,
   file, total and head.  */
void sfdo_prof_func_take (struct sfdo_prof_func *f, struct sfdo_prof_func *src);

/* The base of the function name NAME, past an assembler '*' and up to
   GCC's clone suffixes (the first '.': ".isra.0", ".part.0",
   ".constprop.0", ".cold"; C and mangled C++ names have no other dot),
   its length into *LEN.  */
const char *sfdo_name_base (const char *name, size_t *len);

/* Whether P's header lists MODE ("ip", "lbr", "shape").  */
int sfdo_profile_has_mode (struct sfdo_profile *p, const char *mode);

/* Free F and everything nested in it (a function no profile holds).  */
void sfdo_prof_func_free (struct sfdo_prof_func *f);

/* Add a copy of everything SRC counts (body, values, inlinees, total,
   head) into DST, both functions of profile P; DST keeps its name and
   file and is in canonical order on return.  For a callee that the
   profiled binary inlined but a new compilation calls: its inline
   instance's counts belong to its own body now.  */
void sfdo_prof_func_add (struct sfdo_profile *p, struct sfdo_prof_func *dst,
                         const struct sfdo_prof_func *src);
/* Set the total of F, and of everything nested in it, to the sum of its
   body counts and its inlinees' totals (saturating); returns F's.  */
uint64_t sfdo_prof_func_sum_totals (struct sfdo_prof_func *f);
/* How often F (an inline instance, mostly) was entered: its head count,
   or where the converter could not tell entries (head 0), its busiest
   line's count.  */
uint64_t sfdo_prof_func_entries (const struct sfdo_prof_func *f);
/* Whether F, or an instance inlined in it, made a call that a sample
   saw (a callsamples histogram with a count: an unwound stack or a
   branch stack showed it), so that F ran however few samples its own
   lines caught.  */
int sfdo_prof_func_seen_calling (const struct sfdo_prof_func *f);
/* The line (OFFSET, DISCRIMINATOR) of finalized F, or NULL.  */
const struct sfdo_prof_line *sfdo_prof_func_find_line
  (const struct sfdo_prof_func *f, uint32_t offset, uint32_t discriminator);

/* --- Whole-profile operations ------------------------------------------- */

/* Sort everything into canonical order and sum duplicates.  Decodes all
   functions of a lazily opened profile first.  */
enum sfdo_errc sfdo_profile_finalize (struct sfdo_profile *p,
                                      struct sfdo_error *err);
/* Add SRC into DST with every count multiplied by WEIGHT (saturating);
   header sets are united.  DST is finalized on return.  Merge is
   commutative and associative, and an empty profile is its identity.  */
enum sfdo_errc sfdo_profile_merge (struct sfdo_profile *dst,
                                   struct sfdo_profile *src, uint64_t weight,
                                   struct sfdo_error *err);

/* Sum of all top-level totals (saturating).  */
uint64_t sfdo_profile_total (struct sfdo_profile *p);

/* The degree of overlap of Chen et al.: the sum over keys of the minimum of
   the two normalised weights, in [0, 1].  Function level keys functions by
   (name, file) weighted by total; line level keys every body count by its
   function, inline path, offset and discriminator.  Two empty profiles
   overlap fully (1.0).  */
enum sfdo_errc sfdo_profile_overlap (struct sfdo_profile *a,
                                     struct sfdo_profile *b,
                                     double *function_level,
                                     double *line_level,
                                     struct sfdo_error *err);

/* Saturating arithmetic on counts.  */
static inline uint64_t
sfdo_sat_add (uint64_t a, uint64_t b)
{
  return a + b < a ? UINT64_MAX : a + b;
}

static inline uint64_t
sfdo_sat_mul (uint64_t a, uint64_t b)
{
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The name of value kind KIND ("icall", "divmod", "memsize"), or NULL.  */
const char *sfdo_prof_value_kind_name (uint32_t kind);

#ifdef __cplusplus
}
#endif

#endif
