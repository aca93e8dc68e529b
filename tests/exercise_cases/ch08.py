"""Chapter 08's exercises: solutions by hand from the six points and from DPDT's path, not from the
checkers."""
from fractions import Fraction

import numpy as np

from odtlab import datasets
from odtlab.solvers.dpdt import DPDTClassifier


def _example():
    d = datasets.load("gen/dpdt-example")
    return np.asarray(d.X, dtype=float), np.asarray(d.y)


def _errors(y):
    return Fraction(int(len(y) - np.bincount(y, minlength=2).max()), len(y)) if len(y) else Fraction(0)


def _q(alpha):
    """Q(s0, x0 <= 2) by hand: the left child (5 rows) takes the better of its leaf and its CART split at
    depth 1 (x0 <= 0.5), the right child (1 row) is pure."""
    X, y = _example()
    left = X[:, 0] <= 2
    yl, Xl = y[left], X[left]
    inner = Xl[:, 0] <= 0.5
    split = -alpha - (Fraction(int(inner.sum()), len(yl)) * _errors(yl[inner])
                      + Fraction(int((~inner).sum()), len(yl)) * _errors(yl[~inner]))
    v_left = max(-_errors(yl), split)
    p = Fraction(int(left.sum()), len(y))
    return -alpha + p * v_left + (1 - p) * -_errors(y[~left])


def solution_08_4():
    """T = DPDT's tree at α = 0 against the leaf: err(leaf) = err(T) + α C(T) at the answer."""
    X, y = _example()
    tree = DPDTClassifier(max_depth=2, candidates=(3,)).fit(X, y).tree_
    return (_errors(y) - Fraction(tree.misclassifications(X, y), len(y))) / Fraction(str(tree.expected_splits(X)))


CASES = {
    "08.1": (lambda: _q(Fraction(0)), lambda: [(Fraction(-2, 5), "share of the rows"),
                                               (Fraction(-1, 2), "leaf action"), (Fraction(-1, 5), "not equally"),
                                               (0, "other candidate")]),
    "08.2": (lambda: _q(Fraction(1, 10)), lambda: [(Fraction(-1, 3), "reward is −α"),
                                                   (Fraction(-5, 12), "not weighted by p"),
                                                   (Fraction(-8, 15), "only the root's split")]),
    "08.3": (lambda: (0, 0.5), lambda: [((0, 2.0), "greedy root"), ((1, 1.5), "not among the root's candidates"),
                                        ("x0 <= 0.5", "as a tuple"), ((0, 1.0), "compare their Q")]),
    "08.4": (solution_08_4, lambda: [(Fraction(1, 6), "expected number of splits"), (Fraction(1, 2), "solve 0 + 2α"),
                                     (Fraction(1, 3), "C(T) = 2")]),
}
