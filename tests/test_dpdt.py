"""DPDT (Kohler, Akrour, Preux, KDD 2025): generator = baseline CART, Theorems 5.1 / 5.2, exhaustive = oracle,
the regularisation path, the search contract (resume, events), boosting, the estimator and bad input."""
import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import datasets as skd
from sklearn.ensemble import AdaBoostClassifier
from sklearn.utils.estimator_checks import check_estimator

from odtlab import bruteforce, datasets
from odtlab.cli import main as cli_main
from odtlab.core import dpdt as kernels
from odtlab.search import Search
from odtlab.solvers import solve
from odtlab.solvers.cart import CARTClassifier, CARTRegressor, CARTSolver
from odtlab.solvers.dpdt import DPDTClassifier, DPDTRegressor, DPDTSolver

F = Fraction
SETS = {"iris": skd.load_iris, "wine": skd.load_wine, "breast_cancer": skd.load_breast_cancer}


# ------------------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------------------

@st.composite
def problems(draw, max_n=30, max_p=3, max_k=3, distinct=4):
    """Small classification data with many ties (integer features), labels 0..K-1 all present."""
    n = draw(st.integers(4, max_n))
    p = draw(st.integers(1, max_p))
    K = draw(st.integers(2, max_k))
    X = np.array(draw(st.lists(st.lists(st.integers(0, distinct), min_size=p, max_size=p), min_size=n,
                               max_size=n)), dtype=float)
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    y[:K] = np.arange(K)
    return X, y


def solved(X, y, **kw):
    solver = DPDTSolver(X, y, **kw)
    Search(solver, record="none").run()
    return solver


def cart_split_list(X, y, max_leaf_nodes, w=None, criterion="gini", **kw):
    """(feature, threshold) of the baseline CART's split nodes in the order it splits them."""
    s = CARTSolver(X, y, w, criterion=criterion, max_leaf_nodes=max_leaf_nodes, n_classes=int(y.max()) + 1, **kw)
    Search(s, record="none").run()
    m = int(s.state.counters[0])
    return [(int(s.state.feature[v]), float(s.state.threshold[v])) for v in range(m) if s.state.split[v] == 1]


def candidates_of(solver, state):
    c0, k = solver.state.SI[state, kernels.S_CSTART], solver.state.SI[state, kernels.S_NCAND]
    return [(int(solver.state.CI[c, kernels.K_FEAT]), float(solver.state.CF[c, kernels.KF_THR])) for c in range(c0, c0 + k)]


def state_rows(solver, state):
    """The training rows of a state, following the candidates from the root."""
    path = []
    while solver.state.SI[state, kernels.S_PARENT] >= 0:
        path.append((int(solver.state.SI[state, kernels.S_PCAND]), int(solver.state.SI[state, kernels.S_SIDE])))
        state = solver.state.SI[state, kernels.S_PARENT]
    mask = np.ones(solver.X.shape[0], dtype=bool)
    for c, side in path:
        go = solver.X[:, solver.state.CI[c, kernels.K_FEAT]] <= solver.state.CF[c, kernels.KF_THR]
        mask &= go if side == 1 else ~go
    return np.flatnonzero(mask)


def pruning_lines(tree):
    """(misclassified rows, sum of split-node rows) of every rooted pruning of a fitted tree (Thm 5.1's T_i)."""
    def lines(v):
        errors = int(round(tree.n_samples[v] - tree.value[v].max()))
        out = {(errors, 0)}
        if tree.split[v] != 0:
            left, right = tree._kids(v)
            for el, sl in lines(left):
                for er, sr in lines(right):
                    out.add((el + er, sl + sr + int(round(tree.n_samples[v]))))
        return out
    return lines(0)


def path_alphas(path):
    """Every breakpoint of the path and a point inside each interval (the places where Thm 5.1 must hold)."""
    out = [F(0)]
    for seg in path[1:]:
        out += [seg["alpha"], (out[-1] + seg["alpha"]) / 2]
    return out + [path[-1]["alpha"] + 1]


def path_value(path, alpha):
    return min(seg["loss"] + alpha * seg["expected_splits"] for seg in path)


def assert_path_is_consistent(path, X, y):
    """Breakpoints increase, each tree's recomputed loss and C(T) are the segment's, the last tree is a leaf."""
    n = len(y)
    for a, b in zip(path, path[1:]):
        assert a["alpha"] < b["alpha"] and a["alpha_end"] == b["alpha"]
        assert a["loss"] < b["loss"] and a["expected_splits"] > b["expected_splits"]
    for seg in path:
        tree = seg["tree"]
        assert F(tree.misclassifications(X, y), n) == seg["loss"]
        assert tree.dpdt_objective(X, y, 1, exact=True) - seg["loss"] == seg["expected_splits"]
    assert path[-1]["tree"].splits == 0 and path[-1]["alpha_end"] == float("inf")


# ------------------------------------------------------------------------------------------------------------
# the worked example and the split generator
# ------------------------------------------------------------------------------------------------------------

