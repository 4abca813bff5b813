/* smooth/mcf.c - see mcf.h: consistent counts by minimum-cost flow.
 *
 * THE COST MODEL
 *
 * The solution minimises, over all consistent assignments f of block and
 * edge counts,
 *
 *   sum over measured blocks b   raise(c_b) * max (0, f_b - c_b)
 *                              + lower(c_b) * max (0, c_b - f_b)
 *   + sum over edges e           toll(e) * f_e
 *
 * (arcs from successor-less blocks to EXIT pay the toll of an edge of
 * probability 1 for as much as the block measured, and the dearest
 * measured change per unit beyond that; unmeasured blocks and the
 * EXIT -> ENTRY arc are free).  Why each term:
 *
 * - Measured counts are sample counts times a period, so their noise grows
 *   like sqrt(c): moving a count by d is d / sqrt(c) standard deviations.
 *   raise(c) is therefore proportional to 1 / sqrt(c + q), a z-score per
 *   unit, where q is QUANTUM_SAMPLES times one sample's worth: the count
 *   one sample gives a block (sfdo_flow_set_sample_weight), or where the
 *   caller does not say, the smallest positive measured count of the
 *   function.  The floor of a few samples is
 *   there because a block that caught no sample is weak evidence: short
 *   blocks on the way into a hot loop often catch none, and treating
 *   their zero as exact would make the flow drop the loop's entry rather
 *   than raise them.  A large
 *   count thus absorbs more of a correction in absolute terms than a small
 *   one, yet less relative to its size.
 * - lower(c) = LOWER_FACTOR (16) * raise(c): sampling misses blocks more
 *   often than it invents them (skid and shadowing move samples away from
 *   short blocks; Chen et al. and both GCC's mcf.cc, at 50 times, and
 *   LLVM's profi make lowering dearer).  With time-based samples (cycles,
 *   or a timer where there is no PMU) a block of slow, dependent
 *   instructions also collects more samples per execution than its cheap
 *   neighbours, which retire several per cycle: when the two disagree,
 *   the cheap blocks are the ones to raise.  At 4 the flow lowered the
 *   busy arm of a branch to zero instead (tests/e2e/data/tripcounts.c:
 *   block overlap with instrumented counts 63%; at 16, 98%; 64 changed
 *   nothing more).
 * - ENTRY's count, the function's head count, costs ENTRY_WEIGHT times
 *   more to change.  Flow can only come in through ENTRY: lowering it
 *   below what the body needs leaves a loop's measured flow going round a
 *   cycle that nothing enters (IP samples often miss the short blocks on
 *   the way into a hot loop), which inlining and unrolling would then
 *   misread.  Keeping the head makes the flow raise those blocks instead.
 * - Edges carry a toll of 1 + 16 * min (-log2 p, 20) per unit, p being the
 *   prior (1 / out-degree when unknown).  Along a path the tolls add up to
 *   16 * -log2 (path probability) plus one per edge, so where measurements
 *   leave a choice the flow takes the most probable path, an edge weighing
 *   1/16 bit.  Every cycle thus costs something: no flow goes round a loop
 *   without measurements asking for it.
 * - Scale: raise() of the largest count is at least 2^15 while a toll is at
 *   most 321, so priors outweigh a single unit of measured change only along
 *   paths of about a hundred improbable edges: they decide what the
 *   measurements leave open and do not overrule them.  (Only in networks
 *   of millions of nodes does cost_cap squeeze this.)
 * - A weak count (a line a stale profile's alignment placed by guess,
 *   plugin/stale.cc) costs a quarter as much to change either way.
 * - A block classified over-sampled by a second event (sfdo_flow_set_bias)
 *   has the raise cost of cost_cap / LOWER_FACTOR and a lower cost of 1;
 *   an under-sampled one the reverse.  Chen et al. use the CFG's largest
 *   cost and 0: 1 keeps every cycle's cost positive, so no flow goes round
 *   for nothing.
 * - Linear costs make each block's cost convex and the problem a plain
 *   min-cost flow; the price is that ties between alternatives are broken
 *   wholesale (all flow to the cheapest path), not spread out.
 * - Integers only (no libm, same answer on every host): costs in units of
 *   the formulas above, square roots in 8-bit fixed point, log2 to 1/16 bit.
 *   Counts are clamped so that the total of all counts stays below 2^62,
 *   and costs so that no path length or node potential can overflow int64
 *   (see cost_cap).
 *
 * THE NETWORK AND THE SOLVER
 *
 * Block b is split into in(b) = 2b and out(b) = 2b + 1.  A measured count
 * c is pre-routed on in(b) -> out(b): out(b) starts with an excess of c and
 * in(b) with a deficit of c.  Then out(b) -> in(b) (capacity c, cost
 * lower(c)) undoes some of it and in(b) -> out(b) (unbounded, raise(c))
 * adds more; an unmeasured block has only a free, unbounded in -> out arc.
 * Edges, successor-less blocks and EXIT -> ENTRY give unbounded arcs from
 * out-nodes to in-nodes.  Every arc cost is non-negative and no flow is
 * placed yet, so zero potentials are feasible and Dijkstra applies from the
 * start.
 *
 * Successive shortest paths, taking the nodes with excess in turn.  From
 * one, Dijkstra on reduced costs runs until the deficits it has settled
 * could absorb the whole excess; the potentials of the settled nodes are
 * lowered by how much nearer they are than the farthest (D - distance),
 * which keeps every reduced cost non-negative and makes each path of the
 * search tree a shortest path, and the excess goes to those deficits, the
 * nearest first, along the tree.  Only settled nodes are touched, so where
 * counts are nearly consistent each search stays local.  Potentials only
 * fall; should one pass -2^60 they are recomputed (rebase_potentials), so
 * nothing overflows however long the run.
 *
 * It terminates: each search moves at least one unit (its first path is
 * intact) of a finite total excess, and an excess can always reach enough
 * deficit because undoing the pre-routed counts (all of out(b) -> in(b))
 * is a feasible flow.  Each search costs O(k log k) for the k arcs it
 * scans; a 5000-block CFG with sampling noise takes about 10 ms.
 *
 * Known limits: where measurements leave a region open (unmeasured blocks
 * between measured ones) all of its flow takes the single cheapest path,
 * and an unmeasured loop runs zero times; a pass spreading such flow by
 * the priors (profi's "rebalancing") would go after this one.  */
