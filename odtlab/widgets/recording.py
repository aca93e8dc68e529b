"""Events of a live search, recorded as they come out of :meth:`odtlab.search.Search.steps`.

A :class:`Recording` pulls events lazily, one kernel call (one search iteration) at a time, and keeps them
in one growable record array of :data:`odtlab.core.events.EVENT_DTYPE`. After each kernel call it also
notes the solver's certified bounds and, for algorithms whose events do not describe the incumbent tree,
the incumbent itself (the "snapshot per step" fallback of the widgets).

A :class:`Frame` is what every view draws: the first ``k`` events and the recording they come from. A
view is a pure function of a frame, so going back is replaying ``events[:k]``, never undoing by hand.
"""
from dataclasses import dataclass

import numpy as np

from odtlab import events as ev
from odtlab.core import events as core

DEFAULT_MAX_EVENTS = 250_000

# positions of the generic record fields in an event tuple (``Recording.rows``), for folds that read many
# events; a kind's own payload (the spare fields and flags) is read by name: ``KINDS[code].reader(NAME)``
ITERATION, KIND, DEPTH, NODE, PARENT, FEATURE, VALUE, UPPER, LOWER = (
    core.EVENT_DTYPE.names.index(f) for f in ("iteration", "kind", "depth", "node", "parent", "feature", "value",
                                              "upper", "lower"))


@dataclass(frozen=True)
class StepState:
    """What the solver reported after one kernel call: bounds, iteration and (optionally) its incumbent."""

    lower: float
    upper: float
    iteration: int
    tree: object = None


class Recording:
    """The events of ``search`` so far, extended on demand from ``search.steps(record)``.

    ``snapshots=True`` keeps ``solver.incumbent()`` after every kernel call (needed by the tree view of
    algorithms without a tree-from-events function). ``max_events`` caps memory: the recording stops
    there and says so (``capped``). ``stable_incumbent=True`` (for solvers whose incumbent tree only
    changes when its objective improves) skips rebuilding the snapshot while the objective stays put.
    """

    def __init__(self, search, record="full", snapshots=False, max_events=DEFAULT_MAX_EVENTS, stable_incumbent=False):
        if record not in ("summary", "full"):
            raise ValueError(f"record must be 'summary' or 'full', not {record!r}")
        if not max_events >= 1:
            raise ValueError(f"max_events must be at least 1, got {max_events!r}")
        self.search = search
        self.solver = search.solver
        self.record = record
        self.snapshots = bool(snapshots)
        self.stable_incumbent = bool(stable_incumbent)
        self._last = None
        self.max_events = int(max_events)
        self._records = np.zeros(1024, dtype=core.EVENT_DTYPE)
        self.rows = []  # the same events as plain tuples (fast to read one by one)
        self.n = 0
        self.initial = self._sample()
        self._calls = 0  # kernel calls recorded; per call: event count at its end, the solver's state after it
        self._ends = np.zeros(256, dtype=np.int64)
        self._iterations = np.zeros(256, dtype=np.int64)
        self._lower = np.zeros(256)
        self._upper = np.zeros(256)
        self._trees = []
        self._pending = None  # first event of the next call, pulled while looking for the current call's end
        self._steps = search.steps(record=record)
        self.exhausted = self.solver.finished
        self.capped = False
        self.cache = {}  # per-recording caches of the views (folds, per-event keys), by name

    # -- recording -------------------------------------------------------------------------------
    def _sample(self):
        lower, upper = (float(b) for b in self.solver.bounds())
        tree = None
        if self.snapshots:
            last = self._last
            value = upper if self.solver.sense == "min" else lower
            if (self.stable_incumbent and last is not None
                    and value == (last.upper if self.solver.sense == "min" else last.lower)):
                tree = last.tree
            else:
                tree = self.solver.incumbent()
        self._last = StepState(lower, upper, int(self.solver.iterations), tree)
        return self._last

    def _append(self, event):
        if self.n == self._records.shape[0]:
            grown = np.zeros(2 * self.n, dtype=core.EVENT_DTYPE)
            grown[:self.n] = self._records
            self._records = grown
        self._records[self.n] = event.record
        self.rows.append(tuple(event.record))
        self.n += 1

    def _pull(self):
        """Next event from the search and the solver's iteration counter just after it, or None."""
        try:
            event = next(self._steps)
        except StopIteration:
            return None
        return event, self.solver.iterations

    def _record_call(self):
        """Record the events of one kernel call; return False when the search has no more events."""
        if self.exhausted or self.capped:
            return False
        if self._pending is None:
            first = self._pull()
            if first is None:
                self.exhausted = True
                return False
            self._pending = (first[0], self._sample(), first[1])
        event, state, iteration = self._pending
        self._pending = None
        self._append(event)
        while True:
            nxt = self._pull()
            if nxt is None:
                self.exhausted = True
                break
            if nxt[1] != iteration:  # the kernel was called again: this event starts the next call
                self._pending = (nxt[0], self._sample(), nxt[1])
                break
            self._append(nxt[0])
        if self._calls == self._ends.shape[0]:
            for name in ("_ends", "_iterations", "_lower", "_upper"):
                old = getattr(self, name)
                setattr(self, name, np.concatenate([old, np.zeros_like(old)]))
        c = self._calls
        self._ends[c], self._iterations[c], self._lower[c], self._upper[c] = self.n, state.iteration, state.lower, state.upper
        if self.snapshots:
            self._trees.append(state.tree)
        self._calls = c + 1
        if self.n >= self.max_events and not self.exhausted:
            self.capped = True
        return True

    def extend(self, min_events=1, until=None):
        """Record whole kernel calls until ``min_events`` more events are in and ``until(self)`` holds.

        Returns the number of events added; 0 when the search is finished or the cap is reached.
        """
        start = self.n
        while not (self.n - start >= min_events and (until is None or until(self))):
            if not self._record_call():
                break
        return self.n - start

    def advance_folds(self):
        """Run every cached :class:`Fold` to the last recorded event, laying its checkpoints, so that a later
        jump anywhere costs at most one checkpoint interval (called after recording more events)."""
        for fold in self.cache.values():
            if isinstance(fold, Fold):
                fold.at(self.n)

    def extend_all(self):
        """Record the rest of the search (up to ``max_events``)."""
        while self._record_call():
            pass
        return self.n

    @property
    def done(self):
        """True when no more events can be recorded (search finished, or the cap reached)."""
        return self.exhausted or self.capped

    # -- reading ---------------------------------------------------------------------------------
    @property
    def records(self):
        """All recorded events (a view of the record array)."""
        return self._records[:self.n]

    def event(self, i):
        """The decoded event at position ``i`` (0-based)."""
        if not 0 <= i < self.n:
            raise IndexError(f"event {i} is not recorded (0..{self.n - 1})")
        return ev.decode(self.rows[i])

    def _completed(self, k):
        """How many recorded kernel calls have all their events within ``events[:k]``."""
        return int(np.searchsorted(self._ends[:self._calls], k, side="right"))

    def state_at(self, k):
        """The solver's state after the last kernel call whose events all lie in ``events[:k]``."""
        j = self._completed(k) - 1
        if j < 0:
            return self.initial
        return StepState(float(self._lower[j]), float(self._upper[j]), int(self._iterations[j]),
                         self._trees[j] if self.snapshots else None)

    def states_until(self, k):
        """``(iteration, lower, upper)`` arrays after each kernel call completed within ``events[:k]``."""
        j = self._completed(k)
        return self._iterations[:j], self._lower[:j], self._upper[:j]

    def frame(self, k, kinds=None, adapter=None):
        """The :class:`Frame` of the first ``k`` events."""
        if not 0 <= k <= self.n:
            raise IndexError(f"frame {k} is outside 0..{self.n}")
        return Frame(k, self, adapter, None if kinds is None else frozenset(kinds))


