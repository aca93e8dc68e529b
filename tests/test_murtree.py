"""MurTree against the brute-force oracle, the paper's worked example and benchmark values, the resumable
search contract (interrupt + resume, anytime bounds, events) and the estimator's input checks; the regressor
(squared error) against the brute-force oracle and a small recursive oracle for node budgets and alpha."""
from fractions import Fraction
import functools
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import check_estimator

from odtlab import datasets
from odtlab.bruteforce import binary_optimum, continuous_optimum
from odtlab.core import murtree as mt
from odtlab.search import Search
from odtlab.solvers import make_estimator, solve
from odtlab.solvers.murtree import MurTreeClassifier, MurTreeRegressor, MurTreeSolver
from strategies import labelled_binary
from optional import need

OPTIONS = dict(cache=st.sampled_from(["dataset", "branch", None]), similarity_bound=st.booleans(),
               incremental=st.booleans(), depth_two=st.booleans(),
               node_order=st.sampled_from(["dynamic", "post-order"]),
               feature_order=st.sampled_from(["in-order", "gini"]), reduce_features=st.booleans(),
               iterative_deepening=st.booleans(), greedy_start=st.booleans(), bound_probing=st.booleans())


@st.composite
def problems(draw):
    X, y = draw(labelled_binary((1, 18), (1, 5), (2, 3)))
    if draw(st.booleans()):  # a complement and a duplicate column, as in the DL files
        X = np.column_stack([X, 1 - X[:, 0], X[:, -1]])
    depth = draw(st.integers(1, 3))
    nodes = draw(st.one_of(st.none(), st.integers(1, 2 ** depth - 1)))
    alpha = draw(st.sampled_from([0, 0, 0.5, 1, 1.5, 2, 3]))
    smallest = draw(st.booleans())
    options = {k: draw(v) for k, v in OPTIONS.items()}
    return X, y, depth, nodes, alpha, smallest, options


def run(X, y, record="none", **kw):
    solver = MurTreeSolver(X, y, n_classes=int(np.max(y)) + 1, **kw)
    search = Search(solver, record=record)
    return search, search.run()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_equals_the_brute_force_optimum(problem):
    X, y, depth, nodes, alpha, smallest, options = problem
    search, result = run(X, y, max_depth=depth, max_nodes=nodes, alpha=alpha, smallest=smallest, **options)
    optimum = binary_optimum(X, y, depth, nodes, alpha)
    lower, upper = search.solver.exact_bounds()
    assert result.status == "optimal"
    assert lower == upper == optimum.value
    assert search.solver.state.ent_lb.max() <= len(y)  # never an infinite RLB (§4.6.3)
    tree = result.tree
    assert tree.murtree_objective(X, y, alpha, exact=True) == upper  # the returned tree re-scores to it
    assert tree.depth <= depth and tree.splits <= (2 ** depth - 1 if nodes is None else nodes)
    if tree.splits and (alpha > 0 or smallest):  # Algorithms 6 and 7 return a smallest optimal tree
        assert binary_optimum(X, y, depth, tree.splits - 1, alpha).value > optimum.value


def worked_example():
    data = datasets.load("gen/murtree-example")
    return np.asarray(data.X), np.asarray(data.y)


def test_worked_example_a_counts_and_optima():
    X, y = worked_example()  # gen/murtree-example: leaf 2, best depth-two trees with 1/2/3 nodes cost 2/1/1
    search, result = run(X, y, record="full", max_depth=2, reduce_features=False)
    assert result.objective == 1
    d2 = [e for e in search.trace().itertuples() if e.event == "DepthTwoSolve"]
    assert len(d2) == 1 and (d2[0].i0, d2[0].f0, d2[0].f1, d2[0].value) == (6, 2, 1, 1)
    _, deep = run(X, y, max_depth=3, smallest=True)
    assert deep.objective == 0 and deep.tree.splits == 4  # "0 errors with 4 feature nodes"


