"""A researcher's own lower bound in MurTree (issue 18, step 5; odtlab.bounds).

A sound bound finds the oracle's optimum, with every value it contributed verified by ``check_bound``; an unsound
one is caught naming its subproblem; bad functions get a clear error; the kernel compiled for a bound is not
compiled again for the next bound, nor by the next process.
"""
from fractions import Fraction
import os
from pathlib import Path
import subprocess
import sys
import textwrap
import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from odtlab import MurTreeClassifier, datasets
from odtlab.bounds import UnsoundBoundError, trivial
from odtlab.bruteforce import binary_optimum, continuous_optimum
from odtlab.core._jit import COMPILED
from odtlab.search import Search
from odtlab.solvers.murtree import MurTreeSolver
from strategies import labelled_binary

ROOT = Path(__file__).resolve().parents[1]


def classes_left(counts, depth, nodes):
    """n feature nodes make at most n + 1 leaves, which predict at most n + 1 classes: every row of the other
    classes is misclassified, at least the weight of the K - (n + 1) smallest classes."""
    s = np.sort(counts)
    k = len(s) - (nodes + 1)
    return float(s[:k].sum()) if k > 0 else 0.0


def leaf_cost(counts, depth, nodes):
    """Unsound: the leaf's misclassifications, as if no split could help."""
    return float(counts.sum() - counts.max())


@st.composite
def problems(draw):
    X, y = draw(labelled_binary((2, 16), (1, 4), (2, 5)))
    depth = draw(st.integers(1, 3))
    nodes = draw(st.one_of(st.none(), st.integers(1, 2 ** depth - 1)))
    similarity = draw(st.booleans())
    return X, y, depth, nodes, similarity


def solve(X, y, **kw):
    solver = MurTreeSolver(X, y, n_classes=int(np.max(y)) + 1, **kw)
    return solver, Search(solver, record="none").run()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_a_sound_bound_finds_the_oracles_optimum_and_passes_its_check(problem):
    X, y, depth, nodes, similarity = problem
    kw = dict(max_depth=depth, max_nodes=nodes, similarity_bound=similarity)
    own, result = solve(X, y, lower_bound=classes_left, check_bound=True, **kw)
    default, _ = solve(X, y, **kw)
    optimum = binary_optimum(X, y, depth, nodes).value
    assert result.status == "optimal"
    assert own.exact_bounds() == default.exact_bounds() == (optimum, optimum)
    assert result.tree.murtree_objective(X, y, 0, exact=True) == optimum


def test_the_class_bound_raises_bounds_and_each_raise_is_verified():
    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 2, size=(80, 5)), rng.integers(0, 6, size=80)
    est = MurTreeClassifier(max_depth=3, max_nodes=3, lower_bound=classes_left, check_bound=True,
                            keep_search=True).fit(X, y)
    solver = est.search_.solver
    assert solver.user_bound.log[1 + 4] > 0  # BL_RAISES: the bound did raise subproblems' bounds
    assert len(solver.checked_bounds) > 0  # ... and each distinct one was solved and compared
    assert est.result_.objective == binary_optimum(X, y, 3, 3).value


def test_an_unsound_bound_is_caught_naming_the_subproblem():
    X = np.array([[0], [0], [1], [1]] * 3)
    y = np.array([0, 0, 1, 1] * 3)  # one split is perfect; the leaf misclassifies 6
    kw = dict(max_depth=1, greedy_start=False, lower_bound=leaf_cost)  # greedy would find the split: UB = -1
    with pytest.raises(UnsoundBoundError, match=r"depth 1 and 1 feature nodes .*weight 12, class counts "
                                                r"\[6, 6\]\) it returned 6\.0, but the optimal subtree there "
                                                r"misclassifies 0"):
        MurTreeClassifier(check_bound=True, **kw).fit(X, y)
    # unchecked, the same bound silently returns a wrong "optimum": the reason for check_bound
    wrong = MurTreeClassifier(**kw).fit(X, y)
    assert wrong.result_.objective == 6 > binary_optimum(X, y, 1).value == 0


def negative_below_root(counts, depth, nodes):
    return -1.0 if depth < 3 else 0.0


def nan_bound(counts, depth, nodes):
    return np.nan


