"""Chapter 00's exercises: solutions from scikit-learn's tree (CART's twin, checked in the chapter)."""
from fractions import Fraction

from sklearn.tree import DecisionTreeClassifier

from odtlab import datasets


def _sk(depth):
    d = datasets.load("sklearn/breast_cancer")
    tree = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(d.X, d.y)
    return d, tree, int((tree.predict(d.X) != d.y).sum())


def wrong_00_1():
    d, _, errors = _sk(2)
    return [(_sk(3)[2], "depth-3"), (d.n_samples - errors, "classified correctly"), (0.94, "looks like a share"),
            ("33", "should be a number")]


def solution_00_2():
    d, tree, errors = _sk(2)
    return Fraction(d.n_samples - errors, d.n_samples) - Fraction(2, 100) * (tree.tree_.node_count - tree.get_n_leaves())


def wrong_00_2():
    d, tree, errors = _sk(2)
    acc = Fraction(d.n_samples - errors, d.n_samples)
    return [(acc, "accuracy alone"), (acc - Fraction(2, 100) * tree.get_n_leaves(), "per leaf"),
            (acc - Fraction(2, 100) * tree.tree_.node_count, "per node"), (acc - 1, "smaller than the right one")]


def wrong_00_3():
    _, tree, _ = _sk(4)
    splits = tree.tree_.node_count - tree.get_n_leaves()
    return [(splits, "Split events"), (tree.tree_.node_count, "every decided node"), (16, "2^4"),
            (tree.tree_.node_count + 2, "every event")]


CASES = {
    "00.1": (lambda: _sk(2)[2], wrong_00_1),
    "00.2": (solution_00_2, wrong_00_2),
    "00.3": (lambda: _sk(4)[1].get_n_leaves(), wrong_00_3),
}
