"""Chapter 07 (Quant-BnB) on the Table 4 data of Appendix A (gen/quantbnb-example): the size of the search
space, the almost equi-spaced points, W0 of one slice and the child features that survive it."""
import functools

import numpy as np

from odtlab import datasets
from odtlab.bruteforce import continuous_optimum
from odtlab.exercises.base import Reject, accept, as_int, exercise, judge, reject

A2 = (0, 1, 4)  # the Appendix A.2 tuple: root x1, root threshold ranks [1, 4]; children on x2 or x3
CHILD = (1, 2)


@functools.lru_cache(maxsize=None)
def _table4():
    d = datasets.load("gen/quantbnb-example")
    return np.asarray(d.X, dtype=float), np.asarray(d.y), list(d.feature_names)


def distinct(f):
    X, _, _ = _table4()
    return len(np.unique(X[:, f]))


@exercise("07.1", "Triples in the first alive list")
def first_triples(answer):
    """AL(0) = {(f0, [0, u(f0)], [p], [p])}: sum over f0 of (u(f0) + 1) p^2 triples (eq. 17)."""
    X, _, _ = _table4()
    p = X.shape[1]
    u = [distinct(f) for f in range(p)]
    reference = sum(v + 1 for v in u) * p * p
    return judge(as_int(answer, "the number of triples"), reference, [
        (sum(u) * p * p, "root thresholds run over t = 0..u(f0): u(f0) + 1 of them, not u(f0)."),
        (sum(v + 1 for v in u) * p, "a triple picks a root threshold, a left feature and a right feature: p² "
                                    "feature pairs per threshold."),
        (sum(v + 1 for v in u) ** 3, "that counts whole trees with their child thresholds; a triple leaves the "
                                     "child thresholds to the stumps."),
        (sum(v - 1 for v in u) * p * p, "the thresholds include t = 0 and t = u(f) (every row to one side), "
                                        "u(f) + 1 per feature."),
    ], f"u = {u}: Σ (u(f0) + 1)·p² = {sum(v + 1 for v in u)}·{p * p} = {reference}.",
        "count the root thresholds (u(f0) + 1 per feature) times the p² pairs of child features")


def equispaced(a, b, s):
    """Almost s-equi-spaced points of [a, b]: t_j = floor(a + j (b - a) / s), j = 0..s (§3.1)."""
    return [int(np.floor(a + j * (b - a) / s)) for j in range(s + 1)]


@exercise("07.2", "Almost equi-spaced points")
def quantile_points(answer):
    """The points t_0..t_s that cut the root interval [1, 4] of the A.2 tuple with s = 2."""
    if not isinstance(answer, (list, tuple)):
        raise Reject(f"give the points as a list [t_0, ..., t_s]; you gave {answer!r}.")
    _, a, b = A2
    reference = equispaced(a, b, 2)
    if list(answer) == reference:
        return accept(f"t_j = ⌊a + j(b − a)/s⌋ gives {reference}: slices [1, 2] and [2, 4].")
    if len(answer) != 3:
        return reject("s = 2 gives s + 1 = 3 points, t_0 = a and t_2 = b included.")
    if list(answer) == [a, a + (b - a) / 2, b]:
        return reject("the points are ranks, whole numbers: round a + j(b − a)/s down.")
    if list(answer) == [a, int(np.ceil(a + (b - a) / 2)), b]:
        return reject("the paper rounds down (floor), not up.")
    return reject(f"t_0 = a = {a}, t_s = b = {b}, and t_j = ⌊a + j(b − a)/s⌋ in between.")


def stump_loss(rows, f):
    """L1(I, f): the fewest misclassifications of a one-split tree on feature f over the rows (eq. 6)."""
    X, y, _ = _table4()
    if not rows.any():
        return 0
    return int(continuous_optimum(X[rows][:, [f]], y[rows], 1).value)


def w0(j_slice, f1, f2):
    """W0 of (x1, [t_{j-1}, t_j], f1, f2) (eq. 9): L1 of the rows left of the slice on f1 + L1 of the rows
    right of it on f2 (the middle rows are dropped)."""
    X, _, _ = _table4()
    rank = np.unique(X[:, A2[0]], return_inverse=True)[1] + 1
    t = equispaced(A2[1], A2[2], 2)
    lo, hi = t[j_slice - 1], t[j_slice]
    return stump_loss(rank <= lo, f1) + stump_loss(rank > hi, f2)


@exercise("07.3", "W0 of a slice")
def w0_value(answer):
    """W0(φ²_{x3,x2}): slice 2 = [2, 4] of the A.2 tuple, left child on x3, right child on x2."""
    reference = w0(2, 2, 1)
    return judge(as_int(answer, "W0"), reference, [
        (w0(2, 1, 2), "that is the value Appendix A.2 prints for φ²_{3,2}, with the subscripts swapped: the left "
                      "block is scored on f1 = x3, the right block on f2 = x2 (docs/errata.md, Quant-BnB Q2)."),
    ], f"W0 = L1({{1, 2}}, x3) + L1({{6}}, x2) = {reference}.",
        "W0 = L1(rows left of the slice, f1) + L1(rows right of it, f2): the middle block is dropped; slice 2 = "
        "[2, 4] leaves samples {1, 2} on the left and {6} on the right")


@exercise("07.4", "Which right-child features survive W0")
def surviving_features(answer):
    """Slice 1 = [1, 2] of the A.2 tuple with U = 1 (ties kept): F_{2,1} = {f2 : min_{f1} W0 <= U} (eq. 15)."""
    if not isinstance(answer, (set, frozenset, list, tuple)):
        raise Reject(f"give the surviving features as a set of names (strings such as 'x1'); you gave {answer!r}.")
    _, _, names = _table4()
    U = 1
    column_min = {names[f2]: min(w0(1, f1, f2) for f1 in CHILD) for f2 in CHILD}
    reference = {f for f, m in column_min.items() if m <= U}
    given = set(answer)
    if given == reference:
        return accept(f"column minima of W0 {column_min}; those ≤ U = {U} survive: {sorted(reference)}.")
    if not given <= set(column_min):
        return reject(f"the right child of the A.2 tuple is on x2 or x3; {sorted(given - set(column_min))} "
                      "cannot be among them.")
    if given == {names[f] for f in CHILD}:
        dropped = sorted(set(column_min) - reference)
        return reject(f"{dropped} has column minimum {[column_min[f] for f in dropped]} > U = {U}: every tree with "
                      "that right child costs more than the tree already found.")
    if not given:
        return reject("a feature survives when its column minimum of W0 is ≤ U; at least one does here.")
    return reject(f"compare each right feature's smallest W0 over the left features with U = {U}: "
                  "min_{f1} W0(φ¹_{f1,f2}) ≤ U keeps f2.")