#include "mcf.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../common/xalloc.h"

#define NONE SIZE_MAX
#define UNBOUNDED (INT64_MAX / 2)

/* Potentials falling below minus this are recomputed from scratch (see
   rebase_potentials); tests lower it to exercise that.  */
#ifndef POTENTIAL_LIMIT
#define POTENTIAL_LIMIT ((int64_t) 1 << 60)
#endif

/* The cost model's constants; see the comment at the top.  */
#define LOWER_FACTOR 16
#define ENTRY_WEIGHT 64
#define QUANTUM_SAMPLES 4
#define TOLL_PER_BIT 16
#define TOLL_BASE 1
#define TOLL_MAX_BITS 20
#define RAISE_COST_AT_LARGEST ((uint64_t) 1 << 15)

struct flow_edge
{
  size_t from, to;
  double prior;                 /* negative if unknown */
};

struct sfdo_flow
{
  size_t nblocks, entry, exit;
  int64_t *measured;            /* SFDO_FLOW_UNKNOWN if none */
  uint8_t *bias;                /* enum sfdo_flow_bias, per block */
  struct flow_edge *edges;
  size_t nedges, edges_cap;
  uint64_t *block_counts, *edge_counts;  /* the solution, or NULL */
  uint64_t sample_weight;       /* one sample's count, 0 if not given */
};

/* --- Building ------------------------------------------------------------ */

struct sfdo_flow *
sfdo_flow_new (size_t nblocks, size_t entry, size_t exit)
{
  assert (entry < nblocks && exit < nblocks);
  struct sfdo_flow *g = sfdo_xcalloc (1, sizeof *g);
  g->nblocks = nblocks;
  g->entry = entry;
  g->exit = exit;
  g->measured = sfdo_xmalloc (nblocks * sizeof *g->measured);
  for (size_t b = 0; b < nblocks; b++)
    g->measured[b] = SFDO_FLOW_UNKNOWN;
  g->bias = sfdo_xcalloc (nblocks, sizeof *g->bias);
  return g;
}

static void
forget_solution (struct sfdo_flow *g)
{
  free (g->block_counts);
  free (g->edge_counts);
  g->block_counts = g->edge_counts = NULL;
}

void
sfdo_flow_free (struct sfdo_flow *g)
{
  if (!g)
    return;
  forget_solution (g);
  free (g->measured);
  free (g->bias);
  free (g->edges);
  free (g);
}

void
sfdo_flow_set_count (struct sfdo_flow *g, size_t block, int64_t count)
{
  assert (block < g->nblocks);
  g->measured[block] = count < 0 ? SFDO_FLOW_UNKNOWN : count;
  forget_solution (g);
}

void
sfdo_flow_set_bias (struct sfdo_flow *g, size_t block,
                    enum sfdo_flow_bias bias)
{
  assert (block < g->nblocks);
  g->bias[block] = (uint8_t) bias;
  forget_solution (g);
}

void
sfdo_flow_set_sample_weight (struct sfdo_flow *g, uint64_t weight)
{
  g->sample_weight = weight;
  forget_solution (g);
}

size_t
sfdo_flow_add_edge (struct sfdo_flow *g, size_t from, size_t to,
                    double prior)
{
  assert (from < g->nblocks && to < g->nblocks);
  sfdo_xgrow (&g->edges, &g->edges_cap, g->nedges + 1, sizeof *g->edges);
  /* "prior >= 0" is false for NaN, which thus counts as unknown.  */
  g->edges[g->nedges].from = from;
  g->edges[g->nedges].to = to;
  g->edges[g->nedges].prior = prior >= 0 ? (prior > 1 ? 1 : prior) : -1;
  forget_solution (g);
  return g->nedges++;
}

