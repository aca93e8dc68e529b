"""Chapter 01 (greedy versus optimal): DPDT's L_α, Gini gains, Lemma 5.5 and the leaf's α."""
from fractions import Fraction
import functools

import numpy as np

from odtlab import bruteforce, datasets
from odtlab.exercises.base import accept, as_number, as_pair, exercise, judge, reject
from odtlab.solvers.cart import CARTClassifier
from odtlab.tree import Tree


@functools.lru_cache(maxsize=None)
def _example():
    return datasets.load("gen/dpdt-example")


def _optimal_tree(X, y, depth, alpha):
    optimum = bruteforce.dpdt_optimum(X, y, depth, alpha)
    return optimum, Tree.from_dict(optimum.tree, X.shape[1]).fit_leaves(X, y)


def _c_of(tree, X, y):
    """C(T) (DPDT Eq. 1, the recursion in the proof of Thm 5.1) exactly: L_1 − L_0."""
    return tree.dpdt_objective(X, y, 1, exact=True) - tree.dpdt_objective(X, y, 0, exact=True)


@exercise("01.1", "C(T) and L_α of the optimal depth-2 tree")
def optimal_tree_objective(answer):
    """(C(T), L_0.1(T)) of the optimal depth-2 tree on gen/dpdt-example (DPDT Eq. 1; C(T) as in Thm 5.1's
    proof)."""
    c, loss = as_pair(answer, "(C(T), L_α(T))")
    d = _example()
    _, tree = _optimal_tree(d.X, d.y, 2, 0)
    C, error = _c_of(tree, d.X, d.y), Fraction(tree.misclassifications(d.X, d.y), len(d.y))
    alpha = Fraction(1, 10)
    if c != C:
        if c == tree.splits:
            return reject(f"{tree.splits} is the number of split nodes; C(T) is the mean number of splits a row "
                          "passes on its way to a leaf.")
        if c == tree.leaves:
            return reject("C(T) counts splits on a row's path, not leaves.")
        return reject("C(T) is not right: use the recursion C = 1 + p_l C(T_l) + p_r C(T_r), with p_l the share "
                      "of the node's rows that go left, and C = 0 at a leaf.")
    return judge(loss, error + alpha * C, [
        (error + alpha * tree.splits, "L_α charges α·C(T), the mean number of splits on a row's path, not α per "
                                      "split node."),
    ], f"this tree has C(T) = {C} and error {error}, so L_0.1 = {error + alpha * C}.",
        "C(T) is right; L_α = (misclassified rows)/N + α·C(T), at α = 0.1")


def gini_gain(X, y, feature, threshold):
    """Δ(f, t) = G(X) − p_l G(X_l) − p_r G(X_r), G = 1 − Σ p_k² (CART's greedy criterion)."""
    def gini(labels):
        p = np.bincount(labels, minlength=int(y.max()) + 1) / len(labels)
        return 1 - (p ** 2).sum()
    go = X[:, feature] <= threshold
    return gini(y) - go.mean() * gini(y[go]) - (~go).mean() * gini(y[~go]), gini(y), gini(y[go]), gini(y[~go])


@exercise("01.4", "The Gini gain of the cut x1 ≤ ½ on the pathological set")
def pathological_gain(answer):
    """Δ(x1, 0.5) at the root of gen/dpdt-pathological."""
    d = datasets.load("gen/dpdt-pathological")
    gain, parent, left, right = gini_gain(d.X, d.y, 1, 0.5)
    p = float((d.X[:, 1] <= 0.5).mean())
    return judge(float(as_number(answer, "the gain")), gain, [
        (parent, "that is G(X), the impurity of the root; the gain subtracts the children's weighted impurity."),
        (p * left + (1 - p) * right, "that is the children's weighted impurity; the gain is G(X) minus it."),
        (parent - (left + right) / 2, "weigh each child's impurity by its share of the rows, |X_l|/|X| and |X_r|/|X|."),
        (gini_gain(d.X, d.y, 0, 0.5)[0], "that is the cut x0 ≤ ½; this exercise asks for x1 ≤ ½."),
    ], f"Δ = {gain:.3g}, almost nothing, like x0 ≤ ½: a greedy root cannot see either half-cut's value.",
        "Δ(f, t) = G(X) − |X_l|/|X|·G(X_l) − |X_r|/|X|·G(X_r) with G = 1 − Σ_k p_k²", tol=1e-7)


