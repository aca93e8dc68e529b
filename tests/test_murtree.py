"""MurTree against the brute-force oracle, the paper's worked example and benchmark values, the resumable
search contract (interrupt + resume, anytime bounds, events) and the estimator's input checks."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from odtlab import datasets
from odtlab.bruteforce import binary_optimum
from odtlab.core import murtree as mt
from odtlab.search import Search
from odtlab.solvers import solve
from odtlab.solvers.murtree import MurTreeClassifier, MurTreeSolver

OPTIONS = dict(cache=st.sampled_from(["dataset", "branch", None]), similarity_bound=st.booleans(),
               incremental=st.booleans(), depth_two=st.booleans(),
               node_order=st.sampled_from(["dynamic", "post-order"]),
               feature_order=st.sampled_from(["in-order", "gini"]), reduce_features=st.booleans(),
               iterative_deepening=st.booleans(), greedy_start=st.booleans())


@st.composite
def problems(draw):
    n = draw(st.integers(1, 18))
    p = draw(st.integers(1, 5))
    K = draw(st.integers(2, 3))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=p, max_size=p), min_size=n, max_size=n)))
    if draw(st.booleans()):  # a complement and a duplicate column, as in the DL files
        X = np.column_stack([X, 1 - X[:, 0], X[:, -1]])
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
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
    assert search.solver.ent_lb.max() <= len(y)  # never an infinite RLB (brief §5.4, pitfall 10)
    tree = result.tree
    assert tree.murtree_objective(X, y, alpha, exact=True) == upper  # the returned tree re-scores to it
    assert tree.depth <= depth and tree.splits <= (2 ** depth - 1 if nodes is None else nodes)
    if tree.splits and (alpha > 0 or smallest):  # Algorithms 6 and 7 return a smallest optimal tree
        assert binary_optimum(X, y, depth, tree.splits - 1, alpha).value > optimum.value


def worked_example():
    data = datasets.load("gen/murtree-example")
    return np.asarray(data.X), np.asarray(data.y)


def test_worked_example_a_counts_and_optima():
    X, y = worked_example()  # brief §9.3: leaf 2, best depth-two trees with 1/2/3 nodes cost 2/1/1
    search, result = run(X, y, record="full", max_depth=2, reduce_features=False)
    assert result.objective == 1
    d2 = [e for e in search.trace().itertuples() if e.event == "DepthTwoSolve"]
    assert len(d2) == 1 and (d2[0].i0, d2[0].i1, d2[0].i2, d2[0].value) == (6, 2, 1, 1.0)
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
    assert np.array_equal(search.solver.counters, whole_search.solver.counters)


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
    before = solver.counters.copy()
    n, status = solver.advance(solver.kernel(mt.ev.LEVEL_FULL), tiny, 5)
    assert status == mt.ev.STATUS_BUFFER and n <= 1
    assert solver.iterations == 0 and solver.counters[mt.C_CALLS] == before[mt.C_CALLS] == 0
    search = Search(solver, record="full")  # the same solver continues normally with room for events
    assert search.run().objective == run(X, y, max_depth=3)[1].objective
