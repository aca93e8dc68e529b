"""Quant-BnB (Mazumder, Meng, Wang, ICML 2022): branch and bound over quantiles, depth 2 and depth 3.

Everything works in ranks (§2.3). ``rank[f, i]`` in 1..u(f) is the index of x_{i,f} among the
distinct values of feature f, and a split (f, t) with t in 0..u(f) sends rank <= t left: t = 0 sends
every row right, t = u(f) every row left, and 0 < t < u(f) is the midpoint between the t-th and the
(t+1)-th distinct value. The sample sets of the paper are then rank intervals: the left set of a root
threshold t is {rank <= t}, the right set {rank > t}.

Depth 2 (Algorithm 1). A tuple (f0, [a, b], F1, F2) is the set of depth-2 trees with root feature f0,
root threshold in [a, b], left child feature in F1 and right child feature in F2. Processing it:

* ``b - a <= s``: exhaustive search, every root threshold in [a, b] with the best stumps of F1 and F2
  (the box of Algorithm 1).
* otherwise the almost s-equi-spaced points t_0..t_s of [a, b] (§3.1) give the upper bound V_s
  (Step 1, eq. 38), and each slice [t_{j-1}, t_j] gets the lower bound W (Step 2): W0 (eq. 9),
  W1,s' (eq. 13 with the *corrected* eq. 11, docs/errata.md Quant-BnB Q1: L1(I_[0,r_{k-1}], f1) + L1(I_[r_k,u], f2))
  or W2 (eq. 10). Child features whose row or column minimum of W reaches U are eliminated
  (Proposition 4.1, eqs. 14-15), and the slice becomes the child tuple (f0, [t_{j-1}, t_j], F1j, F2j).

In the code: ``process_tuple`` is one tuple's Steps 1-2 (``stump_losses_at_points``, ``upper_bound_at_points``
for V_s; ``middle_blocks`` for W1 / W2, ``slice_minima`` for W, ``eliminate_features`` for Proposition 4.1);
the kernel (one iteration = one tuple) then updates U (``update_upper_bound2``) and pushes the kept slices
(``refine2``). At depth 3 an iteration is ``left_sides3`` and ``right_sides3`` (the inner solves of
Proposition C.1 at the points of a root tuple) and ``refine3``; the first is ``all_rows3``. A depth-3 kernel
call ends after about ``WORK_PER_CALL`` work units, between two inner solves of a root tuple if need be.

Choices the paper leaves open, fixed here:

* Shared endpoints (the children's slices share their end points): the children keep the closed slices of the paper,
  but the end points t_{j-1} and t_j were already evaluated exactly in the parent's Step 1 (every
  tree with that root threshold and child features in F1 x F2), so a child marks them *settled* and
  never evaluates them again; it only reuses their stump losses (cached per feature) for W.
  A slice with no threshold strictly inside (t_j - t_{j-1} <= 1) is finished by its parent. The root
  thresholds 0 and u(f0) send every row to one side: for every f0 that is one tree, the best stump on
  all rows, evaluated once by the first tuple (0, [0, 0]); the tuples of eq. (17) start settled.
* Quantile points use floor (the paper's definition). s' of W1 is the paper's floor(0.6 n s / (b - a))
  of the tuple being split, clipped to [1, t_j - t_{j-1}].
* U is updated at once, inside an iteration: later tuples prune against the new U.
* The first U comes by default from ``greedy2`` / ``greedy3``: CART's top split (depth 3:
  its top two levels) found on the presorted ranks without any sorting, with the best stumps of the
  training loss below; its loss is at most that of CART's tree whenever both choose the same splits.
* Ties: a child feature survives while its bound is below U + ``margin``. With a positive
  margin (half a misclassification, or ``tol`` for the squared error: the float resolution of the centred
  sums, ``odtlab.certificate.resolution``, never a fraction of the root's loss) ties are kept, as in
  Proposition 4.1 (<= U), and no optimal tree is ever pruned. With margin -tol ties are pruned: U is
  always attained by a stored tree (the initial tree at the start), so an optimal tree is then pruned
  only when another one with the same loss is already stored. Improvements of U are strict (by more
  than ``tol``, which is 0 for the 0-1 loss).
* Optional similarity bound for the 0-1 loss [not in the paper]: a stump (or a depth-2 tree) that
  misclassifies e rows of a set misclassifies at most e + n rows of that set plus n more rows. With
  the stump losses known at both ends of a slice this bounds every threshold inside it
  (``_similarity2``, ``_slice_bound3``); it only adds to W, so every bound stays valid.

Depth 3 (Appendix C). A root tuple (f0, [a, b]) is the set of depth-3 trees with root feature f0 and
root threshold in [a, b]; its depth-2 subtrees are free. This is Proposition C.1 with W = V = L2 and
Phi_1 = Phi_2 = every depth-2 tuple, where min over Phi of L2 on a sample set is the optimal depth-2
loss D2 of that set, computed by Algorithm 1 itself on the set (an *inner solve*, with its ranks
re-numbered among the set's own distinct values). Condition (ii) becomes D2(left at t_{j-1}) +
D2(right at t_j) >= U => the slice is pruned (chain (55), by the monotonicity of Lemma B.3); condition
(i) holds trivially. An inner solve gets a cutoff c (U minus a lower bound of the other side): it
prunes against min(c, its best) and returns a certified lower bound, exact whenever it is below c.
It starts from the better of two trees on its rows (warm start): its side's tree at the neighbouring point, and
the tree found for the superset of its rows at the root tuple's far end (left side: the left set at b; right side:
the right set at a); a root tuple carries the trees of its end points from its parent (``T[11]``). It stops early
once its best tree reaches the lower bound known before the solve, and skips a queued tuple whose bound (W, chain
(55)) has reached min(cutoff, best) since it was pushed. Per inner root feature it also starts from the lower bound
the solve of a subset of its rows proved for that feature (``d2_solve``'s ``low``: the left set at a for the left
sides, the right set at b for the right sides, carried in ``T[12]``; Lemma B.3). All are sound: any depth-2 tree's
loss on the rows is at least D2, so a warm start only lowers the incumbent Algorithm 1 prunes against (Theorem 4.2
holds for any U a stored tree attains); a tree's loss on a superset is at least its loss on the subset, so the
subset's per-feature bound holds; and a skipped tuple's bound joins the pruned bounds the returned lower bound is
the minimum of. Where a point's two subtrees are known, ``rethreshold3`` keeps them and moves the root threshold to
the best cut of f0 for their leaves' classes, an upper bound (a depth-3 tree, its loss recomputed with refitted
leaves) [not in the paper]: on quantbnb/raisin U reaches 77 and 76 after 80 % and 98 % of the inner iterations,
against 76 at 99.7 % before. The paper's other choices for W and V (nested alive sets Phi per root tuple, Appendix
C) are not implemented. The two levels have their own s (``Params.s`` for the
root tuples, ``S_ROOT3`` = 2 by default; ``Params.s_inner``, the user's s, for the inner solves, as the authors'
code has s and s2): any s >= 2 is sound at either level, since the points t_0 = a < ... < t_s = b cover [a, b]
with slices whose bounds hold for any points (chain (55), Lemma B.3), and Algorithm 1 is exact for any s
(Theorem 4.2); s only decides which points are evaluated.

The stump losses L1 (eq. 6) of many nested sets come from one scan of a feature's sorted order (the
presorted order is never re-sorted). A row belongs, for every point t_j, to exactly
one of the sets "rank_f0 <= t_j" and "rank_f0 > t_j"; one gather puts the rows of a tuple in the
order of a feature, then one tight scan per point gives both sets' best stumps. Two classes: the best
cut maximises or minimises d = (class-0 count - class-1 count) left of the cut, so the scan only keeps
d and its extremes. K classes: the prefix majority only grows and is kept on the way; the suffix
majority is recomputed when it could still improve the best. For classification two points share one scan
(``_scan_binary_pair``, ``_scan_classes_pair``): a tuple whose end points are settled has s - 1 = 2 new
points with the paper's s = 3. Squared error: sum y^2 - (S_l^2 / n_l +
S_r^2 / n_r) over the outputs, with y centred (for floating-point accuracy).

Compile time: numba compiles a helper once per distinct argument types, and a constant argument has its own
literal type, so the cold calls pass constants as ``np.int64(0)`` / ``np.bool_(True)`` (one compilation each).
Step 1's stump scans keep the literal group count 1 on purpose: that copy of ``stump_passes`` is the faster one.
"""
from collections import namedtuple

import numpy as np

from odtlab.bounds import bound_logged
from odtlab.core._jit import njit, overload, types
from odtlab.core import events as ev
from odtlab.core.arrays import copy_flat

# lower-bound choices (§3.2)
LB_W0, LB_W1, LB_W2 = 0, 1, 2
LB_NAMES = {"W0": LB_W0, "W1": LB_W1, "W2": LB_W2}

# -- event kinds (Quant-BnB block 128..159 of core.events) -------------------------------------------------
QB_ITERATION = 128
QB_UPPER = 129
QB_SLICE = 130
QB_ELIMINATE = 131
QB_REFINE = 132
QB_EXHAUSTIVE = 133
QB_SUBPROBLEM = 134
emit_iteration_start = ev.event_kind(
    QB_ITERATION, "IterationStart", "quantbnb",
    {"k": "depth", "alive": "i0", "triples": "f0", "U": "upper", "LB": "lower"},
    "Round {k} (the paper's iteration k of Algorithm 1): {alive} tuples alive ({triples:.6g} trees), "
    "bounds [{LB:.6g}, {U:.6g}]",
    "An iteration of Algorithm 1 starts (a sweep over the alive list AL^(k)): tuples and trees alive, the "
    "certified lower bound (min over alive tuples) and U.").emit
emit_upper_bound = ev.event_kind(
    QB_UPPER, "UpperBoundImproved", "quantbnb",
    {"tuple_id": "node", "parent_id": "parent", "root_feature": "feature", "U": "value", "root_rank": "i0",
     "history_row": "i2", "old_U": "f0"},
    "Upper bound improved: U {old_U:.6g} -> {U:.6g} (root feature {root_feature}, rank {root_rank})",
    "U improved; history_row is the incumbent's row of the solver's history (its tree).").emit
emit_slice = ev.event_kind(
    QB_SLICE, "LowerBoundSlice", "quantbnb",
    {"child_id": "node", "tuple_id": "parent", "root_feature": "feature", "j": "value", "U": "upper",
     "W": "lower", "kept": "flags", "a": "i0", "b": "i1", "bound": "i2", "n_left": "f0", "n_right": "f1"},
    "Slice {j:g} [{a}, {b}] of tuple {tuple_id}: W = {W:.6g} vs U = {U:.6g}, kept={kept}",
    "The lower bound W (eqs. 9-13) of one slice [t_{j-1}, t_j]; kept when W < U.").emit
emit_eliminate = ev.event_kind(
    QB_ELIMINATE, "FeatureEliminated", "quantbnb",
    {"tuple_id": "node", "child_feature": "feature", "W": "value", "U": "upper", "side_bound": "flags",
     "j": "i0", "a": "i1", "b": "i2", "excess": "f0", "side": "f1", "round": "depth"},
    "Round {round}: child feature {child_feature} (side {side:g}: 0 left, 1 right) eliminated from slice "
    "{j} [{a}, {b}] of tuple {tuple_id}, its bound {W:.6g} exceeds U = {U:.6g} by {excess:.6g}",
    "A child feature's row (left, side 0) or column (right, side 1) minimum of W reaches U (Proposition 4.1, "
    "eqs. 14-15); side_bound = 2 * bound kind + side.").emit
emit_refine = ev.event_kind(
    QB_REFINE, "IntervalRefined", "quantbnb",
    {"tuple_id": "node", "parent_id": "parent", "root_feature": "feature", "s": "value", "a": "i0", "b": "i1",
     "kept": "i2"},
    "Tuple {tuple_id} (feature {root_feature}, [{a}, {b}]) refined into {s:g} slices, {kept} kept",
    "A tuple's interval [a, b] is cut at its quantile points (§3.1) into s slices.").emit
emit_exhaustive = ev.event_kind(
    QB_EXHAUSTIVE, "ExhaustiveSearch", "quantbnb",
    {"tuple_id": "node", "parent_id": "parent", "root_feature": "feature", "best": "value", "improved": "flags",
     "a": "i0", "b": "i1", "points": "i2"},
    "Exhaustive search of tuple {tuple_id} (feature {root_feature}, [{a}, {b}]): best {best:.6g}, "
    "improved={improved}",
    "A short interval (b - a <= s) is searched over every root threshold (the box of Algorithm 1).").emit
emit_subtree_solved = ev.event_kind(
    QB_SUBPROBLEM, "SubtreeSolved", "quantbnb",
    {"tuple_id": "node", "root_feature": "feature", "cutoff": "value", "ub": "upper", "lb": "lower",
     "side": "flags", "t": "i0", "inner_steps": "i1", "rows": "i2"},
    "Depth-2 subtree ({side}: 0 left, 1 right, 2 all rows) at rank {t} of feature {root_feature}: "
    "D2 in [{lb:.6g}, {ub:.6g}], cutoff {cutoff:.6g}",
    "Depth 3 (Appendix C): an inner depth-2 solve on one side of a root threshold, against a cutoff.").emit

# integer state (``ist``) slots, shared by the depth-2 and depth-3 kernels
I_HEAD, I_ROUND_END, I_TAIL, I_ROUND, I_STEPS, I_DONE, I_NINC, I_PASSES, I_NEXT_ID, I_EXHAUSTIVE, I_INNER, \
    I_INNER_STEPS, I_STARTED, I_SLICES_PRUNED, I_ELIMINATED, I_PHASE, I_POINT = range(17)