class Fold:
    """A left fold over a recording's events, ``state = apply(state, i, row)`` from ``init()`` (``row``: the
    event as a tuple, fields at the positions ``KIND``, ``NODE``, ...), cached so that the next frame costs
    one event and any frame at most ``every`` events (checkpoints are copies).

    The value at ``k`` depends on ``events[:k]`` only; the caches just avoid replaying from the start.
    """

    def __init__(self, recording, init, apply, copy, every=128, prepare=None):
        self.recording = recording
        self.init, self.apply, self.copy, self.every = init, apply, copy, int(every)
        self.prepare = prepare  # called with k before replaying up to k (e.g. to derive per-event keys)
        self._checkpoints = {0: init()}
        self._k, self._state = 0, copy(self._checkpoints[0])

    def at(self, k):
        """The state after ``events[:k]`` (shared: read it, do not change it)."""
        base = (k // self.every) * self.every
        while base not in self._checkpoints:
            base -= self.every
        if k < self._k or base > self._k:  # restart from the nearest checkpoint at or before k
            self._k, self._state = base, self.copy(self._checkpoints[base])
        if self.prepare is not None and k > self._k:
            self.prepare(k)
        rows = self.recording.rows
        for i in range(self._k, k):
            self._state = self.apply(self._state, i, rows[i])
            if (i + 1) % self.every == 0 and i + 1 not in self._checkpoints:
                self._checkpoints[i + 1] = self.copy(self._state)
        self._k = k
        return self._state


@dataclass(frozen=True)
class Frame:
    """The first ``k`` events of a recording: what every view renders.

    ``kinds`` is the player's event-kind filter (None: all kinds); views that list events honour it.
    """

    k: int
    recording: Recording
    adapter: object = None
    kinds: frozenset = None

    @property
    def records(self):
        return self.recording.records[:self.k]

    @property
    def event(self):
        """The last event applied (None at frame 0)."""
        return self.recording.event(self.k - 1) if self.k else None

    @property
    def solver(self):
        return self.recording.solver

    @property
    def search(self):
        return self.recording.search

    def describe(self, event):
        return self.recording.search.describe(event)

    def state(self):
        """Solver state (bounds, iteration, snapshot tree) after the last kernel call completed in the frame."""
        return self.recording.state_at(self.k)

    def bounds(self):
        """``(lower, upper)`` in force at this frame, from the events when they carry them."""
        return self.adapter.bounds(self) if self.adapter is not None else _state_bounds(self)

    def last_of(self, kinds):
        """Position of the last event of one of ``kinds`` in the frame, or -1."""
        hits = np.flatnonzero(np.isin(self.records["kind"], list(kinds)))
        return int(hits[-1]) if hits.size else -1


def _state_bounds(frame):
    state = frame.state()
    return state.lower, state.upper
