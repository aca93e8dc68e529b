"""DPDT (Kohler, Akrour, Preux, KDD 2025): the numba kernel of the depth-first MDP build and its backward induction.

The MDP of §4: a state is (training rows, depth); its actions are "leaf" and the candidate splits a split
generator returns (§5.2); a split moves to the two child states with probabilities p_l, p_r. The kernel builds
the MDP depth first and backs values up as soon as a candidate's two children are solved (§5.6), so
only the current path is held besides the solved values.

Values in weight units. Multiplying the paper's V(s) by the state's weight W_s gives integers for unit weights
(Algorithm 1): a leaf costs E = W_s - max_k W_k (misclassified weight; for regression, W_s times the per-output
mean squared error, CART's impurity); a split costs alpha * W_s plus its children's costs. So every tree rooted
at s has a loss E + alpha * S with S = sum of the weights of its split nodes (W_s * C(T), Prop. 4.1).

The whole regularisation path at once (Prop. 4.1 for every alpha): a state keeps the lower envelope over alpha >= 0 of the
lines E + alpha * S of its candidate subtrees, a concave piecewise-linear function stored as its pieces (E, S,
action, left piece, right piece) in order of increasing alpha. A split's envelope is the Minkowski sum of its
children's (Bellman's Q(s, a) = -alpha + p_l V(s_l) + p_r V(s_r) for every alpha at once, times W_s); V(s) is
the envelope of the leaf and all split envelopes. Ties: at a given alpha the tree with the
smaller S wins (the limit from the right of the path), then the earlier action: the leaf, then candidates in
generation order. At alpha = 0 this is "fewest errors, then fewest expected splits".

Split generators (``Params.generator``):

* ``GEN_CART``: the split nodes of a best-first CART with ``budgets[d]`` leaves grown on the state's rows, in
  the order CART splits them (§5.2 "calls to CART", the reference code's ``max_leaf_nodes``). The CART is
  the one of :mod:`odtlab.core.cart`: its node record, frontier order, stopping rules and split scan
  (``frontier_record``, ``pop_frontier``, ``leaf_reason``, ``scan_sorted``) are called from here. Rows are kept
  presorted per feature (or, for features with few values, counted in histograms); a fast scan (sums of
  squares instead of CART's per-cut impurities) finds the features whose best cut is within rounding of the
  best one, and only those are rescanned by CART's own ``scan_sorted`` (a binned feature, in classification
  with integer weights, by its exact twin on the histogram: sums of integers do not depend on their order), so
  the chosen split, ties included, is the one ``cart.best_split`` returns (tested against the CART kernel on
  every state).
* ``GEN_TOPB``: the ``budgets[d]`` cuts with the lowest weighted impurity (Blanc et al.; CART's cost, ties by
  feature then threshold, so the first one is CART's split).
* ``GEN_EXHAUSTIVE``: every cut (feature, then threshold ascending); DPDT is then optimal (Prop. 4.1).

Thresholds are midpoints between consecutive distinct values (CART's rule); ``x <= t`` goes left. Candidates
with an empty side are dropped; a candidate with the same feature and the same left-row count as an earlier
one of the state (the same partition) is marked duplicate and not expanded (it cannot change a value).

One iteration is one state expanded (its leaf value computed, its candidates generated; a state without
candidates is solved at once) or one candidate backed up (the Minkowski sum of its children's envelopes merged
into the state's; after its last candidate the state is solved and popped). All state lives in the arrays
below, so a search stops and resumes between any two iterations.

Arrays (all grown by the driver when the kernel returns ``STATUS_GROW``, or bounded by D):

* ``LISTS`` (int32, D x (q + 1) x N): for the states at depth d < D, ``LISTS[d, FKIND[f], a:b]`` holds the
  state's rows sorted by feature f (stable, so ties keep row order) for the q features with more than
  HIST_MAX_VALUES distinct values, and ``LISTS[d, q, a:b]`` the same rows ascending. Features with few values
  are scanned from a histogram of the rows instead (``lay``, below). Expanding a candidate partitions level d
  into level d + 1 (O((q + 1) n)); states at depth D need no lists, so memory is O(D q N).
* ``STACK`` (int64, D x FR_COLS): the current path, one frame per state being solved (the explicit stack).
* ``SI`` / ``SF``: one row per state (parent, depth, rows, candidates, envelope; weight, leaf loss, impurity).
* ``CI`` / ``CF``: one row per generated candidate (state, feature, left rows, child states, flags; threshold,
  p_left).
* ``PI`` / ``PF``: envelope pieces of solved states (action, left piece, right piece; E, S).
* ``WI`` / ``WF``: the envelopes of the states on the path, built candidate by candidate (a stack).
* ``HS`` / ``HP`` / ``HSV``: histograms of the binned features for the state at each depth of the path and
  for the pending right child of each (the larger child's is its parent's minus the smaller one's), and
  whether each is valid (HSV[d], HSV[D + d]).
* ``MEMO`` ((D + 2) x 2 x 5): the best splits of the two children of the first candidate of the state at each
  depth, computed by that state's CART and reused by the children's own CART; row D + 1 stays invalid.
  ``LAID[d + 1] = 1`` when that CART also laid out the children's lists in level d + 1.
* ``counters``: iterations, states, candidates (C_OPS: non-degenerate candidate splits generated), the paper's
  operations (C_PAPER_OPS, below), duplicates, generator calls, backups, row-features scanned, fill levels,
  and what to grow.

The paper's "operations" (Table 1, "computing candidate split nodes for subsets of the training data") are
counted in C_PAPER_OPS as the **nodes of every inner CART tree** fitted (a CART with k split nodes has 2k + 1
nodes; the paper's CART column is likewise the node count of one depth-3 CART, 7-15); for top-B and the
exhaustive generator, the cuts returned. This unit reproduces the paper's counts: with its "light" and "full"
configurations read as ``candidates=(16, 1, 1)`` and ``(16, 16, 16)`` (inner CARTs with 16 leaves, the
paper's "16 candidate root splits"), the shipped quantbnb/ sets give bank 268 (paper 271), segment 220 (220),
wilt 274 (274), rice 298 (298) and, full, bank 8021 (7990), segment 16323 (16300), with the paper's train
accuracies. ``(8, 1, 1)`` in the reference code's unit (8 leaves, 7 root candidates) counts at most
15 + 14 * 3 + 28 * 3 = 141 CART nodes, or 7 + 14 + 28 = 49 candidates (C_OPS).
"""
from collections import namedtuple

import numpy as np

from odtlab.core import cart
from odtlab.core._jit import njit
from odtlab.core.arrays import copy_flat
from odtlab.core import events as ev
from odtlab.core.events import (LEVEL_FULL, LEVEL_SUMMARY, STATUS_BUDGET, STATUS_BUFFER, STATUS_DONE, STATUS_GROW,
                                emit_search_started, emit_terminated)

GEN_CART, GEN_TOPB, GEN_EXHAUSTIVE = 0, 1, 2
GENERATORS = {"cart": GEN_CART, "topb": GEN_TOPB, "exhaustive": GEN_EXHAUSTIVE}

# ---- the kernel's three groups ------------------------------------------------------------------------------
#: Read-only options: the MDP's horizon D (``max_depth``), the penalty alpha, the split generator (``GEN_*``) and
#: its per-depth ``budgets``, the inner CART's criterion and row minimums, the number of class weights (or target
#: sums) ``n_stats``, the event records one iteration may write, and two arithmetic switches (entropy from the
#: x log x ``table``; classification with integer weights, whose sums are exact in any order).
Params = namedtuple("Params", "criterion max_depth min_samples_split min_samples_leaf min_impurity_decrease "
                              "generator budgets n_stats alpha events_per_iteration xlogx_table integer_weights")
#: Read-only problem: X and its transpose, the statistics' targets Y (class codes or centred targets), the centred
#: targets Yc (regression), class codes yi (classification), row weights w, the x log x table and the feature
#: layout ``lay`` (with its scratch vectors, below).
Data = namedtuple("Data", "X XT Y Yc yi w table lay")
#: Everything the search writes (a search stops and resumes between any two iterations; arrays described above).
State = namedtuple("State", "LISTS scratch buf flag HS HP HSV MEMO LAID STACK SI SF CI CF PI PF WI WF counters")

# ---- counters (int64) --------------------------------------------------------------------------------------
(C_ITER, C_STATES, C_OPS, C_DUPLICATES, C_GEN_CALLS, C_SCANNED, C_TOP, C_PIECES, C_CANDS, C_WORK, C_DONE,
 C_STARTED, C_GROW, C_NEED_STATES, C_NEED_CANDS, C_NEED_PIECES, C_NEED_WORK, C_BACKUPS, C_PAPER_OPS) = range(19)
N_COUNTERS = 19
GROW_STATES, GROW_CANDS, GROW_PIECES, GROW_WORK = 1, 2, 4, 8

# ---- path frames (int64) -----------------------------------------------------------------------------------
FR_STATE, FR_START, FR_END, FR_DEPTH, FR_CUR, FR_PHASE, FR_WSTART, FR_WLEN = range(8)
FR_COLS = 8

# ---- states ------------------------------------------------------------------------------------------------
S_PARENT, S_DEPTH, S_NROWS, S_CSTART, S_NCAND, S_HSTART, S_HLEN, S_CLASS, S_PCAND, S_SIDE = range(10)
SI_COLS = 10
SF_W, SF_E, SF_IMP = range(3)
SF_COLS = 3

# ---- candidates --------------------------------------------------------------------------------------------
K_STATE, K_FEAT, K_NLEFT, K_LEFT, K_RIGHT, K_FLAGS = range(6)
CI_COLS = 6
KF_THR, KF_PLEFT = range(2)
CF_COLS = 2
CAND_DUPLICATE, CAND_DEGENERATE = 1, 2