N_IST = 17
# depth 3: where the root tuple at the head stands (``I_PHASE``; ``I_POINT`` is the next point of its side)
PHASE_NEW, PHASE_LEFT, PHASE_RIGHT = 0, 1, 2
#: Work units (rows a view is built from times p, plus rows times feature scans of the inner solves) after which
#: a depth-3 kernel call returns, whatever its iteration budget: a few milliseconds, so that a time limit or
#: Ctrl-C acts within ~0.1 s although a root tuple is up to 2 (s - 1) inner depth-2 solves (a tenth of a second
#: each on sklearn/digits). A call stops between two inner solves (``I_PHASE``, ``I_POINT`` and ``Sides`` say
#: where), so a resumed search is the same search.
WORK_PER_CALL = 1 << 22
#: Depth 3: slices per refinement of a root tuple (``Params.s``; the inner depth-2 solves use ``Params.s_inner``, the
#: user's s). Bisection: a point of a root tuple costs two inner solves, and one point per tuple made fewer of them
#: than the paper's s = 3 (quantbnb/raisin: 382 inner solves instead of 480, 19 % fewer inner iterations).
S_ROOT3 = 2
# float state (``fst``) slots: the incumbent loss U and the certified lower bound of the last iteration start
F_U, F_LB = range(2)
N_FST = 2
# per-iteration statistics (``rstat`` rows): tuples alive, triples (or root thresholds) alive, lower, upper
MAX_ROUNDS = 256
# incumbent history row: root (f, t), then for depth 2 left (f, t), right (f, t); for depth 3 the left
# subtree (f, t, fl, tl, fr, tr) and the right subtree (f, t, fl, tl, fr, tr). Feature -1 = no split.
HIST_COLS = 14

# -- the search's named groups (read-only options and data, the state it writes, scratch) ---------------
#: Options of one search: the task (``cls``: 0-1 loss, else squared error), s quantile slices per refinement
#: (§3.1), the lower bound W0 / W1 / W2 (§3.2) and W1's s' ratio, the tie tolerance ``tol`` and pruning
#: ``margin`` (module docstring), the similarity bound (0-1 loss only) and the work after which a depth-3 kernel
#: call returns (``WORK_PER_CALL``).
Params = namedtuple("Params", "cls s lower_bound sprime_ratio tol margin similarity work_per_call s_inner")
#: What a search writes and a resume needs: the alive tuples ``T``, the ``counters`` (I_*), the float
#: accumulators ``acc`` (U, the lower bound: F_*), the incumbent history (``hist`` rows, ``hval`` losses) and
#: the per-round statistics ``rstat``.
State = namedtuple("State", "T counters acc hist hval rstat")
#: Depth 2: the view of all rows (``build_view``). Depth 3: the ranks, presorted orders, targets, u(f) and
#: ``cum[f, t]`` = rows with rank_f <= t, from which each inner solve builds its view.
Data2 = namedtuple("Data2", "V")
Data3 = namedtuple("Data3", "order rank y Y u cum")
#: Scratch arrays, rewritten by every iteration: the depth-2 engine ``E`` (``make_scratch``), the ids of a
#: refined tuple's children ``cid``; at depth 3 also the inner solves' view ``V``, ``loc`` and ``sides``
#: (``sides`` also carries a root tuple that a kernel call left between two inner solves to the next call);
#: ``bound``, a researcher's bound (:data:`UserBound`) or None.
Work2 = namedtuple("Work2", "E cid bound", defaults=(None,))
Work3 = namedtuple("Work3", "V loc E sides bound", defaults=(None,))
#: Depth 3, per point t_j of the root tuple being processed: lower and upper bounds of D2 on the left and the
#: right set, their trees, the points, the children's ids and what each inner solve returned (its event).
Sides = namedtuple("Sides", "lbL ubL lbR ubR trL trR pts cid solves lowL lowR")


def make_sides(s, p):
    """Empty :class:`Sides` for s slices (s + 1 points) over p features (``lowL``, ``lowR``: ``d2_solve``'s ``low``
    of each point's left and right set)."""
    return Sides(np.zeros(s + 2), np.zeros(s + 2), np.zeros(s + 2), np.zeros(s + 2), np.zeros((s + 2, 6), np.int64),
                 np.zeros((s + 2, 6), np.int64), np.zeros(s + 2, np.int64), np.zeros(s, np.int64),
                 np.zeros((2, s + 2, 8)), np.zeros((s + 2, p)), np.zeros((s + 2, p)))


@njit
def ranks_of(XT, order, rank, distinct):
    """rank[f, i] = index (1..u(f)) of row i's value among feature f's distinct values, which go to
    ``distinct[f, :u(f)]`` in increasing order; returns u."""
    p, n = XT.shape
    u = np.zeros(p, np.int64)
    for f in range(p):
        r = 0
        for q in range(n):
            i = order[f, q]
            x = XT[f, i]
            if q == 0 or x != distinct[f, r - 1]:
                distinct[f, r] = x
                r += 1
            rank[f, i] = r
        u[f] = r
    return u


@njit
def quantile_points(a, b, s, out):
    """Almost s-equi-spaced points of [a, b] (§3.1): t_0 = a, t_s = b, t_j = floor(a + j (b - a) / s)."""
    for j in range(s + 1):
        out[j] = a + (j * (b - a)) // s


@njit
def build_view(order, rank, y, Y, f0, lo, hi, V, loc):
    """The rows with lo < rank[f0] <= hi as a view: sorted orders, ranks re-numbered, targets.

    ``V`` = (vord, vrank, vu, vg, vy, vY, vm, srank, vcum); ``srank[f, q]`` is the rank of the q-th row in
    the order of f (so cuts are found without touching the rows) and ``vcum[f, r]`` the number of rows
    of rank <= r. Local row ids follow the global row order; ``vg[f, r]`` is
    the global rank of local rank r (vg[f, 0] = 0), so a local split maps back to a global midpoint that
    routes the view's rows the same way. O(n p).
    """
    vord, vrank, vu, vg, vy, vY, vm, srank, vcum = V
    p, n = rank.shape
    mo = Y.shape[1]
    m = 0
    for i in range(n):
        r = rank[f0, i]
        if r > lo and r <= hi:
            loc[i] = m
            vy[m] = y[i]
            for o in range(mo):
                vY[m, o] = Y[i, o]
            m += 1
        else:
            loc[i] = -1
    for f in range(p):
        q = 0
        lr = 0
        prev = -1
        vg[f, 0] = 0
        vcum[f, 0] = 0
        for idx in range(n):
            i = order[f, idx]
            li = loc[i]
            if li >= 0:
                g = rank[f, i]
                if g != prev:
                    lr += 1
                    prev = g
                    vg[f, lr] = g
                vord[f, q] = li
                vrank[f, li] = lr
                srank[f, q] = lr
                q += 1
                vcum[f, lr] = q
        vu[f] = lr
    vm[0] = m
    return m


# --------------------------------------------------------------------------------------------------
# stump losses L1 (eq. 6) of many nested sets in one scan
# --------------------------------------------------------------------------------------------------
# A *group* is a list of points; slot c = gbase[g] + k stands for point k of group g. A row of group g
# whose position pos is the number of the group's points below its f0-rank belongs to the "left-type"
# set of the slots k >= pos and to the "right-type" set of the slots k < pos. Step 1 uses one group
# (the quantile points); W1 / W2 use one group per slice (the points r_k inside its middle block).
# ``code[i]`` packs a row's group, position and class: (g << 40) | (pos << 16) | class, or -1 (skip).
# Only the left-type sets are counted: a right-type prefix is the group's prefix minus the left one.

CODE_G, CODE_P, CODE_B = 40, 16, 61
MASK_P, MASK_K = (1 << 24) - 1, (1 << 16) - 1
CUT = 1 << CODE_B  # set by the gather on a row followed by a cut (the next row of its group has a larger rank)


@njit
def _totals(m, vy, vY, cls, code, gbase, glen, ngroups, CT, RT):
    """Per slot the left-type totals, per group the totals of all its rows (counts or target sums)."""
    totL, NL, TA, NA = CT
    TL, QL, TAr, QA = RT
    mo = TL.shape[1]
    NA[:ngroups] = 0
    QA[:ngroups] = 0.0
    TA[:ngroups] = 0
    TAr[:ngroups] = 0.0
    for g in range(ngroups):
        c0 = gbase[g]
        c1 = c0 + glen[g]
        NL[c0:c1] = 0
        QL[c0:c1] = 0.0
        totL[c0:c1] = 0
        TL[c0:c1] = 0.0
    for i in range(m):
        x = code[i]
        if x < 0:
            continue
        g = x >> CODE_G
        c0 = gbase[g]
        c1 = c0 + glen[g]
        cm = c0 + ((x >> CODE_P) & MASK_P)
        NA[g] += 1
        if cls:
            cl = x & MASK_K
            TA[g, cl] += 1
            for c in range(cm, c1):
                totL[c, cl] += 1
                NL[c] += 1
        else:
            q = 0.0
            for o in range(mo):
                q += vY[i, o] * vY[i, o]  # finite for estimator input: encoders.check_magnitudes
                TAr[g, o] += vY[i, o]
            QA[g] += q
            for c in range(cm, c1):
                NL[c] += 1
                QL[c] += q
                for o in range(mo):
                    TL[c, o] += vY[i, o]


@njit(inline="always")
def _extend(ext, d, r):
    """The extremes (max, min, cut at the max, cut at the min) of a running difference d, after cut r."""
    if d > ext[0]:
        return (d, ext[1], r, ext[3])
    if d < ext[1]:
        return (ext[0], d, ext[2], r)
    return ext


@njit(inline="always")
def _binary_best(T0, T1, ext):
    """Rows classified correctly by the best cut, and the cut (0 = no split), from the extremes of d."""
    best = max(T0, T1)
    cut = 0
    if T1 + ext[0] > best:
        best = T1 + ext[0]
        cut = ext[2]
    if T0 - ext[1] > best:
        best = T0 - ext[1]
        cut = ext[3]
    return best, cut


@njit(inline="always")
def _binary_sets(NL, T1L, NA, T1A, D, E):
    """(left loss, left cut, right loss, right cut) of one slot, from the extremes D of d (left set,
    NL rows, T1L of class 1) and E of e (right set; NA, T1A: the group's totals)."""
    bl, cl = _binary_best(NL - T1L, T1L, D)
    NR = NA - NL
    T1R = T1A - T1L
    br, cr = _binary_best(NR - T1R, T1R, E)
    return NL - bl, cl, NR - br, cr


@njit(inline="always")
def _walk(x, k, d, e):
    """d (class 0 minus class 1, left set of slot k) and e (the same for the right set) after row code x."""
    v = 1 - 2 * (x & 1)
    inl = np.int64(((x >> CODE_P) & MASK_P) <= k)
    return d + v * inl, e + v - v * inl


@njit
def _scan_binary(seq, srk, lo, hi, k, NL, T1L, NA, T1A):
    """Best stumps of slot k's two sets for two classes, scanning one group's rows in feature order.

    With l0, l1 the class counts left of a cut, the rows classified correctly are max(l0, l1) +
    max(T0 - l0, T1 - l1) = max(T0, T1, T1 + d, T0 - d) with d = l0 - l1, so the best cut is the one
    with the largest or the smallest d: the scan only keeps d (e for the right set) and its extremes.
    Returns (left loss, left cut, right loss, right cut).
    """
    d = 0
    e = 0
    D = (0, 0, 0, 0)
    E = (0, 0, 0, 0)
    for q in range(lo, hi):
        x = seq[q]
        d, e = _walk(x, k, d, e)
        if x & CUT:
            r = np.int64(srk[q])
            D = _extend(D, d, r)
            E = _extend(E, e, r)
    return _binary_sets(NL, T1L, NA, T1A, D, E)


@njit
def _scan_binary_pair(seq, srk, lo, hi, k, NL1, T1L1, NL2, T1L2, NA, T1A):
    """_scan_binary for the slots k and k + 1 in one scan (the common case: s = 3 gives two points)."""
    d1 = 0
    e1 = 0
    d2 = 0
    e2 = 0
    D1 = (0, 0, 0, 0)
    E1 = (0, 0, 0, 0)
    D2 = (0, 0, 0, 0)
    E2 = (0, 0, 0, 0)
    for q in range(lo, hi):
        x = seq[q]
        d1, e1 = _walk(x, k, d1, e1)
        d2, e2 = _walk(x, k + 1, d2, e2)
        if x & CUT:
            r = np.int64(srk[q])
            D1 = _extend(D1, d1, r)
            E1 = _extend(E1, e1, r)
            D2 = _extend(D2, d2, r)
            E2 = _extend(E2, e2, r)
    return _binary_sets(NL1, T1L1, NA, T1A, D1, E1) + _binary_sets(NL2, T1L2, NA, T1A, D2, E2)


@njit(inline="always")
def _suffix_majorities(K, totL, TA, lc, ac):
    """Largest class count right of the cut in the left set (class totals ``totL``, counts so far ``lc``)
    and in the right set (group totals ``TA``, group counts so far ``ac``)."""
    sml = 0
    smr = 0
    for c in range(K):
        sml = max(sml, totL[c] - lc[c])
        smr = max(smr, TA[c] - totL[c] - ac[c] + lc[c])
    return sml, smr


@njit
def _scan_classes(seq, srk, lo, hi, k, K, totL, NL, TA, NA, lc, ac):
    """Best stumps of slot k's two sets for K classes (``totL``, ``TA``: class totals of the left set
    and of the group). The prefix majorities only grow and are kept as the scan goes; the suffix
    majorities only shrink, so the last computed value bounds them and they are recomputed (O(K))
    only at cuts where that bound still allows an improvement."""
    NR = NA - NL
    lc[:] = 0
    ac[:] = 0
    sml, smr = _suffix_majorities(K, totL, TA, lc, ac)
    bestL = NL - sml
    bestR = NR - smr
    cutL = cutR = 0
    pml = pmr = 0
    for q in range(lo, hi):
        x = seq[q]
        cl = x & MASK_K
        inl = np.int64(((x >> CODE_P) & MASK_P) <= k)
        v = lc[cl] + inl
        lc[cl] = v
        a = ac[cl] + 1
        ac[cl] = a
        pml = max(pml, v)
        pmr = max(pmr, a - v)
        if x & CUT and (NL - pml - sml < bestL or NR - pmr - smr < bestR):
            sml, smr = _suffix_majorities(K, totL, TA, lc, ac)
            if NL - pml - sml < bestL:
                bestL = NL - pml - sml
                cutL = srk[q]
            if NR - pmr - smr < bestR:
                bestR = NR - pmr - smr
                cutR = srk[q]
    return bestL, cutL, bestR, cutR


