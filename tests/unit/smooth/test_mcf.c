/* tests/unit/smooth/test_mcf.c - unit tests of smooth/mcf.h.
 *
 * Small CFGs with known answers (each breaks if one feature of the solver
 * or of the cost model in mcf.c does), then random CFGs with fixed seeds
 * checked for properties: exact conservation, sane counts, and a cost no
 * worse than the ground truth, than no flow at all, or than the solution
 * with one unit more or less along random paths.  Every solution goes through
 * assert_conserved, which recomputes each block's in- and out-flow from
 * the edge counts.
 *
 * "Confidence" follows mcf.c's model: a count of c samples is off by about
 * sqrt(c), so each unit of change costs more sigmas on a small count than
 * on a large one; corrections land, in absolute terms, on large counts.  */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../smooth/mcf.h"
#include "random_cfg.h"



#define ARRAY_LEN(a) (sizeof (a) / sizeof (a)[0])

/* --- Helpers ------------------------------------------------------------- */

static struct sfdo_flow *
solve_cfg (const struct cfg *c)
{
  struct sfdo_flow *g = sfdo_flow_new (c->nblocks, c->entry, c->exit);
  for (size_t b = 0; b < c->nblocks; b++)
    sfdo_flow_set_count (g, b, c->count[b]);
  for (size_t e = 0; e < c->nedges; e++)
    assert_int_equal (sfdo_flow_add_edge (g, c->from[e], c->to[e],
                                          c->prior ? c->prior[e] : -1),
                      e);
  sfdo_flow_solve (g);
  return g;
}

static size_t
out_degree (const struct cfg *c, size_t b)
{
  size_t n = 0;
  for (size_t e = 0; e < c->nedges; e++)
    n += c->from[e] == b;
  return n;
}

/* Flow conservation recomputed from the edge counts: every block's count
   equals what its in-edges bring and what its out-edges take, counting
   the circulation EXIT -> ENTRY and the implicit arcs from successor-less
   blocks to EXIT.  */
static void
assert_conserved (const struct sfdo_flow *g, const struct cfg *c)
{
  uint64_t *in = calloc (c->nblocks, sizeof *in);
  uint64_t *out = calloc (c->nblocks, sizeof *out);
  size_t *succs = calloc (c->nblocks, sizeof *succs);
  for (size_t e = 0; e < c->nedges; e++)
    {
      in[c->to[e]] += sfdo_flow_edge_count (g, e);
      out[c->from[e]] += sfdo_flow_edge_count (g, e);
      succs[c->from[e]]++;
    }
  for (size_t b = 0; b < c->nblocks; b++)
    if (b != c->exit && succs[b] == 0)
      {
        out[b] += sfdo_flow_block_count (g, b);
        in[c->exit] += sfdo_flow_block_count (g, b);
      }
  uint64_t exit_count = sfdo_flow_block_count (g, c->exit);
  assert_true (exit_count >= out[c->exit]);
  uint64_t circulation = exit_count - out[c->exit];
  out[c->exit] += circulation;
  in[c->entry] += circulation;
  for (size_t b = 0; b < c->nblocks; b++)
    {
      uint64_t count = sfdo_flow_block_count (g, b);
      if (in[b] != count || out[b] != count)
        fail_msg ("block %zu: in %llu, count %llu, out %llu", b,
                  (unsigned long long) in[b], (unsigned long long) count,
                  (unsigned long long) out[b]);
      assert_true (count < ((uint64_t) 1 << 62));   /* no wrap-around */
    }
  free (in);
  free (out);
  free (succs);
}

static void
assert_counts (const struct sfdo_flow *g, const uint64_t *want, size_t n)
{
  for (size_t b = 0; b < n; b++)
    if (sfdo_flow_block_count (g, b) != want[b])
      fail_msg ("block %zu: got %llu, want %llu", b,
                (unsigned long long) sfdo_flow_block_count (g, b),
                (unsigned long long) want[b]);
}

