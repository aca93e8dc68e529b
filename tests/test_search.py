"""The search runtime contract, exercised with the CART kernel (the simplest real kernel), and its iteration
numbering on every registered algorithm."""
import inspect

import numpy as np
import pytest
from sklearn.datasets import load_wine

from compiling import staged_compile
from odtlab import events as ev
from odtlab import solvers
from odtlab.core import events as core
from odtlab.core import cart as cart_kernels
from odtlab.search import Search
from odtlab.solvers.cart import CARTSolver


@pytest.fixture(scope="module")
def data():
    X, y = load_wine(return_X_y=True)
    return X, y


def solver(data, **kw):
    X, y = data
    return CARTSolver(X, y, **kw)


def same_tree(a, b):
    return (np.array_equal(a.split, b.split) and np.array_equal(a.feature, b.feature)
            and np.array_equal(a.threshold, b.threshold, equal_nan=True) and np.array_equal(a.children, b.children))


def test_chunked_run_resumes_to_the_uninterrupted_result(data):
    whole = Search(solver(data)).run()
    search = Search(solver(data))
    statuses = []
    while not search.done:
        statuses.append(search.run(max_iterations=3).status)
    assert statuses[0] == "iteration_limit" and statuses[-1] == "done"
    assert same_tree(search.result().tree, whole.tree)
    assert search.result().stats["iterations"] == whole.stats["iterations"]


def test_steps_yield_the_same_events_as_a_full_run(data):
    full = Search(solver(data), record="full")
    full.run()
    stepped = Search(solver(data))
    events = list(stepped.steps())
    assert [e.record for e in events] == [tuple(r) for r in full.events().tolist()]
    assert {e.name for e in events} >= {"SearchStarted", "Split", "Leaf", "Terminated"}
    assert stepped.status == "done"


def test_record_levels_do_not_change_the_result(data):
    trees = [Search(solver(data, max_depth=4), record=level).run().tree for level in ("none", "summary", "full")]
    assert same_tree(trees[0], trees[1]) and same_tree(trees[1], trees[2])
    quiet = Search(solver(data, max_depth=4), record="none")
    quiet.run()
    assert quiet.events().size == 0


def test_abandoned_steps_then_run_finishes_the_same_search(data):
    whole = Search(solver(data)).run()
    search = Search(solver(data))
    for i, _ in enumerate(search.steps()):
        if i == 10:
            break
    assert not search.done
    assert same_tree(search.run().tree, whole.tree)


def test_time_limit_returns_the_incumbent_with_valid_bounds(data):
    search = Search(solver(data))
    result = search.run(time_limit=1e-9)
    assert result.status == "time_limit" and not result.optimal
    X, y = data
    assert result.tree.misclassifications(X, y) == result.upper_bound
    assert result.lower_bound <= result.upper_bound
    assert search.run().status == "done"


def test_compilation_during_the_search_is_outside_its_time_limit(data):
    """Issue 20: from a cold cache a function first called during a search (a growth step's helper) compiled on
    the search's clock. Here the first kernel call stands for one: numba's compile event around 0.3 s."""
    class ColdHelper(CARTSolver):
        calls = 0

        def advance(self, kernel, events, max_iterations):
            ColdHelper.calls += 1
            if ColdHelper.calls == 1:
                staged_compile(same_tree, 0.3)  # a function not odtlab's
            return super().advance(kernel, events, max_iterations)

    X, y = data
    result = Search(ColdHelper(X, y)).run(time_limit=0.2)  # stopped after the compiling call before
    assert ColdHelper.calls > 1 and result.stats["compile_seconds"] >= 0.3


def test_keyboard_interrupt_stops_between_calls_and_resumes(data):
    class Interrupted(CARTSolver):
        calls = 0

        def advance(self, kernel, events, max_iterations):
            Interrupted.calls += 1
            if Interrupted.calls == 2:
                raise KeyboardInterrupt
            return super().advance(kernel, events, max_iterations)

    X, y = data
    search = Search(Interrupted(X, y))
    first = search.run()
    assert first.status == "interrupted"
    assert first.tree is not None and first.gap >= 0
    whole = Search(solver(data)).run()
    assert same_tree(search.run().tree, whole.tree)


