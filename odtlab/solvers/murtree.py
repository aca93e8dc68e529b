"""MurTree (Demirović et al., JMLR 2022) on the search runtime: optimal trees on binary features.

The kernel is :mod:`odtlab.core.murtree`; this module prepares the data, holds the search state
(:class:`MurTreeSolver`) and provides :class:`MurTreeClassifier`, :class:`MurTreeRegressor` and the registry
entries ``odtlab solve murtree DATASET --depth D [--nodes N] [--alpha A]`` and ``odtlab solve murtree-regressor
DATASET ...``. The event kinds are declared with the kernel.

Objective: weighted misclassifications + alpha * feature nodes (Eq. 19, alpha in misclassification units,
read exactly as a decimal), under a depth limit and a node budget; for regression the weighted sum of squared
errors (leaves predict the mean) + alpha * feature nodes (§4.9.2). ``alpha > 0`` runs Algorithm 6 (root
queries with budgets 1..n); ``smallest=True`` runs Algorithm 7 (after the optimum, smaller budgets under its
cost) and returns an optimal tree with the fewest feature nodes; with ``alpha > 0`` Algorithm 6 already
returns the smallest tree among the optimal ones.

Data preparation (``reduce_features=True``, the default; it never changes the optimum):

* constant columns, columns equal to an earlier column and columns that are the complement of an earlier
  column are dropped (a tree on a dropped column has a twin on the kept one, with the children swapped when
  it was the complement); the DL benchmark files hold every one-hot column with its complement, so this
  halves |F| there;
* each kept column is counted in its sparser polarity (the paper's bit-flip remark after Prop. 6);
* rows with the same features and label are merged into one row whose weight is their count (regression:
  rows with the same features are merged into one row holding the sums of w, w y and w y^2; targets are first
  centred on their mean, rounded to an integer when every target is one, which keeps integer sums exact).

Regression sums targets centred on their mean; two trees whose squared errors differ by less than the float
resolution delta = 4 n eps sum w (y - ybar)^2 of those sums count as equally good (a tie tolerance relative to
the data's own rounding, never to the root's squared error). A finished search is "optimal" only under the rule
of :mod:`odtlab.certificate` (the returned tree's objective, recomputed from the data, equals the certified bound:
exactly for counts, within 1e-9 of the optimum for squared errors, float slack 3 delta included), else
"uncertified" with its reason. Classification bounds are exact integers in units of 1 / alpha's denominator,
each rounded to a float once. The similarity lower bound is never used for regression (its proof assumes a row
costs at most its weight).

Budgets: ``max_nodes`` above 2^depth - 1 is clamped to it, and a depth above ``max_nodes`` is lowered to it
(Eq. 1, cases 1 and 2).
"""
from fractions import Fraction
import functools
import types
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from odtlab import bounds, certificate, memory
from odtlab.core import murtree as mt
from odtlab.core._jit import LevelKernel, address_of, as_ratio
from odtlab.encoders import check_binary
from odtlab.estimators import (ATTRIBUTES_DOC, COMMON_CONSTRAINTS, TreeClassifierMixin, TreeEstimator, TreeRegressorMixin,
                               params_init)
from odtlab.core import events as core_events
from odtlab.search import Search, Solver
from odtlab.solvers import SolverSpec, register
from odtlab.tree import Tree

MAX_DEPTH = 12
CACHES = {"dataset": mt.CACHE_DATASET, "branch": mt.CACHE_BRANCH, None: mt.CACHE_NONE}
NODE_ORDERS = {"dynamic": mt.ORDER_DYNAMIC, "post-order": mt.ORDER_POST}
FEATURE_ORDERS = {"in-order": mt.FEATURES_IN_ORDER, "gini": mt.FEATURES_GINI}
COUNT_MODES = {mt.COUNT_SCRATCH: "scratch", mt.COUNT_INCREMENTAL: "incremental", mt.COUNT_UNCHANGED: "unchanged",
               mt.COUNT_SINGLES: "singles"}

@functools.lru_cache(maxsize=64)
def budget_slots(depth, nodes, mode, depth_two, deepening):
    """The (depth, nodes) budgets a search can meet, with d <= n <= 2^d - 1 (Eq. 1 cases 1-2).

    Returns (pair_slot[d, n] -> slot or -1, slot_d, slot_n, dom[s, t] = budget t is within budget s); the
    arrays are shared between searches and never written.
    """
    if mode in (mt.MODE_SPARSE, mt.MODE_SMALLEST):
        queries = [(min(depth, q), q) for q in range(1, nodes + 1)]
    elif deepening:
        queries = [(min(q, nodes, 2 ** q - 1), min(nodes, 2 ** q - 1)) for q in range(1, depth + 1)]
    else:
        queries = [(min(depth, nodes), nodes)]
    seen = set()
    stack = list(queries)
    while stack:
        d, n = stack.pop()
        if d == 0 or n == 0 or (d, n) in seen:
            continue
        seen.add((d, n))
        if depth_two and d <= 2:
            stack += [(1, 1)] + ([(2, 2), (2, 3)] if d == 2 else [])
            continue
        n_max = min(2 ** (d - 1) - 1, n - 1)
        for nl in range(n - 1 - n_max, n_max + 1):
            nr = n - 1 - nl
            stack += [(min(d - 1, nl), nl), (min(d - 1, nr), nr)]
    slots = sorted(seen)
    width = max(nodes, 3) + 1
    pair_slot = np.full((depth + 1, width), -1, dtype=np.int64)
    for s, (d, n) in enumerate(slots):
        pair_slot[d, n] = s
    slot_d = np.array([d for d, _ in slots], dtype=np.int64)
    slot_n = np.array([n for _, n in slots], dtype=np.int64)
    dom = ((slot_d[None, :] <= slot_d[:, None]) & (slot_n[None, :] <= slot_n[:, None])).astype(np.uint8)
    return pair_slot, slot_d, slot_n, dom