@pytest.mark.parametrize("bound, error, text", [
    (3, InvalidParameterError, "lower_bound"),
    (lambda counts, depth: 0.0, TypeError, r"three arguments \(counts, depth, nodes\)"),
    (lambda counts, depth, nodes: (0.0, 1.0), TypeError, "must return a number .* tuple"),
    (lambda counts, depth, nodes: "0", TypeError, "must return a number .* str"),
    (nan_bound, ValueError, r"must return a number >= 0 .* nan on the whole training set"),
    (lambda counts, depth, nodes: -2, ValueError, r"returned -2\.0 on the whole training set"),
    (lambda counts, depth, nodes: counts["x"], TypeError, "lower_bound failed on the whole training set"),
    (negative_below_root, ValueError, r"returned -1\.0 on the subproblem with depth 2 and \d feature nodes \(\d+ distinct rows"),
])
def test_bad_bounds_get_a_clear_error(bound, error, text):
    X = np.array([[0, 1, 0], [1, 0, 1], [1, 1, 0], [0, 0, 1], [0, 1, 1], [1, 0, 0]] * 2)
    y = np.array([0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1])
    with pytest.raises(error, match=text):
        MurTreeClassifier(max_depth=3, greedy_start=False, lower_bound=bound).fit(X, y)


def uses_a_fraction(counts, depth, nodes):
    return float(Fraction(int(counts.min()), 2))  # plain Python runs it; numba has no Fraction


@pytest.mark.skipif(not COMPILED, reason="numba compiles the bound only when the kernels are compiled")
def test_a_bound_numba_cannot_compile_gets_a_clear_error():
    X = np.array([[0], [1]] * 2)
    y = np.array([0, 1] * 2)
    with pytest.raises(TypeError, match=r"numba cannot compile lower_bound uses_a_fraction as float64"):
        MurTreeClassifier(max_depth=1, lower_bound=uses_a_fraction).fit(X, y)


def test_a_regressor_refuses_a_bound():
    with pytest.raises(ValueError, match="lower_bound is for classification"):
        MurTreeSolver(np.array([[0], [1]]), np.array([0.0, 1.0]), task="regression", lower_bound=classes_left)


CHILD = """
import numpy as np, json, sys
from odtlab import MurTreeClassifier
from odtlab.core import murtree as mt
from odtlab.core import events as core
sys.path.insert(0, {tests!r})
from test_bounds import classes_left
rng = np.random.default_rng(0)
X, y = rng.integers(0, 2, size=(40, 4)), rng.integers(0, 5, size=40)
plain = MurTreeClassifier(max_depth=2, record="none").fit(X, y)
est = MurTreeClassifier(max_depth=2, lower_bound=classes_left, record="none").fit(X, y)
kernel = mt.murtree_kernel
print(json.dumps([int(sum(kernel.stats.cache_misses.values())), int(sum(kernel.stats.cache_hits.values())),
                  int(est.result_.objective), int(plain.result_.objective)]))
"""


