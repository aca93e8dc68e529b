"""Branch quantities of Branches §1.3 on monk1-o, exact, for the checkers of chapters 02–04.

A branch is a dict {feature: category}; ``H`` is its correctly classified mass n_k*(l)/n, ``P`` its
mass n(l)/n (Branches §1.3), ``R_star`` its optimal value (Prop 4.1), by the brute-force oracle.
"""
from fractions import Fraction
import functools

import numpy as np

from odtlab import datasets
from odtlab.bruteforce import branches_optimum


@functools.lru_cache(maxsize=None)
def monk1():
    return datasets.load("branches/monk1-o")


def rows(branch, data=None):
    data = data or monk1()
    mask = np.ones(data.n_samples, dtype=bool)
    for i, j in branch.items():
        mask &= data.X[:, i] == j
    return mask


def counts(branch, data=None):
    data = data or monk1()
    return np.bincount(data.y[rows(branch, data)], minlength=data.n_classes)


def H(branch, data=None):
    data = data or monk1()
    return Fraction(int(counts(branch, data).max()), data.n_samples)


def P(branch, data=None):
    data = data or monk1()
    return Fraction(int(counts(branch, data).sum()), data.n_samples)


def children(branch, i, data=None):
    data = data or monk1()
    return [{**branch, i: j} for j in range(int(data.n_categories[i]))]


def R_star(branch, lam, data=None):
    """R*(l) (Prop 4.1): the best H_λ of a sub-tree grown from l, by the brute-force oracle on l's rows."""
    data = data or monk1()
    mask = rows(branch, data)
    if not mask.any():
        return Fraction(0)
    free = [i for i in range(data.n_features) if i not in branch]
    # the oracle normalises accuracy by the branch's own n(l) rows; R*(l) normalises it by n, so the
    # penalty per split on the branch's rows is λ·n/n(l), and the value scales back by n(l)/n
    share = Fraction(int(mask.sum()), data.n_samples)
    sub = branches_optimum(data.X[mask][:, free], data.y[mask], Fraction(lam) / share,
                           n_categories=data.n_categories[free])
    return sub.value * share


def name(branch):
    """A branch as the chapters print it: {x0=1, x1=1}, or Ω for the root."""
    return "{" + ", ".join(f"x{i}={j}" for i, j in sorted(branch.items())) + "}" if branch else "Ω"