def test_memory_limit_stops_with_a_tree(data):
    result = Search(solver(data)).run(memory_limit=1)
    assert result.status == "memory_limit"
    assert result.tree.n_nodes >= 1


@pytest.mark.parametrize("kwargs", [{"time_limit": 0}, {"max_iterations": -1}, {"memory_limit": 0}])
def test_bad_limits_are_rejected(data, kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        Search(solver(data)).run(**kwargs)


def test_bad_record_level_is_rejected(data):
    with pytest.raises(ValueError, match="record"):
        Search(solver(data), record="everything")


def test_history_and_snapshot_track_the_incumbent():
    X, y = load_wine(return_X_y=True)
    search = Search(CARTSolver(X, y))
    for i, _ in enumerate(search.steps()):
        if i == 4:
            snap = search.snapshot()
            assert snap.tree.misclassifications(X, y) == snap.upper_bound
    search.run()
    upper = search.history()["upper"].to_numpy()
    assert np.all(np.diff(upper) <= 0)  # splitting never adds training errors
    assert upper[-1] == 0


def test_trace_is_a_typed_frame_of_named_events(data):
    search = Search(solver(data, max_depth=3), record="full")
    frame = search.trace()
    assert list(frame.columns[:2]) == ["event", "iteration"]
    assert frame["event"].iloc[0] == "SearchStarted" and frame["event"].iloc[-1] == "Terminated"
    assert (frame.loc[frame.event == "Split", "depth"] < 3).all()


def test_event_decoding_names_the_payload():
    rec = np.zeros(1, dtype=core.EVENT_DTYPE)
    rec["kind"] = cart_kernels.CART_SPLIT
    rec["value"] = 2.5
    rec["i0"] = 40
    event = ev.decode(rec[0])
    assert event.name == "Split" and event.threshold == 2.5 and event.n_samples == 40
    assert event.as_dict()["threshold"] == 2.5
    assert "2.5" in event.caption()
    with pytest.raises(AttributeError):
        event.no_such_field
    rec["kind"] = 31
    with pytest.raises(ValueError, match="unknown event kind"):
        ev.decode(rec[0])


def test_event_codes_cannot_be_reused():
    with pytest.raises(ValueError, match="already"):
        core.event_kind(cart_kernels.CART_SPLIT, "SomethingElse", "other")


# every registered algorithm, once per compiled kernel variant (Quant-BnB: depth 2 and 3)
EVERY_ALGORITHM = [(spec, variant) for spec in solvers.specs() for variant in spec.variants]


def _every_algorithm(spec, variant):
    """The estimator (depth 3 where it takes a depth, then the variant's parameters) and small data of the
    kind it reads: category codes, 0/1 columns or floats; class labels or targets."""
    rng = np.random.default_rng(3)
    X = {"categorical": rng.integers(0, 3, size=(40, 3)), "binary": rng.integers(0, 2, size=(40, 4)),
         "numeric": rng.normal(size=(40, 3))}
    y = (X["categorical"][:, 0] + X["binary"][:, 1] + (X["numeric"][:, 2] > 0)) % 2
    if spec.task == "regression":
        y = y + X["numeric"][:, 0]
    depth = {"max_depth": 3} if "max_depth" in inspect.signature(spec.estimator).parameters else {}
    return spec.estimator(**{**depth, **variant}), X[spec.estimator._input], y


@pytest.mark.parametrize("spec, variant", EVERY_ALGORITHM,
                         ids=[f"{spec.name}{''.join(f'-{v}' for v in variant.values())}" for spec, variant in EVERY_ALGORITHM])
def test_every_algorithm_numbers_iterations_from_one(spec, variant):
    """One convention for captions and plots: SearchStarted (Init) carries 0, the k-th iteration's events carry k,
    Terminated carries the number of iterations done."""
    estimator, X, y = _every_algorithm(spec, variant)
    search = estimator.search(X, y, record="full")
    events = list(search.steps())
    its = [e.iteration for e in events]
    assert events[0].name in ("SearchStarted", "Init") and its[0] == 0  # Init: Branches' name
    assert its == sorted(its) and its[1] == 1
    assert events[-1].name == "Terminated" and its[-1] == search.result().stats["iterations"] == max(its)