def reduce_columns(Xb):
    """Kept columns of a 0/1 matrix (see the module docstring): (Xr, feature_map, flipped)."""
    n = Xb.shape[0]
    # a column and its complement have the same canonical form (first row flipped to 0)
    ones = Xb.sum(axis=0)
    canon = np.where(Xb[:1, :] == 1, 1 - Xb, Xb)
    packed = np.ascontiguousarray(np.packbits(canon, axis=0).T)
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    fmap = np.sort(first)
    fmap = fmap[(ones[fmap] > 0) & (ones[fmap] < n)].astype(np.int64)
    flip = 2 * ones[fmap] > n
    Xr = Xb[:, fmap]
    Xr[:, flip] = 1 - Xr[:, flip]
    return Xr, fmap, flip


def group_rows(Xr, y=None):
    """Group equal rows of ``Xr`` (and equal labels ``y`` when given): (index of each group's first row,
    group of every row)."""
    n = Xr.shape[0]
    rows = np.packbits(Xr, axis=1)
    if y is not None:
        rows = np.column_stack([rows, y.astype("<u4").view(np.uint8).reshape(n, 4)])
    rows = np.ascontiguousarray(np.pad(rows, ((0, 0), (0, -rows.shape[1] % 8))))
    words = rows.view(np.uint64)
    h = words @ _random_words(words.shape[1]).view(np.uint64)  # wrapping uint64 arithmetic: a row hash
    _, index, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    if not np.array_equal(words[index[inverse]], words):  # a hash collision: group the rows exactly instead
        keys = rows.view(np.dtype((np.void, rows.shape[1]))).ravel()
        _, index, inverse = np.unique(keys, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
    return index, inverse


def prepare(X, y, weight, reduce_features=True):
    """Reduce columns and merge rows (see the module docstring).

    Returns (Xr uint8 rows x kept features, y, weight, feature_map, flipped): kept feature j is original column
    ``feature_map[j]``, stored as ``1 - x`` when ``flipped[j]``.
    """
    Xb = np.asarray(X).astype(np.uint8)
    y, weight = y.astype(np.int64), weight.astype(np.int64)
    if not np.all(weight > 0):
        keep_rows = np.flatnonzero(weight > 0)
        Xb, y, weight = Xb[keep_rows], y[keep_rows], weight[keep_rows]
    F = Xb.shape[1]
    if not reduce_features:
        return Xb, y, weight, np.arange(F, dtype=np.int64), np.zeros(F, dtype=bool)
    Xr, fmap, flip = reduce_columns(Xb)
    # rows: equal (label, features) rows become one row weighted by their count
    index, inverse = group_rows(Xr, y)
    w = np.bincount(inverse, weights=weight, minlength=len(index)).astype(np.int64)
    order = np.lexsort((index, y[index]))  # by class, then first appearance
    return Xr[index[order]], y[index[order]], w[order], fmap, flip


def centre(Y, weight):
    """Targets minus their weighted mean, rounded to an integer when every target is one (exact sums)."""
    c = (weight[:, None] * Y).sum(axis=0) / weight.sum()
    whole = np.all(Y == np.round(Y), axis=0)
    c = np.where(whole, np.round(c), c)
    return Y - c


def prepare_regression(X, Y, weight, reduce_features=True):
    """Regression rows: (Xr, rstat, weight, feature_map, flipped) with ``rstat[r] = (w, w y_1, ..., w y_m,
    w |y|^2)`` summed over the rows merged into r (targets centred by :func:`centre`) and ``weight`` the
    integer weight of each row."""
    Xb = np.asarray(X).astype(np.uint8)
    Y = np.asarray(Y, dtype=np.float64).reshape(Xb.shape[0], -1)
    weight = weight.astype(np.int64)
    keep_rows = np.flatnonzero(weight > 0)
    Xb, Y, weight = Xb[keep_rows], centre(Y[keep_rows], weight[keep_rows]), weight[keep_rows]
    per_row = np.column_stack([weight, weight[:, None] * Y, weight * (Y * Y).sum(axis=1)]).astype(np.float64)
    F = Xb.shape[1]
    if not reduce_features:
        return Xb, per_row, weight, np.arange(F, dtype=np.int64), np.zeros(F, dtype=bool)
    Xr, fmap, flip = reduce_columns(Xb)
    index, inverse = group_rows(Xr)
    rstat = np.zeros((len(index), per_row.shape[1]))
    np.add.at(rstat, inverse, per_row)
    w = np.bincount(inverse, weights=weight, minlength=len(index)).astype(np.int64)
    order = np.argsort(index, kind="stable")  # first appearance
    return Xr[index[order]], rstat[order], w[order], fmap, flip


_RANDOM = np.random.default_rng(20220101).integers(1, 1 << 40, size=1 << 16, dtype=np.int64)


def _random_words(m):
    """``m`` fixed pseudo-random 40-bit integers (Zobrist keys for row ids, literals and row hashing)."""
    global _RANDOM
    if m > _RANDOM.shape[0]:
        _RANDOM = np.random.default_rng(20220101).integers(1, 1 << 40, size=2 * m, dtype=np.int64)
    return _RANDOM[:m]


@functools.cache
def no_bound():
    """The kernel's bound group of a classification search without a researcher's bound: ``on`` = 0 and no
    function (address 0, never called). It has the types of a bound's group, so one compilation of the
    classification kernel serves searches with and without a bound (two before: 55-60 s of CPU each from an
    empty cache, ``benchmarks/bench_compile.py murtree``). Never written (the kernel writes the group's log only
    when ``on`` = 1), so every search shares it."""
    return mt.UserBound(fn=0, on=0, check=0, log=np.zeros(mt.N_BOUND_LOG, dtype=np.int64),
                        value=np.zeros(1, dtype=np.float64))


class MurTreeSolver(bounds.PicklesUserBound, Solver):
    """State of one MurTree search (see :mod:`odtlab.core.murtree` for the arrays' meaning).

    ``X`` is a 0/1 matrix, ``sample_weight`` non-negative integers (counts). Classification: ``y`` class codes
    0..K-1. Regression (``task="regression"``): ``y`` float targets, shape (n,) or (n, m) (squared errors are
    summed over the outputs). One iteration is one SolveSubtree call (Algorithm 1), see the kernel module.

    The kernel's arguments are three named groups of :mod:`odtlab.core.murtree`: ``data`` (``Data``, the
    prepared problem), ``params`` (``Params``, the options) and ``state`` (``State``, everything the search
    writes; :meth:`grow` replaces its cache arrays).
    """

    name = "murtree"
    sense = "min"
    exact = True

    def __init__(self, X, y, sample_weight=None, max_depth=3, max_nodes=None, alpha=0, smallest=False,
                 cache="dataset", similarity_bound=True, incremental=True, depth_two=True, node_order="dynamic",
                 feature_order="gini", reduce_features=True, iterative_deepening=False, greedy_start=True,
                 n_classes=None, task="classification", bound_probing=False, lower_bound=None, check_bound=False):
        if task not in ("classification", "regression"):
            raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
        self.task = task
        self.regression = regression = task == "regression"
        X = np.asarray(X)
        if X.ndim != 2 or ((X != 0) & (X != 1)).any():
            X = check_binary(X)  # raises, naming the first non-binary column
        self.n_features = X.shape[1]
        self.X_original = X
        y = np.asarray(y, dtype=np.float64 if regression else np.int64)
        if regression and (y.ndim not in (1, 2) or not np.all(np.isfinite(y))):
            raise ValueError("regression targets must be finite floats of shape (n,) or (n, m)")
        self.y_original = y
        w = np.ones(len(y), dtype=np.int64) if sample_weight is None else np.asarray(sample_weight)
        if w.shape != y.shape[:1]:
            raise ValueError(f"sample_weight must have shape {y.shape[:1]}, got {w.shape}")
        if np.any(w < 0) or not np.all(np.equal(np.mod(w, 1), 0)):
            raise ValueError("MurTree counts rows: sample_weight must hold non-negative integers")
        w = w.astype(np.int64)
        self.w_original = w
        if w.sum() == 0:
            raise ValueError("sample_weight sums to 0: there is nothing to fit")
        depth = int(max_depth)
        if depth < 1 or depth > MAX_DEPTH:
            raise ValueError(f"max_depth must be between 1 and {MAX_DEPTH}, got {max_depth!r}")
        full = 2 ** depth - 1
        nodes = full if max_nodes is None else min(int(max_nodes), full)
        if nodes < 1:
            raise ValueError(f"max_nodes must be at least 1, got {max_nodes!r}")
        depth = min(depth, nodes)
        self.max_depth, self.max_nodes = depth, nodes
        ap, aq = as_ratio(alpha)
        if ap < 0:
            raise ValueError(f"alpha must be >= 0, got {alpha!r}")
        self.alpha = Fraction(ap, aq)
        self.ap, self.aq = ap, aq
        mode = mt.MODE_SPARSE if ap > 0 else (mt.MODE_SMALLEST if smallest else mt.MODE_PLAIN)
        for name, value, table in (("cache", cache, CACHES), ("node_order", node_order, NODE_ORDERS),
                                   ("feature_order", feature_order, FEATURE_ORDERS)):
            if value not in table:
                raise ValueError(f"{name} must be one of {list(table)}, got {value!r}")
        similarity_bound = bool(similarity_bound) and not regression
        self.options = dict(cache=cache, similarity_bound=similarity_bound, incremental=bool(incremental),
                            depth_two=bool(depth_two), node_order=node_order, feature_order=feature_order,
                            reduce_features=bool(reduce_features), smallest=bool(smallest),
                            iterative_deepening=bool(iterative_deepening), greedy_start=bool(greedy_start),
                            bound_probing=bool(bound_probing))

        if regression:
            Xr, rstat, wr, self.feature_map, self.flipped = prepare_regression(X, y, w, reduce_features)
            yr = np.zeros(len(wr), dtype=np.int64)
            self.K = K = rstat.shape[1]  # statistics per row: W, S_1..S_m, Q
            cls = rstat.sum(axis=0)
            root_leaf = float(mt.leaf_sse(cls, K))
            # ties within the float resolution delta of the centred sums, never a fraction of the root's loss
            kept = w > 0
            delta = certificate.resolution(centre(y.reshape(len(y), -1)[kept], w[kept]), w[kept])
            self.tie = max(delta, np.finfo(np.float64).tiny)
            self.slack = certificate.SLACK_DELTAS * delta
            cost_dtype, stat_dtype, fq_dtype = np.float64, np.float64, np.float64
        else:
            Xr, yr, wr, self.feature_map, self.flipped = prepare(X, y, w, reduce_features)
            rstat = np.zeros((1, 1))
            self.K = K = int(n_classes if n_classes is not None else y.max() + 1)
            cls = np.bincount(yr, weights=wr, minlength=K).astype(np.int64)
            root_leaf = int(cls.sum() - cls.max())
            self.tie = 1
            self.slack = 0.0
            cost_dtype, stat_dtype, fq_dtype = np.int64, np.int64, np.int32
        n, F = Xr.shape
        F_k = max(F, 1)  # the kernel needs one column even when every feature is constant
        if F == 0:
            Xr = np.zeros((n, 1), dtype=np.uint8)
            self.feature_map = np.zeros(1, dtype=np.int64)
            self.flipped = np.zeros(1, dtype=bool)
        total = int(wr.sum())
        if total >= 2 ** 31 or (not regression and aq * total + ap * nodes + 1 >= 2 ** 62):
            raise ValueError("the total sample weight (or alpha's denominator) is too large for the integer counters")
        Xc = np.ascontiguousarray(Xr.T)
        rowptr = np.zeros(n + 1, dtype=np.int64)
        rowptr[1:] = np.cumsum(Xr.sum(axis=1))
        rowfeat = np.nonzero(Xr)[1].astype(np.int32)
        label = yr.astype(np.int64)
        weight = wr
        rstat = np.ascontiguousarray(rstat, dtype=np.float64)
        zob = _random_words(n).copy()
        zlit = _random_words(2 * F_k)[::-1].copy()
        pair_slot, slot_d, slot_n, dom = budget_slots(depth, nodes, mode, self.options["depth_two"],
                                                      self.options["iterative_deepening"])
        P = len(slot_d)
        heap = 2 ** depth - 1
        self.events_per_iteration = 16 + 4 * (depth + 1)
        self.params = mt.Params(
            max_depth=depth, max_nodes=nodes, n_classes=K, n_features=F_k, n_rows=n, alpha_p=ap, alpha_q=aq, mode=mode,
            cache=CACHES[cache], similarity=int(similarity_bound), incremental=int(incremental),
            depth_two=int(depth_two), node_order=NODE_ORDERS[node_order], feature_order=FEATURE_ORDERS[feature_order],
            events_per_iteration=self.events_per_iteration, deepening=int(iterative_deepening),
            greedy=int(greedy_start), probing=int(bound_probing))
        levels = depth + 2
        pool = np.zeros(n * (depth + 2), dtype=np.int32)
        pool[:n] = np.arange(n, dtype=np.int32)
        bkeys = np.zeros((levels + 1) * 2 * (depth + 1), dtype=np.int32)
        frames = np.zeros((levels, mt.N_FRAME_FIELDS), dtype=np.int64)
        fcost = np.zeros((levels, mt.N_FRAME_COSTS), dtype=cost_dtype)
        fcls = np.zeros((levels + 1, K), dtype=stat_dtype)
        fcls[-1] = cls
        fcounts = np.zeros((levels, K, F_k), dtype=stat_dtype)
        fchild = np.zeros((levels, 2, K), dtype=stat_dtype)
        forder = np.zeros((levels, F_k), dtype=np.int32)
        ftree = np.full((levels, heap), -1, dtype=np.int32)
        ctree = np.full((levels, heap), -1, dtype=np.int32)
        rtree = np.full(heap, -1, dtype=np.int32)
        gtree = np.full(heap, -1, dtype=np.int32)
        reg = np.zeros(mt.N_REG, dtype=np.int64)
        regc = np.zeros(mt.N_REG_COSTS, dtype=cost_dtype)
        reg_cls = np.array(cls, dtype=stat_dtype)
        counters = np.zeros(mt.N_COUNTERS, dtype=np.int64)
        ccost = np.zeros(mt.N_SEARCH_COSTS, dtype=cost_dtype)
        ccost[mt.CC_TIE] = self.tie
        ccost[mt.CC_STEP] = 0 if regression else 1
        root_hash = int(zob.sum())
        by_branch = cache == "branch"
        reg[[mt.RG_START, mt.RG_LEN, mt.RG_W, mt.RG_HASH, mt.RG_KOFF, mt.RG_KLEN, mt.RG_KHASH]] = [
            0, n, total, root_hash, 0, 0 if by_branch else n, 0 if by_branch else root_hash]
        regc[mt.RC_LEAF] = root_leaf
        counters[mt.C_ROOT_W] = total
        counters[mt.C_ROOT_HASH] = root_hash
        arch_ids = np.zeros((depth + 1, 2, n), dtype=np.int32)
        arch_meta = np.full((depth + 1, 2, 2), -1, dtype=np.int64)
        arch_lb = np.zeros((depth + 1, 2, P), dtype=cost_dtype)
        lbrow = np.zeros(P, dtype=cost_dtype)
        fq = np.zeros(2 * K * F_k * F_k, dtype=fq_dtype)
        cnt_ids = np.zeros((2, n), dtype=np.int32)
        cnt_meta = np.full((2, 2), -1, dtype=np.int64)
        cnt_out = np.zeros((3, 3, 4), dtype=np.int64)
        cnt_cost = np.zeros((3, 3), dtype=cost_dtype)
        din = np.zeros((2, n), dtype=np.int32)
        dout = np.zeros((2, n), dtype=np.int32)
        diag = np.zeros((K, F_k), dtype=stat_dtype)
        act = np.zeros(F_k, dtype=np.int32)
        d2 = np.zeros((4, F_k), dtype=cost_dtype)
        d2f = np.zeros((2, F_k), dtype=np.int64)
        sing = np.zeros((K, F_k), dtype=stat_dtype)
        scratch = np.zeros(max(n, 4), dtype=np.int32)
        cand = np.zeros(levels, dtype=np.int64)
        if cache is None:
            cap, n_keys, tp = 1, 1, 1
            htab = np.zeros(1, dtype=np.int64)
        else:
            cap = 1024
            n_keys = max(4 * (depth + 3) * max(n, 1), 1 << 16)
            tp = max(4 * (depth + 3) * (heap + 3), 1 << 14)
            htab = np.zeros(4 * cap, dtype=np.int64)
        meta = np.zeros((cap, 3), dtype=np.int64)
        keys = np.zeros(n_keys, dtype=np.int32)
        ent_lb = np.zeros((cap, P), dtype=cost_dtype)
        ent_cost = np.full((cap, P), -1, dtype=cost_dtype)
        ent_tree = np.full((cap, P), -1, dtype=np.int64)
        tpool = np.zeros(tp, dtype=np.int32)
        self.data = mt.Data(Xc=Xc, rowptr=rowptr, rowfeat=rowfeat, label=label, weight=weight, rstat=rstat, zob=zob,
                            zlit=zlit, pair_slot=pair_slot, slot_d=slot_d, slot_n=slot_n, dom=dom)
        self.state = mt.State(
            pool=pool, bkeys=bkeys, frames=frames, fcost=fcost, fcls=fcls, fcounts=fcounts, fchild=fchild,
            forder=forder, ftree=ftree, ctree=ctree, rtree=rtree, gtree=gtree, reg=reg, regc=regc, reg_cls=reg_cls,
            counters=counters, ccost=ccost, arch_ids=arch_ids, arch_meta=arch_meta, arch_lb=arch_lb, lbrow=lbrow,
            fq=fq, cnt_ids=cnt_ids, cnt_meta=cnt_meta, cnt_out=cnt_out, cnt_cost=cnt_cost, din=din, dout=dout,
            diag=diag, act=act, d2=d2, d2f=d2f, sing=sing, scratch=scratch, cand=cand, htab=htab, meta=meta, keys=keys,
            ent_lb=ent_lb, ent_cost=ent_cost, ent_tree=ent_tree, tpool=tpool)
        self.feature_names = None
        self.classes = None
        self._cached = (-1, None)
        self._nbytes = None
        if not np.isfinite(self.slack):  # the centred targets' squares overflow: no loss can be compared
            counters[mt.C_DONE] = 1
        self.user_bound = None
        self.checked_bounds = {}
        if lower_bound is not None:
            if regression:
                raise ValueError("lower_bound is for classification (a bound on misclassifications from class "
                                 "counts); MurTreeRegressor takes none")
            self.bound_function = bounds.python_function(lower_bound)
            fn = bounds.compile_bound(self.bound_function, cls, depth, nodes)
            self.user_bound = mt.UserBound(fn=fn, on=1, check=int(bool(check_bound)),
                                           log=np.zeros(mt.N_BOUND_LOG, dtype=np.int64),
                                           value=np.zeros(1, dtype=np.float64))

    # -- Solver contract ---------------------------------------------------------------------------
    def kernel(self, level):
        return LevelKernel(mt.murtree_kernel, level)

    def advance(self, kernel, events, max_iterations):
        if self.user_bound is None:
            n, status = kernel(self.data, self.params, self.state, events, max_iterations,
                               None if self.regression else no_bound())
            return int(n), int(status)
        k, first = 0, self.iterations
        bound = self.user_bound._replace(fn=address_of(self.user_bound.fn))  # the cfunc stays alive in user_bound
        while True:  # the kernel stops after each value of the user's bound it logged (check mode, invalid values)
            n, status = kernel(self.data, self.params, self.state, events[k:], max_iterations - (self.iterations - first),
                               bound)
            k += int(n)
            if self.user_bound.log[mt.BL_STATUS] == mt.BOUND_NONE:
                return k, int(status)
            self.check_user_bound()
            if status != core_events.STATUS_BUDGET or self.iterations - first >= max_iterations:
                return k, int(status)

    def check_user_bound(self):
        """The value of the user's bound the kernel logged (``mt.UserBound``): a NaN or negative value raises
        ValueError; in check mode a value whose ceiling exceeds the optimum of its subproblem (the depth and node
        budgets on its rows, solved by MurTree without the user's bound) raises
        :class:`odtlab.bounds.UnsoundBoundError`. The optimum of each subproblem is computed once."""
        log = self.user_bound.log
        status, d, n = int(log[mt.BL_STATUS]), int(log[mt.BL_D]), int(log[mt.BL_N])
        rows = np.sort(self.state.pool[log[mt.BL_START]:log[mt.BL_START] + log[mt.BL_LEN]])
        value = float(self.user_bound.value[0])
        log[mt.BL_STATUS] = mt.BOUND_NONE
        label, weight = self.data.label[rows], self.data.weight[rows]
        counts = np.bincount(label, weights=weight, minlength=self.K).astype(np.int64)
        if status == mt.BOUND_INVALID:
            bounds.check_value(value, f"on the subproblem with depth {d} and {n} feature nodes ({len(rows)} "
                                      f"distinct rows, class counts {counts.tolist()})")
        key = (rows.tobytes(), d, n)
        if key not in self.checked_bounds:
            sub = MurTreeSolver(self.data.Xc[:, rows].T, label, weight, max_depth=d, max_nodes=n, n_classes=self.K)
            Search(sub, record="none").run()
            self.checked_bounds[key] = int(sub.state.ccost[mt.CC_G_MISS])
        optimum = self.checked_bounds[key]
        if bounds.rounded(value) > optimum:
            raise bounds.UnsoundBoundError(bounds.unsound_message(value, optimum, d, n, len(rows), int(weight.sum()),
                                                                  counts))

    def grow(self):
        """Double the cache arrays the kernel reported as full (``counters[C_GROW]``), in place
        (:func:`odtlab.memory.grow_rows`). Under ``memory_limit`` (set by :class:`~odtlab.search.Search`) a
        group grows by what fits, at least an eighth; when that does not fit, nothing changes and ``grow``
        returns False."""
        flags = int(self.state.counters[mt.C_GROW])
        groups = []
        if flags & mt.GROW_CACHE:
            groups.append(((("meta", 0), ("ent_lb", 0), ("ent_cost", -1), ("ent_tree", -1)), 4 * 8))
        if flags & mt.GROW_KEYS:
            groups.append(((("keys", 0),), 0))
        if flags & mt.GROW_TPOOL:
            groups.append(((("tpool", 0),), 0))
        others = self.nbytes()
        plan = []
        for arrays, extra in groups:  # extra: bytes per row outside the group (the hash table, 4 slots a row)
            current = getattr(self.state, arrays[0][0]).shape[0]
            row = sum(getattr(self.state, name)[:1].nbytes for name, _ in arrays) + extra
            others -= current * row
            cap = memory.capacity(current, current + max(current // 8, 1), 2 * current, lambda r: r * row, others,
                                  self.memory_limit)
            if cap is None:
                return False
            others += cap * row
            plan.append((arrays, cap))
        for arrays, cap in plan:
            for name, fill in arrays:
                self._grow_state(name, cap, fill)
            if arrays[0][0] == "meta":
                self.state = self.state._replace(htab=None)  # freed before the larger table is made
                self.state = self.state._replace(htab=np.zeros(4 * cap, dtype=np.int64))
                mt.rehash(self.state.htab, self.state.meta, int(self.state.counters[mt.C_NDS]))
        self.state.counters[mt.C_GROW] = 0
        self._nbytes = None
        return True

    def _grow_state(self, name, rows, fill):
        """:func:`odtlab.memory.grow_rows` on the state's array ``name``, held by nothing else while it grows."""
        holder = types.SimpleNamespace(array=getattr(self.state, name))
        self.state = self.state._replace(**{name: None})
        memory.grow_rows(holder, "array", rows, fill)
        self.state = self.state._replace(**{name: holder.array})

    @property
    def iterations(self):
        return int(self.state.counters[mt.C_ITER])

    @property
    def finished(self):
        return bool(self.state.counters[mt.C_DONE])

    def exact_bounds(self):
        """(lower, upper): weighted misclassifications + alpha * nodes as Fractions (classification), or squared
        error + alpha * nodes as floats (regression; equal once the search is finished)."""
        if self.regression:
            return self.bounds()
        c = self.state.counters
        upper = Fraction(int(self.state.ccost[mt.CC_G_MISS])) + self.alpha * int(c[mt.C_G_NODES])
        lower = Fraction(int(self.state.ccost[mt.CC_LOWER]), self.aq)
        return lower, upper

    def bounds(self):
        """(lower, upper) as floats. Classification: both from exact integers in units of 1 / alpha's denominator,
        each rounded once (so a finished search has lower == upper). Regression: the float sums, the lower bound
        less the float slack (``odtlab.certificate``) unless the finished search is certified."""
        ccost = self.state.ccost
        cost, nodes, lower = ccost[mt.CC_G_MISS], int(self.state.counters[mt.C_G_NODES]), ccost[mt.CC_LOWER]
        if self.regression:
            if not np.isfinite(self.slack):
                return 0.0, np.inf
            upper = float(cost) + float(self.alpha) * nodes
            if self.finished:  # certified: the recomputed objective; else U less the float slack
                if self.uncertified() is None:
                    return self.recomputed, self.recomputed
                return certificate.below(upper, self.slack), upper
            return certificate.below(min(float(lower) / self.aq, upper), self.slack), upper
        return int(lower) / self.aq, (int(cost) * self.aq + self.ap * nodes) / self.aq

    def certificate(self):
        """The rule of :mod:`odtlab.certificate`: the objective recomputed from the data (exactly, or the squared
        error within ``SSE_RTOL`` of the optimum, float slack included) equals the certified lower bound."""
        tree = self.incumbent()
        if self.regression:
            upper = float(self.state.ccost[mt.CC_G_MISS]) + float(self.alpha) * int(self.state.counters[mt.C_G_NODES])
            self.recomputed, reason = certificate.sse_certificate(tree, self.X_original, self.y_original, upper,
                                                                  self.slack, self.w_original,
                                                                  float(self.alpha) * tree.splits)
            return reason
        wrong = tree.predict_index(self.X_original) != self.y_original
        recomputed = int(self.w_original[wrong].sum()) + self.alpha * tree.splits
        return certificate.exact_certificate(recomputed, self.exact_bounds()[0])


    def incumbent(self):
        it = self.iterations
        if self._cached[0] != it or self._cached[1] is None:
            self._cached = (it, self.tree_from_heap(self.state.gtree))
        return self._cached[1]

    def tree_dict(self, heap, h=0):
        """A heap array of kernel features as the nested dict of ``Tree.from_dict`` (original columns)."""
        if h >= len(heap) or heap[h] < 0:
            return {"leaf": True}
        f = int(heap[h])
        kids = [self.tree_dict(heap, 2 * h + 1), self.tree_dict(heap, 2 * h + 2)]
        if self.flipped[f]:  # the kernel stores 1 - x: its "absent" child holds the rows with x = 1
            kids.reverse()
        return {"feature": int(self.feature_map[f]), "kind": "threshold", "threshold": 0.5, "children": kids}

    def tree_from_heap(self, heap):
        if self.regression:
            tree = Tree.from_dict(self.tree_dict(heap), self.n_features, task="regression",
                                  feature_names=self.feature_names)
            return tree.fit_leaves(self.X_original, self.y_original, self.w_original)
        tree = Tree.from_dict(self.tree_dict(heap), self.n_features, classes=self.classes,
                              feature_names=self.feature_names)
        if tree.classes is None:
            tree.classes = np.arange(self.K)
        return tree.fit_leaves(self.X_original, self.y_original, self.w_original)

    def stats(self):
        c = self.state.counters
        user = {} if self.user_bound is None else {"user_bound_raises": int(self.user_bound.log[mt.BL_RAISES]),
                                                   "user_bound_checks": len(self.checked_bounds)}
        return {**user, "subtree_calls": int(c[mt.C_CALLS]), "general_frames": int(c[mt.C_FRAMES]),
                "depth_two_calls": int(c[mt.C_D2]), "depth_two_scratch": int(c[mt.C_D2_SCRATCH]),
                "depth_two_incremental": int(c[mt.C_D2_INCREMENTAL]), "depth_two_unchanged": int(c[mt.C_D2_SAME]),
                "counted_rows": int(c[mt.C_D2_UPDATES]), "cache_entries": int(c[mt.C_NDS]),
                "cache_hits": int(c[mt.C_CACHE_HITS]), "lower_bound_prunes": int(c[mt.C_LB_PRUNES]),
                "similarity_raises": int(c[mt.C_SIM_RAISES]), "similarity_prunes": int(c[mt.C_SIM_PRUNES]),
                "incumbent_updates": int(c[mt.C_INCUMBENTS]), "features_used": int(len(self.feature_map)),
                "rows_used": int(self.data.label.shape[0])}

    def describe(self, event):
        """The event's caption; a depth-two solve also names how its counts were obtained (§4.4.3)."""
        text = event.caption()
        if event.name == "DepthTwoSolve":
            text += f" ({COUNT_MODES.get(int(event.counting), '?')} counting)"
        return text

    def nbytes(self):
        if self._nbytes is None:
            self._nbytes = int(sum(a.nbytes for group in (self.data, self.state) for a in group))
        return self._nbytes


#: MurTree's parameters, checked once by :meth:`TreeEstimator._check_params` (``feature_order`` per estimator).
MURTREE_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "max_depth": [Interval(Integral, 1, MAX_DEPTH, closed="both")],
    "max_nodes": [Interval(Integral, 1, None, closed="left"), None],
    "alpha": [Fraction, Interval(Real, 0, None, closed="left"), str],  # a Fraction's sign: _check_param_relations
    "cache": [StrOptions({c for c in CACHES if c is not None}), None],
    "node_order": [StrOptions(set(NODE_ORDERS))],
    **{switch: ["boolean"] for switch in ("smallest", "similarity_bound", "incremental", "depth_two", "reduce_features",
                                          "greedy_start", "iterative_deepening", "bound_probing")},
}


class _MurTreeEstimator(TreeEstimator):
    """Parameter checks and solver construction shared by :class:`MurTreeClassifier` and
    :class:`MurTreeRegressor`."""

    _input = "binary"
    # what ``odtlab.widgets.explore`` turns on: a lower bound that rises during the search (off in ``fit``: a median
    # 13 % more fit time on the dl/ sets, benchmarks/bench_murtree.py --probing)
    _player_params = {"bound_probing": True}

    def _check_param_relations(self):
        try:
            p, _ = as_ratio(self.alpha)
        except (TypeError, ValueError, ArithmeticError):
            raise ValueError(f"alpha must be a finite number >= 0, got {self.alpha!r}") from None
        if p < 0:
            raise ValueError(f"alpha must be >= 0, got {self.alpha!r}")

    def _make_solver(self, X, y, sample_weight):
        regression = self._task == "regression"
        return MurTreeSolver(X, y, sample_weight, max_depth=self.max_depth, max_nodes=self.max_nodes,
                             alpha=self.alpha, smallest=self.smallest, cache=self.cache,
                             similarity_bound=getattr(self, "similarity_bound", False), incremental=self.incremental,
                             depth_two=self.depth_two, node_order=self.node_order,
                             feature_order="gini" if self.feature_order == "mse" else self.feature_order,
                             reduce_features=self.reduce_features, greedy_start=self.greedy_start,
                             iterative_deepening=self.iterative_deepening,
                             n_classes=None if regression else len(self.classes_), task=self._task,
                             bound_probing=self.bound_probing, lower_bound=getattr(self, "lower_bound", None),
                             check_bound=getattr(self, "check_bound", False))


class MurTreeClassifier(TreeClassifierMixin, _MurTreeEstimator):
    __doc__ = f"""Optimal classification tree on binary features by MurTree's dynamic programming and search.

    Parameters
    ----------
    max_depth : int >= 1
        Largest number of feature nodes on a root-to-leaf path.
    max_nodes : int >= 1 or None
        Largest number of feature nodes; None means 2^max_depth - 1, and larger values are clamped to it.
    alpha : float >= 0
        Penalty per feature node in misclassification units (the decimal as written, e.g. 0.5 = 1/2).
        alpha > 0 minimises misclassifications + alpha * nodes by Algorithm 6.
    time_limit : float or None
        Seconds; a stopped search keeps its best tree and its certified bounds (``result_``); ``search_.run()``
        resumes it.
    smallest : bool
        With alpha = 0, return the optimal tree with the fewest feature nodes (Algorithm 7).
    cache : "dataset", "branch" or None
        Subtree memo keyed by the rows of the subtree (§4.6.2) or by its set of tests (§4.6.1), or none.
    similarity_bound, incremental, depth_two : bool
        Switch the similarity lower bound, incremental frequency counting and the depth-two solver (ablations).
    node_order : "dynamic" or "post-order"
        Which child is solved first (§4.7).
    feature_order : "gini" or "in-order"
        Order in which a subtree's features are tried (§4.8). The paper's default is in-order (best on slightly
        more sets of its Table 3); "gini" is pystreed's default and avoids in-order's worst cases here (dl/mushroom
        at depth 4: 0.02 s with gini, 0.4 s in order).
    reduce_features : bool
        Drop constant, duplicate and complementary columns and merge duplicate rows first (optimum unchanged).
    greedy_start : bool
        Start from a greedy (Gini, breadth-first) tree as the incumbent and upper bound instead of the leaf.
    iterative_deepening : bool
        Solve depth 1, 2, ... before the requested depth (§4.9.5), each under the best tree so far.
    bound_probing : bool
        Raise the certified lower bound while the search runs (with alpha = 0; not the paper's): the root is
        queried with upper bounds that climb from the bound towards the incumbent (an eighth of the gap, then
        doubling). A query that finds no tree certifies the root's stored bound (at least its UB + 1); the
        first query that finds one has found the optimum. Without it the bound of a plain search stays at 0 until
        the search ends (MurTree's recursion has no anytime lower bound). The cache carries over from query to
        query; on the 20 dl/ sets at depths 3 and 4 a fit with probing takes 0.90-1.42 times as long (median
        1.13; ``benchmarks/bench_murtree.py --probing``), so it is off here and on in every player
        (``odtlab.widgets.explore``), where the gap closing is the point.
    lower_bound : function, "module:function" or None, default=None
        A researcher's lower bound ``lower_bound(counts, depth, nodes) -> float`` (:mod:`odtlab.bounds`;
        ``odtlab solve murtree DATA --lower-bound mymodule:my_bound`` on the command line):
        from the weighted class counts of a subproblem's rows, its depth and its node budget, a number >= 0
        that is at most the fewest weighted misclassifications of any tree within those budgets on any data
        with those counts. The search uses the larger of it (rounded up) and its own bounds. Compiled once
        per function as a first-class numba function (0.03 s of CPU for plain arithmetic, up to about 2 s for
        the first function of a process that calls a numpy function such as ``np.sort``); the kernel is not
        recompiled.
    check_bound : bool, default=False
        Verify every value of ``lower_bound`` that raised a subproblem's bound against that subproblem's
        optimum (MurTree without it); an unsound value raises ``odtlab.bounds.UnsoundBoundError`` naming the
        subproblem, the value and the optimum. Each check solves a subproblem: for small data.
    record : "none", "summary" or "full"
        Event level kept during ``fit``.
    keep_search : bool, default=False
        Keep ``search_`` (its state and the training data) when pickling.

    Input must be 0/1: use ``odtlab.encoders.ThresholdBinarizer`` or ``odtlab.encoders.one_hot`` first.
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import MurTreeClassifier, datasets
    >>> data = datasets.load("sklearn/breast_cancer")
    >>> from odtlab.encoders import ThresholdBinarizer
    >>> Xb = ThresholdBinarizer(method="quantiles", n_quantiles=4).fit_transform(data.X)
    >>> clf = MurTreeClassifier(max_depth=2).fit(Xb, data.y)
    >>> clf.result_.status, int(clf.result_.objective)
    ('optimal', 32)
    """

    _parameter_constraints = {**MURTREE_CONSTRAINTS, "feature_order": [StrOptions(set(FEATURE_ORDERS))],
                              "lower_bound": [callable, str, None],
                              "check_bound": ["boolean", Interval(Integral, 0, 1, closed="both")]}
    __init__ = params_init(max_depth=3, max_nodes=None, alpha=0.0, time_limit=None, smallest=False, cache="dataset",
                           similarity_bound=True, incremental=True, depth_two=True, node_order="dynamic",
                           feature_order="gini", reduce_features=True, greedy_start=True,
                           iterative_deepening=False, bound_probing=False, lower_bound=None, check_bound=False,
                           record="summary", keep_search=False)


class MurTreeRegressor(TreeRegressorMixin, _MurTreeEstimator):
    __doc__ = f"""Optimal regression tree (squared error, leaves predict the mean) on binary features by MurTree (§4.9.2).

    Minimises the weighted sum of squared errors (summed over the outputs when y has several columns)
    + ``alpha`` * feature nodes, under ``max_depth`` and ``max_nodes``. The depth-two solver counts, per pair
    of features, the sums of the weights, of the targets and of the squared targets, and gets the squared error
    of every depth-two tree from them by inclusion-exclusion. The similarity lower bound is not used: it is
    invalid for squared errors (removing one row can lower the optimum by more than any fixed amount).

    Certified as :mod:`odtlab.certificate` states: the sums are of targets centred on their mean, squared errors
    within their float resolution delta = 4 n eps sum w (y - ybar)^2 are ties, and ``result_.status`` is
    "optimal" only when the returned tree's squared error, recomputed from the data, is within 1e-9 of the
    optimum (float slack included); else "uncertified" with the reason in ``result_.stats["certificate"]``
    (one target far from the others, or squares that overflow float64).

    ``sample_weight`` must hold non-negative integers (counts). Input must be 0/1: use
    ``odtlab.encoders.ThresholdBinarizer`` or ``odtlab.encoders.one_hot`` first.

    Parameters
    ----------
    max_depth, max_nodes, time_limit, smallest, cache, incremental, depth_two, node_order, reduce_features, \
greedy_start, iterative_deepening, bound_probing, record, keep_search
        As :class:`MurTreeClassifier` (there is no ``similarity_bound`` switch).
    alpha : float >= 0, default=0.0
        Penalty per feature node, in squared-error units.
    feature_order : {{"mse", "in-order"}}, default="mse"
        By squared-error decrease (pystreed's default for regression) or in column order.
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import MurTreeRegressor, datasets
    >>> data = datasets.load("sklearn/diabetes")
    >>> from odtlab.encoders import ThresholdBinarizer
    >>> Xb = ThresholdBinarizer(method="quantiles", n_quantiles=4).fit_transform(data.X)
    >>> reg = MurTreeRegressor(max_depth=2).fit(Xb, data.y)
    >>> reg.result_.status, reg.get_n_leaves()
    ('optimal', 4)
    """

    _task = "regression"
    _parameter_constraints = {**MURTREE_CONSTRAINTS, "feature_order": [StrOptions({"mse", "in-order"})]}

    __init__ = params_init(max_depth=3, max_nodes=None, alpha=0.0, time_limit=None, smallest=False, cache="dataset",
                           incremental=True, depth_two=True, node_order="dynamic", feature_order="mse",
                           reduce_features=True, greedy_start=True, iterative_deepening=False,
                           bound_probing=False, record="summary", keep_search=False)


_OPTIONS = {"depth": "max_depth", "nodes": "max_nodes", "alpha": "alpha", "time_limit": "time_limit"}
register(SolverSpec("murtree", MurTreeClassifier,
                    {**_OPTIONS, "lower_bound": "lower_bound", "check_bound": "check_bound"},
                    "MurTree: optimal tree on binary features (misclassifications + alpha * nodes)",
                    variants=({}, {"lower_bound": "odtlab.bounds:trivial"})))
register(SolverSpec("murtree-regressor", MurTreeRegressor, _OPTIONS,
                    "MurTree: optimal regression tree on binary features (squared error + alpha * nodes)"))
