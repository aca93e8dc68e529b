"""MurTree (Demirović et al., JMLR 2022) as a resumable numba search over binary features.

The recursion of Eq. 1 (Algorithms 1-3 of the paper) runs on an explicit stack of frames held in arrays, so a
kernel call can stop after any number of iterations and the next call resumes. One **iteration** is one call
of ``SolveSubtree`` (Algorithm 1): a subtree problem (D, d, n, UB) is entered and either resolved at once
(UB < 0, a leaf budget, a cached optimum, a lower-bound prune, "LB == leaf", the depth-two solver of
Algorithm 4) or opened as a general-case frame (Algorithm 2). The same iteration then advances the frames
until the next subtree problem is ready: delivering the result to the parent's configuration (Algorithm 3),
finishing frames whose feature loop is done (storing optima or refined lower bounds, Eq. 15-17) and
partitioning the data for the next configuration.

Reading the kernel: an iteration is :func:`solve_subtree` (Algorithm 1: :func:`cache_lookup`,
:func:`cached_optimum`, :func:`similarity_lower_bound`, :func:`solve_depth_two`, :func:`open_frame`), then
:func:`return_up` (:func:`deliver_result`, Algorithm 3; :func:`next_configuration` with
:func:`split_children`, Algorithm 2's loops; :func:`finish_frame`; :func:`root_query_done`, Algorithms 6 and
7), then :func:`anytime_incumbent` and :func:`report_bounds`. The phases take the kernel's named groups
(:data:`Data`, :data:`Params`, :data:`State`) rather than their arrays.

Techniques, each with an off switch (:data:`Params`): the depth-two solver from single and pair frequency counts
(§4.3, Eq. 2-8) with incremental counting from two counters (§4.4.3, Prop. 7-8); the similarity lower bound
(§4.5, Eq. 9, two archived datasets per depth); a dataset-keyed (§4.6.2) or branch-keyed (§4.6.1) cache with
lower bounds per (depth, nodes) budget (Prop. 10 at store time, Prop. 11 by storing each bound into every
dominated budget); dynamic child ordering (§4.7); in-order or Gini feature order (§4.8). The sparse objective
misclassifications + alpha * nodes is Algorithm 6 (a sequence of root queries with node budgets 1..n) and the
smallest optimal tree is Algorithm 7 (descending budgets under the optimal cost); both run as successive
root queries sharing the cache.

Two tasks share the kernel (:func:`murtree_kernel`), told apart by the dtype of the statistics:

* **classification**: a row's statistics are its class (``label``) and integer weight; a data set's statistics
  are its weighted class counts (int64) and a leaf costs |D| - max_k |D_k| (integer misclassifications);
* **regression** (§4.9.2, squared error): a row's statistics are ``rstat[r] = (w, w y_1, ..., w y_m,
  w |y|^2)``; a data set's are their sums (float64) and a leaf costs Q - sum_o S_o^2 / W, the sum of squared
  errors around the leaf's mean. The depth-two solver counts these sums per feature pair (the paper's
  "sums of the target values", plus the sums of squares an SSE needs) and gets every cell by the same
  inclusion-exclusion as the class counts (Eq. 2-5). The similarity bound is off: its proof needs a removed
  row to change the optimum by at most its weight, which a squared error does not satisfy.

Costs are compared through two constants of the search (``ccost[CC_TIE]``, ``ccost[CC_STEP]``): a tree
improves on a cost c when it costs at most c - TIE, and a search that found nothing within UB stores the lower
bound UB + STEP. Classification uses TIE = STEP = 1 (exact integers). Regression uses STEP = 0 (T > UB only
certifies T >= UB) and TIE = a tolerance set by the solver: SSEs closer than TIE count as ties.

Anytime (§4.9.5): after every iteration the frames on the stack are combined into the best complete tree
they contain (each frame's incumbent, its leaf, or its current split with the solved sibling, or a leaf in
place of the unsolved one), and the global incumbent is replaced when that tree is better. The certified
lower bound is described in :func:`murtree_kernel`.

Classification costs are integer weighted misclassifications (rows with equal features and label are merged
into weights by the solver). The cache datasets are sorted arrays of row ids hashed by a Zobrist sum
(``zob``), found by open addressing in ``htab`` and confirmed by comparing the ids (§4.6.2). Optimal subtrees
are stored whole in ``tpool`` as heap arrays of features (node ``h`` has children ``2h+1`` (feature = 0) and
``2h+2`` (feature = 1); -1 is a leaf), so a cache hit returns a complete tree and no reconstruction pass is
needed.
"""
from collections import namedtuple

import numpy as np

from odtlab.core._jit import COMPILED, function_at, njit, overload, types
from odtlab.core import events as ev
from odtlab.core.arrays import copy_flat

INF = 1 << 60  # "no tree" (the paper's infeasible tree of cost +infinity)

MODE_PLAIN, MODE_SPARSE, MODE_SMALLEST = 0, 1, 2
CACHE_NONE, CACHE_DATASET, CACHE_BRANCH = 0, 1, 2
ORDER_DYNAMIC, ORDER_POST = 0, 1
FEATURES_IN_ORDER, FEATURES_GINI = 0, 1

# integer frame fields (int64, frames[k, FR_*]); child blocks for side 0 (feature absent) and 1 (present)
(FR_START, FR_LEN, FR_W, FR_HASH, FR_KOFF, FR_KLEN, FR_KHASH, FR_CIDX, FR_D, FR_N, FR_BEST_NODES, FR_FI, FR_F,
 FR_NL, FR_NMIN, FR_NMAX, FR_PHASE, FR_FIRST, FR_FIRST_NODES, FR_CBASE, FR_SIM0, FR_SIM1, FR_CHILD) = range(23)
CH_START, CH_LEN, CH_W, CH_HASH, CH_KOFF, CH_KHASH, CH_CIDX = range(7)
CH_WIDTH = 7
N_FRAME_FIELDS = FR_CHILD + 2 * CH_WIDTH
# cost frame fields (fcost[k, FC_*], the cost dtype); FC_CLEAF + side is a child's leaf cost
FC_UB, FC_LB, FC_LEAF, FC_BEST, FC_RLB, FC_FIRST_COST, FC_UBP, FC_CLEAF = range(8)
N_FRAME_COSTS = FC_CLEAF + 2
PH_NEXT_FEATURE, PH_FIRST, PH_SECOND, PH_CONFIG, PH_ISSUE_SECOND = 0, 1, 2, 3, 4

# call / return register: integers (reg[RG_*], reg[RT_*]) and costs (regc[RC_*])
(RG_START, RG_LEN, RG_W, RG_HASH, RG_KOFF, RG_KLEN, RG_KHASH, RG_CIDX, RG_D, RG_N, RT_NODES, RT_CIDX) = range(12)
N_REG = 12
RC_UB, RC_LEAF, RC_COST, RC_LB = range(4)
N_REG_COSTS = 4

# counters (int64)
(C_ITER, C_DONE, C_STARTED, C_TOP, C_GROW, C_G_NODES, C_Q_N, C_Q_STAGE, C_CALLS, C_FRAMES, C_D2, C_D2_SCRATCH,
 C_D2_INCREMENTAL, C_D2_SAME, C_D2_UPDATES, C_CACHE_HITS, C_LB_PRUNES, C_SIM_PRUNES, C_SIM_RAISES, C_NDS,
 C_KEYS_USED, C_TP_USED, C_INCUMBENTS, C_ROOT_W, C_ROOT_HASH, C_Q_DEPTH) = range(26)
N_COUNTERS = 26
# search-wide costs (ccost, the cost dtype): the global incumbent's cost, the certified lower bound (times
# alpha's denominator), Algorithm 7's optimal cost (the probe step when probing), the root leaf, the comparison
# constants and the UB of the running lower-bound probe
CC_G_MISS, CC_LOWER, CC_Q_COST, CC_ROOT_LEAF, CC_TIE, CC_STEP, CC_PROBE_UB = range(7)
N_SEARCH_COSTS = 7
GROW_CACHE, GROW_KEYS, GROW_TPOOL = 1, 2, 4

# depth-two results: cnt_out[slot, b, O_*] (int64) and cnt_cost[slot, b] for the best tree with b + 1 nodes
O_NODES, O_ROOT, O_LEFT, O_RIGHT = range(4)

# cache dataset metadata (int64, meta[ci, M_*])
M_HASH, M_LEN, M_KEY = range(3)

# -- event kinds (MurTree block 96..127 of odtlab.core.events) ------------------------------------------------
# ``level`` is the recursion level of the subtree problem an event is about (the root call is 0, the calls of its
# frame 1, ...), ``parent`` the level above it (-1 for the root call).
MT_ENTER = 96
emit_subtree_entered = ev.event_kind(
    MT_ENTER, "SubtreeEntered", "murtree",
    {"d": "depth", "n_rows": "i0", "nodes": "i1", "weight": "i2", "ub": "upper", "lb": "lower", "leaf": "value",
     "level": "node", "side": "flags"},
    "SolveSubtree: {n_rows} rows, depth {d}, at most {nodes} nodes, UB {ub:.6g} (leaf {leaf:.6g})",
    "Algorithm 1 entered on a subtree problem (D, d, n, UB); feature and side: the parent's split "
    "feature (solver column, -1 at the root) and the child taken (0: feature absent, 1: present).").emit
MT_CACHE_HIT = 97
emit_cache_hit = ev.event_kind(
    MT_CACHE_HIT, "CacheHit", "murtree",
    {"d": "depth", "n_rows": "i0", "nodes": "i1", "tree_nodes": "i2", "cost": "value", "ub": "upper",
     "feasible": "flags", "stored_lb": "lower", "level": "node"},
    "Cache hit: optimum {cost:.6g} with {tree_nodes} nodes for {n_rows} rows, depth {d}, "
    "budget {nodes} (UB {ub:.6g})",
    "Algorithm 1 lines 9-14: an optimal subtree is cached for (D, d, n).").emit
MT_LB_PRUNE = 98
emit_lower_bound_prune = ev.event_kind(
    MT_LB_PRUNE, "LowerBoundPrune", "murtree",
    {"d": "depth", "n_rows": "i0", "nodes": "i1", "weight": "i2", "lb": "lower", "ub": "upper", "negative_ub": "flags",
     "level": "node"},
    "Pruned: lower bound {lb:.6g} > UB {ub:.6g} ({n_rows} rows, depth {d})",
    "Algorithm 1 lines 2-3 and 22-24: UB < 0 or LB > UB, no tree within the bound.").emit
MT_SIMILARITY = 99
emit_similarity_bound = ev.event_kind(
    MT_SIMILARITY, "SimilarityBound", "murtree",
    {"d": "depth", "n_rows": "i0", "nodes": "i1", "out_weight": "i2", "old_lb": "value", "lb": "lower",
     "ub": "upper", "level": "node"},
    "Similarity bound (Eq. 9): LB {old_lb:.6g} -> {lb:.6g} ({n_rows} rows, |D_out| = {out_weight})",
    "Algorithm 1 lines 15-21: an archived dataset's bound minus the rows it has that D lacks.").emit
MT_DEPTH_TWO = 100
emit_depth_two_solve = ev.event_kind(
    MT_DEPTH_TWO, "DepthTwoSolve", "murtree",
    {"d": "depth", "n_rows": "i0", "cost1": "f0", "cost2": "f1", "cost3": "value", "ub": "upper", "lb": "lower",
     "counting": "flags", "root": "feature", "left": "i1", "right": "i2", "level": "node"},
    "Depth-two solver on {n_rows} rows: best 1/2/3-node trees cost {cost1:.6g}/{cost2:.6g}/"
    "{cost3:.6g}",
    "Algorithm 4: pair frequency counts (flags: 0 scratch, 1 incremental, 2 unchanged, 3 a depth-one "
    "call counted single features only; its 2- and 3-node costs are then -1); root, left, right: the "
    "features of the tree it returns for the call's node budget (solver columns, -1: none). The "
    "leaf's cost is on the SubtreeEntered event.").emit
MT_FRAME_INCUMBENT = 101
emit_subtree_incumbent = ev.event_kind(
    MT_FRAME_INCUMBENT, "SubtreeIncumbentImproved", "murtree",
    {"d": "depth", "cost": "value", "n_left": "i0", "n_right": "i1", "tree_nodes": "i2", "old_cost": "f0",
     "ub": "upper", "lb": "lower", "level": "node"},
    "Subtree incumbent: feature {feature} with {n_left}/{n_right} nodes costs {cost:.6g}",
    "Algorithm 2 line 12: a configuration beat the subtree's incumbent (old_cost -1: none).").emit
MT_SOLVED = 102
emit_subtree_solved = ev.event_kind(
    MT_SOLVED, "SubtreeSolved", "murtree",
    {"d": "depth", "n_rows": "i0", "nodes": "i1", "tree_nodes": "i2", "cost": "value", "stored_lb": "lower",
     "ub": "upper", "how": "flags", "level": "node"},
    "Subtree solved: cost {cost:.6g} with {tree_nodes} nodes ({n_rows} rows, depth {d}, "
    "budget {nodes})",
    "Optimum within UB (flags: 0 general case, 1 leaf budget, 2 LB equals the leaf, "
    "3 depth-two solver).").emit
MT_INFEASIBLE = 103
emit_subtree_infeasible = ev.event_kind(
    MT_INFEASIBLE, "SubtreeInfeasible", "murtree",
    {"d": "depth", "n_rows": "i0", "nodes": "i1", "weight": "i2", "stored_lb": "lower", "ub": "upper",
     "rlb": "value", "level": "node"},
    "No tree within UB {ub:.6g}: stored lower bound {stored_lb:.6g} (RLB {rlb:.6g}; {n_rows} rows)",
    "Algorithm 2 line 15 / Eq. 17: LB = max(LB, UB + 1, RLB).").emit
