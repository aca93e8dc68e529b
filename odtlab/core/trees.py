"""Tree traversal kernels shared by every algorithm's trees.

A tree is a set of flat arrays (see :class:`odtlab.tree.Tree`). Node ``v`` is a leaf
(``split[v] == LEAF``), a threshold split (``x[feature] <= threshold`` goes to the first child, else the
second; binary features use threshold 0.5, so 0 goes left as in MurTree) or a multi-way categorical
split (category code ``c`` goes to child ``c``, as in Branches). A category code the split has no child
for, or NaN (how estimators pass a pandas category unseen at fit), stops at the split node itself, whose
prediction is its own majority class: the documented rule for unseen categories.
"""
import numpy as np

from odtlab.core._jit import njit

LEAF = 0
THRESHOLD = 1
CATEGORY = 2


@njit(inline="always")
def next_node(X, i, v, split, feature, threshold, child_start, n_children, children):
    """The child of split node ``v`` that row ``i`` goes to, or -1 for a category with no child."""
    x = X[i, feature[v]]
    if x != x:  # NaN marks a category unseen in training
        return -1
    if split[v] == THRESHOLD:
        c = 0 if x <= threshold[v] else 1
    else:
        if x < 0 or x >= n_children[v] or x != np.floor(x):
            return -1
        c = np.int64(x)
    return children[child_start[v] + c]


@njit
def apply(X, split, feature, threshold, child_start, n_children, children):
    """Index of the node where each row of ``X`` stops (a leaf, or a split with an unseen category)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        v = 0
        while split[v] != LEAF:
            w = next_node(X, i, v, split, feature, threshold, child_start, n_children, children)
            if w < 0:
                break
            v = w
        out[i] = v
    return out


@njit
def node_sums(X, Y, weight, split, feature, threshold, child_start, n_children, children):
    """Weighted row count and weighted column sums of ``Y`` for the rows reaching each node.

    Rows count at every node on their path. For classification ``Y`` is the one-hot class matrix (the
    sums are class counts); for regression it is the target matrix (n x m).
    """
    m = split.shape[0]
    sums = np.zeros((m, Y.shape[1] + 1), dtype=np.float64)
    for i in range(X.shape[0]):
        v = 0
        while v >= 0:
            sums[v, 0] += weight[i]
            for j in range(Y.shape[1]):
                sums[v, j + 1] += weight[i] * Y[i, j]
            if split[v] == LEAF:
                break
            v = next_node(X, i, v, split, feature, threshold, child_start, n_children, children)
    return sums
