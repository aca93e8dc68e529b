"""Tests of the brute-force oracle (odtlab.core.bruteforce, odtlab.bruteforce).

Three kinds of evidence:
* hand-checked optima of the papers' worked examples (Branches XOR/App. C, MurTree, DPDT);
* an independent pure-Python enumerator: it lists every tree explicitly (itertools), routes
  each sample through it with a plain predict loop and scores the result. Hypothesis checks that
  it agrees with every kernel on tiny random data;
* every reconstructed tree is scored again by an independent evaluator that reads the tree dict,
  and must reproduce the reported value exactly.
"""
from collections import Counter, defaultdict
from fractions import Fraction
import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from odtlab import bruteforce as bf
from odtlab.core import bruteforce as kernels

F = Fraction
# (what the user passes, the exact ratio the oracle must use)
LAMBDAS = [(0.05, F(1, 20)), (0.1, F(1, 10)), (1 / 3, F(1, 3)), (0.5, F(1, 2)), (1, F(1))]
ALPHAS = [(0, F(0)), (0.05, F(1, 20)), (1 / 3, F(1, 3)), (1, F(1)), (2.5, F(5, 2))]
DPDT_ALPHAS = [(0, F(0)), (0.05, F(1, 20)), (0.1, F(1, 10)), (1 / 3, F(1, 3))]
HYPOTHESIS = settings(max_examples=30, deadline=None)


# ----------------------------------------------------------------------------------------------
# independent enumerator: explicit trees, plain predict loop
# A tree is None (a leaf predicting its majority), (f, children) for a categorical split, or
# (f, t, left, right) for a threshold split (x[f] <= t goes left).
# ----------------------------------------------------------------------------------------------

def category_trees(n_categories, free, depth):
    """Every multi-way tree of depth <= depth using each feature in `free` at most once per path."""
    yield None
    if depth == 0:
        return
    for f in free:
        subtrees = list(category_trees(n_categories, [g for g in free if g != f], depth - 1))
        for children in itertools.product(subtrees, repeat=n_categories[f]):
            yield (f, children)


def grow(cuts, depth):
    """Every binary tree of depth <= depth whose internal nodes are taken from `cuts`."""
    level = [None]
    for _ in range(depth):
        level = [None] + [(f, t, left, right) for f, t in cuts for left in level for right in level]
    return level


@functools.lru_cache(maxsize=None)
def binary_trees(p, depth):
    return grow([(f, 0.5) for f in range(p)], depth)


def global_cuts(X):
    """(feature, midpoint) for every pair of consecutive distinct values of each column."""
    cuts = []
    for f in range(X.shape[1]):
        values = sorted(set(X[:, f].tolist()))
        cuts += [(f, (a + b) / 2) for a, b in zip(values, values[1:])]
    return cuts


def local_trees(X, rows, depth, cuts):
    """Trees of depth <= depth with cuts that split `rows` into two non-empty parts, one per
    distinct partition (used for depth 3, where listing every global-cut tree is too slow)."""
    yield None
    if depth == 0:
        return
    seen = set()
    for f, t in cuts:
        left = tuple(r for r in rows if X[r, f] <= t)
        right = tuple(r for r in rows if X[r, f] > t)
        if not left or not right or left in seen:
            continue
        seen.add(left)
        lefts = list(local_trees(X, left, depth - 1, cuts))
        rights = list(local_trees(X, right, depth - 1, cuts))
        for a in lefts:
            for b in rights:
                yield (f, t, a, b)


def route(tree, x):
    """(leaf reached by x as the tuple of branches taken, number of splits passed)."""
    path = []
    while tree is not None:
        if len(tree) == 2:
            f, children = tree
            branch = int(x[f])
        else:
            f, t, left, right = tree
            children = (left, right)
            branch = 0 if x[f] <= t else 1
        path.append(branch)
        tree = children[branch]
    return tuple(path), len(path)


