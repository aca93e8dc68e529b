"""Quant-BnB (Mazumder, Meng, Wang, ICML 2022) on the search runtime: optimal depth-2 and depth-3 trees.

The kernels are :mod:`odtlab.core.quantbnb`. This module prepares the data (distinct-value ranks and
presorted orders per feature, constant features dropped, regression targets centred), starts from a
greedy tree (CART's top split or splits with the best stumps below; its loss is the first U), and provides the :class:`~odtlab.search.Solver`, the estimators
:class:`QuantBnBClassifier` (0-1 loss, any number of classes) and :class:`QuantBnBRegressor` (squared
error, multi-output), and the registry entries ``odtlab solve quantbnb`` / ``quantbnb-regressor``.

One search iteration (the unit of ``Search.run(max_iterations=...)``) processes one alive tuple.
The paper's iteration of Algorithm 1 (one sweep over the alive list AL^(k)) is a *round*: the stats
report ``rounds``, ``alive_per_round`` (tuples alive when each round starts) and
``triples_per_round`` (depth 2: sum of (b - a + 1) |F1| |F2|, the trees of a tuple, which the
paper leaves undefined; depth 3: root thresholds not yet settled). ``evaluations`` counts feature scans, each of which
gives the stump losses L1 (eq. 6) of every set of one tuple at once.

Certification (:mod:`odtlab.certificate`): a finished search is "optimal" only when the returned tree's loss,
recomputed from the data, equals the certified bound: the misclassification count exactly; the squared error
within 1e-9 of the optimum, including the float slack 3 delta of the centred sums (delta = 4 n eps sum (y -
ybar)^2, also the tie tolerance of the search). Otherwise the status is "uncertified" with the reason (one target
far from the others dominates the sums; squares that overflow float64, in which case the search does not run)
and the lower bound is U less the slack.

**A researcher's bound** (``QuantBnBClassifier(bound=f, check_bound=...)``, :mod:`odtlab.bounds`). ``f(counts, depth,
nodes)`` is MurTree's signature, so one function serves both solvers: from the class counts of a set of rows, a
number >= 0 at most the fewest misclassifications of a tree within ``depth`` and ``nodes`` on *any* data with those
counts. Quant-BnB's trees are perfect (a degenerate threshold makes a leaf), so it always asks for depth 2 and 3
nodes, the optimal depth-2 loss D2 of a set, where the paper's own bounds are weakest or dearest:

* **Depth 2: the middle block of a slice, beside W.** The paper's W0 (eq. 9) drops the rows whose side the
  slice's root thresholds leave open, the middle block I_[t_{j-1}, t_j]; W2 (eq. 10) refits them with L2, at a
  cost superlinear in n (Lemma 4.3), and W1 (eq. 13) with the cheaper L-hat-2. Every tree with a root threshold
  in the slice loses at least W0 + L2(middle block) (Lemma B.2, the proof of Lemma 3.2), and L2 of any child
  features is at least D2 of the block, so W0 + ceil(f(counts of the block, 2, 3)) bounds the slice's row and
  column minima (39)-(40) too; each becomes the larger of it and the paper's W, and Proposition 4.1 (eqs. 14-15)
  eliminates with the larger. The kernel computes f from the block's counts (one pass over the block's rows)
  after Step 2 of each refined tuple. What a user gains: a slice pruned, or child features eliminated, a round
  earlier; with W0, a bound on the middle blocks without W1's or W2's stump scans of them.
* **Depth 3: each side of a root threshold, before its inner solve.** Proposition C.1 (ii) with W = L2, as the
  kernel runs it, bounds the slice [t_{j-1}, t_j] by D2(left set at t_{j-1}) + D2(right set at t_j) (chain (55));
  each D2 is an inner depth-2 solve (Algorithm 1 on the set), a search of its own. Before the solve at point
  t_j, ceil(f(counts, 2, 3)) of the left set raises the solve's known lower bound (with Lemma B.3's and the
  similarity bound's), and f of the right set at t_{j+1} the bound of the other side that cuts the solve off;
  the right sides likewise. A solve whose lower bound reaches its cutoff is skipped; one that runs stops as
  soon as its tree reaches the bound. What a user gains: inner solves skipped or stopped early.

Both uses take max(paper's bound, ceil(f)): the maximum of two lower bounds of the same loss is one, and a bound
on an integer loss may be rounded up, so with a sound f no optimal tree is pruned and Theorem 4.2's argument
(an optimal tree is never eliminated, Proposition 4.1 / C.1) still gives the optimum. A NaN or negative value is
an error; the inner solves of depth 3 run without f. Regression gets a clear error (f bounds misclassifications).
With ``check_bound=True`` the kernel logs every value that raised a bound, with its set (the rows with lo <
rank <= hi of a root feature), and stops after the iteration; the solver solves D2 of those rows (Quant-BnB
without f, once per set) and raises :class:`odtlab.bounds.UnsoundBoundError` naming them when ceil(f) exceeds
it. The bound travels in the kernels' ``work`` group (``core.quantbnb.UserBound``, None without a bound); it is
compiled alone as a cfunc, so the kernels compile once for every bound (once more than without one: the first
fit with a bound on a machine compiles them, and numba's disk cache keeps them under a key independent of f).
"""
from numbers import Integral, Real
import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from odtlab import bounds, certificate, memory
from odtlab.core import quantbnb as kernels
from odtlab.core._jit import LevelKernel
from odtlab.estimators import (ATTRIBUTES_DOC, COMMON_CONSTRAINTS, TreeClassifierMixin, TreeEstimator, TreeRegressorMixin,
                               params_init)