@njit
def _scan_classes_pair(seq, srk, lo, hi, k, K, totL1, NL1, totL2, NL2, TA, NA, lc1, lc2, ac):
    """_scan_classes for the slots k and k + 1 in one scan (the common case, as ``_scan_binary_pair``):
    the two slots share the group's running class counts ``ac``. Per slot h, ``st[h]`` = (left loss, left
    cut, right loss, right cut, suffix majority bounds of the left and the right set, NL, NR) and ``pm[h]``
    = the prefix majorities of its left and right set."""
    lc1[:] = 0
    lc2[:] = 0
    ac[:] = 0
    st = np.empty((2, 8), np.int64)
    for h in range(2):
        totL, NL, lc = (totL1, NL1, lc1) if h == 0 else (totL2, NL2, lc2)
        sml, smr = _suffix_majorities(K, totL, TA, lc, ac)
        st[h, 0], st[h, 1], st[h, 2], st[h, 3], st[h, 4], st[h, 5], st[h, 6], st[h, 7] = \
            NL - sml, 0, NA - NL - smr, 0, sml, smr, NL, NA - NL
    pm = np.zeros((2, 2), np.int64)
    for q in range(lo, hi):
        x = seq[q]
        cl = x & MASK_K
        pos = (x >> CODE_P) & MASK_P
        a = ac[cl] + 1
        ac[cl] = a
        v1 = lc1[cl] + np.int64(pos <= k)
        lc1[cl] = v1
        v2 = lc2[cl] + np.int64(pos <= k + 1)
        lc2[cl] = v2
        pm[0, 0] = max(pm[0, 0], v1)
        pm[0, 1] = max(pm[0, 1], a - v1)
        pm[1, 0] = max(pm[1, 0], v2)
        pm[1, 1] = max(pm[1, 1], a - v2)
        if not x & CUT:
            continue
        for h in range(2):
            lossL = st[h, 6] - pm[h, 0] - st[h, 4]
            lossR = st[h, 7] - pm[h, 1] - st[h, 5]
            if lossL < st[h, 0] or lossR < st[h, 2]:
                totL, lc = (totL1, lc1) if h == 0 else (totL2, lc2)
                st[h, 4], st[h, 5] = _suffix_majorities(K, totL, TA, lc, ac)
                lossL = st[h, 6] - pm[h, 0] - st[h, 4]
                lossR = st[h, 7] - pm[h, 1] - st[h, 5]
                if lossL < st[h, 0]:
                    st[h, 0] = lossL
                    st[h, 1] = srk[q]
                if lossR < st[h, 2]:
                    st[h, 2] = lossR
                    st[h, 3] = srk[q]
    return st[0, 0], st[0, 1], st[0, 2], st[0, 3], st[1, 0], st[1, 1], st[1, 2], st[1, 3]


@njit
def _scan_squares(seq, srk, rows, vY, lo, hi, k, TL, NL, QL, TA, NA, QA, sl, sa):
    """Best stumps of slot k's two sets for the squared error: sum y^2 - max over cuts of
    (S_l^2 / n_l + S_r^2 / n_r), summed over the outputs (``TL``, ``TA``: target sums)."""
    mo = sl.shape[0]
    NR = NA - NL
    sl[:] = 0.0
    sa[:] = 0.0
    gl = (TL * TL / NL).sum() if NL > 0 else 0.0  # the gains of no cut (finite: encoders.check_magnitudes)
    gr = ((TA - TL) * (TA - TL) / NR).sum() if NR > 0 else 0.0
    cutL = 0
    cutR = 0
    nl = 0
    for q in range(lo, hi):
        i = rows[q]
        inl = ((seq[q] >> CODE_P) & MASK_P) <= k
        for o in range(mo):
            y = vY[i, o]
            sa[o] += y
            if inl:
                sl[o] += y
        if inl:
            nl += 1
        if seq[q] & CUT:
            nr = NL - nl
            if nl > 0 and nr > 0:
                gain = 0.0
                for o in range(mo):
                    gain += sl[o] * sl[o] / nl + (TL[o] - sl[o]) * (TL[o] - sl[o]) / nr
                if gain > gl:
                    gl = gain
                    cutL = srk[q]
            n1 = q + 1 - lo - nl
            n2 = NR - n1
            if n1 > 0 and n2 > 0:
                gain = 0.0
                for o in range(mo):
                    s1 = sa[o] - sl[o]
                    s2 = TA[o] - TL[o] - s1
                    gain += s1 * s1 / n1 + s2 * s2 / n2
                if gain > gr:
                    gr = gain
                    cutR = srk[q]
    return max(QL - gl, 0.0), cutL, max(QA - QL - gr, 0.0), cutR


@njit
def stump_passes(V, cls, F1, F2, G, ngroups, SC, OUT):
    """Stump losses on every feature f of F1 or F2 for every slot c of the first ``ngroups`` groups: ``OUT`` =
    (bestL, cutL, bestR, cutR)[f, c]. Returns the number of feature scans.

    Per feature, one gather puts each group's rows, in the order of f, in a contiguous segment; then each slot
    scans its group's segment (the presorted order is never re-sorted). One call per tuple, not per feature:
    numba counts a reference of every array of the groups at each call of a non-inlined function.
    """
    vord, vY, vm, srank = V[0], V[5], V[6], V[7]
    code, gbase, glen = G
    CT, RT, SEQ = SC
    totL, NL, TA, NA = CT
    TL, QL, TAr, QA = RT
    seq, srk, rows, gstart, gfill, lc, ac, sl, sa, lc2 = SEQ
    bestL, cutL, bestR, cutR = OUT
    m = vm[0]
    K = totL.shape[1]
    passes = 0
    for f in range(F1.shape[0]):
        if not (F1[f] or F2[f]):
            continue
        passes += 1
        if ngroups == 1 and NA[0] == m:  # Step 1: every row in one group, a plain gather
            gstart[0] = 0
            gfill[0] = m
            prev = -1
            for q in range(m):
                i = vord[f, q]
                r = srank[f, q]
                if r != prev and q > 0:
                    seq[q - 1] |= CUT
                seq[q] = code[i]
                srk[q] = r
                rows[q] = i
                prev = r
        else:
            start = 0
            for g in range(ngroups):
                gstart[g] = start
                gfill[g] = start
                start += NA[g]
            for q in range(m):
                i = vord[f, q]
                x = code[i]
                if x >= 0:
                    g = x >> CODE_G
                    j = gfill[g]
                    r = srank[f, q]
                    if j > gstart[g] and srk[j - 1] != r:
                        seq[j - 1] |= CUT
                    seq[j] = x
                    srk[j] = r
                    rows[j] = i
                    gfill[g] = j + 1
        for g in range(ngroups):
            lo = gstart[g]
            hi = gfill[g]
            if hi > lo:
                seq[hi - 1] |= CUT
            k = 0
            while cls and k + 1 < glen[g]:
                c = gbase[g] + k
                if K == 2:
                    r2 = _scan_binary_pair(seq, srk, lo, hi, k, NL[c], totL[c, 1], NL[c + 1], totL[c + 1, 1],
                                           NA[g], TA[g, 1])
                else:
                    r2 = _scan_classes_pair(seq, srk, lo, hi, k, K, totL[c], NL[c], totL[c + 1], NL[c + 1], TA[g],
                                            NA[g], lc, lc2, ac)
                bestL[f, c], cutL[f, c], bestR[f, c], cutR[f, c], bestL[f, c + 1], cutL[f, c + 1], bestR[f, c + 1], \
                    cutR[f, c + 1] = r2
                k += 2
            for k in range(k, glen[g]):
                c = gbase[g] + k
                if cls and K == 2:
                    r = _scan_binary(seq, srk, lo, hi, k, NL[c], totL[c, 1], NA[g], TA[g, 1])
                elif cls:
                    r = _scan_classes(seq, srk, lo, hi, k, K, totL[c], NL[c], TA[g], NA[g], lc, ac)
                else:
                    r = _scan_squares(seq, srk, rows, vY, lo, hi, k, TL[c], NL[c], QL[c], TAr[g], NA[g], QA[g], sl,
                                      sa)
                bestL[f, c], cutL[f, c], bestR[f, c], cutR[f, c] = r
    return passes


# --------------------------------------------------------------------------------------------------
# one depth-2 tuple: Step 1 (upper bound V_s, eq. 38) and Step 2 (W and Proposition 4.1)
# --------------------------------------------------------------------------------------------------

@njit
def _similarity2(JA, JB, F1, F2, j, n_mid, rowmin, colmin):
    """Tighten the row and column minima of slice j with the 0-1 similarity bound [not in the paper].

    A stump that misclassifies e rows of a set misclassifies at most e + n rows of the set plus n rows,
    so for t in [t_{j-1}, t_j]: L1(I_[0,t], f1) >= L1(I_[0,t_j], f1) - n(t, t_j] and L1(I_[t,u], f2) >=
    L1(I_[t_{j-1},u], f2) - n(t_{j-1}, t]. With eq. (9)'s terms this gives, for every pair,
    L2 >= max(W0, L1(I_[0,t_j], f1) + L1(I_[t_{j-1},u], f2) - n_mid) (the minimum over t of the sum of
    the two maxima). Unknown stump losses are -inf and leave W0.
    """
    p = F1.shape[0]
    rmin = np.full(p, np.inf)
    cmin = np.full(p, np.inf)
    for f1 in range(p):
        if F1[f1]:
            for f2 in range(p):
                if F2[f2]:
                    v = max(JA[f1, j - 1] + JB[f2, j], JA[f1, j] + JB[f2, j - 1] - n_mid)
                    rmin[f1] = min(rmin[f1], v)
                    cmin[f2] = min(cmin[f2], v)
    for f in range(p):
        if F1[f]:
            rowmin[f] = max(rowmin[f], rmin[f])
        if F2[f]:
            colmin[f] = max(colmin[f], cmin[f])


@njit
def _points(a, b, s, pts):
    """The root thresholds a tuple [a, b] evaluates: every one when b - a <= s (exhaustive search, the box
    of Algorithm 1), else the almost s-equi-spaced points. Returns (exhaustive, number of points)."""
    if b - a <= s:
        for j in range(b - a + 1):
            pts[j] = a + j
        return True, b - a + 1
    quantile_points(a, b, s, pts)
    return False, s + 1


@njit(inline="always")
def stump_losses_at_points(V, cls, T, x, npts, E):
    """Step 1 of Algorithm 1 on tuple x: the stump losses L1 (eq. 6) of the left sets I_[0,t_j] for the
    features of F1 (``JA``) and of the right sets I_[t_j,u] for F2 (``JB``) at its points, one feature scan
    each; a settled end point takes the parent's cached losses. Returns the number of feature scans."""
    vrank, vy, vY, vm = V[1], V[4], V[5], V[6]
    code, gbase, glen = E[0]
    bestL, cutL, bestR, cutR = E[2]
    JA, JB, CA, CB, spt = E[3][0], E[3][1], E[3][2], E[3][3], E[3][8]
    pts, evi = E[4][5], E[4][6]
    f0, F1, F2 = T[0][x], T[7][x], T[8][x]
    sa, sb = (T[3][x] & 1) != 0, (T[3][x] & 2) != 0
    m = vm[0]
    p = F1.shape[0]
    ne = 0
    for j in range(npts):
        if (j == 0 and sa) or (j == npts - 1 and sb):
            evi[j] = -1
        else:
            evi[j] = ne
            spt[ne] = pts[j]
            ne += 1
    gbase[0] = 0
    glen[0] = ne
    for i in range(m):
        r = vrank[f0, i]
        k = 0
        while k < ne and spt[k] < r:
            k += 1
        code[i] = (k << CODE_P) | (vy[i] if cls else 0)
    _totals(m, vy, vY, cls, code, gbase, glen, np.int64(1), E[1][0], E[1][1])
    passes = stump_passes(V, cls, F1, F2, E[0], np.int64(1), E[1], E[2])
    for f in range(p):
        for j in range(npts):
            e = evi[j]
            if e >= 0:
                if F1[f]:
                    JA[f, j] = bestL[f, e]
                    CA[f, j] = cutL[f, e]
                if F2[f]:
                    JB[f, j] = bestR[f, e]
                    CB[f, j] = cutR[f, e]
    for f in range(p):  # element by element: an array assignment compiles a shape-error formatter
        if sa:  # cA = L1(I_[0,a], f), cRa = L1(I_[a,u], f), cached by the parent
            JA[f, 0] = T[9][x, f]
            JB[f, 0] = T[12][x, f]
        if sb:  # cB = L1(I_[b,u], f), cLb = L1(I_[0,b], f)
            JB[f, npts - 1] = T[10][x, f]
            JA[f, npts - 1] = T[11][x, f]
    return passes


@njit(inline="always")
def upper_bound_at_points(F1, F2, npts, E):
    """V_s of Step 1 (eq. 38): the best tree with a root threshold among the evaluated points, the best
    stumps of F1 on the left and of F2 on the right. Returns (loss, point, f1, f2) (inf, -1 when none)."""
    JA, JB, evi = E[3][0], E[3][1], E[4][6]
    p = F1.shape[0]
    best = np.inf
    jbest = -1
    b1 = -1
    b2 = -1
    for j in range(npts):
        if evi[j] < 0:
            continue
        m1 = np.inf
        a1 = -1
        m2 = np.inf
        a2 = -1
        for f in range(p):
            if F1[f] and JA[f, j] < m1:
                m1 = JA[f, j]
                a1 = f
            if F2[f] and JB[f, j] < m2:
                m2 = JB[f, j]
                a2 = f
        if m1 + m2 < best:
            best = m1 + m2
            jbest = j
            b1 = a1
            b2 = a2
    return best, jbest, b1, b2