@pytest.mark.slow
@pytest.mark.skipif(not COMPILED, reason="numba's disk cache")
def test_one_kernel_serves_searches_with_and_without_a_bound_and_a_second_process_loads_it(tmp_path):
    """From an empty cache, a fit without a bound and one with a bound compile MurTree's kernel once (the bound
    group has the same types without a bound: odtlab.solvers.murtree.no_bound); a second process loads it."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = CHILD.format(tests=str(ROOT / "tests"))
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
            for _ in range(2)]
    first, second = (eval(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert first[0] == 1 and first[2] == first[3]  # one compilation for both fits, same optimum
    assert second == [0, 1, first[2], first[3]]  # loaded from the disk cache


def test_the_registry_passes_a_bound_by_name_as_the_cli_and_the_runner_do():
    from odtlab import solvers
    est = solvers.make_estimator("murtree", depth=1, lower_bound="odtlab.bounds:trivial", check_bound=1)
    assert est.get_params()["lower_bound"] == "odtlab.bounds:trivial"
    X, y = np.array([[0], [1]] * 3), np.array([0, 1, 1, 1, 0, 1])
    assert est.fit(X, y).result_.objective == binary_optimum(X, y, 1).value
    with pytest.raises(ValueError, match="'nosuch:f' names no function"):
        solvers.make_estimator("murtree", depth=1, lower_bound="nosuch:f").fit(X, y)


def test_a_search_with_a_bound_pickles_and_resumes():
    import pickle
    rng = np.random.default_rng(5)
    X, y = rng.integers(0, 2, size=(60, 5)), rng.integers(0, 5, size=60)
    solver = MurTreeSolver(X, y, max_depth=3, max_nodes=3, lower_bound=classes_left)
    search = Search(solver, record="none")
    search.run(max_iterations=2)
    again = pickle.loads(pickle.dumps(search))
    result = again.run()
    assert result.status == "optimal" and again.solver.exact_bounds()[1] == binary_optimum(X, y, 3, 3).value


# -- Quant-BnB: QuantBnBClassifier(bound=...), the same functions (odtlab.solvers.quantbnb's docstring) -----------
def quantbnb(X, y, **kw):
    from odtlab import QuantBnBClassifier
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant features are dropped with a warning
        return QuantBnBClassifier(keep_search=True, **kw).fit(X, y)


@st.composite
def continuous_problems(draw):
    n = draw(st.integers(2, 14))
    p = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.integers(0, 4), min_size=n * p, max_size=n * p)), float).reshape(n, p)
    y = np.array(draw(st.lists(st.integers(0, draw(st.integers(1, 6))), min_size=n, max_size=n)))
    options = dict(depth=draw(st.sampled_from([2, 3])), s=draw(st.integers(2, 4)),
                   lower_bound=draw(st.sampled_from(["W0", "W1", "W2"])), keep_ties=draw(st.booleans()),
                   similarity=draw(st.booleans()), bound=draw(st.sampled_from([trivial, classes_left])))
    return X, y, options


@settings(max_examples=60 if COMPILED else 8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(continuous_problems())
def test_quantbnb_with_a_sound_bound_finds_the_oracles_optimum_and_passes_its_check(problem):
    from odtlab.solvers.quantbnb import QuantBnBSolver
    X, y, options = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant features are dropped with a warning
        solver = QuantBnBSolver(X, y, n_classes=int(y.max()) + 1, check_bound=True, **options)
    result = Search(solver, record="none").run()
    optimum = continuous_optimum(X, y, options["depth"]).value
    assert result.status == "optimal" and result.objective == optimum
    assert result.tree.misclassifications(X, y) == optimum


def segment(rows):
    data = datasets.load("quantbnb/segment")
    return np.asarray(data.X, float)[:rows], np.asarray(data.y)[:rows]


@pytest.mark.parametrize("depth, rows, work", [
    (2, None, "iterations"),
    pytest.param(3, 300, "inner_solves", marks=pytest.mark.jit_only),  # minutes as plain Python
])
def test_quantbnb_class_bound_keeps_the_optimum_and_cuts_the_work(depth, rows, work):
    X, y = segment(rows)  # 7 classes of about equal size: a depth-2 tree predicts at most 4 of them
    plain = quantbnb(X, y, max_depth=depth, record="none")
    own = quantbnb(X, y, max_depth=depth, record="none", bound=classes_left)
    assert own.result_.status == plain.result_.status == "optimal"
    assert own.result_.objective == plain.result_.objective == own.tree_.misclassifications(X, y)
    assert own.result_.stats["user_bound_raises"] > 0  # the bound raised bounds ...
    assert own.result_.stats[work] < plain.result_.stats[work]  # ... and the search did less


@pytest.mark.jit_only  # minutes as plain Python; the unsound-bound test checks as plain Python
def test_quantbnb_checks_every_value_that_raised_a_bound():
    X, y = segment(120)
    est = quantbnb(X, y, max_depth=3, bound=classes_left, check_bound=True)
    assert est.result_.stats["user_bound_raises"] > 0 and est.result_.stats["user_bound_checks"] > 0
    assert est.result_.objective == quantbnb(X, y, max_depth=3).result_.objective


@pytest.mark.parametrize("depth", [2, 3])
def test_quantbnb_catches_an_unsound_bound_naming_its_rows(depth):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.integers(0, 7, size=60)
    with pytest.raises(UnsoundBoundError, match=r"bound is not sound: on the \d+ rows with \d+ < rank <= \d+ of "
                                                r"feature x\d \(depth 2, 3 feature nodes, class counts \[.*\]\) it "
                                                r"returned \d+\.0, but the optimal subtree there misclassifies \d+"):
        quantbnb(X, y, max_depth=depth, bound=leaf_cost, check_bound=True)
    # unchecked, the same bound prunes the optimum away: the reason for check_bound
    wrong = quantbnb(X, y, max_depth=depth, bound=leaf_cost)
    assert wrong.result_.objective > quantbnb(X, y, max_depth=depth).result_.objective


def negative_on_small_sets(counts, depth, nodes):
    return -1.0 if counts.sum() < 12 else 0.0


@pytest.mark.parametrize("bound, error, text", [
    (3, InvalidParameterError, "'bound' parameter"),
    (lambda counts, depth: 0.0, TypeError, r"bound must take three arguments \(counts, depth, nodes\)"),
    (lambda counts, depth, nodes: (0.0, 1.0), TypeError, "bound must return a number .* tuple"),
    (nan_bound, ValueError, r"bound must return a number >= 0 .* nan on the whole training set"),
    (lambda counts, depth, nodes: counts["x"], TypeError, "bound failed on the whole training set"),
    (negative_on_small_sets, ValueError, r"returned -1\.0 on the \d+ rows with \d+ < rank <= \d+ of feature x\d"),
])
@pytest.mark.parametrize("depth", [2, 3])
def test_quantbnb_bad_bounds_get_a_clear_error(bound, error, text, depth):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 2)), rng.integers(0, 3, size=40)
    with pytest.raises(error, match=text):
        quantbnb(X, y, max_depth=depth, bound=bound)


def test_quantbnb_regressor_and_depth_4_refuse_a_bound():
    from odtlab import QuantBnBRegressor
    with pytest.raises(ValueError, match="bound is for classification"):
        QuantBnBRegressor(bound=classes_left).fit(np.array([[0.0], [1.0], [2.0]]), np.array([0.0, 1.0, 3.0]))
    with pytest.raises(ValueError, match="bound is used at max_depth 2 and 3 only"):
        quantbnb(np.array([[0.0], [1.0], [2.0]]), np.array([0, 1, 1]), max_depth=4, bound=classes_left)


@pytest.mark.jit_only  # minutes as plain Python (depth 3 on 150 rows)
def test_quantbnb_takes_a_bound_by_name_from_the_registry_and_resumes_after_pickling():
    import pickle
    from odtlab import solvers
    est = solvers.make_estimator("quantbnb", depth=3, bound="test_bounds:classes_left", check_bound=1)
    assert est.get_params()["bound"] == "test_bounds:classes_left"
    X, y = segment(150)
    search = est.search(X, y)
    search.run(max_iterations=3)
    again = pickle.loads(pickle.dumps(search))
    assert again.run().objective == quantbnb(X, y, max_depth=3).result_.objective
    with pytest.raises(ValueError, match="^bound 'nosuch:f' names no function"):
        solvers.make_estimator("quantbnb", depth=2, bound="nosuch:f").fit(X, y)


# ---- Branches: BranchesClassifier(bound=f), f(counts, depth, penalty) bounds the least regularised cost ----
def split_leaves(counts, depth, penalty):
    """Sound on binary features: S two-way splits make S + 1 leaves, which predict at most S + 1 classes, so
    a subtree with S splits costs at least the rows of the other classes plus S * penalty."""
    c = np.sort(counts)[::-1]
    best = float(c.sum() - c[0])
    top = c[0]
    for s in range(1, c.shape[0]):
        top += c[s]
        best = min(best, float(c.sum() - top) + penalty * s)
    return best


def paper_bound(counts, depth, penalty):
    """The Purification Bound (Eq. 8) as a cost: the leaf's errors, or one split's penalty."""
    return min(float(counts.sum() - counts.max()), penalty)


def branches_leaf_cost(counts, depth, penalty):
    """Unsound: the leaf's errors, as if no split could help."""
    return float(counts.sum() - counts.max())