from odtlab.search import Search, Solver
from odtlab.solvers import SolverSpec, register
from odtlab.solvers.cart import CARTSolver
from odtlab.tree import Tree

ALGORITHM = "quantbnb"
BOUND_NAMES = {v: k for k, v in kernels.LB_NAMES.items()}
INITIAL = ("greedy", "cart", "leaf")  # the first incumbent, see QuantBnBSolver


def _argsort_rows(XT):
    """Row by row, the order that sorts XT[f]. Ties may come in any order (the scans only look at cuts
    between distinct values), so quicksort, except on a large feature with few distinct values (under
    a quarter of a 256-value sample), where numpy's quicksort is several times slower than its stable
    sort."""
    p, n = XT.shape
    order = np.empty(XT.shape, dtype=np.intp)
    step = max(n // 256, 1)
    for f in range(p):
        few = n >= 2048 and 4 * np.unique(XT[f, ::step]).size < XT[f, ::step].size
        order[f] = np.argsort(XT[f], kind="stable" if few else "quicksort")
    return order


def prepare(X):
    """Ranks and presorted orders per feature (§2.3), with constant features dropped.

    Returns ``(kept, values, rank, order)``: the indices of the non-constant columns, their sorted
    distinct values, ``rank[f, i]`` in 1..u(f) and ``order[f]`` (rows sorted by feature f). One sort
    per feature.
    """
    XT = np.ascontiguousarray(X.T)
    order = _argsort_rows(XT)
    rank = np.empty(order.shape, dtype=np.int64)
    distinct = np.empty(XT.shape)
    u = kernels.ranks_of(XT, order, rank, distinct)
    kept = [j for j in range(X.shape[1]) if u[j] > 1]
    values = [distinct[j, :u[j]] for j in kept]
    if len(kept) == X.shape[1]:
        return kept, values, rank, order
    return kept, values, np.ascontiguousarray(rank[kept]), np.ascontiguousarray(order[kept])


def _state_field(name, doc):
    """A solver attribute that reads and replaces one field of its ``state`` (a growth step replaces arrays)."""
    return property(lambda self: getattr(self.state, name),
                    lambda self, value: setattr(self, "state", self.state._replace(**{name: value})), doc=doc)


class QuantBnBSolver(bounds.PicklesUserBound, Solver):
    """State of one Quant-BnB search: the data in ranks, the alive tuples, U and the incumbent history.

    ``s`` is the slices per refinement of Algorithm 1; at depth 3 the inner depth-2 solves use it and the root
    tuples ``s_root`` (default ``core.quantbnb.S_ROOT3``, bisection: it made fewer inner solves than s = 3).
    ``lower_bound`` is W0, W1 (W1,s' with s' = floor(sprime_ratio * n * s / (b - a)), the paper's
    default) or W2 (eq. 10, §3.2); at depth 3 it is the bound of the inner depth-2 solves.
    ``keep_ties`` keeps a child feature whose bound equals U (Proposition 4.1 as printed, every optimal
    tree survives); by default ties are pruned, which is faster and still returns an optimal tree.
    ``initial`` is the first incumbent (the U of Algorithm 1, which the paper leaves open): "greedy" (the default: CART's root split, at
    depth 3 also its second level, with the best stumps of the training loss below, computed in ranks by
    ``core.quantbnb.greedy2`` / ``greedy3`` without sorting; its loss is at most that of the CART tree
    of the same depth whenever both choose the same splits), "cart" (the CART tree of the same depth)
    or "leaf" (a single leaf, the weakest feasible tree). ``similarity`` (0-1 loss only) adds the
    similarity bound to W at depth 2 and to the subtree bounds at depth 3 (a set that gains n rows
    misclassifies at most n more; not in the paper, see ``core.quantbnb``); False runs the paper's
    bounds alone.
    """

    BOUND_PARAMETER = "bound"  # the estimator's name for it (odtlab.bounds.PicklesUserBound)

    name = "quantbnb"
    sense = "min"
    exact = True
    # the fields of ``state`` (``core.quantbnb.State``) by the names the solver has always used
    T = _state_field("T", "the alive tuples (``core.quantbnb.alloc_tuples2`` / ``alloc_tuples3``)")
    ist = _state_field("counters", "the integer counters, indexed by ``core.quantbnb.I_*``")
    fst = _state_field("acc", "U and the lower bound, indexed by ``core.quantbnb.F_*``")
    hist = _state_field("hist", "the incumbent history, one row per incumbent (``core.quantbnb.HIST_COLS``)")
    hval = _state_field("hval", "the incumbents' losses")
    rstat = _state_field("rstat", "per round: tuples alive, trees alive, lower and upper bound")

    def __init__(self, X, y, task="classification", depth=2, s=3, lower_bound="W0", sprime_ratio=0.6,
                 keep_ties=False, similarity=True, initial="greedy", n_classes=None, feature_names=None, classes=None,
                 bound=None, check_bound=False, s_root=None):
        X = np.ascontiguousarray(X, dtype=np.float64)
        n = X.shape[0]
        if initial not in INITIAL:
            raise ValueError(f"initial must be one of {', '.join(map(repr, INITIAL))}, got {initial!r}")
        if depth not in (2, 3):
            raise ValueError(f"Quant-BnB solves depth 2 or depth 3 (Appendix C), not depth {depth!r}")
        if n < 2:
            raise ValueError(f"Quant-BnB needs at least 2 samples, got n_samples={n}")
        if not np.isfinite(X).all():
            raise ValueError("X holds NaN or infinity; Quant-BnB needs finite feature values")
        self.X, self.task, self.depth, self.s = X, task, depth, int(s)
        # the root tuples' slices: s at depth 2; at depth 3 S_ROOT3 (bisection) unless given, s is the inner solves'
        self.s_root = self.s if depth == 2 else int(kernels.S_ROOT3 if s_root is None else s_root)
        self.lower_bound = lower_bound
        self.feature_names = feature_names
        self.classes = classes
        self.n_features = X.shape[1]
        self.kept, self.values, rank, order = prepare(X)
        dropped = [j for j in range(X.shape[1]) if j not in set(self.kept)]
        if dropped:
            names = [feature_names[j] if feature_names is not None else f"x{j}" for j in dropped]
            warnings.warn(f"Quant-BnB drops constant feature(s) {', '.join(names)} (a constant feature has no threshold)",
                          UserWarning, stacklevel=3)
        self.dropped = dropped
        self.cls = task == "classification"
        if self.cls:
            self.y = np.asarray(y, dtype=np.int64).reshape(-1)
            K = int(n_classes if n_classes is not None else self.y.max() + 1)
            self.K = K
            Yc = np.zeros((n, 0))
        else:
            Y = np.asarray(y, dtype=np.float64)
            self.Y = np.ascontiguousarray(Y.reshape(n, -1))
            Yc = np.ascontiguousarray(self.Y - self.Y.mean(axis=0))  # centred targets (floating-point accuracy)
            K = 1
        yk = self.y if self.cls else np.zeros(n, np.int64)
        p = len(self.kept)
        self.u = np.array([len(v) for v in self.values], dtype=np.int64)
        max_u = int(self.u.max()) if p else 1
        lbkind = kernels.LB_NAMES[lower_bound]
        n_slots = self.s + 2 if lbkind == kernels.LB_W0 else max_u + self.s + 2
        # squared error: ties and improvements within the float resolution delta of the centred sums (never a
        # fraction of the root's loss: one far target would make that larger than the whole remaining error)
        self.tol = 0.0 if self.cls else certificate.resolution(Yc)
        self.slack = certificate.SLACK_DELTAS * self.tol
        margin = (0.5 if self.cls else self.tol) if keep_ties else -self.tol
        self.similarity = bool(similarity) and self.cls  # the bound is defined for 0-1 loss only
        self.params = kernels.Params(bool(self.cls), self.s_root, lbkind, float(sprime_ratio), float(self.tol),
                                     float(margin), self.similarity, kernels.WORK_PER_CALL, self.s)
        s_most = max(self.s, self.s_root)
        self.E = kernels.make_scratch(p, n, K, Yc.shape[1], s_most, n_slots + s_most - self.s)
        self.V = kernels.make_view(p, n, Yc.shape[1])
        self.loc = np.zeros(n, np.int64)
        self.state = kernels.State(None, np.zeros(kernels.N_IST, np.int64), np.zeros(kernels.N_FST),
                                   np.full((16, kernels.HIST_COLS), -1, np.int64), np.zeros(16),
                                   np.zeros((kernels.MAX_ROUNDS, 4)))
        if depth == 3:
            cum = np.zeros((p, max_u + 1), np.int64)  # cum[f, t] = rows with rank_f <= t
            for f in range(p):
                cum[f, 1:self.u[f] + 1] = np.cumsum(np.bincount(rank[f], minlength=self.u[f] + 1)[1:])
            self.data = kernels.Data3(order, rank, yk, Yc, self.u, cum)
        else:
            self.data = kernels.Data2(self.V)
        if initial == "greedy" and p:  # the tree is only built when asked for (``initial_tree``)
            self._initial = np.full(kernels.HIST_COLS, -1, np.int64)
            if depth == 2:
                kernels.build_view(order, rank, yk, Yc, 0, 0, int(self.u[0]), self.V, self.loc)
                loss = kernels.greedy2(self.V, self.params, self.E, self._initial, 0)
            else:
                loss = kernels.greedy3(self.data, self.params, self.V, self.loc, self.E, self._initial)
            self.fst[kernels.F_U] = loss
        else:
            self._initial = self._cart_tree(y) if initial == "cart" else self._leaf_tree()
            self.fst[kernels.F_U] = self._loss(self._initial)
        if depth == 2:
            self.T = kernels.alloc_tuples2(max(4 * p * self.s + p + 1, 64), max(p, 1))
            if p:
                if initial != "greedy":
                    kernels.build_view(order, rank, yk, Yc, 0, 0, int(self.u[0]), self.V, self.loc)
                self.ist[kernels.I_TAIL] = kernels.init_tuples2(self.T, self.u)
                self.ist[kernels.I_NEXT_ID] = self.ist[kernels.I_TAIL]
            self.start_tuples = self._alive_list()
            self.cid = np.zeros(self.s, np.int64)
            self.work = kernels.Work2(self.E, self.cid)
        else:
            self.T = kernels.alloc_tuples3(max(4 * p * self.s_root, 64), p)
            self.W3 = kernels.make_sides(self.s_root, p)
            self.work = kernels.Work3(self.V, self.loc, self.E, self.W3)
        if not p or not np.isfinite(self.tol):  # every feature constant: the best tree is a single leaf; or the
            self.ist[kernels.I_DONE] = 1  # squares overflow and no loss can be compared (``certificate`` says so)
            if not np.isfinite(self.tol):
                self.fst[kernels.F_U] = np.inf
        self.events_per_iteration = (self.s * (2 * p + 1) + 8) if depth == 2 else 4 * self.s_root + 12
        self._cache = (-1, None)
        self._nbytes = None
        self.user_bound = None
        if bound is not None:
            self._use_bound(bound, check_bound, rank)

    # -- a researcher's bound (odtlab.bounds) ------------------------------------------------------
    def _use_bound(self, bound, check, rank):
        """Pass ``bound(counts, depth, nodes)`` to the kernel (``core.quantbnb.UserBound``, in ``work``): compiled
        once as a cfunc, first called in Python on all rows for a clear error."""
        if not self.cls:
            raise ValueError("bound is for classification (a bound on misclassifications from class counts); "
                             "QuantBnBRegressor takes none")
        self.bound_function = bounds.python_function(bound, "bound")
        counts = np.bincount(self.y, minlength=self.K)
        fn = bounds.compile_bound(self.bound_function, counts, 2, 3, "bound")
        self.__dict__.update(self._with_user_bound(kernels.make_user_bound(fn, check, self.K, self.s_root)))
        self.rank = rank
        self.checked_bounds = {}

    def _with_user_bound(self, user_bound):
        """The kernels read the bound from the ``work`` group (``core.quantbnb.UserBound``)."""
        return {"user_bound": user_bound, "work": self.work._replace(bound=user_bound)}

    def check_user_bound(self):
        """The values of the user's bound the kernel logged (``core.quantbnb.UserBound``): a NaN or negative
        value raises ValueError; in check mode a value whose ceiling exceeds the optimal depth-2 loss of its
        rows (Quant-BnB without the bound on those rows) raises :class:`odtlab.bounds.UnsoundBoundError`. The
        optimum of each set of rows is computed once."""
        ub = self.user_bound
        entries = [(tuple(int(v) for v in ub.log[e]), float(ub.value[e])) for e in range(int(ub.nlog[0]))]
        ub.nlog[0] = 0
        for (status, feature, lo, hi), value in entries:
            rows = np.flatnonzero((self.rank[feature] > lo) & (self.rank[feature] <= hi))
            counts = np.bincount(self.y[rows], minlength=self.K)
            j = self.kept[feature]
            name = self.feature_names[j] if self.feature_names is not None else f"x{j}"
            where = (f"the {len(rows)} rows with {lo} < rank <= {hi} of feature {name} (depth 2, 3 feature nodes, "
                     f"class counts {counts.tolist()})")
            if status == kernels.BOUND_INVALID:
                bounds.check_value(value, f"on {where}", "bound")
            if (feature, lo, hi) not in self.checked_bounds:
                self.checked_bounds[feature, lo, hi] = self._depth2_optimum(rows)
            optimum = self.checked_bounds[feature, lo, hi]
            if bounds.rounded(value) > optimum:
                raise bounds.UnsoundBoundError(bounds.unsound(where, value, optimum, "bound"))

    def _depth2_optimum(self, rows):
        """The optimal depth-2 loss (misclassifications) of the given rows, by Quant-BnB without a user bound."""
        if len(rows) < 2:
            return 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # constant features on the subset
            sub = QuantBnBSolver(self.X[rows], self.y[rows], depth=2, n_classes=self.K)
        Search(sub, record="none").run()
        return int(sub.fst[kernels.F_U])

    def start_from(self, tuples, upper):
        """Start a depth-2 search from a given alive list instead of eq. (17), with incumbent loss ``upper``.

        ``tuples`` = [(f0, a, b, F1, F2), ...]: root feature ``f0`` (an index into the kept features),
        root thresholds between ranks ``a`` and ``b``, and the child features still alive on each side.
        For teaching: chapter 07 replays the paper's worked iteration (Appendix A.2) with it. Call it on a
        fresh solver, before the search runs; returns the solver.
        """
        if self.depth != 2 or self.iterations or self.ist[kernels.I_STARTED]:
            raise ValueError("start_from needs a fresh depth-2 solver")
        p = len(self.kept)
        if len(tuples) > self.T[0].shape[0]:
            raise ValueError(f"at most {self.T[0].shape[0]} starting tuples")
        T = self.T
        for row, (f0, a, b, F1, F2) in enumerate(tuples):
            for col, value in enumerate([f0, a, b, 0, 0.0, row, -1]):  # no end settled, bound 0, id, no parent
                T[col][row] = value
            T[7][row], T[8][row] = np.isin(np.arange(p), F1), np.isin(np.arange(p), F2)
            T[9][row], T[10][row], T[11][row], T[12][row] = 0.0, 0.0, -np.inf, -np.inf
        self.ist[kernels.I_TAIL] = self.ist[kernels.I_NEXT_ID] = len(tuples)
        self.fst[kernels.F_U] = upper
        self.start_tuples = self._alive_list()
        return self

    def _alive_list(self):
        """The alive tuples (depth 2) as (id, f0, a, b): ``start_tuples``, what the widgets draw first."""
        head, tail = int(self.ist[kernels.I_HEAD]), int(self.ist[kernels.I_TAIL])
        return [(int(self.T[5][i]), int(self.T[0][i]), int(self.T[1][i]), int(self.T[2][i])) for i in range(head, tail)]

    # -- Solver contract ---------------------------------------------------------------------------
    def kernel(self, level):
        return LevelKernel(kernels.quantbnb2_kernel if self.depth == 2 else kernels.quantbnb3_kernel, level)

    def advance(self, kernel, events, max_iterations):
        n, status = kernel(self.data, self.params, self.state, self.work, events, max_iterations)
        if self.user_bound is not None and self.user_bound.nlog[0]:
            self.check_user_bound()
        return int(n), int(status)

    def grow(self):
        """Make room for what the kernel asked for (after ``STATUS_GROW``): the incumbent history doubles when
        the next step's incumbents may not fit, and the tuple queue, when its next step's children may not
        fit after the kernel compacted it, doubles in place (:func:`odtlab.memory.grow_rows`; head, tail and
        rows stay where they are). Under ``memory_limit`` (set by :class:`~odtlab.search.Search`) the queue
        grows by what fits (:func:`odtlab.memory.capacity`); when not even what the kernel needs fits,
        nothing changes and ``grow`` returns False."""
        ist = self.ist
        grow_hist = ist[kernels.I_NINC] + self.s_root + 2 > self.hist.shape[0]
        current = self.T[0].shape[0]
        row = sum(column[:1].nbytes for column in self.T)
        room = self.s_root if self.depth == 2 or ist[kernels.I_STARTED] else len(self.kept)  # the kernel's test
        need = max(current, int(ist[kernels.I_TAIL]) + room)
        others = self.nbytes() - current * row + (self.hist.nbytes + self.hval.nbytes if grow_hist else 0)
        rows = memory.capacity(current, need, 2 * current if need > current else current, lambda r: r * row,
                               others, self.memory_limit)
        if rows is None:
            return False
        if grow_hist:
            self.hist = np.concatenate([self.hist, np.full_like(self.hist, -1)])
            self.hval = np.concatenate([self.hval, np.zeros_like(self.hval)])
        if rows > current:
            columns = SimpleNamespace(**{f"c{i}": column for i, column in enumerate(self.T)})
            self.T = None  # the columns' only references are the namespace's, so they grow in place
            for name in list(vars(columns)):
                memory.grow_rows(columns, name, rows)
            self.T = tuple(vars(columns).values())
        self._nbytes = None
        return True

    @property
    def iterations(self):
        return int(self.ist[kernels.I_STEPS])

    @property
    def finished(self):
        return bool(self.ist[kernels.I_DONE])

    def bounds(self):
        """(lower, upper): min over alive tuples' bounds (and U), and U, the incumbent's training loss."""
        upper = float(self.fst[kernels.F_U])
        if self.finished:  # certified: the recomputed squared error; else U less the float slack
            if self.cls or not np.isfinite(upper):
                return (upper if self.cls else 0.0), upper
            if self.uncertified() is None:
                return self.recomputed, self.recomputed
            return certificate.below(upper, self.slack), upper
        head, tail = int(self.ist[kernels.I_HEAD]), int(self.ist[kernels.I_TAIL])
        if tail == head:  # depth 3 before its first iteration
            return 0.0, upper
        return certificate.below(float(min(upper, self.T[4][head:tail].min())), self.slack), upper

    def certificate(self):
        """The rule of :mod:`odtlab.certificate`: the 0-1 loss recomputed from the data equals U; the squared
        error recomputed from the data is within ``SSE_RTOL`` of the optimum, float slack included."""
        tree, upper = self.incumbent(), float(self.fst[kernels.F_U])
        if self.cls:
            return certificate.exact_certificate(tree.misclassifications(self.X, self.y), int(upper))
        self.recomputed, reason = certificate.sse_certificate(tree, self.X, self.Y, upper, self.slack)
        return reason

    def incumbent(self):
        row = int(self.ist[kernels.I_NINC])
        if self._cache[0] != row:
            self._cache = (row, self.initial_tree() if row == 0 else self.history_tree(row - 1))
        return self._cache[1]

    def initial_tree(self):
        """The first incumbent (see ``initial``), whose loss is the first U."""
        if isinstance(self._initial, np.ndarray):
            self._initial = self._row_tree(self._initial)
        return self._initial

    def stats(self):
        rounds = int(min(self.ist[kernels.I_ROUND], kernels.MAX_ROUNDS))
        out = {"rounds": int(self.ist[kernels.I_ROUND]),
               "alive_per_round": [int(v) for v in self.rstat[:rounds, 0]],
               "triples_per_round": [float(v) for v in self.rstat[:rounds, 1]],
               "evaluations": int(self.ist[kernels.I_PASSES]),
               "exhaustive_searches": int(self.ist[kernels.I_EXHAUSTIVE]),
               "slices_pruned": int(self.ist[kernels.I_SLICES_PRUNED]),
               "incumbents": int(self.ist[kernels.I_NINC]),
               "lower_bound_kind": self.lower_bound, "s": self.s, "dropped_features": list(self.dropped)}
        if self.user_bound is not None:
            out.update(user_bound_raises=int(self.user_bound.nlog[1]), user_bound_checks=len(self.checked_bounds))
        if self.depth == 2:
            out["features_eliminated"] = int(self.ist[kernels.I_ELIMINATED])
        else:
            out["s_root"] = self.s_root
            out["inner_solves"] = int(self.ist[kernels.I_INNER])
            out["inner_iterations"] = int(self.ist[kernels.I_INNER_STEPS])
        return out

    def nbytes(self):
        if self._nbytes is None:  # the arrays only change in grow()
            def size(x):
                return x.nbytes if isinstance(x, np.ndarray) else sum(size(v) for v in x) if isinstance(x, tuple) else 0

            parts = [self.T, self.E, self.V, self.loc, self.hist, self.hval, self.rstat]
            if self.depth == 3:
                parts += [self.data, self.W3]
            self._nbytes = int(sum(size(v) for v in parts))
        return self._nbytes

    def describe(self, event):
        if event.kind.code == kernels.QB_ELIMINATE:
            return self._eliminated(event)
        text = event.caption()
        if event.kind.code == kernels.QB_UPPER:
            text += "\n" + self.history_tree(int(event.history_row)).to_text()
        return text

    def _eliminated(self, event):
        """The caption of a FeatureEliminated event in the paper's words (Proposition 4.1, eqs. 14-15): which
        child the feature belonged to, the bound that eliminated it (the row minimum for a left-child feature,
        the column minimum for a right one) and by how much it exceeds U."""
        j = self.kept[int(event.child_feature)]
        name = self.feature_names[j] if self.feature_names is not None else f"x{j}"
        bound = BOUND_NAMES[int(event.side_bound) // 2] + (" + similarity" if self.similarity else "")
        relation = f"> upper bound {event.U:.6g}, by {event.excess:.6g}" if event.excess > 0 else \
            f"= upper bound {event.U:.6g}, a tie"
        return (f"Round {event.round}: {'right' if event.side else 'left'} child feature {name} eliminated by {bound} "
                f"(bound {event.W:.6g} {relation}) in slice {event.j} [{event.a}, {event.b}] of tuple {event.tuple_id}")

    # -- trees -------------------------------------------------------------------------------------
    def _cart_tree(self, y):
        criterion = "gini" if self.cls else "squared_error"
        cart = CARTSolver(self.X, y, task=self.task, criterion=criterion, max_depth=self.depth,
                          n_classes=self.K if self.cls else None)
        cart.feature_names = self.feature_names
        cart.classes = self.classes
        Search(cart, record="none").run()
        return cart.incumbent()

    def _leaf_tree(self):
        return self._fitted({"leaf": True})

    def _fitted(self, root):
        """The Tree of a nested dict, with leaf values set from the training data."""
        tree = Tree.from_dict(root, self.n_features, task=self.task, classes=self.classes,
                              feature_names=self.feature_names)
        if self.cls:
            if tree.classes is None:
                tree.classes = np.arange(self.K)
            return tree.fit_leaves(self.X, self.y)
        return tree.fit_leaves(self.X, self.Y)

    def _loss(self, tree):
        if self.cls:
            return float(tree.misclassifications(self.X, self.y))
        return tree.squared_error(self.X, self.Y)

    def _threshold(self, f, t):
        vals = self.values[f]
        if t <= 0:
            return -np.inf
        if t >= len(vals):
            return np.inf
        lo, hi = vals[t - 1], vals[t]
        thr = lo / 2.0 + hi / 2.0
        return lo if thr >= hi else thr

    def _split(self, f, t, left, right):
        if f < 0:
            return left
        return {"feature": self.kept[f], "kind": "threshold", "threshold": self._threshold(f, t),
                "children": [left, right]}

    def _depth2(self, r):
        leaf = {"leaf": True}
        return self._split(r[0], r[1], self._split(r[2], r[3], leaf, dict(leaf)),
                           self._split(r[4], r[5], dict(leaf), dict(leaf)))

    def history_tree(self, row):
        """The tree of incumbent number ``row`` (the ``history_row`` of an UpperBoundImproved event)."""
        return self._row_tree(self.hist[row])

    def _row_tree(self, row):
        """The fitted Tree of an incumbent history row (splits in ranks, see ``core.quantbnb.HIST_COLS``)."""
        r = [int(v) for v in row]
        if self.depth == 2:
            root = self._depth2(r)
        elif r[0] < 0:
            root = self._depth2(r[2:8])
        else:
            root = self._split(r[0], r[1], self._depth2(r[2:8]), self._depth2(r[8:14]))
        return self._fitted(_drop_empty(root, self.X, np.ones(self.X.shape[0], bool)))


def _drop_empty(node, X, rows):
    """Replace every split that sends all of its training rows to one side by that side's subtree.

    Degenerate thresholds (rank 0 or u(f), which send every row one way) and splits that separate nothing at their
    node route the training rows exactly as their non-empty child does, so the loss is unchanged.
    """
    if node.get("leaf"):
        return node
    go_left = X[:, node["feature"]] <= node["threshold"]
    left, right = rows & go_left, rows & ~go_left
    if not right.any():
        return _drop_empty(node["children"][0], X, rows)
    if not left.any():
        return _drop_empty(node["children"][1], X, rows)
    node["children"] = [_drop_empty(node["children"][0], X, left), _drop_empty(node["children"][1], X, right)]
    return node


#: Quant-BnB's parameters, checked once by :meth:`TreeEstimator._check_params`.
QUANTBNB_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "max_depth": [Interval(Integral, 2, 4, closed="both")],
    "s": [Interval(Integral, 2, None, closed="left")],
    "lower_bound": [StrOptions(set(kernels.LB_NAMES))],
    "sprime_ratio": [Interval(Real, 0, None, closed="neither")],
    "keep_ties": ["boolean"],
    "similarity": ["boolean"],
    "initial": [StrOptions(set(INITIAL))],
    "bound": [callable, str, None],
    "check_bound": ["boolean", Interval(Integral, 0, 1, closed="both")],
}

_QUANTBNB_PARAMETERS = """
    Parameters
    ----------
    max_depth : {2, 3, 4}, default=2
        Depth of the tree (Appendix C recommends d <= 3; depth 4, classification only, is the depth-3 search
        applied one level up: ``odtlab.solvers._quantbnb4``).
    s : int >= 2, default=3
        Quantile slices per refinement (the paper's s = 3); at depth 3, of the inner depth-2 solves (the root
        thresholds are bisected, ``core.quantbnb.S_ROOT3``).
    lower_bound : {"W0", "W1", "W2"}, default="W0"
        The lower bound of §3.2.
    sprime_ratio : float > 0, default=0.6
        s' = floor(ratio * n * s / (b - a)) for W1.
    keep_ties : bool, default=False
        Keep child features whose bound equals U, as Proposition 4.1.
    similarity : bool, default=True
        Add the similarity bound (0-1 loss only).
    initial : {"greedy", "cart", "leaf"}, default="greedy"
        The first incumbent: CART's top split(s) with the best stumps below, computed from the ranks; the CART
        tree; or a leaf.
    bound : function, "module:function" or None, default=None
        A researcher's lower bound ``bound(counts, depth, nodes) -> float`` (:mod:`odtlab.bounds`, the signature
        of ``MurTreeClassifier(lower_bound=...)``: one function serves both; ``odtlab solve quantbnb DATA --bound
        mymodule:my_bound``): from the class counts of a set of rows, a number >= 0 that is at most the fewest
        misclassifications of a tree of that depth with that many feature nodes on any data with those counts.
        Quant-BnB asks it for depth 2 and 3 nodes: at depth 2 about the rows each slice's root thresholds
        leave undecided (added to W0, used where it beats W), at depth 3 about each side of a root threshold
        before its inner depth-2 solve. Classification only. Compiled once per function as a first-class numba
        function; the kernel is not recompiled for a new function.
    check_bound : bool, default=False
        Verify every value of ``bound`` that raised a bound against the optimal depth-2 loss of its rows
        (Quant-BnB without it); an unsound value raises ``odtlab.bounds.UnsoundBoundError`` naming the rows,
        the value and the optimum.
    record : {"none", "summary", "full"}, default="summary"
        Event level kept during ``fit``.
    time_limit : float > 0 or None, default=None
        Seconds; a stopped search keeps its incumbent tree and a certified lower bound, and ``search_.run()``
        resumes it.
    keep_search : bool, default=False
        Keep ``search_`` (its state and the training data) when pickling."""


class _QuantBnBParams(TreeEstimator):
    _parameter_constraints = QUANTBNB_CONSTRAINTS
    __init__ = params_init(max_depth=2, s=3, lower_bound="W0", sprime_ratio=0.6, keep_ties=False, similarity=True,
                           initial="greedy", record="summary", time_limit=None, keep_search=False, bound=None,
                           check_bound=False)

    def _make_solver(self, X, y, sample_weight):
        if sample_weight is not None:  # rows of weight 0 do not count; the others must weigh the same
            keep = sample_weight > 0
            if np.ptp(sample_weight[keep]) > 0 if keep.any() else False:
                raise ValueError("Quant-BnB minimises the unweighted training loss (eq. 1): sample_weight must be "
                                 "the same for every row (rows of weight 0 are left out)")
            X, y = X[keep], y[keep]
        if self.max_depth == 4:
            return _depth4_solver(self, X, y)
        return QuantBnBSolver(X, y, task=self._task, depth=int(self.max_depth), s=int(self.s),
                              lower_bound=self.lower_bound, sprime_ratio=self.sprime_ratio, keep_ties=self.keep_ties,
                              similarity=self.similarity, initial=self.initial, bound=self.bound,
                              check_bound=self.check_bound,
                              n_classes=len(self.classes_) if self._task == "classification" else None,
                              feature_names=self._feature_names(), classes=getattr(self, "classes_", None))

    def _new_search(self, X, y, sample_weight, record):
        solver = self._make_solver(X, y, sample_weight)
        return Search(solver, record=record)


def _depth4_solver(est, X, y):
    """The depth-4 search (classification, ties pruned), or a clear error for what it does not do."""
    from odtlab.solvers._quantbnb4 import QuantBnB4Solver
    if est.bound is not None:
        raise ValueError("bound is used at max_depth 2 and 3 only; Quant-BnB at max_depth=4 takes none")
    if est._task != "classification" or est.keep_ties:
        raise ValueError("Quant-BnB at max_depth=4 solves classification with keep_ties=False only; "
                         "use max_depth in {2, 3} for regression or keep_ties=True")
    return QuantBnB4Solver(X, y, s=int(est.s), lower_bound=est.lower_bound, sprime_ratio=est.sprime_ratio,
                           similarity=est.similarity, initial=est.initial, n_classes=len(est.classes_),
                           feature_names=est._feature_names(), classes=est.classes_)


class QuantBnBClassifier(TreeClassifierMixin, _QuantBnBParams):
    __doc__ = f"""Optimal depth-2, 3 or 4 classification tree on continuous features (0-1 loss), by Quant-BnB.
{_QUANTBNB_PARAMETERS}
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import QuantBnBClassifier, datasets
    >>> data = datasets.load("sklearn/iris")
    >>> clf = QuantBnBClassifier(max_depth=2).fit(data.X, data.y)
    >>> clf.result_.status, int(clf.result_.objective)
    ('optimal', 6)
    """


class QuantBnBRegressor(TreeRegressorMixin, _QuantBnBParams):
    __doc__ = f"""Optimal depth-2 or depth-3 regression tree (squared error, multi-output allowed), by Quant-BnB.
{_QUANTBNB_PARAMETERS}
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> from odtlab import QuantBnBRegressor, datasets
    >>> data = datasets.load("sklearn/diabetes")
    >>> reg = QuantBnBRegressor(max_depth=2).fit(data.X, data.y)
    >>> reg.result_.status, reg.get_n_leaves()
    ('optimal', 4)
    """

    _task = "regression"


register(SolverSpec("quantbnb", QuantBnBClassifier, {"depth": "max_depth", "time_limit": "time_limit", "bound": "bound",
                                                     "check_bound": "check_bound"},
                    "Quant-BnB: optimal depth-2/3/4 classification trees on continuous features",
                    variants=({"max_depth": 2}, {"max_depth": 3})))
register(SolverSpec("quantbnb-regressor", QuantBnBRegressor, {"depth": "max_depth", "time_limit": "time_limit"},
                    "Quant-BnB: optimal depth-2/3 regression trees (squared error)",
                    variants=({"max_depth": 2}, {"max_depth": 3})))