static void
assert_edge_counts (const struct sfdo_flow *g, const uint64_t *want,
                    size_t n)
{
  for (size_t e = 0; e < n; e++)
    if (sfdo_flow_edge_count (g, e) != want[e])
      fail_msg ("edge %zu: got %llu, want %llu", e,
                (unsigned long long) sfdo_flow_edge_count (g, e),
                (unsigned long long) want[e]);
}

/* --- A loop no measured flow enters ---------------------------------------- */

/* E -> P -> L (self loop) -> Q -> X, and E -> X skipping the loop.  The
   blocks into and out of the loop caught no sample: the cheapest flow
   circles L with nothing entering it, which the join repairs.  */
enum { J_E, J_P, J_L, J_Q, J_X, J_N };
static const size_t joined_from[] = { J_E, J_P, J_L, J_L, J_Q, J_E };
static const size_t joined_to[] = { J_P, J_L, J_L, J_Q, J_X, J_X };
static const double joined_prior[] = { 0.5, 1, 0.9, 0.1, 1, 0.5 };

static void
test_detached_loop_is_joined (void **state)
{
  (void) state;
  const int64_t count[] = { 10, 0, 1000, 0, 10 };
  struct cfg c = { J_N, J_E, J_X, 6, joined_from, joined_to, joined_prior,
                   count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 10, 10, 1000, 10, 10 }, J_N);
  /* Every run goes through the loop; none skips it.  */
  assert_int_equal (sfdo_flow_edge_count (g, 5), 0);
  assert_int_equal (sfdo_flow_edge_count (g, 1), 10);
  sfdo_flow_free (g);
}

/* E -> T -> A (a call that does not return) | B1 -> B2 -> B3 -> X.  A
   shares T's line and so measured half of T; the callers' counts give E
   ten times what the body measured.  The excess leaves through the
   return path, raising its three blocks, not through A, which explains
   only the flow it measured (jq's jvp_array_free sent its callers'
   excess out through __assert_fail).  */
enum { R_E, R_T, R_A, R_B1, R_B2, R_B3, R_X, R_N };
static const size_t noreturn_from[] = { R_E, R_T, R_T, R_B1, R_B2, R_B3 };
static const size_t noreturn_to[] = { R_T, R_A, R_B1, R_B2, R_B3, R_X };
static const double noreturn_prior[] = { 1, 0.01, 0.99, 1, 1, 1 };

static void
test_noreturn_block_drains_only_what_it_measured (void **state)
{
  (void) state;
  const int64_t count[] = { 1000, 100, 50, 100, 100, 100,
                            SFDO_FLOW_UNKNOWN };
  struct cfg c = { R_N, R_E, R_X, 6, noreturn_from, noreturn_to,
                   noreturn_prior, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_true (sfdo_flow_block_count (g, R_A) <= 50);
  assert_true (sfdo_flow_block_count (g, R_B3) >= 900);
  sfdo_flow_free (g);
}

/* --- Diamonds: consistent, and with an arm missing ------------------------ */

/* E -> A | B -> X.  */
enum { D_E, D_A, D_B, D_X, D_N };
static const size_t diamond_from[] = { D_E, D_E, D_A, D_B };
static const size_t diamond_to[] = { D_A, D_B, D_X, D_X };
static const double diamond_prior[] = { 0.6, 0.4, 1, 1 };

static struct cfg
diamond (const int64_t *count, const double *prior)
{
  struct cfg c = { D_N, D_E, D_X, 4, diamond_from, diamond_to, prior, count };
  return c;
}

static void
test_consistent_diamond_is_unchanged (void **state)
{
  (void) state;
  const int64_t count[] = { 100, 70, 30, 100 };
  struct cfg c = diamond (count, diamond_prior);
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 70, 30, 100 }, D_N);
  assert_edge_counts (g, (const uint64_t[]) { 70, 30, 70, 30 }, 4);
  sfdo_flow_free (g);
}