def test_six_point_example():
    """gen/dpdt-example: CART(3 leaves) offers x0 <= 2 and x0 <= 0.5 at the root; backward induction picks
    x0 <= 0.5 (Q = 0 against -1/3 and -1/2) and reaches 6/6 where CART gets 4/6."""
    data = datasets.load("gen/dpdt-example")
    X, y = data.X, data.y
    solver = solved(X, y, max_depth=2, candidates=(3,))
    assert candidates_of(solver, 0) == [(0, 2.0), (0, 0.5)]
    tree = solver.incumbent()
    assert tree.accuracy(X, y) == 1.0 and tree.feature[0] == 0 and tree.threshold[0] == 0.5
    assert CARTClassifier(max_depth=2).fit(X, y).score(X, y) == pytest.approx(4 / 6)
    # 1 root + 4 children + 6 leaves below the three impure children; 2 + 3 candidates; in the paper's unit
    # (nodes of the inner CART trees): 5 at the root (2 splits, 3 leaves) + 3 in each impure child
    stats = solver.stats()
    assert stats["states"] == 11 and stats["candidates"] == 5 and stats["operations"] == 5 + 3 * 3
    path = solver.path()
    assert [seg["alpha"] for seg in path] == [0, F(1, 4)]  # the 3-split tree until 1/4, then a leaf
    assert_path_is_consistent(path, X, y)


def test_state_solved_caption_names_the_best_action():
    """The StateSolved caption says "the leaf" or names the chosen candidate with its test (it printed the
    raw action index with a "(-1 leaf)" legend before)."""
    data = datasets.load("gen/dpdt-example")
    search = Search(DPDTSolver(data.X, data.y, max_depth=2, candidates=(3,)))
    captions = {e.state: search.describe(e) for e in search.steps() if e.name == "StateSolved"}
    assert captions[0].startswith("State 0 solved: V = -0, best action candidate 1 (x0 <= 0.5), Q(leaf) = -0.5")
    assert "best action the leaf," in captions[2] and "-1" not in captions[2].split("Q(leaf)")[0]
    assert all("(-1 leaf)" not in c for c in captions.values())


@pytest.mark.jit_only
@pytest.mark.parametrize("name", sorted(SETS))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_generator_returns_the_baseline_cart_splits_on_every_state(name, criterion):
    """Theorem 5.1 needs it: the inner CART (presorted, with a fast first scan) equals the baseline CART kernel run with
    max_leaf_nodes on the state's rows alone: same splits in the same order, ties included."""
    X, y = SETS[name](return_X_y=True)
    solver = solved(X, y, max_depth=2, candidates=(6, 4), criterion=criterion)
    for state in range(solver.state.counters[kernels.C_STATES]):
        depth = solver.state.SI[state, kernels.S_DEPTH]
        if depth == 2:
            continue
        rows = state_rows(solver, state)
        Xs, ys = X[rows], y[rows]
        expected = cart_split_list(Xs, ys, (6, 4)[depth], criterion=criterion) if len(set(ys)) > 1 else []
        assert candidates_of(solver, state) == expected, state


@settings(max_examples=40, deadline=None)
@given(problems(max_n=40), st.integers(2, 6), st.integers(1, 3), st.sampled_from([0.0, 0.02]),
       st.booleans())
def test_generator_equals_baseline_cart_on_tied_data(data, leaves, min_leaf, min_decrease, weighted):
    X, y = data
    w = np.random.default_rng(len(y)).integers(1, 4, len(y)).astype(float) if weighted else None
    solver = DPDTSolver(X, y, w, max_depth=1, candidates=(leaves,), min_samples_leaf=min_leaf,
                        min_impurity_decrease=min_decrease)
    Search(solver, record="none").run()
    expected = cart_split_list(X, y, leaves, w, min_samples_leaf=min_leaf, min_impurity_decrease=min_decrease)
    assert candidates_of(solver, 0) == expected


def test_budget_two_is_cart_and_top1_is_cart():
    """B = 1 candidate per state (budget (2,), top-B with one cut) gives CART's accuracy (Thm 5.1;
    (2,) always equals CART)."""
    X, y = skd.load_breast_cancer(return_X_y=True)
    cart = CARTClassifier(max_depth=3).fit(X, y).score(X, y)
    for kw in ({"candidates": (2,)}, {"candidates": (1,), "budget": "splits", "generator": "topb"}):
        est = DPDTClassifier(max_depth=3, **kw).fit(X, y)
        assert est.score(X, y) == cart and est.result_.stats["candidates"] == 7


def test_top_b_and_budget_kinds():
    """Top-B offers the B cuts of lowest CART cost (ties: feature, then threshold); budget="splits" counts
    candidate splits, "leaves" the inner CART's leaves (the reference code)."""
    X, y = skd.load_iris(return_X_y=True)
    X = X[::3]
    y = y[::3]
    solver = solved(X, y, max_depth=1, generator="topb", candidates=(5,), budget="splits")
    cuts = []
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        for a, b in zip(values, values[1:]):
            t = a / 2 + b / 2
            cost = sum(side.size - (np.bincount(side) ** 2).sum() / side.size for side in (y[X[:, f] <= t],
                                                                                         y[X[:, f] > t]))
            cuts.append((round(cost, 9), f, t))
    assert candidates_of(solver, 0) == [(f, t) for _, f, t in sorted(cuts)[:5]]
    X, y = skd.load_wine(return_X_y=True)
    splits = candidates_of(solved(X, y, max_depth=1, candidates=(3,), budget="splits"), 0)
    assert splits == candidates_of(solved(X, y, max_depth=1, candidates=(4,)), 0) == cart_split_list(X, y, 4)
    assert len(splits) == 3


