"""Branches (Chaouki, Read, Bifet): optimality against the brute-force oracle, the paper's optima, the
search contract (bounds, incumbent, resume), the events, and bad input."""
from fractions import Fraction
import pickle
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from odtlab import datasets, memory
from odtlab.bruteforce import branches_optimum
from odtlab.core import branches as kernels
from odtlab.core import bruteforce as oracle_kernels
from odtlab.core._jit import njit
from odtlab.search import Search
from odtlab.solvers import make_estimator
from odtlab.solvers.branches import BranchesClassifier, BranchesSolver
from odtlab.tree import Tree

JIT_ONLY = pytest.mark.jit_only  # seconds with JIT, minutes as plain Python

XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
XOR_Y = np.array([0, 1, 1, 0])


def run(X, y, lam, record="none", **kw):
    solver = BranchesSolver(X, y, lam=lam, **kw)
    search = Search(solver, record=record)
    return solver, search, search.run()


def branch_rows(X, tests):
    mask = np.ones(X.shape[0], dtype=bool)
    for i, j in tests:
        mask &= X[:, i] == j
    return np.flatnonzero(mask)


@st.composite
def problems(draw, max_q=4):
    q = draw(st.integers(1, max_q))
    n = draw(st.integers(1, 60))
    K = draw(st.integers(2, 3))
    C = draw(st.lists(st.integers(1, 3), min_size=q, max_size=q))
    X = np.column_stack([draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)) for c in C])
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    lam = Fraction(draw(st.sampled_from(["0.001", "0.01", "0.02", "0.05", "0.1", "0.3", "1"])))
    max_depth = draw(st.sampled_from([None, None, 1, 2]))
    return X, y, np.array(C), K, lam, max_depth


# -- optimality ---------------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(problems(), st.sampled_from(["min_G", "min_H", "first"]), st.sampled_from(["paper", "prefer_proven"]))
def test_optimum_equals_the_brute_force_oracle_with_certified_monotone_bounds(problem, rule, tie):
    X, y, C, K, lam, max_depth = problem
    best = branches_optimum(X, y, lam, max_depth=max_depth, n_categories=C)
    solver, search, result = run(X, y, lam, record="summary", n_categories=C, n_classes=K, max_depth=max_depth,
                                 child_rule=rule, tie_break=tie)
    assert result.status == "optimal"
    lower, upper = solver.bounds_exact()
    assert lower == upper == best.value
    assert result.tree.branches_objective(X, y, lam, exact=True) == best.value
    # R(root) never increases and G(root) never decreases, G <= R, from the level-summary events
    ends = [e for e in search.trace().itertuples() if e.event == "IterationEnd"]
    assert len(ends) == result.stats["iterations"]
    R = np.array([e.upper for e in ends])
    G = np.array([e.lower for e in ends])
    assert np.all(np.diff(R) <= 1e-12) and np.all(np.diff(G) >= -1e-12) and np.all(G <= R + 1e-12)
    history = search.history()
    assert history["upper"].is_monotonic_decreasing and history["lower"].is_monotonic_increasing
    # every complete branch in the memo is exact: R(l) = R*(l) (Bellman, Prop 4.1)
    p, den = solver.lam.numerator, solver.lam.denominator
    depth_limit = -1 if max_depth is None else max_depth
    for v in range(int(solver.state.counters[kernels.C_NODES])):
        if solver.state.ND[v, kernels.D_FLAGS] & kernels.F_COMPLETE:
            tests = solver.branch_tests(v)
            used = np.zeros(X.shape[1], dtype=np.bool_)
            used[[i for i, _ in tests]] = True
            exact = oracle_kernels.branches_node_value(X.astype(np.int64), y.astype(np.int64), K, p, den, len(y),
                                                       branch_rows(X, tests), used, len(tests), depth_limit)
            assert solver.state.ND[v, kernels.D_R] == exact


@settings(max_examples=25, deadline=None)
@given(problems(), st.lists(st.integers(1, 7), min_size=1, max_size=6))
def test_interrupted_and_resumed_search_equals_the_uninterrupted_one(problem, chunks):
    X, y, C, K, lam, max_depth = problem
    _, _, whole = run(X, y, lam, n_categories=C, n_classes=K, max_depth=max_depth)
    solver = BranchesSolver(X, y, lam=lam, n_categories=C, n_classes=K, max_depth=max_depth, capacity=2)
    search = Search(solver, record="summary")
    for chunk in chunks:
        partial = search.run(max_iterations=chunk)
        lower, upper = solver.bounds_exact()
        assert lower <= whole.tree.branches_objective(X, y, lam, exact=True) <= upper
        assert partial.tree.branches_objective(X, y, lam, exact=True) == lower  # the incumbent is a real tree
    for _ in search.steps(max_iterations=2):
        pass
    resumed = search.run()
    assert resumed.stats["iterations"] == whole.stats["iterations"]
    assert resumed.tree.to_dict() == whole.tree.to_dict()
    assert resumed.objective == whole.objective


