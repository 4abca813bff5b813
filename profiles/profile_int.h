/* profiles/profile_int.h - the layout of struct sfdo_profile, shared by the
 * files of the profile library only.  */
#ifndef SFDO_PROFILES_PROFILE_INT_H
#define SFDO_PROFILES_PROFILE_INT_H

#include "profile.h"
#include "../common/u64map.h"

struct str_entry {
  const char *s;
  uint32_t len;
};

/* Where the sections of a binary profile are, once checked.  */
struct bin_layout {
  uint64_t strtab_off, strtab_size;
  uint64_t meta_off, meta_size;
  uint64_t index_off;
  uint64_t records_off, records_size;
  uint32_t nfuncs;
};

/* Functions decoded lazily from a binary profile, keyed by record offset,
   so a function is decoded once and its pointer stays stable.  */
struct decoded_map {
  uint64_t *keys;               /* record offset + 1; 0 = empty slot */
  struct sfdo_prof_func **vals;
  size_t cap, n;
};

struct sfdo_profile {
  /* Interned strings: ids index STRS; STR_SLOTS hashes them (id + 1).  */
  struct str_entry *strs;
  size_t nstrs, cap_strs;
  uint32_t *str_slots;
  size_t cap_slots;
  char *chunk;                  /* current string storage chunk */
  size_t chunk_left;
  char **chunks;
  size_t nchunks, cap_chunks;

  struct sfdo_prof_header hdr;
  size_t cap_build_ids, cap_modes, cap_tools, cap_events;

  /* Top-level functions.  In a lazily opened binary profile FUNCS is empty
     until load_all, and DECODED caches what find() decoded.  */
  struct sfdo_prof_func **funcs;
  size_t nfuncs, cap_funcs;
  size_t *func_slots;           /* (index + 1) hashed by (name, file) */
  size_t cap_func_slots;
  int index_valid;

  enum sfdo_prof_encoding encoding;
  int lazy;                     /* binary, not all functions decoded */
  const uint8_t *data;          /* backing bytes of a binary profile */
  size_t data_len;
  int data_mapped;              /* munmap DATA (else free it) */
  char *path;
  struct bin_layout bin;
  struct decoded_map decoded;
};


/* What strings the format can hold, so that both encodings hold the same
   and text round-trips (FORMAT.md, "Strings").  */
enum sfdo_str_class {
  SFDO_STR_TOKEN,               /* no spaces: targets, build-ids, modes */
  SFDO_STR_NAME,                /* a token that can open a line: function
                                   and callee names */
  SFDO_STR_LINE,                /* the rest of a line: tools */
  SFDO_STR_FILE                 /* a line, or empty for "no file" */
};
/* NULL if the LEN bytes at S may be a string of class CLS, else what is
   wrong with them.  */
const char *sfdo_profile_string_problem (const char *s, size_t len,
                                         enum sfdo_str_class cls);
/* Check every string of P before writing it; SFDO_E_MALFORMED names the
   first one no encoding can hold.  */
enum sfdo_errc sfdo_profile_check_strings (const struct sfdo_profile *p,
                                           const char *name,
                                           struct sfdo_error *err);
/* The id of the LEN bytes at S, or UINT32_MAX if not interned.  */
uint32_t sfdo_profile_lookup_id (const struct sfdo_profile *p, const char *s,
                                 size_t len);
struct sfdo_prof_func *sfdo_prof_func_new (uint32_t name, uint32_t file);
/* Sort and coalesce F and everything nested in it.  */
void sfdo_prof_func_finalize (const struct sfdo_profile *p,
                              struct sfdo_prof_func *f);
/* Move everything of SRC into DST (same profile) and free SRC.  */
void sfdo_prof_func_absorb (struct sfdo_prof_func *dst,
                            struct sfdo_prof_func *src);
/* Whether two top-level functions of P share a (name, file) key; builds
   the lookup index as a side effect.  */
int sfdo_profile_has_duplicate_funcs (struct sfdo_profile *p);
void sfdo_profile_append_func (struct sfdo_profile *p,
                               struct sfdo_prof_func *f);

/* AFDO (profile_afdo.c).  */
int sfdo_profile_is_afdo (const void *data, size_t len);
enum sfdo_errc sfdo_afdo_read (struct sfdo_profile *p, const uint8_t *data,
                               size_t len, struct sfdo_error *err);