@pytest.mark.parametrize("depth, expected", [(2, 137), (3, 112), pytest.param(4, 91, marks=pytest.mark.jit_only)])
def test_anneal_benchmark_values(depth, expected):
    data = datasets.load("dl/anneal")
    est = MurTreeClassifier(max_depth=depth, record="none").fit(data.X, data.y)
    assert est.result_.objective == expected and est.result_.optimal
    assert est.tree_.misclassifications(data.X, np.searchsorted(est.classes_, data.y)) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name, expected", [("dl/australian-credit", 56), ("dl/german-credit", 204)])
def test_depth_four_fifteen_node_benchmark_values(name, expected):
    data = datasets.load(name)
    est = MurTreeClassifier(max_depth=4, max_nodes=15, record="none").fit(data.X, data.y)
    assert est.result_.objective == expected and est.result_.optimal


@pytest.mark.jit_only
def test_every_technique_switched_off_gives_the_same_optimum():
    data = datasets.load("dl/anneal")
    X, y = np.asarray(data.X), np.asarray(data.y)
    base = run(X, y, max_depth=4)[1]
    assert base.stats["cache_entries"] > 1024  # the cache arrays grew during the search
    assert base.stats["similarity_prunes"] > 0 and base.stats["depth_two_incremental"] > 0
    for off in ({"similarity_bound": False}, {"incremental": False}, {"cache": "branch"}, {"cache": None},
                {"node_order": "post-order"}, {"feature_order": "in-order"}, {"reduce_features": False},
                {"greedy_start": False}, {"iterative_deepening": True}):
        assert run(X, y, max_depth=4, **off)[1].objective == 91, off
    for nodes, alpha in ((5, 0), (None, 2), (None, 0.5)):
        result = run(X, y, max_depth=3, max_nodes=nodes, alpha=alpha)[1]
        assert result.tree.murtree_objective(X, y, alpha) == result.objective


def small_problem():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(60, 7))
    y = (X[:, 0] ^ X[:, 3]) | (rng.random(60) < 0.2)
    return X, y.astype(int)


def tree_key(tree):
    return tree.to_dict()


@pytest.mark.parametrize("kw", [{"max_depth": 3}, {"max_depth": 3, "alpha": 1}, {"max_depth": 3, "smallest": True},
                                {"max_depth": 3, "max_nodes": 4, "cache": "branch"}])
def test_interrupt_and_resume_equals_an_uninterrupted_run(kw):
    X, y = small_problem()
    whole_search, whole = run(X, y, **kw)
    search = Search(MurTreeSolver(X, y, **kw), record="summary")
    statuses = []
    while not search.done:
        statuses.append(search.run(max_iterations=1).status)
    assert statuses[0] == "iteration_limit" and statuses[-1] == "optimal" and len(statuses) > 5
    assert tree_key(search.result().tree) == tree_key(whole.tree)
    assert search.solver.stats() == whole_search.solver.stats()
    assert np.array_equal(search.solver.state.counters, whole_search.solver.state.counters)


@pytest.mark.parametrize("cache", ["dataset", "branch"])
def test_growing_the_cache_mid_search_keeps_its_entries(cache):
    """``grow`` (the driver's answer to STATUS_GROW) replaces the state's cache arrays by larger ones holding the
    same entries; the search then ends exactly as one that never grew."""
    X, y = small_problem()
    whole_search, whole = run(X, y, max_depth=3, cache=cache)
    solver = MurTreeSolver(X, y, max_depth=3, cache=cache)
    search = Search(solver, record="none")
    search.run(max_iterations=10)
    names = ("meta", "ent_lb", "ent_cost", "ent_tree", "keys", "tpool")
    before = {name: getattr(solver.state, name).copy() for name in names}
    solver.state.counters[mt.C_GROW] = mt.GROW_CACHE | mt.GROW_KEYS | mt.GROW_TPOOL
    assert solver.grow()
    for name, old in before.items():
        new = getattr(solver.state, name)
        assert new.shape[0] > old.shape[0] and np.array_equal(new[:old.shape[0]], old), name
    assert solver.state.htab.shape[0] == 4 * solver.state.meta.shape[0]
    assert search.run().status == "optimal"
    assert tree_key(search.result().tree) == tree_key(whole.tree)
    assert np.array_equal(solver.state.counters, whole_search.solver.state.counters)