static void
test_diamond_missing_arm_is_inferred (void **state)
{
  (void) state;
  const int64_t count[] = { 100, 70, U, 100 };
  struct cfg c = diamond (count, diamond_prior);
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 70, 30, 100 }, D_N);
  sfdo_flow_free (g);
}

/* The arms' measured counts fall 50 short of E and X (1000 each).  Raising
   A (900) by 50 is 50/sqrt(950) sigmas, raising B (50) by 50 is
   50/sqrt(100), lowering E and X is twice 2 * 50/sqrt(1050): A absorbs it,
   and the count backed by few samples stays where it was, though the
   prior favours B (with per-unit costs independent of the count the prior
   would decide).  */
static void
test_correction_goes_where_it_costs_fewest_sigmas (void **state)
{
  (void) state;
  const int64_t count[] = { 1000, 900, 50, 1000 };
  struct cfg c = diamond (count, (const double[]) { 0.1, 0.9, 1, 1 });
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 1000, 950, 50, 1000 }, D_N);
  sfdo_flow_free (g);
}

/* The arms add up to 50 more than E and X.  Trusted, the arm with more
   samples behind it moves: lowering A by 50 is 50/sqrt(900) sigmas, B
   50/sqrt(150).  A weak B (a stale profile's guess) moves for a quarter
   of its cost, less than A's, and gives way instead.  */
static void
test_weak_count_gives_way (void **state)
{
  (void) state;
  const int64_t count[] = { 1000, 900, 150, 1000 };
  struct cfg c = diamond (count, diamond_prior);
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 1000, 850, 150, 1000 }, D_N);
  sfdo_flow_free (g);
  g = sfdo_flow_new (c.nblocks, c.entry, c.exit);
  for (size_t b = 0; b < c.nblocks; b++)
    sfdo_flow_set_count (g, b, c.count[b]);
  for (size_t e = 0; e < c.nedges; e++)
    sfdo_flow_add_edge (g, c.from[e], c.to[e], c.prior[e]);
  sfdo_flow_set_bias (g, D_B, SFDO_FLOW_WEAK);
  sfdo_flow_solve (g);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 1000, 900, 100, 1000 }, D_N);
  sfdo_flow_free (g);
}

/* --- Loops ----------------------------------------------------------------- */

/* P -> H; H -> B -> H; H -> X.  */
enum { L_P, L_H, L_B, L_X, L_N };
static const size_t loop_from[] = { L_P, L_H, L_B, L_H };
static const size_t loop_to[] = { L_H, L_B, L_H, L_X };
static const double loop_prior[] = { 1, 0.99, 1, 0.01 };

static struct cfg
simple_loop (const int64_t *count)
{
  struct cfg c = { L_N, L_P, L_X, 4, loop_from, loop_to, loop_prior, count };
  return c;
}

/* The body was measured 100 short of H - P.  The preheader and the exit,
   with 100 samples each, would move by 10 sigmas; the body by 1.  */
static void
test_loop_noise_moves_low_confidence_count (void **state)
{
  (void) state;
  const int64_t count[] = { 100, 10100, 9900, 100 };
  struct cfg c = simple_loop (count);
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 10100, 10000, 100 }, L_N);
  assert_edge_counts (g, (const uint64_t[]) { 100, 10000, 10000, 100 }, 4);
  sfdo_flow_free (g);
}

/* Header and body both measured 9900, one of them 100 off: raising the
   header costs half what lowering the body would.  */
static void
test_raising_is_preferred_to_lowering (void **state)
{
  (void) state;
  const int64_t count[] = { 100, 9900, 9900, 100 };
  struct cfg c = simple_loop (count);
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 10000, 9900, 100 }, L_N);
  sfdo_flow_free (g);
}

/* E -> H1; H1 -> H2; H2 -> B2 -> H2; H2 -> L1 -> H1; H1 -> X.
   10 calls, 40 outer iterations, 400 inner ones.  */
enum { N_E, N_H1, N_H2, N_B2, N_L1, N_X, N_N };
static const size_t nested_from[] = { N_E, N_H1, N_H2, N_B2, N_H2, N_L1,
                                      N_H1 };
