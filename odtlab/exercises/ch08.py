"""Chapter 08 (DPDT) on the six-point example (gen/dpdt-example), depth 2, CART candidates with budget 3:
one backward-induction step, the same step with a split cost, the root action and the α from which the leaf is
at least as good as DPDT's tree at α = 0."""
from fractions import Fraction
import functools

import numpy as np

from odtlab import datasets
from odtlab.exercises.base import Reject, accept, as_number, exercise, judge, reject


@functools.lru_cache(maxsize=None)
def _example():
    d = datasets.load("gen/dpdt-example")
    return np.asarray(d.X, dtype=float), np.asarray(d.y)


def leaf_value(rows):
    """V of a leaf state: minus its misclassified fraction (the reward of the best class action)."""
    _, y = _example()
    c = np.bincount(y[rows], minlength=2)
    return -Fraction(int(c.sum() - c.max()), int(c.sum()))


def q_root_split(threshold, alpha=Fraction(0)):
    """Q(s0, x0 <= threshold) at depth 2: -α + p_l V(s_l) + p_r V(s_r), each child solved with its own CART
    candidate (one split, then leaves at depth 2) against its leaf."""
    from odtlab.solvers.dpdt import DPDTSolver
    from odtlab.search import Search

    X, y = _example()
    left = X[:, 0] <= threshold
    values = []
    for rows in (left, ~left):
        search = Search(DPDTSolver(X[rows], y[rows], max_depth=1, candidates=(3,), alpha=alpha))
        search.run()
        values.append(-Fraction(search.result().objective).limit_denominator(10 ** 6))
    p = Fraction(int(left.sum()), len(y))
    return -alpha + p * values[0] + (1 - p) * values[1], values


@exercise("08.1", "One backward-induction step")
def backup(answer):
    """Q(s0, x0 <= 2) at α = 0: the two children's values weighted by their shares of the rows."""
    reference, (v_l, v_r) = q_root_split(2.0)
    X, _ = _example()
    p = Fraction(int((X[:, 0] <= 2).sum()), len(X))
    return judge(as_number(answer, "Q(s0, x0 ≤ 2)"), reference, [
        (v_l + v_r, "weight each child's value by its share of the rows: p_l = 5/6, p_r = 1/6."),
        (leaf_value(np.ones(len(X), dtype=bool)), "that is the root's leaf action, Q(s0, leaf) = −1/2; the split's Q "
                                                   "backs up the children's values."),
        ((v_l + v_r) / 2, "weight each child by its share of the rows (5/6 and 1/6), not equally."),
        (Fraction(0), "0 is Q of the other candidate, x0 ≤ 0.5; the exercise asks for x0 ≤ 2."),
    ], f"Q = p_l V(s_l) + p_r V(s_r) = {p}·({v_l}) + {1 - p}·({v_r}) = {reference}.",
        "Q(s, a) = −α + p_l V(s_l) + p_r V(s_r), with p_l = |X_l|/|X| and each V the best of its actions")


@exercise("08.2", "The same step with a split cost")
def backup_alpha(answer):
    """Q(s0, x0 <= 2) at α = 1/10: every split costs α, the children re-solved at that α."""
    alpha = Fraction(1, 10)
    reference, _ = q_root_split(2.0, alpha)
    no_cost, _ = q_root_split(2.0)
    return judge(as_number(answer, "Q(s0, x0 ≤ 2)"), reference, [
        (no_cost, "the split action's reward is −α: Q = −α + p_l V(s_l) + p_r V(s_r)."),
        (no_cost - Fraction(5, 6) * alpha, "the −α of this split is not weighted by p: it is the reward of the "
                                           "action taken at s0, paid once."),
        (no_cost - 2 * alpha, "at α = 1/10 the left child prefers its leaf (its split gains nothing), so only the "
                              "root's split pays α."),
    ], f"Q = −α + p_l V(s_l) + p_r V(s_r) = {reference} at α = 1/10.",
        "Q(s, a) = −α + p_l V(s_l) + p_r V(s_r), with each child solved at the same α")


def root_action():
    """The root split the optimal policy plays at α = 0, (feature, threshold), from DPDT's search."""
    from odtlab.solvers.dpdt import DPDTClassifier

    X, y = _example()
    tree = DPDTClassifier(max_depth=2, candidates=(3,)).fit(X, y).tree_
    return int(tree.feature[0]), float(tree.threshold[0])


@exercise("08.3", "The root action of the optimal policy")
def policy_root(answer):
    """Backward induction at the root compares Q(s0, leaf), Q(s0, x0 <= 2) and Q(s0, x0 <= 0.5) at α = 0."""
    if not isinstance(answer, tuple) or len(answer) != 2:
        raise Reject(f"give the root split as a tuple (feature, threshold), e.g. (1, 1.5); you gave {answer!r}.")
    reference = root_action()
    if answer[0] == reference[0] and abs(float(answer[1]) - reference[1]) < 1e-9:
        X, _ = _example()
        q = {t: str(q_root_split(t)[0]).replace("-", "−") for t in (0.5, 2.0)}
        leaf = str(leaf_value(np.ones(len(X), dtype=bool))).replace("-", "−")
        return accept(f"x{reference[0]} ≤ {reference[1]} has Q = {q[reference[1]]} (both children split once more "
                      f"into pure leaves), against {q[2.0]} for x0 ≤ 2 and {leaf} for the leaf.")
    if answer[0] == 0 and abs(float(answer[1]) - 2.0) < 1e-9:
        return reject("x0 ≤ 2 is CART's greedy root, the first candidate; backward induction compares the values "
                      "of the subtrees each candidate leads to, and another candidate wins.")
    if answer[0] == 1:
        return reject("x1 is not among the root's candidates: CART with 3 leaves offers two splits on x0.")
    return reject("the root's candidates are CART's two splits on x0 (thresholds 2 and 0.5): compare their Q.")


def leaf_alpha():
    """The α from which the single leaf is at least as good as T, DPDT's tree at α = 0 (Eq. 1 for both):
    L_α(leaf) = err(leaf) ≤ err(T) + α C(T)."""
    from odtlab.solvers.dpdt import DPDTClassifier

    X, y = _example()
    tree = DPDTClassifier(max_depth=2, candidates=(3,)).fit(X, y).tree_
    error = Fraction(tree.misclassifications(X, y), len(y))
    leaf = Fraction(int(len(y) - np.bincount(y).max()), len(y))
    return (leaf - error) / (tree.dpdt_objective(X, y, 1, exact=True) - error)


@exercise("08.4", "The α from which the leaf is at least as good as DPDT's α = 0 tree")
def leaf_threshold(answer):
    """T, DPDT's tree at α = 0, has 3 splits, error 0 and C(T) = 2 expected splits; the leaf has loss 1/2 and
    C = 0: they tie at 0 + 2α = 1/2."""
    reference = leaf_alpha()
    return judge(as_number(answer, "α"), reference, [
        (Fraction(1, 6), "C(T) is the expected number of splits a row passes (2 here), not the number of split "
                         "nodes (3)."),
        (Fraction(1, 2), "the tree's cost is error + α·C(T) with C(T) = 2: solve 0 + 2α = 1/2."),
        (Fraction(1, 3), "every row passes two splits, the root and one child: C(T) = 2, so α = (1/2)/2."),
    ], f"0 + 2α = 1/2: from α = {reference} on the leaf is at least as good (ties go to the simpler tree).",
        "set the tree's L_α = error + α·C(T) equal to the leaf's, with C(T) the expected number of splits")