@settings(max_examples=40, deadline=None)
@given(problems(max_q=6), st.integers(1, 2), st.sampled_from(["min_G", "min_H", "first"]),
       st.sampled_from(["paper", "prefer_proven"]))
def test_lazy_split_records_find_the_brute_force_optimum(problem, keep, rule, tie):
    """keep_splits = 1 or 2 with up to 6 features: branches drop split records and are expanded again."""
    X, y, C, K, lam, max_depth = problem
    best = branches_optimum(X, y, lam, max_depth=max_depth, n_categories=C)
    solver, search, result = run(X, y, lam, record="summary", n_categories=C, n_classes=K, max_depth=max_depth,
                                 child_rule=rule, tie_break=tie, keep_splits=keep)
    assert result.status == "optimal"
    assert solver.bounds_exact() == (best.value, best.value)
    assert result.tree.branches_objective(X, y, lam, exact=True) == best.value
    history = search.history()
    assert history["upper"].is_monotonic_decreasing and history["lower"].is_monotonic_increasing


def lazy_problem():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(80, 8))
    y = (X[:, 0] & X[:, 4]) ^ X[:, 7] ^ (rng.random(80) < 0.15)
    return X, y


@pytest.mark.parametrize("keep", [1, 3])
def test_lazy_split_records_keep_few_records_and_give_the_full_search_s_optimum(keep):
    X, y = lazy_problem()
    full, _, whole = run(X, y, "0.005", keep_splits=None)
    solver, search, result = run(X, y, "0.005", record="full", keep_splits=keep)
    assert result.stats["re_expansions"] > 0 and "re_expansions" not in whole.stats
    assert result.status == "optimal" and result.objective == whole.objective
    assert result.tree.branches_objective(X, y, "0.005", exact=True) == solver.bounds_exact()[0]
    ND, CN = solver.state.ND, solver.state.counters
    nodes = int(CN[kernels.C_NODES])
    assert nodes == result.stats["expanded"]
    # an expanded branch holds at most keep + 2 records: the best, its incumbent's and the dropped bound
    assert ND[:nodes, kernels.D_NACT].max() <= keep + 2
    assert full.state.ND[:nodes, kernels.D_NACT].max() > keep + 2
    # every re-expansion is an Expansion event of a branch expanded before
    trace = search.trace()
    expansions = trace[trace.event == "Expansion"]
    assert len(expansions) == result.stats["expanded"] + result.stats["re_expansions"]
    assert expansions.node.duplicated().sum() == result.stats["re_expansions"]


def test_lazy_split_records_resume_exactly_and_grow_from_a_tiny_capacity():
    X, y = lazy_problem()
    _, _, whole = run(X, y, "0.005", keep_splits=2)
    solver = BranchesSolver(X, y, lam="0.005", keep_splits=2, capacity=2)
    search = Search(solver, record="summary")
    while not solver.finished:
        search.run(max_iterations=37)
    result = search.result()
    for stat in ("iterations", "evaluations", "expanded", "re_expansions", "lazy_iterations"):
        assert result.stats[stat] == whole.stats[stat]
    assert result.tree.to_dict() == whole.tree.to_dict()


def test_xor_trace_and_the_tie_break_lesson():
    # XOR: optimum 0.7 with 3 splits; 5 iterations with the paper's heap order, 3 preferring proven
    solver, search, result = run(XOR_X, XOR_Y, 0.1)
    assert result.objective == pytest.approx(0.7) and result.tree.splits == 3
    assert result.stats["iterations"] == 5
    assert run(XOR_X, XOR_Y, 0.1, tie_break="prefer_proven")[2].stats["iterations"] == 3
    first = Search(BranchesSolver(XOR_X, XOR_Y, lam=0.1), record="full")
    events = list(first.steps(max_iterations=1))
    assert events[0].name == "Init" and events[0].R == pytest.approx(0.9) and events[0].H == pytest.approx(0.5)
    scored = [e for e in events if e.name == "SplitScored"]
    assert [e.Q for e in scored] == pytest.approx([0.7, 0.7])
    end = [e for e in events if e.name == "IterationEnd"][0]
    assert end.root_R == pytest.approx(0.7) and end.root_G == pytest.approx(0.5)


