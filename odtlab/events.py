"""Python view of the search events: one class, kinds named as in the papers.

Kernels write records of :data:`odtlab.core.events.EVENT_DTYPE`. Each kernel module declares its event
kinds once with :func:`odtlab.core.events.event_kind`, giving the paper's name for the step and what the
generic fields mean for it (``fields={"Q": "value", "n_samples": "i0", "complete": "flags:0"}``).
:func:`decode` turns a record into an :class:`Event` whose attributes carry those names, so a widget or a
notebook reads ``event.Q`` rather than ``record["value"]``; on record arrays, ``kind.get(records, "Q")``.
"""
import numpy as np

from odtlab.core import events as core

GENERIC_FIELDS = tuple(core.EVENT_DTYPE.names)
_INDEX = {name: i for i, name in enumerate(GENERIC_FIELDS)}


KINDS = core.KINDS  # code -> EventKind, filled by the kernel modules' declarations
EventKind = core.EventKind


def kind_code(algorithm, name):
    """The code of ``algorithm``'s event kind ``name``."""
    for kind in KINDS.values():
        if kind.algorithm == algorithm and kind.name == name:
            return kind.code
    raise KeyError(f"{algorithm} declares no event kind {name!r}")


def _payload(kind, record, alias):
    """Payload ``alias`` of a record tuple: its field, or its bit of ``flags`` as a bool."""
    field, _, bit = kind.fields[alias].partition(":")
    value = record[_INDEX[field]]
    return bool((value >> int(bit)) & 1) if bit else value


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
        if attr not in self.kind.fields:
            raise AttributeError(f"{self.kind.name} has no field {attr!r}")
        return _payload(self.kind, self.record, attr)

    def as_dict(self):
        """The event as plain data: kind name, generic fields and the named payload."""
        out = {"event": self.kind.name, "algorithm": self.kind.algorithm}
        out.update(zip(GENERIC_FIELDS, self.record))
        out["kind"] = self.kind.code
        for alias in self.kind.fields:
            out[alias] = _payload(self.kind, self.record, alias)
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
        parts += [f"{alias}={_payload(self.kind, self.record, alias)!r}" for alias in self.kind.fields]
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