static const size_t nested_to[] = { N_H1, N_H2, N_B2, N_H2, N_L1, N_H1,
                                    N_X };
static const double nested_prior[] = { 1, 0.8, 0.9, 1, 0.1, 1, 0.2 };

static void
test_nested_loop_missing_count_is_inferred (void **state)
{
  (void) state;
  const int64_t count[] = { 10, 50, 440, U, 40, 10 };
  struct cfg c = { N_N, N_E, N_X, 7, nested_from, nested_to, nested_prior,
                   count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 10, 50, 440, 400, 40, 10 }, N_N);
  assert_edge_counts (g, (const uint64_t[]) { 10, 40, 400, 400, 40, 40, 10 },
                      7);
  sfdo_flow_free (g);
}

/* The inner body measured 20 short: it is the cheapest count to raise
   (1/sqrt(390) per unit against 2/sqrt(450) to lower its header).  */
static void
test_nested_loop_noise_is_repaired (void **state)
{
  (void) state;
  const int64_t count[] = { 10, 50, 440, 380, 40, 10 };
  struct cfg c = { N_N, N_E, N_X, 7, nested_from, nested_to, nested_prior,
                   count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 10, 50, 440, 400, 40, 10 }, N_N);
  sfdo_flow_free (g);
}

/* --- Awkward shapes ------------------------------------------------------- */

/* E enters the cycle A <-> B at both A and B; either may leave to X.  */
enum { I_E, I_A, I_B, I_X, I_N };
static const size_t irr_from[] = { I_E, I_E, I_A, I_B, I_A, I_B };
static const size_t irr_to[] = { I_A, I_B, I_B, I_A, I_X, I_X };
static const double irr_prior[] = { 0.5, 0.5, 0.6, 0.6, 0.4, 0.4 };

static void
test_irreducible_region_keeps_consistent_counts (void **state)
{
  (void) state;
  const int64_t count[] = { 100, 150, 130, 100 };
  struct cfg c = { I_N, I_E, I_X, 6, irr_from, irr_to, irr_prior, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 150, 130, 100 }, I_N);
  sfdo_flow_free (g);
}

/* With the cycle unmeasured nothing argues for going round it.  */
static void
test_irreducible_region_unmeasured_is_not_iterated (void **state)
{
  (void) state;
  const int64_t count[] = { 100, U, U, 100 };
  struct cfg c = { I_N, I_E, I_X, 6, irr_from, irr_to, irr_prior, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_int_equal (sfdo_flow_block_count (g, I_A)
                    + sfdo_flow_block_count (g, I_B), 100);
  assert_int_equal (sfdo_flow_edge_count (g, 2), 0);
  assert_int_equal (sfdo_flow_edge_count (g, 3), 0);
  sfdo_flow_free (g);
}

/* E -> A -> X; V -> U -> X with nothing reaching V.  A count measured on
   U cannot be fed, so it drops to 0.  */
static void
test_unreachable_blocks_get_zero (void **state)
{
  (void) state;
  enum { E, A, X, V, Ub, N };
  const size_t from[] = { E, A, V, Ub };
  const size_t to[] = { A, X, Ub, X };
  const int64_t count[] = { 100, 100, 100, U, 50 };
  struct cfg c = { N, E, X, 4, from, to, NULL, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 100, 100, 0, 0 }, N);
  sfdo_flow_free (g);
}

/* A calls a noreturn function in N (no successors) 30 times out of 100
   and throws to the landing pad L 5 times: both reach EXIT.  */
static void
test_successorless_block_flows_to_exit (void **state)
{
  (void) state;
  enum { E, A, Nr, L, X, N };
  const size_t from[] = { E, A, A, A, L };
  const size_t to[] = { A, Nr, X, L, X };
  const double prior[] = { 1, 0.1, 0.9, 0, 1 };
  const int64_t count[] = { 100, 100, 30, 5, U };
  struct cfg c = { N, E, X, 5, from, to, prior, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 100, 30, 5, 100 }, N);
  assert_edge_counts (g, (const uint64_t[]) { 100, 30, 65, 5, 5 }, 5);
  sfdo_flow_free (g);
}