def test_steps_yield_the_same_events_as_a_full_run():
    X, y = small_problem()
    full = Search(MurTreeSolver(X, y, max_depth=3, greedy_start=False), record="full")
    full.run()
    stepped = Search(MurTreeSolver(X, y, max_depth=3, greedy_start=False))
    events = list(stepped.steps())
    assert [e.record for e in events] == [tuple(r) for r in full.events().tolist()]
    names = {e.name for e in events}
    assert names >= {"SearchStarted", "SubtreeEntered", "DepthTwoSolve", "SubtreeSolved", "SubtreeInfeasible",
                     "SubtreeIncumbentImproved", "IncumbentImproved", "Terminated"}
    assert all(isinstance(stepped.describe(e), str) for e in events)


@pytest.mark.jit_only
def test_full_events_on_a_benchmark_set_and_summary_has_one_event_per_iteration():
    data = datasets.load("dl/hepatitis")
    search, result = run(np.asarray(data.X), np.asarray(data.y), record="full", max_depth=4)
    names = set(search.trace()["event"])
    assert names >= {"CacheHit", "SimilarityBound", "LowerBoundPrune", "DepthTwoSolve", "SubtreeSolved",
                     "SubtreeInfeasible", "SubtreeIncumbentImproved", "IncumbentImproved"}
    summary, _ = run(np.asarray(data.X), np.asarray(data.y), record="summary", max_depth=4)
    frame = summary.trace()
    inner = frame[~frame["event"].isin(["SearchStarted", "Terminated"])]
    assert inner["iteration"].value_counts().max() == 1
    assert set(frame["event"]) <= {"SearchStarted", "IncumbentImproved", "BoundsUpdated", "Terminated"}
    uppers = frame.loc[frame["event"] == "IncumbentImproved", "upper"].to_numpy()
    assert np.all(np.diff(uppers) <= 0) and uppers[-1] == result.objective  # ties: fewer nodes


@pytest.mark.jit_only
def test_a_stopped_search_returns_a_real_tree_and_a_certified_gap():
    data = datasets.load("dl/anneal")
    X, y = np.asarray(data.X), np.asarray(data.y)
    for greedy in (True, False):
        search = Search(MurTreeSolver(X, y, max_depth=4, greedy_start=greedy), record="summary")
        previous = np.inf
        for _ in range(6):
            result = search.run(max_iterations=40)
            assert result.status == "iteration_limit" and not result.optimal
            assert result.tree.misclassifications(X, y) == result.upper_bound <= previous
            assert result.lower_bound <= 91 <= result.upper_bound
            previous = result.upper_bound
        assert previous < 187  # better than the root leaf
        assert search.run().objective == 91


def test_sparse_objective_lower_bound_is_certified_while_running():
    X, y = small_problem()
    search = Search(MurTreeSolver(X, y, max_depth=3, alpha=1.5), record="none")
    optimum = binary_optimum(X, y, 3, None, 1.5).value
    while not search.done:
        result = search.run(max_iterations=3)
        lower, upper = search.solver.exact_bounds()
        assert lower <= optimum <= upper
        assert result.tree.murtree_objective(X, y, 1.5, exact=True) == upper
    assert search.solver.exact_bounds() == (optimum, optimum)


def test_multiclass_names_and_predictions():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(80, 6))
    labels = np.array(["a", "b", "c"])[X[:, 0] + X[:, 1]]
    est = MurTreeClassifier(max_depth=2).fit(X, labels)
    assert est.result_.objective == 0 and est.score(X, labels) == 1.0
    assert set(est.predict(X)) == {"a", "b", "c"}
    assert np.allclose(est.predict_proba(X).sum(axis=1), 1.0)


def test_weights_are_counts():
    X, y = small_problem()
    w = np.arange(len(y)) % 3
    est = MurTreeClassifier(max_depth=2).fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(len(y)), w)
    assert est.result_.objective == binary_optimum(X[rows], y[rows], 2).value