def test_multi_word_keys_on_many_binary_features():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(40, 70))  # 3**70 > 2**62: the memo key takes two words
    y = (X[:, 5] ^ X[:, 60]) | (rng.random(40) < 0.1)
    solver, _, result = run(X, y, 0.02, max_depth=2)
    assert solver.key_words == 2
    best = branches_optimum(X, y, Fraction("0.02"), max_depth=2)
    assert solver.bounds_exact()[0] == best.value == result.tree.branches_objective(X, y, 0.02, exact=True)


def test_arrays_grow_from_a_tiny_capacity():
    d = datasets.load("branches/monk1-o")
    small, _, a = run(d.X, d.y, 0.01, n_categories=d.n_categories, capacity=2)
    b = run(d.X, d.y, 0.01, n_categories=d.n_categories)[2]
    assert a.objective == b.objective == pytest.approx(0.9)
    assert a.stats["iterations"] == b.stats["iterations"] and small.state.ND.shape[0] > 2


@njit
def _write_through_borrowed(group, value):
    a, b = kernels.borrowed(group)
    a[0] = value
    b[1] = value + 1
    return a.sum() + b.sum()


def test_borrowed_arrays_write_to_their_owners_and_leave_their_counts_alone():
    """The kernel unpacks its groups through ``kernels.borrowed`` (arrays without a reference count): a
    write through a borrowed array reaches the owner's memory, and the owner's reference count is the same
    after the call (nothing freed or leaked)."""
    a, b = np.zeros(3, np.int64), np.zeros(2, np.float64)
    counts = sys.getrefcount(a), sys.getrefcount(b)
    for value in (7, 9):
        assert _write_through_borrowed((a, b), value) == 2 * value + 1
        assert a[0] == value and b[1] == value + 1
    assert (sys.getrefcount(a), sys.getrefcount(b)) == counts


def test_state_type_follows_what_fits_and_int64_gives_the_same_search(monkeypatch):
    assert kernels.state_dtype(100, 1000, 20, 2) == np.int32
    assert kernels.state_dtype(1 << 14, 100, 20, 2) == np.int64  # n(l) of an inline child needs 15 bits
    assert kernels.state_dtype(100, 1 << 24, 20, 2) == np.int64  # n * D passes 2**30
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(70, 5))
    y = rng.integers(0, 3, size=70)
    events = []
    for dtype in (np.int32, np.int64):
        monkeypatch.setattr(kernels, "state_dtype", lambda *args, dtype=dtype: dtype)
        solver = BranchesSolver(X, y, lam=0.005, capacity=4)
        search = Search(solver, record="full")
        result = search.run()
        assert solver.state.ND.dtype == solver.state.RC.dtype == dtype
        events.append((search.events(), result.tree.to_text(), solver.bounds_exact()))
    (a, tree_a, bounds_a), (b, tree_b, bounds_b) = events
    assert tree_a == tree_b and bounds_a == bounds_b
    assert a.shape == b.shape and all(np.array_equal(a[f], b[f], equal_nan=True) if a[f].dtype.kind == "f"
                                      else np.array_equal(a[f], b[f]) for f in a.dtype.names)


def live_and_free_records(solver):
    """The record rows of every memo branch and of every free block; fails on an overlap."""
    owner = np.full(int(solver.state.counters[kernels.C_RECS]), -1)
    for v in range(int(solver.state.counters[kernels.C_NODES])):
        base, size = solver.state.ND[v, kernels.D_REC], solver.state.ND[v, kernels.D_NACT]
        if base >= 0 and size > 0:
            assert (owner[base:base + size] == -1).all()
            owner[base:base + size] = v
    for size in range(solver.state.FREE.shape[0]):
        block = solver.state.FREE[size]
        while block >= 0:
            assert (owner[block:block + size] == -1).all()
            owner[block:block + size] = -2
            block = solver.state.RC[block, kernels.R_Q]
    return owner


