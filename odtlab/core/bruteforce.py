"""Brute-force optimal-tree kernels: the test oracle that every odtlab solver is checked against.

Each kernel is a plain exhaustive recursion over every tree of the family. It has no bounds, no
memo and no pruning, so correctness can be read off the code. Objectives are exact int64 numbers
in scaled units (a rational weight p/q is passed as ``(num, den)``). The only float objective is
the squared error.

Families (one per paper's problem):

* Branches (Chaouki et al.), H_lambda = accuracy - lambda * splits with multi-way categorical
  splits. Bellman equation of Prop 4.1: ``branches_value``.
* MurTree (Demirovic et al.), misclassifications + alpha * feature nodes on binary features
  under depth and node budgets. Eq. 1, plus the sparse objective of Eq. 19: ``binary_value``.
* Quant-BnB (Mazumder et al.), the 0-1 loss or the squared error of a depth-d tree whose
  thresholds are midpoints. Problem (1) with L0/L1 of Eq. 3-6: ``continuous_value``.
* DPDT (Kohler et al.), errors/N + alpha * C(T) with C(T) the expected number of splits. Eq. 1
  with Prop 4.1's C(T): ``dpdt_value``.

The recursive ``*_node_value`` kernels are called only from Python, always with the same
argument types (int64 row arrays, Python ints): numba's on-disk cache is unsafe for a compiled
function that calls a recursive one, or for a recursive call whose argument types differ from
the caller's (numba issues #6061, #6713). The ``*_value`` entry points are thin Python wrappers
that normalise the types.

A tree is scored through its nodes' row sets: ``rows`` is an int64 array of training-row indices
that reach the node. Every ``*_node_value`` function is the optimum of a subtree rooted at such a
node, and the Python API (odtlab.bruteforce) calls them again to reconstruct an optimal tree.
An empty node is a leaf and scores 0 in every family.
"""
import numpy as np

from odtlab.core._jit import njit


def all_rows(n):
    """The root's row set: int64 indices 0..n-1."""
    return np.arange(n, dtype=np.int64)


def _int64_array(a):
    return np.ascontiguousarray(a, dtype=np.int64)


@njit
def _class_counts(y, rows, K):
    counts = np.zeros(K, np.int64)
    for r in rows:
        counts[y[r]] += 1
    return counts


@njit
def _majority_count(y, rows, K):
    """n_{k*}: the size of the largest class among ``rows`` (0 for an empty node)."""
    return _class_counts(y, rows, K).max()


# --------------------------------------------------------------------------------------------
# Branches: multi-way categorical splits, maximise H_lambda (units 1/(n * lam_den))
# --------------------------------------------------------------------------------------------

@njit
def branches_node_value(X, y, K, lam_num, lam_den, n_total, rows, used, depth, max_depth):
    """Optimal regularised accuracy R*(l) of the branch l holding ``rows`` (Branches Prop 4.1).

    R*(l) = max(H(l), max over unused features i of -lambda + sum over children j of R*(l, x_i=j)),
    in units of 1/(n_total * lam_den): a leaf is worth lam_den * n_{k*}(l) and a split costs
    lam_num * n_total. ``used`` is a boolean mask of the features tested on the branch (it is
    modified and restored in place). ``depth`` is S(l), and a branch with depth == max_depth may
    only be a leaf (max_depth = -1 means no limit). Every category j of feature i makes a child.
    Categories absent from ``rows`` make empty children, which are leaves worth 0. A leaf beats
    a split of equal value.
    """
    best = lam_den * _majority_count(y, rows, K)
    if max_depth >= 0 and depth >= max_depth:
        return best
    for i in range(X.shape[1]):
        if used[i]:
            continue
        used[i] = True
        total = -lam_num * n_total
        column = X[rows, i]
        for j in np.unique(column):  # the categories 0..C_i-1 not listed here are empty: value 0
            total += branches_node_value(X, y, K, lam_num, lam_den, n_total, rows[column == j],
                                         used, depth + 1, max_depth)
        used[i] = False
        if total > best:
            best = total
    return best


def branches_value(X, y, n_categories, K, lam_num, lam_den, max_depth):
    """n * lam_den * max over all multi-way trees T of H_lambda(T) (Branches §3, Prop 4.1).

    X: int64 codes (n, q) with 0 <= X[:, i] < n_categories[i]. y: int64 classes in 0..K-1.
    lambda = lam_num / lam_den. max_depth = -1 for no depth limit. The value does not depend on
    n_categories, since categories without rows make empty children worth 0; it is only checked.
    """
    X = _int64_array(X)
    if X.size and (X.min() < 0 or (X >= _int64_array(n_categories)[None, :]).any()):
        raise ValueError("every code X[:, i] must lie in 0..n_categories[i]-1")
    return int(branches_node_value(X, _int64_array(y), int(K), int(lam_num), int(lam_den),
                                   X.shape[0], all_rows(X.shape[0]),
                                   np.zeros(X.shape[1], np.bool_), 0, int(max_depth)))