/* A loop (head H, test T, body B) whose test was measured 50 above its
   body, with an error arm Er off the test that ends in an abort () (no
   successor) and the return R, both measured at zero: raising Er to
   drain the 50 would say the error path ran; the loop takes them round
   instead, and the entry's 100 leave by the return.  */
static void
test_measured_zero_without_successor_drains_nothing (void **state)
{
  (void) state;
  enum { E, X, P, H, T, Er, B, R, N };
  const size_t from[] = { E, P, H, H, T, T, B, R };
  const size_t to[] = { P, H, T, R, Er, B, H, X };
  const double prior[] = { 1, 1, 0.9, 0.1, 0.0005, 0.9995, 1, 1 };
  const int64_t count[] = { 100, U, U, 100000, 100050, 0, 100000, 0 };
  struct cfg c = { N, E, X, 8, from, to, prior, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_int_equal (sfdo_flow_block_count (g, Er), 0);
  assert_int_equal (sfdo_flow_block_count (g, R), 100);
  sfdo_flow_free (g);
}

/* E -> A twice (a switch with two cases to one block), A loops on itself,
   A -> X: the self-loop carries what the entry does not explain.  */
static void
test_self_loop_and_parallel_edges (void **state)
{
  (void) state;
  enum { E, A, X, N };
  const size_t from[] = { E, E, A, A };
  const size_t to[] = { A, A, A, X };
  const double prior[] = { 0.5, 0.5, 0.9, 0.1 };
  const int64_t count[] = { 10, 100, 10 };
  struct cfg c = { N, E, X, 4, from, to, prior, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 10, 100, 10 }, N);
  assert_int_equal (sfdo_flow_edge_count (g, 0) + sfdo_flow_edge_count (g, 1),
                    10);
  assert_int_equal (sfdo_flow_edge_count (g, 2), 90);
  sfdo_flow_free (g);
}

/* One block that is both ENTRY and EXIT: its count is the circulation.  A
   graph of unmeasured blocks carries nothing.  */
static void
test_degenerate_graphs (void **state)
{
  (void) state;
  struct sfdo_flow *g = sfdo_flow_new (1, 0, 0);
  sfdo_flow_set_count (g, 0, 5);
  sfdo_flow_solve (g);
  assert_int_equal (sfdo_flow_block_count (g, 0), 5);
  sfdo_flow_free (g);

  const int64_t count[] = { U, U, U, U };
  struct cfg c = diamond (count, diamond_prior);
  g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 0, 0, 0, 0 }, D_N);
  sfdo_flow_free (g);
}

/* A block measured 0 on the only path must be raised; one beside another
   way round is avoided even against the prior.  */
static void
test_zero_count_blocks (void **state)
{
  (void) state;
  enum { E, A, X, N };
  const size_t from[] = { E, A };
  const size_t to[] = { A, X };
  const int64_t chain[] = { 100, 0, 100 };
  struct cfg c = { N, E, X, 2, from, to, NULL, chain };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 100, 100 }, N);
  sfdo_flow_free (g);

  const int64_t count[] = { 100, 0, U, 100 };
  const double prior[] = { 0.99, 0.01, 1, 1 };
  c = diamond (count, prior);
  g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 0, 100, 100 }, D_N);
  sfdo_flow_free (g);
}

/* --- Priors ----------------------------------------------------------------- */

/* With both arms unmeasured every split of E's 100 is equally consistent:
   the more probable arm takes all of it (linear costs do not split).  */