@pytest.mark.parametrize("iterations", [400, None])
def test_complete_branches_keep_only_their_incumbent_split_and_free_blocks_are_reused(iterations):
    rng = np.random.default_rng(8)
    X = rng.integers(0, 2, size=(90, 9))
    y = (X[:, 0] ^ X[:, 3]) | (rng.random(90) < 0.2)
    solver = BranchesSolver(X, y, lam=0.002)
    result = Search(solver).run(max_iterations=iterations)
    owner = live_and_free_records(solver)
    assert (owner == -2).any()  # some blocks are free ...
    expanded = solver.state.ND[:solver.state.counters[kernels.C_NODES], kernels.D_FLAGS] & kernels.F_EXPANDED > 0
    split_actions = 9 - solver.state.ND[:solver.state.counters[kernels.C_NODES], kernels.D_DEPTH][expanded]  # one per unused feature
    assert solver.state.counters[kernels.C_RECS] < split_actions.sum()  # ... and reused: fewer rows than expansions took
    for v in range(int(solver.state.counters[kernels.C_NODES])):
        flags, size = solver.state.ND[v, kernels.D_FLAGS], solver.state.ND[v, kernels.D_NACT]
        if flags & kernels.F_COMPLETE and flags & kernels.F_EXPANDED:
            best = solver.state.ND[v, kernels.D_BEST]
            assert size == (0 if best < 0 or flags & kernels.F_LEAF else 1)
            if size:
                assert kernels.rec_feature(solver.state.RC, solver.state.ND[v, kernels.D_REC]) == best
    assert result.status == ("optimal" if iterations is None else "iteration_limit")
    assert result.tree.branches_objective(X, y, 0.002, exact=True) == solver.bounds_exact()[0]


# -- the paper's optima (Table 2, λ from Table 5) ---------------------------------------------

PAPER = [  # name, lambda, objective, decimals, splits
    ("monk1-o", "0.01", 0.900, 3, 10), ("monk2-o", "0.001", 0.955, 3, 45), ("monk3-o", "0.001", 0.987, 3, 13),
    ("tic-tac-toe-o", "0.005", 0.77304, 5, 17), ("car-eval-o", "0.005", 0.81252, 5, 14),
    ("nursery-o", "0.01", 0.82213, 5, 7), ("mushroom-o", "0.01", 0.97523, 5, 1), ("zoo-o", "0.001", 0.993, 3, 7),
    ("lymph-o", "0.01", 0.85270, 5, 10), ("balance-o", "0.01", 0.67160, 5, 5), ("monk1-l", "0.01", 0.930, 3, 7),
    ("monk1-f", "0.001", 0.983, 3, 17), ("monk2-f", "0.001", 0.933, 3, 67), ("monk3-f", "0.001", 0.983, 3, 17),
    ("zoo-f", "0.001", 0.992, 3, 8),
]
SLOW = [("tic-tac-toe-f", "0.005", 0.85072, 5, 19), ("car-eval-f", "0.005", 0.79921, 5, 14)]


def check_paper(name, lam, objective, decimals, splits):
    d = datasets.load(f"branches/{name}")
    solver, _, result = run(d.X, d.y, lam, n_categories=d.n_categories)
    assert result.status == "optimal"
    assert round(result.objective, decimals) == objective
    assert result.tree.splits == splits
    assert result.tree.branches_objective(d.X, d.y, lam, exact=True) == solver.bounds_exact()[0]


@JIT_ONLY
@pytest.mark.parametrize("name, lam, objective, decimals, splits", PAPER, ids=[p[0] for p in PAPER])
def test_paper_optimum(shared_data, name, lam, objective, decimals, splits):
    check_paper(name, lam, objective, decimals, splits)


@pytest.mark.slow
@pytest.mark.parametrize("name, lam, objective, decimals, splits", SLOW, ids=[p[0] for p in SLOW])
def test_paper_optimum_one_hot(shared_data, name, lam, objective, decimals, splits):
    check_paper(name, lam, objective, decimals, splits)


def test_monk1_o_small_enough_for_plain_python(shared_data):
    d = datasets.load("branches/monk1-o")
    best = branches_optimum(d.X, d.y, 0.01, n_categories=d.n_categories)
    solver, _, result = run(d.X, d.y, "0.01", n_categories=d.n_categories)
    assert solver.bounds_exact()[0] == best.value == Fraction(9, 10)
    assert result.tree.leaves == 27  # empty children count as leaves


# -- stopped searches and events -----------------------------------------------------------------------------

