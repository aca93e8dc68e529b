"""Limits that hold: memory bounds the process, growth is interruptible and clocked, stopped searches keep at least
the greedy tree, every search reports its memory (issues: reliability; the frontier, item 5). Resident memory is
measured in a fresh subprocess (a clean high-water mark)."""
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from compiling import staged_compile
from golden import cases
from odtlab import datasets, memory, solvers
from odtlab.core import quantbnb as quantbnb_kernels
from odtlab.search import Search
from odtlab.solvers.branches import BranchesSolver
from odtlab.solvers.cart import CARTClassifier
from odtlab.solvers.dpdt import DPDTClassifier
from odtlab.solvers.quantbnb import QuantBnBSolver

MIB = 2 ** 20
BLOCK_PSUTIL = """
    import sys
    class BlockPsutil:  # as tools/no_numba does for numba: every import of psutil fails
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "psutil":
                raise ImportError("No module named 'psutil' (blocked)", name=name)
    sys.meta_path.insert(0, BlockPsutil())
"""


def _subprocess(code):
    """Run ``code`` in a fresh interpreter with this environment; the JSON of its last line."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def state_only(monkeypatch):
    """A limit on the search's own memory: the process's RSS reads as unknown, so the search gets the whole
    limit (:func:`odtlab.memory.state_budget`) and its state rule is tested alone."""
    monkeypatch.setattr(memory, "process_rss", lambda: None, raising=False)


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
def test_branches_state_never_passes_the_cap_and_keeps_its_tree_and_gap(cap_mib, state_only):
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
def test_kept_events_count_and_stop_at_a_quarter_of_the_limit(state_only):
    data = datasets.load("branches/car-eval-f")
    search = Search(BranchesSolver(data.X, data.y, lam=0.01), record="full")
    quarter = r"event log stops at \d+ events \(a quarter of the search's memory budget\)"
    with pytest.warns(RuntimeWarning, match=quarter):
        search.run(memory_limit=24 * MIB)
    assert search.events_dropped > 0 and search.events().nbytes <= 6 * MIB
    assert search._memory() <= 24 * MIB


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_peak_rss_stays_under_1_25_times_the_limit_and_is_reported():
    """The reproducer: the limit bounded the search only, so the process peaked at its RSS before the search plus
    the whole limit (1.50 x a 0.5 GiB limit on kr-vs-kp). Here the process holds ~150 MiB and the limit leaves the
    search 24 MiB of it; every event is kept."""
    out = _subprocess("""
        import json, threading
        from odtlab import BranchesClassifier, datasets
        def status(field):
            return int([l for l in open("/proc/self/status") if l.startswith(field)][0].split()[1]) * 1024
        data = datasets.load("branches/kr-vs-kp")
        search = BranchesClassifier(lam=0.01).search(data.X, data.y)   # record="full": every event kept
        search.run(max_iterations=1, memory_limit=None)                # compiled and started
        held, limit = search._memory(), status("VmRSS") + 24 * 2**20
        open("/proc/self/clear_refs", "w").write("5")                  # the high-water mark restarts here
        peak, done = [0], threading.Event()
        def sample():
            while not done.wait(0.005):
                peak[0] = max(peak[0], status("VmRSS"))
        t = threading.Thread(target=sample); t.start()
        result = search.run(time_limit=60, memory_limit=limit)
        done.set(); t.join()
        print(json.dumps({"status": result.status, "gap": result.gap, "limit": limit, "hwm": status("VmHWM"),
                          "sampled": peak[0], "reported": result.stats.get("peak_rss"),
                          "held": held, "state": search._memory(), "budget": getattr(search, "memory_budget", None)}))
    """)
    assert out["status"] == "memory_limit" and out["gap"] > 0
    assert out["hwm"] <= 1.25 * out["limit"]
    assert out["state"] <= out["budget"] <= out["held"] + 25 * MIB  # the search got what the process left
    # peak RSS reported, at least what was seen. getrusage's ru_maxrss (reported), /proc's VmRSS (sampled) and
    # VmHWM read the kernel's per-CPU resident-memory counters, summed exactly or read approximately; clean-clone
    # runs found them 0.5 MiB apart one way (reported above VmHWM) and 0.16 MiB the other (sampled above reported)
    assert out["sampled"] - 2 * MIB <= out["reported"] <= out["hwm"] + 2 * MIB


def test_a_limit_below_what_the_process_holds_warns_and_stops_at_the_first_growth():
    data = datasets.load("branches/monk1-f")
    search = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none")
    with pytest.warns(RuntimeWarning, match=r"memory_limit=1000000 bytes is at or below the .* MiB this process "
                                            r"already holds outside the search"):
        result = search.run(memory_limit="1MB")
    assert result.status == "memory_limit" and search.memory_budget == 0
    lower, upper = search.solver.bounds_exact()
    assert _recomputed_H(search.solver, result.tree) == lower <= upper
    assert search.run(memory_limit=None).status == "optimal"


def test_auto_lets_the_search_take_half_the_available_memory(monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: 1000 * MIB)
    monkeypatch.setattr(memory, "process_rss", lambda: 300 * MIB, raising=False)
    monkeypatch.setattr(memory, "_DEFAULT", [-2.0, 0])
    assert memory.check_memory_limit("auto") == 300 * MIB + 500 * MIB  # a process limit: what it holds + half
    assert memory.state_budget(800 * MIB, 40 * MIB) == 540 * MIB         # the search: 800 - (300 - 40) MiB


def test_without_psutil_auto_reads_proc_meminfo_and_limits_hold():
    out = _subprocess(textwrap.dedent(BLOCK_PSUTIL) + textwrap.dedent("""
        import json, warnings
        warnings.simplefilter("error")                                   # no warning: auto resolves
        from odtlab import memory, datasets
        from odtlab.solvers.cart import CARTClassifier
        meminfo = int([l for l in open("/proc/meminfo") if l.startswith("MemAvailable")][0].split()[1]) * 1024
        data = datasets.load("sklearn/iris")
        est = CARTClassifier(max_depth=3).fit(data.X, data.y)           # memory_limit="auto"
        print(json.dumps({"available": memory.available_bytes(), "meminfo": meminfo, "rss": memory.process_rss(),
                          "auto": memory.check_memory_limit("auto"), "status": est.result_.status,
                          "peak_rss": est.result_.stats["peak_rss"], "psutil": "psutil" in sys.modules}))
    """))
    assert not out["psutil"] and out["status"] == "done"
    assert 0 < out["available"] <= out["meminfo"] * 1.1 + 256 * MIB   # MemAvailable, or a cgroup's limit
    assert out["auto"] > out["rss"] > 0 and 0 < out["peak_rss"] < out["auto"]


def test_where_no_memory_can_be_read_auto_sets_no_limit_with_one_warning(monkeypatch):
    """Pyodide: no psutil, no /proc, no sysconf."""
    for source in ("_psutil_available", "_meminfo_available", "_sysconf_available"):
        monkeypatch.setattr(memory, source, lambda: None, raising=False)
    monkeypatch.setattr(memory, "_DEFAULT", [-2.0, 0])
    monkeypatch.setattr(memory, "_WARNED", [], raising=False)
    with pytest.warns(RuntimeWarning, match="cannot read the available memory .*'auto' sets no limit"):
        assert memory.check_memory_limit("auto") is None
    X, y = np.eye(4), np.array([0, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                   # one warning per process, not per fit
        assert CARTClassifier().fit(X, y).result_.status == "done"


def test_every_solver_reports_its_peak_search_memory_and_peak_rss():
    for name, estimator in solvers.estimators().items():
        dataset, params = cases.CASES[name][0]
        X, y, w = cases.data(dataset)
        before = memory.process_rss()
        est = estimator(**params).fit(X, y, sample_weight=w)
        stats = est.result_.stats
        assert 0 < est.search_._memory() <= stats["peak_memory"], name
        # Linux raises the high-water mark (ru_maxrss) lazily, on unmapping and exit, so it can trail the RSS
        # the run sampled: CI saw a DPDT fit's sampled 1.574 GB against a mark of 1.540 GB
        assert before <= stats["peak_rss"] <= max(memory.process_peak_rss(), memory.process_rss()) + 64 * MIB, name
        assert "process peak" in est.result_._repr_html_(), name


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_dpdt_exhaustive_state_never_passes_the_cap(state_only):
    data = datasets.load("sklearn/digits")
    est = DPDTClassifier(max_depth=4, generator="exhaustive", memory_limit=8 * MIB, record="none").fit(data.X, data.y)
    assert est.result_.status == "memory_limit" and est.search_._memory() <= 8 * MIB
    assert est.tree_.leaves > 1


@pytest.mark.jit_only  # Quant-BnB at depth 3 on 200 rows: slow as plain Python
@pytest.mark.parametrize("depth", [2, 3])
def test_quantbnb_state_never_passes_the_cap_and_keeps_valid_bounds(depth, state_only):
    """The reproducer: Quant-BnB's tuple queue doubled whatever the limit, so its state ended a step over it."""
    data = datasets.load("gen/random-continuous")
    X, y = data.X, data.y  # 200 rows: the queue grows 3-4 times from the few rows left here
    whole = Search(QuantBnBSolver(X, y, depth=depth, initial="leaf"), record="none").run(memory_limit=None)
    solver = QuantBnBSolver(X, y, depth=depth, initial="leaf")
    tail = int(solver.ist[quantbnb_kernels.I_TAIL])
    solver.T = tuple(np.ascontiguousarray(column[:tail + solver.s]) for column in solver.T)  # a full queue
    solver._nbytes = None
    search = Search(solver, record="none")
    row = sum(column[:1].nbytes for column in solver.T)
    cap = search._memory() + 20 * row                                       # less than the search needs
    result = search.run(memory_limit=cap)
    assert result.status == "memory_limit" and search._memory() <= cap
    assert tail + solver.s < solver.T[0].shape[0] <= tail + solver.s + 20  # grew by what fitted, then stopped
    assert result.lower_bound <= whole.objective <= result.upper_bound
    assert result.tree.misclassifications(X, y) == result.upper_bound
    assert search.run(memory_limit=None).objective == whole.objective


