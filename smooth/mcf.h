/* smooth/mcf.h - consistent CFG counts from noisy block counts, by
 * minimum-cost flow.
 *
 * Stage 3 of the pipeline (profile -> CFG counts): the plugin annotates
 * each basic block with a count measured from samples (or none), then
 * asks for the flow closest to those counts in which every block's count
 * equals the sum of its incoming and of its outgoing edges' counts.
 *
 * The network: each block is split into an in-node and an out-node joined
 * by arcs carrying its count; each CFG edge joins the out-node of its
 * source to the in-node of its destination; an arc from EXIT back to
 * ENTRY closes the circulation, and a block with no successor (a call
 * that does not return, non-local control flow) gets an arc to EXIT.
 * Costs (documented in mcf.c) come from confidence: changing a count
 * backed by many samples costs more than one backed by few, raising and
 * lowering cost differently, and blocks or edges without measurements
 * follow the static branch probabilities given as priors.
 *
 * Plain C, no dependency beyond common/: the plugin (C++) calls it, and
 * its unit tests run without GCC.  */
#ifndef SFDO_SMOOTH_MCF_H
#define SFDO_SMOOTH_MCF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sfdo_flow;

#define SFDO_FLOW_UNKNOWN (-1)

/* A graph of NBLOCKS blocks numbered 0..NBLOCKS-1, ENTRY and EXIT among
   them.  */
struct sfdo_flow *sfdo_flow_new (size_t nblocks, size_t entry, size_t exit);
void sfdo_flow_free (struct sfdo_flow *g);

/* The measured count of BLOCK, or SFDO_FLOW_UNKNOWN (the default).  */
void sfdo_flow_set_count (struct sfdo_flow *g, size_t block, int64_t count);
/* An edge FROM -> TO whose static probability (among FROM's successors)
   is PRIOR in [0, 1], or negative if unknown.  Returns the edge's index
   (0, 1, ... in order of adding).  */
/* What a second event says of BLOCK's measured count (Chen et al.'s
   over/under-sampling classification): an over-sampled count may fall
   and should not rise, an under-sampled one the reverse.  The default is
   SFDO_FLOW_TRUSTED, the plain cost model.  */
enum sfdo_flow_bias {
  SFDO_FLOW_TRUSTED = 0,
  SFDO_FLOW_OVER = 1,
  SFDO_FLOW_UNDER = 2,
  SFDO_FLOW_WEAK = 3            /* may be off either way: a count carried
                                   over from an older source by guess */
};
void sfdo_flow_set_bias (struct sfdo_flow *g, size_t block,
                         enum sfdo_flow_bias bias);

size_t sfdo_flow_add_edge (struct sfdo_flow *g, size_t from, size_t to,
                           double prior);

/* The count one sample stands for in G's blocks (the sampling period over
   a block's instructions), the noise floor of the cost model (mcf.c).
   Without it (0, the default) the smallest positive measured count is
   taken as one sample's worth, which an exact count (a head counted
   rather than sampled) would make far too small.  */
void sfdo_flow_set_sample_weight (struct sfdo_flow *g, uint64_t weight);

/* Solve.  Afterwards every block's count is the sum of its in-edges' and
   of its out-edges' counts (ENTRY's in-flow and EXIT's out-flow being the
   circulation arc; a block without successors sends its count to EXIT),
   and every block with flow is reached by flow from ENTRY where the CFG
   allows.  */
void sfdo_flow_solve (struct sfdo_flow *g);
/* The solved counts; 0 before sfdo_flow_solve and after any change to
   the graph or the counts.  */
uint64_t sfdo_flow_block_count (const struct sfdo_flow *g, size_t block);
uint64_t sfdo_flow_edge_count (const struct sfdo_flow *g, size_t edge);

/* The cost (see mcf.c) of the assignment giving block B the count
   BLOCK_COUNTS[B] and edge E the count EDGE_COUNTS[E], or of the solution
   when either is NULL (0 before solving).  The solution costs no more than
   any consistent assignment, unless the cheapest one left flow circling
   where no flow from ENTRY reaches (then the ways in were raised to one
   sample's worth, see mcf.c): tests use this to check optimality, dumps
   to report how far the measurements had to move.  */
double sfdo_flow_cost (const struct sfdo_flow *g,
                       const uint64_t *block_counts,
                       const uint64_t *edge_counts);

#ifdef __cplusplus
}
#endif

#endif