# ---- envelope pieces: PF / WF = (E, S), PI / WI = (action, left piece, right piece); action -1 = leaf -------
E_, S_ = 0, 1
A_, L_, R_ = 0, 1, 2

# ---- event kinds (DPDT block 160..191) ---------------------------------------------------------------------
EV_STATE_EXPANDED = 160
EV_CANDIDATE = 161
EV_BACKUP = 162
EV_STATE_SOLVED = 163
EV_POLICY = 164
emit_state_expanded = ev.event_kind(
    EV_STATE_EXPANDED, "StateExpanded", "dpdt",
    {"state": "node", "parent_state": "parent", "side": "flags", "leaf_loss": "value",
     "n_samples": "i0", "n_candidates": "i1", "via_candidate": "i2", "weight": "f0", "impurity": "f1"},
    "Expand state {state} (depth {depth}, {n_samples} rows): leaf loss {leaf_loss:.6g}, "
    "{n_candidates} candidate splits",
    "A state (rows, depth) of the MDP (§4) is built: its leaf action's loss (misclassified weight, or "
    "weight x squared error) and its candidate splits. side: 0 root, 1 left, 2 right child of "
    "candidate via_candidate of parent_state. upper: L_alpha of the current policy.").emit
emit_candidate = ev.event_kind(
    EV_CANDIDATE, "CandidateSplit", "dpdt",
    {"state": "node", "threshold": "value", "candidate": "i0", "n_left": "i1", "n_right": "i2",
     "p_left": "f0", "generator": "f1", "skip": "flags"},
    "Candidate {candidate} of state {state}: {feature_name} <= {threshold:.6g} "
    "({n_left} | {n_right} rows)",
    "A split returned by the split generator (§5.2; generator 0 cart, 1 topb, 2 exhaustive). skip: "
    "1 duplicate of an earlier candidate's partition, 2 empty side; skipped candidates are not expanded.").emit
emit_backup = ev.event_kind(
    EV_BACKUP, "BellmanBackup", "dpdt",
    {"state": "node", "Q": "value", "candidate": "i0", "left_state": "i1", "right_state": "i2",
     "V_left": "f0", "V_right": "f1", "chosen": "flags"},
    "Bellman backup at state {state}: Q(split on {feature_name}) = {Q:.6g} "
    "(V_left {V_left:.6g}, V_right {V_right:.6g})",
    "Q(s, a) = -alpha + p_l V(s_l) + p_r V(s_r) (Algorithm 1) at the search's alpha, once both children "
    "are solved; chosen = 1 if the split is now the state's best action.").emit
emit_state_solved = ev.event_kind(
    EV_STATE_SOLVED, "StateSolved", "dpdt",
    {"state": "node", "parent_state": "parent", "V": "value", "action": "i0", "pieces": "i1",
     "leaf_class": "i2", "Q_leaf": "f0", "threshold": "f1", "n_candidates": "flags"},
    "State {state} solved: V = {V:.6g}, best action {action}, Q(leaf) = {Q_leaf:.6g}",
    "V(s) = max_a Q(s, a) and pi(s) = argmax at the search's alpha; pieces = number of trees on the "
    "state's regularisation path.").emit
emit_policy = ev.event_kind(
    EV_POLICY, "PolicyExtracted", "dpdt",
    {"objective": "value", "root_piece": "i0", "path_length": "i1", "states": "i2", "error": "f0",
     "expected_splits": "f1"},
    "Policy extracted: L_alpha = {objective:.6g} (loss {error:.6g} + alpha x {expected_splits:.6g} "
    "expected splits); {path_length} trees on the regularisation path, {states} states",
    "T = E(pi*, s0) (Algorithm 1): the root is solved.").emit

EPSILON = cart.EPSILON
#: Work units (rows counted into a state or a candidate, row x feature units scanned) after which a kernel call
#: returns, whatever its iteration budget: a few milliseconds, so that a time limit or Ctrl-C acts within ~0.1 s
#: even where iterations differ by orders of magnitude (the exhaustive generator's root expansion against a
#: backup). A call stops between two iterations, so a resumed search is the same search.
WORK_PER_CALL = 1 << 22
_EPS = np.finfo(np.float64).eps


def events_per_iteration(max_candidates):
    """Records one iteration writes at most at level full: a state expanded with all its candidates, solved
    at once, and the root's policy and termination (or a backup, a state solved and the same two)."""
    return int(max_candidates) + 6


# ------------------------------------------------------------------------------------------------------------
# split scans on presorted rows and on histograms
# ------------------------------------------------------------------------------------------------------------
#
# Feature layout ``lay = (FKIND, GBIN, BOFF, BVALS, TMP, CNT, H)``: a feature with at most HIST_MAX_VALUES distinct
# values is "binned": FKIND[f] = -(j + 1), GBIN[i, j] is the global bin of row i's value (bins BOFF[j]..BOFF[j + 1]
# hold feature j's distinct values BVALS in increasing order) and its scan reads a histogram H of the node's rows.
# Any other feature keeps a presorted list: FKIND[f] = its list index. TMP, CNT and H are scratch.

HIST_MAX_VALUES = 64



@njit(inline="always")
def _leaf_piece(F, I, h, E):
    """Row ``h`` of a piece list: the leaf action alone (loss ``E``, no expected splits, no children)."""
    F[h, E_] = E
    F[h, S_] = 0.0
    I[h, A_] = -1
    I[h, L_] = -1
    I[h, R_] = -1


@njit
def few_values(XT, limit):
    """For each feature (row of ``XT``) with at most ``limit`` distinct values: their number ``counts[f]``, the
    values in increasing order ``values[f, :counts[f]]`` and each row's index among them ``codes[f]``; features
    with more values get ``counts[f] = 0``. Small integer ranges use a presence table; other features an
    insertion into a sorted buffer, which stops at the (limit + 1)-th distinct value."""
    p, n = XT.shape
    counts = np.zeros(p, dtype=np.int64)
    values = np.zeros((p, limit))
    codes = np.zeros((p, n), dtype=np.int32)
    span = 8 * limit
    index = np.empty(span + 1, dtype=np.int64)
    for f in range(p):
        x = XT[f]
        vals = values[f]
        lo_v = x.min()
        small_ints = x.max() - lo_v <= span
        for i in range(n if small_ints else 0):
            if x[i] != np.floor(x[i]):
                small_ints = False
                break
        k = 0
        if small_ints:
            index[:] = -1
            for i in range(n):
                index[np.int64(x[i] - lo_v)] = 0
            for v in range(span + 1):
                if index[v] == 0:
                    if k == limit:
                        k = 0
                        break
                    index[v] = k
                    vals[k] = lo_v + v
                    k += 1
            counts[f] = k
            for i in range(n if k > 0 else 0):
                codes[f, i] = index[np.int64(x[i] - lo_v)]
            continue
        for i in range(n):
            lo = 0
            hi = k
            while lo < hi:
                mid = (lo + hi) // 2
                if vals[mid] < x[i]:
                    lo = mid + 1
                else:
                    hi = mid
            if lo == k or vals[lo] != x[i]:
                if k == limit:
                    k = 0
                    break
                for t in range(k, lo, -1):
                    vals[t] = vals[t - 1]
                vals[lo] = x[i]
                k += 1
        counts[f] = k
        for i in range(n if k > 0 else 0):
            lo = 0
            hi = k - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if vals[mid] < x[i]:
                    lo = mid + 1
                else:
                    hi = mid
            codes[f, i] = lo
    return counts, values, codes


@njit
def stable_ties(XT, order):
    """Make each row of ``order`` (an argsort of the same row of ``XT``) stable: equal values in row order."""
    for f in range(order.shape[0]):
        x = XT[f]
        o = order[f]
        i = 0
        n = o.shape[0]
        while i < n:
            j = i + 1
            while j < n and x[o[j]] == x[o[i]]:
                j += 1
            if j - i > 16:
                o[i:j].sort()  # in place (an assignment from np.sort compiles a shape check: 2 s)
            else:
                for t in range(i + 1, j):  # insertion sort of a short run
                    v = o[t]
                    u = t - 1
                    while u >= i and o[u] > v:
                        o[u + 1] = o[u]
                        u -= 1
                    o[u + 1] = v
            i = j


@njit
def _xlogx(v, table, use_table):
    if v <= 0.0:
        return 0.0
    if use_table:
        return table[np.int64(v)]
    return v * np.log2(v)


@njit(inline="always")
def _class_cost(criterion, wl, sl, wr, sr, table, use_table):
    """Children's Gini (sl, sr = sums of squared class weights) or entropy (sums of x log x) cost, the fast form."""
    if criterion == cart.GINI:
        return (wl - sl / wl if wl > 0.0 else 0.0) + (wr - sr / wr if wr > 0.0 else 0.0)
    return (_xlogx(wl, table, use_table) - sl) + (_xlogx(wr, table, use_table) - sr)


@njit(inline="always")
def _class_scan_start(XT, f, R, r, s, n_node, parent_stats, cl, cr, gini, table, use_table):
    """Start of the Gini / entropy scans: whether feature f is constant on the rows ``R[r, s:s + n_node]``, and
    s_r of the whole node (sum of squared class weights, or of x log x), with cl = 0 and cr = the node's weights."""
    sr = 0.0
    for c in range(cl.shape[0]):
        cl[c] = 0.0
        cr[c] = parent_stats[c]
        sr += cr[c] * cr[c] if gini else _xlogx(cr[c], table, use_table)
    return XT[f, R[r, s + n_node - 1]] <= XT[f, R[r, s]] + cart.FEATURE_THRESHOLD, sr


