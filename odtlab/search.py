"""The resumable search driver shared by every algorithm.

A :class:`Solver` owns an algorithm's state as numpy arrays and knows how to call its numba kernel. A
kernel call advances the search by at most ``max_iterations`` iterations, writes events into a
preallocated buffer, and returns ``(n_events, status)``. :class:`Search` drives those calls: it runs to
a time, iteration or memory limit, catches Ctrl-C between calls, grows arrays when a kernel asks, yields
decoded events one by one, keeps the bound history, and always hands back the best tree found so far
with its certified bounds. Calling :meth:`Search.run` again resumes where the last call stopped.

Why a driver around kernels rather than numba generators: a jitted generator cannot be paused from
outside, costs as much per event as pure Python, and has no ``send`` (numba's generator support).
"""
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from odtlab import events as ev, memory, warmup
from odtlab.core import events as core

STOP_STATUSES = ("optimal", "uncertified", "done", "time_limit", "iteration_limit", "memory_limit", "interrupted",
                 "running")

#: The result's stats that measure the machine and the run (wall and compile seconds, memory), not the search:
#: two runs of the same search agree on every other stat.
MACHINE_STATS = ("seconds", "compile_seconds", "peak_memory", "peak_rss")


class Solver:
    """What an algorithm provides to :class:`Search` (subclassed in ``odtlab.solvers``).

    Subclasses set ``name``, ``sense`` ("min" or "max": the direction of the objective) and
    ``events_per_iteration`` (an upper bound on the records one iteration writes at level full),
    and implement the methods below. All search state lives in numpy arrays held by the solver.
    ``first_chunk`` is the iteration budget of the first kernel call of :meth:`Search.run` (later calls
    adapt to take 20-100 ms): a solver whose iterations take microseconds sets it larger, so that a small
    problem is solved in one call rather than paying the call overhead several times.
    """

    name = "solver"
    sense = "min"
    exact = True  # True when a finished search certifies optimality (False for CART, DPDT)
    events_per_iteration = 64
    first_chunk = 16

    def kernel(self, level):
        """The compiled kernel for a record level (``core.LEVEL_*``)."""
        raise NotImplementedError

    def advance(self, kernel, events, max_iterations):
        """Call ``kernel`` on the state; return ``(n_events, status)``."""
        raise NotImplementedError

    def grow(self):
        """Enlarge the array the kernel reported as full (after ``STATUS_GROW``). ``memory_limit`` holds
        what the state may take in the current :meth:`Search.run` (bytes, or None): a solver grows by less
        to fit it (:func:`odtlab.memory.capacity`), in place (:func:`odtlab.memory.grow_rows`), and returns
        False, changing nothing, when even what the kernel needs does not fit. The driver defers Ctrl-C
        while it runs, so a growth step is never left half done."""
        raise NotImplementedError

    memory_limit = None

    def bounds(self):
        """``(lower, upper)``: certified bounds on the optimal objective, in the objective's units."""
        raise NotImplementedError

    def incumbent(self):
        """The best complete tree found so far (an :class:`odtlab.tree.Tree`)."""
        raise NotImplementedError

    @property
    def iterations(self):
        raise NotImplementedError

    @property
    def finished(self):
        raise NotImplementedError

    def stats(self):
        """Algorithm counters (evaluations, memo size, ...) as a dict of plain numbers."""
        return {}

    def nbytes(self):
        """Memory held by the search state, in bytes."""
        return 0

    feature_names = None  # set by the estimator; used in captions

    def describe(self, event):
        """A caption for ``event`` in the paper's words; solvers may add printable keys."""
        return event.caption(self.feature_names)

    def certificate(self):
        """None when the finished search's tree meets the rule of :mod:`odtlab.certificate` (its objective,
        recomputed from the data, equals the certified lower bound within the stated tolerance), else the
        reason it does not; the status is then "uncertified" instead of "optimal"."""
        return None

    def uncertified(self):
        """:meth:`certificate`, computed once per iteration count (a finished search's ``bounds`` may ask)."""
        memo = getattr(self, "_certificate_memo", None)
        if memo is None or memo[0] != self.iterations:
            memo = self._certificate_memo = (self.iterations, self.certificate())
        return memo[1]

    def incumbent_value(self):
        lower, upper = self.bounds()
        return upper if self.sense == "min" else lower


