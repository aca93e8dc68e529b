"""Quant-BnB at depth 4 (``odtlab.solvers._quantbnb4``): equal to the depth-4 brute force on small data with certified
bounds at every stop, equal to ConTree on quantbnb/ sets, a time limit keeps the incumbent with a valid gap, and the
estimator refuses what depth 4 does not do."""
import warnings

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from odtlab import datasets
from odtlab.core import bruteforce as oracle
from odtlab.search import Search
from odtlab.solvers._quantbnb4 import QuantBnB4Solver
from odtlab.solvers.quantbnb import QuantBnBClassifier, QuantBnBRegressor
from optional import need

JIT = not numba.config.DISABLE_JIT


@st.composite
def problems(draw):
    if draw(st.booleans()):  # few distinct values: ties, constant and binary features (and cheap for the oracle)
        n, p = draw(st.integers(2, 40 if JIT else 12)), draw(st.integers(1, 3))
        X = np.array(draw(st.lists(st.integers(0, 3), min_size=n * p, max_size=n * p)), float).reshape(n, p)
    else:  # the oracle's work grows as (n p)^4 at depth 4
        n, p = draw(st.integers(2, 20 if JIT else 8)), draw(st.integers(1, 2))
        X = np.array(draw(st.lists(st.floats(-5, 5, allow_nan=False, width=16), min_size=n * p,
                                   max_size=n * p)), float).reshape(n, p)
    y = np.array(draw(st.lists(st.integers(0, draw(st.integers(1, 2))), min_size=n, max_size=n)))
    options = dict(s=draw(st.integers(2, 4)), lower_bound=draw(st.sampled_from(["W0", "W1", "W2"])),
                   similarity=draw(st.booleans()), initial=draw(st.sampled_from(["greedy", "leaf"])))
    return X, y, options


@settings(max_examples=40 if JIT else 6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_depth4_optimum_equals_the_brute_force_with_certified_bounds_at_every_stop(problem):
    X, y, options = problem
    opt = oracle.continuous_value(X, y, int(y.max()) + 1, 4, "classification")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        search = Search(QuantBnB4Solver(X, y, n_classes=int(y.max()) + 1, **options), record="none")
    while not search.done:  # stop after every iteration: the bounds must hold at each stop
        result = search.run(max_iterations=1)
        assert result.lower_bound <= opt <= result.upper_bound
        assert result.tree.misclassifications(X, y) == result.upper_bound == result.objective
    result = search.result()
    assert result.optimal and result.objective == result.lower_bound == opt
    assert result.tree.misclassifications(X, y) == opt and result.tree.depth <= 4


@pytest.mark.jit_only  # a minute as plain Python; the hypothesis test covers depth 4 there
def test_the_estimator_at_depth_4_predicts_with_its_reported_loss():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 8, size=(200, 3)).astype(float)  # 8 values a feature: the oracle takes half a second
    y = ((X[:, 0] - 3.5) * (X[:, 1] - 3.5) > 0).astype(int) ^ (rng.random(200) < 0.2)
    clf = QuantBnBClassifier(max_depth=4).fit(X, y)
    assert clf.result_.optimal and clf.get_depth() <= 4
    assert np.count_nonzero(clf.predict(X) != y) == clf.result_.objective
    assert clf.result_.objective == oracle.continuous_value(X, y, 2, 4, "classification") == 28


@pytest.mark.jit_only  # as plain Python a kernel call on raisin runs far past the 0.5 s limit
def test_a_time_limit_returns_the_incumbent_with_a_valid_gap():
    data = datasets.load("quantbnb/raisin")  # ConTree's depth-4 optimum: 59 misclassifications
    X, y = np.asarray(data.X, float), np.asarray(data.y)
    clf = QuantBnBClassifier(max_depth=4, time_limit=0.5).fit(X, y)
    result = clf.result_
    assert result.status == "time_limit" and not result.optimal
    assert result.lower_bound <= 59 <= result.upper_bound == result.objective
    assert np.count_nonzero(clf.predict(X) != y) == result.objective and result.gap > 0


@pytest.mark.peers
@pytest.mark.parametrize("name", ["quantbnb/bank", "quantbnb/wilt"])
def test_same_depth4_optimum_as_contree(name):
    """bank and wilt: about a second each with both solvers (raisin takes a minute, rice over five)."""
    pycontree = need("pycontree")
    data = datasets.load(name)
    X, y = np.asarray(data.X, float), np.asarray(data.y)
    errors = int(np.count_nonzero(pycontree.ConTree(max_depth=4).fit(X, y).predict(X) != y))
    ours = QuantBnBClassifier(max_depth=4, record="none").fit(X, y)
    assert ours.result_.optimal
    assert ours.result_.objective == errors == int(np.count_nonzero(ours.predict(X) != y))


def test_depth_4_refuses_regression_and_kept_ties_and_depth_5():
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="max_depth=4 solves classification"):
        QuantBnBRegressor(max_depth=4).fit(X, y.astype(float))
    with pytest.raises(ValueError, match="keep_ties=False"):
        QuantBnBClassifier(max_depth=4, keep_ties=True).fit(X, y)
    with pytest.raises(ValueError, match="max_depth"):
        QuantBnBClassifier(max_depth=5).fit(X, y)
