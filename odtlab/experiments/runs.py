"""What one experiment run is: an algorithm, a data set, parameters, a fold and a seed, with a stable key.

A :class:`Run` names everything that decides its result. Its :attr:`Run.key` is a hash of those fields
(algorithm, data set, parameters, split and fold, seed, and the time and memory limits, since a limit
changes the answer), computed from canonical JSON, so it is the same in every process, on every backend
and in every Python session: a store written by the ``local`` backend is resumed by the ``dask`` one.

Data sets are named as in :mod:`odtlab.datasets`, optionally with modifiers in brackets::

    branches/monk2-o[encoding=one-hot-last]   the -l file of the Branches paper, made from the -o file
    dl/anneal[duplicate=3]                    every row three times (MurTree Table 4, scalability in |D|)
    gen/random-binary[n=60,q=6,seed=1]        parameters of a generated set

Splits: ``"all"`` trains on the data set's training rows (the whole file, or the source's fixed
training split; its test split, if any, gives the test scores) -- the mode for tables of training
objectives. ``"cvK"`` is stratified, shuffled K-fold cross-validation over the training rows with the
run's seed (the Branches paper does not say whether its folds were either; ours are, and say so);
regression targets use shuffled K-fold.
"""
from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field, replace

import numpy as np

_SPLIT = re.compile(r"^(all|cv(\d+))$")
_DATA = re.compile(r"^([^\[\]]+?)(?:\[(.*)\])?$")


def _canonical(value):
    """JSON-ready value with tuples as lists and integral floats kept as floats (1.0 stays 1.0)."""
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"parameters must be finite numbers, got {value!r}")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a run parameter must be a number, string, bool, None or a list of them; got {value!r}")


def dumps(value):
    """Canonical JSON: sorted keys, no spaces (the text that is hashed and stored)."""
    return json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"))


def _parse_value(text):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def parse_dataset(spec):
    """``"name[k=v,...]"`` -> ``(name, {k: v})`` (values read as int, float, bool or text)."""
    if not isinstance(spec, str):
        raise TypeError(f"a data set is named by a string such as 'dl/anneal'; got {spec!r}")
    m = _DATA.match(spec.strip())
    if not m:
        raise ValueError(f"cannot read data set spec {spec!r}; write NAME or NAME[key=value,...]")
    name, inner = m.group(1).strip(), m.group(2)
    mods = {}
    if inner:
        for part in inner.split(","):
            key, sep, value = part.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"cannot read modifier {part!r} in data set spec {spec!r}; write key=value")
            mods[key.strip()] = _parse_value(value.strip())
    return name, mods


def dataset_spec(name, **modifiers):
    """The canonical spec string of a data set with modifiers (sorted keys)."""
    if not modifiers:
        return name
    return name + "[" + ",".join(f"{k}={modifiers[k]}" for k in sorted(modifiers)) + "]"


def canonical_dataset(spec):
    name, mods = parse_dataset(spec)
    return dataset_spec(name, **mods)


def split_folds(split):
    """The fold numbers of a split: ``"all"`` -> [0], ``"cv5"`` -> [0..4]."""
    m = _SPLIT.match(str(split))
    if not m:
        raise ValueError(f"split must be 'all' or 'cvK' (K >= 2, e.g. 'cv5'), got {split!r}")
    if m.group(2) is None:
        return [0]
    k = int(m.group(2))
    if k < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, got {split!r}")
    return list(range(k))


@dataclass(frozen=True)
class Run:
    """One run of a grid. ``params`` may be given as a dict; it is kept as canonical JSON text.

    ``params`` use the registry's option names (``depth``, ``lam``, ``nodes``, ``alpha``; see
    :func:`odtlab.solvers.make_estimator`) or the estimator's own parameter names. ``time_limit`` is in
    seconds and ``memory_limit`` in bytes (see :mod:`odtlab.experiments.execute` for how they act).
    """

    algorithm: str
    dataset: str
    params: str = "{}"
    split: str = "all"
    fold: int = 0
    seed: int = 0
    time_limit: float | None = None
    memory_limit: int | None = None
    key: str = field(init=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.algorithm, str) or not self.algorithm:
            raise TypeError(f"algorithm must be a non-empty string, got {self.algorithm!r}")
        params = json.loads(self.params) if isinstance(self.params, str) else dict(self.params or {})
        object.__setattr__(self, "params", dumps(params))
        object.__setattr__(self, "dataset", canonical_dataset(self.dataset))
        if int(self.fold) not in split_folds(self.split):
            raise ValueError(f"fold {self.fold} is not a fold of split {self.split!r}")
        object.__setattr__(self, "fold", int(self.fold))
        object.__setattr__(self, "seed", int(self.seed))
        for name in ("time_limit", "memory_limit"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and value > 0):
                raise ValueError(f"{name} must be a positive number or None, got {value!r}")
        if self.time_limit is not None:
            object.__setattr__(self, "time_limit", float(self.time_limit))
        if self.memory_limit is not None:
            object.__setattr__(self, "memory_limit", int(self.memory_limit))
        object.__setattr__(self, "key", run_key(self))

    @property
    def options(self):
        """The parameters as a dict."""
        return json.loads(self.params)

    def with_(self, **changes):
        return replace(self, **changes)