def splits_and_depth(tree):
    if tree is None:
        return 0, 0
    children = tree[1] if len(tree) == 2 else tree[2:]
    stats = [splits_and_depth(c) for c in children]
    return 1 + sum(s for s, _ in stats), 1 + max(d for _, d in stats)


def score(tree, X, targets):
    """Route every sample; return (leaf groups of targets, total splits passed over samples)."""
    groups = defaultdict(list)
    passed = 0
    for x, target in zip(X, targets):
        leaf, length = route(tree, x)
        groups[leaf].append(target)
        passed += length
    return list(groups.values()), passed


def majority_errors(groups):
    return sum(len(g) - max(Counter(g).values()) for g in groups)


def squared_error(groups):
    total = 0.0
    for g in groups:
        mean = sum(g) / len(g)
        total += sum((v - mean) ** 2 for v in g)
    return total


# ----------------------------------------------------------------------------------------------
# independent evaluator of the oracle's tree dicts
# ----------------------------------------------------------------------------------------------

def dict_shape(node, path_features=()):
    """(splits, depth) of a tree dict, and structural checks: categorical features are not
    repeated on a path and have one child per category."""
    if node.get("leaf"):
        assert set(node) == {"leaf", "prediction"}
        return 0, 0
    f = node["feature"]
    if node["kind"] == "category":
        assert f not in path_features
    else:
        assert node["kind"] == "threshold" and len(node["children"]) == 2
    stats = [dict_shape(child, path_features + (f,)) for child in node["children"]]
    return 1 + sum(s for s, _ in stats), 1 + max(d for _, d in stats)


def dict_predict(node, x):
    """(prediction, splits passed) for one sample."""
    passed = 0
    while not node.get("leaf"):
        f = node["feature"]
        if node["kind"] == "category":
            node = node["children"][int(x[f])]
        else:
            node = node["children"][0 if x[f] <= node["threshold"] else 1]
        passed += 1
    return node["prediction"], passed


def dict_errors_and_path(tree, X, y):
    errors = passed = 0
    for x, label in zip(X, y):
        prediction, length = dict_predict(tree, x)
        errors += prediction != label
        passed += length
    return errors, passed


# ----------------------------------------------------------------------------------------------
# data strategies (tiny: the enumerator is exponential)
# ----------------------------------------------------------------------------------------------

@st.composite
def categorical_data(draw):
    n = draw(st.integers(1, 12))
    n_categories = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    X = np.array([[draw(st.integers(0, c - 1)) for c in n_categories] for _ in range(n)],
                 dtype=np.int64).reshape(n, len(n_categories))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    return X, y, n_categories


@st.composite
def binary_data(draw):
    n = draw(st.integers(1, 12))
    p = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.integers(0, 1), min_size=n * p, max_size=n * p)),
                 dtype=np.int64).reshape(n, p)
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    return X, y


@st.composite
def continuous_data(draw, max_n, max_p):
    """Values on a small grid (ties are common), integer classes, and real regression targets."""
    n = draw(st.integers(1, max_n))
    p = draw(st.integers(1, max_p))
    values = st.sampled_from([-1.5, 0.0, 0.25, 1.0, 2.0, 3.5])
    X = np.array(draw(st.lists(values, min_size=n * p, max_size=n * p))).reshape(n, p)
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    target = np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)), float) / 2
    return X, y, target


# ----------------------------------------------------------------------------------------------
# hand-checked optima
# ----------------------------------------------------------------------------------------------

XOR_X = [[0, 0], [0, 1], [1, 0], [1, 1]]
XOR_Y = [0, 1, 1, 0]