@njit(inline="always")
def middle_blocks(V, P, T, x, E):
    """Step 2 for W1,s' (eq. 13) and W2 (eq. 10): the points r_k inside each slice [t_{j-1}, t_j] (s' of
    them, one group per slice) and the stump losses of their nested sets, J3 (left) and J4 (right) of the
    decomposition (43). Returns the number of feature scans."""
    vrank, vy, vY, vm = V[1], V[4], V[5], V[6]
    code, gbase, glen = E[0]
    bestL, bestR = E[2][0], E[2][2]
    J3, J4, spt, sps = E[3][4], E[3][5], E[3][8], E[3][9]
    pts = E[4][5]
    f0, a, b, F1, F2 = T[0][x], T[1][x], T[2][x], T[7][x], T[8][x]
    s = P.s
    m = vm[0]
    p = F1.shape[0]
    tot = 0
    for j in range(1, s + 1):
        al = pts[j - 1]
        be = pts[j]
        if P.lower_bound == LB_W2:
            sp = be - al
        else:
            sp = np.int64(P.sprime_ratio * m * s / (b - a))
            sp = min(max(sp, 1), be - al)
        g = j - 1
        if sp <= 1 and P.lower_bound == LB_W1:
            glen[g] = 0
            gbase[g] = tot
            sps[g] = 0
            continue
        sps[g] = sp
        gbase[g] = tot
        glen[g] = sp + 1
        for k in range(sp + 1):
            spt[tot + k] = al + (k * (be - al)) // sp
        tot += sp + 1
    for i in range(m):
        r = vrank[f0, i]
        code[i] = -1
        if r <= pts[0] or r > pts[s]:
            continue
        j = 1
        while pts[j] < r:
            j += 1
        g = j - 1
        if glen[g] == 0:
            continue
        lo = gbase[g]
        hi = lo + glen[g] - 1  # spt[lo] < r <= spt[hi]: first k with spt[lo + k] >= r
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if spt[mid] >= r:
                hi = mid
            else:
                lo = mid
        code[i] = (g << CODE_G) | ((hi - gbase[g]) << CODE_P) | (vy[i] if P.cls else 0)
    passes = 0
    if tot > 0:
        _totals(m, vy, vY, P.cls, code, gbase, glen, s, E[1][0], E[1][1])
        passes = stump_passes(V, P.cls, F1, F2, E[0], s, E[1], E[2])
        for f in range(p):
            for c in range(tot):
                if F1[f]:
                    J3[f, c] = bestL[f, c]
                if F2[f]:
                    J4[f, c] = bestR[f, c]
    return passes


@njit(inline="always")
def w0_minima(F1, F2, JA, JB, j):
    """The two terms of slice j's W0 (eq. 9) at their smallest: min over F1 of L1(I_[0,t_{j-1}], f1) and min over
    F2 of L1(I_[t_j,u], f2)."""
    minA = np.inf
    minB = np.inf
    for f in range(F1.shape[0]):
        if F1[f] and JA[f, j - 1] < minA:
            minA = JA[f, j - 1]
        if F2[f] and JB[f, j] < minB:
            minB = JB[f, j]
    return minA, minB


@njit(inline="always")
def slice_minima(lbkind, F1, F2, s, E):
    """Row minima (39) and column minima (40) of W over the child features of each slice j = [t_{j-1}, t_j]:
    through the J1..J4 decomposition (43) when the slice has a middle block (W1, W2), else W0 (eq. 9):
    L1(I_[0,t_{j-1}], f1) + L1(I_[t_j,u], f2)."""
    glen, gbase = E[0][2], E[0][1]
    JA, JB, J3, J4, M3, M4, sps = E[3][0], E[3][1], E[3][4], E[3][5], E[3][6], E[3][7], E[3][9]
    rowmin, colmin = E[4][2], E[4][3]
    p = F1.shape[0]
    for j in range(1, s + 1):
        g = j - 1
        if lbkind != LB_W0 and glen[g] > 0:
            sp = sps[g]
            c0 = gbase[g]
            d = 1 if lbkind == LB_W1 else 0
            for k in range(d, sp + 1):
                v4 = np.inf
                v3 = np.inf
                for f in range(p):
                    if F2[f]:
                        w = J4[f, c0 + k] + JB[f, j]
                        if w < v4:
                            v4 = w
                    if F1[f]:
                        w = J3[f, c0 + k - d] + JA[f, j - 1]
                        if w < v3:
                            v3 = w
                M4[k] = v4
                M3[k] = v3
            for f in range(p):
                if F1[f]:
                    v = np.inf
                    for k in range(d, sp + 1):
                        w = J3[f, c0 + k - d] + M4[k]
                        if w < v:
                            v = w
                    rowmin[g, f] = JA[f, j - 1] + v
                if F2[f]:
                    v = np.inf
                    for k in range(d, sp + 1):
                        w = J4[f, c0 + k] + M3[k]
                        if w < v:
                            v = w
                    colmin[g, f] = JB[f, j] + v
            continue
        minA, minB = w0_minima(F1, F2, JA, JB, j)
        for f in range(p):
            if F1[f]:
                rowmin[g, f] = JA[f, j - 1] + minB
            if F2[f]:
                colmin[g, f] = minA + JB[f, j]


@njit(inline="always")
def eliminate_features(F1, F2, s, Ucur, margin, SL):
    """Proposition 4.1 (eqs. 14-15) on each slice g: keep a child feature while its row (left) or column
    (right) minimum of W is below U + margin; the slice's bound is the smallest kept row minimum, inf (pruned)
    when one side keeps nothing. Returns the smallest bound of an eliminated feature."""
    keep1, keep2, rowmin, colmin, slb = SL[0], SL[1], SL[2], SL[3], SL[4]
    p = F1.shape[0]
    pruned_min = np.inf
    for g in range(s):
        lb = np.inf
        n2 = 0
        for f in range(p):
            keep1[g, f] = False
            keep2[g, f] = False
            if F1[f]:
                if rowmin[g, f] < Ucur + margin:
                    keep1[g, f] = True
                    if rowmin[g, f] < lb:
                        lb = rowmin[g, f]
                elif rowmin[g, f] < pruned_min:
                    pruned_min = rowmin[g, f]
            if F2[f]:
                if colmin[g, f] < Ucur + margin:
                    keep2[g, f] = True
                    n2 += 1
                elif colmin[g, f] < pruned_min:
                    pruned_min = colmin[g, f]
        if n2 == 0 or lb == np.inf:
            slb[g] = np.inf
            for f in range(p):
                keep1[g, f] = False
                keep2[g, f] = False
        else:
            slb[g] = lb
    return pruned_min


@njit
def process_tuple(V, P, T, x, U, E):
    """Process the depth-2 tuple x = (f0, [a, b], F1, F2) of ``T`` against the incumbent loss U (Algorithm 1).

    An end point flagged settled in ``T[3][x]`` was evaluated by the parent, whose stump losses at it are
    cached in the tuple (``T[11]``, ``T[12]`` may be -inf: unknown). Returns ``(exhaustive, npts, best,
    jbest, f1, f2, n_passes, pruned_min)``: the best loss of a tree with a root threshold among the
    evaluated points (``jbest`` its point, ``f1``/``f2`` its child features, whose cuts are ``E``'s
    CA[f1, jbest] and CB[f2, jbest]), the number of feature scans, and the smallest bound of an eliminated
    child feature. Per slice (split mode) ``E``'s SL holds the kept child features, their row / column
    minima of W and the slice's bound.
    """
    SL = E[4]
    f0, a, b, F1, F2 = T[0][x], T[1][x], T[2][x], T[7][x], T[8][x]
    exhaustive, npts = _points(a, b, P.s, SL[5])
    passes = stump_losses_at_points(V, P.cls, T, x, npts, E)
    best, jbest, b1, b2 = upper_bound_at_points(F1, F2, npts, E)
    if exhaustive:
        return True, npts, best, jbest, b1, b2, passes, np.inf
    Ucur = best if best < U - P.tol else U
    if P.lower_bound != LB_W0:
        passes += middle_blocks(V, P, T, x, E)
    slice_minima(P.lower_bound, F1, F2, P.s, E)
    if P.similarity:  # with the rows strictly inside each slice
        pts, vcum = SL[5], V[8]
        for j in range(1, P.s + 1):
            _similarity2(E[3][0], E[3][1], F1, F2, j, vcum[f0, pts[j]] - vcum[f0, pts[j - 1]], SL[2][j - 1],
                         SL[3][j - 1])
    pruned_min = eliminate_features(F1, F2, P.s, Ucur, P.margin, SL)
    return False, npts, best, jbest, b1, b2, passes, pruned_min


def make_scratch(p, n, K, mo, s, n_slots):
    """Work arrays of one depth-2 engine: p features, views of up to n rows, ``n_slots`` slots."""
    S = max(n_slots, s + 2)
    NG = s + 2
    G = (np.zeros(n, np.int64), np.zeros(NG, np.int64), np.zeros(NG, np.int64))
    CT = (np.zeros((S, K), np.int64), np.zeros(S, np.int64), np.zeros((NG, K), np.int64), np.zeros(NG, np.int64))
    RT = (np.zeros((S, mo)), np.zeros(S), np.zeros((NG, mo)), np.zeros(NG))
    SEQ = (np.zeros(n, np.int64), np.zeros(n, np.int32), np.zeros(n, np.int64), np.zeros(NG, np.int64),
           np.zeros(NG, np.int64), np.zeros(K, np.int64), np.zeros(K, np.int64), np.zeros(mo), np.zeros(mo),
           np.zeros(K, np.int64))
    SC = (CT, RT, SEQ)
    OUT = (np.zeros((p, S)), np.zeros((p, S), np.int64), np.zeros((p, S)), np.zeros((p, S), np.int64))
    J = (np.zeros((p, s + 2)), np.zeros((p, s + 2)), np.zeros((p, s + 2), np.int64),
         np.zeros((p, s + 2), np.int64), np.zeros((p, S)), np.zeros((p, S)), np.zeros(S + 1), np.zeros(S + 1),
         np.zeros(S + 1, np.int64), np.zeros(s + 2, np.int64))
    SL = (np.zeros((s, p), np.bool_), np.zeros((s, p), np.bool_), np.zeros((s, p)), np.zeros((s, p)),
          np.zeros(s), np.zeros(s + 2, np.int64), np.zeros(s + 2, np.int64))
    return G, SC, OUT, J, SL


def make_view(p, n, mo):
    """Empty view arrays for up to n rows (see :func:`build_view`)."""
    return (np.zeros((p, n), np.int32), np.zeros((p, n), np.int32), np.zeros(p, np.int64),
            np.zeros((p, n + 1), np.int64), np.zeros(n, np.int64), np.zeros((n, mo)), np.zeros(1, np.int64),
            np.zeros((p, n), np.int32), np.zeros((p, n + 1), np.int64))



# --------------------------------------------------------------------------------------------------
# alive tuples in growable arrays, first in first out (one iteration of Algorithm 1 = one sweep)
# --------------------------------------------------------------------------------------------------
# depth 2: T = (tf0, ta, tb, tfl, tlb, tid, tpar, tF1, tF2, tcA, tcB, tcLb, tcRa). tfl bit 1: a settled,
# bit 2: b settled; tcA, tcB, tcLb, tcRa: the stump losses cached at the settled end points (process_tuple).
# depth 3: T = (tf0, ta, tb, tfl, tlb, tid, tpar, tLa, tRb, tLb, tRa, ttr, tlow): lower bounds of the optimal
# depth-2 loss of the left set at a, the right set at b, the left set at b and the right set at a; ttr the
# depth-2 trees (global ranks, ``_no_tree`` if none) the inner solves left for the left set at a and at b and the
# right set at a and at b (``END_*`` offsets), the warm starts of the tuple's own inner solves; tlow per feature f
# a lower bound of every depth-2 tree with root feature f on the left set at a (first p) and on the right set at b
# (``d2_solve``'s ``low``), which bound the same trees on the supersets the tuple's inner solves take (Lemma B.3).
END_LA, END_LB, END_RA, END_RB = 0, 6, 12, 18

@njit
def alloc_tuples2(cap, p):
    """Depth-2 tuple storage for ``cap`` tuples over p features."""
    return (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
            np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros((cap, p), np.bool_),
            np.zeros((cap, p), np.bool_), np.zeros((cap, p)), np.zeros((cap, p)), np.zeros((cap, p)),
            np.zeros((cap, p)))


@njit
def alloc_tuples3(cap, p):
    """Depth-3 root-tuple storage for ``cap`` tuples over p features (columns: see above)."""
    return (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
            np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap), np.zeros(cap),
            np.zeros(cap), np.zeros(cap), np.full((cap, 24), -1, np.int64), np.zeros((cap, 2 * p)))


@njit(inline="always")
def _copy_head(src, i, dst, j):
    """Copy the columns both depths share (tf0, ta, tb, tfl, tlb, tid, tpar) of row i to row j."""
    dst[0][j] = src[0][i]
    dst[1][j] = src[1][i]
    dst[2][j] = src[2][i]
    dst[3][j] = src[3][i]
    dst[4][j] = src[4][i]
    dst[5][j] = src[5][i]
    dst[6][j] = src[6][i]


@njit
def _copy_row2(src, i, dst, j):
    _copy_head(src, i, dst, j)
    copy_flat(dst[7][j], src[7][i])
    copy_flat(dst[8][j], src[8][i])
    copy_flat(dst[9][j], src[9][i])
    copy_flat(dst[10][j], src[10][i])
    copy_flat(dst[11][j], src[11][i])
    copy_flat(dst[12][j], src[12][i])


