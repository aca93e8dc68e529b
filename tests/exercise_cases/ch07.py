"""Chapter 07's exercises: solutions from the Quant-BnB solver's events and by enumeration, not from the
checkers."""
import numpy as np

from odtlab import datasets
from odtlab.search import Search
from odtlab.solvers.quantbnb import QuantBnBSolver


def _table4():
    d = datasets.load("gen/quantbnb-example")
    return np.asarray(d.X, dtype=float), np.asarray(d.y), list(d.feature_names)


def solution_07_1():
    X, _, _ = _table4()
    p = X.shape[1]
    return sum(len(np.unique(X[:, f])) + 1 for f in range(p)) * p * p


def _stump(X, y, f):
    """Fewest errors of one cut on feature f (or none), by trying every cut."""
    if len(y) == 0:
        return 0
    best = len(y) - np.bincount(y).max()
    for t in np.unique(X[:, f]):
        left = X[:, f] <= t
        best = min(best, sum(len(y[m]) - np.bincount(y[m]).max() for m in (left, ~left) if m.any()))
    return int(best)


def solution_07_3():
    X, y, _ = _table4()
    order = np.argsort(X[:, 0], kind="stable")
    left, right = order[:2], order[-1:]  # slice [2, 4] of x1: samples {1, 2} left of it, {6} right of it
    return _stump(X[left], y[left], 2) + _stump(X[right], y[right], 1)


def solution_07_4():
    """The right-child features of slice 1 that the solver does not eliminate (its own events, U = 1)."""
    X, y, names = _table4()
    solver = QuantBnBSolver(X, y, task="classification", n_classes=int(y.max()) + 1, s=2, lower_bound="W0",
                            keep_ties=True, similarity=False, initial="cart", feature_names=names)
    search = Search(solver.start_from([(0, 1, 4, [1, 2], [1, 2])], 1.0), record="full")
    gone = {names[e.child_feature] for e in search.steps()
            if e.name == "FeatureEliminated" and e.j == 1 and e.side == 1}
    return {"x2", "x3"} - gone


CASES = {
    "07.1": (solution_07_1, lambda: [(126, "u(f0) + 1"), (51, "p² feature pairs"), (4913, "whole trees"),
                                     (99, "t = 0 and t = u(f)")]),
    "07.2": (lambda: [1, 2, 4], lambda: [([1, 2.5, 4], "round"), ([1, 3, 4], "rounds down"),
                                         ([1, 4], "3 points"), ((0, 2, 4), "t_0 = a")]),
    "07.3": (solution_07_3, lambda: [(0, "subscripts swapped"), (2, "middle block is dropped"),
                                     (3, "middle block is dropped"), ("one", "should be a number")]),
    "07.4": (solution_07_4, lambda: [({"x2", "x3"}, "column minimum"), (set(), "at least one"),
                                     ({"x3"}, "smallest W0"), ({"x1"}, "cannot be among"),
                                     ("x2", "set of names")]),
}