MT_QUERY = 104
emit_root_query = ev.event_kind(
    MT_QUERY, "RootQuery", "murtree",
    {"d": "depth", "n_rows": "i0", "nodes": "i1", "ub": "upper", "lb": "lower"},
    "Root query: depth {d}, at most {nodes} nodes, UB {ub:.6g}",
    "The next root call: Algorithm 6 / 7 (a new node budget), iterative deepening (a new depth) or "
    "a lower-bound probe (a new UB, bound_probing).").emit
SOLVED_GENERAL, SOLVED_LEAF_BUDGET, SOLVED_LEAF_LB, SOLVED_DEPTH_TWO = 0, 1, 2, 3
COUNT_SCRATCH, COUNT_INCREMENTAL, COUNT_UNCHANGED, COUNT_SINGLES = 0, 1, 2, 3


# ------------------------------------------------------------------------------------------------------
# the two tasks: functions chosen by the dtype of their statistics (compile time under numba, run time as
# plain Python under NUMBA_DISABLE_JIT)
# ------------------------------------------------------------------------------------------------------
def _by_dtype(arr, float_impl, int_impl):
    impl = float_impl if isinstance(arr.dtype, types.Float) else int_impl
    return getattr(impl, "py_func", impl)


def _is_float(arr):
    return arr.dtype.kind == "f"


def is_regression(ccost):
    """True for the regression task: its costs (``state.ccost``) are float64 sums of squared errors."""
    return _is_float(ccost)


@overload(is_regression)
def _is_regression(ccost):
    flag = isinstance(ccost.dtype, types.Float)
    return lambda ccost: flag


@njit(inline="always")
def leaf_miss(counts, K):
    """LeafMisclassification: |D| - max_k |D_k| (weighted class counts)."""
    total = 0
    mx = 0
    for c in range(K):
        v = counts[c]
        total += v
        if v > mx:
            mx = v
    return total - mx


@njit(inline="always")
def leaf_sse(counts, K):
    """Sum of squared errors around the mean: Q - sum_o S_o^2 / W for the sums (W, S_1..S_m, Q); 0 if empty."""
    w = counts[0]
    if w <= 0.0:
        return 0.0
    v = counts[K - 1]
    for o in range(1, K - 1):
        v -= counts[o] * counts[o] / w  # finite for estimator input: encoders.check_magnitudes
    return v if v > 0.0 else 0.0


def leaf_cost(counts, K):
    """A leaf's cost from a data set's statistics: misclassifications (int counts) or SSE (float sums)."""
    return (leaf_sse if _is_float(counts) else leaf_miss)(counts, K)


@overload(leaf_cost)
def _leaf_cost(counts, K):
    return _by_dtype(counts, leaf_sse, leaf_miss)


@njit(inline="always")
def weight_counts(counts, K):
    total = 0
    for c in range(K):
        total += counts[c]
    return total


@njit(inline="always")
def weight_stats(counts, K):
    return int(counts[0])


def stats_weight(counts, K):
    """The (integer) weight of a data set from its statistics: the sum of the class counts, or W."""
    return (weight_stats if _is_float(counts) else weight_counts)(counts, K)


@overload(stats_weight)
def _stats_weight(counts, K):
    return _by_dtype(counts, weight_stats, weight_counts)


@njit
def singles_counts(pool, start, length, rowptr, rowfeat, label, weight, rstat, out):
    out[:, :] = 0
    for t in range(start, start + length):
        r = pool[t]
        c = label[r]
        w = weight[r]
        for a in range(rowptr[r], rowptr[r + 1]):
            out[c, rowfeat[a]] += w


@njit
def singles_stats(pool, start, length, rowptr, rowfeat, label, weight, rstat, out):
    out[:, :] = 0.0
    K = out.shape[0]
    for t in range(start, start + length):
        r = pool[t]
        for a in range(rowptr[r], rowptr[r + 1]):
            f = rowfeat[a]
            for c in range(K):
                out[c, f] += rstat[r, c]


def single_counts(pool, start, length, rowptr, rowfeat, label, weight, rstat, out):
    """out[c, f] = statistic c of the rows of the data set that contain f: FQ^c(f) of Alg. 4 phase 1 (class-c
    weight), or the sums (W, S, Q) of those rows for regression."""
    impl = singles_stats if _is_float(out) else singles_counts
    impl(pool, start, length, rowptr, rowfeat, label, weight, rstat, out)


@overload(single_counts)
def _single_counts(pool, start, length, rowptr, rowfeat, label, weight, rstat, out):
    return _by_dtype(out, singles_stats, singles_counts)


@njit
def rows_counts(pool, start, length, label, weight, rstat, out):
    out[:] = 0
    for t in range(start, start + length):
        r = pool[t]
        out[label[r]] += weight[r]


@njit
def rows_stats(pool, start, length, label, weight, rstat, out):
    out[:] = 0.0
    for t in range(start, start + length):
        r = pool[t]
        for c in range(out.shape[0]):
            out[c] += rstat[r, c]


def rows_total(pool, start, length, label, weight, rstat, out):
    """out = the statistics of the rows ``pool[start:start+length]``."""
    (rows_stats if _is_float(out) else rows_counts)(pool, start, length, label, weight, rstat, out)


@overload(rows_total)
def _rows_total(pool, start, length, label, weight, rstat, out):
    return _by_dtype(out, rows_stats, rows_counts)


@njit
def gain_gini(fc, cls, W, K, f):
    """Gini gain I(D) - sum_side |side|/|D| I(side), I = 1 - sum p^2 (§4.8); -1 for a degenerate split."""
    wr = 0
    for c in range(K):
        wr += fc[c, f]
    wl = W - wr
    if wr == 0 or wl == 0:
        return -1.0
    base = 1.0
    il = 1.0
    ir = 1.0
    for c in range(K):
        p = cls[c] / W
        base -= p * p
        pr = fc[c, f] / wr
        pl = (cls[c] - fc[c, f]) / wl
        ir -= pr * pr
        il -= pl * pl
    return base - (wl * il + wr * ir) / W


@njit
def gain_sse(fc, cls, W, K, f):
    """Squared-error decrease SSE(D) - SSE(D(not f)) - SSE(D(f)) (CART's criterion); -1 if degenerate."""
    wr = fc[0, f]
    if wr <= 0.0 or wr >= cls[0]:
        return -1.0
    right = 0.0
    left = 0.0
    for o in range(1, K - 1):
        sr = fc[o, f]
        sl = cls[o] - sr
        right += sr * sr / wr
        left += sl * sl / (cls[0] - wr)
    base = 0.0
    for o in range(1, K - 1):
        base += cls[o] * cls[o] / cls[0]
    return right + left - base


def split_gain(fc, cls, W, K, f):
    """How good feature f is as a split, from the single statistics: the Gini gain (classification) or the
    squared-error decrease (regression); -1 for a split that leaves one side empty."""
    return (gain_sse if _is_float(fc) else gain_gini)(fc, cls, W, K, f)


@overload(split_gain)
def _split_gain(fc, cls, W, K, f):
    return _by_dtype(fc, gain_sse, gain_gini)


@njit(inline="always")
def better(miss, nodes, miss2, nodes2, ap, aq):
    """Whether (miss, nodes) beats (miss2, nodes2): a smaller objective miss + (ap / aq) * nodes, then fewer
    nodes on ties."""
    a = aq * miss + ap * nodes
    b = aq * miss2 + ap * nodes2
    return a < b or (a == b and nodes < nodes2)


@njit(inline="always")
def sparse_ub_int(miss, nodes, budget, ap, aq, tie):
    num = aq * miss + ap * nodes - ap * budget
    if budget < nodes:
        return num // aq
    if num <= 0:
        return -1
    return (num + aq - 1) // aq - 1


@njit(inline="always")
def sparse_ub_float(miss, nodes, budget, ap, aq, tie):
    num = (aq * miss + ap * nodes - ap * budget) / aq
    return num if budget < nodes else num - tie


def sparse_ub(miss, nodes, budget, ap, aq, tie):
    """Algorithm 6's UB for the query with ``budget`` nodes, given the best tree (miss, nodes) so far.

    A tree with k <= budget nodes and cost c has objective c + alpha * k <= c + alpha * budget, so
    c <= (best - alpha * budget) keeps every tree at least as good as the best; below the best tree's size
    ties are kept (they have fewer nodes), from its size on a strict improvement is asked (UB = ... - 1, or
    ... - TIE for squared errors). This makes the result the smallest tree among the optimal ones.
    """
    return (sparse_ub_float if isinstance(miss, float) else sparse_ub_int)(miss, nodes, budget, ap, aq, tie)


@overload(sparse_ub)
def _sparse_ub(miss, nodes, budget, ap, aq, tie):
    impl = sparse_ub_float if isinstance(miss, types.Float) else sparse_ub_int
    return impl.py_func