@njit
def _approx_gini_scan(XT, yi, w, f, R, r, s, n_node, min_leaf, parent_stats, parent_w, cl, cr, table, use_table):
    """Fast twin of ``cart.scan_sorted`` for Gini: the lowest child cost over the cuts of feature f (the rows
    ``R[r, s:s + n_node]`` sorted by it, see ``_approx_scan``), from running sums of squared class weights s_l,
    s_r. A cut costs (w_l - s_l / w_l) + (w_r - s_r / w_r), so the best cut maximises g = s_l / w_l + s_r / w_r: a
    cut is compared to the best g so far as (s_l w_r + s_r w_l) > g (w_l w_r), without a division per cut, and the
    cost is computed once, for the winner (a side of weight 0 contributes 0 to g, as to the cost)."""
    constant, sr = _class_scan_start(XT, f, R, r, s, n_node, parent_stats, cl, cr, True, table, use_table)
    if constant:
        return np.inf
    sl = 0.0
    wl = 0.0
    best_g = -1.0  # g >= 0 for every cut: the first cut wins
    best_sl = 0.0
    best_sr = 0.0
    best_wl = 0.0
    xa = XT[f, R[r, s]]
    for t in range(n_node - 1):
        i = R[r, s + t]
        wi = w[i]
        c = yi[i]
        sl += wi * (2.0 * cl[c] + wi)
        sr += wi * (wi - 2.0 * cr[c])
        cl[c] += wi
        cr[c] -= wi
        wl += wi
        xb = XT[f, R[r, s + t + 1]]
        if xb > xa + cart.FEATURE_THRESHOLD and t + 1 >= min_leaf and n_node - t - 1 >= min_leaf:
            wr = parent_w - wl
            den = wl * wr
            if den > 0.0:
                num = sl * wr + sr * wl
            else:  # a side of weight 0
                num = (sl / wl if wl > 0.0 else 0.0) + (sr / wr if wr > 0.0 else 0.0)
                den = 1.0
            if num > best_g * den:
                best_g = num / den
                best_sl = sl
                best_sr = sr
                best_wl = wl
        xa = xb
    if best_g < 0.0:
        return np.inf
    wr = parent_w - best_wl
    return (best_wl - best_sl / best_wl if best_wl > 0.0 else 0.0) + (wr - best_sr / wr if wr > 0.0 else 0.0)


@njit
def _approx_entropy_scan(XT, yi, w, f, R, r, s, n_node, min_leaf, parent_stats, parent_w, cl, cr, table,
                         use_table):
    """Fast twin of ``cart.scan_sorted`` for entropy: the lowest child cost over the cuts of feature f (the rows
    ``R[r, s:s + n_node]`` sorted by it), from running sums of x log x of the class weights."""
    constant, sr = _class_scan_start(XT, f, R, r, s, n_node, parent_stats, cl, cr, False, table, use_table)
    if constant:
        return np.inf
    sl = 0.0
    wl = 0.0
    best = np.inf
    xa = XT[f, R[r, s]]
    for t in range(n_node - 1):
        i = R[r, s + t]
        wi = w[i]
        c = yi[i]
        sl += _xlogx(cl[c] + wi, table, use_table) - _xlogx(cl[c], table, use_table)
        sr += _xlogx(cr[c] - wi, table, use_table) - _xlogx(cr[c], table, use_table)
        cl[c] += wi
        cr[c] -= wi
        wl += wi
        xb = XT[f, R[r, s + t + 1]]
        if xb > xa + cart.FEATURE_THRESHOLD and t + 1 >= min_leaf and n_node - t - 1 >= min_leaf:
            cost = _class_cost(cart.ENTROPY, wl, sl, parent_w - wl, sr, table, use_table)
            if cost < best:
                best = cost
        xa = xb
    return best


@njit
def _approx_sse_scan(XT, Yc, w, f, R, r, s, n_node, min_leaf, parent_w, sp, cl):
    """Fast twin of ``cart.scan_sorted`` for squared error: the lowest child cost over the cuts of feature f (the
    rows ``R[r, s:s + n_node]`` sorted by it), up to the node's constant, from running sums of centred targets."""
    if XT[f, R[r, s + n_node - 1]] <= XT[f, R[r, s]] + cart.FEATURE_THRESHOLD:
        return np.inf
    m = Yc.shape[1]
    cl[:] = 0.0
    wl = 0.0
    best = np.inf
    xa = XT[f, R[r, s]]
    for t in range(n_node - 1):
        i = R[r, s + t]
        wi = w[i]
        for j in range(m):
            cl[j] += wi * Yc[i, j]
        wl += wi
        xb = XT[f, R[r, s + t + 1]]
        if xb > xa + cart.FEATURE_THRESHOLD and t + 1 >= min_leaf and n_node - t - 1 >= min_leaf:
            cost = _sse_cost(cl, sp, wl, parent_w - wl)
            if cost < best:
                best = cost
        xa = xb
    return best


@njit(inline="always")
def _approx_scan(XT, Yc, yi, w, f, R, r, s, n_node, criterion, min_leaf, parent_stats, parent_w, sp, cl, cr, table,
                 use_table):
    """The fast scan of feature f for the criterion, on the rows ``R[r, s:s + n_node]`` sorted by it: a row of the
    presorted lists (``R`` = the lists, ``r`` = the feature's list, ``s`` = the node's start) or of the counting
    sort buffer, passed as (array, row, start) since a slice would cost two reference counts per feature."""
    if criterion == cart.SQUARED_ERROR:
        return _approx_sse_scan(XT, Yc, w, f, R, r, s, n_node, min_leaf, parent_w, sp, cl)
    if criterion == cart.GINI:
        return _approx_gini_scan(XT, yi, w, f, R, r, s, n_node, min_leaf, parent_stats, parent_w, cl, cr, table,
                                 use_table)
    return _approx_entropy_scan(XT, yi, w, f, R, r, s, n_node, min_leaf, parent_stats, parent_w, cl, cr, table,
                                use_table)


@njit(inline="always")
def _sse_cost(sl, sp, wl, wr):
    """Squared-error cost of a cut up to the node's constant: -(sum_j S_l^2 / w_l + S_r^2 / w_r) / m."""
    gain = 0.0
    for j in range(sl.shape[0]):
        r = sp[j] - sl[j]
        if wl > 0.0:
            gain += sl[j] * sl[j] / wl
        if wr > 0.0:
            gain += r * r / wr
    return -gain / sl.shape[0]


@njit
def _build_hist(rows, a, b, GBIN, yi, Yc, w, regression, H):
    """H[h] = per bin h: class weights then the row count (classification), or centred target sums, weight and
    row count (regression), over the rows ``rows[a:b]``."""
    H[:] = 0.0
    pb = GBIN.shape[1]
    cnt_col = H.shape[1] - 1
    m = Yc.shape[1]
    for t in range(a, b):
        i = rows[t]
        wi = w[i]
        if regression:
            for j in range(pb):
                h = GBIN[i, j]
                for q in range(m):
                    H[h, q] += wi * Yc[i, q]
                H[h, m] += wi
                H[h, cnt_col] += 1.0
        else:
            c = yi[i]
            for j in range(pb):
                h = GBIN[i, j]
                H[h, c] += wi
                H[h, cnt_col] += 1.0


@njit(inline="always")
def hist_pays(n_rows, n_binned, hist_size):
    """Whether a histogram (zeroed and scanned whole) beats counting-sorting the rows of each binned feature."""
    return n_binned > 0 and 4 * n_rows * n_binned >= hist_size


@njit
def _children_hists(rows, a, mid, b, GBIN, yi, Yc, w, regression, H, HL, HR, valid, depth):
    """Histograms of the children ``rows[a:mid]`` / ``rows[mid:b]`` of a state at ``depth - 1`` whose histogram H
    is valid (``valid[depth - 1]``), for the children that are big enough (``hist_pays``): the smaller child's
    is built from its rows, the other one is H minus it (LightGBM's subtraction) unless building it is cheaper.
    Sets ``valid[depth]`` (HL, left) and ``valid[D + depth - 1]`` (HR, right), D = len(valid) // 2."""
    D = valid.shape[0] // 2
    pb = GBIN.shape[1]
    want_l = hist_pays(mid - a, pb, H.size)
    want_r = hist_pays(b - mid, pb, H.size)
    valid[depth] = 1 if want_l else 0
    valid[D + depth - 1] = 1 if want_r else 0
    small_left = mid - a <= b - mid
    if want_l and want_r and valid[depth - 1] == 1 and 2 * max(mid - a, b - mid) * pb >= H.size:
        Hs, Hb = (HL, HR) if small_left else (HR, HL)
        lo, hi = (a, mid) if small_left else (mid, b)
        _build_hist(rows, lo, hi, GBIN, yi, Yc, w, regression, Hs)
        for h in range(H.shape[0]):
            for c in range(H.shape[1]):
                Hb[h, c] = H[h, c] - Hs[h, c]
        return
    if want_l:
        _build_hist(rows, a, mid, GBIN, yi, Yc, w, regression, HL)
    if want_r:
        _build_hist(rows, mid, b, GBIN, yi, Yc, w, regression, HR)


@njit
def _approx_binned_scan(H, h0, h1, vals, n_node, criterion, min_leaf, parent_stats, parent_w, sp, cl, table,
                        use_table):
    """The fast scan from the histogram of one binned feature (bins h0..h1 with values ``vals[h0:h1]``): the cuts
    between consecutive non-empty bins, with CART's rules for close values and min_samples_leaf."""
    regression = criterion == cart.SQUARED_ERROR
    k = cl.shape[0]
    count = H.shape[1] - 1
    cl[:] = 0.0
    wl = 0.0
    nl = 0.0
    prev = -1
    best = np.inf
    for h in range(h0, h1):
        if H[h, count] == 0.0:
            continue
        if prev >= 0 and vals[h] > vals[prev] + cart.FEATURE_THRESHOLD and nl >= min_leaf \
                and n_node - nl >= min_leaf:
            if regression:
                cost = _sse_cost(cl, sp, wl, parent_w - wl)
            else:
                sl = 0.0
                sr = 0.0
                for c in range(k):
                    r = parent_stats[c] - cl[c]
                    if criterion == cart.GINI:
                        sl += cl[c] * cl[c]
                        sr += r * r
                    else:
                        sl += _xlogx(cl[c], table, use_table)
                        sr += _xlogx(r, table, use_table)
                cost = _class_cost(criterion, wl, sl, parent_w - wl, sr, table, use_table)
            if cost < best:
                best = cost
        for c in range(k):
            cl[c] += H[h, c]
            if not regression:
                wl += H[h, c]
        if regression:
            wl += H[h, k]
        nl += H[h, count]
        prev = h
    return best