def test_node_budget_above_the_full_tree_is_clamped():
    X, y = small_problem()
    a = MurTreeClassifier(max_depth=2, max_nodes=100).fit(X, y)
    b = MurTreeClassifier(max_depth=2).fit(X, y)
    assert a.result_.objective == b.result_.objective and a.tree_.splits <= 3


def test_alpha_is_exact_in_misclassification_units():
    X, y = small_problem()
    est = MurTreeClassifier(max_depth=3, alpha=0.1).fit(X, y)
    lower, upper = est.search_.solver.exact_bounds()
    assert upper == Fraction(est.tree_.misclassifications(X, y)) + Fraction(1, 10) * est.tree_.splits == lower


@pytest.mark.parametrize("params, match", [({"max_depth": 0}, "max_depth"), ({"alpha": -1}, "alpha"),
                                           ({"max_nodes": 0}, "max_nodes"), ({"cache": "tree"}, "cache"),
                                           ({"feature_order": "random"}, "feature_order")])
def test_bad_parameters_get_a_clear_error(params, match):
    X, y = small_problem()
    with pytest.raises(ValueError, match=match):
        MurTreeClassifier(**params).fit(X, y)


def test_non_binary_input_names_the_column_and_the_encoders():
    X, y = small_problem()
    X = X.astype(float)
    X[4, 2] = 0.5
    with pytest.raises(ValueError, match=r"(?s)column 2.*ThresholdBinarizer.*one_hot"):
        MurTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match="integers"):
        MurTreeClassifier().fit(X.round(), y, sample_weight=np.full(len(y), 0.5))


def test_registered_for_the_command_line():
    out = solve("murtree", "dl/anneal", depth=2)
    assert out["misclassifications"] == 137 and out["optimal"] and out["depth_two_calls"] == 1
    assert solve("murtree", "gen/murtree-example", depth=3, nodes=2)["misclassifications"] == 1


def test_kernel_returns_status_buffer_before_changing_state():
    X, y = small_problem()
    solver = MurTreeSolver(X, y, max_depth=3)
    tiny = np.zeros(solver.events_per_iteration - 1, dtype=mt.ev.EVENT_DTYPE)
    before = solver.state.counters.copy()
    n, status = solver.advance(solver.kernel(mt.ev.LEVEL_FULL), tiny, 5)
    assert status == mt.ev.STATUS_BUFFER and n <= 1
    assert solver.iterations == 0 and solver.state.counters[mt.C_CALLS] == before[mt.C_CALLS] == 0
    search = Search(solver, record="full")  # the same solver continues normally with room for events
    assert search.run().objective == run(X, y, max_depth=3)[1].objective


# -- regression (squared error, §4.9.2) -------------------------------------------------------------------
REG_OPTIONS = {k: v for k, v in OPTIONS.items() if k != "similarity_bound"}


def sse_oracle(X, Y, w, depth, nodes, alpha):
    """Smallest weighted SSE + alpha * nodes over trees with depth <= depth and <= nodes feature nodes, by
    plain recursion over Eq. 1 (rows as tuples; a tiny oracle for the node budgets and alpha, which
    ``continuous_optimum`` does not cover)."""
    Y = Y.reshape(len(Y), -1)

    def leaf(rows):
        if not rows:
            return 0.0
        r = list(rows)
        mean = (w[r, None] * Y[r]).sum(axis=0) / w[r].sum()
        return float((w[r, None] * (Y[r] - mean) ** 2).sum())

    @functools.lru_cache(maxsize=None)
    def T(rows, d, n):
        best = leaf(rows)
        if d == 0 or n == 0:
            return best
        for f in range(X.shape[1]):
            left = tuple(r for r in rows if X[r, f] == 0)
            right = tuple(r for r in rows if X[r, f] == 1)
            if not left or not right:
                continue
            for nl in range(n):
                best = min(best, alpha + T(left, d - 1, nl) + T(right, d - 1, n - 1 - nl))
        return best

    return T(tuple(range(len(w))), depth, min(nodes, 2 ** depth - 1))