def test_every_estimator_takes_a_memory_limit_with_a_safe_default():
    for name in solvers.available():
        est = solvers.get(name).estimator()
        assert est.get_params()["memory_limit"] == "auto", name
    assert memory.process_rss() < memory.check_memory_limit("auto") <= memory.process_rss() + memory.available_bytes()
    assert memory.check_memory_limit("1.5GiB") == 3 * 2**29 and memory.check_memory_limit("500MB") == 5 * 10**8
    assert memory.check_memory_limit(None) is None and memory.check_memory_limit("none") is None
    X, y = np.eye(4), np.array([0, 1, 0, 1])
    for bad in (0, -5, "lots", float("inf"), True):
        with pytest.raises(ValueError, match="memory_limit"):
            CARTClassifier(memory_limit=bad).fit(X, y)


def test_odtlab_solve_takes_a_memory_limit():
    with pytest.warns(RuntimeWarning, match="already holds outside the search"):
        out = solvers.solve("dpdt", "sklearn/digits", memory_limit="1KB", depth=3)
    assert out["status"] == "memory_limit" and out["leaves"] > 1
    with pytest.raises(ValueError, match="memory_limit"):
        solvers.solve("cart", "sklearn/iris", memory_limit="much")


# -- growth: Ctrl-C and the clock --------------------------------------------------------------------------------