@njit(inline="always")
def probe_step_int(gap, tie):
    return max(gap // 8, tie)


@njit(inline="always")
def probe_step_float(gap, tie):
    return max(gap / 8, tie)


def probe_step(gap, tie):
    """The first step of lower-bound probing: an eighth of the gap between the incumbent and the bound."""
    return (probe_step_float if isinstance(gap, float) else probe_step_int)(gap, tie)


@overload(probe_step)
def _probe_step(gap, tie):
    impl = probe_step_float if isinstance(gap, types.Float) else probe_step_int
    return impl.py_func


@njit(inline="always")
def open_plain_query(ccost, regc, tie, probe):
    """Set the UB of a plain root query: a strict improvement on the best tree known (its cost - tie); with
    ``probe`` (bound probing at the full query), at most the root's lower bound plus the first probe step."""
    regc[RC_UB] = ccost[CC_G_MISS] - tie
    if probe:
        ccost[CC_Q_COST] = probe_step(ccost[CC_G_MISS] - ccost[CC_LOWER], tie)
        regc[RC_UB] = min(regc[RC_UB], ccost[CC_LOWER] + ccost[CC_Q_COST] - tie)
        ccost[CC_PROBE_UB] = regc[RC_UB]


@njit
def heap_clear(arr, off, pos, depth):
    """Set the heap subtree rooted at ``pos`` (``depth`` levels) of ``arr[off:]`` to leaves (-1)."""
    width = 1
    base = pos
    for _ in range(depth):
        for o in range(width):
            arr[off + base + o] = -1
        base = 2 * base + 1
        width *= 2


@njit
def heap_embed(src, soff, sdepth, dst, doff, pos):
    """Copy the first ``sdepth`` levels of the heap tree ``src[soff:]`` under node ``pos`` of ``dst[doff:]``."""
    width = 1
    base = pos
    h = 0
    for _ in range(sdepth):
        for o in range(width):
            dst[doff + base + o] = src[soff + h]
            h += 1
        base = 2 * base + 1
        width *= 2


@njit
def heap_depth(arr, off, depth):
    """Actual depth of the heap tree ``arr[off:]`` laid out with ``depth`` levels (0 for a leaf)."""
    actual = 0
    width = 1
    h = 0
    for level in range(depth):
        for _ in range(width):
            if arr[off + h] >= 0:
                actual = level + 1
            h += 1
        width *= 2
    return actual


# ------------------------------------------------------------------------------------------------------
# cache (§4.6): open addressing over dataset (or branch) keys, entries per (depth, nodes) slot
# ------------------------------------------------------------------------------------------------------
@njit
def cache_find(htab, meta, keys, src, off, length, h):
    """Index of the cached key ``src[off:off+length]`` with hash ``h``, or -1 (ids compared on a hit)."""
    mask = htab.shape[0] - 1
    pos = h & mask
    while True:
        e = htab[pos]
        if e == 0:
            return -1
        ci = e - 1
        if meta[ci, M_HASH] == h and meta[ci, M_LEN] == length:
            ks = meta[ci, M_KEY]
            same = True
            for t in range(length):
                if keys[ks + t] != src[off + t]:
                    same = False
                    break
            if same:
                return ci
        pos = (pos + 1) & mask


@njit(inline="always")
def cache_insert(state, src, off, length, h):
    """Add a new key ``src[off:off+length]`` with hash ``h`` (room was checked before the iteration) and return
    its index."""
    counters, meta, keys, htab = state.counters, state.meta, state.keys, state.htab
    ci = counters[C_NDS]
    counters[C_NDS] = ci + 1
    ks = counters[C_KEYS_USED]
    for t in range(length):
        keys[ks + t] = src[off + t]
    counters[C_KEYS_USED] = ks + length
    meta[ci, M_HASH] = h
    meta[ci, M_LEN] = length
    meta[ci, M_KEY] = ks
    state.ent_lb[ci, :] = 0
    state.ent_cost[ci, :] = -1
    state.ent_tree[ci, :] = -1
    mask = htab.shape[0] - 1
    pos = h & mask
    while htab[pos] != 0:
        pos = (pos + 1) & mask
    htab[pos] = ci + 1
    return ci


@njit
def rehash(htab, meta, n_ds):
    """Rebuild the open-addressing table after it was enlarged."""
    htab[:] = 0
    mask = htab.shape[0] - 1
    for ci in range(n_ds):
        pos = meta[ci, M_HASH] & mask
        while htab[pos] != 0:
            pos = (pos + 1) & mask
        htab[pos] = ci + 1


@njit
def raise_lb(lbrow, slot, value, dom):
    """Store ``value`` as a lower bound of budget ``slot`` and of every smaller budget (Prop. 11)."""
    for t in range(lbrow.shape[0]):
        if dom[slot, t] and lbrow[t] < value:
            lbrow[t] = value


@njit(inline="always")
def store_optimum(data, state, ci, slot, cost, nodes, adepth, tree_code):
    """Scenario 1 of §4.6.3: the optimum of (d, n) is also optimal for budgets (d', n') with
    nodes <= n' <= n and actual depth <= d' <= d (Prop. 10); its cost bounds every smaller budget."""
    slot_d, slot_n, dom = data.slot_d, data.slot_n, data.dom
    ent_lb, ent_cost, ent_tree = state.ent_lb, state.ent_cost, state.ent_tree
    d = slot_d[slot]
    n = slot_n[slot]
    for t in range(slot_d.shape[0]):
        if dom[slot, t]:
            if ent_lb[ci, t] < cost:
                ent_lb[ci, t] = cost
            if slot_n[t] >= nodes and slot_d[t] >= adepth and slot_n[t] <= n and slot_d[t] <= d:
                ent_cost[ci, t] = cost
                ent_tree[ci, t] = tree_code


@njit
def tpool_put(tpool, counters, src, soff, adepth):
    """Append a heap tree of ``adepth`` levels; return its code (offset * 32 + depth, -1 for a leaf)."""
    if adepth == 0:
        return -1
    p = counters[C_TP_USED]
    size = (1 << adepth) - 1
    for h in range(size):
        tpool[p + h] = src[soff + h]
    counters[C_TP_USED] = p + size
    return p * 32 + adepth


@njit
def tree_from_code(tpool, code, dst, depth):
    """Write the stored tree ``code`` into ``dst`` laid out with ``depth`` levels."""
    heap_clear(dst, np.int64(0), np.int64(0), depth)
    if code >= 0:
        heap_embed(tpool, code // 32, min(code % 32, depth), dst, np.int64(0), np.int64(0))


# ------------------------------------------------------------------------------------------------------
# data passes
# ------------------------------------------------------------------------------------------------------
@njit
def partition(pool, start, length, cbase, Xc, f, zob, want_hash, scratch):
    """Stable split of ``pool[start:start+length]`` by feature f into ``pool[cbase:]``: rows with f = 0
    first, then rows with f = 1 (both stay sorted). Returns (number of f = 0 rows, hash of the f = 1 rows)."""
    nl = 0
    nr = 0
    hr = 0
    col = Xc[f]
    for t in range(start, start + length):
        r = pool[t]
        if col[r] == 0:
            pool[cbase + nl] = r
            nl += 1
        else:
            scratch[nr] = r
            nr += 1
            if want_hash:
                hr += zob[r]
    for t in range(nr):
        pool[cbase + nl + t] = scratch[t]
    return nl, hr




@njit
def sorted_diff(old, olen, pool, start, length, din, dout, limit, weight):
    """Compare a stored dataset ``old[:olen]`` with ``pool[start:start+length]`` by one merge of sorted ids
    (Observation 1, Prop. 7): returns (|D_in|, |D_out|, weight of D_out), or (-1, -1, _) as soon as
    |D_in| + |D_out| reaches ``limit``. With non-empty ``din`` and ``dout`` the ids of D_in and D_out are
    written there instead of weighing D_out (the counters' use; the similarity bound weighs)."""
    record = din.shape[0] > 0
    i = 0
    j = 0
    nin = 0
    nout = 0
    wout = 0
    while i < olen:
        a = old[i]
        if j < length and pool[start + j] <= a:
            if pool[start + j] < a:  # in D_new only
                if record:
                    din[nin] = pool[start + j]
                nin += 1
            else:
                i += 1
            j += 1
        else:  # in D_old only
            if record:
                dout[nout] = a
            else:
                wout += weight[a]
            nout += 1
            i += 1
        if nin + nout >= limit:
            return -1, -1, wout
    if record:
        for t in range(length - j):
            din[nin + t] = pool[start + j + t]
    nin += length - j
    if nin + nout >= limit:
        return -1, -1, wout
    return nin, nout, wout


@njit
def count_rows_counts(fq, base, ids, off, cnt, sign, rowptr, rowfeat, label, weight, rstat, F, FF):
    for t in range(off, off + cnt):
        r = ids[t]
        w = sign * weight[r]
        cb = base + label[r] * FF
        a1 = rowptr[r + 1]
        for a in range(rowptr[r], a1):
            row = cb + rowfeat[a] * F
            for b in range(a, a1):
                fq[row + rowfeat[b]] += w


@njit
def count_rows_stats(fq, base, ids, off, cnt, sign, rowptr, rowfeat, label, weight, rstat, F, FF):
    K = rstat.shape[1]
    for t in range(off, off + cnt):
        r = ids[t]
        a0 = rowptr[r]
        a1 = rowptr[r + 1]
        for c in range(K):
            w = sign * rstat[r, c]
            cb = base + c * FF
            for a in range(a0, a1):
                row = cb + rowfeat[a] * F
                for b in range(a, a1):
                    fq[row + rowfeat[b]] += w


def count_rows(fq, base, ids, off, cnt, sign, rowptr, rowfeat, label, weight, rstat, F, FF):
    """Add (sign = 1) or remove (sign = -1) rows to a counter: FQ^c(f_i, f_j) for i <= j (Alg. 4 l. 2-9,
    Observations 2-5), per class (int32) or per statistic W, S_o, Q (float64, regression). The diagonal holds
    the single counts FQ^c(f_i)."""
    impl = count_rows_stats if _is_float(fq) else count_rows_counts
    impl(fq, base, ids, off, cnt, sign, rowptr, rowfeat, label, weight, rstat, F, FF)


@overload(count_rows)
def _count_rows(fq, base, ids, off, cnt, sign, rowptr, rowfeat, label, weight, rstat, F, FF):
    return _by_dtype(fq, count_rows_stats, count_rows_counts)


@njit(inline="always")
def add_max(total, mx, v):
    """One class count into a cell's running (total, largest count): the cell then costs total - largest."""
    return total + v, (v if v > mx else mx)


@njit(inline="always")
def side_counts(single, cls, i, K):
    tl = 0
    ml = 0
    tr = 0
    mr = 0
    for c in range(K):
        tl, ml = add_max(tl, ml, cls[c] - single[c, i])
        tr, mr = add_max(tr, mr, single[c, i])
    return tl - ml, tr - mr


@njit(inline="always")
def side_stats(single, cls, i, K):
    wr = single[0, i]
    wl = cls[0] - wr
    left = cls[K - 1] - single[K - 1, i]
    right = single[K - 1, i]
    for o in range(1, K - 1):
        sr = single[o, i]
        sl = cls[o] - sr
        if wr > 0.0:
            right -= sr * sr / wr
        if wl > 0.0:
            left -= sl * sl / wl
    return (left if left > 0.0 else 0.0), (right if right > 0.0 else 0.0)


def side_costs(single, cls, i, K):
    """(leaf(D(not f_i)), leaf(D(f_i))) from the single statistics of f_i and the data set's statistics."""
    return (side_stats if _is_float(single) else side_counts)(single, cls, i, K)


@overload(side_costs)
def _side_costs(single, cls, i, K):
    return _by_dtype(single, side_stats, side_counts)


@njit
def active_features(fq, base, K, F, W, diag, act):
    """Copy the diagonal (single statistics) of a counter into ``diag``; list the features that split the
    data set (present in some rows, not all) in ``act``; return how many there are."""
    FF = F * F
    nact = 0
    for i in range(F):
        for c in range(K):
            diag[c, i] = fq[base + c * FF + i * F + i]
        w = stats_weight(diag[:, i], K)
        if w > 0 and w < W:
            act[nact] = i
            nact += 1
    return nact


@njit(inline="always")
def set_tree(out, outc, b, cost, nodes, root, left, right):
    """Record the depth-two tree ``b`` (the best with b + 1 nodes): cost, node count, root and children."""
    outc[b] = cost
    out[b, O_NODES] = nodes
    out[b, O_ROOT] = root
    out[b, O_LEFT] = left
    out[b, O_RIGHT] = right


@njit
def budget_trees(act, nact, leaf, d2, d2f, out, outc, tie):
    """The best depth-two trees with 1, 2 and 3 feature nodes from the per-root arrays of Algorithm 4
    (``d2`` = leaf(D(not f)), leaf(D(f)), BestLeft, BestRight; ``d2f`` = the best left and right child
    features, -1 for a leaf). Each budget starts from the smaller budget's optimum and takes a tree only if it
    improves on it by TIE, so ties prefer fewer nodes (lexicographic, §4.4)."""
    leafl = d2[0]
    leafr = d2[1]
    bl = d2[2]
    br = d2[3]
    blf = d2f[0]
    brf = d2f[1]
    # 1 node: min_i leaf(D(not f_i)) + leaf(D(f_i))
    set_tree(out, outc, 0, leaf, 0, -1, -1, -1)
    for a in range(nact):
        i = act[a]
        v = leafl[i] + leafr[i]
        if v <= outc[0] - tie:
            set_tree(out, outc, 0, v, 1, i, -1, -1)
    # 2 nodes: a root with one feature child
    outc[1] = outc[0]
    copy_flat(out[1], out[0])
    for a in range(nact):
        i = act[a]
        if blf[i] >= 0 and bl[i] + leafr[i] <= outc[1] - tie:
            set_tree(out, outc, 1, bl[i] + leafr[i], 2, i, blf[i], -1)
        if brf[i] >= 0 and leafl[i] + br[i] <= outc[1] - tie:
            set_tree(out, outc, 1, leafl[i] + br[i], 2, i, -1, brf[i])
    # 3 nodes: min_i BestLeft[i] + BestRight[i]
    outc[2] = outc[1]
    copy_flat(out[2], out[1])
    for a in range(nact):
        i = act[a]
        if blf[i] >= 0 and brf[i] >= 0 and bl[i] + br[i] <= outc[2] - tie:
            set_tree(out, outc, 2, bl[i] + br[i], 3, i, blf[i], brf[i])


@njit
def init_roots(act, nact, cls, K, diag, d2, d2f):
    """Per active root f_i: its two leaf costs, and BestLeft / BestRight starting at those leaves."""
    for a in range(nact):
        i = act[a]
        cl, cr = side_costs(diag, cls, i, K)
        d2[0, i] = cl
        d2[1, i] = cr
        d2[2, i] = cl
        d2[3, i] = cr
        d2f[0, i] = -1
        d2f[1, i] = -1


@njit(inline="always")
def keep(best, bestf, v, f, tie):
    """BestLeft / BestRight update (Alg. 4 l. 14-17): (v, f) if child f's cost v beats the best by TIE, else the
    best (scalars only: helpers that take the arrays cost a third of the pair loop's speed)."""
    if v <= best - tie:
        return v, f
    return best, bestf


@njit(inline="always")
def update_pair(i, j, aa, bb, cc, e, bl, blf, br, brf, tie):
    """Phase 2 of Algorithm 4 for the pair i < j, from the costs of its four cells (not f_i, not f_j), (not f_i,
    f_j), (f_i, not f_j), (f_i, f_j): Eq. 7-8 for root i with child j and root j with child i, both sides."""
    bl[i], blf[i] = keep(bl[i], blf[i], aa + bb, j, tie)
    br[i], brf[i] = keep(br[i], brf[i], cc + e, j, tie)
    bl[j], blf[j] = keep(bl[j], blf[j], aa + cc, i, tie)
    br[j], brf[j] = keep(br[j], brf[j], bb + e, i, tie)


@njit
def pairs_counts(fq, base, K, F, cls, diag, act, nact, d2, d2f, tie):
    FF = F * F
    bl = d2[2]
    br = d2[3]
    blf = d2f[0]
    brf = d2f[1]
    if K == 2:
        n0 = cls[0]
        n1 = cls[1]
        b0 = base
        b1 = base + FF
        for a in range(nact):
            i = act[a]
            si0 = diag[0, i]
            si1 = diag[1, i]
            bli = bl[i]
            blfi = blf[i]
            bri = br[i]
            brfi = brf[i]
            r0 = b0 + i * F
            r1 = b1 + i * F
            for b in range(a + 1, nact):
                j = act[b]
                p0 = fq[r0 + j]
                p1 = fq[r1 + j]
                sj0 = diag[0, j]
                sj1 = diag[1, j]
                e = min(p0, p1)  # (f_i, f_j)
                cc = min(si0 - p0, si1 - p1)  # (f_i, not f_j)
                bb = min(sj0 - p0, sj1 - p1)  # (not f_i, f_j)
                aa = min(n0 - si0 - sj0 + p0, n1 - si1 - sj1 + p1)  # (not f_i, not f_j)
                bli, blfi = keep(bli, blfi, aa + bb, j, 1)  # root i's best children stay in registers
                bri, brfi = keep(bri, brfi, cc + e, j, 1)
                bl[j], blf[j] = keep(bl[j], blf[j], aa + cc, i, 1)
                br[j], brf[j] = keep(br[j], brf[j], bb + e, i, 1)
            bl[i] = bli
            blf[i] = blfi
            br[i] = bri
            brf[i] = brfi
    else:
        for a in range(nact):
            i = act[a]
            for b in range(a + 1, nact):
                j = act[b]
                ta = 0
                ma = 0
                tb = 0
                mb = 0
                tc = 0
                mc = 0
                te = 0
                me = 0
                for c in range(K):
                    p = fq[base + c * FF + i * F + j]
                    ta, ma = add_max(ta, ma, cls[c] - diag[c, i] - diag[c, j] + p)
                    tb, mb = add_max(tb, mb, diag[c, j] - p)
                    tc, mc = add_max(tc, mc, diag[c, i] - p)
                    te, me = add_max(te, me, p)
                update_pair(i, j, ta - ma, tb - mb, tc - mc, te - me, bl, blf, br, brf, 1)


@njit(inline="always")
def cell_sse(w, s2, q):
    if w <= 0.0:
        return 0.0
    v = q - s2 / w
    return v if v > 0.0 else 0.0


@njit
def pairs_stats(fq, base, K, F, cls, diag, act, nact, d2, d2f, tie):
    FF = F * F
    q = K - 1
    for a in range(nact):
        i = act[a]
        ri = base + i * F
        for b in range(a + 1, nact):
            j = act[b]
            # W and Q of the four cells by inclusion-exclusion (Eq. 2-5), then the sum of S_o^2 per cell
            pw = fq[ri + j]
            wa = cls[0] - diag[0, i] - diag[0, j] + pw
            wb = diag[0, j] - pw
            wc = diag[0, i] - pw
            pq = fq[q * FF + ri + j]
            qa = cls[q] - diag[q, i] - diag[q, j] + pq
            qb = diag[q, j] - pq
            qc = diag[q, i] - pq
            sa = 0.0
            sb = 0.0
            sc = 0.0
            se = 0.0
            for o in range(1, q):
                p = fq[o * FF + ri + j]
                va = cls[o] - diag[o, i] - diag[o, j] + p
                vb = diag[o, j] - p
                vc = diag[o, i] - p
                sa += va * va
                sb += vb * vb
                sc += vc * vc
                se += p * p
            update_pair(i, j, cell_sse(wa, sa, qa), cell_sse(wb, sb, qb), cell_sse(wc, sc, qc), cell_sse(pw, se, pq),
                        d2[2], d2f[0], d2[3], d2f[1], tie)


def pair_scores(fq, base, K, F, cls, diag, act, nact, d2, d2f, tie):
    """The pair loop of Algorithm 4 (phase 2) over the active features i < j: the four cells of every pair by
    Eq. 2-5, their costs (Eq. 6: misclassifications, or the cell's squared error), and BestLeft / BestRight
    of both roots by Eq. 7-8."""
    impl = pairs_stats if _is_float(fq) else pairs_counts
    impl(fq, base, K, F, cls, diag, act, nact, d2, d2f, tie)


@overload(pair_scores)
def _pair_scores(fq, base, K, F, cls, diag, act, nact, d2, d2f, tie):
    return _by_dtype(fq, pairs_stats, pairs_counts)


@njit(inline="always")
def depth_two_scores(state, base, K, F, cls, W, out, outc, tie):
    """Phase 2 of Algorithm 4 on one counter: the best trees with 1, 2 and 3 feature nodes.

    Cells follow Eq. 2-5, cell costs Eq. 6 (or the cell's SSE), subtree costs Eq. 7-8; the pair loop runs over
    i < j and updates (root i, child j) and (root j, child i) on both sides. A child feature is kept only if it
    beats the leaf by TIE, and the 2-node (3-node) search starts from the 1-node (2-node) optimum, so ties
    prefer fewer nodes (lexicographic, §4.4). ``out[b] = (nodes, root, left, right)``, ``outc[b]`` = cost.
    """
    nact = active_features(state.fq, base, K, F, W, state.diag, state.act)
    init_roots(state.act, nact, cls, K, state.diag, state.d2, state.d2f)
    pair_scores(state.fq, base, K, F, cls, state.diag, state.act, nact, state.d2, state.d2f, tie)
    budget_trees(state.act, nact, leaf_cost(cls, K), state.d2, state.d2f, out, outc, tie)


@njit(inline="always")
def depth_two(data, state, start, length, cls, W, K, F, incremental, tie):
    """The specialised depth-two solver (Algorithm 4) with incremental counting (§4.4.3).

    Two counters each remember the dataset they counted. The one with the smaller |D_in| + |D_out| is
    updated incrementally when that difference is below |D| (Prop. 8), otherwise it is recounted from
    scratch; no difference returns its previous output. Returns (counter slot, counting mode).
    """
    pool, fq, cnt_ids, cnt_meta, din, dout, counters = (state.pool, state.fq, state.cnt_ids, state.cnt_meta,
                                                         state.din, state.dout, state.counters)
    rowptr, rowfeat, label, weight, rstat = data.rowptr, data.rowfeat, data.label, data.weight, data.rstat
    FF = F * F
    slot = -1
    nin = -1
    nout = -1
    if incremental:
        limit = length
        for s in range(2):
            if cnt_meta[s, 0] < 0:
                continue
            a, b, _ = sorted_diff(cnt_ids[s], cnt_meta[s, 0], pool, start, length, din[s], dout[s], limit, weight)
            if a >= 0:
                slot = s
                nin = a
                nout = b
                limit = a + b
        if slot >= 0 and nin + nout == 0:
            counters[C_D2_SAME] += 1
            return slot, COUNT_UNCHANGED
    mode = COUNT_INCREMENTAL
    if slot < 0:
        mode = COUNT_SCRATCH
        slot = 0
        if incremental:  # overwrite an empty counter, else the older one
            if cnt_meta[0, 0] >= 0:
                slot = 1 if cnt_meta[1, 0] < 0 else (1 if cnt_meta[0, 1] > cnt_meta[1, 1] else 0)
    base = slot * K * FF
    if mode == COUNT_SCRATCH:
        fq[base:base + K * FF] = 0
        count_rows(fq, base, pool, start, length, np.int64(1), rowptr, rowfeat, label, weight, rstat, F, FF)
        counters[C_D2_SCRATCH] += 1
        counters[C_D2_UPDATES] += length
    else:
        count_rows(fq, base, dout[slot], np.int64(0), nout, np.int64(-1), rowptr, rowfeat, label, weight, rstat, F, FF)
        count_rows(fq, base, din[slot], np.int64(0), nin, np.int64(1), rowptr, rowfeat, label, weight, rstat, F, FF)
        counters[C_D2_INCREMENTAL] += 1
        counters[C_D2_UPDATES] += nin + nout
    ids = cnt_ids[slot]
    for t in range(length):
        ids[t] = pool[start + t]
    cnt_meta[slot, 0] = length
    cnt_meta[slot, 1] = counters[C_D2]  # age, for choosing which counter to overwrite
    depth_two_scores(state, base, K, F, cls, W, state.cnt_out[slot], state.cnt_cost[slot], tie)
    return slot, mode


@njit(inline="always")
def stump(data, state, start, length, cls, W, K, F, tie):
    """Depth one (one node) from single statistics only: min_i leaf(D(not f_i)) + leaf(D(f_i)), written as the
    1-node tree of output slot 2 (``cnt_out[2]``, ``cnt_cost[2]``)."""
    sing = state.sing
    single_counts(state.pool, start, length, data.rowptr, data.rowfeat, data.label, data.weight, data.rstat, sing)
    best = leaf_cost(cls, K)
    root = -1
    for i in range(F):
        w = stats_weight(sing[:, i], K)
        if w == 0 or w == W:
            continue
        cl, cr = side_costs(sing, cls, i, K)
        v = cl + cr
        if v <= best - tie:
            best = v
            root = i
    set_tree(state.cnt_out[2], state.cnt_cost[2], 0, best, 0 if root < 0 else 1, root, -1, -1)


@njit(inline="always")
def archive_update(data, state, d, start, length, W, sim0, sim1):
    """After a subtree of depth d was searched, its dataset replaces the more similar of the two archived
    at depth d (§4.5); ``state.lbrow`` holds its lower bounds per budget; ``sim0``, ``sim1``: the distances
    :func:`similarity_bound` measured (-1: not measured)."""
    arch_ids, arch_meta, pool, weight = state.arch_ids, state.arch_meta, state.pool, data.weight
    diffs = (sim0, sim1)
    s = -1
    for j in range(2):
        if arch_meta[d, j, 0] < 0:
            s = j
            break
    if s < 0:
        best = INF
        for j in range(2):
            dj = diffs[j]
            if dj < 0:
                a, b, _ = sorted_diff(arch_ids[d, j], arch_meta[d, j, 0], pool, start, length, weight[:0],
                                      weight[:0], INF, weight)
                dj = a + b
            if dj < best:
                best = dj
                s = j
    ids = arch_ids[d, s]
    for t in range(length):
        ids[t] = pool[start + t]
    arch_meta[d, s, 0] = length
    arch_meta[d, s, 1] = W
    copy_flat(state.arch_lb[d, s], state.lbrow)


@njit(inline="always")
def similarity_bound(data, state, d, slot, start, length, W):
    """Eq. 9 with the archived datasets' lower bounds: max_j LB(D_j) - w(D_j minus D) (Prop. 9).
    Returns (bound, weight of D_out for the best one); ``state.scratch[j]`` gets |D_in|+|D_out| (-1 if skipped)."""
    arch_meta, arch_lb, weight, diffs = state.arch_meta, state.arch_lb, data.weight, state.scratch
    best = 0
    wbest = 0
    for j in range(2):
        diffs[j] = -1
        olen = arch_meta[d, j, 0]
        if olen < 0:
            continue
        lbo = arch_lb[d, j, slot]
        if lbo <= 0 or arch_meta[d, j, 1] - W >= lbo:  # the bound cannot be positive
            continue
        a, b, wout = sorted_diff(state.arch_ids[d, j], olen, state.pool, start, length, weight[:0], weight[:0], INF,
                                 weight)
        diffs[j] = a + b
        if lbo - wout > best:
            best = lbo - wout
            wbest = wout
    return best, wbest


@njit
def gain_order(fc, cls, W, K, F, order):
    """Features by decreasing split gain (Gini gain, or squared-error decrease for regression; §4.8)."""
    gains = np.empty(F)
    for f in range(F):
        gains[f] = split_gain(fc, cls, W, K, f)
    idx = np.argsort(-gains, kind="mergesort")
    for t in range(F):
        order[t] = idx[t]


@njit
def greedy_tree(data, params, state, vec):
    """A greedy upper bound (the paper's remark that a CART tree can replace the leaf as the first UB).

    Nodes are split breadth first on the feature with the largest gain (:func:`split_gain`) while the node
    budget lasts; a node without cost or without a non-degenerate split with positive gain stays a leaf.
    Level L's row groups live in ``pool[L * n_rows:(L + 1) * n_rows]``. Writes the heap tree into
    ``state.rtree`` and returns (cost, feature nodes); ``vec`` is scratch for one data set's statistics.
    """
    pool, sing, out = state.pool, state.sing, state.rtree
    n_rows, depth, nodes, K, F = params.n_rows, params.max_depth, params.max_nodes, params.n_classes, params.n_features
    heap_clear(out, np.int64(0), np.int64(0), depth)
    size = (1 << (depth + 1)) - 1
    gstart = np.zeros(size, dtype=np.int64)
    glen = np.zeros(size, dtype=np.int64)
    glen[0] = n_rows
    cost = vec[0] * 0  # zero of the cost type
    used = 0
    for h in range(size):
        level = 0
        while (1 << (level + 1)) - 1 <= h:
            level += 1
        if glen[h] == 0:
            continue
        start = gstart[h]
        length = glen[h]
        rows_total(pool, start, length, data.label, data.weight, data.rstat, vec)
        leaf = leaf_cost(vec, K)
        best_f = -1
        if level < depth and used < nodes and leaf > 0:
            single_counts(pool, start, length, data.rowptr, data.rowfeat, data.label, data.weight, data.rstat, sing)
            W = stats_weight(vec, K)
            best_gain = 1e-12
            for f in range(F):
                gain = split_gain(sing, vec, W, K, f)
                if gain > best_gain:
                    best_gain = gain
                    best_f = f
        if best_f < 0:
            cost += leaf
            continue
        used += 1
        out[h] = best_f
        cbase = (level + 1) * n_rows + (start - level * n_rows)
        nl, _ = partition(pool, start, length, cbase, data.Xc, best_f, data.zob, np.bool_(False), state.scratch)
        gstart[2 * h + 1] = cbase
        glen[2 * h + 1] = nl
        gstart[2 * h + 2] = cbase + nl
        glen[2 * h + 2] = length - nl
    return cost, used


# ------------------------------------------------------------------------------------------------------
# the kernel's arguments: three named groups
# ------------------------------------------------------------------------------------------------------
#: Read-only options (int64): the budgets (D, N), K statistics per row, |F|, the rows, alpha = alpha_p / alpha_q,
#: the objective (``MODE_*``), the technique switches and ``events_per_iteration`` (room a kernel call keeps).
Params = namedtuple("Params", "max_depth max_nodes n_classes n_features n_rows alpha_p alpha_q mode cache similarity "
                              "incremental depth_two node_order feature_order events_per_iteration deepening greedy "
                              "probing")
#: Read-only arrays of the problem: the columns ``Xc[f]``, the rows as sparse feature lists (``rowptr``,
#: ``rowfeat``), labels, integer weights, regression statistics, Zobrist keys of rows and literals, and the
#: (depth, nodes) budget slots of the cache (``pair_slot[d, n]``, ``slot_d``, ``slot_n``, ``dom[s, t]``: budget t
#: lies within budget s).
Data = namedtuple("Data", "Xc rowptr rowfeat label weight rstat zob zlit pair_slot slot_d slot_n dom")
#: Everything the search writes (a stopped search resumes from it): the row pool (a stack of data sets) and
#: branch keys; the frames of Algorithm 2 (``frames``, ``fcost`` and per frame its statistics, single counts,
#: children's statistics, feature order, incumbent tree and first child's tree); the call / return register
#: (``reg``, ``regc``, ``reg_cls``, ``rtree``); the global incumbent ``gtree``; ``counters`` and ``ccost``
#: (indexed by ``C_*`` and ``CC_*``); the similarity archive (§4.5); the depth-two counters and their scratch
#: (§4.3-4.4); and the cache (§4.6: ``htab``, ``meta``, ``keys``, the entries ``ent_*`` and the tree pool).
State = namedtuple("State", "pool bkeys frames fcost fcls fcounts fchild forder ftree ctree rtree gtree reg regc "
                            "reg_cls counters ccost arch_ids arch_meta arch_lb lbrow fq cnt_ids cnt_meta cnt_out "
                            "cnt_cost din dout diag act d2 d2f sing scratch cand htab meta keys ent_lb ent_cost "
                            "ent_tree tpool")

#: A researcher's lower bound (:mod:`odtlab.bounds`) as the kernel sees it: ``fn``, the address of the compiled
#: ``fn(counts, d, n)`` (:func:`odtlab.core._jit.address_of`; the plain Python function without numba), called
#: only when ``on`` = 1; ``check`` = 1 stops the kernel after each call whose bound raised, so the solver can
#: verify it; ``log`` (int64, ``BL_*``) and ``value`` (float64[1]) describe the last such call. Without a bound, a
#: classification search passes a group with ``on`` = 0 (the same types: one compilation serves searches with
#: and without a bound) and a regression search passes ``None``.
UserBound = namedtuple("UserBound", "fn on check log value")
#: ``bound_at(bound.fn)``: the bound as a function the kernel calls (float64(int64[::1], int64, int64)).
bound_at = function_at(types.float64(types.int64[::1], types.int64, types.int64) if COMPILED else None)
BL_STATUS, BL_D, BL_N, BL_START, BL_LEN, BL_RAISES = range(6)
N_BOUND_LOG = 6
BOUND_NONE, BOUND_RAISED, BOUND_INVALID = 0, 1, 2


# ------------------------------------------------------------------------------------------------------
# pieces of the kernel
# ------------------------------------------------------------------------------------------------------
@njit(inline="always")
def stored_lb(ent_lb, cidx, pair_slot, d, n):
    """The cached lower bound of (D, d, n) (0 without a cache entry or for a leaf budget)."""
    if cidx >= 0 and d > 0 and n > 0:
        return ent_lb[cidx, pair_slot[d, n]]
    return ent_lb[0, 0] * 0


@njit(inline="always")
def child_lb(fr, fc, side, d, n_c, ent_lb, pair_slot):
    """A child's lower bound for n_c nodes (its leaf cost when it must be a leaf)."""
    d_c = min(d - 1, n_c)
    if d_c == 0:
        return fc[FC_CLEAF + side]
    return stored_lb(ent_lb, fr[FR_CHILD + side * CH_WIDTH + CH_CIDX], pair_slot, d_c, n_c)


@njit(inline="always")
def call_child(state, top, side, by_branch, n_c, ub):
    """Load the call register with the subtree problem of frame ``top``'s child ``side`` with n_c nodes."""
    fr = state.frames[top]
    reg = state.reg
    cb = FR_CHILD + side * CH_WIDTH
    reg[RG_START] = fr[cb + CH_START]
    reg[RG_LEN] = fr[cb + CH_LEN]
    reg[RG_W] = fr[cb + CH_W]
    reg[RG_HASH] = fr[cb + CH_HASH]
    reg[RG_KOFF] = fr[cb + CH_KOFF]
    reg[RG_KLEN] = fr[FR_KLEN] + 1 if by_branch else fr[cb + CH_LEN]
    reg[RG_KHASH] = fr[cb + CH_KHASH]
    reg[RG_CIDX] = fr[cb + CH_CIDX]
    reg[RG_D] = min(fr[FR_D] - 1, n_c)
    reg[RG_N] = n_c
    state.regc[RC_UB] = ub
    state.regc[RC_LEAF] = state.fcost[top, FC_CLEAF + side]
    for c in range(state.reg_cls.shape[0]):
        state.reg_cls[c] = state.fchild[top, side, c]


@njit(inline="always")
def branch_insert(bkeys, src, kl, lit, ko):
    """The child's branch key: the sorted literal set at ``bkeys[src:src+kl]`` with ``lit`` inserted."""
    t2 = 0
    placed = False
    for t in range(kl):
        v = bkeys[src + t]
        if not placed and lit < v:
            bkeys[ko + t2] = lit
            t2 += 1
            placed = True
        bkeys[ko + t2] = v
        t2 += 1
    if not placed:
        bkeys[ko + t2] = lit


@njit(inline="always")
def key_source(params, state):
    """Where cache keys live: the sorted literal sets of ``bkeys`` (branch cache, §4.6.1) or the sorted row ids
    of the pool (dataset cache, §4.6.2)."""
    return state.bkeys if params.cache == CACHE_BRANCH else state.pool


@njit(inline="always")
def store_depth_two(data, state, out, outc, nb, use_cache, cidx):
    """The depth-two solver's optima for 1, 2 and 3 nodes become lower bounds (``lbrow``) and cache entries."""
    lbrow, scratch = state.lbrow, state.scratch
    lbrow[:] = 0
    for b in range(nb):
        bslot = data.pair_slot[1 if b == 0 else 2, b + 1]
        if bslot < 0:
            continue
        raise_lb(lbrow, bslot, outc[b], data.dom)
        if use_cache:
            scratch[0] = out[b, O_ROOT]
            scratch[1] = out[b, O_LEFT]
            scratch[2] = out[b, O_RIGHT]
            adepth = heap_depth(scratch, np.int64(0), np.int64(2))
            code = tpool_put(state.tpool, state.counters, scratch, np.int64(0), adepth)
            store_optimum(data, state, cidx, bslot, outc[b], out[b, O_NODES], adepth, code)


def user_lower_bound(bound, state, d, nn, lb):
    """Algorithm 1 line 22 (the lower bound LB) with a researcher's bound: LB(D, d, n) = max(lb, ceil(fn(counts of
    D, d, n))) (a sound bound on integer misclassifications may be rounded up). A NaN or negative value, and in
    check mode every value that raised ``lb``, is logged in ``bound.log`` with its subproblem (its rows are
    ``pool[start:start+len]``), and the kernel stops after this iteration (:func:`bound_stop`). Returns the call's
    lower bound."""
    if bound is None or bound.on == 0:
        return lb
    return raise_by_user_bound(bound, state.reg_cls, state.reg, d, nn, lb)


@njit
def raise_by_user_bound(bound, reg_cls, reg, d, nn, lb):
    """:func:`user_lower_bound` with a bound (``bound.on`` = 1), on the call register's class counts ``reg_cls``
    and its rows ``reg`` (only these two arrays: a call that is not inlined increments the reference count of
    every array it is given)."""
    v = bound_at(bound.fn)(reg_cls, d, nn)
    log = bound.log
    if not v >= 0.0:  # NaN or negative: the solver raises, naming the subproblem
        log[BL_STATUS] = BOUND_INVALID
    elif v > lb:
        c = INF if v >= INF else np.int64(np.ceil(v))
        if c > lb:
            log[BL_RAISES] += 1
            lb = c
            if bound.check == 1:
                log[BL_STATUS] = BOUND_RAISED
    if log[BL_STATUS] != BOUND_NONE:
        bound.value[0] = v
        log[BL_D] = d
        log[BL_N] = nn
        log[BL_START] = reg[RG_START]
        log[BL_LEN] = reg[RG_LEN]
    return lb


# Not ``inline="always"``: numba 0.68.1 then miscompiled the kernel (the depth-two solver's incremental counting
# was never chosen: tests/test_golden.py -k MurTree failed compiled, passed as plain Python); as plain calls
# LLVM inlines them and the golden traces hold. Without a bound (None, or ``on`` = 0) the search pays one test.
@overload(user_lower_bound)
def _user_lower_bound(bound, state, d, nn, lb):
    if isinstance(bound, types.NoneType):
        return lambda bound, state, d, nn, lb: lb

    def with_group(bound, state, d, nn, lb):
        if bound.on == 0:
            return lb
        return raise_by_user_bound(bound, state.reg_cls, state.reg, d, nn, lb)
    return with_group


def bound_stop(bound):
    """True when the iteration logged a user bound's value for the solver (:func:`user_lower_bound`)."""
    return bound is not None and bound.log[BL_STATUS] != BOUND_NONE


@overload(bound_stop)
def _bound_stop(bound):
    if isinstance(bound, types.NoneType):
        return lambda bound: False
    return lambda bound: bound.log[BL_STATUS] != BOUND_NONE


# ------------------------------------------------------------------------------------------------------
# the phases of one iteration. Those that write events take the record level, the kernel's run-time argument,
# and test it before each event (one compilation serves the three levels). Every function that takes
# the State group and runs in each iteration is inlined: a call passes each of its arrays (hundreds of
# words), which made the search measurably slower when these were plain calls (bench_murtree.py --alone).
# ------------------------------------------------------------------------------------------------------
@njit(inline="always")
def start_search(data, params, state, events, level):
    """The search's first call: the root leaf (or the greedy tree) is the incumbent, and the first root query
    is loaded: Algorithm 6 starts at one node, Algorithm 7 at the full budget, a plain search at depth 1
    (iterative deepening, §4.9.5) or at the full depth. Each asks for a strict improvement on the best tree
    known, UB = its cost - 1, as the reference code's leaf - 1. Returns the number of events written."""
    counters, ccost, reg, regc = state.counters, state.ccost, state.reg, state.regc
    D, NN, ap, aq = params.max_depth, params.max_nodes, params.alpha_p, params.alpha_q
    tie = ccost[CC_TIE]
    counters[C_STARTED] = 1
    counters[C_TOP] = -1
    root_leaf = leaf_cost(state.reg_cls, params.n_classes)
    ccost[CC_ROOT_LEAF] = root_leaf
    ccost[CC_G_MISS] = root_leaf
    counters[C_G_NODES] = 0
    ccost[CC_LOWER] = min(aq * root_leaf, ap) if params.mode == MODE_SPARSE else 0
    heap_clear(state.gtree, np.int64(0), np.int64(0), D)
    if params.greedy == 1:
        gm, gn = greedy_tree(data, params, state, state.reg_cls.copy())
        if better(gm, gn, root_leaf, 0, ap, aq):
            ccost[CC_G_MISS] = gm
            counters[C_G_NODES] = gn
            heap_embed(state.rtree, np.int64(0), D, state.gtree, np.int64(0), np.int64(0))
    counters[C_Q_STAGE] = 0
    if params.mode == MODE_PLAIN:
        q = 1 if params.deepening == 1 else D
        qn = min(NN, (1 << q) - 1)
        qd = min(q, qn)
        counters[C_Q_DEPTH] = q
        open_plain_query(ccost, regc, tie, params.probing == 1 and qd == D and qn == NN)
    elif params.mode == MODE_SPARSE:
        qn = 1
        qd = 1
        regc[RC_UB] = sparse_ub(ccost[CC_G_MISS], counters[C_G_NODES], qn, ap, aq, tie)
    else:
        qn = NN
        qd = min(D, NN)
        regc[RC_UB] = ccost[CC_G_MISS] - tie
    counters[C_Q_N] = qn
    reg[RG_D] = qd
    reg[RG_N] = qn
    reg[RG_CIDX] = -2
    k = 0
    if level >= ev.LEVEL_SUMMARY:
        k = ev.emit_search_started(events, k, 0, depth=D, lower=ccost[CC_LOWER] / aq,
                                   upper=ccost[CC_G_MISS] + ap * counters[C_G_NODES] / aq,
                                   i0=params.n_rows, i1=NN, i2=counters[C_ROOT_W])
    return k


@njit(inline="always")
def room_to_grow(params, state):
    """The cache arrays that may run out of room during the next iteration (``GROW_*`` flags, 0: none)."""
    counters, D = state.counters, params.max_depth
    grow = 0
    if 2 * (counters[C_NDS] + D + 3) > state.htab.shape[0] or counters[C_NDS] + D + 3 > state.meta.shape[0]:
        grow |= GROW_CACHE
    if counters[C_KEYS_USED] + (D + 3) * params.n_rows > state.keys.shape[0]:
        grow |= GROW_KEYS
    if counters[C_TP_USED] + (D + 3) * (state.gtree.shape[0] + 3) > state.tpool.shape[0]:
        grow |= GROW_TPOOL
    return grow


@njit(inline="always")
def cache_lookup(params, state):
    """The call's cache entry (§4.6): the one its parent found when it split, or, for a root query (-2), the
    one found now by the key's hash; -1 when the key is not cached."""
    reg = state.reg
    cidx = reg[RG_CIDX]
    if params.cache != CACHE_NONE and cidx == -2:
        cidx = cache_find(state.htab, state.meta, state.keys, key_source(params, state), reg[RG_KOFF], reg[RG_KLEN],
                          reg[RG_KHASH])
    return cidx


@njit(inline="always")
def solve_subtree(data, params, state, events, k, it, level, use_sim, bound):
    """Algorithm 1 (SolveSubtree) on the call register (D, d, n, UB): resolved at once when UB < 0 (lines 2-3), n
    or d is 0 (a leaf, lines 4-8), the cache holds the optimum (lines 9-14), the lower bound (cached, raised by the
    similarity bound, lines 15-22) exceeds UB (lines 23-24) or meets the leaf (lines 25-26), or d <= 2 (lines
    27-32, Algorithm 4); else a general-case frame is opened (line 33, Algorithm 2). Returns (events written so
    far, resolved)."""
    reg, regc, counters = state.reg, state.regc, state.counters
    d = reg[RG_D]
    nn = reg[RG_N]
    ub = regc[RC_UB]
    leaf = regc[RC_LEAF]
    counters[C_CALLS] += 1
    cidx = cache_lookup(params, state)
    top = counters[C_TOP]
    if level >= ev.LEVEL_FULL:
        # the literal that leads here from the parent frame: its feature and the side (0 absent, 1 present)
        pf = state.frames[top, FR_F] if top >= 0 else -1
        ps = 0
        if top >= 0:
            fr = state.frames[top]
            ps = fr[FR_FIRST] if fr[FR_PHASE] == PH_FIRST else 1 - fr[FR_FIRST]
        stored = stored_lb(state.ent_lb, cidx, data.pair_slot, d, nn)
        k = emit_subtree_entered(events, k, it, d=d, side=ps, level=top + 1, parent=top, feature=pf,
                                 leaf=float(leaf), ub=float(ub), lb=float(stored), n_rows=reg[RG_LEN], nodes=nn,
                                 weight=reg[RG_W])
    reg[RT_CIDX] = cidx
    reg[RT_NODES] = 0
    if ub < 0:
        lb = stored_lb(state.ent_lb, cidx, data.pair_slot, d, nn)
        regc[RC_COST] = INF
        regc[RC_LB] = lb
        counters[C_LB_PRUNES] += 1
        if level >= ev.LEVEL_FULL:
            k = emit_lower_bound_prune(events, k, it, d=d, negative_ub=1, level=top + 1, parent=top, ub=float(ub),
                                       lb=float(lb), n_rows=reg[RG_LEN], nodes=nn, weight=reg[RG_W])
        return k, True
    if d == 0 or nn == 0:
        return leaf_budget(state, events, k, it, level), True
    slot = data.pair_slot[d, nn]
    if cidx >= 0 and state.ent_cost[cidx, slot] >= 0:
        return cached_optimum(state, events, k, it, level, slot), True
    lb = state.ent_lb[cidx, slot] if cidx >= 0 else state.ent_lb[0, 0] * 0
    sim0 = -1
    sim1 = -1
    if use_sim:
        k, lb, sim0, sim1 = similarity_lower_bound(data, params, state, events, k, it, level, lb)
    lb = user_lower_bound(bound, state, d, nn, lb)
    if lb > ub:
        regc[RC_COST] = INF
        regc[RC_LB] = lb
        counters[C_LB_PRUNES] += 1
        if level >= ev.LEVEL_FULL:
            k = emit_lower_bound_prune(events, k, it, d=d, negative_ub=0, level=top + 1, parent=top, ub=float(ub),
                                       lb=float(lb), n_rows=reg[RG_LEN], nodes=nn, weight=reg[RG_W])
        return k, True
    if leaf - lb < state.ccost[CC_TIE]:  # the leaf meets the lower bound (line 7; within TIE for squared errors)
        heap_clear(state.rtree, np.int64(0), np.int64(0), d)
        regc[RC_COST] = leaf
        regc[RC_LB] = leaf
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_solved(events, k, it, d=d, how=SOLVED_LEAF_LB, level=top + 1, parent=top,
                                    cost=float(leaf), ub=float(ub), stored_lb=float(leaf), n_rows=reg[RG_LEN],
                                    nodes=nn, tree_nodes=0)
        return k, True
    if d <= 2 and params.depth_two == 1:
        return solve_depth_two(data, params, state, events, k, it, level, lb, sim0, sim1, use_sim), True
    open_frame(data, params, state, lb, sim0, sim1)
    return k, False


@njit(inline="always")
def leaf_budget(state, events, k, it, level):
    """Eq. 1 cases 1-2: no depth or no node left, so the subtree is a leaf, feasible when its cost is within UB."""
    reg, regc, top = state.reg, state.regc, state.counters[C_TOP]
    d = reg[RG_D]
    ub = regc[RC_UB]
    leaf = regc[RC_LEAF]
    heap_clear(state.rtree, np.int64(0), np.int64(0), d)
    regc[RC_LB] = leaf
    if leaf <= ub:
        regc[RC_COST] = leaf
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_solved(events, k, it, d=d, how=SOLVED_LEAF_BUDGET, level=top + 1, parent=top,
                                    cost=float(leaf), ub=float(ub), stored_lb=float(leaf), n_rows=reg[RG_LEN],
                                    nodes=reg[RG_N], tree_nodes=0)
    else:
        regc[RC_COST] = INF
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_infeasible(events, k, it, d=d, level=top + 1, parent=top, rlb=-1.0, ub=float(ub),
                                        stored_lb=float(leaf), n_rows=reg[RG_LEN], nodes=reg[RG_N], weight=reg[RG_W])
    return k


@njit(inline="always")
def cached_optimum(state, events, k, it, level, slot):
    """Algorithm 1 lines 9-14: the cache holds the optimum of (D, d, n) (§4.6.3); it is returned when within UB, and is
    the call's lower bound either way."""
    reg, regc, top = state.reg, state.regc, state.counters[C_TOP]
    cidx = reg[RT_CIDX]
    d = reg[RG_D]
    ub = regc[RC_UB]
    cost = state.ent_cost[cidx, slot]
    state.counters[C_CACHE_HITS] += 1
    if cost <= ub:
        tree_from_code(state.tpool, state.ent_tree[cidx, slot], state.rtree, d)
        regc[RC_COST] = cost
        reg[RT_NODES] = 0
        for h in range((1 << d) - 1):
            if state.rtree[h] >= 0:
                reg[RT_NODES] += 1
    else:
        regc[RC_COST] = INF
    regc[RC_LB] = cost
    if level >= ev.LEVEL_FULL:
        k = emit_cache_hit(events, k, it, d=d, feasible=1 if cost <= ub else 0, level=top + 1, parent=top,
                           cost=float(cost), ub=float(ub), stored_lb=float(cost), n_rows=reg[RG_LEN],
                           nodes=reg[RG_N], tree_nodes=reg[RT_NODES])
    return k


@njit(inline="always")
def similarity_lower_bound(data, params, state, events, k, it, level, lb):
    """Algorithm 1 lines 15-21 (§4.5): raise the call's lower bound ``lb`` by Eq. 9 from the two data sets archived at
    its depth, and store a raised bound in the cache (Prop. 11). Returns (k, lb, sim0, sim1); sim_j is the
    distance |D_in| + |D_out| to archived data set j (-1: not measured), reused by :func:`archive_update`."""
    reg, regc, counters = state.reg, state.regc, state.counters
    top = counters[C_TOP]
    d = reg[RG_D]
    nn = reg[RG_N]
    ub = regc[RC_UB]
    slot = data.pair_slot[d, nn]
    sb, wout = similarity_bound(data, state, d, slot, reg[RG_START], reg[RG_LEN], reg[RG_W])
    sim0 = state.scratch[0]
    sim1 = state.scratch[1]
    if sb > lb:
        if level >= ev.LEVEL_FULL:
            k = emit_similarity_bound(events, k, it, d=d, level=top + 1, parent=top, old_lb=float(lb), ub=float(ub),
                                      lb=float(sb), n_rows=reg[RG_LEN], nodes=nn, out_weight=wout)
        lb = sb
        counters[C_SIM_RAISES] += 1
        if params.cache != CACHE_NONE:
            cidx = reg[RT_CIDX]
            if cidx < 0:
                cidx = cache_insert(state, key_source(params, state), reg[RG_KOFF], reg[RG_KLEN], reg[RG_KHASH])
                reg[RT_CIDX] = cidx
            raise_lb(state.ent_lb[cidx], slot, lb, data.dom)
        if lb > ub:
            counters[C_SIM_PRUNES] += 1
    return k, lb, sim0, sim1


@njit(inline="always")
def solve_depth_two(data, params, state, events, k, it, level, lb, sim0, sim1, use_sim):
    """Algorithm 1 lines 27-32: a subtree of depth 2 (Algorithm 4, :func:`depth_two`) or 1 (:func:`stump`). Its optima
    for every budget it computed go into the cache and the lower bounds (and the similarity archive); the
    tree for the call's budget is returned when within UB."""
    reg, regc, counters = state.reg, state.regc, state.counters
    top = counters[C_TOP]
    d = reg[RG_D]
    nn = reg[RG_N]
    ub = regc[RC_UB]
    start = reg[RG_START]
    length = reg[RG_LEN]
    W = reg[RG_W]
    tie = state.ccost[CC_TIE]
    counters[C_D2] += 1
    if d == 1:
        cs = 2
        stump(data, state, start, length, state.reg_cls, W, params.n_classes, params.n_features, tie)
        cmode = COUNT_SINGLES
        nb = 1
    else:
        cs, cmode = depth_two(data, state, start, length, state.reg_cls, W, params.n_classes, params.n_features,
                              params.incremental == 1, tie)
        nb = 3
    out = state.cnt_out[cs]
    outc = state.cnt_cost[cs]
    b = nn - 1 if d == 2 else 0
    cost = outc[b]
    if level >= ev.LEVEL_FULL:
        k = emit_depth_two_solve(events, k, it, d=d, counting=cmode, level=top + 1, parent=top, root=out[b, O_ROOT],
                                 cost3=float(outc[2]) if nb == 3 else -1.0, ub=float(ub), lb=float(lb), n_rows=length,
                                 left=out[b, O_LEFT], right=out[b, O_RIGHT], cost1=float(outc[0]),
                                 cost2=float(outc[1]) if nb == 3 else -1.0)
    use_cache = params.cache != CACHE_NONE
    cidx = reg[RT_CIDX]
    if use_cache and cidx < 0:
        cidx = cache_insert(state, key_source(params, state), reg[RG_KOFF], reg[RG_KLEN], reg[RG_KHASH])
        reg[RT_CIDX] = cidx
    store_depth_two(data, state, out, outc, nb, use_cache, cidx)
    if use_sim:
        if params.cache == CACHE_DATASET:
            copy_flat(state.lbrow, state.ent_lb[cidx])
        archive_update(data, state, d, start, length, W, sim0, sim1)
    if cost <= ub:
        rtree = state.rtree
        heap_clear(rtree, np.int64(0), np.int64(0), d)
        rtree[0] = out[b, O_ROOT]
        if d == 2:
            rtree[1] = out[b, O_LEFT]
            rtree[2] = out[b, O_RIGHT]
        regc[RC_COST] = cost
        reg[RT_NODES] = out[b, O_NODES]
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_solved(events, k, it, d=d, how=SOLVED_DEPTH_TWO, level=top + 1, parent=top,
                                    feature=out[b, O_ROOT], cost=float(cost), ub=float(ub), stored_lb=float(cost),
                                    n_rows=length, nodes=nn, tree_nodes=out[b, O_NODES])
    else:
        regc[RC_COST] = INF
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_infeasible(events, k, it, d=d, level=top + 1, parent=top, rlb=-1.0, ub=float(ub),
                                        stored_lb=float(cost), n_rows=length, nodes=nn, weight=W)
    regc[RC_LB] = cost
    return k


@njit(inline="always")
def open_frame(data, params, state, lb, sim0, sim1):
    """Algorithm 2 lines 1-3: push a general-case frame for the call: its incumbent is the leaf when within UB
    (else none), its lower bound ``lb``, its features in the order of §4.8 (by gain, or in order), and the
    children of its splits go above every data set in use (the pool is a stack of data sets)."""
    reg, regc, counters = state.reg, state.regc, state.counters
    K, F = params.n_classes, params.n_features
    counters[C_FRAMES] += 1
    top = counters[C_TOP] + 1
    counters[C_TOP] = top
    fr = state.frames[top]
    fc = state.fcost[top]
    d = reg[RG_D]
    nn = reg[RG_N]
    ub = regc[RC_UB]
    leaf = regc[RC_LEAF]
    start = reg[RG_START]
    length = reg[RG_LEN]
    W = reg[RG_W]
    fr[FR_START] = start
    fr[FR_LEN] = length
    fr[FR_W] = W
    fr[FR_HASH] = reg[RG_HASH]
    fr[FR_KOFF] = reg[RG_KOFF]
    fr[FR_KLEN] = reg[RG_KLEN]
    fr[FR_KHASH] = reg[RG_KHASH]
    fr[FR_CIDX] = reg[RT_CIDX]
    fr[FR_D] = d
    fr[FR_N] = nn
    fc[FC_UB] = ub
    fc[FC_LB] = lb
    fc[FC_LEAF] = leaf
    fc[FC_BEST] = leaf if leaf <= ub else INF
    fr[FR_BEST_NODES] = 0
    fc[FC_RLB] = INF
    fr[FR_FI] = -1
    fr[FR_PHASE] = PH_NEXT_FEATURE
    nmax = min((1 << (d - 1)) - 1, nn - 1)
    fr[FR_NMAX] = nmax
    fr[FR_NMIN] = nn - 1 - nmax
    fr[FR_CBASE] = start + length if top == 0 else state.frames[top - 1, FR_CBASE] + state.frames[top - 1, FR_LEN]
    fr[FR_SIM0] = sim0
    fr[FR_SIM1] = sim1
    for c in range(K):
        state.fcls[top, c] = state.reg_cls[c]
    heap_clear(state.ftree[top], np.int64(0), np.int64(0), d)
    single_counts(state.pool, start, length, data.rowptr, data.rowfeat, data.label, data.weight, data.rstat,
                  state.fcounts[top])
    if params.feature_order == FEATURES_GINI:
        gain_order(state.fcounts[top], state.fcls[top], W, K, F, state.forder[top])
    else:
        for f in range(F):
            state.forder[top, f] = f


@njit(inline="always")
def next_split(fr):
    """The next configuration of Algorithm 2's loops: one more node on the left (n_L + 1), or, when n_L is at its
    largest, the next feature."""
    nl = fr[FR_NL]
    fr[FR_PHASE] = PH_CONFIG if nl < fr[FR_NMAX] else PH_NEXT_FEATURE
    fr[FR_NL] = nl + 1 if nl < fr[FR_NMAX] else nl


@njit(inline="always")
def deliver_result(data, state, events, k, it, level, top):
    """Algorithm 3 (lines 4-13): the returned call's result into frame ``top``'s configuration. A failed first
    child refines the frame's RLB (Eq. 15, with the sibling's stored bound) and skips the configuration; a
    solved one is kept and its sibling called next; a solved second child makes a tree that beats the frame's
    incumbent (its UB was set so), a failed one refines RLB with the first child's cost."""
    reg, regc = state.reg, state.regc
    fr = state.frames[top]
    fc = state.fcost[top]
    d = fr[FR_D]
    ph = fr[FR_PHASE]
    first = fr[FR_FIRST]
    side = first if ph == PH_FIRST else 1 - first
    fr[FR_CHILD + side * CH_WIDTH + CH_CIDX] = reg[RT_CIDX]
    nl = fr[FR_NL]
    nr = fr[FR_N] - 1 - nl
    if ph == PH_FIRST:
        if regc[RC_COST] >= INF:
            lb_o = child_lb(fr, fc, 1 - side, d, nl if side == 1 else nr, state.ent_lb, data.pair_slot)
            fc[FC_RLB] = min(fc[FC_RLB], regc[RC_LB] + lb_o)
            next_split(fr)
        else:
            d_s = min(d - 1, nl if side == 0 else nr)
            fc[FC_FIRST_COST] = regc[RC_COST]
            fr[FR_FIRST_NODES] = reg[RT_NODES]
            heap_clear(state.ctree[top], np.int64(0), np.int64(0), d_s)
            heap_embed(state.rtree, np.int64(0), d_s, state.ctree[top], np.int64(0), np.int64(0))
            fr[FR_PHASE] = PH_ISSUE_SECOND
        return k
    if regc[RC_COST] >= INF:
        fc[FC_RLB] = min(fc[FC_RLB], fc[FC_FIRST_COST] + regc[RC_LB])
    else:
        cost = fc[FC_FIRST_COST] + regc[RC_COST]
        old = fc[FC_BEST]
        fc[FC_BEST] = cost
        fr[FR_BEST_NODES] = 1 + fr[FR_FIRST_NODES] + reg[RT_NODES]
        tr = state.ftree[top]
        heap_clear(tr, np.int64(0), np.int64(0), d)
        tr[0] = fr[FR_F]
        n_first = nl if first == 0 else nr
        heap_embed(state.ctree[top], np.int64(0), min(d - 1, n_first), tr, np.int64(0), 1 + first)
        heap_embed(state.rtree, np.int64(0), min(d - 1, fr[FR_N] - 1 - n_first), tr, np.int64(0), 2 - first)
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_incumbent(events, k, it, d=d, level=top, parent=top - 1, feature=fr[FR_F],
                                       cost=float(cost), ub=float(fc[FC_UB]), lb=float(fc[FC_LB]), n_left=nl,
                                       n_right=nr, tree_nodes=fr[FR_BEST_NODES],
                                       old_cost=float(old) if old < INF else -1.0)
    next_split(fr)
    return k


@njit(inline="always")
def split_children(data, params, state, top, f, wr):
    """Algorithm 2 line 4: split frame ``top``'s data set on feature f (weight ``wr`` of the rows with f): the
    two children's rows (stable partition into the pool), weights, hashes, statistics, leaf costs, cache keys
    and cache entries; the first configuration is n_L = its smallest."""
    fr = state.frames[top]
    fc = state.fcost[top]
    fchild = state.fchild
    K = params.n_classes
    by_branch = params.cache == CACHE_BRANCH
    fr[FR_F] = f
    cbase = fr[FR_CBASE]
    nl_rows, hr = partition(state.pool, fr[FR_START], fr[FR_LEN], cbase, data.Xc, f, data.zob,
                            params.cache == CACHE_DATASET, state.scratch)
    for c in range(K):
        fchild[top, 1, c] = state.fcounts[top, c, f]
        fchild[top, 0, c] = state.fcls[top, c] - state.fcounts[top, c, f]
    for s in range(2):
        cb = FR_CHILD + s * CH_WIDTH
        fr[cb + CH_START] = cbase if s == 0 else cbase + nl_rows
        fr[cb + CH_LEN] = nl_rows if s == 0 else fr[FR_LEN] - nl_rows
        fr[cb + CH_W] = fr[FR_W] - wr if s == 0 else wr
        fr[cb + CH_HASH] = fr[FR_HASH] - hr if s == 0 else hr
        fc[FC_CLEAF + s] = leaf_cost(fchild[top, s], K)
        if by_branch:
            lit = 2 * f + s
            ko = (top * 2 + s) * (params.max_depth + 1)
            branch_insert(state.bkeys, fr[FR_KOFF], fr[FR_KLEN], lit, ko)
            fr[cb + CH_KOFF] = ko
            fr[cb + CH_KHASH] = fr[FR_KHASH] + data.zlit[lit]
        else:
            fr[cb + CH_KOFF] = fr[cb + CH_START]
            fr[cb + CH_KHASH] = fr[cb + CH_HASH]
        if params.cache != CACHE_NONE:
            klen = fr[FR_KLEN] + 1 if by_branch else fr[cb + CH_LEN]
            fr[cb + CH_CIDX] = cache_find(state.htab, state.meta, state.keys, key_source(params, state),
                                          fr[cb + CH_KOFF], klen, fr[cb + CH_KHASH])
        else:
            fr[cb + CH_CIDX] = -1
    fr[FR_NL] = fr[FR_NMIN]
    fr[FR_PHASE] = PH_CONFIG


@njit(inline="always")
def next_configuration(data, params, state, top):
    """Algorithm 2's loops over features and node splits, from where frame ``top`` stands: call the second child
    of the current configuration, or split on the next useful feature (Prop. 2: not a degenerate split) and
    call the first child of the next configuration (Algorithm 3, :func:`call_child`). Stops when the incumbent
    meets the lower bound (Algorithm 2 lines 10-11) or the features are exhausted. Returns True when a call is
    loaded."""
    fr = state.frames[top]
    fc = state.fcost[top]
    tie = state.ccost[CC_TIE]
    by_branch = params.cache == CACHE_BRANCH
    while True:
        ph = fr[FR_PHASE]
        if ph == PH_ISSUE_SECOND:
            side = 1 - fr[FR_FIRST]
            nl = fr[FR_NL]
            call_child(state, top, side, by_branch, nl if side == 0 else fr[FR_N] - 1 - nl,
                       fc[FC_UBP] - fc[FC_FIRST_COST])
            fr[FR_PHASE] = PH_SECOND
            return True
        if fc[FC_BEST] - fc[FC_LB] < tie:
            return False  # the incumbent meets the lower bound (Alg. 2 l. 6)
        if ph == PH_NEXT_FEATURE:
            fi = fr[FR_FI] + 1
            fr[FR_FI] = fi
            if fi >= params.n_features:
                return False
            f = state.forder[top, fi]
            wr = stats_weight(state.fcounts[top, :, f], params.n_classes)
            if wr == 0 or wr == fr[FR_W]:
                continue  # degenerate split (Prop. 2)
            split_children(data, params, state, top, f, wr)
            ph = PH_CONFIG
        if ph == PH_CONFIG:
            # Algorithm 3: one configuration (feature, n_L, n_R); UB' leaves room for a strict improvement, and
            # the first child (dynamic order §4.7: the side whose leaf costs more) gets UB' minus its sibling's
            # lower bound
            nl = fr[FR_NL]
            nr = fr[FR_N] - 1 - nl
            ubp = min(fc[FC_UB], fc[FC_BEST] - tie)
            fc[FC_UBP] = ubp
            first = 0
            if params.node_order == ORDER_DYNAMIC and not fc[FC_CLEAF] > fc[FC_CLEAF + 1]:
                first = 1
            fr[FR_FIRST] = first
            second = 1 - first
            lb_s = child_lb(fr, fc, second, fr[FR_D], nl if second == 0 else nr, state.ent_lb, data.pair_slot)
            call_child(state, top, first, by_branch, nr if second == 0 else nl, ubp - lb_s)
            fr[FR_PHASE] = PH_FIRST
            return True


@njit(inline="always")
def finish_frame(data, params, state, events, k, it, level, top, use_sim):
    """Algorithm 2 lines 13-16: pop frame ``top``. Its incumbent is the optimum within UB: stored in the cache
    for every budget it is optimal for (Prop. 10); without one, the refined lower bound max(LB, UB + 1, RLB)
    (Eq. 15-17) is stored for the budget and every smaller one (Prop. 11). The result goes to the register."""
    reg, regc, counters = state.reg, state.regc, state.counters
    fr = state.frames[top]
    fc = state.fcost[top]
    use_cache = params.cache != CACHE_NONE
    d = fr[FR_D]
    ub = fc[FC_UB]
    nn = fr[FR_N]
    slot = data.pair_slot[d, nn]
    cidx = fr[FR_CIDX]
    if use_cache and cidx < 0:
        cidx = cache_insert(state, key_source(params, state), fr[FR_KOFF], fr[FR_KLEN], fr[FR_KHASH])
    state.lbrow[:] = 0
    best = fc[FC_BEST]
    if best < INF:
        tr = state.ftree[top]
        heap_clear(state.rtree, np.int64(0), np.int64(0), d)
        heap_embed(tr, np.int64(0), d, state.rtree, np.int64(0), np.int64(0))
        regc[RC_COST] = best
        regc[RC_LB] = best
        reg[RT_NODES] = fr[FR_BEST_NODES]
        raise_lb(state.lbrow, slot, best, data.dom)
        if use_cache:
            adepth = heap_depth(tr, np.int64(0), d)
            code = tpool_put(state.tpool, counters, tr, np.int64(0), adepth)
            store_optimum(data, state, cidx, slot, best, fr[FR_BEST_NODES], adepth, code)
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_solved(events, k, it, d=d, how=SOLVED_GENERAL, level=top, parent=top - 1, feature=tr[0],
                                    cost=float(best), ub=float(ub), stored_lb=float(best), n_rows=fr[FR_LEN],
                                    nodes=nn, tree_nodes=fr[FR_BEST_NODES])
    else:
        lbn = max(fc[FC_LB], ub + state.ccost[CC_STEP])
        rlb = fc[FC_RLB]
        if rlb < INF:  # never store an infinite RLB (the bug fixed in the reference code)
            lbn = max(lbn, rlb)
        regc[RC_COST] = INF
        regc[RC_LB] = lbn
        reg[RT_NODES] = 0
        raise_lb(state.lbrow, slot, lbn, data.dom)
        if use_cache:
            raise_lb(state.ent_lb[cidx], slot, lbn, data.dom)
        if level >= ev.LEVEL_FULL:
            k = emit_subtree_infeasible(events, k, it, d=d, level=top, parent=top - 1,
                                        rlb=float(rlb) if rlb < INF else -1.0, ub=float(ub), stored_lb=float(lbn),
                                        n_rows=fr[FR_LEN], nodes=nn, weight=fr[FR_W])
    reg[RT_CIDX] = cidx
    if use_sim:
        if params.cache == CACHE_DATASET:
            copy_flat(state.lbrow, state.ent_lb[cidx])
        archive_update(data, state, d, fr[FR_START], fr[FR_LEN], fr[FR_W], fr[FR_SIM0], fr[FR_SIM1])
    reg[RG_D] = d  # the register's call fields describe the popped frame's problem for the root driver
    counters[C_TOP] = top - 1
    return k


@njit
def plain_query_done(params, state, cost, qn):
    """After a root query of a plain search: the next depth of iterative deepening (§4.9.5), or the next lower-bound
    probe (a failed probe certifies the root's stored bound; the next one asks for twice the step), or the end.
    Returns (finished, next query's depth, next query's nodes)."""
    counters, ccost, reg, regc = state.counters, state.ccost, state.reg, state.regc
    D, NN, tie = params.max_depth, params.max_nodes, ccost[CC_TIE]
    q = counters[C_Q_DEPTH]
    qd = 0
    finished = True
    final = reg[RG_D] == D and qn == NN
    if params.probing == 1 and final and cost >= INF:
        # a failed probe: no tree within its UB, so the root's stored bound is certified
        ccost[CC_LOWER] = max(ccost[CC_LOWER], regc[RC_LB])
        if ccost[CC_PROBE_UB] < ccost[CC_G_MISS] - tie:
            # trees better than the incumbent may remain: probe twice the step higher (a probe that finds a tree
            # has found the optimum, which ends the search)
            finished = False
            qd = D
            ccost[CC_Q_COST] = 2 * ccost[CC_Q_COST]
            regc[RC_UB] = min(ccost[CC_G_MISS] - tie, ccost[CC_LOWER] + ccost[CC_Q_COST] - tie)
            ccost[CC_PROBE_UB] = regc[RC_UB]
    while q < D:
        q += 1
        nq = min(NN, (1 << q) - 1)
        if nq != qn or min(q, nq) != reg[RG_D]:
            finished = False
            qn = nq
            qd = min(q, nq)
            counters[C_Q_DEPTH] = q
            open_plain_query(ccost, regc, tie, params.probing == 1 and qd == D and qn == NN)
            break
    return finished, qd, qn


@njit
def sparse_query_done(params, state, qn):
    """Algorithm 6 after the query with ``qn`` nodes: the next budget qn + 1 under UB = the best objective less
    alpha * (qn + 1), unless that UB is negative (no larger tree can be better) or the budget is spent. The lower
    bound min(incumbent, alpha * (qn + 1)) holds for every tree (smaller budgets are finished).
    Returns (finished, next query's depth, next query's nodes)."""
    counters, ccost, regc = state.counters, state.ccost, state.regc
    ap, aq = params.alpha_p, params.alpha_q
    qd = min(params.max_depth, qn + 1)
    qn += 1
    finished = False
    if qn > params.max_nodes:
        finished = True
    else:
        regc[RC_UB] = sparse_ub(ccost[CC_G_MISS], counters[C_G_NODES], qn, ap, aq, ccost[CC_TIE])
        if regc[RC_UB] < 0:  # and so for every larger budget
            finished = True
    lower = min(aq * ccost[CC_G_MISS] + ap * counters[C_G_NODES], ap * qn)
    if finished:
        lower = aq * ccost[CC_G_MISS] + ap * counters[C_G_NODES]
    ccost[CC_LOWER] = max(ccost[CC_LOWER], lower)
    return finished, qd, qn


@njit
def smallest_query_done(params, state, cost, qn):
    """Algorithm 7 after a query: the first one found the optimal cost; then each asks for a tree of that cost
    with fewer nodes than the last one found, until none exists. Returns (finished, depth, nodes)."""
    counters, ccost, reg, regc = state.counters, state.ccost, state.reg, state.regc
    if counters[C_Q_STAGE] == 0:  # the optimum is known: now shrink the budget
        counters[C_Q_STAGE] = 1
        ccost[CC_Q_COST] = ccost[CC_G_MISS]
        ccost[CC_LOWER] = params.alpha_q * ccost[CC_G_MISS]
        qn = counters[C_G_NODES] - 1
    elif cost < INF:
        qn = min(qn, reg[RT_NODES]) - 1
    else:
        qn = -1
    qd = min(params.max_depth, qn)
    if qn < 0:
        return True, qd, qn
    regc[RC_UB] = ccost[CC_Q_COST]
    return False, qd, qn


@njit
def load_root_call(params, state, qd, qn):
    """The call register holds the next root query: the whole data set with depth ``qd`` and ``qn`` nodes."""
    counters, reg = state.counters, state.reg
    n_rows = params.n_rows
    by_branch = params.cache == CACHE_BRANCH
    counters[C_Q_N] = qn
    reg[RG_D] = qd
    reg[RG_N] = qn
    reg[RG_START] = 0
    reg[RG_LEN] = n_rows
    reg[RG_W] = counters[C_ROOT_W]
    reg[RG_HASH] = counters[C_ROOT_HASH]
    reg[RG_KOFF] = 0
    reg[RG_KLEN] = 0 if by_branch else n_rows
    reg[RG_KHASH] = 0 if by_branch else counters[C_ROOT_HASH]
    state.regc[RC_LEAF] = state.ccost[CC_ROOT_LEAF]
    for c in range(params.n_classes):
        state.reg_cls[c] = state.fcls[state.fcls.shape[0] - 1, c]
    reg[RG_CIDX] = reg[RT_CIDX] if params.cache != CACHE_NONE else -1


@njit(inline="always")
def root_query_done(params, state, events, k, it, level):
    """A root query returned (Algorithms 6 and 7 and the plain search's driver): its tree may improve the
    incumbent; then the next query is loaded, or the search ends with its certified bound."""
    counters, ccost, reg, regc = state.counters, state.ccost, state.reg, state.regc
    ap, aq = params.alpha_p, params.alpha_q
    cost = regc[RC_COST]
    qn = counters[C_Q_N]
    if cost < INF and better(cost, reg[RT_NODES], ccost[CC_G_MISS], counters[C_G_NODES], ap, aq):
        ccost[CC_G_MISS] = cost
        counters[C_G_NODES] = reg[RT_NODES]
        heap_clear(state.gtree, np.int64(0), np.int64(0), params.max_depth)
        heap_embed(state.rtree, np.int64(0), reg[RG_D], state.gtree, np.int64(0), np.int64(0))
    if params.mode == MODE_PLAIN:
        finished, qd, qn = plain_query_done(params, state, cost, qn)
    elif params.mode == MODE_SPARSE:
        finished, qd, qn = sparse_query_done(params, state, qn)
    else:
        finished, qd, qn = smallest_query_done(params, state, cost, qn)
    if finished:
        counters[C_DONE] = 1
        ccost[CC_LOWER] = aq * ccost[CC_G_MISS] + ap * counters[C_G_NODES]
        if params.mode == MODE_SMALLEST:
            ccost[CC_LOWER] = aq * ccost[CC_G_MISS]
        return k
    load_root_call(params, state, qd, qn)
    if level >= ev.LEVEL_FULL:
        k = emit_root_query(events, k, it, d=reg[RG_D], ub=float(regc[RC_UB]), lb=ccost[CC_LOWER] / aq,
                            n_rows=params.n_rows, nodes=qn)
    return k


@njit(inline="always")
def return_up(data, params, state, events, k, it, level, use_sim, resolved):
    """Deliver the call's result and advance the frames until the next call is loaded: each frame takes its
    child's result (Algorithm 3) and goes on to its next configuration; a frame with none left is finished and
    its result goes to the frame below; the root query's result goes to the query driver."""
    deliver = resolved
    while True:
        top = state.counters[C_TOP]
        if top < 0:
            return root_query_done(params, state, events, k, it, level)
        if deliver:
            k = deliver_result(data, state, events, k, it, level, top)
        if next_configuration(data, params, state, top):
            return k
        k = finish_frame(data, params, state, events, k, it, level, top, use_sim)
        deliver = True


@njit(inline="always")
def anytime_incumbent(params, state):
    """Anytime (§4.9.5): the best complete tree the frames on the stack contain, each frame taking the best of its
    incumbent, its leaf, or its current split (the solved first child, or the leaf in place of an unsolved one,
    with the frame above's choice on the open side); it replaces the global incumbent when better."""
    counters, ccost, frames, fcost, cand = state.counters, state.ccost, state.frames, state.fcost, state.cand
    ap, aq = params.alpha_p, params.alpha_q
    top = counters[C_TOP]
    if top < 0:
        return
    # cand[k] = choice: 0 = frame incumbent, 1 = leaf, 2 = split with the child below
    pm = fcost[top, FC_LEAF]
    pn = 0
    for kk in range(top, -1, -1):
        fr = frames[kk]
        fc = fcost[kk]
        ph = fr[FR_PHASE]
        first = fr[FR_FIRST]
        if kk == top:
            side = first if ph == PH_FIRST else 1 - first
            pm = fc[FC_CLEAF + side]
            pn = 0
        if ph == PH_FIRST:
            om = fc[FC_CLEAF + 1 - first]
            on = 0
        else:
            om = fc[FC_FIRST_COST]
            on = fr[FR_FIRST_NODES]
        bm = fc[FC_LEAF]
        bn = 0
        choice = 1
        if fc[FC_BEST] < INF and better(fc[FC_BEST], fr[FR_BEST_NODES], bm, bn, ap, aq):
            bm = fc[FC_BEST]
            bn = fr[FR_BEST_NODES]
            choice = 0
        if better(om + pm, on + pn + 1, bm, bn, ap, aq):
            bm = om + pm
            bn = on + pn + 1
            choice = 2
        cand[kk] = choice
        pm = bm
        pn = bn
    if better(pm, pn, ccost[CC_G_MISS], counters[C_G_NODES], ap, aq):
        ccost[CC_G_MISS] = pm
        counters[C_G_NODES] = pn
        gtree = state.gtree
        heap_clear(gtree, np.int64(0), np.int64(0), params.max_depth)
        pos = 0
        for kk in range(top + 1):
            fr = frames[kk]
            choice = cand[kk]
            if choice == 0:
                heap_embed(state.ftree[kk], np.int64(0), fr[FR_D], gtree, np.int64(0), pos)
                break
            if choice == 1:
                break
            ph = fr[FR_PHASE]
            first = fr[FR_FIRST]
            side = first if ph == PH_FIRST else 1 - first
            gtree[pos] = fr[FR_F]
            if ph != PH_FIRST:
                nl = fr[FR_NL]
                n_first = nl if first == 0 else fr[FR_N] - 1 - nl
                heap_embed(state.ctree[kk], np.int64(0), min(fr[FR_D] - 1, n_first), gtree, np.int64(0),
                           2 * pos + 1 + first)
            pos = 2 * pos + 1 + side


@njit(inline="always")
def report_bounds(params, state, events, k, it, level, g_miss, g_nodes, lower_before):
    """Count an improved incumbent and, at record level summary or full, write the bounds when they moved (an
    improved incumbent, or a raised certified lower bound), in objective units."""
    counters, ccost = state.counters, state.ccost
    ap, aq = params.alpha_p, params.alpha_q
    improved = better(ccost[CC_G_MISS], counters[C_G_NODES], g_miss, g_nodes, ap, aq)
    if improved:
        counters[C_INCUMBENTS] += 1
    if level >= ev.LEVEL_SUMMARY:
        if improved or ccost[CC_LOWER] != lower_before:
            upper = ccost[CC_G_MISS] + ap * counters[C_G_NODES] / aq
            misses = int(ccost[CC_G_MISS]) if ccost[CC_STEP] > 0 else 0  # a squared error may exceed int64
            if improved:                                                 # (targets near 1e15)
                k = ev.emit_incumbent(events, k, it, lower=ccost[CC_LOWER] / aq, upper=upper,
                                      value=float(counters[C_G_NODES]), i0=misses, i1=counters[C_G_NODES])
            else:
                k = ev.emit_bounds(events, k, it, lower=ccost[CC_LOWER] / aq, upper=upper,
                                   value=float(counters[C_G_NODES]), i0=misses, i1=counters[C_G_NODES])
    return k


# ------------------------------------------------------------------------------------------------------
# the kernel
# ------------------------------------------------------------------------------------------------------
@njit
def murtree_kernel(data, params, state, events, max_iterations, bound, level):
    """Advance MurTree by at most ``max_iterations`` subtree calls, recording events at ``level`` (``ev.LEVEL_*``);
    return (n_events, status). ``bound``: a :data:`UserBound` (a researcher's lower bound,
    :func:`user_lower_bound`, or the group with ``on`` = 0) or None (regression). The task is the dtype of the
    cost arrays (float64 for regression, int64 for classification: one compilation each); the level is read at
    run time (one compilation serves the three levels: :class:`odtlab.core._jit.LevelKernel`).

    One iteration: SolveSubtree on the call register (Algorithm 1), then the results go up the frames until
    the next call is loaded (:func:`return_up`), the anytime incumbent (§4.9.5) and the bounds' events.

    Bounds kept in ``ccost`` (objective units times alpha's denominator q): the global incumbent
    (CC_G_MISS cost, counters[C_G_NODES] feature nodes) and CC_LOWER, a certified lower bound. A plain search
    has none until its root query ends (0; MurTree's depth-first recursion certifies nothing about the root
    before it has tried every root feature) unless it probes (``params.probing``): the final query is then
    asked with upper bounds climbing from the bound towards the incumbent, and each probe that finds no tree
    raises the bound to the root's stored lower bound (the probe's UB + STEP at least, Eq. 17); the first probe
    that finds a tree has found the optimum. Algorithm 6 uses min(incumbent, alpha * n') with n' the budget of
    the running query (smaller budgets are finished, larger trees pay at least alpha per node); Algorithm 7's
    bound is the optimum once its first query ends.
    """
    counters, ccost = state.counters, state.ccost
    use_sim = params.similarity == 1 and not is_regression(ccost)  # Eq. 9 needs a bounded loss per row
    k = 0
    if counters[C_DONE] == 1:
        return k, ev.STATUS_DONE
    if counters[C_STARTED] == 0:
        k = start_search(data, params, state, events, level)
    done = 0
    while done < max_iterations:
        if counters[C_DONE] == 1:
            break
        if level > ev.LEVEL_NONE and k + params.events_per_iteration > events.shape[0]:
            return k, ev.STATUS_BUFFER
        if params.cache != CACHE_NONE:
            grow = room_to_grow(params, state)
            if grow:
                counters[C_GROW] = grow
                return k, ev.STATUS_GROW
        done += 1
        counters[C_ITER] += 1
        it = counters[C_ITER]
        g_miss = ccost[CC_G_MISS]
        g_nodes = counters[C_G_NODES]
        lower_before = ccost[CC_LOWER]
        k, resolved = solve_subtree(data, params, state, events, k, it, level, use_sim, bound)
        k = return_up(data, params, state, events, k, it, level, use_sim, resolved)
        anytime_incumbent(params, state)
        k = report_bounds(params, state, events, k, it, level, g_miss, g_nodes, lower_before)
        if counters[C_DONE] == 1:
            if level >= ev.LEVEL_SUMMARY:
                k = ev.emit_terminated(events, k, it, optimal=1, lower=ccost[CC_LOWER] / params.alpha_q,
                                       upper=ccost[CC_G_MISS] + params.alpha_p * counters[C_G_NODES]
                                       / params.alpha_q,
                                       i0=counters[C_CALLS], i1=counters[C_D2], i2=counters[C_NDS])
            return k, ev.STATUS_DONE
        if bound_stop(bound):  # the solver checks the bound's value before the search goes on
            break
    if counters[C_DONE] == 1:
        return k, ev.STATUS_DONE
    return k, ev.STATUS_BUDGET