@njit
def _exact_binned_scan(H, h0, h1, vals, n_node, criterion, min_leaf, parent_stats, parent_w, left, right,
                       best_cost):
    """``cart.scan_sorted`` of one binned feature from its histogram (bins h0..h1, values ``vals[h0:h1]``), for
    classification with integer weights: the class weights left of a cut are then sums of integers, exact in any
    order, so the bins give the very statistics, costs (the same ``impurity_of`` arithmetic), thresholds and
    positions that the scan of the sorted rows gives, in one pass over the bins. Same returns as ``scan_sorted``."""
    k = left.shape[0]
    count = H.shape[1] - 1
    best_thr, best_pos = 0.0, -1
    lo = h0
    while H[lo, count] == 0.0:
        lo += 1
    hi = h1 - 1
    while H[hi, count] == 0.0:
        hi -= 1
    if vals[hi] <= vals[lo] + cart.FEATURE_THRESHOLD:
        return best_cost, best_thr, best_pos  # constant feature in this node
    left[:] = 0.0
    wl = 0.0
    nl = 0
    prev = -1
    for h in range(lo, hi + 1):
        if H[h, count] == 0.0:
            continue
        if prev >= 0 and vals[h] > vals[prev] + cart.FEATURE_THRESHOLD and nl >= min_leaf \
                and n_node - nl >= min_leaf:
            for c in range(k):
                right[c] = parent_stats[c] - left[c]
            wr = parent_w - wl
            cost = wl * cart.impurity_of(left, wl, criterion) + wr * cart.impurity_of(right, wr, criterion)
            if cost < best_cost:
                best_cost = cost
                best_pos = nl
                xa = vals[prev]
                xb = vals[h]
                thr = xa / 2.0 + xb / 2.0
                if thr == xb or np.isinf(thr):
                    thr = xa
                best_thr = thr
        for c in range(k):
            left[c] += H[h, c]
            wl += H[h, c]
        nl += np.int64(H[h, count])
        prev = h
    return best_cost, best_thr, best_pos


@njit
def feature_rows(L, a, b, f, FKIND, GBIN, BOFF, TMP, CNT):
    """The rows ``L[-1, a:b]`` (ascending) stably sorted by feature f: its presorted list, or a counting sort
    of the bins into ``TMP`` (``_counting_sort``). The arrays are those of ``lay``, passed one by one (unpacking
    the tuple in every call costs a reference count per array)."""
    kind = FKIND[f]
    if kind >= 0:
        return L[kind, a:b]
    _counting_sort(L, a, b, -kind - 1, GBIN, BOFF, TMP, CNT)
    return TMP[:b - a]


@njit
def _counting_sort(L, a, b, j, GBIN, BOFF, TMP, CNT):
    """``TMP[:b - a]`` = the rows ``L[-1, a:b]`` stably sorted by binned feature j (equal values keep row order,
    as CART's mergesort)."""
    h0 = BOFF[j]
    nb = BOFF[j + 1] - h0
    rows = L[L.shape[0] - 1]
    CNT[:nb + 1] = 0
    for t in range(a, b):
        CNT[GBIN[rows[t], j] - h0 + 1] += 1
    for v in range(nb):
        CNT[v + 1] += CNT[v]
    for t in range(a, b):
        i = rows[t]
        v = GBIN[i, j] - h0
        TMP[CNT[v]] = i
        CNT[v] += 1


@njit
def presorted_best_split(X, XT, Y, Yc, yi, w, L, a, b, criterion, n_stats, min_leaf, parent_stats, parent_w,
                         table, use_table, integer_weights, approx, lay, H, hist_ready, counters):
    """``cart.best_split`` on the rows ``L[-1, a:b]``, the lists of ``L`` holding them sorted per feature.

    Returns the same (feature, threshold, position, cost), ties included: every feature gets a fast scan
    (``_approx_gini_scan``, ``_approx_entropy_scan``, ``_approx_sse_scan``, or ``_approx_binned_scan`` on a
    histogram), then the features whose fast minimum is within ``tol`` of the best one are scanned again, in
    feature order, by CART's ``scan_sorted`` (or, for a binned feature in classification with
    ``integer_weights``, by its exact twin on the histogram, ``_exact_binned_scan``). ``tol`` is far above the
    rounding of either formula, so a feature left out cannot hold a cut of minimal CART cost.
    Binned features are scanned from the histogram ``H`` (built here unless ``hist_ready`` says it holds it
    already) when that pays (``hist_pays``), else from a counting sort of the rows.
    Counts the row-features scanned (histogram rows included) in C_SCANNED. Called once per node of an inner
    CART: its arrays are passed one by one (a group costs a reference count per array and call).
    """
    FKIND, GBIN, BOFF, BVALS, TMP, CNT, _ = lay
    p = X.shape[1]
    n_node = b - a
    regression = criterion == cart.SQUARED_ERROR
    m = Yc.shape[1]
    k = m if regression else n_stats
    cl = np.empty(k)
    cr = np.empty(k)
    sp = np.zeros(m)
    rows = L[L.shape[0] - 1]
    if regression:
        for t in range(a, b):
            i = rows[t]
            for j in range(m):
                sp[j] += w[i] * Yc[i, j]
    use_hist = hist_ready or hist_pays(n_node, GBIN.shape[1], H.size)
    sorted_tmp = TMP.reshape((1, TMP.shape[0]))
    if use_hist and not hist_ready:
        _build_hist(rows, a, b, GBIN, yi, Yc, w, regression, H)
    best_approx = np.inf
    for f in range(p):
        kind = FKIND[f]
        if kind < 0 and use_hist:
            j = -kind - 1
            approx[f] = _approx_binned_scan(H, BOFF[j], BOFF[j + 1], BVALS, n_node, criterion, min_leaf, parent_stats,
                                            parent_w, sp, cl, table, use_table)
        elif kind >= 0:
            approx[f] = _approx_scan(XT, Yc, yi, w, f, L, kind, a, n_node, criterion, min_leaf, parent_stats,
                                     parent_w, sp, cl, cr, table, use_table)
        else:
            _counting_sort(L, a, b, -kind - 1, GBIN, BOFF, TMP, CNT)
            approx[f] = _approx_scan(XT, Yc, yi, w, f, sorted_tmp, np.int64(0), np.int64(0), n_node, criterion,
                                     min_leaf, parent_stats, parent_w, sp, cl, cr, table, use_table)
        if approx[f] < best_approx:
            best_approx = approx[f]
    counters[C_SCANNED] += n_node * p
    best_f, best_thr, best_pos, best_cost = -1, 0.0, -1, np.inf
    if best_approx == np.inf:
        return best_f, best_thr, best_pos, best_cost
    if regression:
        scale = 0.0
        for j in range(m):
            scale += parent_stats[m + j]
        scale /= m
    elif criterion == cart.GINI:
        scale = parent_w
    else:
        scale = parent_w * (np.log2(parent_w + 2.0) + np.log2(n_stats + 1.0))
    tol = 16.0 * (n_node + n_stats + 16) * _EPS * scale + 1e-300
    left = np.empty(n_stats)
    right = np.empty(n_stats)
    exact_bins = use_hist and integer_weights and not regression
    for f in range(p):
        if approx[f] <= best_approx + tol:
            kind = FKIND[f]
            if kind < 0 and exact_bins:
                j = -kind - 1
                cost, thr, pos = _exact_binned_scan(H, BOFF[j], BOFF[j + 1], BVALS, n_node, criterion, min_leaf,
                                                    parent_stats, parent_w, left, right, best_cost)
            else:
                cost, thr, pos = cart.scan_sorted(X, Y, w, f, feature_rows(L, a, b, f, FKIND, GBIN, BOFF, TMP, CNT),
                                                  criterion, min_leaf, parent_stats, parent_w, left, right, best_cost)
            counters[C_SCANNED] += n_node
            if pos >= 0:
                best_cost, best_thr, best_pos, best_f = cost, thr, pos, f
    return best_f, best_thr, best_pos, best_cost


@njit
def _flag_rows(XT, rows, a, b, f, thr, flag):
    """flag[i] = 1 when row i of ``rows[a:b]`` goes left (x_f <= thr); returns how many do."""
    x = XT[f]
    n_left = 0
    for t in range(a, b):
        i = rows[t]
        go = 1 if x[i] <= thr else 0
        flag[i] = go
        n_left += go
    return n_left


@njit
def _partition_in_place(L, a, b, n_left, flag, buf):
    """Stable partition of every list ``L[g, a:b]`` by ``flag`` in place: left rows are compacted forwards
    (their slot is never ahead of the reading position), right rows go through ``buf``."""
    for g in range(L.shape[0]):
        lo = a
        k = 0
        for t in range(a, b):
            i = L[g, t]
            go = np.int64(flag[i])
            L[g, lo] = i
            buf[k] = i
            lo += go
            k += 1 - go
        for t in range(k):
            L[g, a + n_left + t] = buf[t]
    return a + n_left


@njit
def _partition_lists(src, dst, a, b, n_left, flag):
    """Stable partition of every list ``src[g, a:b]`` by ``flag`` into ``dst[g, a:b]`` (left rows first),
    without branches (the slot is picked arithmetically). ``src`` and ``dst`` must not overlap."""
    for g in range(src.shape[0]):
        lo = a
        hi = a + n_left
        for t in range(a, b):
            i = src[g, t]
            go = np.int64(flag[i])
            dst[g, hi + go * (lo - hi)] = i
            lo += go
            hi += 1 - go
    return a + n_left


