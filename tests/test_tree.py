"""The tree model: construction, prediction rules, every paper's objective, exports."""
from fractions import Fraction
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from odtlab.tree import Tree

# x0 binary (threshold), x1 a 3-category feature (multi-way)
DICT = {"feature": 0, "kind": "threshold", "threshold": 0.5, "children": [
    {"leaf": True},
    {"feature": 1, "kind": "category", "children": [{"leaf": True}, {"leaf": True}, {"leaf": True}]}]}
X = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 0], [1, 2], [1, 2]], dtype=float)
y = np.array([0, 0, 1, 1, 1, 0, 0])


@pytest.fixture
def tree():
    return Tree.from_dict(DICT, n_features=2, feature_names=["rain", "colour"]).fit_leaves(X, y)


def test_structure(tree):
    assert (tree.n_nodes, tree.splits, tree.leaves, tree.depth) == (6, 2, 4, 2)
    assert tree.parent.tolist() == [-1, 0, 0, 2, 2, 2]


def test_predict_majority_and_empty_child_rule(tree):
    # leaf x1 = 1 under x0 = 1 has no training row: it predicts its parent's majority class
    assert tree.n_samples[tree.children[tree.child_start[2] + 1]] == 0
    parent_class = tree.prediction[2]
    assert tree.predict([[1, 1]])[0] == parent_class
    assert tree.predict(X).tolist() == [0, 0, 0, 1, 1, 0, 0]
    assert tree.misclassifications(X, y) == 1


def test_unseen_categories_stop_at_the_split(tree):
    for code in (3, -1, 1.5, np.nan):
        assert tree.apply([[1, code]])[0] == 2
    assert tree.predict([[1, 7]])[0] == tree.prediction[2]


def test_objectives_are_exact(tree):
    assert tree.branches_objective(X, y, 0.1, exact=True) == Fraction(6, 7) - Fraction(2, 10)
    assert tree.murtree_objective(X, y, alpha=0.5, exact=True) == 1 + Fraction(1, 2) * 2
    # every row passes the root, the 4 rows with x0 = 1 also pass the colour split
    assert tree.expected_splits(X) == pytest.approx(11 / 7)
    assert tree.dpdt_objective(X, y, alpha=0.01, exact=True) == Fraction(1, 7) + Fraction(1, 100) * Fraction(11, 7)


def test_regression_tree_and_squared_error():
    t = Tree.from_dict({"feature": 0, "kind": "threshold", "threshold": 0.5,
                        "children": [{"leaf": True}, {"leaf": True}]}, 1, task="regression")
    Xr = np.array([[0.0], [0.0], [1.0], [1.0]])
    yr = np.array([1.0, 3.0, 10.0, 10.0])
    t.fit_leaves(Xr, yr)
    np.testing.assert_allclose(t.predict(Xr), [2, 2, 10, 10])
    assert t.squared_error(Xr, yr) == 2.0


def test_exports(tree):
    text = tree.to_text(class_names=["no", "yes"])
    assert "rain <= 0.5" in text and "colour = 2" in text and "class: yes" in text
    assert tree.to_dict()["children"][1]["feature_name"] == "colour"
    rebuilt = Tree.from_dict(tree.to_dict(), 2).fit_leaves(X, y)
    assert rebuilt.predict(X).tolist() == tree.predict(X).tolist()
    dot = tree.to_dot()
    assert dot.startswith("digraph") and dot.count("->") == 5
    svg = tree.to_svg(highlight=2)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    groups = [g for g in root.iter() if g.get("id", "").startswith("node-")]
    assert len(groups) == 6
    assert [g.get("id") for g in groups if g.get("class") == "highlight"] == ["node-2"]


def test_bad_trees_and_inputs():
    with pytest.raises(ValueError, match="two children"):
        Tree.from_dict({"feature": 0, "kind": "threshold", "children": [{"leaf": True}]}, 1)
    with pytest.raises(ValueError, match="split kind"):
        Tree.from_dict({"feature": 0, "kind": "oblique", "children": [{"leaf": True}]}, 1)
    t = Tree.from_dict(DICT, 2)
    with pytest.raises(ValueError, match="fit_leaves"):
        t.predict(X)
    with pytest.raises(ValueError, match="shape"):
        t.fit_leaves(X, y).predict(np.zeros((2, 3)))


def test_every_input_form_reaches_the_kernels_as_one_array_type(tree):
    """Fortran-ordered, read-only, strided, integer and list inputs give the C-ordered float64 answers (the kernels
    see one array type: odtlab.tree.kernel_array)."""
    readonly = X.copy()
    readonly.flags.writeable = False
    forms = [np.asfortranarray(X), readonly, np.repeat(X, 2, axis=1)[:, ::2], X.astype(np.int64), X.tolist()]
    Y = np.c_[y, 2 * y].astype(float)
    w = np.arange(1.0, 8.0)
    expected = tree.apply(X), tree.node_sums(X, Y, w)
    for form in forms:
        assert tree.apply(form).tolist() == expected[0].tolist()
        np.testing.assert_array_equal(tree.node_sums(form, np.asfortranarray(Y), np.repeat(w, 2)[::2]), expected[1])
    assert expected[1][0].tolist() == [w.sum(), (w * y).sum(), (w * 2 * y).sum()]  # the root sees every row