def test_branches_xor():
    """Branches §6.3: XOR with lambda = 0.1: leaf 0.5, one split 0.4, optimum 0.7 with 3 splits."""
    opt = bf.branches_optimum(XOR_X, XOR_Y, 0.1)
    assert opt.value == F(7, 10)
    assert opt.units_value == 28  # n * lam_den * H = 4 * 10 * 0.7
    assert dict_shape(opt.tree) == (3, 2)
    assert opt.tree["feature"] == 0  # both root features tie; the lowest index wins
    assert dict_errors_and_path(opt.tree, XOR_X, XOR_Y)[0] == 0
    assert bf.branches_optimum(XOR_X, XOR_Y, 0.1, max_depth=0).value == F(1, 2)
    assert bf.branches_optimum(XOR_X, XOR_Y, 0.1, max_depth=1).tree == {"leaf": True,
                                                                         "prediction": 0}


def test_branches_encoding_toy():
    """Branches App. C, corrected: 4 categories, y = 1 iff X in {1, 3}: ordinal 1 split
    (1 - lambda), one-hot (full or drop-last) 2 splits (1 - 2 lambda). y = X with 3 classes:
    1 split vs 2."""
    codes = np.arange(4)
    y = np.array([1, 0, 1, 0])
    full = (codes[:, None] == codes[None, :]).astype(int)
    ordinal = bf.branches_optimum(codes[:, None], y, 0.1)
    assert (ordinal.value, dict_shape(ordinal.tree)) == (F(9, 10), (1, 1))
    for onehot in (full, full[:, :3]):
        opt = bf.branches_optimum(onehot, y, 0.1)
        assert (opt.value, dict_shape(opt.tree)[0]) == (F(8, 10), 2)
    three = np.arange(3)
    assert dict_shape(bf.branches_optimum(three[:, None], three, 0.1).tree)[0] == 1
    onehot3 = (three[:, None] == three[None, :]).astype(int)
    assert bf.branches_optimum(onehot3, three, 0.1).value == F(8, 10)


def test_branches_ties_empty_children_and_single_category():
    # a split that gains exactly lambda ties with the leaf: the leaf is kept (sparsest)
    X = np.array([[0]] * 9 + [[1]])
    y = np.array([0] * 9 + [1])
    tie = bf.branches_optimum(X, y, 0.1)
    assert tie.value == F(9, 10) and tie.tree == {"leaf": True, "prediction": 0}
    # categories absent from the data are empty children predicting the parent's majority
    opt = bf.branches_optimum([[0], [0], [1]], [1, 1, 0], 0.1, n_categories=[3])
    assert opt.value == F(9, 10)
    assert [c["prediction"] for c in opt.tree["children"]] == [1, 0, 1]
    # a one-category feature is allowed and never split on
    opt = bf.branches_optimum([[0, 0], [0, 1]], [0, 1], 0.2)
    assert opt.value == F(4, 5) and opt.tree["feature"] == 1
    # lambda = 0 is allowed with a depth limit
    assert bf.branches_optimum(XOR_X, XOR_Y, 0, max_depth=2).value == 1


MURTREE_X = [[1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 1, 1], [0, 0, 1], [1, 0, 1]]
MURTREE_Y = [0, 0, 1, 0, 0, 1]


@pytest.mark.parametrize("depth, splits, errors", [
    (1, None, 2), (2, 1, 2), (2, 2, 1), (2, 3, 1), (3, 3, 1), (3, 4, 0), (3, None, 0)])
def test_murtree_six_instances(depth, splits, errors):
    """MurTree §9.3: leaf 2; depth 2 gives 1 (2 nodes); depth 3 gives 0 and needs 4 nodes."""
    opt = bf.binary_optimum(MURTREE_X, MURTREE_Y, depth, splits)
    assert opt.value == errors
    assert dict_errors_and_path(opt.tree, MURTREE_X, MURTREE_Y)[0] == errors


