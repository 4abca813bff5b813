/* perfdata/perfdata.h - reading perf.data files (perf record's output).
 *
 * Format module, used by the converter; its writer, for sfdo-record, is
 * perfdata_write.h.  Depends only on common/ and libzstd.  The layout is perf's
 * (tools/perf/util/header.h, include/uapi/linux/perf_event.h):
 *
 *   file mode  "PERFILE2" header (104 bytes): attrs section (each entry a
 *              perf_event_attr of header.attr_size - 16 bytes followed by
 *              an {offset, size} section of u64 ids), data section (the
 *              records), then one {offset, size} per feature bit set in
 *              adds_features, in bit order.
 *   pipe mode  "PERFILE2" header of 16 bytes, then records only: attrs as
 *              PERF_RECORD_HEADER_ATTR, features as HEADER_FEATURE.
 *
 * Records are read one at a time through a bounded buffer (a record is
 * at most 64 KiB); PERF_RECORD_COMPRESSED and COMPRESSED2 payloads go
 * through one zstd stream (frames of at most 16 MiB windows) into a
 * fixed 256 KiB window, so memory stays bounded whatever the input size;
 * a record may span compressed records.  Sections read whole (attrs, ids,
 * BUILD_ID, EVENT_DESC) are bounded by the file size.  Every read is
 * checked: bad input gives SFDO_E_TRUNCATED (the input ends early) or
 * SFDO_E_MALFORMED (it contradicts itself) with the byte offset of the
 * offending record or header field (for records inside compressed data,
 * the offset of the compressed record).  Byte-swapped (big-endian) files
 * and version 1 ("PERFFILE") files are reported as SFDO_E_VERSION.
 *
 * Which attr a record belongs to: the only one, or the one whose ids hold
 * the record's sample id (PERF_SAMPLE_IDENTIFIER, or PERF_SAMPLE_ID at
 * the position the first attr's sample_type gives, as perf does).
 * Samples of an unknown id are counted and skipped.
 *
 * Ownership: a struct sfdo_perfdata owns everything it returns; pointers
 * are valid until sfdo_perfdata_close(), except that a record passed to
 * the callback (and the arrays it points to) is valid only during the
 * call.  Threads: one thread at a time per handle.  */
#ifndef SFDO_PERFDATA_PERFDATA_H
#define SFDO_PERFDATA_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_perfdata;

/* Record types (perf_event_type numbers, fixed by the kernel ABI).  */
#define SFDO_PERFDATA_MMAP 1
#define SFDO_PERFDATA_LOST 2
#define SFDO_PERFDATA_COMM 3
#define SFDO_PERFDATA_EXIT 4
#define SFDO_PERFDATA_FORK 7
#define SFDO_PERFDATA_SAMPLE 9
#define SFDO_PERFDATA_MMAP2 10
#define SFDO_PERFDATA_NTYPES 128   /* size of stats.by_type */

/* sample_type bits (PERF_SAMPLE_*).  */
#define SFDO_PERFDATA_S_IP (1ull << 0)
#define SFDO_PERFDATA_S_TID (1ull << 1)
#define SFDO_PERFDATA_S_TIME (1ull << 2)
#define SFDO_PERFDATA_S_ADDR (1ull << 3)
#define SFDO_PERFDATA_S_READ (1ull << 4)
#define SFDO_PERFDATA_S_CALLCHAIN (1ull << 5)
#define SFDO_PERFDATA_S_ID (1ull << 6)
#define SFDO_PERFDATA_S_CPU (1ull << 7)
#define SFDO_PERFDATA_S_PERIOD (1ull << 8)
#define SFDO_PERFDATA_S_STREAM_ID (1ull << 9)
#define SFDO_PERFDATA_S_RAW (1ull << 10)
#define SFDO_PERFDATA_S_BRANCH_STACK (1ull << 11)
#define SFDO_PERFDATA_S_REGS_USER (1ull << 12)
#define SFDO_PERFDATA_S_STACK_USER (1ull << 13)
#define SFDO_PERFDATA_S_WEIGHT (1ull << 14)
#define SFDO_PERFDATA_S_DATA_SRC (1ull << 15)
#define SFDO_PERFDATA_S_IDENTIFIER (1ull << 16)
#define SFDO_PERFDATA_S_TRANSACTION (1ull << 17)
#define SFDO_PERFDATA_S_REGS_INTR (1ull << 18)
#define SFDO_PERFDATA_S_PHYS_ADDR (1ull << 19)
#define SFDO_PERFDATA_S_AUX (1ull << 20)
#define SFDO_PERFDATA_S_CGROUP (1ull << 21)
#define SFDO_PERFDATA_S_DATA_PAGE_SIZE (1ull << 22)
#define SFDO_PERFDATA_S_CODE_PAGE_SIZE (1ull << 23)
#define SFDO_PERFDATA_S_WEIGHT_STRUCT (1ull << 24)