enum sfdo_errc sfdo_profile_write_afdo (struct sfdo_profile *p, FILE *f,
                                        unsigned version, const char *name,
                                        struct sfdo_export_report *lost,
                                        struct sfdo_error *err);
/* LLVM's text sample profile (profile_llvm.c).  Base discriminators are
   12 bits in DILocation's encoding; LLVM's reader takes 16-bit offsets.  */
#define SFDO_LLVM_MAX_BASE 0xfffu
#define SFDO_LLVM_MAX_OFFSET 0xffffu
/* The base discriminator and the duplication factor (1 if none) of the
   DWARF discriminator D as clang encodes it.  */
uint32_t sfdo_llvm_base_discriminator (uint32_t d);
uint32_t sfdo_llvm_duplication_factor (uint32_t d);
/* The DWARF discriminator clang writes for base discriminator BASE alone;
   -1 if BASE is over SFDO_LLVM_MAX_BASE.  */
int sfdo_llvm_encode_base (uint32_t base, uint32_t *d);
/* Comment lines for the output, one string each (without "# ").  */
struct sfdo_llvm_notes {
  char **lines;
  size_t n, cap;
};
/* A new profile of finalized P's counts keyed as LLVM's loader looks them
   up (functions by name alone; with CLANG, by base discriminator,
   duplication factors multiplied in; else discriminators as they are);
   finalizing it sums what meets at one key.  NOTES says which functions
   meet, LOST counts what was merged or left out.  */
struct sfdo_profile *sfdo_llvm_fold (struct sfdo_profile *p, int clang,
                                     struct sfdo_llvm_notes *notes,
                                     struct sfdo_export_report *lost);
void sfdo_llvm_notes_free (struct sfdo_llvm_notes *notes);
/* The LLVM export: fold P and write it in LLVM's subset of the text.  */
enum sfdo_errc sfdo_llvm_write (struct sfdo_profile *p, FILE *f,
                                const char *name,
                                struct sfdo_export_report *lost,
                                struct sfdo_error *err);
/* Write folded P as LLVM's text: the text encoding without sfdo's
   extensions (counted in LOST), NOTES as comments after the header.  With
   BASE, the first line says the discriminators are LLVM's base
   discriminators; else it is sfdo's version line, as the discriminators
   are the binary's.  */
enum sfdo_errc sfdo_text_write_llvm (struct sfdo_profile *p, FILE *f,
                                     const char *name, int base,
                                     const struct sfdo_llvm_notes *notes,
                                     struct sfdo_export_report *lost,
                                     struct sfdo_error *err);
/* Add SRC's header sets and sample numbers to DST's.  */
void sfdo_profile_merge_header (struct sfdo_profile *dst,
                                const struct sfdo_profile *src);

/* Encodings.  Each parses LEN bytes at DATA into empty profile P.  */
int sfdo_profile_is_binary (const void *data, size_t len);
enum sfdo_errc sfdo_text_read (struct sfdo_profile *p, const char *data,
                               size_t len, struct sfdo_error *err);
enum sfdo_errc sfdo_text_write (struct sfdo_profile *p, FILE *f,
                                const char *name, struct sfdo_error *err);
/* Check the header and index of the binary profile in P->data.  */
enum sfdo_errc sfdo_binary_open (struct sfdo_profile *p,
                                 struct sfdo_error *err);
enum sfdo_errc sfdo_binary_load_all (struct sfdo_profile *p,
                                     struct sfdo_error *err);
struct sfdo_prof_func *sfdo_binary_find (struct sfdo_profile *p,
                                         const char *name, const char *file,
                                         struct sfdo_error *err);
/* Call VISIT with each file (its string and length) under which the
   binary profile P holds a function NAME; stops at VISIT's non-zero.  */
enum sfdo_errc sfdo_binary_files_of (struct sfdo_profile *p, const char *name,
                                     int (*visit) (const char *file,
                                                   size_t len, void *ctx),
                                     void *ctx, struct sfdo_error *err);
enum sfdo_errc sfdo_binary_write (struct sfdo_profile *p, FILE *f,
                                  const char *name, struct sfdo_error *err);
void sfdo_binary_release (struct sfdo_profile *p);

#endif
