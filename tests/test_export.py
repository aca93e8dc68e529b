"""Exports print thresholds exactly (issue 16, item 6): the text export, parsed back, sends every training
row where ``predict`` does, and the DOT and SVG edge labels read back as the stored thresholds."""
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

from odtlab import CARTClassifier, CARTRegressor, DPDTClassifier, QuantBnBClassifier
from odtlab.export import threshold_text


def parse_text(text):
    """The tree of ``to_text`` as nested tuples: ("leaf", label) or ("split", feature name, [(test, value,
    subtree), ...]) with test "<=", ">" or "="."""
    lines = [(line.count("|   "), line.split("|--- ", 1)[1]) for line in text.splitlines()]

    def node(i, depth):
        content = lines[i][1]
        if content.startswith(("class: ", "value: ")):
            return ("leaf", content.split(": ", 1)[1]), i + 1
        branches, name = [], None
        while i < len(lines) and lines[i][0] == depth and not lines[i][1].startswith(("class: ", "value: ")):
            name, test, value = re.fullmatch(r"(.*) (<=|>|=) (\S+)", lines[i][1]).groups()
            child, i = node(i + 1, depth + 1)
            branches.append((test, float(value), child))
        return ("split", name, branches), i

    tree, end = node(0, 0)
    assert end == len(lines)
    return tree


def predict_parsed(tree, row, names):
    while tree[0] == "split":
        x = row[names.index(tree[1])]
        tree = next(child for test, value, child in tree[2]
                    if (test == "<=" and x <= value) or (test == ">" and x > value) or (test == "=" and x == value))
    return tree[1]


def test_issue_reproducer_near_equal_values_print_apart():
    X, y = np.array([[1.00001], [1.00003]]), np.array([0, 1])
    est = CARTClassifier().fit(X, y)
    assert est.tree_.threshold[0] == 1.00001 / 2 + 1.00003 / 2
    text = est.tree_.to_text()
    assert "x0 <= 1.0000200000000001" in text  # four significant digits printed "x0 <= 1"
    parsed = parse_text(text)
    assert [int(predict_parsed(parsed, row, ["x0"])) for row in X] == est.predict(X).tolist()


def _fitted():
    bc, wine, diabetes = load_breast_cancer(), load_wine(), load_diabetes()
    yield CARTClassifier(max_depth=5).fit(bc.data, bc.target), bc.data
    yield QuantBnBClassifier(max_depth=2).fit(wine.data, wine.target), wine.data
    yield DPDTClassifier(max_depth=3).fit(bc.data, bc.target), bc.data
    yield CARTRegressor(max_depth=4).fit(diabetes.data, diabetes.target), diabetes.data


@pytest.mark.parametrize("index", range(4), ids=["cart", "quantbnb", "dpdt", "cart-regressor"])
def test_every_export_reads_back_the_stored_thresholds(index):
    est, X = list(_fitted())[index]
    tree = est.tree_
    names = tree.feature_names
    splits = np.flatnonzero(tree.split == 1)
    stored = sorted(float(t) for t in tree.threshold[splits])
    # text: parsed back, it predicts every training row as predict does (leaf values to 17 digits: exact)
    parsed = parse_text(tree.to_text(decimals=17))
    labels = [predict_parsed(parsed, row, names) for row in X]
    if tree.task == "classification":
        assert labels == [str(c) for c in est.predict(X)]
    else:
        assert [float(v) for v in labels] == est.predict(X).tolist()
    # DOT: each split's edges carry "<= t" and "> t" with float(t) the stored threshold
    dot = re.findall(r'label="(?:<=|>) ([^"]+)"', tree.to_dot())
    assert sorted(float(t) for t in dot[::2]) == stored and dot[::2] == dot[1::2]
    # SVG: the same edge labels, never clipped
    texts = [t.text for t in ET.fromstring(tree.to_svg()).iter() if t.text and t.text.startswith(("<= ", "> "))]
    assert sorted(float(t.split(" ", 1)[1]) for t in texts if t.startswith("<=")) == stored


def test_threshold_text_is_the_shortest_exact_decimal():
    for t in (0.5, 2.45, 1.00001 / 2 + 1.00003 / 2, 1e-300, 123456789.125, -0.0):
        assert float(threshold_text(t)) == t
    assert threshold_text(2.45) == "2.45" and threshold_text(0.5) == "0.5"
