"""One event record for every algorithm, and the codes every kernel shares.

A kernel advances a search and writes what it did into a preallocated buffer of ``EVENT_DTYPE``
records. The fields are generic (node, parent, feature, value, bounds, a few spare numbers); what each
field means for a given event kind is declared once, with :func:`event_kind`, by the kernel module that
emits it: the declaration names the payload as the paper does and gives the kernel its emitter (keyword
arguments, checked when the kernel compiles), :mod:`odtlab.events` its decoded attributes and caption, and
the widgets their accessor (:meth:`EventKind.get`).

Kind codes are grouped by algorithm in blocks of 32 so a code never changes meaning:

=========  =========  ===========================================================
block      algorithm  kinds
=========  =========  ===========================================================
0..31      generic    search started, incumbent improved, bounds, terminated
32..63     CART       node split, leaf made
64..95     Branches   Init, IterationStart, SelectStep, Selection, ChildEvaluated, ...
96..127    MurTree    subtree entered, cache hit, similarity bound, depth-two solve, ...
128..159   Quant-BnB  iteration, upper bound, lower bound, eliminate, refine, exhaustive
160..191   DPDT       state expanded, candidate splits, Bellman backup, policy extracted
=========  =========  ===========================================================
"""
from dataclasses import dataclass, field, replace
import linecache

import numpy as np

from odtlab.core._jit import njit

EVENT_DTYPE = np.dtype(
    [
        ("iteration", np.int64),  # the search's iteration counter when the event happened
        ("kind", np.int16),  # one of the codes below
        ("depth", np.int16),  # depth of `node` in the search (or tree) where that applies
        ("flags", np.int32),  # bit set or small enum, meaning per kind
        ("node", np.int64),  # node / state id in the algorithm's own table
        ("parent", np.int64),  # its parent id, or -1
        ("feature", np.int64),  # feature index, or -1
        ("value", np.float64),  # category, threshold or Q-value, per kind
        ("upper", np.float64),  # upper bound in the objective's units
        ("lower", np.float64),  # lower bound in the objective's units
        ("i0", np.int64),  # spare integers, named per kind in odtlab.events
        ("i1", np.int64),
        ("i2", np.int64),
        ("f0", np.float64),  # spare floats, named per kind in odtlab.events
        ("f1", np.float64),
    ]
)

# Record levels: a compile-time constant of a kernel made per level (so "none" carries no event code at all), or a
# run-time argument of a kernel compiled once for the three (``odtlab.core._jit.LevelKernel``: CART, DPDT,
# MurTree, Quant-BnB).
LEVEL_NONE = 0
LEVEL_SUMMARY = 1
LEVEL_FULL = 2
LEVELS = {"none": LEVEL_NONE, "summary": LEVEL_SUMMARY, "full": LEVEL_FULL}

# What a kernel call returns as its status.
STATUS_DONE = 0  # the search is finished (optimal, or exhausted)
STATUS_BUDGET = 1  # it spent the iterations it was given
STATUS_BUFFER = 2  # the event buffer has no room for another iteration
STATUS_GROW = 3  # an array is full: the driver grows it (see the solver's `grow`) and calls again
STATUS_NAMES = {STATUS_DONE: "done", STATUS_BUDGET: "budget", STATUS_BUFFER: "buffer", STATUS_GROW: "grow"}

# -- event kinds: declared once ----------------------------------------------------------------------
#: Values a field takes when an emitter call leaves it out.
_DEFAULTS = {"depth": "0", "flags": "0", "node": "0", "parent": "-1", "feature": "-1", "value": "0.0",
             "upper": "0.0", "lower": "0.0", "i0": "0", "i1": "0", "i2": "0", "f0": "0.0", "f1": "0.0"}
_PAYLOAD_FIELDS = tuple(_DEFAULTS)


@dataclass(frozen=True)
class EventKind:
    """One kind of search step, declared once by the kernel module that emits it.

    ``fields`` maps each payload name (the paper's name: ``Q``, ``n_rows``, ``ub``) to the record field that
    carries it, or to one bit of ``flags`` written ``"flags:B"``. From this declaration come the kernel's
    emitter (:attr:`emit`), the decoded :class:`odtlab.events.Event` attributes, the caption (a
    ``str.format`` template over payload and record fields) and the accessor :meth:`get`.
    """

    code: int
    name: str
    algorithm: str
    fields: dict
    caption: str = ""
    doc: str = ""
    emit: object = field(default=None, compare=False, repr=False)

    def get(self, records, name):
        """Payload ``name`` of one record or of a record array (a bit of ``flags`` reads as a bool)."""
        target = self.fields[name]
        if target.startswith("flags:"):
            return (records["flags"] >> int(target[6:])) & 1 == 1
        return records[target]

    def reader(self, name):
        """A function reading payload ``name`` from a record *tuple* (``records.tolist()`` rows), for folds
        over many events where a structured-array lookup per event would be slow."""
        target, _, bit = self.fields[name].partition(":")
        i = EVENT_DTYPE.names.index(target)
        if bit:
            b = int(bit)
            return lambda row: (row[i] >> b) & 1 == 1
        return lambda row: row[i]