# ------------------------------------------------------------------------------------------------------------
# split generators (DPDT §5.2)
# ------------------------------------------------------------------------------------------------------------

@njit
def cart_candidates(data, params, state, depth, a, b, stats, W, hist_ready, known, approx, c0):
    """The split nodes of CART(max_leaf_nodes = ``budgets[depth]``, at least 2) grown on the rows
    ``LISTS[depth, :, a:b]`` of a state, in the order CART splits them, written to CI / CF from row ``c0``;
    returns their number (at most ``max_leaves - 1``).

    This is ``cart``'s best-first build (its kernel with ``max_leaf_nodes``, ``max_depth`` None, and total
    weight W of the rows, as scikit-learn fitting the subset): the same node records, frontier order and
    stopping rules, and ``presorted_best_split`` (= ``cart.best_split``) on lists partitioned in ``scratch``.
    ``HS[depth]`` holds the histogram of the rows if ``hist_ready``. It stops as soon as no frontier node can be split
    any more (their best splits are then never needed).

    The root's children are the DPDT children of the first candidate: their best splits (valid flag, feature,
    threshold, position, cost) go to ``MEMO[depth + 1]`` (right child first), and come back as ``known`` when
    those children run their own CART, whose root split is then not scanned again; their lists go straight to
    the next DPDT level ``LISTS[depth + 1]`` (if it exists; ``LAID[depth + 1] = 1`` then), where that candidate
    needs them.
    """
    X, XT, Y, Yc, yi, w, table, lay = data
    criterion, n_stats, min_leaf = params.criterion, params.n_stats, params.min_samples_leaf
    min_split, min_decrease = params.min_samples_split, params.min_impurity_decrease
    use_table, integer_weights = params.xlogx_table, params.integer_weights
    max_leaves = max(params.budgets[depth], 2)
    L, H, kids, laid, scratch, flag, counters = (state.LISTS[depth], state.HS[depth], state.MEMO[depth + 1],
                                                 state.LAID[depth + 1:], state.scratch, state.flag, state.counters)
    nxt = state.LISTS[depth + 1] if depth + 1 < params.max_depth else scratch[:0]
    out_f = state.CI[c0:, K_FEAT]
    out_t = state.CF[c0:, KF_THR]
    rl = L.shape[0] - 1  # the rows-ascending list
    frontier = np.zeros((max_leaves + 2, cart.F_COLS))
    fc = np.zeros(5, dtype=np.int64)
    imp = cart.impurity_of(stats, W, criterion)
    kids[:, 0] = 0.0
    laid[0] = 0
    if known[0] == 1.0:
        f, thr, pos, cost = np.int64(known[1]), known[2], np.int64(known[3]), known[4]
    else:
        f, thr, pos, cost = presorted_best_split(X, XT, Y, Yc, yi, w, L, a, b, criterion, n_stats, min_leaf, stats,
                                                 W, table, use_table, integer_weights, approx, lay, H, hist_ready,
                                                 counters)
    # int64 constants, not literals, here and below: numba compiles a function once per literal a caller passes
    cart.frontier_record(frontier, fc, a, b, np.int64(0), np.int64(-1), np.int64(0), imp, (f, thr, pos, cost), W, W)
    k = 0
    while fc[cart.C_FRONTIER] > 0:
        rec = cart.pop_frontier(frontier, fc, max_leaves)
        if cart.leaf_reason(rec, np.int64(-1), min_split, min_leaf, min_decrease, max_leaves, fc) >= 0:
            fc[cart.C_LEAVES] += 1
            continue
        f = np.int64(rec[cart.F_FEAT])
        thr = rec[cart.F_THR]
        out_f[k] = f
        out_t[k] = thr
        k += 1
        if fc[cart.C_LEAVES] + fc[cart.C_FRONTIER] + 2 + 1 > max_leaves:
            break  # no node can be split after this one (cart.leaf_reason's budget rule)
        s = np.int64(rec[cart.F_START])
        e = np.int64(rec[cart.F_END])
        depth = np.int64(rec[cart.F_DEPTH])
        # where the node's lists are and where its children's go: the root's children are laid out in the
        # next DPDT level when there is one (they are the first candidate's children), deeper nodes in scratch
        dst = nxt if depth == 0 and nxt.shape[0] > 0 else scratch
        if depth == 0 or (depth == 1 and laid[0] == 1):
            src = L if depth == 0 else nxt
            mid = _partition_lists(src, dst, s, e, _flag_rows(XT, src[rl], s, e, f, thr, flag), flag)
        else:
            mid = _partition_in_place(dst, s, e, _flag_rows(XT, dst[rl], s, e, f, thr, flag), flag, state.buf)
        if depth == 0 and nxt.shape[0] > 0:
            laid[0] = 1
        for side in range(2):  # right child first, as the CART kernel pushes them
            lo, hi = (mid, e) if side == 0 else (s, mid)
            cs, cw = cart.node_stats(dst[rl], lo, hi, Y, w, criterion, n_stats)
            cimp = cart.impurity_of(cs, cw, criterion)
            cf, cthr, cpos, ccost = presorted_best_split(X, XT, Y, Yc, yi, w, dst, lo, hi, criterion, n_stats,
                                                         min_leaf, cs, cw, table, use_table, integer_weights, approx,
                                                         lay, lay[6], np.bool_(False), counters)
            cart.frontier_record(frontier, fc, lo, hi, depth + 1, np.int64(-1), side, cimp, (cf, cthr, cpos, ccost), cw, W)
            if depth == 0:
                kids[side, 0] = 1.0
                kids[side, 1] = cf
                kids[side, 2] = cthr
                kids[side, 3] = cpos
                kids[side, 4] = ccost
    return k


@njit(inline="always")
def _node_resolution(stats, n_rows):
    """4 n eps sum w |y - ybar|^2 over a state's rows (``stats`` holds the centred sums, then the sums of squares):
    the rounding error of its leaf loss, below which the state's targets count as constant (relative to the
    state's own targets, never an absolute cut-off)."""
    m = stats.shape[0] // 2
    q = 0.0
    for j in range(m):
        q += stats[m + j]
    return 4.0 * n_rows * EPSILON * q


@njit
def all_cuts(X, Y, w, L, a, b, criterion, n_stats, min_leaf, parent_stats, parent_w, with_cost, lay):
    """Every cut of the rows ``L[-1, a:b]`` (feature, then threshold ascending) with CART's child cost
    (``cart.scan_sorted``'s formula and rounding when ``with_cost``): (features, thresholds, costs).

    Top-B (``with_cost``) keeps CART's rule that values closer than ``FEATURE_THRESHOLD`` are equal; the exhaustive
    generator cuts between any two distinct values (Prop. 4.1 needs every split), at their midpoint, or at the
    lower value when the midpoint rounds onto one of them."""
    gap = cart.FEATURE_THRESHOLD if with_cost else 0.0
    p = X.shape[1]
    n_node = b - a
    size = max(n_node - 1, 0) * p
    feats = np.empty(size, dtype=np.int64)
    thrs = np.empty(size)
    costs = np.empty(size)
    left = np.empty(n_stats)
    right = np.empty(n_stats)
    FKIND, GBIN, BOFF, _, TMP, CNT, _ = lay
    k = 0
    for f in range(p):
        rows = feature_rows(L, a, b, f, FKIND, GBIN, BOFF, TMP, CNT)
        if X[rows[n_node - 1], f] <= X[rows[0], f] + gap:
            continue
        left[:] = 0.0
        copy_flat(right, parent_stats)
        wl = 0.0
        for t in range(n_node - 1):
            i = rows[t]
            if with_cost:
                cart.add_row(left, Y, w[i], i, criterion, 1.0)
                cart.add_row(right, Y, w[i], i, criterion, -1.0)
                wl += w[i]
            xa = X[i, f]
            xb = X[rows[t + 1], f]
            if xb <= xa + gap or t + 1 < min_leaf or n_node - t - 1 < min_leaf:
                continue
            thr = xa / 2.0 + xb / 2.0
            if thr >= xb or thr < xa or np.isinf(thr):  # a midpoint rounded onto a value: x <= xa separates them
                thr = xa
            feats[k] = f
            thrs[k] = thr
            if with_cost:
                wr = parent_w - wl
                costs[k] = wl * cart.impurity_of(left, wl, criterion) + wr * cart.impurity_of(right, wr, criterion)
            k += 1
    return feats[:k], thrs[:k], costs[:k]


# ------------------------------------------------------------------------------------------------------------
# envelopes over alpha
# ------------------------------------------------------------------------------------------------------------

@njit
def minkowski(PF, PI, l0, nl, r0, nr, shift, action, outF, outI):
    """Envelope of a split: the sum of its children's envelopes (pieces l0.. and r0.., each in alpha order)
    plus ``shift`` (= W_s, the split's own alpha * W_s) on S. Breakpoints are merged exactly (products of
    integer-valued floats). Returns the number of pieces written to ``outF`` / ``outI``."""
    i = 0
    j = 0
    k = 0
    while True:
        pa = l0 + i
        pb = r0 + j
        outF[k, E_] = PF[pa, E_] + PF[pb, E_]
        outF[k, S_] = PF[pa, S_] + PF[pb, S_] + shift
        outI[k, A_] = action
        outI[k, L_] = pa
        outI[k, R_] = pb
        k += 1
        if i == nl - 1 and j == nr - 1:
            return k
        if i == nl - 1:
            j += 1
        elif j == nr - 1:
            i += 1
        else:
            # next breakpoints (E[t+1] - E[t]) / (S[t] - S[t+1]) of each side, compared cross-multiplied
            lhs = (PF[pa + 1, E_] - PF[pa, E_]) * (PF[pb, S_] - PF[pb + 1, S_])
            rhs = (PF[pb + 1, E_] - PF[pb, E_]) * (PF[pa, S_] - PF[pa + 1, S_])
            if lhs < rhs:
                i += 1
            elif rhs < lhs:
                j += 1
            else:
                i += 1
                j += 1