@njit
def _copy_row3(src, i, dst, j):
    _copy_head(src, i, dst, j)
    dst[7][j] = src[7][i]
    dst[8][j] = src[8][i]
    dst[9][j] = src[9][i]
    dst[10][j] = src[10][i]
    copy_flat(dst[11][j], src[11][i])
    copy_flat(dst[12][j], src[12][i])


@njit
def grow_tuples2(T, cap, head, tail):
    """Storage with room for ``cap`` tuples holding rows [head, tail) of T at the front."""
    N = alloc_tuples2(cap, T[7].shape[1])
    for r in range(tail - head):
        _copy_row2(T, head + r, N, r)
    return N


@njit
def grow_tuples3(T, cap, head, tail):
    """Depth-3 storage with room for ``cap`` tuples holding rows [head, tail) of T at the front."""
    N = alloc_tuples3(cap, T[12].shape[1] // 2)
    for r in range(tail - head):
        _copy_row3(T, head + r, N, r)
    return N


@njit
def compact2(T, head, tail):
    """Move the alive rows [head, tail) to the front of T (first in first out order is kept)."""
    for r in range(tail - head):
        _copy_row2(T, head + r, T, r)


@njit
def compact3(T, head, tail):
    for r in range(tail - head):
        _copy_row3(T, head + r, T, r)


@njit
def _push_children2(T, tail, f0, s, J, SL, next_id, parent, cid):
    """Append the kept slices of a split tuple as children (f0, [t_{j-1}, t_j], F1j, F2j), both ends
    settled, with the stump losses at the ends cached; ``cid[j-1]`` = the child's id or -1."""
    JA, JB = J[0], J[1]
    keep1, keep2, slb, pts = SL[0], SL[1], SL[4], SL[5]
    p = keep1.shape[1]
    for g in range(s):
        cid[g] = -1
        if slb[g] == np.inf or pts[g + 1] - pts[g] < 2:
            continue
        T[0][tail] = f0
        T[1][tail] = pts[g]
        T[2][tail] = pts[g + 1]
        T[3][tail] = 3
        T[4][tail] = slb[g]
        T[5][tail] = next_id
        T[6][tail] = parent
        for f in range(p):
            T[7][tail, f] = keep1[g, f]
            T[8][tail, f] = keep2[g, f]
            T[9][tail, f] = JA[f, g]
            T[10][tail, f] = JB[f, g + 1]
            T[11][tail, f] = JA[f, g + 1]
            T[12][tail, f] = JB[f, g]
        cid[g] = next_id
        next_id += 1
        tail += 1
    return tail, next_id


@njit
def init_tuples2(T, vu):
    """AL^(0) of eq. (17), with the end points 0 and u(f0) evaluated once for all f0.

    A root threshold 0 or u(f0) sends every row to one child, so all those trees are one tree: the best
    stump on all rows. Tuple 0 is (0, [0, 0]) and evaluates it (exhaustively, t = 0); every
    (f0, [0, u(f0)], [p], [p]) then starts with both ends settled, its cached stump losses those of an
    empty set (0). Returns the number of tuples.
    """
    p = vu.shape[0]
    n = 0
    for f in range(-1, p):
        if f >= 0 and vu[f] < 2:
            continue
        T[0][n] = max(f, 0)
        T[1][n] = 0
        T[2][n] = 0 if f < 0 else vu[f]
        T[3][n] = 0 if f < 0 else 3
        T[4][n] = 0.0
        T[5][n] = n
        T[6][n] = -1
        T[7][n, :] = True
        T[8][n, :] = True
        T[9][n, :] = 0.0
        T[10][n, :] = 0.0
        T[11][n, :] = -np.inf
        T[12][n, :] = -np.inf
        n += 1
    return n


@njit
def _tree_of_point(V, f0, jb, f1, f2, J, SL, tree, off):
    """Write the depth-2 tree (root at point jb, children f1, f2 at their best cuts) in global ranks."""
    vg = V[3]
    CA, CB = J[2], J[3]
    pts = SL[5]
    tree[off] = f0
    tree[off + 1] = vg[f0, pts[jb]]
    tree[off + 2] = f1
    tree[off + 3] = vg[f1, CA[f1, jb]]
    tree[off + 4] = f2
    tree[off + 5] = vg[f2, CB[f2, jb]]


@njit
def d2_solve(V, P, cutoff, floor, E, tree, best0, low):
    """Algorithm 1 run to the end on a view, pruning against min(cutoff, best found).

    ``tree`` may hold a first incumbent (global ranks) whose loss on the view is ``best0`` (inf if none);
    ``floor`` is a known lower bound of the optimum: the search stops as soon as a tree reaches it.
    ``low[f]`` comes in as a lower bound of the loss of every depth-2 tree with root feature f on these rows (0
    if none is known) and goes out as one from this solve, with what it learnt: the bounds of the tuples of
    root feature f it pruned or left alive, and the best loss among its trees it evaluated (``process_tuple``).
    Coming in, it is the bound ``low`` of a subset of these rows: a tree with root feature f, restricted to
    the subset, is a tree with root feature f there whose loss is no larger (Lemma B.3: refitting its leaves
    only lowers it), so it raises each root feature's first tuple and children, which are pruned when it
    reaches min(cutoff, best). The degenerate root thresholds (tuple 0, the best stump) are a tree of every
    root feature, so its value bounds each ``low[f]`` going out.
    Returns ``(lb, ub, steps, passes)``: ``ub`` is the loss of the tree left in ``tree`` (inf if none
    was found) and ``lb`` a certified lower bound of the optimal depth-2 loss; lb == ub whenever
    ub < cutoff. Used by the depth-3 search for the subtree bounds of Proposition C.1, with the inner solves' s
    (``P.s_inner``).
    """
    P = Params(P.cls, P.s_inner, P.lower_bound, P.sprime_ratio, P.tol, P.margin, P.similarity, P.work_per_call,
               P.s_inner)
    J, SL = E[3], E[4]
    vu = V[2]
    p = vu.shape[0]
    s = P.s
    cap = 4 * p * s + 16 + p
    T = alloc_tuples2(cap, p)
    tail = init_tuples2(T, vu)
    for x in range(tail):
        T[4][x] = low[T[0][x]]
    out = np.full(p, np.inf)  # the bounds going out
    deg = np.inf
    head = 0
    best = best0
    pruned = np.inf
    steps = 0
    passes = 0
    next_id = tail
    cid = np.empty(s, np.int64)
    while head < tail and best > floor + P.tol:
        if tail + s > cap:
            if 2 * (tail - head + s) > cap:
                cap = 2 * cap
                T = grow_tuples2(T, cap, head, tail)
            else:
                compact2(T, head, tail)
            tail -= head
            head = 0
        f0 = T[0][head]
        if not T[4][head] < min(cutoff, best) + P.margin:  # its bound reached the incumbent since it was pushed
            pruned = min(pruned, T[4][head])
            out[f0] = min(out[f0], T[4][head])
            head += 1
            continue
        ex, npts, v, jb, f1, f2, ps, pm = process_tuple(V, P, T, head, min(cutoff, best), E)
        steps += 1
        passes += ps
        if T[2][head] == 0:  # tuple 0, the degenerate root thresholds (init_tuples2)
            deg = v
        out[f0] = min(out[f0], v, pm)
        if v < best:
            best = v
            _tree_of_point(V, f0, jb, f1, f2, J, SL, tree, np.int64(0))
        if pm < pruned:
            pruned = pm
        if not ex:
            t0 = tail
            tail, next_id = _push_children2(T, tail, f0, s, J, SL, next_id, T[5][head], cid)
            for x in range(t0, tail):
                T[4][x] = max(T[4][x], low[f0])
        head += 1
    for x in range(head, tail):  # stopped at the floor: the tuples left alive keep their bounds
        out[T[0][x]] = min(out[T[0][x]], T[4][x])
    for f in range(p):
        low[f] = max(low[f], min(out[f], deg))
    if best <= floor + P.tol:
        return best, best, steps, passes
    return min(best, pruned), best, steps, passes


# --------------------------------------------------------------------------------------------------
# the greedy first incumbent (``initial="greedy"``)
# --------------------------------------------------------------------------------------------------

@njit
def _root_split(V, cls, lc, ac, sl, sa):
    """CART's split of a view's rows: the cut with the lowest Gini impurity (classification) or squared
    error (regression), the lowest feature and then the lowest cut on ties. Returns (feature, local rank
    of the cut), or (-1, 0) when every feature is constant on the view. O(m p), no sorting: the view's
    orders are presorted."""
    vord, vu, vy, vY, vm, srank = V[0], V[2], V[4], V[5], V[6], V[7]
    m = vm[0]
    p = vu.shape[0]
    K = lc.shape[0]
    mo = sl.shape[0]
    ac[:] = 0
    sa[:] = 0.0
    for i in range(m):
        if cls:
            ac[vy[i]] += 1
        else:
            sa += vY[i]
    sq_all = (ac * ac).sum()
    best = -np.inf
    bf = -1
    bt = 0
    for f in range(p):
        if vu[f] < 2:
            continue
        for c in range(K):
            lc[c] = 0
        for o in range(mo):
            sl[o] = 0.0
        sql = 0
        sqr = sq_all
        for q in range(m - 1):
            i = vord[f, q]
            if cls:
                c = vy[i]
                sql += 2 * lc[c] + 1
                sqr -= 2 * (ac[c] - lc[c]) - 1
                lc[c] += 1
            else:
                for o in range(mo):
                    sl[o] += vY[i, o]
            if srank[f, q + 1] == srank[f, q]:
                continue
            nl = q + 1
            nr = m - nl
            if cls:  # n_l gini_l + n_r gini_r = m - (sum l_c^2 / n_l + sum r_c^2 / n_r)
                gain = sql / nl + sqr / nr
            else:  # squared error = sum y^2 - (sum_o S_l^2 / n_l + S_r^2 / n_r)
                gain = 0.0
                for o in range(mo):
                    r = sa[o] - sl[o]
                    gain += sl[o] * sl[o] / nl + r * r / nr  # finite for estimator input: encoders.check_magnitudes
            if gain > best:
                best = gain
                bf = f
                bt = srank[f, q]
    return bf, bt


@njit
def one_tuple2(p, f0, a, b):
    """Depth-2 tuple storage holding the one tuple (f0, [a, b], [p], [p]), no end point settled."""
    T = alloc_tuples2(np.int64(1), p)
    T[0][0] = f0
    T[1][0] = a
    T[2][0] = b
    T[7][0, :] = True
    T[8][0, :] = True
    return T


@njit
def greedy2(V, P, E, tree, off):
    """A good depth-2 tree for the first incumbent, from the view alone: CART's root split
    (``_root_split``) with the best stump of the training loss on each side, i.e. Algorithm 1's
    exhaustive search of the one root threshold (``process_tuple``). Its loss is at most that of CART's
    depth-2 tree whenever both pick the same root. Writes the tree in global ranks to
    ``tree[off:off + 6]`` and returns its loss on the view; O(m p) per feature scan, 2p scans."""
    SEQ = E[1][2]
    p = V[2].shape[0]
    f0, t = _root_split(V, P.cls, SEQ[5], SEQ[6], SEQ[7], SEQ[8])
    if f0 < 0:  # no cut on the view: root threshold 0 sends every row right, to the best stump
        f0, t = 0, 0
    ex, npts, v, jb, f1, f2, ps, pm = process_tuple(V, P, one_tuple2(p, f0, t, t), np.int64(0), np.inf, E)
    _tree_of_point(V, f0, jb, f1, f2, E[3], E[4], tree, off)
    return v


@njit
def greedy3(D, P, V, loc, E, tree):
    """The depth-3 counterpart of ``greedy2``: CART's root split on all rows, then ``greedy2`` on each
    side (CART's first two levels with the best stumps below). ``tree`` gets the incumbent history row
    (root, left subtree, right subtree, in global ranks); returns the loss. Leaves ``V`` on the last side."""
    SEQ = E[1][2]
    order, rank, y, Y, u = D.order, D.rank, D.y, D.Y, D.u
    build_view(order, rank, y, Y, np.int64(0), np.int64(0), u[0], V, loc)
    f0, t = _root_split(V, P.cls, SEQ[5], SEQ[6], SEQ[7], SEQ[8])
    if f0 < 0:  # every feature constant: the depth-2 tree of all rows (its own root splits nothing)
        tree[0] = -1
        tree[1] = 0
        _no_tree(tree[8:])
        return greedy2(V, P, E, tree, np.int64(2))
    tg = V[3][f0, t]
    tree[0] = f0
    tree[1] = tg
    build_view(order, rank, y, Y, f0, np.int64(0), tg, V, loc)
    loss = greedy2(V, P, E, tree, np.int64(2))
    build_view(order, rank, y, Y, f0, tg, u[f0], V, loc)
    return loss + greedy2(V, P, E, tree, np.int64(8))


# --------------------------------------------------------------------------------------------------
# the resumable kernels
# --------------------------------------------------------------------------------------------------

@njit
def _round_start2(T, head, tail, U):
    """Lower bound (min over alive tuples, and U) and alive triples sum (b - a + 1) |F1| |F2|."""
    lb = U
    trip = 0.0
    p = T[7].shape[1]
    for x in range(head, tail):
        if T[4][x] < lb:
            lb = T[4][x]
        n1 = 0
        n2 = 0
        for f in range(p):
            n1 += T[7][x, f]
            n2 += T[8][x, f]
        trip += (T[2][x] - T[1][x] + 1.0) * n1 * n2
    return lb, trip


@njit(inline="always")
def _blocked(ist, events, k, epi):
    """(status, head, tail) before an iteration: status DONE (the search is over) or BUFFER (no room for
    ``epi`` more events after the first k), else -1; head and tail delimit the alive tuples."""
    status = -1
    if ist[I_DONE] == 1:
        status = ev.STATUS_DONE
    elif k + epi > events.shape[0]:
        status = ev.STATUS_BUFFER
    return status, ist[I_HEAD], ist[I_TAIL]


@njit(inline="always")
def _shift_queue(ist, head):
    """The alive tuples were moved to the front (``compact2`` / ``compact3``): shift the queue's marks.
    Returns the new (head, tail)."""
    ist[I_HEAD] = 0
    ist[I_ROUND_END] -= head
    ist[I_TAIL] -= head
    return 0, ist[I_TAIL]


@njit
def _new_round(state, head, tail, U, lb, trip):
    """Bookkeeping of an iteration start of Algorithm 1 (a round) with ``tail - head`` tuples alive, the
    certified lower bound ``lb`` and ``trip`` trees alive; returns the round's number (from 0)."""
    ist, rstat = state.counters, state.rstat
    r = ist[I_ROUND]
    ist[I_ROUND] = r + 1
    ist[I_ROUND_END] = tail
    state.acc[F_LB] = lb
    if r < rstat.shape[0]:
        rstat[r, 0] = tail - head
        rstat[r, 1] = trip
        rstat[r, 2] = lb
        rstat[r, 3] = U
    return r


@njit(inline="always")
def _next_tuple(ist, head):
    """The tuple at ``head`` is processed: True when none is left (the search is over)."""
    ist[I_HEAD] = head + 1
    ist[I_STEPS] += 1
    return head + 1 == ist[I_TAIL]


@njit
def _finish(ist, fst, events, k, summary, rounds):
    """End of the search: U is optimal. Emits TERMINATED when ``summary``; returns the event count."""
    ist[I_DONE] = 1
    fst[F_LB] = fst[F_U]
    if summary:
        k = ev.emit_terminated(events, k, ist[I_STEPS], optimal=1, lower=fst[F_U], upper=fst[F_U], node=-1,
                               i0=rounds, i1=ist[I_PASSES], i2=ist[I_NINC])
    return k


@njit
def update_upper_bound2(V, state, f0, jb, f1, f2, v, E):
    """U improves to v (Algorithm 1: U is updated at once): the tree at point jb joins the incumbent
    history. Returns its row."""
    ist, hist = state.counters, state.hist
    row = ist[I_NINC]
    hist[row, :] = -1
    _tree_of_point(V, f0, jb, f1, f2, E[3], E[4], hist[row], np.int64(0))
    state.hval[row] = v
    ist[I_NINC] = row + 1
    state.acc[F_U] = v
    return row


@njit(inline="always")
def refine2(state, x, s, E, cid):
    """Refinement of Algorithm 1: the kept slices of tuple x become alive tuples (``_push_children2``);
    counts the pruned slices and eliminated child features. Returns the number of kept slices."""
    T, ist = state.T, state.counters
    keep1, keep2, slb = E[4][0], E[4][1], E[4][4]
    tail, nid = _push_children2(T, ist[I_TAIL], T[0][x], s, E[3], E[4], ist[I_NEXT_ID], T[5][x], cid)
    ist[I_NEXT_ID] = nid
    ist[I_TAIL] = tail
    kept = 0
    for g in range(s):
        if slb[g] < np.inf:
            kept += 1
        else:
            ist[I_SLICES_PRUNED] += 1
        for f in range(keep1.shape[1]):
            if T[7][x, f] and not keep1[g, f]:
                ist[I_ELIMINATED] += 1
            if T[8][x, f] and not keep2[g, f]:
                ist[I_ELIMINATED] += 1
    return kept


@njit
def record_exhaustive(events, k, it, state, x, best, improved, points, U):
    """The ExhaustiveSearch event of tuple ``x``, searched over all its ``points`` root thresholds (record level
    full; depths 2 and 3)."""
    T = state.T
    return emit_exhaustive(events, k, it, tuple_id=T[5][x], parent_id=T[6][x], root_feature=T[0][x], best=best,
                           improved=1 if improved else 0, a=T[1][x], b=T[2][x], points=points, upper=U,
                           lower=state.acc[F_LB])


@njit
def record_refinement2(events, k, it, state, x, P, U, E, cid, kept):
    """The events of a refined depth-2 tuple: IntervalRefined, then per slice its LowerBoundSlice and the
    FeatureEliminated of each child feature it drops (record level full)."""
    T, ist, lower = state.T, state.counters, state.acc[F_LB]
    glen = E[0][2]
    keep1, keep2, rowmin, colmin, slb, pts = E[4][0], E[4][1], E[4][2], E[4][3], E[4][4], E[4][5]
    f0, tid = T[0][x], T[5][x]
    k = emit_refine(events, k, it, tuple_id=tid, parent_id=T[6][x], root_feature=f0, s=P.s, a=T[1][x], b=T[2][x],
                    kept=kept, upper=U, lower=lower)
    for g in range(P.s):
        kind = P.lower_bound if (P.lower_bound != LB_W0 and glen[g] > 0) else LB_W0
        bound = np.inf
        n1 = 0
        n2 = 0
        for f in range(keep1.shape[1]):
            if T[7][x, f] and rowmin[g, f] < bound:
                bound = rowmin[g, f]
            n1 += keep1[g, f]
            n2 += keep2[g, f]
        k = emit_slice(events, k, it, child_id=cid[g], tuple_id=tid, root_feature=f0, j=g + 1, U=U, W=bound,
                       kept=1 if slb[g] < np.inf else 0, a=pts[g], b=pts[g + 1], bound=kind, n_left=n1, n_right=n2)
        for f in range(keep1.shape[1]):
            for side in range(2):
                W = rowmin[g, f] if side == 0 else colmin[g, f]
                alive = T[7][x, f] if side == 0 else T[8][x, f]
                if alive and not W < U + P.margin:
                    k = emit_eliminate(events, k, it, tuple_id=tid, child_feature=f, W=W, U=U,
                                       side_bound=2 * kind + side, j=g + 1, a=pts[g], b=pts[g + 1], excess=W - U,
                                       side=float(side), round=ist[I_ROUND], lower=bound)
    return k


@njit
def quantbnb2_kernel(data, params, state, work, events, max_iterations, level):
    """Process at most ``max_iterations`` alive tuples; return (n_events, status).

    ``data`` is the view of all rows (:class:`Data2`), ``work`` the scratch arrays (:class:`Work2`). The
    state (:class:`State`) is only changed once the buffer and the arrays have room. Events are recorded at
    ``level`` (``ev.LEVEL_*``), read at run time: one compilation serves the three levels
    (:class:`odtlab.core._jit.LevelKernel`).
    """
    V, P, T, ist, fst = data.V, params, state.T, state.counters, state.acc
    p = V[2].shape[0]
    s = P.s
    epi = s * (2 * p + 1) + 8
    k = done = 0
    while done < max_iterations:
        status, head, tail = _blocked(ist, events, k, epi)
        if status >= 0:
            return k, status
        if tail + s > T[0].shape[0] and head > 0:
            compact2(T, head, tail)
            head, tail = _shift_queue(ist, head)
        if tail + s > T[0].shape[0] or ist[I_NINC] >= state.hist.shape[0]:
            return k, ev.STATUS_GROW
        U = fst[F_U]
        if ist[I_STARTED] == 0:
            ist[I_STARTED] = 1
            if level >= ev.LEVEL_SUMMARY:
                k = ev.emit_search_started(events, k, 0, lower=0.0, upper=U, node=-1, i0=V[6][0], i1=p, i2=s)
        it = ist[I_STEPS] + 1  # this step's number: the k-th step's events carry k
        if head == ist[I_ROUND_END]:  # Algorithm 1, line "for k = 0, 1, ...": a new sweep of AL^(k)
            lb, trip = _round_start2(T, head, tail, U)
            r = _new_round(state, head, tail, U, lb, trip)
            if level >= ev.LEVEL_SUMMARY:
                k = emit_iteration_start(events, k, it, k=r + 1, alive=tail - head, triples=trip, U=U, LB=lb,
                                         node=-1)
        ex, npts, v, jb, f1, f2, ps, pm = process_tuple(V, P, T, head, U, work.E)
        if not ex:
            bound_slices2(work.bound, V, P, T, head, v if v < U - P.tol else U, work.E)
        ist[I_PASSES] += ps
        if v < U - P.tol:
            row = update_upper_bound2(V, state, T[0][head], jb, f1, f2, v, work.E)
            if level >= ev.LEVEL_SUMMARY:
                k = emit_upper_bound(events, k, it, tuple_id=T[5][head], parent_id=T[6][head],
                                     root_feature=T[0][head], U=v, root_rank=state.hist[row, 1], history_row=row,
                                     old_U=U, upper=v, lower=fst[F_LB])
            U = v
            improved = True
        else:
            improved = False
        if ex:
            ist[I_EXHAUSTIVE] += 1
            if level >= ev.LEVEL_FULL:
                k = record_exhaustive(events, k, it, state, head, v, improved, npts, U)
        else:
            kept = refine2(state, head, s, work.E, work.cid)
            if level >= ev.LEVEL_FULL:
                k = record_refinement2(events, k, it, state, head, P, U, work.E, work.cid, np.int64(kept))
        done += 1
        if _next_tuple(ist, head):
            return _finish(ist, fst, events, k, level >= ev.LEVEL_SUMMARY, ist[I_ROUND]), ev.STATUS_DONE
        if bound_logged(work.bound):  # the solver checks the bound's values before the search goes on
            break
    return k, ev.STATUS_BUDGET


@njit
def solve_side(D, P, f0, lo, hi, cutoff, floor, work, tree, alt, low):
    """Optimal depth-2 loss D2 of the rows with lo < rank[f0] <= hi, against a cutoff (see d2_solve).

    ``tree`` and ``alt`` hold depth-2 trees of neighbouring sets (or ``_no_tree``, a single leaf): the one of
    lower loss on these rows is the solve's first incumbent (a warm start; any tree is a depth-2 tree of the
    rows, so its loss is an upper bound of D2 and the solve stays exact below the cutoff). ``low``: per root
    feature, a lower bound of its depth-2 trees on a subset of these rows, raised by the solve (``d2_solve``).
    Returns (lb, ub, inner steps, stump scans, rows). Nothing is solved when lb = 0 already reaches
    the cutoff.
    """
    if not 0.0 < cutoff + P.margin:
        _no_tree(tree)
        return 0.0, np.inf, 0, 0, 0
    V, E = work.V, work.E
    m = build_view(D.order, D.rank, D.y, D.Y, f0, lo, hi, V, work.loc)
    if m == 0:
        _no_tree(tree)
        return 0.0, 0.0, 0, 0, 0
    best0 = _view_loss(V, P.cls, tree, E[1][2][5], E[1][2][7])
    other = _view_loss(V, P.cls, alt, E[1][2][5], E[1][2][7])
    if other < best0:
        best0 = other
        copy_flat(tree, alt)
    lb, ub, st, ps = d2_solve(V, P, cutoff, floor, E, tree, best0, low)
    return lb, ub, st, ps, m


@njit
def _no_tree(tree):
    for x in range(6):
        tree[x] = -1 if x % 2 == 0 else 0


@njit
def _view_loss(V, cls, tree, cnt, sums):
    """Loss on a view's rows of a depth-2 tree given in global ranks (leaf = majority class or mean)."""
    vrank, vg, vy, vY, vm = V[1], V[3], V[4], V[5], V[6]
    m = vm[0]
    mo = vY.shape[1]
    loss = 0.0
    for leaf in range(4):
        n = 0
        q = 0.0
        cnt[:] = 0
        sums[:] = 0.0
        for i in range(m):
            side = 0
            if tree[0] >= 0 and vg[tree[0], vrank[tree[0], i]] > tree[1]:
                side = 2
            f = tree[2 + side]
            if f >= 0 and vg[f, vrank[f, i]] > tree[3 + side]:
                side += 1
            if side != leaf:
                continue
            n += 1
            if cls:
                cnt[vy[i]] += 1
            else:
                for o in range(mo):
                    sums[o] += vY[i, o]
                    q += vY[i, o] * vY[i, o]
        if cls:
            loss += n - cnt.max()
        elif n > 0:
            for o in range(mo):
                q -= sums[o] * sums[o] / n
            loss += max(q, 0.0)
    return loss


@njit
def _round_start3(T, head, tail, U):
    lb = U
    trip = 0.0
    for x in range(head, tail):
        if T[4][x] < lb:
            lb = T[4][x]
        trip += T[2][x] - T[1][x] - 1.0
    return lb, trip


@njit
def _slice_bound3(lbL, lbR, j, sim, n_mid):
    """Lower bound of every depth-3 tree with root threshold in [t_{j-1}, t_j] (Proposition C.1 (ii)).

    D2(left at t) >= D2(left at t_{j-1}) and D2(right at t) >= D2(right at t_j) (Lemma B.3). For the 0-1
    loss also D2(left at t) >= D2(left at t_j) - n(t, t_j] and D2(right at t) >= D2(right at t_{j-1}) -
    n(t_{j-1}, t] (one tree misclassifies at most the rows it gains); minimising the sum of both maxima
    over the n_mid rows of the slice gives the second term [similarity bound, not in the paper].
    """
    w = lbL[j - 1] + lbR[j]
    if sim:
        w = max(w, lbL[j] + lbR[j - 1] - n_mid)
    return w


@njit(inline="always")
def _count_inner(ist, steps, passes):
    """Count one inner depth-2 solve of ``steps`` iterations and ``passes`` feature scans."""
    ist[I_INNER] += 1
    ist[I_INNER_STEPS] += steps
    ist[I_PASSES] += passes


@njit
def _note_solve(solves, side, j, cut, lb, ub, steps, rows):
    """Keep what an inner solve at point j returned, for its SubtreeSolved event (``record_sides3``)."""
    solves[side, j, 0] = 1.0
    solves[side, j, 1] = cut
    solves[side, j, 2] = ub
    solves[side, j, 3] = lb
    solves[side, j, 4] = steps
    solves[side, j, 5] = rows


@njit
def all_rows3(D, P, state, work, U):
    """The first depth-3 iteration: the optimal depth-2 tree of all rows, which is every depth-3 tree whose
    root threshold is 0 or u(f0); then AL^(0), one root tuple (f0, [0, u(f0)]) per feature with both end
    points settled. Returns the solve's (lb, ub, steps, rows) and the incumbent history row (-1: U kept)."""
    T, ist, hist = state.T, state.counters, state.hist
    tree, low = work.sides.trL[0], work.sides.lowL[0]
    _no_tree(tree)
    for f in range(low.shape[0]):
        low[f] = 0.0
    lb, ub, st, ps, mm = solve_side(D, P, np.int64(0), np.int64(0), D.u[0], U, 0.0, work, tree, tree, low)
    _count_inner(ist, st, ps)
    row = -1
    if ub < U - P.tol:
        row = ist[I_NINC]
        hist[row, :] = -1
        hist[row, 1] = 0
        for x in range(6):
            hist[row, 2 + x] = tree[x]
        state.hval[row] = ub
        ist[I_NINC] = row + 1
        state.acc[F_U] = ub
    tail = ist[I_TAIL]
    for f in range(D.rank.shape[0]):
        if D.u[f] >= 2:
            T[0][tail] = f
            T[1][tail] = 0
            T[2][tail] = D.u[f]
            T[3][tail] = 3
            T[4][tail] = 0.0
            T[5][tail] = f
            T[6][tail] = -1
            T[7][tail] = 0.0
            T[8][tail] = 0.0
            T[9][tail] = lb
            T[10][tail] = lb
            for c in range(6):  # left at u(f) and right at 0: all rows; left at 0 and right at u(f): no rows
                T[11][tail, END_LA + c] = -1 if c % 2 == 0 else 0
                T[11][tail, END_LB + c] = tree[c]
                T[11][tail, END_RA + c] = tree[c]
                T[11][tail, END_RB + c] = -1 if c % 2 == 0 else 0
            for c in range(T[12].shape[1]):  # and no bound of any set yet
                T[12][tail, c] = 0.0
            tail += 1
    ist[I_TAIL] = tail
    ist[I_NEXT_ID] = D.rank.shape[0]
    ist[I_STEPS] += 1
    return lb, ub, st, mm, row


@njit
def left_sides3(D, P, state, x, U, npts, work, j0, budget):
    """Proposition C.1 for root tuple x, left sides in ascending order from point j0: D2 of the left set at
    each point, until ``budget`` work units are spent. Returns (next point, work units spent).

    The left loss at t_j serves the tree at t_j and slice j + 1, whose right sides lose at least
    rfloor(t_{j+1}): the solve is cut off at U - rfloor(t_{j+1}), and skipped when the known lower bound
    (Lemma B.3, similarity) already reaches that."""
    T, cum, sd = state.T, D.cum, work.sides
    lbL, ubL, trL, pts = sd.lbL, sd.ubL, sd.trL, sd.pts
    f0, b = T[0][x], T[2][x]
    Rb, Lb, Ra = T[8][x], T[9][x], T[10][x]
    if j0 == 1:
        lbL[0] = T[7][x]
        ubL[0] = np.inf
        lbL[npts - 1] = Lb
        for c in range(6):
            trL[0, c] = T[11][x, END_LA + c]
            trL[npts - 1, c] = T[11][x, END_LB + c]
        for f in range(sd.lowL.shape[1]):
            sd.lowL[0, f] = T[12][x, f]
    spent = 0
    for j in range(j0, npts - 1):
        if spent >= budget:
            return j, spent
        sd.solves[0, j, 0] = 0.0
        ubL[j] = np.inf
        copy_flat(trL[j], trL[j - 1])  # the nearest tree of the side, also where no solve runs
        copy_flat(sd.lowL[j], sd.lowL[j - 1])  # Lemma B.3 per root feature (d2_solve)
        lbL[j] = lbL[j - 1]  # Lemma B.3: D2 grows with the set
        rfloor = Rb
        if P.similarity:  # similarity: removing n rows lowers the 0-1 loss by at most n
            lbL[j] = max(lbL[j], Lb - (cum[f0, b] - cum[f0, pts[j]]))
            rfloor = max(Rb, Ra - (cum[f0, pts[j + 1]] - cum[f0, T[1][x]]))
        lbL[j], rfloor = bound_left3(work.bound, D, f0, pts, j, lbL[j], rfloor)
        cut = U - rfloor
        if not lbL[j] < cut + P.margin:
            continue
        # warm start: the better of the trees at t_{j-1} and at b on this set
        lb, ub, st, ps, mm = solve_side(D, P, f0, np.int64(0), pts[j], cut, lbL[j], work, trL[j], trL[npts - 1],
                                        sd.lowL[j])
        lbL[j] = max(lb, lbL[j])
        ubL[j] = ub
        _count_inner(state.counters, st, ps)
        _note_solve(sd.solves, np.int64(0), j, cut, lb, ub, st, mm)
        spent += _solve_work(D, ps, mm)
    return npts - 1, spent


@njit
def right_sides3(D, P, state, x, U, npts, work, j0, budget):
    """Proposition C.1 for root tuple x, right sides in descending order from point j0, until ``budget``
    work units are spent: the right loss at t_j serves the tree at t_j and slice j, cut off at U - D2(left
    at t_{j-1}). A tree (left and right depth-2 trees at t_j, under the root threshold ``rethreshold3`` picks for
    them) below U - tol becomes the incumbent at once.
    Returns (next point, 0 when the side is done; work units spent)."""
    T, ist, hist, cum, sd = state.T, state.counters, state.hist, D.cum, work.sides
    lbL, ubL, lbR, ubR, trL, trR, pts = sd.lbL, sd.ubL, sd.lbR, sd.ubR, sd.trL, sd.trR, sd.pts
    f0, a = T[0][x], T[1][x]
    Ra = T[10][x]
    if j0 == npts - 2:
        lbR[npts - 1] = T[8][x]
        ubR[npts - 1] = np.inf
        lbR[0] = Ra
        for c in range(6):
            trR[0, c] = T[11][x, END_RA + c]
            trR[npts - 1, c] = T[11][x, END_RB + c]
        for f in range(sd.lowR.shape[1]):
            sd.lowR[npts - 1, f] = T[12][x, sd.lowR.shape[1] + f]
    spent = 0
    for j in range(j0, 0, -1):
        if spent >= budget:
            return j, spent
        sd.solves[1, j, 0] = 0.0
        sd.solves[1, j, 6] = -1.0
        ubR[j] = np.inf
        copy_flat(trR[j], trR[j + 1])
        copy_flat(sd.lowR[j], sd.lowR[j + 1])
        lbR[j] = lbR[j + 1]
        if P.similarity:
            lbR[j] = max(lbR[j], Ra - (cum[f0, pts[j]] - cum[f0, a]))
        lbR[j] = bound_right3(work.bound, D, f0, pts, j, lbR[j])
        cut = U - lbL[j - 1]
        if not lbR[j] < cut + P.margin:
            continue
        lb, ub, st, ps, mm = solve_side(D, P, f0, pts[j], D.u[f0], cut, lbR[j], work, trR[j], trR[0], sd.lowR[j])
        lbR[j] = max(lb, lbR[j])
        ubR[j] = ub
        _count_inner(ist, st, ps)
        _note_solve(sd.solves, np.int64(1), j, cut, lb, ub, st, mm)
        spent += _solve_work(D, ps, mm)
        v, t = ubL[j] + ub, pts[j]
        if P.cls:  # the same two subtrees under the best root threshold of f0
            w, tw = rethreshold3(D, f0, pts[j], trL[j], trR[j], work.E[1][0][0].shape[1])
            if w < v:
                v, t = w, tw
        if v < U - P.tol:
            row = ist[I_NINC]
            hist[row, 0] = f0
            hist[row, 1] = t
            for c in range(6):
                hist[row, 2 + c] = trL[j, c]
                hist[row, 8 + c] = trR[j, c]
            state.hval[row] = v
            ist[I_NINC] = row + 1
            state.acc[F_U] = v
            sd.solves[1, j, 6] = row
            sd.solves[1, j, 7] = U
            U = v
    return 0, spent


@njit
def _leaf2(rank, tree, i):
    """The leaf (0-3) row i reaches in a depth-2 tree given in global ranks (feature -1: no split)."""
    side = 0
    if tree[0] >= 0 and rank[tree[0], i] > tree[1]:
        side = 2
    f = tree[2 + side]
    if f >= 0 and rank[f, i] > tree[3 + side]:
        side += 1
    return side


@njit
def _leaf_counts3(D, f0, t, trL, trR, cnt):
    """Class counts of the 8 leaves of the depth-3 tree (f0, t, trL, trR) on all rows; returns its 0-1 loss."""
    rank, y = D.rank, D.y
    for leaf in range(8):
        for c in range(cnt.shape[1]):
            cnt[leaf, c] = 0
    for i in range(y.shape[0]):
        if rank[f0, i] <= t:
            cnt[_leaf2(rank, trL, i), y[i]] += 1
        else:
            cnt[4 + _leaf2(rank, trR, i), y[i]] += 1
    loss = 0
    for leaf in range(8):
        loss += cnt[leaf].sum() - cnt[leaf].max()
    return loss


@njit
def rethreshold3(D, f0, t, trL, trR, K):
    """An upper bound from the trees a point of a root tuple gives (not in the paper; any depth-3 tree's loss is
    one): the left and right depth-2 trees found at root threshold t keep their leaves' classes (their
    majorities at t) and the root threshold moves to the t' of f0 that misclassifies fewest rows, found in one
    pass over f0's presorted order (the loss at t' is the right tree's errors on all rows plus, over the rows
    with rank <= t', the left tree's errors less the right tree's). Returns the 0-1 loss of the tree at t' with
    its leaves refitted (majorities again, so at most the fixed-class loss) and t'; (inf, t) when no cut of f0
    beats the tree at t with fixed classes."""
    rank, order, y = D.rank, D.order, D.y
    n = y.shape[0]
    cnt = np.zeros((8, K), np.int64)
    base = _leaf_counts3(D, f0, t, trL, trR, cnt)
    lab = np.empty(8, np.int64)
    for leaf in range(8):
        lab[leaf] = np.argmax(cnt[leaf])
    errR = 0
    for i in range(n):
        errR += lab[4 + _leaf2(rank, trR, i)] != y[i]
    best, bt = base, t
    acc = 0
    for q in range(n - 1):
        i = order[f0, q]
        acc += np.int64(lab[_leaf2(rank, trL, i)] != y[i]) - np.int64(lab[4 + _leaf2(rank, trR, i)] != y[i])
        r = rank[f0, i]
        if rank[f0, order[f0, q + 1]] != r and errR + acc < best:
            best, bt = errR + acc, r
    if bt == t:
        return np.inf, t
    return float(_leaf_counts3(D, f0, bt, trL, trR, cnt)), bt


@njit
def best_of_sides3(npts, sides):
    """After both sides of a root tuple: the best tree among its inner points (the left and right depth-2
    trees at t_j; inf when none was solved) and whether one of them became the incumbent."""
    best = np.inf
    improved = False
    for j in range(npts - 2, 0, -1):
        if sides.solves[1, j, 0] == 1.0:
            best = min(best, sides.ubL[j] + sides.ubR[j])
            improved = improved or sides.solves[1, j, 6] >= 0
    return best, improved


@njit(inline="always")
def _solve_work(D, passes, rows):
    """Work units of an inner solve (``WORK_PER_CALL``): its view (rows times features) and its feature scans."""
    return (passes + D.rank.shape[0]) * rows


@njit
def record_sides3(events, k, it, state, x, side, npts, full, work):
    """The events of one side's inner solves, in solve order: SubtreeSolved (record level ``full``) and, on
    the right side, UpperBoundImproved where the tree at that point became the incumbent."""
    T, sd = state.T, work.sides
    for i in range(1, npts - 1):
        j = i if side == 0 else npts - 1 - i
        rec = sd.solves[side, j]
        if full and rec[0] == 1.0:
            k = emit_subtree_solved(events, k, it, tuple_id=T[5][x], root_feature=T[0][x], cutoff=rec[1], ub=rec[2],
                                    lb=rec[3], side=side, t=sd.pts[j], inner_steps=np.int64(rec[4]),
                                    rows=np.int64(rec[5]))
        if side == 1 and rec[6] >= 0:
            row = np.int64(rec[6])
            v = state.hval[row]
            k = emit_upper_bound(events, k, it, tuple_id=T[5][x], parent_id=T[6][x], root_feature=T[0][x], U=v,
                                 root_rank=state.hist[row, 1], history_row=row, old_U=rec[7], upper=v,
                                 lower=state.acc[F_LB])
    return k


@njit
def refine3(D, P, state, x, U, work):
    """Refinement for root tuple x (Proposition C.1 (ii)): each slice [t_{j-1}, t_j] whose bound
    (``_slice_bound3``) is below U + margin is kept, and becomes an alive tuple when a threshold lies strictly
    inside it. Returns the number of kept slices."""
    T, ist, sd = state.T, state.counters, work.sides
    lbL, lbR, pts, cid = sd.lbL, sd.lbR, sd.pts, sd.cid
    f0 = T[0][x]
    tail = ist[I_TAIL]
    kept = 0
    for j in range(1, P.s + 1):
        lS = _slice_bound3(lbL, lbR, j, P.similarity, D.cum[f0, pts[j]] - D.cum[f0, pts[j - 1]])
        cid[j - 1] = -1
        if not lS < U + P.margin:
            ist[I_SLICES_PRUNED] += 1
            continue
        kept += 1
        if pts[j] - pts[j - 1] >= 2:
            T[0][tail] = f0
            T[1][tail] = pts[j - 1]
            T[2][tail] = pts[j]
            T[3][tail] = 3
            T[4][tail] = lS
            T[5][tail] = ist[I_NEXT_ID]
            T[6][tail] = T[5][x]
            T[7][tail] = lbL[j - 1]
            T[8][tail] = lbR[j]
            T[9][tail] = lbL[j]
            T[10][tail] = lbR[j - 1]
            for c in range(6):
                T[11][tail, END_LA + c] = sd.trL[j - 1, c]
                T[11][tail, END_LB + c] = sd.trL[j, c]
                T[11][tail, END_RA + c] = sd.trR[j - 1, c]
                T[11][tail, END_RB + c] = sd.trR[j, c]
            p = sd.lowL.shape[1]
            for f in range(p):
                T[12][tail, f] = sd.lowL[j - 1, f]
                T[12][tail, p + f] = sd.lowR[j, f]
            cid[j - 1] = ist[I_NEXT_ID]
            ist[I_NEXT_ID] += 1
            tail += 1
    ist[I_TAIL] = tail
    return kept


@njit
def record_slices3(events, k, it, D, P, state, x, U, work, kept):
    """The events of a refined root tuple: IntervalRefined, then each slice's LowerBoundSlice (level full)."""
    T, sd = state.T, work.sides
    lbL, lbR, pts = sd.lbL, sd.lbR, sd.pts
    f0, tid = T[0][x], T[5][x]
    k = emit_refine(events, k, it, tuple_id=tid, parent_id=T[6][x], root_feature=f0, s=P.s, a=T[1][x], b=T[2][x],
                    kept=kept, upper=U, lower=state.acc[F_LB])
    for j in range(1, P.s + 1):
        lS = _slice_bound3(lbL, lbR, j, P.similarity, D.cum[f0, pts[j]] - D.cum[f0, pts[j - 1]])
        k = emit_slice(events, k, it, child_id=sd.cid[j - 1], tuple_id=tid, root_feature=f0, j=j, U=U, W=lS,
                       kept=1 if lS < U + P.margin else 0, a=pts[j - 1], b=pts[j], bound=LB_W0, n_left=lbL[j - 1],
                       n_right=lbR[j])
    return k


@njit
def quantbnb3_kernel(data, params, state, work, events, max_iterations, level):
    """Process at most ``max_iterations`` root tuples (f0, [a, b]) and about ``P.work_per_call`` work units
    (the inner solve that reaches them ends the call, which may leave a root tuple between two inner solves
    for the next call: ``I_PHASE``); return (n_events, status).

    The first iteration solves the depth-2 problem on all rows (``all_rows3``), so every root tuple starts
    with both end points settled. ``data`` is :class:`Data3`, ``work`` :class:`Work3`. Events are recorded at
    ``level``, read at run time (:class:`odtlab.core._jit.LevelKernel`).
    """
    D, P, T, ist, fst = data, params, state.T, state.counters, state.acc
    p = D.rank.shape[0]
    s = P.s
    epi = 4 * s + 12
    k = done = spent = 0
    while done < max_iterations and spent < P.work_per_call:
        status, head, tail = _blocked(ist, events, k, epi)
        if status >= 0:
            return k, status
        need = p if ist[I_STARTED] == 0 else s
        if tail + need > T[0].shape[0] and head > 0:
            compact3(T, head, tail)
            head, tail = _shift_queue(ist, head)
        if tail + need > T[0].shape[0] or ist[I_NINC] + s + 2 > state.hist.shape[0]:
            return k, ev.STATUS_GROW
        U = fst[F_U]
        it = ist[I_STEPS] + 1  # this step's number: the k-th step's events carry k
        if ist[I_STARTED] == 0:
            ist[I_STARTED] = 1
            if level >= ev.LEVEL_SUMMARY:
                k = ev.emit_search_started(events, k, 0, lower=0.0, upper=U, node=-1, i0=D.rank.shape[1], i1=p,
                                           i2=s)
            lb, ub, st, mm, row = all_rows3(D, P, state, work, U)
            spent += _solve_work(D, ist[I_PASSES], mm)  # the first solve made every scan so far
            if level >= ev.LEVEL_FULL:
                k = emit_subtree_solved(events, k, it, tuple_id=-1, root_feature=-1, cutoff=U, ub=ub, lb=lb,
                                        side=2, t=0, inner_steps=st, rows=mm)
            if row >= 0 and level >= ev.LEVEL_SUMMARY:
                k = emit_upper_bound(events, k, it, tuple_id=-1, parent_id=-1, root_feature=-1, U=ub,
                                     root_rank=0, history_row=row, old_U=U, upper=ub)
            done += 1
            if ist[I_TAIL] == 0:
                return _finish(ist, fst, events, k, level >= ev.LEVEL_SUMMARY, np.int64(0)), ev.STATUS_DONE
            continue
        ex, npts = _points(T[1][head], T[2][head], s, work.sides.pts)
        if ist[I_PHASE] == PHASE_NEW:
            if head == ist[I_ROUND_END]:
                lb, trip = _round_start3(T, head, tail, U)
                r = _new_round(state, head, tail, U, lb, trip)
                if level >= ev.LEVEL_SUMMARY:
                    k = emit_iteration_start(events, k, it, k=r + 1, alive=tail - head, triples=trip, U=U, LB=lb,
                                             node=-1)
            ist[I_PHASE] = PHASE_LEFT
            ist[I_POINT] = 1
        if ist[I_PHASE] == PHASE_LEFT:
            j, w = left_sides3(D, P, state, head, U, npts, work, ist[I_POINT], P.work_per_call - spent)
            spent += w
            ist[I_POINT] = j
            if j < npts - 1:  # the work budget is spent: the next call goes on at point j
                continue
            if level >= ev.LEVEL_FULL:
                k = record_sides3(events, k, it, state, head, np.int64(0), npts, np.bool_(True), work)
            ist[I_PHASE] = PHASE_RIGHT
            ist[I_POINT] = npts - 2
        j, w = right_sides3(D, P, state, head, U, npts, work, ist[I_POINT], P.work_per_call - spent)
        spent += w
        ist[I_POINT] = j
        if j > 0:
            continue
        ist[I_PHASE] = PHASE_NEW
        if level >= ev.LEVEL_SUMMARY:
            k = record_sides3(events, k, it, state, head, np.int64(1), npts, level >= ev.LEVEL_FULL, work)
        best, improved = best_of_sides3(npts, work.sides)
        U = fst[F_U]
        if ex:
            ist[I_EXHAUSTIVE] += 1
            if level >= ev.LEVEL_FULL:
                k = record_exhaustive(events, k, it, state, head, best, improved, npts, U)
        else:
            kept = refine3(D, P, state, head, U, work)
            if level >= ev.LEVEL_FULL:
                k = record_slices3(events, k, it, D, P, state, head, U, work, kept)
        done += 1
        if _next_tuple(ist, head):
            return _finish(ist, fst, events, k, level >= ev.LEVEL_SUMMARY, ist[I_ROUND]), ev.STATUS_DONE
        if bound_logged(work.bound):  # the solver checks the bound's values before the search goes on
            break
    return k, ev.STATUS_BUDGET


# --------------------------------------------------------------------------------------------------
# a researcher's lower bound (odtlab.bounds): ``QuantBnBClassifier(bound=f)``
# --------------------------------------------------------------------------------------------------
# Where it enters (the design, with its proof, is odtlab.bounds' section on Quant-BnB): f(counts, 2, 3) bounds
# the optimal depth-2 loss D2 of a set of rows from the set's class counts. Depth 2: the rows a slice's root
# thresholds leave undecided (its middle block, ``bound_slices2``) beside W. Depth 3: the left and right sets
# at a root tuple's points (``bound_left3``, ``bound_right3``) before the inner solves. Every function below
# takes the bound first; with None (no bound) numba compiles it to nothing (``@overload``).

#: The kernels' form of a researcher's bound: ``fn(counts, depth, nodes)`` (a compiled first-class function,
#: or the plain Python function without numba), ``check`` = 1 logs every value that raised a bound,
#: ``counts`` (int64[K]) scratch for the class counts; ``nlog`` = [logged values, raises] and per logged value
#: ``log`` (int64 rows: ``BL_*``; the set is the rows with lo < rank[f0] <= hi) and ``value`` (what fn
#: returned). The solver checks and clears the log after every kernel call; a kernel stops after an
#: iteration that logged a value.
UserBound = namedtuple("UserBound", "fn check counts nlog log value")
BL_STATUS, BL_F0, BL_LO, BL_HI = range(4)
BOUND_RAISED, BOUND_INVALID = 1, 2


def make_user_bound(fn, check, K, s):
    """An empty :data:`UserBound` for K classes: room for the values of one iteration (at most s slices at
    depth 2, three per point of a root tuple at depth 3)."""
    cap = 4 * (s + 2)
    return UserBound(fn, int(bool(check)), np.zeros(K, np.int64), np.zeros(2, np.int64), np.zeros((cap, 4), np.int64),
                     np.zeros(cap))


@njit
def subset_value(bound, order, labels, f0, start, stop):
    """fn(class counts of the rows ``order[f0, start:stop]``, depth 2, 3 nodes): a bound on D2 of those rows
    (the rows with rank[f0] in an interval are a stretch of f0's presorted order)."""
    counts = bound.counts
    for c in range(counts.shape[0]):
        counts[c] = 0
    for q in range(start, stop):
        counts[labels[order[f0, q]]] += 1
    return bound.fn(counts, 2, 3)


@njit
def raise_by(bound, v, old, f0, lo, hi):
    """max(old, ceil(v)) (a sound bound on an integer loss may be rounded up) for the value v of the set lo <
    rank[f0] <= hi. A NaN or negative v is logged and not used; in check mode a v that raises ``old`` is
    logged, and not used when the log is full, so every value the search uses is checked."""
    nlog = bound.nlog
    status = 0
    if not v >= 0.0:
        status = BOUND_INVALID
    elif np.ceil(v) > old:
        status = BOUND_RAISED if bound.check == 1 else 0
    else:
        return old
    if status != 0:
        e = nlog[0]
        if e >= bound.log.shape[0]:
            return old
        bound.log[e, BL_STATUS] = status
        bound.log[e, BL_F0] = f0
        bound.log[e, BL_LO] = lo
        bound.log[e, BL_HI] = hi
        bound.value[e] = v
        nlog[0] = e + 1
    if status == BOUND_INVALID:
        return old
    nlog[1] += 1
    return np.ceil(v)


def bound_slices2(bound, V, P, T, x, Ucur, E):
    """Depth 2, after Step 2 of tuple x: each slice's row and column minima of W become at least W0 (eq. 9) +
    fn(middle block), and Proposition 4.1 runs again (``eliminate_features``) when one rose. Every tree with
    a root threshold in [t_{j-1}, t_j] loses L1 on the left block, L1 on the right block and at least the
    best depth-2 loss on the middle block (superadditivity, Lemma B.2, as W2's eq. 10)."""
    if bound is None:
        return
    SL, JA, JB = E[4], E[3][0], E[3][1]
    rowmin, colmin, pts = SL[2], SL[3], SL[5]
    vord, vy, vcum = V[0], V[4], V[8]
    f0, F1, F2 = T[0][x], T[7][x], T[8][x]
    p = F1.shape[0]
    raised = False
    for j in range(1, P.s + 1):
        g = j - 1
        minA, minB = w0_minima(F1, F2, JA, JB, j)
        mid = np.inf  # the paper's smallest bound on the middle block over the child features (W minus W0)
        for f in range(p):
            if F1[f]:
                mid = min(mid, rowmin[g, f] - (JA[f, j - 1] + minB))
            if F2[f]:
                mid = min(mid, colmin[g, f] - (minA + JB[f, j]))
        v = subset_value(bound, vord, vy, f0, vcum[f0, pts[j - 1]], vcum[f0, pts[j]])
        c = raise_by(bound, v, mid, f0, pts[j - 1], pts[j])
        if c > mid:
            raised = True
            for f in range(p):
                if F1[f]:
                    rowmin[g, f] = max(rowmin[g, f], JA[f, j - 1] + minB + c)
                if F2[f]:
                    colmin[g, f] = max(colmin[g, f], minA + JB[f, j] + c)
    if raised:
        eliminate_features(F1, F2, P.s, Ucur, P.margin, SL)


def bound_left3(bound, D, f0, pts, j, lbL, rfloor):
    """Depth 3, point j of a root tuple (``left_sides3``): the lower bounds of D2(left at t_j) and of D2(right at
    t_{j+1}) raised by fn of their class counts. Returns both."""
    if bound is None:
        return lbL, rfloor
    n = D.order.shape[1]
    v = subset_value(bound, D.order, D.y, f0, 0, D.cum[f0, pts[j]])
    lbL = raise_by(bound, v, lbL, f0, 0, pts[j])
    v = subset_value(bound, D.order, D.y, f0, D.cum[f0, pts[j + 1]], n)
    return lbL, raise_by(bound, v, rfloor, f0, pts[j + 1], D.u[f0])


def bound_right3(bound, D, f0, pts, j, lbR):
    """Depth 3, point j of a root tuple (``right_sides3``): the lower bound of D2(right at t_j) raised by fn."""
    if bound is None:
        return lbR
    v = subset_value(bound, D.order, D.y, f0, D.cum[f0, pts[j]], D.order.shape[1])
    return raise_by(bound, v, lbR, f0, pts[j], D.u[f0])


@overload(bound_slices2)
def _bound_slices2(bound, V, P, T, x, Ucur, E):
    if isinstance(bound, types.NoneType):
        return lambda bound, V, P, T, x, Ucur, E: None
    return bound_slices2


@overload(bound_left3)
def _bound_left3(bound, D, f0, pts, j, lbL, rfloor):
    if isinstance(bound, types.NoneType):
        return lambda bound, D, f0, pts, j, lbL, rfloor: (lbL, rfloor)
    return bound_left3


@overload(bound_right3)
def _bound_right3(bound, D, f0, pts, j, lbR):
    if isinstance(bound, types.NoneType):
        return lambda bound, D, f0, pts, j, lbR: lbR
    return bound_right3
