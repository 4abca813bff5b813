/* converter/match.h - which given binary, and which address in it, a
 * sampled instruction pointer is.
 *
 * Stage 2 of the pipeline.  The converter is given binaries (an
 * executable and shared libraries, with their symbols and DWARF); a
 * recording names the files its processes mapped (MMAP and MMAP2
 * records, with build-ids in the records or in the file's BUILD_ID
 * feature).  A mapped file is a given binary when their real paths are
 * the same, when the build-id the recording gives for it is the
 * binary's, or else when their base names are the same (the recording
 * may come from another machine); a name match whose recorded build-id
 * differs is refused by sfdo_match_check_build_ids unless forced.  An
 * address of a process at a time resolves through the process's
 * mappings then (procmap.h) and the binary's loadable segments.
 *
 * The last address range resolved is cached: the entries of a branch
 * stack or a callchain mostly fall in one or two mappings.
 *
 * Depends on common/, perfdata/ (records and build-ids), procmap.h and
 * symtab.h.  */
#ifndef SFDO_CONVERTER_MATCH_H
#define SFDO_CONVERTER_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../perfdata/perfdata.h"
#include "symtab.h"

/* A binary given to the converter.  */
struct sfdo_binary {
  char *path;                   /* as given */
  char *real;                   /* its realpath, or a copy of path */
  const char *base;             /* the base name of path */
  struct sfdo_symtab *symtab;
};

struct sfdo_match;

/* Open the N binaries at PATHS (reading their symbols and DWARF).  */
enum sfdo_errc sfdo_match_new (const char *const *paths, size_t n,
                               struct sfdo_match **out,
                               struct sfdo_error *err);
void sfdo_match_free (struct sfdo_match *m);

size_t sfdo_match_nbinaries (const struct sfdo_match *m);
/* How many processes mapped binary I.  */
size_t sfdo_match_processes (const struct sfdo_match *m, size_t i);
const struct sfdo_binary *sfdo_match_binary (const struct sfdo_match *m,
                                             size_t i);

/* --- what the recording says ---------------------------------------------- */

/* Mapping MM was made at TIME; PD is asked for the build-ids it records
   (NULL: none).  */
void sfdo_match_mmap (struct sfdo_match *m, const struct sfdo_perfdata *pd,
                      const struct sfdo_perfdata_mmap *mm, uint64_t time);
/* CHILD was forked from PARENT at TIME.  */
void sfdo_match_fork (struct sfdo_match *m, uint32_t parent, uint32_t child,
                      uint64_t time);
/* PID exec'd at TIME: its earlier mappings end.  */
void sfdo_match_exec (struct sfdo_match *m, uint32_t pid, uint64_t time);

/* Compare the build-ids PD records for files named like a given binary
   with the binary's: a difference is SFDO_E_MALFORMED naming both, unless
   FORCE.  perf pads 20-byte build-ids with zeros, so only the binary's
   length is compared.  */
enum sfdo_errc sfdo_match_check_build_ids (struct sfdo_match *m,
                                           const struct sfdo_perfdata *pd,
                                           int force, struct sfdo_error *err);

/* --- resolving addresses ---------------------------------------------------- */

enum sfdo_match_result {
  SFDO_MATCH_OK = 0,            /* the address is in a given binary */
  SFDO_MATCH_UNMAPPED,          /* no mapping covers the address then */
  SFDO_MATCH_OTHER_FILE,        /* a mapping of a file not given */
  SFDO_MATCH_NOT_LOADED         /* a given binary, but no loadable
                                   segment of it is there */
};

/* Where an address is.  */
struct sfdo_match_at {
  uint32_t file;                /* the mapped file (unless UNMAPPED) */
  size_t binary;                /* SFDO_MATCH_OK: the binary's index */
  uint64_t vaddr;               /* SFDO_MATCH_OK: its virtual address */
};

/* Where IP of process PID at TIME is, into *AT.  */
enum sfdo_match_result sfdo_match_resolve (struct sfdo_match *m, uint32_t pid,
                                           uint64_t ip, uint64_t time,
                                           struct sfdo_match_at *at);

/* Where code is, for the unwinder (unwind.h).  */
struct sfdo_match_code {
  const char *path;             /* the given binary's own path when the
                                   mapping is of a given binary, else the
                                   path the recording names */
  uint64_t offset;              /* of the address in that file */
  const uint8_t *build_id;      /* the build-id recorded for a file that
                                   is not a given binary (perf pads it
                                   with zeros), or NULL */
  size_t build_id_size;
};

/* The file mapped at IP of process PID at TIME into *CODE.  Returns 0, or
   -1 when nothing was mapped there then.  */
int sfdo_match_locate (struct sfdo_match *m, uint32_t pid, uint64_t ip,
                       uint64_t time, struct sfdo_match_code *code);

/* Count one sample in mapped file FILE (for the report of where samples
   went when they missed every binary).  */
void sfdo_match_count_sample (struct sfdo_match *m, uint32_t file);

/* The mapped files with the most samples counted, at most MAX of them,
   most first, into NAMES and COUNTS; returns how many.  */
size_t sfdo_match_sampled_files (const struct sfdo_match *m, size_t max,
                                 const char **names, uint64_t *counts);

/* The lowercase hex of the N bytes at ID into OUT (2 * N + 1 bytes).  */
void sfdo_match_hex (const uint8_t *id, size_t n, char *out);

#endif