@JIT_ONLY
def test_a_stopped_search_returns_the_incumbent_with_its_certified_gap(shared_data):
    d = datasets.load("branches/tic-tac-toe-o")
    solver = BranchesSolver(d.X, d.y, lam=0.005, n_categories=d.n_categories)
    search = Search(solver)
    stopped = search.run(max_iterations=300)
    assert stopped.status == "iteration_limit" and not stopped.optimal
    assert stopped.lower_bound < 0.77304 < stopped.upper_bound and stopped.gap > 0
    assert stopped.tree.branches_objective(d.X, d.y, 0.005) == pytest.approx(stopped.objective)
    assert stopped.objective == stopped.lower_bound
    final = search.run()
    assert final.optimal and round(final.objective, 5) == 0.77304


def test_full_events_and_describe_prints_branch_keys():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 3))
    y = (X[:, 0] == X[:, 1]).astype(int)
    solver = BranchesSolver(X, y, lam=0.01, feature_names=["a", "b", "c"])
    search = Search(solver, record="full")
    result = search.run()
    frame = search.trace()
    names = set(frame["event"])
    assert {"Init", "IterationStart", "SelectStep", "SelectCandidate", "Selection", "ChildEvaluated",
            "SplitScored", "Expansion", "BackpropStep", "NodeCompleted", "IterationEnd", "Terminated"} <= names
    counts = frame["event"].value_counts()
    iterations = result.stats["iterations"]
    assert counts["IterationStart"] == counts["IterationEnd"] == counts["Selection"] == iterations
    assert counts["Init"] == counts["Terminated"] == 1
    assert frame["event"].iloc[0] == "Init" and frame["event"].iloc[-1] == "Terminated"
    assert counts["Expansion"] == result.stats["expanded"]
    from odtlab.events import decode_all
    captions = [search.describe(e) for e in decode_all(search.events())]
    assert all(isinstance(c, str) and c for c in captions)
    assert any(c.startswith("Selection: branch Ω, split a with Q = 0.96; go to a=0") for c in captions)
    assert any(" ∧ " in c for c in captions)
    assert captions[-1].startswith("Terminated after")
    summary = Search(BranchesSolver(X, y, lam=0.01), record="summary")
    summary.run()
    assert set(summary.trace()["event"]) == {"Init", "IterationEnd", "Terminated"}


def test_iteration_k_is_the_k_th_iteration_in_every_event():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(40, 3))
    y = (X[:, 0] == X[:, 1]).astype(int)
    search = Search(BranchesSolver(X, y, lam=0.01), record="full")
    result = search.run()
    frame = search.trace()
    n = result.stats["iterations"]
    assert frame["iteration"].iloc[0] == 0 and frame["event"].iloc[0] == "Init"
    starts = frame.index[frame["event"] == "IterationStart"]
    assert frame.loc[starts, "iteration"].tolist() == list(range(1, n + 1))
    # every event from an IterationStart to its IterationEnd carries the same iteration number
    body = frame.iloc[starts[0]:]
    block = (body["event"] == "IterationStart").cumsum()
    assert (body["iteration"] == block).all()
    assert frame["iteration"].iloc[-1] == n and frame["event"].iloc[-1] == "Terminated"
    from odtlab.events import decode_all
    captions = [search.describe(e) for e in decode_all(search.events())
                if e.name in ("IterationStart", "IterationEnd")]
    assert captions[0].startswith("Iteration 1:") and captions[1].startswith("After iteration 1:")
    assert search.solver.iterations == n


def test_record_levels_and_buffer_sizes_do_not_change_the_search():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(50, 4))
    y = rng.integers(0, 3, size=50)
    results = []
    for record, size in (("none", None), ("summary", None), ("full", None), ("full", 2 * 400)):
        solver = BranchesSolver(X, y, lam=0.005)
        search = Search(solver, record=record, buffer_size=max(size or 0, 2 * solver.events_per_iteration))
        results.append(search.run())
    assert len({r.stats["iterations"] for r in results}) == 1
    assert len({str(r.tree.to_dict()) for r in results}) == 1


def test_already_complete_root_is_a_single_leaf():
    X = np.array([[0], [1], [0], [1]])
    y = np.array([1, 1, 1, 0])
    solver, search, result = run(X, y, 0.3, record="summary")  # one error <= lambda * n
    assert solver.finished and result.stats["iterations"] == 0 and result.tree.splits == 0
    assert result.objective == pytest.approx(0.75)


# -- the estimator --------------------------------------------------------------------------------------------