static void
test_priors_break_ties (void **state)
{
  (void) state;
  const int64_t count[] = { 100, U, U, 100 };
  struct cfg c = diamond (count, (const double[]) { 0.3, 0.7, 1, 1 });
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 0, 100, 100 }, D_N);
  sfdo_flow_free (g);

  c = diamond (count, (const double[]) { 0.7, 0.3, 1, 1 });
  g = solve_cfg (&c);
  assert_counts (g, (const uint64_t[]) { 100, 100, 0, 100 }, D_N);
  sfdo_flow_free (g);
}

/* Priors do not overrule measurements: the improbable arm was measured.  */
static void
test_measurements_overrule_priors (void **state)
{
  (void) state;
  const int64_t count[] = { 100, U, 100, 100 };
  struct cfg c = diamond (count, (const double[]) { 0.99, 0.01, 1, 1 });
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 0, 100, 100 }, D_N);
  sfdo_flow_free (g);
}

/* Only ENTRY measured.  E -> C; C -> T (0.8) | F (0.2) -> J; J -> S (0.4)
   -> X or J -> P (0.6) -> Q; Q -> X (0.9) | R (0.1); R -> H; H -> B (0.9)
   -> H; H -> X (0.1).  The flow takes the path of least sum of -log2 p
   plus 1/16 bit per edge: E C T J P Q X (-log2 (0.8 * 0.6 * 0.9) = 1.21
   bits, 6 edges) beats the shorter E C T J S X (1.64 bits, 5 edges), and
   every other block gets 0: the loop H B, reached with probability 0.048
   and then left with probability 0.1 per visit, runs zero times.  */
static void
test_only_entry_measured_follows_most_probable_path (void **state)
{
  (void) state;
  enum { E, C, T, F, J, S, P, Q, R, H, B, X, N };
  const size_t from[] = { E, C, C, T, F, J, J, S, P, Q, Q, R, H, B, H };
  const size_t to[] = { C, T, F, J, J, S, P, X, Q, X, R, H, B, H, X };
  const double prior[] = { 1, 0.8, 0.2, 1, 1, 0.4, 0.6, 1, 1, 0.9, 0.1,
                           1, 0.9, 1, 0.1 };
  int64_t count[N];
  for (size_t b = 0; b < N; b++)
    count[b] = U;
  count[E] = 100;
  struct cfg c = { N, E, X, ARRAY_LEN (from), from, to, prior, count };
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_counts (g, (const uint64_t[]) { 100, 100, 100, 0, 100, 0, 100, 100,
                                         0, 0, 0, 100 }, N);
  sfdo_flow_free (g);
}

/* --- Magnitudes ------------------------------------------------------------- */

static void
test_huge_counts_do_not_overflow (void **state)
{
  (void) state;
  const int64_t T = 1000000000000;      /* 1e12 */
  const int64_t count[] = { T, 6 * T / 10 + 1000, 4 * T / 10 - 3000, T };
  struct cfg c = diamond (count, diamond_prior);
  struct sfdo_flow *g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_int_equal (sfdo_flow_block_count (g, D_E), T);
  assert_int_equal (sfdo_flow_block_count (g, D_A)
                    + sfdo_flow_block_count (g, D_B), T);
  /* The 2000 missing units go to the larger arm, the fewest sigmas.  */
  assert_int_equal (sfdo_flow_block_count (g, D_A), 6 * T / 10 + 3000);
  assert_int_equal (sfdo_flow_block_count (g, D_B), 4 * T / 10 - 3000);
  sfdo_flow_free (g);

  /* Absurd counts are clamped, not wrapped.  */
  const int64_t absurd[] = { INT64_MAX, INT64_MAX, 1, INT64_MAX - 1 };
  c = diamond (absurd, diamond_prior);
  g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_true (sfdo_flow_block_count (g, D_E) > ((uint64_t) 1 << 50));
  sfdo_flow_free (g);

  /* A loop header fed by two such counts holds their sum.  */
  const int64_t fed[] = { INT64_MAX, U, INT64_MAX, INT64_MAX };
  c = simple_loop (fed);
  g = solve_cfg (&c);
  assert_conserved (g, &c);
  assert_int_equal (sfdo_flow_block_count (g, L_H),
                    2 * sfdo_flow_block_count (g, L_P));
  assert_true (sfdo_flow_block_count (g, L_P) > ((uint64_t) 1 << 50));
  sfdo_flow_free (g);
}