@settings(max_examples=25, deadline=None)
@given(problems(max_n=9, max_p=2), st.integers(1, 2))
def test_exhaustive_regression_is_the_oracle(data, depth):
    X, y = data
    target = y * 1.5 + X[:, 0] ** 2
    est = DPDTRegressor(max_depth=depth, generator="exhaustive").fit(X, target)
    sse = bruteforce.continuous_optimum(X, target, depth, task="regression").value
    assert est.tree_.squared_error(X, target) == pytest.approx(sse, rel=1e-9, abs=1e-9)


@pytest.mark.jit_only
@pytest.mark.parametrize("name, depth, cands, accuracy", [
    ("breast_cancer", 3, (8,), 0.9807), ("breast_cancer", 3, (8, 8), 0.9824), ("breast_cancer", 3, (4, 4, 4), 0.9824),
    ("wine", 4, (8,), 1.0), ("iris", 3, (8,), 0.9867), ("breast_cancer", 3, (8, 3), 0.9824),
    ("wine", 3, (8, 3), 0.9944)])
def test_train_accuracy(name, depth, cands, accuracy):
    """Training accuracies and the speed table of the issue (scikit-learn's datasets, alpha = 0)."""
    X, y = SETS[name](return_X_y=True)
    est = DPDTClassifier(max_depth=depth, candidates=cands).fit(X, y)
    assert round(est.score(X, y), 4) == accuracy


# ------------------------------------------------------------------------------------------------------------
# Theorem 5.1, exhaustive = oracle, Theorem 5.2
# ------------------------------------------------------------------------------------------------------------

def assert_theorem_5_1(X, y, depth, generator="cart", **kw):
    """For every alpha of the regularisation path, L_alpha(DPDT) <= L_alpha(T) for CART's tree T of the same
    depth and every rooted pruning of it. Both sides are piecewise linear in alpha with DPDT's side concave,
    so checking the breakpoints and a point in every interval covers all alpha >= 0."""
    est = DPDTClassifier(max_depth=depth, generator=generator, **kw).fit(X, y)
    path = est.regularisation_path()
    n = len(y)
    cart_kw = {k: v for k, v in kw.items() if k in ("criterion", "min_samples_leaf", "min_impurity_decrease")}
    cart = CARTClassifier(max_depth=depth, **cart_kw).fit(X, y)
    lines = pruning_lines(cart.tree_)
    codes = np.searchsorted(est.classes_, y)
    assert_path_is_consistent(path, X, codes)
    for alpha in path_alphas(path):
        ours = path_value(path, alpha)
        assert ours <= min(F(e, n) + alpha * F(s, n) for e, s in lines)
    return est, cart


@settings(max_examples=60, deadline=None)
@given(problems(), st.integers(1, 3), st.lists(st.integers(1, 6), min_size=0, max_size=3),
       st.sampled_from(["leaves", "splits"]), st.sampled_from(["gini", "entropy"]), st.integers(1, 3),
       st.sampled_from([0.0, 0.01]), st.sampled_from(["cart", "topb"]))
def test_theorem_5_1_on_random_data(data, depth, cands, budget, criterion, min_leaf, min_decrease, generator):
    X, y = data
    assert_theorem_5_1(X, y, depth, generator, candidates=tuple(cands), budget=budget, criterion=criterion,
                       min_samples_leaf=min_leaf, min_impurity_decrease=min_decrease)


@pytest.mark.jit_only
@pytest.mark.parametrize("name", ["sklearn/iris", "sklearn/wine", "sklearn/breast_cancer", "quantbnb/bank"])
def test_theorem_5_1_on_benchmark_sets(name, shared_data):
    data = datasets.load(name)
    est, cart = assert_theorem_5_1(data.X, data.y, 3, candidates=(8, 3))
    assert est.score(data.X, data.y) >= cart.score(data.X, data.y)


@settings(max_examples=40, deadline=None)
@given(problems(max_n=10, max_p=2), st.integers(1, 3))
def test_exhaustive_generator_is_the_oracle_for_every_alpha(data, depth):
    """Prop 4.1: with every split available DPDT is optimal; its path gives the oracle's value at alpha = 0,
    at every breakpoint and between them, and the tree of each alpha attains it."""
    X, y = data
    solver = solved(X, y, max_depth=depth, generator="exhaustive")
    path = solver.path()
    assert_path_is_consistent(path, X, y)
    for alpha in path_alphas(path)[:6]:
        optimum = bruteforce.dpdt_optimum(X, y, depth, alpha)
        assert path_value(path, alpha) == optimum.value
        tree = DPDTClassifier(max_depth=depth, generator="exhaustive", alpha=alpha).fit(X, y).tree_
        assert tree.dpdt_objective(X, y, alpha, exact=True) == optimum.value


@pytest.mark.parametrize("alpha", [0, 0.01, 0.05])
def test_exhaustive_equals_the_oracle_on_a_real_subset(alpha):
    X, y = skd.load_iris(return_X_y=True)
    X, y = X[::6, :3], y[::6]
    est = DPDTClassifier(max_depth=2, generator="exhaustive", alpha=alpha).fit(X, y)
    assert est.tree_.dpdt_objective(X, y, alpha, exact=True) == bruteforce.dpdt_optimum(X, y, 2, alpha).value