@dataclass
class Result:
    """What a search returns: the incumbent tree, its objective, certified bounds and a status.

    ``lower_bound <= optimum <= upper_bound`` always holds, in the objective's own direction: for a
    maximised objective (Branches' H_lambda) the incumbent is the lower bound, for a minimised one
    (misclassifications) it is the upper bound. ``gap`` is their difference; it is 0 when optimal.
    ``optimal`` (status "optimal") follows the rule of :mod:`odtlab.certificate`; a finished exact search that
    cannot meet it has status "uncertified", its reason in ``stats["certificate"]`` and bounds that hold anyway.
    """

    algorithm: str
    tree: object
    objective: float
    lower_bound: float
    upper_bound: float
    optimal: bool
    status: str
    sense: str
    stats: dict = field(default_factory=dict)

    @property
    def gap(self):
        return self.upper_bound - self.lower_bound

    def as_dict(self):
        out = {
            "algorithm": self.algorithm,
            "objective": float(self.objective),
            "lower_bound": float(self.lower_bound),
            "upper_bound": float(self.upper_bound),
            "gap": float(self.gap),
            "optimal": bool(self.optimal),
            "status": self.status,
            "sense": self.sense,
        }
        out.update(self.stats)
        return out

    def _repr_html_(self):
        from odtlab.reprs import card, number

        rows = [("status", self.status), ("objective", number(self.objective)),
                ("bounds", f"[{number(self.lower_bound)}, {number(self.upper_bound)}]"), ("gap", number(self.gap)),
                ("iterations", self.stats.get("iterations")),
                ("seconds", f"{self.stats['seconds']:.3g}" if "seconds" in self.stats else None),
                ("memory", _memory_row(self.stats))]
        return card(f"Result of {self.algorithm} ({self.sense}imise)", rows,
                    self.tree.to_svg() if self.tree is not None else "")

    def __repr__(self):
        return (f"Result({self.algorithm}: objective={self.objective:.6g}, bounds=[{self.lower_bound:.6g}, "
                f"{self.upper_bound:.6g}], status={self.status!r}, iterations={self.stats.get('iterations')})")


@dataclass
class Snapshot:
    """The state of a search at one moment: incumbent tree, bounds and the bound history so far."""

    tree: object
    lower_bound: float
    upper_bound: float
    iterations: int
    history: object  # pandas DataFrame: iteration, seconds, lower, upper