/* --- Integer arithmetic for the cost model -------------------------------- */

static uint64_t
isqrt (uint64_t x)
{
  uint64_t r = 0;
  for (uint64_t bit = (uint64_t) 1 << 62; bit; bit >>= 2)
    if (x >= r + bit)
      {
        x -= r + bit;
        r = (r >> 1) + bit;
      }
    else
      r >>= 1;
  return r;
}

/* 256 * sqrt (X), to 8 fractional bits while X leaves room for them.  */
static uint64_t
sqrt_fixed8 (uint64_t x)
{
  return x < ((uint64_t) 1 << 47) ? isqrt (x << 16) : isqrt (x) << 8;
}

/* -log2 (P) in sixteenths of a bit, rounded down, at most TOLL_MAX_BITS
   bits: whole bits by halving 1/P, fractions by the squaring method.  */
static int64_t
minus_log2_sixteenths (double p)
{
  if (!(p > 0))
    return TOLL_MAX_BITS * 16;
  double x = 1 / p;
  int64_t whole = 0;
  while (x >= 2 && whole < TOLL_MAX_BITS)
    x /= 2, whole++;
  if (whole == TOLL_MAX_BITS)
    return TOLL_MAX_BITS * 16;
  int64_t frac = 0;
  for (int i = 3; i >= 0; i--)
    {
      x *= x;
      if (x >= 2)
        x /= 2, frac |= (int64_t) 1 << i;
    }
  return whole * 16 + frac;
}

/* --- The cost model ------------------------------------------------------- */

struct cost_model
{
  size_t *out_degree;           /* per block */
  int64_t count_limit;          /* larger counts are clamped to this */
  uint64_t quantum;             /* one sample's worth, q */
  uint64_t scale;               /* raise(c) = scale / sqrt_fixed8 (c + q) */
  int64_t cost_cap;             /* no arc costs more */
};

/* The largest arc cost: any simple path of the NNODES-node network then
   costs at most 2^57 in absolute value, which leaves room for potentials
   up to POTENTIAL_LIMIT (see rebase_potentials) in Dijkstra's sums.  */
static int64_t
cost_cap (size_t nnodes)
{
  return INT64_MAX / 64 / (int64_t) (nnodes + 1);
}

static void
model_init (struct cost_model *m, const struct sfdo_flow *g)
{
  m->out_degree = sfdo_xcalloc (g->nblocks, sizeof *m->out_degree);
  for (size_t e = 0; e < g->nedges; e++)
    m->out_degree[g->edges[e].from]++;
  m->count_limit = (INT64_MAX / 2) / (int64_t) (g->nblocks + 1);
  m->cost_cap = cost_cap (2 * g->nblocks);
  uint64_t largest = 0, smallest = UINT64_MAX;
  for (size_t b = 0; b < g->nblocks; b++)
    {
      int64_t c = g->measured[b];
      if (c > m->count_limit)
        c = m->count_limit;
      if (c > 0 && (uint64_t) c > largest)
        largest = (uint64_t) c;
      if (c > 0 && (uint64_t) c < smallest)
        smallest = (uint64_t) c;
    }
  m->quantum = g->sample_weight ? g->sample_weight * QUANTUM_SAMPLES
               : smallest == UINT64_MAX ? 1 : smallest * QUANTUM_SAMPLES;
  m->scale = RAISE_COST_AT_LARGEST * sqrt_fixed8 (largest + m->quantum);
}

static void
model_release (struct cost_model *m)
{
  free (m->out_degree);
}

/* The measured count of BLOCK as the model sees it, or -1.  */
static int64_t
model_count (const struct cost_model *m, const struct sfdo_flow *g,
             size_t block)
{
  int64_t c = g->measured[block];
  return c > m->count_limit ? m->count_limit : c;
}

/* A weak count's change costs a WEAK_FACTOR-th of a trusted one's: where
   it disagrees with trusted neighbours, they win.  */
#define WEAK_FACTOR 4

static int64_t
weak_cost (int64_t cost)
{
  return cost / WEAK_FACTOR > 1 ? cost / WEAK_FACTOR : 1;
}

/* The cost of raising block B's measured COUNT by one unit, unbiased.  */
static int64_t
plain_raise_cost (const struct cost_model *m, const struct sfdo_flow *g,
                  size_t b, int64_t count)
{
  uint64_t root = sqrt_fixed8 ((uint64_t) count + m->quantum);
  uint64_t cost = (m->scale + root - 1) / root;
  uint64_t cap = (uint64_t) m->cost_cap / LOWER_FACTOR;
  if (b == g->entry)
    cost = cost > cap / ENTRY_WEIGHT ? cap : cost * ENTRY_WEIGHT;
  return (int64_t) (cost < 1 ? 1 : cost > cap ? cap : cost);
}