@pytest.mark.jit_only
def test_theorem_5_2_xor_depth_two():
    """Def 5.3 at depth 2 (n = 10^4, seed 0): CART's root lands near an edge (0.5272); DPDT with CART(8)
    candidates finds the x = 1/2 root and labels every point; budget (2,) is CART again."""
    data = datasets.load("gen/xor-dpdt")
    X, y = data.X, data.y
    cart = CARTClassifier(max_depth=2).fit(X, y).score(X, y)
    assert cart == pytest.approx(0.5272, abs=1e-4)
    assert DPDTClassifier(max_depth=2, candidates=(8,)).fit(X, y).score(X, y) == 1.0
    assert DPDTClassifier(max_depth=2, candidates=(3,)).fit(X, y).score(X, y) > 0.99
    assert DPDTClassifier(max_depth=2, candidates=(2,)).fit(X, y).score(X, y) == cart


@pytest.mark.jit_only
def test_pathological_data_set_at_depth_three():
    """The authors' pathological set (docs/errata.md, DPDT D4): CART 0.7555, DPDT(8,) 1.0 with root x0 <= 0.5."""
    data = datasets.load("gen/dpdt-pathological")
    X, y = data.X, data.y
    assert CARTClassifier(max_depth=3).fit(X, y).score(X, y) == pytest.approx(0.7555, abs=1e-4)
    est = DPDTClassifier(max_depth=3, candidates=(8,)).fit(X, y)
    assert est.score(X, y) == 1.0 and est.tree_.feature[0] == 0 and abs(est.tree_.threshold[0] - 0.5) < 1e-3
    path = est.regularisation_path()
    assert path[0]["loss"] == 0 and path[-1]["loss"] == F(int((y != 1).sum()), len(y))


# ------------------------------------------------------------------------------------------------------------
# regularisation path
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.jit_only
def test_alpha_picks_the_tree_of_its_interval_and_the_pareto_front_needs_no_refit():
    X, y = skd.load_wine(return_X_y=True)
    est = DPDTClassifier(max_depth=3, candidates=(8, 3)).fit(X, y)
    path = est.regularisation_path()
    assert len(path) >= 4
    assert_path_is_consistent(path, X, y)
    for seg in path[:-1]:
        inside = (seg["alpha"] + seg["alpha_end"]) / 2
        refit = DPDTClassifier(max_depth=3, candidates=(8, 3), alpha=inside).fit(X, y)
        assert refit.tree_.dpdt_objective(X, y, inside, exact=True) == seg["loss"] + inside * seg["expected_splits"]
        assert refit.tree_.splits == seg["tree"].splits
        # at a breakpoint the simpler tree is returned
        at = DPDTClassifier(max_depth=3, candidates=(8, 3), alpha=seg["alpha_end"]).fit(X, y)
        assert at.tree_.splits < seg["tree"].splits
    front = est.get_pareto_front(X, y)
    assert list(front["score"]) == [1 - float(seg["loss"]) for seg in path]
    assert front["expected_splits"].is_monotonic_decreasing and front["alpha"].is_monotonic_increasing
    assert est.search_.solver.iterations == est.result_.stats["iterations"]  # no refit happened


def test_alpha_above_one_minus_one_over_k_gives_a_leaf():
    X, y = skd.load_iris(return_X_y=True)
    est = DPDTClassifier(max_depth=3, alpha=2 / 3).fit(X, y)
    assert est.tree_.splits == 0
    assert est.regularisation_path()[-1]["alpha"] < F(2, 3)


# ------------------------------------------------------------------------------------------------------------
# the search contract and events
# ------------------------------------------------------------------------------------------------------------

def same_tree(a, b):
    return (np.array_equal(a.split, b.split) and np.array_equal(a.feature, b.feature)
            and np.array_equal(a.threshold, b.threshold, equal_nan=True))


def test_interrupted_search_resumes_to_the_same_result_and_stops_with_a_valid_tree():
    X, y = skd.load_wine(return_X_y=True)
    whole = Search(DPDTSolver(X, y, max_depth=3, alpha=0.01)).run()
    search = Search(DPDTSolver(X, y, max_depth=3, alpha=0.01))
    before = search.result()  # nothing expanded yet: the single leaf
    assert before.tree.splits == 0 and before.tree.dpdt_objective(X, y, 0.01) == pytest.approx(before.upper_bound)
    statuses = []
    while not search.done:
        result = search.run(max_iterations=7)
        statuses.append(result.status)
        tree = result.tree  # the current policy, unfinished states as leaves
        assert tree.dpdt_objective(X, y, 0.01) == pytest.approx(result.upper_bound, abs=1e-12)
    assert statuses[0] == "iteration_limit" and statuses[-1] == "done" and len(statuses) > 5
    assert same_tree(search.result().tree, whole.tree)
    assert search.result().stats["states"] == whole.stats["states"]
    assert search.result().stats["iterations"] == whole.stats["iterations"]


def test_bounds_before_during_and_after_the_search():
    """Upper: L_alpha of the current policy (the root leaf before the first iteration); lower: the trivial 0,
    except an exhaustive search, which certifies its value once finished (status "optimal")."""
    X, y = skd.load_iris(return_X_y=True)
    X, y = X[::5], y[::5]
    leaf = 1 - np.bincount(y).max() / len(y)
    for generator, status in (("cart", "done"), ("exhaustive", "optimal")):
        search = Search(DPDTSolver(X, y, max_depth=2, generator=generator, alpha=0.01))
        assert search.solver.bounds() == (0.0, pytest.approx(leaf))
        search.run(max_iterations=2)
        lower, upper = search.solver.bounds()
        assert lower == 0.0 and upper <= leaf
        result = search.run()
        assert result.status == status and result.upper_bound == pytest.approx(result.objective)
        assert result.lower_bound == (result.upper_bound if generator == "exhaustive" else 0.0)
    optimum = bruteforce.dpdt_optimum(X, y, 2, 0.01).value
    assert result.lower_bound == pytest.approx(float(optimum))
    # with a row minimum the exhaustive MDP lacks some trees: no certificate
    assert not DPDTSolver(X, y, max_depth=2, generator="exhaustive", min_samples_leaf=2).exact


