"""odtlab.warmup: honest "must compile" detection, compilation before the search clock with a one-line notice,
and a warm-up plan drawn from the solver registry.

The cold-cache checks run a one-line kernel in a subprocess with an empty NUMBA_CACHE_DIR (about 2 s each);
the real solvers' compile times are measured in benchmarks/bench_compile.py, not here."""
import contextlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from odtlab import solvers, warmup
from odtlab.core import events as core

pytestmark = pytest.mark.jit_only  # compilation does not exist under NUMBA_DISABLE_JIT

ROOT = Path(__file__).resolve().parents[1]

# A solver whose search takes three kernel calls of one iteration each (first_chunk = 1).
TINY = textwrap.dedent('''
    import numba
    import numpy as np
    from odtlab.search import Search, Solver
    from odtlab.tree import Tree

    @numba.njit(cache=True)
    def step(state, events, max_iterations):
        state[0] += 1
        return 0, 0 if state[0] >= 3 else 1

    class TinySolver(Solver):
        name = "tiny"
        first_chunk = 1

        def __init__(self):
            self.state = np.zeros(1, dtype=np.int64)

        def kernel(self, level):
            return step

        def advance(self, kernel, events, max_iterations):
            n, status = kernel(self.state, events, max_iterations)
            return int(n), int(status)

        def bounds(self):
            return (0.0, 0.0) if self.finished else (0.0, 1.0)

        def incumbent(self):
            return None

        @property
        def iterations(self):
            return int(self.state[0])

        @property
        def finished(self):
            return self.state[0] >= 3
''')


# The same solver with one kernel for every record level (odtlab.core._jit.LevelKernel): level none writes no
# event, summary one per call, full two.
TINY_LEVELS = TINY + textwrap.dedent('''
    from odtlab.core._jit import LevelKernel

    @numba.njit(cache=True)
    def step_at(state, events, max_iterations, level):
        state[0] += 1
        for k in range(level):
            events[k]["iteration"] = state[0]
        return level, 0 if state[0] >= 3 else 1

    class LevelSolver(TinySolver):
        name = "levels"

        def kernel(self, level):
            return LevelKernel(step_at, level)
''')


@pytest.fixture
def tiny(tmp_path):
    """Run Python code in a subprocess that can import the tiny module, on a cache folder of its own."""
    (tmp_path / "tinykernel.py").write_text(TINY_LEVELS)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    env.pop("NUMBA_DISABLE_JIT", None)

    def run(code):
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.split(), out.stderr

    return run


def test_must_compile_reads_the_overloads_and_the_disk_cache(tiny):
    code = '''
        from numba import types
        from odtlab.warmup import must_compile
        from tinykernel import step
        sig = (types.int64[::1], types.int64[::1], types.int64)
        print(must_compile(step, sig))
        step.compile(sig)
        print(must_compile(step, sig), must_compile(step, (types.float64[::1],) + sig[1:]))
        print(dict(step.stats.cache_misses).get(sig, 0))
    '''
    first, _ = tiny(code)
    assert first == ["True", "False", "True", "1"]  # empty cache: compiled, then held; another type is not
    second, _ = tiny(code)
    assert second == ["False", "False", "True", "0"]  # the disk cache covers it: loaded, not compiled


def test_the_search_clock_starts_after_compilation_with_one_notice(tiny):
    """From a cold cache, compiling took longer than the 0.02 s limit: the first kernel call used to spend it,
    leaving status time_limit after one of three iterations; now the search gets its whole budget."""
    code = '''
        from odtlab.search import Search
        from tinykernel import TinySolver
        for _ in range(2):
            result = Search(TinySolver()).run(time_limit=0.02)
            print(result.status, result.stats["iterations"])
    '''
    out, err = tiny(code)
    assert out == ["optimal", "3", "optimal", "3"]
    assert err.splitlines() == ["odtlab: compiling the tiny kernels (once; cached on disk) …"]
    out, err = tiny(code)
    assert out == ["optimal", "3", "optimal", "3"] and err == ""  # loaded from the disk cache: no notice