# --------------------------------------------------------------------------------------------
# MurTree: binary features, depth and feature-node budgets, minimise errors + alpha * splits
# --------------------------------------------------------------------------------------------

@njit
def binary_node_value(X, y, K, rows, max_depth, max_splits, alpha_num, alpha_den):
    """T(D, d, s) of MurTree Eq. 1 with the sparse objective of Eq. 19, in units of 1/alpha_den.

    The minimum, over binary trees with depth <= d and at most s feature nodes, of
    alpha_den * misclassifications + alpha_num * feature nodes. Left child: feature == 0, right
    child: feature == 1. Every feature may be tested at every node, including features already
    on the path (such a split sends every row one way and is never better).
    """
    if rows.size == 0:
        return 0
    best = alpha_den * (rows.size - _majority_count(y, rows, K))
    if max_depth == 0 or max_splits == 0:
        return best  # Eq. 1 case (3)
    budget = min(max_splits, 2 ** max_depth - 1)  # Eq. 1 case (1)
    for f in range(X.shape[1]):
        left = rows[X[rows, f] == 0]
        right = rows[X[rows, f] != 0]
        left_values = np.empty(budget, np.int64)
        right_values = np.empty(budget, np.int64)
        for k in range(budget):
            left_values[k] = binary_node_value(X, y, K, left, max_depth - 1, k, alpha_num,
                                               alpha_den)
            right_values[k] = binary_node_value(X, y, K, right, max_depth - 1, k, alpha_num,
                                                alpha_den)
        for i in range(budget):  # Eq. 1 case (4): i nodes on the right, budget - 1 - i on the left
            value = alpha_num + left_values[budget - 1 - i] + right_values[i]
            if value < best:
                best = value
    return best


def binary_value(X, y, K, max_depth, max_splits, alpha_num, alpha_den):
    """alpha_den * min over trees of (misclassifications + alpha * splits), MurTree Eq. 1 / Eq. 19.

    X: 0-1 matrix (n, p), uint8 or int64. Trees have depth <= max_depth and at most max_splits
    feature nodes. alpha = alpha_num / alpha_den; alpha = 0 (0, 1) gives plain misclassifications.
    """
    X = np.ascontiguousarray(X)
    return int(binary_node_value(X, _int64_array(y), int(K), all_rows(X.shape[0]),
                                 int(max_depth), int(max_splits), int(alpha_num), int(alpha_den)))


# --------------------------------------------------------------------------------------------
# Thresholds on continuous features (Quant-BnB, DPDT)
# --------------------------------------------------------------------------------------------

@njit
def midpoint(a, b):
    """The threshold between two consecutive distinct values a < b: x <= t goes left.

    It is (a + b) / 2, computed without overflow. If a and b are adjacent floats the midpoint
    rounds to b, and then a is returned, which still separates them.
    """
    t = 0.5 * a + 0.5 * b
    if t >= b:
        t = a
    return t


@njit
def _stump_errors(X, y, K, rows, f):
    """Fewest errors of a stump on feature f: min over midpoint thresholds t of
    L0(x_f <= t) + L0(x_f > t) (Quant-BnB Eq. 6) in one sorted scan; -1 if x_f is constant.

    After sorting the rows by x_f, the cut after position k is a midpoint threshold exactly when
    the k-th and (k+1)-th values differ; the left side then holds the first k + 1 rows.
    """
    order = rows[np.argsort(X[rows, f], kind="mergesort")]
    left = np.zeros(K, np.int64)
    right = _class_counts(y, order, K)
    m = order.size
    best = -1
    for k in range(m - 1):
        left[y[order[k]]] += 1
        right[y[order[k]]] -= 1
        if X[order[k], f] < X[order[k + 1], f]:
            errors = (k + 1 - left.max()) + (m - k - 1 - right.max())
            if best < 0 or errors < best:
                best = errors
    return best


