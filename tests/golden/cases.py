"""The golden problems and the digest of one run.

Every estimator of the solver registry (the registered one and its sibling for the other task, e.g.
``MurTreeRegressor`` beside ``MurTreeClassifier``) has cases here: the defaults, each technique switch and
a tie, on small data defined below with numpy only (scikit-learn's bundled iris / wine / diabetes, binned
or binarised at fixed quantiles), so nothing but odtlab's own behaviour can change a digest. Each case is
fitted at every record level (none / summary / full).

A digest holds the SHA-256 of the event records (each field cast to little-endian int64 or float64 in
the order of ``EVENT_DTYPE``; NaN made canonical), of the tree's arrays and of the result's stats, plus
what diagnoses a mismatch without the recorded events: event counts per kind, one hash per event field,
and, at level full, a 2-byte digest per event (so the first differing event is found; two different
events share a 2-byte digest once in 65,536). Floats are hashed exactly: CI runs on the same machine kind.
"""
import base64
import hashlib

import numpy as np
from sklearn.datasets import load_diabetes, load_iris, load_wine

from odtlab import solvers
from odtlab.core import events as core
from odtlab.events import KINDS
from odtlab.search import MACHINE_STATS

LEVELS = ("none", "summary", "full")
EVENT_FIELDS = core.EVENT_DTYPE.names


# -- data: numpy only, from the data sets scikit-learn ships --------------------------------------------
def _quantile_bins(X, qs):
    """Per column, the index of the quantile interval a value falls in (0 .. len(qs))."""
    edges = np.quantile(X, qs, axis=0)
    return np.stack([np.searchsorted(edges[:, j], X[:, j], side="left") for j in range(X.shape[1])], axis=1)


def _binarised(X, qs):
    """0/1 columns ``x_j > q`` for each column j and quantile q (duplicates kept: reduce_features drops them)."""
    edges = np.quantile(X, qs, axis=0)
    return np.concatenate([(X > edges[i]).astype(np.int64) for i in range(len(qs))], axis=1)


def data(name):
    """``(X, y, sample_weight)`` of a golden problem."""
    iris, wine, diabetes = load_iris(), load_wine(), load_diabetes()
    if name == "iris":
        return iris.data, iris.target, None
    if name == "wine":
        return wine.data, wine.target, None
    if name == "wine-weighted":
        return wine.data, wine.target, 1.0 + (np.arange(wine.target.size) % 3)
    if name == "iris-15":  # every tenth row: small enough for DPDT's exhaustive generator
        return iris.data[::10], iris.target[::10], None
    if name == "iris-petal-width":  # regression on three features
        return iris.data[:, :3], iris.data[:, 3], None
    if name == "iris-petal-width-15":
        return iris.data[::10, :3], iris.data[::10, 3], None
    if name == "diabetes-120":
        return diabetes.data[:120, :6], diabetes.target[:120], None
    if name == "tie":  # every threshold of x0 ties on Gini; x1 is noise with the same splits' values
        X = np.array([[0.5, 3.0], [1.0, 1.0], [1.5, 2.0], [2.0, 4.0], [2.5, 5.0], [3.0, 6.0]])
        return X, np.array([0, 1, 0, 1, 0, 1]), None
    if name == "iris-binary":
        return _binarised(iris.data, [0.25, 0.5, 0.75]), iris.target, None
    if name == "wine-binary":
        return _binarised(wine.data, [0.33, 0.67]), wine.target, None
    if name == "diabetes-binary":
        return _binarised(diabetes.data[:150, :6], [0.25, 0.5, 0.75]), diabetes.target[:150], None
    if name == "parity-tie":  # 3-bit parity: many optimal trees, every root split ties
        X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 2)
        return X, X.sum(axis=1) % 2, None
    if name == "iris-categorical":
        return _quantile_bins(iris.data, [0.33, 0.67]), iris.target, None
    if name == "wine-categorical":
        return _quantile_bins(wine.data[:, :6], [0.25, 0.5, 0.75]), wine.target, None
    raise KeyError(name)