@exercise("01.3", "The second greedy split on XOR (Lemma 5.5)")
def xor_second_split(answer):
    """The depth-1 CART split of the strip x1 ≤ 0.2 of gen/xor-dpdt: (feature, threshold to 4 decimals)."""
    feature, threshold = as_pair(answer, "the split (feature, threshold)")
    threshold = float(threshold)
    d = datasets.load("gen/xor-dpdt")
    strip = d.X[:, 1] <= 0.2
    stump = CARTClassifier(max_depth=1).fit(d.X[strip], d.y[strip]).tree_
    f, t = int(stump.feature[0]), float(stump.threshold[0])
    if feature != f:
        return reject(f"in a strip x1 ≤ 0.2 the classes change along x{f}, not x{int(feature)}: the perpendicular "
                      "feature is the one that separates them (Lemma 5.5).")
    if abs(threshold - t) > 1e-4:
        if abs(threshold - 0.5) <= 1e-4:
            return reject("½ is the population's cut; on this sample CART's midpoint is a little off it "
                          "(fit CART of depth 1 on the strip's rows and read its root).")
        return reject("the feature is right but the threshold is not: fit CARTClassifier(max_depth=1) on the rows "
                      "with x1 ≤ 0.2 only.")
    return accept(f"x{f} ≤ {t:.4f}, perpendicular to the first cut and at about ½, as Lemma 5.5 says.")


@exercise("01.2", "The smallest α at which a single leaf is optimal")
def leaf_alpha(answer):
    """The least α with min_T L_α(T) = L_α(leaf) at depth ≤ 2 on gen/dpdt-example, found by Dinkelbach's
    iteration on L_α(T) = e(T) + α C(T): α ← (e_leaf − e(T_α)) / C(T_α) until the leaf is optimal."""
    d = _example()
    e_leaf = 1 - Fraction(int(np.bincount(d.y).max()), len(d.y))
    alpha, trees = Fraction(0), []
    while True:
        optimum, tree = _optimal_tree(d.X, d.y, 2, alpha)
        if optimum.value == e_leaf:
            break
        trees.append(tree)
        alpha = (e_leaf - Fraction(tree.misclassifications(d.X, d.y), len(d.y))) / _c_of(tree, d.X, d.y)
    first = trees[0]
    cart = CARTClassifier(max_depth=2).fit(d.X, d.y).tree_
    return judge(as_number(answer, "α"), alpha, [
        (1 - Fraction(1, int(d.y.max()) + 1),
         "1 − 1/K is enough for a leaf to be optimal, but it is not the smallest such α here."),
        ((e_leaf - Fraction(first.misclassifications(d.X, d.y), len(d.y))) / first.splits,
         "you divided by the number of split nodes; L_α charges α·C(T), the mean number of splits on a "
         "row's path."),
        ((e_leaf - Fraction(cart.misclassifications(d.X, d.y), len(d.y))) / _c_of(cart, d.X, d.y),
         "that is where the leaf overtakes CART's depth-2 tree; the leaf must beat every depth-2 tree, "
         "the optimal one included."),
    ], f"at α = {alpha} the best tree and the single leaf (error {e_leaf}) tie; above it the leaf wins.",
        "for each tree T, the leaf wins when e_leaf ≤ e(T) + α·C(T); take the largest such threshold over "
        "the trees that beat the leaf at α = 0")
