"""DPDT (Kohler, Akrour, Preux, KDD 2025, "Breiman meets Bellman") on the search runtime.

The kernel is :mod:`odtlab.core.dpdt`: a depth-first build of the MDP of §4 over the candidate splits of a
split generator (§5.2, CART by default) with backward induction (Algorithm 1). This module holds the event
kinds, :class:`DPDTSolver` (state, growth, incumbent tree, the regularisation path), the scikit-learn
estimators :class:`DPDTClassifier` / :class:`DPDTRegressor` and the registry entry ``odtlab solve dpdt``.

Objective (Eq. 1 with Prop. 4.1): L_alpha(T) = training loss + alpha * C(T), C(T) the expected number of splits
a training row passes (sample weights weigh rows; regression uses CART's squared error, the per-output mean).
DPDT is optimal among the trees whose splits the generator offers, so a finished search with the CART or top-B
generator has status "done" (``exact = False``); with ``generator="exhaustive"`` (and min_samples_split = 2,
min_samples_leaf = 1) it is the optimal tree of depth <= max_depth (Prop. 4.1), status "optimal" under the rule of
:mod:`odtlab.certificate` (the returned tree's L_alpha, recomputed from the data, equals the search's: exactly for
integer weights; for regression within 1e-9 of the optimum, float slack of the centred sums included; else
"uncertified" with the reason). The exhaustive generator cuts between any two distinct values (at the lower value
when their midpoint rounds onto one of them); regression sums targets centred on their mean. Bounds
(:meth:`DPDTSolver.bounds`): upper = L_alpha of the current policy's tree (the single leaf before the first
iteration); lower = 0, the trivial bound (every loss and every alpha * C(T) is >= 0: DPDT computes no lower
bound), or the upper bound once an exhaustive search has finished. Theorem 5.1: with the CART generator the
result is never worse than CART of the same depth nor than any pruning of it, at every alpha.

Counters (``stats()``): ``operations`` in the paper's unit (Table 1: the nodes of every inner CART tree fitted,
2k + 1 for a CART with k splits; for top-B / exhaustive the cuts returned), ``candidates`` (candidate splits
with two non-empty sides, each one a Bellman backup unless a duplicate), ``states``, ``generator_calls``,
``backups``, ``duplicates``, ``scanned`` (row x feature units of split scans). The paper's Table 1 "light"
(8, 1, 1) and "full" (8, 8, 8) match, in counts and in train accuracy, ``candidates=(16, 1, 1)`` and
``(16, 16, 16)`` here (inner CARTs with 16 leaves; the paper's text says "16 candidate root splits"), see
:mod:`odtlab.core.dpdt`; (8, 1, 1) in the reference code's unit gives 7 root candidates and about 45 candidates
(at most 141 CART nodes).

Budgets (docs/errata.md, DPDT D2): ``candidates=(B_0, B_1, ...)`` gives the budget at depth d; depths beyond the
list are greedy (one candidate, CART's split). With ``budget="leaves"`` (default, the reference code) B_d is
the inner CART's ``max_leaf_nodes`` and a state gets at most B_d - 1 candidates; with ``budget="splits"`` it
gets at most B_d. Top-B returns that many best-impurity cuts.

The regularisation path: the kernel keeps, per state, the value V(s) as a function of alpha (Prop. 4.1), so
one search gives every alpha at which the optimal tree changes and the tree on each interval
(:meth:`DPDTSolver.path`, :meth:`DPDTClassifier.get_pareto_front`). At a breakpoint the simpler tree is
returned (the path's right limit).
"""
from fractions import Fraction
import numbers

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from odtlab import certificate, memory
from odtlab.core import cart as cart_kernels
from odtlab.core import dpdt as kernels
from odtlab.core._jit import LevelKernel, as_ratio
from odtlab.estimators import (ATTRIBUTES_DOC, COMMON_CONSTRAINTS, TreeClassifierMixin, TreeEstimator, TreeRegressorMixin,
                               params_init)
from odtlab.search import Search, Solver
from odtlab.solvers.cart import CARTSolver
from odtlab.solvers import SolverSpec, register
from odtlab.tree import Tree

ALGORITHM = "dpdt"
GENERATOR_NAMES = {v: k for k, v in kernels.GENERATORS.items()}
BUDGETS = ("leaves", "splits")