def run_key(run):
    """A 16-hex-digit sha256 of the run's defining fields, identical in every process and backend."""
    fields = {"algorithm": run.algorithm, "dataset": run.dataset, "params": json.loads(run.params),
              "split": run.split, "fold": run.fold, "seed": run.seed, "time_limit": run.time_limit,
              "memory_limit": run.memory_limit}
    return hashlib.sha256(dumps(fields).encode()).hexdigest()[:16]


def _expand_params(params):
    if params is None:
        return [{}]
    if isinstance(params, dict):
        keys = list(params)
        values = [v if isinstance(v, list) else [v] for v in params.values()]
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    return [dict(p) for p in params]


def grid(algorithms, datasets, params=None, split="all", seeds=(0,), time_limit=None, memory_limit=None):
    """Every (algorithm, data set, parameters, fold, seed) combination as a list of :class:`Run`.

    ``params`` is a dict whose list values are multiplied out (any other value, a tuple included, is
    fixed: ``{"depth": [2, 3], "candidates": (8, 1, 1)}`` is two runs), or a list of dicts taken as they are.
    """
    if isinstance(algorithms, str):
        algorithms = [algorithms]
    if isinstance(datasets, str):
        datasets = [datasets]
    if isinstance(seeds, int):
        seeds = [seeds]
    runs = []
    for algorithm, dataset, p, seed in itertools.product(algorithms, datasets, _expand_params(params), seeds):
        for fold in split_folds(split):
            runs.append(Run(algorithm, dataset, p, split, fold, seed, time_limit, memory_limit))
    return runs


# --------------------------------------------------------------------------------------------------
# data and folds (used in the worker)
# --------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def load_dataset(spec):
    """Load a data set spec (modifiers: ``encoding``, ``n_quantiles``, ``duplicate``, generator params)."""
    from odtlab import datasets

    name, mods = parse_dataset(spec)
    duplicate = mods.pop("duplicate", 1)
    data = datasets.load(name, **mods)
    if duplicate != 1:
        if not isinstance(duplicate, int) or duplicate < 1:
            raise ValueError(f"duplicate must be an integer >= 1, got {duplicate!r}")
        data = replace(data, X=np.tile(data.X, (duplicate, 1)),
                       y=np.tile(data.y, (duplicate,) + (1,) * (data.y.ndim - 1)))
    return data


def split_indices(y, split, fold, seed, task="classification"):
    """``(train, test)`` row indices of one fold; for ``"all"``, ``(all rows, None)``."""
    folds = split_folds(split)
    n = len(y)
    if len(folds) == 1:
        return np.arange(n), None
    from sklearn.model_selection import KFold, StratifiedKFold

    k = len(folds)
    if task == "classification":
        counts = np.bincount(np.asarray(y, dtype=np.int64))
        if counts[counts > 0].min() >= k:
            splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        else:  # a class with fewer rows than folds: stratify as far as it goes (no sklearn warning)
            splitter = _RoundRobinStratified(k, seed)
    else:
        splitter = KFold(n_splits=k, shuffle=True, random_state=seed)
    train, test = list(splitter.split(np.zeros((n, 1)), y))[fold]
    return np.sort(train), np.sort(test)


class Folds:
    """The runner's split ``"cvK"`` with a seed as a scikit-learn splitter (``cv=`` of ``cross_validate`` and
    ``GridSearchCV``): fold ``i`` is ``split_indices(y, f"cv{k}", i, seed, task)``, so scikit-learn's model
    selection and ``odtlab reproduce`` score the same rows."""

    def __init__(self, k=5, seed=0, task="classification"):
        split_folds(f"cv{k}")  # a clear error for k < 2
        self.k, self.seed, self.task = k, seed, task

    def split(self, X, y, groups=None):
        for fold in range(self.k):
            yield split_indices(np.asarray(y), f"cv{self.k}", fold, self.seed, self.task)

    def get_n_splits(self, X=None, y=None, groups=None):
        return self.k


class _RoundRobinStratified:
    """Stratified K-fold for classes smaller than K: each class's shuffled rows are dealt to the folds in
    turn, continuing from where the previous class stopped, so the folds differ in size by at most one."""

    def __init__(self, k, seed):
        self.k, self.seed = k, seed

    def split(self, X, y):
        rng = np.random.default_rng(self.seed)
        y = np.asarray(y)
        fold_of = np.empty(len(y), dtype=np.int64)
        start = 0
        for c in np.unique(y):
            rows = rng.permutation(np.flatnonzero(y == c))
            fold_of[rows] = (start + np.arange(len(rows))) % self.k
            start = (start + len(rows)) % self.k
        for f in range(self.k):
            yield np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f)
