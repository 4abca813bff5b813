/* perfdata/perfdata_write_int.h - internals of the perf.data writer:
 * perfdata_write.c (file, header, features) and perfdata_encode.c
 * (records).  Layout constants are shared with the reader through
 * perfdata_int.h.  */
#ifndef SFDO_PERFDATA_PERFDATA_WRITE_INT_H
#define SFDO_PERFDATA_PERFDATA_WRITE_INT_H

#include <stdio.h>

#include "../common/u64map.h"
#include "perfdata_int.h"
#include "perfdata_write.h"

struct w_attr {
  uint8_t *bytes;               /* the perf_event_attr as given */
  char *name;
  uint64_t *ids;
  size_t nids;
  uint64_t sample_type, read_format, flags, branch_sample_type;
  uint64_t regs_user, regs_intr;
};

struct w_build_id {
  int32_t pid;
  uint16_t misc;
  uint8_t size;
  uint8_t id[20];
  char *filename;
};

/* Where samples fell, for sfdo_perfdata_writer_count_samples.  */
struct w_mapping {
  uint32_t pid;
  uint64_t start, end;
  size_t file;                  /* index into mapped */
};

struct w_hits {
  struct w_mapping *maps;
  size_t nmaps, cap_maps;
  struct sfdo_u64map parents;   /* child pid -> parent pid */
  struct sfdo_pairmap pages;    /* (pid, ip >> 12) -> samples */
};

/* host_str: hostname, osrelease, version, arch, cpudesc, cpuid.  */
#define W_NSTR 6

struct sfdo_perfdata_writer {
  char *path, *tmp_path;
  FILE *f;
  char *buf;                    /* the stream's buffer */
  uint64_t pos;                 /* file offset of the next byte */
  enum sfdo_errc failed;        /* the first error; every call repeats it */
  struct sfdo_error first_err;
  struct w_attr *attrs;
  size_t nattrs, attrs_cap, attr_size;
  struct w_build_id *bids;
  size_t nbids, bids_cap;
  struct sfdo_perfdata_mapped *mapped;   /* distinct MMAP/MMAP2 files;
                                           filename malloc'd */
  size_t nmapped, mapped_cap;
  size_t *mapped_set;           /* open addressing: index + 1, 0 empty */
  size_t mapped_set_cap;
  struct w_hits hits;           /* perfdata_hits.c */
  char *host_str[W_NSTR];
  struct sfdo_perfdata_host host;   /* strings: see host_str and argv */
  char **argv;
  uint8_t *scratch;             /* PD_RECORD_MAX bytes for encoding */
};

enum sfdo_errc sfdo_perfdata_writer_bytes (struct sfdo_perfdata_writer *w,
                                           const void *p, size_t n,
                                           struct sfdo_error *err);
void sfdo_perfdata_writer_free_ (struct sfdo_perfdata_writer *w);

/* perfdata_hits.c: note a record written (LEN bytes at REC, of TYPE) that
   says where samples fall; FILE is the mapped-file index of an MMAP or
   MMAP2.  */
void sfdo_perfdata_hits_note (struct sfdo_perfdata_writer *w,
                              const uint8_t *rec, size_t len, uint32_t type,
                              size_t file);
void sfdo_perfdata_hits_free (struct w_hits *h);

#endif