def test_the_plan_covers_every_registered_algorithm_level_variant_and_input_form():
    steps = warmup.plan()
    covered = {(label.split()[0], level, form) for label, _, level, form in steps}
    expected = {(name, level, form) for name in solvers.available()
                for level in list(core.LEVELS) + [None] for form in ("C", "F", "frame")}
    assert covered == expected
    depths = {est.max_depth for label, est, _, _ in steps if label.startswith("quantbnb ")}
    assert depths == {2, 3}
    with pytest.raises(ValueError, match="unknown algorithm 'cartt'"):
        warmup.plan(["cartt"])


@contextlib.contextmanager
def compilations():
    """Within the block, the list it yields collects the name of every function numba compiles."""
    from numba.core import event

    compiled = []

    class Count(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Count()):
        yield compiled


def test_after_warmup_a_fit_on_new_data_compiles_nothing():
    warmup.warm(["cart"], progress=False)
    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(60, 4)), rng.integers(0, 2, size=60)
    with compilations() as compiled:
        for data in (X, np.asfortranarray(X), pd.DataFrame(X, columns=list("abcd"))):
            solvers.make_estimator("cart", depth=3).fit(data, y).predict(data)
    assert compiled == []


def test_a_compilation_outside_a_search_is_announced_once_per_odtlab_module(capsys, monkeypatch):
    """numba fires numba:compile only on a cache miss; the listener registered by odtlab.warmup names the
    odtlab module being compiled (a solver's set-up or predict helpers), once per process."""
    from types import SimpleNamespace

    monkeypatch.setattr(warmup, "_announced", set())

    def event(module):
        return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=SimpleNamespace(__module__=module))})

    listener = warmup._Announce()
    for module in ("odtlab.core.fake", "odtlab.core.fake", "numba.np.arrayobj", "odtlab.core.other"):
        listener.on_start(event(module))
    assert capsys.readouterr().err.splitlines() == [
        "odtlab: compiling the fake kernels (once; cached on disk) …",
        "odtlab: compiling the other kernels (once; cached on disk) …"]


def test_the_compile_notice_can_be_turned_off(capsys, monkeypatch):
    """ODTLAB_COMPILE_NOTICE=0 (the chapters' nbval run) silences the notice; unset, it is printed once."""
    monkeypatch.setattr(warmup, "_announced", set())
    monkeypatch.setenv("ODTLAB_COMPILE_NOTICE", "0")
    warmup._announce("quiet")
    assert capsys.readouterr().err == ""
    monkeypatch.delenv("ODTLAB_COMPILE_NOTICE")
    warmup._announce("quiet")
    assert capsys.readouterr().err == "odtlab: compiling the quiet kernels (once; cached on disk) …\n"


def test_a_level_kernel_is_compiled_once_for_every_record_level(tiny):
    """A kernel that takes the record level as an argument (LevelKernel) is compiled once, before the clock, with
    one notice, and runs at each level; the next process loads it from the disk cache."""
    code = '''
        from odtlab.search import Search
        from tinykernel import LevelSolver, step_at
        for record in ("none", "summary", "full"):
            search = Search(LevelSolver(), record=record)
            result = search.run(time_limit=0.02)
            print(record, result.status, len(search.events()))
        print(len(step_at.overloads), sum(dict(step_at.stats.cache_misses).values()))
    '''
    out, err = tiny(code)
    assert out == ["none", "optimal", "0", "summary", "optimal", "3", "full", "optimal", "6", "1", "1"]
    assert err.splitlines() == ["odtlab: compiling the levels kernels (once; cached on disk) …"]
    out, err = tiny(code)
    assert out[-2:] == ["1", "0"] and err == ""  # loaded from the disk cache


