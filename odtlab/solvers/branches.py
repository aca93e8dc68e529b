"""Branches (Chaouki, Read, Bifet) on the search runtime: optimal multi-way trees for H_lambda.

The kernel is :mod:`odtlab.core.branches`, which declares the event kinds (the steps of Section 4.2). This
module holds the :class:`BranchesSolver` (state, growth, bounds, incumbent tree, captions with printable
branch keys), the scikit-learn estimator :class:`BranchesClassifier` and the registry entry
``odtlab solve branches``.

Objective (Section 3.1): H_lambda(T) = accuracy - lambda * splits, maximised. A split on feature i has one
child per category 0..C_i-1; categories no training row has make empty leaves worth 0 that predict their
parent's class. Features with a single category are never split on: such a split makes a
copy of its parent and costs lambda, so it is never optimal (Section 3.3). A finished search is
optimal (Thm 5.1); a stopped one returns the incumbent tree (follow each branch's best-G split) with
the certified gap R(Omega) - G(Omega).

Ties are broken with exact integers (lambda = p / D, values in units of 1 / (n * D)), so iteration counts
can differ a little from a float implementation, whose rounding noise breaks some exact ties (monk1-o: 76
iterations exact, 65-67 with floats; the optima are the same).

**A researcher's bound** (``BranchesClassifier(bound=f, check_bound=...)``, :mod:`odtlab.bounds`). Branches
maximises H_lambda, and its own bound is an upper bound on R*(l), the best H_lambda a subtree at branch l reaches
(the Purification Bound, Prop 4.2, Eq. 8). A user thinks in rows, so ``f(counts, depth, penalty)`` bounds the
equivalent *cost* from below: given the class counts of l, the split depth left below it (``max_depth`` - S(l),
-1 without a limit) and ``penalty`` = lambda * n (the misclassifications a split must save, a float),
f <= min_T e(T) + penalty * S(T) over the subtrees T at l (errors plus penalty per split), for every data set
with these counts. In the kernel's units (1 / (n * D)) R*(l) = D * n(l) - D * that minimum, so D * n(l) - D * f
bounds R*(l) from above, and min(Eq. 8, it) is again an upper bound (the minimum of two upper bounds of the same
value is one): the bounds' combination is sound because each is. MurTree's signature f(counts, depth, nodes)
does not fit: it bounds misclassifications under a node budget, while H_lambda charges each split and has no
node budget, so using it would mean minimising f(counts, d, S) + penalty * S over every S.
Where it enters: at SPLIT (Algorithm 1, lines 77-96), when an expansion meets a child l that Eq. 8 leaves open
(errors e(l) > penalty), before INITIALISE. The kernel stores no R for an open child that is not expanded yet
(it is rebuilt from n(l) and n_{k*} alone, ``core.branches``' docstring), so f is used where its bound meets
the leaf: f >= e(l) proves R*(l) = H(l), and l is settled at birth, a leaf for good that Selection never visits
(MurTree's lines 25-26, a bound that meets the leaf's cost). A bound between H(l) and Eq. 8 is not used. Example
(``tests/test_bounds.py``): on binary features S splits make S + 1 leaves, so the rows outside the S + 1
largest classes plus S * penalty bound the cost; it settles a branch whose minority classes are each at most
the penalty. With ``check_bound=True`` the kernel logs every value that settled a branch (its parent, feature
and category) and stops after that iteration; the solver solves the branch's rows with Branches without f
(lambda' = lambda * n / n(l), the same penalty, and the depth left, once per branch) and raises
:class:`odtlab.bounds.UnsoundBoundError` naming the branch when f exceeds that optimum. A NaN or negative
value is an error naming the branch. The bound travels in the kernel's ``Work`` (``core.branches.UserBound``,
None without a bound, which numba compiles to nothing); it is compiled alone as a cfunc, so the kernel compiles
once for every bound.

Statistics (``Result.stats``, see :meth:`BranchesSolver.stats`): ``iterations``, ``evaluations`` (the
root and every child evaluation of every expansion, re-evaluations included), ``memo_size``, ``expanded``,
``lazy_iterations``, ``root_G``, and ``seconds`` / ``peak_memory`` from the driver.

Events (one record each, lists as one event per element): Init, IterationStart, SelectStep
(+ SelectCandidate per open child), Selection (the path is the iteration's SelectStep nodes), ChildEvaluated,
SplitScored, Expansion, BackpropStep (+ ChildClosed per child moved to the complete side), NodeCompleted,
IterationEnd (the level-summary event, with Init and Terminated) and Terminated (emitted when the root
completes; a search stopped by a limit ends without it and its final state is ``Search.result()``).
:meth:`BranchesSolver.describe` captions them with printable branch keys such as ``x3=1 ∧ x5=0``.
"""
from fractions import Fraction
import numbers

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from odtlab import bounds, encoders, memory
from odtlab.core import branches as kernels
from odtlab.core._jit import LevelKernel, as_ratio
from odtlab.estimators import ATTRIBUTES_DOC, COMMON_CONSTRAINTS, TreeClassifierMixin, TreeEstimator, params_init
from odtlab.search import Search, Solver
from odtlab.solvers import SolverSpec, register
from odtlab.tree import CATEGORY, LEAF, Tree

