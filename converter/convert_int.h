/* converter/convert_int.h - the converter's state, shared by convert.c
 * (reading samples) and build_ip.c (turning them into a profile).  */
#ifndef SFDO_CONVERTER_CONVERT_INT_H
#define SFDO_CONVERTER_CONVERT_INT_H

#include "../common/u64map.h"
#include "blocks.h"
#include "convert.h"
#include "procmap.h"
#include "symtab.h"

/* An instruction whose operand a register sample reveals.  */
struct value_site {
  uint64_t addr;                /* the division, or the call */
  int8_t reg;                   /* perf register number of the operand */
  uint8_t width, is_signed;
  uint8_t kind;                 /* SFDO_VALUE_DIVMOD or _MEMSIZE */
};

struct binary {
  char *path;
  char *real;                   /* realpath, or a copy of path */
  const char *base;             /* basename of path */
  struct sfdo_symtab *symtab;
  struct sfdo_u64map weights;   /* vaddr -> summed period of samples */
  struct sfdo_u64map clk_weights;   /* vaddr -> cycles (the CLK event) */
  struct sfdo_u64map stall_weights; /* vaddr -> stall cycles (events
                                       times their stall duration) */
  struct sfdo_pairmap ranges;   /* LBR: (begin, end) vaddrs run straight */
  struct sfdo_pairmap branches; /* LBR: (from, to) taken branches */
  struct sfdo_pairmap calls;    /* callchains: (return address, address
                                   in the callee) */
  struct sfdo_u64map site_index; /* sampled vaddr -> sites index + 1, or
                                    UINT64_MAX when no site follows it */
  struct value_site *sites;
  size_t nsites, cap_sites;
  struct sfdo_pairmap values[SFDO_VALUE_NKINDS];  /* (site, value) seen */
  struct sfdo_u64map pids;      /* processes that mapped it: pid + 1 */
  int build_id_checked;
};

/* A file name seen in an mmap, and which binary (if any) it is.  */
struct mapped_file {
  char *name;
  int binary;                   /* index into binaries, or -1 */
};

/* What a sample of an event counts for.  */
enum event_role {
  ROLE_NONE = 0,                /* an event not used */
  ROLE_COUNT,                   /* the event counted: weights */
  ROLE_CLK,                     /* cycles beside it: clk_weights */
  ROLE_STALL                    /* a long-stall event: stall_weights */
};

struct deferred_sample {
  uint32_t pid;
  uint8_t role;
  uint64_t ip, time, weight;
  uint64_t *callchain;          /* owned copies, or NULL */
  struct sfdo_perfdata_branch *branches;
  uint32_t callchain_nr, branch_nr;
};

/* An event besides the one counted, for the over/under-sampling
   classification (binflow.h).  */
struct aux_event {
  const struct sfdo_perfdata_attr *attr;
  enum event_role role;
  uint32_t stall_cycles;        /* ROLE_STALL: cycles one event stands for */
};

/* What the profile header says of an event used.  */
struct event_note {
  char *name;
  uint64_t period;              /* 0 when perf varied it (-F) */
  uint64_t samples;
};

#define MAX_AUX_EVENTS 8

/* The last address range resolve() mapped: within [lo, hi) of process
   pid at time, ip maps to vaddr ip + delta of binary b.  */
struct resolve_cache {
  uint32_t pid;
  uint64_t time, lo, hi, delta;
  struct binary *b;
};

struct sfdo_converter {
  struct sfdo_convert_opts opts;
  struct binary *binaries;
  size_t nbinaries;
  struct mapped_file *files;
  size_t nfiles, cap_files;
  struct sfdo_procmap *procmap;
  const struct sfdo_perfdata_attr *event;   /* the event counted */
  uint64_t event_samples;
  uint64_t min_sample_weight;   /* of the event counted: one sample's worth */
  char *event_name;             /* of the event counted, for the header */
  uint64_t event_period;        /* 0 when perf varied it (-F) */
  struct aux_event aux[MAX_AUX_EVENTS];     /* of the file being read */
  uint64_t aux_samples[MAX_AUX_EVENTS];
  size_t naux;
  struct event_note aux_notes[MAX_AUX_EVENTS];  /* kept after reading */
  size_t naux_notes;
  int classify;                 /* a CLK event was recorded */
  struct sfdo_convert_stats stats;
  struct sfdo_decoder *decoder; /* for value sites; NULL if not x86-64 */
  uint64_t last_time;           /* of the latest record with a time */
  struct resolve_cache cache;
  struct deferred_sample *deferred;     /* samples before their mmap */
  size_t ndeferred, cap_deferred;
  size_t deferred_words;        /* callchain and branch words they hold */
};

/* Register samples to value histograms (values.c).  */
void sfdo_values_take (struct sfdo_converter *cv, struct binary *b,
                       uint64_t vaddr, const struct sfdo_perfdata_sample *s,
                       const struct sfdo_perfdata_attr *attr, uint64_t weight);
void sfdo_build_values (struct sfdo_converter *cv, struct binary *b,
                        struct sfdo_profile *p);

/* Build the profile of binary B into P from its IP samples (build_ip.c)
   or its branch stacks (build_lbr.c).  */
void sfdo_build_ip_profile (struct sfdo_converter *cv, struct binary *b,
                            struct sfdo_decoder *dec, struct sfdo_profile *p);
void sfdo_build_lbr_profile (struct sfdo_converter *cv, struct binary *b,
                             struct sfdo_decoder *dec, struct sfdo_profile *p);

/* Longer straight-line runs than this are impossible: a record is lost
   or the stack is corrupt.  */
#define SFDO_MAX_RANGE (1u << 20)

#endif