def test_murtree_trees_and_sparse_objective():
    assert bf.binary_optimum(MURTREE_X, MURTREE_Y, 1).tree == {"leaf": True, "prediction": 0}
    # depth 2, 2 nodes: root a, left child b, right leaf (§9.3)
    tree = bf.binary_optimum(MURTREE_X, MURTREE_Y, 2, 2).tree
    assert tree["feature"] == 0 and tree["children"][0]["feature"] == 1
    assert tree["children"][1] == {"leaf": True, "prediction": 0}
    # alpha = 0.4: leaf 2, 2 nodes 1 + 0.8, 3 nodes >= 1 + 1.2, 4 nodes 0 + 1.6
    opt = bf.binary_optimum(MURTREE_X, MURTREE_Y, 3, alpha=0.4)
    assert (opt.value, opt.units_value, dict_shape(opt.tree)[0]) == (F(8, 5), 8, 4)
    # alpha = 1: the leaf (2) beats 1 + 2 and 0 + 4
    assert bf.binary_optimum(MURTREE_X, MURTREE_Y, 3, alpha=1).tree["leaf"]
    units = kernels.binary_value(np.array(MURTREE_X), np.array(MURTREE_Y), 2, 3, 7, 2, 5)
    assert units == 8


DPDT_X = [[0, 0], [3, 1], [1, 3], [1, 0], [0, 3], [1, 2]]
DPDT_Y = [0, 1, 0, 1, 1, 0]


def test_continuous_by_hand():
    """DPDT §5.3(a). Stumps: x0 <= 0.5 and x1 <= 0.5, 2.5 make 3 errors; x0 <= 2 and x1 <= 1.5
    make 2. At depth 2, x0 <= 0.5 then x1 <= 1.5 on both sides is perfect."""
    stump = bf.continuous_optimum(DPDT_X, DPDT_Y, 1)
    assert stump.value == 2
    assert stump.tree == {"feature": 0, "kind": "threshold", "threshold": 2.0,
                          "children": [{"leaf": True, "prediction": 0},
                                       {"leaf": True, "prediction": 1}]}
    opt = bf.continuous_optimum(DPDT_X, DPDT_Y, 2)
    assert opt.value == 0 and (opt.tree["feature"], opt.tree["threshold"]) == (0, 0.5)
    assert [c["threshold"] for c in opt.tree["children"]] == [1.5, 1.5]
    X = np.array(DPDT_X, float)
    assert kernels.continuous_value(X, np.array(DPDT_Y), 2, 2, "classification") == 0
    # regression: y = 1, 2, 10, 11 on x = 0..3: one cut at 1.5 leaves SSE 0.5 + 0.5
    reg = bf.continuous_optimum([[0], [1], [2], [3]], [1, 2, 10, 11], 1, task="regression")
    assert reg.value == 1.0 and reg.tree["threshold"] == 1.5
    assert [c["prediction"] for c in reg.tree["children"]] == [1.5, 10.5]
    two = bf.continuous_optimum([[0], [1], [2], [3]], [[1, 0], [2, 0], [10, 1], [11, 1]], 2,
                                task="regression")
    assert two.value == 0.0 and two.tree["children"][1]["children"][1]["prediction"] == [11, 1]


def test_dpdt_by_hand():
    """DPDT §5.3(a) with the expected-splits penalty: the perfect depth-2 tree has
    C = (6 + 2 + 4) / 6 = 2, so alpha = 0.1 gives 0 + 0.2; alpha = 0.3 makes the leaf (1/2) best."""
    opt = bf.dpdt_optimum(DPDT_X, DPDT_Y, 2, alpha=0.1)
    assert (opt.value, opt.units_value) == (F(1, 5), 12)  # 10 * 0 + 1 * (6 + 2 + 4)
    assert dict_shape(opt.tree) == (3, 2)
    assert bf.dpdt_optimum(DPDT_X, DPDT_Y, 2, alpha=0.3).tree == {"leaf": True, "prediction": 0}
    assert bf.dpdt_optimum(DPDT_X, DPDT_Y, 1).value == F(2, 6)
    X = np.array(DPDT_X, float)
    assert kernels.dpdt_value(X, np.array(DPDT_Y), 2, 2, 3, 10) == 30  # the alpha = 0.3 leaf