def test_estimator_fits_predicts_and_registers_for_the_cli(shared_data):
    d = datasets.load("branches/car-eval-o")
    est = make_estimator("branches", lam=0.005, depth=None, time_limit=None)
    assert isinstance(est, BranchesClassifier)
    est.fit(d.X, d.y)
    assert est.result_.optimal and round(est.result_.objective, 5) == 0.81252
    assert est.score(d.X, d.y) == pytest.approx(est.result_.objective + 14 * 0.005)
    proba = est.predict_proba(d.X[:5])
    assert proba.shape == (5, len(est.classes_)) and np.allclose(proba.sum(axis=1), 1)
    assert clone(est).get_params()["lam"] == 0.005
    summary = est.summary(d.X, d.y)
    assert summary["optimal"] and summary["splits"] == 14 and "evaluations" in summary


@pytest.mark.slow
def test_estimator_time_limit_keeps_the_incumbent_and_resumes(shared_data):
    d = datasets.load("branches/tic-tac-toe-f")
    est = BranchesClassifier(lam=0.005, time_limit=0.05).fit(d.X, d.y)
    res = est.result_
    assert res.status == "time_limit" and res.gap > 0
    assert est.tree_.branches_objective(d.X, d.y, 0.005) == pytest.approx(res.objective)
    assert res.lower_bound <= 0.85072 <= res.upper_bound
    final = est.search_.run()
    assert final.optimal and round(final.objective, 5) == 0.85072


@JIT_ONLY
def test_memory_limit_stops_with_a_valid_incumbent(shared_data):
    d = datasets.load("branches/lymph-o")
    search = Search(BranchesSolver(d.X, d.y, lam=0.01))
    res = search.run(memory_limit=3_000_000)
    assert res.status == "memory_limit"
    assert res.tree.branches_objective(d.X, d.y, 0.01) == pytest.approx(res.objective)
    assert res.lower_bound <= 0.8527 <= res.upper_bound


def test_growth_under_a_memory_limit_uses_the_memory_it_is_given(monkeypatch):
    monkeypatch.setattr(memory, "process_rss", lambda: None)  # the limit is the search's (the process's RSS unread)
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(60, 14))
    y = rng.integers(0, 3, size=60)
    solver = BranchesSolver(X, y, lam=0.001, capacity=64)
    search = Search(solver, record="none")  # the state alone: kept events count against the limit too
    limit = 2_000_000
    res = search.run(memory_limit=limit)
    assert res.status == "memory_limit"
    # doubling would stop with about half of the limit used; growing by what fits stops close to it
    assert 0.75 * limit < solver.nbytes() <= 1.15 * limit
    # and most of it is in use: split records, memo branches (at a memo table load of 1/2)
    node_row = solver.state.ND[0].nbytes + solver.state.NC[0].nbytes + solver.state.KEYS[0].nbytes + 2 * (solver.state.TABLE[0].nbytes + 1)
    used = solver.state.counters[kernels.C_RECS] * solver.state.RC[0].nbytes + solver.state.counters[kernels.C_NODES] * node_row
    assert used > 0.5 * limit
    assert res.tree.branches_objective(X, y, 0.001) == pytest.approx(res.objective)


def test_fast_input_path_matches_scikit_learns():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 3, size=(80, 4))
    labels = np.array([-3, 7, 12])
    y = labels[(X[:, 0] + X[:, 1] * (X[:, 2] > 0)) % 3]
    fast = BranchesClassifier(lam=0.01).fit(X.astype(np.int32), y)  # integer arrays: the fast path
    slow = BranchesClassifier(lam=0.01).fit(X.astype(float), y)  # float codes: scikit-learn's path
    assert fast.classes_.tolist() == labels.tolist() and fast.classes_.dtype == y.dtype
    assert slow.classes_.tolist() == labels.tolist()
    assert fast.n_features_in_ == slow.n_features_in_ == 4
    assert fast.tree_.to_text() == slow.tree_.to_text()
    assert np.array_equal(fast.tree_.value, slow.tree_.value)
    assert np.array_equal(fast.tree_.prediction, slow.tree_.prediction)
    ref = Tree(fast.tree_.split, fast.tree_.feature, fast.tree_.threshold, fast.tree_.child_start,
               fast.tree_.n_children, fast.tree_.children, 4, classes=fast.classes_).fit_leaves(
        X, np.searchsorted(labels, y))
    assert np.array_equal(fast.tree_.value, ref.value) and np.array_equal(fast.tree_.prediction, ref.prediction)
    assert fast.predict(X).tolist() == slow.predict(X).tolist()
    # a DataFrame fit leaves feature names; an array fit afterwards removes them, as validate_data does
    est = BranchesClassifier(lam=0.01).fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert list(est.feature_names_in_) == list("abcd")
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")
    # the caller's arrays are copied: changing them does not change a resumed search
    X2, y2 = X.copy(), y.copy()
    est = BranchesClassifier(lam=0.01).fit(X2, y2)
    X2[:] = 0
    y2[:] = labels[0]
    assert est.search_.solver.X.max() > 0 and len(np.unique(est.search_.solver.y)) == 3
    # what the fast path would reject goes to scikit-learn's checks and errors
    with pytest.raises(ValueError, match="one class"):
        BranchesClassifier().fit(X, np.zeros(80, dtype=int))
    with pytest.raises(ValueError, match="negative"):
        BranchesClassifier().fit(X - 1, y)
    with pytest.raises(ValueError):
        BranchesClassifier().fit(X[:0], y[:0])
    with pytest.raises(ValueError):
        BranchesClassifier().fit(X, y[:-1])


