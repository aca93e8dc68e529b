"""Limits that hold: memory bounds the process, growth is interruptible and clocked, stopped searches keep at least
the greedy tree (issue: reliability). Resident memory is measured in a fresh subprocess (a clean high-water mark)."""
import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from odtlab import datasets, memory, solvers
from odtlab.core import branches as branch_kernels
from odtlab.search import Search
from odtlab.solvers.branches import BranchesSolver
from odtlab.solvers.cart import CARTClassifier
from odtlab.solvers.dpdt import DPDTClassifier

MIB = 2 ** 20


def _subprocess(code):
    """Run ``code`` in a fresh interpreter with this environment; the JSON of its last line."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- growth in place -----------------------------------------------------------------------------------------

class _Holder:
    pass


def test_grow_rows_keeps_rows_fills_the_rest_and_copies_only_a_referenced_array():
    h = _Holder()
    h.a = memory.zeros((1000, 3), np.int32)
    h.a[:] = np.arange(3000).reshape(1000, 3)
    memory.grow_rows(h, "a", 5000, fill=-1)
    assert h.a.shape == (5000, 3) and (h.a[:1000].ravel() == np.arange(3000)).all() and (h.a[1000:] == -1).all()
    assert h.a.__array_interface__["data"][0] % 64 == 0          # rows stay cache-line aligned
    view = h.a[:10]                                               # someone still holds the old array:
    memory.grow_rows(h, "a", 6000)                                # it is copied, and the view stays valid
    assert view[1, 0] == 3 and h.a[1, 0] == 3 and h.a.shape == (6000, 3) and (h.a[5000:] == 0).all()
    h.b = np.ones((4, 2))                                         # a plain array moves into a memory map
    memory.grow_rows(h, "b", 8)
    assert (h.b[:4] == 1).all() and (h.b[4:] == 0).all()


def test_a_large_array_grows_without_a_second_copy_in_memory():
    peak = _subprocess("""
        import json, numpy as np
        from odtlab import memory
        def hwm():
            return int([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]) * 1024
        class H: pass
        h = H(); h.a = memory.zeros((64 << 20,), np.uint8); h.a[:] = 1
        before = hwm()
        memory.grow_rows(h, "a", 96 << 20); h.a[64 << 20:] = 2
        print(json.dumps({"growth": hwm() - before, "ok": bool(h.a[0] == 1 and h.a[-1] == 2)}))
    """)
    assert peak["ok"] and peak["growth"] < 40 * MIB  # 32 MiB of new rows; a copy would add the old 64 MiB


def test_capacity_never_passes_the_limit():
    row = 100
    assert memory.capacity(10, 11, 40, lambda c: c * row, 0, None) == 40
    assert memory.capacity(10, 11, 40, lambda c: c * row, 500, 3000) == 25    # the step shrinks to fit
    assert memory.capacity(10, 30, 40, lambda c: c * row, 500, 3000) is None  # even the need does not fit


# -- the memory limit on searches ------------------------------------------------------------------------------

def _recomputed_H(solver, tree):
    return tree.branches_objective(solver.X, solver.y, solver.lam, exact=True)


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
@pytest.mark.parametrize("cap_mib", [8, 24])
def test_branches_state_never_passes_the_cap_and_keeps_its_tree_and_gap(cap_mib):
    data = datasets.load("branches/car-eval-f")  # needs 16 MiB of state to finish
    solver = BranchesSolver(data.X, data.y, lam=0.01, capacity=2)
    search = Search(solver, record="none")
    result = search.run(memory_limit=cap_mib * MIB)
    assert search._memory() <= cap_mib * MIB
    if cap_mib == 8:
        assert result.status == "memory_limit" and 0 < result.gap < 1
    lower, upper = solver.bounds_exact()
    assert _recomputed_H(solver, result.tree) == lower <= upper


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_kept_events_count_and_stop_at_a_quarter_of_the_limit():
    data = datasets.load("branches/car-eval-f")
    search = Search(BranchesSolver(data.X, data.y, lam=0.01), record="full")
    with pytest.warns(RuntimeWarning, match="event log stops"):
        search.run(memory_limit=24 * MIB)
    assert search.events_dropped > 0 and search.events().nbytes <= 6 * MIB
    assert search._memory() <= 24 * MIB


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_process_growth_stays_under_1_25_times_the_limit():
    """The reproducer: with every event kept, a capped search grew the process far past its cap."""
    out = _subprocess("""
        import json, threading, time, psutil
        from odtlab import BranchesClassifier, datasets
        data = datasets.load("branches/kr-vs-kp")
        search = BranchesClassifier(lam=0.01).search(data.X, data.y)   # record="full": every event kept
        proc = psutil.Process(); base = proc.memory_info().rss; peak = [base]; done = threading.Event()
        def sample():
            while not done.wait(0.005):
                peak[0] = max(peak[0], proc.memory_info().rss)
        t = threading.Thread(target=sample); t.start()
        result = search.run(time_limit=30, memory_limit=24 * 2**20)
        done.set(); t.join()
        print(json.dumps({"status": result.status, "growth": peak[0] - base, "gap": result.gap}))
    """)
    assert out["status"] == "memory_limit" and out["gap"] > 0
    assert out["growth"] <= 1.25 * 24 * MIB


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_dpdt_exhaustive_state_never_passes_the_cap():
    data = datasets.load("sklearn/digits")
    est = DPDTClassifier(max_depth=4, generator="exhaustive", memory_limit=8 * MIB, record="none").fit(data.X, data.y)
    assert est.result_.status == "memory_limit" and est.search_._memory() <= 8 * MIB
    assert est.tree_.leaves > 1


def test_every_estimator_takes_a_memory_limit_with_a_safe_default():
    for name in solvers.available():
        est = solvers.get(name).estimator()
        assert est.get_params()["memory_limit"] == "auto", name
    assert 0 < memory.check_memory_limit("auto") <= memory.available_bytes()
    assert memory.check_memory_limit("1.5GiB") == 3 * 2**29 and memory.check_memory_limit("500MB") == 5 * 10**8
    assert memory.check_memory_limit(None) is None and memory.check_memory_limit("none") is None
    X, y = np.eye(4), np.array([0, 1, 0, 1])
    for bad in (0, -5, "lots", float("inf"), True):
        with pytest.raises(ValueError, match="memory_limit"):
            CARTClassifier(memory_limit=bad).fit(X, y)


def test_odtlab_solve_takes_a_memory_limit():
    out = solvers.solve("dpdt", "sklearn/digits", memory_limit="1KB", depth=3)
    assert out["status"] == "memory_limit" and out["leaves"] > 1
    with pytest.raises(ValueError, match="memory_limit"):
        solvers.solve("cart", "sklearn/iris", memory_limit="much")


# -- growth: Ctrl-C and the clock --------------------------------------------------------------------------------

@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_an_interrupt_at_every_growth_loses_nothing(monkeypatch):
    """The reproducer: Ctrl-C between the memo's replacement and its rebuild lost the Branches memo."""
    data = datasets.load("branches/monk1-f")
    whole = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none").run()
    rehash = branch_kernels.rehash

    def interrupted_rehash(*args):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C lands in the middle of the growth step
        return rehash(*args)

    monkeypatch.setattr(branch_kernels, "rehash", interrupted_rehash)
    search = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none")
    statuses = [search.run().status for _ in range(20) if not search.done]
    assert statuses.count("interrupted") >= 3 and search.result().status == "optimal"
    assert search.solver.iterations == whole.stats["iterations"]
    assert search.result().objective == whole.objective


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_a_growth_step_that_would_end_past_the_time_limit_is_not_started():
    data = datasets.load("branches/car-eval-f")
    search = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none")
    search._grow_seconds = 3600.0  # the last growth took an hour: the next one would overrun any limit
    before = search.solver.nbytes()
    result = search.run(time_limit=30)
    assert result.status == "time_limit" and search.solver.nbytes() == before
    assert result.stats["seconds"] < 5


# -- stopped searches keep at least the greedy tree ---------------------------------------------------------------

@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_a_time_limited_dpdt_returns_at_least_cart_s_tree():
    """The reproducer: a DPDT stopped early returned a single leaf (10 % accuracy on digits)."""
    data = datasets.load("sklearn/digits")
    est = DPDTClassifier(max_depth=5, time_limit=1e-4).fit(data.X, data.y)
    cart = CARTClassifier(max_depth=5).fit(data.X, data.y)
    assert est.result_.status == "time_limit" and est.tree_.leaves > 1
    assert est.score(data.X, data.y) >= cart.score(data.X, data.y)
    assert est.tree_.dpdt_objective(data.X, data.y) == pytest.approx(est.result_.upper_bound, abs=1e-12)