def test_midpoint_of_adjacent_floats_separates_them():
    a = 1.0
    b = np.nextafter(a, 2.0)
    t = kernels.midpoint(a, b)
    assert a <= t < b
    assert kernels.midpoint(0.0, 3.0) == 1.5


# ----------------------------------------------------------------------------------------------
# agreement with the independent enumerator, and re-scoring of the reconstructed trees
# ----------------------------------------------------------------------------------------------

def check_branches(X, y, n_categories, max_depth):
    n, q = X.shape
    depth = q if max_depth is None else max_depth
    scores = set()
    for tree in category_trees(n_categories, range(q), depth):
        groups, _ = score(tree, X, y)
        scores.add((n - majority_errors(groups), splits_and_depth(tree)[0]))
    lambdas = LAMBDAS + ([(0, F(0))] if max_depth is not None else [])
    for lam, exact in lambdas:
        expected = max(F(correct, n) - exact * splits for correct, splits in scores)
        opt = bf.branches_optimum(X, y, lam, max_depth=max_depth, n_categories=n_categories)
        assert opt.value == expected
        units = kernels.branches_value(X, y, np.array(n_categories), int(y.max()) + 1,
                                       exact.numerator, exact.denominator,
                                       -1 if max_depth is None else max_depth)
        assert units == expected * n * exact.denominator == opt.units_value
        splits, tree_depth = dict_shape(opt.tree)
        assert max_depth is None or tree_depth <= max_depth
        errors, _ = dict_errors_and_path(opt.tree, X, y)
        assert F(n - errors, n) - exact * splits == opt.value


@HYPOTHESIS
@given(data=categorical_data(), max_depth=st.sampled_from([None, 0, 1, 2]))
def test_branches_matches_enumeration(data, max_depth):
    check_branches(*data, max_depth)


def check_binary(X, y, depth, budget):
    n, p = X.shape
    max_splits = 2 ** depth - 1 if budget is None else budget
    scores = []
    for tree in binary_trees(p, depth):
        splits, _ = splits_and_depth(tree)
        if splits <= max_splits:
            scores.append((majority_errors(score(tree, X, y)[0]), splits))
    for alpha, exact in ALPHAS:
        expected = min(errors + exact * splits for errors, splits in scores)
        opt = bf.binary_optimum(X, y, depth, budget, alpha=alpha)
        assert opt.value == expected
        units = kernels.binary_value(X, y, int(y.max()) + 1, depth, max_splits,
                                     exact.numerator, exact.denominator)
        assert units == expected * exact.denominator == opt.units_value
        splits, tree_depth = dict_shape(opt.tree)
        assert splits <= max_splits and tree_depth <= depth
        assert dict_errors_and_path(opt.tree, X, y)[0] + exact * splits == opt.value


@HYPOTHESIS
@given(data=binary_data(), depth=st.integers(0, 3), budget=st.sampled_from([None, 0, 1, 2, 3]))
def test_binary_matches_enumeration(data, depth, budget):
    check_binary(*data, depth, budget)


