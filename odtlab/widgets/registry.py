"""What the widgets know about each algorithm, keyed by the solver's ``name``.

Three registries, filled by the per-algorithm modules ``odtlab.widgets.<name>`` (imported on first use):

* adapters (:func:`register_adapter`): which events carry the certified bounds, how to draw the tree at
  event ``k``, which node an event is about;
* panels (:func:`register_panel`): extra views for one algorithm (Branches' Q-values, MurTree's
  depth-two table, ...), shown by the player next to the generic ones;
* search graphs (:func:`register_graph`): the renderer :class:`~odtlab.widgets.views.SearchGraphView`
  uses for that algorithm.

The tree at event ``k`` comes, in this order, from ``solver.tree_at(records)`` when the solver offers it
(``records`` = the first ``k`` event records; it returns a :class:`~odtlab.tree.Tree`, or ``(tree,
highlighted node ids)``), from the adapter's :meth:`Adapter.tree_frame`, or from the incumbent snapshots
the recording keeps after every kernel call.
"""
import importlib
import importlib.util

import numpy as np

from odtlab import events as ev
from odtlab.core import events as core
from odtlab.widgets.trees import TreeSource, tree_frame

ADAPTERS = {}
PANELS = {}
GRAPHS = {}
_IMPORTED = set()


def _load(algorithm):
    """Import ``odtlab.widgets.<algorithm>`` once, if it exists, so it can register itself."""
    if algorithm in _IMPORTED:
        return
    _IMPORTED.add(algorithm)
    name = f"odtlab.widgets.{algorithm}"
    if importlib.util.find_spec(name) is not None:
        importlib.import_module(name)


def register_adapter(cls):
    """Class decorator: the :class:`Adapter` of ``cls.algorithm``."""
    ADAPTERS[cls.algorithm] = cls
    return cls


def register_panel(algorithm):
    """Class decorator: add a view class (no-argument constructor) to ``algorithm``'s panels."""

    def add(cls):
        PANELS.setdefault(algorithm, [])
        if cls not in PANELS[algorithm]:
            PANELS[algorithm].append(cls)
        return cls

    return add


def register_graph(algorithm, title=None, note=""):
    """Function decorator: ``render(frame) -> str`` draws ``algorithm``'s search graph; ``title`` and
    ``note`` head its panel."""

    def add(fn):
        fn.title = title or "Search graph"
        fn.note = note
        GRAPHS[algorithm] = fn
        return fn

    return add


def adapter_for(solver):
    """The adapter instance for a solver (the generic one when its algorithm registered none)."""
    _load(solver.name)
    return ADAPTERS.get(solver.name, Adapter)(solver)


def panels_for(algorithm):
    """New instances of the panels registered for ``algorithm``."""
    _load(algorithm)
    return [cls() for cls in PANELS.get(algorithm, [])]


def graph_for(algorithm):
    _load(algorithm)
    return GRAPHS.get(algorithm)


def tree_at_method(solver):
    """The solver's ``tree_at(records)`` (the tree after the given event records), or None."""
    return getattr(solver, "tree_at", None)


class Adapter:
    """Generic behaviour, right for any solver: bounds and incumbent trees from per-call snapshots.

    Subclasses (one per algorithm) set ``bound_kinds`` when some events carry the certified bounds in
    their ``upper``/``lower`` fields, override :meth:`tree_frame` when the tree can be rebuilt from the
    events, and :meth:`focus` to name the tree node an event is about.
    """

    algorithm = None
    bound_kinds = ()  # event codes whose upper/lower fields are the search's certified bounds
    bound_labels = ("upper bound", "lower bound")
    tree_title = "Incumbent tree"
    stable_incumbent = False  # True: the incumbent tree changes only when the objective improves

    def __init__(self, solver):
        self.solver = solver

    @property
    def snapshots(self):
        """Whether the recording must keep the incumbent after every kernel call."""
        return tree_at_method(self.solver) is None and type(self).tree_frame is Adapter.tree_frame

    generic_kinds = (core.SEARCH_STARTED, core.INCUMBENT, core.BOUNDS, core.TERMINATED)  # those it emits

    def kinds(self):
        """The event kinds this algorithm can emit (its own, then the generic ones it uses), by code."""
        own = {code: k for code, k in sorted(ev.KINDS.items()) if k.algorithm == self.solver.name}
        own.update((code, ev.KINDS[code]) for code in self.generic_kinds)
        return own

    # -- bounds ------------------------------------------------------------------------------------
    bound_fields = {}  # event code -> (record field of the lower bound or None, of the upper bound or None)

    def _fields(self):
        fields = {code: ("lower", "upper") for code in self.bound_kinds}
        fields.update(self.bound_fields)
        return fields

    def _bound_events(self, frame, side):
        """Positions and values of the events carrying the lower (side 0) or upper (side 1) bound."""
        recs = frame.records
        fields = {code: f[side] for code, f in self._fields().items() if f[side]}
        kinds = recs["kind"]
        mask = np.isin(kinds, list(fields))
        pos = np.flatnonzero(mask)
        values = np.empty(pos.shape[0])
        for code, name in fields.items():
            m = kinds[pos] == code
            values[m] = recs[name][pos[m]]
        return pos, values

    def bounds(self, frame):
        """``(lower, upper)`` in force at the frame: from the last events carrying them, or (for
        algorithms whose events carry none) the solver's bounds after the last completed kernel call."""
        if not self._fields():
            state = frame.state()
            return state.lower, state.upper
        init = frame.recording.initial
        out = [init.lower, init.upper]
        for side in (0, 1):
            _, values = self._bound_events(frame, side)
            if values.size:
                out[side] = float(values[-1])
        return out[0], out[1]

    def bound_series(self, frame):
        """``((iterations, lower bounds), (iterations, upper bounds))`` up to the frame, each starting
        with the bounds before the first event."""
        init = frame.recording.initial
        if not self._fields():
            it, lo, up = frame.recording.states_until(frame.k)
            its = (it, it)
            vals = (lo, up)
        else:
            its, vals = [], []
            for side in (0, 1):
                pos, values = self._bound_events(frame, side)
                its.append(frame.records["iteration"][pos])
                vals.append(values)
        return tuple((np.concatenate([[init.iteration], its[side]]).astype(np.float64),
                      np.concatenate([[(init.lower, init.upper)[side]], vals[side]]).astype(np.float64))
                     for side in (0, 1))

    # -- trees -------------------------------------------------------------------------------------
    def focus(self, frame):
        """The node of the tree drawn at this frame that the last event is about (None: no highlight)."""
        return None

    def tree_frame(self, frame, max_leaves=12):
        """The :class:`~odtlab.widgets.trees.TreeFrame` to draw at the frame (None before any tree)."""
        tree_at = tree_at_method(self.solver)
        highlight = None
        if tree_at is not None:
            tree = tree_at(frame.records)
            if isinstance(tree, tuple):
                tree, highlight = tree
        else:
            tree = frame.state().tree
        if tree is None:
            return None
        source = TreeSource(tree)
        marked = list(np.atleast_1d(highlight)) if highlight is not None else []
        focus = int(marked[0]) if marked else self.focus(frame)
        return tree_frame(source, focus, max_leaves, n_features=tree.n_features, task=tree.task,
                          classes=tree.classes, feature_names=tree.feature_names, total_nodes=tree.n_nodes)

    def class_names(self):
        classes = getattr(self.solver, "classes", None)
        return None if classes is None else [str(c) for c in classes]
