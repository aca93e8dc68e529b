"""Chapter 04's exercises: the formulas written out term by term."""
from fractions import Fraction
import math

from odtlab import datasets
from odtlab.solvers.branches import BranchesClassifier


def _kappa_parts():
    d = datasets.load("branches/tic-tac-toe-o")
    est = BranchesClassifier(lam=0.1).fit(d.X, d.y)
    h = Fraction(int((est.predict(d.X) == d.y).sum()), d.n_samples)
    return est.tree_.splits, h, d.n_features


def solution_04_1():
    s, h, q = _kappa_parts()
    return min(math.floor(s - 1 + (1 - h) * 10), q)


def wrong_04_1():
    s, h, q = _kappa_parts()
    return [(s - 1 + (1 - h) * 10, "take the floor"), (math.floor(s + (1 - h) * 10), "left out the − 1"),
            (min(math.floor(s - 1 + h * 10), q), "error mass"), (q, "capped at q")]


CASES = {
    "04.1": (solution_04_1, wrong_04_1),
    # (K-1)/(K λ) = 2/0.3 = 6.67 -> 6 - 1 = 5; printed: 1/0.3 = 3.33 -> 3 - 1 = 2
    "04.2": (lambda: 5, lambda: [(2, "as the paper prints it"), (6, "left out the − 1"),
                                 (Fraction(17, 3), "take the floor"), (8, "larger than")]),
    # h = 0: 4·3·1 = 12; h = 1: 3·9·4 = 108; h = 2: 2·27·6 = 324
    "04.3": (lambda: 444, lambda: [(432, "starts at h = 0"), (148, "C^(h+1)"), (120, "up to κ included"),
                                   (201, "(q − h) unused features"), (444.5, "whole number")]),
}