def test_tree_for_alpha_is_not_the_widgets_tree_at():
    """The tree for a penalty is ``tree_for_alpha``; ``tree_at(records)`` means the tree after some events."""
    from odtlab.widgets.registry import tree_at_method

    X, y = skd.load_wine(return_X_y=True)
    solver = solved(X, y, max_depth=2, candidates=(4,))
    assert not hasattr(solver, "tree_at") and tree_at_method(solver) is None
    path = solver.path()
    for seg in path:
        assert same_tree(solver.tree_for_alpha(seg["alpha"]), seg["tree"])


@pytest.mark.jit_only
@pytest.mark.parametrize("name, light, full", [("bank", 271, 7990), ("segment", 220, 16300), ("wilt", 274, 11300)])
def test_operations_in_the_papers_unit(name, light, full, shared_data):
    """Table 1's operations are the nodes of the inner CART trees (2k + 1 for k splits); the paper's light and
    full configurations are inner CARTs with 16 leaves: (16, 1, 1) and (16, 16, 16) here, with the paper's
    accuracies (bank 0.971 / 0.980, segment 0.812 / 0.879, wilt 0.994 / 0.995)."""
    data = datasets.load(f"quantbnb/{name}")
    accuracy = {"bank": (0.971, 0.980), "segment": (0.812, 0.879), "wilt": (0.994, 0.995)}[name]
    for cands, paper_ops, paper_acc in (((16, 1, 1), light, accuracy[0]), ((16, 16, 16), full, accuracy[1])):
        est = DPDTClassifier(max_depth=3, candidates=cands, record="none").fit(data.X, data.y)
        ops = est.result_.stats["operations"]
        assert abs(ops - paper_ops) <= 0.02 * paper_ops, (cands, ops)
        assert round(est.score(data.X, data.y), 3) == paper_acc
        solver = est.search_.solver
        n = solver.state.counters[kernels.C_STATES]
        called = (solver.state.SI[:n, kernels.S_DEPTH] < 3) & (solver.state.SF[:n, kernels.SF_IMP] > kernels.EPSILON)
        assert ops == int((2 * solver.state.SI[:n][called, kernels.S_NCAND] + 1).sum())
    # the reference code's (8, 1, 1): 7 root candidates, greedy below
    stats = DPDTClassifier(max_depth=3, candidates=(8, 1, 1), record="none").fit(data.X, data.y).result_.stats
    assert stats["candidates"] <= 7 + 14 + 28 and stats["operations"] <= 15 + 14 * 3 + 28 * 3


def test_steps_yield_the_paper_steps_and_equal_a_full_run():
    X, y = skd.load_iris(return_X_y=True)
    full = Search(DPDTSolver(X, y, max_depth=2, candidates=(4,)), record="full")
    full.run()
    stepped = Search(DPDTSolver(X, y, max_depth=2, candidates=(4,)))
    events = list(stepped.steps())
    assert [repr(e.record) for e in events] == [repr(tuple(r)) for r in full.events().tolist()]  # nan == nan
    names = [e.name for e in events]
    stats = stepped.result().stats
    assert names[0] == "SearchStarted" and names[-2:] == ["PolicyExtracted", "Terminated"]
    assert names.count("StateExpanded") == stats["states"] == names.count("StateSolved")
    assert names.count("BellmanBackup") == stats["backups"]
    candidates = [e for e in events if e.name == "CandidateSplit"]
    assert all(e.generator == 0 for e in candidates)
    assert len([e for e in candidates if e.skip == 0]) == stats["backups"]
    # Q of the chosen backup is the state's V; the root's V is -L_alpha of the tree
    solved_root = [e for e in events if e.name == "StateSolved" and e.state == 0][0]
    assert -solved_root.V == pytest.approx(stepped.result().objective)
    for e in events:
        assert stepped.describe(e)


@pytest.mark.jit_only
def test_record_levels_do_not_change_the_result():
    X, y = skd.load_breast_cancer(return_X_y=True)
    trees = [Search(DPDTSolver(X, y, max_depth=3), record=level).run().tree for level in ("none", "summary", "full")]
    assert same_tree(trees[0], trees[1]) and same_tree(trees[1], trees[2])


@pytest.mark.jit_only
def test_tables_grow_from_small_capacities():
    X, y = skd.load_wine(return_X_y=True)
    solver = DPDTSolver(X, y, max_depth=4, candidates=(6, 6, 3))
    result = Search(solver, record="full").run()
    assert solver.state.SI.shape[0] > 256 and result.stats["states"] > 256
    assert result.tree.accuracy(X, y) == 1.0


# ------------------------------------------------------------------------------------------------------------
# regression, weights, boosting, the estimator
# ------------------------------------------------------------------------------------------------------------

