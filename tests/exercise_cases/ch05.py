"""Chapter 05's exercises: solutions from the encoders and the Branches solver, not from the checkers."""
from fractions import Fraction
import itertools

import numpy as np

from odtlab import datasets
from odtlab.encoders import one_hot
from odtlab.solvers.branches import BranchesClassifier


def solution_05_1():
    d = datasets.load("branches/monk1-o")
    return one_hot(d.X, [int(c) for c in d.n_categories], "first")[0].shape[1]


def solution_05_2():
    toy = datasets.load("gen/encoding-toy")
    Xb = one_hot(toy.X, [int(c) for c in toy.n_categories], None)[0]
    return Fraction(BranchesClassifier(lam="0.1").fit(Xb, toy.y).result_.objective).limit_denominator(1000)


def solution_05_3():
    q, C = 2, 3
    grid = np.array(list(itertools.product(range(C), repeat=q)))
    width = one_hot(grid, [C] * q, "last")[0].shape[1]
    owner = np.repeat(np.arange(q), C - 1)
    return sum(1 for tests in itertools.product((None, 0, 1), repeat=width)
               if any(sum(t is not None for t, o in zip(tests, owner) if o == i) >= 2 for i in range(q)))


CASES = {
    "05.1": (solution_05_1, lambda: [(17, "full one-hot"), (6, "ordinal features"), (16, "per feature, not one in total"),
                                     ("11 columns", "should be a number")]),
    "05.2": (solution_05_2, lambda: [(Fraction(9, 10), "ordinal optimum"), (Fraction(7, 10), "three splits"),
                                     (1, "costs λ"), (Fraction(1, 2), "single leaf")]),
    "05.3": (solution_05_3, lambda: [(81, "every branch"), (25, "the others"), (0, "not all empty"),
                                     (680, "full one-hot")]),
}
