/* converter/producer.h - what a compile unit's DW_AT_producer says about
 * its code: which compiler made it, for the profile header, and how its
 * line table numbers discriminators.
 *
 * GCC up to 15 (and clang, in its own encoding) write discriminators the
 * profile keeps as they are.  GCC 16 writes hierarchical ones (its
 * gcc/input.h, DISCR_*): bits 0-7 the base discriminator (the block of a
 * line, what its auto-profile and the plugin look records up by), bits
 * 8-14 a multiplicity (the vectorizer's factor: one execution of the
 * instruction stands for that many executions of the source, 0 meaning
 * 1), bits 15-25 a copy id (unrolling, peeling, versioning and the
 * vectorizer's prolog and epilog each make a copy that runs part of the
 * executions).  The converter keeps the base alone, so that copies of a
 * line meet at one record and add up, and multiplies counts by the
 * multiplicity.
 *
 * Depends on nothing.  */
#ifndef SFDO_CONVERTER_PRODUCER_H
#define SFDO_CONVERTER_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

/* A compiler as the profile header names it.  */
struct sfdo_producer {
  char name[64];                /* "GCC 16.2.0", "clang 14.0.6" */
  unsigned gcc_major;           /* 16 for GCC 16.2.0; 0 for clang */
  int hierarchical;             /* its discriminators are GCC 16's */
};

/* Read the DW_AT_producer string S ("GNU C17 16.2.0 -mtune=generic -O3
   -g", "Debian clang version 14.0.6") into *OUT.  Returns 0, or -1 when S
   names no compiler the profile lists (the assembler, "GNU AS 2.40", or
   one this does not know), and then *OUT says nothing is hierarchical.  */
int sfdo_producer_parse (const char *s, struct sfdo_producer *out);

/* The parts of a GCC 16 discriminator.  */
struct sfdo_gcc_disc {
  uint32_t base;                /* bits 0-7 */
  uint32_t multiplicity;        /* bits 8-14; 1 where they are 0 */
  uint32_t copy_id;             /* bits 15-25 */
};

struct sfdo_gcc_disc sfdo_gcc_disc_split (uint32_t d);

#endif
