"""Chapter 05 (encodings, Branches Appendix C): count a one-hot encoding's columns, the optimum of the
corrected Appendix C example, and the branches Theorem C.1 counts."""
from fractions import Fraction
import functools
import itertools

import numpy as np

from odtlab import datasets
from odtlab.bruteforce import branches_optimum
from odtlab.encoders import one_hot
from odtlab.exercises.base import accept, as_int, as_number, exercise, judge

LAM = Fraction(1, 10)


@functools.lru_cache(maxsize=None)
def _monk1():
    return datasets.load("branches/monk1-o")


@exercise("05.1", "Count the columns of a one-hot encoding")
def one_hot_width(answer):
    """The drop-first one-hot encoding of monk1-o has sum_j (C_j - 1) columns (the paper's monk1-f)."""
    C = [int(c) for c in _monk1().n_categories]
    width = one_hot(np.zeros((1, len(C)), dtype=np.int64), C, "first")[0].shape[1]
    value = as_int(answer, "the number of columns")
    if value == width:
        return accept(f"Σ_j (C_j − 1) = {' + '.join(str(c - 1) for c in C)} = {width}: one indicator per category, "
                      "less the dropped one of each feature (the paper's monk1-f and monk1-l).")
    return judge(value, width, [
        (sum(C), f"{sum(C)} is the full one-hot encoding: dropping the first category removes one column per "
                 "feature."),
        (len(C), f"{len(C)} is the number of ordinal features; one-hot makes one column per category."),
        (sum(C) - 1, "one category is dropped per feature, not one in total."),
    ], "", f"count the categories of each of the {len(C)} features (n_categories) and drop one per feature")


def encoding_toy_optimum():
    """The optimal H_λ on the full one-hot encoding of gen/encoding-toy at λ = 1/10, by the oracle."""
    toy = datasets.load("gen/encoding-toy")
    Xb = one_hot(toy.X, [int(c) for c in toy.n_categories], None)[0]
    return branches_optimum(Xb, toy.y, LAM)


@exercise("05.2", "The corrected Appendix C example: the one-hot optimum")
def one_hot_optimum(answer):
    """Four categories, Y = 1 iff X in {1, 3}: on the full one-hot encoding the optimum needs two splits,
    H_λ = 1 − 2λ."""
    reference = encoding_toy_optimum().value
    return judge(as_number(answer, "H_λ"), reference, [
        (1 - LAM, "1 − λ is the ordinal optimum (one 4-way split); on the indicators no single column separates "
                  "{1, 3} from {2, 4}, so one split cannot purify the root."),
        (1 - 3 * LAM, "1 − 3λ needs three splits; two indicators already separate the classes (the leaves of the "
                      "second split are pure)."),
        (Fraction(1), "every split costs λ: H_λ = accuracy − λ·splits."),
        (Fraction(1, 2), "1/2 is the single leaf; a split that purifies more than λ of the rows pays for itself."),
    ], f"two indicator splits make every leaf pure: H_λ = 1 − 2λ = {reference}.",
        "the best tree on the indicators is pure with as few splits as possible: H_λ = 1 − λ·(its splits)")


def multi_indicator_branches(q, C):
    """Branches on the drop-last one-hot columns of q features with C categories that test two or more
    indicators of one feature (each column absent, = 0 or = 1), by enumeration."""
    owner = np.repeat(np.arange(q), C - 1)
    count = 0
    for tests in itertools.product((None, 0, 1), repeat=q * (C - 1)):
        used = [j for j, t in enumerate(tests) if t is not None]
        count += bool(used) and np.bincount(owner[used], minlength=q).max() >= 2
    return count


@exercise("05.3", "Theorem C.1: branches that test two indicators of one feature")
def theorem_c1_count(answer):
    """q = 2 features with C = 3 categories, drop-last one-hot: branches testing >= 2 indicators of a feature."""
    q, C = 2, 3
    reference = multi_indicator_branches(q, C)
    value = as_int(answer, "the number of branches")
    if value == reference:
        return accept(f"3^(q(C−1)) − (2(C−1)+1)^q = {3 ** (q * (C - 1))} − {(2 * (C - 1) + 1) ** q} = {reference}: "
                      "all branches on the columns less those that test at most one indicator per feature.")
    return judge(value, reference, [
        (3 ** (q * (C - 1)), f"{3 ** (q * (C - 1))} counts every branch on the {q * (C - 1)} columns; subtract "
                             "those that test at most one indicator per feature (Eq. 11: not unnecessary)."),
        ((2 * (C - 1) + 1) ** q, f"{(2 * (C - 1) + 1) ** q} are the branches with at most one indicator per "
                                 "feature: the question asks for the others."),
        (0, "Theorem C.1 says these are unnecessary, and the chapter shows they are not all empty: count them."),
        (3 ** (q * C) - (2 * C + 1) ** q, "that is the full one-hot encoding; the exercise drops the last "
                                          "category (C − 1 columns per feature)."),
    ], "", "each column is absent, = 0 or = 1: 3^(columns) branches in all, less the (2(C−1)+1)^q that test "
           "at most one indicator per feature")
