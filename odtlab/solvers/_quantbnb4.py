"""Quant-BnB at depth 4: the paper's interval bound applied one level up, with depth-3 Quant-BnB as the inner solver.

The paper (Mazumder, Meng, Wang, ICML 2022) solves depth 2 (Algorithm 1) and depth 3 (Appendix C); this module
adds depth 4 for the 0-1 loss. The outer search is Python; every inner solve is a depth-3 Quant-BnB search on a
row subset, run by the depth-3 kernel (``core.quantbnb.quantbnb3_kernel``) through :class:`QuantBnBSolver`.

Notation. Ranks as in ``core.quantbnb``: for a root feature f with u(f) distinct values, the root threshold t in
0..u(f) sends the rows with rank_f <= t left. L(t) = {rank_f <= t}, R(t) = {rank_f > t}. OPT3(S) is the least
number of rows of S misclassified by a tree of depth at most 3 (OPT3 of the empty set is 0).

**Lemma 1 (monotonicity; the paper's Lemma B.3 one level up).** S ⊆ S' implies OPT3(S) <= OPT3(S').
Proof: the optimal depth-3 tree of S' misclassifies at least as many rows of S' as of S ⊆ S', and it is a
depth-3 tree for S, so OPT3(S) <= errors on S <= errors on S' = OPT3(S').

**Proposition 2 (interval bound).** For a root feature f and a <= t <= b,
    OPT3(L(t)) + OPT3(R(t)) >= OPT3(L(a)) + OPT3(R(b)) >= lbL(a) + lbR(b)
for any lower bounds lbL(a) <= OPT3(L(a)), lbR(b) <= OPT3(R(b)). Proof: L(a) ⊆ L(t) and R(b) ⊆ R(t), then
Lemma 1 on each side. The best depth-4 tree with root feature f and root threshold t has loss
OPT3(L(t)) + OPT3(R(t)) (its two depth-3 subtrees are independent), so a tuple (f, [a, b]) whose
lbL(a) + lbR(b) >= U (the incumbent's loss) holds no tree better than the incumbent and is pruned. This is
condition (ii) of the paper's Proposition C.1 (chain (55)) with D2 replaced by OPT3.

**Corollary 3 (one-sided cut-offs).** In a tuple (f, [a, b]) with points a = t_0 < t_1 < ... < t_m = b: once
lbL(t_k) + lbR(b) >= U, every root threshold t >= t_k is pruned (L(t_k) ⊆ L(t), R(b) ⊆ R(t)); symmetrically,
once lbL(a) + lbR(t_k) >= U every t <= t_k is pruned. So an inner solve may stop at a *cutoff*: the left
solve at t_k gets c = U - lbR(b), the right solve at t_k gets c = U - lbL(t_{k-1}); it prunes against
min(c, its best) and returns either the exact OPT3 (below c) or the certified bound OPT3 >= c. Either way
the returned lower bound is all the tuple needs: a point with a cut-off side cannot beat U (its sum of lower
bounds is at least U), and the slices next to it keep valid bounds. The bounds of neighbouring points are
made monotone for free: lbL(t_k) >= lbL(t_{k-1}) and lbR(t_k) >= lbR(t_{k+1}) (Lemma 1).

**Algorithm (Algorithm 1 of the paper, one level up).** The alive list starts with (f, [0, u(f)]) for every
non-constant feature f, both ends settled with bound 0 (L(0) and R(u(f)) are empty). The root thresholds 0 and
u(f) themselves give depth-3 trees, which are never better than some non-degenerate threshold (a depth-4 tree
with the same depth-3 tree on both sides predicts as that tree), so they are never evaluated. A round takes
every alive tuple in turn: pruned when lbL(a) + lbR(b) >= U (U may have fallen since it was made); otherwise
its points are the almost s-equi-spaced t_0..t_s of [a, b] (§3.1, ``core.quantbnb.quantile_points``), or every
rank of [a, b] when b - a <= s (the exhaustive box of Algorithm 1). The left sides are solved at t_1, t_2, ...
until Corollary 3 stops them, then the right sides at ..., t_2, t_1 (each skipped when its slice is already
pruned). A point whose two sides are both exact is a depth-4 tree: U falls when its loss is below U. Each slice
[t_{k-1}, t_k] with a threshold strictly inside and lbL(t_{k-1}) + lbR(t_k) < U becomes a child tuple.
The search ends when the alive list is empty: every root threshold was evaluated or pruned, so U is the optimum.
At every stop min(U, the smallest lbL(a) + lbR(b) of the alive tuples) is a certified lower bound
(Proposition 2), so a time limit returns the incumbent with a valid gap.

What is reused between neighbouring intervals: a child tuple's end points are its parent's points, whose
inner solves are done; their bounds are passed down (lbL(a), lbR(b)) and never recomputed. An inner solve
starts from depth-3 Quant-BnB's greedy incumbent on its subset and stops early, exact, once its incumbent reaches
the bound its neighbour already gives (lbL(t_{k-1}) for a left side, lbR(t_{k+1}) for a right one: Lemma 1).
Its first incumbent is the better of that greedy tree and the nearest exact tree of the same side (the
neighbouring point's, or the tuple's end point's), its leaves refitted to the new set: a tree on L(t_{k-1}) is
usually close to optimal on L(t_k), so the inner search prunes against a near-optimal U from the start.

The first U is CART's depth-4 tree (``initial="greedy"`` or ``"cart"``) or a single leaf (``"leaf"``). With
``"greedy"`` the first tuple is (f, [t - 1, t + 1]) for CART's root split (f, t): it evaluates that one root
threshold with two exact depth-3 solves (the best depth-4 tree with CART's root split), so the cutoffs of every
later solve are tight from the start. The threshold t is also covered by the alive tuple of f: a threshold covered
twice costs time, never correctness (the search ends when every threshold is evaluated or pruned).
One search iteration is one iteration of an inner depth-3 search (a root tuple of Appendix C) or one finished
inner solve; ``Search.run`` may stop between any two, and resumes the same search. No events are recorded at
depth 4 (every record level runs the depth-3 kernel at level none); ``stats`` count the inner solves.
Classification only (0-1 loss, any number of classes); ties are pruned (``keep_ties=False``).
"""
from collections import deque, namedtuple
from types import SimpleNamespace
import warnings