@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_an_interrupt_at_every_growth_loses_nothing():
    """The reproducer: Ctrl-C between the memo's replacement and its rebuild lost the Branches memo. In a fresh
    interpreter with Python's own Ctrl-C handler set first: the search was seen to finish uninterrupted in the
    test process (after tests/test_newcomer.py) and once in a fresh interpreter in a clean-clone CI run (cause
    not found); a SIGINT inherited as ignored would do it, since odtlab keeps an ignored Ctrl-C ignored
    (memory.deferred_interrupt)."""
    out = _subprocess("""
        import json, os, signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from odtlab import datasets
        from odtlab.core import branches as branch_kernels
        from odtlab.search import Search
        from odtlab.solvers.branches import BranchesSolver

        data = datasets.load("branches/monk1-f")
        whole = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none").run()
        rehash = branch_kernels.rehash

        def interrupted_rehash(*args):
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C lands in the middle of the growth step
            return rehash(*args)

        branch_kernels.rehash = interrupted_rehash
        search = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none")
        statuses = [search.run().status for _ in range(20) if not search.done]
        print(json.dumps({"statuses": statuses, "final": search.result().status,
                          "iterations": int(search.solver.iterations), "whole": int(whole.stats["iterations"]),
                          "same": bool(search.result().objective == whole.objective)}))
    """)
    assert out["statuses"].count("interrupted") >= 3 and out["final"] == "optimal"
    assert out["iterations"] == out["whole"] and out["same"]


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_a_growth_step_that_would_end_past_the_time_limit_is_not_started():
    data = datasets.load("branches/car-eval-f")
    search = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none")
    search._grow_seconds = 3600.0  # the last growth took an hour: the next one would overrun any limit
    before = search.solver.nbytes()
    result = search.run(time_limit=30)
    assert result.status == "time_limit" and search.solver.nbytes() == before
    assert result.stats["seconds"] < 5


@pytest.mark.jit_only  # searches on benchmark sets: too slow as plain Python
def test_a_growth_step_s_compilation_is_not_counted_in_its_estimate(monkeypatch):
    """From a cold cache the first growth compiled a helper (Branches' rehash, 0.6 s): counted in the step's
    duration, it made the search stop 0.2 s before a 0.5 s limit, predicting the next step past it."""
    data = datasets.load("branches/car-eval-f")
    search = Search(BranchesSolver(data.X, data.y, lam=0.01, capacity=2), record="none")
    grow = search.solver.grow

    def compiling_grow():
        staged_compile(grow, 0.5)
        return grow()

    monkeypatch.setattr(search.solver, "grow", compiling_grow)
    search.run(max_iterations=10_000)
    assert search._grow_seconds < 0.25


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
