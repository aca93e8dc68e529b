"""Chapter 06 (MurTree's depth-two solver) on its six-instance example (gen/murtree-example): the class
frequency table, a leaf by inclusion-exclusion, the best depth-one tree and the similarity bound."""
import functools

import numpy as np

from odtlab import datasets
from odtlab.exercises.base import Reject, accept, as_int, exercise, judge, reject


@functools.lru_cache(maxsize=None)
def _toy():
    d = datasets.load("gen/murtree-example")
    return np.asarray(d.X, dtype=np.int64), np.asarray(d.y), list(d.feature_names)


def frequency_table(k):
    """FQ^k: pair counts of class k off the diagonal, single counts on it (X_k^T X_k)."""
    X, y, _ = _toy()
    return X[y == k].T @ X[y == k]


@exercise("06.1", "Fill the depth-two frequency table of class 1")
def class_one_table(answer):
    """FQ^1(f_i, f_j) for the features a, b, c, as a 3 x 3 matrix (diagonal: FQ^1(f_i))."""
    X, y, names = _toy()
    try:
        table = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise Reject(f"give a 3 × 3 matrix (a list of 3 lists of 3 counts); you gave {answer!r}.")
    if table.shape != (3, 3):
        raise Reject(f"the table is 3 × 3 (features {', '.join(names)} on both sides); yours has shape {table.shape}.")
    ref = frequency_table(1)
    if (table == ref).all():
        return accept(f"FQ^1 = X_1ᵀX_1 = {ref.tolist()}: class 1 is {int((y == 1).sum())} instances; the diagonal "
                      "holds the single counts, the rest the pair counts.")
    if (table == frequency_table(0)).all():
        return reject("that is the table of class 0: count only the instances whose label is 1.")
    if (table == X.T @ X).all():
        return reject("those are the counts over all instances: MurTree keeps one table per class.")
    if (np.diag(table) == np.diag(ref)).all() and not (table == table.T).all():
        return reject("the table is symmetric: FQ(f_i, f_j) and FQ(f_j, f_i) count the same instances.")
    wrong = [(names[i], names[j]) for i in range(3) for j in range(3) if table[i, j] != ref[i, j]]
    if all(i == j for i, j in wrong):
        return reject("the off-diagonal cells are right; the diagonal holds the single counts FQ^1(f_i), the "
                      f"class-1 instances with f_i = 1 (check {', '.join(a for a, _ in wrong)}).")
    return reject(f"cell(s) {', '.join(f'({a}, {b})' for a, b in wrong)} are off: count the class-1 instances with "
                  "both features equal to 1.")


@exercise("06.2", "A leaf by inclusion–exclusion")
def inclusion_exclusion(answer):
    """FQ^0(a, b̄): class-0 instances with a = 1 and b = 0, from the class-0 table only (Eq. 3)."""
    F = frequency_table(0)
    reference = int(F[0, 0] - F[0, 1])
    return judge(as_int(answer, "the count"), reference, [
        (int(F[0, 1]), "FQ(a, b) counts b = 1; Eq. 3 subtracts it from the single count: FQ(a) − FQ(a, b)."),
        (int(F[1, 1] - F[0, 1]), "that is FQ(ā, b) = FQ(b) − FQ(a, b) (Eq. 4); the leaf asks for a = 1, b = 0."),
        (int(F[0, 0]), "FQ(a) counts every class-0 instance with a = 1, also those with b = 1: subtract FQ(a, b)."),
    ], f"FQ^0(a, b̄) = FQ^0(a) − FQ^0(a, b) = {F[0, 0]} − {F[0, 1]} = {reference}.",
        "Eq. 3: FQ(f_i, f̄_j) = FQ(f_i) − FQ(f_i, f_j)")


@exercise("06.3", "The best depth-two tree with two feature nodes")
def two_node_tree(answer):
    """T(D, 2, 2): the fewest misclassifications of a tree of depth 2 with at most 2 feature nodes; a root
    split and one child split, whose four leaves the counts give (Eq. 2-6)."""
    from odtlab.bruteforce import binary_optimum

    X, y, _ = _toy()
    reference = int(binary_optimum(X, y, 2, 2).value)
    one = int(binary_optimum(X, y, 1).value)
    return judge(as_int(answer, "the misclassifications"), reference, [
        (one, f"{one} is the best with one feature node (and also the single leaf here); a second feature node "
              "under one child of the root can fix a mistake."),
        (0, "no depth-two tree makes 0 errors here (with three feature nodes the best still makes 1; depth 3 "
            "reaches 0)."),
        (int(min(np.bincount(y, minlength=2))) + 1, "no tree is worse than the single leaf: its cost is the "
                                                    "minority count."),
    ], f"a root split and one child split leave {reference} misclassified instance(s).",
        "try each root feature and each child feature under its left or right branch; count the minority of "
        "the leaves")


@exercise("06.4", "The similarity lower bound")
def similarity_bound(answer):
    """Eq. 9: D_old = the example, whose best tree with one feature node makes T(D_old) errors; D_new = D_old
    without instance #1. LB(D_new) = T(D_old) − |D_old \\ D_new|."""
    from odtlab.bruteforce import binary_optimum

    X, y, _ = _toy()
    t_old = int(binary_optimum(X, y, 1).value)
    reference = max(t_old - 1, 0)
    return judge(as_int(answer, "the bound"), reference, [
        (t_old, "removing an instance can lower the optimum by one error: subtract |D_old \\ D_new|."),
        (t_old + 1, "a removed instance never adds an error; each can save at most one: subtract it."),
        (t_old - 2, "only one instance was removed: subtract 1, not more."),
    ], f"T(D_old) = {t_old} with one instance removed: LB(D_new) = {t_old} − 1 = {reference} (the true optimum "
       "on D_new may be higher; a bound only has to stay below it).",
        "Eq. 9: LB(D_new) = T(D_old) − |D_old \\ D_new| (only removed instances count)")