import numpy as np

from odtlab.core import events as core_events
from odtlab.core import quantbnb as kernels
from odtlab.core._jit import LevelKernel
from odtlab.search import Solver
from odtlab.solvers.quantbnb import QuantBnBSolver, prepare
from odtlab.tree import Tree

INITIAL4 = ("greedy", "cart", "leaf")
#: An alive tuple: root feature f, root thresholds strictly between ranks a and b, the lower bounds lbL(a) and
#: lbR(b) (Proposition 2) and the exact trees of L(a) and R(b) when known (warm starts), else None.
Slice4 = namedtuple("Slice4", "f a b lbLa lbRb treeA treeB")


class QuantBnB4Solver(Solver):
    """Depth-4 Quant-BnB (module docstring): the alive tuples (:data:`Slice4`), U and the incumbent tree.

    ``inner`` holds the options of the depth-3 searches (``s``, ``lower_bound``, ``sprime_ratio``,
    ``similarity``), which also set the outer s.
    """

    name = "quantbnb"
    sense = "min"
    exact = True
    events_per_iteration = 0

    def __init__(self, X, y, s=3, lower_bound="W0", sprime_ratio=0.6, similarity=True, initial="greedy",
                 n_classes=None, feature_names=None, classes=None):
        if initial not in INITIAL4:
            raise ValueError(f"initial must be one of {', '.join(map(repr, INITIAL4))}, got {initial!r}")
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.shape[0] < 2:
            raise ValueError(f"Quant-BnB needs at least 2 samples, got n_samples={X.shape[0]}")
        if not np.isfinite(X).all():
            raise ValueError("X holds NaN or infinity; Quant-BnB needs finite feature values")
        self.X, self.y = X, np.asarray(y, dtype=np.int64).reshape(-1)
        self.K = int(n_classes if n_classes is not None else self.y.max() + 1)
        self.s, self.feature_names, self.classes = int(s), feature_names, classes
        self.task, self.cls, self.depth, self.n_features = "classification", True, 4, X.shape[1]  # for the trees
        self.inner = dict(s=self.s, lower_bound=lower_bound, sprime_ratio=sprime_ratio, similarity=similarity)
        self.kept, self.values, self.rank, _ = prepare(X)
        self.u = [len(v) for v in self.values]
        self.tree = self._cart_tree(self.y) if initial != "leaf" else self._leaf_tree()
        self.U = int(self.tree.misclassifications(X, self.y))
        self.alive = deque(Slice4(f, 0, self.u[f], 0.0, 0.0, None, None) for f in range(len(self.kept)))
        if initial == "greedy" and self.tree.n_nodes > 1:  # CART's root threshold first: two exact depth-3 solves
            f = self.kept.index(int(self.tree.feature[0]))
            t = int(np.searchsorted(self.values[f], self.tree.threshold[0], side="right"))
            self.alive.appendleft(Slice4(f, t - 1, t + 1, 0.0, 0.0, None, None))
        self.cur = None  # the tuple being processed (``_begin``)
        self.job = None  # the inner solve running: (side, k, cutoff, known bound, solver)
        self.probe = inner_solver(self, np.arange(2))  # a depth-3 solver whose kernel call types every call
        self.counts = dict(steps=0, inner_solves=0, inner_iterations=0, inner_cut_off=0, tuples=0, pruned=0,
                           rounds=1, incumbents=0, warm_starts=0)
        self.round_end = len(self.alive)

    # -- Solver contract ---------------------------------------------------------------------------
    def kernel(self, level):
        """The depth-3 kernel at level none, whatever ``level`` (no events at depth 4)."""
        return LevelKernel(kernels.quantbnb3_kernel, core_events.LEVEL_NONE)

    def advance(self, kernel, events, max_iterations):
        """Run inner depth-3 iterations until ``max_iterations`` are spent or the search ends; no events."""
        start, called = self.counts["steps"], False
        while self.counts["steps"] - start < max_iterations and (self.job is not None or self._next_job()):
            inner = self.job.solver
            if not inner.finished and inner.fst[kernels.F_U] > self.job.known:
                before, called = inner.iterations, True
                _, status = inner.advance(kernel, events, max_iterations - (self.counts["steps"] - start))
                if status == core_events.STATUS_GROW:
                    inner.grow()
                self.counts["steps"] += inner.iterations - before
                self.counts["inner_iterations"] += inner.iterations - before
            if inner.finished or inner.fst[kernels.F_U] <= self.job.known:  # exact (Lemma 1: OPT3 >= known)
                self.counts["steps"] += 1
                self._finish_job()
        if not called:  # the kernel call that types this one's arguments (``odtlab.warmup.kernel_signature``)
            self.probe.advance(kernel, events, 0)
        return 0, (core_events.STATUS_DONE if self.finished else core_events.STATUS_BUDGET)

    def grow(self):
        return True  # the inner solvers grow their own arrays (``advance``)

    @property
    def iterations(self):
        return self.counts["steps"]

    @property
    def finished(self):
        return self.cur is None and not self.alive

    def bounds(self):
        """(lower, upper): min(U, the bounds of the alive tuples and of the tuple in progress), and U."""
        tuples = list(self.alive) + ([self.cur.tuple] if self.cur is not None else [])
        lower = min([self.U] + [t.lbLa + t.lbRb for t in tuples])
        return float(lower), float(self.U)

    def certificate(self):
        from odtlab import certificate
        return certificate.exact_certificate(self.tree.misclassifications(self.X, self.y), self.U)

    def incumbent(self):
        return self.tree

    def stats(self):
        return {**self.counts, "s": self.s, "lower_bound_kind": self.inner["lower_bound"], "depth": 4,
                "alive": len(self.alive)}

    def nbytes(self):
        inner = self.job.solver.nbytes() if self.job is not None else 0
        return int(self.rank.nbytes + inner + 64 * (len(self.alive) + 2 * self.s))

    # -- the outer search (module docstring) ---------------------------------------------------------
    def _begin(self):
        """Take the next alive tuple that Proposition 2 does not prune; False when none is left."""
        while self.alive:
            if self.round_end <= 0:
                self.counts["rounds"] += 1
                self.round_end = len(self.alive)
            self.round_end -= 1
            t = self.alive.popleft()
            if t.lbLa + t.lbRb >= self.U:  # U may have fallen since the tuple was made
                self.counts["pruned"] += 1
                continue
            a, b = t.a, t.b
            self.counts["tuples"] += 1
            if b - a <= self.s:  # the exhaustive box: every rank of [a, b]
                pts = np.arange(a, b + 1)
            else:
                pts = np.empty(self.s + 1, np.int64)
                kernels.quantile_points(a, b, self.s, pts)
            m = len(pts) - 1
            lbL, lbR = np.full(m + 1, t.lbLa), np.full(m + 1, t.lbRb)
            self.cur = SimpleNamespace(tuple=t, f=t.f, pts=pts, m=m, side=0, k=1, lbL=lbL, lbR=lbR,
                                       exactL=[t.treeA] + [None] * m, exactR=[None] * m + [t.treeB])
            return True
        return False

    def _next_job(self):
        """Start the next inner solve of the current tuple (Corollary 3 decides which), finishing tuples on the
        way; False when the search is over."""
        while True:
            if self.cur is None and not self._begin():
                return False
            c = self.cur
            if c.side == 0:  # left sides at t_1, t_2, ... until the cut-off
                if c.k < c.m and c.lbL[c.k - 1] + c.lbR[c.m] < self.U:
                    self._start(0, c.k, self.U - c.lbR[c.m], c.lbL[c.k - 1])
                    return True
                # Corollary 3 when c.k < c.m: every threshold from t_{k-1} on is pruned; bounds stay monotone
                np.maximum(c.lbL[c.k:], c.lbL[c.k - 1], out=c.lbL[c.k:])
                c.side, c.k = 1, c.m - 1
                continue
            if c.k >= 1:  # right sides at t_{m-1}, ..., t_1, each unless its slice is pruned
                k = c.k
                if c.lbL[k - 1] + c.lbR[k + 1] < self.U:
                    self._start(1, k, self.U - c.lbL[k - 1], c.lbR[k + 1])
                    return True
                c.lbR[k] = max(c.lbR[k], c.lbR[k + 1])  # Lemma 1
                c.k -= 1
                continue
            self._refine()
            self.cur = None

    def _start(self, side, k, cutoff, known):
        c = self.cur
        go_left = self.rank[c.f] <= c.pts[k]
        rows = np.flatnonzero(go_left if side == 0 else ~go_left)
        solver = inner_solver(self, rows)
        self._warm_start(solver, c.exactL[k - 1::-1] if side == 0 else c.exactR[k + 1:])
        if solver.fst[kernels.F_U] > cutoff:  # prune against the cutoff (Corollary 3)
            solver.fst[kernels.F_U] = cutoff
        self.job = SimpleNamespace(side=side, k=k, cutoff=cutoff, known=known, solver=solver)
        self.counts["inner_solves"] += 1

    def _warm_start(self, solver, neighbours):
        """Start an inner search from the nearest exact tree of the same side (the first of ``neighbours`` that is
        not None), its leaves refitted to the new set, when it beats the search's greedy tree."""
        tree = next((n[0] for n in neighbours if n is not None), None)
        if tree is None or solver.finished:
            return
        tree = Tree.from_dict(tree.to_dict(), self.X.shape[1], task="classification",
                              classes=np.arange(self.K)).fit_leaves(solver.X, solver.y)
        loss = tree.misclassifications(solver.X, solver.y)
        if loss < solver.fst[kernels.F_U]:
            solver._initial, solver.fst[kernels.F_U] = tree, loss
            self.counts["warm_starts"] += 1

    def _finish_job(self):
        """Store what the inner solve returned: its exact optimum and tree, or the certified bound OPT3 >= cutoff
        (its incumbent never fell below the cutoff). Monotone bounds from the neighbour (Lemma 1)."""
        job, c = self.job, self.cur
        inner = job.solver
        value = float(inner.fst[kernels.F_U])
        exact = value < job.cutoff  # below the cutoff, the search (or its stop at the known bound) is exact
        if job.side == 0:
            c.lbL[job.k] = max(value, c.lbL[job.k - 1], c.lbL[job.k])
            c.exactL[job.k] = (inner.incumbent(), int(value)) if exact else None
            c.k += 1
        else:
            c.lbR[job.k] = max(value, c.lbR[job.k + 1], c.lbR[job.k])
            c.exactR[job.k] = (inner.incumbent(), int(value)) if exact else None
            c.k -= 1
            if c.exactL[job.k] is not None and c.exactR[job.k] is not None:
                self._offer(job.k)
        self.counts["inner_cut_off"] += not exact
        self.job = None

    def _offer(self, k):
        """The depth-4 tree at point t_k (two exact sides): the new incumbent when its loss is below U."""
        c = self.cur
        (left, eL), (right, eR) = c.exactL[k], c.exactR[k]
        if eL + eR >= self.U:
            return
        root = {"feature": self.kept[c.f], "kind": "threshold", "threshold": self._threshold(c.f, int(c.pts[k])),
                "children": [left.to_dict(), right.to_dict()]}
        self.tree = self._fitted(root)
        self.U = eL + eR
        self.counts["incumbents"] += 1

    def _refine(self):
        """Child tuples: each slice [t_{k-1}, t_k] with a rank strictly inside whose bound lbL(t_{k-1}) + lbR(t_k)
        is below U (Proposition 2)."""
        c = self.cur
        for k in range(1, c.m + 1):
            a, b = int(c.pts[k - 1]), int(c.pts[k])
            if b - a > 1 and c.lbL[k - 1] + c.lbR[k] < self.U:
                self.alive.append(Slice4(c.f, a, b, c.lbL[k - 1], c.lbR[k], c.exactL[k - 1], c.exactR[k]))

    # -- trees: the depth-2/3 solver's, on the same attributes (X, y, K, values, kept, task, depth, names)
    _threshold = QuantBnBSolver._threshold
    _fitted = QuantBnBSolver._fitted
    _leaf_tree = QuantBnBSolver._leaf_tree
    _cart_tree = QuantBnBSolver._cart_tree


def inner_solver(outer, rows):
    """A depth-3 Quant-BnB search on ``rows`` of the outer problem, with the outer options and classes (a single
    row is given twice: its loss is 0 either way)."""
    rows = np.repeat(rows, 2) if len(rows) == 1 else rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant features of the subset are dropped with a warning
        return QuantBnBSolver(outer.X[rows], outer.y[rows], depth=3, n_classes=outer.K, **outer.inner)
