"""Chapter 01's exercises: solutions by hand-written formulas on the data (not the checkers' code)."""
from fractions import Fraction

import numpy as np

from odtlab import datasets


def _gini(labels):
    p = np.bincount(labels, minlength=2) / len(labels)
    return 1 - (p ** 2).sum()


def _pathological():
    d = datasets.load("gen/dpdt-pathological")
    go = d.X[:, 1] <= 0.5
    return _gini(d.y), go.mean() * _gini(d.y[go]), (~go).mean() * _gini(d.y[~go]), _gini(d.y[go]), _gini(d.y[~go])


def solution_01_4():
    parent, left, right, _, _ = _pathological()
    return parent - left - right


def wrong_01_4():
    parent, left, right, gl, gr = _pathological()
    return [(parent, "impurity of the root"), (left + right, "weighted impurity"),
            (parent - (gl + gr) / 2, "share of the rows"), (0.0, "smaller than")]


def _strip_split():
    d = datasets.load("gen/xor-dpdt")
    strip = d.X[:, 1] <= 0.2
    X, y = d.X[strip], d.y[strip]
    order = np.argsort(X[:, 0], kind="mergesort")  # the best Gini cut of x0 in the strip, by scanning
    xs, ys = X[order, 0], y[order]
    best = max((_gini(y) - (k * _gini(ys[:k]) + (len(ys) - k) * _gini(ys[k:])) / len(ys), k)
               for k in range(1, len(ys)) if xs[k] > xs[k - 1])
    return 0, float((xs[best[1] - 1] + xs[best[1]]) / 2)


def wrong_01_3():
    f, t = _strip_split()
    return [((1, t), "not x1"), ((0, 0.5), "population's cut"), ((0, 0.2), "threshold is not"), ("x0", "as a pair")]


CASES = {
    # the chapter's optimal depth-2 tree on the six points: x0 <= 0.5, then x1 <= 1.5 on both sides;
    # every row passes 2 splits, 0 errors
    "01.1": (lambda: (2, Fraction(2, 10)),
             lambda: [((3, Fraction(3, 10)), "number of split nodes"), ((2, Fraction(3, 10)), "per split node"),
                      ((4, Fraction(2, 10)), "not leaves"), ((Fraction(11, 6), Fraction(11, 60)), "recursion"),
                      (0.2, "as a pair")]),
    "01.4": (solution_01_4, wrong_01_4),
    "01.3": (_strip_split, wrong_01_3),
    # leaf error 1/2 (three rows of each class); the perfect tree has C = 2, so 0 + 2α = 1/2 at α = 1/4,
    # and no depth-2 tree with errors does better (the checker's Dinkelbach iteration finds the same)
    "01.2": (lambda: Fraction(1, 4),
             lambda: [(Fraction(1, 2), "1 − 1/K"), (Fraction(1, 6), "number of split nodes"),
                      (Fraction(1, 11), "CART's depth-2 tree"), (Fraction(1, 3), "larger than")]),
}