/* Changing the graph drops the solution; solving again gives the new one.  */
static void
test_resolving_after_change (void **state)
{
  (void) state;
  const int64_t count[] = { 100, 70, U, 100 };
  struct cfg c = diamond (count, diamond_prior);
  struct sfdo_flow *g = solve_cfg (&c);
  assert_int_equal (sfdo_flow_block_count (g, D_B), 30);
  sfdo_flow_set_count (g, D_A, 40);
  assert_int_equal (sfdo_flow_block_count (g, D_B), 0);
  assert_true (sfdo_flow_cost (g, NULL, NULL) == 0);
  sfdo_flow_solve (g);
  assert_int_equal (sfdo_flow_block_count (g, D_B), 60);
  sfdo_flow_free (g);
}

/* --- Random CFGs (random_cfg.h) and their properties --------------------- */

/* The solution plus one unit along a random path from ENTRY to EXIT (or
   to a successor-less block, and on to EXIT): consistent again.  After
   4N steps the walk only goes forward, so it ends.  */
static double
cost_of_nudged (const struct sfdo_flow *g, const struct cfg *c,
                uint64_t *seed)
{
  uint64_t *block = calloc (c->nblocks, sizeof *block);
  uint64_t *edge = calloc (c->nedges + 1, sizeof *edge);
  for (size_t b = 0; b < c->nblocks; b++)
    block[b] = sfdo_flow_block_count (g, b);
  for (size_t e = 0; e < c->nedges; e++)
    edge[e] = sfdo_flow_edge_count (g, e);
  size_t b = c->entry;
  for (size_t steps = 0; b != c->exit && out_degree (c, b) > 0; steps++)
    {
      block[b]++;
      size_t pick = rng_below (seed, out_degree (c, b)), e = 0;
      for (;; e++)
        if (c->from[e] == b && (steps > 4 * c->nblocks
                                ? c->to[e] > b : pick-- == 0))
          break;
      edge[e]++;
      b = c->to[e];
    }
  block[b]++;
  if (b != c->exit)
    block[c->exit]++;
  double cost = sfdo_flow_cost (g, block, edge);
  free (block);
  free (edge);
  return cost;
}

/* The solution minus one unit of flow: from ENTRY along edges still
   carrying some (taking one unit off each as it goes, so a walk round a
   loop removes a cycle too) to EXIT, directly or from a successor-less
   block.  Needs flow through EXIT and no edge out of it.  */
static double
cost_of_lessened (const struct sfdo_flow *g, const struct cfg *c,
                  uint64_t *seed)
{
  uint64_t *block = calloc (c->nblocks, sizeof *block);
  uint64_t *edge = calloc (c->nedges + 1, sizeof *edge);
  for (size_t b = 0; b < c->nblocks; b++)
    block[b] = sfdo_flow_block_count (g, b);
  for (size_t e = 0; e < c->nedges; e++)
    edge[e] = sfdo_flow_edge_count (g, e);
  size_t b = c->entry;
  while (b != c->exit && out_degree (c, b) > 0)
    {
      size_t live = 0, e = 0;
      block[b]--;
      for (size_t i = 0; i < c->nedges; i++)
        live += c->from[i] == b && edge[i] > 0;
      assert_true (live > 0);
      for (size_t pick = rng_below (seed, live);; e++)
        if (c->from[e] == b && edge[e] > 0 && pick-- == 0)
          break;
      edge[e]--;
      b = c->to[e];
    }
  block[b]--;
  if (b != c->exit)
    block[c->exit]--;
  double cost = sfdo_flow_cost (g, block, edge);
  free (block);
  free (edge);
  return cost;
}