def test_fitted_estimator_pickles_and_unfitted_one_refuses_to_predict():
    est = BranchesClassifier(lam=0.1, keep_search=True).fit(np.tile(XOR_X, (3, 1)), np.tile(XOR_Y, 3))
    again = pickle.loads(pickle.dumps(est))
    assert again.predict(XOR_X).tolist() == XOR_Y.tolist()
    assert again.search_.run().optimal
    with pytest.raises(NotFittedError):
        BranchesClassifier().predict(XOR_X)


def test_pandas_categories_empty_children_and_unseen_categories():
    frame = pd.DataFrame({
        "colour": pd.Categorical(["red", "blue", "red", "blue"] * 6, categories=["red", "blue", "green"]),
        "shape": pd.Categorical(["disc", "disc", "star", "star"] * 6),
    })
    y = np.array(["yes", "no", "no", "yes"] * 6)  # XOR of the two columns
    est = BranchesClassifier(lam=0.01).fit(frame, y)
    assert est.tree_.splits == 3 and est.score(frame, y) == 1.0
    root = est.tree_
    assert root.n_children[0] == 3  # "green" never occurs: an empty child, a leaf with its parent's class
    assert "colour" in root.to_text() or "shape" in root.to_text()
    new = pd.DataFrame({"colour": pd.Categorical(["green", "purple"]), "shape": pd.Categorical(["disc", "disc"])})
    pred = est.predict(new)
    assert set(pred) <= {"yes", "no"}  # unseen categories stop at the split and get its majority class
    assert est.search_.solver.category_names[0] == ["red", "blue", "green"]
    fresh = est.search(frame, y)  # an un-run search for stepping; its keys name the categories
    assert any("colour=red" in fresh.describe(e) for e in fresh.steps())
    codes = np.column_stack([frame["colour"].cat.codes, frame["shape"].cat.codes])
    refit = est.fit(codes, y)  # a numpy refit forgets the frame's categories
    assert refit.search_.solver.category_names is None and refit.tree_.n_children[0] == 2


def test_binary_features_and_a_constant_column_are_handled():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(0, 2, 60), np.zeros(60, dtype=int), rng.integers(0, 2, 60)])
    y = X[:, 0] & X[:, 2]
    est = BranchesClassifier(lam=0.01).fit(X, y)
    assert 1 not in est.tree_.feature  # a feature with one category is never split on
    best = branches_optimum(X, y, 0.01)
    assert est.tree_.branches_objective(X, y, 0.01, exact=True) == best.value


def test_zero_lambda_needs_a_depth_limit_and_then_matches_the_oracle():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(30, 3))
    y = rng.integers(0, 2, size=30)
    with pytest.raises(ValueError, match="max_depth"):
        BranchesClassifier(lam=0).fit(X, y)
    est = BranchesClassifier(lam=0, max_depth=2).fit(X, y)
    assert est.tree_.depth <= 2
    assert est.tree_.branches_objective(X, y, 0, exact=True) == branches_optimum(X, y, 0, max_depth=2).value


@pytest.mark.parametrize("X, y, match", [
    ([[0.5, 1], [1, 0]], [0, 1], "non-integer"),
    ([[-1, 1], [1, 0]], [0, 1], "negative"),
    ([["a", "b"], ["b", "a"]], [0, 1], "string"),
    ([[0, 1], [1, 0]], [0, 1, 1], "inconsistent"),
])
def test_bad_input_gets_a_clear_error(X, y, match):
    with pytest.raises((ValueError, TypeError), match=match):
        BranchesClassifier().fit(X, y)


