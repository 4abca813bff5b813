/* recorder/emu_raw.h - reading the raw streams the emulated PMU writes
 * (emulator/emu_format.h), one file per process image.
 *
 * Every record is checked against its type's layout before it is handed
 * out; a record that is cut short or contradicts itself ends the file
 * with an error naming the file and the byte offset (what came before it
 * stays usable: a process killed by SIGKILL leaves such a tail).
 * Unknown record types are skipped.  */
#ifndef SFDO_RECORDER_EMU_RAW_H
#define SFDO_RECORDER_EMU_RAW_H

#include <stdint.h>

#include "../common/error.h"
#include "../emulator/emu_format.h"

struct sfdo_emu_raw;

/* A record: RAW points at its bytes, checked; the views below are set
   for the types they belong to.  Valid until the next call.  */
struct sfdo_emu_record {
  uint32_t type;                /* enum sfdo_emu_rec_type */
  uint64_t offset;              /* in the file */
  uint64_t time;
  const struct sfdo_emu_rec *raw;
  const char *filename;         /* SFDO_EMU_MMAP */
  const uint64_t *branches;     /* SFDO_EMU_SAMPLE: (from, to) pairs */
  const uint64_t *regs;         /* SFDO_EMU_SAMPLE: nr_regs of them */
};

/* Open PATH and check its header.  On failure *OUT is NULL.  */
enum sfdo_errc sfdo_emu_raw_open (const char *path, struct sfdo_emu_raw **out,
                                  struct sfdo_error *err);

const struct sfdo_emu_header *sfdo_emu_raw_header (const struct sfdo_emu_raw *r);
const char *sfdo_emu_raw_path (const struct sfdo_emu_raw *r);

/* The next record into *REC: 1, or 0 at the end of the file, or -1 with
   ERR set (and every later call returns 0).  */
int sfdo_emu_raw_next (struct sfdo_emu_raw *r, struct sfdo_emu_record *rec,
                       struct sfdo_error *err);

/* Close R (NULL allowed).  */
void sfdo_emu_raw_close (struct sfdo_emu_raw *r);

#endif
