"""Python view of the search events: one class, kinds named as in the papers.

Kernels write records of :data:`odtlab.core.events.EVENT_DTYPE`. Each algorithm declares its event kinds
here with :func:`register_kind`, giving the paper's name for the step and what the generic fields mean
for it (``fields={"Q": "value", "n_samples": "i0"}``). :func:`decode` turns a record into an
:class:`Event` whose attributes carry those names, so a widget or a notebook reads ``event.Q`` rather
than ``record["value"]``.
"""
from dataclasses import dataclass, field

import numpy as np

from odtlab.core import events as core

GENERIC_FIELDS = tuple(core.EVENT_DTYPE.names)
_INDEX = {name: i for i, name in enumerate(GENERIC_FIELDS)}


@dataclass(frozen=True)
class EventKind:
    """One kind of search step: its code, the paper's name for it, and its named payload."""

    code: int
    name: str
    algorithm: str
    fields: dict = field(default_factory=dict)  # payload name -> generic field
    caption: str = ""  # str.format template over the payload and generic fields
    doc: str = ""


KINDS = {}
_BY_NAME = {}


def register_kind(code, name, algorithm, fields=None, caption="", doc=""):
    """Declare an event kind. Codes are unique; re-registering the same declaration is harmless."""
    kind = EventKind(code, name, algorithm, dict(fields or {}), caption, doc)
    old = KINDS.get(code)
    if old is not None and old != kind:
        raise ValueError(f"event code {code} is already {old.algorithm}.{old.name}")
    for alias, generic in kind.fields.items():
        if generic not in _INDEX:
            raise ValueError(f"{name}: field {alias!r} maps to unknown record field {generic!r}")
    KINDS[code] = kind
    _BY_NAME[(algorithm, name)] = kind
    return kind


def kind_code(algorithm, name):
    """The code of ``algorithm``'s event kind ``name``."""
    return _BY_NAME[(algorithm, name)].code


class Event:
    """A decoded search event. Generic fields and the kind's named payload are attributes."""

    __slots__ = ("kind", "record")

    def __init__(self, kind, record):
        self.kind = kind
        self.record = record

    @property
    def name(self):
        return self.kind.name

    def __getattr__(self, attr):
        if attr in _INDEX:
            return self.record[_INDEX[attr]]
        generic = self.kind.fields.get(attr)
        if generic is None:
            raise AttributeError(f"{self.kind.name} has no field {attr!r}")
        return self.record[_INDEX[generic]]

    def as_dict(self):
        """The event as plain data: kind name, generic fields and the named payload."""
        out = {"event": self.kind.name, "algorithm": self.kind.algorithm}
        out.update(zip(GENERIC_FIELDS, self.record))
        out["kind"] = self.kind.code
        for alias, generic in self.kind.fields.items():
            out[alias] = self.record[_INDEX[generic]]
        return out

    def caption(self, feature_names=None):
        """A one-line description of the step, from the kind's caption template.

        Templates may use ``{feature_name}``: the name from ``feature_names``, or ``x<j>``.
        """
        if not self.kind.caption:
            return f"{self.kind.name} (iteration {self.iteration})"
        fields = self.as_dict()
        j = int(fields["feature"])
        fields["feature_name"] = (feature_names[j] if feature_names is not None and 0 <= j < len(feature_names)
                                  else f"x{j}")
        return self.kind.caption.format(**fields)

    def __eq__(self, other):
        return isinstance(other, Event) and self.kind == other.kind and tuple(self.record) == tuple(other.record)

    def __repr__(self):
        parts = [f"iteration={self.iteration}"]
        parts += [f"{alias}={self.record[_INDEX[g]]!r}" for alias, g in self.kind.fields.items()]
        return f"{self.kind.name}({', '.join(parts)})"


def decode(record):
    """Decode one record (a tuple in ``EVENT_DTYPE`` order, or a numpy void) into an :class:`Event`."""
    record = tuple(record)
    code = record[_INDEX["kind"]]
    kind = KINDS.get(code)
    if kind is None:
        raise ValueError(f"unknown event kind code {code}")
    return Event(kind, record)


def decode_all(records):
    """Decode a record array into a list of events."""
    return [decode(r) for r in records.tolist()]


def to_frame(records):
    """A typed pandas DataFrame of a record array, with an ``event`` column naming each kind."""
    import pandas as pd

    frame = pd.DataFrame(np.asarray(records, dtype=core.EVENT_DTYPE))
    names = {code: k.name for code, k in KINDS.items()}
    frame.insert(0, "event", frame["kind"].map(names).astype("category"))
    return frame


register_kind(core.SEARCH_STARTED, "SearchStarted", "search", {"lower": "lower", "upper": "upper"},
              "Search started: bounds [{lower:.6g}, {upper:.6g}]")
register_kind(core.INCUMBENT, "IncumbentImproved", "search", {},
              "Incumbent improved: bounds [{lower:.6g}, {upper:.6g}]")
register_kind(core.BOUNDS, "BoundsUpdated", "search", {},
              "Bounds [{lower:.6g}, {upper:.6g}] at iteration {iteration}")
register_kind(core.TERMINATED, "Terminated", "search", {"optimal": "flags"},
              "Terminated after {iteration} iterations: bounds [{lower:.6g}, {upper:.6g}]")
register_kind(core.CART_SPLIT, "Split", "cart",
              {"threshold": "value", "impurity_decrease": "f0", "n_samples": "i0", "left": "i1", "right": "i2",
               "impurity": "f1"},
              "CART split node {node} (depth {depth}, {n_samples} rows) on {feature_name} <= {threshold:.6g}, "
              "impurity decrease {impurity_decrease:.6g}")
register_kind(core.CART_LEAF, "Leaf", "cart", {"n_samples": "i0", "reason": "i1", "impurity": "f0"},
              "CART leaf at node {node} (depth {depth}, {n_samples} rows, impurity {impurity:.6g})")
