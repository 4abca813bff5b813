/* recorder/procsynth.h - what the kernel will not tell about processes
 * that were running before recording started, and about the machine.
 *
 *   sfdo_rec_synth_process()  COMM records for each thread of a process
 *                             and MMAP2 records for its executable
 *                             mappings, from /proc/PID (what perf
 *                             synthesizes), so their samples map to files;
 *   sfdo_rec_threads()        the threads of a process (/proc/PID/task);
 *   sfdo_rec_all_pids()       every process in /proc;
 *   sfdo_rec_host_info()      the header features: uname, /proc/cpuinfo,
 *                             /proc/meminfo, CPU counts;
 *   sfdo_rec_add_build_ids()  a BUILD_ID entry for every file the
 *                             recording mapped and sampled (with stack copies:
 *                             every one mapped), from its
 *                             ELF NT_GNU_BUILD_ID note (libelf).  */
#ifndef SFDO_RECORDER_PROCSYNTH_H
#define SFDO_RECORDER_PROCSYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"
#include "../perfdata/perfdata_write.h"

/* Write COMM and MMAP2 records of process PID (their sample_id trailers
   carry sample id ID and time 0, as perf's synthesized records).  A
   process that has gone meanwhile is skipped, not an error.  */
enum sfdo_errc sfdo_rec_synth_process (struct sfdo_perfdata_writer *w,
                                       pid_t pid, uint64_t id,
                                       struct sfdo_error *err);

/* The thread ids of PID, malloc'd, *N of them; NULL if PID is gone.  */
pid_t *sfdo_rec_threads (pid_t pid, size_t *n);

/* Every process id in /proc, malloc'd, *N of them.  */
pid_t *sfdo_rec_all_pids (size_t *n);

/* Fill HOST with this machine's description and ARGC/ARGV; the strings
   live in static storage until the next call.  */
void sfdo_rec_host_info (struct sfdo_perfdata_host *host, int argc,
                         const char *const *argv);

/* Add the build-id of each ELF file the MMAP/MMAP2 records written to W
   name and a sample written to W fell in, or with ALL_MAPPED every one
   (samples with stack copies: their callers may be in any file, whose CFI
   sfdo-convert reads); files without the note, gone, or not ELF are
   skipped.  Returns how many were added.  */
size_t sfdo_rec_add_build_ids (struct sfdo_perfdata_writer *w, int all_mapped);

/* The GNU build-id of ELF file PATH into ID (up to 20 bytes); returns its
   size, 0 when there is none.  */
size_t sfdo_rec_elf_build_id (const char *path, uint8_t id[20]);

#endif