/* read_format bits (PERF_FORMAT_*).  */
#define SFDO_PERFDATA_F_TOTAL_TIME_ENABLED (1ull << 0)
#define SFDO_PERFDATA_F_TOTAL_TIME_RUNNING (1ull << 1)
#define SFDO_PERFDATA_F_ID (1ull << 2)
#define SFDO_PERFDATA_F_GROUP (1ull << 3)
#define SFDO_PERFDATA_F_LOST (1ull << 4)

/* branch_sample_type bits that change the sample layout.  */
#define SFDO_PERFDATA_BR_HW_INDEX (1ull << 17)
#define SFDO_PERFDATA_BR_COUNTERS (1ull << 19)

/* Record misc bits.  */
#define SFDO_PERFDATA_MISC_CPUMODE_MASK 7u
#define SFDO_PERFDATA_MISC_MMAP_DATA (1u << 13)
#define SFDO_PERFDATA_MISC_COMM_EXEC (1u << 13)
#define SFDO_PERFDATA_MISC_MMAP_BUILD_ID (1u << 14)

/* Feature bits (HEADER_*) decoded here.  */
#define SFDO_PERFDATA_FEAT_BUILD_ID 2
#define SFDO_PERFDATA_FEAT_EVENT_DESC 12

/* What callbacks return.  */
#define SFDO_PERFDATA_CB_OK 0
#define SFDO_PERFDATA_CB_STOP 1

/* One event (perf_event_attr), with the fields sfdo needs.  Fields the
   file's attr.size does not reach are 0.  */
struct sfdo_perfdata_attr {
  uint32_t type, size;
  uint64_t config, config1, config2;
  uint64_t sample_period;       /* the frequency when freq is set */
  uint64_t sample_type, read_format;
  uint64_t flags;               /* the attr bitfield word, raw */
  int freq, sample_id_all, exclude_kernel, exclude_user;
  uint64_t branch_sample_type;
  uint64_t sample_regs_user, sample_regs_intr;
  uint32_t sample_stack_user;
  uint16_t sample_max_stack;
  const char *name;             /* from EVENT_DESC/EVENT_UPDATE, or NULL */
  size_t nids;
  const uint64_t *ids;          /* sample ids of this event */
};

/* A build-id from the BUILD_ID feature or a HEADER_BUILD_ID record.  */
struct sfdo_perfdata_build_id {
  int32_t pid;
  uint16_t misc;                /* cpumode in the low bits */
  uint8_t size;                 /* 20 unless the size-prefixed variant */
  uint8_t id[20];
  const char *filename;
};

/* The sample_id_all trailer of a non-sample record (or the same fields of
   a sample).  FIELDS says which are present (SFDO_PERFDATA_S_* bits).  */
struct sfdo_perfdata_sample_id {
  uint64_t fields;
  uint32_t pid, tid;
  uint64_t time, id, stream_id;
  uint32_t cpu;
};

struct sfdo_perfdata_read_value {
  uint64_t value, id, lost;
};

struct sfdo_perfdata_branch {
  uint64_t from, to, flags;     /* flags: bit 0 mispred, 1 predicted,
                                   2 in_tx, 3 abort, 4-19 cycles, 20-23
                                   type, ... as the kernel defines */
};

struct sfdo_perfdata_regs {
  uint64_t abi;                 /* 0: no registers */
  uint32_t nregs;               /* popcount of the attr's mask, or 0 */
  const uint64_t *regs;         /* in mask bit order */
};

/* A decoded PERF_RECORD_SAMPLE.  FIELDS is the attr's sample_type: only
   the members it names are meaningful.  */
