/* converter/procmap.h - which file each address of each process maps,
 * and when.
 *
 * Stage 2 of the pipeline: the MMAP/MMAP2, COMM (exec) and FORK records
 * of a perf.data say what each process mapped and when.  perf writes each
 * CPU's buffer in turn, so these records reach the reader out of time
 * order; every mapping therefore keeps its time, and a sample resolves
 * against the latest mapping of its address made no later than the sample
 * and not undone by an exec in between.  A forked child starts with what
 * its parent had mapped at the fork.
 *
 * Depends on common/ only.  */
#ifndef SFDO_CONVERTER_PROCMAP_H
#define SFDO_CONVERTER_PROCMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_procmap;

struct sfdo_procmap *sfdo_procmap_new (void);
void sfdo_procmap_free (struct sfdo_procmap *pm);

/* At TIME, PID mapped [ADDR, ADDR+LEN) to file FILE_ID (an id the caller
   chose for the file name) from file offset PGOFF.  */
void sfdo_procmap_mmap (struct sfdo_procmap *pm, uint32_t pid, uint64_t addr,
                        uint64_t len, uint64_t pgoff, uint32_t file_id,
                        uint64_t time);
/* At TIME, CHILD was forked from PARENT (a process, not a thread).  */
void sfdo_procmap_fork (struct sfdo_procmap *pm, uint32_t parent,
                        uint32_t child, uint64_t time);
/* At TIME, PID replaced its image (exec): earlier mappings end.  */
void sfdo_procmap_exec (struct sfdo_procmap *pm, uint32_t pid, uint64_t time);

/* A mapping found by sfdo_procmap_lookup.  */
struct sfdo_procmap_hit {
  uint64_t start, end, pgoff;   /* [start, end) maps from file offset pgoff */
  uint32_t file_id;
};

/* The mapping of IP in PID at TIME into *HIT; returns 0, or -1 if nothing
   was mapped there then.  */
int sfdo_procmap_lookup (const struct sfdo_procmap *pm, uint32_t pid,
                         uint64_t ip, uint64_t time,
                         struct sfdo_procmap_hit *hit);

/* The file and file offset of IP in PID at TIME; returns 0, or -1 if
   nothing was mapped there then.  */
int sfdo_procmap_resolve (const struct sfdo_procmap *pm, uint32_t pid,
                          uint64_t ip, uint64_t time, uint32_t *file_id,
                          uint64_t *offset);

#ifdef __cplusplus
}
#endif

#endif