ALGORITHM = "branches"
CHILD_RULES = {"min_G": kernels.RULE_MIN_G, "min_H": kernels.RULE_MIN_H, "first": kernels.RULE_FIRST}
TIE_BREAKS = {"paper": kernels.TIE_PAPER, "prefer_proven": kernels.TIE_PROVEN}
KEEP_SPLITS = 16  # split records kept per branch (lazy split records); a quarter of kr-vs-kp's 73 features
REASONS = {kernels.REASON_NONE: None, kernels.REASON_NO_ACTIONS: "no_features",
           kernels.REASON_SETTLED: "settled_at_birth", kernels.REASON_LEAF: "leaf_dominates",
           kernels.REASON_SPLIT: "best_split_complete"}
_RULE_NAMES = {v: k for k, v in CHILD_RULES.items()}

# flags of ChildEvaluated / NodeCompleted / Expansion ("state"): the branch's flags at that moment
STATE_COMPLETE, STATE_EXPANDED, STATE_LEAF, STATE_SETTLED, STATE_MEMO_HIT = 1, 2, 4, 8, 16

def _check_lambda(lam, max_depth):
    """(p, D) with lam = p / D exactly, after the checks (remembered per (lam, max_depth): the decimal
    parsing costs a few microseconds, which a fit on monk1-o notices)."""
    cacheable = type(lam) in (int, float, str, Fraction)  # not bool, which equals 0 / 1 as a key
    if cacheable and (lam, max_depth is None) in _LAMBDAS:
        return _LAMBDAS[lam, max_depth is None]
    ratio = _parse_lambda(lam, max_depth)
    if cacheable and len(_LAMBDAS) < 1024:
        _LAMBDAS[lam, max_depth is None] = ratio
    return ratio


_LAMBDAS = {}


def _parse_lambda(lam, max_depth):
    if isinstance(lam, bool) or not isinstance(lam, (numbers.Real, str)):
        raise TypeError(f"lam must be a number, got {lam!r}")
    try:
        p, q = as_ratio(lam)
    except (ValueError, ArithmeticError):
        raise ValueError(f"lam must be a finite number, got {lam!r}") from None
    if p < 0 or p > q:
        raise ValueError(f"lam must lie in [0, 1], got {lam!r}")
    if p == 0 and float(lam) > 0:
        raise ValueError(f"lam={lam!r} is too small for the exact ratio (denominator <= 10**6)")
    if p == 0 and max_depth is None:
        raise ValueError("lam = 0 needs a max_depth: without a split penalty every useful split ties")
    return p, q


def _check_depth(max_depth):
    if max_depth is None:
        return -1
    if isinstance(max_depth, bool) or not isinstance(max_depth, numbers.Integral) or max_depth < 0:
        raise ValueError(f"max_depth must be an integer >= 0 or None, got {max_depth!r}")
    return int(max_depth)


def _check_arrays(X, y, n_categories, n_classes):
    """Validated (int64 codes, int64 class codes, C per feature, K) for :class:`BranchesSolver`."""
    X = encoders.check_codes(X, n_categories)
    n = X.shape[0]
    if n == 0:
        raise ValueError("Branches needs at least one training row")
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},), got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer) or (y < 0).any():
        raise ValueError("y must hold class codes 0..K-1 (the estimator encodes labels)")
    K = int(n_classes) if n_classes is not None else int(y.max()) + 1
    if y.max() >= K:
        raise ValueError(f"y holds class {int(y.max())} but n_classes = {K}")
    C = X.max(axis=0) + 1 if n_categories is None else np.asarray(n_categories, dtype=np.int64)
    return X, y.astype(np.int64), C.astype(np.int64), K


