"""Exact optima by exhaustive enumeration: the oracle that odtlab's solvers are tested against.

Four objective families, one function each:

* ``branches_optimum``: Branches' H_lambda = accuracy - lambda * splits with multi-way splits on
  categorical codes (Branches §1.3, Prop 4.1).
* ``binary_optimum``: MurTree's misclassifications + alpha * feature nodes on 0-1 features, under a
  depth limit and a feature-node budget (MurTree Eq. 1, sparse objective Eq. 19).
* ``continuous_optimum``: Quant-BnB's problem (1), the misclassification count or the sum of
  squared errors of the best depth-d tree with midpoint thresholds (d = 1, 2, 3).
* ``dpdt_optimum``: DPDT's L_alpha = error rate + alpha * C(T), with C(T) the expected number of
  splits a training sample passes through (DPDT Eq. 1, Prop 4.1), over trees of depth <= d.

Each returns an ``Optimum``. ``value`` is exact (a Fraction) except for the squared error (a
float). ``units_value`` is the integer the numba kernel in odtlab.core.bruteforce returned. For
example, H_lambda = units_value / (n * lambda_den). ``tree`` is an optimal tree as a nested dict,
which ``odtlab.tree.Tree.from_dict`` reads:

* leaf: ``{"leaf": True, "prediction": class_code_or_value}``
* threshold split: ``{"feature": f, "kind": "threshold", "threshold": t,
  "children": [left, right]}``, with x[f] <= t going left. Binary features use t = 0.5.
* categorical split: ``{"feature": f, "kind": "category", "children": [one per code 0..C_f-1]}``

The tree is rebuilt top-down. At each node the kernels are called again on the candidate
children, and the first action whose value equals the node's optimum is kept, in this order:
leaf, then features by index, then thresholds from low to high (for MurTree, the node budget
given to the right child from low to high). Splits that send every training row to one child are
never kept: such a split can always be removed without making the objective worse. A leaf
predicts the majority class of its rows, the lowest class code on ties (or the mean target for
regression). An empty leaf predicts its parent's prediction.

Classes are non-negative integer codes (K = max code + 1). lambda and alpha are read as the
decimal the user wrote (``odtlab.core._jit.as_ratio``), so 0.1 means exactly 1/10.
"""
from dataclasses import dataclass
from fractions import Fraction
import functools
import math
import numbers

import numpy as np

from odtlab.core import bruteforce as kernels
from odtlab.core._jit import as_ratio

# Refuse a problem whose estimated enumeration cost is above these limits. With JIT each limit
# is a few seconds of work on one core. The estimates (the _*_work functions) are upper bounds.
MAX_BRANCHES_NODES = 2_000_000          # branch evaluations, over all ordered feature sequences
MAX_ROW_VISITS = 1_500_000_000          # rows scanned by the binary and threshold kernels
_INT64_SAFE = 2 ** 62


@dataclass(frozen=True)
class Optimum:
    """An optimal objective value and one tree that attains it.

    value: the objective in natural units. A Fraction for Branches (H_lambda), binary
        (misclassifications + alpha * splits), continuous classification (misclassifications) and
        DPDT (error rate + alpha * C). A float for continuous regression (sum of squared errors).
    units_value: the kernel's value in scaled units (an int, or the float SSE).
    tree: an optimal tree as a nested dict (see the module docstring).
    """

    value: Fraction | float
    units_value: int | float
    tree: dict


# ----------------------------------------------------------------------------------------------
# input validation
# ----------------------------------------------------------------------------------------------

def _numeric_array(a, name):
    try:
        arr = np.asarray(a)
    except Exception as exc:  # ragged lists and other objects numpy cannot convert
        raise TypeError(f"{name} must be array-like of numbers: {exc}") from None
    if arr.dtype == np.bool_:
        arr = arr.astype(np.int64)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating) and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _matrix(X, name="X"):
    arr = _numeric_array(X, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} needs at least one row and one column, got shape {arr.shape}")
    return arr


def _integer_codes(arr, name):
    if np.issubdtype(arr.dtype, np.floating) and not np.array_equal(arr, np.round(arr)):
        raise ValueError(f"{name} must hold integer codes, found non-integer values")
    codes = arr.astype(np.int64)
    if codes.size and codes.min() < 0:
        raise ValueError(f"{name} must hold non-negative codes, found {codes.min()}")
    return codes