def check_threshold_family(X, y, target, depth, trees):
    """Compare continuous (0-1 and squared error) and DPDT optima with the listed trees."""
    n = X.shape[0]
    stats = []
    for tree in trees:
        groups, passed = score(tree, X, y)
        stats.append((majority_errors(groups), passed, squared_error(score(tree, X, target)[0])))
    best_errors = min(e for e, _, _ in stats)
    opt = bf.continuous_optimum(X, y, depth)
    assert opt.value == best_errors == opt.units_value
    assert kernels.continuous_value(X, y, int(y.max()) + 1, depth, "classification") == best_errors
    assert dict_shape(opt.tree)[1] <= depth
    assert dict_errors_and_path(opt.tree, X, y)[0] == best_errors

    best_sse = min(s for _, _, s in stats)
    reg = bf.continuous_optimum(X, target, depth, task="regression")
    assert reg.value == pytest.approx(best_sse, abs=1e-9)
    sse = sum((dict_predict(reg.tree, x)[0] - v) ** 2 for x, v in zip(X, target))
    assert sse == pytest.approx(reg.value, abs=1e-9)

    for alpha, exact in DPDT_ALPHAS:
        expected = min(F(errors, n) + exact * F(passed, n) for errors, passed, _ in stats)
        opt = bf.dpdt_optimum(X, y, depth, alpha=alpha)
        assert opt.value == expected
        errors, passed = dict_errors_and_path(opt.tree, X, y)
        assert F(errors, n) + exact * F(passed, n) == opt.value
        units = kernels.dpdt_value(X, y, int(y.max()) + 1, depth, exact.numerator,
                                   exact.denominator)
        assert units == expected * n * exact.denominator == opt.units_value


@HYPOTHESIS
@given(data=continuous_data(max_n=12, max_p=3))
def test_threshold_depth1_matches_enumeration(data):
    X, y, target = data
    check_threshold_family(X, y, target, 1, grow(global_cuts(X), 1))


@HYPOTHESIS
@given(data=continuous_data(max_n=7, max_p=2))
def test_threshold_depth2_matches_enumeration(data):
    X, y, target = data
    check_threshold_family(X, y, target, 2, grow(global_cuts(X), 2))


@settings(max_examples=15, deadline=None)
@given(data=continuous_data(max_n=8, max_p=3))
def test_threshold_depth3_matches_enumeration(data):
    X, y, target = data
    trees = list(local_trees(X, tuple(range(X.shape[0])), 3, global_cuts(X)))
    check_threshold_family(X, y, target, 3, trees)