def branches(X, y, **kw):
    from odtlab import BranchesClassifier
    return BranchesClassifier(**kw).fit(X, y)


@st.composite
def categorical_problems(draw):
    X, y = draw(labelled_binary((2, 14), (1, 4), (2, 5)))
    lam = draw(st.sampled_from(["0.01", "0.05", "0.1", "0.25"]))
    depth = draw(st.one_of(st.none(), st.integers(1, 3)))
    return X, y, lam, depth


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(categorical_problems())
def test_branches_with_a_sound_bound_finds_the_oracles_optimum_and_passes_its_check(problem):
    from odtlab.bruteforce import branches_optimum
    X, y, lam, depth = problem
    if len(np.unique(y)) < 2:
        return
    oracle = branches_optimum(X, y, Fraction(lam), max_depth=depth).value
    for bound in (split_leaves, paper_bound):
        clf = branches(X, y, lam=lam, max_depth=depth, bound=bound, check_bound=True)
        assert clf.search_.solver.bounds_exact() == (oracle, oracle)
        codes = np.searchsorted(clf.classes_, y)  # the tree predicts class codes
        assert clf.search_.solver.incumbent().branches_objective(X, codes, Fraction(lam), exact=True) == oracle


@pytest.mark.jit_only  # zoo-f: 3 min as plain Python
@pytest.mark.parametrize("name, lam", [("zoo-f", "0.01"), ("zoo-f", "0.05")])
def test_branches_class_bound_keeps_the_optimum_and_cuts_the_iterations(name, lam):
    d = datasets.load(f"branches/{name}")
    plain = branches(d.X, d.y, lam=lam)
    bounded = branches(d.X, d.y, lam=lam, bound=split_leaves)
    assert bounded.result_.objective == plain.result_.objective
    assert bounded.result_.stats["iterations"] < plain.result_.stats["iterations"]
    assert bounded.search_.solver.user_bound.nlog[1] > 0  # branches the bound settled


