"""Chapter 13's exercises: solutions with scikit-learn's StratifiedKFold (the same folds, checked in the
chapter) and cross_validate, not the checkers' code."""
from fractions import Fraction

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_validate

from odtlab import datasets
from odtlab.solvers.branches import BranchesClassifier
from odtlab.solvers.cart import CARTClassifier
from odtlab.solvers.murtree import MurTreeClassifier

FOLDS = StratifiedKFold(5, shuffle=True, random_state=0)
GRID = [0.1, 0.05, 0.025, 0.01, 0.005]


def _fold0():
    d = datasets.load("branches/monk3-o")
    train, test = next(iter(FOLDS.split(d.X, d.y)))
    est = BranchesClassifier(lam=0.025).fit(d.X[train], d.y[train])
    acc = Fraction(int((est.predict(d.X[train]) == d.y[train]).sum()), len(train))
    test_acc = Fraction(int((est.predict(d.X[test]) == d.y[test]).sum()), len(test))
    return acc, test_acc, est.tree_.splits, est.tree_.leaves


def solution_13_1():
    acc, _, s, _ = _fold0()
    return acc - Fraction(25, 1000) * s


def wrong_13_1():
    acc, test_acc, s, leaves = _fold0()
    lam = Fraction(25, 1000)
    return [(acc, "accuracy alone"), (test_acc - lam * s, "not its test rows"), (acc - lam * leaves, "not per leaf")]


def _means():
    d = datasets.load("branches/monk3-o")
    out = [cross_validate(BranchesClassifier(lam=lam), d.X, d.y, cv=FOLDS, return_train_score=True) for lam in GRID]
    return np.array([o["test_score"].mean() for o in out]), np.array([o["train_score"].mean() for o in out])


def solution_13_2():
    test, _ = _means()
    return max(lam for lam, m in zip(GRID, test) if m == test.max())


def wrong_13_2():
    test, train = _means()
    tied = [lam for lam, m in zip(GRID, test) if m == test.max()]
    assert len(tied) >= 2, "the exercise is about the tie-break"
    return [(min(tied), "ties for the best"), (GRID[int(train.argmax())], "best training accuracy"),
            (0.001, "grid's values"), (GRID[int(test.argmin())], "compare the mean test accuracy")]


def _diffs():
    d = datasets.load("dl/heart-cleveland")
    out = []
    for train, test in FOLDS.split(d.X, d.y):
        a = [MurTreeClassifier(max_depth=3).fit(d.X[train], d.y[train]),
             CARTClassifier(max_depth=3).fit(d.X[train], d.y[train])]
        out.append([[int((m.predict(d.X[i]) == d.y[i]).sum()) for i in (train, test)] for m in a])
    return [(o[0] - c[0], o[1] - c[1]) for o, c in out]


def solution_13_3():
    return {k for k, (tr, te) in enumerate(_diffs()) if tr > 0 and te < 0}


def wrong_13_3():
    ref = solution_13_3()
    assert 0 < len(ref) < 5
    return [(set(range(5)), "not worse on the test rows"), ({min(ref)}, "you missed"),
            ({7}, "numbered 0 to 4"), ("0, 2", "as a set")]


CASES = {"13.1": (solution_13_1, wrong_13_1), "13.2": (solution_13_2, wrong_13_2), "13.3": (solution_13_3, wrong_13_3)}
