/* perfdata/perfdata_write.h - writing perf.data files (file mode, format
 * version 2), the counterpart of perfdata.h's reader in the same module.
 *
 * What it writes, in file order:
 *   the 104-byte "PERFILE2" header (written last, once every offset is
 *   known); the data section, records as they come; the feature table
 *   and the feature sections (BUILD_ID, HOSTNAME, OSRELEASE, VERSION,
 *   ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE, EVENT_DESC: what
 *   `perf report --header-only` prints); then each attr's ids and the
 *   attrs section.  perf and the reader find every part by its offset.
 *
 * The file is written under a temporary name beside PATH and renamed to
 * PATH by sfdo_perfdata_writer_finish(), so PATH never holds a partial
 * file; sfdo_perfdata_writer_abort() removes the temporary file.
 *
 * Records come either raw (as the kernel wrote them into a ring buffer:
 * header included, size a multiple of 8) or from the reader's structs,
 * encoded here with the layout attr 0's sample_type gives (every attr of
 * one file must agree on the sample_id_all fields, as perf requires).
 * The writer remembers the file name of every MMAP and MMAP2 record it
 * writes, so the caller can add their build-ids before finishing.
 *
 * Ownership: the writer copies what it is given.  Threads: one thread at
 * a time per writer.  */
#ifndef SFDO_PERFDATA_PERFDATA_WRITE_H
#define SFDO_PERFDATA_PERFDATA_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_perfdata_writer;

/* What the header features say about the machine and the recording.  A
   NULL string, a zero count or ARGC 0 leaves that feature out.  */
struct sfdo_perfdata_host {
  const char *hostname, *osrelease, *version, *arch;
  const char *cpudesc;          /* "Intel(R) Xeon(R) ..." */
  const char *cpuid;            /* "GenuineIntel,6,85,4", as perf's */
  uint32_t nr_cpus_avail, nr_cpus_online;
  uint64_t total_mem_kb;
  int argc;
  const char *const *argv;      /* the command line */
};

#define SFDO_PERFDATA_FINISHED_ROUND 68   /* record type: a flush point */

/* --- open, finish, abort ------------------------------------------------ */

/* Start writing the perf.data that will be PATH (created under a
   temporary name in PATH's directory).  On failure *OUT is NULL.  */
enum sfdo_errc sfdo_perfdata_writer_open (const char *path,
                                          struct sfdo_perfdata_writer **out,
                                          struct sfdo_error *err);

/* Write the features, attrs and header, then rename the file to PATH.
   Frees W whatever happens; on failure the temporary file is removed.  */
enum sfdo_errc sfdo_perfdata_writer_finish (struct sfdo_perfdata_writer *w,
                                            struct sfdo_error *err);

/* Remove the temporary file and free W (NULL allowed).  */
void sfdo_perfdata_writer_abort (struct sfdo_perfdata_writer *w);

/* --- what the file describes -------------------------------------------- */

/* Add an event: ATTR is a struct perf_event_attr of SIZE bytes (every
   attr of a file has the same size), NAME its name for EVENT_DESC, IDS
   its NIDS sample ids (one per file descriptor opened for it).  Attr I
   is the I-th added.  Any time before finishing, but before encoding
   records when it is the first (its sample_type lays out trailers).  */
enum sfdo_errc sfdo_perfdata_writer_add_attr (struct sfdo_perfdata_writer *w,
                                              const void *attr, size_t size,
                                              const char *name,
                                              const uint64_t *ids, size_t nids,
                                              struct sfdo_error *err);

void sfdo_perfdata_writer_set_host (struct sfdo_perfdata_writer *w,
                                    const struct sfdo_perfdata_host *host);

/* Add a BUILD_ID feature entry: ID (SIZE bytes, at most 20) of FILENAME
   as mapped by PID (-1: every process of this machine, as perf writes),
   MISC the cpumode (PERF_RECORD_MISC_USER is 2).  */