static int64_t
raise_cost (const struct cost_model *m, const struct sfdo_flow *g, size_t b,
            int64_t count)
{
  if (g->bias[b] == SFDO_FLOW_OVER)
    return m->cost_cap / LOWER_FACTOR;
  if (g->bias[b] == SFDO_FLOW_UNDER)
    return 1;
  if (g->bias[b] == SFDO_FLOW_WEAK)
    return weak_cost (plain_raise_cost (m, g, b, count));
  return plain_raise_cost (m, g, b, count);
}

static int64_t
lower_cost (const struct cost_model *m, const struct sfdo_flow *g, size_t b,
            int64_t count)
{
  if (g->bias[b] == SFDO_FLOW_OVER)
    return 1;
  if (g->bias[b] == SFDO_FLOW_UNDER)
    return m->cost_cap / LOWER_FACTOR;
  if (g->bias[b] == SFDO_FLOW_WEAK)
    return weak_cost (LOWER_FACTOR * plain_raise_cost (m, g, b, count));
  return LOWER_FACTOR * plain_raise_cost (m, g, b, count);
}

static int64_t
toll (const struct cost_model *m, const struct flow_edge *e)
{
  double p = e->prior >= 0 ? e->prior : 1.0 / (double) m->out_degree[e->from];
  return TOLL_BASE + TOLL_PER_BIT * minus_log2_sixteenths (p) / 16;
}

/* The tolls of the implicit arcs from block B, which has no successor (a
   call that does not return), to EXIT.  A measured count explains as
   much flow leaving there as it measured, which pays an edge's least
   toll (noreturn_paid).  Beyond that, and all of it where B is unmeasured
   or measured at zero (an abort () on an error path, which no sample
   reached), such a block would otherwise be the cheapest way to drain
   flow that two measurements disagree on, a few hundred per unit against
   thousands for changing a measured count, and GCC would see the error
   path run: that flow costs as much as the dearest measured change
   (noreturn_toll).  A measured zero is no exception: the head count of
   e2e 53's checksum, two samples above what its callers made, left
   through its abort () rather than its return (both measured at zero),
   and the error path, given that flow, stayed out of the cold
   partition.  Nor is a measured count beyond what it measured: jq's
   jvp_array_free, annotated again with the 1.6 million entries its
   callers' counts gave it (its own head said 21 thousand), sent 1.3
   million of them out through its assert's call to __assert_fail, which
   had the count of the test that shares its line.  */
static int64_t
noreturn_paid (const struct cost_model *m, const struct sfdo_flow *g,
               size_t b)
{
  int64_t c = model_count (m, g, b);
  return c > 0 ? c : 0;
}

static int64_t
noreturn_toll (const struct cost_model *m)
{
  return m->cost_cap / LOWER_FACTOR;
}

/* --- The network ---------------------------------------------------------- */

struct heap_item
{
  int64_t dist;
  size_t node;
};

/* Arcs come in pairs: arc A ^ 1 is the reverse of A, and the flow on A is
   the residual capacity of A ^ 1.  */
struct network
{
  size_t nnodes, narcs, arcs_cap;
  size_t *head;                 /* the node arc A enters */
  int64_t *residual;
  int64_t *cost;
  size_t *adj_start, *adj;      /* arcs leaving V: adj[adj_start[V] ..
                                   adj_start[V + 1]) */
  int64_t *imbalance;           /* > 0: excess to send; < 0: deficit */
  int64_t *potential;
  /* Scratch of one search; valid for a node when its stamp is current.  */
  int64_t *dist;
  size_t *pred_arc;
  uint64_t *seen, *done, stamp;
  size_t *settled, nsettled;
  size_t *sinks, nsinks;        /* nodes with a deficit it settled */
  struct heap_item *heap;
  size_t heap_len, heap_cap;
};

static size_t
in_node (size_t block)
{
  return 2 * block;
}

static size_t
out_node (size_t block)
{
  return 2 * block + 1;
}

static size_t
add_arc (struct network *n, size_t from, size_t to, int64_t capacity,
         int64_t cost)
{
  size_t a = n->narcs;
  if (a + 2 > n->arcs_cap)
    {
      sfdo_xgrow (&n->head, &n->arcs_cap, a + 2, sizeof *n->head);
      n->residual = sfdo_xrealloc (n->residual,
                                   n->arcs_cap * sizeof *n->residual);
      n->cost = sfdo_xrealloc (n->cost, n->arcs_cap * sizeof *n->cost);
    }
  n->head[a] = to, n->residual[a] = capacity, n->cost[a] = cost;
  n->head[a + 1] = from, n->residual[a + 1] = 0, n->cost[a + 1] = -cost;
  n->narcs += 2;
  return a;
}

static int64_t
flow_on (const struct network *n, size_t arc)
{
  return arc == NONE ? 0 : n->residual[arc ^ 1];
}

/* Index the arcs by the node they leave (a counting sort) and allocate
   the search's scratch.  */