# -- the cases: (data set, parameters) per estimator ----------------------------------------------------
CASES = {
    "CARTClassifier": [
        ("iris", {}), ("iris", {"criterion": "entropy", "max_depth": 3}), ("wine", {"max_leaf_nodes": 6}),
        ("wine", {"min_samples_leaf": 5, "min_samples_split": 12, "min_impurity_decrease": 0.01}),
        ("wine-weighted", {"max_depth": 4}), ("wine", {"ccp_alpha": 0.01}), ("tie", {}),
    ],
    "CARTRegressor": [
        ("iris-petal-width", {"max_depth": 4}), ("diabetes-120", {"max_leaf_nodes": 8}),
        ("diabetes-120", {"min_samples_leaf": 10}),
    ],
    "BranchesClassifier": [
        ("iris-categorical", {}), ("iris-categorical", {"lam": 0.05, "max_depth": 2}),
        ("wine-categorical", {"lam": 0.02, "child_rule": "min_H"}),
        ("wine-categorical", {"lam": 0.02, "child_rule": "first"}),
        ("wine-categorical", {"lam": 0.02, "tie_break": "prefer_proven"}), ("parity-tie", {"lam": 0.01}),
    ],
    "MurTreeClassifier": [
        ("wine-binary", {}), ("wine-binary", {"alpha": 1}), ("iris-binary", {"smallest": True}),
        ("wine-binary", {"max_nodes": 4}), ("wine-binary", {"cache": "branch"}), ("wine-binary", {"cache": None}),
        ("wine-binary", {"similarity_bound": False}), ("wine-binary", {"incremental": False}),
        ("wine-binary", {"depth_two": False, "max_depth": 2}), ("wine-binary", {"node_order": "post-order"}),
        ("wine-binary", {"feature_order": "in-order"}), ("iris-binary", {"reduce_features": False}),
        ("wine-binary", {"greedy_start": False}), ("wine-binary", {"iterative_deepening": True}),
        ("wine-binary", {"bound_probing": True}), ("parity-tie", {"max_depth": 2}),
    ],
    "MurTreeRegressor": [
        ("diabetes-binary", {"max_depth": 2}), ("diabetes-binary", {"max_depth": 3, "alpha": 500}),
        ("diabetes-binary", {"max_depth": 2, "feature_order": "in-order", "cache": "branch"}),
        ("diabetes-binary", {"max_depth": 2, "bound_probing": True}),
    ],
    "QuantBnBClassifier": [
        ("iris", {}), ("iris", {"max_depth": 3}), ("wine", {"lower_bound": "W1"}), ("wine", {"lower_bound": "W2"}),
        ("wine", {"keep_ties": True}), ("wine", {"similarity": False}), ("wine", {"initial": "cart"}),
        ("wine", {"initial": "leaf", "s": 4}), ("tie", {}),
    ],
    "QuantBnBRegressor": [
        ("diabetes-120", {}), ("diabetes-120", {"max_depth": 3}), ("iris-petal-width", {"lower_bound": "W1"}),
    ],
    "DPDTClassifier": [
        ("iris", {}), ("wine", {"generator": "topb", "candidates": (4, 2)}),
        ("iris-15", {"generator": "exhaustive", "max_depth": 2}), ("wine", {"budget": "splits", "alpha": 0.01}),
        ("wine", {"criterion": "entropy", "max_depth": 4}), ("wine-weighted", {}), ("tie", {"max_depth": 2}),
    ],
    "DPDTRegressor": [
        ("diabetes-120", {}), ("iris-petal-width-15", {"generator": "exhaustive", "max_depth": 2}),
    ],
}


def case_id(estimator, index):
    dataset, params = CASES[estimator][index]
    args = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{estimator}[{index}] {dataset} {args}".rstrip()


# -- digests --------------------------------------------------------------------------------------------
def _sha(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def canonical_events(records):
    """The records as little-endian int64 / float64 fields in EVENT_DTYPE's order, NaN made canonical."""
    out_dtype = np.dtype([(f, "<f8" if records.dtype[f].kind == "f" else "<i8") for f in EVENT_FIELDS])
    out = np.zeros(records.shape[0], dtype=out_dtype)
    for f in EVENT_FIELDS:
        col = records[f].astype(out_dtype[f])
        if out_dtype[f].kind == "f":
            col[np.isnan(col)] = np.nan
        out[f] = col
    return out


def event_digests(canon):
    """A 2-byte BLAKE2b digest per event, base64 (locates the first differing event)."""
    raw = canon.tobytes()
    size = canon.dtype.itemsize
    digests = b"".join(hashlib.blake2b(raw[i:i + size], digest_size=2).digest() for i in range(0, len(raw), size))
    return base64.b64encode(digests).decode("ascii")


def _tree_arrays(tree):
    arrays = [tree.split.astype("<i8"), tree.feature.astype("<i8"), tree.threshold.astype("<f8"),
              tree.child_start.astype("<i8"), tree.n_children.astype("<i8"), tree.children.astype("<i8")]
    for a in (tree.value, tree.n_samples, tree.prediction):
        if a is not None:
            arrays.append(np.asarray(a, dtype="<f8"))
    return arrays


def _stats(result):
    stats = {k: v for k, v in result.stats.items() if k not in MACHINE_STATS}
    return {k: (v if isinstance(v, (int, float, str, bool)) or v is None else repr(v)) for k, v in sorted(stats.items())}


def run_case(estimator, index, level):
    """Fit case ``index`` of ``estimator`` at record ``level`` and return its digest (a JSON-ready dict)."""
    dataset, params = CASES[estimator][index]
    X, y, w = data(dataset)
    est = solvers.estimators()[estimator](**params, record=level)
    est.fit(X, y, sample_weight=w)
    result, tree = est.result_, est.tree_
    records = est.search_.events()
    canon = canonical_events(records)
    stats = _stats(result)
    kinds = {}
    for code in records["kind"].tolist():
        name = f"{code} {KINDS[code].algorithm}.{KINDS[code].name}"
        kinds[name] = kinds.get(name, 0) + 1
    digest = {
        "events": _sha(canon),
        "tree": _sha(*_tree_arrays(tree)),
        "result": {"objective": float(result.objective), "lower": float(result.lower_bound),
                   "upper": float(result.upper_bound), "status": result.status, "stats": stats,
                   "splits": int(tree.splits), "depth": int(tree.depth)},
        "n_events": int(records.shape[0]),
        "kinds": dict(sorted(kinds.items())),
        "fields": {f: _sha(canon[f])[:8] for f in EVENT_FIELDS},
    }
    if level == "full":  # summary events are the full stream's coarse view: counts and field hashes suffice
        digest["per_event"] = event_digests(canon)
    return digest


def all_digests():
    """``{case id: {level: digest}}`` for every case."""
    return {case_id(est, i): {level: run_case(est, i, level) for level in LEVELS}
            for est in sorted(CASES) for i in range(len(CASES[est]))}