@njit
def lower_envelope(inF, inI, n, outF, outI):
    """The lower envelope over alpha >= 0 of the lines E + alpha * S given in order of decreasing S (equal S:
    increasing E, then earlier action). Pieces come out in order of increasing alpha, with strictly decreasing S
    and increasing E; of lines tied at a point the one with the smaller S is kept (the right limit)."""
    m = 0
    for t in range(n):
        E = inF[t, E_]
        S = inF[t, S_]
        if m > 0 and outF[m - 1, S_] == S:
            continue
        while m > 0 and E <= outF[m - 1, E_]:
            m -= 1
        while m >= 2:
            Ei = outF[m - 2, E_]
            Si = outF[m - 2, S_]
            Ej = outF[m - 1, E_]
            Sj = outF[m - 1, S_]
            if (E - Ei) * (Si - Sj) <= (Ej - Ei) * (Si - S):
                m -= 1
            else:
                break
        outF[m, E_] = E
        outF[m, S_] = S
        outI[m, A_] = inI[t, A_]
        outI[m, L_] = inI[t, L_]
        outI[m, R_] = inI[t, R_]
        m += 1
    return m


@njit
def best_piece(F, start, length, alpha):
    """Index of the piece minimising E + alpha * S (the last one, i.e. the smaller S, on ties)."""
    best = start
    value = F[start, E_] + alpha * F[start, S_]
    for t in range(start + 1, start + length):
        v = F[t, E_] + alpha * F[t, S_]
        if v <= value:
            best = t
            value = v
    return best


@njit
def _merge_backup(WF, WI, w0, wn, MF, MI, nm):
    """Merge the state's envelope WF[w0:w0+wn] with a split's envelope MF[:nm] and write the new envelope
    back at w0; returns its length. Equal lines keep the state's (earlier) action."""
    n = wn + nm
    tmpF = np.empty((n, 2))
    tmpI = np.empty((n, 3), dtype=np.int64)
    i = 0
    j = 0
    for t in range(n):
        take_w = j >= nm or (i < wn and (WF[w0 + i, S_] > MF[j, S_]
                                        or (WF[w0 + i, S_] == MF[j, S_] and WF[w0 + i, E_] <= MF[j, E_])))
        if take_w:
            tmpF[t] = WF[w0 + i]
            tmpI[t] = WI[w0 + i]
            i += 1
        else:
            tmpF[t] = MF[j]
            tmpI[t] = MI[j]
            j += 1
    outF = np.empty((n, 2))
    outI = np.empty((n, 3), dtype=np.int64)
    m = lower_envelope(tmpF, tmpI, n, outF, outI)
    copy_flat(WF[w0:w0 + m], outF[:m])
    copy_flat(WI[w0:w0 + m], outI[:m])
    return m


# ------------------------------------------------------------------------------------------------------------
# the kernel
# ------------------------------------------------------------------------------------------------------------

@njit
def _side_stats(XT, Y, w, rows, a, b, f, thr, left, criterion, n_stats):
    """Statistics of one side of the split (f, thr) of the rows ``rows[a:b]`` (kept in their order): how a
    child at depth D, which has no lists, gets its leaf value. Returns (stats, weight, row count)."""
    stats = np.zeros(n_stats)
    total = 0.0
    n = 0
    x = XT[f]
    for t in range(a, b):
        i = rows[t]
        if (x[i] <= thr) == left:
            cart.add_row(stats, Y, w[i], i, criterion, 1.0)
            total += w[i]
            n += 1
    return stats, total, n


# ------------------------------------------------------------------------------------------------------------
# Algorithm 1: the depth-first build of the MDP with backward induction (§5.6), one step per iteration
# ------------------------------------------------------------------------------------------------------------
# A call of a numba function counts a reference (an atomic NRT_incref / NRT_decref pair) per array it is passed
# (a group: per array of it), and taking a view (``STACK[top - 1]``) counts one too. An iteration at the horizon or
# a backup does little else (with phases that took the groups, the reference counts were a third of a small
# exhaustive search's time, perf), so the kernel decides each step from one frame with the scalar helpers
# ``next_step`` and ``room_needed`` and the cheap steps take only the arrays they touch; ``expand_state``, whose
# scans cost far more than its references, takes the groups. Phases that emit are inline="always" (they read the
# record level the kernel is given at run time).

@njit
def next_step(started, phase, depth, state, start, end, pcand, n_left, N):
    """What the next iteration of the depth-first recursion does (Algorithm 1 with §5.6's order): expand the root,
    expand the left (phase 0) or right (phase 1) child state of candidate ``pcand`` (``n_left`` rows go left) of
    the state on top of the path (its frame: ``phase``, ``depth``, ``state``, rows ``start:end``), or, once both
    are solved (phase 2), back that candidate up.

    Returns (expand, (depth, a, b, side, parent, candidate)): the state's rows are ``LISTS[depth, -1, a:b]`` (of
    the parent's level for a child at depth D), side 0 root, 1 left, 2 right."""
    if not started:
        return True, (0, 0, N, 0, -1, -1)
    if phase == 2:
        return False, (0, 0, N, 0, -1, pcand)
    if phase == 0:
        return True, (depth + 1, start, start + n_left, 1, state, pcand)
    return True, (depth + 1, start + n_left, end, 2, state, pcand)


@njit
def max_candidates(generator, budget, n_rows, p):
    """The most candidate splits the generator returns for a state of ``n_rows`` rows (§5.2): every cut (exhaustive),
    the splits of a CART with ``budget`` leaves, or the top ``budget`` cuts."""
    if generator == GEN_EXHAUSTIVE:
        return max(n_rows - 1, 0) * p
    if generator == GEN_CART:
        return max(budget, 2) - 1
    return budget


@njit
def room_needed(counters, need, capacity):
    """Whether the tables hold the next step, checked before anything changes (a step is never half done):
    ``need`` and ``capacity`` are the rows of (SI / SF, CI / CF, PI / PF, WI / WF) the step needs and the tables
    have. Returns the GROW_* bits of the tables too small, with the rows they need in C_NEED_* (0: room enough)."""
    grow = 0
    for t in range(4):
        if need[t] > capacity[t]:
            grow |= GROW_STATES << t
            counters[C_NEED_STATES + t] = need[t]
    return grow


@njit(inline="always")
def state_rows(data, params, state, step):
    """The rows of the state a step expands (§4: a state is (rows, depth)) and their statistics: a state of depth
    < D gets its lists (the parent's, partitioned by the split, unless the parent's CART laid them out already)
    and, for the CART generator, the histograms of its binned features. Returns (stats, W, n_rows)."""
    depth, a, b, side, _, pcand = step
    X, XT, Y, Yc, yi, w, table, lay = data
    LISTS, CI, CF, HS, HSV = state.LISTS, state.CI, state.CF, state.HS, state.HSV
    criterion, n_stats = params.criterion, params.n_stats
    rl = LISTS.shape[1] - 1  # the rows-ascending list of each level
    GBIN = lay[1]
    use_hist = params.generator == GEN_CART and GBIN.shape[1] > 0
    fr = state.STACK[max(state.counters[C_TOP] - 1, 0)]  # the parent's frame (a child's)
    rows = LISTS[depth, rl]
    if side == 1:  # the left child comes first: lay out both children's lists and histograms
        a0 = fr[FR_START]
        b0 = fr[FR_END]
        n_left = CI[pcand, K_NLEFT]
        if fr[FR_CUR] > 0 or state.LAID[depth] == 0:  # else the parent's CART laid them out
            _flag_rows(XT, LISTS[depth - 1, rl], a0, b0, CI[pcand, K_FEAT], CF[pcand, KF_THR], state.flag)
            _partition_lists(LISTS[depth - 1], LISTS[depth], a0, b0, n_left, state.flag)
        if use_hist:
            _children_hists(rows, a0, a0 + n_left, b0, GBIN, yi, Yc, w, criterion == cart.SQUARED_ERROR,
                            HS[depth - 1], HS[depth], state.HP[depth - 1], HSV, depth)
    elif side == 2 and use_hist:
        HSV[depth] = HSV[params.max_depth + depth - 1]
        if HSV[depth]:
            copy_flat(HS[depth], state.HP[depth - 1])
    elif use_hist:
        HSV[0] = hist_pays(b - a, GBIN.shape[1], HS[0].size)
        if HSV[0]:
            _build_hist(rows, a, b, GBIN, yi, Yc, w, criterion == cart.SQUARED_ERROR, HS[0])
    stats, W = cart.node_stats(rows, a, b, Y, w, criterion, n_stats)
    return stats, W, b - a


@njit(inline="always")
def leaf_action(criterion, stats, W, n_rows):
    """The leaf action of a state (Algorithm 1's Q(s, leaf), in weight units): its loss E = W_s - max_k W_k
    (misclassified weight) and its class, or W_s times CART's impurity (regression; class -1). Returns (E, imp,
    class). A pure state has E = 0 exactly (the same sums); regression targets constant up to the rounding of
    their sums (``_node_resolution``) count as E = 0."""
    imp = cart.impurity_of(stats, W, criterion)
    if criterion == cart.SQUARED_ERROR:
        E = W * imp
        if E <= _node_resolution(stats, n_rows):
            E = 0.0
        return E, imp, -1
    majority = 0
    for c in range(stats.shape[0]):
        if stats[c] > stats[majority]:
            majority = c
    return W - stats[majority], imp, majority