def test_regression_matches_cart_and_the_oracle():
    X, y = skd.load_diabetes(return_X_y=True)
    cart = CARTRegressor(max_depth=3).fit(X, y)
    greedy = DPDTRegressor(max_depth=3, candidates=(2,)).fit(X, y)
    assert greedy.score(X, y) == pytest.approx(cart.score(X, y), rel=1e-12)
    dpdt = DPDTRegressor(max_depth=3, candidates=(8, 3)).fit(X, y)
    assert dpdt.score(X, y) > cart.score(X, y)
    Xs, ys = X[::20, :3], y[::20]
    exhaustive = DPDTRegressor(max_depth=2, generator="exhaustive").fit(Xs, ys)
    sse = bruteforce.continuous_optimum(Xs, ys, 2, task="regression").value
    assert exhaustive.tree_.squared_error(Xs, ys) == pytest.approx(sse, rel=1e-9)
    path = exhaustive.regularisation_path()
    assert path[0]["loss"] == pytest.approx(sse / len(ys), rel=1e-9) and path[-1]["tree"].splits == 0


def test_integer_weights_are_repeated_rows():
    X, y = skd.load_iris(return_X_y=True)
    w = np.random.default_rng(1).integers(1, 4, len(y))
    weighted = DPDTClassifier(max_depth=3, candidates=(6,)).fit(X, y, sample_weight=w.astype(float))
    repeated = DPDTClassifier(max_depth=3, candidates=(6,)).fit(np.repeat(X, w, 0), np.repeat(y, w))
    assert weighted.result_.objective == pytest.approx(repeated.result_.objective, abs=1e-12)
    assert same_tree(weighted.tree_, repeated.tree_)


@settings(max_examples=20, deadline=None)
@given(problems(max_n=8, max_p=2), st.integers(1, 2), st.sampled_from([0, F(1, 10), F(1, 3)]), st.data())
def test_dpdt_objective_weighs_rows_as_the_oracle_on_repeated_rows(data, depth, alpha, draw):
    """Tree.dpdt_objective with integer sample weights = the brute-force optimum on the rows repeated."""
    X, y = data
    w = np.array(draw.draw(st.lists(st.integers(1, 3), min_size=len(y), max_size=len(y))), dtype=float)
    est = DPDTClassifier(max_depth=depth, generator="exhaustive", alpha=alpha).fit(X, y, sample_weight=w)
    oracle = bruteforce.dpdt_optimum(np.repeat(X, w.astype(int), 0), np.repeat(y, w.astype(int)), depth, alpha)
    assert est.tree_.dpdt_objective(X, y, alpha, exact=True, sample_weight=w) == oracle.value
    assert est.tree_.dpdt_objective(X, y, alpha, sample_weight=w) == pytest.approx(float(oracle.value), rel=1e-12)
    assert float(est.result_.objective) == pytest.approx(float(oracle.value), rel=1e-12)


def test_dpdt_objective_of_a_weighted_regression_tree():
    """Regression: the weighted squared error (mean over outputs) plus alpha x weighted split passes, over W; at
    alpha = 0 the brute-force SSE on the rows repeated, and the solver's own objective at any alpha."""
    X, y = skd.load_diabetes(return_X_y=True)
    Xs, ys = X[::25, :2], y[::25]
    w = 1.0 + np.arange(len(ys)) % 3
    est = DPDTRegressor(max_depth=2, generator="exhaustive").fit(Xs, ys, sample_weight=w)
    sse = bruteforce.continuous_optimum(np.repeat(Xs, w.astype(int), 0), np.repeat(ys, w.astype(int)), 2,
                                        task="regression").value
    assert est.tree_.dpdt_objective(Xs, ys, 0, sample_weight=w) * w.sum() == pytest.approx(sse, rel=1e-9)
    penalised = DPDTRegressor(max_depth=2, generator="exhaustive", alpha=50.0).fit(Xs, ys, sample_weight=w)
    assert penalised.tree_.dpdt_objective(Xs, ys, 50.0, sample_weight=w) == pytest.approx(
        penalised.result_.objective, rel=1e-9)
    with pytest.raises(ValueError, match="classification"):
        est.tree_.dpdt_objective(Xs, ys, 0, exact=True)


@pytest.mark.jit_only
def test_adaboost_and_gradient_boosting_with_dpdt_trees():
    X, y = skd.load_breast_cancer(return_X_y=True)
    ada = AdaBoostClassifier(estimator=DPDTClassifier(max_depth=2, candidates=(4,), record="none"), n_estimators=10,
                             random_state=0).fit(X, y)
    stump = AdaBoostClassifier(estimator=CARTClassifier(max_depth=2, record="none"), n_estimators=10,
                               random_state=0).fit(X, y)
    assert ada.score(X, y) > 0.97 and ada.score(X, y) >= stump.score(X, y) - 0.01
    # gradient boosting on squared error: each DPDT regression tree fits the residuals
    Xr, yr = skd.load_diabetes(return_X_y=True)
    pred = np.full(len(yr), yr.mean())
    losses = []
    for _ in range(5):
        tree = DPDTRegressor(max_depth=2, candidates=(4,), record="none").fit(Xr, yr - pred)
        pred = pred + 0.5 * tree.predict(Xr)
        losses.append(((yr - pred) ** 2).mean())
    assert all(b < a for a, b in zip(losses, losses[1:]))


