"""Golden traces (issue 18, step 1): every algorithm, at every record level, writes the same events, stats
and tree as when the traces were recorded. A refactoring must keep them; a commit that changes behaviour on
purpose re-records (``python -m tests.golden.record``) and says which cases changed and why.

On a mismatch the message names the case, the level, and what differs: the result, the event count per
kind, the event fields that changed and the first differing event (found with the per-event digests).
"""
import base64

import numpy as np
import pytest

from golden import cases
from golden.record import load
from odtlab import solvers

RECORDED = load()


def test_every_registered_estimator_has_golden_cases():
    assert sorted(solvers.estimators()) == sorted(cases.CASES)
    assert sorted(RECORDED) == sorted(cases.case_id(e, i) for e in cases.CASES for i in range(len(cases.CASES[e])))


def _first_difference(recorded, now, records):
    """Index and decoded form of the first event whose 2-byte digest differs (None when the streams agree)."""
    a, b = base64.b64decode(recorded), base64.b64decode(now)
    n = min(len(a), len(b)) // 2
    first = next((i for i in range(n) if a[2 * i:2 * i + 2] != b[2 * i:2 * i + 2]), n)
    if first == n and len(a) == len(b):
        return None
    from odtlab.events import decode

    return first, (repr(decode(records[first])) if first < records.shape[0] else "(stream ended)")


def _explain(recorded, now, records):
    lines = []
    if recorded["result"] != now["result"]:
        lines.append(f"result: recorded {recorded['result']}, now {now['result']}")
    if recorded["tree"] != now["tree"]:
        lines.append("tree arrays differ")
    if recorded["n_events"] != now["n_events"] or recorded["kinds"] != now["kinds"]:
        lines.append(f"events: recorded {recorded['n_events']} {recorded['kinds']}, now {now['n_events']} {now['kinds']}")
    fields = [f for f in recorded["fields"] if recorded["fields"][f] != now["fields"].get(f)]
    if fields:
        lines.append(f"event fields that differ: {', '.join(fields)}")
    first = _first_difference(recorded["per_event"], now["per_event"], records) if "per_event" in now else None
    if first is not None:
        lines.append(f"first differing event: #{first[0]}, now {first[1]}")
    return "\n".join(lines)


IDS = [(e, i) for e in sorted(cases.CASES) for i in range(len(cases.CASES[e]))]


@pytest.mark.jit_only
@pytest.mark.parametrize("estimator, index", IDS, ids=[cases.case_id(e, i) for e, i in IDS])
def test_golden_trace(estimator, index):
    cid = cases.case_id(estimator, index)
    for level in cases.LEVELS:
        now = cases.run_case(estimator, index, level)
        recorded = RECORDED[cid][level]
        if now != recorded:
            dataset, params = cases.CASES[estimator][index]
            X, y, w = cases.data(dataset)
            est = solvers.estimators()[estimator](**params, record=level).fit(X, y, sample_weight=w)
            pytest.fail(f"{cid}, record={level!r}:\n" + _explain(recorded, now, est.search_.events()))


def test_the_digest_sees_one_changed_bit():
    """The event digest changes with any field of any record, and NaN payloads do not matter."""
    records = np.zeros(3, dtype=cases.core.EVENT_DTYPE)
    records["value"] = np.nan
    base = cases.canonical_events(records)
    other = records.copy()
    other["value"] = np.frombuffer(np.array([0x7FF8000000000001], dtype="<u8").tobytes(), dtype="<f8")[0]
    assert cases.event_digests(cases.canonical_events(other)) == cases.event_digests(base)
    for field in cases.EVENT_FIELDS:
        changed = records.copy()
        changed[2][field] = 1
        digest = cases.event_digests(cases.canonical_events(changed))
        assert digest != cases.event_digests(base)
        assert base64.b64decode(digest)[:4] == base64.b64decode(cases.event_digests(base))[:4]