@st.composite
def regression_problems(draw):
    n = draw(st.integers(1, 16))
    p = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=p, max_size=p), min_size=n, max_size=n)))
    if draw(st.booleans()):
        X = np.column_stack([X, 1 - X[:, 0]])
    values = st.integers(-5, 5) if draw(st.booleans()) else st.floats(-100, 100, allow_nan=False, width=32)
    y = np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=float) + draw(st.sampled_from([0, 1e3]))
    if draw(st.booleans()):  # two outputs
        y = np.column_stack([y, draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))])
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))) if draw(st.booleans()) else None
    depth = draw(st.integers(1, 3))
    nodes = draw(st.one_of(st.none(), st.integers(1, 2 ** depth - 1)))
    alpha = draw(st.sampled_from([0, 0, 0.5, 3]))
    options = {k: draw(v) for k, v in REG_OPTIONS.items()}
    return X, y, w, depth, nodes, alpha, options


def regression_tolerance(y, w):
    Y = y.reshape(len(y), -1)
    w = np.ones(len(Y)) if w is None else w
    root = float((w[:, None] * (Y - (w[:, None] * Y).sum(axis=0) / w.sum()) ** 2).sum())
    return 1e-8 * max(root, 1.0)  # TIE_RTOL is 1e-9 of the root leaf's squared error


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(regression_problems())
def test_regression_equals_the_brute_force_optimum(problem):
    X, y, w, depth, nodes, alpha, options = problem
    solver = MurTreeSolver(X, y, w, max_depth=depth, max_nodes=nodes, alpha=alpha, task="regression", **options)
    result = Search(solver, record="none").run()
    assert result.status == "optimal" and result.lower_bound == result.upper_bound
    tol = regression_tolerance(y, w)
    weights = np.ones(len(y)) if w is None else w
    optimum = sse_oracle(X, y, weights, depth, 2 ** depth - 1 if nodes is None else nodes, alpha)
    assert result.objective == pytest.approx(optimum, abs=tol)
    tree = result.tree
    sse = float((weights[:, None] * (tree.predict(X).reshape(len(y), -1) - y.reshape(len(y), -1)) ** 2).sum())
    assert sse + alpha * tree.splits == pytest.approx(result.objective, abs=tol)  # the tree re-scores to it
    assert tree.depth <= depth and tree.splits <= (2 ** depth - 1 if nodes is None else nodes)
    if nodes is None and alpha == 0 and w is None and y.ndim == 1:
        assert optimum == pytest.approx(continuous_optimum(X, y, depth, "regression").value, abs=tol)


def regression_problem(n=80, seed=7):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 8))
    y = 3.0 * X[:, 0] + 2.0 * (X[:, 1] & X[:, 2]) - X[:, 5] + rng.normal(0, 0.5, n)
    return X, y


def test_regression_depth_two_solver_counts_pair_sums():
    X, y = regression_problem()
    search = Search(MurTreeSolver(X, y, max_depth=2, task="regression", reduce_features=False), record="full")
    result = search.run()
    d2 = [e for e in search.trace().itertuples() if e.event == "DepthTwoSolve"]
    assert len(d2) == 1 and d2[0].value == pytest.approx(result.objective)  # the whole search is one solve
    assert result.objective == pytest.approx(continuous_optimum(X, y, 2, "regression").value)
    assert search.solver.stats()["similarity_raises"] == 0 and not search.solver.options["similarity_bound"]


def test_regressor_interrupt_and_resume_equals_an_uninterrupted_run():
    X, y = regression_problem()
    whole = Search(MurTreeSolver(X, y, max_depth=3, task="regression"), record="none").run()
    search = Search(MurTreeSolver(X, y, max_depth=3, task="regression"), record="summary")
    while not search.done:
        result = search.run(max_iterations=2)
        assert result.lower_bound <= whole.objective + 1e-9 <= result.upper_bound + 2e-9
        assert result.tree.squared_error(X, y) == pytest.approx(result.upper_bound)
    assert tree_key(search.result().tree) == tree_key(whole.tree)


