/* tests/fuzz/fuzz_unwind.c - libFuzzer target for the CFI unwinder
 * (converter/unwind.h), which reads stack bytes and registers a
 * recording supplies.
 *
 * The input is a sample: its first 8 bytes are a perf register mask, the
 * next 17 words register values (as many as the mask names), the rest
 * the stack copy, based at the sampled stack pointer.  Every PC the walk
 * meets is taken as an address in this target's own code (modulo the
 * size of its executable mapping), so the walk steps through the CFI of
 * real functions (prologues, epilogues, PLT expressions) with hostile
 * registers and memory.  The walk must stop within its frame limit with
 * a reason, and never read outside the stack copy (ASan).  */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../converter/unwind.h"

#define MAX_FRAMES 64

static char self_path[4096];
static uint64_t text_offset, text_size;

/* This executable's path and its executable mapping's file range.  */
static int
find_own_text (void)
{
  ssize_t n = readlink ("/proc/self/exe", self_path, sizeof self_path - 1);
  FILE *f = fopen ("/proc/self/maps", "r");
  char line[4096 + 128];
  if (n <= 0 || !f)
    return -1;
  self_path[n] = 0;
  while (fgets (line, sizeof line, f))
    {
      unsigned long long lo, hi, off;
      char perms[8];
      int pos = 0;
      if (sscanf (line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms,
                  &off, &pos) >= 4
          && strchr (perms, 'x') && strncmp (line + pos, self_path,
                                             (size_t) n) == 0)
        {
          text_offset = off;
          text_size = hi - lo;
          break;
        }
    }
  fclose (f);
  return text_size ? 0 : -1;
}

static int
locate_in_self (void *ctx, uint64_t ip, struct sfdo_unwind_code *code)
{
  (void) ctx;
  *code = (struct sfdo_unwind_code) { self_path, text_offset + ip % text_size,
                                      NULL, 0 };
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static struct sfdo_unwinder *u;
  if (!u)
    {
      if (find_own_text () != 0)
        abort ();
      u = sfdo_unwinder_new (locate_in_self, NULL);
    }
  if (size < 8)
    return 0;
  uint64_t mask, words[17] = { 0 };
  memcpy (&mask, data, 8);
  size_t nwords = (size - 8) / 8 < 17 ? (size - 8) / 8 : 17;
  memcpy (words, data + 8, nwords * 8);
  struct sfdo_perfdata_regs pr = { 2, (uint32_t) nwords, words };
  struct sfdo_unwind_regs regs;
  if (sfdo_unwind_regs_from_perf (&pr, mask, &regs) != 0)
    return 0;
  size_t used = 8 + nwords * 8;
  /* The copy gets its own allocation, so ASan sees a read past it.  */
  size_t ncopy = size - used;
  uint8_t *copy = malloc (ncopy ? ncopy : 1);
  memcpy (copy, data + used, ncopy);
  struct sfdo_unwind_stack stack = { regs.r[SFDO_UNWIND_SP], copy, ncopy };
  uint64_t chain[MAX_FRAMES];
  enum sfdo_unwind_stop why;
  size_t n = sfdo_unwind (u, &regs, &stack, chain, MAX_FRAMES, &why);
  if (n < 1 || n > MAX_FRAMES || (unsigned) why >= SFDO_UNWIND_NSTOPS
      || chain[0] != regs.r[SFDO_UNWIND_PC]
      || !sfdo_unwind_stop_name (why))
    abort ();
  free (copy);
  return 0;
}