class Search:
    """Drive a :class:`Solver`: run to limits, step event by event, resume, snapshot.

    ``record`` is the event level kept while running: "none" (no events: a kernel made per level has no event
    code at all, one compiled for every level skips it at run time),
    "summary" (one event per iteration) or "full" (every step). ``steps()`` always records at level
    full unless told otherwise.
    """

    def __init__(self, solver, record="summary", buffer_size=None, keep_events=True):
        if record not in core.LEVELS:
            raise ValueError(f"record must be one of {sorted(core.LEVELS)}, not {record!r}")
        self.solver = solver
        self.record = record
        self.keep_events = keep_events
        size = buffer_size or max(4096, 4 * solver.events_per_iteration)
        if size < 2 * solver.events_per_iteration:
            raise ValueError(f"buffer_size must be at least {2 * solver.events_per_iteration} for {solver.name}")
        self._buffer = np.zeros(size, dtype=core.EVENT_DTYPE)
        self._chunks = []
        self._history = []
        self._seconds = 0.0
        self._compile_seconds = 0.0  # numba's compilation during run() (cache misses), outside the time limit
        self._peak_bytes = 0
        self._peak_rss = None  # the process's peak resident memory while this search ran (bytes)
        self._events_bytes = 0
        self._recorded = False  # whether a kernel call wrote events into the buffer
        self._grow_seconds = 0.0
        self.events_dropped = 0  # events not kept: the log reached a quarter of the memory budget
        self.memory_budget = None  # bytes the search may hold in the last run (memory.state_budget); None: no limit
        self._status = "running"
        self._chunk_iterations = max(int(getattr(solver, "first_chunk", 16)), 1)
        self._note_bounds()

    # -- internals ---------------------------------------------------------------------------
    def _note_bounds(self):
        lower, upper = self.solver.bounds()
        it = self.solver.iterations
        if not self._history or self._history[-1][1:] != (lower, upper) or self._history[-1][0] != it:
            self._history.append((it, lower, upper, self._seconds))
        self._peak_bytes = max(self._peak_bytes, self._memory())

    def _sample_rss(self):
        """Note the process's resident memory now (2 us on Linux) into the peak the stats report."""
        rss = memory.process_rss()
        if rss is not None:
            self._peak_rss = max(self._peak_rss or 0, rss)

    def _call(self, level, max_iterations, memory_limit, deadline=None):
        """One kernel call, growing arrays as asked: ``(records, status)``; status is the kernel's, or
        "memory_limit" when the state cannot grow within ``memory_limit`` (the bytes the search may hold,
        :func:`odtlab.memory.state_budget`), or "time_limit" when a growth step would end past ``deadline``
        (a ``perf_counter`` time; a step is estimated at twice the last, its compilation left out). The
        process's resident memory is sampled after every kernel call and every growth step."""
        kernel = self.solver.kernel(core.LEVELS[level])
        self._recorded = self._recorded or level != "none"
        parts = []
        first = self.solver.iterations
        while True:  # after a growth step the kernel goes on with what is left of the call's iterations
            left = max_iterations - (self.solver.iterations - first)
            n, status = self.solver.advance(kernel, self._buffer, left)
            parts.append(self._buffer[:n].copy())
            self._sample_rss()
            if status != core.STATUS_GROW:
                break
            if self.solver.iterations - first >= max_iterations:
                status = core.STATUS_BUDGET
                break
            if deadline is not None and time.perf_counter() + 2 * self._grow_seconds > deadline:
                status = "time_limit"
                break
            self.solver.memory_limit = (None if memory_limit is None
                                        else memory_limit - self._memory() + self.solver.nbytes())
            t0 = time.perf_counter()
            with memory.deferred_interrupt(), warmup.compile_clock() as compiling:
                grown = self.solver.grow()
                self._grow_seconds = time.perf_counter() - t0 - compiling()  # a first growth may compile a helper
            self._sample_rss()
            if grown is False or (memory_limit is not None and self._memory() > memory_limit):
                status = "memory_limit"
                break
        records = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return records, status

    def _memory(self):
        """Bytes the search holds: the solver's state, the events kept and the event buffer once a call
        recorded into it (at level none the kernel never writes it, so its zero pages take no memory)."""
        return self.solver.nbytes() + self._events_bytes + (self._buffer.nbytes if self._recorded else 0)

    def _keep(self, records, memory_limit):
        """Keep a call's events, unless they would take more than a quarter of ``memory_limit`` (the search's
        budget): then the log stops (with one warning) and the memory goes to the search."""
        if not (records.size and self.keep_events):
            return
        if memory_limit is not None and 4 * (self._events_bytes + records.nbytes) > memory_limit:
            if not self.events_dropped:
                warnings.warn(f"{self.solver.name}: the event log stops at {self._events_bytes // records.itemsize} "
                              f"events (a quarter of the search's memory budget); the search goes on", RuntimeWarning,
                              stacklevel=3)
            self.events_dropped += records.size
            return
        self._chunks.append(records)
        self._events_bytes += records.nbytes

    def _finish_status(self):
        if self.solver.finished:
            if not self.solver.exact:
                return "done"
            return "optimal" if self.solver.uncertified() is None else "uncertified"
        return None

    # -- public API ----------------------------------------------------------------------------
    @property
    def done(self):
        return self.solver.finished

    @property
    def status(self):
        return self._status

    def run(self, time_limit=None, max_iterations=None, memory_limit="auto", progress=False):
        """Advance until finished or a limit is hit, and return a :class:`Result`.

        ``time_limit`` (seconds) and ``max_iterations`` count from this call, after the kernel is
        compiled (one line on stderr says when that happens; :mod:`odtlab.warmup`); the time limit counts the
        search's own seconds: numba compiling a function first called during the search is left out too
        (``stats["compile_seconds"]`` reports all the compilation of the call). ``memory_limit`` is the
        ceiling of the process's resident memory (bytes, a size such as ``"4GiB"``, None for no limit, or
        "auto": :func:`odtlab.memory.default_memory_limit`, the search may take half the available memory):
        once the kernel is compiled, the search (its state and the events it keeps) gets the limit less what
        the process holds outside it (:func:`odtlab.memory.state_budget`); see :mod:`odtlab.memory` for what
        it promises. Ctrl-C stops between kernel calls and is held during a growth step. Nothing is lost on
        a stop: the result holds the incumbent tree and certified bounds, and ``run()`` again resumes.
        The result's ``stats`` hold ``peak_memory`` (the most the search held, bytes) and ``peak_rss`` (the
        process's peak resident memory while the search ran, after compilation; see :meth:`result`).
        """
        for name, value in (("time_limit", time_limit), ("max_iterations", max_iterations)):
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive, got {value!r}")
        memory.check_memory_limit(memory_limit)  # a wrong value fails before any compilation
        with warmup.compile_clock() as compiling:
            return self._run(time_limit, max_iterations, memory_limit, progress, compiling)

    def _run(self, time_limit, max_iterations, memory_limit, progress, compiling):
        """:meth:`run`'s loop; ``compiling()``: the seconds numba has compiled since ``run`` began, left out
        of the time limit (the kernel before the clock starts, anything first called during the search)."""
        warmup.compile_kernel(self.solver, self.record, self._buffer)  # before the clock: the limit is the search's
        high_water = memory.process_peak_rss()
        self._sample_rss()
        budget = self.memory_budget = memory.state_budget(memory.check_memory_limit(memory_limit), self._memory())
        start = time.perf_counter() - compiling()  # the search's clock: perf_counter() - start - compiling()
        target = None if max_iterations is None else self.solver.iterations + int(max_iterations)
        bar = _progress_bar(progress, self.solver)
        self._status = "running"
        try:
            while self._status == "running":
                finished = self._finish_status()
                if finished:
                    self._status = finished
                    break
                if target is not None and self.solver.iterations >= target:
                    self._status = "iteration_limit"
                    break
                deadline = None if time_limit is None else start + compiling() + time_limit
                if deadline is not None and time.perf_counter() >= deadline:
                    self._status = "time_limit"
                    break
                iterations = self._chunk_iterations
                if target is not None:
                    iterations = min(iterations, target - self.solver.iterations)
                t0 = time.perf_counter()
                records, status = self._call(self.record, iterations, budget, deadline)
                dt = time.perf_counter() - t0
                self._seconds += dt
                self._keep(records, budget)
                self._note_bounds()
                if status in ("memory_limit", "time_limit"):
                    self._status = status
                elif budget is not None and self._memory() > budget:
                    self._status = "memory_limit"
                elif dt < 0.02:  # keep calls near 20-100 ms so limits and Ctrl-C act within ~0.1 s
                    self._chunk_iterations = min(self._chunk_iterations * 2, 1 << 30)
                elif dt > 0.1 and self._chunk_iterations > 1:
                    self._chunk_iterations //= 2
                if bar is not None:
                    _update_bar(bar, self.solver)
        except KeyboardInterrupt:
            self._status = "interrupted"
        finally:
            if bar is not None:
                bar.close()
            self._note_peak_rss(high_water)
            self._compile_seconds += compiling()
        return self.result()

    def _note_peak_rss(self, high_water):
        """After a run: when the process's high-water mark rose above ``high_water`` (its value when the run
        started), the run set it; the larger of it and the samples' peak stands (Linux raises the mark lazily,
        on unmapping and exit, so a sample can read more)."""
        now = memory.process_peak_rss()
        if high_water is not None and now is not None and now > high_water:
            self._peak_rss = max(self._peak_rss or 0, now)

    def steps(self, record="full", max_iterations=None):
        """Yield decoded events one by one, advancing one iteration per kernel call.

        The generator can be abandoned and resumed: the search state stays consistent between
        iterations, so ``run()`` or a new ``steps()`` continues from where it stopped.
        """
        if record not in core.LEVELS or record == "none":
            raise ValueError("steps() needs record='summary' or 'full'")
        warmup.compile_kernel(self.solver, record, self._buffer)  # with its one-line notice when it compiles
        done_iterations = 0
        while not self.solver.finished:
            if max_iterations is not None and done_iterations >= max_iterations:
                return
            before = self.solver.iterations
            t0 = time.perf_counter()
            records, status = self._call(record, 1, None)
            self._seconds += time.perf_counter() - t0
            done_iterations += max(self.solver.iterations - before, 1)
            self._keep(records, None)
            self._note_bounds()
            for rec in records.tolist():
                yield ev.decode(rec)
        self._status = self._finish_status() or self._status

    def events(self):
        """All events recorded so far, as a record array."""
        if not self._chunks:
            return np.zeros(0, dtype=core.EVENT_DTYPE)
        if len(self._chunks) > 1:
            self._chunks = [np.concatenate(self._chunks)]
        return self._chunks[0]

    def trace(self):
        """A pandas DataFrame of the recorded events (runs the search first if it never ran)."""
        if not self._chunks and self.solver.iterations == 0 and not self.solver.finished:
            self.run()
        return ev.to_frame(self.events())

    def history(self):
        """The bound history: one row per kernel call that moved the bounds."""
        import pandas as pd

        return pd.DataFrame(self._history, columns=["iteration", "lower", "upper", "seconds"])

    def snapshot(self):
        """The incumbent tree, the current bounds and the bound history, at any point."""
        lower, upper = self.solver.bounds()
        return Snapshot(self.solver.incumbent(), lower, upper, self.solver.iterations, self.history())

    def result(self):
        """The current :class:`Result` (incumbent tree, objective, bounds, status, stats).

        Besides the solver's counters, ``stats`` holds ``iterations``, ``seconds``, ``compile_seconds`` (numba's
        compilation during :meth:`run`, cache misses only, outside the time limit), ``peak_memory`` (the most
        the search held: state, kept events and event buffer, in bytes, noted after every kernel call) and
        ``peak_rss`` (the process's peak resident memory while the search ran, compilation excluded, in
        bytes: the process's high-water mark when a run raised it, else the largest of the samples taken
        after every kernel call and growth step; None where the RSS cannot be read)."""
        lower, upper = self.solver.bounds()
        finished = self._finish_status()
        status = finished or self._status
        stats = {"iterations": int(self.solver.iterations), "seconds": self._seconds,
                 "compile_seconds": self._compile_seconds, "peak_memory": int(self._peak_bytes),
                 "peak_rss": self._peak_rss}
        stats.update(self.solver.stats())
        if finished == "uncertified":
            stats["certificate"] = self.solver.uncertified()
        return Result(self.solver.name, self.solver.incumbent(), self.solver.incumbent_value(), lower, upper,
                      finished == "optimal", status, self.solver.sense, stats)

    def describe(self, event):
        """The solver's caption for an event, in the paper's words."""
        return self.solver.describe(event)

    def _repr_html_(self):
        from odtlab.reprs import card, number

        lower, upper = self.solver.bounds()
        rows = [("status", self._finish_status() or self._status),
                ("iterations", self.solver.iterations), ("bounds", f"[{number(lower)}, {number(upper)}]"),
                ("record", self.record), ("events kept", int(sum(len(c) for c in self._chunks))),
                ("seconds", f"{self._seconds:.3g}"), ("state", f"{self.solver.nbytes() / 2**20:.3g} MiB")]
        return card(f"Search: {self.solver.name}", rows)


def _memory_row(stats):
    """The search's peak memory and the process's peak RSS, in MiB, for a result's card (None without them)."""
    parts = [f"{label} {stats[key] / 2**20:.3g} MiB" for key, label in (("peak_memory", "search peak"),
                                                                     ("peak_rss", "process peak"))
             if stats.get(key) is not None]
    return ", ".join(parts) or None


def _progress_bar(progress, solver):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(desc=solver.name, unit=" it", leave=True, delay=1.0)  # shown only past a second


def _update_bar(bar, solver):
    lower, upper = solver.bounds()
    bar.set_postfix(lower=f"{lower:.6g}", upper=f"{upper:.6g}", gap=f"{upper - lower:.3g}", refresh=False)
    bar.update(int(solver.iterations) - bar.n)  # draws no sooner than tqdm's delay and mininterval allow