def test_regressor_estimator_weights_outputs_and_predictions():
    X, y = regression_problem()
    est = MurTreeRegressor(max_depth=2).fit(X, y)
    assert est.predict(X).shape == y.shape and est.score(X, y) > 0.7
    assert est.result_.objective == pytest.approx(est.tree_.squared_error(X, y))
    w = np.arange(len(y)) % 3
    rows = np.repeat(np.arange(len(y)), w)
    weighted = MurTreeRegressor(max_depth=2).fit(X, y, sample_weight=w)
    repeated = MurTreeRegressor(max_depth=2).fit(X[rows], y[rows])
    assert weighted.result_.objective == pytest.approx(repeated.result_.objective)
    Y = np.column_stack([y, -2 * y + X[:, 3]])
    multi = MurTreeRegressor(max_depth=2, alpha=0.5).fit(X, Y)
    assert multi.predict(X).shape == Y.shape
    assert multi.result_.objective == pytest.approx(multi.tree_.squared_error(X, Y) + 0.5 * multi.tree_.splits)
    assert pickle.loads(pickle.dumps(est)).predict(X[:5]) == pytest.approx(est.predict(X[:5]))


@pytest.mark.parametrize("params, match", [({"max_depth": 0}, "max_depth"), ({"alpha": -1}, "alpha"),
                                           ({"feature_order": "gini"}, "feature_order")])
def test_regressor_bad_parameters_get_a_clear_error(params, match):
    X, y = regression_problem()
    with pytest.raises(ValueError, match=match):
        MurTreeRegressor(**params).fit(X, y)
    X = X.astype(float)
    X[4, 2] = 0.5
    with pytest.raises(ValueError, match=r"(?s)column 2.*ThresholdBinarizer"):
        MurTreeRegressor().fit(X, y)


def test_regressor_registered_for_the_command_line():
    est = make_estimator("murtree-regressor", depth=2, nodes=2, alpha=0.25)
    assert isinstance(est, MurTreeRegressor) and (est.max_depth, est.max_nodes, est.alpha) == (2, 2, 0.25)


def _cause(exc):
    text = []
    while exc is not None:
        text.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    return " ".join(text)


@pytest.mark.jit_only
def test_scikit_learn_estimator_checks_fail_only_for_non_binary_input():
    """check_estimator feeds continuous X to most checks: MurTree refuses it (it takes 0/1 features and names the
    encoders). Every other check passes, and every failure is that refusal."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for est in (MurTreeRegressor(max_depth=2), MurTreeClassifier(max_depth=2)):
            results = check_estimator(est, on_fail=None)
            passed = [r["check_name"] for r in results if r["status"] == "passed"]
            assert {"check_estimator_cloneable", "check_no_attributes_set_in_init", "check_get_params_invariance",
                    "check_set_params", "check_estimators_unfitted"} <= set(passed)
            for r in results:
                if r["status"] == "failed" and r["check_name"] != "check_classifiers_one_label_sample_weights":
                    assert "is not binary" in _cause(r["exception"]), r["check_name"]


def test_depth_two_panel_counts_equal_the_kernel_counters():
    """The widget's frequency table (counted in numpy from the call's branch) is the kernel's counter: the
    worked example's single and pair counts per class (gen/murtree-example), and a depth-two call below a root split."""
    from odtlab.widgets.murtree import DepthTwoPanel, branch_counts, recursion
    from odtlab.widgets.player import explore

    X, y = worked_example()
    player = explore(MurTreeClassifier(max_depth=2, reduce_features=False), X, y)
    player.run_to_end()
    solver = player.search.solver
    features, totals, pairs, _ = branch_counts(solver, (), [0, 1, 2], shown=3)
    assert features == [0, 1, 2] and list(totals) == [4, 2]
    fq = solver.state.fq[:solver.K * 9].reshape(solver.K, 3, 3)  # counter 0: the only depth-two call's counts
    for i in range(3):
        for j in range(i, 3):
            assert list(pairs[i, j]) == list(fq[:, i, j])
    assert list(pairs[0, 1]) == [2, 0] and list(pairs[0, 2]) == [1, 1]  # FQ-(a, b) = 2, FQ+(a, c) = 1
    svg = DepthTwoPanel().svg(player.frame)
    assert 'data-features="3"' in svg and "branch: none" in svg

    X, y = small_problem()
    player = explore(MurTreeClassifier(max_depth=3, feature_order="in-order", greedy_start=False), X, y)
    player.run_to_end()
    first = next(i for i in range(player.recording.n) if player.recording.event(i).name == "DepthTwoSolve")
    player.goto(first + 1)
    branch = recursion(player.frame).depth_two[1]
    assert len(branch) == 1 and 'data-branch="1"' in DepthTwoPanel().svg(player.frame)
    (f, side), = branch
    rows = np.asarray(player.search.solver.data.Xc)[f] == side
    _, totals, pairs, _ = branch_counts(player.search.solver, branch, [], shown=2)
    assert totals.sum() == player.search.solver.data.weight[rows].sum()


