/* perfdata/perfdata_int.h - internals of the perf.data reader.
 *
 * perfdata_src.c     the byte source (file or memory) and bounded cursor
 * perfdata_header.c  open: file header, attrs, feature sections
 * perfdata_records.c the record walk, user records, zstd decompression
 * perfdata_sample.c  decoding SAMPLE records and sample_id trailers
 * perfdata_write.c   the writer (perfdata_write.h), sharing this layout  */
#ifndef SFDO_PERFDATA_PERFDATA_INT_H
#define SFDO_PERFDATA_PERFDATA_INT_H

#include <stdio.h>

#include "perfdata.h"

#define PD_MAGIC 0x32454c4946524550ull       /* "PERFILE2" little-endian */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ull
#define PD_FILE_HEADER_SIZE 104
#define PD_PIPE_HEADER_SIZE 16
#define PD_ATTR_SIZE_VER0 64
#define PD_RECORD_MAX 65536
#define PD_NFEATS 256
#define PD_NAME_ALIGN 64                /* feature strings, build-id names */
#define PD_BUILD_ID_EVENT_SIZE 36       /* header, pid, build_id[24] */
#define PD_MISC_BUILD_ID_SIZE (1u << 15) /* build_id[20] holds the size */

/* Feature bits (HEADER_* in perf's header.h); the reader decodes only
   BUILD_ID and EVENT_DESC, the writer writes these.  */
enum {
  PD_FEAT_BUILD_ID = SFDO_PERFDATA_FEAT_BUILD_ID,
  PD_FEAT_HOSTNAME = 3,
  PD_FEAT_OSRELEASE = 4,
  PD_FEAT_VERSION = 5,
  PD_FEAT_ARCH = 6,
  PD_FEAT_NRCPUS = 7,
  PD_FEAT_CPUDESC = 8,
  PD_FEAT_CPUID = 9,
  PD_FEAT_TOTAL_MEM = 10,
  PD_FEAT_CMDLINE = 11,
  PD_FEAT_EVENT_DESC = SFDO_PERFDATA_FEAT_EVENT_DESC
};

/* User record types (perf's own, >= 64).  */
enum {
  PD_HEADER_ATTR = 64,
  PD_HEADER_EVENT_TYPE = 65,
  PD_HEADER_TRACING_DATA = 66,
  PD_HEADER_BUILD_ID = 67,
  PD_FINISHED_ROUND = 68,
  PD_ID_INDEX = 69,
  PD_AUXTRACE_INFO = 70,
  PD_AUXTRACE = 71,
  PD_EVENT_UPDATE = 78,
  PD_HEADER_FEATURE = 80,
  PD_COMPRESSED = 81,
  PD_FINISHED_INIT = 82,
  PD_COMPRESSED2 = 83,
  PD_LAST_KNOWN = 83
};

/* Where bytes come from: a stream or memory.  POS is the file offset of
   the next byte; SIZE is UINT64_MAX when unknown (a pipe).  */
struct pd_src {
  FILE *f;
  int own_f, seekable;
  const uint8_t *mem;
  uint64_t pos, size;
};

/* A bounded cursor over bytes in memory that came from file offset BASE.
   Errors name BASE + POS, or just BASE when FIXED_OFF is set (records:
   errors name the record; for records from compressed data, ZDATA is set
   and BASE is the compressed record's offset).  */
struct pd_cur {
  const uint8_t *p;
  size_t len, pos;
  uint64_t base;
  int fixed_off, zdata;
};

struct pd_attr {
  struct sfdo_perfdata_attr pub;
  uint64_t *ids;
  char *name;
};

struct pd_idmap {
  uint64_t id;
  size_t attr;
};

struct pd_build_id {
  struct sfdo_perfdata_build_id pub;
  char *filename;
};

/* Decompression state: zstd output lands in OUT, [POS, LEN) not yet
   consumed; IN holds the compressed payload being drained.  */
struct pd_zstate {
  void *ds;                     /* ZSTD_DStream */
  uint8_t *in, *out;
  size_t in_len, in_pos, out_len, out_pos;
  uint64_t rec_off;             /* offset of the compressed record */
  uint64_t skip;                /* payload bytes still to skip */
};