@pytest.mark.slow
def test_branches_checks_every_value_that_settled_a_branch():
    d = datasets.load("branches/zoo-f")
    clf = branches(d.X, d.y, lam="0.01", bound=split_leaves, check_bound=True)
    solver = clf.search_.solver
    assert 0 < len(solver.checked_bounds) <= solver.user_bound.nlog[1]  # each branch solved once
    for tests, optimum in solver.checked_bounds.items():  # f >= e(l) and f <= optimum <= e(l): the leaf is optimal
        rows = np.all([d.X[:, i] == j for i, j in tests], axis=0)
        assert optimum == rows.sum() - np.bincount(d.y[rows]).max()


def test_branches_catches_an_unsound_bound_naming_its_branch():
    d = datasets.load("branches/monk1-o")
    with pytest.raises(UnsoundBoundError, match=r"bound is not sound: on the branch x\d=\d .*returned \d+\.0, "
                                                 r"but the optimal subtree there costs \d+(/\d+)? \(regularised\)"):
        branches(d.X, d.y, lam="0.01", bound=branches_leaf_cost, check_bound=True)
    # unchecked, the same bound prunes the optimum away: the reason for check_bound
    wrong = branches(d.X, d.y, lam="0.01", bound=branches_leaf_cost)
    assert wrong.result_.objective < branches(d.X, d.y, lam="0.01").result_.objective


def branches_negative_on_small_branches(counts, depth, penalty):
    return -1.0 if counts.sum() < 40 else 0.0


@pytest.mark.parametrize("bound, error, text", [
    (3, InvalidParameterError, "'bound' parameter"),
    (lambda counts, depth: 0.0, TypeError, r"bound must take three arguments \(counts, depth, penalty\)"),
    (lambda counts, depth, penalty: (0.0, 1.0), TypeError, "bound must return a number .* tuple"),
    (lambda counts, depth, penalty: float("nan"), ValueError, r"bound must return a number >= 0 .* nan on the whole"),
    (lambda counts, depth, penalty: counts["x"], TypeError, "bound failed on the whole training set"),
    (branches_negative_on_small_branches, ValueError, r"returned -1\.0 on the branch x\d=\d"),
])
def test_branches_bad_bounds_get_a_clear_error(bound, error, text):
    d = datasets.load("branches/monk1-o")
    with pytest.raises(error, match=text):
        branches(d.X, d.y, lam="0.01", bound=bound)


@pytest.mark.jit_only  # zoo-f: 20 s as plain Python
def test_branches_takes_a_bound_by_name_from_the_registry_and_resumes_after_pickling():
    import pickle
    from odtlab import solvers
    est = solvers.make_estimator("branches", lam="0.05", bound="test_bounds:split_leaves")
    assert est.get_params()["bound"] == "test_bounds:split_leaves"
    d = datasets.load("branches/zoo-f")
    search = est.search(d.X, d.y)
    search.run(max_iterations=50)
    settled = int(search.solver.user_bound.nlog[1])
    again = pickle.loads(pickle.dumps(search))  # the bound's cfunc compiled again (odtlab.bounds.PicklesUserBound)
    assert again.run().objective == branches(d.X, d.y, lam="0.05").result_.objective
    assert again.solver.user_bound.nlog[1] > settled  # the bound settles branches after the resume