@pytest.mark.jit_only
def test_bound_probing_raises_the_certified_lower_bound_while_running():
    data = datasets.load("dl/anneal")
    X, y = np.asarray(data.X), np.asarray(data.y)
    for task, target in (("classification", y), ("regression", y * 2.5 + X[:, 7])):
        search = Search(MurTreeSolver(X, target, max_depth=4, bound_probing=True, task=task), record="summary")
        lowers = []
        while not search.done:
            result = search.run(max_iterations=200)
            lowers.append(result.lower_bound)
            assert result.lower_bound <= result.upper_bound
        plain = Search(MurTreeSolver(X, target, max_depth=4, task=task), record="none").run()
        assert result.objective == pytest.approx(plain.objective) and result.optimal
        assert 0 < lowers[len(lowers) // 2] < plain.objective and lowers == sorted(lowers)
        queries = search.trace() if task == "regression" else None
        if queries is not None:
            assert (queries["event"] == "BoundsUpdated").sum() >= 2


def test_depth_two_panel_shows_the_regression_sums():
    from odtlab.widgets.murtree import DepthTwoPanel, branch_counts
    from odtlab.widgets.player import explore

    X, y = regression_problem(n=40)
    player = explore(MurTreeRegressor(max_depth=2, reduce_features=False), X, y)
    player.run_to_end()
    solver = player.search.solver
    features, totals, pairs, _ = branch_counts(solver, (), [0, 1], shown=2)
    fq = solver.state.fq.reshape(2, solver.K, X.shape[1], X.shape[1])
    slot = int(np.argmax(solver.state.cnt_meta[:, 0]))  # the counter of the only depth-two call
    assert np.allclose(pairs[0, 1], fq[slot, :, 0, 1]) and np.allclose(pairs[1, 1], fq[slot, :, 1, 1])
    assert totals[0] == len(y) and abs(totals[1]) < 1e-9 * len(y)  # targets centred on their mean
    svg = DepthTwoPanel().svg(player.frame)
    assert "W / Σwy / Σwy²" in svg and "returned for the budget: root" in svg


@pytest.mark.peers
def test_benchmark_limit_lists_unfinished_pairs_and_leaves_them_out_of_the_ratios(capsys):
    """``bench_murtree.py --limit``: a pair over the limit is reported as not finished by whom, left out of the
    median; a finished pair has its ratio, equal misclassifications and odtlab's memory per fit."""
    need("pystreed")
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_murtree.py"
    spec = importlib.util.spec_from_file_location("bench_murtree", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    done, = bench.compare(["dl/zoo-1"], [3], repeat=1, limit=60.0, options={}, min_seconds=0.0)
    assert done["ratio"] > 0 and not done["unfinished"] and done["errors"][0] == done["errors"][1]
    assert done["peak_memory"] > 0 and done["peak_rss"] > 0
    slow, = bench.compare(["dl/ionosphere"], [4], repeat=1, limit=0.01, options={}, min_seconds=0.0)
    assert slow["ratio"] is None and "odtlab" in slow["unfinished"]
    out = capsys.readouterr().out
    who = " and ".join(slow["unfinished"])
    assert f"not finished by {who} within 0.01s" in out
    assert f"depth 4: not finished within 0.01s, left out of the ratios: dl/ionosphere ({who})" in out