static void
finish_network (struct network *n)
{
  n->adj_start = sfdo_xcalloc (n->nnodes + 1, sizeof *n->adj_start);
  n->adj = sfdo_xmalloc (n->narcs * sizeof *n->adj);
  for (size_t a = 0; a < n->narcs; a++)
    n->adj_start[n->head[a ^ 1] + 1]++;
  for (size_t v = 0; v < n->nnodes; v++)
    n->adj_start[v + 1] += n->adj_start[v];
  size_t *fill = sfdo_xmalloc (n->nnodes * sizeof *fill);
  memcpy (fill, n->adj_start, n->nnodes * sizeof *fill);
  for (size_t a = 0; a < n->narcs; a++)
    n->adj[fill[n->head[a ^ 1]]++] = a;
  free (fill);
  n->potential = sfdo_xcalloc (n->nnodes, sizeof *n->potential);
  n->dist = sfdo_xmalloc (n->nnodes * sizeof *n->dist);
  n->pred_arc = sfdo_xmalloc (n->nnodes * sizeof *n->pred_arc);
  n->seen = sfdo_xcalloc (n->nnodes, sizeof *n->seen);
  n->done = sfdo_xcalloc (n->nnodes, sizeof *n->done);
  n->settled = sfdo_xmalloc (n->nnodes * sizeof *n->settled);
  n->sinks = sfdo_xmalloc (n->nnodes * sizeof *n->sinks);
}

static void
network_release (struct network *n)
{
  free (n->head), free (n->residual), free (n->cost);
  free (n->adj_start), free (n->adj);
  free (n->imbalance), free (n->potential);
  free (n->dist), free (n->pred_arc), free (n->seen), free (n->done);
  free (n->settled), free (n->sinks), free (n->heap);
}

/* Where each part of the flow graph lives in the network.  */
struct arc_map
{
  size_t *raise;                /* per block: in -> out */
  size_t *lower;                /* per block: out -> in, or NONE */
  size_t *edge;                 /* per edge */
};

static void
add_block_arcs (struct network *n, struct arc_map *map,
                const struct cost_model *m, const struct sfdo_flow *g,
                size_t b)
{
  int64_t c = model_count (m, g, b);
  map->lower[b] = NONE;
  if (c < 0)
    {
      map->raise[b] = add_arc (n, in_node (b), out_node (b), UNBOUNDED, 0);
      return;
    }
  map->raise[b] = add_arc (n, in_node (b), out_node (b), UNBOUNDED,
                           raise_cost (m, g, b, c));
  if (c > 0)
    map->lower[b] = add_arc (n, out_node (b), in_node (b), c,
                             lower_cost (m, g, b, c));
  n->imbalance[out_node (b)] += c;
  n->imbalance[in_node (b)] -= c;
}

static void
build_network (struct network *n, struct arc_map *map,
               const struct cost_model *m, const struct sfdo_flow *g)
{
  memset (n, 0, sizeof *n);
  n->nnodes = 2 * g->nblocks;
  n->imbalance = sfdo_xcalloc (n->nnodes, sizeof *n->imbalance);
  map->raise = sfdo_xmalloc (g->nblocks * sizeof *map->raise);
  map->lower = sfdo_xmalloc (g->nblocks * sizeof *map->lower);
  map->edge = sfdo_xmalloc (g->nedges * sizeof *map->edge);
  for (size_t b = 0; b < g->nblocks; b++)
    {
      add_block_arcs (n, map, m, g, b);
      if (m->out_degree[b] != 0 || b == g->exit)
        continue;
      int64_t paid = noreturn_paid (m, g, b);
      if (paid > 0)
        add_arc (n, out_node (b), in_node (g->exit), paid, TOLL_BASE);
      add_arc (n, out_node (b), in_node (g->exit), UNBOUNDED,
               noreturn_toll (m));
    }
  for (size_t e = 0; e < g->nedges; e++)
    map->edge[e] = add_arc (n, out_node (g->edges[e].from),
                            in_node (g->edges[e].to), UNBOUNDED,
                            toll (m, &g->edges[e]));
  add_arc (n, out_node (g->exit), in_node (g->entry), UNBOUNDED, 0);
  finish_network (n);
}

static void
arc_map_release (struct arc_map *map)
{
  free (map->raise), free (map->lower), free (map->edge);
}

/* --- Successive shortest paths -------------------------------------------- */