def _class_labels(y, n):
    """Validate y as n class codes; return (int64 codes, K = max code + 1)."""
    arr = _numeric_array(y, "y")
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}), got shape {arr.shape}")
    codes = _integer_codes(arr, "y")
    return codes, int(codes.max()) + 1


def _targets(y, n):
    """Validate regression targets: shape (n,) or (n, m), finite floats."""
    arr = _numeric_array(y, "y").astype(np.float64)
    if arr.ndim not in (1, 2) or arr.shape[0] != n or (arr.ndim == 2 and arr.shape[1] < 1):
        raise ValueError(f"y must have shape ({n},) or ({n}, m) for regression, got {arr.shape}")
    return arr


def _weight(value, name, allow_zero, upper):
    """Check lambda/alpha and return it as an exact Fraction (via as_ratio)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    low = "[0" if allow_zero else "(0"
    high = f"{upper}]" if upper is not None else "inf)"
    if value < 0 or (value == 0 and not allow_zero) or (upper is not None and value > upper):
        raise ValueError(f"{name} must lie in {low}, {high}, got {value!r}")
    frac = Fraction(*as_ratio(value))
    if value > 0 and frac == 0:
        raise ValueError(f"{name}={value!r} is too small for the exact ratio "
                         f"(denominator <= 10**6)")
    return frac


def _nonnegative_int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return int(value)


def _check_int64(bound, what):
    if bound >= _INT64_SAFE:
        raise ValueError(f"{what} is too large for exact int64 arithmetic; use a simpler ratio")


def _refuse_if_too_big(estimate, limit, unit, family):
    if estimate > limit:
        raise ValueError(
            f"{family}: exhaustive enumeration needs about {estimate:.3g} {unit}, above the "
            f"brute-force limit of {limit:.3g}. Use fewer rows or features, or a smaller depth "
            f"(this oracle is for small data)."
        )


def _leaf(prediction):
    return {"leaf": True, "prediction": prediction}


def _majority(y, rows, K):
    """(majority class, its count); the lowest class code wins ties."""
    counts = np.bincount(y[rows], minlength=K)
    k = int(np.argmax(counts))
    return k, int(counts[k])


# ----------------------------------------------------------------------------------------------
# Branches: multi-way categorical trees, maximise H_lambda
# ----------------------------------------------------------------------------------------------

def _branches_work(n, n_categories, depth_limit):
    """Upper bound on the branches the recursion evaluates: over depths d, (ordered feature
    sequences of length d) * (non-empty branches per sequence, at most min(n, product of C))."""
    q = len(n_categories)
    cats = sorted((int(c) for c in n_categories), reverse=True)
    total, sequences, cells = 0, 1, 1
    for d in range(depth_limit + 1):
        total += sequences * min(n, cells)
        if d < q:
            sequences *= q - d
            cells *= cats[d]
    return total


def branches_optimum(X, y, lam, max_depth=None, n_categories=None):
    """Best multi-way tree for Branches' H_lambda = accuracy - lambda * splits (Prop 4.1).

    X: (n, q) non-negative integer category codes. y: (n,) class codes. lam: the split penalty
    lambda, in (0, 1], or in [0, 1] when max_depth is given (with lambda = 0 and no depth limit,
    every useful split ties; Branches §7 item 10). max_depth: the largest number of splits on a
    root-leaf path (None: no limit; each feature is used at most once per path anyway).
    n_categories: C_i per feature (default X.max(axis=0) + 1). A split on feature i makes C_i
    children, some of them empty.

    Returns an Optimum with value = H_lambda (a Fraction) and
    units_value = n * lambda_den * H_lambda.
    """
    X = np.ascontiguousarray(_integer_codes(_matrix(X), "X"))
    n, q = X.shape
    y, K = _class_labels(y, n)
    if max_depth is not None:
        max_depth = _nonnegative_int(max_depth, "max_depth")
    lam = _weight(lam, "lam", allow_zero=max_depth is not None, upper=1)
    if n_categories is None:
        n_categories = X.max(axis=0) + 1
    else:
        arr = _numeric_array(n_categories, "n_categories")
        if arr.ndim != 1 or arr.shape[0] != q:
            raise ValueError(f"n_categories must have one entry per feature ({q}), got shape "
                             f"{arr.shape}")
        n_categories = _integer_codes(arr, "n_categories")
        bad = np.flatnonzero(X.max(axis=0) >= n_categories)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"X[:, {i}] has code {int(X[:, i].max())} but n_categories[{i}] = "
                             f"{int(n_categories[i])}")
    n_categories = np.asarray(n_categories, np.int64)
    depth_limit = q if max_depth is None else min(max_depth, q)
    _refuse_if_too_big(_branches_work(n, n_categories, depth_limit), MAX_BRANCHES_NODES,
                       "branch evaluations", "branches_optimum")
    lam_num, lam_den = lam.numerator, lam.denominator
    kernel_depth = -1 if max_depth is None else max_depth
    units = int(kernels.branches_value(X, y, n_categories, K, lam_num, lam_den, kernel_depth))

    def node_value(rows, used, depth):
        return int(kernels.branches_node_value(X, y, K, lam_num, lam_den, n, rows, used.copy(),
                                               depth, kernel_depth))

    def build(rows, used, depth, target, parent_prediction):
        if rows.size == 0:
            return _leaf(parent_prediction)
        prediction, count = _majority(y, rows, K)
        if lam_den * count == target:
            return _leaf(prediction)
        if kernel_depth < 0 or depth < kernel_depth:
            for f in range(q):
                if used[f]:
                    continue
                children = [rows[X[rows, f] == j] for j in range(n_categories[f])]
                if sum(child.size > 0 for child in children) < 2:
                    continue
                child_used = used.copy()
                child_used[f] = True
                values = [node_value(child, child_used, depth + 1) for child in children]
                if -lam_num * n + sum(values) == target:
                    return {"feature": f, "kind": "category",
                            "children": [build(child, child_used, depth + 1, v, prediction)
                                         for child, v in zip(children, values)]}
        raise AssertionError("no action attains the kernel's value (bug in the oracle)")

    tree = build(kernels.all_rows(n), np.zeros(q, np.bool_), 0, units, 0)
    return Optimum(Fraction(units, n * lam_den), units, tree)


# ----------------------------------------------------------------------------------------------
# MurTree: binary features, depth and node budgets, misclassifications + alpha * splits
# ----------------------------------------------------------------------------------------------

def _binary_work(n, p, max_depth, max_splits):
    """Rows scanned: binary_node_value calls when no child is ever empty (an upper bound), times
    n rows plus a per-call overhead worth 20 rows."""
    @functools.lru_cache(maxsize=None)
    def calls(d, s):
        if d == 0 or s == 0:
            return 1
        budget = min(s, 2 ** d - 1)
        return 1 + p * 2 * sum(calls(d - 1, k) for k in range(budget))
    return calls(max_depth, max_splits) * (n + 20)


def binary_optimum(X, y, max_depth, max_splits=None, alpha=0):
    """Best binary tree for MurTree's objective (Eq. 1, sparse variant Eq. 19).

    Minimises misclassifications + alpha * (feature nodes) over trees with depth <= max_depth and
    at most max_splits feature nodes (None: 2**max_depth - 1). X: (n, p) with values 0/1; the left
    child holds feature == 0. alpha >= 0 is per split, in misclassification units (MurTree's
    integer alpha; GOSDT's lambda corresponds to alpha = lambda * n).

    Returns an Optimum with value = misclassifications + alpha * splits (a Fraction) and
    units_value = alpha_den * value.
    """
    X = _matrix(X)
    if not np.isin(X, (0, 1)).all():
        raise ValueError("X must hold binary features (only 0 and 1)")
    X = np.ascontiguousarray(X, np.uint8)
    n, p = X.shape
    y, K = _class_labels(y, n)
    max_depth = _nonnegative_int(max_depth, "max_depth")
    if max_depth > 20:
        raise ValueError(f"max_depth={max_depth} is far beyond what brute force can enumerate")
    full = 2 ** max_depth - 1
    max_splits = full if max_splits is None else min(_nonnegative_int(max_splits, "max_splits"),
                                                     full)
    alpha = _weight(alpha, "alpha", allow_zero=True, upper=None)
    alpha_num, alpha_den = alpha.numerator, alpha.denominator
    _check_int64(alpha_den * n + alpha_num * max_splits, "alpha")
    _refuse_if_too_big(_binary_work(n, p, max_depth, max_splits), MAX_ROW_VISITS, "row visits",
                       "binary_optimum")
    units = int(kernels.binary_value(X, y, K, max_depth, max_splits, alpha_num, alpha_den))

    def node_value(rows, d, s):
        return int(kernels.binary_node_value(X, y, K, rows, d, s, alpha_num, alpha_den))

    def build(rows, d, s, target):
        prediction, count = _majority(y, rows, K)
        if alpha_den * (rows.size - count) == target:
            return _leaf(prediction)
        budget = min(s, 2 ** d - 1) if d > 0 else 0
        for f in range(p):
            left, right = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
            if left.size == 0 or right.size == 0:
                continue
            for i in range(budget):  # i feature nodes to the right child, budget - 1 - i left
                v_left = node_value(left, d - 1, budget - 1 - i)
                v_right = node_value(right, d - 1, i)
                if alpha_num + v_left + v_right == target:
                    return {"feature": f, "kind": "threshold", "threshold": 0.5,
                            "children": [build(left, d - 1, budget - 1 - i, v_left),
                                         build(right, d - 1, i, v_right)]}
        raise AssertionError("no action attains the kernel's value (bug in the oracle)")

    tree = build(kernels.all_rows(n), max_depth, max_splits, units)
    return Optimum(Fraction(units, alpha_den), units, tree)


# ----------------------------------------------------------------------------------------------
# Threshold trees: Quant-BnB (0-1 loss, squared error) and DPDT (expected-splits penalty)
# ----------------------------------------------------------------------------------------------

def _threshold_work(X, depth, leaf_cost, scan):
    """Upper bound on rows scanned. A node scans its rows once per feature, and it has at most
    S = sum_f (distinct values of x_f - 1) splits, each with two children. A depth-1 node of the
    classification kernel sorts and scans instead (scan=True, weighted 4 rows per row and sort
    step, as measured); a leaf costs leaf_cost."""
    n, p = X.shape
    splits = sum(np.unique(X[:, f]).size - 1 for f in range(p))
    work = leaf_cost
    for d in range(1, depth + 1):
        if d == 1 and scan:
            work = 4 * p * n * (math.log2(n) + 1)
        else:
            work = p * n + 2 * splits * work
    return work


def _threshold_splits(X, rows):
    """Every non-degenerate split of a node, in the tie order: feature, then threshold ascending."""
    for f in range(X.shape[1]):
        column = X[rows, f]
        values = np.unique(column)
        for k in range(values.size - 1):
            t = float(kernels.midpoint(values[k], values[k + 1]))
            yield f, t, rows[column <= t], rows[column > t]


def _depth(depth, largest):
    depth = _nonnegative_int(depth, "depth")
    if not 1 <= depth <= largest:
        raise ValueError(f"depth must be >= 1 and <= {largest}, got {depth}")
    return depth


def _class_threshold_tree(X, y, K, depth, alpha_num, alpha_den, target):
    """Rebuild a tree attaining threshold_class_node_value == target at the root."""
    def build(rows, d, target):
        prediction, count = _majority(y, rows, K)
        if alpha_den * (rows.size - count) == target:
            return _leaf(prediction)
        if d > 0:
            for f, t, left, right in _threshold_splits(X, rows):
                v_left = int(kernels.threshold_class_node_value(X, y, K, left, d - 1, alpha_num,
                                                                alpha_den))
                v_right = int(kernels.threshold_class_node_value(X, y, K, right, d - 1,
                                                                 alpha_num, alpha_den))
                if alpha_num * rows.size + v_left + v_right == target:
                    return {"feature": f, "kind": "threshold", "threshold": t,
                            "children": [build(left, d - 1, v_left), build(right, d - 1, v_right)]}
        raise AssertionError("no action attains the kernel's value (bug in the oracle)")

    return build(kernels.all_rows(X.shape[0]), depth, target)


def _sse_threshold_tree(X, Y, Yc, depth, target, single_output):
    """Rebuild a tree whose SSE equals threshold_sse_node_value == target at the root, up to a
    relative tolerance of 1e-9 (float sums; never an absolute one, which would take a leaf for a
    split at a target scale of 1e-12). ``Yc``: the targets centred on their mean, which the kernels
    sum; leaves predict the mean of ``Y``."""
    def close(a, b):
        return abs(a - b) <= 1e-9 * abs(b)

    def build(rows, d, target):
        if close(kernels.leaf_sse(Yc, rows), target):
            mean = Y[rows].mean(axis=0)
            return _leaf(float(mean[0]) if single_output else [float(v) for v in mean])
        if d > 0:
            for f, t, left, right in _threshold_splits(X, rows):
                v_left = float(kernels.threshold_sse_node_value(X, Yc, left, d - 1))
                v_right = float(kernels.threshold_sse_node_value(X, Yc, right, d - 1))
                if close(v_left + v_right, target):
                    return {"feature": f, "kind": "threshold", "threshold": t,
                            "children": [build(left, d - 1, v_left), build(right, d - 1, v_right)]}
        raise AssertionError("no action attains the kernel's value (bug in the oracle)")

    return build(kernels.all_rows(X.shape[0]), depth, target)


def continuous_optimum(X, y, depth, task="classification"):
    """Best depth-``depth`` axis-aligned tree for Quant-BnB's problem (1), depth 1, 2 or 3.

    Thresholds are midpoints between consecutive distinct feature values (x <= t goes left). A
    depth-d perfect tree with degenerate splits is a tree of depth <= d, and these are what is
    enumerated. task "classification": y are class codes and value = the fewest
    misclassifications (a Fraction with denominator 1). task "regression": y has shape (n,) or
    (n, m), and value = the smallest sum of squared errors (a float, also units_value).
    """
    X = np.ascontiguousarray(_matrix(X), np.float64)
    n = X.shape[0]
    depth = _depth(depth, 3)
    if task == "classification":
        y, K = _class_labels(y, n)
        _refuse_if_too_big(_threshold_work(X, depth, n, scan=True), MAX_ROW_VISITS,
                           "row visits", "continuous_optimum")
        units = kernels.continuous_value(X, y, K, depth, task)
        tree = _class_threshold_tree(X, y, K, depth, 0, 1, units)
        return Optimum(Fraction(units), units, tree)
    if task == "regression":
        y = _targets(y, n)
        Y = np.ascontiguousarray(y.reshape(n, -1))
        _refuse_if_too_big(_threshold_work(X, depth, n * Y.shape[1], scan=False),
                           MAX_ROW_VISITS, "row visits", "continuous_optimum")
        Yc = np.ascontiguousarray(Y - Y.mean(axis=0))  # centred: raw sums of squares cancel at an offset
        sse = kernels.continuous_value(X, Yc, 0, depth, task)
        tree = _sse_threshold_tree(X, Y, Yc, depth, sse, single_output=y.ndim == 1)
        return Optimum(sse, sse, tree)
    raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")


def dpdt_optimum(X, y, depth, alpha=0):
    """Best tree of depth <= ``depth`` for DPDT's L_alpha = errors/n + alpha * C(T) (Eq. 1).

    C(T) is the expected number of splits a training sample passes through (DPDT Prop 4.1):
    C(leaf) = 0 and C(T) = 1 + p_l C(T_l) + p_r C(T_r). Every split (f, midpoint threshold) is
    tried, so this is DPDT with an exhaustive split generator. 1 <= depth <= 10 (the size limit
    usually bites first). alpha >= 0; above 1 - 1/K a single leaf is optimal (DPDT §1.1).

    Returns an Optimum with value = L_alpha (a Fraction) and units_value = n * alpha_den * L_alpha
    = alpha_den * errors + alpha_num * (sum over internal nodes of their training rows).
    """
    X = np.ascontiguousarray(_matrix(X), np.float64)
    n = X.shape[0]
    y, K = _class_labels(y, n)
    depth = _depth(depth, 10)
    alpha = _weight(alpha, "alpha", allow_zero=True, upper=None)
    alpha_num, alpha_den = alpha.numerator, alpha.denominator
    _check_int64(alpha_den * n + alpha_num * n * depth, "alpha")
    _refuse_if_too_big(_threshold_work(X, depth, n, scan=True), MAX_ROW_VISITS,
                       "row visits", "dpdt_optimum")
    units = int(kernels.dpdt_value(X, y, K, depth, alpha_num, alpha_den))
    tree = _class_threshold_tree(X, y, K, depth, alpha_num, alpha_den, units)
    return Optimum(Fraction(units, n * alpha_den), units, tree)
