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
