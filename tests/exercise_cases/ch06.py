"""Chapter 06's exercises: solutions by counting the example's rows and from MurTree, not from the checkers."""
import numpy as np

from odtlab import datasets
from odtlab.solvers.murtree import MurTreeClassifier


def _toy():
    d = datasets.load("gen/murtree-example")
    return np.asarray(d.X), np.asarray(d.y)


def solution_06_1():
    X, y = _toy()
    return [[int(((X[:, i] == 1) & (X[:, j] == 1) & (y == 1)).sum()) for j in range(3)] for i in range(3)]


def wrong_06_1():
    X, y = _toy()
    class0 = [[int(((X[:, i] == 1) & (X[:, j] == 1) & (y == 0)).sum()) for j in range(3)] for i in range(3)]
    every = [[int(((X[:, i] == 1) & (X[:, j] == 1)).sum()) for j in range(3)] for i in range(3)]
    bad_diagonal = [row[:] for row in solution_06_1()]
    for i in range(3):
        bad_diagonal[i][i] = 0
    return [(class0, "class 0"), (every, "all instances"), (bad_diagonal, "single counts"), ([1, 2], "3 × 3")]


def solution_06_2():
    X, y = _toy()
    return int(((X[:, 0] == 1) & (X[:, 1] == 0) & (y == 0)).sum())


def solution_06_3():
    X, y = _toy()
    return int(MurTreeClassifier(max_depth=2, max_nodes=2).fit(X, y).result_.objective)


def solution_06_4():
    X, y = _toy()
    return int(MurTreeClassifier(max_depth=1).fit(X, y).result_.objective) - 1


CASES = {
    "06.1": (solution_06_1, wrong_06_1),
    "06.2": (solution_06_2, lambda: [(2, "Eq. 3 subtracts"), (0, "Eq. 4"), (3, "also those with b = 1")]),
    "06.3": (solution_06_3, lambda: [(2, "one feature node"), (0, "no depth-two tree"), (3, "no tree is worse")]),
    "06.4": (solution_06_4, lambda: [(2, "subtract"), (3, "never adds"), (0, "only one instance")]),
}