#: Every declared kind by code (the kernels' modules declare theirs on import).
KINDS = {}


def _emitter_source(kind):
    """Python source of ``kind``'s emitter: payload names required, unnamed record fields defaulted."""
    named = {target for target in kind.fields.values()}
    bits = {name: int(target[6:]) for name, target in kind.fields.items() if target.startswith("flags:")}
    rest = [f for f in _PAYLOAD_FIELDS  # a record field the payload leaves out, unless a payload name took its name
            if f not in named and f not in kind.fields and not (bits and f == "flags")]
    params = ["_events", "_k", "_iteration", *kind.fields, *(f"{f}={_DEFAULTS[f]}" for f in rest)]
    body = ['    _e = _events[_k]', '    _e["iteration"] = _iteration', f'    _e["kind"] = {kind.code}']
    body += [f'    _e["{target}"] = {name}' for name, target in kind.fields.items() if name not in bits]
    body += [f'    _e["{f}"] = {f}' for f in rest]
    body += [f'    _e["{f}"] = {_DEFAULTS[f]}' for f in _PAYLOAD_FIELDS if f in kind.fields and f not in named]
    if bits:
        body.append('    _e["flags"] = ' + " | ".join(f"(({name}) != 0) << {b}" for name, b in bits.items()))
    name = f"emit_{kind.algorithm}_{kind.name}"
    return name, f"def {name}({', '.join(params)}):\n" + "\n".join(body) + "\n    return _k + 1\n"


def event_kind(code, name, algorithm, fields=None, caption="", doc=""):
    """Declare an event kind and make its emitter; returns the :class:`EventKind`.

    The emitter ``kind.emit(events, k, iteration, **payload)`` writes one record at position ``k`` and
    returns ``k + 1``. Every payload name is a required keyword (a kernel that leaves one out, or names one
    the kind does not declare, fails to compile); the record fields the payload does not name default to
    0 (``parent``, ``feature``: -1). Codes are unique; re-declaring the same kind is harmless.
    """
    fields = dict(fields or {})
    for alias, target in fields.items():
        base, _, bit = target.partition(":")
        if base not in _DEFAULTS or (bit and (base != "flags" or not bit.isdigit() or int(bit) > 30)):
            raise ValueError(f"{algorithm}.{name}: payload {alias!r} maps to {target!r}, which is not a record "
                             f"field ({', '.join(_PAYLOAD_FIELDS)}) or a bit flags:0..flags:30")
    whole = [a for a, t in fields.items() if t == "flags"]
    if whole and any(t.startswith("flags:") for t in fields.values()):
        raise ValueError(f"{algorithm}.{name}: flags is either one payload ({whole[0]!r}) or bits, not both")
    kind = EventKind(code, name, algorithm, fields, caption, doc)
    old = KINDS.get(code)
    if old is not None:
        if old != kind:
            raise ValueError(f"event code {code} is already {old.algorithm}.{old.name}")
        return old
    fname, source = _emitter_source(kind)
    filename = f"<odtlab event {algorithm}.{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    kind = replace(kind, emit=njit(inline="always", cache=False)(namespace[fname]))
    KINDS[code] = kind
    return kind


# Generic kinds (0..31), emitted by every algorithm; their spare fields (i0..f1) are the algorithm's own.
SEARCH_STARTED = 0
INCUMBENT = 1
BOUNDS = 2
TERMINATED = 3
emit_search_started = event_kind(SEARCH_STARTED, "SearchStarted", "search", {"lower": "lower", "upper": "upper"},
                                 "Search started: bounds [{lower:.6g}, {upper:.6g}]").emit
emit_incumbent = event_kind(INCUMBENT, "IncumbentImproved", "search", {"lower": "lower", "upper": "upper"},
                            "Incumbent improved: bounds [{lower:.6g}, {upper:.6g}]", "A better tree was found.").emit
emit_bounds = event_kind(BOUNDS, "BoundsUpdated", "search", {"lower": "lower", "upper": "upper"},
                         "Bounds [{lower:.6g}, {upper:.6g}] at iteration {iteration}", "The certified bounds moved.").emit
emit_terminated = event_kind(TERMINATED, "Terminated", "search", {"optimal": "flags", "lower": "lower", "upper": "upper"},
                             "Terminated after {iteration} iterations: bounds [{lower:.6g}, {upper:.6g}]",
                             "The search finished; optimal is 1 when the bounds met.").emit
