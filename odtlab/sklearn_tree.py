"""odtlab trees in scikit-learn's terms: per-node impurity, feature importances and a fitted scikit-learn tree.

**Feature importances** are scikit-learn's mean decrease in impurity (Breiman et al. 1984, §5.3.4), for every
estimator and objective alike: each split node ``v`` on feature ``f`` adds

    W_v i(v) - sum over the children c of W_c i(c)

to ``f`` (``W`` the weighted rows reaching a node, ``i`` its impurity), and the result is normalised to sum to 1
(all zeros for a single leaf, as scikit-learn). The impurity ``i`` is the estimator's ``criterion`` where it
has one (CART, DPDT), otherwise Gini for classifiers and the squared error (variance, averaged over the
outputs) for regressors: scikit-learn's defaults. It is not the decrease of each algorithm's own objective:
a split of an optimal tree may leave the misclassifications unchanged and pay off only through its
children's splits (XOR), so the 0-1 decrease would give the root's feature nothing. On a CART tree equal to
scikit-learn's, the importances are scikit-learn's.

**The scikit-learn export** (:func:`to_sklearn`) builds a fitted ``DecisionTreeClassifier`` /
``DecisionTreeRegressor`` whose ``tree_`` holds this tree (``children_left``, ``children_right``,
``feature``, ``threshold``, ``value``, ``impurity``, ``n_node_samples``, ``weighted_n_node_samples``), so
``sklearn.tree.export_text``, ``sklearn.tree.plot_tree`` and tools that read scikit-learn trees work on it.
A multi-way categorical split (Branches) is **binarised**: the split on feature ``f`` with children for codes
0..C-1 becomes the chain ``f <= 0.5`` (code 0), ``f <= 1.5`` (code 1), ..., each right branch holding the
remaining codes; the chain's inner nodes carry the counts of the codes below them. The export predicts as
the odtlab tree on every training code, with two documented differences: a code or pandas category unseen
at fit goes down the chain (odtlab stops it at the split), and scikit-learn compares features as float32, so
a value within float32 rounding of a threshold may go the other way.
"""
from typing import NamedTuple

import numpy as np

from odtlab.tree import CATEGORY, LEAF


class NodeStats(NamedTuple):
    """Training statistics per node of a tree (the arrays scikit-learn keeps in its ``tree_``)."""

    n_node_samples: np.ndarray  # training rows reaching each node
    weighted_n_node_samples: np.ndarray  # their total sample weight (W)
    impurity: np.ndarray  # i(v) under ``criterion``
    criterion: str