struct sfdo_perfdata {
  char name[256];
  unsigned flags;               /* SFDO_PERFDATA_SKIP_BAD */
  struct pd_src src;
  int pipe, at_end;
  enum sfdo_errc sticky;
  struct sfdo_error sticky_err;
  uint64_t data_off, data_end;  /* file mode: the data section */
  uint8_t feats[PD_NFEATS / 8];
  struct pd_attr **attrs;       /* each allocated alone: pointers stay */
  size_t nattrs, attrs_cap;
  struct pd_idmap *idmap;
  size_t nidmap, idmap_cap;
  uint64_t total_ids;
  struct pd_build_id *bids;
  size_t nbids, bids_cap;
  struct pd_zstate z;
  uint8_t *rec;                 /* PD_RECORD_MAX bytes, 8-aligned */
  int pending;                  /* pipe open: a record is waiting in REC */
  struct pd_cur pending_cur;
  /* Scratch arrays for the record being delivered.  */
  uint64_t *u64s;
  size_t u64s_cap;
  struct sfdo_perfdata_read_value *rv;
  size_t rv_cap;
  struct sfdo_perfdata_branch *br;
  size_t br_cap;
  struct sfdo_perfdata_stats stats;
};

/* perfdata_src.c */
struct sfdo_perfdata *sfdo_perfdata_new_ (const char *name);
void sfdo_perfdata_src_init_ (struct sfdo_perfdata *pd, FILE *f, int own);
enum sfdo_errc sfdo_perfdata_src_read (struct sfdo_perfdata *pd, void *buf,
                                       size_t n, size_t *got,
                                       struct sfdo_error *err);
enum sfdo_errc sfdo_perfdata_src_seek (struct sfdo_perfdata *pd, uint64_t off,
                                       struct sfdo_error *err);
enum sfdo_errc sfdo_perfdata_src_skip (struct sfdo_perfdata *pd, uint64_t n,
                                       struct sfdo_error *err);
enum sfdo_errc sfdo_perfdata_err (struct sfdo_perfdata *pd,
                                  struct sfdo_error *err, enum sfdo_errc code,
                                  uint64_t off, const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));
/* SKIP_BAD: count a bad record (or stretch) at OFF of BYTES, remember
   the first one's message, forget the error, return SFDO_OK.  */
enum sfdo_errc sfdo_perfdata_skip_bad (struct sfdo_perfdata *pd,
                                       struct sfdo_error *err, uint64_t bytes);
enum sfdo_errc sfdo_perfdata_cur_err (struct sfdo_perfdata *pd,
                                      struct sfdo_error *err,
                                      const struct pd_cur *c,
                                      enum sfdo_errc code, const char *what);
int sfdo_perfdata_cur_u64 (struct pd_cur *c, uint64_t *v);
int sfdo_perfdata_cur_u32 (struct pd_cur *c, uint32_t *v);
int sfdo_perfdata_cur_bytes (struct pd_cur *c, size_t n, const uint8_t **p);
uint64_t sfdo_perfdata_cur_off (const struct pd_cur *c);
uint64_t sfdo_perfdata_le64 (const uint8_t *p);
uint32_t sfdo_perfdata_le32 (const uint8_t *p);
uint16_t sfdo_perfdata_le16 (const uint8_t *p);

/* perfdata_header.c */
enum sfdo_errc sfdo_perfdata_add_attr (struct sfdo_perfdata *pd,
                                       struct pd_cur *c, size_t attr_len,
                                       struct pd_cur *ids,
                                       struct sfdo_error *err);
enum sfdo_errc sfdo_perfdata_feature (struct sfdo_perfdata *pd, unsigned feat,
                                      struct pd_cur *c, struct sfdo_error *err);
enum sfdo_errc sfdo_perfdata_add_build_id (struct sfdo_perfdata *pd,
                                           struct pd_cur *c,
                                           struct sfdo_error *err);
void sfdo_perfdata_set_name (struct sfdo_perfdata *pd, uint64_t id,
                             size_t fallback, const uint8_t *s, size_t n);

/* perfdata_records.c */
/* Whether the 8 bytes at H could start a record of at most ROOM bytes: a
   known type, a size of whole 8-byte words.  For finding the next record
   after a bad one, and the records of an unfinished file.  */
int sfdo_perfdata_plausible_header (const uint8_t *h, uint64_t room);
enum sfdo_errc sfdo_perfdata_read_pipe_init (struct sfdo_perfdata *pd,
                                             struct sfdo_error *err);
void sfdo_perfdata_free_records_ (struct sfdo_perfdata *pd);

/* perfdata_sample.c */
const struct pd_attr *sfdo_perfdata_attr_of (struct sfdo_perfdata *pd,
                                             const struct pd_cur *c,
                                             uint32_t type, int *unknown);
enum sfdo_errc sfdo_perfdata_decode_sample (struct sfdo_perfdata *pd,
                                            struct pd_cur *c,
                                            struct sfdo_perfdata_record *r,
                                            struct sfdo_error *err);
enum sfdo_errc sfdo_perfdata_decode_trailer (struct sfdo_perfdata *pd,
                                             struct pd_cur *c,
                                             struct sfdo_perfdata_record *r,
                                             struct sfdo_error *err);

#endif