@njit(inline="always")
def add_state(SI, SF, CI, counters, step, n_rows, W, E, imp, majority):
    """Append a state to the tables SI / SF (and link it to the candidate that leads to it); returns its id."""
    depth, _, _, side, parent, pcand = step
    s = counters[C_STATES]
    counters[C_STATES] = s + 1
    SI[s, S_PARENT] = parent
    SI[s, S_DEPTH] = depth
    SI[s, S_NROWS] = n_rows
    SI[s, S_CSTART] = counters[C_CANDS]
    SI[s, S_CLASS] = majority
    SI[s, S_PCAND] = pcand if parent >= 0 else -1
    SI[s, S_SIDE] = side
    SF[s, SF_W] = W
    SF[s, SF_E] = E
    SF[s, SF_IMP] = imp
    if parent >= 0:
        if side == 1:
            CI[pcand, K_LEFT] = s
        else:
            CI[pcand, K_RIGHT] = s
    return s


@njit(inline="always")
def generate_candidates(data, params, state, step, stats, W, approx):
    """The split generator of §5.2 on the state's rows: CART's split nodes (``cart_candidates``), the top-B cuts or
    every cut (``all_cuts``), written to CI / CF from ``counters[C_CANDS]``; returns their number. Counts the
    paper's operations (Table 1): the nodes of the inner CART tree (k splits, k + 1 leaves), or the cuts."""
    depth, a, b, side, _, _ = step
    counters = state.counters
    c0 = counters[C_CANDS]
    counters[C_GEN_CALLS] += 1
    if params.generator == GEN_CART:
        fr = state.STACK[max(counters[C_TOP] - 1, 0)]
        known = state.MEMO[depth, 2 - side] if side > 0 and fr[FR_CUR] == 0 else state.MEMO[params.max_depth + 1, 0]
        ready = data.lay[1].shape[1] > 0 and state.HSV[depth] == 1
        n_cand = cart_candidates(data, params, state, depth, a, b, stats, W, ready, known, approx, c0)
        counters[C_PAPER_OPS] += 2 * n_cand + 1
        return n_cand
    topb = params.generator == GEN_TOPB
    feats, thrs, costs = all_cuts(data.X, data.Y, data.w, state.LISTS[depth], a, b, params.criterion, params.n_stats,
                                  params.min_samples_leaf, stats, W, topb, data.lay)
    counters[C_SCANNED] += (b - a) * data.X.shape[1]
    if topb:
        order = np.argsort(costs, kind="mergesort")
        n_cand = min(params.budgets[depth], order.shape[0])
        for t in range(n_cand):
            state.CI[c0 + t, K_FEAT] = feats[order[t]]
            state.CF[c0 + t, KF_THR] = thrs[order[t]]
    else:
        n_cand = feats.shape[0]
        for t in range(n_cand):
            state.CI[c0 + t, K_FEAT] = feats[t]
            state.CF[c0 + t, KF_THR] = thrs[t]
    counters[C_PAPER_OPS] += n_cand
    return n_cand


@njit(inline="always")
def record_candidates(data, params, state, events, k, it, level, s, a, b):
    """The actions of state s (§4): each candidate split's left-row count and p_left = W_l / W_s; a candidate
    with an empty side (degenerate) or the same partition as an earlier one (duplicate) is not expanded.
    Returns (k, index of the first candidate to expand, or -1: the state is a leaf)."""
    XT, w = data.XT, data.w
    SI, CI, CF, counters = state.SI, state.CI, state.CF, state.counters
    depth, n_rows, c0, n_cand, W = SI[s, S_DEPTH], SI[s, S_NROWS], SI[s, S_CSTART], SI[s, S_NCAND], state.SF[s, SF_W]
    rows = state.LISTS[min(depth, params.max_depth - 1), state.LISTS.shape[1] - 1]
    first = -1
    for t in range(n_cand):
        c = c0 + t
        f = CI[c, K_FEAT]
        thr = CF[c, KF_THR]
        x = XT[f]
        nl = 0
        wl = 0.0
        for r in range(a, b):
            i = rows[r]
            if x[i] <= thr:
                nl += 1
                wl += w[i]
        flags = 0
        if nl == 0 or nl == n_rows:
            flags = CAND_DEGENERATE
        else:
            counters[C_OPS] += 1
            for u in range(c0, c):
                if CI[u, K_FLAGS] == 0 and CI[u, K_FEAT] == f and CI[u, K_NLEFT] == nl:
                    flags = CAND_DUPLICATE
                    counters[C_DUPLICATES] += 1
                    break
        if flags == 0 and first < 0:
            first = t
        CI[c, K_STATE] = s
        CI[c, K_NLEFT] = nl
        CI[c, K_LEFT] = -1
        CI[c, K_RIGHT] = -1
        CI[c, K_FLAGS] = flags
        CF[c, KF_PLEFT] = wl / W if W > 0.0 else 0.0
        if level >= LEVEL_FULL:
            k = emit_candidate(events, k, it, depth=depth, skip=flags, state=s, feature=f, threshold=thr, candidate=c,
                               n_left=nl, n_right=n_rows - nl, p_left=CF[c, KF_PLEFT], generator=params.generator)
    return k, first


@njit(inline="always")
def expand_state(data, params, state, events, k, it, level, step, approx):
    """Expand a state (Algorithm 1's recursion, one state of the MDP of §4): its rows, its leaf action, its
    candidate splits (§5.2); a state without a usable candidate is a leaf, solved at once, else it goes on the
    path with its envelope started by the leaf line (a state of depth < D; ``horizon_state`` builds those at D).
    Returns (k, the state if solved, else -1)."""
    depth, a, b, _, _, _ = step
    counters = state.counters
    if counters[C_STARTED] == 0:
        counters[C_STARTED] = 1
        if level >= LEVEL_SUMMARY:
            k = emit_search_started(events, k, 0, lower=0.0, upper=np.inf, i0=data.X.shape[0], i1=data.X.shape[1],
                                    i2=params.max_depth, f0=params.alpha)
    stats, W, n_rows = state_rows(data, params, state, step)
    E, imp, majority = leaf_action(params.criterion, stats, W, n_rows)
    s = add_state(state.SI, state.SF, state.CI, counters, step, n_rows, W, E, imp, majority)
    n_cand = 0
    if (depth < params.max_depth and E > 0.0 and n_rows >= params.min_samples_split
            and n_rows >= 2 * params.min_samples_leaf):
        n_cand = generate_candidates(data, params, state, step, stats, W, approx)
    counters[C_CANDS] += n_cand
    state.SI[s, S_NCAND] = n_cand
    k, first = record_candidates(data, params, state, events, k, it, level, s, a, b)
    if level >= LEVEL_SUMMARY:
        k = state_expanded(state, events, k, it, params.alpha, step, s)
    if first < 0:  # nothing to choose: a leaf, solved at once
        leaf_solved(state.PF, state.PI, state.SI, counters, s, E)
        return k, s
    top = counters[C_TOP]
    fr = state.STACK[top]
    fr[FR_STATE] = s
    fr[FR_START] = a
    fr[FR_END] = b
    fr[FR_DEPTH] = depth
    fr[FR_CUR] = first
    fr[FR_PHASE] = 0
    fr[FR_WSTART] = counters[C_WORK]
    fr[FR_WLEN] = 1
    wi = counters[C_WORK]
    _leaf_piece(state.WF, state.WI, wi, E)
    counters[C_WORK] = wi + 1
    counters[C_TOP] = top + 1
    return k, -1


@njit(inline="always")
def horizon_state(XT, Y, w, rows, SI, SF, CI, CF, counters, params, frame, step):
    """A state at the horizon D (Algorithm 1: its only action is the leaf): its rows are one side of the parent's
    split of ``rows[frame[FR_START]:frame[FR_END]]`` (no lists at depth D), its leaf action, the state appended;
    returns (state, E). Takes the arrays it reads, not the groups: it runs for most iterations of a deep search."""
    pcand = step[5]
    stats, W, n_rows = _side_stats(XT, Y, w, rows, frame[FR_START], frame[FR_END], CI[pcand, K_FEAT],
                                   CF[pcand, KF_THR], step[3] == 1, params.criterion, params.n_stats)
    E, imp, majority = leaf_action(params.criterion, stats, W, n_rows)
    s = add_state(SI, SF, CI, counters, step, n_rows, W, E, imp, majority)
    SI[s, S_NCAND] = 0
    return s, E


@njit(inline="always")
def leaf_solved(PF, PI, SI, counters, s, E):
    """State s has no usable action but its leaf: its envelope is the leaf line alone (solved at once)."""
    h = counters[C_PIECES]
    _leaf_piece(PF, PI, h, E)
    counters[C_PIECES] = h + 1
    SI[s, S_HSTART] = h
    SI[s, S_HLEN] = 1


@njit(inline="always")
def state_expanded(state, events, k, it, alpha, step, s):
    """The event of an expanded state s (its row in SI / SF)."""
    SI, SF = state.SI, state.SF
    return emit_state_expanded(events, k, it, depth=SI[s, S_DEPTH], side=SI[s, S_SIDE], state=s,
                               parent_state=SI[s, S_PARENT], leaf_loss=SF[s, SF_E],
                               upper=_incumbent(state.STACK, SI, SF, state.PF, state.WF, state.counters, alpha),
                               n_samples=SI[s, S_NROWS], n_candidates=SI[s, S_NCAND], via_candidate=step[5],
                               weight=SF[s, SF_W], impurity=SF[s, SF_IMP])