enum sfdo_errc sfdo_perfdata_writer_add_build_id (
  struct sfdo_perfdata_writer *w, int32_t pid, uint16_t misc,
  const uint8_t *id, uint8_t size, const char *filename,
  struct sfdo_error *err);

/* A file an MMAP or MMAP2 record named: INO is the inode number the
   first MMAP2 record of it gave (0 if none did), so that a build-id is
   taken only from the very file that was mapped.  */
struct sfdo_perfdata_mapped {
  const char *filename;
  uint64_t ino;
  uint64_t samples;             /* user-space samples in its mappings, as
                                   of the last sfdo_perfdata_writer_
                                   count_samples () */
};

/* The distinct files of the MMAP and MMAP2 records written so far, in
   first-seen order: I < sfdo_perfdata_writer_nmapped (W).  */
size_t sfdo_perfdata_writer_nmapped (const struct sfdo_perfdata_writer *w);
const struct sfdo_perfdata_mapped *
sfdo_perfdata_writer_mapped (const struct sfdo_perfdata_writer *w, size_t i);

/* Count the samples written so far into each mapped file's SAMPLES: a
   sample counts for the file its process (or, for a process with no
   mapping of its own, the process it was forked from) mapped at its
   address.  So the build-ids written can be those of the files sampled,
   as perf record does.  Samples need IP and TID in their attr's
   sample_type.  Returns how many samples were counted.  */
uint64_t sfdo_perfdata_writer_count_samples (struct sfdo_perfdata_writer *w);

/* --- records ------------------------------------------------------------ */

/* A record as the kernel wrote it: LEN bytes at REC, LEN equal to its
   header's size.  */
enum sfdo_errc sfdo_perfdata_write_raw (struct sfdo_perfdata_writer *w,
                                        const void *rec, size_t len,
                                        struct sfdo_error *err);

/* Encoded records.  MISC goes into the header (cpumode, COMM_EXEC...);
   ID fills the sample_id_all trailer when attr 0 has sample_id_all
   (its FIELDS member is ignored: attr 0's sample_type decides).  */
enum sfdo_errc sfdo_perfdata_write_mmap2 (struct sfdo_perfdata_writer *w,
                                          uint16_t misc,
                                          const struct sfdo_perfdata_mmap *m,
                                          const struct sfdo_perfdata_sample_id *id,
                                          struct sfdo_error *err);
enum sfdo_errc sfdo_perfdata_write_comm (struct sfdo_perfdata_writer *w,
                                         uint16_t misc,
                                         const struct sfdo_perfdata_comm *c,
                                         const struct sfdo_perfdata_sample_id *id,
                                         struct sfdo_error *err);
/* TYPE is SFDO_PERFDATA_FORK or SFDO_PERFDATA_EXIT.  */
enum sfdo_errc sfdo_perfdata_write_task (struct sfdo_perfdata_writer *w,
                                         uint32_t type,
                                         const struct sfdo_perfdata_task *t,
                                         const struct sfdo_perfdata_sample_id *id,
                                         struct sfdo_error *err);
/* A sample of attr ATTR, laid out by that attr's sample_type (READ, RAW,
   STACK_USER, AUX and the cgroup and page-size fields are not encoded:
   SFDO_E_USAGE).  */
enum sfdo_errc sfdo_perfdata_write_sample (struct sfdo_perfdata_writer *w,
                                           size_t attr, uint16_t misc,
                                           const struct sfdo_perfdata_sample *s,
                                           struct sfdo_error *err);
/* A FINISHED_ROUND: perf may sort and flush every record before it.  */
enum sfdo_errc sfdo_perfdata_write_finished_round (
  struct sfdo_perfdata_writer *w, struct sfdo_error *err);

/* Bytes of records written so far.  */
uint64_t sfdo_perfdata_writer_data_size (const struct sfdo_perfdata_writer *w);

#ifdef __cplusplus
}
#endif

#endif
