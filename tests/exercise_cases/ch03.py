"""Chapter 03's exercises: solutions by counting rows, and from the Branches solver's own events."""
from fractions import Fraction

import numpy as np

from odtlab import datasets
from odtlab.solvers.branches import BranchesClassifier

LAM = Fraction(1, 100)


def _monk1():
    return datasets.load("branches/monk1-o")


def _branch(i, j):
    d = _monk1()
    c = np.bincount(d.y[d.X[:, i] == j], minlength=2)
    return Fraction(int(c.max()), d.n_samples), Fraction(int(c.sum()), d.n_samples), int(c.sum() - c.max()), d.n_samples


def solution_03_1():
    h, p, _, _ = _branch(4, 1)
    return max(h, p - LAM)


def wrong_03_1():
    h, p, _, _ = _branch(4, 1)
    return [(h, "below R*(l)"), (p, "a split costs λ"), (Fraction(21, 100), "R*(l) itself"), (p - h, "below R*(l)")]


def wrong_03_2():
    h, p, e, n = _branch(4, 1)
    return [(Fraction(e, round(p * n)), "not by the branch's own"), (Fraction(e - 1, n), "already ties"),
            (h, "that is H(l)"), ("0.09", "should be a number")]


def _q_x4(value):
    return -LAM + sum(value(*_branch(4, j)[:2]) for j in range(4))


def wrong_03_3():
    return [(_q_x4(lambda h, p: h), "not by H alone"), (_q_x4(lambda h, p: max(h, p - LAM)) + LAM, "costs λ"),
            (_q_x4(lambda h, p: p - LAM), "take the max"), (Fraction(1), "larger than")]


def solution_03_4():
    """The branch at which the solver's Selection of iteration 3 ends, read from its event."""
    d = _monk1()
    search = BranchesClassifier(lam=0.01).search(d.X, d.y)
    event = next(e for e in search.steps() if e.name == "Selection" and e.iteration == 3)
    text = search.describe(event)  # "Selection ends at branch x5=0 (depth 1)"
    tests = text.split("branch ")[1].split(" (")[0].split(" ∧ ")
    return {int(t.split("=")[0][1:]): int(t.split("=")[1]) for t in tests}


CASES = {
    "03.1": (solution_03_1, wrong_03_1),
    "03.2": (lambda: Fraction(_branch(4, 1)[2], _branch(4, 1)[3]), wrong_03_2),
    "03.3": (lambda: _q_x4(lambda h, p: max(h, p - LAM)), wrong_03_3),
    "03.4": (solution_03_4, lambda: [({5: 1}, "smallest G"), ({2: 1}, "follows the split x5"),
                                     ({5: 0, 2: 1}, "follows the split x5"), ("x5=0", "as a dict")]),
}