class BranchesSolver(bounds.PicklesUserBound, Solver):
    """State of one Branches search (see :mod:`odtlab.core.branches` for the arrays).

    ``X``: (n, q) integer codes 0..C_i-1; ``y``: class codes 0..K-1; ``lam``: the penalty per split, read as
    the decimal written (0.005 is exactly 1/200); ``n_categories``: C_i per feature (default max code + 1);
    ``child_rule``: which open child Selection follows ("min_G", V-late D.2 and the authors' code; "min_H",
    V-early; "first"); ``tie_break``: order of equal-Q splits ("paper": heapq order, less proven first;
    "prefer_proven"). ``keep_splits``: the split records a branch with more than ``keep_splits + 2`` split
    actions keeps, the best by Q, with its incumbent's and one bound for the others (lazy split records,
    :func:`odtlab.core.branches.keep_best`; None: all, the paper's layout); the optimum is the same, the
    search state smaller. ``capacity``: initial number of memo branches (the arrays grow as needed).
    """

    name = "branches"
    sense = "max"
    exact = True
    first_chunk = 256  # an iteration takes ~1 us on monk1-o, ~0.1 ms on the hard one-hot sets
    BOUND_PARAMETER = "bound"  # the estimator's name for a user's bound and its arguments (odtlab.bounds)
    BOUND_ARGS = bounds.BRANCHES_ARGS

    def __init__(self, X, y, lam=0.01, max_depth=None, n_categories=None, n_classes=None, child_rule="min_G",
                 tie_break="paper", feature_names=None, classes=None, category_names=None, keep_splits=KEEP_SPLITS,
                 capacity=1024, check_input=True, bound=None, check_bound=False):
        depth = _check_depth(max_depth)
        p, den = _check_lambda(lam, max_depth)
        if child_rule not in CHILD_RULES:
            raise ValueError(f"child_rule must be one of {sorted(CHILD_RULES)}, got {child_rule!r}")
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {sorted(TIE_BREAKS)}, got {tie_break!r}")
        if keep_splits is not None and (not isinstance(keep_splits, numbers.Integral) or keep_splits < 1):
            raise ValueError(f"keep_splits must be an integer >= 1 or None, got {keep_splits!r}")
        if check_input:
            X, y, C, K = _check_arrays(X, y, n_categories, n_classes)
        else:  # the estimator validated them: int64 codes, class codes, C and K given
            C, K = n_categories, int(n_classes)
        n, q = X.shape
        self.X = X
        self.y = y
        self.n_categories = C
        self.lam = Fraction(p, den)
        self.max_depth = max_depth
        self.child_rule = child_rule
        self.tie_break = tie_break
        self.n, self.q, self.K = n, q, K
        self.feature_names = list(feature_names) if feature_names is not None else None
        self.classes = classes
        self.category_names = category_names

        if n > kernels.MAX_ROWS:
            raise ValueError(f"Branches handles at most {kernels.MAX_ROWS} rows, got {n}")
        if den * n >= 1 << 62:
            raise ValueError(f"n * denominator of lam ({n} * {den}) is too large for exact int64 values")
        Xt, y32, BITS, YB, RADIX, WORD, W, epi = kernels.prepare(X, y, C, K, depth)
        self.key_words = W
        self.events_per_iteration = epi
        cmax = BITS.shape[1]
        self.data = kernels.Data(Xt, y32, BITS, YB, C.copy(), RADIX, WORD)
        self.params = kernels.Params(n, q, K, p * n, den, depth, CHILD_RULES[child_rule], TIE_BREAKS[tie_break],
                                     int(W), int(cmax), int(epi), 1.0 / (n * den),
                                     q if keep_splits is None else min(int(keep_splits), q))
        cap = max(int(capacity), 2)
        dtype = kernels.state_dtype(n, den, q, cmax)  # int32 where every field fits: half the bytes
        table = np.empty((_pow2(2 * cap), 2), dtype=np.int64)  # a slot is read once its tag is set
        self.state = kernels.State(
            counters=np.zeros(kernels.N_COUNTERS, dtype=np.int64),
            ND=memory.zeros((cap, kernels.ND_COLS), dtype),
            NC=memory.zeros((cap, kernels.NC_COLS), np.int32),
            KEYS=memory.zeros((cap, W), np.int64),
            TABLE=table,
            OCC=np.zeros(table.shape[0], dtype=np.uint8),
            # an expanded branch holds one record per unused feature: about q / 2 on average, or keep + 2
            RC=memory.zeros((max(cap * max(min(q // 2, self.params.keep + 2), 1), q), kernels.R_KIDS + cmax),
                            dtype),
            FREE=np.full(q + 1, -1, dtype=np.int64))  # free blocks of split records by size (kernels.release)
        st = self.state
        kernels.init_root(tuple(self.params), y32, WORD, st.counters, st.ND, st.NC, st.KEYS, st.TABLE, st.OCC)
        self._work = None  # the kernel's scratch memory (kernels.Work), made at its first call
        self.user_bound = None
        if bound is not None:
            self._use_bound(bound, check_bound)
        self._best = None  # (value in units, tree structure) of the best incumbent seen
        self._tree_cache = (None, None)
        self._note_incumbent()

    # -- Solver contract ---------------------------------------------------------------------------
    def kernel(self, level):
        return LevelKernel(kernels.branches_kernel, level)

    def advance(self, kernel, events, max_iterations):
        if self._work is None:
            self._work = kernels.make_work(self.params, self.data.YB.shape[1], self.user_bound)
        # the groups as plain tuples: numba types a tuple of arrays and scalars in C (by its fingerprint), a
        # namedtuple in Python, item by item (about 4 us more per call; the kernel names them again)
        k, status = kernel(tuple(self.data), tuple(self.params), tuple(self.state), tuple(self._work), events,
                           max_iterations)
        if self.user_bound is not None and self.user_bound.nlog[0]:
            self.check_user_bound()
        self._note_incumbent()
        return int(k), int(status)

    # -- a researcher's bound (odtlab.bounds) ------------------------------------------------------
    def _use_bound(self, bound, check):
        """Pass ``bound(counts, depth, penalty)`` to the kernel (``core.branches.UserBound``, in its ``Work``):
        compiled once as a cfunc, first called in Python on all rows for a clear error."""
        self.bound_function = bounds.python_function(bound, self.BOUND_PARAMETER, self.BOUND_ARGS)
        counts = np.bincount(self.y, minlength=self.K)
        depth = -1 if self.max_depth is None else int(self.max_depth)
        fn = bounds.compile_bound(self.bound_function, counts, depth, self.penalty, self.BOUND_PARAMETER,
                                  self.BOUND_ARGS)
        self.__dict__.update(self._with_user_bound(
            kernels.make_user_bound(fn, check, self.penalty, self.K, self.q, self.params.cmax)))
        self.checked_bounds = {}

    @property
    def penalty(self):
        """lambda * n: the misclassifications a split must save, the third argument of a user's bound."""
        return float(self.lam * self.n)

    def _with_user_bound(self, user_bound):
        """The kernel reads the bound from its scratch ``Work``, made again with it at the next call
        (``kernels.make_work``)."""
        return {"user_bound": user_bound, "_work": None}

    def check_user_bound(self):
        """The values of the user's bound the kernel logged (``core.branches.UserBound``): a NaN or negative
        value raises ValueError; in check mode a value above the least regularised cost of its branch's
        subtree (Branches without the bound on the branch's rows, :meth:`branch_optimum`) raises
        :class:`odtlab.bounds.UnsoundBoundError` naming the branch. Each branch is solved once."""
        ub = self.user_bound
        entries = [(tuple(int(v) for v in ub.log[e]), float(ub.value[e])) for e in range(int(ub.nlog[0]))]
        ub.nlog[0] = 0
        for (status, parent, feature, category), value in entries:
            tests = tuple(sorted(self.branch_tests(parent) + [(feature, category)]))
            rows = np.all([self.X[:, i] == j for i, j in tests], axis=0)
            counts = np.bincount(self.y[rows], minlength=self.K)
            where = (f"the branch {self.branch_key(-1, parent, feature, category)} (depth {len(tests)}, "
                     f"class counts {counts.tolist()}, penalty lambda * n = {self.penalty:g})")
            if status == kernels.BOUND_INVALID:
                bounds.check_value(value, f"on {where}", "bound")
            if tests not in self.checked_bounds:
                self.checked_bounds[tests] = self.branch_optimum(rows, len(tests))
            optimum = self.checked_bounds[tests]
            if Fraction(value) > optimum:
                raise bounds.UnsoundBoundError(bounds.unsound(where, value, f"{optimum} (regularised)", "bound")
                                               .replace("misclassifies", "costs"))

    def branch_optimum(self, rows, depth):
        """The least regularised cost min_T e(T) + lambda * n * S(T) (misclassifications, exact) of a subtree
        at the branch of the given rows (a mask) and ``depth`` tests: Branches without a bound on those rows
        with lambda' = lambda * n / n(l), the same penalty per split, and the split depth left."""
        m = int(rows.sum())
        lam = self.lam * self.n / m
        max_depth = None if self.max_depth is None else self.max_depth - depth
        if lam > 1:  # a split costs more than all the branch's rows: the leaf is optimal
            return Fraction(m - int(np.bincount(self.y[rows]).max()))
        sub = BranchesSolver(self.X[rows], self.y[rows], lam=lam, max_depth=max_depth, n_categories=self.n_categories,
                             n_classes=self.K, check_input=False)
        Search(sub, record="none").run()
        return m * (1 - sub.bounds_exact()[1])

    def grow(self):
        """Enlarge what the kernel asked for (x16, x4, then x2 steps), in place (:func:`odtlab.memory.grow_rows`);
        a larger memo table is freed, then rebuilt.

        Under a memory limit (``memory_limit``, bytes, set by :class:`~odtlab.search.Search`) an array grows by
        less when the full step would pass the limit, by what fits (so the search uses the memory it is
        given); when not even what the kernel needs fits, nothing changes and ``grow`` returns False."""
        state = self.state
        CN = state.counters
        what = int(CN[kernels.C_GROW])
        nodes = recs = None
        others = self.nbytes()
        if what & kernels.GROW_NODES:
            current = state.ND.shape[0]
            need = int(CN[kernels.C_NEED_NODES])
            others -= self._node_bytes(current)
            nodes = memory.capacity(current, need, _grown(current, need), self._node_bytes, others,
                                    self.memory_limit)
            if nodes is None:
                return False
            if state.ND.dtype == np.int32:
                nodes = min(nodes, kernels.NARROW_NODES)
                if nodes < need:
                    raise MemoryError(f"Branches' int32 state holds at most {kernels.NARROW_NODES} memo branches")
            others += self._node_bytes(nodes)
        if what & kernels.GROW_RECS:
            current = state.RC.shape[0]
            need = int(CN[kernels.C_NEED_RECS])
            row = state.RC.shape[1] * state.RC.itemsize
            others -= current * row
            recs = memory.capacity(current, need, _grown(current, need), lambda c: c * row, others,
                                   self.memory_limit)
            if recs is None:
                return False
            if state.RC.dtype == np.int32:
                recs = min(recs, kernels.NARROW_RECS)
                if recs < need:
                    raise MemoryError(f"Branches' int32 state holds at most {kernels.NARROW_RECS} split records")
        del state  # the growth below holds the only reference to each array it resizes
        if nodes is not None:
            for name in ("ND", "NC", "KEYS"):
                self._grow_state(name, nodes)
            size = _pow2(2 * nodes)
            if size > self.state.TABLE.shape[0]:
                self.state = self.state._replace(TABLE=None, OCC=None)  # freed before the larger table is made
                self.state = self.state._replace(TABLE=np.empty((size, 2), dtype=np.int64),
                                                 OCC=np.zeros(size, dtype=np.uint8))
                kernels.rehash(self.state.TABLE, self.state.OCC, self.state.KEYS, CN[kernels.C_NODES])
        if recs is not None:
            self._grow_state("RC", recs)
        CN[kernels.C_GROW] = 0
        return True

    def _grow_state(self, name, rows):
        """``state.<name>`` with ``rows`` rows, in place where it can (:func:`odtlab.memory.grow_rows`: the
        state gives up its reference while the array is resized)."""
        box = _Box(getattr(self.state, name))
        self.state = self.state._replace(**{name: None})
        self.state = self.state._replace(**{name: memory.grow_rows(box, "array", rows)})

    memory_limit = None

    def _node_bytes(self, c):
        """Bytes of the memo arrays (ND, NC, KEYS, TABLE, OCC) at a capacity of c branches."""
        row = self.state.ND.itemsize * kernels.ND_COLS + 4 * kernels.NC_COLS + 8 * self.key_words
        return c * row + 17 * _pow2(2 * c)

    @property
    def iterations(self):
        return int(self.state.counters[kernels.C_ITER])

    @property
    def finished(self):
        return bool(self.state.ND[0, kernels.D_FLAGS] & kernels.F_COMPLETE)

    def bounds(self):
        """(lower, upper) = (H_lambda of the incumbent tree, R(root)) as floats; see :meth:`bounds_exact`."""
        unit = self.n * self.lam.denominator
        return self._best[0] / unit, int(self.state.ND[0, kernels.D_R]) / unit

    def bounds_exact(self):
        """The certified bounds as Fractions: G <= H_lambda(T*) <= R(root) (Lemma B.1)."""
        unit = self.n * self.lam.denominator
        return Fraction(int(self._best[0]), unit), Fraction(int(self.state.ND[0, kernels.D_R]), unit)

    def incumbent(self):
        """The incumbent tree (follow each branch's best-G split from the root); optimal
        once the search is finished. Its recomputed H_lambda equals the lower bound."""
        value, struct = self._best
        if self._tree_cache[0] is not struct:
            self._tree_cache = (struct, self._make_tree(struct))
        return self._tree_cache[1]

    def stats(self):
        """The search's counters.

        * ``iterations`` (added by the driver): Selection + Expansion + Backpropagation rounds, lazy-completion
          iterations included (as the paper's counts); iteration k is the k-th, from 1.
        * ``evaluations``: branch evaluations, i.e. class counts computed from the data: 1 for the root
          (evaluated before the loop), plus, at every expansion, one per child that is not an
          expanded branch of the memo. Settled and not-yet-expanded children are kept inline in their
          parent's record, not in the memo, so a child evaluated before through another parent is evaluated,
          and counted, again (a re-evaluation); a child that is an expanded branch is a memo hit and is not
          counted. This is the per-expansion count of Thm 5.2 (C_i evaluations per split action); the number
          of distinct branches evaluated is smaller (a memo of every evaluated branch, as in the authors'
          code, counts each once; monk1-o has 844 evaluations here).
        * ``memo_size``: stored branches: the root and every expanded branch (the root is expanded by the
          first iteration, so ``memo_size == expanded`` once any iteration ran).
        * ``expanded``: expansions done (one per non-lazy iteration).
        * ``re_expansions``: expansions of a branch again, when Selection reached it with the bound of its
          dropped split records on top (``keep_splits``); not in ``expanded``. Only when ``keep_splits + 2``
          is below the number of features q (else no branch drops any).
        * ``lazy_iterations``: iterations whose Selection ended on a branch completed through another parent
          (no expansion, only Backpropagation).
        * ``root_G``: the paper's G(Omega). The certified lower bound is the incumbent tree's exact value,
          which can exceed it when a memo branch shared by two parents improved through the other one.
        """
        CN = self.state.counters
        stats = {"evaluations": int(CN[kernels.C_EVALS]), "memo_size": int(CN[kernels.C_NODES]),
                 "expanded": int(CN[kernels.C_EXPANDED]), "lazy_iterations": int(CN[kernels.C_LAZY]),
                 "root_G": float(Fraction(int(self.state.ND[0, kernels.D_G]), self.n * self.lam.denominator))}
        if self.params.keep + 2 < self.q:  # some branch may drop split records
            stats["re_expansions"] = int(CN[kernels.C_REEXPANDED])
        return stats

    def nbytes(self):
        data = self.data
        return sum(a.nbytes for a in (data.Xt, data.y, data.BITS, data.YB, *self.state[1:]))

    # -- incumbent ---------------------------------------------------------------------------------
    def _note_incumbent(self):
        """Keep the best incumbent tree seen (INFER_INCUMBENT); a finished search keeps its final tree,
        whose value is R* = G(root)."""
        value, feature, first, n_children = kernels.infer_incumbent(
            self.state.ND, self.state.RC, self.data.CAT, self.params.den, self.params.lam)
        if self._best is None or value > self._best[0] or (self.finished and value >= self._best[0]):
            self._best = (int(value), (feature, first, n_children))

    def _make_tree(self, struct):
        feature, first, n_children = struct
        m = feature.shape[0]
        split = np.where(feature < 0, LEAF, CATEGORY).astype(np.int8)
        tree = Tree(split, feature, np.full(m, np.nan), np.maximum(first - 1, 0), n_children, np.arange(1, m),
                    self.q, classes=self.classes if self.classes is not None else np.arange(self.K),
                    feature_names=self.feature_names)
        counts = kernels.node_counts(self.data.Xt, self.data.y, feature, first, self.K)
        return tree.set_node_values(counts, counts.sum(axis=1))  # what fit_leaves(X, y) computes

    # -- captions ----------------------------------------------------------------------------------
    def feature_name(self, i):
        i = int(i)
        if i < 0:
            return "leaf"
        return self.feature_names[i] if self.feature_names is not None else f"x{i}"

    def category_name(self, i, j):
        names = self.category_names[int(i)] if self.category_names is not None else None
        return str(names[int(j)]) if names is not None and 0 <= int(j) < len(names) else str(int(j))

    def branch_tests(self, node):
        """The tests of a branch, [(feature, category), ...] in feature order (decoded from its key)."""
        if int(node) < 0:
            return []
        key = self.state.KEYS[int(node)]
        WORD, RADIX, CAT = self.data.WORD, self.data.RADIX, self.data.CAT
        out = []
        for i in np.flatnonzero(WORD >= 0):
            digit = (int(key[WORD[i]]) // int(RADIX[i])) % (int(CAT[i]) + 1)
            if digit:
                out.append((int(i), digit - 1))
        return out

    def branch_key(self, node, parent=-1, feature=-1, category=-1):
        """A printable key such as ``x3=1 ∧ x5=0`` (``Ω`` for the root). A child not in the memo (node -1
        in events) is named by its parent, feature and category."""
        if int(node) < 0 and int(parent) >= 0:
            tests = sorted(self.branch_tests(parent) + [(int(feature), int(category))])
        else:
            tests = self.branch_tests(node)
        if not tests:
            return "Ω"
        return " ∧ ".join(f"{self.feature_name(i)}={self.category_name(i, j)}" for i, j in tests)

    def describe(self, event):
        """The paper-style caption of an event, with branch keys instead of node ids."""
        if event.kind.algorithm != ALGORITHM:
            return event.caption()
        name = event.name
        key = self.branch_key
        fn = self.feature_name
        if name == "Init":
            return (f"Init: root Ω with n={event.n}, q={event.q}, K={event.K}, λ={event.lam:g}; "
                    f"H(Ω)={event.H:.6g}, R(Ω)=max(H, 1−λ)={event.R:.6g}"
                    + (" — already complete: the optimal tree is a single leaf" if event.state & 1 else ""))
        if name == "IterationStart":
            return (f"Iteration {event.iteration}: R(Ω)={event.root_R:.6g}, G(Ω)={event.root_G:.6g}, "
                    f"gap {event.gap:.3g}, {event.memo_size} branches in the memo")
        if name == "SelectStep":
            child = key(event.chosen_child, event.node_id, event.chosen_feature, event.category)
            return (f"Selection: branch {key(event.node_id)}, split {fn(event.chosen_feature)} with "
                    f"Q = {event.Q:.6g}; go to {child} "
                    f"({_RULE_NAMES.get(int(event.rule), '?')} among {event.n_open} open children)")
        if name == "SelectCandidate":
            mark = " ← chosen" if event.state & 1 else ""
            done = " (already complete)" if event.state & 2 else ""
            child = key(event.child_id, event.node_id, event.feature, event.category)
            return f"  candidate {child}: G={event.G:.6g}, H={event.H:.6g}, R={event.R:.6g}{done}{mark}"
        if name == "Selection":
            lazy = " — already complete (lazy completion): backpropagate only" if event.leaf_complete else ""
            return f"Selection ends at branch {key(event.leaf_id)} (depth {event.depth}){lazy}"
        if name == "ChildEvaluated":
            how = "memo hit" if event.state & STATE_MEMO_HIT else "new"
            settled = ", settled leaf (errors ≤ λn)" if event.state & STATE_SETTLED else ""
            child = key(event.child_id, event.parent_id, event.feature, event.category)
            return (f"Expansion: child {child} ({how}): n={event.n_l}, H={event.H:.6g}, "
                    f"P−λ={event.bound:.6g}, R={event.R:.6g}{settled}")
        if name == "SplitScored":
            return (f"Expansion: split {fn(event.feature)} of {key(event.node_id)}: Q = {event.Q:.6g} "
                    f"({event.n_open} of {event.n_children} children open), incumbent g = {event.g:.6g}")
        if name == "Expansion":
            why = REASONS.get(int(event.reason))
            tail = f", complete ({why})" if why else ""
            return (f"Expansion of {key(event.node_id)}: R {event.R_before:.6g} → {event.R_after:.6g}, "
                    f"best split {fn(event.best_feature)} (Q = {event.best_Q:.6g}){tail}")
        if name == "BackpropStep":
            why = REASONS.get(int(event.reason))
            tail = f"; complete ({why})" if why else ""
            return (f"Backpropagation at {key(event.node_id)} via {fn(event.feature)}: "
                    f"Q {event.Q_before:.6g} → {event.Q_after:.6g}, R {event.R_before:.6g} → "
                    f"{event.R_after:.6g}, G = {event.G_after:.6g}{tail}")
        if name == "ChildClosed":
            return f"  {key(event.child_id)} is complete: its R* = {event.R:.6g} moves to the proven sum"
        if name == "NodeCompleted":
            why = REASONS.get(int(event.reason))
            node = key(event.node_id, event.parent_id, event.best_feature, event.category)
            return f"Complete: {node} with R* = {event.R:.6g} ({why})"
        if name == "IterationEnd":
            return (f"After iteration {event.iteration}: R(Ω)={event.root_R:.6g}, G(Ω)={event.root_G:.6g}, "
                    f"gap {event.gap:.3g}, {event.evaluations} evaluations")
        if name == "Terminated":
            tree = self.incumbent()
            return (f"Terminated after {event.iterations} iterations: optimal H_λ = {event.objective:.6g} "
                    f"({tree.splits} splits, {tree.leaves} leaves, depth {tree.depth}, "
                    f"{event.evaluations} evaluations)")
        return event.caption()


class _Box:
    """Holds one array of the state while :func:`odtlab.memory.grow_rows` resizes it."""

    def __init__(self, array):
        self.array = array


def _pow2(x):
    return 1 << max(int(x) - 1, 1).bit_length()


def _grown(cap, need):
    """Capacity for ``need`` items: x16 below 2**14, x4 below 2**20 (fewer copies and rehashes while an
    array is small: a fit on monk1-f grows each array once), x2 past 2**20."""
    while cap < need:
        cap *= 16 if cap < 1 << 14 else 4 if cap < 1 << 20 else 2
    return cap


#: Branches' parameters, checked once by :meth:`TreeEstimator._check_params` (``lam`` may also be a decimal string
#: such as "0.005"; its exact ratio and the rule "lam = 0 needs max_depth" are checked by :func:`_check_lambda`).
BRANCHES_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "lam": [Fraction, Interval(numbers.Real, 0, 1, closed="both"), str],  # a Fraction's range: _check_lambda
    "max_depth": [Interval(numbers.Integral, 0, None, closed="left"), None],
    "child_rule": [StrOptions(set(CHILD_RULES))],
    "tie_break": [StrOptions(set(TIE_BREAKS))],
    "bound": [callable, str, None],
    "check_bound": ["boolean", Interval(numbers.Integral, 0, 1, closed="both")],
}


class BranchesClassifier(TreeClassifierMixin, TreeEstimator):
    __doc__ = f"""Optimal multi-way decision tree for H_lambda = accuracy - lambda * splits (Branches).

    ``X``: integer category codes 0..C-1 (numpy) or a DataFrame whose categorical columns become codes (their
    category lists set C_i, so a category absent from the training rows makes an empty child). Binary 0/1
    features are the two-category case. Codes must be below ``odtlab.encoders.MAX_CATEGORIES`` (1024).
    A test category that the training data never had stops at the split that meets it and gets that
    node's majority class; an empty child predicts its parent's class.

    Parameters
    ----------
    lam : float in [0, 1] or decimal string, default=0.01
        Penalty per split, read as the decimal written (0.005 is exactly 1/200); 0 only with ``max_depth``.
    max_depth : int >= 0 or None, default=None
        Largest number of splits along a path.
    time_limit : float > 0 or None, default=None
        Seconds; a stopped search keeps the incumbent tree and its certified gap in ``result_``, and
        ``search_.run()`` resumes it.
    child_rule : {{{", ".join(map(repr, sorted(CHILD_RULES)))}}}, default="min_G"
        Which open child Selection follows (see :class:`BranchesSolver`).
    tie_break : {{{", ".join(map(repr, sorted(TIE_BREAKS)))}}}, default="paper"
        Order of equal-Q splits (see :class:`BranchesSolver`).
    record : {{"none", "summary", "full"}}, default="summary"
        Event level kept during ``fit``.
    keep_search : bool, default=False
        Keep ``search_`` (its state and the training data) when pickling.
    bound : callable ``f(counts, depth, penalty) -> float``, "module:function" or None, default=None
        A researcher's lower bound on the least regularised cost of a subtree at a branch (see the module
        docstring and :mod:`odtlab.bounds`); a branch where it reaches the leaf's errors is settled at birth.
    check_bound : bool, default=False
        Verify every value that settled a branch against that branch's optimum (Branches without ``bound``)
        and raise :class:`odtlab.bounds.UnsoundBoundError` naming the branch.
{ATTRIBUTES_DOC}
    Examples
    --------
    >>> import numpy as np
    >>> from odtlab import BranchesClassifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> clf = BranchesClassifier(lam=0.01).fit(X, y)
    >>> clf.result_.status, clf.get_n_leaves(), clf.score(X, y)
    ('optimal', 4, 1.0)
    """

    _input = "categorical"
    _parameter_constraints = BRANCHES_CONSTRAINTS
    __init__ = params_init(lam=0.01, max_depth=None, time_limit=None, child_rule="min_G", tie_break="paper",
                           record="summary", keep_search=False, bound=None, check_bound=False)

    def _check_param_relations(self):
        _check_lambda(self.lam, self.max_depth)

    def _validate_fit(self, X, y, sample_weight):
        """scikit-learn's validation, with a fast path for what the data layer hands out: integer numpy
        codes and integer labels without weights (scikit-learn's checks cost ~0.3 ms, more than solving
        monk1-o). Anything else, or anything the fast path would reject, takes scikit-learn's path, so the
        errors are the usual ones."""
        if (sample_weight is None and type(X) is np.ndarray and type(y) is np.ndarray and X.ndim == 2
                and y.ndim == 1 and X.dtype.kind in "iub" and (y.dtype.kind == "i" or y.dtype.kind == "u"
                                                                and y.dtype.itemsize < 8)
                and X.shape[0] == y.shape[0] and X.shape[0] > 0 and X.shape[1] > 0):
            codes = np.array(X, dtype=np.int64)  # a copy: the search may resume after the caller's X changed
            labels = _label_codes(y.astype(np.int64))  # a copy, too
            if labels is not None and codes.min() >= 0 and codes.max() < encoders.MAX_CATEGORIES:
                self.n_features_in_ = X.shape[1]
                if hasattr(self, "feature_names_in_"):  # what validate_data does for an array
                    del self.feature_names_in_
                self.classes_ = labels[1].astype(y.dtype)
                y = labels[0]
                return codes, y, None
        return super()._validate_fit(X, y, sample_weight)

    def _make_solver(self, X, y, sample_weight):
        if sample_weight is not None and not np.all(sample_weight == 1.0):
            raise ValueError("BranchesClassifier does not support sample weights (H_lambda counts rows)")
        if X.dtype != np.int64:  # scikit-learn's float64 array: checked codes (the fast path's are)
            X = encoders.check_codes(X, feature_names=self._feature_names())
        C = X.max(axis=0) + 1
        cats = getattr(self, "categories_", None)
        names = getattr(self, "feature_names_in_", None)
        category_names = None
        if cats and names is not None:  # a DataFrame fit: its category lists set C_i
            category_names = [cats.get(col) for col in names]
            for j, c in enumerate(category_names):
                if c is not None:
                    C[j] = max(C[j], len(c))
        if C.max() > encoders.MAX_CATEGORIES:
            j = int(np.argmax(C))
            raise ValueError(f"column {self._feature_names()[j]!r} has {int(C[j])} categories; Branches takes at most "
                             f"odtlab.encoders.MAX_CATEGORIES = {encoders.MAX_CATEGORIES} per feature")
        return BranchesSolver(X, y, lam=self.lam, max_depth=self.max_depth, n_categories=C,
                              n_classes=len(self.classes_), child_rule=self.child_rule, tie_break=self.tie_break,
                              category_names=category_names, check_input=False, bound=self.bound,
                              check_bound=self.check_bound)


def _label_codes(y):
    """``(codes, classes)`` of int64 labels, as :func:`odtlab.encoders.check_labels` returns them, by
    counting instead of sorting; None when there are fewer than two classes or the range is wide (the
    caller then takes scikit-learn's path and its errors)."""
    lo, hi = int(y.min()), int(y.max())
    if hi - lo > 4 * y.shape[0] + 1024:
        return None
    if lo:
        y = y - lo
    present = np.flatnonzero(np.bincount(y, minlength=hi - lo + 1))
    if present.shape[0] < 2:
        return None
    if present.shape[0] < hi - lo + 1:  # some labels in lo..hi are absent
        lut = np.zeros(hi - lo + 1, dtype=np.int64)
        lut[present] = np.arange(present.shape[0])
        y = lut[y]
    return y, present + lo


register(SolverSpec("branches", BranchesClassifier,
                    {"lam": "lam", "depth": "max_depth", "time_limit": "time_limit", "bound": "bound",
                     "check_bound": "check_bound"},
                    "Branches: optimal multi-way trees for accuracy - lambda * splits"))