struct sfdo_perfdata_sample {
  uint64_t fields;
  uint64_t ip, addr, id, stream_id, period;
  uint32_t pid, tid, cpu;
  uint64_t time;
  struct {
    uint64_t nr, time_enabled, time_running;
    const struct sfdo_perfdata_read_value *values;   /* nr of them */
  } read;
  uint64_t callchain_nr;
  const uint64_t *callchain;
  uint32_t raw_size;
  const void *raw;
  uint64_t branch_nr, branch_hw_idx;
  int branch_has_hw_idx;
  const struct sfdo_perfdata_branch *branches;
  const uint64_t *branch_counters;  /* NULL unless BR_COUNTERS */
  struct sfdo_perfdata_regs regs_user, regs_intr;
  uint64_t stack_size, stack_dyn_size;
  const void *stack;
  uint64_t weight;              /* WEIGHT, or WEIGHT_STRUCT's raw word */
  uint64_t data_src, transaction, phys_addr, cgroup;
  uint64_t data_page_size, code_page_size;
  uint64_t aux_size;
  const void *aux;
};

/* MMAP and MMAP2.  For MMAP2, has_build_id says whether the record
   carries a build-id (misc & MMAP_BUILD_ID) instead of maj/min/ino.  */
struct sfdo_perfdata_mmap {
  uint32_t pid, tid;
  uint64_t addr, len, pgoff;
  uint32_t maj, min;
  uint64_t ino, ino_generation;
  uint32_t prot, flags;
  int has_build_id;
  uint8_t build_id_size;
  uint8_t build_id[20];
  const char *filename;
};

struct sfdo_perfdata_comm {
  uint32_t pid, tid;
  const char *comm;
};

/* FORK and EXIT.  */
struct sfdo_perfdata_task {
  uint32_t pid, ppid, tid, ptid;
  uint64_t time;
};

struct sfdo_perfdata_lost {
  uint64_t id, lost;
};

struct sfdo_perfdata_record {
  uint32_t type;                /* SFDO_PERFDATA_SAMPLE, _MMAP, ... */
  uint16_t misc;
  uint16_t size;
  uint64_t offset;              /* file offset (see the top comment) */
  int compressed;               /* came out of a COMPRESSED record */
  const struct sfdo_perfdata_attr *attr;   /* by sample id; may be NULL */
  struct sfdo_perfdata_sample_id id;       /* trailer; fields 0 if none */
  union {
    struct sfdo_perfdata_sample sample;
    struct sfdo_perfdata_mmap mmap;
    struct sfdo_perfdata_comm comm;
    struct sfdo_perfdata_task task;
    struct sfdo_perfdata_lost lost;
  } u;
};

struct sfdo_perfdata_stats {
  uint64_t records;             /* every record read, decompressed ones too */
  /* With SFDO_PERFDATA_SKIP_BAD: records skipped as bad, bytes skipped
     to find the next record, and the first problem (code SFDO_OK if
     none).  */
  uint64_t bad_records, skipped_bytes;
  struct sfdo_error first_bad;
  uint64_t delivered;           /* passed to the callback */
  uint64_t unknown_records;     /* of types this reader does not know */
  uint64_t unknown_id_samples;  /* samples whose id names no attr: skipped */
  uint64_t compressed_records;
  uint64_t decompressed_bytes;
  uint32_t features;            /* feature sections/records seen */
  uint32_t unknown_features;    /* of those, not decoded here (skipped) */
  uint64_t by_type[SFDO_PERFDATA_NTYPES];
};

typedef int (*sfdo_perfdata_record_fn) (const struct sfdo_perfdata_record *rec,
                                        void *ctx);

/* --- open and close ---------------------------------------------------- */

/* Open flags.  SKIP_BAD: a record that cannot be decoded is counted and
   skipped (stats.bad_records, stats.first_bad) instead of ending the walk
   with an error; after a record header that makes no sense the walk goes
   on at the next 8-byte boundary that holds a plausible one; input that
   ends inside a record ends the walk; a file whose header was never
   completed (perf record killed: data size 0) or whose data section runs
   past its end (a truncated copy) is read to its end, without its
   feature sections.  As perf script does, so a long recording with one
   torn record still converts.  */
#define SFDO_PERFDATA_SKIP_BAD 1u