def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_options(max_depth, candidates, alpha, generator, budget, min_samples_split=2, min_samples_leaf=1,
                  min_impurity_decrease=0.0):
    """Validate DPDT's options; returns (depth, budgets tuple, alpha as a Fraction)."""
    depth = _check_int("max_depth", max_depth, 1)
    if isinstance(candidates, numbers.Integral) and not isinstance(candidates, bool):
        candidates = (candidates,)
    if isinstance(candidates, (str, bytes)) or not hasattr(candidates, "__iter__"):
        raise TypeError(f"candidates must be a tuple of per-depth budgets such as (8, 3), got {candidates!r}")
    budgets = tuple(_check_int("each budget in candidates", b, 1) for b in candidates)
    if isinstance(alpha, bool) or not isinstance(alpha, (numbers.Real, Fraction)):
        raise TypeError(f"alpha must be a number, got {alpha!r}")
    if not alpha >= 0 or not np.isfinite(float(alpha)):
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    if generator not in kernels.GENERATORS:
        raise ValueError(f"generator must be one of {sorted(kernels.GENERATORS)}, got {generator!r}")
    if budget not in BUDGETS:
        raise ValueError(f"budget must be one of {BUDGETS}, got {budget!r}")
    _check_int("min_samples_split", min_samples_split, 2)
    _check_int("min_samples_leaf", min_samples_leaf, 1)
    if not min_impurity_decrease >= 0:
        raise ValueError(f"min_impurity_decrease must be >= 0, got {min_impurity_decrease!r}")
    p, q = as_ratio(alpha)
    return depth, budgets, Fraction(p, q)


def depth_budgets(depth, budgets, generator, budget):
    """Per-depth budget array for the kernel: CART's max_leaf_nodes (cart) or the number of cuts (topb).

    Depths beyond the list are greedy: one candidate (max_leaf_nodes = 2), as in the reference code.
    """
    out = np.zeros(depth, dtype=np.int64)
    for d in range(depth):
        b = budgets[d] if d < len(budgets) else None
        if generator == "cart":
            out[d] = 2 if b is None else max(2, b if budget == "leaves" else b + 1)
        elif generator == "topb":
            out[d] = 1 if b is None else max(1, b - 1 if budget == "leaves" else b)
    return out


class _Table:
    """A box holding one growable array while :func:`odtlab.memory.grow_rows` resizes it."""

    def __init__(self, array):
        self.array = array


def _grown(cap, need):
    while cap < need:
        cap *= 2
    return cap


