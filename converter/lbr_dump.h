/* converter/lbr_dump.h - the raw LBR tallies of a binary as text, for
 * checking against perf script -F ip,brstack.
 *
 * One line per tally, sorted by address: "BINARY range BEGIN END COUNT"
 * for every straight run and "BINARY branch FROM TO COUNT" for every
 * taken branch, addresses as the binary's own hex virtual addresses and
 * COUNT the number of times it appeared in branch stacks (twice in one
 * stack counts twice, as each appearance is one execution).
 *
 * Depends on tally.h only.  */
#ifndef SFDO_CONVERTER_LBR_DUMP_H
#define SFDO_CONVERTER_LBR_DUMP_H

#include <stdio.h>

#include "tally.h"

/* Write the LBR tallies of T, of the binary named NAME, to F.  */
void sfdo_lbr_dump (const struct sfdo_tally *t, const char *name, FILE *f);

#endif