/* Open PATH ("-": standard input, which must then hold pipe-mode data or
   be a regular file) with FLAGS.  */
enum sfdo_errc sfdo_perfdata_open_flags (const char *path, unsigned flags,
                                         struct sfdo_perfdata **out,
                                         struct sfdo_error *err);

/* The same from LEN bytes at BUF (not copied: keep BUF until close).  */
enum sfdo_errc sfdo_perfdata_open_mem_flags (const void *buf, size_t len,
                                             const char *name,
                                             unsigned flags,
                                             struct sfdo_perfdata **out,
                                             struct sfdo_error *err);

/* Open the perf.data at PATH (file or pipe mode) and read its header,
   attrs and feature sections (pipe mode: the records up to the first
   kernel record).  On failure *OUT is NULL.  */
enum sfdo_errc sfdo_perfdata_open (const char *path, struct sfdo_perfdata **out,
                                   struct sfdo_error *err);

/* The same from STREAM (not closed here; it must stay open until close).
   A regular file is read from its start; a non-seekable STREAM (a pipe)
   from where it is, and must hold pipe-mode data.  NAME is used in
   errors.  */
enum sfdo_errc sfdo_perfdata_open_stream (FILE *stream, const char *name,
                                          struct sfdo_perfdata **out,
                                          struct sfdo_error *err);

/* The same from file descriptor FD (duplicated: the caller still closes
   FD), for example 0 when perf record -o - writes into a pipe.  */
enum sfdo_errc sfdo_perfdata_open_fd (int fd, const char *name,
                                      struct sfdo_perfdata **out,
                                      struct sfdo_error *err);

/* The same from LEN bytes at BUF (not copied: keep BUF until close).  */
enum sfdo_errc sfdo_perfdata_open_mem (const void *buf, size_t len,
                                       const char *name,
                                       struct sfdo_perfdata **out,
                                       struct sfdo_error *err);

/* Free PD (NULL allowed).  */
void sfdo_perfdata_close (struct sfdo_perfdata *pd);

/* --- query ------------------------------------------------------------- */

int sfdo_perfdata_is_pipe (const struct sfdo_perfdata *pd);
/* Attrs known so far (pipe mode: more may arrive during the walk).  */
size_t sfdo_perfdata_nattrs (const struct sfdo_perfdata *pd);
const struct sfdo_perfdata_attr *
sfdo_perfdata_attr (const struct sfdo_perfdata *pd, size_t i);
/* The attr with sample id ID, or NULL.  */
const struct sfdo_perfdata_attr *
sfdo_perfdata_find_attr (const struct sfdo_perfdata *pd, uint64_t id);
size_t sfdo_perfdata_nbuild_ids (const struct sfdo_perfdata *pd);
const struct sfdo_perfdata_build_id *
sfdo_perfdata_build_id (const struct sfdo_perfdata *pd, size_t i);
/* Whether feature bit FEAT was present (file mode: in adds_features;
   pipe mode: a HEADER_FEATURE record seen so far).  */
int sfdo_perfdata_has_feature (const struct sfdo_perfdata *pd, unsigned feat);
const struct sfdo_perfdata_stats *
sfdo_perfdata_stats (const struct sfdo_perfdata *pd);

/* --- iterate ------------------------------------------------------------ */

/* Call FN (with CTX) for each SAMPLE, MMAP, MMAP2, COMM, FORK, EXIT and
   LOST record in file order, decompressing COMPRESSED records.  Other
   known records are consumed (HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID
   and EVENT_UPDATE update the attrs and build-ids); unknown ones are
   counted and skipped.  Returns SFDO_OK at the end of the data or when FN
   returns SFDO_PERFDATA_CB_STOP; calling again resumes after the record
   FN stopped at (and at the end, returns SFDO_OK at once).  After an
   error every call returns that error again.  */
enum sfdo_errc sfdo_perfdata_foreach_record (struct sfdo_perfdata *pd,
                                             sfdo_perfdata_record_fn fn,
                                             void *ctx,
                                             struct sfdo_error *err);

/* Whether the walk has reached the end of the data.  */
int sfdo_perfdata_at_end (const struct sfdo_perfdata *pd);

#ifdef __cplusplus
}
#endif

#endif