static void
check_random_cfg (size_t n, uint64_t seed)
{
  struct random_cfg r;
  random_cfg_make (&r, n, 50, 1, seed);
  struct sfdo_flow *g = solve_cfg (&r.cfg);
  assert_conserved (g, &r.cfg);
  double cost = sfdo_flow_cost (g, NULL, NULL), slack = 1e-9 * cost + 1;
  /* No worse than the truth, than no flow at all, than nudging.  */
  assert_true (cost <= sfdo_flow_cost (g, r.true_block, r.true_edge) + slack);
  uint64_t *zero = calloc (n + r.cfg.nedges, sizeof *zero);
  assert_true (cost <= sfdo_flow_cost (g, zero, zero) + slack);
  free (zero);
  uint64_t s = seed;
  for (int i = 0; i < 20; i++)
    assert_true (cost <= cost_of_nudged (g, &r.cfg, &s) + slack);
  for (int i = 0; i < 20 && sfdo_flow_block_count (g, r.cfg.exit) > 0; i++)
    assert_true (cost <= cost_of_lessened (g, &r.cfg, &s) + slack);
  sfdo_flow_free (g);
  random_cfg_free (&r);
}

static void
test_random_cfgs_properties (void **state)
{
  (void) state;
  for (uint64_t seed = 1; seed <= 40; seed++)
    check_random_cfg (2 + seed * 5, seed);
}

/* A 5000-block function with counts like a period of 10007 events gives
   (ENTRY called 200 times): the result is consistent and no worse than
   the truth.  How long it takes is bench/mcf-bench.sh's business.  */
static void
test_random_cfg_5000_blocks (void **state)
{
  (void) state;
  struct random_cfg r;
  random_cfg_make (&r, 5000, 200, 10007, 12345);
  struct sfdo_flow *g = solve_cfg (&r.cfg);
  assert_conserved (g, &r.cfg);
  double cost = sfdo_flow_cost (g, NULL, NULL), slack = 1e-9 * cost + 1;
  assert_true (cost <= sfdo_flow_cost (g, r.true_block, r.true_edge) + slack);
  uint64_t *zero = calloc (r.cfg.nblocks + r.cfg.nedges, sizeof *zero);
  assert_true (cost <= sfdo_flow_cost (g, zero, zero) + slack);
  free (zero);
  sfdo_flow_free (g);
  random_cfg_free (&r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_consistent_diamond_is_unchanged),
    cmocka_unit_test (test_diamond_missing_arm_is_inferred),
    cmocka_unit_test (test_correction_goes_where_it_costs_fewest_sigmas),
    cmocka_unit_test (test_weak_count_gives_way),
    cmocka_unit_test (test_loop_noise_moves_low_confidence_count),
    cmocka_unit_test (test_raising_is_preferred_to_lowering),
    cmocka_unit_test (test_nested_loop_missing_count_is_inferred),
    cmocka_unit_test (test_nested_loop_noise_is_repaired),
    cmocka_unit_test (test_irreducible_region_keeps_consistent_counts),
    cmocka_unit_test (test_irreducible_region_unmeasured_is_not_iterated),
    cmocka_unit_test (test_unreachable_blocks_get_zero),
    cmocka_unit_test (test_successorless_block_flows_to_exit),
    cmocka_unit_test (test_measured_zero_without_successor_drains_nothing),
    cmocka_unit_test (test_self_loop_and_parallel_edges),
    cmocka_unit_test (test_degenerate_graphs),
    cmocka_unit_test (test_zero_count_blocks),
    cmocka_unit_test (test_priors_break_ties),
    cmocka_unit_test (test_measurements_overrule_priors),
    cmocka_unit_test (test_only_entry_measured_follows_most_probable_path),
    cmocka_unit_test (test_huge_counts_do_not_overflow),
    cmocka_unit_test (test_resolving_after_change),
    cmocka_unit_test (test_random_cfgs_properties),
    cmocka_unit_test (test_detached_loop_is_joined),
    cmocka_unit_test (test_noreturn_block_drains_only_what_it_measured),
    cmocka_unit_test (test_random_cfg_5000_blocks),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