def test_passes_the_scikit_learn_estimator_checks():
    """scikit-learn's checks (read-only and memmapped inputs among them: the solver copies its arrays, so
    they compile no second kernel). Budget (3,), depth 2: two root candidates keep it fast in plain Python."""
    expected = {"check_sample_weight_equivalence_on_dense_data": "zero-weight rows still define thresholds"}
    for est in (DPDTClassifier(max_depth=2, candidates=(3,), record="none"),
                DPDTRegressor(max_depth=2, candidates=(3,), record="none")):
        check_estimator(est, expected_failed_checks=expected)


def test_plain_arrays_skip_no_check_of_the_full_validation():
    """A numpy X / y that scikit-learn's checks would pass unchanged takes the short validation path: the same
    tree and fitted attributes as the same data given as lists (full path); feature names of an earlier
    DataFrame fit are dropped; anything else (NaN, float labels, 2-D y, mismatched lengths) gets the full checks'
    errors."""
    X, y = skd.load_wine(return_X_y=True)
    fast = DPDTClassifier(max_depth=2, record="none").fit(pd.DataFrame(X, columns=[f"c{j}" for j in range(13)]), y)
    assert list(fast.feature_names_in_)[:2] == ["c0", "c1"]
    fast.fit(X.astype(np.float32), y.astype(np.int32))
    slow = DPDTClassifier(max_depth=2, record="none").fit(X.astype(np.float32).tolist(), y.tolist())
    assert not hasattr(fast, "feature_names_in_") and fast.n_features_in_ == slow.n_features_in_ == 13
    assert fast.tree_.to_text() == slow.tree_.to_text() and list(fast.classes_) == list(slow.classes_)
    assert fast.result_.objective == slow.result_.objective
    reg_fast = DPDTRegressor(max_depth=2, record="none").fit(X[:, 1:], X[:, 0])
    reg_slow = DPDTRegressor(max_depth=2, record="none").fit(X[:, 1:].tolist(), X[:, 0].tolist())
    assert reg_fast.tree_.to_text() == reg_slow.tree_.to_text()
    bad = X.copy()
    bad[3, 2] = np.nan
    for Xb, yb, error, match in [(bad, y, ValueError, "NaN"), (X, y + 0.5, ValueError, "Unknown label type"),
                                 (X, y[:-1], ValueError, "inconsistent numbers of samples"),
                                 (X[:0], y[:0], ValueError, "0 sample")]:
        with pytest.raises(error, match=match):
            DPDTClassifier().fit(Xb, yb)
    with pytest.raises(ValueError, match="NaN"):
        DPDTRegressor().fit(X, np.where(y == 1, np.nan, 1.0))
    with pytest.warns(Warning, match="column-vector y"):
        DPDTClassifier(max_depth=1, record="none").fit(X, y.reshape(-1, 1))


def test_parameters_are_declared_once_for_both_estimators():
    """The classifier and the regressor share one parameter list (criterion's default aside): get_params,
    set_params, clone and positional arguments see it; unknown or doubled arguments raise Python's TypeError."""
    from sklearn.base import clone
    c, r = DPDTClassifier(4, (4, 2), alpha=0.1), DPDTRegressor(max_depth=4, candidates=(4, 2), alpha=0.1)
    pc, pr = c.get_params(), r.get_params()
    assert pc.pop("criterion") == "gini" and pr.pop("criterion") == "squared_error" and pc == pr
    assert clone(c.set_params(budget="splits")).get_params()["budget"] == "splits"
    with pytest.raises(TypeError, match="bogus"):
        DPDTClassifier(bogus=1)
    with pytest.raises(TypeError, match="multiple values"):
        DPDTClassifier(3, max_depth=4)


@pytest.mark.parametrize("weights", ["integer", "fractional"])
def test_binned_features_give_the_baseline_cart_splits(weights):
    """Features with few values are scanned from histograms; with integer weights their exact rescan also runs
    on the histogram (sums of integers are exact in any order), with fractional weights on the sorted rows: the
    candidates are the baseline CART's either way."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(120, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, size=120) > 6).astype(int) + (X[:, 2] > 3)
    w = rng.integers(1, 4, size=120).astype(float) * (1.0 if weights == "integer" else 0.3)
    solver = solved(X, y, sample_weight=w, max_depth=2, candidates=(5, 3))
    assert solver.lay[0].min() < 0  # binned
    for state in range(solver.stats()["states"]):
        if solver.state.SI[state, kernels.S_NCAND] > 0:
            rows = state_rows(solver, state)
            leaves = int(solver.budgets[solver.state.SI[state, kernels.S_DEPTH]])
            assert candidates_of(solver, state) == cart_split_list(X[rows], y[rows], leaves, w[rows])


def test_read_only_input_reaches_the_kernel_writable():
    """A read-only X / y / weight (a memmap, a frozen view) would compile a second specialisation of the
    kernel (minutes cold): the solver works on its own writable copies."""
    X, y = skd.load_iris(return_X_y=True)
    w = np.ones(len(y))
    for a in (X, y, w):
        a.flags.writeable = False
    for task, target in (("classification", y), ("regression", X[:, 0].copy())):
        target.flags.writeable = False
        solver = DPDTSolver(X[:, 1:], target, w, task=task, max_depth=1)
        assert all(a.flags.writeable and a.flags.c_contiguous for a in (solver.X, solver.XT, solver.Y, solver.w))


def test_cli_and_registry(capsys):
    out = solve("dpdt", "gen/dpdt-example", depth=2)
    assert out["train_accuracy"] == 1.0 and out["status"] == "done" and out["operations"] > 0
    assert cli_main(["solve", "dpdt", "gen/dpdt-example", "--depth", "2", "--alpha", "0.3", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["splits"] == 0 and printed["objective"] == pytest.approx(0.5)


class FakeClock:
    """Stands for the ``time`` module in :mod:`odtlab.search`: every ``perf_counter()`` reading advances 4 ms, so
    a 10 ms time limit stops a search after exactly one kernel call, as fast under JIT as in plain Python."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 0.004
        return self.now