def class_impurity(counts, criterion):
    """Gini (1 - sum p_k^2) or entropy (-sum p_k log2 p_k) of each row of weighted class counts (0 when empty)."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    if criterion == "gini":
        return np.where(total[..., 0] > 0, 1.0 - (p * p).sum(axis=-1), 0.0)
    if criterion in ("entropy", "log_loss"):
        logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
        return -(p * logs).sum(axis=-1)
    raise ValueError(f"criterion must be 'gini' or 'entropy' for classification, got {criterion!r}")


def node_stats(tree, X, y, sample_weight, criterion):
    """:class:`NodeStats` of ``tree`` on its training data (X, y as the estimator validated them).

    Classification: ``y`` class codes, impurity by :func:`class_impurity`. Regression: the weighted variance
    of each output around the node's mean (computed from the centred target), averaged over the outputs.
    """
    X = tree._check_X(X)
    n = X.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    rows = tree.node_sums(X)[:, 0]
    if tree.task == "classification":
        Y = np.zeros((n, len(tree.classes)))
        Y[np.arange(n), np.asarray(y, dtype=np.int64)] = 1.0
        sums = tree.node_sums(X, Y, w)
        impurity = class_impurity(sums[:, 1:], criterion)
    else:
        Y = np.asarray(y, dtype=np.float64).reshape(n, -1)
        Yc = Y - np.average(Y, axis=0, weights=w if w.sum() > 0 else None)  # centred: no cancellation
        sums = tree.node_sums(X, np.hstack([Yc, Yc * Yc]), w)
        m = Y.shape[1]
        W = sums[:, :1]
        with np.errstate(invalid="ignore", divide="ignore"):
            var = sums[:, 1 + m:] / W - (sums[:, 1:1 + m] / W) ** 2
        impurity = np.where(W[:, 0] > 0, np.clip(np.nan_to_num(var), 0.0, None).mean(axis=1), 0.0)
    return NodeStats(np.rint(rows).astype(np.int64), sums[:, 0], impurity, criterion)


def impurity_importances(tree, stats):
    """Mean decrease in impurity per feature, normalised to sum to 1 (see the module docstring)."""
    weighted = stats.weighted_n_node_samples * stats.impurity
    decrease = weighted.copy()
    child = np.flatnonzero(tree.parent >= 0)
    np.subtract.at(decrease, tree.parent[child], weighted[child])
    split = np.flatnonzero(tree.split != LEAF)
    out = np.zeros(tree.n_features)
    np.add.at(out, tree.feature[split], decrease[split])
    total = out.sum()
    return out / total if total > 0 else out


def _binary_nodes(tree):
    """scikit-learn's node list in depth-first preorder: ``(parent, is_left, feature, threshold, members)`` per
    node, ``members`` the odtlab nodes whose rows it holds (one, or the remaining children of a binarised
    categorical split)."""
    out = []
    stack = [(0, -1, True, None)]  # (odtlab node, parent, is_left, first code of a chain's remaining children)
    while stack:
        v, parent, left, first = stack.pop()
        if first is None and tree.split[v] == CATEGORY and tree.n_children[v] == 1:
            stack.append((int(tree._kids(v)[0]), parent, left, None))
            continue
        me = len(out)
        if tree.split[v] == LEAF:
            out.append((parent, left, -1, np.nan, [v]))
            continue
        kids = [int(c) for c in tree._kids(v)]
        if tree.split[v] != CATEGORY:
            out.append((parent, left, int(tree.feature[v]), float(tree.threshold[v]), [v]))
            stack += [(kids[1], me, False, None), (kids[0], me, True, None)]
            continue
        k = 0 if first is None else first
        out.append((parent, left, int(tree.feature[v]), k + 0.5, [v] if first is None else kids[k:]))
        rest = (kids[-1], me, False, None) if k + 2 == len(kids) else (v, me, False, k + 1)
        stack += [rest, (kids[k], me, True, None)]
    return out


def to_sklearn(estimator):
    """A fitted scikit-learn ``DecisionTreeClassifier`` or ``DecisionTreeRegressor`` holding ``estimator.tree_``
    (multi-way splits binarised, see the module docstring). Its ``predict`` equals the estimator's on the
    training data; ``sklearn.tree.export_text`` and ``sklearn.tree.plot_tree`` draw it."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    from sklearn.tree._tree import NODE_DTYPE, TREE_LEAF, TREE_UNDEFINED
    from sklearn.tree._tree import Tree as SklearnTree

    tree, stats = estimator.tree_, estimator._node_stats
    classification = tree.task == "classification"
    if not classification and np.any(tree.split == CATEGORY):
        raise ValueError("a regression tree with multi-way categorical splits has no scikit-learn export "
                         "(the binarised chain needs per-output variances)")
    spec = _binary_nodes(tree)
    m = len(spec)
    nodes = np.zeros(m, dtype=NODE_DTYPE)
    nodes["left_child"] = nodes["right_child"] = TREE_LEAF
    if classification:
        K = len(tree.classes)
        values = np.zeros((m, 1, K))
    else:
        values = np.zeros((m, tree.prediction.shape[1], 1))
    depth = np.zeros(m, dtype=np.int64)
    for i, (parent, left, feature, threshold, members) in enumerate(spec):
        if parent >= 0:
            nodes[parent]["left_child" if left else "right_child"] = i
            depth[i] = depth[parent] + 1
        nodes[i]["feature"] = feature if feature >= 0 else TREE_UNDEFINED
        nodes[i]["threshold"] = threshold if feature >= 0 else TREE_UNDEFINED
        nodes[i]["n_node_samples"] = stats.n_node_samples[members].sum()
        nodes[i]["weighted_n_node_samples"] = stats.weighted_n_node_samples[members].sum()
        if classification:
            counts = tree.value[members].sum(axis=0)
            nodes[i]["impurity"] = stats.impurity[members[0]] if len(members) == 1 else \
                class_impurity(counts, stats.criterion)
            total = counts.sum()
            if total > 0:
                values[i, 0] = counts / total
            else:  # an empty node predicts its parent's class (odtlab's rule)
                values[i, 0, tree.prediction[members[0]]] = 1.0
        else:
            nodes[i]["impurity"] = stats.impurity[members[0]]
            values[i, :, 0] = tree.prediction[members[0]]
    n_outputs = values.shape[1]
    n_classes = np.array([values.shape[2]] * n_outputs, dtype=np.intp)
    sk_tree = SklearnTree(tree.n_features, n_classes, n_outputs)
    sk_tree.__setstate__({"max_depth": int(depth.max()), "node_count": m, "nodes": nodes, "values": values})
    if classification:
        out = DecisionTreeClassifier(criterion=stats.criterion)
        out.classes_, out.n_classes_ = np.asarray(estimator.classes_), K
    else:
        out = DecisionTreeRegressor(criterion=stats.criterion)
    out.tree_, out.n_outputs_, out.n_features_in_, out.max_features_ = sk_tree, n_outputs, tree.n_features, \
        tree.n_features
    if hasattr(estimator, "feature_names_in_"):
        out.feature_names_in_ = estimator.feature_names_in_
    return out
