"""Reference solutions and plausible wrong answers for chapter 02's exercises (monk1-o)."""
from fractions import Fraction

import numpy as np

from odtlab import datasets


def _monk1():
    return datasets.load("branches/monk1-o")


def _branch_02_1():
    d = _monk1()
    in_l = (d.X[:, 0] == 0) & (d.X[:, 1] == 1)
    c = np.bincount(d.y[in_l], minlength=d.n_classes)
    return int(c.max()), int(c.min()), int(in_l.sum()), d.n_samples


def solution_02_1():
    top, _, size, n = _branch_02_1()
    return Fraction(top, n), Fraction(size, n)


def wrong_02_1():
    top, low, size, n = _branch_02_1()
    return [
        ((Fraction(size, n), Fraction(top, n)), "swapped"),
        ((top, size), "fractions of all n"),
        ((Fraction(top, size), Fraction(size, n)), "fractions of all n"),
        ((Fraction(low, n), Fraction(size, n)), "majority"),
        (Fraction(top, n), "pair"),
    ]


CASES = {"02.1": (solution_02_1, wrong_02_1)}


def _x4_children():
    d = _monk1()
    tops = [int(np.bincount(d.y[d.X[:, 4] == j], minlength=2).max()) for j in range(4)]
    sizes = [int((d.X[:, 4] == j).sum()) for j in range(4)]
    return sum(tops), sum(sizes), int(np.bincount(d.y).max()), d.n_samples


def solution_02_2():
    tops, _, _, n = _x4_children()
    return Fraction(tops, n) - Fraction(1, 100)


def wrong_02_2():
    tops, sizes, root, n = _x4_children()
    lam = Fraction(1, 100)
    return [(Fraction(tops, n), "reward −λ"), (Fraction(tops, n) - 4 * lam, "once per split"),
            (Fraction(root, n) - lam, "not the root's"), (Fraction(sizes, n) - lam, "not P(l)")]


def solution_02_3():
    tops, _, root, n = _x4_children()
    return Fraction(tops - root, n)


def wrong_02_3():
    tops, _, root, n = _x4_children()
    return [(Fraction(tops, n), "compare with the leaf"), (Fraction(tops - root, 4 * n), "do not divide"),
            (tops - root, "do not multiply by n"), (Fraction(1, 100), "smaller than")]


CASES.update({"02.2": (solution_02_2, wrong_02_2), "02.3": (solution_02_3, wrong_02_3)})