def test_time_limit_keeps_the_current_policy(monkeypatch):
    import odtlab.search

    X, y = skd.load_iris(return_X_y=True)
    whole = DPDTClassifier(max_depth=3, candidates=(4, 3), record="none").fit(X, y)
    monkeypatch.setattr(odtlab.search, "time", FakeClock())
    monkeypatch.setattr(DPDTSolver, "first_call_work", 1)  # a first kernel call of 16 iterations
    est = DPDTClassifier(max_depth=3, candidates=(4, 3), time_limit=0.01, record="none").fit(X, y)
    assert est.result_.status == "time_limit"
    stopped_at = est.search_.solver.iterations
    assert 0 < stopped_at < whole.result_.stats["iterations"]
    # the current policy (unfinished states as leaves) is a valid tree whose L_alpha is the upper bound
    assert est.tree_.dpdt_objective(X, y, 0) == pytest.approx(est.result_.upper_bound)
    assert est.result_.lower_bound == 0 and est.result_.upper_bound >= whole.result_.upper_bound
    est.search_.run()
    assert est.search_.status == "done" and same_tree(est.search_.result().tree, whole.tree_)


@pytest.mark.jit_only  # the exhaustive generator on digits: seconds as plain Python
def test_a_kernel_call_ends_after_its_work_budget(monkeypatch):
    """Issue 20's overshoot (a 0.05 s limit overshot by 0.9 s): a kernel call ran its whole iteration budget however
    long its iterations took (the exhaustive generator's expansions scan every cut of a state's rows). Given 65,536
    iterations, the first call on digits at depth 4 now returns after about ``WORK_PER_CALL`` units of work (a call
    stops between two iterations: the golden traces show the resumed search is the same search)."""
    from odtlab.core import events as core

    data = datasets.load("sklearn/digits")
    solver = DPDTSolver(data.X, data.y, max_depth=4, generator="exhaustive")
    kernel = solver.kernel(core.LEVEL_NONE)
    events = np.zeros(solver.events_per_iteration, dtype=core.EVENT_DTYPE)
    status, calls = core.STATUS_GROW, []
    while status == core.STATUS_GROW:  # a call that needs larger tables returns early; the driver grows them
        before = solver.iterations
        _, status = solver.advance(kernel, events, 1 << 16)
        calls.append(solver.iterations - before)
        if status == core.STATUS_GROW:
            solver.grow()
    assert status == core.STATUS_BUDGET and 0 < calls[-1] < 1 << 16


# ------------------------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("params, error, match", [
    ({"candidates": (8, 0)}, ValueError, "candidates"), ({"candidates": (-3,)}, ValueError, "candidates"),
    ({"candidates": (2.5,)}, TypeError, "candidates"), ({"candidates": "8"}, TypeError, "candidates"),
    ({"max_depth": 0}, ValueError, "max_depth"), ({"max_depth": 1.5}, TypeError, "max_depth"),
    ({"alpha": -0.1}, ValueError, "alpha"), ({"alpha": float("nan")}, ValueError, "alpha"),
    ({"alpha": float("inf")}, ValueError, "alpha"), ({"generator": "random"}, ValueError, "generator"),
    ({"budget": "nodes"}, ValueError, "budget"), ({"criterion": "squared_error"}, ValueError, "criterion"),
    ({"min_samples_leaf": 0}, ValueError, "min_samples_leaf"), ({"time_limit": 0}, ValueError, "time_limit")])
def test_bad_parameters_get_a_clear_error(params, error, match):
    with pytest.raises(error, match=match):
        DPDTClassifier(**params).fit(np.eye(4), [0, 1, 0, 1])


@pytest.mark.parametrize("X, y, match", [
    (np.array([[0.0], [np.nan], [1.0]]), [0, 1, 0], "NaN"), (np.array([[0.0], [np.inf]]), [0, 1], "inf"),
    (np.zeros((0, 2)), [], "0 sample")])
def test_bad_data_gets_a_clear_error(X, y, match):
    with pytest.raises(ValueError, match=match):
        DPDTClassifier().fit(X, y)
    with pytest.raises(ValueError):
        DPDTRegressor().fit(X, np.asarray(y, dtype=float))


def test_bad_input_to_the_solver_and_weights():
    X, y = np.eye(4), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="NaN"):
        DPDTSolver(np.array([[np.nan], [1.0]]), [0, 1])
    with pytest.raises(ValueError, match="sample_weight"):
        DPDTSolver(X, y, sample_weight=[1, 1, -1, 1])
    with pytest.raises(ValueError):
        DPDTClassifier().fit(X, y, sample_weight=[1, np.nan, 1, 1])
    with pytest.raises(ValueError, match="task"):
        DPDTSolver(X, y, task="ranking")