def test_solver_checks_its_arrays():
    with pytest.raises(ValueError, match="class codes"):
        BranchesSolver(XOR_X, [0.5, 1, 1, 0])
    with pytest.raises(ValueError, match="n_categories"):
        BranchesSolver(XOR_X, XOR_Y, n_categories=[1, 2])
    with pytest.raises(ValueError, match="at least one"):
        BranchesSolver(np.zeros((0, 2), dtype=int), np.zeros(0, dtype=int))
    for keep in (0, 2.5, "4"):
        with pytest.raises(ValueError, match="keep_splits must be an integer >= 1 or None"):
            BranchesSolver(XOR_X, XOR_Y, keep_splits=keep)


@pytest.mark.parametrize("params, match", [
    ({"lam": -0.1}, r"\[0(\.0)?, 1(\.0)?\]"), ({"lam": 1.5}, r"\[0(\.0)?, 1(\.0)?\]"), ({"lam": 0.0}, "max_depth"),
    ({"lam": "x"}, "finite number"), ({"lam": 1e-9}, "too small"), ({"max_depth": -1}, "max_depth"),
    ({"max_depth": 1.5}, "max_depth"),
    ({"child_rule": "max_G"}, "child_rule"), ({"tie_break": "random"}, "tie_break"),
    ({"time_limit": 0}, "time_limit"),
])
def test_bad_parameters_get_a_clear_error(params, match):
    with pytest.raises((ValueError, TypeError), match=match):
        BranchesClassifier(**params).fit(XOR_X, XOR_Y)


def test_sample_weights_are_refused():
    with pytest.raises(ValueError, match="sample weights"):
        BranchesClassifier().fit(XOR_X, XOR_Y, sample_weight=[1, 2, 1, 1])


def test_the_result_tree_is_a_category_tree():
    tree = run(XOR_X, XOR_Y, 0.1)[2].tree
    assert isinstance(tree, Tree) and set(tree.split[tree.split != 0]) == {2}
    assert tree.predict(XOR_X).tolist() == XOR_Y.tolist()


def test_the_kernel_gets_its_groups_as_plain_tuples():
    """numba types a plain tuple of arrays and scalars in C (its fingerprint) and a namedtuple in Python, item
    by item (about 4 us more per call, about 1 % of a sub-millisecond search): ``advance`` hands the kernel
    ``tuple(group)`` for Data, Params, State and Work, in their fields' order."""
    from odtlab import warmup

    solver = BranchesSolver(XOR_X, XOR_Y, lam=0.1)
    search = Search(solver, record="none")
    args, _ = warmup._kernel_arguments(solver, solver.kernel(0), search._buffer)
    groups = (solver.data, solver.params, solver.state, solver._work)
    assert [type(a) for a in args[:4]] == [tuple] * 4
    assert all(len(a) == len(g) and all(x is y for x, y in zip(a, g)) for a, g in zip(args[:4], groups))
    assert search.run().optimal


def test_one_compiled_kernel_serves_the_three_record_levels():
    """The record level is the kernel's run-time argument (``LevelKernel``): the three levels share one
    dispatcher, and fits at levels summary and full after one at level none compile nothing more."""
    from odtlab.core._jit import COMPILED, LevelKernel

    X = np.array([[0, 0, 1], [0, 1, 2], [1, 0, 0], [1, 1, 1], [2, 0, 2], [2, 1, 0]])
    y = np.array([0, 1, 1, 0, 1, 0])
    solver = BranchesSolver(X, y, lam=0.05)
    wrappers = [solver.kernel(level) for level in (0, 1, 2)]
    assert all(isinstance(w, LevelKernel) for w in wrappers)
    assert [w.level for w in wrappers] == [0, 1, 2]
    assert len({id(w.dispatcher) for w in wrappers}) == 1
    Search(BranchesSolver(X, y, lam=0.05), record="none").run()
    compiled = len(kernels.branches_kernel.signatures) if COMPILED else 0
    for record in ("summary", "full"):
        result = Search(BranchesSolver(X, y, lam=0.05), record=record).run()
        assert result.optimal
    assert (len(kernels.branches_kernel.signatures) if COMPILED else 0) == compiled