def test_largest_sizes_match_enumeration():
    """Hypothesis favours small examples; this seeded case uses the largest tiny sizes."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 12)
    check_branches(rng.integers(0, 3, (12, 3)), y, [3, 3, 3], None)
    check_binary(rng.integers(0, 2, (12, 3)), y, 3, None)
    grid = np.array([-1.5, 0.0, 0.25, 1.0, 2.0, 3.5])
    target = rng.integers(-4, 5, 12) / 2
    C = rng.choice(grid, (12, 3))
    check_threshold_family(C, y, target, 1, grow(global_cuts(C), 1))
    C = rng.choice(grid, (7, 2))
    check_threshold_family(C, y[:7], target[:7], 2, grow(global_cuts(C), 2))
    C = rng.choice(grid, (9, 2))
    trees = list(local_trees(C, tuple(range(9)), 3, global_cuts(C)))
    check_threshold_family(C, y[:9], target[:9], 3, trees)


def test_local_trees_reach_the_global_optimum():
    """The depth-3 enumerator skips degenerate and repeated cuts; at depth 2 that loses nothing."""
    rng = np.random.default_rng(3)
    for _ in range(5):
        X = rng.integers(0, 4, (7, 2)).astype(float)
        y = rng.integers(0, 2, 7)
        every = min(majority_errors(score(t, X, y)[0]) for t in grow(global_cuts(X), 2))
        local = min(majority_errors(score(t, X, y)[0])
                    for t in local_trees(X, tuple(range(7)), 2, global_cuts(X)))
        assert every == local


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda: bf.branches_optimum([0, 1], [0, 1], 0.1), ValueError, "2-D"),
    (lambda: bf.branches_optimum(np.zeros((0, 2)), [], 0.1), ValueError, "at least one row"),
    (lambda: bf.branches_optimum([[0], [-1]], [0, 1], 0.1), ValueError, "non-negative"),
    (lambda: bf.branches_optimum([[0], [0.5]], [0, 1], 0.1), ValueError, "integer codes"),
    (lambda: bf.branches_optimum([["a"], ["b"]], [0, 1], 0.1), TypeError, "real numbers"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1, 1], 0.1), ValueError, "one label per row"),
    (lambda: bf.branches_optimum([[0], [1]], [0, -2], 0.1), ValueError, "non-negative"),
    (lambda: bf.branches_optimum([[0], [1]], [0, np.nan], 0.1), ValueError, "NaN"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], 0), ValueError, r"lam must lie in \(0, 1\]"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], 1.5), ValueError, "lam must lie in"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], -0.1, max_depth=2), ValueError,
     r"\[0, 1\]"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], float("nan")), ValueError, "finite"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], "0.1"), TypeError, "real number"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], 1e-9), ValueError, "too small"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], 0.1, max_depth=-1), ValueError, ">= 0"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], 0.1, max_depth=1.5), TypeError, "integer"),
    (lambda: bf.branches_optimum([[0], [2]], [0, 1], 0.1, n_categories=[2]), ValueError,
     "n_categories"),
    (lambda: bf.branches_optimum([[0], [1]], [0, 1], 0.1, n_categories=[2, 2]), ValueError,
     "one entry per feature"),
    (lambda: bf.branches_optimum((np.arange(200)[:, None] >> np.arange(9)) & 1,
                                 np.zeros(200, int), 0.1), ValueError, "brute-force limit"),
    (lambda: bf.binary_optimum([[0, 2]], [0], 2), ValueError, "only 0 and 1"),
    (lambda: bf.binary_optimum([[0, 1]], [0], 2, alpha=-1), ValueError, "alpha must lie in"),
    (lambda: bf.binary_optimum([[0, 1]], [0], 2, max_splits=-1), ValueError, "max_splits"),
    (lambda: bf.binary_optimum([[0, 1]], [0], None), TypeError, "max_depth"),
    (lambda: bf.binary_optimum(np.zeros((50, 40), int), np.zeros(50, int), 5), ValueError,
     "brute-force limit"),
    (lambda: bf.continuous_optimum([[0.0], [np.nan]], [0, 1], 1), ValueError, "NaN"),
    (lambda: bf.continuous_optimum([[0.0], [np.inf]], [0, 1], 1), ValueError, "infinite"),
    (lambda: bf.continuous_optimum([[0.0], [1.0]], [0, 1], 0), ValueError, "depth must be"),
    (lambda: bf.continuous_optimum([[0.0], [1.0]], [0, 1], 4), ValueError, "<= 3"),
    (lambda: bf.continuous_optimum([[0.0], [1.0]], [0, 1], 1, task="ranking"), ValueError,
     "task"),
    (lambda: bf.continuous_optimum([[0.0], [1.0]], [0.5, 1], 1), ValueError, "integer codes"),
    (lambda: bf.continuous_optimum([[0.0], [1.0]], [[0.5, 1]], 1, task="regression"),
     ValueError, "for regression"),
    (lambda: bf.continuous_optimum(np.arange(600.0).reshape(200, 3), np.zeros(200, int), 3),
     ValueError, "brute-force limit"),
    (lambda: bf.dpdt_optimum([[0.0], [1.0]], [0, 1], 2, alpha=-0.5), ValueError, "alpha"),
    (lambda: bf.dpdt_optimum([[0.0], [1.0]], [0, 1], 0), ValueError, "depth must be >= 1"),
    (lambda: bf.dpdt_optimum([[0.0], [1.0]], [0, 1], 11), ValueError, "<= 10"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_kernel_wrappers_reject_bad_arguments():
    with pytest.raises(ValueError, match="task"):
        kernels.continuous_value(np.zeros((2, 1)), np.zeros(2, np.int64), 1, 1, "ranking")
    with pytest.raises(ValueError, match="n_categories"):
        kernels.branches_value(np.array([[0], [2]]), np.array([0, 1]), np.array([2]), 2, 1, 10, -1)