@njit(inline="always")
def bellman_backup(params, STACK, SI, SF, CI, PI, PF, WI, WF, counters, events, k, it, level, pcand):
    """Bellman's backup of candidate ``pcand`` of the state on top of the path, both children solved (Algorithm 1:
    Q(s, a) = -alpha + p_l V(s_l) + p_r V(s_r), for every alpha at once): the Minkowski sum of the children's
    envelopes shifted by W_s merged into the state's envelope. Moves to the next usable candidate; after the last
    one the state is solved (its envelope stored, the frame popped). Takes the path's tables, not the State: it
    runs once per candidate. Returns (k, the state if solved, else -1)."""
    top = counters[C_TOP]
    fr = STACK[top - 1]
    left_state = CI[pcand, K_LEFT]
    right_state = CI[pcand, K_RIGHT]
    nm = SI[left_state, S_HLEN] + SI[right_state, S_HLEN] - 1
    s = fr[FR_STATE]
    Ws = SF[s, SF_W]
    MF = np.empty((nm, 2))
    MI = np.empty((nm, 3), dtype=np.int64)
    nm = minkowski(PF, PI, SI[left_state, S_HSTART], SI[left_state, S_HLEN], SI[right_state, S_HSTART],
                   SI[right_state, S_HLEN], Ws, pcand, MF, MI)
    fr[FR_WLEN] = _merge_backup(WF, WI, fr[FR_WSTART], fr[FR_WLEN], MF, MI, nm)
    counters[C_WORK] = fr[FR_WSTART] + fr[FR_WLEN]
    counters[C_BACKUPS] += 1
    if level >= LEVEL_SUMMARY:
        alpha = params.alpha
        h = best_piece(MF, np.int64(0), nm, alpha)
        q = MF[h, E_] + alpha * MF[h, S_]
        chosen = WI[best_piece(WF, fr[FR_WSTART], fr[FR_WLEN], alpha), A_]
        k = emit_backup(events, k, it, depth=fr[FR_DEPTH], chosen=1 if chosen == pcand else 0, state=s,
                        feature=CI[pcand, K_FEAT], Q=-q / Ws if Ws > 0.0 else 0.0,
                        upper=_incumbent(STACK, SI, SF, PF, WF, counters, alpha),
                        candidate=pcand, left_state=left_state, right_state=right_state,
                        V_left=_state_value(PF, SI, SF, left_state, alpha),
                        V_right=_state_value(PF, SI, SF, right_state, alpha))
    # next usable candidate, or the state is solved
    nxt = fr[FR_CUR] + 1
    c0 = SI[s, S_CSTART]
    while nxt < SI[s, S_NCAND] and CI[c0 + nxt, K_FLAGS] != 0:
        nxt += 1
    fr[FR_CUR] = nxt
    fr[FR_PHASE] = 0
    if nxt < SI[s, S_NCAND]:
        return k, -1
    h = counters[C_PIECES]
    w0 = fr[FR_WSTART]
    m = fr[FR_WLEN]
    copy_flat(PF[h:h + m], WF[w0:w0 + m])
    copy_flat(PI[h:h + m], WI[w0:w0 + m])
    counters[C_PIECES] = h + m
    SI[s, S_HSTART] = h
    SI[s, S_HLEN] = m
    counters[C_WORK] = w0
    counters[C_TOP] = top - 1
    return k, s


@njit(inline="always")
def state_solved(state, events, k, it, alpha, s):
    """The event of a solved state: V(s) = max_a Q(s, a) and pi(s) at the search's alpha (Algorithm 1)."""
    SI, SF, CI, CF = state.SI, state.SF, state.CI, state.CF
    h = best_piece(state.PF, SI[s, S_HSTART], SI[s, S_HLEN], alpha)
    act = state.PI[h, A_]
    Wv = SF[s, SF_W]
    return emit_state_solved(events, k, it, depth=SI[s, S_DEPTH], n_candidates=SI[s, S_NCAND], state=s,
                             parent_state=SI[s, S_PARENT], feature=CI[act, K_FEAT] if act >= 0 else -1,
                             V=_state_value(state.PF, SI, SF, s, alpha), action=act, pieces=SI[s, S_HLEN],
                             leaf_class=SI[s, S_CLASS], Q_leaf=-SF[s, SF_E] / Wv if Wv > 0.0 else 0.0,
                             threshold=CF[act, KF_THR] if act >= 0 else np.nan)


@njit(inline="always")
def extract_policy(state, events, k, it, alpha):
    """T = E(pi*, s0) (Algorithm 1's last line), the root solved: the events of its best tree at alpha and of the
    search's end."""
    SI, PF, counters = state.SI, state.PF, state.counters
    h = best_piece(PF, SI[0, S_HSTART], SI[0, S_HLEN], alpha)
    W0 = max(state.SF[0, SF_W], 1e-300)  # all-zero weights: every loss is 0
    value = (PF[h, E_] + alpha * PF[h, S_]) / W0
    k = emit_policy(events, k, it, objective=value, upper=value, root_piece=h, path_length=SI[0, S_HLEN],
                    states=counters[C_STATES], error=PF[h, E_] / W0, expected_splits=PF[h, S_] / W0)
    return emit_terminated(events, k, it, optimal=0, lower=0.0, upper=value, value=value, i0=counters[C_STATES],
                           i1=counters[C_OPS], i2=counters[C_BACKUPS])


@njit
def dpdt_kernel(data, params, state, events, max_iterations, level):
    """Advance DPDT by at most ``max_iterations`` iterations (Algorithm 1, one step each: ``next_step``) and
    about ``WORK_PER_CALL`` units of work (the iteration that reaches it ends the call), recording events at
    ``level`` (``LEVEL_*`` of ``odtlab.core.events``); return (n_events, status).

    ``data``, ``params``, ``state``: the groups :data:`Data`, :data:`Params`, :data:`State`;
    ``state.counters[C_CANDS]`` etc. hold every table's fill level. The level is read at run time: one
    compilation serves the three levels (:class:`odtlab.core._jit.LevelKernel`).
    """
    # the arrays the cheap iterations (a state at the horizon, a backup) use, unpacked once (see above)
    XT, Y, w = data.XT, data.Y, data.w
    LISTS, STACK, SI, SF, CI, CF = state.LISTS, state.STACK, state.SI, state.SF, state.CI, state.CF
    PI, PF, WI, WF, counters = state.PI, state.PF, state.WI, state.WF, state.counters
    D = params.max_depth
    N, p = data.X.shape
    approx = np.empty(p)
    k = 0
    if counters[C_DONE] == 1:
        return k, STATUS_DONE
    done = 0
    work = 0
    while done < max_iterations and work < WORK_PER_CALL:
        if k + params.events_per_iteration > events.shape[0]:
            return k, STATUS_BUFFER
        fr = STACK[max(counters[C_TOP] - 1, 0)]  # the frame on top of the path
        started = counters[C_STARTED] == 1
        pcand = SI[fr[FR_STATE], S_CSTART] + fr[FR_CUR] if started else -1
        n_left = CI[pcand, K_NLEFT] if started else 0
        expand, step = next_step(started, fr[FR_PHASE], fr[FR_DEPTH], fr[FR_STATE], fr[FR_START], fr[FR_END],
                                 pcand, n_left, N)
        if expand:
            max_c = max_candidates(params.generator, params.budgets[step[0]], step[2] - step[1], p) if (
                step[0] < D) else 0
            need = (counters[C_STATES] + 1, counters[C_CANDS] + max_c, counters[C_PIECES] + 1,
                    counters[C_WORK] + 1)
        else:
            nm = SI[CI[pcand, K_LEFT], S_HLEN] + SI[CI[pcand, K_RIGHT], S_HLEN] - 1
            need = (0, 0, counters[C_PIECES] + fr[FR_WLEN] + nm, fr[FR_WSTART] + fr[FR_WLEN] + nm)
        grow = room_needed(counters, need, (SI.shape[0], CI.shape[0], PI.shape[0], WI.shape[0]))
        if grow:
            counters[C_GROW] = grow
            return k, STATUS_GROW
        counters[C_ITER] += 1
        done += 1
        it = counters[C_ITER]
        if expand and step[0] == D:
            solved, E = horizon_state(XT, Y, w, LISTS[D - 1, LISTS.shape[1] - 1], SI, SF, CI, CF, counters,
                                      params, fr, step)
            if level >= LEVEL_SUMMARY:
                k = state_expanded(state, events, k, it, params.alpha, step, solved)
            leaf_solved(PF, PI, SI, counters, solved, E)
            work += step[2] - step[1]
        elif expand:  # work: the generator's scans, and the state's rows counted once and per candidate
            scanned, cands = counters[C_SCANNED], counters[C_CANDS]
            k, solved = expand_state(data, params, state, events, k, it, level, step, approx)
            work += counters[C_SCANNED] - scanned + (step[2] - step[1]) * (1 + counters[C_CANDS] - cands)
        else:
            k, solved = bellman_backup(params, STACK, SI, SF, CI, PI, PF, WI, WF, counters, events, k, it, level,
                                       step[5])
            work += 1
        if solved < 0:
            continue
        if level >= LEVEL_FULL:
            k = state_solved(state, events, k, it, params.alpha, solved)
        if counters[C_TOP] == 0:
            counters[C_DONE] = 1
            if level >= LEVEL_SUMMARY:
                k = extract_policy(state, events, k, it, params.alpha)
            return k, STATUS_DONE
        STACK[counters[C_TOP] - 1, FR_PHASE] += 1
    return k, STATUS_BUDGET


@njit
def _state_value(PF, SI, SF, s, alpha):
    """V(s) of a solved state at ``alpha`` in the paper's units: -(E + alpha * S) / W_s."""
    h = best_piece(PF, SI[s, S_HSTART], SI[s, S_HLEN], alpha)
    W = SF[s, SF_W]
    return -(PF[h, E_] + alpha * PF[h, S_]) / W if W > 0.0 else 0.0


@njit(inline="always")
def _incumbent(STACK, SI, SF, PF, WF, counters, alpha):
    """L_alpha of the current policy (unfinished states as leaves): the root's envelope at ``alpha``."""
    W = SF[0, SF_W]
    if W <= 0.0:
        return 0.0
    if counters[C_TOP] == 0 and counters[C_DONE] == 0:  # the root is being expanded: its leaf
        return SF[0, SF_E] / W
    if counters[C_TOP] > 0:
        h = best_piece(WF, STACK[0, FR_WSTART], STACK[0, FR_WLEN], alpha)
        return (WF[h, E_] + alpha * WF[h, S_]) / W
    h = best_piece(PF, SI[0, S_HSTART], SI[0, S_HLEN], alpha)
    return (PF[h, E_] + alpha * PF[h, S_]) / W