def test_the_kernel_signature_follows_the_state_arrays():
    """kernel_signature reuses the types it computed for the same dtypes, layouts and groups, and is never stale:
    a state array that grows from int32 to int64, turns Fortran-ordered or read-only, or a Python int past int64
    gives the signature numba.typeof gives."""
    import numba
    from collections import namedtuple

    Group = namedtuple("Group", "a b")

    class Probe:
        def __init__(self):
            self.group, self.n = Group(np.zeros((3, 2)), np.zeros(4, dtype=np.int32)), 5

        def advance(self, kernel, events, max_iterations):
            return kernel(self.group, events, max_iterations, self.n)

    solver, events = Probe(), np.zeros(4, dtype=core.EVENT_DTYPE)

    def check():
        signature = warmup.kernel_signature(solver, None, events)
        assert signature == tuple(numba.typeof(a) for a in (solver.group, events, 1, solver.n))
        return signature

    first = check()
    assert check() is first  # the same types: looked up, not typed again
    solver.group = Group(solver.group.a, solver.group.b.astype(np.int64))
    assert check() != first
    solver.group = Group(np.asfortranarray(solver.group.a), solver.group.b)
    check()
    readonly = solver.group.b.copy()
    readonly.flags.writeable = False
    solver.group = Group(solver.group.a, readonly)
    check()
    solver.n = 2**63
    assert check()[-1] == numba.types.uint64


def test_a_record_dtype_in_a_cached_signature_stays_alive():
    """The argument key (numba's fingerprint) names a record dtype by its address: the dtype of a key kept with
    its signature is kept alive, so no other dtype can take that address and be handed a stale signature."""
    record = np.dtype([("a", np.int64), ("b", np.float64)])
    args = ((np.zeros(2, dtype=record), np.zeros(3)), 7)
    key = warmup._type_key(args)
    assert key is not None and warmup._type_key(((np.ones(5, dtype=record), np.ones(1)), 8)) == key
    warmup._signature(args, key)
    assert any(d is record for d in warmup._typed_dtypes)


def test_after_warmup_every_input_form_predicts_with_the_one_compiled_traversal():
    """Issue 19: the predict helpers (odtlab.core.trees.apply and node_sums) were compiled once per input layout and
    writability: warmup left 3 signatures of each, and these calls added more (5 and 10 in all). Every array now
    reaches them C-ordered, writable float64 (odtlab.tree.kernel_array), so warmup's fit and predict compile all
    they need. A read-only X also compiled CART's kernel again (from an empty cache); the estimators copy it."""
    import numba
    from odtlab.core import trees

    warmup.warm(["cart", "cart-regressor"], progress=False)
    signatures = (list(trees.apply.signatures), list(trees.node_sums.signatures))
    c_float64 = numba.typeof(np.zeros((2, 2)))  # X as kernel_array makes it (other tests in this process may
    assert all(c_float64 in [sig[0] for sig in s] for s in signatures)  # have compiled other forms before)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 4))
    readonly = X.copy()
    readonly.flags.writeable = False
    forms = [X, np.asfortranarray(X), pd.DataFrame(X, columns=list("abcd")), X.astype(np.float32),
             np.asfortranarray(X.astype(np.float32)), np.rint(X * 3).astype(np.int64), np.hstack([X, X])[:, ::2],
             readonly]
    y, target = rng.integers(0, 3, size=40), rng.normal(size=40)
    weights = np.ones(80)[::2]  # a strided view
    with compilations() as compiled:
        for name, labels in (("cart", y), ("cart-regressor", target), ("cart-regressor", np.c_[target, -target]),
                             ("cart-regressor", np.asfortranarray(np.c_[target, -target]))):
            for data in forms:
                est = solvers.make_estimator(name, depth=2).fit(data, labels, sample_weight=weights)
                est.predict(data), est.apply(data), est.decision_path(data), est.score(data, labels)
                est.feature_importances_, est.to_sklearn(), est.summary(data, labels), est.tree_.expected_splits(data)
                if hasattr(est, "predict_proba"):
                    est.predict_proba(data)
    assert (list(trees.apply.signatures), list(trees.node_sums.signatures)) == signatures
    assert compiled == []