static void
heap_push (struct network *n, int64_t dist, size_t node)
{
  sfdo_xgrow (&n->heap, &n->heap_cap, n->heap_len + 1, sizeof *n->heap);
  size_t i = n->heap_len++;
  while (i > 0 && n->heap[(i - 1) / 2].dist > dist)
    {
      n->heap[i] = n->heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  n->heap[i].dist = dist;
  n->heap[i].node = node;
}

static struct heap_item
heap_pop (struct network *n)
{
  struct heap_item top = n->heap[0], last = n->heap[--n->heap_len];
  size_t i = 0;
  for (;;)
    {
      size_t child = 2 * i + 1;
      if (child >= n->heap_len)
        break;
      if (child + 1 < n->heap_len
          && n->heap[child + 1].dist < n->heap[child].dist)
        child++;
      if (n->heap[child].dist >= last.dist)
        break;
      n->heap[i] = n->heap[child];
      i = child;
    }
  if (n->heap_len > 0)
    n->heap[i] = last;
  return top;
}

/* Label V with distance DIST reached by ARC, if that is shorter.  */
static void
relax (struct network *n, size_t v, int64_t dist, size_t arc)
{
  if (n->seen[v] == n->stamp && n->dist[v] <= dist)
    return;
  n->seen[v] = n->stamp;
  n->dist[v] = dist;
  n->pred_arc[v] = arc;
  heap_push (n, dist, v);
}

/* Dijkstra on reduced costs from SOURCE, until the nodes with a deficit
   met so far (listed in n->sinks, nearest first) could absorb all of
   SOURCE's excess.  Lists the settled nodes in n->settled, the last one
   farthest.  */
static void
nearest_deficits (struct network *n, size_t source)
{
  int64_t wanted = n->imbalance[source];
  n->stamp++;
  n->nsettled = n->nsinks = n->heap_len = 0;
  relax (n, source, 0, NONE);
  while (n->heap_len > 0 && wanted > 0)
    {
      struct heap_item it = heap_pop (n);
      size_t v = it.node;
      if (n->done[v] == n->stamp || it.dist != n->dist[v])
        continue;
      n->done[v] = n->stamp;
      n->settled[n->nsettled++] = v;
      if (n->imbalance[v] < 0)
        {
          n->sinks[n->nsinks++] = v;
          wanted += n->imbalance[v];
        }
      for (size_t i = n->adj_start[v]; i < n->adj_start[v + 1]; i++)
        {
          size_t a = n->adj[i], w = n->head[a];
          if (n->residual[a] <= 0 || n->done[w] == n->stamp)
            continue;
          int64_t reduced = n->cost[a] + n->potential[v] - n->potential[w];
          assert (reduced >= 0);
          relax (n, w, it.dist + reduced, a);
        }
    }
}

/* Keep reduced costs non-negative after a search: a settled node's
   potential drops by how much nearer it is than the farthest settled node
   (at distance LIMIT); unsettled nodes are at least LIMIT away and keep
   theirs.  Every arc of the search's tree then has reduced cost 0, so
   each tree path is a shortest path.  */
static bool
reprice (struct network *n, int64_t limit)
{
  bool in_range = true;
  for (size_t i = 0; i < n->nsettled; i++)
    {
      size_t v = n->settled[i];
      n->potential[v] += n->dist[v] - limit;
      in_range &= n->potential[v] >= -POTENTIAL_LIMIT;
    }
  return in_range;
}

/* Replace the potentials by shortest distances in the residual network
   from a virtual root joined to every node at cost 0 (Bellman-Ford).
   Repricing only ever lowers potentials, so in principle they
   could drift out of int64; these are within 2^57 of 0, and valid since
   the residual network has no negative cycle (the flow is optimal for
   what it moves).  The pass count bounds the work even if it had one.  */
static void
rebase_potentials (struct network *n)
{
  bool changed = true;
  memset (n->potential, 0, n->nnodes * sizeof *n->potential);
  for (size_t pass = 0; changed && pass < n->nnodes; pass++)
    {
      changed = false;
      for (size_t a = 0; a < n->narcs; a++)
        {
          size_t u = n->head[a ^ 1], v = n->head[a];
          if (n->residual[a] > 0
              && n->potential[u] + n->cost[a] < n->potential[v])
            {
              n->potential[v] = n->potential[u] + n->cost[a];
              changed = true;
            }
        }
    }
}

/* Send what the tree path from SOURCE to SINK still allows.  */
static void
augment (struct network *n, size_t source, size_t sink)
{
  int64_t amount = n->imbalance[source];
  if (-n->imbalance[sink] < amount)
    amount = -n->imbalance[sink];
  for (size_t v = sink; v != source; v = n->head[n->pred_arc[v] ^ 1])
    if (n->residual[n->pred_arc[v]] < amount)
      amount = n->residual[n->pred_arc[v]];
  if (amount <= 0)
    return;
  for (size_t v = sink; v != source; v = n->head[n->pred_arc[v] ^ 1])
    {
      n->residual[n->pred_arc[v]] -= amount;
      n->residual[n->pred_arc[v] ^ 1] += amount;
    }
  n->imbalance[source] -= amount;
  n->imbalance[sink] += amount;
}

/* One search per batch of shortest paths: every excess leaves by
   shortest paths, so the flow stays of minimum cost for what it moves.  */
static void
min_cost_flow (struct network *n)
{
  for (size_t s = 0; s < n->nnodes; s++)
    while (n->imbalance[s] > 0)
      {
        nearest_deficits (n, s);
        assert (n->nsinks > 0); /* see "It terminates" at the top */
        if (n->nsinks == 0)
          return;
        bool in_range = reprice (n, n->dist[n->settled[n->nsettled - 1]]);
        for (size_t i = 0; i < n->nsinks && n->imbalance[s] > 0; i++)
          augment (n, s, n->sinks[i]);
        if (!in_range)
          rebase_potentials (n);
      }
}

/* --- Solving and the results ---------------------------------------------- */

static void
read_solution (struct sfdo_flow *g, const struct network *n,
               const struct arc_map *map, const struct cost_model *m)
{
  g->block_counts = sfdo_xmalloc (g->nblocks * sizeof *g->block_counts);
  g->edge_counts = sfdo_xmalloc ((g->nedges + 1) * sizeof *g->edge_counts);
  for (size_t b = 0; b < g->nblocks; b++)
    {
      int64_t c = model_count (m, g, b);
      g->block_counts[b] = (uint64_t) ((c < 0 ? 0 : c)
                                       + flow_on (n, map->raise[b])
                                       - flow_on (n, map->lower[b]));
    }
  for (size_t e = 0; e < g->nedges; e++)
    g->edge_counts[e] = (uint64_t) flow_on (n, map->edge[e]);
}

static void
solve_once (struct sfdo_flow *g)
{
  struct cost_model m;
  struct network n;
  struct arc_map map;
  forget_solution (g);
  model_init (&m, g);
  build_network (&n, &map, &m, g);
  min_cost_flow (&n);
  read_solution (g, &n, &map, &m);
  arc_map_release (&map);
  network_release (&n);
  model_release (&m);
}

/* --- Joining detached flow -------------------------------------------------
 *
 * Conservation is local, so the cheapest flow may leave a measured loop
 * circulating with no edge into it carrying anything: the blocks on the
 * way in and out caught no sample (short blocks beside a hot loop often
 * catch none), and raising them costs more than leaving the loop detached.
 * No run goes round a loop it never entered.  So the blocks on the
 * shortest CFG path from the flow that ENTRY reaches to each detached
 * block, and from it back to that flow or EXIT, are taken as measured at
 * one sample's worth (the smallest positive measured count) where they
 * had less, and the flow is solved again: the measurements then route the
 * loop's entries through them, usually at no cost to the rest.  A few
 * rounds at most; the caller's measurements are restored afterwards.  */

#define JOIN_ROUNDS 4

struct adjacency
{
  size_t *start;                /* per block + 1: into edge */
  size_t *edge;                 /* edge indices, grouped by block */
};

/* Group G's edges by their source (FORWARD) or destination.  */
static void
adjacency_init (struct adjacency *a, const struct sfdo_flow *g, bool forward)
{
  a->start = sfdo_xcalloc (g->nblocks + 2, sizeof *a->start);
  a->edge = sfdo_xmalloc ((g->nedges + 1) * sizeof *a->edge);
  for (size_t e = 0; e < g->nedges; e++)
    a->start[(forward ? g->edges[e].from : g->edges[e].to) + 2]++;
  for (size_t b = 0; b < g->nblocks; b++)
    a->start[b + 2] += a->start[b + 1];
  for (size_t e = 0; e < g->nedges; e++)
    a->edge[a->start[(forward ? g->edges[e].from : g->edges[e].to) + 1]++]
      = e;
}

static void
adjacency_release (struct adjacency *a)
{
  free (a->start);
  free (a->edge);
}

/* Breadth-first from FROM along the edges of A (whose other end is
   edges[e].to when FORWARD, else .from); only edges with flow when
   FLOW_ONLY.  Marks SEEN; stops at the first block in GOAL (if not NULL)
   and returns it, else NONE.  PREV_EDGE, if not NULL, gets the edge each
   block was reached by.  */
static size_t
search (const struct sfdo_flow *g, const struct adjacency *a, size_t from,
        bool forward, bool flow_only, bool *seen, const bool *goal,
        size_t *prev_edge)
{
  size_t *queue = sfdo_xmalloc (g->nblocks * sizeof *queue);
  size_t head = 0, tail = 0, found = NONE;
  seen[from] = true;
  queue[tail++] = from;
  while (head < tail && found == NONE)
    {
      size_t b = queue[head++];
      for (size_t i = a->start[b]; i < a->start[b + 1] && found == NONE; i++)
        {
          size_t e = a->edge[i];
          size_t v = forward ? g->edges[e].to : g->edges[e].from;
          if (seen[v] || (flow_only && g->edge_counts[e] == 0))
            continue;
          seen[v] = true;
          if (prev_edge)
            prev_edge[v] = e;
          if (goal && goal[v])
            found = v;
          queue[tail++] = v;
        }
    }
  free (queue);
  return found;
}

/* Raise the measurement of the blocks strictly between END and START on
   the path PREV_EDGE leads back along to at least DELTA; count them.  */
static size_t
mark_path (struct sfdo_flow *g, const size_t *prev_edge, size_t start,
           size_t end, bool forward, int64_t delta)
{
  size_t marked = 0;
  for (size_t v = end; v != start;)
    {
      size_t e = prev_edge[v];
      v = forward ? g->edges[e].from : g->edges[e].to;
      if (v != start && g->measured[v] < delta)
        g->measured[v] = delta, marked++;
    }
  return marked;
}

/* Give the paths into and out of detached block B one sample's worth,
   DELTA; REACHED marks the flow from ENTRY.  Returns the blocks marked.  */
static size_t
join_block (struct sfdo_flow *g, const struct adjacency *out,
            const struct adjacency *in, const bool *reached, size_t b,
            int64_t delta)
{
  bool *seen = sfdo_xcalloc (g->nblocks, sizeof *seen);
  size_t *prev = sfdo_xmalloc (g->nblocks * sizeof *prev);
  size_t marked = 0;
  size_t r = search (g, in, b, false, false, seen, reached, prev);
  if (r != NONE)
    {
      marked += mark_path (g, prev, b, r, false, delta);
      memset (seen, 0, g->nblocks * sizeof *seen);
      size_t s = search (g, out, b, true, false, seen, reached, prev);
      if (s != NONE)
        marked += mark_path (g, prev, b, s, true, delta);
    }
  free (prev);
  free (seen);
  return marked;
}

/* Mark the ways into and out of every detached block with flow; returns
   how many measurements changed.  */
static size_t
join_detached (struct sfdo_flow *g, int64_t delta)
{
  struct adjacency out, in;
  adjacency_init (&out, g, true);
  adjacency_init (&in, g, false);
  bool *reached = sfdo_xcalloc (g->nblocks, sizeof *reached);
  bool *handled = sfdo_xcalloc (g->nblocks, sizeof *handled);
  if (g->block_counts[g->entry])
    search (g, &out, g->entry, true, true, reached, NULL, NULL);
  size_t marked = 0;
  for (size_t b = 0; b < g->nblocks; b++)
    if (g->block_counts[b] && !reached[b] && !handled[b])
      {
        marked += join_block (g, &out, &in, reached, b, delta);
        /* One join serves the whole detached cycle.  */
        search (g, &out, b, true, true, handled, NULL, NULL);
      }
  free (handled);
  free (reached);
  adjacency_release (&in);
  adjacency_release (&out);
  return marked;
}

/* The smallest positive measured count of G, or 0.  */
static int64_t
smallest_measured (const struct sfdo_flow *g)
{
  int64_t smallest = 0;
  for (size_t b = 0; b < g->nblocks; b++)
    if (g->measured[b] > 0 && (!smallest || g->measured[b] < smallest))
      smallest = g->measured[b];
  return smallest;
}

void
sfdo_flow_solve (struct sfdo_flow *g)
{
  solve_once (g);
  int64_t delta = smallest_measured (g);
  if (!delta)
    return;
  int64_t *measured = sfdo_xmalloc (g->nblocks * sizeof *measured);
  memcpy (measured, g->measured, g->nblocks * sizeof *measured);
  for (int round = 0; round < JOIN_ROUNDS && join_detached (g, delta); round++)
    solve_once (g);
  memcpy (g->measured, measured, g->nblocks * sizeof *measured);
  free (measured);
}

uint64_t
sfdo_flow_block_count (const struct sfdo_flow *g, size_t block)
{
  assert (block < g->nblocks);
  return g->block_counts ? g->block_counts[block] : 0;
}

uint64_t
sfdo_flow_edge_count (const struct sfdo_flow *g, size_t edge)
{
  assert (edge < g->nedges);
  return g->edge_counts ? g->edge_counts[edge] : 0;
}

/* The cost of one block's count F; see the comment at the top.  */
static double
block_cost (const struct cost_model *m, const struct sfdo_flow *g,
            size_t b, uint64_t f)
{
  int64_t c = model_count (m, g, b);
  double cost = 0;
  if (c >= 0 && f > (uint64_t) c)
    cost = (double) raise_cost (m, g, b, c) * (double) (f - (uint64_t) c);
  else if (c >= 0)
    cost = (double) lower_cost (m, g, b, c) * (double) ((uint64_t) c - f);
  if (m->out_degree[b] == 0 && b != g->exit)
    {
      uint64_t measured = (uint64_t) noreturn_paid (m, g, b);
      uint64_t paid = f < measured ? f : measured;
      cost += (double) TOLL_BASE * (double) paid
              + (double) noreturn_toll (m) * (double) (f - paid);
    }
  return cost;
}

double
sfdo_flow_cost (const struct sfdo_flow *g, const uint64_t *block_counts,
                const uint64_t *edge_counts)
{
  if (!block_counts || !edge_counts)
    {
      if (!g->block_counts)
        return 0;
      block_counts = g->block_counts;
      edge_counts = g->edge_counts;
    }
  struct cost_model m;
  model_init (&m, g);
  double cost = 0;
  for (size_t b = 0; b < g->nblocks; b++)
    cost += block_cost (&m, g, b, block_counts[b]);
  for (size_t e = 0; e < g->nedges; e++)
    cost += (double) toll (&m, &g->edges[e]) * (double) edge_counts[e];
  model_release (&m);
  return cost;
}