class DPDTSolver(Solver):
    """State of one DPDT search (see :mod:`odtlab.core.dpdt` for the arrays).

    ``X``: (n, p) finite floats; ``y``: class codes 0..K-1 or regression targets (n,) / (n, m);
    ``task``: "classification" or "regression". Options as :class:`DPDTClassifier`. ``alpha`` only picks the
    incumbent tree and the Q values in events; the search itself covers every alpha.
    """

    name = "dpdt"
    sense = "min"
    exact = False  # True for an instance with the exhaustive generator and no row minimums (set in __init__)

    def __init__(self, X, y, sample_weight=None, task="classification", max_depth=3, candidates=(8, 3), alpha=0.0,
                 generator="cart", budget="leaves", criterion=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, n_classes=None):
        depth, budgets, self.alpha = check_options(max_depth, candidates, alpha, generator, budget,
                                                   min_samples_split, min_samples_leaf, min_impurity_decrease)
        if task not in ("classification", "regression"):
            raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
        criterion = criterion or ("gini" if task == "classification" else "squared_error")
        allowed = ("gini", "entropy") if task == "classification" else ("squared_error",)
        if criterion not in allowed:
            raise ValueError(f"criterion must be one of {allowed} for {task}, got {criterion!r}")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"X must be 2-D with at least one row and one column, got shape {X.shape}")
        if not np.isfinite(X).all():
            raise ValueError("X contains NaN or infinite values")
        n, p = X.shape
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (n,) or not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("sample_weight must hold one finite, non-negative weight per row")
        # private, writable C-ordered copies: a read-only array (a memmap, a frozen view) would make numba compile
        # another specialisation of every kernel (minutes cold), and the caller's arrays are never touched
        self.X = np.array(X, dtype=np.float64, order="C")
        self.XT = np.ascontiguousarray(self.X.T)
        self.w = np.array(w, dtype=np.float64)
        self.task = task
        self.criterion = criterion
        self.generator = generator
        self.max_depth = depth
        # exhaustive candidates and no row minimums: every tree of depth <= D is in the MDP (Prop. 4.1)
        self.exact = generator == "exhaustive" and min_samples_split == 2 and min_samples_leaf == 1
        if task == "classification":
            yv = np.asarray(y)
            codes = yv.astype(np.float64)
            if yv.shape != (n,) or not np.isfinite(codes).all() or (codes < 0).any() \
                    or (codes != np.round(codes)).any():
                raise ValueError("y must hold one non-negative integer class code per row")
            self.y = yv.astype(np.int64)
            self.K = int(n_classes if n_classes is not None else self.y.max() + 1)
            if self.K <= self.y.max():
                raise ValueError(f"n_classes = {self.K} but y holds class code {self.y.max()}")
            self.Y = self.y.astype(np.float64).reshape(-1, 1)
            self.Yc = np.zeros((n, 0))
            n_stats = self.K
        else:
            Y = np.asarray(y, dtype=np.float64)
            if Y.shape[0] != n or Y.ndim not in (1, 2) or not np.isfinite(Y).all():
                raise ValueError(f"y must hold finite targets of shape ({n},) or ({n}, m)")
            self.Y = np.array(Y.reshape(n, -1), dtype=np.float64, order="C")
            self.y = self.Y
            # the kernel sums targets centred on their mean (never raw sums of squares, which cancel at an offset)
            self.Yc = np.ascontiguousarray(certificate.centred(self.Y, w))
            self.K = None
            n_stats = 2 * self.Y.shape[1]
        self.yi = self.y if task == "classification" else np.zeros(0, dtype=np.int64)
        self.Yk = self.Y if task == "classification" else self.Yc  # what the kernel's statistics sum
        # float slack of a finished exhaustive regression search, in the kernel's weight units (leaf loss W * imp)
        self.slack = 0.0 if task == "classification" else \
            certificate.SLACK_DELTAS * certificate.resolution(self.Yc, w) / self.Y.shape[1]
        self.budgets = depth_budgets(depth, budgets, generator, budget)
        if generator == "exhaustive":
            max_cands = max(n - 1, 0) * p
        elif generator == "cart":
            max_cands = int(self.budgets.max()) - 1
        else:
            max_cands = int(self.budgets.max())
        self.events_per_iteration = kernels.events_per_iteration(max_cands)
        integral = bool(np.all(w == np.round(w))) and w.sum() < 2 ** 50  # weight sums stay exact integers
        self._integral = integral and task == "classification"
        self.table = np.zeros(0)  # x log2 x of integer weights, for entropy (at most 8 MB)
        if criterion == "entropy" and integral and w.sum() <= 2 ** 20:
            v = np.arange(int(w.sum()) + 2, dtype=np.float64)
            self.table = np.where(v > 0, v * np.log2(np.maximum(v, 1.0)), 0.0)
        self.params = kernels.Params(
            criterion=cart_kernels.CRITERIA[criterion], max_depth=depth, min_samples_split=int(min_samples_split),
            min_samples_leaf=int(min_samples_leaf), min_impurity_decrease=float(min_impurity_decrease),
            generator=kernels.GENERATORS[generator], budgets=self.budgets, n_stats=n_stats, alpha=float(self.alpha),
            events_per_iteration=self.events_per_iteration, xlogx_table=bool(self.table.size),
            integer_weights=self._integral)
        self._layout(n_stats if task == "classification" else self.Y.shape[1] + 1)
        self.buf = np.zeros(n, dtype=np.int32)
        self.flag = np.zeros(n, dtype=np.uint8)
        self.STACK = np.zeros((depth, kernels.FR_COLS), dtype=np.int64)
        cap = 256
        self.SI = memory.zeros((cap, kernels.SI_COLS), np.int64)  # the tables that grow: in place
        self.SF = memory.zeros((cap, kernels.SF_COLS), np.float64)
        self.CI = memory.zeros((cap, kernels.CI_COLS), np.int64)
        self.CF = memory.zeros((cap, kernels.CF_COLS), np.float64)
        self.PI = memory.zeros((cap, 3), np.int64)
        self.PF = memory.zeros((cap, 2), np.float64)
        self.WI = memory.zeros((64, 3), np.int64)
        self.WF = memory.zeros((64, 2), np.float64)
        self.counters = np.zeros(kernels.N_COUNTERS, dtype=np.int64)
        # the kernel's groups (the arrays above move into ``state``; the growable tables are replaced in ``grow``)
        self.data = kernels.Data(self.X, self.XT, self.Yk, self.Yc, self.yi, self.w, self.table, self.lay)
        self.state = kernels.State(**{name: self.__dict__.pop(name) for name in kernels.State._fields})
        self.feature_names = None
        self.classes = None
        self._greedy_tree = None
        self._ran = False  # whether the kernel was called (a search stopped before its first iteration too)
        self._cache = {}
        if not np.isfinite(self.slack):  # the centred targets' squares overflow: no loss can be compared
            self.state.counters[kernels.C_DONE] = 1

    def _layout(self, hist_columns):
        """Per-feature layout: features with few distinct values get histogram bins, the others presorted lists
        (ties in row order); the last list of each level holds the rows ascending (see ``core.dpdt``)."""
        n, p = self.X.shape
        counts, values, codes = kernels.few_values(self.XT, kernels.HIST_MAX_VALUES)
        binned = np.flatnonzero(counts > 0)
        listed = np.flatnonzero(counts == 0)
        fkind = np.zeros(p, dtype=np.int64)
        fkind[binned] = -(np.arange(binned.size) + 1)
        fkind[listed] = np.arange(listed.size)
        offsets = np.concatenate([[0], np.cumsum(counts[binned])]).astype(np.int64)
        gbin = np.ascontiguousarray((codes[binned] + offsets[:-1, None].astype(np.int32)).T)
        bvals = np.concatenate([values[f, :counts[f]] for f in binned]) if binned.size else np.zeros(0)
        self.LISTS = np.zeros((self.max_depth, listed.size + 1, n), dtype=np.int32)
        order = np.argsort(self.XT[listed], axis=1).astype(np.int32)
        kernels.stable_ties(self.XT[listed], order)
        self.LISTS[0, :listed.size] = order
        self.LISTS[0, listed.size] = np.arange(n)
        self.scratch = np.zeros(self.LISTS.shape[1:], dtype=np.int32)
        self.lay = (fkind, gbin, offsets, bvals, np.zeros(n, dtype=np.int32),
                    np.zeros(kernels.HIST_MAX_VALUES + 1, dtype=np.int64), np.zeros((offsets[-1], hist_columns + 1)))
        # the histograms of the states on the path (HS) and of the pending right child of each (HP)
        self.HS = np.zeros((self.max_depth,) + self.lay[6].shape)
        self.HP = np.zeros_like(self.HS)
        self.HSV = np.zeros(2 * self.max_depth, dtype=np.int64)
        self.MEMO = np.zeros((self.max_depth + 2, 2, 5))
        self.LAID = np.zeros(self.max_depth + 1, dtype=np.int64)

    # -- Solver contract ---------------------------------------------------------------------------
    first_call_work = 8_000_000  # row x feature units the first kernel call of Search.run may scan, about

    @property
    def first_chunk(self):
        """Iterations of the first kernel call of :meth:`Search.run`: ``first_call_work / (n p)`` (an iteration
        expands a state of at most n rows), between 16 and 65536, so that small problems finish in one call and
        large ones still stop within about 0.1 s; later calls adapt."""
        n, p = self.X.shape
        return int(min(max(self.first_call_work // (n * p), 16), 1 << 16))

    def kernel(self, level):
        return LevelKernel(kernels.dpdt_kernel, level)

    def advance(self, kernel, events, max_iterations):
        k, status = kernel(self.data, self.params, self.state, events, max_iterations)
        self._ran = True
        return int(k), int(status)

    def grow(self):
        """Enlarge the table pairs the kernel asked for (doubling), in place (:func:`odtlab.memory.grow_rows`),
        then clear the request. Under ``memory_limit`` (set by :class:`~odtlab.search.Search`) a pair grows by
        what fits; when not even what the kernel needs fits, nothing changes and ``grow`` returns False."""
        c = self.state.counters
        what = int(c[kernels.C_GROW])
        others = self.nbytes()
        plan = []
        for flag, need, pair in ((kernels.GROW_STATES, kernels.C_NEED_STATES, ("SI", "SF")),
                                 (kernels.GROW_CANDS, kernels.C_NEED_CANDS, ("CI", "CF")),
                                 (kernels.GROW_PIECES, kernels.C_NEED_PIECES, ("PI", "PF")),
                                 (kernels.GROW_WORK, kernels.C_NEED_WORK, ("WI", "WF"))):
            if not what & flag:
                continue
            current = getattr(self.state, pair[0]).shape[0]
            row = sum(getattr(self.state, name)[:1].nbytes for name in pair)
            others -= current * row
            cap = memory.capacity(current, int(c[need]), _grown(current, int(c[need])), lambda r: r * row,
                                  others, self.memory_limit)
            if cap is None:
                return False
            others += cap * row
            plan.append((pair, cap))
        for pair, cap in plan:
            for name in pair:
                self._grow_table(name, cap)
        c[kernels.C_GROW] = 0
        return True

    def _grow_table(self, name, rows):
        """``state.<name>`` with ``rows`` rows (:func:`odtlab.memory.grow_rows`: in place when the state holds
        the only reference to it)."""
        holder = _Table(getattr(self.state, name))
        self.state = self.state._replace(**{name: None})
        memory.grow_rows(holder, "array", rows)
        self.state = self.state._replace(**{name: holder.array})

    @property
    def iterations(self):
        return int(self.state.counters[kernels.C_ITER])

    @property
    def finished(self):
        return bool(self.state.counters[kernels.C_DONE])

    def bounds(self):
        """(lower, upper) on the optimal L_alpha over the trees of depth <= max_depth.

        upper: L_alpha of :meth:`incumbent`, the current policy's tree (before the first iteration the single
        leaf, the root's leaf action, known without search), or the greedy tree's when a stopped search's
        policy is worse. lower: 0, the trivial bound (losses and
        alpha * C(T) are never negative): DPDT certifies no lower bound, since its candidate sets may miss the
        optimal tree; an exhaustive search (``exact``) that has finished certifies its value: lower = upper = the
        objective recomputed from the data when the rule of :mod:`odtlab.certificate` holds, else lower = U less
        the float slack of the centred sums (status "uncertified").
        """
        upper = self._policy_upper()
        if not self.finished and self._ran:  # stopped early: the greedy tree may be better
            upper = min(upper, self._greedy()[0])
        if not (self.exact and self.finished):
            return 0.0, upper
        if self.uncertified() is None:
            return self.recomputed, self.recomputed
        return certificate.below(upper, self.slack / float(self.w.sum())), upper

    def _policy_upper(self):
        """L_alpha of the current policy's tree (of the single leaf before the first iteration)."""
        F = self._root_envelope()[0]
        W = float(self.w.sum())
        if W <= 0:
            return 0.0
        if F is None:
            if self.task == "classification":
                upper = float(1.0 - np.bincount(self.y, weights=self.w, minlength=self.K).max() / W)
            else:
                with np.errstate(over="ignore"):
                    upper = float((self.w @ self.Yc ** 2).mean() / W)
        else:
            upper = float((F[:, 0] + float(self.alpha) * F[:, 1]).min() / W)
        return upper

    def certificate(self):
        """The rule of :mod:`odtlab.certificate` for L_alpha: recomputed from the data as a Fraction (integer
        weights, classification) equal to the search's exact value, or for regression (or float weights) within
        ``SSE_RTOL`` of it, float slack included."""
        tree = self.incumbent()
        W = float(self.w.sum())
        splits = float(tree.n_samples[tree.split != 0].sum())  # W * C(T): the weight through each split
        if self.task == "classification":
            wrong = self.w[tree.predict_index(self.X) != self.y].sum()
            if self._integral:
                recomputed = Fraction(int(wrong), int(W)) + self.alpha * Fraction(int(splits), int(W))
                self.recomputed = float(recomputed)
                return certificate.exact_certificate(recomputed, self._root_choice(self.alpha)[1])
            loss, upper = wrong + float(self.alpha) * splits, self._root_choice(self.alpha)[1] * W
            self.recomputed = loss / W
            gap = abs(loss - upper)
            return None if gap <= certificate.SSE_RTOL * loss else (
                f"the returned tree's recomputed objective {loss / W!r} differs from the search's {upper / W!r}")
        m = self.Y.shape[1]  # the kernel's leaf loss is W * imp, the squared error over m outputs divided by m
        loss, reason = certificate.sse_certificate(tree, self.X, self.Y, m * W * self._root_choice(self.alpha)[1],
                                                   m * self.slack, self.w, m * float(self.alpha) * splits)
        self.recomputed = loss / (m * W)
        return reason

    def incumbent(self):
        """The tree of the current policy at ``alpha`` (unfinished states are leaves); DPDT's tree once done. A
        search stopped early returns the greedy tree (:meth:`_greedy`) while the policy's is worse."""
        tree = self.tree_for_alpha(self.alpha)
        if not self.finished and self._ran:
            value, greedy = self._greedy()
            if value < self._policy_upper():
                return greedy
        return tree

    def _greedy(self):
        """``(L_alpha, tree)`` of CART's tree of depth ``max_depth`` on the same rows, weights and criterion:
        the incumbent of a search stopped before its policy is as good, so that a time limit never leaves
        less than the greedy tree (built once, on the first stop)."""
        if self._greedy_tree is None:
            cart = CARTSolver(self.X, self.y if self.task == "classification" else self.Y, self.w, task=self.task,
                              criterion=self.criterion, max_depth=self.max_depth,
                              n_classes=self.K if self.task == "classification" else None)
            Search(cart, record="none").run(memory_limit=None)
            tree = cart.incumbent()
            tree.feature_names = self.feature_names
            if self.task == "classification":
                tree.classes = self.classes if self.classes is not None else np.arange(self.K)
            self._greedy_tree = (self._value(tree), tree)
        return self._greedy_tree

    def _value(self, tree):
        """L_alpha(tree) = (weighted loss + alpha * weighted split passes) / W, as :meth:`bounds` counts it."""
        return tree.dpdt_objective(self.X, self.y if self.task == "classification" else self.Y, self.alpha,
                                   sample_weight=self.w)

    def stats(self):
        c = self.state.counters
        out = {"states": int(c[kernels.C_STATES]), "operations": int(c[kernels.C_PAPER_OPS]),
               "candidates": int(c[kernels.C_OPS]), "duplicates": int(c[kernels.C_DUPLICATES]),
               "generator_calls": int(c[kernels.C_GEN_CALLS]),
               "backups": int(c[kernels.C_BACKUPS]), "scanned": int(c[kernels.C_SCANNED])}
        if self.finished:
            out["path_length"] = int(self.state.SI[0, kernels.S_HLEN])
        return out

    def nbytes(self):
        return sum(a.nbytes for a in (*self.data[:-1], *self.data.lay, *self.state))

    # -- the root's envelope and trees ----------------------------------------------------------------
    def _root_envelope(self):
        """The root's envelope as (E, S) and (action, left piece, right piece) arrays in alpha order: the one
        being built while the root is on the path, its final one after; (None, None) before the first step."""
        c = self.state.counters
        if not c[kernels.C_STARTED]:
            return None, None
        if c[kernels.C_TOP] > 0:
            w0, m = int(self.state.STACK[0, kernels.FR_WSTART]), int(self.state.STACK[0, kernels.FR_WLEN])
            return self.state.WF[w0:w0 + m], self.state.WI[w0:w0 + m]
        h, m = int(self.state.SI[0, kernels.S_HSTART]), int(self.state.SI[0, kernels.S_HLEN])
        return self.state.PF[h:h + m], self.state.PI[h:h + m]

    def _root_lines(self):
        """The root's envelope as [(E, S, action, left piece, right piece)], or None before the first step."""
        F, I = self._root_envelope()
        if F is None:
            return None
        return [(F[t, 0], F[t, 1], int(I[t, 0]), int(I[t, 1]), int(I[t, 2])) for t in range(F.shape[0])]

    def _exact(self, v):
        """A value in weight units: an exact int for unit (integer) weights in classification, else a float."""
        return int(v) if self._integral else float(v)

    def _root_choice(self, alpha):
        """(line, L_alpha) of the root's best line at ``alpha`` (the smaller S on ties), exact when possible."""
        lines = self._root_lines()
        if lines is None:
            return None, 0.0
        # exact: alpha = p / q and integer E, S compare as q E + p S (integers); else floats (p, q = alpha, 1)
        p, q = as_ratio(alpha) if self._integral else (float(alpha), 1)
        best, best_v = None, None
        for line in lines:
            v = q * self._exact(line[0]) + p * self._exact(line[1])
            if best_v is None or v <= best_v:
                best, best_v = line, v
        W = self._exact(self.w.sum())
        return best, (Fraction(best_v, q * W) if self._integral else best_v / W) if W > 0 else 0.0

    def _subtree(self, action, left, right):
        if action < 0:
            return {"leaf": True}
        return {"feature": int(self.state.CI[action, kernels.K_FEAT]), "kind": "threshold",
                "threshold": float(self.state.CF[action, kernels.KF_THR]),
                "children": [self._piece_tree(left), self._piece_tree(right)]}

    def _piece_tree(self, h):
        return self._subtree(int(self.state.PI[h, 0]), int(self.state.PI[h, 1]), int(self.state.PI[h, 2]))

    def _make_tree(self, node):
        tree = Tree.from_dict(node, self.X.shape[1], task=self.task, classes=self.classes,
                              feature_names=self.feature_names)
        if self.task == "classification":
            if tree.classes is None:
                tree.classes = np.arange(self.K)
            return tree.fit_leaves(self.X, self.y, self.w)
        return tree.fit_leaves(self.X, self.Y, self.w)

    def tree_for_alpha(self, alpha):
        """The tree DPDT returns for the penalty ``alpha`` (the current policy's if the search is unfinished).

        Named so that it is not the widgets' ``tree_at(records)`` (the tree after a prefix of the events).
        """
        line, _ = self._root_choice(alpha)
        key = (self.iterations, None if line is None else line[2:])
        if key not in self._cache:
            node = {"leaf": True} if line is None else self._subtree(*line[2:])
            self._cache = {key: self._make_tree(node)}
        return self._cache[key]

    def path(self):
        """The regularisation path of a finished search: one dict per tree, in order of increasing alpha.

        Keys: ``alpha`` (where the tree becomes optimal) and ``alpha_end`` (where the next one takes over; inf
        for the single leaf), ``loss`` (training loss / W) and ``expected_splits`` (C(T)) as exact Fractions
        for unit-weight classification, and ``tree``. Between breakpoints the optimal tree is unique up to
        equal (loss, C) ties.
        """
        if not self.finished:
            raise RuntimeError("the search is not finished: run it first (Search.run())")
        lines = self._root_lines()
        ratio = Fraction if self._integral else (lambda a, b: a / b)
        W = self._exact(self.w.sum())
        out = []
        for t, (E, S, action, left, right) in enumerate(lines):
            E, S = self._exact(E), self._exact(S)
            start = ratio(0, 1) if t == 0 else ratio(E - self._exact(lines[t - 1][0]), self._exact(lines[t - 1][1]) - S)
            out.append({"alpha": start, "alpha_end": None, "loss": ratio(E, W), "expected_splits": ratio(S, W),
                        "tree": self._make_tree(self._subtree(action, left, right))})
        for t in range(len(out)):
            out[t]["alpha_end"] = out[t + 1]["alpha"] if t + 1 < len(out) else float("inf")
        return out

    # -- captions ------------------------------------------------------------------------------------------
    def describe(self, event):
        if event.name == "CandidateSplit":
            return event.caption(self.feature_names) + f" from {GENERATOR_NAMES[int(event.generator)]}"
        if event.name == "StateSolved":  # name the best action: the leaf, or the candidate split with its test
            action = int(event.action)
            if action < 0:
                best = "the leaf"
            else:
                f = int(self.state.CI[action, kernels.K_FEAT])
                name = self.feature_names[f] if self.feature_names is not None else f"x{f}"
                best = f"candidate {action} ({name} <= {float(self.state.CF[action, kernels.KF_THR]):.6g})"
            return event.caption(self.feature_names).replace(f"best action {action},", f"best action {best},", 1)
        if event.name == "BellmanBackup":
            thr = float(self.state.CF[int(event.candidate), kernels.KF_THR])
            return event.caption(self.feature_names).replace("split on ", "split ", 1).replace(
                ") =", f" <= {thr:.6g}) =", 1)
        return event.caption(self.feature_names)


#: DPDT's parameters, checked once by :meth:`TreeEstimator._check_params` (``criterion`` per estimator; each budget in
#: ``candidates`` and a finite ``alpha`` by :func:`check_options`).
DPDT_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
    "candidates": [Interval(numbers.Integral, 1, None, closed="left"), tuple, list],
    "alpha": [Fraction, Interval(numbers.Real, 0, None, closed="left")],  # a Fraction's sign: check_options
    "generator": [StrOptions(set(kernels.GENERATORS))],
    "budget": [StrOptions(set(BUDGETS))],
    "min_samples_split": [Interval(numbers.Integral, 2, None, closed="left")],
    "min_samples_leaf": [Interval(numbers.Integral, 1, None, closed="left")],
    "min_impurity_decrease": [Interval(numbers.Real, 0, None, closed="left")],
}


class _DPDTParams(TreeEstimator):
    """Shared parameters and methods of the DPDT estimators."""

    def _check_param_relations(self):
        check_options(self.max_depth, self.candidates, self.alpha, self.generator, self.budget,
                      self.min_samples_split, self.min_samples_leaf, self.min_impurity_decrease)

    def _make_solver(self, X, y, sample_weight):
        return DPDTSolver(X, y, sample_weight, task=self._task, max_depth=self.max_depth,
                          candidates=self.candidates, alpha=self.alpha, generator=self.generator, budget=self.budget,
                          criterion=self.criterion, min_samples_split=self.min_samples_split,
                          min_samples_leaf=self.min_samples_leaf, min_impurity_decrease=self.min_impurity_decrease,
                          n_classes=len(self.classes_) if self._task == "classification" else None)

    def fit(self, X, y, sample_weight=None, progress=False):
        """Build and solve the MDP on (X, y) (``sample_weight`` weighs the rows) and keep the tree at ``alpha``."""
        self.__dict__.pop("path_", None)
        return super().fit(X, y, sample_weight, progress=progress)

    def regularisation_path(self):
        """Every alpha at which DPDT's tree changes, with the tree (see :meth:`DPDTSolver.path`); no refit."""
        check_is_fitted(self, "tree_")
        if not hasattr(self, "path_"):
            self.path_ = self._fitted_search().solver.path()
            for seg in self.path_:
                seg["tree"].feature_names = self._feature_names()
        return self.path_

    def get_pareto_front(self, X, y):
        """The trees of the regularisation path scored on (X, y), one row per tree, from the fitted search.

        Columns: alpha, alpha_end (the interval where the tree is DPDT's answer), train_loss and
        train_expected_splits (on the training data, exact), score (accuracy or R^2 on X, y),
        expected_splits (mean decision path length on X), splits, leaves, depth, tree.
        """
        path = self.regularisation_path()
        Xv = self._validate_X(X, reset=False)
        rows = []
        for seg in path:
            tree = seg["tree"]
            if self._task == "classification":
                codes = np.searchsorted(self.classes_, np.asarray(y))
                score = float(np.mean(tree.predict_index(Xv) == codes))
            else:
                pred = tree.predict(Xv)
                yv = np.asarray(y, dtype=np.float64)
                score = 1.0 - float(((yv - pred) ** 2).sum() / ((yv - yv.mean(axis=0)) ** 2).sum())
            rows.append({"alpha": seg["alpha"], "alpha_end": seg["alpha_end"], "train_loss": seg["loss"],
                         "train_expected_splits": seg["expected_splits"], "score": score,
                         "expected_splits": tree.expected_splits(Xv), "splits": tree.splits, "leaves": tree.leaves,
                         "depth": tree.depth, "tree": tree})
        return pd.DataFrame(rows)


def _dpdt_init(default_criterion):
    """The ``__init__`` of a DPDT estimator, ``criterion`` defaulting to ``default_criterion``."""
    return params_init(max_depth=3, candidates=(8, 3), alpha=0.0, generator="cart", budget="leaves",
                       criterion=default_criterion, min_samples_split=2, min_samples_leaf=1,
                       min_impurity_decrease=0.0, time_limit=None, record="summary", keep_search=False)


_DPDT_PARAMETERS = """
    max_depth : int >= 1, default=3
        The MDP's horizon D.
    candidates : tuple of int >= 1, default=(8, 3)
        Per-depth budgets (B_0, B_1, ...); depths beyond the list are greedy.
    alpha : float >= 0, default=0.0
        Weight of the expected number of splits C(T) in L_alpha (Eq. 1); the fit covers every alpha (see
        :meth:`get_pareto_front`), ``alpha`` picks ``tree_``.
    generator : {"cart", "topb", "exhaustive"}, default="cart"
        CART-generated candidates, the best-impurity cuts, or every cut (optimal).
    budget : {"leaves", "splits"}, default="leaves"
        B_d is the inner CART's max_leaf_nodes (B_d - 1 candidates) or the number of candidates.
    min_samples_split, min_samples_leaf, min_impurity_decrease
        The inner CART's (as scikit-learn's); they shape the candidate sets, not the dynamic programme.
    time_limit : float > 0 or None, default=None
        Seconds; a stopped search keeps the current policy's tree, ``search_.run()`` resumes.
    record : {"none", "summary", "full"}, default="summary"
        Event level kept during ``fit``.
    keep_search : bool, default=False
        Keep ``search_`` (its state and the training data) when pickling; :meth:`regularisation_path` needs it
        after unpickling."""


class DPDTClassifier(TreeClassifierMixin, _DPDTParams):
    __doc__ = f"""DPDT classification tree (Kohler et al. 2025): backward induction over CART-generated candidate splits.

    ``fit`` accepts ``sample_weight`` (boosting): rows are weighted in the losses, the transition
    probabilities and the inner CART. ``result_.stats["operations"]`` counts in the paper's unit (see
    :mod:`odtlab.solvers.dpdt`).

    Parameters
    ----------
    criterion : {{"gini", "entropy"}}, default="gini"
        The inner CART's impurity.{_DPDT_PARAMETERS}
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import DPDTClassifier, datasets
    >>> data = datasets.load("sklearn/iris")
    >>> clf = DPDTClassifier(max_depth=2).fit(data.X, data.y)
    >>> clf.result_.status, round(clf.score(data.X, data.y), 3)
    ('done', 0.96)
    """

    _parameter_constraints = {**DPDT_CONSTRAINTS, "criterion": [StrOptions({"gini", "entropy"})]}
    __init__ = _dpdt_init("gini")


class DPDTRegressor(TreeRegressorMixin, _DPDTParams):
    __doc__ = f"""DPDT regression tree: leaf loss = weight x squared error around the mean (CART's criterion).

    Parameters
    ----------
    criterion : {{"squared_error"}}, default="squared_error"
        The inner CART's impurity.{_DPDT_PARAMETERS}
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import DPDTRegressor, datasets
    >>> data = datasets.load("sklearn/diabetes")
    >>> reg = DPDTRegressor(max_depth=2).fit(data.X, data.y)
    >>> reg.result_.status, reg.get_n_leaves()
    ('done', 4)
    """

    _task = "regression"
    _parameter_constraints = {**DPDT_CONSTRAINTS, "criterion": [StrOptions({"squared_error"})]}
    __init__ = _dpdt_init("squared_error")


register(SolverSpec("dpdt", DPDTClassifier, {"depth": "max_depth", "alpha": "alpha", "time_limit": "time_limit"},
                    "DPDT: dynamic programming over CART-generated candidate splits"))
register(SolverSpec("dpdt-regressor", DPDTRegressor, {"depth": "max_depth", "alpha": "alpha", "time_limit": "time_limit"},
                    "DPDT: dynamic programming over CART-generated candidate splits (squared error)"))