@njit
def threshold_class_node_value(X, y, K, rows, depth, alpha_num, alpha_den):
    """Min over axis-aligned trees of depth <= depth, rooted at the node holding ``rows``, of
    alpha_den * misclassifications + alpha_num * (sum over internal nodes of their row count).

    With alpha = 0 (alpha_num = 0, alpha_den = 1) this is the misclassification count of
    Quant-BnB's problem (1) under the 0-1 loss. A depth-d perfect tree with degenerate splits is
    exactly a tree of depth <= d. With alpha > 0 it is DPDT's L_alpha (Eq. 1) times
    N * alpha_den, since N * C(T) = sum over internal nodes of n_node.

    Each node tries the leaf and every split (f, t), where t runs over the midpoints between
    consecutive distinct values of x_f among ``rows`` (every non-degenerate split of the node).
    A depth-1 subproblem scans the sorted rows instead (``_stump_errors``), which gives the same
    minimum.
    """
    if rows.size == 0:
        return 0
    best = alpha_den * (rows.size - _majority_count(y, rows, K))
    if depth == 0:
        return best
    split_cost = alpha_num * rows.size
    for f in range(X.shape[1]):
        if depth == 1:
            errors = _stump_errors(X, y, K, rows, f)
            if errors >= 0 and split_cost + alpha_den * errors < best:
                best = split_cost + alpha_den * errors
            continue
        column = X[rows, f]
        values = np.unique(column)
        for k in range(values.size - 1):
            t = midpoint(values[k], values[k + 1])
            value = (split_cost
                     + threshold_class_node_value(X, y, K, rows[column <= t], depth - 1,
                                                  alpha_num, alpha_den)
                     + threshold_class_node_value(X, y, K, rows[column > t], depth - 1,
                                                  alpha_num, alpha_den))
            if value < best:
                best = value
    return best


@njit
def leaf_sse(Y, rows):
    """L0 of Quant-BnB Eq. 4: the sum over rows and outputs of (Y - column mean)^2 (0 if empty)."""
    total = 0.0
    if rows.size == 0:
        return total
    for c in range(Y.shape[1]):
        mean = 0.0
        for r in rows:
            mean += Y[r, c]
        mean /= rows.size
        for r in rows:
            total += (Y[r, c] - mean) ** 2
    return total


@njit
def threshold_sse_node_value(X, Y, rows, depth):
    """Min squared error over trees of depth <= depth rooted at the node holding ``rows``.

    This is Quant-BnB problem (1) with the squared-error loss. Y has shape (n, m), m >= 1 outputs.
    Every node tries the leaf and every midpoint split, as in ``threshold_class_node_value``, and
    each leaf's loss is computed directly (two passes, no prefix sums).
    """
    best = leaf_sse(Y, rows)
    if depth == 0 or rows.size == 0:
        return best
    for f in range(X.shape[1]):
        column = X[rows, f]
        values = np.unique(column)
        for k in range(values.size - 1):
            t = midpoint(values[k], values[k + 1])
            value = (threshold_sse_node_value(X, Y, rows[column <= t], depth - 1)
                     + threshold_sse_node_value(X, Y, rows[column > t], depth - 1))
            if value < best:
                best = value
    return best


def continuous_value(X, y, K, depth, task):
    """Quant-BnB's optimum (problem (1)) over depth-``depth`` trees with midpoint thresholds.

    task "classification": y int64 classes 0..K-1; returns the minimum misclassification count
    (int). task "regression": y float64 of shape (n,) or (n, m); K is ignored; returns the minimum
    sum of squared errors (float). X: float64 (n, p).
    """
    X = np.ascontiguousarray(X, np.float64)
    rows = all_rows(X.shape[0])
    if task == "classification":
        return int(threshold_class_node_value(X, _int64_array(y), int(K), rows, int(depth), 0, 1))
    if task == "regression":
        Y = np.ascontiguousarray(np.asarray(y, np.float64).reshape(X.shape[0], -1))
        return float(threshold_sse_node_value(X, Y, rows, int(depth)))
    raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")


def dpdt_value(X, y, K, depth, alpha_num, alpha_den):
    """n * alpha_den * min over trees T of depth <= depth of (errors(T)/n + alpha * C(T)).

    C(T) is DPDT's expected number of splits: C(leaf) = 0, C(T) = 1 + p_l C(T_l) + p_r C(T_r)
    (DPDT Eq. 1 and Prop 4.1). Since n * C(T) = sum over internal nodes of n_node, the value is
    alpha_den * errors + alpha_num * sum over internal nodes of n_node, with
    alpha = alpha_num / alpha_den.
    """
    X = np.ascontiguousarray(X, np.float64)
    return int(threshold_class_node_value(X, _int64_array(y), int(K), all_rows(X.shape[0]),
                                          int(depth), int(alpha_num), int(alpha_den)))
